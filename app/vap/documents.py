"""Loading the panes: YAML or JSON text, one or many documents, with the line of every field.

Mirrors what kubectl and the apiserver accept as manifests: YAML 1.1 through a safe loader (no
tags that build objects), JSON as a subset of YAML, `---` separated documents and `kind: List`
wrappers. Each field path keeps its line and column so problems can point into the editor.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml

PANES = ("policy", "binding", "params", "object", "oldObject", "namespace", "request")

Path = tuple[str | int, ...]


@dataclass(frozen=True)
class Problem:
    """Something wrong with the input, pointing at pane, document, line and field."""

    pane: str
    document: int | None
    line: int | None
    column: int | None
    path: str | None
    severity: str  # "error" or "warning"
    message: str

    def to_json(self) -> dict[str, Any]:
        return {
            "pane": self.pane,
            "document": self.document,
            "line": self.line,
            "column": self.column,
            "path": self.path,
            "severity": self.severity,
            "message": self.message,
        }


@dataclass
class Document:
    """One parsed document of a pane, with the position of each of its fields."""

    pane: str
    index: int
    value: Any
    positions: dict[Path, tuple[int, int]] = field(default_factory=dict)
    # where each scalar value starts, and its YAML style ("" plain, "'" or '"' quoted, "|" or ">" block)
    values: dict[Path, tuple[int, int, str]] = field(default_factory=dict)
    # what later stages derived from this document (defaulting, API validation), per Kubernetes version;
    # kept with the document, so a pane read from the cache is not validated again
    memo: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)

    def locate_in_value(self, path: str, line: int, column: int) -> tuple[int | None, int | None]:
        """Map a (line, column) inside a scalar's text to the editor's line and column."""
        parts = parse_path(path)
        if parts not in self.values:
            return self.locate(parts)
        start_line, start_col, style = self.values[parts]
        if style in ("|", ">"):
            key_line, key_col = self.positions.get(parts, (start_line, start_col))
            return start_line + line, (key_col or 1) + 1 + column
        if line == 1:
            return start_line, start_col + column - 1 + (1 if style in ("'", '"') else 0)
        return start_line + line - 1, column

    @property
    def kind(self) -> str:
        return str(self.value.get("kind", "")) if isinstance(self.value, dict) else ""

    @property
    def api_version(self) -> str:
        return str(self.value.get("apiVersion", "")) if isinstance(self.value, dict) else ""

    @property
    def group(self) -> str:
        return self.api_version.rpartition("/")[0] if "/" in self.api_version else ""

    @property
    def name(self) -> str:
        meta = self.value.get("metadata") if isinstance(self.value, dict) else None
        return str(meta.get("name") or "") if isinstance(meta, dict) else ""

    def locate(self, path: str | Path | None) -> tuple[int | None, int | None]:
        """Return (line, column) of a field path, or of its nearest present parent."""
        if path is None:
            return self.positions.get((), (None, None))
        parts = parse_path(path) if isinstance(path, str) else path
        while True:
            if parts in self.positions:
                return self.positions[parts]
            if not parts:
                return None, None
            parts = parts[:-1]

    def problem(self, path: str | None, message: str, severity: str = "error") -> Problem:
        line, column = self.locate(path)
        return Problem(self.pane, self.index, line, column, path, severity, message)


_PATH_TOKEN = re.compile(r"\.?([^.\[\]]+)|\[(\d+)\]|\[([^\]]*)\]")


def parse_path(path: str) -> Path:
    """Parse a field path such as ``spec.validations[0].expression`` into its parts."""
    parts: list[str | int] = []
    for m in _PATH_TOKEN.finditer(path):
        if m.group(1) is not None:
            parts.append(m.group(1))
        elif m.group(2) is not None:
            parts.append(int(m.group(2)))
        else:
            parts.append(m.group(3))
    # the binding's validation reports matchResources under a misspelt name
    return tuple("matchResources" if p == "matchResouces" else p for p in parts)


class _Loader(yaml.SafeLoader):
    """A safe loader that also refuses to build YAML's timestamp objects (Kubernetes keeps strings)."""


# Kubernetes decodes YAML into JSON: dates stay strings.
_Loader.yaml_implicit_resolvers = {
    k: [(tag, rx) for tag, rx in v if tag != "tag:yaml.org,2002:timestamp"]
    for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()
}

if getattr(yaml, "__with_libyaml__", False):

    class _FastLoader(yaml.CSafeLoader):  # type: ignore[name-defined,misc]
        """The same loader over libyaml's parser (the one Go's YAML library is a port of), about ten
        times faster. Text it refuses is read again by :class:`_Loader`, for the same error texts."""

    _FastLoader.yaml_implicit_resolvers = _Loader.yaml_implicit_resolvers
    _LOADERS: tuple[type, ...] = (_FastLoader, _Loader)
else:  # pragma: no cover - PyYAML built without libyaml
    _LOADERS = (_Loader,)


def _build(
    node: yaml.Node,
    constructor: _Loader,
    path: Path,
    positions: dict[Path, tuple[int, int]],
    values: dict[Path, tuple[int, int, str]] | None = None,
) -> Any:
    if isinstance(node, yaml.MappingNode):
        constructor.flatten_mapping(node)
        out: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            key = _build(key_node, constructor, path, {}, None)
            if isinstance(key, (dict, list)):
                raise yaml.constructor.ConstructorError(
                    None, None, "a mapping key must be a string", key_node.start_mark
                )
            child = (*path, str(key))
            positions[child] = (key_node.start_mark.line + 1, key_node.start_mark.column + 1)
            out[str(key)] = _build(value_node, constructor, child, positions, values)
        return out
    if isinstance(node, yaml.SequenceNode):
        items = []
        for i, item in enumerate(node.value):
            child = (*path, i)
            positions[child] = (item.start_mark.line + 1, item.start_mark.column + 1)
            items.append(_build(item, constructor, child, positions, values))
        return items
    if values is not None and isinstance(node, yaml.ScalarNode):
        values[path] = (node.start_mark.line + 1, node.start_mark.column + 1, node.style or "")
    value = constructor.construct_object(node, deep=True)
    if isinstance(value, bytes):  # !!binary: Kubernetes would see base64 text
        return node.value
    return value


def _yaml_problem(pane: str, index: int, exc: yaml.YAMLError) -> Problem:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    line = mark.line + 1 if mark is not None else None
    column = mark.column + 1 if mark is not None else None
    problem = getattr(exc, "problem", None) or str(exc)
    context = getattr(exc, "context", None)
    text = f"{context}, {problem}" if context else str(problem)
    where = f"line {line}, column {column}: " if line is not None else ""
    return Problem(pane, index, line, column, None, "error", f"invalid YAML or JSON: {where}{text}")


def load_pane(pane: str, source: Any) -> tuple[list[Document], list[Problem]]:
    """Parse one pane (text, or an already-parsed JSON value) into documents and problems.

    Text is parsed once per process: the documents of a text seen before come from a cache, shared,
    so nothing may modify a document's value (every stage that changes one works on a copy).
    """
    if source is None or (isinstance(source, str) and not source.strip()):
        return [], []
    if not isinstance(source, str):
        values = source if isinstance(source, list) else [source]
        docs = [Document(pane, i, v, {(): (None, None)}) for i, v in enumerate(values) if v is not None]
        return _expand_lists(docs), []
    return _PANES.get(pane, source)


def _load_text(pane: str, source: str) -> tuple[list[Document], list[Problem]]:
    # libyaml counts a byte-order mark inside a line as a column; the pure parser does not
    loaders = _LOADERS if "\ufeff" not in source else (_Loader,)
    for i, loader_class in enumerate(loaders):
        documents, problems = _load_with(loader_class, pane, source)
        if not problems or i == len(loaders) - 1:
            return _expand_lists(documents), problems
    raise AssertionError("not reached")


def _load_with(loader_class: type, pane: str, source: str) -> tuple[list[Document], list[Problem]]:
    documents: list[Document] = []
    index = 0
    loader = None
    try:
        loader = loader_class(source)
        while loader.check_node():
            node = loader.get_node()
            positions: dict[Path, tuple[int, int]] = {}
            values: dict[Path, tuple[int, int, str]] = {}
            if node is not None:
                positions[()] = (node.start_mark.line + 1, node.start_mark.column + 1)
                value = _build(node, loader, (), positions, values)
                if value is not None:
                    documents.append(Document(pane, index, value, positions, values))
            index += 1
    except yaml.YAMLError as exc:
        return documents, [_yaml_problem(pane, index, exc)]
    except (ValueError, TypeError, RecursionError) as exc:
        return documents, [Problem(pane, index, None, None, None, "error", f"invalid YAML or JSON: {exc}")]
    finally:
        if loader is not None:
            loader.dispose()
    return documents, []


class _PaneCache:
    """The documents of recently read pane texts, least recently used first out, within a budget of
    text characters (a pane above a quarter of it is read every time)."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self._entries: OrderedDict[tuple[str, str], tuple[list[Document], list[Problem]]] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    def get(self, pane: str, source: str) -> tuple[list[Document], list[Problem]]:
        key = (pane, source)
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
                return list(entry[0]), list(entry[1])
        entry = _load_text(pane, source)
        if len(source) <= self.budget // 4:
            with self._lock:
                if key not in self._entries:
                    self._entries[key] = entry
                    self._size += len(source)
                while self._size > self.budget and self._entries:
                    (_, old), _ = self._entries.popitem(last=False)
                    self._size -= len(old)
        return list(entry[0]), list(entry[1])

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._size = 0


# 8 MB of pane text: the panes of hundreds of scenarios, or a few 1 MB objects
_PANES = _PaneCache(8 * 1024 * 1024)


def clear_cache() -> None:
    """Forget every pane read so far."""
    _PANES.clear()


def _expand_lists(documents: list[Document]) -> list[Document]:
    """Replace ``kind: List`` documents (kubectl get -o yaml) by their items."""
    out: list[Document] = []
    for doc in documents:
        if isinstance(doc.value, dict) and doc.kind.endswith("List") and isinstance(doc.value.get("items"), list):
            for i, item in enumerate(doc.value["items"]):
                prefix = ("items", i)
                positions = {k[2:]: v for k, v in doc.positions.items() if k[:2] == prefix}
                if () not in positions:
                    positions[()] = doc.positions.get(prefix, (None, None))
                out.append(Document(doc.pane, doc.index, item, positions))
        else:
            out.append(doc)
    return out


def is_mapping(value: Any) -> bool:
    return isinstance(value, Mapping)
