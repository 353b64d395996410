"""What a policy's expressions can read of their inputs, so the engine is handed only that.

kube-apiserver hands CEL the admission objects as lazy values: a field is converted when an
expression reads it, so a 1 MB object costs nothing more than a small one when the policy reads
its labels. The engine here converts every value it is given, in full, before evaluating. So, per
compiled policy, the checked ASTs of all its expressions are read once for the paths each root
(``object``, ``oldObject``, ``params``, ``namespaceObject``) is reached by, and each evaluation gets
those roots pruned to these paths. Every expression then sees exactly the values it would have seen
(same fields, same absences, same errors); only what no expression can reach is left out.

A path is followed through field selections (``object.spec.replicas``, ``has(object.spec)``,
``object.?spec``), constant string indexes (``object.metadata.labels['app']``) and ``dyn()``; a constant
tested with ``in`` keeps that key of a map. A comprehension over a list follows its variable into the
list's elements: ``containers.all(c, c.image ...)`` keeps every container, each with its image only (a
map iterated is kept whole). Wherever a value is used in any other way (passed to a function, compared,
converted, returned ...) it is kept whole. A root used as a whole keeps everything.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from .cel.library import astproto

PRUNED_ROOTS = ("object", "oldObject", "params", "namespaceObject")


class _Whole:
    def __repr__(self) -> str:
        return "WHOLE"


WHOLE: Any = _Whole()
# A trie: WHOLE, or a dict of field name -> trie. An empty dict keeps a value's presence (and
# nullness) only: a map becomes {}, anything else is kept as it is.
Trie = Any


def merge(a: Trie | None, b: Trie) -> Trie:
    """The trie reaching what either reaches."""
    if a is None:
        return b
    if a is WHOLE or b is WHOLE:
        return WHOLE
    out = dict(a)
    for key, sub in b.items():
        out[key] = merge(out.get(key), sub)
    return out


def _path_trie(path: list[str], leaf: Trie) -> Trie:
    trie = leaf
    for key in reversed(path):
        trie = {key: trie}
    return trie


class Reach:
    """The roots the expressions reference, and for the pruned ones the paths they read."""

    def __init__(self) -> None:
        self.roots: dict[str, Trie] = {}
        self._pruners: dict[str, Callable[[Any], Any]] = {}
        self._uses: dict[str, int] = {}

    def add(self, root: str, path: list[str], leaf: Trie) -> None:
        self.roots[root] = merge(self.roots.get(root), _path_trie(path, leaf))
        self._pruners.pop(root, None)
        self._uses.pop(root, None)

    def uses(self, root: str) -> bool:
        return root in self.roots

    def prune(self, root: str, value: Any) -> Any:
        """The value of a root as the expressions can see it."""
        return self.pruner(root)(value)

    def pruners(self, roots: Iterable[str], earlier: int = 0) -> tuple[tuple[Callable[[Any], Any] | None, ...], bool]:
        """:meth:`pruner` of each root, None for a root the expressions do not read, and whether they
        are final (none still a walk). ``earlier``: evaluations made before without pruning, counted as uses."""
        made = tuple(self.pruner(root, earlier) if root in self.roots else None for root in roots)
        return made, all(root in self._pruners or root not in self.roots for root in roots)

    def pruner(self, root: str, earlier: int = 0) -> Callable[[Any], Any]:
        """A function giving the value of a root as the expressions can see it: the recursive walk for
        the first few uses, then code generated for the root's paths (generating it, with Python's
        compile, takes longer than a few walks, so a policy evaluated once never pays for it)."""
        made = self._pruners.get(root)
        if made is not None:
            return made
        trie = self.roots.get(root)
        if trie is None:
            made = _unread
        elif trie is WHOLE:
            made = _whole
        else:
            uses = self._uses.get(root, earlier) + 1
            self._uses[root] = uses
            if uses < _GENERATE_AFTER:
                return _walk(trie)
            made = _generated_pruner(trie)
        self._pruners[root] = made
        return made


def _walk(trie: Trie) -> Callable[[Any], Any]:
    return lambda value: prune(value, trie)


def _unread(value: Any) -> Any:
    return None if value is None else {}


def _whole(value: Any) -> Any:
    return value


_GENERATE_AFTER = 3
# A trie deeper or larger than this is pruned by the recursive walk rather than generated code (whose
# nesting Python bounds).
_GENERATED_DEPTH = 24
_GENERATED_NODES = 400


def _trie_size(trie: Trie, depth: int = 0) -> tuple[int, int]:
    if trie is WHOLE or not trie:
        return 1, depth
    nodes, deepest = 1, depth
    for sub in trie.values():
        n, d = _trie_size(sub, depth + 1)
        nodes, deepest = nodes + n, max(deepest, d)
    return nodes, deepest


def _generated_pruner(trie: Trie) -> Callable[[Any], Any]:
    """``lambda value: prune(value, trie)`` as straight-line Python: the walk's recursion, per-level
    calls and dict comprehensions unrolled for this one trie (several times quicker on the small
    objects most evaluations get). Keys enter the source as Python literals (``repr``)."""
    nodes, depth = _trie_size(trie)
    if nodes > _GENERATED_NODES or depth > _GENERATED_DEPTH:
        return _walk(trie)
    lines = ["def pruned(v0):", " if not isinstance(v0, dict):", "  return v0",
             " o0 = {}"]

    elements: list[Trie] = []  # the tries of list elements, each pruned by code of its own (T[i])

    def emit(node: dict[str, Trie], level: int, indent: str) -> None:
        v, o, nv, no = f"v{level}", f"o{level}", f"v{level + 1}", f"o{level + 1}"
        for key, sub in node.items():
            k = repr(key)
            lines.append(f"{indent}if {k} in {v}:")
            if sub is WHOLE:
                lines.append(f"{indent} {o}[{k}] = {v}[{k}]")
            elif ELEMENT in sub:  # as prune(): a list's elements pruned, anything else kept
                elements.append(sub[ELEMENT])
                lines.append(f"{indent} {nv} = {v}[{k}]")
                lines.append(f"{indent} {o}[{k}] = [T[{len(elements) - 1}](x) for x in {nv}] "
                             f"if isinstance({nv}, list) else {nv}")
            elif not sub:  # presence (and nullness) only
                lines.append(f"{indent} {nv} = {v}[{k}]")
                lines.append(f"{indent} {o}[{k}] = {{}} if isinstance({nv}, dict) else {nv}")
            else:
                lines.append(f"{indent} {nv} = {v}[{k}]")
                lines.append(f"{indent} if isinstance({nv}, dict):")
                lines.append(f"{indent}  {no} = {{}}")
                emit(sub, level + 1, indent + "  ")
                lines.append(f"{indent}  {nv} = {no}")
                lines.append(f"{indent} {o}[{k}] = {nv}")

    if ELEMENT in trie:  # the root itself a list: nothing to unroll
        return _walk(trie)
    emit(trie, 0, " ")
    lines.append(" return o0")
    namespace: dict[str, Any] = {"T": tuple(_generated_pruner(e) if e and e is not WHOLE else _walk(e)
                                            for e in elements)}
    exec(compile("\n".join(lines), "<pruner>", "exec"), namespace)  # noqa: S102 - source built above from literals
    return namespace["pruned"]


def prune(value: Any, trie: Trie) -> Any:
    if trie is WHOLE:
        return value
    if ELEMENT in trie:  # a list, each element pruned; a map iterated (its keys) is kept whole
        return [prune(v, trie[ELEMENT]) for v in value] if isinstance(value, list) else value
    if not isinstance(value, dict):
        return value
    return {key: prune(value[key], sub) for key, sub in trie.items() if key in value}


def _const_string(e: Any) -> str | None:
    if e.WhichOneof("expr_kind") != "const_expr":
        return None
    c = e.const_expr
    return c.string_value if c.WhichOneof("constant_kind") == "string_value" else None


def _is_null(e: Any) -> bool:
    return e.WhichOneof("expr_kind") == "const_expr" and e.const_expr.WhichOneof("constant_kind") == "null_value"


# The path segment of a list's elements, in the tries of :func:`of_programs` with ``elements``.
ELEMENT = "@idx"
# A value whose type matters to a check but none of its fields (nor its elements' fields): ``size(x)``,
# ``dyn(x)``. A message is declared with no fields, a list with elements of such a message.
KIND_ONLY: Trie = {ELEMENT: {}}
# Comprehension variables in scope: the (root, path) of the elements a variable ranges over, or None
# for one that ranges over anything else (it hides a root of the same name).
Bindings = dict[str, "tuple[str, list[str]] | None"]


def _chain(e: Any, roots: set[str], bound: Bindings | None = None,
           through_dyn: bool = True) -> tuple[str, list[str]] | None:
    """(root, path) when ``e`` is a root (or a bound comprehension variable) followed by field
    selections, constant string indexes and, with ``through_dyn`` (evaluation), ``dyn()`` (for type
    checking what is selected of a ``dyn()`` is not the root's, see :func:`_visit`)."""
    path: list[str] = []
    while True:
        kind = e.WhichOneof("expr_kind")
        if kind == "ident_expr":
            name = e.ident_expr.name
            if bound is not None and name in bound:
                binding = bound[name]
                if binding is None:
                    return None
                path.reverse()
                return binding[0], [*binding[1], *path]
            if name in roots:
                path.reverse()
                return name, path
            return None
        if kind == "select_expr":
            path.append(e.select_expr.field)
            e = e.select_expr.operand
            continue
        if kind == "call_expr":
            call = e.call_expr
            if call.function in ("_?._", "_[_]", "_[?_]") and len(call.args) == 2 and not call.HasField("target"):
                key = _const_string(call.args[1])
                if key is not None:
                    path.append(key)
                    e = call.args[0]
                    continue
            if call.function == "dyn" and len(call.args) == 1 and not call.HasField("target") and through_dyn:
                e = call.args[0]  # dyn() hands its argument on unchanged: dyn(object).spec reads object.spec
                continue
        return None


def _visit(e: Any, roots: set[str], reach: Reach, elements: bool, checking: bool) -> None:
    stack: list[tuple[Any, Bindings | None]] = [(e, {} if elements else None)]
    through_dyn = not checking
    while stack:
        node, bound = stack.pop()
        kind = node.WhichOneof("expr_kind")
        if kind == "comprehension_expr" and bound is not None:
            stack.extend(_comprehension(node.comprehension_expr, roots, reach, bound, through_dyn))
            continue
        chain = _chain(node, roots, bound, through_dyn) if kind in ("ident_expr", "select_expr", "call_expr") else None
        if chain is not None:
            root, path = chain
            if kind == "select_expr" and node.select_expr.test_only:
                reach.add(root, path, {})  # has(): the field's presence only
            else:
                reach.add(root, path, WHOLE)
            continue
        if kind == "call_expr":
            call = node.call_expr
            args = list(call.args)
            if call.function in ("_==_", "_!=_") and len(args) == 2 and (_is_null(args[0]) or _is_null(args[1])):
                other = args[1] if _is_null(args[0]) else args[0]
                other_chain = _chain(other, roots, bound, through_dyn)
                if other_chain is not None:  # compared with null: presence and nullness only
                    reach.add(other_chain[0], other_chain[1], {})
                    continue
            if checking and call.function == "dyn" and len(args) == 1 and not call.HasField("target"):
                wrapped = _chain(args[0], roots, bound, through_dyn)
                if wrapped is not None:  # checked as dyn: its type's kind, none of its fields
                    reach.add(wrapped[0], wrapped[1], KIND_ONLY)
                    continue
            if bound is not None and call.function == "size":
                operand = call.target if call.HasField("target") and not args else args[0] if len(args) == 1 else None
                sized = _chain(operand, roots, bound, through_dyn) if operand is not None else None
                if sized is not None:  # the size of a value: its type's kind, none of its elements' fields
                    reach.add(sized[0], sized[1], KIND_ONLY)
                    continue
            if call.function == "@in" and len(args) == 2:
                key = _const_string(args[0])
                container = _chain(args[1], roots, bound, through_dyn)
                if key is not None and container is not None:  # a key of a map (a list is kept whole)
                    reach.add(container[0], [*container[1], key], {})
                    continue
        stack.extend((child, bound) for child in astproto.children(node))


def _comprehension(comp: Any, roots: set[str], reach: Reach, bound: Bindings,
                   through_dyn: bool) -> list[tuple[Any, Bindings]]:
    """A comprehension over a path: its variable is bound to the path's elements, so what the loop
    selects of them is followed (``containers.all(c, c.image ...)`` reaches ``containers.@idx.image``);
    the range itself is reached with its elements and nothing of them. Anything else is visited as
    it is, its variables hiding roots of the same name."""
    inner = dict(bound)
    ranged = _chain(comp.iter_range, roots, bound, through_dyn)
    names = [comp.iter_var, comp.iter_var2] if comp.iter_var2 else [comp.iter_var]
    for name in names:
        inner[name] = None
    out: list[tuple[Any, Bindings]] = [(comp.accu_init, bound)]
    if ranged is None:
        out.append((comp.iter_range, bound))
    else:
        root, path = ranged
        reach.add(root, [*path, ELEMENT], {})
        inner[names[-1]] = (root, [*path, ELEMENT])  # the element (with two variables, the second)
    out += [(comp.loop_condition, inner), (comp.loop_step, inner), (comp.result, inner)]
    return out


def of_programs(programs: Iterable[Any], roots: Iterable[str], *, elements: bool = False,
                checking: bool = False) -> Reach:
    """What the programs (compiled expressions) read of the given roots.

    ``elements``: follow comprehension variables into the elements of the lists they range over
    (paths through :data:`ELEMENT`). ``checking``: for type checking, where the inside of a ``dyn()``
    is not checked against the root's types; for evaluation it reads what is selected of it."""
    reach = Reach()
    names = set(roots)
    for program in programs:
        checked = astproto.checked_expr(program)
        _visit(checked.expr, names, reach, elements, checking)
    return reach
