"""``int()``, ``uint()`` and ``double()`` of strings as cel-go converts them (Go's strconv).

The engine parses with absl (``int(' 1')`` is 1, ``double('1e400')`` is +Inf) where cel-go uses
``strconv.ParseInt``/``ParseUint``/``ParseFloat`` (both are errors: ``type conversion error from
'string' to 'int'``). Calls whose argument may be a string (typed ``string`` or ``dyn``) are
rewritten into these functions (see :mod:`.transform`); the other argument kinds follow cel-go's
``ConvertToType`` of that kind (common/types/int.go, uint.go, double.go, timestamp.go, duration.go,
overflow.go).
"""

from __future__ import annotations

import datetime
import decimal
import math
import re
from typing import Any

from ._decl import T, function, overload
from .errors import LibraryError, NoSuchOverload

_MAX_INT64 = (1 << 63) - 1
_MIN_INT64 = -(1 << 63)
_MAX_UINT64 = (1 << 64) - 1
_TWO_TO_63 = 2.0**63
_TWO_TO_64 = 2.0**64

_INT = re.compile(r"[+-]?[0-9]+")
_UINT = re.compile(r"[0-9]+")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_HEX = re.compile(r"([+-]?)0[xX]((?:[0-9a-fA-F_]+\.?[0-9a-fA-F_]*|\.[0-9a-fA-F_]+)[pP][+-]?[0-9_]+)")
_SPECIAL = re.compile(r"([+-]?)(inf|infinity|nan)", re.IGNORECASE)


def _conversion_error(target: str) -> LibraryError:
    return LibraryError(f"type conversion error from 'string' to '{target}'")


def go_parse_int(s: str) -> int:
    """strconv.ParseInt(s, 10, 64)."""
    if not _INT.fullmatch(s):
        raise _conversion_error("int")
    v = int(s)
    if not _MIN_INT64 <= v <= _MAX_INT64:
        raise _conversion_error("int")
    return v


def go_parse_uint(s: str) -> int:
    """strconv.ParseUint(s, 10, 64) (no sign allowed)."""
    if not _UINT.fullmatch(s):
        raise _conversion_error("uint")
    v = int(s)
    if v > _MAX_UINT64:
        raise _conversion_error("uint")
    return v


def go_parse_float(s: str) -> float:
    """strconv.ParseFloat(s, 64): an out-of-range value is an error; underflow gives zero."""
    m = _SPECIAL.fullmatch(s)
    if m:
        if m.group(2).lower() == "nan":
            return math.nan
        return -math.inf if m.group(1) == "-" else math.inf
    try:
        if _DECIMAL.fullmatch(s):
            v = float(s)
        else:
            h = _HEX.fullmatch(s)
            if not h or "__" in h.group(2) or h.group(2).startswith("_"):
                raise _conversion_error("double")
            v = float.fromhex(h.group(1) + "0x" + h.group(2).replace("_", ""))
    except (OverflowError, ValueError):
        raise _conversion_error("double") from None
    if math.isinf(v):
        raise _conversion_error("double")
    return v


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def to_int(v: Any) -> int:
    """int(v) for a string or dyn argument."""
    if isinstance(v, str):
        return go_parse_int(v)
    if isinstance(v, float):
        if math.isinf(v) or math.isnan(v) or v <= -_TWO_TO_63 or v >= _TWO_TO_63:
            raise LibraryError("integer overflow")
        return int(v)
    if _is_number(v):
        if v > _MAX_INT64:  # a uint beyond int64
            raise LibraryError("integer overflow")
        return v
    if isinstance(v, datetime.datetime):
        return math.floor(v.timestamp())
    if isinstance(v, datetime.timedelta):
        return (v.days * 86400 + v.seconds) * 1_000_000_000 + v.microseconds * 1000
    raise NoSuchOverload()


def to_uint(v: Any) -> int:
    """uint(v) for a string or dyn argument."""
    if isinstance(v, str):
        return go_parse_uint(v)
    if isinstance(v, float):
        if math.isinf(v) or math.isnan(v) or v < 0 or v >= _TWO_TO_64:
            raise LibraryError("unsigned integer overflow")
        return int(v)
    if _is_number(v):
        if v < 0:
            raise LibraryError("unsigned integer overflow")
        return v
    raise NoSuchOverload()


def to_double(v: Any) -> float:
    """double(v) for a string or dyn argument."""
    if isinstance(v, str):
        return go_parse_float(v)
    if _is_number(v):
        return float(v)
    raise NoSuchOverload()


def _nanoseconds(engine_text: str) -> int:
    """The nanoseconds of a duration from the engine's exact string form ("1.500000001s", "-90s")."""
    return int(decimal.Decimal(engine_text.removesuffix("s")) * 1_000_000_000)


def duration_nanoseconds(engine_text: str) -> int:
    """int(duration) as cel-go gives it (Duration.ConvertToType(IntType): nanoseconds); the engine has
    no int(duration) at run time."""
    return _nanoseconds(engine_text)


def duration_string(engine_text: str) -> str:
    """string(duration) as cel-go gives it: strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"."""
    nanoseconds = _nanoseconds(engine_text)
    sign = -1 if nanoseconds < 0 else 1
    sec, nsec = divmod(abs(nanoseconds), 1_000_000_000)
    seconds = float(sign * sec) + float(sign * nsec) / 1e9  # time.Duration.Seconds
    text = format(decimal.Decimal(repr(seconds)), "f")  # the shortest digits, without an exponent
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return ("0" if text in ("-0", "") else text) + "s"


# the checker's overloads of a conversion -> the function the call is rewritten into
STRING_CONVERSIONS = {
    "string_to_int64": "__k8s_to_int",
    "string_to_uint64": "__k8s_to_uint",
    "string_to_double": "__k8s_to_double",
}


def internal_decls(version: tuple[int, int]) -> list:
    """The conversions int/uint/double calls taking a string (or dyn) are rewritten into."""
    return [
        function("__k8s_to_int", overload("__k8s_to_int", T.INT, [T.DYN], to_int)),
        function("__k8s_to_uint", overload("__k8s_to_uint", T.UINT, [T.DYN], to_uint)),
        function("__k8s_to_double", overload("__k8s_to_double", T.DOUBLE, [T.DYN], to_double)),
        function("__k8s_duration_string", overload("__k8s_duration_string", T.STRING, [T.STRING], duration_string)),
        function("__k8s_duration_int", overload("__k8s_duration_int", T.INT, [T.STRING], duration_nanoseconds)),
    ]
