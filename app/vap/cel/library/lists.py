"""Kubernetes lists library (k8s.io/apiserver/pkg/cel/library/lists.go), all versions: version 0
until 1.36, version 1 (adds ``includes``) from 1.37 (base.go).

The checked signatures are declared per element type as in Kubernetes (so ``[1, 2].sum()`` has
type int and ``['a'].sum()`` does not compile); the engine's run time dispatches on the receiver
kind only, so a single implementation per function is attached to an overload on
``list(kubernetes.internal.Never)``, a type no expression can produce.

Elements reach Python without their uint-ness, and an empty list gives no element type: when the
checker resolves ``sum``/``min``/``max`` to a single typed overload (``list(uint)``, ``list(double)``,
``list(duration)``), the call is rewritten into a function of that type (see :mod:`.transform`), so
``[1u, 2u].sum()`` is ``3u`` and an empty ``list(double)`` sums to ``0.0`` as in Kubernetes. On a
``dyn`` receiver cel-go picks the overload from the first element's type at run time; here JSON
values never hold uints, and the first element's Python type decides the same way.

``indexOf``/``lastIndexOf`` are declared ``list(dyn).indexOf(dyn)`` (the engine takes no Python
implementation on a type-parameterised overload, and the strings extension already owns the
names); the checks (:mod:`.checks`) reject the argument types cel-go's ``list(A).indexOf(A)`` rejects.
"""

from __future__ import annotations

import datetime
from typing import Any

from . import types as tp
from ._decl import STRING_TRAVERSAL_COST_FACTOR, T, function, overload
from .errors import LibraryError, NoSuchOverload
from .values import cel_compare, cel_equal, to_engine

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


def _sum(lst: list, zero: Any = 0) -> Any:
    if not lst:
        return to_engine(zero)
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
    return to_engine(acc)


def _pick(name: str, prefer: int):
    def pick(lst: list) -> Any:
        if not lst:
            raise LibraryError(f"{name} called on empty list")
        result = lst[0]
        for item in lst[1:]:
            if cel_compare(result, item) == prefer:
                result = item
        return to_engine(result)

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


def _includes(target: Any, item: Any) -> bool:
    """``<dyn>.includes(<dyn>)``: an element of a list equal to the argument, or anything else equal to it."""
    if isinstance(target, list):
        return any(cel_equal(x, item) for x in target)
    return cel_equal(target, item)


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


_MAX_UINT64 = (1 << 64) - 1


def _sum_uint(lst: list) -> int:
    total = sum(lst)
    if total > _MAX_UINT64:
        raise LibraryError("unsigned integer overflow")
    return total


def internal_decls(version: tuple[int, int]) -> list:
    """The typed functions sum/min/max are rewritten into when the checker resolved their overload."""
    generic = T.List(T.DYN)
    return [
        function("__k8s_list_sum_uint", overload("__k8s_list_sum_uint", T.UINT, [generic], _sum_uint, member=True,
                                                 cost=_list_cost)),
        function("__k8s_list_sum_double", overload("__k8s_list_sum_double", T.DOUBLE, [generic],
                                                   lambda lst: float(_sum(lst, 0.0)), member=True, cost=_list_cost)),
        function("__k8s_list_sum_duration", overload("__k8s_list_sum_duration", T.DURATION, [generic],
                                                     lambda lst: _sum(lst, datetime.timedelta(0)), member=True,
                                                     cost=_list_cost)),
        function("__k8s_list_min_uint", overload("__k8s_list_min_uint", T.UINT, [generic], _pick("min", 1),
                                                 member=True, cost=_list_cost)),
        function("__k8s_list_max_uint", overload("__k8s_list_max_uint", T.UINT, [generic], _pick("max", -1),
                                                 member=True, cost=_list_cost)),
    ]


def merged_decls(version: tuple[int, int]) -> list:
    """indexOf / lastIndexOf share their names with the strings extension: they must be merged; includes
    (1.37) takes dyn arguments, for which only an extension registers a Python implementation."""
    # cel-go declares list(A).indexOf(A); the engine cannot give a Python implementation to a
    # type-parameterised overload, so the checked signature is list(dyn), dyn -> int.
    out = []
    if version >= (1, 37):
        out.append(
            function("includes", overload("list_includes_dyn_dyn", T.BOOL, [T.DYN, T.DYN], _includes, member=True,
                                          cost=_list_cost))
        )
    return out + [
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
