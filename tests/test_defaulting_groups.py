"""Scheme defaulting of the built-in groups other than core/v1 (app/vap/defaulting/<group>_<version>.py).

The table cases restate the cases of upstream's ``pkg/apis/<group>/<version>/defaults_test.go``; each
names the Go test it restates (or, where upstream has no table test, the defaulting function). They
run through ``defaulting.apply`` along the kind's schema, as the apiserver's decoding does. Pod
templates get core/v1's defaults from another module: the comparisons leave the pod specs out, so
these tests hold with or without it.
"""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest
import yaml

from app.vap import defaulting
from app.vap.cel.library import SUPPORTED_VERSIONS
from app.vap.schemas import schema_set

V = (1, 36)


def run(obj: dict[str, Any], version: tuple[int, int] = V) -> tuple[dict[str, Any], list[Any]]:
    """The object with its scheme defaults, and the changes, at a Kubernetes version."""
    schemas = schema_set(f"{version[0]}.{version[1]}")
    group, _, api_version = obj["apiVersion"].rpartition("/")
    kind = schemas.kind(group, api_version, obj["kind"])
    assert kind is not None, obj["apiVersion"] + " " + obj["kind"]
    return defaulting.apply(obj, kind, schemas, version)


def defaulted(obj: dict[str, Any], version: tuple[int, int] = V) -> dict[str, Any]:
    return mine(run(obj, version)[0])


def mine(obj: Any) -> Any:
    """The object without what core/v1's defaulting owns: pod specs in templates, claim templates."""
    out = copy.deepcopy(obj)

    def strip(value: Any) -> None:
        if isinstance(value, dict):
            template = value.get("template")
            if isinstance(template, dict):
                template.pop("spec", None)
            value.pop("volumeClaimTemplates", None)
            for child in value.values():
                strip(child)
        elif isinstance(value, list):
            for child in value:
                strip(child)

    strip(out)
    return out


def obj(api_version: str, kind: str, **fields: Any) -> dict[str, Any]:
    return {"apiVersion": api_version, "kind": kind, "metadata": {"name": "x"}, **fields}


# --------------------------------------------------------------------------------------------
# apps/v1

DEPLOYMENT_DEFAULT_STRATEGY = {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}}

DEPLOYMENT_CASES = [
    # (Go test, spec sent, spec stored)
    ("TestSetDefaultDeployment", {}, {
        "replicas": 1, "strategy": DEPLOYMENT_DEFAULT_STRATEGY, "revisionHistoryLimit": 10,
        "progressDeadlineSeconds": 600}),
    ("TestSetDefaultDeployment", {"replicas": 5, "strategy": {"rollingUpdate": {"maxSurge": 5}}}, {
        "replicas": 5, "strategy": {"rollingUpdate": {"maxSurge": 5, "maxUnavailable": "25%"}, "type": "RollingUpdate"},
        "revisionHistoryLimit": 10, "progressDeadlineSeconds": 600}),
    ("TestSetDefaultDeployment", {"replicas": 3, "strategy": {"type": "RollingUpdate", "rollingUpdate": None}}, {
        "replicas": 3, "strategy": DEPLOYMENT_DEFAULT_STRATEGY, "revisionHistoryLimit": 10,
        "progressDeadlineSeconds": 600}),
    ("TestSetDefaultDeployment", {"replicas": 5, "strategy": {"type": "Recreate"}, "revisionHistoryLimit": 0}, {
        "replicas": 5, "strategy": {"type": "Recreate"}, "revisionHistoryLimit": 0, "progressDeadlineSeconds": 600}),
    ("TestSetDefaultDeployment", {"replicas": 5, "strategy": {"type": "Recreate"}, "progressDeadlineSeconds": 30,
                                  "revisionHistoryLimit": 2}, {
        "replicas": 5, "strategy": {"type": "Recreate"}, "progressDeadlineSeconds": 30, "revisionHistoryLimit": 2}),
]


@pytest.mark.parametrize(("go_test", "spec", "expected"), DEPLOYMENT_CASES)
def test_deployment(go_test: str, spec: dict[str, Any], expected: dict[str, Any]) -> None:
    assert defaulted(obj("apps/v1", "Deployment", spec=spec))["spec"] == expected


def test_deployment_availability() -> None:
    # TestDefaultDeploymentAvailability: the defaults never leave a one-replica Deployment without a ready pod
    spec = defaulted(obj("apps/v1", "Deployment", spec={}))["spec"]
    max_unavailable = int(spec["strategy"]["rollingUpdate"]["maxUnavailable"].rstrip("%")) * spec["replicas"] // 100
    assert spec["replicas"] - max_unavailable > 0


@pytest.mark.parametrize(("sent", "stored"), [(None, 1), (0, 0), (3, 3)])
def test_replica_set_replicas(sent: int | None, stored: int) -> None:
    # TestSetDefaultReplicaSetReplicas
    spec: dict[str, Any] = {"template": {"metadata": {"labels": {"foo": "bar"}}}}
    if sent is not None:
        spec["replicas"] = sent
    assert defaulted(obj("apps/v1", "ReplicaSet", spec=spec))["spec"]["replicas"] == stored


DAEMON_SET_ROLLING = {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0}}

DAEMON_SET_CASES = [
    # TestSetDefaultDaemonSetSpec
    ({"template": {"metadata": {"labels": {"foo": "bar"}}}},
     {"template": {"metadata": {"labels": {"foo": "bar"}}}, "updateStrategy": DAEMON_SET_ROLLING,
      "revisionHistoryLimit": 10}),
    ({"revisionHistoryLimit": 1}, {"revisionHistoryLimit": 1, "updateStrategy": DAEMON_SET_ROLLING}),
    ({"updateStrategy": {"type": "OnDelete"}}, {"updateStrategy": {"type": "OnDelete"}, "revisionHistoryLimit": 10}),
    ({}, {"updateStrategy": DAEMON_SET_ROLLING, "revisionHistoryLimit": 10}),
]


@pytest.mark.parametrize(("spec", "expected"), DAEMON_SET_CASES)
def test_daemon_set(spec: dict[str, Any], expected: dict[str, Any]) -> None:
    assert defaulted(obj("apps/v1", "DaemonSet", spec=spec))["spec"] == expected


RETAIN = {"whenDeleted": "Retain", "whenScaled": "Retain"}


def stateful_set(strategy: dict[str, Any], *, policy: str = "OrderedReady", **extra: Any) -> dict[str, Any]:
    return {"podManagementPolicy": policy, "updateStrategy": strategy, "persistentVolumeClaimRetentionPolicy": RETAIN,
            "replicas": 1, "revisionHistoryLimit": 10, **extra}


STATEFUL_SET_CASES = [
    # TestSetDefaultStatefulSet: labels and the default update strategy
    ({}, (1, 34), stateful_set({"type": "RollingUpdate", "rollingUpdate": {"partition": 0}})),
    # from 1.35 (MaxUnavailableStatefulSet on by default) a rolling update also takes one pod down at a time
    ({}, (1, 35), stateful_set({"type": "RollingUpdate", "rollingUpdate": {"partition": 0, "maxUnavailable": 1}})),
    # alternate update strategy
    ({"updateStrategy": {"type": "OnDelete"}}, V, stateful_set({"type": "OnDelete"})),
    # parallel pod management policy
    ({"podManagementPolicy": "Parallel"}, (1, 34),
     stateful_set({"type": "RollingUpdate", "rollingUpdate": {"partition": 0}}, policy="Parallel")),
    # the partition is not lost when the type is not set
    ({"updateStrategy": {"rollingUpdate": {"partition": 42}}}, (1, 34),
     stateful_set({"rollingUpdate": {"partition": 42}, "type": "RollingUpdate"})),
    # an explicit RollingUpdate without rollingUpdate is left without it (only an unset type creates one)
    ({"updateStrategy": {"type": "RollingUpdate"}}, V, stateful_set({"type": "RollingUpdate"})),
    # a given maxUnavailable and retention policy are kept
    ({"updateStrategy": {"rollingUpdate": {"maxUnavailable": "50%"}},
      "persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Delete"}}, V,
     {**stateful_set({"rollingUpdate": {"maxUnavailable": "50%", "partition": 0}, "type": "RollingUpdate"}),
      "persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Delete", "whenScaled": "Retain"}}),
]


@pytest.mark.parametrize(("spec", "version", "expected"), STATEFUL_SET_CASES)
def test_stateful_set(spec: dict[str, Any], version: tuple[int, int], expected: dict[str, Any]) -> None:
    assert defaulted(obj("apps/v1", "StatefulSet", spec=spec), version)["spec"] == expected


def test_apps_changes_are_named_after_the_go_function() -> None:
    _, made = run(obj("apps/v1", "Deployment", spec={"replicas": 2}))
    paths = {(c.stage, c.to_json()["path"]) for c in made}
    assert ("defaulting: SetDefaults_Deployment", "spec.strategy") in paths
    assert ("defaulting: SetDefaults_Deployment", "spec.replicas") not in paths


# --------------------------------------------------------------------------------------------
# batch/v1

JOB_TEMPLATE = {"metadata": {"labels": {"app": "pi"}}}
MAX_INT32 = 2147483647

JOB_CASES = [
    # (Go test, version, spec sent, metadata.labels stored, spec stored without template)
    ("TestSetDefaultJob", V, {"template": JOB_TEMPLATE}, {"app": "pi"},
     {"completions": 1, "parallelism": 1, "backoffLimit": 6, "completionMode": "NonIndexed", "suspend": False,
      "podReplacementPolicy": "TerminatingOrFailed", "manualSelector": False}),
    ("TestSetDefaultJob", V, {"template": JOB_TEMPLATE, "completions": 11}, {"app": "pi"},
     {"completions": 11, "parallelism": 1, "backoffLimit": 6, "completionMode": "NonIndexed", "suspend": False,
      "podReplacementPolicy": "TerminatingOrFailed", "manualSelector": False}),
    ("TestSetDefaultJob", V, {"template": JOB_TEMPLATE, "parallelism": 11}, {"app": "pi"},
     {"parallelism": 11, "backoffLimit": 6, "completionMode": "NonIndexed", "suspend": False,
      "podReplacementPolicy": "TerminatingOrFailed", "manualSelector": False}),
    ("TestSetDefaultJob", V, {"template": JOB_TEMPLATE, "completions": 11, "parallelism": 10, "backoffLimit": 5,
                              "completionMode": "Indexed", "suspend": True, "manualSelector": True,
                              "podReplacementPolicy": "Failed"}, {"app": "pi"},
     {"completions": 11, "parallelism": 10, "backoffLimit": 5, "completionMode": "Indexed", "suspend": True,
      "manualSelector": True, "podReplacementPolicy": "Failed"}),
    # WQ: parallelism explicitly 0 and completions unset: only the backoff limit and the rest are defaulted
    ("TestSetDefaultJob", V, {"template": JOB_TEMPLATE, "parallelism": 0}, {"app": "pi"},
     {"parallelism": 0, "backoffLimit": 6, "completionMode": "NonIndexed", "suspend": False,
      "podReplacementPolicy": "TerminatingOrFailed", "manualSelector": False}),
    # backoffLimit explicitly 5 and others unset
    ("TestSetDefaultJob", V, {"template": JOB_TEMPLATE, "backoffLimit": 5}, {"app": "pi"},
     {"backoffLimit": 5, "completions": 1, "parallelism": 1, "completionMode": "NonIndexed", "suspend": False,
      "podReplacementPolicy": "TerminatingOrFailed", "manualSelector": False}),
    # a per-index backoff limit with an explicit global one: no change
    ("TestSetDefaultJob", V, {"template": JOB_TEMPLATE, "completions": 11, "parallelism": 10, "backoffLimit": 3,
                              "backoffLimitPerIndex": 1, "completionMode": "Indexed", "suspend": True,
                              "manualSelector": True}, {"app": "pi"},
     {"completions": 11, "parallelism": 10, "backoffLimit": 3, "backoffLimitPerIndex": 1, "completionMode": "Indexed",
      "suspend": True, "manualSelector": True, "podReplacementPolicy": "TerminatingOrFailed"}),
    # a per-index backoff limit makes the global one unbounded
    ("TestSetDefaultJob", V, {"template": JOB_TEMPLATE, "completionMode": "Indexed", "completions": 2,
                              "backoffLimitPerIndex": 1}, {"app": "pi"},
     {"completionMode": "Indexed", "completions": 2, "backoffLimitPerIndex": 1, "parallelism": 1,
      "backoffLimit": MAX_INT32, "suspend": False, "podReplacementPolicy": "TerminatingOrFailed",
      "manualSelector": False}),
    # with a pod failure policy, pods are replaced only once they have failed; condition patterns default to True
    ("TestSetDefaultJob", V, {"template": JOB_TEMPLATE, "podFailurePolicy": {"rules": [
        {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}, {"type": "X", "status": "False"}]},
        {"action": "FailJob", "onExitCodes": {"operator": "In", "values": [42]}}]}}, {"app": "pi"},
     {"podFailurePolicy": {"rules": [
         {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget", "status": "True"},
                                                  {"type": "X", "status": "False"}]},
         {"action": "FailJob", "onExitCodes": {"operator": "In", "values": [42]}}]},
      "completions": 1, "parallelism": 1, "backoffLimit": 6, "completionMode": "NonIndexed", "suspend": False,
      "podReplacementPolicy": "Failed", "manualSelector": False}),
    # 1.28: JobPodReplacementPolicy was alpha (off) and manualSelector had no default yet
    ("TestSetDefaultJob", (1, 28), {"template": JOB_TEMPLATE}, {"app": "pi"},
     {"completions": 1, "parallelism": 1, "backoffLimit": 6, "completionMode": "NonIndexed", "suspend": False}),
]


@pytest.mark.parametrize(("go_test", "version", "spec", "labels", "expected"), JOB_CASES)
def test_job(go_test: str, version: tuple[int, int], spec: dict[str, Any], labels: dict[str, str],
             expected: dict[str, Any]) -> None:
    out = defaulted(obj("batch/v1", "Job", spec=spec), version)
    assert out["metadata"].get("labels") == labels
    assert {k: v for k, v in out["spec"].items() if k != "template"} == expected


def test_job_keeps_its_own_labels_and_ignores_empty_template_labels() -> None:
    # TestSetDefaultJob: labels are taken from the template only when the Job has none
    own = obj("batch/v1", "Job", spec={"template": JOB_TEMPLATE})
    own["metadata"]["labels"] = {"mine": "yes"}
    assert defaulted(own)["metadata"]["labels"] == {"mine": "yes"}
    empty = obj("batch/v1", "Job", spec={"template": {"metadata": {"labels": {}}}})
    assert "labels" not in defaulted(empty)["metadata"]


CRON_JOB_DEFAULTS = {"concurrencyPolicy": "Allow", "suspend": False, "successfulJobsHistoryLimit": 3,
                     "failedJobsHistoryLimit": 1}


@pytest.mark.parametrize(("spec", "expected"), [
    # TestSetDefaultCronJob
    ({}, CRON_JOB_DEFAULTS),
    ({"concurrencyPolicy": "Forbid", "suspend": True, "successfulJobsHistoryLimit": 5, "failedJobsHistoryLimit": 5},
     {"concurrencyPolicy": "Forbid", "suspend": True, "successfulJobsHistoryLimit": 5, "failedJobsHistoryLimit": 5}),
])
def test_cron_job(spec: dict[str, Any], expected: dict[str, Any]) -> None:
    assert defaulted(obj("batch/v1", "CronJob", spec=spec))["spec"] == expected


def test_cron_job_template_gets_no_job_defaults() -> None:
    # SetObjectDefaults_CronJob does not call SetDefaults_Job on the job template
    cron = obj("batch/v1", "CronJob", spec={"schedule": "* * * * *", "jobTemplate": {"spec": {"template": {}}}})
    assert defaulted(cron)["spec"]["jobTemplate"] == {"spec": {"template": {}}}


# --------------------------------------------------------------------------------------------
# networking.k8s.io/v1

SELECTOR = {"matchLabels": {"a": "b"}}
EGRESS = [{"to": [{"namespaceSelector": {"matchLabels": {"c": "d"}}}]}]
INGRESS = [{"from": [{"podSelector": {"matchLabels": {"c": "d"}}, "namespaceSelector": {"matchLabels": {"c": "d"}}}]}]


@pytest.mark.parametrize(("spec", "types"), [
    # TestSetDefaultNetworkPolicy
    ({"podSelector": SELECTOR}, ["Ingress"]),
    ({"podSelector": SELECTOR, "ingress": []}, ["Ingress"]),
    ({"podSelector": SELECTOR, "ingress": INGRESS, "egress": EGRESS}, ["Ingress", "Egress"]),
    ({"podSelector": SELECTOR, "egress": EGRESS}, ["Ingress", "Egress"]),
    ({"podSelector": SELECTOR, "egress": EGRESS, "policyTypes": ["Egress"]}, ["Egress"]),
])
def test_network_policy(spec: dict[str, Any], types: list[str]) -> None:
    out = defaulted(obj("networking.k8s.io/v1", "NetworkPolicy", spec=spec))
    assert out["spec"] == {**spec, "policyTypes": types}


def test_network_policy_ports() -> None:
    # SetDefaults_NetworkPolicyPort: a port without a protocol is TCP, in ingress and egress rules
    spec = {"podSelector": {}, "policyTypes": ["Ingress", "Egress"],
            "ingress": [{"ports": [{"port": 80}, {"port": 53, "protocol": "UDP"}]}],
            "egress": [{"ports": [{"port": "dns"}]}]}
    out, made = run(obj("networking.k8s.io/v1", "NetworkPolicy", spec=spec))
    assert out["spec"]["ingress"][0]["ports"] == [{"port": 80, "protocol": "TCP"}, {"port": 53, "protocol": "UDP"}]
    assert out["spec"]["egress"][0]["ports"] == [{"port": "dns", "protocol": "TCP"}]
    assert {c.stage for c in made} == {"defaulting: SetDefaults_NetworkPolicyPort"}


@pytest.mark.parametrize(("spec", "expected"), [
    # SetDefaults_IngressClass: parameters without a scope are cluster-scoped; no parameters, nothing to fill
    ({"controller": "example.com/ingress"}, {"controller": "example.com/ingress"}),
    ({"parameters": {"kind": "P", "name": "p"}}, {"parameters": {"kind": "P", "name": "p", "scope": "Cluster"}}),
    ({"parameters": {"kind": "P", "name": "p", "scope": "Namespace", "namespace": "n"}},
     {"parameters": {"kind": "P", "name": "p", "scope": "Namespace", "namespace": "n"}}),
])
def test_ingress_class(spec: dict[str, Any], expected: dict[str, Any]) -> None:
    assert defaulted(obj("networking.k8s.io/v1", "IngressClass", spec=spec))["spec"] == expected


def test_ingress_has_no_defaults() -> None:
    ingress = obj("networking.k8s.io/v1", "Ingress", spec={"rules": [{"http": {"paths": [
        {"path": "/", "backend": {"service": {"name": "s", "port": {"number": 80}}}}]}}]})
    assert run(ingress) == (ingress, [])


# --------------------------------------------------------------------------------------------
# rbac.authorization.k8s.io/v1


@pytest.mark.parametrize("kind", ["RoleBinding", "ClusterRoleBinding"])
def test_bindings(kind: str) -> None:
    # SetDefaults_RoleBinding / SetDefaults_ClusterRoleBinding / SetDefaults_Subject
    binding = obj("rbac.authorization.k8s.io/v1", kind, roleRef={"kind": "ClusterRole", "name": "view"}, subjects=[
        {"kind": "User", "name": "jane"}, {"kind": "Group", "name": "devs"},
        {"kind": "ServiceAccount", "name": "sa", "namespace": "default"},
        {"kind": "User", "name": "bob", "apiGroup": "example.com"}])
    out, made = run(binding)
    assert out["roleRef"] == {"kind": "ClusterRole", "name": "view", "apiGroup": "rbac.authorization.k8s.io"}
    assert out["subjects"] == [
        {"kind": "User", "name": "jane", "apiGroup": "rbac.authorization.k8s.io"},
        {"kind": "Group", "name": "devs", "apiGroup": "rbac.authorization.k8s.io"},
        {"kind": "ServiceAccount", "name": "sa", "namespace": "default"},  # its empty group is left out of the JSON
        {"kind": "User", "name": "bob", "apiGroup": "example.com"}]
    assert {c.stage for c in made} == {f"defaulting: SetDefaults_{kind}", "defaulting: SetDefaults_Subject"}


# --------------------------------------------------------------------------------------------
# storage.k8s.io/v1


def test_storage_class() -> None:
    # TestSetDefaultVolumeBindingMode, and the reclaim policy of SetDefaults_StorageClass
    out = defaulted(obj("storage.k8s.io/v1", "StorageClass", provisioner="example.com/csi"))
    assert (out["reclaimPolicy"], out["volumeBindingMode"]) == ("Delete", "Immediate")
    kept = defaulted(obj("storage.k8s.io/v1", "StorageClass", provisioner="p", reclaimPolicy="Retain",
                         volumeBindingMode="WaitForFirstConsumer"))
    assert (kept["reclaimPolicy"], kept["volumeBindingMode"]) == ("Retain", "WaitForFirstConsumer")


CSI_DRIVER_DEFAULTS = {"attachRequired": True, "podInfoOnMount": False, "storageCapacity": False,
                       "fsGroupPolicy": "ReadWriteOnceWithFSType", "volumeLifecycleModes": ["Persistent"],
                       "requiresRepublish": False, "seLinuxMount": False}


@pytest.mark.parametrize("version", [(1, 28), V])
def test_csi_driver(version: tuple[int, int]) -> None:
    # TestSetDefaultCSIDriver, TestSetDefaultStorageCapacityEnabled (the gates are on in every version offered)
    assert defaulted(obj("storage.k8s.io/v1", "CSIDriver", spec={}), version)["spec"] == CSI_DRIVER_DEFAULTS
    given = {"attachRequired": False, "podInfoOnMount": True, "storageCapacity": True, "fsGroupPolicy": "File",
             "volumeLifecycleModes": ["Ephemeral"], "requiresRepublish": True, "seLinuxMount": True}
    assert defaulted(obj("storage.k8s.io/v1", "CSIDriver", spec=given), version)["spec"] == given


# --------------------------------------------------------------------------------------------
# policy/v1, node.k8s.io/v1: no defaults


def test_pod_disruption_budget_has_no_defaults() -> None:
    pdb = obj("policy/v1", "PodDisruptionBudget", spec={"minAvailable": 1, "selector": SELECTOR})
    assert run(pdb) == (pdb, [])


def test_runtime_class_has_no_defaults() -> None:
    runtime_class = obj("node.k8s.io/v1", "RuntimeClass", handler="runc", overhead={"podFixed": {"cpu": "10m"}})
    assert run(runtime_class) == (runtime_class, [])


# --------------------------------------------------------------------------------------------
# autoscaling/v1 and v2

TARGET = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}


def test_hpa_v1() -> None:
    # SetDefaults_HorizontalPodAutoscaler (v1): only minReplicas; the CPU target is not a scheme default
    out = defaulted(obj("autoscaling/v1", "HorizontalPodAutoscaler", spec={"scaleTargetRef": TARGET, "maxReplicas": 3}))
    assert out["spec"] == {"scaleTargetRef": TARGET, "maxReplicas": 3, "minReplicas": 1}
    kept = defaulted(obj("autoscaling/v1", "HorizontalPodAutoscaler", spec={"minReplicas": 2, "maxReplicas": 3}))
    assert kept["spec"]["minReplicas"] == 2


def test_hpa_v2_min_replicas_and_metrics() -> None:
    # SetDefaults_HorizontalPodAutoscaler (v2): minReplicas 1 and an 80% CPU utilisation target
    out = defaulted(obj("autoscaling/v2", "HorizontalPodAutoscaler", spec={"scaleTargetRef": TARGET, "maxReplicas": 3}))
    assert out["spec"] == {"scaleTargetRef": TARGET, "maxReplicas": 3, "minReplicas": 1, "metrics": [
        {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}}}]}
    assert "behavior" not in out["spec"]
    memory = [{"type": "Resource", "resource": {"name": "memory", "target": {"type": "AverageValue",
                                                                             "averageValue": "1Gi"}}}]
    kept = defaulted(obj("autoscaling/v2", "HorizontalPodAutoscaler", spec={"maxReplicas": 3, "metrics": memory}))
    assert kept["spec"]["metrics"] == memory


def policies(pods: tuple[int, int] | None, percent: tuple[int, int] | None) -> list[dict[str, Any]] | None:
    out = []
    if pods:
        out.append({"type": "Pods", "value": pods[0], "periodSeconds": pods[1]})
    if percent:
        out.append({"type": "Percent", "value": percent[0], "periodSeconds": percent[1]})
    return out or None


SCALE_UP_CASES = [
    # TestGenerateScaleUpRules: (case, pods, percent, stabilization, select) -> (policies, stabilization, select)
    ("Default values", None, None, None, None, policies((4, 15), (100, 15)), 0, "Max"),
    ("All parameters are specified", (1, 2), (3, 4), 25, "Max", policies((1, 2), (3, 4)), 25, "Max"),
    ("Pod policy is specified", (1, 2), None, None, "Min", policies((1, 2), None), 0, "Min"),
    ("Percent policy is specified", None, (7, 10), None, None, policies(None, (7, 10)), 0, "Max"),
    ("Pod policy and stabilization window are specified", (4, 2), None, 25, None, policies((4, 2), None), 25, "Max"),
    ("Percent policy and stabilization window are specified", None, (7, 60), 25, None, policies(None, (7, 60)), 25,
     "Max"),
]
SCALE_DOWN_CASES = [
    # TestGenerateScaleDownRules
    ("Default values", None, None, None, None, policies(None, (100, 15)), None, "Max"),
    ("All parameters are specified", (1, 2), (3, 4), 25, "Max", policies((1, 2), (3, 4)), 25, "Max"),
    ("Percent policy is specified", None, (1, 2), None, "Min", policies(None, (1, 2)), None, "Min"),
    ("Pods policy is specified", (3, 4), None, None, None, policies((3, 4), None), None, "Max"),
]


def _scaling(direction: str, pods: Any, percent: Any, stabilization: Any, select: Any) -> dict[str, Any]:
    rules: dict[str, Any] = {}
    if stabilization is not None:
        rules["stabilizationWindowSeconds"] = stabilization
    if select is not None:
        rules["selectPolicy"] = select
    if policies(pods, percent):
        rules["policies"] = policies(pods, percent)
    return {direction: rules}


@pytest.mark.parametrize(("direction", "case"), [("scaleUp", c) for c in SCALE_UP_CASES]
                         + [("scaleDown", c) for c in SCALE_DOWN_CASES])
def test_hpa_behavior(direction: str, case: tuple[Any, ...]) -> None:
    _name, pods, percent, stabilization, select, want_policies, want_stabilization, want_select = case
    hpa = obj("autoscaling/v2", "HorizontalPodAutoscaler",
              spec={"maxReplicas": 3, "behavior": _scaling(direction, pods, percent, stabilization, select)})
    rules = defaulted(hpa)["spec"]["behavior"][direction]
    assert rules.get("policies") == want_policies
    assert rules.get("stabilizationWindowSeconds") == want_stabilization
    assert rules["selectPolicy"] == want_select


def test_hpa_behavior_fills_both_directions_and_keeps_tolerance() -> None:
    # SetDefaults_HorizontalPodAutoscalerBehavior: once behavior is given, both directions are complete
    scale_down = {"stabilizationWindowSeconds": 60, "tolerance": "0.05"}
    spec = {"maxReplicas": 3, "behavior": {"scaleDown": scale_down}}
    hpa = obj("autoscaling/v2", "HorizontalPodAutoscaler", spec=spec)
    out, made = run(hpa)
    behavior = out["spec"]["behavior"]
    assert behavior["scaleDown"] == {"stabilizationWindowSeconds": 60, "tolerance": "0.05", "selectPolicy": "Max",
                                     "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}]}
    assert behavior["scaleUp"]["policies"] == policies((4, 15), (100, 15))
    assert "tolerance" not in behavior["scaleUp"]
    assert any(c.stage == "defaulting: SetDefaults_HorizontalPodAutoscalerBehavior" for c in made)


# --------------------------------------------------------------------------------------------
# scheduling.k8s.io/v1, discovery.k8s.io/v1


def test_priority_class() -> None:
    # SetDefaults_PriorityClass
    assert defaulted(obj("scheduling.k8s.io/v1", "PriorityClass", value=1000))["preemptionPolicy"] == \
        "PreemptLowerPriority"
    assert defaulted(obj("scheduling.k8s.io/v1", "PriorityClass", value=1, preemptionPolicy="Never"))[
        "preemptionPolicy"] == "Never"


def test_endpoint_slice_ports() -> None:
    # SetDefaults_EndpointPort: an unnamed port gets the empty name, written out; TCP by default
    slice_ = obj("discovery.k8s.io/v1", "EndpointSlice", addressType="IPv4", endpoints=[{"addresses": ["10.0.0.1"]}],
                 ports=[{"port": 80}, {"name": "dns", "port": 53, "protocol": "UDP"}])
    assert defaulted(slice_)["ports"] == [{"port": 80, "name": "", "protocol": "TCP"},
                                          {"name": "dns", "port": 53, "protocol": "UDP"}]


# --------------------------------------------------------------------------------------------
# admissionregistration.k8s.io

V1_WEBHOOK = {"failurePolicy": "Fail", "matchPolicy": "Equivalent", "namespaceSelector": {}, "objectSelector": {},
              "timeoutSeconds": 10}
SERVICE = {"namespace": "ns", "name": "svc"}


@pytest.mark.parametrize(("kind", "webhook", "expected"), [
    # TestDefaultAdmissionWebhook (v1)
    ("ValidatingWebhookConfiguration", {"name": "w.example.com"}, {"name": "w.example.com", **V1_WEBHOOK}),
    ("MutatingWebhookConfiguration", {"name": "w.example.com"},
     {"name": "w.example.com", **V1_WEBHOOK, "reinvocationPolicy": "Never"}),
    # scope=*
    ("ValidatingWebhookConfiguration", {"name": "w", "rules": [{"operations": ["CREATE"]}]},
     {"name": "w", "rules": [{"operations": ["CREATE"], "scope": "*"}], **V1_WEBHOOK}),
    # port=443
    ("MutatingWebhookConfiguration", {"name": "w", "clientConfig": {"service": SERVICE}},
     {"name": "w", "clientConfig": {"service": {**SERVICE, "port": 443}}, **V1_WEBHOOK, "reinvocationPolicy": "Never"}),
])
def test_webhooks(kind: str, webhook: dict[str, Any], expected: dict[str, Any]) -> None:
    configuration = obj("admissionregistration.k8s.io/v1", kind, webhooks=[webhook])
    out = defaulted(configuration)
    assert out["webhooks"] == [expected]
    assert "sideEffects" not in out["webhooks"][0] and "admissionReviewVersions" not in out["webhooks"][0]


def test_webhook_settings_are_kept() -> None:
    webhook = {"name": "w", "failurePolicy": "Ignore", "matchPolicy": "Exact", "timeoutSeconds": 3,
               "namespaceSelector": {"matchLabels": {"a": "b"}}, "objectSelector": {},
               "reinvocationPolicy": "IfNeeded", "rules": [{"scope": "Namespaced"}],
               "clientConfig": {"service": {**SERVICE, "port": 8443}}}
    out = defaulted(obj("admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration", webhooks=[webhook]))
    assert out["webhooks"] == [webhook]


MATCH_DEFAULTS = {"matchPolicy": "Equivalent", "namespaceSelector": {}, "objectSelector": {}}
RULE = {"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["deployments"]}


@pytest.mark.parametrize(("api_version", "version"), [
    ("admissionregistration.k8s.io/v1", V),
    ("admissionregistration.k8s.io/v1beta1", (1, 28)),
    ("admissionregistration.k8s.io/v1alpha1", (1, 28)),
])
def test_validating_admission_policy(api_version: str, version: tuple[int, int]) -> None:
    # TestDefaultAdmissionPolicy: failurePolicy, the match constraints and their rules
    policy = obj(api_version, "ValidatingAdmissionPolicy", spec={
        "matchConstraints": {"resourceRules": [RULE], "excludeResourceRules": [{**RULE, "scope": "Namespaced"}]},
        "validations": [{"expression": "true"}]})
    spec = defaulted(policy, version)["spec"]
    assert spec == {"matchConstraints": {"resourceRules": [{**RULE, "scope": "*"}],
                                         "excludeResourceRules": [{**RULE, "scope": "Namespaced"}], **MATCH_DEFAULTS},
                    "validations": [{"expression": "true"}], "failurePolicy": "Fail"}


@pytest.mark.parametrize(("api_version", "version", "param_ref"), [
    ("admissionregistration.k8s.io/v1", V, {"name": "p"}),
    ("admissionregistration.k8s.io/v1beta1", (1, 28), {"name": "p"}),
    # only v1alpha1 defaults parameterNotFoundAction
    ("admissionregistration.k8s.io/v1alpha1", (1, 28), {"name": "p", "parameterNotFoundAction": "Deny"}),
])
def test_validating_admission_policy_binding(api_version: str, version: tuple[int, int],
                                             param_ref: dict[str, Any]) -> None:
    # TestDefaultAdmissionPolicyBinding
    binding = obj(api_version, "ValidatingAdmissionPolicyBinding", spec={
        "policyName": "p", "validationActions": ["Deny"], "paramRef": {"name": "p"},
        "matchResources": {"resourceRules": [RULE]}})
    spec = defaulted(binding, version)["spec"]
    assert spec["paramRef"] == param_ref
    assert spec["matchResources"] == {"resourceRules": [{**RULE, "scope": "*"}], **MATCH_DEFAULTS}
    bare = defaulted(obj(api_version, "ValidatingAdmissionPolicyBinding", spec={"policyName": "p"}), version)
    assert "matchResources" not in bare["spec"]


@pytest.mark.parametrize(("api_version", "version"), [
    ("admissionregistration.k8s.io/v1", V),
    ("admissionregistration.k8s.io/v1beta1", (1, 34)),
    ("admissionregistration.k8s.io/v1alpha1", (1, 32)),
])
def test_mutating_admission_policy(api_version: str, version: tuple[int, int]) -> None:
    # SetDefaults_MutatingAdmissionPolicySpec and SetDefaults_MatchResources
    policy = obj(api_version, "MutatingAdmissionPolicy", spec={
        "matchConstraints": {"resourceRules": [RULE]}, "reinvocationPolicy": "Never",
        "mutations": [{"patchType": "ApplyConfiguration", "applyConfiguration": {"expression": "Object{}"}}]})
    spec = defaulted(policy, version)["spec"]
    assert spec["failurePolicy"] == "Fail"
    assert spec["reinvocationPolicy"] == "Never"
    assert spec["matchConstraints"] == {"resourceRules": [{**RULE, "scope": "*"}], **MATCH_DEFAULTS}


# --------------------------------------------------------------------------------------------
# flowcontrol.apiserver.k8s.io/v1, resource.k8s.io/v1


def test_flow_schema() -> None:
    # SetDefaults_FlowSchemaSpec: 0 is unset
    for sent in ({}, {"matchingPrecedence": 0}):
        spec = {"priorityLevelConfiguration": {"name": "p"}, **sent}
        assert defaulted(obj("flowcontrol.apiserver.k8s.io/v1", "FlowSchema", spec=spec))["spec"][
            "matchingPrecedence"] == 1000


def test_priority_level_configuration() -> None:
    # SetDefaults_LimitedPriorityLevelConfiguration, SetDefaults_QueuingConfiguration,
    # SetDefaults_ExemptPriorityLevelConfiguration
    limited = obj("flowcontrol.apiserver.k8s.io/v1", "PriorityLevelConfiguration", spec={
        "type": "Limited", "limited": {"limitResponse": {"type": "Queue", "queuing": {"queues": 0}}}})
    assert defaulted(limited)["spec"]["limited"] == {
        "limitResponse": {"type": "Queue", "queuing": {"queues": 64, "handSize": 8, "queueLengthLimit": 50}},
        "nominalConcurrencyShares": 30, "lendablePercent": 0}
    zero = obj("flowcontrol.apiserver.k8s.io/v1", "PriorityLevelConfiguration", spec={
        "type": "Limited", "limited": {"nominalConcurrencyShares": 0, "limitResponse": {"type": "Reject"}}})
    assert defaulted(zero)["spec"]["limited"]["nominalConcurrencyShares"] == 0  # a pointer in v1: 0 is kept
    exempt = obj("flowcontrol.apiserver.k8s.io/v1", "PriorityLevelConfiguration", spec={"type": "Exempt", "exempt": {}})
    assert defaulted(exempt)["spec"]["exempt"] == {"nominalConcurrencyShares": 0, "lendablePercent": 0}


@pytest.mark.parametrize(("version", "annotations", "shares"), [
    ((1, 28), {}, 30),
    ((1, 29), {}, 30),
    ((1, 29), {"flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares": ""}, 0),
    # 1.28 had no such annotation: 0 is always unset there
    ((1, 28), {"flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares": ""}, 30),
])
def test_priority_level_configuration_v1beta3(version: tuple[int, int], annotations: dict[str, str],
                                              shares: int) -> None:
    # SetDefaults_PriorityLevelConfiguration / SetDefaults_LimitedPriorityLevelConfiguration (v1beta3)
    level = obj("flowcontrol.apiserver.k8s.io/v1beta3", "PriorityLevelConfiguration", spec={
        "type": "Limited", "limited": {"nominalConcurrencyShares": 0, "limitResponse": {"type": "Reject"}}})
    level["metadata"]["annotations"] = annotations
    limited = defaulted(level, version)["spec"]["limited"]
    assert limited == {"nominalConcurrencyShares": shares, "limitResponse": {"type": "Reject"}, "lendablePercent": 0}


def test_resource_claim() -> None:
    # SetDefaults_ExactDeviceRequest, SetDefaults_DeviceSubRequest, the operator marker of DeviceToleration
    claim = obj("resource.k8s.io/v1", "ResourceClaim", spec={"devices": {"requests": [
        {"name": "a", "exactly": {"deviceClassName": "gpu", "tolerations": [{"key": "k"}]}},
        {"name": "b", "exactly": {"deviceClassName": "gpu", "allocationMode": "All"}},
        {"name": "c", "firstAvailable": [{"name": "one", "deviceClassName": "gpu", "count": 2}]}]}})
    out, made = run(claim, (1, 34))
    requests = out["spec"]["devices"]["requests"]
    assert requests[0]["exactly"] == {"deviceClassName": "gpu", "tolerations": [{"key": "k", "operator": "Equal"}],
                                      "allocationMode": "ExactCount", "count": 1}
    assert requests[1]["exactly"] == {"deviceClassName": "gpu", "allocationMode": "All"}
    assert requests[2]["firstAvailable"] == [{"name": "one", "deviceClassName": "gpu", "count": 2,
                                              "allocationMode": "ExactCount"}]
    assert "defaulting: +default marker: DeviceToleration.operator" in {c.stage for c in made}


def test_resource_claim_v1beta1_and_v1beta2() -> None:
    # SetDefaults_DeviceRequest (v1beta1: a request with a device class), SetDefaults_DeviceSubRequest;
    # v1beta2 has v1's layout
    beta1 = obj("resource.k8s.io/v1beta1", "ResourceClaim", spec={"devices": {"requests": [
        {"name": "a", "deviceClassName": "gpu"},
        {"name": "b", "firstAvailable": [{"name": "one", "deviceClassName": "gpu", "tolerations": [{"key": "k"}]}]}]}})
    requests = defaulted(beta1, (1, 33))["spec"]["devices"]["requests"]
    assert requests[0] == {"name": "a", "deviceClassName": "gpu", "allocationMode": "ExactCount", "count": 1}
    assert requests[1] == {"name": "b", "firstAvailable": [
        {"name": "one", "deviceClassName": "gpu", "tolerations": [{"key": "k", "operator": "Equal"}],
         "allocationMode": "ExactCount", "count": 1}]}
    beta2 = obj("resource.k8s.io/v1beta2", "ResourceClaimTemplate", spec={"spec": {"devices": {"requests": [
        {"name": "a", "exactly": {"deviceClassName": "gpu"}}]}}})
    assert defaulted(beta2, (1, 33))["spec"]["spec"]["devices"]["requests"] == [
        {"name": "a", "exactly": {"deviceClassName": "gpu", "allocationMode": "ExactCount", "count": 1}}]


def test_resource_slice_taints_get_a_time() -> None:
    # SetDefaults_DeviceTaint: the current time, to the second
    slice_ = obj("resource.k8s.io/v1", "ResourceSlice", spec={"driver": "d", "pool": {"name": "p", "generation": 1,
                 "resourceSliceCount": 1}, "nodeName": "n", "devices": [{"name": "g", "taints": [
                     {"key": "k", "effect": "NoSchedule"}, {"key": "l", "effect": "NoSchedule",
                                                            "timeAdded": "2020-01-01T00:00:00Z"}]}]})
    taints = defaulted(slice_, (1, 34))["spec"]["devices"][0]["taints"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", taints[0]["timeAdded"])
    assert taints[1]["timeAdded"] == "2020-01-01T00:00:00Z"


@pytest.mark.parametrize(("api_version", "version"), [
    ("certificates.k8s.io/v1alpha1", (1, 34)),
    ("certificates.k8s.io/v1beta1", (1, 35)),
    ("certificates.k8s.io/v1", (1, 37)),
])
def test_pod_certificate_request(api_version: str, version: tuple[int, int]) -> None:
    # the +default marker of PodCertificateRequestSpec.maxExpirationSeconds: one day
    request = obj(api_version, "PodCertificateRequest", spec={"signerName": "example.com/s", "podName": "p"})
    out, made = run(request, version)
    assert out["spec"]["maxExpirationSeconds"] == 86400
    assert [c.stage for c in made] == ["defaulting: +default marker: PodCertificateRequestSpec.maxExpirationSeconds"]
    kept = obj(api_version, "PodCertificateRequest", spec={"maxExpirationSeconds": 3600})
    assert run(kept, version)[0]["spec"]["maxExpirationSeconds"] == 3600


def test_certificate_signing_request_has_no_defaults() -> None:
    csr = obj("certificates.k8s.io/v1", "CertificateSigningRequest", spec={
        "request": "LS0t", "signerName": "kubernetes.io/kube-apiserver-client"})
    assert run(csr) == (csr, [])


# --------------------------------------------------------------------------------------------
# objects as users write them

DEPLOYMENT_YAML = """
apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx
  labels: {app: nginx}
spec:
  selector:
    matchLabels: {app: nginx}
  template:
    metadata:
      labels: {app: nginx}
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
        ports:
        - containerPort: 80
"""

CRON_JOB_YAML = """
apiVersion: batch/v1
kind: CronJob
metadata:
  name: hello
spec:
  schedule: "*/5 * * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers:
          - name: hello
            image: busybox:1.36
            command: [sh, -c, date; echo Hello]
"""

STORAGE_CLASS_YAML = """
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: fast
provisioner: ebs.csi.aws.com
parameters:
  type: gp3
allowVolumeExpansion: true
"""


@pytest.mark.parametrize("version", SUPPORTED_VERSIONS)
def test_pasted_deployment(version: str) -> None:
    major, minor = (int(part) for part in version.split("."))
    sent = yaml.safe_load(DEPLOYMENT_YAML)
    out, made = run(sent, (major, minor))
    spec = out["spec"]
    assert spec["replicas"] == 1
    assert spec["strategy"] == DEPLOYMENT_DEFAULT_STRATEGY
    assert (spec["revisionHistoryLimit"], spec["progressDeadlineSeconds"]) == (10, 600)
    assert spec["selector"] == sent["spec"]["selector"] and out["metadata"] == sent["metadata"]
    assert sent == yaml.safe_load(DEPLOYMENT_YAML)  # the object given is left as it was
    assert {c.to_json()["path"] for c in made if c.stage == "defaulting: SetDefaults_Deployment"} == {
        "spec.replicas", "spec.strategy", "spec.revisionHistoryLimit", "spec.progressDeadlineSeconds"}


def test_pasted_cron_job() -> None:
    out = run(yaml.safe_load(CRON_JOB_YAML))[0]
    spec = out["spec"]
    assert {k: spec[k] for k in CRON_JOB_DEFAULTS} == CRON_JOB_DEFAULTS
    assert spec["schedule"] == "*/5 * * * *"
    # the job template is not a Job: no completions, backoff limit or the like
    assert set(spec["jobTemplate"]["spec"]) == {"template"}


def test_pasted_storage_class() -> None:
    out, made = run(yaml.safe_load(STORAGE_CLASS_YAML))
    assert out == {**yaml.safe_load(STORAGE_CLASS_YAML), "reclaimPolicy": "Delete", "volumeBindingMode": "Immediate"}
    assert [(c.stage, c.to_json()) for c in made] == [
        ("defaulting: SetDefaults_StorageClass", {"stage": "defaulting: SetDefaults_StorageClass",
                                                  "path": "reclaimPolicy", "op": "add", "after": "Delete"}),
        ("defaulting: SetDefaults_StorageClass", {"stage": "defaulting: SetDefaults_StorageClass",
                                                  "path": "volumeBindingMode", "op": "add", "after": "Immediate"}),
    ]


# --------------------------------------------------------------------------------------------
# registrations

REGISTERED = {
    "io.k8s.api.apps.v1.Deployment": ["SetDefaults_Deployment"],
    "io.k8s.api.apps.v1.StatefulSet": ["SetDefaults_StatefulSet"],
    "io.k8s.api.apps.v1.DaemonSet": ["SetDefaults_DaemonSet"],
    "io.k8s.api.apps.v1.ReplicaSet": ["SetDefaults_ReplicaSet"],
    "io.k8s.api.batch.v1.Job": ["SetDefaults_Job"],
    "io.k8s.api.batch.v1.CronJob": ["SetDefaults_CronJob"],
    "io.k8s.api.batch.v1.PodFailurePolicyOnPodConditionsPattern": [
        "SetDefaults_PodFailurePolicyOnPodConditionsPattern"],
    "io.k8s.api.networking.v1.NetworkPolicy": ["SetDefaults_NetworkPolicy"],
    "io.k8s.api.networking.v1.NetworkPolicyPort": ["SetDefaults_NetworkPolicyPort"],
    "io.k8s.api.networking.v1.IngressClass": ["SetDefaults_IngressClass"],
    "io.k8s.api.rbac.v1.RoleBinding": ["SetDefaults_RoleBinding"],
    "io.k8s.api.rbac.v1.ClusterRoleBinding": ["SetDefaults_ClusterRoleBinding"],
    "io.k8s.api.rbac.v1.Subject": ["SetDefaults_Subject"],
    "io.k8s.api.storage.v1.StorageClass": ["SetDefaults_StorageClass"],
    "io.k8s.api.storage.v1.CSIDriver": ["SetDefaults_CSIDriver"],
    "io.k8s.api.autoscaling.v1.HorizontalPodAutoscaler": ["SetDefaults_HorizontalPodAutoscaler"],
    "io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler": ["SetDefaults_HorizontalPodAutoscaler",
                                                          "SetDefaults_HorizontalPodAutoscalerBehavior"],
    "io.k8s.api.scheduling.v1.PriorityClass": ["SetDefaults_PriorityClass"],
    "io.k8s.api.discovery.v1.EndpointPort": ["SetDefaults_EndpointPort"],
    "io.k8s.api.admissionregistration.v1.ValidatingWebhook": ["SetDefaults_ValidatingWebhook"],
    "io.k8s.api.admissionregistration.v1.MutatingWebhook": ["SetDefaults_MutatingWebhook"],
    "io.k8s.api.admissionregistration.v1.RuleWithOperations": ["SetDefaults_Rule"],
    "io.k8s.api.admissionregistration.v1.NamedRuleWithOperations": ["SetDefaults_Rule"],
    "io.k8s.api.admissionregistration.v1.ServiceReference": ["SetDefaults_ServiceReference"],
    "io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicySpec": ["SetDefaults_ValidatingAdmissionPolicySpec"],
    "io.k8s.api.admissionregistration.v1.MutatingAdmissionPolicySpec": ["SetDefaults_MutatingAdmissionPolicySpec"],
    "io.k8s.api.admissionregistration.v1.MatchResources": ["SetDefaults_MatchResources"],
    "io.k8s.api.admissionregistration.v1beta1.ValidatingAdmissionPolicySpec": [
        "SetDefaults_ValidatingAdmissionPolicySpec"],
    "io.k8s.api.admissionregistration.v1beta1.MutatingAdmissionPolicySpec": ["SetDefaults_MutatingAdmissionPolicySpec"],
    "io.k8s.api.admissionregistration.v1beta1.MatchResources": ["SetDefaults_MatchResources"],
    "io.k8s.api.admissionregistration.v1beta1.NamedRuleWithOperations": ["SetDefaults_Rule"],
    "io.k8s.api.admissionregistration.v1alpha1.ValidatingAdmissionPolicySpec": [
        "SetDefaults_ValidatingAdmissionPolicySpec"],
    "io.k8s.api.admissionregistration.v1alpha1.MutatingAdmissionPolicySpec": [
        "SetDefaults_MutatingAdmissionPolicySpec"],
    "io.k8s.api.admissionregistration.v1alpha1.MatchResources": ["SetDefaults_MatchResources"],
    "io.k8s.api.admissionregistration.v1alpha1.NamedRuleWithOperations": ["SetDefaults_Rule"],
    "io.k8s.api.admissionregistration.v1alpha1.ParamRef": ["SetDefaults_ParamRef"],
    "io.k8s.api.flowcontrol.v1.FlowSchemaSpec": ["SetDefaults_FlowSchemaSpec"],
    "io.k8s.api.flowcontrol.v1.ExemptPriorityLevelConfiguration": ["SetDefaults_ExemptPriorityLevelConfiguration"],
    "io.k8s.api.flowcontrol.v1.LimitedPriorityLevelConfiguration": ["SetDefaults_LimitedPriorityLevelConfiguration"],
    "io.k8s.api.flowcontrol.v1.QueuingConfiguration": ["SetDefaults_QueuingConfiguration"],
    "io.k8s.api.flowcontrol.v1beta3.FlowSchemaSpec": ["SetDefaults_FlowSchemaSpec"],
    "io.k8s.api.flowcontrol.v1beta3.PriorityLevelConfiguration": ["SetDefaults_PriorityLevelConfiguration"],
    "io.k8s.api.flowcontrol.v1beta3.ExemptPriorityLevelConfiguration": ["SetDefaults_ExemptPriorityLevelConfiguration"],
    "io.k8s.api.flowcontrol.v1beta3.LimitedPriorityLevelConfiguration": [
        "SetDefaults_LimitedPriorityLevelConfiguration"],
    "io.k8s.api.flowcontrol.v1beta3.QueuingConfiguration": ["SetDefaults_QueuingConfiguration"],
    "io.k8s.api.resource.v1.ExactDeviceRequest": ["SetDefaults_ExactDeviceRequest"],
    "io.k8s.api.resource.v1.DeviceSubRequest": ["SetDefaults_DeviceSubRequest"],
    "io.k8s.api.resource.v1.DeviceToleration": ["+default marker: DeviceToleration.operator"],
    "io.k8s.api.resource.v1.DeviceTaint": ["SetDefaults_DeviceTaint"],
    "io.k8s.api.resource.v1beta2.ExactDeviceRequest": ["SetDefaults_ExactDeviceRequest"],
    "io.k8s.api.resource.v1beta2.DeviceSubRequest": ["SetDefaults_DeviceSubRequest"],
    "io.k8s.api.resource.v1beta2.DeviceToleration": ["+default marker: DeviceToleration.operator"],
    "io.k8s.api.resource.v1beta2.DeviceTaint": ["SetDefaults_DeviceTaint"],
    "io.k8s.api.resource.v1beta1.DeviceRequest": ["SetDefaults_DeviceRequest"],
    "io.k8s.api.resource.v1beta1.DeviceSubRequest": ["SetDefaults_DeviceSubRequest"],
    "io.k8s.api.resource.v1beta1.DeviceToleration": ["+default marker: DeviceToleration.operator"],
    "io.k8s.api.resource.v1beta1.DeviceTaint": ["SetDefaults_DeviceTaint"],
    "io.k8s.api.certificates.v1.PodCertificateRequestSpec": [
        "+default marker: PodCertificateRequestSpec.maxExpirationSeconds"],
    "io.k8s.api.certificates.v1beta1.PodCertificateRequestSpec": [
        "+default marker: PodCertificateRequestSpec.maxExpirationSeconds"],
    "io.k8s.api.certificates.v1alpha1.PodCertificateRequestSpec": [
        "+default marker: PodCertificateRequestSpec.maxExpirationSeconds"],
}


@pytest.mark.parametrize(("definition", "names"), sorted(REGISTERED.items()))
def test_registered_on_a_definition_of_the_schemas(definition: str, names: list[str]) -> None:
    assert [entry.name for entry in defaulting.registered(definition)] == names
    assert any(schema_set(v).definition(definition) is not None for v in SUPPORTED_VERSIONS), definition
