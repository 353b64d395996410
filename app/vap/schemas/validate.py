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

from ..cel.library.errors import LibraryError
from ..cel.library.quantity import parse_quantity
from . import KindSchema, Node, SchemaSet

Path = tuple[str | int, ...]

_RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")
_INT32 = (-(2**31), 2**31 - 1)
_INT64 = (-(2**63), 2**63 - 1)
_QUANTITY_DEF = "io.k8s.apimachinery.pkg.api.resource.Quantity"


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
        self.findings: list[Finding] = []
        # k8s.io/apiserver/pkg/endpoints/handlers/rest.go transformDecodeError: the version without its group
        self.decode_prefix = f'{schema.kind} in version "{schema.version}" cannot be handled as a {schema.kind}: '

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
    # _context)

    def walk(self, value: Any, node: Node, path: Path) -> None:
        """Check ``value`` at ``path``, where the schema gives it ``node``."""
        if value is None:
            return  # null is an absent field for the decoder and for pruning alike
        ref = node.get("$ref") if (node.__class__ is dict or isinstance(node, Mapping)) else None
        node = self.schemas.resolve(node)
        if not node:
            return
        if node.get("x-kubernetes-int-or-string"):
            if not isinstance(value, str) and (isinstance(value, bool) or not isinstance(value, int)):
                self.type_error(value, path, "integer or string")
            return
        kind = node.get("type")
        if kind is None:
            one_of = node.get("oneOf")
            if ref == _QUANTITY_DEF or (isinstance(one_of, list) and {"type": "number"} in one_of):
                self.quantity(value, path)
            return  # no type: anything goes (apiextensions JSON, preserve-unknown-fields without type)
        if kind == "object":
            self.object(value, node, path)
        elif kind == "array":
            if not isinstance(value, list):
                self.type_error(value, path, "array")
                return
            items = node.get("items")
            if (items.__class__ is dict or isinstance(items, Mapping)):
                for i, item in enumerate(value):
                    self.walk(item, items, (*path, i))
        else:
            self.scalar(value, node, kind, path)

    def object(self, value: Any, node: Node, path: Path) -> None:
        if not (value.__class__ is dict or isinstance(value, Mapping)):
            self.type_error(value, path, "object")
            return
        properties = node.get("properties")
        if not (properties.__class__ is dict or properties is not None and isinstance(properties, Mapping)):
            properties = {}  # (a dict's class and None first: the ABC's test costs several times more)
        extra = node.get("additionalProperties")
        preserve = bool(node.get("x-kubernetes-preserve-unknown-fields"))
        if not properties and extra is None:
            return  # a free-form object (RawExtension, an empty schema)
        for key, child in value.items():
            if key in properties:
                self.walk(child, properties[key], (*path, key))
            elif (extra.__class__ is dict or isinstance(extra, Mapping)):
                self.walk(child, extra, (*path, key))
            elif extra is True or preserve:
                continue
            else:
                self.findings.append(Finding((*path, key), f'unknown field "{render_path((*path, key))}"'))

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

    def scalar(self, value: Any, node: Node, kind: str, path: Path) -> None:
        if kind == "string":
            if not isinstance(value, str):
                self.type_error(value, path, "string")
            elif node.get("format") == "byte":
                try:
                    base64.b64decode(value, validate=True)
                except (binascii.Error, ValueError):
                    self.decode_error(path, f"illegal base64 data at input byte {_base64_error_at(value)}")
            elif node.get("format") == "date-time" and not _RFC3339.match(value):
                self.decode_error(path, f'parsing time "{value}" as "2006-01-02T15:04:05Z07:00": '
                                        "not an RFC 3339 time")
        elif kind == "boolean":
            if not isinstance(value, bool):
                self.type_error(value, path, "boolean")
        elif kind == "integer":
            if isinstance(value, bool) or not isinstance(value, int | float):
                self.type_error(value, path, "integer")
            elif isinstance(value, float) and not value.is_integer():
                self.type_error(value, path, "integer", literal=True)
            else:
                low, high = _INT32 if node.get("format") == "int32" else _INT64
                if not low <= int(value) <= high:
                    self.type_error(value, path, "integer", literal=True)
        elif kind == "number":
            if isinstance(value, bool) or not isinstance(value, int | float):
                self.type_error(value, path, "number")

    def quantity(self, value: Any, path: Path) -> None:
        """resource.Quantity's UnmarshalJSON: a string (trimmed) or a JSON number, parsed as a quantity."""
        if isinstance(value, int | float) and not isinstance(value, bool):
            return
        text = value.strip() if isinstance(value, str) else str(value).lower()
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
        self.findings.append(Finding(path, self.decode_prefix + message))


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
    walker.walk(obj, schema.root, ())
    return walker.findings
