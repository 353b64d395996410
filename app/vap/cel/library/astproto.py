"""Reading the engine's checked AST (``Expression.serialize()``: an Any with a cel.expr.CheckedExpr).

The cel.expr protos are not shipped as Python modules, so a wire-compatible subset of
cel-spec's syntax.proto and checked.proto is declared here at run time (same field numbers, own
package name), and the serialized bytes are parsed with it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from google.protobuf import any_pb2, descriptor_pb2, descriptor_pool, message_factory

from ... import fast
from .types import HIDDEN_PREFIX

F = descriptor_pb2.FieldDescriptorProto
_PKG = "admission_playground.celexpr"

_I64, _I32, _U64, _DBL, _BOOL, _STR, _BYTES, _MSG = (
    F.TYPE_INT64,
    F.TYPE_INT32,
    F.TYPE_UINT64,
    F.TYPE_DOUBLE,
    F.TYPE_BOOL,
    F.TYPE_STRING,
    F.TYPE_BYTES,
    F.TYPE_MESSAGE,
)
_REP = F.LABEL_REPEATED
_OPT = F.LABEL_OPTIONAL


def _msg(parent: Any, name: str, fields: list[tuple], oneofs: dict[str, list[str]] | None = None) -> Any:
    m = parent.add(name=name)
    oneof_index = {}
    for i, (oname, members) in enumerate((oneofs or {}).items()):
        m.oneof_decl.add(name=oname)
        for member in members:
            oneof_index[member] = i
    for fname, number, ftype, *rest in fields:
        label = rest[0] if rest and rest[0] in (_REP, _OPT) else _OPT
        type_name = rest[-1] if rest and isinstance(rest[-1], str) else None
        f = m.field.add(name=fname, number=number, type=ftype, label=label)
        if type_name:
            f.type_name = type_name
        if fname in oneof_index:
            f.oneof_index = oneof_index[fname]
    return m


def _map_entry(parent_msg: Any, name: str, key_type: int, value_type: int, value_type_name: str | None = None) -> None:
    entry = parent_msg.nested_type.add(name=name)
    entry.options.map_entry = True
    entry.field.add(name="key", number=1, type=key_type, label=_OPT)
    v = entry.field.add(name="value", number=2, type=value_type, label=_OPT)
    if value_type_name:
        v.type_name = value_type_name


def _file() -> descriptor_pb2.FileDescriptorProto:
    p = "." + _PKG + "."
    fdp = descriptor_pb2.FileDescriptorProto(name="admission_playground/celexpr.proto", package=_PKG, syntax="proto3")
    mt = fdp.message_type
    _msg(mt, "Empty", [])
    expr = _msg(
        mt,
        "Expr",
        [
            ("id", 2, _I64),
            ("const_expr", 3, _MSG, p + "Constant"),
            ("ident_expr", 4, _MSG, p + "Expr.Ident"),
            ("select_expr", 5, _MSG, p + "Expr.Select"),
            ("call_expr", 6, _MSG, p + "Expr.Call"),
            ("list_expr", 7, _MSG, p + "Expr.CreateList"),
            ("struct_expr", 8, _MSG, p + "Expr.CreateStruct"),
            ("comprehension_expr", 9, _MSG, p + "Expr.Comprehension"),
        ],
        {
            "expr_kind": [
                "const_expr",
                "ident_expr",
                "select_expr",
                "call_expr",
                "list_expr",
                "struct_expr",
                "comprehension_expr",
            ]
        },
    )
    n = expr.nested_type
    _msg(n, "Ident", [("name", 1, _STR)])
    _msg(n, "Select", [("operand", 1, _MSG, p + "Expr"), ("field", 2, _STR), ("test_only", 3, _BOOL)])
    _msg(n, "Call", [("target", 1, _MSG, p + "Expr"), ("function", 2, _STR), ("args", 3, _MSG, _REP, p + "Expr")])
    _msg(n, "CreateList", [("elements", 1, _MSG, _REP, p + "Expr"), ("optional_indices", 2, _I32, _REP)])
    cs = _msg(n, "CreateStruct", [("message_name", 1, _STR), ("entries", 2, _MSG, _REP, p + "Expr.CreateStruct.Entry")])
    _msg(
        cs.nested_type,
        "Entry",
        [
            ("id", 1, _I64),
            ("field_key", 2, _STR),
            ("map_key", 3, _MSG, p + "Expr"),
            ("value", 4, _MSG, p + "Expr"),
            ("optional_entry", 5, _BOOL),
        ],
        {"key_kind": ["field_key", "map_key"]},
    )
    _msg(
        n,
        "Comprehension",
        [
            ("iter_var", 1, _STR),
            ("iter_range", 2, _MSG, p + "Expr"),
            ("accu_var", 3, _STR),
            ("accu_init", 4, _MSG, p + "Expr"),
            ("loop_condition", 5, _MSG, p + "Expr"),
            ("loop_step", 6, _MSG, p + "Expr"),
            ("result", 7, _MSG, p + "Expr"),
            ("iter_var2", 8, _STR),
        ],
    )
    _msg(
        mt,
        "Constant",
        [
            ("null_value", 1, _I32),
            ("bool_value", 2, _BOOL),
            ("int64_value", 3, _I64),
            ("uint64_value", 4, _U64),
            ("double_value", 5, _DBL),
            ("string_value", 6, _STR),
            ("bytes_value", 7, _BYTES),
        ],
        {
            "constant_kind": [
                "null_value",
                "bool_value",
                "int64_value",
                "uint64_value",
                "double_value",
                "string_value",
                "bytes_value",
            ]
        },
    )
    si = _msg(
        mt,
        "SourceInfo",
        [
            ("location", 2, _STR),
            ("line_offsets", 3, _I32, _REP),
            ("positions", 4, _MSG, _REP, p + "SourceInfo.PositionsEntry"),
            ("macro_calls", 5, _MSG, _REP, p + "SourceInfo.MacroCallsEntry"),
        ],
    )
    _map_entry(si, "PositionsEntry", _I64, _I32)
    _map_entry(si, "MacroCallsEntry", _I64, _MSG, p + "Expr")
    ty = _msg(
        mt,
        "Type",
        [
            ("dyn", 1, _MSG, p + "Empty"),
            ("null", 2, _I32),
            ("primitive", 3, _I32),
            ("wrapper", 4, _I32),
            ("well_known", 5, _I32),
            ("list_type", 6, _MSG, p + "Type.ListType"),
            ("map_type", 7, _MSG, p + "Type.MapType"),
            ("function", 8, _MSG, p + "Type.FunctionType"),
            ("message_type", 9, _STR),
            ("type_param", 10, _STR),
            ("type", 11, _MSG, p + "Type"),
            ("error", 12, _MSG, p + "Empty"),
            ("abstract_type", 14, _MSG, p + "Type.AbstractType"),
        ],
        {
            "type_kind": [
                "dyn",
                "null",
                "primitive",
                "wrapper",
                "well_known",
                "list_type",
                "map_type",
                "function",
                "message_type",
                "type_param",
                "type",
                "error",
                "abstract_type",
            ]
        },
    )
    tn = ty.nested_type
    _msg(tn, "ListType", [("elem_type", 1, _MSG, p + "Type")])
    _msg(tn, "MapType", [("key_type", 1, _MSG, p + "Type"), ("value_type", 2, _MSG, p + "Type")])
    _msg(tn, "FunctionType", [("result_type", 1, _MSG, p + "Type"), ("arg_types", 2, _MSG, _REP, p + "Type")])
    _msg(tn, "AbstractType", [("name", 1, _STR), ("parameter_types", 2, _MSG, _REP, p + "Type")])
    _msg(mt, "Reference", [("name", 1, _STR), ("overload_id", 3, _STR, _REP), ("value", 4, _MSG, p + "Constant")])
    ce = _msg(
        mt,
        "CheckedExpr",
        [
            ("reference_map", 2, _MSG, _REP, p + "CheckedExpr.ReferenceMapEntry"),
            ("type_map", 3, _MSG, _REP, p + "CheckedExpr.TypeMapEntry"),
            ("expr", 4, _MSG, p + "Expr"),
            ("source_info", 5, _MSG, p + "SourceInfo"),
            ("expr_version", 6, _STR),
        ],
    )
    _map_entry(ce, "ReferenceMapEntry", _I64, _MSG, p + "Reference")
    _map_entry(ce, "TypeMapEntry", _I64, _MSG, p + "Type")
    return fdp


@lru_cache(maxsize=1)
def _classes() -> dict[str, Any]:
    pool = descriptor_pool.DescriptorPool()
    pool.Add(_file())
    return {
        "CheckedExpr": message_factory.GetMessageClass(pool.FindMessageTypeByName(_PKG + ".CheckedExpr")),
    }


# Checked ASTs already read, by program (the program kept, so that its id is not reused): a program is read
# by several analyses (cost, reach, compile checks, the functions it calls). Emptied when full.
_CHECKED: dict[int, tuple[Any, Any]] = {}
_CHECKED_SIZE = 1024


@dataclass(frozen=True)
class Shape:
    """What a checked program's AST holds, as several analyses ask it."""

    functions: frozenset[str]  # the functions it calls (operators included), as the checker resolved them
    literals: bool  # a list literal of two or more elements, or a map or message literal
    hidden_selects: bool  # a selection of a field named as the library hides its types' fields (HIDDEN_PREFIX)


# what the analyses ask of each program's AST (a program id -> (program, its Shape)), emptied with _CHECKED
_SHAPES: dict[int, tuple[Any, Shape | None]] = {}


def clear_cache() -> None:
    _CHECKED.clear()
    _SHAPES.clear()


fast.register("astproto.programs", clear_cache)


def checked_expr(program: Any) -> Any:
    """The CheckedExpr message of ``program.serialize()`` (own wire-compatible classes), read once per
    program: a shared message, which its readers must not change."""
    found = _CHECKED.get(id(program))
    if found is not None and found[0] is program:
        return found[1]
    checked = _read_checked(program)
    if len(_CHECKED) >= _CHECKED_SIZE:
        _CHECKED.clear()
    _CHECKED[id(program)] = (program, checked)
    return checked


def _read_checked(program: Any) -> Any:
    raw = program.serialize()
    if not isinstance(raw, bytes | bytearray):
        # a google.protobuf.Any message
        value = raw.value
    else:
        any_msg = any_pb2.Any()
        any_msg.ParseFromString(bytes(raw))
        value = any_msg.value
    return parse_checked(value)


def parse_checked(value: bytes) -> Any:
    """Parse the bytes of a cel.expr.CheckedExpr."""
    msg = _classes()["CheckedExpr"]()
    msg.ParseFromString(value)
    return msg


_PRIMITIVES = {1: "bool", 2: "int", 3: "uint", 4: "double", 5: "string", 6: "bytes"}
_WELL_KNOWN = {1: "any", 2: "google.protobuf.Timestamp", 3: "google.protobuf.Duration"}


def type_to_string(t: Any) -> str:
    """cel-go's FormatCheckedType-like rendering of a checked type."""
    kind = t.WhichOneof("type_kind")
    if kind is None or kind == "dyn":
        return "dyn"
    if kind == "null":
        return "null_type"
    if kind == "primitive":
        return _PRIMITIVES.get(t.primitive, "dyn")
    if kind == "wrapper":
        return f"wrapper({_PRIMITIVES.get(t.wrapper, 'dyn')})"
    if kind == "well_known":
        return _WELL_KNOWN.get(t.well_known, "dyn")
    if kind == "list_type":
        return f"list({type_to_string(t.list_type.elem_type)})"
    if kind == "map_type":
        return f"map({type_to_string(t.map_type.key_type)}, {type_to_string(t.map_type.value_type)})"
    if kind == "message_type":
        return t.message_type
    if kind == "type_param":
        return t.type_param
    if kind == "type":
        return f"type({type_to_string(t.type)})"
    if kind == "error":
        return "*error*"
    if kind == "abstract_type":
        params = ", ".join(type_to_string(x) for x in t.abstract_type.parameter_types)
        return f"{t.abstract_type.name}({params})" if params else t.abstract_type.name
    if kind == "function":
        return "function"
    return "dyn"


def children(e: Any) -> list[Any]:
    kind = e.WhichOneof("expr_kind")
    if kind == "select_expr":
        return [e.select_expr.operand]
    if kind == "call_expr":
        c = e.call_expr
        return ([c.target] if c.HasField("target") else []) + list(c.args)
    if kind == "list_expr":
        return list(e.list_expr.elements)
    if kind == "struct_expr":
        out = []
        for entry in e.struct_expr.entries:
            if entry.HasField("map_key"):
                out.append(entry.map_key)
            out.append(entry.value)
        return out
    if kind == "comprehension_expr":
        c = e.comprehension_expr
        return [c.iter_range, c.accu_init, c.loop_condition, c.loop_step, c.result]
    return []


def walk(e: Any):
    stack = [e]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(children(node)))


def shape(program: Any) -> Shape | None:
    """What several analyses ask of a checked program, read in one walk, once per program. None when it
    cannot be read."""
    found = _SHAPES.get(id(program))
    if found is not None and found[0] is program:
        return found[1]
    try:
        checked = checked_expr(program)
    except Exception:  # too deep to read
        read = None
    else:
        functions: set[str] = set()
        literals = hidden = False
        stack = [checked.expr]  # (every node once, as walk() visits them: their order does not matter here)
        push, more = stack.append, stack.extend
        while stack:
            node = stack.pop()
            kind = node.WhichOneof("expr_kind")
            if kind == "call_expr":
                call = node.call_expr
                functions.add(call.function)
                if call.HasField("target"):
                    push(call.target)
                more(call.args)
            elif kind == "select_expr":
                hidden = hidden or node.select_expr.field.startswith(HIDDEN_PREFIX)
                push(node.select_expr.operand)
            elif kind == "list_expr":
                literals = literals or len(node.list_expr.elements) > 1
                more(node.list_expr.elements)
            elif kind == "struct_expr":
                literals = True
                for entry in node.struct_expr.entries:
                    if entry.HasField("map_key"):
                        push(entry.map_key)
                    push(entry.value)
            elif kind == "comprehension_expr":
                loop = node.comprehension_expr
                more((loop.iter_range, loop.accu_init, loop.loop_condition, loop.loop_step, loop.result))
        read = Shape(frozenset(functions), literals, hidden)
    if len(_SHAPES) >= _CHECKED_SIZE:
        _SHAPES.clear()
    _SHAPES[id(program)] = (program, read)
    return read


def called_functions(program: Any) -> frozenset[str] | None:
    """The names of the functions (operators included) a checked program calls, as the checker resolved
    them (``format.named``, not ``named``). None when it cannot be read."""
    read = shape(program)
    return read.functions if read is not None else None


def calls_any(program: Any, names: Any) -> bool:
    """Whether a checked program calls a function named in ``names`` (True when it cannot be read)."""
    called = called_functions(program)
    return called is None or not called.isdisjoint(names)
