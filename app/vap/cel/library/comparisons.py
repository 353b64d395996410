"""Cross-type numeric comparisons (cel-go CrossTypeNumericComparisons, Kubernetes 1.28+).

The standard ``_<_``, ``_<=_``, ``_>_``, ``_>=_`` are excluded from the engine's standard library
declarations (see versions.environment_yaml) and redeclared here with the int/uint/double cross
overloads. The declarations carry no implementation: the engine's run time already implements
every pair.
"""

from __future__ import annotations

from ._decl import T, function, overload
from .versions import COMPARISON_OPERATORS

_NAMES = {"_<_": "less", "_<=_": "less_equals", "_>_": "greater", "_>=_": "greater_equals"}


def decls(version: tuple[int, int]) -> list:
    numeric = [("int64", T.INT), ("uint64", T.UINT), ("double", T.DOUBLE)]
    same = [
        ("bool", T.BOOL),
        ("string", T.STRING),
        ("bytes", T.BYTES),
        ("timestamp", T.TIMESTAMP),
        ("duration", T.DURATION),
    ]
    out = []
    for op in COMPARISON_OPERATORS:
        base = _NAMES[op]
        overloads = []
        for name, ty in same:
            overloads.append(overload(f"{base}_{name}", T.BOOL, [ty, ty]))
        for an, at in numeric:
            for bn, bt in numeric:
                if an != bn and version < (1, 28):  # CrossTypeNumericComparisons arrived in 1.28
                    continue
                oid = f"{base}_{an}" if an == bn else f"{base}_{an}_{bn}"
                overloads.append(overload(oid, T.BOOL, [at, bt]))
        out.append(function(op, *overloads))
    return out


def string_overloads(version: tuple[int, int]) -> list:
    """The standard string() conversions, as declarations (the run time implements them)."""
    return [
        overload(oid, T.STRING, [ty])
        for oid, ty in [
            ("string_to_string", T.STRING),
            ("int64_to_string", T.INT),
            ("uint64_to_string", T.UINT),
            ("double_to_string", T.DOUBLE),
            ("bool_to_string", T.BOOL),
            ("bytes_to_string", T.BYTES),
            ("timestamp_to_string", T.TIMESTAMP),
            ("duration_to_string", T.DURATION),
        ]
    ]
