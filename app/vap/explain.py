"""Why an expression came out false or failed: the values of its operands.

The playground's own addition (the apiserver reports only the verdict): for a validation, matchCondition
or auditAnnotation that is false or fails, the top level of its text is read (the conditional
``c ? a : b``; ``||``; ``&&``; the comparisons ``== != < <= > >=`` and ``in``; ``!``; a method called on a
receiver, and the macros ``all``, ``exists`` and ``exists_one``; with CEL's precedence, outside string
literals, comments and brackets), and each operand is compiled on its own with the declarations of the
expression and evaluated by the caller on the same values (the same object, oldObject, params,
variables, request, namespaceObject and authorizer), under a cost budget of its own. The operand that
decides (the false side of ``&&``, the branch a conditional took) is explained in turn, a few levels deep.
For a macro, the receiver is evaluated, then the predicate for its elements, to find the element that
decides it (the first one ``all`` is false for, the second one ``exists_one`` is true for, the first one
whose predicate fails); that element's predicate is explained with the element bound to the macro's
variable.

Nothing here changes a verdict: the explanation is made after the decision, from the same inputs, and a
part that cannot be compiled on its own is left out (one that fails shows its error). Values read as CEL
literals (strings quoted, ``null``, maps with their keys sorted, library values as the call that builds
them), each cut to :data:`VALUE_BYTES` (a macro's element to :data:`ELEMENT_BYTES`) with the marker
``… truncated (N bytes) …``.
"""

from __future__ import annotations

import datetime
import json
import math
import re
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from . import cel, fast
from .cel import library
from .fast import parts

VALUE_BYTES = 400  # bytes of a value's text shown, at most
ELEMENT_BYTES = 240  # bytes of a macro element's text shown, at most (its predicate's lines say what it reads)
MAX_ENTRIES = 16  # lines of one explanation, at most
MAX_DEPTH = 4  # operands explained within operands, at most this deep
MAX_ELEMENTS = 100  # elements of a macro's receiver whose predicate is evaluated one at a time, at most
# elements of a macro's receiver looked at, at most (the engine builds a list in time growing with its square)
MAX_SCANNED = 500
OUT_OF_BUDGET = "not evaluated: the explanation ran out of its cost budget"
OUT_OF_TIME = "not evaluated: the explanation ran out of its time"

_MACROS = ("all", "exists", "exists_one")


# --------------------------------------------------------------------------------------------
# The structure of an expression's text


@dataclass(frozen=True, slots=True)
class Node:
    """One level of an expression: ``kind`` is leaf, ternary, or, and, relation, not, call or macro; ``parts``
    its operand texts (a call's and a macro's: the receiver, then the arguments); ``op`` the operator or the
    method's name."""

    kind: str
    text: str
    parts: tuple[str, ...] = ()
    op: str = ""


class _Text:
    """An expression's text with its comments blanked (lengths kept), and the bracket depth of each character
    (an opening or closing bracket at the depth outside it; -1 inside a string literal)."""

    __slots__ = ("text", "depths")

    def __init__(self, text: str, depths: list[int]) -> None:
        self.text = text
        self.depths = depths

    @classmethod
    def read(cls, source: str) -> _Text:
        code = [False] * len(source)
        chars = list(source)
        spans = cel.code_spans(source)
        for start, end in spans:
            code[start:end] = [True] * (end - start)
        gap_starts = [0] + [end for _, end in spans]
        gap_ends = [start for start, _ in spans] + [len(source)]
        for start, end in zip(gap_starts, gap_ends, strict=True):
            if source.startswith("//", start):  # a comment: blanked, white space
                chars[start:end] = [" "] * (end - start)
                code[start:end] = [True] * (end - start)
        depths = [-1] * len(source)
        depth = 0
        for i, ch in enumerate(chars):
            if not code[i]:
                continue
            if ch in ")]}":
                depth = max(0, depth - 1)
            depths[i] = depth
            if ch in "([{":
                depth += 1
        return cls("".join(chars), depths)

    def part(self, start: int, end: int) -> _Text:
        """``text[start:end]`` (white space trimmed) as a text of its own, depths counted from its start."""
        while start < end and self.text[start].isspace():
            start += 1
        while end > start and self.text[end - 1].isspace():
            end -= 1
        base = self.depths[start] if start < end and self.depths[start] >= 0 else 0
        return _Text(self.text[start:end], [d - base if d >= 0 else -1 for d in self.depths[start:end]])

    def top(self, start: int = 0) -> Iterator[int]:
        """The positions at the top level (outside brackets and strings), from ``start``."""
        return (i for i in range(start, len(self.text)) if self.depths[i] == 0)

    def closing(self, opening: int) -> int:
        """The position of the bracket closing the one at ``opening`` (-1 when it is not closed)."""
        depth = self.depths[opening]
        return next((i for i in range(opening + 1, len(self.text))
                     if self.depths[i] == depth and self.text[i] in ")]}"), -1)

    def bare(self) -> _Text:
        """The text without the parentheses around all of it."""
        text = self
        while text.text.startswith("(") and text.closing(0) == len(text.text) - 1:
            text = text.part(1, len(text.text) - 1)
        return text

    def operand(self, start: int, end: int) -> str:
        return self.part(start, end).bare().text


@fast.memo(1024)
def structure(expression: str) -> Node:
    """The top level of an expression (the parentheses around all of it dropped); its operands' texts have
    theirs dropped too."""
    return _node(_Text.read(expression).part(0, len(expression)).bare())


def _node(text: _Text) -> Node:
    s = text.text
    n = len(s)
    if not s:
        return Node("leaf", s)
    question = next((i for i in text.top() if s[i] == "?" and not _optional_mark(s, i)), None)
    if question is not None:
        colon = _ternary_colon(text, question)
        if colon is None:
            return Node("leaf", s)
        return Node("ternary", s, (text.operand(0, question), text.operand(question + 1, colon),
                                   text.operand(colon + 1, n)), "?:")
    for op, kind in (("||", "or"), ("&&", "and")):
        cuts = [i for i in text.top() if s.startswith(op, i)]
        if cuts:
            bounds = [-2, *cuts, n]
            return Node(kind, s, tuple(text.operand(bounds[k] + 2, bounds[k + 1])
                                       for k in range(len(bounds) - 1)), op)
    relation = None
    for i in text.top():
        found = _relation_at(s, i)
        if found is not None:
            relation = (i, found)  # the last: comparisons associate to the left
    if relation is not None:
        i, op = relation
        return Node("relation", s, (text.operand(0, i), text.operand(i + len(op), n)), op)
    if any(s[i] in "+*/%" or (s[i] == "-" and i > 0) for i in text.top()):
        return Node("leaf", s)  # arithmetic (a leading '-' negates the operand after it)
    if s.startswith("!"):
        return Node("not", s, (text.operand(1, n),), "!")
    return _call(text) or Node("leaf", s)


def _optional_mark(s: str, i: int) -> bool:
    """Whether the ``?`` at ``i`` marks an optional field selection (``.?name``), not a conditional."""
    j = i - 1
    while j >= 0 and s[j].isspace():
        j -= 1
    return j >= 0 and s[j] == "."


def _ternary_colon(text: _Text, question: int) -> int | None:
    nested = 0
    for i in text.top(question + 1):
        ch = text.text[i]
        if ch == "?" and not _optional_mark(text.text, i):
            nested += 1
        elif ch == ":":
            if nested == 0:
                return i
            nested -= 1
    return None


_WORD = re.compile(r"[_a-zA-Z0-9]")


def _relation_at(s: str, i: int) -> str | None:
    two = s[i : i + 2]
    if two in ("==", "!=", "<=", ">="):
        return two
    if s[i] in "<>" and not (i > 0 and s[i - 1] in "<>=!") and two not in ("<=", ">="):
        return s[i]
    if two == "in" and (i == 0 or not (_WORD.match(s[i - 1]) or s[i - 1] == ".")) and \
            (i + 2 >= len(s) or not _WORD.match(s[i + 2])):
        return "in"
    return None


def _call(text: _Text) -> Node | None:
    """A method (or macro) called on a receiver, when the text is one: ``receiver.name(args)``."""
    s = text.text
    if not s.endswith(")") or text.depths[-1] != 0:
        return None
    opening = max((i for i in text.top() if s[i] == "("), default=-1)
    if opening <= 0 or text.closing(opening) != len(s) - 1:
        return None
    m = re.search(r"\.\s*([_a-zA-Z][_a-zA-Z0-9]*)\s*$", s[:opening])
    if m is None or text.depths[m.start()] != 0:
        return None
    receiver = s[: m.start()].strip()
    if not receiver or receiver.startswith("-"):
        return None
    close = len(s) - 1
    cuts = [i for i in range(opening + 1, close) if text.depths[i] == 1 and s[i] == ","]
    bounds = [opening, *cuts, close]
    args = tuple(text.operand(bounds[k] + 1, bounds[k + 1]) for k in range(len(bounds) - 1))
    args = () if args == ("",) else args
    name = m.group(1)
    if name in _MACROS:
        if len(args) != 2 or not re.fullmatch(r"[_a-zA-Z][_a-zA-Z0-9]*", args[0]):
            return None  # (the two-variable forms are not explained)
        return Node("macro", s, (receiver, *args), name)
    return Node("call", s, (receiver, *args), name)


_IDENTIFIER = re.compile(r"(?<![\w.])[_a-zA-Z][_a-zA-Z0-9]*")
_LITERAL_WORDS = frozenset(("true", "false", "null"))
_STRING_PREFIX = re.compile(r"(?i)r|b|rb|br")


def is_literal(text: str) -> bool:
    """Whether an operand is a literal (its value is its text: not worth a line), a list or map of literals
    included: no name outside its string literals but ``true``, ``false`` and ``null``."""
    for start, end in cel.code_spans(text):
        for m in _IDENTIFIER.finditer(text, start, end):
            if m.group(0) in _LITERAL_WORDS:
                continue
            if m.start() > 0 and text[m.start() - 1].isdigit():
                continue  # a number's suffix or exponent (1u, 1e5, 0x1F)
            if _STRING_PREFIX.fullmatch(m.group(0)) and m.end() < len(text) and text[m.end()] in "'\"":
                continue
            return False
    return True


# --------------------------------------------------------------------------------------------
# Values as CEL literals


class Unsigned(int):
    """An integer of CEL type uint (the engine hands it to Python as a plain int): written ``4u``."""


def truncation_marker(size: int) -> str:
    """The text standing for what was cut from a value: the size of the whole value's text in bytes."""
    return f"… truncated ({size} bytes) …"


def notation(value: Any, limit: int = VALUE_BYTES) -> str:
    """A value as the CEL literal that gives it, cut to ``limit`` bytes of UTF-8 (with the marker)."""
    text = _notation(value)
    if len(text) * 4 <= limit:
        return text
    encoded = text.encode()
    if len(encoded) <= limit:
        return text
    return encoded[:limit].decode(errors="ignore") + truncation_marker(len(encoded))


def _notation(value: Any) -> str:
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, int):
        return f"{int(value)}u" if isinstance(value, Unsigned) else str(value)
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else f'double("{library.render_value(value)}")'
    if isinstance(value, Mapping):  # keys sorted, as Go's encoding/json writes a map
        items = sorted(value.items(), key=lambda kv: _sort_key(kv[0]))
        return "{" + ", ".join(f"{_notation(k)}: {_notation(v)}" for k, v in items) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_notation(v) for v in value) + "]"
    if isinstance(value, datetime.datetime):
        return f'timestamp("{library.render_value(value)}")'
    if isinstance(value, datetime.timedelta):
        return f'duration("{library.render_value(value)}")'
    return str(library.render_value(value))


def _sort_key(key: Any) -> tuple[str, Any]:
    return type(key).__name__, key


def _key_literal(key: Any) -> str | None:
    """A map key as a CEL literal that equals it (None for a key no literal gives)."""
    if isinstance(key, bool | int | str):
        return _notation(key)
    return None


# --------------------------------------------------------------------------------------------
# Explaining


@dataclass(slots=True)
class Outcome:
    """What evaluating a part gave: its value, or its error; and its cost (None: not known)."""

    value: Any = None
    error: str | None = None
    cost: int | None = None


@dataclass(slots=True)
class Allowance:
    """The CPU time an evaluation's explanations may spend evaluating, in all (compiling is not counted: its time
    depends on what is cached already)."""

    seconds: float


Runner = Callable[[cel.Compiled], Outcome]  # evaluates a compiled part on the expression's values
@dataclass(frozen=True, slots=True)
class Wrap:
    """Where a part is evaluated: ``text`` puts its text there (inside a macro: with the macro's variable bound
    to one element), ``bound`` holds the macro variables in scope whose elements are JSON values (those of
    ``object``, ``oldObject`` or ``params``), by name, for :mod:`app.vap.fast.parts`."""

    text: Callable[[str], str]
    bound: Mapping[str, Any]

    def __call__(self, text: str) -> str:
        return self.text(text)


class _Stop(Exception):
    pass


def _as_is(text: str) -> str:
    return text


_unwrapped = Wrap(_as_is, {})


def _root_name(path: str) -> str:
    return re.match(r"[_a-zA-Z]\w*", path).group(0)  # type: ignore[union-attr]


# a path from a root or a macro's variable: names, optional selections and literal indexes
_PLAIN_PATH = re.compile(r"""[_a-zA-Z]\w*(?:\s*\.\s*\??[_a-zA-Z]\w*|\s*\[\s*(?:\d+|'[^'\\]*'|"[^"\\]*")\s*\])*""")
_VARIABLE = re.compile(r"variables\s*\.\s*([_a-zA-Z][_a-zA-Z0-9]*)")


class _Explainer:
    def __init__(self, compiled: cel.Compiled, run: Runner, budget: int, variables: Mapping[str, cel.Compiled],
                 allowance: Allowance | None, roots: Mapping[str, Any] | None) -> None:
        self.decls = compiled.declarations
        self.roots = roots if fast.on else None
        self.variables = variables
        self.run = run
        self.remaining = budget
        self.allowance = allowance
        self.stopped: str | None = None  # why the explanation stopped short
        self.entries: list[dict[str, Any]] = []

    def value(self, text: str, wrap: Wrap) -> Outcome | None:
        """The value of a part; None when it cannot be compiled on its own."""
        if self.remaining < 0:
            self.stopped = OUT_OF_BUDGET
            raise _Stop
        if self.allowance is not None and self.allowance.seconds < 0:
            self.stopped = OUT_OF_TIME
            raise _Stop
        if self.roots is not None:  # a path or a plain test of one: read in Python (the same value)
            read = parts.read(text, self.roots, wrap.bound)
            if read is not None:
                self.remaining -= read[1]
                return Outcome(read[0], None, read[1])
        compiled = cel.compile_expression(wrap(text), cel.VARIABLE, self.decls)
        if compiled.program is None or compiled.unsafe:
            return None
        started = time.process_time()  # CPU time: the same work costs the same on a busy machine
        outcome = self.run(compiled)
        if self.allowance is not None:
            self.allowance.seconds -= time.process_time() - started
        self.remaining -= outcome.cost or 0
        return outcome

    def add(self, expression: str, outcome: Outcome, element: dict[str, str] | None, note: str | None = None) -> None:
        if len(self.entries) >= MAX_ENTRIES:
            raise _Stop
        self.entries.append({
            "expression": expression,
            "value": notation(outcome.value) if outcome.error is None else None,
            "error": outcome.error,
            "element": element,
            "note": note,
        })

    def explain(self, node: Node, known: Outcome, wrap: Wrap, element: dict[str, str] | None, depth: int) -> None:
        """Lines for the operands of ``node``, whose own outcome is ``known``, then for the one that decides."""
        if depth > MAX_DEPTH:
            return
        if node.kind == "leaf":
            self.variable(node.text, known, depth)
            return
        if node.kind == "macro":
            self.macro(node, known, wrap, element, depth)
            return
        operands = node.parts[:1] if node.kind == "ternary" else node.parts
        pairs: list[tuple[str, Outcome]] = []
        bound = element["variable"] if element is not None else None
        for text in operands:  # (a literal, or the macro's variable whose value the line shows, is left out)
            outcome = None if is_literal(text) or text == bound else self.value(text, wrap)
            if outcome is not None:
                self.add(text, outcome, element)
                pairs.append((text, outcome))
        failed = [(t, o) for t, o in pairs if o.error is not None]
        false = [(t, o) for t, o in pairs if o.error is None and o.value is False]
        deciding: list[tuple[str, Outcome]] = []
        if node.kind == "ternary" and pairs:
            condition = pairs[0][1]
            if condition.error is None and isinstance(condition.value, bool):
                deciding = [(node.parts[1] if condition.value else node.parts[2], known)]
            else:
                deciding = pairs[:1]
        elif node.kind == "and":
            deciding = false[:1] or failed[:1]
        elif node.kind == "or":
            deciding = failed[:1] if known.error is not None else false
        elif node.kind == "not":
            deciding = pairs[:1]
        for text, outcome in deciding:
            self.explain(structure(text), outcome, wrap, element, depth + 1)

    def variable(self, text: str, known: Outcome, depth: int) -> None:
        """A reference to a composited variable that decides: its own expression explained (in its own
        declarations; it sees no macro's variable)."""
        m = _VARIABLE.fullmatch(text)
        compiled = self.variables.get(m.group(1)) if m is not None else None
        if compiled is None or compiled.declarations is None or compiled.program is None:
            return
        note = f"its expression: {compiled.expression.strip()}"
        line = next((e for e in reversed(self.entries) if e["expression"] == text), None)
        if line is None:
            self.add(text, known, None, note)
        elif line["note"] is None:
            line["note"] = note
        decls, self.decls = self.decls, compiled.declarations
        try:
            self.explain(structure(compiled.expression), known, _unwrapped, None, depth + 1)
        finally:
            self.decls = decls

    def macro(self, node: Node, known: Outcome, wrap: Wrap, element: dict[str, str] | None, depth: int) -> None:
        receiver, variable, predicate = node.parts
        name = node.op
        got = self.value(receiver, wrap)
        if got is None:
            return
        items = got.value
        if got.error is not None or not isinstance(items, list | Mapping):
            self.add(receiver, got, element)
            return
        if not items:
            self.add(receiver, got, element, note=f"no elements: {name}() is false")
            return
        count = len(items)
        plural = "s" if count != 1 else ""
        if name == "exists" and known.error is None:  # false: false for every element, none to look for
            self.add(predicate, Outcome(False), element,
                     note=f"false for each of the {count} element{plural} of {receiver}")
            return
        if count > MAX_SCANNED:
            self.add(receiver, got, element,
                     note=f"{count} elements: more than {MAX_SCANNED}, not looked at one by one")
            return
        # a map's keys are taken in sorted order (the engine's, like Go's, is arbitrary): any element that
        # decides a macro does, the first in that order is shown
        keys: list[Any] | None = sorted(items, key=_sort_key) if isinstance(items, Mapping) else None
        plain = _PLAIN_PATH.fullmatch(receiver) is not None
        # the elements of a path from object, oldObject or params (or an element of one) are JSON values
        json_elements = plain and _root_name(receiver) in parts.ROOTS | wrap.bound.keys()

        def described(i: int) -> dict[str, str]:
            if keys is None:
                return {"path": f"{receiver}[{i}]", "variable": variable,
                        "value": notation(items[i], ELEMENT_BYTES)}
            return {"path": f"{receiver} key {notation(keys[i])}", "variable": variable, "value": notation(keys[i])}

        def at(i: int) -> Wrap | None:
            """Where a part is evaluated for element i: only for a receiver that is a path (cheap to select again,
            where a computed one would be computed again each time)."""
            ref = (f"({receiver})[{i}]" if keys is None else _key_literal(keys[i])) if plain else None
            if ref is None:
                return None
            bound = wrap.bound
            if json_elements:
                bound = {**bound, variable: items[i] if keys is None else keys[i]}
            elif variable in bound:  # (shadowed by a variable whose elements are left to the engine)
                bound = {k: v for k, v in bound.items() if k != variable}
            return Wrap(lambda text: wrap(f"[{ref}].map({variable}, {text})[0]"), bound)

        outcomes: Iterator[tuple[int, Outcome | None]]
        by_key: dict[Any, Any] | None = None
        read = self._read_each(predicate, variable, keys if keys is not None else items, wrap) if json_elements \
            else None
        if read is not None:  # each element's predicate read in Python
            by_key = dict(zip(keys, read, strict=True)) if keys is not None else dict(enumerate(read))
        elif keys is None:
            results = self.value(f"({receiver}).map({variable}, {predicate})", wrap)
            values = results.value if results is not None and results.error is None else None
            if isinstance(values, list) and len(values) == count:
                by_key = dict(enumerate(values))
        else:  # (each key with its predicate's value: the engine's order is not the one shown)
            results = self.value(f"({receiver}).map({variable}, [{variable}, {predicate}])", wrap)
            values = results.value if results is not None and results.error is None else None
            if isinstance(values, list) and len(values) == count:
                by_key = {pair[0]: pair[1] for pair in values if isinstance(pair, list) and len(pair) == 2}
        if by_key is not None and len(by_key) == count:
            outcomes = ((i, Outcome(by_key[i if keys is None else keys[i]])) for i in range(count))
        else:  # an element's predicate fails: each evaluated on its own, up to the one that decides
            outcomes = ((i, self._element(predicate, at(i))) for i in range(min(count, MAX_ELEMENTS)))
        decided = _deciding(name, known, outcomes)
        if decided is None:
            if known.error is None and name == "exists_one":
                self.add(predicate, Outcome(False), element,
                         note=f"false for each of the {count} element{plural} of {receiver}")
            return
        i, outcome, earlier = decided
        note = None
        if earlier is not None:
            note = f"{name}() wants exactly one element; it is true for {described(earlier)['path']} too"
        deciding = described(i)
        self.add(predicate, outcome, deciding, note)
        inner = at(i)
        if inner is not None:
            self.explain(structure(predicate), outcome, inner, deciding, depth + 1)

    def _read_each(self, predicate: str, variable: str, elements: list[Any], wrap: Wrap) -> list[Any] | None:
        """The predicate's value for each element, in order, read in Python (:mod:`app.vap.fast.parts`); None when
        one of them is left to the engine."""
        if self.roots is None:
            return None
        values = []
        steps = 0
        for element in elements:
            read = parts.read(predicate, self.roots, {**wrap.bound, variable: element})
            if read is None:
                return None
            values.append(read[0])
            steps += read[1]
        self.remaining -= steps
        return values

    def _element(self, predicate: str, wrap: Wrap | None) -> Outcome | None:
        return self.value(predicate, wrap) if wrap is not None else None


def _deciding(name: str, known: Outcome, outcomes: Iterator[tuple[int, Outcome | None]]
              ) -> tuple[int, Outcome, int | None] | None:
    """The element that decides a false or failed macro: its index, its predicate's outcome and, for the second
    element ``exists_one`` is true for, the first one's index."""
    first_error: tuple[int, Outcome] | None = None
    first_true: int | None = None
    for i, outcome in outcomes:
        if outcome is None:
            continue
        if outcome.error is not None:
            if first_error is None:
                first_error = (i, outcome)
                if name != "all" or known.error is not None:
                    break  # (all() is false for a false element after it, whatever the error)
            continue
        if name == "all" and outcome.value is False and known.error is None:
            return i, outcome, None
        if name == "exists_one" and outcome.value is True and known.error is None:
            if first_true is not None:
                return i, outcome, first_true
            first_true = i
    if first_error is not None:
        return first_error[0], first_error[1], None
    return None


def explain(compiled: cel.Compiled, result: Outcome, run: Runner, budget: int,
            variables: Mapping[str, cel.Compiled] | None = None, allowance: Allowance | None = None,
            roots: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    """The explanation of an expression that was false or failed (``result``): one line per operand, each
    ``{expression, value, error, element, note}`` (``element``: the macro element the line is evaluated for,
    ``{path, variable, value}``). ``run`` evaluates a compiled part on the expression's values; the parts
    together may cost ``budget``, and take what is left of ``allowance`` to evaluate, after which the explanation
    stops with a line saying so. A composited variable that decides (``variables``: the policy's, by
    name) has its own expression explained. ``roots``: the values ``run`` evaluates on, by name, when the
    parts that are paths or plain tests of them may be read from them (:mod:`app.vap.fast.parts`)."""
    if compiled.program is None or compiled.unsafe or compiled.declarations is None:
        return []
    explainer = _Explainer(compiled, run, budget, variables or {}, allowance, roots)
    try:
        explainer.explain(structure(compiled.expression), result, _unwrapped, None, 0)
    except _Stop:
        if explainer.stopped is not None:
            explainer.entries.append({"expression": "", "value": None, "error": explainer.stopped, "element": None,
                                      "note": None})
    return explainer.entries
