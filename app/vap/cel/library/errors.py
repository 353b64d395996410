"""Run-time error texts: from the engine's (cel-cpp) wording to cel-go's, as the apiserver prints them.

Kubernetes library functions implemented here raise :class:`LibraryError`; the engine hands the text
back with a status prefix, and :func:`translate_runtime_error` returns it unchanged (minus a marker).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import TypeVar

from ... import fast

T = TypeVar("T")

# Marks texts that already are the apiserver's wording (raised by our library functions).
_MARKER = "\u2063k8s:"

ENGINE_LIMIT_NOTE = (
    "the playground's CEL engine (cel-cpp) stopped here; kube-apiserver has no such limit and would "
    "have continued (its only limit is the cost budget)"
)


ITERATION_LIMIT = (
    "iteration budget exceeded: the playground's CEL engine (cel-cpp) allows 9,999 comprehension iterations "
    "per evaluation and stopped here; kube-apiserver has no such limit and would have continued (its only "
    "limit is the cost budget)"
)


OPTIONAL_ARGUMENT = (
    "the playground's CEL engine cannot hand an optional value inside a list or map to a Kubernetes library "
    "function; kube-apiserver has no such limit and would evaluate it"
)


class LibraryError(ValueError):
    """An error raised by a Kubernetes library function, carrying the apiserver's exact text."""

    def __init__(self, text: str) -> None:
        super().__init__(_MARKER + text)
        self.text = text


class NoSuchOverload(LibraryError):
    def __init__(self) -> None:
        super().__init__("no such overload")


_STATUS_PREFIX = re.compile(r"^(?:[A-Z_]+: )+")
_STATUS_SUFFIX = re.compile(r" \[[A-Z_]+\]$")

_EXACT = {
    "divide by zero": "division by zero",
    "modulus by zero": "modulus by zero",
    "integer overflow": "integer overflow",
    "unsigned integer overflow": "unsigned integer overflow",
    "double out of int64 range": "integer overflow",
    "int64 out of uint64 range": "unsigned integer overflow",
    "double out of uint64 range": "unsigned integer overflow",
    "uint64 out of int64 range": "integer overflow",
    "timestamp overflow": "timestamp overflow",
    "malformed UTF-8 bytes": "invalid UTF-8 in bytes, cannot convert to string",
    # cel-go: String.ConvertToType falls through to its "type conversion error"
    "cannot convert string to int": "type conversion error from 'string' to 'int'",
    "cannot convert string to uint": "type conversion error from 'string' to 'uint'",
    "cannot convert string to double": "type conversion error from 'string' to 'double'",
    "String to Duration conversion failed": "type conversion error from 'string' to 'google.protobuf.Duration'",
    "String to Timestamp conversion failed": "type conversion error from 'string' to 'google.protobuf.Timestamp'",
    "optional.none() dereference": "optional.none() dereference",
    "Applying SELECT to non-message type": "no such key",
    "Iteration budget exceeded": ITERATION_LIMIT,
}

# RE2 (cel-cpp and google-re2) parse error codes -> Go regexp/syntax codes
_RE2_TO_GO = {
    "missing ]": "missing closing ]",
    "missing )": "missing closing )",
    "unexpected )": "unexpected )",
    "trailing \\": "trailing backslash at end of expression",
    "invalid escape sequence": "invalid escape sequence",
    "invalid character class": "invalid character class",
    "invalid character class range": "invalid character class range",
    "missing argument to repetition operator": "missing argument to repetition operator",
    "no argument for repetition operator": "missing argument to repetition operator",  # google-re2's words
    "bad repetition operator": "invalid nested repetition operator",
    "invalid repetition size": "invalid repeat count",
    "invalid perl operator": "invalid or unsupported Perl syntax",
    "invalid named capture group": "invalid named capture",
    "invalid UTF-8": "invalid UTF-8",
    "bad named capture group": "invalid named capture",
    "duplicate capture group name": "duplicate capture group name",
    "pattern too large - compile failed": "expression too large",
}


def go_regex_error(re2_message: str, pattern: str) -> str:
    """Render an RE2 parse error the way Go's regexp package words it (``error parsing regexp: ...``)."""
    code, _, arg = re2_message.partition(": ")
    go_code = _RE2_TO_GO.get(code.strip(), code.strip())
    if go_code in ("missing closing ]", "missing closing )", "unexpected )"):
        arg = arg or pattern
    if not arg:
        arg = pattern
    return f"error parsing regexp: {go_code}: `{arg}`"


_KEY_NOT_FOUND = re.compile(r'^Key not found in map : "?(.*?)"?$', re.S)
_INDEX = re.compile(r"^Index error: index=(-?\d+) size=\d+$")
_NO_OVERLOAD = re.compile(r"^No matching overloads found")
_REGEX = re.compile(r"^invalid regular expression: (.*)$", re.S)
_TYPE_CONVERSION = re.compile(r"^Type conversion error from '(.*)' to '(.*)'$")


# Error texts up to this length are remembered with what they give (the same few recur on every
# evaluation of a scenario); longer ones, which quote values, are worked out each time.
_REMEMBERED_TEXT = 512


def _remembering_short_texts(function: Callable[[str], T]) -> Callable[[str], T]:
    remembered = fast.memo(1024)(function)

    @functools.wraps(function)
    def call(text: str) -> T:
        text = str(text)
        return remembered(text) if len(text) <= _REMEMBERED_TEXT else function(text)

    call.cache_clear = remembered.cache_clear  # type: ignore[attr-defined]
    return call


@_remembering_short_texts
def translate_runtime_error(text: str) -> str:
    """Turn an engine run-time error text into cel-go's wording, as the apiserver prints it."""
    text = _STATUS_SUFFIX.sub("", str(text).strip())
    text = _STATUS_PREFIX.sub("", text, count=1)
    if text.startswith(_MARKER):
        return text[len(_MARKER) :]
    if _MARKER in text:  # our text wrapped by the engine in something else
        return text.split(_MARKER, 1)[1]
    if text in _EXACT:
        return _EXACT[text]
    m = _KEY_NOT_FOUND.match(text)
    if m:
        return "no such key: " + m.group(1)
    m = _INDEX.match(text)
    if m:
        return "index out of bounds: " + m.group(1)
    if _NO_OVERLOAD.match(text) or text.startswith("Index error: expected integer type"):
        return "no such overload"
    if text.startswith("Invalid container type") or text.startswith("Invalid map key type"):
        return "no such overload"
    m = _REGEX.match(text)
    if m:
        detail = m.group(1)
        code, _, arg = detail.partition(": ")
        return go_regex_error(detail, arg)
    m = _TYPE_CONVERSION.match(text)
    if m:
        return f"type conversion error from '{m.group(1)}' to '{m.group(2)}'"
    if "cel.@mapInsert" in text:
        return (
            "transformMap/transformMapEntry cannot be evaluated by the playground's CEL engine (a known bug of "
            "the cel-expr-python binding); kube-apiserver supports them from 1.32"
        )
    if "vector::reserve" in text:
        return (
            "lists.range() with a negative count stops the playground's CEL engine (cel-cpp); kube-apiserver "
            "returns an empty list"
        )
    if "Iteration budget exceeded" in text:
        return ITERATION_LIMIT
    if "returned a result with an exception set" in text:  # an optional value among a Python function's arguments
        return OPTIONAL_ARGUMENT
    if text.startswith("Non-CEL value type"):  # a value a Python function could not hand back (a type value)
        return (
            "the playground's CEL engine cannot pass this value through a composited variable (a type value); "
            "kube-apiserver has no such limit and would use it"
        )
    if "Exceeded max recursion depth" in text:
        return text + ": " + ENGINE_LIMIT_NOTE
    return text


@_remembering_short_texts
def is_engine_limit(text: str) -> bool:
    """True when an error comes from a limit or bug of the engine that kube-apiserver does not have."""
    return any(
        marker in text
        for marker in (
            "vector::reserve",
            "Iteration budget exceeded",
            "max recursion depth",
            ENGINE_LIMIT_NOTE,
            "cel.@mapInsert",
            "playground's CEL engine",
        )
    )


_RECURSION = re.compile(r"Exceeded max recursion depth of (\d+)")


# checker messages the engine words differently from cel-go (checker/errors.go)
_CHECKER_WORDING = [
    (re.compile(r"^undefined field '([^']*)' not found in struct '[^']*'$", re.S), r"undefined field '\1'"),
    (re.compile(r"^expression of type '(.*)' cannot be the operand of a select operation$", re.S),
     r"type '\1' does not support field selection"),
    (re.compile(r"^expression of type '(.*)' cannot be the range of a comprehension (.*)$", re.S),
     r"expression of type '\1' cannot be range of a comprehension \2"),
]


def compile_limit_error(text: str) -> str | None:
    """For an engine compile error that only a limit of the engine causes (kube-apiserver compiles the
    expression), the error to report when the expression is evaluated; None for any other error.

    The engine's parser and planner stop at a nesting depth of 32 (e.g. 33 chained ``+`` or 31
    chained ``.map()``), and its constant folding shares the 9,999-iteration budget; cel-go's limits
    are far higher, so the apiserver stores such a policy and evaluates the expression.
    """
    m = _RECURSION.search(text)
    if m:
        return (
            f"the playground's CEL engine (cel-cpp) cannot evaluate this expression: it is nested deeper than the "
            f"{m.group(1)} levels the engine parses and plans (e.g. a chain of {int(m.group(1)) + 1} '+'); "
            "kube-apiserver has no such limit and would evaluate it"
        )
    if "Iteration budget exceeded" in text:
        return (
            "the playground's CEL engine (cel-cpp) cannot evaluate this expression: it ran out of its 9,999 "
            "comprehension iterations while folding constants; kube-apiserver has no such limit and would "
            "evaluate it"
        )
    return None


def translate_compile_message(message: str) -> str:
    """A compile-issue message as kube-apiserver's users read it (cel-go's wording).

    The engine's parser and planner stop at a nesting depth of 32 (e.g. 33 chained ``+`` or 31
    chained ``.map()``), and its constant folding shares the 9,999-iteration budget; cel-go's limits
    are far higher, so such an expression compiles in the apiserver. The message says so instead of
    looking like an error in the expression.
    """
    m = _RECURSION.search(message)
    if m:
        return (
            f"expression nesting exceeds the playground's CEL engine limit (cel-cpp parses and plans at most "
            f"{m.group(1)} levels, e.g. a chain of {int(m.group(1)) + 1} '+'); kube-apiserver has no such limit "
            "and accepts this expression"
        )
    if "Iteration budget exceeded" in message:  # constant folding ran a large literal comprehension
        return (
            "the playground's CEL engine (cel-cpp) ran out of its 9,999 comprehension iterations while folding "
            "constants; kube-apiserver has no such limit and accepts this expression"
        )
    for pattern, replacement in _CHECKER_WORDING:
        if pattern.match(message):
            return pattern.sub(replacement, message)
    return message
