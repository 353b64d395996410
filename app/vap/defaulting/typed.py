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
* ``Role.rules`` and ``ClusterRole.rules`` (``json:"rules"``, no omitempty): ``null`` when left out.
"""

from __future__ import annotations

from typing import Any

from . import Context, Registered

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
