"""Kubernetes quantity library (k8s.io/apiserver/pkg/cel/library/quantity.go), from 1.28.

Parsing follows apimachinery's ``resource.ParseQuantity`` (fast int64 path, the inf.Dec path that
rounds up to nano units, the BinarySI cap at max int64, its three error texts).

A value keeps apimachinery's internal representation, because the library exposes it:
``isInteger()``/``asInteger()`` are ``Quantity.AsInt64()``, which fails for an ``int64Amount`` with a
negative scale (``quantity('1000m')``, ``quantity('1.0')``) and for every value that took the inf.Dec
path, whatever the number; ``asApproximateFloat()`` multiplies the unscaled value by ``10^scale``.
``add``/``sub`` follow ``Quantity.Add``/``Sub`` (int64 arithmetic while it fits, inf.Dec otherwise)
and return a pointer value (``&Quantity{}``) where ``quantity()`` returns a plain one: cel-go's
``Quantity.Equal`` accepts only a plain value on its right-hand side, so ``quantity('2') ==
quantity('1').add(1)`` is a "no such overload" error in the apiserver.

Equality in the engine is message equality, so two equal quantities with different
representations would compare unequal there. ``==``, ``!=`` and ``in`` on operands whose checked
type holds a Quantity are therefore rewritten into :func:`cel_equals` (see :mod:`.transform`),
which compares numerically as ``Quantity.Equal`` does. Known limit: when both operands are typed
``dyn`` (``dyn(a) == dyn(b)``), and in the engine's own list functions (``sets.*``, ``distinct()``),
quantities compare by representation.
"""

from __future__ import annotations

import math
import sys
from typing import Any

from . import types as t
from ._decl import T, actual_size, function, overload, string_cost
from .errors import LibraryError, NoSuchOverload
from .values import cel_equal

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

    def neg(self) -> Dec:
        return Dec(-self.u, self.e)

    def decimal_text(self) -> str:
        """The exact value as a decimal number ("1.5", "1000", "-0.001"; "1e30" beyond 20 digits)."""
        n = self.normalized()
        if n.e >= 0:
            return f"{n.u}e{n.e}" if n.e > 20 else str(n.u * 10**n.e)
        if n.e < -30:
            return f"{n.u}e{n.e}"
        digits = str(abs(n.u)).rjust(-n.e + 1, "0")
        return ("-" if n.u < 0 else "") + digits[: n.e] + "." + digits[n.e :]


def _round_up_to_nano(amount: Dec) -> Dec:
    """inf.Dec Round(amount, 9, RoundUp): quantized to scale 9 (exponent -9), away from zero."""
    shift = -9 - amount.e
    if shift <= 0:
        if -shift > _MAX_EXPONENT_GAP:  # keep absurd exponents unscaled (same value)
            return amount
        return Dec(amount.u * 10**-shift, -9)
    q, r = divmod(abs(amount.u), 10**shift)
    if r:
        q += 1
    return Dec(q if amount.u >= 0 else -q, -9)


def parse_quantity(text: str) -> Dec:
    """The exact value of resource.ParseQuantity(text); raises LibraryError with apimachinery's error text."""
    return parse_amount(text).dec


def parse_amount(text: str) -> Amount:
    """resource.ParseQuantity, keeping its representation; raises LibraryError with apimachinery's error text."""
    if not text:
        raise LibraryError(ERR_FORMAT)
    if text == "0":
        return Amount(INT64, Dec(0, 0))
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
            shifted = _integer(num + denom)
            result = shifted * mantissa
            if _MIN_INT64 <= result <= _MAX_INT64:
                return Amount(INT64, Dec(result if positive else -result, scale))

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
    return Amount(INF_DEC, amount)


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
    return Dec(sign * _integer(digits), -len(frac))


def _integer(digits: str) -> int:
    """The integer a quantity's digits write. Python reads a bounded number of digits (its guard against the time a
    longer conversion takes; Go's decimal type has none): a longer quantity is refused with the playground's own
    text instead of an error of Python's."""
    bound = sys.get_int_max_str_digits()
    if bound and len(digits) > bound:
        raise LibraryError(f"a quantity of {len(digits):,} digits: the playground reads quantities of at most "
                           f"{bound:,} digits (kube-apiserver takes longer ones)")
    return int(digits)


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
# The representation: apimachinery's Quantity holds an int64Amount (value, scale) or an inf.Dec.

INT64, INF_DEC = "i", "d"


class Amount:
    """A quantity as apimachinery holds it: ``kind`` INT64 (value * 10**scale, both int64/int32) or
    INF_DEC (unscaled * 10**exponent, arbitrary precision); ``pointer`` marks add/sub results."""

    __slots__ = ("kind", "dec", "pointer")

    def __init__(self, kind: str, dec: Dec, pointer: bool = False) -> None:
        self.kind, self.dec, self.pointer = kind, dec, pointer

    def as_int64(self) -> int | None:
        """Quantity.AsInt64: None when it reports failure."""
        if self.kind == INF_DEC:
            return None
        value, scale = self.dec.u, self.dec.e
        if scale == 0:
            return value
        if scale < 0:  # "it is assumed that factors are reduced prior to the int64Amount being created"
            return None
        return _positive_scale_int64(value, scale)

    def approximate_float(self) -> float:
        """Quantity.AsApproximateFloat64: float(unscaled) * math.Pow10(exponent)."""
        base = _to_float(self.dec.u)
        if self.dec.e == 0:
            return base
        return base * _go_pow10(self.dec.e)

    def to_dec(self) -> Dec:
        return Dec(self.dec.u, self.dec.e)


def _int64_ok(v: int) -> bool:
    return _MIN_INT64 <= v <= _MAX_INT64


def _positive_scale_int64(value: int, scale: int) -> int | None:
    if scale > 19 and value != 0:
        return None
    result = value * 10**scale
    return result if _int64_ok(result) else None


def _to_float(u: int) -> float:
    try:
        return float(u)
    except OverflowError:
        return math.copysign(math.inf, u)


def _go_pow10(n: int) -> float:
    """Go's math.Pow10 (table based; 0 below 1e-323, +Inf above 1e308)."""
    if 0 <= n <= 308:
        return _POW10_POS32[n // 32] * _POW10[n % 32]
    if -323 <= n < 0:
        return _POW10_NEG32[-n // 32] / _POW10[-n % 32]
    return math.inf if n > 0 else 0.0


_POW10 = [float(10**i) for i in range(32)]
_POW10_POS32 = [float(f"1e{32 * i}") for i in range(10)]
_POW10_NEG32 = [float(f"1e-{32 * i}") for i in range(11)]


def _int64_add(a: Dec, b: Dec) -> Dec | None:
    """int64Amount.Add (scales are int32 exponents); None when int64 arithmetic overflows."""
    if b.u == 0:
        return a
    if a.u == 0:
        return b
    if a.e == b.e:
        c = a.u + b.u
        return Dec(c, a.e) if _int64_ok(c) else None
    if a.e > b.e:
        scaled = _positive_scale_int64(a.u, a.e - b.e)
        if scaled is None or not _int64_ok(scaled + b.u):
            return None
        return Dec(scaled + b.u, b.e)
    scaled = _positive_scale_int64(b.u, b.e - a.e)
    if scaled is None or not _int64_ok(a.u + scaled):
        return None
    return Dec(a.u + scaled, a.e)


def _dec_add(a: Dec, b: Dec) -> Dec:
    """inf.Dec Add: exact, at the larger scale (the smaller exponent)."""
    if abs(a.e - b.e) > _MAX_EXPONENT_GAP:
        raise LibraryError("quantity arithmetic out of the range the playground supports")
    e = min(a.e, b.e)
    return Dec(a.u * 10 ** (a.e - e) + b.u * 10 ** (b.e - e), e)


def _go_negate(v: int) -> int:
    return v if v == _MIN_INT64 else -v  # Go's -MinInt64 wraps to MinInt64


def quantity_add(q: Amount, y: Amount) -> Amount:
    """Quantity.Add on a deep copy of q (the library's quantityAdd)."""
    if q.kind == INT64 and y.kind == INT64:
        s = _int64_add(q.dec, y.dec)
        if s is not None:
            return Amount(INT64, s, pointer=True)
    return Amount(INF_DEC, _dec_add(q.to_dec(), y.to_dec()), pointer=True)


def quantity_sub(q: Amount, y: Amount) -> Amount:
    """Quantity.Sub on a deep copy of q (the library's quantitySub)."""
    if q.kind == INT64 and y.kind == INT64:
        s = _int64_add(q.dec, Dec(_go_negate(y.dec.u), y.dec.e))
        if s is not None:
            return Amount(INT64, s, pointer=True)
    return Amount(INF_DEC, _dec_add(q.to_dec(), y.to_dec().neg()), pointer=True)


def make(amount: Amount) -> object:
    d = amount.dec
    return t.new(t.QUANTITY, value=d.encode(), rep=f"{amount.kind}:{d.u}:{d.e}", pointer=amount.pointer)


def amount_of(msg: object) -> Amount:
    kind, u, e = str(t.get(msg, "rep")).split(":")
    return Amount(kind, Dec(int(u), int(e)), bool(t.get(msg, "pointer")))


def value_of(msg: object) -> Dec:
    """The exact value of a Quantity message."""
    return amount_of(msg).dec


def _quantity(s: str) -> object:
    return make(parse_amount(s))


def _is_quantity(s: str) -> bool:
    try:
        parse_quantity(s)
    except LibraryError:
        return False
    return True


def _as_integer(q: object) -> int:
    v = amount_of(q).as_int64()
    if v is None:
        raise LibraryError("cannot convert value to integer")
    return v


def _new_quantity(v: int) -> Amount:
    """resource.NewQuantity(v, DecimalExponent)."""
    return Amount(INT64, Dec(v, 0))


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
                "quantity_get_float", T.DOUBLE, [Q], lambda q: amount_of(q).approximate_float(), member=True, cost=1
            ),
        ),
        function("asInteger", overload("quantity_get_int", T.INT, [Q], _as_integer, member=True, cost=1)),
        function(
            "isInteger",
            overload(
                "quantity_is_integer", T.BOOL, [Q], lambda q: amount_of(q).as_int64() is not None, member=True, cost=1
            ),
        ),
        function(
            "add",
            overload("quantity_add", Q, [Q, Q], lambda a, b: make(quantity_add(amount_of(a), amount_of(b))),
                     member=True, cost=1),
            overload("quantity_add_int", Q, [Q, T.INT], lambda a, b: make(quantity_add(amount_of(a), _new_quantity(b))),
                     member=True, cost=1),
        ),
        function(
            "sub",
            overload("quantity_sub", Q, [Q, Q], lambda a, b: make(quantity_sub(amount_of(a), amount_of(b))),
                     member=True, cost=1),
            overload("quantity_sub_int", Q, [Q, T.INT], lambda a, b: make(quantity_sub(amount_of(a), _new_quantity(b))),
                     member=True, cost=1),
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


# ------------------------------------------------------------------------------------------------
# Equality as cel-go computes it when Quantity values take part (types.Equal, baseList.Equal/Contains,
# baseMap.Equal); used through the rewriting of ==, != and `in` (see transform).

_NO_OVERLOAD = object()  # cel-go's "no such overload" error value


def _holds_quantity(v: Any) -> bool:
    return t.type_name(v) == t.QUANTITY


def _equal(a: Any, b: Any) -> Any:
    """types.Equal(a, b): True, False or _NO_OVERLOAD."""
    if a is None or b is None:
        return a is None and b is None
    if _holds_quantity(a):
        # Quantity.Equal: `other.(Quantity)` accepts only a plain (non-pointer) Quantity
        if not _holds_quantity(b) or amount_of(b).pointer:
            return _NO_OVERLOAD
        return value_of(a).cmp(value_of(b)) == 0
    if isinstance(a, list):
        if not isinstance(b, list) or len(a) != len(b):
            return False
        # an element comparison that errors does not make the lists unequal (only False does)
        return all(_equal(x, y) is not False for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        if not isinstance(b, dict) or len(a) != len(b):
            return False
        for key, value in a.items():
            match = [k for k in b if cel_equal(k, key)]
            if not match or _equal(value, b[match[0]]) is False:
                return False
        return True
    if _holds_quantity(b):
        return False
    return cel_equal(a, b)


def _equals(a: Any, b: Any) -> bool:
    result = _equal(a, b)
    if result is _NO_OVERLOAD:
        raise NoSuchOverload()
    return bool(result)


def _not_equals(a: Any, b: Any) -> bool:
    return _equal(a, b) is not True


def _in(item: Any, items: list) -> bool:
    return any(_equal(item, x) is True for x in items)


def internal_decls(version: tuple[int, int]) -> list:
    """The functions ``==``, ``!=`` and ``in`` are rewritten into when a Quantity takes part."""
    if version < (1, 28):
        return []
    return [
        function("__k8s_equals", overload("__k8s_equals", T.BOOL, [T.DYN, T.DYN], _equals)),
        function("__k8s_not_equals", overload("__k8s_not_equals", T.BOOL, [T.DYN, T.DYN], _not_equals)),
        function("__k8s_in", overload("__k8s_in", T.BOOL, [T.DYN, T.List(T.DYN)], _in)),
    ]
