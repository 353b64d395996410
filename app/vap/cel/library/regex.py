"""Kubernetes regex library (k8s.io/apiserver/pkg/cel/library/regex.go), all versions.

Patterns are compiled with RE2 (google-re2), the engine Go's regexp package is modelled on; parse
errors are reported in Go's wording (``error parsing regexp: missing closing ]: `[```).
"""

from __future__ import annotations

from typing import Any

import re2

from ... import fast
from ._decl import REGEX_STRING_LENGTH_COST_FACTOR, STRING_TRAVERSAL_COST_FACTOR, T, function, overload
from .errors import LibraryError, go_regex_error

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False


class RegexSyntaxError(Exception):
    def __init__(self, go_text: str) -> None:
        super().__init__(go_text)
        self.go_text = go_text


@fast.memo(512)
def compile_go(pattern: str) -> Any:
    """Compile a pattern with RE2; raise RegexSyntaxError carrying Go's error text."""
    try:
        return re2.compile(pattern, _OPTIONS)
    except re2.error as exc:
        msg = exc.args[0] if exc.args else str(exc)
        if isinstance(msg, bytes):
            msg = msg.decode("utf-8", "replace")
        raise RegexSyntaxError(go_regex_error(str(msg), pattern)) from None


def _compiled(pattern: str) -> Any:
    try:
        return compile_go(pattern)
    except RegexSyntaxError as exc:
        raise LibraryError("Illegal regex: " + exc.go_text) from None


def find_all(s: str, pattern: Any, n: int = -1) -> list[str]:
    """Go's Regexp.FindAllString: successive non-overlapping matches; an empty match right after
    the previous match is skipped."""
    out: list[str] = []
    if n == 0:
        return out
    pos, prev_end, end = 0, -1, len(s)
    while (n < 0 or len(out) < n) and pos <= end:
        m = pattern.search(s, pos)
        if m is None:
            break
        start, stop = m.span()
        accept = True
        if stop == pos:
            if start == prev_end:
                accept = False
            pos += 1
        else:
            pos = stop
        prev_end = stop
        if accept:
            out.append(m.group(0))
    return out


def _find(s: str, pattern: str) -> str:
    m = _compiled(pattern).search(s)
    return m.group(0) if m is not None else ""


def _find_all(s: str, pattern: str, n: int = -1) -> list[str]:
    return find_all(s, _compiled(pattern), n)


def _cost(s: str, pattern: str, *rest: Any, result: Any = None) -> int:
    import math

    str_cost = int(math.ceil((1.0 + len(s)) * STRING_TRAVERSAL_COST_FACTOR))
    regex_cost = int(math.ceil(len(pattern) * REGEX_STRING_LENGTH_COST_FACTOR))
    return str_cost * regex_cost


def decls(version: tuple[int, int]) -> list:
    return [
        function(
            "find", overload("string_find_string", T.STRING, [T.STRING, T.STRING], _find, member=True, cost=_cost)
        ),
        function(
            "findAll",
            overload(
                "string_find_all_string", T.List(T.STRING), [T.STRING, T.STRING], _find_all, member=True, cost=_cost
            ),
            overload(
                "string_find_all_string_int",
                T.List(T.STRING),
                [T.STRING, T.STRING, T.INT],
                _find_all,
                member=True,
                cost=_cost,
            ),
        ),
    ]
