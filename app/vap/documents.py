"""Loading the panes: YAML or JSON text, one or many documents, with the line of every field.

Mirrors what kubectl and the apiserver accept as manifests: YAML 1.1 through a safe loader (no
tags that build objects), JSON as a subset of YAML, `---` separated documents and `kind: List`
wrappers. Each field path keeps its line and column so problems can point into the editor.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import yaml

from . import limits as bounds
from .fast import panes

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


@dataclass(frozen=True)
class Duplicate:
    """A key given twice in one mapping of a document: the YAML reader keeps the last value, as kubectl's
    YAML to JSON conversion does; the apiserver's strict decoding of the text reports it."""

    path: Path  # the field given twice
    key: Any  # the key as written (a YAML key need not be a string)
    line: int  # the line of its second value in the pane
    column: int  # the column of its second key


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
    # the keys given twice, in the order the text gives them; whether the document is written in JSON; the
    # line of the pane the document's text starts at (after its `---`), its first line as a request body
    duplicates: tuple[Duplicate, ...] = ()
    json: bool = False
    first_line: int = 1

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

    def version_problem(self, served: Iterable[str]) -> Problem | None:
        """Return the apiserver's error when the apiVersion's version is not one of `served`, else None."""
        if self.api_version.rpartition("/")[2] in served:
            return None
        return self.problem("apiVersion", f"no kind {self.kind!r} is registered for version {self.api_version!r}")


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


class _Bounded:
    """Counts what a loader composes against the scenario's bounds (app/vap/limits.py) as it goes, so
    an oversized, too deep or alias-heavy pane stops early instead of being read whole."""

    def _bound(self, usage: bounds.Usage | None) -> None:
        self._usage = usage or bounds.Usage()
        self._depth = 0

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node:
        mark = self.peek_event().start_mark  # type: ignore[attr-defined]
        line, column = mark.line + 1, mark.column + 1
        if self.check_event(yaml.AliasEvent):  # type: ignore[attr-defined]
            self._usage.alias(line, column)
            return super().compose_node(parent, index)  # type: ignore[misc]
        self._usage.compose(line, column)
        self._depth += 1
        try:
            self._usage.depth(self._depth, line, column)
            return super().compose_node(parent, index)  # type: ignore[misc]
        finally:
            self._depth -= 1

    def compose_scalar_node(self, anchor: str | None) -> yaml.Node:
        """A scalar tagged ``!`` is a string, whatever its text reads as (go-yaml resolves no tag but the
        core schema's and ``""``: the text is the value); PyYAML would resolve it as an untagged plain one."""
        if self.peek_event().tag != "!":  # type: ignore[attr-defined]
            return super().compose_scalar_node(anchor)  # type: ignore[misc]
        self._bare_tag = True
        try:
            return super().compose_scalar_node(anchor)  # type: ignore[misc]
        finally:
            self._bare_tag = False


# The safe loader's implicit resolvers but timestamps: Kubernetes decodes YAML into JSON, dates stay strings.
_IMPLICIT_RESOLVERS = {
    k: [(tag, rx) for tag, rx in v if tag != "tag:yaml.org,2002:timestamp"]
    for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
# what a plain scalar is matched against, by its first character ("" for an empty one): the resolvers of that
# character, then those of any (PyYAML's key None; the safe loader has none)
_ANY_FIRST = tuple(_IMPLICIT_RESOLVERS.get(None, []))
_RESOLVERS_BY_FIRST = {first: (*resolvers, *_ANY_FIRST)
                       for first, resolvers in _IMPLICIT_RESOLVERS.items() if first is not None}

_STR_TAG = "tag:yaml.org,2002:str"
_SEQ_TAG = "tag:yaml.org,2002:seq"
_MAP_TAG = "tag:yaml.org,2002:map"
_MERGE_TAG = "tag:yaml.org,2002:merge"
_VALUE_TAG = "tag:yaml.org,2002:value"
_ScalarNode, _SequenceNode, _MappingNode = yaml.ScalarNode, yaml.SequenceNode, yaml.MappingNode


class _Resolver(yaml.resolver.Resolver):
    """PyYAML's resolver in fewer steps (the composers, in C too, ask it the tag of every node without an
    explicit tag). It restates :meth:`yaml.resolver.BaseResolver.resolve` for loaders without path resolvers,
    and gives the same tags (tests/test_yaml_tags.py compares them node by node): a scalar the parser marks
    implicit (``implicit[0]``: plain, or tagged ``!``) takes the tag of the first implicit resolver of its
    first character that matches it, any other scalar is a string, a sequence or mapping is one. The state
    PyYAML keeps along the path to each node is for path resolvers, which the loaders have none of: the
    composers' calls around each node do nothing."""

    yaml_implicit_resolvers = _IMPLICIT_RESOLVERS
    _bare_tag = False  # (set while a Python composer composes a scalar tagged "!": see _Bounded)

    def resolve(self, kind: type[yaml.Node], value: Any, implicit: Any) -> str | None:
        if kind is _ScalarNode:
            if implicit[0] and not self._bare_tag:
                for tag, regexp in _RESOLVERS_BY_FIRST.get(value[:1], _ANY_FIRST):
                    if regexp.match(value):
                        return tag
            return _STR_TAG
        if kind is _SequenceNode:
            return _SEQ_TAG
        return _MAP_TAG if kind is _MappingNode else None

    def descend_resolver(self, current_node: Any, current_index: Any) -> None:
        pass

    def ascend_resolver(self) -> None:
        pass


def _construct_float(loader: Any, node: yaml.ScalarNode) -> Any:
    """A float of a YAML document as the apiserver gets it: go-yaml's float64 turned into JSON, where one of a
    whole value under 1e21 is written as an integer, and read back as one when it fits in an int64 (``3.0`` is
    the integer 3). A JSON document's number is read as written (``json_numbers``)."""
    value = yaml.constructor.SafeConstructor.construct_yaml_float(loader, node)
    if (not loader.json_numbers and value.__class__ is float and value.is_integer() and abs(value) < 1e21
            and -(2**63) <= value < 2**63):
        return int(value)
    return value


class _Loader(_Bounded, _Resolver, yaml.SafeLoader):
    """A safe loader that also refuses to build YAML's timestamp objects (Kubernetes keeps strings),
    bounded as it reads. Written in Python: the reference for every message about the text."""

    def __init__(self, stream: str, usage: bounds.Usage | None = None) -> None:
        yaml.SafeLoader.__init__(self, stream)
        self._bound(usage)


try:
    from yaml._yaml import CParser as _CParser
except ImportError:  # PyYAML built without libyaml: every pane is read by the Python loader
    _CParser = None

if _CParser is not None:

    class _FastLoader(_Bounded, yaml.composer.Composer, _CParser,  # type: ignore[valid-type,misc]
                      yaml.constructor.SafeConstructor, _Resolver):
        """The same loader with libyaml's scanner and parser (some 40 times quicker on a large pane);
        the nodes are composed, bounded and built in Python as with :class:`_Loader`. libyaml is the
        parser go-yaml, and so kubectl and the apiserver, derive from. A pane it cannot read is read
        again by :class:`_Loader`, whose messages the playground reports."""

        def __init__(self, stream: str, usage: bounds.Usage | None = None) -> None:
            _CParser.__init__(self, stream)
            yaml.constructor.SafeConstructor.__init__(self)
            yaml.resolver.Resolver.__init__(self)
            yaml.composer.Composer.__init__(self)
            self._bound(usage)


    class _ComposedLoader(_CParser, yaml.constructor.SafeConstructor,  # type: ignore[valid-type,misc]
                          _Resolver):
        """libyaml's parser with PyYAML's C composer too, for small panes: the nodes come composed,
        and are counted against the bounds as they are built (:func:`_build` with ``seen``). Any problem, a bound
        included, reads the pane again with :class:`_FastLoader`, which places it exactly."""

        def __init__(self, stream: str, usage: bounds.Usage | None = None) -> None:
            _CParser.__init__(self, stream)
            yaml.constructor.SafeConstructor.__init__(self)
            yaml.resolver.Resolver.__init__(self)


for _loader in (_Loader, *((_FastLoader, _ComposedLoader) if _CParser is not None else ())):
    _loader.add_constructor("tag:yaml.org,2002:float", _construct_float)
    _loader.json_numbers = False  # (set for each document as it is read: see _read)
del _loader


# Panes up to this many characters are composed in C (libyaml refuses nesting beyond 1,000 levels, which
# bounds the C composer's recursion to some 300 KB of stack); longer ones by the bounded Python composer,
# which stops a hostile pane early instead of composing all of it first.
_COMPOSED_IN_C = 16 * 1024
# What may be a tag "!" alone (the C composer resolves the scalar it tags as an untagged plain one: such a pane is
# composed in Python, see _Bounded.compose_scalar_node); a "!" that ends a word in a string is taken for one too.
_BARE_TAG = re.compile(r"!(?=[\s,\[\]{}]|$)")


def _count_composed(nodes: list[yaml.Node], usage: bounds.Usage, seen: set[int]) -> None:
    """Count composed nodes and what they hold against the bounds as the Python composer counts them as it
    goes: each node once (``seen``: those counted before), and each further reference to one (an alias) as
    an alias."""
    stack = list(nodes)
    while stack:
        current = stack.pop()
        mark = current.start_mark
        if id(current) in seen:
            usage.alias(mark.line + 1, mark.column + 1)
            continue
        seen.add(id(current))
        usage.compose(mark.line + 1, mark.column + 1)
        if isinstance(current, yaml.MappingNode):
            for key_node, value_node in current.value:
                stack.append(value_node)
                stack.append(key_node)
        elif isinstance(current, yaml.SequenceNode):
            stack.extend(current.value)


def _count(node: yaml.Node, line: int, column: int, depth: int, usage: bounds.Usage,
           seen: set[int] | None) -> set[int] | None:
    """Count a value against the bounds as it is built (see :func:`_build`), at its line and column; return
    ``seen`` for the nodes inside it (None when it is an alias, whose nodes were counted where it was first
    used)."""
    composed = False
    if seen is not None:
        if id(node) in seen:
            usage.alias(line, column)
            seen = None
        else:
            seen.add(id(node))
            composed = True
    usage.value(line, column, depth, node.value if node.__class__ is _ScalarNode else None, composed)
    return seen


def _build(
    node: yaml.Node,
    constructor: _Loader,
    path: Path,
    positions: dict[Path, tuple[int, int]],
    values: dict[Path, tuple[int, int, str]] | None = None,
    usage: bounds.Usage | None = None,
    seen: set[int] | None = None,
    duplicates: list[Duplicate] | None = None,
) -> Any:
    """The value of a node. ``seen`` (nodes composed in C, not yet counted against the bounds): the ids of
    the nodes counted so far; each node is counted once as the Python composer counts it as it goes, and
    each further reference to one (an alias) as an alias, whose value is then built without counting its
    nodes again. ``duplicates`` collects the keys a mapping gives twice (not those a merge key brings)."""
    mark = node.start_mark
    line, column, depth = mark.line + 1, mark.column + 1, len(path) + 1
    if usage is not None:  # aliases are expanded here: count every value built, and its depth
        seen = _count(node, line, column, depth, usage, seen)
    if isinstance(node, _MappingNode):
        tags = {key_node.tag for key_node, _ in node.value}
        merges = _MERGE_TAG in tags
        if seen is not None and merges:
            # a merge key (<<): its nodes are counted as composed, before the merge below replaces them
            _count_composed([n for pair in node.value for n in pair], usage, seen)
            seen = None
        if merges or _VALUE_TAG in tags:  # (what flattening changes: merge keys, and "=" keys made strings)
            constructor.flatten_mapping(node)
        out: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            key_mark = key_node.start_mark
            key_line, key_column = key_mark.line + 1, key_mark.column + 1
            if key_node.__class__ is _ScalarNode and key_node.tag == _STR_TAG:  # (a key as most are: its text)
                if usage is not None:
                    _count(key_node, key_line, key_column, depth, usage, seen)
                key = name = bounds.clean_text(key_node.value)
                child = (*path, key)
            else:
                key = _build(key_node, constructor, path, {}, None, usage, seen)
                if isinstance(key, (dict, list)) or key is None:  # (kubectl: "unsupported map key of type")
                    raise yaml.constructor.ConstructorError(
                        None, None, "a mapping key must be a string" if key is not None else
                        "a mapping key must not be null", key_node.start_mark
                    )
                # a key of another type is written as kubectl writes it into JSON (a boolean: true, false)
                text = ("true" if key else "false") if key.__class__ is bool else str(key)
                name = bounds.clean_text(text)
                child = (*path, text)
            positions[child] = (key_line, key_column)
            if duplicates is not None and name in out and not merges:
                duplicates.append(Duplicate(child, key, value_node.start_mark.line + 1, key_column))
            out[name] = _build(value_node, constructor, child, positions, values, usage, seen, duplicates)
        return out
    if isinstance(node, _SequenceNode):
        items = []
        for i, item in enumerate(node.value):
            child = (*path, i)
            item_mark = item.start_mark
            positions[child] = (item_mark.line + 1, item_mark.column + 1)
            items.append(_build(item, constructor, child, positions, values, usage, seen, duplicates))
        return items
    if values is not None and isinstance(node, _ScalarNode):
        values[path] = (line, column, node.style or "")
    if node.tag == _STR_TAG:  # what the constructor gives a string: the scalar's text
        return bounds.clean_text(node.value)
    value = constructor.construct_object(node, deep=True)
    if isinstance(value, bytes):  # !!binary: Kubernetes would see base64 text
        return node.value
    if isinstance(value, str):
        return bounds.clean_text(value)
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


def _reader_problem(pane: str, source: str, exc: yaml.reader.ReaderError) -> Problem:
    line = source.count("\n", 0, exc.position) + 1
    column = exc.position - (source.rfind("\n", 0, exc.position) + 1) + 1
    return Problem(pane, 0, line, column, None, "error",
                   f"invalid YAML or JSON: line {line}, column {column}: the character U+{exc.character:04X} is not "
                   "allowed in YAML, which takes printable Unicode characters, tabs and line breaks")


def load_pane(pane: str, source: Any, usage: bounds.Usage | None = None) -> tuple[list[Document], list[Problem]]:
    """Parse one pane (text, or an already-parsed JSON value) into documents and problems.

    ``usage`` counts what the whole scenario has read against its bounds (one per pane if omitted).
    """
    usage = usage or bounds.Usage()
    if source is None or (isinstance(source, str) and not source.strip()) or usage.exceeded:
        return [], []
    if not isinstance(source, str):
        values = source if isinstance(source, list) else [source]
        try:
            usage.documents(len(values), None, None)
            values = [bounds.check_value(v, usage) for v in values]
        except bounds.LimitExceeded as exc:
            return [], [Problem(pane, None, None, None, None, "error", str(exc))]
        docs = [Document(pane, i, v, {(): (None, None)}) for i, v in enumerate(values) if v is not None]
        return _bounded(_expand_lists(docs), usage)
    cached = panes.PANES.get(pane, source, usage)
    if cached is not None:
        return cached, []
    before = usage.counts()
    documents, problems = _load_text(pane, source, usage)
    _first_lines(source, documents)
    if not problems and not usage.exceeded:
        panes.PANES.put(pane, source, documents, usage, before)
    return documents, problems


def _load_text(pane: str, source: str, usage: bounds.Usage) -> tuple[list[Document], list[Problem]]:
    libyaml_error: yaml.YAMLError | None = None
    if _CParser is not None:
        before = usage.counts()
        if len(source) <= _COMPOSED_IN_C and _BARE_TAG.search(source) is None:
            try:
                return _read(pane, _ComposedLoader(source, usage), usage, report=False, composed=True)
            except Exception:  # read again, placing the problem exactly
                usage.restore(before)
        try:
            return _read(pane, _FastLoader(source, usage), usage, report=False)
        except Exception as exc:  # not YAML libyaml reads, or not text it takes: read (and report) in Python
            usage.restore(before)
            if isinstance(exc, yaml.YAMLError):
                libyaml_error = exc
    try:
        loader = _Loader(source, usage)
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow, found before parsing
        return [], [_reader_problem(pane, source, exc)]
    return _read(pane, loader, usage, report=True, libyaml_error=libyaml_error)


def _read(pane: str, loader: Any, usage: bounds.Usage, *, report: bool, composed: bool = False,
          libyaml_error: yaml.YAMLError | None = None) -> tuple[list[Document], list[Problem]]:
    """Read every document of a loader's text. A bound exceeded is a problem (raised when ``composed``:
    the loader composed the nodes in C, without their places); an error of the text is one when
    ``report``, and raised otherwise (for the Python loader to read the pane again). ``libyaml_error``:
    what libyaml found in the text, which places an error the Python reader does not word as a YAML
    error (an escape code beyond Unicode makes it fail in ``chr``)."""
    documents: list[Document] = []
    index = 0
    try:
        while loader.check_node():
            # (a loader composing in C must not be asked for events; over the bound, the pane is read again)
            usage.documents(index + 1, *((None, None) if composed else _position(loader)))
            node = loader.get_node()
            if node is not None:
                positions: dict[Path, tuple[int, int]] = {
                    (): (node.start_mark.line + 1, node.start_mark.column + 1)}
                values: dict[Path, tuple[int, int, str]] = {}
                duplicates: list[Duplicate] = []
                is_json = loader.json_numbers = _is_json(node)
                value = _build(node, loader, (), positions, values, usage, set() if composed else None, duplicates)
                if value is not None:
                    documents.append(Document(pane, index, value, positions, values, duplicates=tuple(duplicates),
                                              json=is_json))
            index += 1
    except bounds.LimitExceeded as exc:
        if composed:
            raise
        return documents, [Problem(pane, index, exc.line, exc.column, None, "error", str(exc))]
    except yaml.YAMLError as exc:
        if not report:
            raise
        return documents, [_yaml_problem(pane, index, exc)]
    except (ValueError, TypeError, RecursionError, OverflowError, KeyError) as exc:
        if not report:
            raise
        if libyaml_error is not None:
            return documents, [_yaml_problem(pane, index, libyaml_error)]
        if isinstance(exc, KeyError):  # a scalar its resolved tag's constructor has no value for (! "yes\n")
            text = f"the scalar {exc.args[0]!r} cannot be read as the type its tag resolves to"
        else:
            text = str(exc)
        return documents, [Problem(pane, index, None, None, None, "error", f"invalid YAML or JSON: {text}")]
    finally:
        loader.dispose()
    return _bounded(_expand_lists(documents), usage)


def _is_json(node: yaml.Node) -> bool:
    """Whether a document is written in JSON (a flow mapping whose keys are double-quoted): the body of a
    request the apiserver decodes as JSON, not as YAML."""
    return (isinstance(node, yaml.MappingNode) and bool(node.flow_style)
            and all(getattr(key, "style", None) == '"' for key, _ in node.value[:1]))


def _first_lines(source: str, documents: list[Document]) -> None:
    """Set the line each document with duplicate keys starts at: after the ``---`` line before it, as
    kubectl's and the apiserver's YAML readers split a stream (the first line of its text as a body)."""
    if not any(doc.duplicates for doc in documents):
        return
    separators = [number for number, text in enumerate(source.splitlines(), 1)
                  if text.startswith("---") and (not text[3:].strip() or text[3:].lstrip().startswith("#"))]
    for doc in documents:
        start = doc.positions.get((), (None, None))[0]
        if doc.duplicates and start is not None:
            doc.first_line = max((line + 1 for line in separators if line < start), default=1)


def _position(loader: Any) -> tuple[int | None, int | None]:
    event = loader.peek_event()
    mark = getattr(event, "start_mark", None)
    return (mark.line + 1, mark.column + 1) if mark is not None else (None, None)


def _bounded(documents: list[Document], usage: bounds.Usage) -> tuple[list[Document], list[Problem]]:
    """Check the documents of a pane, lists expanded, against the bounds on documents and expressions."""
    if not documents:
        return documents, []
    last = documents[-1]
    try:
        usage.documents(len(documents), *last.locate(None))
    except bounds.LimitExceeded as exc:
        return documents, [Problem(last.pane, last.index, exc.line, exc.column, None, "error", str(exc))]
    for doc in documents:
        for path, text in bounds.policy_expressions(doc.value):
            try:
                usage.expression(path, text)
            except bounds.LimitExceeded as exc:
                return documents, [doc.problem(path, str(exc))]
    return documents, []




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
                duplicates = tuple(replace(d, path=d.path[2:]) for d in doc.duplicates if d.path[:2] == prefix)
                out.append(Document(doc.pane, doc.index, item, positions, duplicates=duplicates, json=doc.json,
                                    first_line=doc.first_line))
        else:
            out.append(doc)
    return out


def is_mapping(value: Any) -> bool:
    return isinstance(value, Mapping)
