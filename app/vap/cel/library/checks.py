"""The apiserver's extra compile-time checks (cel-go AST validators), run on the engine's checked AST.

* HomogeneousAggregateLiterals (all versions): list elements, map keys and map values of a literal
  must have equivalent types (``expected type 'int' but found 'string'``); lists and maps inside a
  ``format()`` call are exempt, as the strings extension makes them.
* From 1.29: constant arguments of ``matches`` (regex), ``duration`` and ``timestamp`` are validated
  (``invalid matches argument`` ...).
* The Kubernetes regex library compiles constant ``find``/``findAll`` patterns when the program is
  created, so a bad constant pattern fails before evaluation.
* The library's value types are protobuf messages in this engine: selecting their internal fields or
  constructing them with message syntax is rejected, as it is impossible in cel-go.

A map literal whose first key is :data:`OBJECT_TYPE_KEY` is a MutatingAdmissionPolicy's object initialiser as
:mod:`app.vap.mutating.expressions` writes it for the engine: its fields are of any types, as an object's are.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from cel_expr_python import cel

from ... import fast
from . import astproto
from . import types as tp
from .regex import RegexSyntaxError, compile_go
from .versions import version_tuple

# (no word of it is a variable's name, so that type checking does not take a mutation for one reading the object)
OBJECT_TYPE_KEY = "@playground.initialiser.type"


@dataclass(frozen=True)
class CompileIssue:
    """One compile error, positioned in the expression text (1-based line and column)."""

    line: int
    column: int
    message: str


_ADAPTER_ISSUE: Any = None


def _issue_class() -> Any:
    global _ADAPTER_ISSUE
    if _ADAPTER_ISSUE is not None:
        return _ADAPTER_ISSUE
    try:  # prefer the adapter's class when it defines one (same fields)
        from .. import CompileIssue as adapter_issue  # type: ignore[attr-defined]
    except Exception:  # pragma: no cover - circular import during start-up
        return CompileIssue
    _ADAPTER_ISSUE = adapter_issue
    return adapter_issue


def _line_col(text: str, offset: int) -> tuple[int, int]:
    # offsets are in code points
    before = text[:offset]
    return before.count("\n") + 1, offset - (before.rfind("\n") + 1) + 1


class _Positions:
    """Where each node of a checked expression is, read from the AST when an issue is first reported
    (most expressions have none)."""

    def __init__(self, checked: Any, expression: str, locate: Callable[[int], tuple[int, int]] | None) -> None:
        self.checked = checked
        self.positions: dict[int, int] | None = None
        self.locate = locate or (lambda offset: _line_col(expression, offset))

    def line_col(self, expr_id: int) -> tuple[int, int]:
        if self.positions is None:
            self.positions = dict(self.checked.source_info.positions.items())
        return self.locate(self.positions.get(expr_id, 0))


@lru_cache(maxsize=1)
def _literal_env() -> Any:
    return cel.NewEnv(variables={"v": cel.Type.DYN})


@lru_cache(maxsize=4)
def _literal_program(fn: str) -> Any:
    return _literal_env().compile(f"{fn}(v)")


def _literal_ok(fn: str, value: Any) -> bool:
    try:
        result = _literal_program(fn).eval(data={"v": value})
    except Exception:
        return False
    return result.type().name() != "ERROR"


def _const_value(e: Any) -> tuple[bool, Any]:
    if e.WhichOneof("expr_kind") != "const_expr":
        return False, None
    c = e.const_expr
    kind = c.WhichOneof("constant_kind")
    if kind is None:
        return False, None
    return True, getattr(c, kind)


def _call_args(e: Any) -> list[Any]:
    return list(e.call_expr.args)


# the Kubernetes lists library's list(A).indexOf(A) / lastIndexOf(A), declared list(dyn), dyn here
_LIST_INDEX_OVERLOADS = {"list_a_index_of_int", "list_a_last_index_of_int"}


def _list_element(t: Any) -> Any:
    if t is not None and t.WhichOneof("type_kind") == "list_type":
        return t.list_type.elem_type
    return None


def _assignable(to: Any, source: Any) -> bool:
    """cel-go's type assignability after binding ``A`` to ``to`` (dyn matches anything both ways)."""
    a, b = to.WhichOneof("type_kind"), source.WhichOneof("type_kind")
    if a in (None, "dyn", "type_param", "error") or b in (None, "dyn", "type_param", "error"):
        return True
    if b == "null":  # null is assignable to the nullable types
        return a in ("null", "wrapper", "message_type", "well_known", "abstract_type")
    if a == "wrapper" and b == "primitive":
        return to.wrapper == source.primitive
    if a != b:
        return False
    if a == "list_type":
        return _assignable(to.list_type.elem_type, source.list_type.elem_type)
    if a == "map_type":
        return _assignable(to.map_type.key_type, source.map_type.key_type) and _assignable(
            to.map_type.value_type, source.map_type.value_type
        )
    if a == "abstract_type":
        ta, sa = to.abstract_type, source.abstract_type
        return ta.name == sa.name and len(ta.parameter_types) == len(sa.parameter_types) and all(
            _assignable(x, y) for x, y in zip(ta.parameter_types, sa.parameter_types, strict=True)
        )
    if a == "type":
        return _assignable(to.type, source.type)
    return astproto.type_to_string(to) == astproto.type_to_string(source)


# the calls the checks below look into
_CHECKED_CALLS = frozenset({"matches", "duration", "timestamp", "indexOf", "lastIndexOf", "find", "findAll"})
# What a text must hold for the checks below to find anything in its program: a list or map literal (``[``,
# ``{``; the macros that build maps, transformMap and transformMapEntry, write none), a selection of a hidden
# field, or one of the calls checked. A text without any is not read (its AST read costs more than the test).
_MAY_HOLD_ISSUES = re.compile("|".join(
    [r"[\[{]", "transform", r"\.\s*" + re.escape(tp.HIDDEN_PREFIX), *sorted(_CHECKED_CALLS)]))


def version_key(v: tuple[int, int]) -> tuple[bool, ...]:
    """What of the version the checks below look at (versions with equal keys are checked alike)."""
    return (v >= (1, 29),)


def _initialiser(struct: Any) -> bool:
    """Whether a map literal is an object initialiser rewritten (see OBJECT_TYPE_KEY)."""
    if not struct.entries:
        return False
    is_const, value = _const_value(struct.entries[0].map_key)
    return is_const and value == OBJECT_TYPE_KEY


def _initialiser_type(e: Any) -> str | None:
    """The type an object initialiser (see OBJECT_TYPE_KEY) is written as, None for any other expression."""
    if e.WhichOneof("expr_kind") != "struct_expr" or e.struct_expr.message_name or not _initialiser(e.struct_expr):
        return None
    is_const, value = _const_value(e.struct_expr.entries[0].value)
    return str(value) if is_const else None


def check_expression(
    program: Any, expression: str, version: str, *, locate: Callable[[int], tuple[int, int]] | None = None
) -> list[Any]:
    """Run the apiserver's extra compile-time checks; return issues (line, column, message).

    ``expression`` is the text the program was compiled from; ``locate`` turns an offset in it into
    the (line, column) to report, when that text is a rewriting of what the user wrote.
    """
    if fast.on and _MAY_HOLD_ISSUES.search(expression) is None:
        return []
    try:
        checked = astproto.checked_expr(program)
    except Exception:  # never block an expression because the AST could not be read
        return []
    read = astproto.shape(program)
    if read is not None and not read.literals and not read.hidden_selects and read.functions.isdisjoint(_CHECKED_CALLS):
        return []  # nothing below can find an issue in it
    v = version_tuple(version)
    issue_cls = _issue_class()
    pos = _Positions(checked, expression, locate)
    type_of = checked.type_map
    issues: list[tuple[int, int, str]] = []

    def report(expr_id: int, message: str) -> None:
        line, col = pos.line_col(expr_id)
        issues.append((line, col, message))

    def tname(expr_id: int, unwrap_optional: bool = False) -> str:
        if expr_id not in type_of:
            return "dyn"
        t = type_of[expr_id]
        if unwrap_optional and t.WhichOneof("type_kind") == "abstract_type" and t.abstract_type.parameter_types:
            t = t.abstract_type.parameter_types[0]
        return astproto.type_to_string(t)

    def visit(e: Any, exempt: bool) -> None:
        kind = e.WhichOneof("expr_kind")
        if kind == "call_expr":
            call = e.call_expr
            fn = call.function
            args = _call_args(e)
            inner_exempt = exempt or fn == "format"
            if v >= (1, 29) and fn in ("matches", "duration", "timestamp") and args:
                is_const, value = _const_value(args[0])
                if is_const:
                    ok = True
                    if fn == "matches":
                        if isinstance(value, str):
                            try:
                                compile_go(value)
                            except RegexSyntaxError:
                                ok = False
                    else:
                        ok = _literal_ok(fn, value)
                    if not ok:
                        report(args[0].id, f"invalid {fn} argument")
            if fn in ("indexOf", "lastIndexOf") and call.HasField("target") and len(args) == 1:
                overloads = set(checked.reference_map[e.id].overload_id) if e.id in checked.reference_map else set()
                if overloads & _LIST_INDEX_OVERLOADS and not overloads - _LIST_INDEX_OVERLOADS:
                    target_t, arg_t = type_of.get(call.target.id), type_of.get(args[0].id)
                    elem = _list_element(target_t)
                    if elem is not None and arg_t is not None and not _assignable(elem, arg_t):
                        signature = f"{tname(call.target.id)}.({tname(args[0].id)})"
                        report(e.id, f"found no matching overload for '{fn}' applied to '{signature}'")
            if fn in ("find", "findAll") and call.HasField("target") and args:
                is_const, value = _const_value(args[0])
                if is_const and isinstance(value, str):
                    try:
                        compile_go(value)
                    except RegexSyntaxError as exc:
                        report(args[0].id, "program instantiation failed: " + exc.go_text)
            for child in astproto.children(e):
                visit(child, inner_exempt)
            return
        if kind == "list_expr" and not exempt:
            lst = e.list_expr
            optional = set(lst.optional_indices)
            first = None
            for i, el in enumerate(lst.elements):
                et = _initialiser_type(el) or tname(el.id, unwrap_optional=i in optional)
                if first is None:
                    first = et
                    continue
                if et != first:
                    report(el.id, f"expected type '{first}' but found '{et}'")
                    break
        if kind == "struct_expr":
            st = e.struct_expr
            if st.message_name:
                if st.message_name in tp.MESSAGES:
                    report(e.id, f"undeclared reference to '{st.message_name}' (in container '')")
            elif not exempt and not _initialiser(st):
                key_t = val_t = None
                for entry in st.entries:
                    kt = tname(entry.map_key.id)
                    vt = tname(entry.value.id, unwrap_optional=entry.optional_entry)
                    if key_t is None and val_t is None:
                        key_t, val_t = kt, vt
                        continue
                    if kt != key_t:
                        report(entry.map_key.id, f"expected type '{key_t}' but found '{kt}'")
                    if vt != val_t:
                        report(entry.value.id, f"expected type '{val_t}' but found '{vt}'")
        if kind == "select_expr":
            sel = e.select_expr
            if sel.field.startswith(tp.HIDDEN_PREFIX) and tname(sel.operand.id) in tp.MESSAGES:
                report(e.id, f"undefined field '{sel.field}'")
        for child in astproto.children(e):
            visit(child, exempt)

    visit(checked.expr, False)
    issues.sort()
    seen = set()
    out = []
    for line, col, msg in issues:
        if (line, col, msg) in seen:
            continue
        seen.add((line, col, msg))
        out.append(issue_cls(line, col, msg))
    return out
