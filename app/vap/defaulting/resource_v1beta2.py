"""Scheme defaults of resource.k8s.io/v1beta2 (served from 1.33): as in v1, whose request layout it shares.

See ``resource_v1``: exact device requests and sub-requests get ``ExactCount`` and a count of 1, device
tolerations the ``Equal`` operator, and the taints of a ResourceSlice's devices the time they were added.
"""

from __future__ import annotations

from . import defaults
from .resource_v1 import device_request, device_taint, device_toleration

_RESOURCE = "io.k8s.api.resource.v1beta2."

defaults(_RESOURCE + "ExactDeviceRequest", "SetDefaults_ExactDeviceRequest")(device_request)
defaults(_RESOURCE + "DeviceSubRequest", "SetDefaults_DeviceSubRequest")(device_request)
defaults(_RESOURCE + "DeviceToleration", "+default marker: DeviceToleration.operator")(device_toleration)
defaults(_RESOURCE + "DeviceTaint", "SetDefaults_DeviceTaint")(device_taint)
