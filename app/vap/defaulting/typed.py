"""What decoding into the Go types adds to an object before any default: fields the types always have.

The apiserver decodes a request into the kind's Go struct and hands admission that struct (converted back to
JSON-like values). A field that is a struct value, not a pointer, exists even when the request leaves it out,
and serialises as that struct's zero value; a field whose JSON tag has no ``omitempty`` serialises even when
empty (as ``null`` for a slice, a map or a time). The types are those of k8s.io/api; this module lists the
cases policies commonly meet, not every type:

* ``metav1.ObjectMeta.creationTimestamp`` (a ``metav1.Time`` value, ``null`` when zero): a template's
  metadata shows ``creationTimestamp: null``; an object's own is set later by the registry;
* the ``metadata`` of ``PodTemplateSpec``, ``JobTemplateSpec`` and ``PersistentVolumeClaimTemplate`` (an
  ``ObjectMeta`` value): present in every template, as ``{creationTimestamp: null}`` when none was given;
* ``Container.resources`` and ``EphemeralContainer.resources`` (a ``ResourceRequirements`` value): ``{}``;
* ``Role.rules`` and ``ClusterRole.rules`` (``json:"rules"``, no omitempty): ``null`` when left out;
* every ``resource.Quantity`` as it serialises: in its canonical form (:func:`canonical_quantities`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..changes import REPLACE, Change
from ..schemas import SchemaSet
from . import Context, Registered
from .core_v1 import _quantity as quantity_form
from .core_v1 import canonical_quantity

REGISTRY: dict[str, list[Registered]] = {}
STAGE = "decoding"


def _register(definition: str, name: str):  # noqa: ANN202 - a decorator
    def register(function: Any) -> Any:
        REGISTRY.setdefault(definition, []).append(Registered(name, function))
        return function

    return register


def _template_metadata(value: dict[str, Any], context: Context) -> None:
    if not isinstance(value.get("metadata"), dict):
        value["metadata"] = {}


for _template in ("io.k8s.api.core.v1.PodTemplateSpec", "io.k8s.api.batch.v1.JobTemplateSpec",
                  "io.k8s.api.core.v1.PersistentVolumeClaimTemplate"):
    _register(_template, "ObjectMeta is a struct value")(_template_metadata)


@_register("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", "metav1.Time serialises as null when zero")
def _creation_timestamp(value: dict[str, Any], context: Context) -> None:
    value.setdefault("creationTimestamp", None)


def _resources(value: dict[str, Any], context: Context) -> None:
    if value.get("resources") is None:
        value["resources"] = {}


for _container in ("io.k8s.api.core.v1.Container", "io.k8s.api.core.v1.EphemeralContainer"):
    _register(_container, "ResourceRequirements is a struct value")(_resources)


def _rules(value: dict[str, Any], context: Context) -> None:
    value.setdefault("rules", None)


for _role in ("io.k8s.api.rbac.v1.Role", "io.k8s.api.rbac.v1.ClusterRole"):
    _register(_role, "rules has no omitempty")(_rules)


QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"
QUANTITY_STAGE = f"{STAGE}: resource.Quantity is written in its canonical form"


def canonical_quantities(obj: dict[str, Any], root: Mapping[str, Any],
                         schemas: SchemaSet) -> tuple[dict[str, Any], list[Change]]:
    """The object with every quantity of its kind's schema written as ``resource.Quantity`` serialises it
    (``0.5`` as ``500m``, ``1024Mi`` as ``1Gi``, a JSON number as a string), and each one rewritten; ``obj`` is
    left as it is (only the containers on the way to a rewritten quantity are copied)."""
    made: list[Change] = []
    out = _canonical(obj, root, schemas, (), made)
    return out, made


def _canonical(value: Any, node: Mapping[str, Any], schemas: SchemaSet, path: tuple[Any, ...],
               made: list[Change]) -> Any:
    definition = None
    seen = 0
    while isinstance(node, Mapping) and "$ref" in node and seen < 16:
        definition = str(node["$ref"])
        node = schemas.definition(definition) or {}
        seen += 1
    if definition == QUANTITY:
        parsed = quantity_form(value)
        if parsed is None:
            return value
        text = canonical_quantity(*parsed)
        if text == value:
            return value
        made.append(Change(QUANTITY_STAGE, path, REPLACE, value, text))
        return text
    if isinstance(value, dict):
        properties = node.get("properties") if isinstance(node.get("properties"), Mapping) else None
        extra = node.get("additionalProperties") if isinstance(node.get("additionalProperties"), Mapping) else None
        if properties is None and extra is None:
            return value
        out = value
        for key, child in value.items():
            child_node = properties.get(key) if properties is not None else extra
            if not isinstance(child_node, Mapping) or child is None:
                continue
            new = _canonical(child, child_node, schemas, (*path, key), made)
            if new is not child:
                if out is value:
                    out = dict(value)
                out[key] = new
        return out
    if isinstance(value, list) and isinstance(node.get("items"), Mapping):
        out_list = value
        for index, item in enumerate(value):
            new = _canonical(item, node["items"], schemas, (*path, index), made)
            if new is not item:
                if out_list is value:
                    out_list = list(value)
                out_list[index] = new
        return out_list
    return value
