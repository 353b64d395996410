"""What the editors offer at a position: the fields of a kind, their documentation, CEL roots.

Restates what ``kubectl explain`` reads (k8s.io/kubectl/pkg/explain: a field found by its path in the
kind's OpenAPI schema, its type and description) for the page's completion and hover. The schemas are
those the type checker uses (:mod:`schemas`: the built-in kinds of the Kubernetes version and the CRDs
pasted in the panes); descriptions and enum values come from the same OpenAPI documents
(``schemas/descriptions.json.xz``, written by ``scripts/generate-schemas``). Inside an expression
field, ``object.``, ``oldObject.``, ``params.``, ``request.``, ``namespaceObject.`` and ``variables.``
complete from the types the type checker gives them (:mod:`typecheck`: the kinds of
``matchConstraints``, the ``paramKind``, the apiserver's hand-written request and namespace types).

The position is read from the text alone, line by line (indentation, ``- `` list items, ``key:``), so a
pane that is not valid YAML while it is being typed still gets completion.

Rule: nothing here compiles or evaluates an expression; it reads schemas and text.
"""

from __future__ import annotations

import json
import lzma
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

import yaml

from . import limits as bounds
from .documents import load_pane
from .resources import ResourceTable, builtin_table
from .schemas import SchemaSet, schema_set
from .schemas.decltypes import admission_messages, escape
from .typecheck import param_gvk, types_to_check

Node = Mapping[str, Any]
Step = str | int

# Fields whose values are CEL, in the policies the playground reads (admission policies, webhooks'
# matchConditions, Kyverno's CEL rules).
CEL_FIELDS = frozenset({"expression", "messageExpression", "valueExpression"})
CRD_PANES = ("policy", "binding", "params", "namespace")  # where an evaluation reads CRDs from
MAX_ITEMS = 500
MAX_KEY = 1024  # characters of a line searched for a key (a key longer than that is not completed)
MAX_CHAIN = 512  # characters of an expression read before the cursor for its member chain (searches are quadratic)

# The values API validation accepts for fields whose OpenAPI schema lists none, by definition (its last name)
# and field: k8s.io/kubernetes/pkg/apis/admissionregistration/validation and the label selector's operators.
SUPPORTED_VALUES: dict[tuple[str, str], tuple[str, ...]] = {
    **{(d, "failurePolicy"): ("Fail", "Ignore") for d in (
        "ValidatingAdmissionPolicySpec", "MutatingAdmissionPolicySpec", "ValidatingWebhook", "MutatingWebhook")},
    **{(d, "matchPolicy"): ("Equivalent", "Exact") for d in ("MatchResources", "ValidatingWebhook", "MutatingWebhook")},
    **{(d, "operations"): ("*", "CONNECT", "CREATE", "DELETE", "UPDATE") for d in (
        "RuleWithOperations", "NamedRuleWithOperations")},
    **{(d, "scope"): ("*", "Cluster", "Namespaced") for d in ("RuleWithOperations", "NamedRuleWithOperations")},
    **{(d, "sideEffects"): ("None", "NoneOnDryRun") for d in ("ValidatingWebhook", "MutatingWebhook")},
    **{(d, "admissionReviewVersions"): ("v1", "v1beta1") for d in ("ValidatingWebhook", "MutatingWebhook")},
    ("MutatingWebhook", "reinvocationPolicy"): ("Never", "IfNeeded"),
    ("MutatingAdmissionPolicySpec", "reinvocationPolicy"): ("Never", "IfNeeded"),
    ("Mutation", "patchType"): ("ApplyConfiguration", "JSONPatch"),
    ("ValidatingAdmissionPolicyBindingSpec", "validationActions"): ("Audit", "Deny", "Warn"),
    ("ParamRef", "parameterNotFoundAction"): ("Allow", "Deny"),
    ("Validation", "reason"): ("Forbidden", "Invalid", "RequestEntityTooLarge"),
    ("LabelSelectorRequirement", "operator"): ("In", "NotIn", "Exists", "DoesNotExist"),
}


# --------------------------------------------------------------------------------------------
# Descriptions of the built-in definitions


@lru_cache(maxsize=1)
def _descriptions() -> dict[str, Any]:
    data = resources.files("app.vap.schemas").joinpath("descriptions.json.xz").read_bytes()
    return json.loads(lzma.decompress(data))


def definition_docs(version: str, name: str | None) -> Mapping[str, Any]:
    """The description of a built-in definition and of its fields (``{"description", "fields"}``)."""
    if not name:
        return {}
    doc = _descriptions()
    digest = doc["versions"].get(version, {}).get(name)
    return doc["definitions"].get(digest, {}) if digest else {}


# --------------------------------------------------------------------------------------------
# Walking a schema


@dataclass(frozen=True)
class Field:
    """One field of a schema: what completion lists and hover shows."""

    name: str
    type: str  # as kubectl explain prints it: string, []Object, map[string]string, ValidatingAdmissionPolicySpec
    description: str
    enum: tuple[Any, ...] = ()
    shape: str = "scalar"  # how its value is written: "object", "map", "list of objects", "list" or "scalar"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "type": self.type, "description": self.description}
        if self.enum:
            out["enum"] = list(self.enum)
        return out


@dataclass(frozen=True)
class At:
    """A node of a schema with the built-in definition it is in (where its fields' descriptions are)."""

    node: Node
    definition: str | None


def resolve(schemas: SchemaSet, node: Node, definition: str | None = None) -> At:
    """Follow ``$ref`` to the definition it names, remembering the definition's name."""
    seen = 0
    while isinstance(node, Mapping) and "$ref" in node and seen < 16:
        definition = str(node["$ref"])
        node = schemas.definition(definition) or {}
        seen += 1
    return At(node if isinstance(node, Mapping) else {}, definition)


def _type_name(schemas: SchemaSet, node: Node) -> str:
    if node.get("x-kubernetes-int-or-string"):
        return "IntOrString"
    if "$ref" in node:
        target = resolve(schemas, node).node
        if "oneOf" in target:
            return "Quantity"
        if target.get("type") in ("string", "integer", "number", "boolean"):
            return str(target["type"])
        return str(node["$ref"]).rpartition(".")[2]
    kind = node.get("type")
    if kind == "array":
        return "[]" + _type_name(schemas, node.get("items") or {})
    if kind == "object" and isinstance(node.get("additionalProperties"), Mapping) and not node.get("properties"):
        return "map[string]" + _type_name(schemas, node["additionalProperties"])
    if "oneOf" in node:
        return "Quantity"
    return "Object" if kind in (None, "object") else str(kind)


def _shape(schemas: SchemaSet, node: Node) -> str:
    target = resolve(schemas, node).node
    if target.get("type") == "array":
        items = resolve(schemas, target.get("items") or {}).node
        return "list of objects" if items.get("type") == "object" or items.get("properties") else "list"
    if target.get("properties"):
        return "object"
    return "map" if target.get("type") == "object" else "scalar"


def fields_of(schemas: SchemaSet, at: At) -> list[Field]:
    """The fields of an object node, in name order, with their types, descriptions and enum values."""
    properties = at.node.get("properties")
    if not isinstance(properties, Mapping):
        return []
    docs = definition_docs(schemas.version, at.definition).get("fields", {})
    out = []
    for name in sorted(properties):
        prop = properties[name] if isinstance(properties[name], Mapping) else {}
        own = docs.get(name, {})
        description = own.get("description") or prop.get("description") or ""
        if not description and "$ref" in prop:  # a field that only names a definition: that one's description
            description = definition_docs(schemas.version, str(prop["$ref"])).get("description", "")
        items = prop.get("items") if isinstance(prop.get("items"), Mapping) else {}
        enum = own.get("enum") or prop.get("enum") or items.get("enum") or ()
        if not enum and at.definition:
            enum = SUPPORTED_VALUES.get((at.definition.rpartition(".")[2], name), ())
        out.append(Field(name, _type_name(schemas, prop), str(description), tuple(enum), _shape(schemas, prop)))
    return out


def child(schemas: SchemaSet, at: At, step: Step) -> At | None:
    """One step down: a field by name, a list's items (an index or ``[]``), a map's values."""
    node = at.node
    if isinstance(step, int) or step == "[]":
        items = node.get("items")
        return resolve(schemas, items, at.definition) if isinstance(items, Mapping) else None
    properties = node.get("properties")
    if isinstance(properties, Mapping) and isinstance(properties.get(step), Mapping):
        return resolve(schemas, properties[step], at.definition)
    extra = node.get("additionalProperties")
    return resolve(schemas, extra, at.definition) if isinstance(extra, Mapping) else None


def walk(schemas: SchemaSet, root: Node, path: Sequence[Step]) -> At | None:
    """The node at a path from a kind's root; None where the schema knows nothing."""
    at: At | None = resolve(schemas, root)
    for step in path:
        if at is None:
            return None
        at = child(schemas, at, step)
    return at


def field_at(schemas: SchemaSet, root: Node, path: Sequence[Step]) -> Field | None:
    """The field a path ends with, as kubectl explain shows it; None when the schema has no such field."""
    if not path or not isinstance(path[-1], str) or path[-1] == "[]":
        return None
    parent = walk(schemas, root, path[:-1])
    if parent is None:
        return None
    return next((f for f in fields_of(schemas, parent) if f.name == path[-1]), None)


# --------------------------------------------------------------------------------------------
# Where a position is in YAML text


_KEY = re.compile(r"""("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s#'"\[\]{},:][^#:]*?)[ \t]*:(?=[ \t]|$)""")
_SEPARATOR = re.compile(r"(---|\.\.\.)(\s|$)")
_BLOCK_SCALAR = re.compile(r"[|>][0-9+-]*\s*(#.*)?$")


@dataclass(frozen=True)
class Event:
    """A list item (``- ``, key None) or a key, at a column of a line."""

    column: int
    key: str | None
    value: str = ""  # the rest of the line after the key's colon
    end: int = 0  # the column after the key's text


def _unquote(key: str) -> str:
    if len(key) >= 2 and key[0] == key[-1] and key[0] in "'\"":
        return key[1:-1].replace("''", "'") if key[0] == "'" else key[1:-1]
    return key


def line_events(text: str) -> list[Event]:
    """The list items and the key that start on a line of block YAML, left to right."""
    events: list[Event] = []
    m = len(text) - len(text.lstrip(" "))
    while text[m:m + 1] == "-" and (m + 1 == len(text) or text[m + 1] in " \t"):
        events.append(Event(m, None))
        m += 1
        while m < len(text) and text[m] in " \t":
            m += 1
    found = _KEY.match(text[:m + MAX_KEY], m) if text[m:m + 1] != "#" else None  # (bounded: the pattern is lazy)
    if found:
        value = text[found.end():].strip()
        events.append(Event(m, _unquote(found.group(1)), "" if value.startswith("#") else value,
                            m + len(found.group(1))))
    return events


def _scan(lines: Sequence[str], row: int, column: int | None = None) -> tuple[list[Event], list[Event]]:
    """The events of the lines above ``row`` (block scalars' text skipped), and, when ``row`` is in a block
    scalar, the events up to the key that holds it (else []). A blank line is in it when the (0-based)
    ``column`` is indented further than the key."""
    events: list[Event] = []
    scalar_at: int | None = None  # the column of the key whose block scalar is being read
    held: list[Event] = []
    for text in lines[:row]:
        if scalar_at is not None:
            if not text.strip() or len(text) - len(text.lstrip(" ")) > scalar_at:
                continue
            scalar_at = None
        line = line_events(text)
        events.extend(line)
        if line and line[-1].key is not None and _BLOCK_SCALAR.match(line[-1].value):
            scalar_at, held = line[-1].column, list(events)
    current = lines[row] if row < len(lines) else ""
    indent = len(current) - len(current.lstrip(" ")) if current.strip() else column
    inside = scalar_at is not None and (indent is None or indent > scalar_at)
    return events, held if inside else []


def parent_path(events: Sequence[Event], column: int, item: bool = False) -> list[Step]:
    """The path of the mapping that a key at ``column`` belongs to (``item``: of the list that an item at
    ``column`` belongs to), from the events above it; list items are ``[]``."""
    path: list[Step] = []
    for event in reversed(events):
        if event.column < column or (item and event.column == column and event.key is not None):
            path.append(event.key if event.key is not None else "[]")
            column, item = event.column, event.key is None
    path.reverse()
    return path


def _document(text: str, row: int) -> tuple[list[str], int]:
    """The lines of the YAML document holding ``row`` (0-based) and the row within it."""
    lines = text.split("\n")
    start, end = 0, len(lines)
    for i, line in enumerate(lines):
        if _SEPARATOR.match(line):
            if i < row:
                start = i + 1
            else:
                end = i
                break
    return lines[start:end], row - start


def _kind_of(lines: Sequence[str]) -> tuple[str, str]:
    """A document's apiVersion and kind, read from its top-level lines."""
    found = {"apiVersion": "", "kind": ""}
    for line in lines:
        match = re.match(r"(apiVersion|kind):[ \t]*['\"]?([^'\"#\s]*)", line)
        if match and not found[match.group(1)]:
            found[match.group(1)] = match.group(2)
    return found["apiVersion"], found["kind"]


def _markers(head: str) -> list[Event]:
    """The list items written before a key on its line (``  - - ``)."""
    return [e for e in line_events(head + "x:") if e.key is None] if head.strip() else []


# --------------------------------------------------------------------------------------------
# The scenario's schemas


@dataclass
class Context:
    """What the panes of a scenario teach: the version's kinds and the CRDs pasted in the panes."""

    version: str
    schemas: SchemaSet
    table: ResourceTable

    @classmethod
    def of(cls, panes: Mapping[str, Any], version: str) -> Context:
        usage = bounds.Usage()
        crds: list[dict[str, Any]] = []
        for pane in CRD_PANES:
            docs, _ = load_pane(pane, panes.get(pane), usage)
            crds.extend(d.value for d in docs if d.kind == "CustomResourceDefinition" and isinstance(d.value, dict))
        table = builtin_table(version)
        return cls(version, schema_set(version, crds), table.with_custom_resources(crds) if crds else table)

    def root(self, api_version: str, kind: str) -> Node | None:
        """The schema of a kind named by apiVersion and kind; None when neither the version nor a CRD has it."""
        group, _, ver = api_version.rpartition("/")
        found = self.schemas.kind(group, ver, kind) if ver and kind else None
        return found.root if found is not None else None


# --------------------------------------------------------------------------------------------
# Completion and hover


@dataclass(frozen=True)
class Item:
    """One completion: the text put in, what the list shows, and the documentation beside it."""

    text: str
    label: str
    type: str = ""
    description: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "label": self.label, "type": self.type, "description": self.description}


@dataclass(frozen=True)
class Completion:
    """Items that replace the text of ``line`` from column ``start`` to ``end`` (1-based)."""

    line: int
    start: int
    end: int
    items: tuple[Item, ...]
    context: str  # "key", "value", "expression" or "none"

    def to_json(self) -> dict[str, Any]:
        return {"line": self.line, "from": self.start, "to": self.end, "context": self.context,
                "items": [i.to_json() for i in self.items[:MAX_ITEMS]]}


_PARTIAL_KEY = re.compile(r"^([ ]*(?:-[ ]+)*)([\w.\-/]*)$")  # (one way to match: no backtracking blow-up)
_VALUE = re.compile(r"^(?P<head>[ ]*(?:-[ ]+)*)(?P<key>[\w.\-/]+|\"[^\"]*\"|'[^']*')[ \t]*:[ \t]+(?P<value>.*)$")
_CHAIN = re.compile(r"([A-Za-z_]\w*)((?:\.[A-Za-z_]\w*|\[[^\[\]]*\])*)\.(\w*)$")
_STEP = re.compile(r"\.(\w+)|\[[^\]]*\]")
_WORD = re.compile(r"[A-Za-z_]\w*$")
_ALIAS = re.compile(r"\s*(object|oldObject|params|request|namespaceObject)((?:\.[A-Za-z_]\w*)*)\s*$")
_BARE_WORD = re.compile(r"^[ ]*(?:-[ ]+)*[\w.\-/]+[ ]*$")


def _inserted(field: Field, column: int) -> str:
    """The text a completed key puts in: the key, and where its value goes."""
    inner = " " * (column + 2)
    if field.shape in ("object", "map"):
        return f"{field.name}:\n{inner}"
    if field.shape in ("list of objects", "list"):
        return f"{field.name}:\n{inner}- "
    return f"{field.name}: "


def complete(panes: Mapping[str, Any], pane: str, line: int, column: int, version: str,
             context: Context | None = None) -> Completion:
    """What to offer at a 1-based line and column of a pane: the fields of the mapping being written, the
    values of an enum (or boolean) field, or the fields after ``object.`` and the other roots in an
    expression."""
    text = panes.get(pane)
    none = Completion(line, column, column, (), "none")
    if not isinstance(text, str) or line < 1 or column < 1:
        return none
    lines, row = _document(text, line - 1)
    if row >= len(lines):
        return none
    before = lines[row][:column - 1].ljust(column - 1)
    events, held = _scan(lines, row, column - 1)
    context = context or Context.of(panes, version)
    if held:  # inside a block scalar: an expression's text when its key is an expression field
        if held[-1].key in CEL_FIELDS:
            return _expression(lines, row, before, line, context)
        return none
    root = context.root(*_kind_of(lines))
    partial = _PARTIAL_KEY.match(before)
    if partial is not None:
        head, word = partial.group(1), partial.group(2)
        start = len(head)
        if root is None:
            return Completion(line, start + 1, column, _top_level(word, start), "key")
        path = parent_path(events + _markers(head), start)
        at = walk(context.schemas, root, path)
        if at is not None and at.node.get("type") not in (None, "object") and path[-1:] == ["[]"]:
            return _values(field_at(context.schemas, root, path[:-1]), word, line, start, column)  # "- " item
        if at is None or not isinstance(at.node.get("properties"), Mapping):
            return Completion(line, start + 1, column, (), "key")
        present = _present_keys(lines, row, start)
        items = tuple(Item(_inserted(f, start), f.name, f.type, f.description)
                      for f in fields_of(context.schemas, at) if f.name.startswith(word) and f.name not in present)
        return Completion(line, start + 1, column, items, "key")
    value = _VALUE.match(before)
    if value is None:
        return none
    key = _unquote(value.group("key"))
    if key in CEL_FIELDS:
        return _expression(lines, row, before, line, context)
    if root is None:
        return none
    head = value.group("head")
    found = field_at(context.schemas, root, [*parent_path(events + _markers(head), len(head)), key])
    typed = value.group("value").lstrip("'\"")
    return _values(found, typed, line, len(before) - len(typed), column)


def _values(found: Field | None, typed: str, line: int, start: int, column: int) -> Completion:
    """The values a field takes (its enum, or true and false), those that start with what is typed."""
    options: tuple[Any, ...] = ()
    if found is not None:
        options = ("true", "false") if found.type == "boolean" else found.enum
    items = tuple(Item(str(v), str(v), found.type if found else "") for v in options if str(v).startswith(typed))
    return Completion(line, start + 1, column, items, "value")


def _top_level(word: str, column: int) -> tuple[Item, ...]:
    """In a document whose kind is not known yet: apiVersion and kind."""
    if column != 0:
        return ()
    return tuple(Item(f"{name}: ", name, "string", description) for name, description in (
        ("apiVersion", "The group and version of the object's schema; fields are completed once "
                       "apiVersion and kind name a kind the Kubernetes version or a pasted CRD has."),
        ("kind", "The kind of the object: ValidatingAdmissionPolicy, Deployment, ..."),
    ) if name.startswith(word))


def _present_keys(lines: Sequence[str], row: int, column: int) -> set[str]:
    """The keys already written in the mapping whose keys are at ``column``, around ``row``."""
    present: set[str] = set()
    for step in (-1, 1):
        i = row + step
        while 0 <= i < len(lines):
            events = line_events(lines[i])
            if events:
                if events[0].column < column and not (step < 0 and events[-1].column == column):
                    break  # a line of the parent (an item holding the mapping is a line of it, above)
                if events[0].column == column - 2 and events[0].key is None and step > 0:
                    break  # the next item of the same list
                present.update(str(e.key) for e in events if e.column == column and e.key is not None)
                if events[0].column < column:
                    break
            i += step
    return present


def hover(panes: Mapping[str, Any], pane: str, line: int, column: int, version: str,
          context: Context | None = None) -> dict[str, Any] | None:
    """The documentation of the field whose key is at a 1-based line and column, as kubectl explain shows
    it (path, type, description, enum values, and the key's columns); None when no known field is there."""
    text = panes.get(pane)
    if not isinstance(text, str) or line < 1:
        return None
    lines, row = _document(text, line - 1)
    if row >= len(lines):
        return None
    events, held = _scan(lines, row)
    own = line_events(lines[row])
    key = next((e for e in own if e.key is not None and e.column <= column - 1 < e.end), None)
    in_value = (held and held[-1].key in CEL_FIELDS) or (
        own and own[-1].key in CEL_FIELDS and own[-1].end < column - 1 and key is None)
    if in_value:
        return _member_doc(lines, row, column, line, context or Context.of(panes, version))
    if held or key is None or key.key is None:
        return None
    context = context or Context.of(panes, version)
    api_version, kind = _kind_of(lines)
    root = context.root(api_version, kind)
    if root is None:
        return None
    path = [*parent_path(events + [e for e in own if e.key is None], key.column), key.key]
    found = field_at(context.schemas, root, path)
    if found is None:
        return None
    shown = ".".join(str(p) for p in path).replace(".[]", "[]")
    return {"path": f"{kind}.{shown}", "line": line, "from": key.column + 1, "to": key.end + 1, **found.to_json()}


# --------------------------------------------------------------------------------------------
# Expressions


def _policy(lines: Sequence[str], row: int) -> Mapping[str, Any]:
    """The document as YAML with the line being typed blanked (an expression being written is seldom
    valid YAML yet); {} when it still cannot be read."""
    kept = list(lines)
    kept[row] = _finished(kept[row])
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    for attempt in (kept, [_finished(t) if _unfinished(t) else t for t in kept]):  # then every line half typed
        try:
            loaded = yaml.load("\n".join(attempt), Loader=loader)  # noqa: S506 - a safe loader
        except yaml.YAMLError:
            continue
        return loaded if isinstance(loaded, Mapping) else {}
    return {}


def _unfinished(text: str) -> bool:
    """A line still being written: a bare word where a key goes, or a quoted value left open."""
    if _BARE_WORD.match(text):
        return True
    value = _VALUE.match(text)
    quoted = value.group("value").strip() if value else ""
    return bool(quoted) and quoted[0] in "'\"" and (len(quoted) == 1 or quoted[-1] != quoted[0])


def _finished(text: str) -> str:
    """A line being written made harmless: its key with a plain value, or nothing."""
    value = _VALUE.match(text)
    return f"{value.group('head')}{value.group('key')}: x" if value else ""


def _expression(lines: Sequence[str], row: int, before: str, line: int, context: Context) -> Completion:
    doc = _policy(lines, row)
    spec = doc.get("spec") if isinstance(doc.get("spec"), Mapping) else {}
    end = len(before) + 1
    before = before[-MAX_CHAIN:]
    chain = _CHAIN.search(before)
    if chain is None:
        word = _WORD.search(before)
        if word is None or (word.start() > 0 and before[word.start() - 1] == "."):
            return Completion(line, end, end, (), "expression")
        typed = word.group(0)
        items = tuple(Item(r, r, "variable" if r == "variables" else "root", _ROOTS[r])
                      for r in _roots(spec) if r.startswith(typed))
        return Completion(line, end - len(typed), end, items, "expression")
    root, rest, typed = chain.group(1), chain.group(2), chain.group(3)
    steps: list[Step] = [m.group(1) or "[]" for m in _STEP.finditer(rest)]
    members = [i for i in _members(root, steps, spec, context) if i.label.startswith(typed)]
    return Completion(line, end - len(typed), end, tuple(members), "expression")


_ROOTS = {
    "object": "The object of the request (null for DELETE), typed from the kinds of matchConstraints.",
    "oldObject": "The existing object (null for CREATE), typed as object.",
    "params": "The parameter resource the binding refers to, typed from paramKind.",
    "request": "Attributes of the admission request (kind, resource, operation, userInfo, ...).",
    "namespaceObject": "The namespace of the object (null for cluster-scoped resources).",
    "variables": "The policy's variables, by name.",
    "authorizer": "Authorization checks for the request's user (authorizer.group(...).resource(...).check(...)).",
}


def _member_doc(lines: Sequence[str], row: int, column: int, line: int, context: Context) -> dict[str, Any] | None:
    """The documentation of the member under the pointer in an expression (``object.spec.replicas``)."""
    text = lines[row]
    end = column - 1
    while end < len(text) and (text[end].isalnum() or text[end] == "_"):
        end += 1
    start = max(end - MAX_CHAIN, 0)
    chain = _CHAIN.search(text, start, end)
    if chain is None or not chain.group(3) or column - 1 < chain.start(3) - 1:
        word = _WORD.search(text, start, end)
        if word is None or word.group(0) not in _ROOTS or column - 1 < word.start():
            return None
        return {"path": word.group(0), "name": word.group(0), "type": "root", "description": _ROOTS[word.group(0)],
                "line": line, "from": word.start() + 1, "to": end + 1}
    spec = _policy(lines, row).get("spec")
    steps: list[Step] = [m.group(1) or "[]" for m in _STEP.finditer(chain.group(2))]
    name = chain.group(3)
    found = next((i for i in _members(chain.group(1), steps, spec if isinstance(spec, Mapping) else {}, context)
                  if i.label == name), None)
    if found is None:
        return None
    return {"path": text[chain.start():end], "name": name, "type": found.type, "description": found.description,
            "line": line, "from": chain.start(3) + 1, "to": end + 1}


def _roots(spec: Mapping[str, Any]) -> list[str]:
    roots = ["object", "oldObject", "request", "namespaceObject", "authorizer"]
    if spec.get("paramKind") is not None:
        roots.append("params")
    if isinstance(spec.get("variables"), list) and spec["variables"]:
        roots.append("variables")
    return roots


def _members(root: str, steps: Sequence[Step], spec: Mapping[str, Any], context: Context) -> list[Item]:
    """The fields after ``root.steps.``, from the type the root has in the policy."""
    if root == "variables":
        given = spec.get("variables") if isinstance(spec.get("variables"), list) else []
        variables = [v for v in given if isinstance(v, Mapping) and isinstance(v.get("name"), str)]
        if not steps:
            return [Item(str(v["name"]), str(v["name"]), "variable", str(v.get("expression", ""))) for v in variables]
        # a variable that names a field (object.spec.template) has that field's type
        named = next((v for v in variables if v["name"] == steps[0]), None)
        alias = _ALIAS.match(str(named.get("expression", ""))) if named is not None else None
        if alias is None or alias.group(1) == "variables":
            return []
        return _members(alias.group(1), [*alias.group(2).split(".")[1:], *steps[1:]], spec, context)
    if root in ("request", "namespaceObject"):
        messages = admission_messages()
        message = "AdmissionRequest" if root == "request" else "Namespace"
        for step in steps:
            fields = dict(messages.get(message, ()))
            if not isinstance(step, str) or fields.get(step) not in messages:
                return []
            message = fields[step]
        return [Item(name, name, kind) for name, kind in messages.get(message, ())]
    roots: list[Node] = []
    if root in ("object", "oldObject"):
        for gvk in types_to_check(spec, context.table).gvks:
            found = context.schemas.kind(*gvk)
            if found is not None:
                roots.append(found.root)
    elif root == "params":
        gvk = param_gvk(spec)
        found = context.schemas.kind(*gvk) if gvk else None
        if found is not None:
            roots.append(found.root)
    items: dict[str, Item] = {}
    for node in roots:  # the fields of every matched kind, each once
        at = walk(context.schemas, node, steps)
        for f in fields_of(context.schemas, at) if at is not None else ():
            name = escape(f.name)
            if name is not None and name not in items:
                items[name] = Item(name, name, f.type, f.description)
    return list(items.values())


# --------------------------------------------------------------------------------------------
# kubectl explain


def explain(version: str, api_version: str, kind: str, path: str = "") -> dict[str, Any] | None:
    """A built-in kind, or one of its fields by a dotted path (lists walked through, as kubectl explain
    walks them): its type, description and the fields under it; None when there is no such field."""
    schemas = schema_set(version)
    found = schemas.kind(*api_version.rpartition("/")[::2], kind) if api_version and kind else None
    if found is None:
        return None
    at: At | None = resolve(schemas, found.root)
    description = definition_docs(schemas.version, at.definition).get("description", "") if at else ""
    type_name = kind
    for step in [s for s in path.split(".") if s]:
        while at is not None and at.node.get("type") == "array":
            at = child(schemas, at, "[]")
        field = next((f for f in fields_of(schemas, at) if f.name == step), None) if at is not None else None
        if at is None or field is None:
            return None
        description, type_name = field.description, field.type
        at = child(schemas, at, step)
    while at is not None and at.node.get("type") == "array":
        at = child(schemas, at, "[]")
    return {"kubernetesVersion": schemas.version, "apiVersion": api_version, "kind": kind, "path": path,
            "type": type_name, "description": description,
            "fields": [f.to_json() for f in fields_of(schemas, at)] if at is not None else []}
