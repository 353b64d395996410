"""The QoS class of a Pod, as the pod strategy writes it in ``status.qosClass`` on create
(pkg/apis/core/helper/qos GetPodQOS).

Only cpu and memory count. Every container and init container adds its positive requests and limits to
the pod's totals; a pod without any is BestEffort. It is Guaranteed when every container has positive
cpu and memory limits and the totals of requests equal the totals of limits, resource by resource; any
other pod is Burstable. When the pod gives pod-level cpu or memory (``spec.resources``; the PodLevelResources
feature, on from 1.34), those decide instead. A class the pod's status already names is kept (GetPodQOS).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..cel.library.quantity import Dec, parse_quantity

BEST_EFFORT = "BestEffort"
BURSTABLE = "Burstable"
GUARANTEED = "Guaranteed"
_COMPUTE = ("cpu", "memory")


def _quantities(value: Any) -> dict[str, Dec]:
    """The positive cpu and memory quantities of a resource list (others, and unreadable ones, ignored)."""
    out: dict[str, Dec] = {}
    if not isinstance(value, Mapping):
        return out
    for name in _COMPUTE:
        text = value.get(name)
        if text is None:
            continue
        try:
            amount = parse_quantity(str(text))
        except Exception:  # validation refuses it later; it counts for nothing here
            continue
        if amount.u > 0:
            out[name] = amount
    return out


def _names(value: Any) -> bool:
    """Whether a resource list names cpu or memory (whatever the quantity)."""
    return isinstance(value, Mapping) and any(name in value for name in _COMPUTE)


def _add(total: dict[str, Dec], more: dict[str, Dec]) -> None:
    for name, amount in more.items():
        if name in total:
            try:
                x, y, e = total[name]._aligned(amount)
            except Exception:  # exponents too far apart to add: validation refuses such quantities
                continue
            amount = Dec(x + y, e)
        total[name] = amount


def pod_qos(pod: Mapping[str, Any], version: tuple[int, int] = (1, 34)) -> str:
    """The QoS class of ``pod`` (the one its status names, if any: GetPodQOS)."""
    status = pod.get("status")
    if isinstance(status, Mapping) and isinstance(status.get("qosClass"), str) and status["qosClass"]:
        return status["qosClass"]
    return compute_pod_qos(pod, version)


def compute_pod_qos(pod: Mapping[str, Any], version: tuple[int, int] = (1, 34)) -> str:
    """The QoS class of ``pod`` from its resources (ComputePodQOS)."""
    spec = pod.get("spec") if isinstance(pod.get("spec"), Mapping) else {}
    assert isinstance(spec, Mapping)
    pod_level = spec.get("resources")
    if version >= (1, 34) and isinstance(pod_level, Mapping) and (_names(pod_level.get("requests")) or
                                                                   _names(pod_level.get("limits"))):
        requests, limits = _quantities(pod_level.get("requests")), _quantities(pod_level.get("limits"))
        guaranteed = all(name in limits for name in _COMPUTE)
        return _class(requests, limits, guaranteed)
    requests: dict[str, Dec] = {}
    limits: dict[str, Dec] = {}
    guaranteed = True
    for key in ("containers", "initContainers"):
        containers = spec.get(key)
        for container in containers if isinstance(containers, list) else []:
            resources = container.get("resources") if isinstance(container, Mapping) else None
            resources = resources if isinstance(resources, Mapping) else {}
            _add(requests, _quantities(resources.get("requests")))
            found = _quantities(resources.get("limits"))
            _add(limits, found)
            if not all(name in found for name in _COMPUTE):
                guaranteed = False
    return _class(requests, limits, guaranteed)


def _class(requests: dict[str, Dec], limits: dict[str, Dec], guaranteed: bool) -> str:
    if not requests and not limits:
        return BEST_EFFORT
    if guaranteed and all(name in limits and _equal(limits[name], amount) for name, amount in requests.items()) \
            and len(requests) == len(limits):
        return GUARANTEED
    return BURSTABLE


def _equal(a: Dec, b: Dec) -> bool:
    return a.cmp(b) == 0
