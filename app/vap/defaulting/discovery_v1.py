"""Scheme defaults of discovery.k8s.io/v1: the ports of an EndpointSlice.

Restates ``pkg/apis/discovery/v1/defaults.go``: a port without a name gets the empty name (which the
apiserver writes out as ``name: ""``, the field being a pointer) and a port without a protocol gets
TCP. The same in every version offered.
"""

from __future__ import annotations

from typing import Any

from . import Context, defaults
from ._values import unset


@defaults("io.k8s.api.discovery.v1.EndpointPort", "SetDefaults_EndpointPort")
def endpoint_port(port: dict[str, Any], context: Context) -> None:
    if unset(port, "name"):
        port["name"] = ""
    if unset(port, "protocol"):
        port["protocol"] = "TCP"
