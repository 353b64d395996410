"""``cel.mentions`` finds a name as an identifier exactly where a search for it, with neither a letter, a digit
nor ``_`` on either side, finds it: compared with that search on the repository's expressions and on texts made
to put names against every kind of neighbour."""

from __future__ import annotations

import random
import re

from app.vap import cel, fast
from tests.test_code_spans import expression_texts

NAMES = ["object", "oldObject", "params", "request", "namespaceObject", "authorizer", "variables", "self", "oldSelf",
         "quantity", "isQuantity", "format.named", "strings.quote", "ip", "cidr", "url", "a", "_", "x1", "9",
         "semver", "format.dns1123Label", "sets.contains", "int", "o.b"]


def _searched(text: str, *names: str) -> bool:
    return any(re.search(rf"(?<![_a-zA-Z0-9]){re.escape(name)}(?![_a-zA-Z0-9])", text) for name in names)


def _texts() -> list[str]:
    rng = random.Random(7)
    pieces = [*NAMES, "objects", "_object", "object_", "9params", "params9", "é", "ô", "request.", ".request",
              " ", "'", '"', "(", ")", ".", "-", "\n", "#", "0", "Z", "__", "ﬁ", "\\", "format", "named", "strings"]
    out = []
    for _ in range(3000):
        out.append("".join(rng.choice(pieces) for _ in range(rng.randint(0, 8))))
    return out


def test_a_name_is_mentioned_where_the_search_finds_it():
    texts = list(expression_texts()) + _texts()
    assert len(texts) > 3000
    rng = random.Random(11)
    fast.clear()
    for text in texts:
        for name in NAMES:
            assert cel.mentions(text, name) == _searched(text, name), (text, name)
        several = tuple(rng.sample(NAMES, 3))
        assert cel.mentions(text, *several) == _searched(text, *several), (text, several)
    assert cel.mentions("object.spec", "object") and not cel.mentions("object.spec")


def test_a_long_texts_runs_are_read_each_time_and_not_kept():
    fast.clear()
    long = "x " * cel._KEPT_RUNS + "params"
    assert cel.mentions(long, "params") and not cel.mentions(long, "request")
    assert cel._runs.cache_info().currsize == 0
