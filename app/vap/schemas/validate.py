"""Checking a pasted object against its kind's schema, as the apiserver's decoder and field validation would.

Mirrors what ``kubectl apply --validate`` gets back from kube-apiserver for a built-in kind: every
field the schema does not know is reported as ``unknown field "spec.replica"`` (server-side field
validation, sigs.k8s.io/json strict decoding), and a value of the wrong JSON type as the decoder
words it (``Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal
string into Go struct field DeploymentSpec.spec.replicas of type int32``). For a custom resource
the wrong type is worded as OpenAPI validation does (``spec.size: Invalid value: "string":
spec.size in body must be of type integer: "string"``) and fields under
``x-kubernetes-preserve-unknown-fields`` are never unknown.

Rule: these are warnings for the author; the request is still evaluated as pasted.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .. import fast
from ..cel.library.errors import LibraryError
from ..cel.library.quantity import parse_quantity
from . import KindSchema, Node, SchemaSet

Path = tuple[str | int, ...]

_RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")
# quantities in the common forms, which parse_quantity takes without fail (few digits: no long integer to convert)
_PLAIN_QUANTITY = re.compile(r"[0-9]{1,18}(?:\.[0-9]{1,18})?(?:[numkMGTPE]|[KMGTPE]i)?\Z")
_INT32 = (-(2**31), 2**31 - 1)
_INT64 = (-(2**63), 2**63 - 1)
_QUANTITY_DEF = "io.k8s.apimachinery.pkg.api.resource.Quantity"

# What the walk checks of a value at a schema node (:meth:`_Walker.plan`), a list whose first item says which
# check: the node followed to its definition and read once, instead of at each value met there.
_Plan = list[Any]
_ANYTHING = 0  # [_ANYTHING]: any value (no schema, no type)
_INT_OR_STRING = 1
_QUANTITY = 2
_OBJECT = 3  # [_OBJECT, properties, their plans by key as met, additionalProperties (a mapping, else None),
# other keys allowed, a free-form object, the plan of additionalProperties once met]
_ARRAY = 4  # [_ARRAY, items (a mapping, else None), their plan once met]
_STRING = 5
_BYTES = 6  # a string, base64
_DATE_TIME = 7  # a string, RFC 3339
_BOOLEAN = 8
_INTEGER = 9  # [_INTEGER, lowest, highest]
_NUMBER = 10
_ANYTHING_PLAN: _Plan = [_ANYTHING]
_INT_OR_STRING_PLAN: _Plan = [_INT_OR_STRING]
_QUANTITY_PLAN: _Plan = [_QUANTITY]
_STRING_PLAN: _Plan = [_STRING]
_BYTES_PLAN: _Plan = [_BYTES]
_DATE_TIME_PLAN: _Plan = [_DATE_TIME]
_BOOLEAN_PLAN: _Plan = [_BOOLEAN]
_INT32_PLAN: _Plan = [_INTEGER, *_INT32]
_INT64_PLAN: _Plan = [_INTEGER, *_INT64]
_NUMBER_PLAN: _Plan = [_NUMBER]

# The plans of the built-in schemas' nodes, by Kubernetes version (a name a node refers to may mean another
# definition in another version), then by node (kept with it, so that its id is not reused), and those of the nodes
# naming a built-in definition by that name (a kind's root, made for each lookup, among them). Derived from the
# built-in definitions alone, like them they depend on no scenario and stay loaded (bounded), used while the fast
# paths are on; a custom resource's own nodes, and every node with the fast paths off, are planned for each check.
_PLANS: dict[str, dict[int | str, tuple[Any, _Plan]]] = {}
_PLANS_SIZE = 20_000


@dataclass(frozen=True)
class Finding:
    """One field of an object the apiserver would warn about or refuse to decode."""

    path: Path
    message: str


def render_path(path: Path) -> str:
    """``("spec", "containers", 0, "image")`` → ``spec.containers[0].image``."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _json_kind(value: Any) -> str:
    """The JSON kind of a value as Go's decoder names it (UnmarshalTypeError.Value)."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _openapi_kind(value: Any) -> str:
    """The JSON kind of a value as kube-openapi's validator names it."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    return {str: "string", list: "array", dict: "object"}.get(type(value), "null")


openapi_kind = _openapi_kind  # (public: a custom resource's schema errors name the kind found, app.vap.registry)


class _Walker:
    def __init__(self, schemas: SchemaSet, schema: KindSchema) -> None:
        self.schemas = schemas
        self.schema = schema
        # the plans of the built-in definitions, kept while the fast paths are on; those of a custom resource's own
        # nodes (and all plans, with the fast paths off) are this check's own
        self.kept = _PLANS.setdefault(schemas.version, {}) if fast.on else None
        self.plans = self.kept if self.kept is not None and not schema.custom else {}
        self.findings: list[Finding] = []

    # -- Go type names, for the decoder's messages

    def go_type(self, node: Node) -> str:
        ref = node.get("$ref") if (node.__class__ is dict or isinstance(node, Mapping)) else None
        if isinstance(ref, str):
            package, _, name = ref.rpartition(".")
            short = package.rpartition(".")[2]
            if ref == _QUANTITY_DEF:
                return "resource.Quantity"
            return f"{short}.{name}"
        node = self.schemas.resolve(node)
        if node.get("x-kubernetes-int-or-string"):
            return "intstr.IntOrString"
        kind = node.get("type")
        fmt = node.get("format")
        if kind == "array":
            return "[]" + self.go_type(node.get("items") or {})
        if kind == "object":
            extra = node.get("additionalProperties")
            if (extra.__class__ is dict or isinstance(extra, Mapping)):
                return "map[string]" + self.go_type(extra)
            return "map[string]interface {}"
        if kind == "string":
            return "[]uint8" if fmt == "byte" else "string"
        if kind == "integer":
            return "int32" if fmt == "int32" else "int64"
        if kind == "number":
            return "float32" if fmt == "float" else "float64"
        if kind == "boolean":
            return "bool"
        return "interface {}"

    # -- the walk (the Go types and struct fields that messages name are worked out only for a message: see
    # _context). What the walk reads from a schema node is worked out once per node (:meth:`plan_of`): ``_PLANS``.

    def plan_of(self, node: Any) -> _Plan:
        """What the walk checks of a value at ``node`` (see ``_PLANS``), from the table or made and kept there."""
        plans = self.plans
        found = plans.get(id(node))
        if found is not None and found[0] is node:
            return found[1]
        made = self.plan(node)
        if len(plans) >= _PLANS_SIZE:
            plans.clear()
        plans[id(node)] = (node, made)
        return made

    def plan(self, node: Any) -> _Plan:
        """What the walk reads from ``node``: the node followed to its definition, and what that says. A node naming
        a built-in definition is planned by the name alone (nothing else of it is read), kept by that name."""
        ref = node.get("$ref") if (node.__class__ is dict or isinstance(node, Mapping)) else None
        kept = self.kept
        if kept is not None and ref.__class__ is str and self.schemas.definition(ref) is not None:
            found = kept.get(ref)
            if found is None:
                if len(kept) >= _PLANS_SIZE:
                    kept.clear()
                found = kept[ref] = (ref, self.read(ref, self.schemas.resolve(node)))
            return found[1]
        return self.read(ref, self.schemas.resolve(node))

    def read(self, ref: Any, node: Node) -> _Plan:
        """The plan of a node naming ``ref`` (None: none) and followed to ``node``."""
        if not node:
            return _ANYTHING_PLAN
        if node.get("x-kubernetes-int-or-string"):
            return _INT_OR_STRING_PLAN
        kind = node.get("type")
        if kind is None:
            one_of = node.get("oneOf")
            if ref == _QUANTITY_DEF or (isinstance(one_of, list) and {"type": "number"} in one_of):
                return _QUANTITY_PLAN
            return _ANYTHING_PLAN  # no type: anything goes (apiextensions JSON, preserve-unknown-fields without type)
        if kind == "object":
            properties = node.get("properties")
            if not (properties.__class__ is dict or properties is not None and isinstance(properties, Mapping)):
                properties = {}  # (a dict's class and None first: the ABC's test costs several times more)
            extra = node.get("additionalProperties")
            preserve = bool(node.get("x-kubernetes-preserve-unknown-fields"))
            return [_OBJECT, properties, {}, extra if (extra.__class__ is dict or isinstance(extra, Mapping)) else None,
                    extra is True or preserve, not properties and extra is None, None]
        if kind == "array":
            items = node.get("items")
            return [_ARRAY, items if (items.__class__ is dict or isinstance(items, Mapping)) else None, None]
        if kind == "string":
            fmt = node.get("format")
            return _BYTES_PLAN if fmt == "byte" else _DATE_TIME_PLAN if fmt == "date-time" else _STRING_PLAN
        if kind == "boolean":
            return _BOOLEAN_PLAN
        if kind == "integer":
            return _INT32_PLAN if node.get("format") == "int32" else _INT64_PLAN
        if kind == "number":
            return _NUMBER_PLAN
        return _ANYTHING_PLAN

    def walk(self, value: Any, plan: _Plan, path: Path) -> None:
        """Check ``value`` at ``path``, where the schema's node gives it ``plan``."""
        if value is None:
            return  # null is an absent field for the decoder and for pruning alike
        code = plan[0]
        if code == _OBJECT:
            self.object(value, plan, path)
        elif code == _ARRAY:
            if not (value.__class__ is list or isinstance(value, list)):
                self.type_error(value, path, "array")
                return
            if plan[1] is None:
                return
            items = plan[2]
            if items is None:
                items = plan[2] = self.plan_of(plan[1])
            code = items[0]
            for i, item in enumerate(value):
                if item is None:
                    continue
                if code == _OBJECT:
                    self.object(item, items, (*path, i))
                elif code == _STRING:
                    if item.__class__ is not str and not isinstance(item, str):
                        self.type_error(item, (*path, i), "string")
                elif code:
                    self.walk(item, items, (*path, i))
        elif code == _INT_OR_STRING:
            if not isinstance(value, str) and (isinstance(value, bool) or not isinstance(value, int)):
                self.type_error(value, path, "integer or string")
        elif code == _QUANTITY:
            self.quantity(value, path)
        elif code:
            self.scalar(value, plan, path)

    def object(self, value: Any, plan: _Plan, path: Path) -> None:
        if not (value.__class__ is dict or isinstance(value, Mapping)):
            self.type_error(value, path, "object")
            return
        if plan[5]:
            return  # a free-form object (RawExtension, an empty schema)
        _, properties, children, extra, open_, _, _ = plan
        for key, child in value.items():
            found = children.get(key)  # (the plans of the properties met before)
            if found is None:
                if key in properties:
                    found = children[key] = self.plan_of(properties[key])
                elif extra is not None:
                    found = plan[6]
                    if found is None:
                        found = plan[6] = self.plan_of(extra)
                elif open_:
                    continue
                else:
                    self.findings.append(Finding((*path, key), f'unknown field "{render_path((*path, key))}"'))
                    continue
            if child is None:
                continue
            # the common kinds checked here, the others by walk
            code = found[0]
            if code == _STRING:
                if child.__class__ is not str and not isinstance(child, str):
                    self.type_error(child, (*path, key), "string")
            elif code == _OBJECT:
                self.object(child, found, (*path, key))
            elif code == _INTEGER:
                if child.__class__ is not int or not found[1] <= child <= found[2]:
                    self.scalar(child, found, (*path, key))
            elif code == _BOOLEAN:
                if child.__class__ is not bool:
                    self.type_error(child, (*path, key), "boolean")
            elif code:
                self.walk(child, found, (*path, key))

    def _context(self, path: Path) -> tuple[str, tuple[str, tuple[str, ...]]]:
        """What the decoder's message names for the value at ``path``: its Go type, and the Go struct holding it
        with the JSON path of the field within (a Go struct, a definition with properties, starts a new ``Go struct
        field <Struct>.<json path>``; list items and map values stay in the struct holding the list or map)."""
        node: Node = self.schema.root
        struct: tuple[str, tuple[str, ...]] = (self.schema.kind, ())
        for part in path:
            resolved = self.schemas.resolve(node)
            if isinstance(part, int):
                node = resolved.get("items") or {}
                continue
            properties = resolved.get("properties") if isinstance(resolved.get("properties"), Mapping) else {}
            if part in properties:
                go_type = self.go_type(node)
                name = go_type.rpartition(".")[2] if "." in go_type else struct[0]
                struct = (name, (*struct[1], str(part)))
                node = properties[part]
            else:
                node = resolved.get("additionalProperties") or {}
        return self.go_type(node), struct

    def scalar(self, value: Any, plan: _Plan, path: Path) -> None:
        code = plan[0]
        if code == _STRING or code == _BYTES or code == _DATE_TIME:
            if not isinstance(value, str):
                self.type_error(value, path, "string")
            elif code == _BYTES:
                try:
                    base64.b64decode(value, validate=True)
                except (binascii.Error, ValueError):
                    self.decode_error(path, f"illegal base64 data at input byte {_base64_error_at(value)}")
            elif code == _DATE_TIME and not _RFC3339.match(value):
                self.decode_error(path, f'parsing time "{value}" as "2006-01-02T15:04:05Z07:00": '
                                        "not an RFC 3339 time")
        elif code == _BOOLEAN:
            if not isinstance(value, bool):
                self.type_error(value, path, "boolean")
        elif code == _INTEGER:
            if isinstance(value, bool) or not isinstance(value, int | float):
                self.type_error(value, path, "integer")
            elif isinstance(value, float) and not value.is_integer():
                self.type_error(value, path, "integer", literal=True)
            else:
                if not plan[1] <= int(value) <= plan[2]:
                    self.type_error(value, path, "integer", literal=True)
        elif code == _NUMBER:
            if isinstance(value, bool) or not isinstance(value, int | float):
                self.type_error(value, path, "number")

    def quantity(self, value: Any, path: Path) -> None:
        """resource.Quantity's UnmarshalJSON: a string (trimmed) or a JSON number, parsed as a quantity."""
        if isinstance(value, int | float) and not isinstance(value, bool):
            return
        text = value.strip() if isinstance(value, str) else str(value).lower()
        if _PLAIN_QUANTITY.match(text):
            return  # (the common forms, which parse_quantity takes without fail)
        try:
            parse_quantity(text)
        except LibraryError as exc:
            self.decode_error(path, exc.text)

    # -- messages

    def type_error(self, value: Any, path: Path, expected: str, *, literal: bool = False) -> None:
        if self.schema.custom:
            where = render_path(path)
            got = _openapi_kind(value)
            self.findings.append(Finding(path, f'{where}: Invalid value: "{got}": {where} in body must be of type '
                                               f'{expected}: "{got}"'))
            return
        go_type, struct = self._context(path)
        what = _json_kind(value)
        if literal:
            what += " " + (repr(value) if isinstance(value, float) else str(value))
        if struct[1]:
            target = f"Go struct field {struct[0]}.{'.'.join(struct[1])} of type {go_type}"
        else:
            target = f"Go value of type {go_type}"
        self.decode_error(path, f"json: cannot unmarshal {what} into {target}")

    def decode_error(self, path: Path, message: str) -> None:
        # k8s.io/apiserver/pkg/endpoints/handlers/rest.go transformDecodeError: the version without its group
        schema = self.schema
        prefix = f'{schema.kind} in version "{schema.version}" cannot be handled as a {schema.kind}: '
        self.findings.append(Finding(path, prefix + message))


def _base64_error_at(text: str) -> int:
    """The offset Go's base64 decoder reports for malformed input (the first byte it cannot use)."""
    alphabet = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
    for i, ch in enumerate(text):
        if ch == "=" and text[i:].strip("=") == "":
            break  # trailing padding: the length is what is wrong
        if ch not in alphabet:
            return i
    return len(text.rstrip("=")) - len(text.rstrip("=")) % 4


def check_object(obj: Any, schemas: SchemaSet) -> list[Finding]:
    """Check an object against the schema of its own apiVersion and kind; [] when the kind is unknown."""
    if not (obj.__class__ is dict or isinstance(obj, Mapping)):
        return []
    api_version = str(obj.get("apiVersion") or "")
    kind = str(obj.get("kind") or "")
    if not api_version or not kind or api_version.count("/") > 1:
        return []
    group, _, version = api_version.rpartition("/")
    schema = schemas.kind(group, version, kind)
    if schema is None:
        return []
    walker = _Walker(schemas, schema)
    plan = walker.plan(schema.root)  # (a built-in kind's root, made for each lookup, names its definition)
    walker.walk(obj, plan, ())
    return walker.findings
