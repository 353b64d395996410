"""Scheme defaults of autoscaling/v1: HorizontalPodAutoscaler.

Restates ``pkg/apis/autoscaling/v1/defaults.go``: only ``minReplicas``. The CPU target of a v1
autoscaler that names none is not a scheme default (upstream supplies it when converting to the
internal version), so it is not filled here. The same in every version offered.
"""

from __future__ import annotations

from typing import Any

from . import Context, defaults
from ._values import struct, unset


@defaults("io.k8s.api.autoscaling.v1.HorizontalPodAutoscaler", "SetDefaults_HorizontalPodAutoscaler")
def horizontal_pod_autoscaler(obj: dict[str, Any], context: Context) -> None:
    spec = struct(obj, "spec")
    if spec is not None and unset(spec, "minReplicas"):
        spec["minReplicas"] = 1
