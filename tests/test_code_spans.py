"""The code spans of an expression (its text outside string literals and comments), found by searching, against a
reading of the text one character at a time: the same spans for random texts of quotes, escapes, raw prefixes,
slashes and newlines."""

from __future__ import annotations

import random

from app.vap import cel


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


def test_code_spans_of_an_expression_with_strings_and_a_comment():
    text = "object.x == 'a//b' && r\"c\\\" // d\n|| '''e\nf''' == \"g\""
    assert [text[a:b] for a, b in cel._code_spans(text)] == [
        "object.x == ", " && r", " ", "\n|| ", " == "]
