"""Scheme defaults of scheduling.k8s.io/v1: PriorityClass.

Restates ``pkg/apis/scheduling/v1/defaults.go``; the same in every version offered.
"""

from __future__ import annotations

from typing import Any

from . import Context, defaults
from ._values import unset


@defaults("io.k8s.api.scheduling.v1.PriorityClass", "SetDefaults_PriorityClass")
def priority_class(obj: dict[str, Any], context: Context) -> None:
    if unset(obj, "preemptionPolicy"):
        obj["preemptionPolicy"] = "PreemptLowerPriority"
