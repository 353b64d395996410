"""DefaultStorageClass: a PersistentVolumeClaim that names no StorageClass gets the default one.

On the creation of a PersistentVolumeClaim (not a subresource) whose spec.storageClassName is not set
(an empty string is set) and that has no ``volume.beta.kubernetes.io/storage-class`` annotation, the
plugin (plugin/pkg/admission/storage/storageclass/setdefault) sets storageClassName to the default
StorageClass: the one annotated ``storageclass.kubernetes.io/is-default-class: "true"`` (or the beta
annotation), the most recently created of several. No default class: the claim is left as it is.

The StorageClasses are those pasted in the panes; with none pasted the cluster is taken to have no
default class.
"""

from __future__ import annotations

from ..state import RequestState, StageRecord, Stored
from . import _common as c
from ._default_class import default_class

PLUGIN = "DefaultStorageClass"
BETA_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"
DEFAULT_ANNOTATIONS = (
    "storageclass.kubernetes.io/is-default-class",
    "storageclass.beta.kubernetes.io/is-default-class",
)


def admit(state: RequestState, stored: Stored) -> StageRecord:
    """What the plugin does with the request."""
    attrs = state.attrs
    if not c.acts_on(attrs, "", "persistentvolumeclaims"):
        return c.nothing(PLUGIN)
    claim = attrs.object
    if c.spec(claim).get("storageClassName") is not None or BETA_CLASS_ANNOTATION in c.annotations(claim):
        return c.nothing(PLUGIN, "the claim names its StorageClass")
    default = default_class(c.pasted(stored, ("storage.k8s.io/v1", "storage.k8s.io/v1beta1"), "StorageClass"),
                            DEFAULT_ANNOTATIONS)
    if default is None:
        return c.nothing(PLUGIN, "no StorageClass pasted is the default one: the claim keeps no storageClassName")
    out, spec = c.with_spec(claim)
    spec["storageClassName"] = c.name_of(default)
    return c.changed(PLUGIN, state, out, f"the claim names no StorageClass: it gets the default {c.name_of(default)!r}")


not_reached = c.not_reached_for(PLUGIN)
