"""Scheme defaults of resource.k8s.io/v1beta1 (served from 1.32): ResourceClaim, ResourceClaimTemplate, ResourceSlice.

Restates ``pkg/apis/resource/v1beta1/defaults.go``. In this version a request names its device class
and allocation directly (no ``exactly``): a request with a device class gets ``ExactCount`` and a
count of 1; a request without one is made of sub-requests (``firstAvailable``, 1.33+), which get
the same defaults. From 1.33, tolerations get the ``Equal`` operator and the taints of a
ResourceSlice's devices the time they were added, as in v1.
"""

from __future__ import annotations

from typing import Any

from . import Context, defaults
from ._values import empty
from .resource_v1 import device_request, device_taint, device_toleration

_RESOURCE = "io.k8s.api.resource.v1beta1."


@defaults(_RESOURCE + "DeviceRequest", "SetDefaults_DeviceRequest")
def request(value: dict[str, Any], context: Context) -> None:
    if empty(value, "deviceClassName"):
        return  # the request is made of sub-requests
    device_request(value, context)


defaults(_RESOURCE + "DeviceSubRequest", "SetDefaults_DeviceSubRequest")(device_request)
defaults(_RESOURCE + "DeviceToleration", "+default marker: DeviceToleration.operator")(device_toleration)
defaults(_RESOURCE + "DeviceTaint", "SetDefaults_DeviceTaint")(device_taint)
