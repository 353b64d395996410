"""Scheme defaults of apps/v1: Deployment, StatefulSet, DaemonSet, ReplicaSet.

Restates ``pkg/apis/apps/v1/defaults.go``. Each function receives the whole object, as upstream's
``SetDefaults_<Kind>`` does; the pod templates inside get core/v1's defaults from their own module
as the walk reaches them.

Release differences (checked against the feature gates' version tables):

* StatefulSet ``updateStrategy.rollingUpdate.maxUnavailable`` defaults to 1 only when the
  ``MaxUnavailableStatefulSet`` gate is on, which it is by default from 1.35 (beta).
* StatefulSet ``persistentVolumeClaimRetentionPolicy`` is filled when ``StatefulSetAutoDeletePVC`` is
  on: beta and on by default since 1.27, GA in 1.32, so in every version offered.
"""

from __future__ import annotations

from typing import Any

from . import Context, defaults
from ._values import empty, struct, unset

_APPS = "io.k8s.api.apps.v1."


@defaults(_APPS + "Deployment", "SetDefaults_Deployment")
def deployment(obj: dict[str, Any], context: Context) -> None:
    spec = struct(obj, "spec")
    if spec is None:
        return
    if unset(spec, "replicas"):
        spec["replicas"] = 1
    strategy = struct(spec, "strategy")
    if strategy is not None:
        if empty(strategy, "type"):
            strategy["type"] = "RollingUpdate"
        if strategy["type"] == "RollingUpdate":
            rolling = struct(strategy, "rollingUpdate")
            if rolling is not None:
                # a percentage of the desired pods, as a string
                if unset(rolling, "maxUnavailable"):
                    rolling["maxUnavailable"] = "25%"
                if unset(rolling, "maxSurge"):
                    rolling["maxSurge"] = "25%"
    if unset(spec, "revisionHistoryLimit"):
        spec["revisionHistoryLimit"] = 10
    if unset(spec, "progressDeadlineSeconds"):
        spec["progressDeadlineSeconds"] = 600


@defaults(_APPS + "DaemonSet", "SetDefaults_DaemonSet")
def daemon_set(obj: dict[str, Any], context: Context) -> None:
    spec = struct(obj, "spec")
    if spec is None:
        return
    strategy = struct(spec, "updateStrategy")
    if strategy is not None:
        if empty(strategy, "type"):
            strategy["type"] = "RollingUpdate"
        if strategy["type"] == "RollingUpdate":
            rolling = struct(strategy, "rollingUpdate")
            if rolling is not None:
                # whole numbers of pods, as integers
                if unset(rolling, "maxUnavailable"):
                    rolling["maxUnavailable"] = 1
                if unset(rolling, "maxSurge"):
                    rolling["maxSurge"] = 0
    if unset(spec, "revisionHistoryLimit"):
        spec["revisionHistoryLimit"] = 10


@defaults(_APPS + "StatefulSet", "SetDefaults_StatefulSet")
def stateful_set(obj: dict[str, Any], context: Context) -> None:
    spec = struct(obj, "spec")
    if spec is None:
        return
    if empty(spec, "podManagementPolicy"):
        spec["podManagementPolicy"] = "OrderedReady"
    strategy = struct(spec, "updateStrategy")
    if strategy is not None:
        if empty(strategy, "type"):
            strategy["type"] = "RollingUpdate"
            # only a strategy whose type was left out gets an empty rollingUpdate to fill below
            if unset(strategy, "rollingUpdate"):
                strategy["rollingUpdate"] = {}
        rolling = strategy.get("rollingUpdate")
        if strategy["type"] == "RollingUpdate" and isinstance(rolling, dict):
            if unset(rolling, "partition"):
                rolling["partition"] = 0
            if context.version >= (1, 35) and unset(rolling, "maxUnavailable"):
                rolling["maxUnavailable"] = 1
    retention = struct(spec, "persistentVolumeClaimRetentionPolicy")
    if retention is not None:
        if empty(retention, "whenDeleted"):
            retention["whenDeleted"] = "Retain"
        if empty(retention, "whenScaled"):
            retention["whenScaled"] = "Retain"
    if unset(spec, "replicas"):
        spec["replicas"] = 1
    if unset(spec, "revisionHistoryLimit"):
        spec["revisionHistoryLimit"] = 10


@defaults(_APPS + "ReplicaSet", "SetDefaults_ReplicaSet")
def replica_set(obj: dict[str, Any], context: Context) -> None:
    spec = struct(obj, "spec")
    if spec is not None and unset(spec, "replicas"):
        spec["replicas"] = 1
