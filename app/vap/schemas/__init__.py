"""OpenAPI schemas of the kinds a request or a policy can name: built-in kinds and pasted CRDs.

Mirrors what kube-apiserver's schema resolver gives the policy type checker
(k8s.io/apiserver/pkg/cel/openapi/resolver): the built-in types' definitions with every reference
resolved, combined with the schemas of CustomResourceDefinitions as the apiserver publishes them
(``apiVersion``, ``kind`` and the full ``ObjectMeta`` at the root, the CRD's own schema for the rest).

Rule: this module only reads data; it never compiles CEL and never judges an object.

Built-in schemas come from ``kubernetes.json.gz`` beside this file, generated once by
``scripts/generate-schemas`` from the per-release JSON schemas that the PyPI package
kubernetes-validate bundles (the ``.0`` release of each supported minor version). A node is a
plain JSON-schema mapping; references to definitions are ``{"$ref": "<definition name>"}``,
resolved by :meth:`SchemaSet.resolve`.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"

Node = Mapping[str, Any]


@dataclass(frozen=True)
class KindSchema:
    """The schema of one group/version/kind, with a key that identifies its content."""

    group: str
    version: str
    kind: str
    root: Node = field(hash=False, compare=False)
    key: str = ""  # "<k8s version>/<definition name>" for built-ins, a content hash for CRDs
    custom: bool = False

    @property
    def gvk_text(self) -> str:
        """The kind as apimachinery prints a GroupVersionKind: ``apps/v1, Kind=Deployment``."""
        gv = f"{self.group}/{self.version}" if self.group else self.version
        return f"{gv}, Kind={self.kind}"


@lru_cache(maxsize=1)
def _document() -> dict[str, Any]:
    data = resources.files(__package__).joinpath("kubernetes.json.gz").read_bytes()
    return json.loads(gzip.decompress(data))


def data_source() -> str:
    """Where the built-in schemas come from (package and release)."""
    return str(_document().get("source", ""))


def schema_versions() -> tuple[str, ...]:
    """The Kubernetes minor versions that have built-in schemas."""
    return tuple(sorted(_document()["versions"], key=_version_key))


def _version_key(version: str) -> tuple[int, int]:
    major, _, minor = version.partition(".")
    return int(major), int(minor)


def _nearest_version(version: str) -> str:
    available = schema_versions()
    if version in available:
        return version
    lower = [v for v in available if _version_key(v) <= _version_key(version)]
    return lower[-1] if lower else available[0]


class SchemaSet:
    """The built-in definitions of one Kubernetes version, plus any pasted CRD schemas."""

    def __init__(self, version: str, custom: Mapping[tuple[str, str, str], KindSchema] | None = None) -> None:
        self.version = _nearest_version(version)
        doc = _document()
        table: Mapping[str, str] = doc["versions"][self.version]
        bodies: Mapping[str, Any] = doc["definitions"]
        self._definitions = {name: bodies[digest] for name, digest in table.items()}
        self._kinds: dict[tuple[str, str, str], str] = {}
        for name, body in self._definitions.items():
            for gvk in body.get("x-kubernetes-group-version-kind") or ():
                self._kinds.setdefault((gvk["group"], gvk["version"], gvk["kind"]), name)
        self._custom = dict(custom or {})
        # what the set holds: equal keys, equal schemas
        self.key = (self.version, tuple(sorted(str(k.key) for k in self._custom.values())))

    def definition(self, name: str) -> Node | None:
        """A built-in definition by its OpenAPI name (``io.k8s.api.apps.v1.Deployment``)."""
        return self._definitions.get(name)

    def resolve(self, node: Node) -> Node:
        """Follow a ``$ref`` (several if needed) to the definition it names; ``{}`` when unknown."""
        seen = 0
        while (node.__class__ is dict or isinstance(node, Mapping)) and "$ref" in node and seen < 16:
            node = self._definitions.get(str(node["$ref"]), {})
            seen += 1
        return node if (node.__class__ is dict or isinstance(node, Mapping)) else {}

    def kind(self, group: str, version: str, kind: str) -> KindSchema | None:
        """The schema of a kind: a pasted CRD's first, then a built-in one; None when unknown."""
        custom = self._custom.get((group, version, kind))
        if custom is not None:
            return custom
        name = self._kinds.get((group, version, kind))
        if name is None:
            return None
        return KindSchema(group, version, kind, {"$ref": name}, f"{self.version}/{name}")

    @property
    def custom_key(self) -> str:
        """A key that changes whenever the pasted CRD schemas do."""
        return ",".join(sorted(s.key for s in self._custom.values()))


# Which nodes of the built-in definitions lead to one of a set of definitions, by the schemas' Kubernetes version and
# that set, then by node (kept with it, so that its id is not reused). Derived from the built-in definitions alone, it
# depends on no scenario and stays loaded (bounded: a kind's root node is made for each lookup).
_LEADS: dict[tuple[str, frozenset[str]], dict[int, tuple[Node, bool]]] = {}
_LEADS_SIZE = 20_000


def leads_to(schemas: SchemaSet, targets: frozenset[str]) -> Callable[[Node], bool]:
    """A test of whether a value at a schema node may hold a value of one of the definitions ``targets``: the node, a
    node inside it, or a definition they name (followed to any depth), is one of them. A walk looking for those
    values passes over what leads to none."""
    table = _LEADS.setdefault((schemas.version, targets), {})
    definition = schemas.definition

    def leads(node: Node) -> bool:
        found = table.get(id(node))
        if found is None or found[0] is not node:
            if len(table) >= _LEADS_SIZE:
                table.clear()
            found = table[id(node)] = (node, _reaches(node, targets, definition))
        return found[1]

    return leads


def _reaches(node: Any, targets: frozenset[str], definition: Callable[[str], Node | None]) -> bool:
    seen: set[int] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if not (current.__class__ is dict or isinstance(current, Mapping)) or id(current) in seen:
            continue
        seen.add(id(current))
        ref = current.get("$ref")
        if ref is not None:
            if str(ref) in targets:
                return True
            stack.append(definition(str(ref)))
        properties = current.get("properties")
        if properties.__class__ is dict or isinstance(properties, Mapping):
            stack.extend(properties.values())
        stack.append(current.get("additionalProperties"))
        stack.append(current.get("items"))
        for combined in ("allOf", "anyOf", "oneOf"):
            if isinstance(current.get(combined), list):
                stack.extend(current[combined])
    return False


@lru_cache(maxsize=16)
def _builtin_set(version: str) -> SchemaSet:
    return SchemaSet(version)


_custom_sets: OrderedDict[tuple[str, tuple[str, ...]], SchemaSet] = OrderedDict()
_custom_lock = threading.Lock()


def schema_set(version: str, crds: Iterable[Mapping[str, Any]] = ()) -> SchemaSet:
    """The schemas of a Kubernetes version, with those of the given CustomResourceDefinitions (cached)."""
    custom = crd_schemas(crds)
    if not custom:
        return _builtin_set(version)
    key = (version, tuple(sorted(s.key for s in custom.values())))
    with _custom_lock:
        found = _custom_sets.get(key)
        if found is not None:
            _custom_sets.move_to_end(key)
            return found
    built = SchemaSet(version, custom)
    with _custom_lock:
        _custom_sets[key] = built
        while len(_custom_sets) > 32:
            _custom_sets.popitem(last=False)
    return built


# --------------------------------------------------------------------------------------------
# CustomResourceDefinitions


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if (value.__class__ is dict or isinstance(value, Mapping)) else {}


def crd_schemas(crds: Iterable[Mapping[str, Any]]) -> dict[tuple[str, str, str], KindSchema]:
    """The schema of every served version of each CRD (``apiextensions.k8s.io`` v1 and v1beta1).

    The root is what the apiserver publishes for a custom resource: ``apiVersion`` and ``kind``
    strings and the full ``ObjectMeta``, whatever the CRD says of them, then its own properties.
    A version without a schema is left out (nothing is known of it).
    """
    out: dict[tuple[str, str, str], KindSchema] = {}
    for crd in crds:
        spec = _mapping(_mapping(crd).get("spec"))
        group = spec.get("group")
        kind = _mapping(spec.get("names")).get("kind")
        if not (isinstance(group, str) and group and isinstance(kind, str) and kind):
            continue
        shared = _mapping(_mapping(spec.get("validation")).get("openAPIV3Schema"))  # v1beta1
        versions = spec.get("versions")
        if not isinstance(versions, list) or not versions:
            single = spec.get("version")
            versions = [{"name": single, "served": True}] if isinstance(single, str) and single else []
        for entry in versions:
            entry = _mapping(entry)
            name = entry.get("name")
            if not (isinstance(name, str) and name) or entry.get("served") is not True:
                continue
            schema = _mapping(_mapping(entry.get("schema")).get("openAPIV3Schema")) or shared
            if not schema:
                continue
            root = dict(schema)
            properties = dict(_mapping(schema.get("properties")))
            properties.update({"apiVersion": {"type": "string"}, "kind": {"type": "string"},
                               "metadata": {"$ref": OBJECT_META}})
            root["properties"] = properties
            root.setdefault("type", "object")
            text = json.dumps(root, sort_keys=True, default=str)
            key = "crd:" + hashlib.sha256(f"{group}/{name}/{kind}:{text}".encode()).hexdigest()[:16]
            out[(group, name, kind)] = KindSchema(group, name, kind, root, key, custom=True)
    return out
