"""Bounds on what one scenario may hold, so that reading it stays cheap whatever is pasted.

Rule: every bound here is checked while the panes are read (app/vap/documents.py), before any
policy logic runs; going over one is a problem of severity error at the pane, document and line
where it happens, naming the bound, its configuration name and its configured value. The web
layer sets the values from its configuration (:func:`use`); the command line and tests get the
defaults.

Bounds enforced elsewhere: the request body size (the web layer, HTTP 413), the CEL cost budgets
(app/vap/validator.py, kube-apiserver's own constants and messages), the wall-clock time and the
memory of one evaluation (app/isolation.py, outside the evaluating process).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, fields
from typing import Any

# kube-apiserver's CEL parser refuses expressions over 100,000 code points (cel-go's default
# ExpressionSizeCodePointLimit); the engine reports that itself, at the expression's field.
CEL_PARSER_CODE_POINT_LIMIT = 100_000

POLICY_KIND = "ValidatingAdmissionPolicy"
ADMISSION_GROUP = "admissionregistration.k8s.io"


@dataclass(frozen=True)
class Limits:
    """The bounds of one scenario; each field is also a configuration name (upper case)."""

    max_documents: int = 500  # documents in one pane (after kind: List expansion)
    max_depth: int = 100  # nesting of mappings and sequences in one document
    max_nodes: int = 50_000  # values in the whole scenario, YAML aliases expanded
    max_aliases: int = 100  # YAML alias uses (*name) in the whole scenario
    max_string_length: int = 256 * 1024  # characters in one string (a value or a key)
    max_expression_length: int = CEL_PARSER_CODE_POINT_LIMIT  # characters in one CEL expression
    max_expressions: int = 1_000  # CEL expressions in all policies of the scenario

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> Limits:
        """Read the bounds from a configuration mapping (keys MAX_DOCUMENTS, MAX_DEPTH, ...)."""
        values = {f.name: int(config[f.name.upper()]) for f in fields(cls) if config.get(f.name.upper()) is not None}
        return cls(**values)

    def as_config(self) -> dict[str, int]:
        """The bounds as configuration entries (MAX_DOCUMENTS, MAX_DEPTH, ...)."""
        return {f.name.upper(): getattr(self, f.name) for f in fields(self)}

    def describe(self, name: str) -> str:
        """Name a bound by its configuration name and value, for messages."""
        return f"(limit: PLAYGROUND_{name.upper()} = {getattr(self, name)})"


DEFAULT_LIMITS = Limits()
_active: ContextVar[Limits] = ContextVar("playground_limits", default=DEFAULT_LIMITS)


def current() -> Limits:
    """Return the bounds in effect (the defaults unless :func:`use` set others)."""
    return _active.get()


@contextmanager
def use(limits: Limits) -> Iterator[Limits]:
    """Apply these bounds to the scenarios read inside the block."""
    token = _active.set(limits)
    try:
        yield limits
    finally:
        _active.reset(token)


def set_default(limits: Limits) -> None:
    """Apply these bounds from now on in this context (a worker process sets them once)."""
    _active.set(limits)


class LimitExceeded(ValueError):
    """A scenario went over one of its bounds; carries where (line and column, 1-based)."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None,
                 path: str | None = None) -> None:
        super().__init__(message)
        self.line = line
        self.column = column
        self.path = path


class Usage:
    """What one scenario has used of its bounds so far: values read, aliases, expressions.

    Once a bound is exceeded the scenario is not read further: ``exceeded`` tells the loader to
    leave the remaining panes, so the one problem that matters is reported once.
    """

    def __init__(self, limits: Limits | None = None) -> None:
        self.limits = limits or current()
        self.nodes = 0
        self.composed = 0
        self.aliases = 0
        self.expressions = 0
        self.exceeded = False

    def _over(self, message: str, line: int | None = None, column: int | None = None,
              path: str | None = None) -> LimitExceeded:
        self.exceeded = True
        return LimitExceeded(message, line, column, path)

    def counts(self) -> tuple[int, int, int, int]:
        """What the scenario has used so far of the bounds that add up across panes."""
        return (self.nodes, self.composed, self.aliases, self.expressions)

    def add(self, used: tuple[int, int, int, int]) -> bool:
        """Count a pane read before (what :meth:`counts` grew by while reading it), if that stays
        within the bounds; otherwise change nothing and return False (the pane must be read again
        for the problem and its place)."""
        nodes, composed, aliases, expressions = (a + b for a, b in zip(self.counts(), used, strict=True))
        if (max(nodes, composed) > self.limits.max_nodes or aliases > self.limits.max_aliases
                or expressions > self.limits.max_expressions):
            return False
        self.nodes, self.composed, self.aliases, self.expressions = nodes, composed, aliases, expressions
        return True

    def restore(self, counts: tuple[int, int, int, int]) -> None:
        """Go back to what :meth:`counts` returned (a pane is read again from its start)."""
        self.nodes, self.composed, self.aliases, self.expressions = counts
        self.exceeded = False

    def compose(self, line: int, column: int) -> None:
        """Count a value as the YAML parser reads it (stops an oversized pane before building it)."""
        self.composed += 1
        if self.composed > self.limits.max_nodes:
            raise self._too_many_nodes(line, column)

    def node(self, line: int | None, column: int | None) -> None:
        """Count a value of a document as it is built (aliases expanded)."""
        self.nodes += 1
        if self.nodes > self.limits.max_nodes:
            raise self._too_many_nodes(line, column)

    def value(self, line: int, column: int, depth: int, text: str | None, composed: bool = False) -> None:
        """Count a value as it is built, at its depth, with its text when it is a scalar: :meth:`compose` when
        ``composed`` (a node composed in C, counted as the parser would have counted it), :meth:`node`,
        :meth:`depth` and :meth:`string` in one call, their checks in that order. The two counts are written
        out here, not called: this runs for every value of every pane read."""
        limits = self.limits
        if composed:
            self.composed += 1
            if self.composed > limits.max_nodes:
                raise self._too_many_nodes(line, column)
        self.nodes += 1
        if self.nodes > limits.max_nodes:
            raise self._too_many_nodes(line, column)
        if depth > limits.max_depth:
            self.depth(depth, line, column)
        if text is not None and len(text) > limits.max_string_length:
            self.string(text, line, column)

    def _too_many_nodes(self, line: int | None, column: int | None) -> LimitExceeded:
        return self._over(
            f"the scenario holds too many values: more than {self.limits.max_nodes:,} mappings, lists and scalars, "
            f"counting a YAML alias each time it is used {self.limits.describe('max_nodes')}", line, column)

    def alias(self, line: int, column: int) -> None:
        self.aliases += 1
        if self.aliases > self.limits.max_aliases:
            raise self._over(
                f"too many YAML aliases: the scenario uses aliases (*name) more than {self.limits.max_aliases:,} times "
                f"{self.limits.describe('max_aliases')}", line, column)

    def depth(self, depth: int, line: int | None, column: int | None) -> None:
        if depth > self.limits.max_depth:
            raise self._over(
                f"nested too deeply: mappings and lists go more than {self.limits.max_depth:,} levels deep "
                f"{self.limits.describe('max_depth')}", line, column)

    def string(self, text: str, line: int | None, column: int | None) -> None:
        if len(text) > self.limits.max_string_length:
            raise self._over(
                f"a string is too long: {len(text):,} characters, more than {self.limits.max_string_length:,} "
                f"{self.limits.describe('max_string_length')}", line, column)

    def documents(self, count: int, line: int | None, column: int | None) -> None:
        if count > self.limits.max_documents:
            raise self._over(
                f"too many documents: the pane holds more than {self.limits.max_documents:,} "
                f"{self.limits.describe('max_documents')}", line, column)

    def expression(self, path: str, text: str) -> None:
        """Count one CEL expression of a policy and check its length."""
        self.expressions += 1
        if self.expressions > self.limits.max_expressions:
            raise self._over(
                f"too many CEL expressions: the scenario's policies hold more than {self.limits.max_expressions:,} "
                f"{self.limits.describe('max_expressions')}", path=path)
        # Over the parser's own limit the engine answers as kube-apiserver does; a lower configured bound
        # refuses the expression before it is compiled.
        limit = self.limits.max_expression_length
        if limit < CEL_PARSER_CODE_POINT_LIMIT and len(text) > limit:
            raise self._over(
                f"the CEL expression is too long: {len(text):,} characters, more than {limit:,} "
                f"{self.limits.describe('max_expression_length')}", path=path)


# Lone UTF-16 surrogates (from "\ud800" escapes) are not Unicode text; Go's decoders turn them into
# U+FFFD, and so does the playground, so that nothing downstream fails to encode them.
_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_text(text: str) -> str:
    """Return the text with lone surrogates replaced by U+FFFD (pairs joined into their character)."""
    if text.isascii() or not _SURROGATE.search(text):
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def check_value(value: Any, usage: Usage) -> Any:
    """Check an already-parsed JSON value against the bounds; return it with its strings cleaned."""
    return _walk(value, usage, 1)


def _walk(value: Any, usage: Usage, depth: int) -> Any:
    usage.node(None, None)
    usage.depth(depth, None, None)
    if isinstance(value, str):
        usage.string(value, None, None)
        return clean_text(value)
    if isinstance(value, Mapping):
        out: dict[Any, Any] = {}
        for key, item in value.items():
            if isinstance(key, str):
                usage.string(key, None, None)
                key = clean_text(key)
            out[key] = _walk(item, usage, depth + 1)
        return out
    if isinstance(value, list):
        return [_walk(item, usage, depth + 1) for item in value]
    return value


def policy_expressions(value: Any) -> Iterator[tuple[str, str]]:
    """Yield (field path, text) of every CEL expression of a ValidatingAdmissionPolicy document."""
    if not isinstance(value, Mapping) or value.get("kind") != POLICY_KIND:
        return
    if not str(value.get("apiVersion", "")).startswith(ADMISSION_GROUP + "/"):
        return
    spec = value.get("spec")
    if not isinstance(spec, Mapping):
        return
    yield from spec_expressions(spec)


def spec_expressions(spec: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """Yield (field path, text) of every CEL expression of a ValidatingAdmissionPolicy's spec."""
    fields_by_list = (
        ("matchConditions", ("expression",)),
        ("variables", ("expression",)),
        ("validations", ("expression", "messageExpression")),
        ("auditAnnotations", ("valueExpression",)),
    )
    for list_name, names in fields_by_list:
        items = spec.get(list_name)
        if not isinstance(items, list):
            continue
        for i, item in enumerate(items):
            if not isinstance(item, Mapping):
                continue
            for name in names:
                text = item.get(name)
                if isinstance(text, str):
                    yield f"spec.{list_name}[{i}].{name}", text
