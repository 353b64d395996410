"""The code spans of an expression (its text outside string literals and comments), found by one pass of a pattern,
against two other readings of the text: the search from one string or comment to the next that found them before,
kept here, and a reading one character at a time. The same spans for every expression of the tests, the gallery and
the benchmark, and for random texts of quotes, escapes, raw prefixes, slashes and newlines."""

from __future__ import annotations

import functools
import random
import re
from pathlib import Path
from typing import Any

import yaml

from app.vap import cel
from benchmarks import scenarios as bench_scenarios

ROOT = Path(__file__).resolve().parent.parent
_EXPRESSION_KEYS = {"expression", "messageExpression", "valueExpression", "expr"}


def _collect(value: Any, key: Any, found: set[str]) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            _collect(v, k, found)
    elif isinstance(value, list):
        for v in value:
            _collect(v, key, found)
    elif isinstance(value, str):
        if key in _EXPRESSION_KEYS:
            found.add(value)
        elif "\n" in value and "xpression" in value:  # a pane of a scenario: its documents in turn
            try:
                docs = list(yaml.load_all(value, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)))
            except yaml.YAMLError:
                return
            _collect(docs, None, found)


@functools.cache
def expression_texts() -> tuple[str, ...]:
    """Every expression (and messageExpression, valueExpression, CEL case) in the YAML of the tests and of the
    application (gallery, exercises, templates), scenario panes read as YAML in turn, and in the benchmark's
    scenarios."""
    found: set[str] = set()
    for path in sorted([*ROOT.glob("tests/**/*.yaml"), *ROOT.glob("tests/**/*.yml"), *ROOT.glob("app/**/*.yaml")]):
        try:
            docs = list(yaml.load_all(path.read_text(encoding="utf-8"),
                                      Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)))
        except yaml.YAMLError:
            continue
        _collect(docs, None, found)
    for scenario in bench_scenarios.all_scenarios(quick=True):
        _collect(scenario.payload, None, found)
    return tuple(sorted(found))


_CODE_ENDS = re.compile(r"//|['\"]")  # where a comment or a string literal starts
_STRING_STOPS = {quote: re.compile(r"[\\\n]|" + re.escape(quote[0])) for quote in ("'", '"', "'''", '"""')}


def _searching(text: str) -> tuple[tuple[int, int], ...]:
    """The code spans as app.vap.cel found them before one pattern did: a search for the next comment or string
    literal, then for each string's end, stop by stop."""
    spans: list[tuple[int, int]] = []
    i, start, n = 0, 0, len(text)
    while (found := _CODE_ENDS.search(text, i)) is not None:
        i = found.start()
        spans.append((start, i))
        if found.group() == "//":
            end = text.find("\n", i)
            i = start = n if end < 0 else end
            continue
        ch = text[i]
        raw = i > 0 and text[i - 1] in "rR"
        quote = text[i : i + 3] if text.startswith(ch * 3, i) else ch
        j = i + len(quote)
        stops = _STRING_STOPS[quote]
        while (stop := stops.search(text, j)) is not None:
            j = stop.start()
            if text.startswith(quote, j) or (text[j] == "\n" and len(quote) == 1):
                break
            j += 2 if text[j] == "\\" and not raw else 1
        else:
            j = n
        i = start = min(n, j + len(quote))
    spans.append((start, n))
    return tuple(s for s in spans if s[0] < s[1])


def _one_character_at_a_time(text):
    spans = []
    i, start, n = 0, 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "/" and text.startswith("//", i):
            spans.append((start, i))
            end = text.find("\n", i)
            i = start = n if end < 0 else end
            continue
        if ch in "'\"":
            spans.append((start, i))
            raw = i > 0 and text[i - 1] in "rR"
            quote = text[i:i + 3] if text.startswith(ch * 3, i) else ch
            j = i + len(quote)
            while j < n and not text.startswith(quote, j):
                if text[j] == "\\" and not raw:
                    j += 1
                elif text[j] == "\n" and len(quote) == 1:
                    break
                j += 1
            i = start = min(n, j + len(quote))
            continue
        i += 1
    spans.append((start, n))
    return tuple(s for s in spans if s[0] < s[1])


def test_code_spans_are_those_a_reading_one_character_at_a_time_finds():
    rnd = random.Random(7)
    alphabet = "ab r R'\"\\\n/.x"
    for _ in range(20_000):
        text = "".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 16)))
        assert cel._code_spans.__wrapped__(text) == _one_character_at_a_time(text), repr(text)


def test_code_spans_are_those_the_search_stop_by_stop_found_for_every_expression_of_the_repository():
    texts = expression_texts()
    assert len(texts) > 1000  # (the tests' scenarios, the gallery, the CEL cases, the benchmark)
    for text in texts:
        assert cel._code_spans.__wrapped__(text) == _searching(text), repr(text)


def test_code_spans_are_those_the_search_stop_by_stop_found_for_random_texts():
    rnd = random.Random(11)
    atoms = ["'", '"', "'''", '"""', "\\", "\\\\", "r", "R", "b", "/", "//", "\n", " ", "a", "x.y", "''", '""']
    for _ in range(5_000):
        text = "".join(rnd.choice(atoms) for _ in range(rnd.randint(0, 24)))
        assert cel._code_spans.__wrapped__(text) == _searching(text), repr(text)
    for text in ["", "'", "r'", "\\", "'\\", "'''\\", "r'''\\", "'a\\\n'", "'a\nb'", "r'\\'", "'''a\n''''", "//'",
                 "'//'//", '"""\'\'\'"""', "x'''", "R\"\\\"", "'\\"]:
        assert cel._code_spans.__wrapped__(text) == _searching(text) == _one_character_at_a_time(text), repr(text)


def test_code_spans_of_an_expression_with_strings_and_a_comment():
    text = "object.x == 'a//b' && r\"c\\\" // d\n|| '''e\nf''' == \"g\""
    assert [text[a:b] for a, b in cel._code_spans(text)] == [
        "object.x == ", " && r", " ", "\n|| ", " == "]
