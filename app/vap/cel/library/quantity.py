"""Kubernetes quantity library (k8s.io/apiserver/pkg/cel/library/quantity.go), from 1.28.

Parsing follows apimachinery's ``resource.ParseQuantity`` (fast int64 path, the inf.Dec path that
rounds up to nano units, the BinarySI cap at max int64, its three error texts).

Values are kept as an exact decimal ``unscaled * 10**exponent`` in canonical form, so that message
equality in the engine is numeric equality, as ``Quantity.Equal`` is in Kubernetes. Known
approximation: Kubernetes' ``isInteger``/``asInteger`` also depend on the internal representation
(``quantity('1000m').isInteger()`` is false there, because the value is stored with scale -3, and
values that took the inf.Dec path are never "integers"); here any integral value within int64 is an
integer.
"""

from __future__ import annotations

import math

from . import types as t
from ._decl import T, actual_size, function, overload, string_cost
from .errors import LibraryError

_SPLIT_RE = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"
ERR_FORMAT = f"quantities must match the regular expression '{_SPLIT_RE}'"
ERR_NUMERIC = "unable to parse numeric part of quantity"
ERR_SUFFIX = "unable to parse quantity's suffix"

_DEC_SUFFIXES = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BIN_SUFFIXES = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_MAX_INT64 = (1 << 63) - 1
_MIN_INT64 = -(1 << 63)
_MAX_EXPONENT_GAP = 4096  # beyond this, aligning two values would need absurdly large integers


class Dec:
    """An exact decimal ``unscaled * 10**exp``."""

    __slots__ = ("u", "e")

    def __init__(self, u: int, e: int) -> None:
        self.u, self.e = u, e

    def normalized(self) -> Dec:
        u, e = self.u, self.e
        if u == 0:
            return Dec(0, 0)
        while u % 10 == 0:
            u //= 10
            e += 1
        return Dec(u, e)

    def encode(self) -> str:
        n = self.normalized()
        return f"{n.u}e{n.e}"

    @staticmethod
    def decode(text: str) -> Dec:
        u, _, e = text.partition("e")
        return Dec(int(u or 0), int(e or 0))

    def sign(self) -> int:
        return (self.u > 0) - (self.u < 0)

    def _aligned(self, other: Dec) -> tuple[int, int, int]:
        a, b = self.normalized(), other.normalized()
        if a.u == 0:
            a = Dec(0, b.e)
        if b.u == 0:
            b = Dec(0, a.e)
        if abs(a.e - b.e) > _MAX_EXPONENT_GAP:
            raise LibraryError("quantity arithmetic out of the range the playground supports")
        e = min(a.e, b.e)
        return a.u * 10 ** (a.e - e), b.u * 10 ** (b.e - e), e

    def cmp(self, other: Dec) -> int:
        a, b = self.normalized(), other.normalized()
        if a.sign() != b.sign():
            return (a.sign() > b.sign()) - (a.sign() < b.sign())
        if a.u == 0:
            return 0
        # compare magnitudes by their decimal order first (cheap even for huge exponents)
        oa, ob = len(str(abs(a.u))) + a.e, len(str(abs(b.u))) + b.e
        if oa != ob:
            bigger = 1 if oa > ob else -1
            return bigger * a.sign()
        x, y, _ = a._aligned(b)
        return (x > y) - (x < y)

    def add(self, other: Dec) -> Dec:
        x, y, e = self._aligned(other)
        return Dec(x + y, e).normalized()

    def neg(self) -> Dec:
        return Dec(-self.u, self.e)

    def as_int64(self) -> int | None:
        n = self.normalized()
        if n.u == 0:
            return 0
        if n.e < 0:
            return None
        if len(str(abs(n.u))) + n.e > 20:
            return None
        v = n.u * 10**n.e
        return v if _MIN_INT64 <= v <= _MAX_INT64 else None

    def approximate_float(self) -> float:
        n = self.normalized()
        base = float(n.u)
        if n.e == 0:
            return base
        try:
            return base * math.pow(10.0, n.e)
        except OverflowError:
            return math.copysign(math.inf, base) if base else math.nan


def _round_up_to_nano(amount: Dec) -> Dec:
    """inf.Dec Round(amount, 9, RoundUp): away from zero."""
    if amount.e >= -9:
        return amount
    shift = -9 - amount.e
    q, r = divmod(abs(amount.u), 10**shift)
    if r:
        q += 1
    return Dec(q if amount.u >= 0 else -q, -9)


def parse_quantity(text: str) -> Dec:
    """resource.ParseQuantity; raises LibraryError with apimachinery's error text."""
    if not text:
        raise LibraryError(ERR_FORMAT)
    if text == "0":
        return Dec(0, 0)
    positive, value, num, denom, suffix = _scan(text)
    if suffix in _DEC_SUFFIXES:
        base, exponent, binary = 10, _DEC_SUFFIXES[suffix], False
    elif suffix in _BIN_SUFFIXES:
        base, exponent, binary = 2, _BIN_SUFFIXES[suffix], True
    elif len(suffix) > 1 and suffix[0] in "eE":
        try:
            exponent = _go_parse_int(suffix[1:])
        except ValueError:
            raise LibraryError(ERR_SUFFIX) from None
        exponent = ((exponent + 2**31) % 2**32) - 2**31  # int32 conversion
        base, binary = 10, False
    else:
        raise LibraryError(ERR_SUFFIX)

    precision = -1
    scale = 0
    mantissa = 1
    if not binary:
        scale = exponent
        precision = 18 - (len(num) + len(denom))
    elif exponent >= 0 and not denom:
        mantissa = 1 << exponent
        precision = 15 - len(num) - int(exponent * 3 / 10) - 1
    if precision >= 0:
        scale -= len(denom)
        if scale >= -9:
            shifted = int(num + denom)
            result = shifted * mantissa
            if _MIN_INT64 <= result <= _MAX_INT64:
                return Dec(result if positive else -result, scale)

    # the inf.Dec path
    amount = _parse_dec(value)
    if base == 10:
        amount = Dec(amount.u, amount.e + exponent)
    else:
        amount = Dec(amount.u * (1 << exponent), amount.e)
    negative = amount.u < 0
    if negative:
        amount = amount.neg()
    if amount.u != 0:
        amount = _round_up_to_nano(amount)
    if binary and amount.cmp(Dec(_MAX_INT64, 0)) > 0:
        amount = Dec(_MAX_INT64, 0)
    if negative:
        amount = amount.neg()
    return amount


def _go_parse_int(s: str) -> int:
    if not s or not (s.lstrip("+-").isdigit()) or s.count("+") + s.count("-") > 1 or s[1:].lstrip("0123456789"):
        raise ValueError(s)
    v = int(s)
    if not _MIN_INT64 <= v <= _MAX_INT64:
        raise ValueError(s)
    return v


def _parse_dec(value: str) -> Dec:
    sign = 1
    s = value
    if s[:1] in "+-":
        sign = -1 if s[0] == "-" else 1
        s = s[1:]
    whole, _, frac = s.partition(".")
    digits = (whole + frac) or ""
    if not digits or not digits.isdigit() or s.count(".") > 1:
        raise LibraryError(ERR_NUMERIC)
    return Dec(sign * int(digits), -len(frac))


def _scan(s: str) -> tuple[bool, str, str, str, str]:
    """apimachinery parseQuantityString: (positive, value, num, denom, suffix)."""
    positive = True
    pos, end = 0, len(s)
    if pos < end and s[0] in "+-":
        positive = s[0] != "-"
        pos += 1
    i = pos
    while True:  # strip leading zeros
        if i >= end:
            return positive, "0", "0", "", ""
        if s[i] == "0":
            pos += 1
            i += 1
            continue
        break
    i = pos
    while True:  # numerator
        if i >= end:
            return positive, s[0:end], s[pos:end], "", ""
        if not s[i].isdigit() or not s[i].isascii():
            num = s[pos:i]
            pos = i
            break
        i += 1
    if not num:
        num = "0"
    denom = ""
    if pos < end and s[pos] == ".":
        pos += 1
        i = pos
        while True:
            if i >= end:
                return positive, s[0:end], num, s[pos:end], ""
            if not (s[i].isascii() and s[i].isdigit()):
                denom = s[pos:i]
                pos = i
                break
            i += 1
    value = s[0:pos]
    suffix_start = pos
    i = pos
    while True:
        if i >= end:
            return positive, value, num, denom, s[suffix_start:end]
        if s[i] not in "eEinumkKMGTP":
            pos = i
            break
        i += 1
    if pos < end and s[pos] in "+-":
        pos += 1
    i = pos
    while True:
        if i >= end:
            return positive, value, num, denom, s[suffix_start:end]
        if not (s[i].isascii() and s[i].isdigit()):
            break
        i += 1
    raise LibraryError(ERR_FORMAT)


# ------------------------------------------------------------------------------------------------


def make(d: Dec) -> object:
    return t.new(t.QUANTITY, value=d.encode())


def value_of(msg: object) -> Dec:
    return Dec.decode(t.get(msg, "value"))


def _quantity(s: str) -> object:
    return make(parse_quantity(s))


def _is_quantity(s: str) -> bool:
    try:
        parse_quantity(s)
    except LibraryError:
        return False
    return True


def _as_integer(q: object) -> int:
    v = value_of(q).as_int64()
    if v is None:
        raise LibraryError("cannot convert value to integer")
    return v


def _check_int(v: int) -> int:
    return v


def _str_cost(s: str, result: object = None) -> int:
    return string_cost(actual_size(s))


def decls(version: tuple[int, int]) -> list:
    if version < (1, 28):
        return []
    Q = t.T(t.QUANTITY)
    return [
        function("quantity", overload("string_to_quantity", Q, [T.STRING], _quantity, cost=_str_cost)),
        function("isQuantity", overload("is_quantity_string", T.BOOL, [T.STRING], _is_quantity, cost=_str_cost)),
        function("sign", overload("quantity_sign", T.INT, [Q], lambda q: value_of(q).sign(), cost=1)),
        function(
            "asApproximateFloat",
            overload(
                "quantity_get_float", T.DOUBLE, [Q], lambda q: value_of(q).approximate_float(), member=True, cost=1
            ),
        ),
        function("asInteger", overload("quantity_get_int", T.INT, [Q], _as_integer, member=True, cost=1)),
        function(
            "isInteger",
            overload(
                "quantity_is_integer", T.BOOL, [Q], lambda q: value_of(q).as_int64() is not None, member=True, cost=1
            ),
        ),
        function(
            "add",
            overload("quantity_add", Q, [Q, Q], lambda a, b: make(value_of(a).add(value_of(b))), member=True, cost=1),
            overload(
                "quantity_add_int", Q, [Q, T.INT], lambda a, b: make(value_of(a).add(Dec(b, 0))), member=True, cost=1
            ),
        ),
        function(
            "sub",
            overload(
                "quantity_sub", Q, [Q, Q], lambda a, b: make(value_of(a).add(value_of(b).neg())), member=True, cost=1
            ),
            overload(
                "quantity_sub_int", Q, [Q, T.INT], lambda a, b: make(value_of(a).add(Dec(-b, 0))), member=True, cost=1
            ),
        ),
    ]


def _compare(a: object, b: object) -> int:
    """Quantity.Cmp, or Semver.Compare when given semvers (shared implementation, see __init__)."""
    if t.type_name(a) == t.SEMVER:
        from .semver import compare

        return compare(a, b)
    return value_of(a).cmp(value_of(b))


def comparison_overloads() -> dict[str, list]:
    """Overloads of isGreaterThan / isLessThan / compareTo (shared names with the semver library)."""
    Q = t.T(t.QUANTITY)
    return {
        "isGreaterThan": [
            overload("quantity_is_greater_than", T.BOOL, [Q, Q], lambda a, b: _compare(a, b) == 1, member=True, cost=1)
        ],
        "isLessThan": [
            overload("quantity_is_less_than", T.BOOL, [Q, Q], lambda a, b: _compare(a, b) == -1, member=True, cost=1)
        ],
        "compareTo": [overload("quantity_compare_to", T.INT, [Q, Q], _compare, member=True, cost=1)],
    }
