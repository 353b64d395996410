"""Cost of one evaluation, after the apiserver's model (cel-go runtime cost + pkg/cel/library/cost.go).

Exact replication needs cel-go's interpreter; the engine here (cel-cpp) has no cost tracking. The
cost is therefore computed in two parts:

* **library calls** (quantity, regex find, authorizer check, lists sum ...): counted while
  evaluating, by the Python implementations, with the formulas of ``cost.go`` applied to the actual
  arguments (exact, for the calls that ran);
* **everything else**: walked over the checked AST with cel-go's per-node unit costs (identifier,
  select, operator and function call 1; constants 0; has() 0 as Kubernetes configures it; string
  functions ~0.1 per character; list/map literals 10/30; ...). Comprehension bodies are multiplied
  by the size of the iterated range when the range is a path into the input
  (``object.spec.containers``), a literal or a variable, and by 1 otherwise; ``&&``/``||``/``?:``
  count both sides (cel-go's estimate, an upper bound of the actual short-circuit cost).

So the number is an estimate labelled as such; it is exact for the library-call part and usually
close for straight-line expressions.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from . import astproto
from ._decl import COSTED_FUNCTIONS, CostTracker, reset_tracker, set_tracker

PER_CALL_LIMIT = 1_000_000
RUNTIME_CEL_COST_BUDGET = 10_000_000
MATCH_CONDITIONS_COST_BUDGET = 2_500_000
PER_CALL_LIMIT_MESSAGE = "operation cancelled: actual cost limit exceeded"
BUDGET_EXCEEDED_MESSAGE = "validation failed due to running out of cost budget, no further validation rules will be run"

_LIBRARY_FUNCTIONS = {
    "isSorted", "sum", "max", "min", "indexOf", "lastIndexOf", "includes", "find", "findAll", "url", "isURL",
    "getScheme", "getHost", "getHostname", "getPort", "getEscapedPath", "getQuery", "quantity",
    "isQuantity", "sign", "asInteger", "isInteger", "asApproximateFloat", "isGreaterThan",
    "isLessThan", "compareTo", "add", "sub", "ip", "isIP", "ip.isCanonical", "family",
    "isUnspecified", "isLoopback", "isLinkLocalMulticast", "isLinkLocalUnicast", "isGlobalUnicast",
    "cidr", "isCIDR", "containsIP", "containsCIDR", "prefixLength", "masked", "semver", "isSemver",
    "major", "minor", "patch", "validate", "format.named", "path", "group", "serviceAccount",
    "resource", "subresource", "namespace", "name", "check", "allowed", "reason", "error", "errored",
    "fieldSelector", "labelSelector",
}  # fmt: skip
# string functions: cost = ceil(receiver size * 0.1 * factor) (cel-go / cost.go formulas)
_STRING_FUNCTIONS = {
    "contains": 1, "startsWith": 1, "endsWith": 1, "lowerAscii": 1, "upperAscii": 1, "trim": 1,
    "substring": 1, "indexOf": 1, "lastIndexOf": 1, "replace": 2, "split": 2, "strings.quote": 1,
}  # fmt: skip
# functions whose result has the size of their receiver / argument (for size propagation)
_SAME_SIZE = {"lowerAscii", "upperAscii", "trim", "replace", "string", "dyn"}
_SETS = {"sets.contains": 1, "sets.intersects": 1, "sets.equivalent": 2}
_FREE = {"_&&_", "_||_", "_?_:_"}


@dataclass
class CostResult:
    total: int
    library: int
    core: int
    estimated: bool = True


class track_cost:  # noqa: N801 - used as a function: ``with track_cost() as tracker``
    """Count the library-call cost of the evaluations made inside the block (a plain class rather than
    a generator: it wraps every policy evaluation)."""

    __slots__ = ("_token", "tracker")

    def __init__(self) -> None:
        self.tracker = CostTracker()

    def __enter__(self) -> CostTracker:
        self._token = set_tracker(self.tracker)
        return self.tracker

    def __exit__(self, *exc: object) -> None:
        reset_tracker(self._token)


def counts_library_cost(program: Any) -> bool:
    """Whether evaluating ``program`` may call a library function that charges a cost (else its
    library cost is 0, and no tracker need be active)."""
    return astproto.calls_any(program, COSTED_FUNCTIONS)


def _size(value: Any) -> int:
    if isinstance(value, str | bytes | bytearray | list | tuple | dict):
        return len(value)
    return 1


def _resolve(e: Any, data: Mapping[str, Any], scopes: dict[str, Any]) -> Any:
    """The value of a path expression (ident, select, constant index) in the input, or None."""
    kind = e.WhichOneof("expr_kind")
    if kind == "ident_expr":
        name = e.ident_expr.name
        if name in scopes:
            return scopes[name]
        return data.get(name)
    if kind == "select_expr":
        base = _resolve(e.select_expr.operand, data, scopes)
        if isinstance(base, Mapping):
            return base.get(e.select_expr.field)
        return None
    if kind == "call_expr" and e.call_expr.function == "_[_]" and len(e.call_expr.args) == 2:
        base = _resolve(e.call_expr.args[0], data, scopes)
        key_expr = e.call_expr.args[1]
        if key_expr.WhichOneof("expr_kind") == "const_expr":
            c = key_expr.const_expr
            key = getattr(c, c.WhichOneof("constant_kind") or "string_value")
            try:
                return base[key] if base is not None else None
            except (KeyError, IndexError, TypeError):
                return None
        return None
    if kind == "list_expr":
        return [_resolve(x, data, scopes) for x in e.list_expr.elements]
    if kind == "const_expr":
        c = e.const_expr
        k = c.WhichOneof("constant_kind")
        return getattr(c, k) if k else None
    if kind == "struct_expr" and not e.struct_expr.message_name:
        out: dict[Any, Any] = {}
        for i, entry in enumerate(e.struct_expr.entries):
            key = _resolve(entry.map_key, data, scopes)
            try:
                out[key if key is not None else ("?", i)] = _resolve(entry.value, data, scopes)
            except TypeError:
                out[("?", i)] = None
        return out
    return None


def _first_element(value: Any) -> Any:
    if isinstance(value, list) and value:
        return value[0]
    if isinstance(value, dict) and value:
        return next(iter(value))
    return None


def _cost(e: Any, data: Mapping[str, Any], scopes: dict[str, Any], depth: int = 0) -> float:
    if depth > 200:
        return 1
    kind = e.WhichOneof("expr_kind")
    if kind == "const_expr":
        return 0
    if kind == "ident_expr":
        return 1
    if kind == "select_expr":
        sel = e.select_expr
        base = _cost(sel.operand, data, scopes, depth + 1)
        return base + (0 if sel.test_only else 1)
    if kind == "list_expr":
        return 10 + sum(_cost(x, data, scopes, depth + 1) for x in e.list_expr.elements)
    if kind == "struct_expr":
        base = 40 if e.struct_expr.message_name else 30
        total = base
        for entry in e.struct_expr.entries:
            if entry.HasField("map_key"):
                total += _cost(entry.map_key, data, scopes, depth + 1)
            total += _cost(entry.value, data, scopes, depth + 1)
        return total
    if kind == "comprehension_expr":
        c = e.comprehension_expr
        rng = _resolve(c.iter_range, data, scopes)
        n = _size(rng) if rng is not None else 1
        inner = dict(scopes)
        elem = _first_element(rng)
        if c.iter_var2:
            inner[c.iter_var] = None
            inner[c.iter_var2] = rng[elem] if isinstance(rng, dict) and elem is not None else elem
        else:
            inner[c.iter_var] = elem
        inner[c.accu_var] = None
        body = _cost(c.loop_condition, data, inner, depth + 1) + _cost(c.loop_step, data, inner, depth + 1)
        return (
            _cost(c.iter_range, data, scopes, depth + 1)
            + _cost(c.accu_init, data, scopes, depth + 1)
            + n * body
            + _cost(c.result, data, inner, depth + 1)
        )
    if kind == "call_expr":
        call = e.call_expr
        fn = call.function
        args = list(call.args)
        target = [call.target] if call.HasField("target") else []
        sub = sum(_cost(x, data, scopes, depth + 1) for x in target + args)
        if fn in _LIBRARY_FUNCTIONS and not (fn in ("indexOf", "lastIndexOf") and _is_string_call(call, data, scopes)):
            return sub  # charged at run time by the implementation, with cost.go's formula
        if fn in _FREE:
            return sub
        receiver = call.target if target else (args[0] if args else None)
        if fn in _STRING_FUNCTIONS:
            size = _size_of(receiver, data, scopes) if receiver is not None else None
            return sub + math.ceil((size or 0) * 0.1 * _STRING_FUNCTIONS[fn])
        if fn == "join":
            items = _resolve(receiver, data, scopes) if receiver is not None else None
            sep = _size_of(args[0], data, scopes) if args else 0
            if isinstance(items, list) and all(isinstance(i, str) for i in items):
                total = sum(len(i) for i in items) + (sep or 0) * max(0, len(items) - 1)
                return sub + math.ceil(total * 2 * 0.1)
            return sub + 1
        if fn in _SETS and len(args) == 2:
            a, b = _resolve(args[0], data, scopes), _resolve(args[1], data, scopes)
            if isinstance(a, list) and isinstance(b, list):
                return sub + 1 + _SETS[fn] * len(a) * len(b)
            return sub + 1
        if fn == "matches":
            s_size = _size_of(receiver, data, scopes) or 0
            r_size = _size_of(args[-1], data, scopes) or 0
            return sub + math.ceil((1 + s_size) * 0.1) * math.ceil(r_size * 0.25)
        if fn in ("_==_", "_!=_") and len(args) == 2:
            sizes = [
                x for x in (_string_size(args[0], data, scopes), _string_size(args[1], data, scopes)) if x is not None
            ]
            if sizes:
                return sub + math.ceil(min(sizes) * 0.1)
            return sub + 1
        if fn == "_+_" and len(args) == 2:
            sizes = [_size_of(a, data, scopes) for a in args]
            if all(isinstance(x, int) for x in sizes) and _string_size(args[0], data, scopes) is not None:
                return sub + math.ceil((sizes[0] + sizes[1]) * 0.1)
            return sub + 1
        if fn == "@in" or fn == "_in_":
            coll = _resolve(args[1], data, scopes) if len(args) > 1 else None
            if isinstance(coll, list):
                return sub + max(1, len(coll))
            return sub + 1
        return sub + 1
    return 1


def _string_size(e: Any, data: Mapping[str, Any], scopes: dict[str, Any]) -> int | None:
    kind = e.WhichOneof("expr_kind")
    if kind == "const_expr":
        c = e.const_expr
        return len(c.string_value) if c.WhichOneof("constant_kind") == "string_value" else None
    if kind == "call_expr":
        call = e.call_expr
        if call.function in _SAME_SIZE or call.function == "strings.quote":
            return _size_of(e, data, scopes)
        return None
    value = _resolve(e, data, scopes)
    return len(value) if isinstance(value, str) else None


def _size_of(e: Any, data: Mapping[str, Any], scopes: dict[str, Any]) -> int | None:
    """Size of the value of an expression when it can be known from the AST and the input."""
    kind = e.WhichOneof("expr_kind")
    if kind == "call_expr":
        call = e.call_expr
        inner = call.target if call.HasField("target") else (call.args[0] if call.args else None)
        if inner is not None and call.function in _SAME_SIZE:
            return _size_of(inner, data, scopes)
        if inner is not None and call.function == "strings.quote":
            size = _size_of(inner, data, scopes)
            return None if size is None else size + 2
        if call.function == "_+_" and len(call.args) == 2:
            a, b = (_size_of(x, data, scopes) for x in call.args)
            return None if a is None or b is None else a + b
        return None
    value = _resolve(e, data, scopes)
    if isinstance(value, str | bytes | list | dict):
        return len(value)
    return None


def _is_string_call(call: Any, data: Mapping[str, Any], scopes: dict[str, Any]) -> bool:
    if not call.HasField("target"):
        return False
    t = call.target
    if t.WhichOneof("expr_kind") == "const_expr" and t.const_expr.WhichOneof("constant_kind") == "string_value":
        return True
    value = _resolve(t, data, scopes)
    return isinstance(value, str)


def expression_cost(
    program: Any, data: Mapping[str, Any] | None = None, tracker: CostTracker | None = None
) -> CostResult:
    """Estimated cost of evaluating ``program`` on ``data``; ``tracker`` holds the library-call cost
    counted while it ran (see :func:`track_cost`)."""
    try:
        checked = astproto.checked_expr(program)
        core = int(math.ceil(_cost(checked.expr, data or {}, {})))
    except Exception:
        core = 0
    library = tracker.library_cost if tracker is not None else 0
    return CostResult(total=core + library, library=library, core=core)


def exceeds_per_call_limit(cost: CostResult | int) -> bool:
    total = cost.total if isinstance(cost, CostResult) else int(cost)
    return total > PER_CALL_LIMIT
