"""Rewriting a checked expression so the engine runs what cel-go runs, where the engine cannot say it.

The engine (cel-cpp through cel-expr-python) cannot pass optional values to or from Python
functions, dispatches Python overloads on the receiver's kind only (so ``list(uint).sum()`` and
``list(int).sum()`` reach the same function with plain Python ints), and compares messages field by
field. Each of these is fixed after type checking, on the checked AST, where the types and the
chosen overloads are known:

* ``format.named(s)`` and ``<Format>.validate(s)`` (``optional(...)`` results): the call becomes
  ``__k8s_format_named(s)[?0]`` (a list of zero or one element, optionally indexed), so the result
  is a real optional and ``hasValue``/``value``/``orValue``/``or``/``optMap``/``optFlatMap`` are
  the engine's own;
* ``sum()``/``min()``/``max()`` resolved to a typed overload whose result the plain Python value
  cannot tell (uint results; double and duration zero values): the call goes to a function of that
  element type;
* ``==``, ``!=`` and ``in`` on operands whose types hold a ``kubernetes.Quantity``: a numeric
  comparison, as ``Quantity.Equal`` does (see :mod:`.quantity`);
* ``int()``, ``uint()``, ``double()`` of a ``string`` or ``dyn`` argument: Go's strconv parsing,
  ``string()`` of a duration: Go's float formatting; ``int()`` of a duration: its nanoseconds, which
  the engine cannot compute (see :mod:`.conversions`).

The checks (:mod:`.checks`) and the cost estimate (:mod:`.cost`) read the untransformed program:
positions and costs stay those of the expression as written. Names starting with ``__k8s_`` are the
rewriting's own; an expression that names one is rejected by the checks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from google.protobuf import any_pb2

from . import astproto
from .conversions import STRING_CONVERSIONS

INTERNAL_PREFIX = "__k8s_"

# single overload chosen by the checker -> (function to call instead, its overload id)
_RETARGET = {
    "list_uint_sum_uint": "__k8s_list_sum_uint",
    "list_double_sum_double": "__k8s_list_sum_double",
    "list_duration_sum_duration": "__k8s_list_sum_duration",
    "list_uint_min_uint": "__k8s_list_min_uint",
    "list_uint_max_uint": "__k8s_list_max_uint",
}
# optional-returning library calls -> the function returning a list of zero or one element
_OPTIONAL_RESULTS = {
    "format-named": "__k8s_format_named",
    "format-validate": "__k8s_format_validate",
}
_EQUALITY = {"_==_": "__k8s_equals", "_!=_": "__k8s_not_equals", "@in": "__k8s_in"}
QUANTITY = "kubernetes.Quantity"
_OPTIONAL_INDEX = ("_[?_]", "list_optindex_optional_int")


def _holds(t: Any, message: str) -> bool | None:
    """Whether a checked type holds ``message`` somewhere (None when it holds an optional: those
    cannot be handed to a Python function)."""
    kind = t.WhichOneof("type_kind")
    if kind == "message_type":
        return t.message_type == message
    if kind == "list_type":
        return _holds(t.list_type.elem_type, message)
    if kind == "map_type":
        k, v = _holds(t.map_type.key_type, message), _holds(t.map_type.value_type, message)
        return None if k is None or v is None else (k or v)
    if kind == "abstract_type":
        return None
    return False


class _Rewriter:
    def __init__(self, checked: Any) -> None:
        self.checked = checked
        self.types = checked.type_map
        self.refs = checked.reference_map
        self.next_id = max((n.id for n in astproto.walk(checked.expr)), default=0) + 1
        self.changed = False

    def new_id(self) -> int:
        self.next_id += 1
        return self.next_id

    def set_ref(self, expr_id: int, name: str, overload_id: str) -> None:
        ref = self.refs[expr_id]
        ref.Clear()
        ref.name = name
        ref.overload_id.append(overload_id)

    def visit(self, e: Any) -> None:
        # children first: a node rewritten below copies its (already rewritten) children
        for child in astproto.children(e):
            self.visit(child)
        if e.WhichOneof("expr_kind") != "call_expr" or e.id not in self.refs:
            return
        overloads = list(self.refs[e.id].overload_id)
        fn = e.call_expr.function
        if len(overloads) == 1 and overloads[0] in _OPTIONAL_RESULTS:
            self.optional_result(e, _OPTIONAL_RESULTS[overloads[0]])
        elif len(overloads) == 1 and overloads[0] in _RETARGET:
            self.retarget(e, _RETARGET[overloads[0]])
        elif overloads in (["duration_to_string"], ["duration_to_int64"]) and len(e.call_expr.args) == 1:
            self.from_duration_text(e, "__k8s_duration_string" if fn == "string" else "__k8s_duration_int")
        elif any(o in STRING_CONVERSIONS for o in overloads) and len(e.call_expr.args) == 1:
            # int()/uint()/double() of a string or dyn argument: Go's strconv rules
            self.retarget(e, STRING_CONVERSIONS[next(o for o in overloads if o in STRING_CONVERSIONS)])
        elif fn in _EQUALITY and len(e.call_expr.args) == 2:
            self.equality(e, fn)

    def retarget(self, e: Any, function: str) -> None:
        e.call_expr.function = function
        self.set_ref(e.id, function, function)
        self.changed = True

    def from_duration_text(self, e: Any, function: str) -> None:
        """``string(d)``/``int(d)`` -> ``function(string(d))``: the engine's string form of a duration is
        exact (a Python argument would be a timedelta, in microseconds)."""
        arg = e.call_expr.args[0]
        text_id = self.new_id()
        text = type(e)()
        text.id = text_id
        text.call_expr.function = "string"
        text.call_expr.args.add().CopyFrom(arg)
        self.set_ref(text_id, "string", "duration_to_string")
        self.types[text_id].primitive = 5  # string
        e.call_expr.ClearField("args")
        e.call_expr.args.add().CopyFrom(text)
        self.retarget(e, function)

    def optional_result(self, e: Any, function: str) -> None:
        """``f(args)`` -> ``function(args)[?0]``; the inner call keeps the arguments and the target."""
        inner_id, zero_id = self.new_id(), self.new_id()
        inner = type(e)()
        inner.CopyFrom(e)
        inner.id = inner_id
        inner.call_expr.function = function
        self.set_ref(inner_id, function, function)
        elem = self.types[e.id].abstract_type.parameter_types[0]
        self.types[inner_id].list_type.elem_type.CopyFrom(elem)
        e.ClearField("call_expr")
        e.call_expr.function = _OPTIONAL_INDEX[0]
        e.call_expr.args.add().CopyFrom(inner)
        zero = e.call_expr.args.add()
        zero.id = zero_id
        zero.const_expr.int64_value = 0
        self.types[zero_id].primitive = 2  # int
        self.set_ref(e.id, *_OPTIONAL_INDEX)
        self.changed = True

    def equality(self, e: Any, fn: str) -> None:
        left, right = e.call_expr.args
        held = [_holds(self.types[a.id], QUANTITY) if a.id in self.types else False for a in (left, right)]
        if None in held or not any(held):
            return
        if fn == "@in" and self.types[right.id].WhichOneof("type_kind") != "list_type":
            return
        self.retarget(e, _EQUALITY[fn])


# the functions whose calls the rewriting may change: those with an overload it retargets, and the
# comparisons (only when a type holds a quantity)
_REWRITTEN_FUNCTIONS = frozenset({"sum", "min", "max", "format.named", "validate", "string", "int", "uint", "double"})


def _may_rewrite(program: Any, serialized: bytes) -> bool:
    """False when the rewriting surely leaves ``program`` as it is (read from the functions it calls,
    without a walk of its own over a copy of the AST)."""
    called = astproto.called_functions(program)
    if called is None or not called.isdisjoint(_REWRITTEN_FUNCTIONS):
        return True
    return not called.isdisjoint(_EQUALITY) and QUANTITY.encode() in serialized


def rewrite(program: Any, deserialize: Callable[[bytes], Any]) -> Any:
    """Return ``program``, or a program built with ``deserialize`` from its rewritten checked AST."""
    serialized = bytes(program.serialize())
    if not _may_rewrite(program, serialized):
        return program
    envelope = any_pb2.Any()
    try:
        envelope.ParseFromString(serialized)
        checked = astproto.parse_checked(envelope.value)
    except Exception:  # an AST nested deeper than protobuf's parser allows (100 levels): run it as it is
        return program
    rewriter = _Rewriter(checked)
    rewriter.visit(checked.expr)
    if not rewriter.changed:
        return program
    envelope.value = checked.SerializeToString()
    return deserialize(envelope.SerializeToString())


# the calls that make optional values (cel-go's optional library, after the rewriting above)
_OPTIONAL_MAKERS = {"optional.of", "optional.ofNonZeroValue", "optional.none", "_?._", "_[?_]", "first", "last"}


def may_hold_optionals(program: Any) -> bool:
    """Whether a result of ``program`` may contain optional values (the engine's conversion of a list
    or map holding one to Python fails, or crashes, so such results are converted element by element)."""
    return astproto.calls_any(program, _OPTIONAL_MAKERS)


# Python-implemented functions that take lists or dyn values: the engine converts their arguments to
# Python, and crashes when a map holding an optional value is among them
_PYTHON_CONTAINER_FUNCTIONS = {"isSorted", "sum", "min", "max", "indexOf", "lastIndexOf", "includes"}


def optional_maps_reach_python(program: Any) -> bool:
    """Whether a map that may hold an optional value can reach a Python implementation, which the
    engine cannot survive (its argument conversion crashes): such a program must not run."""
    try:
        checked = astproto.checked_expr(program)
    except Exception:
        return False
    nodes = list(astproto.walk(checked.expr))
    if not any(e.WhichOneof("expr_kind") == "call_expr" and e.call_expr.function in _OPTIONAL_MAKERS for e in nodes):
        return False
    types = checked.type_map

    def loose(expr_id: int) -> bool:
        t = types.get(expr_id)
        return t is None or t.WhichOneof("type_kind") in ("dyn", "abstract_type", None)

    optional_map = any(
        e.WhichOneof("expr_kind") == "struct_expr"
        and not e.struct_expr.message_name
        and any(loose(entry.value.id) for entry in e.struct_expr.entries)
        for e in nodes
    )
    return optional_map and any(
        e.WhichOneof("expr_kind") == "call_expr"
        and (e.call_expr.function in _PYTHON_CONTAINER_FUNCTIONS or e.call_expr.function.startswith(INTERNAL_PREFIX))
        for e in nodes
    )
