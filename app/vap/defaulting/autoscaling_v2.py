"""Scheme defaults of autoscaling/v2: HorizontalPodAutoscaler.

Restates ``pkg/apis/autoscaling/v2/defaults.go``: ``minReplicas`` 1, a CPU utilisation target of
80% when no metric is given, and, once ``behavior`` is given, every unset field of its scale-up and
scale-down rules filled from the defaults (scale up by at most 4 pods or 100% every 15 seconds,
whichever is more, without stabilisation; scale down by at most 100% every 15 seconds, the
stabilisation window left to the controller's flag). ``tolerance`` (1.33+) is kept when given and
otherwise left out. The same in every version offered.
"""

from __future__ import annotations

import copy
from typing import Any

from . import Context, defaults
from ._values import mapping, struct, unset

_HPA = "io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler"

DEFAULT_CPU_UTILIZATION = 80

SCALE_UP_RULES: dict[str, Any] = {
    "stabilizationWindowSeconds": 0,
    "selectPolicy": "Max",
    "policies": [
        {"type": "Pods", "value": 4, "periodSeconds": 15},
        {"type": "Percent", "value": 100, "periodSeconds": 15},
    ],
}
SCALE_DOWN_RULES: dict[str, Any] = {
    # no stabilizationWindowSeconds: the controller's --horizontal-pod-autoscaler-downscale-stabilization applies
    "selectPolicy": "Max",
    "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}],
}


@defaults(_HPA, "SetDefaults_HorizontalPodAutoscaler")
def horizontal_pod_autoscaler(obj: dict[str, Any], context: Context) -> None:
    spec = struct(obj, "spec")
    if spec is None:
        return
    if unset(spec, "minReplicas"):
        spec["minReplicas"] = 1
    metrics = spec.get("metrics")
    if metrics is None or (isinstance(metrics, list) and not metrics):
        target = {"type": "Utilization", "averageUtilization": DEFAULT_CPU_UTILIZATION}
        spec["metrics"] = [{"type": "Resource", "resource": {"name": "cpu", "target": target}}]


def _rules(given: Any, default: dict[str, Any]) -> dict[str, Any]:
    """The default rules, with every field the given rules set (not null) taking precedence."""
    out = copy.deepcopy(default)
    if isinstance(given, dict):
        for key, value in given.items():
            if value is not None:
                out[key] = value
        # keep the user's key order first, then the filled-in fields
        return {**{k: out[k] for k in given if k in out}, **{k: v for k, v in out.items() if k not in given}}
    return out


@defaults(_HPA, "SetDefaults_HorizontalPodAutoscalerBehavior")
def horizontal_pod_autoscaler_behavior(obj: dict[str, Any], context: Context) -> None:
    # upstream calls this from SetDefaults_HorizontalPodAutoscaler; it is listed apart so that the
    # changes it makes are named after it
    spec = mapping(obj, "spec")
    behavior = mapping(spec, "behavior") if spec is not None else None
    if behavior is None:
        return
    behavior["scaleUp"] = _rules(behavior.get("scaleUp"), SCALE_UP_RULES)
    behavior["scaleDown"] = _rules(behavior.get("scaleDown"), SCALE_DOWN_RULES)
