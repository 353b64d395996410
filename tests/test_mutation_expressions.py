"""The rewriting of a mutation expression and the parts of a rewritten one (app.vap.mutating.expressions), against
the way they were worked out before they were made faster, kept here: the tokens made one at a time, the rewriting
token by token, each bracket's match and each list's items found by reading the tokens again from that bracket. The
same tokens, rewritten text, pieces, unknown JSONPatch fields and parts for every mutation expression of the tests,
the gallery and the benchmark, for texts made from them by deleting, doubling and inserting characters, and for random
texts of the tokens that rewriting and parts look at."""

from __future__ import annotations

import ast
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from app.vap.mutating import expressions
from app.vap.mutating.expressions import _ESCAPE_SUFFIX, JSON_PATCH, JSON_PATCH_FIELDS, OBJECT, TYPE_KEY
from tests.test_code_spans import ROOT, expression_texts

# ---------------------------------------------------------------------------------------------------------------------
# The reference: app.vap.mutating.expressions as it was

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


def _rewrite(expression: str) -> tuple[str, tuple, tuple]:
    """``rewrite`` as it was: its result as (text, pieces, unknown fields)."""
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
    return "".join(out), tuple(pieces), tuple(unknown)


_OPEN, _CLOSE = "([{", ")]}"


def _parts(text: str) -> list[str] | None:
    """``parts`` as it was."""
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


# ---------------------------------------------------------------------------------------------------------------------
# The texts compared

_MARKERS = ("Object{", "JSONPatch{", "escapeKey(")


def _corpus() -> list[str]:
    """The mutation expressions of the tests' and the application's YAML and of the benchmark, and the string
    constants of the tests and the benchmark that hold one (or a piece of one)."""
    texts = {text for text in expression_texts() if any(m in text for m in _MARKERS)}
    for path in sorted([*ROOT.glob("tests/*.py"), *ROOT.glob("benchmarks/*.py")]):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            value = node.value if isinstance(node, ast.Constant) else None
            if isinstance(value, str) and any(m in value for m in _MARKERS):
                texts.add(value)
    return sorted(texts)


CORPUS = _corpus()

# what a mangled text may get inserted
_INSERTS = ["{", "}", "[", "]", "(", ")", ",", ":", "?", ".", "'", '"', "'''", "\\", "\n", "//", "r", " ", "Object",
            "JSONPatch{", "jsonpatch.escapeKey(", f'"{TYPE_KEY}"']


def _mangled(text: str, rnd: random.Random) -> str:
    """``text`` with a few characters deleted or doubled, or something inserted."""
    chars = list(text)
    for _ in range(rnd.randint(1, 4)):
        if not chars:
            break
        k = rnd.randrange(len(chars))
        what = rnd.random()
        if what < 0.4:
            del chars[k]
        elif what < 0.8:
            chars.insert(k, chars[k])
        else:
            chars.insert(k, rnd.choice(_INSERTS))
    return "".join(chars)


def _assert_same(text: str) -> str:
    """Assert the tokens, the rewriting and the parts of ``text`` (and of its rewritten text) are the reference's;
    return the rewritten text."""
    assert [(t.kind, t.text, t.start) for t in expressions._tokens(text)] == \
        [(t.kind, t.text, t.start) for t in _tokens(text)], repr(text)
    rewritten = expressions.rewrite.__wrapped__(text)
    assert (rewritten.text, rewritten.pieces, rewritten.unknown_fields) == _rewrite(text), repr(text)
    assert expressions.parts(text) == _parts(text), repr(text)
    assert expressions.parts(rewritten.text) == _parts(rewritten.text), repr(rewritten.text)
    return rewritten.text


def test_the_corpus_holds_the_mutations_of_the_gallery_and_the_benchmark():
    assert len(CORPUS) > 50
    assert any(text.startswith("Object{\n  metadata: Object.metadata{annotations:") for text in CORPUS)  # the sidecar
    assert any("jsonpatch.escapeKey(" in text and text.lstrip().startswith("[") for text in CORPUS)


def test_every_mutation_expression_of_the_repository_is_rewritten_and_cut_into_parts_as_before():
    with_parts = 0
    for text in CORPUS:
        with_parts += bool(expressions.parts(_assert_same(text)))
    assert with_parts > 20  # (most are literals of initialisers)


def test_mangled_mutation_expressions_are_rewritten_and_cut_into_parts_as_before():
    rnd = random.Random(5)
    for text in CORPUS:
        rewritten = _assert_same(text)
        for _ in range(12):
            _assert_same(_mangled(text, rnd))
            _assert_same(_mangled(rewritten, rnd))


def test_random_texts_of_the_tokens_rewriting_looks_at_are_rewritten_and_cut_into_parts_as_before():
    rnd = random.Random(3)
    atoms = ["Object", "JSONPatch", "jsonpatch", ".", "escapeKey", "spec", "op", "x", "(", ")", "{", "}", "[", "]",
             ",", ",", ":", ":", "?", " ", "\n", "'", '"', "r", "b", "\\", "//", "1", "'''", f'"{TYPE_KEY}"', "{",
             "}"]
    for _ in range(3_000):
        _assert_same("".join(rnd.choice(atoms) for _ in range(rnd.randint(0, 20))))


@pytest.mark.parametrize("text", [
    "",
    " // nothing but a comment",
    "Object{spec: Object.spec{replicas: 1}",  # unclosed
    "Object{spec: Object.spec{replicas: 1}}}]",  # closed too often
    "Object{metadata: Object.metadata{labels: {'a': 'b'}}, spec: Object.spec{?paused: optional.of(true)}}",
    "Object{?metadata: object.?metadata}",
    '[JSONPatch{op: "add", path: "/a/" + jsonpatch.escapeKey("b/c~d"), value: 1},]',  # a trailing comma
    '[JSONPatch{op: "add", pth: "/x", value: 1, from: "/y"}]',  # a field JSONPatch does not have
    "Object{a: r'''x\\''', b: '''y\n''', c: b'z', d: rb\"\\\"\", e: 'unterminated}",
    "Object{a: 1 // a comment }\n}",
    "Object{a: [1, 2,], b: {\"k\": (1 + 2)}}",
    "Object{a: 1, , b: 2}",
    "Object{a: 1, ?b: 2,}",
    "Object . spec{a: 1}",
    "x.Object{a: 1}",
    "Object{}",
    "[Object{}, Object.spec{a: 1}]",
    "jsonpatch.escapeKey(jsonpatch.escapeKey('a/b'))",
    "jsonpatch.escapeKey('a'",
    "{JSONPatch{}: 1}",
    "Object{Object{} a: 1}",  # (the entry the outer initialiser starts is read after the inner one)
    "JSONPatch{jsonpatch.escapeKey('k') op: 1, pth: 2}",
    "[Object{a: 1})",  # brackets of other shapes closing each other
    "Object{a: [Object.a{b: 1}), c: (2]}",
])
def test_hand_picked_texts_are_rewritten_and_cut_into_parts_as_before(text):
    _assert_same(text)
