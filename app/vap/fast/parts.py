"""Parts of an explanation read in Python, without compiling them: a shortcut of :mod:`app.vap.explain`.

An explanation evaluates the operands of a false or failed expression one by one, and most of them are
field paths and simple tests of them: ``object.spec.replicas``, ``has(c.resources)``,
``c.image.endsWith(':latest')``, ``'app' in object.metadata.labels``. Compiling each for the engine costs a
first evaluation more than the rest of its explanation. Here the few forms whose value over JSON values is
plain Python are read directly:

* a path: ``object``, ``oldObject``, ``params`` or a macro's variable bound to an element of one of them,
  then ``.field``, ``['key']`` or ``[index]`` (a key that is present, an index within the list);
* ``has(path.field)`` on a map;
* ``path.startsWith('s')``, ``endsWith``, ``contains`` on a string, with a string literal;
* ``'s' in path`` on a map (its keys) or a list of strings;
* ``==`` and ``!=`` of two strings, two booleans, two integers or two nulls; ``<``, ``<=``, ``>``, ``>=`` of
  two integers; ``!``, ``&&`` and ``||`` of booleans.

Anything else (a missing key, another type, an escape in a string literal, a function, ``variables``,
``request``) is left to the engine: :func:`read` returns None and the part is compiled as before, so an
error is always the engine's own text. The values are those the engine gives for the same JSON (its maps
and lists convert back to the same Python values), so the explanation reads the same either way; the
equivalence test (:func:`app.vap.fast.plain`) compares them. A part read here is charged one unit of the
explanation's cost budget per step (selection, test, comparison).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from app.vap import fast

# the roots whose values are JSON as pasted (request and namespaceObject are typed: left to the engine)
ROOTS = frozenset(("object", "oldObject", "params"))

_TOKEN = re.compile(
    r"""\s*(?:
        (?P<name>[_a-zA-Z][_a-zA-Z0-9]*)(?!['"])
      | (?P<int>\d+)(?![.\w])
      | (?P<string>'[^'\\\n]*'|"[^"\\\n]*")
      | (?P<op>==|!=|<=|>=|&&|\|\||[<>.\[\]()!])
    )""",
    re.X,
)
_STRING_TESTS = {"startsWith": str.startswith, "endsWith": str.endswith, "contains": str.__contains__}
_INT64_MAX = 2**63 - 1
_LITERALS = {"true": True, "false": False, "null": None}
_RESERVED = frozenset(("true", "false", "null", "in", "has"))


class _Unread(Exception):
    """The part is not one of the forms read here, or its value is not plainly known: the engine reads it."""


def _tokens(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    at = 0
    end = len(text.rstrip())
    while at < end:
        m = _TOKEN.match(text, at)
        if m is None or m.end() == at:
            raise _Unread
        kind = m.lastgroup
        assert kind is not None
        out.append((kind, m.group(kind)))
        at = m.end()
    return out


class _Parser:
    """A recursive descent over the tokens into a small tree: ``("literal", value)``, ``("path", root, selectors)``,
    ``("has", root, selectors, field)``, ``("test", path, method, argument)``, ``("not", x)``, ``("and", a, b)``,
    ``("or", a, b)``, ``(operator, a, b)`` for a relation."""

    def __init__(self, tokens: list[tuple[str, str]]) -> None:
        self.tokens = tokens
        self.at = 0

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def take(self, value: str | None = None, kind: str | None = None) -> str:
        token = self.peek()
        if token is None or (value is not None and token[1] != value) or (kind is not None and token[0] != kind):
            raise _Unread
        self.at += 1
        return token[1]

    def whole(self) -> tuple[Any, ...]:
        tree = self.disjunction()
        if self.peek() is not None:
            raise _Unread
        return tree

    def disjunction(self) -> tuple[Any, ...]:
        tree = self.conjunction()
        while self.peek() == ("op", "||"):
            self.take()
            tree = ("or", tree, self.conjunction())
        return tree

    def conjunction(self) -> tuple[Any, ...]:
        tree = self.relation()
        while self.peek() == ("op", "&&"):
            self.take()
            tree = ("and", tree, self.relation())
        return tree

    def relation(self) -> tuple[Any, ...]:
        left = self.unary()
        token = self.peek()
        if token is None or token[0] == "string" or token[1] not in ("==", "!=", "<", "<=", ">", ">=", "in"):
            return left
        return (self.take(), left, self.unary())

    def unary(self) -> tuple[Any, ...]:
        if self.peek() == ("op", "!"):
            self.take()
            return ("not", self.unary())
        return self.primary()

    def primary(self) -> tuple[Any, ...]:
        kind, text = self.peek() or ("", "")
        if kind == "string":
            self.take()
            return ("literal", text[1:-1])
        if kind == "int":
            self.take()
            if int(text) > _INT64_MAX:
                raise _Unread
            return ("literal", int(text))
        if (kind, text) == ("op", "("):
            self.take()
            tree = self.disjunction()
            self.take(")")
            return tree
        if kind != "name":
            raise _Unread
        if text in _LITERALS:
            self.take()
            return ("literal", _LITERALS[text])
        if text == "has":
            self.take()
            self.take("(")
            root, selectors = self.take(kind="name"), self.selectors()
            self.take(")")
            if not selectors or selectors[-1].__class__ is not _Field:  # (has() of an index: a compile error)
                raise _Unread
            return ("has", root, selectors[:-1], str(selectors[-1]))
        root, selectors = self.take(), self.selectors()
        if self.peek() == ("op", "(") and selectors and selectors[-1].__class__ is _Field:  # a method call
            method = str(selectors.pop())
            if method not in _STRING_TESTS:
                raise _Unread
            self.take("(")
            argument = self.take(kind="string")[1:-1]
            self.take(")")
            return ("test", ("path", root, selectors), method, argument)
        return ("path", root, selectors)

    def selectors(self) -> list[Any]:
        """The ``.name`` (a _Field), ``['key']`` and ``[index]`` after a root."""
        out: list[Any] = []
        while self.peek() in (("op", "."), ("op", "[")):
            if self.take() == ".":
                name = self.take(kind="name")
                if name in _RESERVED:
                    raise _Unread
                out.append(_Field(name))
                continue
            kind, text = self.peek() or ("", "")
            self.take()
            self.take("]")
            if kind == "string":
                out.append(text[1:-1])
            elif kind == "int":
                out.append(int(text))
            else:
                raise _Unread
        return out


class _Field(str):
    """A field selected with a dot (a key indexed with brackets is a plain str)."""


@fast.memo(1024)
def _tree(text: str) -> tuple[Any, ...] | None:
    try:
        return _Parser(_tokens(text)).whole()
    except (_Unread, RecursionError):
        return None


class _Evaluation:
    """A tree's value over the values, with CEL's logic: ``false && x`` is false and ``true || x`` true whatever
    ``x`` is (its value, its error, or a form not read here), on either side."""

    def __init__(self, roots: Mapping[str, Any], bound: Mapping[str, Any]) -> None:
        self.roots = roots
        self.bound = bound
        self.steps = 0

    def value(self, tree: tuple[Any, ...]) -> Any:
        kind = tree[0]
        self.steps += 1
        if kind == "literal":
            return tree[1]
        if kind == "path":
            return self.path(tree[1], tree[2])
        if kind == "has":
            value = self.path(tree[1], tree[2])
            if value.__class__ is not dict:
                raise _Unread
            return tree[3] in value
        if kind == "test":
            value = self.value(tree[1])
            if value.__class__ is not str:
                raise _Unread
            self.steps += len(value) // 10
            return _STRING_TESTS[tree[2]](value, tree[3])
        if kind == "not":
            return not _boolean(self.value(tree[1]))
        if kind in ("and", "or"):
            return self.logic(kind == "and", tree[1], tree[2])
        left, right = self.value(tree[1]), self.value(tree[2])
        if kind == "in":
            return _contains(right, left)
        if kind in ("==", "!="):
            if left.__class__ is not right.__class__ or left.__class__ not in (str, bool, int, type(None)):
                raise _Unread  # (other types: the engine's heterogeneous equality decides)
            return (left == right) is (kind == "==")
        if left.__class__ is not int or right.__class__ is not int:
            raise _Unread
        return {"<": left < right, "<=": left <= right, ">": left > right, ">=": left >= right}[kind]

    def logic(self, conjunction: bool, a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
        deciding = not conjunction  # false decides &&, true decides ||
        sides: list[bool | None] = []
        for tree in (a, b):
            try:
                side = _boolean(self.value(tree))
            except _Unread:
                side = None
            if side is deciding:
                return deciding
            sides.append(side)
        if None in sides:
            raise _Unread
        return not deciding

    def path(self, root: str, selectors: list[Any]) -> Any:
        if root in self.bound:
            value = self.bound[root]
        elif root in ROOTS and root in self.roots:
            value = self.roots[root]
        else:
            raise _Unread
        for selector in selectors:
            value = _select(value, selector)
            self.steps += 1
        return value


def _select(value: Any, selector: str | int) -> Any:
    if isinstance(selector, str):
        if value.__class__ is not dict or selector not in value:
            raise _Unread  # (a missing field: the engine's error)
        return value[selector]
    if value.__class__ is not list or not 0 <= selector < len(value):  # type: ignore[operator]
        raise _Unread
    return value[selector]  # type: ignore[index]


def _boolean(value: Any) -> bool:
    if value.__class__ is not bool:
        raise _Unread
    return value


def _contains(container: Any, element: Any) -> bool:
    if element.__class__ is not str:
        raise _Unread
    if container.__class__ is dict:
        return element in container
    if container.__class__ is list and all(item.__class__ is str for item in container):
        return element in container
    raise _Unread


def read(text: str, roots: Mapping[str, Any], bound: Mapping[str, Any]) -> tuple[Any, int] | None:
    """The value of an explanation's part over the expression's values (``roots``: the activation's, by name;
    ``bound``: the macro variables in scope, each bound to an element of a JSON value), and what it is charged;
    None when the part is left to the engine."""
    tree = _tree(text)
    if tree is None:
        return None
    evaluation = _Evaluation(roots, bound)
    try:
        return evaluation.value(tree), evaluation.steps
    except _Unread:
        return None
