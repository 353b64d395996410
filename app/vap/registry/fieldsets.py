"""``metadata.managedFields``: which manager set which fields, as the apiserver's field manager records it.

The create and update handlers pass the decoded object through the field manager before mutating
admission (k8s.io/apiserver/pkg/endpoints/handlers/create.go, update.go; the managers of
k8s.io/apimachinery/pkg/util/managedfields/internal and the field sets of sigs.k8s.io/structured-merge-diff).
For a create or an update (not a server-side apply), with manager ``M``:

* the object is compared with the live one (on create: the kind's empty object), field by field along the
  kind's schema: a scalar, an atomic list or an atomic struct is one field; a struct or map is a field of
  its own only when it was absent before; a list with ``x-kubernetes-list-type: map`` is walked item by
  item, each item named by its keys (``k:{"name":"app"}``), a set by its values (``v:"x"``);
* the fields added or changed go to ``M``; other managers lose the fields the request changed or
  removed, and a manager left with no field is dropped;
* the fields the apiserver owns are never recorded: ``apiVersion``, ``kind``, the ``metadata`` fields
  name, namespace, uid, resourceVersion, generation, creationTimestamp, selfLink and managedFields, and the
  fields the kind's strategy resets (``status`` for a kind with a status subresource, ``spec`` for an update
  of that subresource);
* ``M``'s entry (operation ``Update``, the request's apiVersion, ``fieldsType: FieldsV1``, its fields as a
  FieldsV1 tree) gets the current time when the request changed any of its fields; entries are ordered by
  operation, time, manager and apiVersion.

The managedFields of the request's object, when it gives some, are the starting point (a client may set
them); otherwise those of the stored object.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from ..schemas import KindSchema, SchemaSet

Path = tuple[str, ...]
_MISSING = object()

# the fields the field manager never records (its StripMetaManager)
STRIPPED: frozenset[Path] = frozenset({
    ("f:apiVersion",), ("f:kind",), ("f:metadata",), ("f:metadata", "f:name"), ("f:metadata", "f:namespace"),
    ("f:metadata", "f:creationTimestamp"), ("f:metadata", "f:selfLink"), ("f:metadata", "f:uid"),
    ("f:metadata", "f:clusterName"), ("f:metadata", "f:generation"), ("f:metadata", "f:managedFields"),
    ("f:metadata", "f:resourceVersion"),
})

# Go value structs (present, empty, in a kind's zero object) and lists never omitted (present as null): their
# node is not "added" when a create fills them. By schema definition name, and (definition, field) for lists.
_OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
_VALUE_STRUCTS = frozenset({
    _OBJECT_META, "io.k8s.api.core.v1.PodTemplateSpec",
    "io.k8s.api.core.v1.PodSpec", "io.k8s.api.batch.v1.JobTemplateSpec", "io.k8s.api.batch.v1.JobSpec",
    "io.k8s.api.apps.v1.DeploymentStrategy", "io.k8s.api.apps.v1.StatefulSetUpdateStrategy",
    "io.k8s.api.apps.v1.DaemonSetUpdateStrategy", "io.k8s.api.core.v1.VolumeResourceRequirements",
    "io.k8s.api.autoscaling.v1.CrossVersionObjectReference", "io.k8s.api.autoscaling.v2.CrossVersionObjectReference",
    "io.k8s.api.rbac.v1.RoleRef",
})
_NULL_LISTS = frozenset({("io.k8s.api.core.v1.PodSpec", "containers"), ("io.k8s.api.rbac.v1.Role", "rules"),
                         ("io.k8s.api.rbac.v1.ClusterRole", "rules")})
# pointers to value structs: present only when set
_POINTER_FIELDS = frozenset({("io.k8s.api.core.v1.ReplicationControllerSpec", "template")})


def field_element(name: str) -> str:
    return "f:" + name


def _key_element(item: Mapping[str, Any], keys: Iterable[str]) -> str:
    fields = {k: item[k] for k in sorted(keys) if k in item}
    return "k:" + json.dumps(fields, separators=(",", ":"), sort_keys=True)


def _value_element(value: Any) -> str:
    return "v:" + json.dumps(value, separators=(",", ":"), sort_keys=True)


class _Walker:
    """The comparison of two objects along a schema: the paths added, changed and removed."""

    def __init__(self, schemas: SchemaSet | None) -> None:
        self.schemas = schemas
        self.added: set[Path] = set()
        self.modified: set[Path] = set()
        self.removed: set[Path] = set()

    def resolve(self, node: Any) -> Mapping[str, Any]:
        if not (node.__class__ is dict or isinstance(node, Mapping)):
            return {}
        if "$ref" in node and self.schemas is not None:
            return self.schemas.resolve(node)
        if "allOf" in node and len(node["allOf"]) == 1 and self.schemas is not None:
            return self.resolve(node["allOf"][0])
        return node

    def leaf(self, lhs: Any, rhs: Any, path: Path) -> None:
        if lhs is _MISSING:
            self.added.add(path)
        elif rhs is _MISSING:
            self.removed.add(path)
        elif lhs != rhs or type(lhs) is not type(rhs):
            self.modified.add(path)

    def compare(self, lhs: Any, rhs: Any, node: Any, path: Path) -> None:
        if lhs is rhs or (lhs.__class__ is rhs.__class__ and lhs == rhs):
            return  # the same value on both sides: nothing added, changed or removed under it
        schema = self.resolve(node)
        value = rhs if rhs is not _MISSING else lhs
        if isinstance(value, dict) or (value is None and _is_mapping_schema(schema)):
            self._mapping(lhs, rhs, schema, path)
        elif isinstance(value, list) or (value is None and schema.get("type") == "array"):
            self._list(lhs, rhs, schema, path)
        else:
            self.leaf(lhs, rhs, path)

    def _container_end(self, lhs: Any, rhs: Any, path: Path) -> None:
        if lhs is _MISSING:
            self.added.add(path)
        elif rhs is _MISSING:
            self.removed.add(path)

    def _mapping(self, lhs: Any, rhs: Any, schema: Mapping[str, Any], path: Path) -> None:
        lmap = lhs if isinstance(lhs, dict) else None
        rmap = rhs if isinstance(rhs, dict) else None
        atomic = schema.get("x-kubernetes-map-type") == "atomic"
        if atomic or (not lmap and not rmap) or (lhs is not _MISSING and lmap is None and lhs is not None) \
                or (rhs is not _MISSING and rmap is None and rhs is not None):
            self.leaf(lhs, rhs, path)
            return
        properties = schema.get("properties") if isinstance(schema.get("properties"), Mapping) else {}
        extra = schema.get("additionalProperties")
        lmap, rmap = lmap or {}, rmap or {}
        for key in (*rmap, *(k for k in lmap if k not in rmap)):
            child = properties.get(key, extra if (extra.__class__ is dict or isinstance(extra, Mapping)) else {})
            self.compare(lmap.get(key, _MISSING), rmap.get(key, _MISSING), child, (*path, field_element(key)))
        self._container_end(lhs, rhs, path)

    def _list(self, lhs: Any, rhs: Any, schema: Mapping[str, Any], path: Path) -> None:
        list_type = schema.get("x-kubernetes-list-type")
        llist = lhs if isinstance(lhs, list) else None
        rlist = rhs if isinstance(rhs, list) else None
        if list_type not in ("map", "set") or (not llist and not rlist):
            self.leaf(lhs, rhs, path)
            return
        items = schema.get("items")
        keys = schema.get("x-kubernetes-list-map-keys") or []

        def element(item: Any, index: int) -> str:
            if list_type == "map" and (item.__class__ is dict or isinstance(item, Mapping)):
                return _key_element(item, keys)
            if list_type == "set":
                return _value_element(item)
            return f"i:{index}"

        left = {element(item, i): item for i, item in enumerate(llist or [])}
        right = {element(item, i): item for i, item in enumerate(rlist or [])}
        for pe, item in right.items():
            self._item(left.get(pe, _MISSING), item, items, (*path, pe), list_type)
        for pe, item in left.items():
            if pe not in right:
                self._item(item, _MISSING, items, (*path, pe), list_type)
        self._container_end(lhs, rhs, path)

    def _item(self, lhs: Any, rhs: Any, items: Any, path: Path, list_type: str) -> None:
        if list_type == "set":  # a set's item is its value: a leaf
            self.leaf(lhs, rhs, path)
        else:
            self.compare(lhs, rhs, items, path)


def _is_mapping_schema(schema: Mapping[str, Any]) -> bool:
    return schema.get("type") == "object" or "properties" in schema or "additionalProperties" in schema


def compare(live: Any, new: Any, root: Any, schemas: SchemaSet | None) -> tuple[set[Path], set[Path], set[Path]]:
    """The paths (FieldsV1 elements) added, changed and removed from ``live`` to ``new``."""
    walker = _Walker(schemas)
    walker.compare(live, new, root, ())
    walker.added.discard(())
    walker.removed.discard(())
    return walker.added, walker.modified, walker.removed


# ---------------------------------------------------------------------------------------------------
# a manager's FieldsV1 tree made in one walk


def created_fields(zero: Any, new: Any, root: Any, schemas: SchemaSet | None, reset: Iterable[str],
                   keep: bool = False) -> dict[str, Any] | None:
    """The FieldsV1 tree of the only manager of ``new`` compared with the kind's empty object ``zero``: what
    :func:`compare`, :func:`update` (with no manager before it) and :func:`encode` give that manager, its fields
    the paths added and changed without the stripped ones and those at or under a top-level ``reset`` element;
    None when it has none. Made in one walk of ``new`` along the schema, each member's tree built sorted as it is
    met instead of from a set of paths. ``keep``: the schema is a built-in kind's, whose nodes (but its root, made
    for each lookup) stay loaded: what the walk reads from each is kept with them."""
    builder = _Builder(schemas, keep)
    made = builder.changed(zero, new, root, True)
    if made is None:
        return None
    marked = not made or "." in made
    children = {element: child for element, child in made.items() if element != "." and element not in reset}
    for name in ("apiVersion", "kind"):
        _unmark(children, "f:" + name)
    metadata = children.get("f:metadata")
    if metadata is not None:
        members = {element: child for element, child in metadata.items() if element != "."}
        for path in STRIPPED:
            if len(path) == 2:
                _unmark(members, path[1])
        if members:
            children["f:metadata"] = members
        else:
            del children["f:metadata"]
    if not children:
        return {} if marked else None
    return children


def _unmark(members: dict[str, Any], element: str) -> None:
    """Take ``element``'s own path out of a rendered tree's ``members``, leaving the paths under it."""
    node = members.get(element)
    if node is None:
        return
    if not node:
        del members[element]
    elif "." in node:
        del node["."]


# what the walk reads from a schema node: the node resolved, whether a map of it is atomic, its properties, the
# schema of a key it does not name, whether a null value is a map or a list of it, its list type, the schema of an
# item, the list's keys as given, and the same sorted once when they are names
_Plan = tuple[Mapping[str, Any], bool, Mapping[str, Any], Any, bool, bool, Any, Any, Any, tuple[str, ...] | None]

# The plans of the built-in schemas' nodes, by Kubernetes version (a name a node refers to may mean another
# definition in another version), then by node (kept with it, so that its id is not reused). Derived from the
# built-in definitions alone, like them it depends on no scenario and stays loaded (bounded).
_PLANS: dict[str, dict[int, tuple[Any, _Plan]]] = {}
_PLANS_SIZE = 20_000

_LEAVES = frozenset({str, int, float, bool, type(None)})  # a value of these is a leaf under any schema
_encode_text = json.encoder.encode_basestring_ascii  # what json.dumps writes a string as


def _scalar_text(value: Any) -> str | None:
    """``json.dumps(value)`` for a string or an int; None for anything else."""
    kind = value.__class__
    if kind is str:
        return _encode_text(value)
    if kind is int:
        return int.__repr__(value)
    return None


class _Builder:
    """:class:`_Walker`'s walk of a create, the added and changed members rendered as FieldsV1 trees on the
    way: a member is ``{}`` when only its own path is set, its sorted members otherwise, ``"."`` first when its own
    path is set too; None when neither is. The paths only removed set nothing and are not walked."""

    def __init__(self, schemas: SchemaSet | None, keep: bool) -> None:
        self.resolve = _Walker(schemas).resolve
        if keep and schemas is not None:
            self.plans = _PLANS.setdefault(schemas.version, {})
            self.bound = _PLANS_SIZE
            self.leaves = _LEAVES  # a built-in node resolves without fail: a scalar's is not looked at
        else:
            self.plans = {}
            self.bound = 1 << 62
            self.leaves = frozenset()

    def plan(self, node: Any) -> _Plan:
        schema = self.resolve(node)
        properties = schema.get("properties")
        extra = schema.get("additionalProperties")
        keys = schema.get("x-kubernetes-list-map-keys") or []
        names = tuple(sorted(set(keys))) if keys.__class__ is list and all(k.__class__ is str for k in keys) \
            else None
        return (schema, schema.get("x-kubernetes-map-type") == "atomic",
                properties if (properties.__class__ is dict or isinstance(properties, Mapping)) else {},
                extra if (extra.__class__ is dict or isinstance(extra, Mapping)) else {},
                _is_mapping_schema(schema), schema.get("type") == "array",
                schema.get("x-kubernetes-list-type"), schema.get("items"), keys, names)

    def plan_of(self, node: Any) -> _Plan:
        found = self.plans.get(id(node))
        if found is not None and found[0] is node:
            return found[1]
        made = self.plan(node)
        if len(self.plans) >= self.bound:
            self.plans.clear()
        self.plans[id(node)] = (node, made)
        return made

    def element(self, item: Any, index: int, list_type: Any, keys: Any, names: tuple[str, ...] | None) -> str:
        """The list item's element, as ``_Walker._list`` names it."""
        if list_type == "map" and (item.__class__ is dict or isinstance(item, Mapping)):
            if names is not None:
                parts = []
                for name in names:
                    if name in item:
                        text = _scalar_text(item[name])
                        if text is None:
                            return _key_element(item, keys)
                        parts.append(f"{_encode_text(name)}:{text}")
                return "k:{" + ",".join(parts) + "}"
            return _key_element(item, keys)
        if list_type == "set":
            text = _scalar_text(item)
            return "v:" + text if text is not None else _value_element(item)
        return f"i:{index}"

    def added(self, value: Any, plan: _Plan) -> dict[str, Any]:
        """The tree of a value the live object does not have: its path and every path under it."""
        if value.__class__ is dict or isinstance(value, dict):
            if not value or plan[1]:
                return {}
            properties, extra = plan[2], plan[3]
            plan_of, added, leaves = self.plan_of, self.added, self.leaves
            members = {}
            for key, child in value.items():  # (a loop: no comprehension's frame for each mapping)
                element = "f:" + key
                members[element] = {} if child.__class__ in leaves \
                    else added(child, plan_of(properties.get(key, extra)))
            out: dict[str, Any] = {".": {}}
            for element in sorted(members):
                out[element] = members[element]
            return out
        if isinstance(value, list):
            list_type = plan[6]
            if (list_type != "map" and list_type != "set") or not value:
                return {}
            keys, names, element = plan[8], plan[9], self.element
            items = {element(item, index, list_type, keys, names): item for index, item in enumerate(value)}
            out = {".": {}}
            if list_type == "set":
                for key in sorted(items, key=_element_order):
                    out[key] = {}
                return out
            item_plan = self.plan_of(plan[7])
            members = {key: self.added(item, item_plan) for key, item in items.items()}
            for key in sorted(members, key=_element_order):
                out[key] = members[key]
            return out
        return {}

    def leaf(self, lhs: Any, rhs: Any) -> dict[str, Any] | None:
        if lhs is _MISSING:
            return {}
        if rhs is _MISSING:
            return None
        if lhs != rhs or type(lhs) is not type(rhs):
            return {}
        return None

    def changed(self, lhs: Any, rhs: Any, node: Any, root: bool = False) -> dict[str, Any] | None:
        """``_Walker.compare``, the paths added or changed rendered (the root's plan is not kept: its node is made
        for each lookup)."""
        if lhs is rhs or (lhs.__class__ is rhs.__class__ and lhs == rhs):
            return None
        plan = self.plan(node) if root else self.plan_of(node)
        if lhs is _MISSING:
            return self.added(rhs, plan)
        if rhs is _MISSING:
            return None
        if isinstance(rhs, dict) or (rhs is None and plan[4]):
            return self._mapping(lhs, rhs, plan)
        if isinstance(rhs, list) or (rhs is None and plan[5]):
            return self._list(lhs, rhs, plan)
        return self.leaf(lhs, rhs)

    def _mapping(self, lhs: Any, rhs: Any, plan: _Plan) -> dict[str, Any] | None:
        lmap = lhs if isinstance(lhs, dict) else None
        rmap = rhs if isinstance(rhs, dict) else None
        if plan[1] or (not lmap and not rmap) or (lmap is None and lhs is not None) \
                or (rmap is None and rhs is not None):
            return self.leaf(lhs, rhs)
        properties, extra = plan[2], plan[3]
        lmap, rmap = lmap or {}, rmap or {}
        members = {}
        for key, child in rmap.items():
            element = "f:" + key
            made = self.changed(lmap.get(key, _MISSING), child, properties.get(key, extra))
            if made is not None:
                members[element] = made
        return {element: members[element] for element in sorted(members)} if members else None

    def _list(self, lhs: Any, rhs: Any, plan: _Plan) -> dict[str, Any] | None:
        list_type = plan[6]
        llist = lhs if isinstance(lhs, list) else None
        rlist = rhs if isinstance(rhs, list) else None
        if (list_type != "map" and list_type != "set") or (not llist and not rlist):
            return self.leaf(lhs, rhs)
        keys, names, element = plan[8], plan[9], self.element
        left = {element(item, index, list_type, keys, names): item for index, item in enumerate(llist or [])}
        right = {element(item, index, list_type, keys, names): item for index, item in enumerate(rlist or [])}
        items = plan[7]
        members = {}
        for key, item in right.items():
            before = left.get(key, _MISSING)
            made = self.leaf(before, item) if list_type == "set" else self.changed(before, item, items)
            if made is not None:
                members[key] = made
        return {key: members[key] for key in sorted(members, key=_element_order)} if members else None


def zero_object(schema: KindSchema | None, schemas: SchemaSet) -> dict[str, Any]:
    """The kind's empty object as the field manager compares a create with it: the Go value structs (spec,
    status, a pod template and its metadata and spec, ...) present and empty, the lists a Go type never omits
    present as null. A custom resource's empty object has nothing. Never to be changed: it is shared."""
    if schema is None or schema.custom:
        return {}
    zero = _BUILTIN_ZEROS.get(schema.key)
    if zero is None:
        zero = _zero(schemas.resolve(schema.root), schemas, "", top=True)
        if len(_BUILTIN_ZEROS) >= 512:
            _BUILTIN_ZEROS.clear()
        _BUILTIN_ZEROS[schema.key] = zero
    return zero


# A built-in kind's zero object by its schema's key (Kubernetes version and definition): derived from the built-in
# schemas alone, like them it does not depend on a scenario and stays loaded.
_BUILTIN_ZEROS: dict[str, dict[str, Any]] = {}


def _zero(schema: Mapping[str, Any], schemas: SchemaSet, definition: str, top: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {}
    properties = schema.get("properties") if isinstance(schema.get("properties"), Mapping) else {}
    for name, raw in properties.items():
        ref = raw.get("$ref") if (raw.__class__ is dict or isinstance(raw, Mapping)) else None
        if (definition, name) in _POINTER_FIELDS:
            continue
        if top and name in ("metadata", "spec", "status"):
            out[name] = _zero(schemas.resolve(raw), schemas, str(ref or "")) if name != "metadata" else {}
        elif ref == _OBJECT_META:
            out[name] = {"creationTimestamp": None}  # a zero time is serialized as null
        elif ref in _VALUE_STRUCTS:
            out[name] = _zero(schemas.resolve(raw), schemas, str(ref))
        elif (definition, name) in _NULL_LISTS:
            out[name] = None
    return out


def with_zero(obj: Any, zero: Mapping[str, Any]) -> Any:
    """``obj`` with the zero object's containers where it has none (what its typed form would show)."""
    if not isinstance(obj, dict) or not zero:
        return obj
    out = dict(obj)
    for key, value in zero.items():
        if key not in out:
            out[key] = {} if isinstance(value, dict) else value
            if isinstance(value, dict) and value:
                out[key] = with_zero({}, value)
        elif isinstance(value, dict) and isinstance(out[key], dict):
            out[key] = with_zero(out[key], value)
    return out


# ---------------------------------------------------------------------------------------------------
# FieldsV1


def _element_order(element: str) -> tuple[int, str]:
    return (_ELEMENT_KINDS.get(element[:1], 4), element)


_ELEMENT_KINDS = {"f": 0, "k": 1, "v": 2, "i": 3}  # fields, then keyed items, values, indices


def to_fields_v1(paths: Iterable[Path]) -> dict[str, Any]:
    """A set of paths as a FieldsV1 tree: a member with children carries ``".": {}``; a leaf member is ``{}``."""
    tree: dict[str, Any] = {}
    for path in paths:
        node = tree
        for element in path:
            node = node.setdefault(element, {})
        node["."] = {}
    return _render(tree)


def _render(node: dict[str, Any]) -> dict[str, Any]:
    children = sorted((k for k in node if k != "."), key=_element_order)
    out: dict[str, Any] = {}
    if "." in node and children:
        out["."] = {}
    for key in children:
        out[key] = _render(node[key])
    return out


def from_fields_v1(tree: Any, prefix: Path = ()) -> set[Path]:
    """The paths of a FieldsV1 tree (unreadable parts are skipped)."""
    out: set[Path] = set()
    if not (tree.__class__ is dict or isinstance(tree, Mapping)):
        return out
    for key, child in tree.items():
        if key == ".":
            if prefix:
                out.add(prefix)
            continue
        path = (*prefix, str(key))
        if (child.__class__ is dict or isinstance(child, Mapping)) and not child:
            out.add(path)
        else:
            out |= from_fields_v1(child, path)
    return out


def without(paths: set[Path], prefixes: Iterable[Path]) -> set[Path]:
    """``paths`` without those at or under any of ``prefixes`` (a recursive difference)."""
    cut = tuple(prefixes)
    return {p for p in paths if not any(p[:len(c)] == c for c in cut)}


# ---------------------------------------------------------------------------------------------------
# the managers


def _entry_key(entry: Mapping[str, Any]) -> tuple[str, str, str, str]:
    return (str(entry.get("manager") or ""), str(entry.get("operation") or ""), str(entry.get("apiVersion") or ""),
            str(entry.get("subresource") or ""))


def decode(entries: Any) -> dict[tuple[str, str, str, str], tuple[set[Path], Any]]:
    """managedFields entries by manager identity: their fields and their time."""
    out: dict[tuple[str, str, str, str], tuple[set[Path], Any]] = {}
    for entry in entries if isinstance(entries, list) else []:
        if not (entry.__class__ is dict or isinstance(entry, Mapping)):
            continue
        out[_entry_key(entry)] = (from_fields_v1(entry.get("fieldsV1")), entry.get("time"))
    return out


def encode(managers: Mapping[tuple[str, str, str, str], tuple[set[Path], Any]]) -> list[dict[str, Any]]:
    """managedFields entries, in the order the apiserver sorts them."""
    entries = [entry(identity, to_fields_v1(paths), time) for identity, (paths, time) in managers.items()]
    entries.sort(key=lambda e: (e["operation"], str(e.get("time") or ""), e["manager"], e["apiVersion"],
                                e.get("subresource", "")))
    return entries


def entry(identity: tuple[str, str, str, str], fields: dict[str, Any], time: Any) -> dict[str, Any]:
    """The managedFields entry of a manager identity (manager, operation, apiVersion, subresource), its fields a
    FieldsV1 tree."""
    manager, operation, api_version, subresource = identity
    out: dict[str, Any] = {"manager": manager, "operation": operation, "apiVersion": api_version}
    if time is not None:
        out["time"] = time
    out["fieldsType"] = "FieldsV1"
    out["fieldsV1"] = fields
    if subresource:
        out["subresource"] = subresource
    return out


def update(managers: dict[tuple[str, str, str, str], tuple[set[Path], Any]], manager: tuple[str, str, str, str],
           added: set[Path], modified: set[Path], removed: set[Path], reset: Iterable[Path],
           now: str) -> dict[tuple[str, str, str, str], tuple[set[Path], Any]]:
    """The managers after an update by ``manager`` that added, changed and removed those fields; ``reset`` are
    the prefixes the strategy owns (never recorded)."""
    reset = tuple(reset)
    changed = without(added | modified, reset)  # what the strategy resets is nobody's to take or lose
    gone = without(removed, reset)
    out: dict[tuple[str, str, str, str], tuple[set[Path], Any]] = {}
    for key, (paths, time) in managers.items():
        kept = paths - changed - gone
        if kept:
            out[key] = (kept, time)
    own = changed - STRIPPED
    if own:
        previous = out.get(manager, (set(), None))[0]
        out[manager] = (own | previous, now)
    return out
