"""Kubernetes lists library (k8s.io/apiserver/pkg/cel/library/lists.go), all versions.

The checked signatures are declared per element type as in Kubernetes (so ``[1, 2].sum()`` has
type int and ``['a'].sum()`` does not compile); the engine's run time dispatches on the receiver
kind only, so a single implementation per function is attached to an overload on
``list(kubernetes.internal.Never)``, a type no expression can produce.

Known approximation: elements reach Python without their uint-ness, so ``[1u, 2u].sum()`` is
typed uint by the checker but its run-time value is an int (equal to the uint under CEL's
heterogeneous equality).
"""

from __future__ import annotations

import datetime
from typing import Any

from . import types as tp
from ._decl import STRING_TRAVERSAL_COST_FACTOR, T, function, overload
from .errors import LibraryError, NoSuchOverload
from .values import cel_compare, cel_equal

_SUMMABLE = [("int", T.INT), ("uint", T.UINT), ("double", T.DOUBLE), ("duration", T.DURATION)]
_COMPARABLE = _SUMMABLE[:3] + [
    ("bool", T.BOOL),
    ("duration", T.DURATION),
    ("timestamp", T.TIMESTAMP),
    ("string", T.STRING),
    ("bytes", T.BYTES),
]


def traversal_cost(v: Any) -> int:
    if isinstance(v, str | bytes | bytearray):
        return int(len(v) * STRING_TRAVERSAL_COST_FACTOR)
    if isinstance(v, list):
        return sum(traversal_cost(i) for i in v)
    if isinstance(v, dict):
        return sum(traversal_cost(k) + traversal_cost(x) for k, x in v.items())
    return 1


def _list_cost(lst: Any, *rest: Any, result: Any = None) -> int:
    return traversal_cost(lst)


def _is_sorted(lst: list) -> bool:
    for prev, nxt in zip(lst, lst[1:], strict=False):
        if cel_compare(prev, nxt) == 1:
            return False
    return True


def _sum(lst: list) -> Any:
    if not lst:
        return 0
    acc = lst[0]
    for item in lst[1:]:
        if isinstance(acc, bool) or isinstance(item, bool):
            raise NoSuchOverload()
        if isinstance(acc, datetime.timedelta) != isinstance(item, datetime.timedelta):
            raise NoSuchOverload()
        if isinstance(acc, int) and isinstance(item, float) or isinstance(acc, float) and isinstance(item, int):
            raise NoSuchOverload()
        acc = acc + item
        if isinstance(acc, int) and not -(1 << 63) <= acc < (1 << 63):
            raise LibraryError("integer overflow")
    return _to_engine(acc)


def _pick(name: str, prefer: int):
    def pick(lst: list) -> Any:
        if not lst:
            raise LibraryError(f"{name} called on empty list")
        result = lst[0]
        for item in lst[1:]:
            if cel_compare(result, item) == prefer:
                result = item
        return _to_engine(result)

    return pick


def _index_of(lst: list, item: Any) -> int:
    for i, x in enumerate(lst):
        if cel_equal(x, item):
            return i
    return -1


def _last_index_of(lst: list, item: Any) -> int:
    for i in range(len(lst) - 1, -1, -1):
        if cel_equal(lst[i], item):
            return i
    return -1


def _to_engine(value: Any) -> Any:
    """Values returned through a dyn-typed implementation: the engine converts protobuf well-known
    types (Duration, Timestamp) to CEL durations and timestamps, not Python's datetime types."""
    if isinstance(value, datetime.timedelta):
        from google.protobuf import duration_pb2

        d = duration_pb2.Duration()
        d.FromTimedelta(value)
        return d
    if isinstance(value, datetime.datetime):
        from google.protobuf import timestamp_pb2

        ts = timestamp_pb2.Timestamp()
        ts.FromDatetime(value)
        return ts
    return value


def _never_list() -> Any:
    return T.List(tp.T(tp.NEVER))


def decls(version: tuple[int, int]) -> list:
    out = [
        function(
            "isSorted",
            *[overload(f"list_{n}_is_sorted_bool", T.BOOL, [T.List(ty)], member=True) for n, ty in _COMPARABLE],
            overload("list_is_sorted_impl", T.BOOL, [_never_list()], _is_sorted, member=True, cost=_list_cost),
        ),
        function(
            "sum",
            *[overload(f"list_{n}_sum_{n}", ty, [T.List(ty)], member=True) for n, ty in _SUMMABLE],
            overload("list_sum_impl", T.DYN, [_never_list()], _sum, member=True, cost=_list_cost),
        ),
        function(
            "max",
            *[overload(f"list_{n}_max_{n}", ty, [T.List(ty)], member=True) for n, ty in _COMPARABLE],
            overload("list_max_impl", T.DYN, [_never_list()], _pick("max", -1), member=True, cost=_list_cost),
        ),
        function(
            "min",
            *[overload(f"list_{n}_min_{n}", ty, [T.List(ty)], member=True) for n, ty in _COMPARABLE],
            overload("list_min_impl", T.DYN, [_never_list()], _pick("min", 1), member=True, cost=_list_cost),
        ),
    ]
    return out


def merged_decls(version: tuple[int, int]) -> list:
    """indexOf / lastIndexOf share their names with the strings extension: they must be merged."""
    # cel-go declares list(A).indexOf(A); the engine cannot give a Python implementation to a
    # type-parameterised overload, so the checked signature is list(dyn), dyn -> int.
    return [
        function(
            "indexOf",
            overload("list_a_index_of_int", T.INT, [T.List(T.DYN), T.DYN], _index_of, member=True, cost=_list_cost),
        ),
        function(
            "lastIndexOf",
            overload(
                "list_a_last_index_of_int", T.INT, [T.List(T.DYN), T.DYN], _last_index_of, member=True, cost=_list_cost
            ),
        ),
    ]
