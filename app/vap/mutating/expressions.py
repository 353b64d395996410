"""The CEL of a MutatingAdmissionPolicy's mutations: ``Object`` and ``JSONPatch`` values, ``jsonpatch.escapeKey``.

Restates what k8s.io/apiserver ``pkg/admission/plugin/cel`` adds to the environment when a policy has patch types
(``OptionalVariableDeclarations.HasPatchTypes``): the object initialisers ``Object{...}``, ``Object.spec{...}``, ...
(``pkg/cel/mutation``: any field name is accepted when compiling; the type names are checked against their field
path when the value is used, and the fields against the kind's schema when the configuration is merged), the
``JSONPatch{op, path, from, value}`` type (``pkg/cel/mutation/unstructured``: only those four fields), and the
``jsonpatch.escapeKey`` function of ``pkg/cel/library/jsonpatch.go`` ("~" to "~0", then "/" to "~1").

The playground's engine declares types only as protobuf messages, so a mutation expression is rewritten before it
is compiled: each initialiser becomes a map literal whose first entry names its type (:data:`TYPE_KEY`), each field
name a string key (``?name:`` an optional entry), and ``jsonpatch.escapeKey(x)`` the two string replacements it
makes. The value an expression returns is turned back into :class:`~app.vap.mutating.applyconfig.ObjectValue` and
patch operations by :func:`objects`. A compile error is reported at its place in the text as written.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from .. import fast
from ..cel.library.checks import OBJECT_TYPE_KEY
from .applyconfig import ObjectValue

TYPE_KEY = OBJECT_TYPE_KEY
JSON_PATCH = "JSONPatch"
OBJECT = "Object"
JSON_PATCH_FIELDS = ("op", "path", "from", "value")
_ESCAPE_SUFFIX = ').replace("~", "~0").replace("/", "~1"))'

_TOKEN = re.compile(
    r"""(?P<space>\s+|//[^\n]*)
      |(?P<string>(?:[rR][bB]?|[bB][rR]?)?(?:'''(?:\\.|[^\\])*?'''|\"\"\"(?:\\.|[^\\])*?\"\"\"
                   |'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"))
      |(?P<ident>[A-Za-z_][A-Za-z0-9_]*)
      |(?P<number>\d[\w.]*)
      |(?P<other>.)""",
    re.VERBOSE | re.DOTALL,
)


@dataclass(frozen=True)
class _Token:
    kind: str
    text: str
    start: int


def _tokens(text: str) -> list[_Token]:
    out = []
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup or "other"
        if kind != "space":
            out.append(_Token(kind, m.group(), m.start()))
    return out


@dataclass(frozen=True)
class Rewritten:
    """A mutation expression as the engine compiles it, and how to find a place of it in the text as written."""

    text: str
    # (offset in text, offset in the original, copied as written) at the start of each piece; a piece the
    # rewriting wrote maps to the place of what it replaced
    pieces: tuple[tuple[int, int, bool], ...]
    unknown_fields: tuple[tuple[str, int], ...] = ()  # JSONPatch fields that type does not have, with their offsets

    def original_offset(self, offset: int) -> int:
        best = (0, 0, True)
        for piece in self.pieces:
            if piece[0] > offset:
                break
            best = piece
        return best[1] + (offset - best[0] if best[2] else 0)


@fast.memo(512)
def rewrite(expression: str) -> Rewritten:
    """The expression with its initialisers as map literals and ``jsonpatch.escapeKey`` calls expanded (worked
    out once per text: API validation, type checking and the evaluation all ask for it)."""
    tokens = _tokens(expression)
    out: list[str] = []
    pieces: list[tuple[int, int, bool]] = []
    length = 0
    unknown: list[tuple[str, int]] = []

    def emit(text: str, original: int, verbatim: bool = False) -> None:
        nonlocal length
        pieces.append((length, original, verbatim))
        out.append(text)
        length += len(text)

    stack: list[list[Any]] = []  # [kind, entry-start flag, type name]
    last_end = 0
    i = 0
    n = len(tokens)
    while i < n:
        tok = tokens[i]
        if tok.start > last_end:  # white space and comments, as written
            emit(expression[last_end:tok.start], last_end, True)
        top = stack[-1] if stack else None
        prev = tokens[i - 1] if i else None
        if tok.kind == "ident" and tok.text in (OBJECT, JSON_PATCH) and not (prev and prev.text == "."):
            j, name = i + 1, tok.text
            while tok.text == OBJECT and j + 1 < n and tokens[j].text == "." and tokens[j + 1].kind == "ident":
                name += "." + tokens[j + 1].text
                j += 2
            if j < n and tokens[j].text == "{":
                empty = j + 1 < n and tokens[j + 1].text == "}"
                emit("{" + _quote(TYPE_KEY) + ": " + _quote(name) + ("" if empty else ", "), tok.start)
                stack.append(["struct", True, name])
                last_end = tokens[j].start + 1
                i = j + 1
                continue
        if (tok.kind == "ident" and tok.text == "jsonpatch" and i + 3 < n and tokens[i + 1].text == "."
                and tokens[i + 2].text == "escapeKey" and tokens[i + 3].text == "("):
            emit("((", tok.start)
            stack.append(["escape", False, ""])
            last_end = tokens[i + 3].start + 1
            i += 4
            continue
        if top is not None and top[0] == "struct" and top[1]:
            top[1] = False
            optional = tok.text == "?" and i + 1 < n and tokens[i + 1].kind == "ident"
            field = tokens[i + 1] if optional else tok
            if field.kind == "ident" and i + (2 if optional else 1) < n \
                    and tokens[i + (2 if optional else 1)].text == ":":
                if top[2] == JSON_PATCH and field.text not in JSON_PATCH_FIELDS:
                    unknown.append((field.text, field.start))
                emit(("?" if optional else "") + _quote(field.text), tok.start)
                last_end = field.start + len(field.text)
                i += 2 if optional else 1
                continue
        if tok.text in "([{":
            stack.append(["map" if tok.text == "{" else "group", False, ""])
        elif tok.text in ")]}" and stack:
            kind = stack.pop()[0]
            if kind == "escape":
                emit(_ESCAPE_SUFFIX, tok.start)
                last_end = tok.start + 1
                i += 1
                continue
        elif tok.text == "," and top is not None and top[0] == "struct":
            top[1] = True
        emit(tok.text, tok.start, True)
        last_end = tok.start + len(tok.text)
        i += 1
    if last_end < len(expression):
        emit(expression[last_end:], last_end, True)
    return Rewritten("".join(out), tuple(pieces), tuple(unknown))


_OPEN, _CLOSE = "([{", ")]}"


def parts(text: str) -> list[str] | None:
    """The sub-expressions of a rewritten mutation text that its list literals of initialisers and its initialisers
    hold (the value of each field, each element), descending into those that are themselves such literals; None when
    the text is neither. Each part is typed on its own: a literal of initialisers adds nothing to their types (its
    elements are all of the type their initialisers name, a field is any value), so a check of the text finds an
    issue only where a check of one of its parts does. An initialiser with an optional field (``?name:``, whose value
    must be optional where it stands) is a part whole."""
    tokens = _tokens(text)
    found: list[str] = []
    if not tokens or not _literal(text, tokens, 0, len(tokens), found):
        return None
    return found


def _literal(text: str, tokens: list[_Token], start: int, end: int, found: list[str]) -> bool:
    """Add the parts of ``tokens[start:end]`` if it is a list of initialisers or an initialiser; False otherwise."""
    first, last = tokens[start].text, tokens[end - 1].text
    if end - start < 2 or _match(tokens, start) != end - 1:
        return False
    items = _split(tokens, start + 1, end - 1)
    if first == "[" and last == "]":
        inner: list[str] = []
        if not all(_initialiser(tokens, a, b) and _literal(text, tokens, a, b, inner) for a, b in items):
            return False
        found += inner
        return True
    if first != "{" or not _initialiser(tokens, start, end):
        return False
    for a, _ in items[1:]:  # (the first entry names the type)
        if tokens[a].text == "?":
            found.append(text[tokens[start].start:tokens[end - 1].start + 1])
            return True
    for a, b in items[1:]:
        value = a + 2  # key, ":", value
        if value >= b or tokens[a + 1].text != ":":
            return False
        if not _literal(text, tokens, value, b, found):
            found.append(text[tokens[value].start:tokens[b - 1].start + len(tokens[b - 1].text)])
    return True


def _initialiser(tokens: list[_Token], start: int, end: int) -> bool:
    return end - start > 3 and tokens[start].text == "{" and tokens[start + 1].kind == "string" \
        and tokens[start + 1].text[1:-1] == TYPE_KEY and tokens[start + 2].text == ":"


def _match(tokens: list[_Token], start: int) -> int:
    """The index of the bracket closing the one at ``start`` (-1 when none)."""
    for i, text, depth in _punctuation(tokens, start, len(tokens)):
        if depth == 0 and text in _CLOSE:
            return i
    return -1


def _split(tokens: list[_Token], start: int, end: int) -> list[tuple[int, int]]:
    """The comma-separated items of ``tokens[start:end]`` (a trailing comma ends none)."""
    items, begin = [], start
    for i, text, depth in _punctuation(tokens, start, end):
        if depth == 0 and text == ",":
            items.append((begin, i))
            begin = i + 1
    if begin < end:
        items.append((begin, end))
    return items


def _punctuation(tokens: list[_Token], start: int, end: int) -> Iterator[tuple[int, str, int]]:
    """Each punctuation token of ``tokens[start:end]`` with the depth of brackets it is at (a closing bracket at the
    depth of the one it closes)."""
    depth = 0
    for i in range(start, end):
        t = tokens[i]
        if t.kind != "other":
            continue
        if t.text in _CLOSE:
            depth -= 1
        yield i, t.text, depth
        if t.text in _OPEN:
            depth += 1


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def objects(value: Any) -> Any:
    """An expression's value with its rewritten initialisers as :class:`ObjectValue` (``JSONPatch`` ones too,
    named so). The engine's maps come back in no fixed order: their keys are sorted, so that the same expression
    always gives the same value (and the object the same field order)."""
    if isinstance(value, Mapping):
        if TYPE_KEY in value and isinstance(value[TYPE_KEY], str):
            return ObjectValue(value[TYPE_KEY], {str(k): objects(value[k]) for k in sorted(value, key=str)
                                                 if k != TYPE_KEY})
        return {k: objects(value[k]) for k in sorted(value, key=str)}
    if isinstance(value, list | tuple):
        return [objects(v) for v in value]
    return value


def plain(value: Any) -> Any:
    """A value shown to a user: each initialiser as its fields (the type is shown by :func:`type_of`)."""
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items() if k != TYPE_KEY}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


def type_of(value: Any) -> str:
    """The CEL type name of a mutation's value as the apiserver would name it (for its errors)."""
    if isinstance(value, ObjectValue):
        return value.type_name
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "double"
    if isinstance(value, str):
        return "string"
    if value is None:
        return "null_type"
    if isinstance(value, list | tuple):
        return "list(dyn)"
    if isinstance(value, Mapping):
        return "map(string, dyn)"
    return "dyn"
