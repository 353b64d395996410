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
from collections.abc import Mapping
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

# A token's kind is told by the empty group that ends the alternative it matched (white space and comments have
# none): each alternative starts with a character or a set of them, which the matcher tests before trying the rest.
# A string may have a prefix (r, b, rb, br, any case); a single-line string's body is read in runs of characters
# neither a backslash, its quote nor a newline.
_STRING_BODIES = (r"'''(?:\\.|[^\\])*?'''", r'"""(?:\\.|[^\\])*?"""',
                  r"'[^'\\\n]*(?:\\.[^'\\\n]*)*'", r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"')
_STRING = "(?:" + "|".join(_STRING_BODIES) + ")"
_ALTERNATIVES: tuple[tuple[str, str | None], ...] = (
    (r"\s+", None), (r"//[^\n]*", None),
    (r"[rR][bB]?" + _STRING, "string"), (r"[bB][rR]?" + _STRING, "string"),
    *((body, "string") for body in _STRING_BODIES),
    (r"[A-Za-z_][A-Za-z0-9_]*", "ident"), (r"\d[\w.]*", "number"), (".", "other"),
)
_TOKEN = re.compile("|".join(pattern if kind is None else pattern + "()" for pattern, kind in _ALTERNATIVES),
                    re.DOTALL)
_KINDS: tuple[str, ...] = ("", *(kind for _, kind in _ALTERNATIVES if kind is not None))  # by that group's number


class _Token:
    """A token of an expression: its kind (``string``, ``ident``, ``number`` or ``other``, one character), its text
    and its offset in the expression."""

    __slots__ = ("kind", "text", "start")

    def __init__(self, kind: str, text: str, start: int) -> None:
        self.kind = kind
        self.text = text
        self.start = start

    def __repr__(self) -> str:
        return f"_Token({self.kind!r}, {self.text!r}, {self.start!r})"


def _tokens(text: str) -> list[_Token]:
    kinds, token = _KINDS, _Token
    return [token(kinds[k], m.group(), m.start()) for m in _TOKEN.finditer(text) if (k := m.lastindex)]


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


# What rewriting may do with a token, by its text (only an identifier or a one-character token has one of these)
_ROLES = {OBJECT: "initialiser", JSON_PATCH: "initialiser", "jsonpatch": "jsonpatch", ",": ",",
          **dict.fromkeys("([{", "open"), **dict.fromkeys(")]}", "close")}


@fast.memo(512)
def rewrite(expression: str) -> Rewritten:
    """The expression with its initialisers as map literals and ``jsonpatch.escapeKey`` calls expanded (worked
    out once per text: API validation, type checking and the evaluation all ask for it)."""
    tokens = _tokens(expression)
    pieces: list[tuple[int, int, bool]] = []  # one at each token and at each run of white space and comments
    edits: list[tuple[int, int, str]] = []  # (start, end, text): expression[start:end] is written as text
    delta = 0  # what to add to an offset in the expression past the last edit for its offset in the rewritten text
    unknown: list[tuple[str, int]] = []
    stack: list[list[Any]] = []  # [kind, entry-start flag (only an initialiser's is ever set), type name]
    entry = False  # the innermost bracket's flag: the next token starts an entry of an initialiser
    last_end = 0  # the end of the last token or edit
    resume = 0  # the first token an edit has not read
    n = len(tokens)
    for i, tok in enumerate(tokens):
        if i < resume:
            continue
        start, text = tok.start, tok.text
        if start > last_end:  # white space and comments, as written
            pieces.append((last_end + delta, last_end, True))
        role = _ROLES.get(text)
        if role is None and not entry:  # most tokens: as written
            pieces.append((start + delta, start, True))
            last_end = start + len(text)
            continue
        edit = None
        if role == "initialiser" and not (i and tokens[i - 1].text == "."):
            j, name = i + 1, text
            while text == OBJECT and j + 1 < n and tokens[j].text == "." and tokens[j + 1].kind == "ident":
                name += "." + tokens[j + 1].text
                j += 2
            if j < n and tokens[j].text == "{":
                empty = j + 1 < n and tokens[j + 1].text == "}"
                edit = _TYPE_ENTRY + '"' + name + ('"' if empty else '", ')  # (identifiers: nothing to escape)
                stack.append(["struct", True, name])
                entry = True
                last_end, resume = tokens[j].start + 1, j + 1
        elif (role == "jsonpatch" and i + 3 < n and tokens[i + 1].text == "." and tokens[i + 2].text == "escapeKey"
                and tokens[i + 3].text == "("):
            edit = "(("
            stack.append(["escape", False, ""])
            entry = False
            last_end, resume = tokens[i + 3].start + 1, i + 4
        if edit is None and entry:  # the first token of an entry of an initialiser
            top = stack[-1]
            top[1] = entry = False
            optional = text == "?" and i + 1 < n and tokens[i + 1].kind == "ident"
            field = tokens[i + 1] if optional else tok
            colon = i + 2 if optional else i + 1
            if field.kind == "ident" and colon < n and tokens[colon].text == ":":
                if top[2] == JSON_PATCH and field.text not in JSON_PATCH_FIELDS:
                    unknown.append((field.text, field.start))
                edit = ('?"' if optional else '"') + field.text + '"'
                last_end, resume = field.start + len(field.text), colon
        if edit is None:
            if role == "open":
                stack.append(["map" if text == "{" else "group", False, ""])
                entry = False
            elif role == "close":
                if stack:
                    kind = stack.pop()[0]
                    entry = bool(stack) and stack[-1][1]
                    if kind == "escape":
                        edit = _ESCAPE_SUFFIX
                        last_end = start + 1
            elif role == "," and stack and stack[-1][0] == "struct":
                stack[-1][1] = entry = True
        if edit is None:  # the token as written
            pieces.append((start + delta, start, True))
            last_end = start + len(text)
        else:
            pieces.append((start + delta, start, False))
            edits.append((start, last_end, edit))
            delta += len(edit) - (last_end - start)
    if last_end < len(expression):
        pieces.append((last_end + delta, last_end, True))
    out, copied = [], 0
    for start, end, edit in edits:
        out += (expression[copied:start], edit)
        copied = end
    out.append(expression[copied:])
    return Rewritten("".join(out), tuple(pieces), tuple(unknown))


_BRACKETS = frozenset("([{)]},")  # (and the comma)


def parts(text: str) -> list[str] | None:
    """The sub-expressions of a rewritten mutation text that its list literals of initialisers and its initialisers
    hold (the value of each field, each element), descending into those that are themselves such literals; None when
    the text is neither. Each part is typed on its own: a literal of initialisers adds nothing to their types (its
    elements are all of the type their initialisers name, a field is any value), so a check of the text finds an
    issue only where a check of one of its parts does. An initialiser with an optional field (``?name:``, whose value
    must be optional where it stands) is a part whole."""
    tokens = _tokens(text)
    found: list[str] = []
    if not tokens or not _literal(text, tokens, _Brackets(tokens), 0, len(tokens), found):
        return None
    return found


class _Brackets:
    """The brackets of a list of tokens, read in one pass: where each opening one is closed (brackets of any shape
    close each other; a closing bracket with none open is passed over), and the commas directly inside each."""

    __slots__ = ("closing", "commas")

    def __init__(self, tokens: list[_Token]) -> None:
        self.closing: dict[int, int] = {}
        self.commas: dict[int, list[int]] = {}
        unclosed: list[int] = []
        for i, text in [(i, t.text) for i, t in enumerate(tokens) if t.text in _BRACKETS]:
            if text == ",":
                if unclosed:
                    self.commas[unclosed[-1]].append(i)
            elif text in "([{":
                unclosed.append(i)
                self.commas[i] = []
            elif unclosed:
                self.closing[unclosed.pop()] = i


def _literal(text: str, tokens: list[_Token], brackets: _Brackets, start: int, end: int, found: list[str]) -> bool:
    """Add the parts of ``tokens[start:end]`` if it is a list of initialisers or an initialiser; False otherwise."""
    first = tokens[start].text
    if end - start < 2 or _match(brackets, start) != end - 1:
        return False
    items = _split(brackets, start, end - 1)
    if first == "[":
        if tokens[end - 1].text != "]":
            return False
        inner: list[str] = []
        if not all(_initialiser(tokens, a, b) and _literal(text, tokens, brackets, a, b, inner) for a, b in items):
            return False
        found += inner
        return True
    if not _initialiser(tokens, start, end):
        return False
    for a, _ in items[1:]:  # (the first entry names the type)
        if tokens[a].text == "?":
            found.append(text[tokens[start].start:tokens[end - 1].start + 1])
            return True
    for a, b in items[1:]:
        value = a + 2  # key, ":", value
        if value >= b or tokens[a + 1].text != ":":
            return False
        if not _literal(text, tokens, brackets, value, b, found):
            found.append(text[tokens[value].start:tokens[b - 1].start + len(tokens[b - 1].text)])
    return True


def _initialiser(tokens: list[_Token], start: int, end: int) -> bool:
    return end - start > 3 and tokens[start].text == "{" and tokens[start + 1].kind == "string" \
        and tokens[start + 1].text[1:-1] == TYPE_KEY and tokens[start + 2].text == ":"


def _match(brackets: _Brackets, start: int) -> int:
    """The index of the bracket closing the one at ``start`` (-1 when none)."""
    return brackets.closing.get(start, -1)


def _split(brackets: _Brackets, start: int, end: int) -> list[tuple[int, int]]:
    """The comma-separated items between the bracket at ``start`` and the one at ``end`` closing it (a trailing
    comma ends none)."""
    items, begin = [], start + 1
    for comma in brackets.commas[start]:
        items.append((begin, comma))
        begin = comma + 1
    if begin < end:
        items.append((begin, end))
    return items


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


_TYPE_ENTRY = "{" + _quote(TYPE_KEY) + ": "


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
