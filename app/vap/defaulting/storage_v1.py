"""Scheme defaults of storage.k8s.io/v1: StorageClass and CSIDriver.

Restates ``pkg/apis/storage/v1/defaults.go``. A VolumeAttachment's inline volume spec is a core/v1
PersistentVolumeSpec and gets core/v1's defaults from that module.

Release differences: ``seLinuxMount: false`` is filled when the ``SELinuxMountReadWriteOncePod``
gate is on, which it is by default since 1.28 (beta; off in 1.27), so in every version offered. The fields added
later (``nodeAllocatableUpdatePeriodSeconds`` in 1.33, ``serviceAccountTokenInSecrets`` in 1.35,
``preventPodSchedulingIfMissing`` in 1.36) are not defaulted here: no upstream defaulting of them
was found in the sources read.
"""

from __future__ import annotations

from typing import Any

from . import Context, defaults
from ._values import empty, struct, unset

_STORAGE = "io.k8s.api.storage.v1."


@defaults(_STORAGE + "StorageClass", "SetDefaults_StorageClass")
def storage_class(obj: dict[str, Any], context: Context) -> None:
    if unset(obj, "reclaimPolicy"):
        obj["reclaimPolicy"] = "Delete"
    if unset(obj, "volumeBindingMode"):
        obj["volumeBindingMode"] = "Immediate"


@defaults(_STORAGE + "CSIDriver", "SetDefaults_CSIDriver")
def csi_driver(obj: dict[str, Any], context: Context) -> None:
    spec = struct(obj, "spec")
    if spec is None:
        return
    if unset(spec, "attachRequired"):
        spec["attachRequired"] = True
    if unset(spec, "podInfoOnMount"):
        spec["podInfoOnMount"] = False
    if unset(spec, "storageCapacity"):
        spec["storageCapacity"] = False
    if unset(spec, "fsGroupPolicy"):
        spec["fsGroupPolicy"] = "ReadWriteOnceWithFSType"
    if empty(spec, "volumeLifecycleModes"):
        spec["volumeLifecycleModes"] = ["Persistent"]
    if unset(spec, "requiresRepublish"):
        spec["requiresRepublish"] = False
    if unset(spec, "seLinuxMount"):
        spec["seLinuxMount"] = False
