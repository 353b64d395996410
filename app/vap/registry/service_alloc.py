"""What the Service's REST storage allocates before validating admission, for a single-stack IPv4 cluster.

kube-apiserver's Service storage (pkg/registry/core/service/storage: ``beginCreate``, ``beginUpdate`` and
alloc.go) runs before the generic store validates the object, so validating admission sees what it set:

* **IP family fields** (``initIPFamilyFields``): ``ipFamilyPolicy`` is SingleStack when unset, except for a
  headless Service (clusterIP ``None``) without a selector, which gets RequireDualStack and then both families
  (the one exception a single-stack cluster allows); ``ipFamilies`` is ``[IPv4]`` when unset. An ExternalName
  Service gets nothing.
* **cluster IPs**: ``clusterIP`` and ``clusterIPs`` are kept in step (one given makes the other); without
  either, an address of the service CIDR is allocated. The playground's cluster is kubeadm's default, IPv4 only,
  with the service CIDR 10.96.0.0/12: the address is derived from the Service's namespace and name (never the
  network address, 10.96.0.1, which the ``kubernetes`` Service holds, or the broadcast address), where the
  apiserver takes a free one.
* **node ports**: each port of a NodePort Service, or of a LoadBalancer whose ``allocateLoadBalancerNodePorts``
  is not false, gets a ``nodePort`` from 30000-32767 when it has none (ports with the same port number share
  one); a LoadBalancer with ``externalTrafficPolicy: Local`` gets a ``healthCheckNodePort``. Derived from the
  namespace and name too, distinct within the Service.

On UPDATE (``patchAllocatedValues``, then ``allocateUpdate``) the stored Service's cluster IPs, node ports (by
port name) and health check node port are kept where the request leaves them out and the types still need them;
an unset ``ipFamilyPolicy`` is the stored one; what the update newly needs (a Service leaving ExternalName, a
port without a stored node port, a new health check) is allocated as on create.

Not reproduced: the requests a single-stack cluster refuses (RequireDualStack or an IPv6 family on a Service
with cluster IPs, an address outside the CIDR, a port already taken by another Service): they are left as given.
"""

from __future__ import annotations

import hashlib
import ipaddress
from collections.abc import Mapping
from typing import Any

Obj = dict[str, Any]

SERVICE_CIDR = ipaddress.IPv4Network("10.96.0.0/12")
KUBERNETES_SERVICE_IP = SERVICE_CIDR.network_address + 1  # held by default/kubernetes
NODE_PORT_RANGE = (30000, 32767)
NONE = "None"


def _digest(*parts: str) -> int:
    return int.from_bytes(hashlib.sha256("/".join(parts).encode()).digest()[:8], "big")


def cluster_ip_for(namespace: str, name: str) -> str:
    """The address the playground gives a Service: in the service CIDR, past 10.96.0.1, before the broadcast."""
    first = 2  # the network address and the kubernetes Service's
    count = SERVICE_CIDR.num_addresses - first - 1  # nor the broadcast address
    return str(SERVICE_CIDR.network_address + first + _digest("clusterIP", namespace, name) % count)


def node_port_for(namespace: str, name: str, what: str, taken: set[int]) -> int:
    """A node port for ``what`` (a port's index, or the health check) not in ``taken``."""
    low, high = NODE_PORT_RANGE
    size = high - low + 1
    start = _digest("nodePort", namespace, name, what) % size
    for step in range(size):
        port = low + (start + step) % size
        if port not in taken:
            return port
    raise ValueError("no node port left")  # a Service has far fewer ports than the range


def _spec(svc: Obj) -> Obj:
    spec = svc.get("spec")
    spec = dict(spec) if isinstance(spec, Mapping) else {}
    svc["spec"] = spec
    return spec


def _type(spec: Mapping[str, Any]) -> str:
    return str(spec.get("type") or "ClusterIP")


def _names(svc: Mapping[str, Any]) -> tuple[str, str]:
    md = svc.get("metadata") if isinstance(svc.get("metadata"), Mapping) else {}
    assert isinstance(md, Mapping)
    return str(md.get("namespace") or ""), str(md.get("name") or "")


def _ports(spec: Obj) -> list[Obj]:
    ports = spec.get("ports")
    copied = [dict(p) if isinstance(p, Mapping) else p for p in ports] if isinstance(ports, list) else []
    if isinstance(ports, list):
        spec["ports"] = copied
    return [p for p in copied if isinstance(p, dict)]


def _port_number(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def needs_node_ports(spec: Mapping[str, Any]) -> bool:
    return _type(spec) in ("NodePort", "LoadBalancer")


def allocates_node_ports(spec: Mapping[str, Any]) -> bool:
    """shouldAllocateNodePorts: a NodePort Service, or a LoadBalancer unless allocateLoadBalancerNodePorts is false."""
    if _type(spec) == "NodePort":
        return True
    return _type(spec) == "LoadBalancer" and spec.get("allocateLoadBalancerNodePorts") is not False


def needs_health_check(spec: Mapping[str, Any]) -> bool:
    return _type(spec) == "LoadBalancer" and spec.get("externalTrafficPolicy") == "Local"


def _ip_family_fields(spec: Obj, old_spec: Mapping[str, Any] | None) -> list[str]:
    """initIPFamilyFields on a single-stack IPv4 cluster."""
    words = []
    headless_selectorless = spec.get("clusterIP") == NONE and not spec.get("selector")
    if not spec.get("ipFamilyPolicy"):
        if old_spec is not None and old_spec.get("ipFamilyPolicy"):
            spec["ipFamilyPolicy"] = old_spec["ipFamilyPolicy"]
            words.append("spec.ipFamilyPolicy kept from the stored Service")
        elif headless_selectorless:
            spec["ipFamilyPolicy"] = "RequireDualStack"
            words.append("spec.ipFamilyPolicy set to RequireDualStack: a headless Service without a selector "
                         "defaults to both families")
        else:
            spec["ipFamilyPolicy"] = "SingleStack"
            words.append("spec.ipFamilyPolicy set to SingleStack, the default")
    given = spec.get("ipFamilies")
    families = list(given) if isinstance(given, list) and given else ["IPv4"]
    if headless_selectorless and len(families) == 1 and spec["ipFamilyPolicy"] != "SingleStack":
        families.append("IPv6" if families[0] == "IPv4" else "IPv4")  # the other family, cluster or not
    if families != given:
        spec["ipFamilies"] = families
        words.append(f"spec.ipFamilies set to {families}" + (
            ": a headless Service without a selector may have both families" if len(families) == 2
            else ": the cluster's service CIDR is IPv4"))
    return words


def _sync_cluster_ips(spec: Obj) -> None:
    """NormalizeClusterIPs: clusterIP and clusterIPs[0] say the same."""
    ips = spec.get("clusterIPs")
    if spec.get("clusterIP") and not ips:
        spec["clusterIPs"] = [spec["clusterIP"]]
    elif isinstance(ips, list) and ips and not spec.get("clusterIP"):
        spec["clusterIP"] = ips[0]


def _alloc_cluster_ip(spec: Obj, namespace: str, name: str, generated: list[str]) -> list[str]:
    _sync_cluster_ips(spec)
    if spec.get("clusterIP"):
        return []
    ip = cluster_ip_for(namespace, name)
    spec["clusterIP"] = ip
    spec["clusterIPs"] = [ip]
    generated.append(f"clusterIP {ip}")
    return [f"spec.clusterIP and spec.clusterIPs allocated: {ip}, from the service CIDR {SERVICE_CIDR}"]


def _alloc_node_ports(spec: Obj, namespace: str, name: str, generated: list[str], taken: set[int]) -> list[str]:
    """initNodePorts / updateNodePorts: a port without a node port gets one; ports sharing a port number share it."""
    words = []
    ports = _ports(spec)
    taken |= {_port_number(p.get("nodePort")) for p in ports} - {0}
    by_port: dict[int, int] = {}
    for p in ports:
        if _port_number(p.get("nodePort")):
            by_port.setdefault(_port_number(p.get("port")), _port_number(p.get("nodePort")))
    if not allocates_node_ports(spec):
        return []
    for index, p in enumerate(ports):
        if _port_number(p.get("nodePort")):
            continue
        number = _port_number(p.get("port"))
        value = by_port.get(number)
        if value is None:
            value = node_port_for(namespace, name, str(index), taken)
            taken.add(value)
            by_port[number] = value
            generated.append(f"nodePort {value}")
        p["nodePort"] = value
        words.append(f"spec.ports[{index}].nodePort allocated: {value}")
    return words


def _alloc_health_check(spec: Obj, namespace: str, name: str, generated: list[str], taken: set[int]) -> list[str]:
    if not needs_health_check(spec) or _port_number(spec.get("healthCheckNodePort")):
        return []
    value = node_port_for(namespace, name, "healthCheck", taken)
    spec["healthCheckNodePort"] = value
    generated.append(f"healthCheckNodePort {value}")
    return [f"spec.healthCheckNodePort allocated: {value} (a LoadBalancer with externalTrafficPolicy Local)"]


def _note(generated: list[str]) -> list[str]:
    if not generated:
        return []
    return [f"Service {', '.join(generated)} generated from the namespace and name (a single-stack IPv4 cluster: "
            f"{SERVICE_CIDR}, node ports {NODE_PORT_RANGE[0]}-{NODE_PORT_RANGE[1]})"]


def allocate_create(svc: Obj) -> tuple[list[str], list[str]]:
    """beginCreate on ``svc`` (its top level the caller's own): what it did, and the note on what it generated."""
    spec = _spec(svc)
    if _type(spec) == "ExternalName":
        return [], []
    namespace, name = _names(svc)
    generated: list[str] = []
    _sync_cluster_ips(spec)
    words = _ip_family_fields(spec, None)
    words += _alloc_cluster_ip(spec, namespace, name, generated)
    taken: set[int] = set()
    words += _alloc_node_ports(spec, namespace, name, generated, taken)
    words += _alloc_health_check(spec, namespace, name, generated, taken)
    return words, _note(generated)


def _patch_allocated(spec: Obj, old_spec: Mapping[str, Any]) -> list[str]:
    """patchAllocatedValues: what the stored Service was given and the request leaves out."""
    words = []
    if _type(spec) != "ExternalName" and _type(old_spec) != "ExternalName":
        if not spec.get("clusterIP") and old_spec.get("clusterIP"):
            spec["clusterIP"] = old_spec["clusterIP"]
            words.append("spec.clusterIP kept from the stored Service")
        if not spec.get("clusterIPs") and old_spec.get("clusterIPs"):
            spec["clusterIPs"] = list(old_spec["clusterIPs"])
            words.append("spec.clusterIPs kept from the stored Service")
    if needs_node_ports(spec) and needs_node_ports(old_spec):
        ports = _ports(spec)
        old_ports = [p for p in old_spec.get("ports") or [] if isinstance(p, Mapping)]
        used = ({_port_number(p.get("nodePort")) for p in old_ports}
                & {_port_number(p.get("nodePort")) for p in ports}) - {0}
        by_name = {str(p.get("name") or ""): _port_number(p.get("nodePort")) for p in old_ports}
        for index, p in enumerate(ports):
            value = by_name.get(str(p.get("name") or ""), 0)
            if not _port_number(p.get("nodePort")) and value and value not in used:
                p["nodePort"] = value
                words.append(f"spec.ports[{index}].nodePort kept from the stored Service")
    if needs_health_check(spec) and needs_health_check(old_spec) and not _port_number(spec.get("healthCheckNodePort")):
        if _port_number(old_spec.get("healthCheckNodePort")):
            spec["healthCheckNodePort"] = old_spec["healthCheckNodePort"]
            words.append("spec.healthCheckNodePort kept from the stored Service")
    return words


def allocate_update(svc: Obj, old: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """beginUpdate on ``svc`` against the stored ``old``: what it did, and the note on what it generated."""
    spec = _spec(svc)
    old_spec = old.get("spec") if isinstance(old.get("spec"), Mapping) else {}
    assert isinstance(old_spec, Mapping)
    words = _patch_allocated(spec, old_spec)
    if _type(spec) == "ExternalName":
        return words, []
    namespace, name = _names(svc)
    generated: list[str] = []
    _sync_cluster_ips(spec)
    words += _ip_family_fields(spec, old_spec if _type(old_spec) != "ExternalName" else None)
    if _type(old_spec) == "ExternalName":
        words += _alloc_cluster_ip(spec, namespace, name, generated)
    taken = {_port_number(p.get("nodePort")) for p in old_spec.get("ports") or [] if isinstance(p, Mapping)} - {0}
    if needs_node_ports(spec):
        words += _alloc_node_ports(spec, namespace, name, generated, taken)
    words += _alloc_health_check(spec, namespace, name, generated, taken)
    return words, _note(generated)
