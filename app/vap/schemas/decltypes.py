"""Declared CEL types built from OpenAPI schemas, for type-checking compiles only.

Mirrors k8s.io/apiserver/pkg/cel/common/schemas.go (SchemaDeclType) and pkg/cel/types.go
(DeclType, MaybeAssignTypeName): an object schema becomes an object type with one field per
property, ``additionalProperties`` a ``map(string, T)``, ``items`` a ``list(T)``, strings of
format ``byte`` / ``date-time`` / ``date`` / ``duration`` ``bytes`` / ``google.protobuf.Timestamp`` /
``google.protobuf.Duration``, ``integer`` ``int``, ``number`` ``double``, ``boolean`` ``bool``,
and ``x-kubernetes-int-or-string`` ``dyn``. Property names are escaped as the apiserver escapes
them (``x-y`` → ``x__dash__y``, ``namespace`` → ``__namespace__``; from Kubernetes 1.31 a
reserved word is also found by its own name, pkg/cel/environment's recognizeKeywordAsFieldName).

The engine knows object types only as protobuf messages, so each object type is a message built
at run time in a descriptor pool of its own (one per set of declared roots, freed with it).
A list of lists or a map of lists, which protobuf cannot say, is declared with ``dyn`` elements
(``google.protobuf.ListValue`` / ``Struct``).

Where the apiserver lacks the schema information to type a value (and so rejects every use of
it), the playground declares ``dyn`` instead, so that no field that exists is reported unknown:

* a schema with no type (``Quantity``, whose OpenAPI v3 schema is a ``oneOf`` of string and
  number; ``apiextensions JSON``): the apiserver hides such a field (``undefined field
  'limits'`` for ``resources.limits``); here it is ``dyn``;
* an object with ``x-kubernetes-preserve-unknown-fields`` or with neither properties nor
  additionalProperties (``RawExtension``, a circular reference): the apiserver exposes no field
  of it; here it is ``dyn``;
* ``additionalProperties: true``: here ``map(string, dyn)``.

Every path gets an object type of its own, as in the apiserver (it inlines references before it
builds types): ``containers`` and ``initContainers`` items are two types, so
``object.spec.containers + object.spec.initContainers`` does not type-check there, nor here. Type
names in messages follow the apiserver's path names (``Deployment.spec.template``,
``...containers.@idx``, ``...labels.@elem``) without its random numeric suffix.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import re
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from itertools import chain
from typing import Any

from cel_expr_python import cel
from google.protobuf import (
    any_pb2,
    descriptor_pb2,
    descriptor_pool,
    duration_pb2,
    empty_pb2,
    struct_pb2,
    timestamp_pb2,
    wrappers_pb2,
)

from .. import cel as playground_cel
from .. import fast, reach
from ..cel.library import types as library_types
from . import KindSchema, Node, SchemaSet

WHOLE = reach.WHOLE

_F = descriptor_pb2.FieldDescriptorProto
_OPTIONAL, _REPEATED = _F.LABEL_OPTIONAL, _F.LABEL_REPEATED

TIMESTAMP = "google.protobuf.Timestamp"
DURATION = "google.protobuf.Duration"
VALUE = "google.protobuf.Value"  # dyn
LIST_VALUE = "google.protobuf.ListValue"  # list(dyn)
STRUCT = "google.protobuf.Struct"  # map(string, dyn)
_WELL_KNOWN = (struct_pb2, timestamp_pb2, duration_pb2, wrappers_pb2, any_pb2, empty_pb2)

# CEL RESERVED symbols (pkg/cel/escaping.go); the first four are lexer keywords that can never
# follow a dot, so only their escaped form is declared.
RESERVED = frozenset({
    "true", "false", "null", "in", "as", "break", "const", "continue", "else", "for", "function", "if",
    "import", "let", "loop", "package", "namespace", "return", "var", "void", "while",
})
_LEXER_KEYWORDS = frozenset({"true", "false", "null", "in"})
_PLAIN = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_]*$")
_ESCAPABLE = re.compile(r"^[a-zA-Z_.\-/][a-zA-Z0-9_.\-/]*$")


def escape(name: str) -> str | None:
    """Escape a property name into a CEL identifier as the apiserver does; None if it cannot be (worked out once per
    name of up to 128 characters: the built-in schemas' names are met over and over)."""
    return _escaped(name) if len(name) <= 128 else _escape(name)


def _escape(name: str) -> str | None:
    if not name or name[0].isdigit():
        return None
    if name in RESERVED:
        return f"__{name}__"
    if _PLAIN.match(name) and "__" not in name:
        return name
    if not _ESCAPABLE.match(name):
        return None
    out = re.sub(r"__|[-./]", lambda m: {"__": "__underscores__", ".": "__dot__", "-": "__dash__",
                                           "/": "__slash__"}[m.group(0)], name)
    return out


_escaped = lru_cache(maxsize=4096)(_escape)


def _named_properties(properties: Mapping[str, Any], names: frozenset[str]) -> list[tuple[str, Any]]:
    """The properties, sorted, that :class:`Named` ``names`` may declare: those named, and those whose declared
    name is not their own (escaped, or a reserved word), for the caller to test. The rest is left out unread. Which
    properties are their own names is worked out once per mapping and kept with it."""
    found = _OWN_NAMES.get(id(properties))
    if found is None or found[0] is not properties:
        own = frozenset(p for p in properties if isinstance(p, str) and escape(p) == p and p not in RESERVED)
        found = (properties, own, tuple(p for p in properties if p not in own))
        if len(_OWN_NAMES) >= 4096:
            _OWN_NAMES.clear()
        _OWN_NAMES[id(properties)] = found
    _, own, others = found
    return sorted((p, properties[p]) for p in (*(own & names), *others))


# By properties mapping of a built-in schema (kept with it, so that its id is not reused): the names that are their
# own CEL names, and the others. Derived from the built-in schemas alone, like them it stays loaded (bounded).
_OWN_NAMES: dict[int, tuple[Mapping[str, Any], frozenset[str], tuple[Any, ...]]] = {}


# --------------------------------------------------------------------------------------------
# Shapes: what a schema node is in CEL, before it is written as protobuf


@dataclass(frozen=True)
class Shape:
    """A CEL type: a scalar (protobuf field type), a message, a list or a map of another shape."""

    kind: str  # "scalar" | "message" | "list" | "map"
    scalar: int = 0
    message: str = ""
    elem: Shape | None = None


DYN = Shape("message", message=VALUE)
_STRING = Shape("scalar", _F.TYPE_STRING)
_SCALARS = {
    "integer": Shape("scalar", _F.TYPE_INT64),
    "number": Shape("scalar", _F.TYPE_DOUBLE),
    "boolean": Shape("scalar", _F.TYPE_BOOL),
}
_STRING_FORMATS = {
    "byte": Shape("scalar", _F.TYPE_BYTES),
    "date-time": Shape("message", message=TIMESTAMP),
    "date": Shape("message", message=TIMESTAMP),
    "duration": Shape("message", message=DURATION),
}


def _signature(shape: Shape) -> str:
    """The engine's type signature of a shape (what ``Program.return_type().name()`` prints)."""
    if shape.kind == "list":
        return f"LIST<{_signature(shape.elem or DYN)}>"
    if shape.kind == "map":
        return f"MAP<STRING, {_signature(shape.elem or DYN)}>"
    if shape.kind == "message":
        return "DYN" if shape.message == VALUE else shape.message
    return {_F.TYPE_STRING: "STRING", _F.TYPE_INT64: "INT", _F.TYPE_DOUBLE: "DOUBLE", _F.TYPE_BOOL: "BOOL",
            _F.TYPE_BYTES: "BYTES"}[shape.scalar]


class _Builder:
    """Writes the messages of one kind's schema into one protobuf file."""

    def __init__(self, schemas: SchemaSet, package: str, *, keywords_as_fields: bool, builtin: bool = False) -> None:
        self.schemas = schemas
        self.builtin = builtin  # the schema is a built-in kind's: what is read of its nodes may be kept with them
        self.package = package
        self.keywords_as_fields = keywords_as_fields
        self.file = descriptor_pb2.FileDescriptorProto(
            # proto2, and each field's own name as its JSON name: two properties such as foo_bar and fooBar
            # would otherwise clash (proto3 and the Python runtime both refuse one JSON name for two fields)
            name=f"playground_schemas/{package.replace('.', '_')}.proto", package=package, syntax="proto2",
        )
        self.file.dependency.extend(["google/protobuf/struct.proto", "google/protobuf/timestamp.proto",
                                     "google/protobuf/duration.proto"])
        self.display: dict[str, str] = {}
        self._visiting: set[str] = set()
        self._counter = itertools.count()

    # -- schema → shape

    def shape(self, node: Node, path: str, *, resource_root: bool = False, fields: Any = WHOLE) -> Shape:
        """``fields``: WHOLE, or which fields of an object to declare, as a trie of field names
        (:mod:`app.vap.reach`, the elements of a list under ``reach.ELEMENT``); a field whose presence
        only is tested, and maps, are declared whole."""
        ref = node.get("$ref") if (node.__class__ is dict or isinstance(node, Mapping)) else None
        if isinstance(ref, str):
            # Every path gets a type of its own, as the apiserver inlines references before it builds
            # types (PopulateRefs): containers and initContainers items are two distinct object types.
            if ref in self._visiting:  # a circular reference: the apiserver puts an empty object there
                return DYN
            self._visiting.add(ref)
            try:
                return self.shape(self.schemas.resolve(node), path, resource_root=resource_root, fields=fields)
            finally:
                self._visiting.discard(ref)
        if not (node.__class__ is dict or isinstance(node, Mapping)):
            return DYN
        if node.get("x-kubernetes-int-or-string") or node.get("format") == "int-or-string":
            return DYN
        if node.get("x-kubernetes-preserve-unknown-fields"):
            return DYN
        kind = node.get("type")
        if resource_root:
            node = self._with_type_and_object_meta(node)
            kind = node.get("type") or "object"
        if kind == "array":
            items = node.get("items")
            if not (items.__class__ is dict or isinstance(items, Mapping)):
                return Shape("list", elem=DYN)
            # the fields a comprehension selects of the elements (reach.ELEMENT), else all of them
            elements = fields if fields is WHOLE or isinstance(fields, Named) else fields.get(reach.ELEMENT, WHOLE)
            return Shape("list", elem=self.shape(items, path + ".@idx", fields=elements,
                                                 resource_root=bool(items.get("x-kubernetes-embedded-resource"))))
        if kind == "object":
            extra = node.get("additionalProperties")
            if (extra.__class__ is dict or isinstance(extra, Mapping)):
                return Shape("map", elem=self.shape(extra, path + ".@elem",
                                                    resource_root=bool(extra.get("x-kubernetes-embedded-resource"))))
            properties = node.get("properties")
            if extra is True and not properties:
                return Shape("map", elem=DYN)
            if not (properties.__class__ is dict or isinstance(properties, Mapping)) or not properties:
                return DYN
            return self._message(properties, path, fields)
        if kind == "string":
            return _STRING_FORMATS.get(str(node.get("format") or ""), _STRING)
        if kind in _SCALARS:
            return _SCALARS[kind]
        return DYN  # no type: Quantity (oneOf string, number), apiextensions JSON, {}

    def _with_type_and_object_meta(self, node: Node) -> Node:
        """pkg/cel/common WithTypeAndObjectMeta: kind, apiVersion, metadata.name/generateName always exist."""
        props = node.get("properties") if isinstance(node.get("properties"), Mapping) else {}

        def is_type(value: Any, wanted: str) -> bool:
            return isinstance(value, Mapping) and self.schemas.resolve(value).get("type") == wanted

        meta = self.schemas.resolve(props["metadata"]) if isinstance(props.get("metadata"), Mapping) else {}
        meta_props = meta.get("properties") if isinstance(meta.get("properties"), Mapping) else {}
        if (is_type(props.get("kind"), "string") and is_type(props.get("apiVersion"), "string")
                and meta.get("type") == "object" and is_type(meta_props.get("name"), "string")
                and is_type(meta_props.get("generateName"), "string")):
            return node
        string = {"type": "string"}
        return {**node, "properties": {
            **props, "kind": string, "apiVersion": string,
            "metadata": {"type": "object", "properties": {"name": string, "generateName": string}},
        }}

    # -- shape → protobuf

    def _message(self, properties: Mapping[str, Any], path: str, fields: Any = WHOLE) -> Shape:
        name = f"M{next(self._counter)}"
        full = f"{self.package}.{name}"
        msg = self.file.message_type.add(name=name)
        self.display[full] = path
        number = itertools.count(1)
        if isinstance(fields, Named) and fast.on and self.builtin:
            named = _named_properties(properties, fields.names)
        else:
            named = sorted(properties.items())
        for prop, node in named:
            escaped = escape(str(prop))
            if escaped is None or not (node.__class__ is dict or isinstance(node, Mapping)):
                continue
            names = [escaped]
            if self.keywords_as_fields and prop in RESERVED and prop not in _LEXER_KEYWORDS:
                names.append(str(prop))
            sub = WHOLE
            if isinstance(fields, Named):
                if fields.names.isdisjoint(names):
                    continue  # no expression names this field: leaving it out changes no check
                sub = fields
            elif fields is not WHOLE:
                wanted = [fields[n] for n in names if n in fields]
                if not wanted:
                    continue  # no expression selects this field: leaving it out changes no check
                sub = functools.reduce(reach.merge, wanted, None)
                sub = sub or WHOLE  # {}: the field's presence is tested; declared whole all the same
            embedded = bool(node.get("x-kubernetes-embedded-resource"))
            shape = self.shape(node, f"{path}.{escaped}", resource_root=embedded, fields=sub)
            for field_name in names:
                self._add_field(msg, field_name, next(number), shape)
        return Shape("message", message=full)

    def _add_field(self, msg: Any, name: str, number: int, shape: Shape) -> None:
        """A field of ``msg`` of the shape's type, its own name as its JSON name (each made in one call)."""
        if shape.kind == "map":
            entry_name = map_entry_name(name)
            if any(t.name == entry_name for t in msg.nested_type):  # two fields alike but for '_': a dyn map
                msg.field.add(name=name, number=number, label=_OPTIONAL, json_name=name, **_type_of(_flat(shape)))
                return
            entry = msg.nested_type.add(name=entry_name)
            entry.options.map_entry = True
            entry.field.add(name="key", number=1, type=_F.TYPE_STRING, label=_OPTIONAL)
            entry.field.add(name="value", number=2, label=_OPTIONAL, **_type_of(_flat(shape.elem)))
            msg.field.add(name=name, number=number, label=_REPEATED, type=_F.TYPE_MESSAGE,
                          type_name=f".{self.package}.{msg.name}.{entry.name}", json_name=name)
            return
        if shape.kind == "list":
            msg.field.add(name=name, number=number, label=_REPEATED, json_name=name, **_type_of(_flat(shape.elem)))
            return
        msg.field.add(name=name, number=number, label=_OPTIONAL, json_name=name, **_type_of(shape))


def _type_of(shape: Shape) -> dict[str, Any]:
    """The type fields of a field descriptor of a scalar or message shape."""
    if shape.kind == "scalar":
        return {"type": shape.scalar}
    return {"type": _F.TYPE_MESSAGE, "type_name": "." + shape.message}


def map_entry_name(field_name: str) -> str:
    """The name protobuf requires for a map field's entry message (``match_labels`` → ``MatchLabelsEntry``)."""
    out, cap = [], True
    for ch in field_name:
        if ch == "_":
            cap = True
        elif cap:
            out.append(ch.upper() if "a" <= ch <= "z" else ch)
            cap = False
        else:
            out.append(ch)
    return "".join(out) + "Entry"


def _flat(shape: Shape | None) -> Shape:
    """An element of a protobuf list or map must be a scalar or a message: nested lists/maps become dyn ones."""
    if shape is None:
        return DYN
    if shape.kind == "list":
        return Shape("message", message=LIST_VALUE)
    if shape.kind == "map":
        return Shape("message", message=STRUCT)
    return shape


def _unflat_signature(shape: Shape) -> str:
    """The signature the engine reports for a declared shape, after nested lists/maps were flattened."""
    if shape.kind in ("list", "map"):
        inner = _flat(shape.elem)
        inner_sig = {LIST_VALUE: "LIST<DYN>", STRUCT: "MAP<STRING, DYN>"}.get(inner.message, _signature(inner))
        return f"LIST<{inner_sig}>" if shape.kind == "list" else f"MAP<STRING, {inner_sig}>"
    return _signature(shape)


@dataclass(frozen=True, eq=False)
class KindTypes:
    """The declared type of one kind's objects: a protobuf file, the root shape, display names."""

    file: Any
    root: Shape
    display: Mapping[str, str]

    @property
    def signature(self) -> str:
        return _unflat_signature(self.root)


def keywords_as_fields(version: str) -> bool:
    """Whether a reserved word is found as a field by its own name (stored expressions, Kubernetes 1.31+)."""
    major, _, minor = version.partition(".")
    return (int(major), int(minor)) >= (1, 31)


@dataclass(frozen=True)
class Named:
    """Which fields of a kind to declare, instead of a trie: at any depth, those whose names are among ``names``
    (the words of the expressions that will be checked against it, :func:`words`). A checker looks a field up
    only where an expression names it, so this declares every field a trie of the selected paths would, and
    needs no compiled expression to be worked out."""

    names: frozenset[str]


_WORD = re.compile(r"[_a-zA-Z][_a-zA-Z0-9]*")


def words(texts: Iterable[str]) -> Named:
    """Every identifier-like word of the texts (in their strings too: more than is needed is harmless)."""
    return Named(frozenset(chain.from_iterable(map(_WORD.findall, texts))))


_kind_cache: OrderedDict[str, KindTypes] = OrderedDict()
_kind_lock = threading.Lock()
_KIND_CACHE_SIZE = 256
_DEPENDENT = "input:"  # the key of types that depend on the input (see clear_kind_types)


def clear_kind_types() -> None:
    """Forget the declared types that depend on what was evaluated: those of a policy's selected fields
    and those of pasted CRDs (the whole types of a built-in kind depend on its built-in schema only)."""
    with _kind_lock:
        for key in [k for k in _kind_cache if k.startswith(_DEPENDENT)]:
            del _kind_cache[key]


def kind_types(schema: KindSchema, schemas: SchemaSet, version: str, fields: Any = WHOLE,
               root: str = "object") -> KindTypes:
    """The declared types of a kind for the root variable ``root`` (``object``, which ``oldObject`` shares,
    or ``params``), built once per schema content, version, ``fields`` and ``root``.

    ``fields``: WHOLE, or the fields the expressions select (a trie of field names, see
    :mod:`app.vap.reach`), or the fields they may name (:class:`Named`): the object types then declare only
    those. A checker looks up a field's
    type only where an expression selects it, so what no expression selects cannot change a check,
    and a policy reading a few fields of a Deployment is checked against a handful of types instead
    of some 300 (the engine loads every declared type when it first checks an expression).
    """
    keywords = keywords_as_fields(version)
    key = f"{root}/{schemas.version}/{schema.key}/{keywords}"
    if isinstance(fields, Named):
        key += "/names:" + ",".join(sorted(fields.names))
    elif fields is not WHOLE:
        key += "/" + json.dumps(_jsonable(fields), sort_keys=True, separators=(",", ":"))
    if fields is not WHOLE or schema.custom:
        key = _DEPENDENT + key
    with _kind_lock:
        found = _kind_cache.get(key)
        if found is not None:
            _kind_cache.move_to_end(key)
            return found
    builder = _Builder(schemas, _UNNAMED, keywords_as_fields=keywords, builtin=not schema.custom)
    shape = builder.shape(schema.root, schema.kind, resource_root=True, fields=fields)
    types = _named_by_content(builder.file, shape, builder.display, root)
    with _kind_lock:
        types = _kind_cache.setdefault(key, types)
        while len(_kind_cache) > _KIND_CACHE_SIZE:
            _kind_cache.popitem(last=False)
    return types


# The package types are built in, then renamed after their content (see _named_by_content).
_UNNAMED = "playground.schemas.t" + "0" * 16


def _named_by_content(file: Any, root: Shape, display: Mapping[str, str], variable: str) -> KindTypes:
    """The built types, their package named after what they declare and the root variable they are the
    type of: two kinds whose selected fields declare the same types (a Deployment's and a StatefulSet's
    ``spec.replicas``) get one package for ``object``, so their type checks share one environment and one
    compile per expression (an environment costs the engine milliseconds on first use); only the display
    names, applied to a check's messages, differ. ``params`` never shares the types of ``object``: the
    apiserver names each root's types uniquely, so the two are never of one type."""
    content = variable.encode() + b"\0" + file.SerializeToString(deterministic=True)
    package = "playground.schemas.t" + hashlib.sha256(content).hexdigest()[:16]

    def rename(name: str) -> str:
        return package + name[len(_UNNAMED):] if name.startswith(_UNNAMED + ".") else name

    def rename_shape(shape: Shape) -> Shape:
        elem = rename_shape(shape.elem) if shape.elem is not None else None
        return replace(shape, message=rename(shape.message), elem=elem)

    def rename_fields(messages: Any) -> None:
        for msg in messages:
            for fd in msg.field:
                if fd.type_name.startswith("." + _UNNAMED + "."):
                    fd.type_name = "." + rename(fd.type_name[1:])
            rename_fields(msg.nested_type)

    file.package = package
    file.name = f"playground_schemas/{package.replace('.', '_')}.proto"
    rename_fields(file.message_type)
    return KindTypes(file, rename_shape(root), {rename(name): path for name, path in display.items()})


def _jsonable(fields: Any) -> Any:
    return "*" if fields is WHOLE else {k: _jsonable(v) for k, v in fields.items()}


# --------------------------------------------------------------------------------------------
# The admission request and the namespace (hand-written in the apiserver: BuildRequestType,
# BuildNamespaceType in pkg/admission/plugin/cel/compile.go)


def _admission_file() -> Any:
    fdp = descriptor_pb2.FileDescriptorProto(
        name="playground_schemas/kubernetes_admission.proto", package="kubernetes", syntax="proto3"
    )
    fdp.dependency.extend(["google/protobuf/struct.proto", "google/protobuf/timestamp.proto"])
    s, i, b = _F.TYPE_STRING, _F.TYPE_INT64, _F.TYPE_BOOL

    def message(name: str, fields: list[tuple[str, Any, bool]]) -> Any:
        msg = fdp.message_type.add(name=name)
        for number, (field_name, ftype, repeated) in enumerate(fields, start=1):
            fd = msg.field.add(name=field_name, number=number, label=_REPEATED if repeated else _OPTIONAL)
            if isinstance(ftype, str):
                fd.type, fd.type_name = _F.TYPE_MESSAGE, ftype
            else:
                fd.type = ftype
        return msg

    def string_map(msg: Any, field_name: str, number: int, value: Any) -> None:
        entry = msg.nested_type.add(name=map_entry_name(field_name))
        entry.options.map_entry = True
        entry.field.add(name="key", number=1, type=s, label=_OPTIONAL)
        fd = entry.field.add(name="value", number=2, label=_OPTIONAL)
        if isinstance(value, str):
            fd.type, fd.type_name = _F.TYPE_MESSAGE, value
        else:
            fd.type = value
        msg.field.add(name=field_name, number=number, label=_REPEATED, type=_F.TYPE_MESSAGE,
                      type_name=f".kubernetes.{msg.name}.{entry.name}")

    ts = "." + TIMESTAMP
    message("GroupVersionKind", [("group", s, False), ("version", s, False), ("kind", s, False)])
    message("GroupVersionResource", [("group", s, False), ("version", s, False), ("resource", s, False)])
    user = message("UserInfo", [("username", s, False), ("uid", s, False), ("groups", s, True)])
    string_map(user, "extra", 4, "." + LIST_VALUE)  # map(string, list(string)): list(dyn) here
    message("AdmissionRequest", [
        ("kind", ".kubernetes.GroupVersionKind", False), ("resource", ".kubernetes.GroupVersionResource", False),
        ("subResource", s, False), ("requestKind", ".kubernetes.GroupVersionKind", False),
        ("requestResource", ".kubernetes.GroupVersionResource", False), ("requestSubResource", s, False),
        ("name", s, False), ("namespace", s, False), ("operation", s, False),
        ("userInfo", ".kubernetes.UserInfo", False), ("dryRun", b, False), ("options", "." + VALUE, False),
    ])
    message("NamespaceSpec", [("finalizers", s, True)])
    message("NamespaceCondition", [("status", s, False), ("type", s, False), ("lastTransitionTime", ts, False),
                                   ("message", s, False), ("reason", s, False)])
    message("NamespaceStatus", [("conditions", ".kubernetes.NamespaceCondition", True), ("phase", s, False)])
    # The apiserver's hand-written type names the uid field "UID"; kept as it is.
    meta = message("NamespaceMetadata", [
        ("name", s, False), ("generateName", s, False), ("namespace", s, False), ("UID", s, False),
        ("creationTimestamp", ts, False), ("deletionGracePeriodSeconds", i, False),
        ("deletionTimestamp", ts, False), ("generation", i, False), ("resourceVersion", s, False),
        ("finalizers", s, True),
    ])
    string_map(meta, "labels", 11, s)
    string_map(meta, "annotations", 12, s)
    message("Namespace", [("metadata", ".kubernetes.NamespaceMetadata", False),
                          ("spec", ".kubernetes.NamespaceSpec", False),
                          ("status", ".kubernetes.NamespaceStatus", False)])
    return fdp


REQUEST_TYPE = "kubernetes.AdmissionRequest"
NAMESPACE_TYPE = "kubernetes.Namespace"


@lru_cache(maxsize=1)
def _base_file_names() -> frozenset[str]:
    return frozenset(f.name for f in _base_files())


@lru_cache(maxsize=1)
def _base_files() -> tuple[Any, ...]:
    files = []
    for module in _WELL_KNOWN:
        fdp = descriptor_pb2.FileDescriptorProto()
        module.DESCRIPTOR.CopyToProto(fdp)
        files.append(fdp)
    files.extend(library_types._file_protos())
    files.append(_admission_file())
    return tuple(files)


# --------------------------------------------------------------------------------------------
# The declared roots of one type-checking compile


@dataclass(frozen=True, eq=False)
class TypedRoots:
    """The declared types of ``object``/``oldObject``, ``params``, ``request`` and ``namespaceObject``.

    Handed to the engine adapter in ``Declarations.types``: it declares these roots with these
    types and builds the environment over :attr:`pool`. Equal (and hashed) by content key.
    """

    key: str
    pool: Any
    signatures: tuple[tuple[str, str], ...]
    display: Mapping[str, str] = field(default_factory=dict)

    def __hash__(self) -> int:
        return hash(self.key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TypedRoots) and other.key == self.key

    def variable_types(self) -> dict[str, Any]:
        """Engine types of the declared roots, by variable name."""
        return {name: _engine_type(sig) for name, sig in self.signatures}

    def display_name(self, text: str) -> str:
        """Replace the generated message names in a compiler message by the apiserver's path names."""
        if "playground.schemas." not in text:
            return text
        return re.sub(r"playground\.schemas\.t[0-9a-f]+\.M\d+", lambda m: self.display.get(m.group(0), m.group(0)),
                      text)


def _engine_type(signature: str) -> Any:
    if signature == "DYN":
        return cel.Type.DYN
    m = re.fullmatch(r"(LIST|MAP)<(.*)>", signature)
    if m:
        if m.group(1) == "LIST":
            return cel.Type.List(_engine_type(m.group(2)))
        return cel.Type.Map(cel.Type.STRING, _engine_type(m.group(2).split(",", 1)[1].strip()))
    simple = {"STRING": cel.Type.STRING, "INT": cel.Type.INT, "DOUBLE": cel.Type.DOUBLE, "BOOL": cel.Type.BOOL,
              "BYTES": cel.Type.BYTES}
    return simple.get(signature) or cel.Type(signature)


# The kinds' types share one descriptor pool with the base files, so that a type check builds no pool of its
# own: a kind's file is named after its content (see _named_by_content), so one of the same name is the
# same file, added once. A pool holding this many kinds' files is left to the checks made over it, and a
# new one started, which bounds it.
_SHARED_POOL_FILES = 128
_shared_pool: Any = None
_shared_files: set[str] = set()
_pool_lock = threading.Lock()


def _new_shared_pool() -> None:
    global _shared_pool, _shared_files
    pool = descriptor_pool.DescriptorPool()
    for fdp in _base_files():
        pool.Add(fdp)
    _shared_pool, _shared_files = pool, set()


def clear_shared_pool() -> None:
    """Start the shared pool again with the base files only (the kinds' files depend on what was evaluated)."""
    with _pool_lock:
        _new_shared_pool()


def _pool_with(files: list[Any]) -> Any:
    """The shared pool, holding ``files`` (kinds' files) too."""
    with _pool_lock:
        if _shared_pool is None or len(_shared_files) + len(files) > _SHARED_POOL_FILES:
            _new_shared_pool()
        for fdp in files:
            if fdp.name not in _shared_files:
                _shared_pool.Add(fdp)
                _shared_files.add(fdp.name)
        return _shared_pool


@lru_cache(maxsize=64)
def typed_roots(obj: KindTypes | None, params: KindTypes | None) -> TypedRoots:
    """Build (once) the declarations for an object type and a params type (None: dyn), with a pool holding
    their types."""
    display: dict[str, str] = {}
    key_parts = []
    files = []
    for types in (obj, params):
        if types is None:
            key_parts.append("dyn")
            continue
        if types.file.name not in _base_file_names():  # (the pool adds a file of one name once)
            files.append(types.file)
        display.update(types.display)
        key_parts.append(types.file.package)
    pool = _pool_with(files)
    signatures = [
        ("object", obj.signature if obj else "DYN"),
        ("oldObject", obj.signature if obj else "DYN"),
        ("params", params.signature if params else "DYN"),
        ("request", REQUEST_TYPE),
        ("namespaceObject", NAMESPACE_TYPE),
    ]
    return TypedRoots("/".join(key_parts), pool, tuple(signatures), display)


def clear_input_types() -> None:
    """Forget the declared types that depend on what was evaluated (see :func:`clear_kind_types`), the
    kinds' files in the shared pool, and the declarations built on them; the apiserver's request and
    namespaceObject types, which depend on no input, are built again at once."""
    typed_roots.cache_clear()
    clear_shared_pool()
    clear_kind_types()
    typed_roots(None, None)


fast.register("decltypes.input_types", clear_input_types)
playground_cel.provide_admission_types(lambda: typed_roots(None, None))


@lru_cache(maxsize=1)
def admission_messages() -> dict[str, tuple[tuple[str, str], ...]]:
    """The fields of the hand-written request and namespace types (``AdmissionRequest``, ``Namespace``, ...)
    with each field's type as CEL shows it (a message name, ``string``, ``list(string)``...), for completion."""
    names = {_F.TYPE_STRING: "string", _F.TYPE_INT64: "int", _F.TYPE_BOOL: "bool"}
    out: dict[str, tuple[tuple[str, str], ...]] = {}
    for message in _admission_file().message_type:
        entries = {entry.name: entry.field[1] for entry in message.nested_type}
        fields = []
        for fd in message.field:
            if fd.type == _F.TYPE_MESSAGE:
                type_name = fd.type_name.rpartition(".")[2]
                if type_name in entries:
                    value = entries[type_name]
                    shown = "list(dyn)" if value.type_name == "." + LIST_VALUE else names.get(value.type, "dyn")
                    type_name = f"map(string, {shown})"
                elif fd.type_name == "." + TIMESTAMP:
                    type_name = "timestamp"
                elif fd.type_name.startswith(".google."):
                    type_name = "dyn"
            else:
                type_name = names.get(fd.type, "dyn")
            if fd.label == _REPEATED and not type_name.startswith("map("):
                type_name = f"list({type_name})"
            fields.append((fd.name, type_name))
        out[message.name] = tuple(fields)
    return out
