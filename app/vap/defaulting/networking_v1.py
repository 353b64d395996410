"""Scheme defaults of networking.k8s.io/v1: NetworkPolicy and IngressClass.

Restates ``pkg/apis/networking/v1/defaults.go``. Ingress, IPAddress and ServiceCIDR have no
defaults of their own in this version (a ``pathType`` default existed only in the old
extensions/v1beta1 Ingress). The same in every version offered.
"""

from __future__ import annotations

from typing import Any

from . import Context, defaults
from ._values import mapping, struct, unset

_NETWORKING = "io.k8s.api.networking.v1."


@defaults(_NETWORKING + "NetworkPolicy", "SetDefaults_NetworkPolicy")
def network_policy(obj: dict[str, Any], context: Context) -> None:
    spec = struct(obj, "spec")
    if spec is None:
        return
    types = spec.get("policyTypes")
    if types is None or (isinstance(types, list) and not types):
        # a policy that names no types is at least an ingress policy, and an egress one if it has egress rules
        egress = spec.get("egress")
        spec["policyTypes"] = ["Ingress", "Egress"] if isinstance(egress, list) and egress else ["Ingress"]


@defaults(_NETWORKING + "NetworkPolicyPort", "SetDefaults_NetworkPolicyPort")
def network_policy_port(port: dict[str, Any], context: Context) -> None:
    if unset(port, "protocol"):
        port["protocol"] = "TCP"


@defaults(_NETWORKING + "IngressClass", "SetDefaults_IngressClass")
def ingress_class(obj: dict[str, Any], context: Context) -> None:
    spec = mapping(obj, "spec")
    parameters = mapping(spec, "parameters") if spec is not None else None
    if parameters is not None and unset(parameters, "scope"):
        parameters["scope"] = "Cluster"
