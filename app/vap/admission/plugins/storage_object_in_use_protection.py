"""StorageObjectInUseProtection: PersistentVolumes and PersistentVolumeClaims are created with the finalizer
that keeps them while in use.

On the creation of a PersistentVolume (not a subresource) the plugin
(plugin/pkg/admission/storage/storageobjectinuseprotection) adds the finalizer
``kubernetes.io/pv-protection`` unless it is there; on the creation of a PersistentVolumeClaim,
``kubernetes.io/pvc-protection``.
"""

from __future__ import annotations

from ..state import RequestState, StageRecord, Stored
from . import _common as c

PLUGIN = "StorageObjectInUseProtection"
FINALIZERS = {"persistentvolumes": "kubernetes.io/pv-protection",
              "persistentvolumeclaims": "kubernetes.io/pvc-protection"}


def admit(state: RequestState, stored: Stored) -> StageRecord:
    """What the plugin does with the request."""
    attrs = state.attrs
    finalizer = FINALIZERS.get(attrs.resource.resource)
    if finalizer is None or not c.acts_on(attrs, "", attrs.resource.resource):
        return c.nothing(PLUGIN)
    finalizers = c.meta(attrs.object).get("finalizers")
    finalizers = finalizers if isinstance(finalizers, list) else []
    if finalizer in finalizers:
        return c.nothing(PLUGIN, f"the object has the finalizer {finalizer}")
    out, meta = c.with_metadata(attrs.object)
    meta["finalizers"] = [*finalizers, finalizer]
    return c.changed(PLUGIN, state, out, f"adds the finalizer {finalizer}")


not_reached = c.not_reached_for(PLUGIN)
