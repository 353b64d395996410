"""A scenario as one YAML file, for git: render and parse.

The file is one YAML document::

    apiVersion: playground.admission/v1
    kind: Scenario
    kubernetesVersion: "1.34"
    policy: |
      apiVersion: admissionregistration.k8s.io/v1
      ...
    binding: |
      ...

Text panes are literal block scalars, so the file diffs line by line like the panes
themselves; panes given as parsed JSON values are plain YAML mappings or lists.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import yaml

from .scenario import PANES, ScenarioError, normalize

API_VERSION = "playground.admission/v1"
KIND = "Scenario"
_HEADER = "# An Admission Playground scenario: open it with Import on the playground page."
_TOP_FIELDS = ("apiVersion", "kind", "kubernetesVersion", *PANES, "testCases")


class ScenarioFileError(ScenarioError):
    """A file that is not a scenario; the message starts with the line it is about."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None) -> None:
        where = f"line {line}, column {column}: " if line and column else f"line {line}: " if line else ""
        super().__init__(where + message)
        self.line = line
        self.column = column


# --- render -----------------------------------------------------------------------------------------

def _block(text: str) -> str:
    """Return text as a literal block scalar: its header and its lines indented by two spaces."""
    if text.endswith("\n\n"):
        chomp, body = "+", text[:-1]
    elif text.endswith("\n"):
        chomp, body = "", text[:-1]
    else:
        chomp, body = "-", text
    indicator = "2" if body.lstrip("\n").startswith(" ") else ""
    lines = ["  " + line if line else "" for line in body.split("\n")]
    return f"|{indicator}{chomp}\n" + "\n".join(lines)


def _scalar(value: str) -> str:
    return yaml.safe_dump(value, default_style='"', width=1 << 30, allow_unicode=True).rstrip("\n")


def _text_field(name: str, text: str) -> str:
    block = f"{name}: {_block(text)}"
    try:
        ok = yaml.safe_load(block + "\n") == {name: text}
    except yaml.YAMLError:
        ok = False
    # Characters a block scalar cannot carry (control characters, Unicode line separators) fall back
    # to a double-quoted string with escapes.
    return block if ok else f"{name}: {_scalar(text)}"


def _nested_field(name: str, value: Any) -> str:
    dumped = yaml.safe_dump(value, default_flow_style=False, sort_keys=False, allow_unicode=True, width=1 << 30)
    if isinstance(value, (dict, list)) and value:
        return f"{name}:\n" + "\n".join("  " + line if line else "" for line in dumped.rstrip("\n").split("\n"))
    return f"{name}: {dumped.strip()}"


def render_yaml(scenario: Mapping[str, Any], *, shared_id: str | None = None) -> str:
    """Return a normalized scenario as the text of a scenario file."""
    lines = [_HEADER]
    if shared_id:
        lines.append(f"# Shared as /s/{shared_id}")
    lines += [f"apiVersion: {API_VERSION}", f"kind: {KIND}"]
    if scenario.get("kubernetesVersion"):
        lines.append(f"kubernetesVersion: {_scalar(scenario['kubernetesVersion'])}")
    for pane in PANES:
        value = scenario.get(pane)
        if isinstance(value, str):
            lines.append(_text_field(pane, value))
        elif value is not None:
            lines.append(_nested_field(pane, value))
    tests = scenario.get("testCases")
    if isinstance(tests, str):
        lines.append(_text_field("testCases", tests))
    elif tests:
        lines.append(_nested_field("testCases", tests))
    return "\n".join(lines) + "\n"


# --- parse ------------------------------------------------------------------------------------------

class _Loader(yaml.SafeLoader):
    """SafeLoader that keeps timestamps as text, as Kubernetes' YAML reader does."""


_Loader.add_constructor("tag:yaml.org,2002:timestamp", yaml.SafeLoader.construct_yaml_str)


def _line(node: yaml.Node) -> int:
    return node.start_mark.line + 1


def _yaml_error(exc: yaml.YAMLError, text: str) -> ScenarioFileError:
    mark = getattr(exc, "problem_mark", None)
    if mark is not None:
        problem = getattr(exc, "problem", None) or str(exc)
        context = getattr(exc, "context", None)
        message = f"{context}, {problem}" if context else problem
        return ScenarioFileError(message, mark.line + 1, mark.column + 1)
    position = getattr(exc, "position", None)
    if isinstance(position, int):  # a ReaderError: a character YAML does not allow
        line = text.count("\n", 0, position) + 1
        character = getattr(exc, "character", None)
        code = f" (U+{character:04X})" if isinstance(character, int) else ""
        return ScenarioFileError(f"{getattr(exc, 'reason', 'unreadable character')}{code}", line)
    return ScenarioFileError(f"not YAML: {exc}")


def _check_no_aliases(root: yaml.Node) -> None:
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            raise ScenarioFileError("YAML anchors and aliases (&name, *name) are not supported in a scenario file",
                                    _line(node))
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                stack += [key, value]
        elif isinstance(node, yaml.SequenceNode):
            stack += node.value


def _construct(node: yaml.Node) -> Any:
    value = _Loader("").construct_document(node)
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        raise ScenarioFileError("this value is not plain text, numbers, lists and mappings", _line(node)) from None
    return value


def parse_yaml(text: str | bytes) -> dict[str, Any]:
    """Read a scenario file; return the normalized scenario or raise ScenarioFileError naming the line."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            line = text.count(b"\n", 0, exc.start) + 1
            raise ScenarioFileError("the file is not UTF-8 text", line) from None
    try:
        documents = [node for node in yaml.compose_all(text, Loader=_Loader) if node is not None]
    except yaml.YAMLError as exc:
        raise _yaml_error(exc, text) from None
    if not documents:
        raise ScenarioFileError(f"the file is empty: a scenario file starts with apiVersion: {API_VERSION}")
    if len(documents) > 1:
        raise ScenarioFileError("a scenario file holds one YAML document; a second one starts here",
                                _line(documents[1]))
    root = documents[0]
    if not isinstance(root, yaml.MappingNode):
        raise ScenarioFileError(f"a scenario file is a mapping with apiVersion: {API_VERSION} and kind: {KIND}",
                                _line(root))
    _check_no_aliases(root)
    fields: dict[str, tuple[yaml.Node, yaml.Node]] = {}
    for key, value in root.value:
        if not isinstance(key, yaml.ScalarNode) or key.value not in _TOP_FIELDS:
            name = key.value if isinstance(key, yaml.ScalarNode) else "a non-text key"
            raise ScenarioFileError(f"unknown field {name!r}: a scenario file has " + ", ".join(_TOP_FIELDS),
                                    _line(key))
        if key.value in fields:
            raise ScenarioFileError(f"field {key.value!r} is given twice (first on line {_line(fields[key.value][0])})",
                                    _line(key))
        fields[key.value] = (key, value)
    for name, expected in (("apiVersion", API_VERSION), ("kind", KIND)):
        if name not in fields:
            raise ScenarioFileError(f"{name}: {expected} is missing; is this an Admission Playground scenario file?",
                                    _line(root))
        key, value = fields[name]
        if not isinstance(value, yaml.ScalarNode) or value.value != expected:
            shown = value.value if isinstance(value, yaml.ScalarNode) else "a collection"
            raise ScenarioFileError(f"{name} must be {expected}, not {shown!r}", _line(value))
    payload: dict[str, Any] = {}
    for name, (_key, node) in fields.items():
        if name in ("apiVersion", "kind"):
            continue
        value = _construct(node)
        if value is None:
            continue
        if name == "kubernetesVersion":
            if not isinstance(node, yaml.ScalarNode):
                raise ScenarioFileError("kubernetesVersion must be a version such as \"1.34\"", _line(node))
            value = node.value  # as written: an unquoted 1.30 stays "1.30"
        elif name == "testCases":
            if not isinstance(value, (list, str)):
                raise ScenarioFileError("testCases must be a list (or the YAML text of one)", _line(node))
        elif not isinstance(value, (str, dict, list)):
            raise ScenarioFileError(f"{name} must be text (a block scalar: `{name}: |`) or a mapping or list",
                                    _line(node))
        payload[name] = value
    try:
        return normalize(payload)
    except ScenarioError as exc:
        raise ScenarioFileError(str(exc)) from None
