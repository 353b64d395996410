"""Small helpers to declare library functions for the engine."""

from __future__ import annotations

import contextvars
import functools
import math
from collections.abc import Callable, Sequence
from typing import Any

from cel_expr_python import cel

from .errors import LibraryError

T = cel.Type
STRING_TRAVERSAL_COST_FACTOR = 0.1
REGEX_STRING_LENGTH_COST_FACTOR = 0.25


class CostTracker:
    """Collects the cost of the Kubernetes library calls made during one evaluation."""

    def __init__(self) -> None:
        self.library_cost = 0
        self.calls = 0


_tracker: contextvars.ContextVar[CostTracker | None] = contextvars.ContextVar("k8s_cel_cost", default=None)


def current_tracker() -> CostTracker | None:
    return _tracker.get()


def set_tracker(tracker: CostTracker | None) -> contextvars.Token:
    return _tracker.set(tracker)


def reset_tracker(token: contextvars.Token) -> None:
    _tracker.reset(token)


def string_cost(size: int, factor: float = STRING_TRAVERSAL_COST_FACTOR) -> int:
    return int(math.ceil(size * factor))


CostFn = Callable[..., int]


def wrap(fn: Callable[..., Any], cost: CostFn | int | None = None) -> Callable[..., Any]:
    """Wrap a Python implementation: charge its Kubernetes cost and keep error texts intact."""

    @functools.wraps(fn)
    def call(*args: Any) -> Any:
        tracker = _tracker.get()
        try:
            result = fn(*args)
        except LibraryError:
            if tracker is not None and cost is not None:
                tracker.library_cost += cost if isinstance(cost, int) else _safe_cost(cost, args, None)
            raise
        except RecursionError as exc:  # pragma: no cover - defensive
            raise LibraryError(f"internal error: {exc}") from exc
        if tracker is not None:
            tracker.calls += 1
            if cost is not None:
                tracker.library_cost += cost if isinstance(cost, int) else _safe_cost(cost, args, result)
        return result

    return call


def _safe_cost(cost: CostFn, args: Sequence[Any], result: Any) -> int:
    try:
        return int(cost(*args, result=result))
    except Exception:  # a cost formula must never break an evaluation
        return 1


# What each declaration made here declares (by the id of the engine object, kept with it so that its id
# is never another object's), so that two versions' environments can be compared.
_SIGNATURES: dict[int, tuple[Any, Any]] = {}


def signature(declaration: Any) -> Any:
    """What a function or overload made by :func:`function` / :func:`overload` declares (a value equal
    for equal declarations); a declaration made otherwise gets a value equal to no other."""
    found = _SIGNATURES.get(id(declaration))
    if found is not None and found[0] is declaration:
        return found[1]
    return ("unknown", id(declaration))


# The overloads whose implementation charges a cost (by the id of the engine object, kept with it: an
# overload made and dropped must not lend its id to a later one), and the names of the functions
# declaring one: a program calling none of these functions counts no library cost.
_COSTED: dict[int, Any] = {}
COSTED_FUNCTIONS: set[str] = set()


def overload(
    overload_id: str,
    result: Any,
    params: Sequence[Any],
    impl: Callable[..., Any] | None = None,
    *,
    member: bool = False,
    cost: CostFn | int | None = None,
) -> Any:
    if impl is None:
        made = cel.Overload(overload_id, result, list(params), is_member=member)
    else:
        made = cel.Overload(overload_id, result, list(params), is_member=member, impl=wrap(impl, cost))
        if cost is not None:
            _COSTED[id(made)] = made
    _SIGNATURES[id(made)] = (made, (overload_id, result.name(), tuple(p.name() for p in params), member, impl is None))
    return made


def function(name: str, *overloads: Any) -> Any:
    made = cel.FunctionDecl(name, list(overloads))
    if any(_COSTED.get(id(o)) is o for o in overloads):
        COSTED_FUNCTIONS.update((name, name.rsplit(".", 1)[-1]))  # as a call names it, with a namespace or not
    _SIGNATURES[id(made)] = (made, (name, frozenset(signature(o) for o in overloads)))
    return made


def actual_size(value: Any) -> int:
    """cel-go's actualSize: length of strings/bytes/lists/maps, 1 otherwise."""
    if isinstance(value, str | bytes | bytearray | list | tuple | dict):
        return len(value)
    return 1
