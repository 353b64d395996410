"""Kyverno's wildcard matching (ext/wildcard over IGLOU-EU/go-wildcard v1): ``*`` any run, ``?`` one character.

Case-sensitive; an empty pattern matches only the empty string; ``*`` alone matches everything.
"""

from __future__ import annotations

import re
from functools import lru_cache


@lru_cache(maxsize=1024)
def _compile(pattern: str) -> re.Pattern[str]:
    parts = [".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern]
    return re.compile("".join(parts), re.DOTALL)


def match(pattern: str, name: str) -> bool:
    """Say whether ``name`` satisfies ``pattern``."""
    if pattern == "":
        return name == ""
    if pattern == "*":
        return True
    return _compile(pattern).fullmatch(name) is not None


def contains_wildcard(value: str) -> bool:
    return "*" in value or "?" in value


def check_patterns(patterns: list[str], *names: str) -> bool:
    """Say whether any name satisfies any pattern."""
    return any(match(p, n) for n in names for p in patterns)
