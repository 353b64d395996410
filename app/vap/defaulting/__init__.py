"""Scheme defaulting: the defaults kube-apiserver gives an object once it is decoded.

Restates the defaulting functions of k8s.io/kubernetes (``pkg/apis/<group>/<version>/defaults.go``)
and the generated ``zz_generated.defaults.go`` that calls them: for a kind, ``SetObjectDefaults_<Kind>``
calls ``SetDefaults_<Type>`` of the object and of every nested struct that has one, parents before the
fields inside them, and applies the declarative ``+default=`` markers of the types.

Here each defaulting function is registered for the OpenAPI definition of its Go type
(``io.k8s.api.core.v1.Container``) with :func:`defaults`; :func:`apply` walks an object along its
kind's schema and calls, at each value, the functions registered for the value's definition, then
walks the fields inside it. Every change a function makes is recorded with its name, so the response
can say where each field of the stored object came from. The group modules are imported at the end of
this file (one module per group and version, named after it: ``core_v1``, ``apps_v1``, ...).

A function receives the value (a dict, changed in place) and a :class:`Context` (the Kubernetes
version, the whole object, the field path): a default that depends on the version says so with
``since``/``until`` when registered, or reads ``context.version``.
"""

from __future__ import annotations

import marshal
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from itertools import islice
from typing import Any

from .. import fast
from ..changes import ADD, REPLACE, Change, Path, changes, copy_differences, tree_copy
from ..schemas import KindSchema, SchemaSet, leads_to

Version = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Context:
    """What a defaulting function may read besides the value it defaults."""

    version: Version  # the Kubernetes version emulated, e.g. (1, 36)
    root: Mapping[str, Any]  # the whole object being defaulted (as defaulted so far)
    path: Path  # where the value is in it


Defaulter = Callable[[dict[str, Any], Context], None]


@dataclass(frozen=True, slots=True)
class Registered:
    name: str  # as upstream names it: "SetDefaults_Container", or "+default marker: ContainerPort.protocol"
    function: Defaulter
    since: Version | None = None  # the first version that has it
    until: Version | None = None  # the last version that has it
    # (field, zero value): an entry that only gives an absent or null field the zero value its Go type
    # serialises (typed decoding); :func:`apply` fills it and records the change without comparing copies
    zero: tuple[str, Any] | None = None

    def applies(self, version: Version) -> bool:
        return (self.since is None or version >= self.since) and (self.until is None or version <= self.until)


_REGISTRY: dict[str, list[Registered]] = {}


def defaults(definition: str, name: str, *, since: Version | None = None,
             until: Version | None = None) -> Callable[[Defaulter], Defaulter]:
    """Register a defaulting function for the values of an OpenAPI definition, in calling order."""

    def register(function: Defaulter) -> Defaulter:
        _REGISTRY.setdefault(definition, []).append(Registered(name, function, since, until))
        return function

    return register


def registered(definition: str) -> list[Registered]:
    """The functions registered for a definition, in calling order."""
    return list(_REGISTRY.get(definition, ()))


def apply(obj: Mapping[str, Any], kind: KindSchema, schemas: SchemaSet, version: Version, *,
          registry: Mapping[str, list[Registered]] | None = None,
          stage: str = "defaulting", owned: bool = False) -> tuple[dict[str, Any], list[Change]]:
    """The object with its scheme defaults (a copy; ``obj`` is left as it is), and each change made, recorded as
    ``<stage>: <function name>``. ``registry`` (definition -> functions) walks other functions the same way (the
    typed decoding of :mod:`app.vap.decoding` does). ``owned``: ``obj`` is the caller's own copy, shared with
    nothing (every mapping and list in it made for this call): it is defaulted in place and returned."""
    out = obj if owned and isinstance(obj, dict) else tree_copy(dict(obj))
    made: list[Change] = []
    registry = _REGISTRY if registry is None else registry
    _Walk(plans(schemas, registry, version, prune=fast.on), version, out, made, stage).walk(out, kind.root, ())
    return out, made


# What the walk reads of a schema node, worked out once per node (see plans): the definition it names, the
# functions registered for it that apply, its properties that lead to a function (None: no properties), its
# additionalProperties and items when they lead to one.
_Plan = tuple[str | None, tuple["Registered", ...], dict[str, Any] | None, Any, Any]


def plans(schemas: SchemaSet, registry: Mapping[str, list[Registered]], version: Version, *,
          prune: bool = True) -> Callable[[Any], _Plan]:
    """The plans of schema nodes for a registry and version: what the walk reads of each node, its ``$ref`` followed.
    ``prune`` (while the fast paths are on): the children that lead to no function are left out (:func:`_leads`),
    and the plans are kept by node (with it, so that its id is not reused), for the schemas' Kubernetes version,
    registry and version, as the table of :func:`_leads` is; otherwise every child is walked, and the plans are made
    for this walk alone."""
    leads = _leads(schemas, registry, version) if prune else _everything
    table = _PLANS.setdefault((schemas.version, id(registry), version), {}) if prune else {}
    definition_of = schemas.definition

    def plan_of(node: Any) -> _Plan:
        found = table.get(id(node))
        if found is not None and found[0] is node:
            return found[1]
        original = node
        definition = None
        seen = 0
        while (node.__class__ is dict or isinstance(node, Mapping)) and "$ref" in node and seen < 16:
            definition = str(node["$ref"])
            node = definition_of(definition) or {}
            seen += 1
        entries = tuple(e for e in registry.get(definition, ()) if e.applies(version)) if definition else ()
        properties = node.get("properties")
        walkable = extra = items = None
        if properties.__class__ is dict or isinstance(properties, Mapping):
            walkable = {key: child for key, child in properties.items()
                        if (child.__class__ is dict or child is not None and isinstance(child, Mapping))
                        and leads(child)}
        elif isinstance(node.get("additionalProperties"), Mapping) and leads(node["additionalProperties"]):
            extra = node["additionalProperties"]
        found_items = node.get("items")
        if (found_items.__class__ is dict or isinstance(found_items, Mapping)) and leads(found_items):
            items = found_items
        made = (definition, entries, walkable, extra, items)
        if len(table) >= _PLANS_SIZE:
            table.clear()
        table[id(original)] = (original, made)
        return made

    return plan_of


def _everything(node: Any) -> bool:
    return True


_PLANS: dict[tuple[str, int, Version], dict[int, tuple[Any, _Plan]]] = {}
_PLANS_SIZE = 20_000


class _Walk:
    """A walk of an object along its kind's schema, on the schema nodes' plans: at each value, the functions
    registered for its definition (parents before the fields inside them), then the values inside it."""

    __slots__ = ("plan_of", "version", "root", "made", "stage")

    def __init__(self, plan_of: Callable[[Any], _Plan], version: Version, root: dict[str, Any], made: list[Change],
                 stage: str) -> None:
        self.plan_of, self.version, self.root, self.made, self.stage = plan_of, version, root, made, stage

    def walk(self, value: Any, node: Any, path: Path) -> None:
        _, entries, walkable, extra, items = self.plan_of(node)
        if isinstance(value, dict):
            for entry in entries:
                if entry.zero is not None:
                    _fill_zero(value, entry, path, self.made, self.stage)
                else:
                    _run_recorded(entry, value, Context(self.version, self.root, path), path, self.made, self.stage)
            if walkable is not None:
                if walkable:
                    for key, child in list(value.items()):
                        child_node = walkable.get(key)
                        if child_node is not None and isinstance(child, dict | list):
                            self.walk(child, child_node, (*path, key))
            elif extra is not None:
                for key, child in list(value.items()):
                    if isinstance(child, dict | list):
                        self.walk(child, extra, (*path, key))
        elif items is not None and isinstance(value, list):
            for index, item in enumerate(value):
                if isinstance(item, dict | list):
                    self.walk(item, items, (*path, index))


def _leads(schemas: SchemaSet, registry: Mapping[str, list[Registered]], version: Version) -> Callable[[Any], bool]:
    """A test of whether a value at a schema node may hold a value a function of ``registry`` is called on (for the
    version): the walk passes over what leads to none, where nothing would be called."""
    key = (id(registry), version)
    found = _WITH_FUNCTIONS.get(key)
    if found is None or found[0] is not registry:
        found = _WITH_FUNCTIONS[key] = (registry, frozenset(
            name for name, entries in registry.items() if any(entry.applies(version) for entry in entries)))
    return leads_to(schemas, found[1])


# the definitions with a function for the version, by registry (kept with it) and version
_WITH_FUNCTIONS: dict[tuple[int, Version], tuple[Any, frozenset[str]]] = {}


def _run_recorded(entry: Registered, value: dict[str, Any], context: Context, path: Path, made: list[Change],
                  stage: str) -> None:
    """Call a defaulting function on a value and record what it changed. The value before is kept as marshal's
    bytes (exact: a value of another type, or keys in another order, reads differently), so that a function that
    changes nothing, as most do, costs no copy and no comparison in Python; the changes are worked out from them
    when it changed something.

    While the fast paths are on, the bytes are marshal's version 2, which writes no references: version 4 looks up
    every value held elsewhere too (most strings, shared with the pasted object), which costs more here than it saves,
    and its bytes depend on how many hold each value, not on the values alone. Most functions that change something
    only add fields, after the others: then the bytes after the call begin with those before, but for their last one
    (the end of the mapping), and as marshal reads one value after another from the same bytes, the fields before are
    the same values, the fields after them added (unless a NaN may be written: the walk finds one unequal to its
    copy). Otherwise the changes are worked out by :func:`copy_differences`, which passes over in C what the copy and
    the value hold alike."""
    quick = fast.on
    version = 2 if quick else marshal.version
    count = len(value)
    try:
        written: bytes | None = marshal.dumps(value, version)
        copied = None
    except ValueError:  # a value marshal does not write (not plain JSON, or nested beyond its depth): a copy
        written, copied = None, tree_copy(value)
    entry.function(value, context)
    if written is not None:
        try:
            now: bytes | None = marshal.dumps(value, version)
        except ValueError:
            now = None
        if now == written:
            return
        if quick:
            name = f"{stage}: {entry.name}"
            if now is not None and now.startswith(written[:-1]) and _finite(written):
                # only fields added after the others: no copy, no walk
                made.extend([Change(name, (*path, key), ADD, None, value[key]) for key in islice(value, count, None)])
                return
            copied = marshal.loads(written)
            made.extend([Change(name, p, op, b, a) for op, p, b, a in copy_differences(copied, value, path)])
            return
        copied = marshal.loads(written)
    made.extend(changes(f"{stage}: {entry.name}", copied, value, path))


def _finite(written: bytes) -> bool:
    """False when marshal's bytes (version 2) may hold a float that is not finite. A float is written ``g`` and its
    8 bytes little-endian, a complex ``y`` and two such; one that is not finite ends with 0x7f or 0xff, the byte
    before it at least 0xf0 (the exponent all ones). Those bytes are rare elsewhere: each is found by ``find``."""
    for mark in (0x7F, 0xFF):
        at = written.find(mark, 8)
        while at != -1:
            if written[at - 1] >= 0xF0 and (written[at - 8] in (0x67, 0x79) or at >= 16 and written[at - 16] == 0x79):
                return False
            at = written.find(mark, at + 1)
    return True


def _fill_zero(value: dict[str, Any], entry: Registered, path: Path, made: list[Change], stage: str) -> None:
    assert entry.zero is not None
    field, zero = entry.zero
    found = value.get(field, _ABSENT)
    if found is not None and found is not _ABSENT:
        return
    if found is None and zero is None:
        return
    value[field] = tree_copy(zero)
    made.append(Change(f"{stage}: {entry.name}", (*path, field), ADD if found is _ABSENT else REPLACE, None,
                       tree_copy(zero)))


_ABSENT = object()

from . import admissionregistration_v1, admissionregistration_v1alpha1, admissionregistration_v1beta1, apps_v1, autoscaling_v1, autoscaling_v2, batch_v1, certificates_v1, certificates_v1alpha1, certificates_v1beta1, discovery_v1, flowcontrol_v1, flowcontrol_v1beta3, networking_v1, node_v1, policy_v1, rbac_v1, resource_v1, resource_v1beta1, resource_v1beta2, scheduling_v1, storage_v1  # noqa: E402,F401,E501,I001
from . import core_v1  # noqa: E402,F401
