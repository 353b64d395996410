"""Scheme defaults of resource.k8s.io/v1 (served from 1.34): ResourceClaim, ResourceClaimTemplate, ResourceSlice.

Restates ``pkg/apis/resource/v1/defaults.go`` and the declarative default of the API types: a
request asking for exact devices gets ``allocationMode: ExactCount`` and then a count of 1; a
device toleration without an operator gets ``Equal`` (a ``+default`` marker); a device taint in a
ResourceSlice without ``timeAdded`` gets the current time, to the second.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from . import Context, defaults
from ._values import empty

_RESOURCE = "io.k8s.api.resource.v1."


def device_request(request: dict[str, Any], context: Context) -> None:
    """SetDefaults_ExactDeviceRequest / SetDefaults_DeviceSubRequest."""
    if empty(request, "allocationMode"):
        request["allocationMode"] = "ExactCount"
    count = request.get("count")
    if request["allocationMode"] == "ExactCount" and (count is None or (type(count) is int and count == 0)):
        request["count"] = 1


defaults(_RESOURCE + "ExactDeviceRequest", "SetDefaults_ExactDeviceRequest")(device_request)
defaults(_RESOURCE + "DeviceSubRequest", "SetDefaults_DeviceSubRequest")(device_request)


@defaults(_RESOURCE + "DeviceToleration", "+default marker: DeviceToleration.operator")
def device_toleration(toleration: dict[str, Any], context: Context) -> None:
    if empty(toleration, "operator"):
        toleration["operator"] = "Equal"


@defaults(_RESOURCE + "DeviceTaint", "SetDefaults_DeviceTaint")
def device_taint(taint: dict[str, Any], context: Context) -> None:
    # upstream calls it for the taints of a ResourceSlice's devices only
    if context.root.get("kind") != "ResourceSlice" or taint.get("timeAdded") is not None:
        return
    taint["timeAdded"] = datetime.now(UTC).replace(microsecond=0).strftime("%Y-%m-%dT%H:%M:%SZ")
