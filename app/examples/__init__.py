"""The example gallery: scenarios a policy author meets, one YAML file each.

Rule: this module is pure (no Flask, no request handling); it only reads the YAML files
beside it. Each file holds a title, a one-paragraph explanation, the pane texts and the
decision the evaluation core is expected to reach, so the gallery is tested like the core.
A file named ``NN-some-name.yaml`` is the example ``some-name``; NN orders the gallery.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ..vap.documents import PANES

_DIR = Path(__file__).parent
_FILE_NAME = re.compile(r"^(?:\d+-)?(?P<name>[a-z0-9][a-z0-9-]*)\.yaml$")

# What the Request pane holds when an example does not say otherwise.
DEFAULT_REQUEST = """\
# Request attributes; leave a field out to get the default.
# operation is derived: object only -> CREATE, object and old object -> UPDATE,
# old object only -> DELETE.
userInfo:
  username: alice@example.com
  groups: ["system:authenticated"]
"""


@dataclass(frozen=True)
class Expectation:
    """The decision the core must reach for an example."""

    allowed: bool
    code: int | None = None
    reason: str | None = None
    message_contains: str | None = None
    warnings: int = 0
    problems: bool = False
    # fields the admitted object has (app.vap.expected_object): what a mutation made of it
    object: dict[str, Any] | None = None


@dataclass(frozen=True)
class Example:
    """One gallery scenario: what to show, what to paste, what should happen."""

    name: str
    title: str
    explanation: str
    panes: dict[str, str]
    expect: Expectation
    kubernetes_version: str = ""
    operation: str = ""
    tags: tuple[str, ...] = field(default_factory=tuple)

    def form(self) -> dict[str, str]:
        """Return the form fields that open this example."""
        values = {pane: self.panes.get(pane, "") for pane in PANES}
        values["kubernetesVersion"] = self.kubernetes_version
        values["operation"] = self.operation
        return values


class ExampleError(ValueError):
    """An example file that does not have the expected shape."""


def _text(value: Any, where: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ExampleError(f"{where} must be a string")
    return value


def _parse(name: str, text: str) -> Example:
    data = yaml.safe_load(text)
    if not isinstance(data, dict):
        raise ExampleError(f"{name}: the file must hold a mapping")
    unknown = set(data) - {"title", "explanation", "panes", "expect", "kubernetesVersion", "operation", "tags"}
    if unknown:
        raise ExampleError(f"{name}: unknown keys {sorted(unknown)}")
    panes_in = data.get("panes") or {}
    if not isinstance(panes_in, dict) or set(panes_in) - set(PANES):
        raise ExampleError(f"{name}: panes must be a mapping of {', '.join(PANES)}")
    panes = {pane: _text(panes_in.get(pane), f"{name}: panes.{pane}") for pane in PANES}
    if not panes["request"].strip():
        panes["request"] = DEFAULT_REQUEST
    expect = data.get("expect")
    if not isinstance(expect, dict) or not isinstance(expect.get("allowed"), bool):
        raise ExampleError(f"{name}: expect.allowed (true or false) is required")
    expected_object = expect.get("object")
    if expected_object is not None and not isinstance(expected_object, dict):
        raise ExampleError(f"{name}: expect.object must be a mapping of the fields the admitted object has")
    title = _text(data.get("title"), f"{name}: title").strip()
    explanation = " ".join(_text(data.get("explanation"), f"{name}: explanation").split())
    if not title or not explanation:
        raise ExampleError(f"{name}: title and explanation are required")
    return Example(
        name=name,
        title=title,
        explanation=explanation,
        panes=panes,
        expect=Expectation(
            allowed=expect["allowed"],
            code=expect.get("code"),
            reason=expect.get("reason"),
            message_contains=expect.get("messageContains"),
            warnings=int(expect.get("warnings", 0)),
            problems=bool(expect.get("problems", False)),
            object=expected_object,
        ),
        kubernetes_version=str(data.get("kubernetesVersion") or ""),
        operation=str(data.get("operation") or ""),
        tags=tuple(data.get("tags") or ()),
    )


@functools.cache
def all_examples() -> tuple[Example, ...]:
    """Load every example file, in gallery order."""
    examples = []
    for path in sorted(_DIR.glob("*.yaml")):
        match = _FILE_NAME.match(path.name)
        if match is None:
            raise ExampleError(f"{path.name}: example file names are lowercase words joined by '-'")
        examples.append(_parse(match["name"], path.read_text(encoding="utf-8")))
    return tuple(examples)


def get(name: str) -> Example | None:
    """Return the example called ``name``, or None."""
    return next((e for e in all_examples() if e.name == name), None)


def default() -> Example:
    """Return the example the page opens with."""
    return all_examples()[0]
