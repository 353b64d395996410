"""Kubernetes semver library (k8s.io/apiserver/pkg/cel/library/semverlib.go), from 1.33.

Parsing follows blang/semver v4 ``Parse`` (strict SemVer 2.0) with its error texts, and the
library's ``normalize`` option (leading ``v`` stripped, missing minor/patch filled, leading zeros
removed).
"""

from __future__ import annotations

from . import types as tp
from ._decl import T, actual_size, function, overload, string_cost
from .errors import LibraryError

_NUMBERS = "0123456789"
_ALPHANUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" + _NUMBERS + "-"
_MAX_UINT64 = (1 << 64) - 1


class SemverError(Exception):
    pass


def _parse_uint(s: str) -> int:
    if not s or not all(c in _NUMBERS for c in s):
        raise SemverError(f'strconv.ParseUint: parsing "{s}": invalid syntax')
    v = int(s)
    if v > _MAX_UINT64:
        raise SemverError(f'strconv.ParseUint: parsing "{s}": value out of range')
    return v


def _only(s: str, allowed: str) -> bool:
    return all(c in allowed for c in s)


def _leading_zero(s: str) -> bool:
    return len(s) > 1 and s[0] == "0"


def parse(s: str) -> tuple[int, int, int, list[str], list[str]]:
    """blang/semver v4 Parse -> (major, minor, patch, prerelease, build)."""
    if not s:
        raise SemverError("Version string empty")
    parts = s.split(".", 2)
    if len(parts) != 3:
        raise SemverError("No Major.Minor.Patch elements found")
    names = ("major", "minor")
    nums = []
    for name, p in zip(names, parts[:2], strict=True):
        if not _only(p, _NUMBERS):
            raise SemverError(f'Invalid character(s) found in {name} number "{p}"')
        if _leading_zero(p):
            raise SemverError(f'{name.capitalize()} number must not contain leading zeroes "{p}"')
        nums.append(_parse_uint(p))
    patch = parts[2]
    build: list[str] = []
    pre: list[str] = []
    if "+" in patch:
        patch, _, b = patch.partition("+")
        build = b.split(".")
    if "-" in patch:
        patch, _, p = patch.partition("-")
        pre = p.split(".")
    if not _only(patch, _NUMBERS):
        raise SemverError(f'Invalid character(s) found in patch number "{patch}"')
    if _leading_zero(patch):
        raise SemverError(f'Patch number must not contain leading zeroes "{patch}"')
    nums.append(_parse_uint(patch))
    for p in pre:
        if not p:
            raise SemverError("Prerelease is empty")
        if _only(p, _NUMBERS):
            if _leading_zero(p):
                raise SemverError(f'Numeric PreRelease version must not contain leading zeroes "{p}"')
            _parse_uint(p)
        elif not _only(p, _ALPHANUM):
            raise SemverError(f'Invalid character(s) found in prerelease "{p}"')
    for b in build:
        if not b:
            raise SemverError("Build meta data is empty")
        if not _only(b, _ALPHANUM):
            raise SemverError(f'Invalid character(s) found in build meta data "{b}"')
    return nums[0], nums[1], nums[2], pre, build


def normalize_and_parse(s: str) -> tuple[int, int, int, list[str], list[str]]:
    if s.startswith("v"):
        s = s[1:]
    parts = s.split(".", 2)
    for i, p in enumerate(parts):
        if len(p) > 1:
            p = p.lstrip("0")
            if not p or p[0] not in _NUMBERS:
                p = "0" + p
            parts[i] = p
    if len(parts) < 3:
        if any(c in parts[-1] for c in "+-"):
            raise SemverError("short version cannot contain PreRelease/Build meta data")
        while len(parts) < 3:
            parts.append("0")
    return parse(".".join(parts))


def _compare_pre(a: list[str], b: list[str]) -> int:
    if not a and not b:
        return 0
    if not a:
        return 1
    if not b:
        return -1
    for x, y in zip(a, b, strict=False):
        xn, yn = _only(x, _NUMBERS), _only(y, _NUMBERS)
        if xn and yn:
            c = (int(x) > int(y)) - (int(x) < int(y))
        elif xn:
            c = -1
        elif yn:
            c = 1
        else:
            c = (x > y) - (x < y)
        if c:
            return c
    return (len(a) > len(b)) - (len(a) < len(b))


def compare(a: object, b: object) -> int:
    ka = (tp.get(a, "major"), tp.get(a, "minor"), tp.get(a, "patch"))
    kb = (tp.get(b, "major"), tp.get(b, "minor"), tp.get(b, "patch"))
    if ka != kb:
        return 1 if ka > kb else -1
    return _compare_pre(list(tp.get(a, "pre")), list(tp.get(b, "pre")))


def _make(v: tuple[int, int, int, list[str], list[str]]) -> object:
    major, minor, patch, pre, _build = v
    for n in (major, minor, patch):
        if n >= 1 << 63:
            raise LibraryError("semver component out of the int64 range the playground supports")
    return tp.new(tp.SEMVER, major=major, minor=minor, patch=patch, pre=pre)


def _semver(s: str, normalize: bool = False) -> object:
    try:
        return _make(normalize_and_parse(s) if normalize else parse(s))
    except SemverError as exc:
        raise LibraryError(str(exc)) from None


def _is_semver(s: str, normalize: bool = False) -> bool:
    try:
        normalize_and_parse(s) if normalize else parse(s)
    except SemverError:
        return False
    return True


def _str_cost(s: str, *rest: object, result: object = None) -> int:
    return string_cost(actual_size(s))


def decls(version: tuple[int, int]) -> list:
    if version < (1, 33):
        return []
    S = tp.T(tp.SEMVER)
    return [
        function(
            "semver",
            overload("string_to_semver", S, [T.STRING], _semver, cost=_str_cost),
            overload("string_bool_to_semver", S, [T.STRING, T.BOOL], _semver, cost=_str_cost),
        ),
        function(
            "isSemver",
            overload("is_semver_string", T.BOOL, [T.STRING], _is_semver, cost=_str_cost),
            overload("is_semver_string_bool", T.BOOL, [T.STRING, T.BOOL], _is_semver, cost=_str_cost),
        ),
        function("major", overload("semver_major", T.INT, [S], lambda v: tp.get(v, "major"), member=True, cost=1)),
        function("minor", overload("semver_minor", T.INT, [S], lambda v: tp.get(v, "minor"), member=True, cost=1)),
        function("patch", overload("semver_patch", T.INT, [S], lambda v: tp.get(v, "patch"), member=True, cost=1)),
    ]


def comparison_overloads(version: tuple[int, int]) -> dict[str, list]:
    """Declarations only: the quantity library's implementations handle Semver arguments too."""
    if version < (1, 33):
        return {}
    S = tp.T(tp.SEMVER)
    return {
        "isGreaterThan": [overload("semver_is_greater_than", T.BOOL, [S, S], member=True)],
        "isLessThan": [overload("semver_is_less_than", T.BOOL, [S, S], member=True)],
        "compareTo": [overload("semver_compare_to", T.INT, [S, S], member=True)],
    }
