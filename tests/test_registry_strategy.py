"""The registry's steps between mutating and validating admission (app/vap/registry, the field manager and
strategy stages): system fields, each kind's PrepareForCreate/PrepareForUpdate and metadata.managedFields.

Where Kubernetes has a unit test for the behaviour, the test says which one it restates."""

from __future__ import annotations

import copy
from typing import Any

import pytest
import yaml

from app.vap import fast
from app.vap.evaluate import evaluate
from app.vap.registry import fieldsets, meta, qos, strategies
from app.vap.schemas import schema_set

V = (1, 34)


def run(obj: str | dict[str, Any], old: str | dict[str, Any] | None = None, request: dict[str, Any] | None = None,
        version: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"object": obj if isinstance(obj, str) else yaml.safe_dump(obj)}
    if old is not None:
        body["oldObject"] = old if isinstance(old, str) else yaml.safe_dump(old)
    if request is not None:
        body["request"] = yaml.safe_dump(request)
    if version is not None:
        body["kubernetesVersion"] = version
    return evaluate(body)


DEPLOYMENT = {
    "apiVersion": "apps/v1", "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}},
    "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
             "template": {"metadata": {"labels": {"app": "web"}},
                          "spec": {"containers": [{"name": "nginx", "image": "nginx:1.25"}]}}},
}


# ---------------------------------------------------------------------------------------------------
# QoS: TestComputePodQOS (pkg/apis/core/v1/helper/qos/qos_test.go)


def _resources(cpu: str, memory: str) -> dict[str, str]:
    return {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v}


def _container(name: str, requests: dict[str, str], limits: dict[str, str]) -> dict[str, Any]:
    resources = {k: v for k, v in (("requests", requests), ("limits", limits)) if v}
    return {"name": name, "image": "x", "resources": resources}


def _pod(containers: list[dict[str, Any]], init: list[dict[str, Any]] | None = None,
         pod_resources: dict[str, Any] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": containers}
    if init:
        spec["initContainers"] = init
    if pod_resources is not None:
        spec["resources"] = pod_resources
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": spec}


G = _container("guaranteed", _resources("100m", "100Mi"), _resources("100m", "100Mi"))
BE = _container("best-effort", {}, {})

QOS_CASES = [
    ("guaranteed", _pod([G]), qos.GUARANTEED),
    ("guaranteed-guaranteed", _pod([G, G]), qos.GUARANTEED),
    ("best-effort-best-effort", _pod([BE, BE]), qos.BEST_EFFORT),
    ("best-effort", _pod([BE]), qos.BEST_EFFORT),
    ("best-effort-burstable", _pod([BE, _container("b", _resources("1", ""), _resources("2", ""))]), qos.BURSTABLE),
    ("best-effort-guaranteed", _pod([BE, _container("g", _resources("10m", "100Mi"), _resources("10m", "100Mi"))]),
     qos.BURSTABLE),
    ("burstable-cpu-guaranteed-memory", _pod([_container("b", _resources("", "100Mi"), _resources("", "100Mi"))]),
     qos.BURSTABLE),
    ("burstable-no-limits", _pod([_container("b", _resources("100m", "100Mi"), {})]), qos.BURSTABLE),
    ("burstable-guaranteed", _pod([_container("b", _resources("1", "100Mi"), _resources("2", "100Mi")), G]),
     qos.BURSTABLE),
    ("burstable-unbounded-but-requests-match-limits",
     _pod([_container("b", _resources("100m", "100Mi"), _resources("200m", "200Mi")),
           _container("u", _resources("100m", "100Mi"), {})]), qos.BURSTABLE),
    ("burstable-1", _pod([_container("b", _resources("10m", "100Mi"), _resources("100m", "200Mi"))]), qos.BURSTABLE),
    ("burstable-2", _pod([_container("b", _resources("0", "0"), _resources("100m", "200Mi"))]), qos.BURSTABLE),
    ("best-effort-hugepages", _pod([_container("h", {"cpu": "0", "memory": "0", "hugepages-2Mi": "1Gi"},
                                               {"cpu": "0", "memory": "0", "hugepages-2Mi": "1Gi"})]),
     qos.BEST_EFFORT),
    ("init-container", _pod([BE], init=[_container("b", _resources("10m", "100Mi"), _resources("100m", "200Mi"))]),
     qos.BURSTABLE),
    ("guaranteed-with-pod-level-resources",
     _pod([BE], pod_resources={"requests": _resources("10m", "100Mi"), "limits": _resources("10m", "100Mi")}),
     qos.GUARANTEED),
    ("guaranteed-with-pod-and-container-level-resources",
     _pod([_container("b", _resources("3m", "10Mi"), _resources("5m", "20Mi"))],
          pod_resources={"requests": _resources("10m", "100Mi"), "limits": _resources("10m", "100Mi")}),
     qos.GUARANTEED),
    ("burstable-with-pod-level-resources",
     _pod([BE], pod_resources={"requests": _resources("10m", "10Mi"), "limits": _resources("20m", "50Mi")}),
     qos.BURSTABLE),
    ("burstable-with-pod-and-container-level-requests",
     _pod([_container("b", _resources("5m", "10Mi"), {})], pod_resources={"requests": _resources("10m", "10Mi")}),
     qos.BURSTABLE),
    ("burstable-with-pod-and-container-level-resources-2",
     _pod([_container("b", _resources("5m", "10Mi"), {}), _container("g", _resources("5m", "10Mi"),
                                                                     _resources("5m", "10Mi"))],
          pod_resources={"requests": _resources("10m", "10Mi"), "limits": _resources("5m", "")}), qos.BURSTABLE),
]


@pytest.mark.parametrize(("name", "pod", "expected"), QOS_CASES, ids=[c[0] for c in QOS_CASES])
def test_compute_pod_qos(name: str, pod: dict[str, Any], expected: str) -> None:
    """TestComputePodQOS: the QoS class from the containers' (or the pod's) cpu and memory."""
    assert qos.compute_pod_qos(pod, V) == expected


def test_pod_level_resources_count_only_from_1_34() -> None:
    """ComputePodQOS uses pod-level resources behind PodLevelResources (beta, on, from 1.34)."""
    pod = _pod([BE], pod_resources={"requests": _resources("10m", "100Mi"), "limits": _resources("10m", "100Mi")})
    assert qos.compute_pod_qos(pod, (1, 33)) == qos.BEST_EFFORT
    assert qos.compute_pod_qos(pod, (1, 34)) == qos.GUARANTEED


def test_get_pod_qos_keeps_the_class_the_status_names() -> None:
    """GetPodQOS (pkg/apis/core/helper/qos): a class already in the status is the pod's class; the pod strategy
    computes the new status from the pod as it was sent."""
    pod = _pod([BE])
    pod["status"] = {"qosClass": "Guaranteed", "phase": "Running"}
    out = run(pod)["object"]
    assert out["status"] == {"phase": "Pending", "qosClass": "Guaranteed"}


def test_get_pod_qos_on_create() -> None:
    """TestGetPodQOS (pkg/registry/core/pod/strategy_test.go): PrepareForCreate sets status.qosClass."""
    for pod, expected in ((_pod([G]), "Guaranteed"), (_pod([BE]), "BestEffort"),
                          (_pod([_container("b", _resources("100m", "100Mi"), {})]), "Burstable")):
        assert run(pod)["object"]["status"]["qosClass"] == expected


# ---------------------------------------------------------------------------------------------------
# Pod


def test_scheduling_gated_condition() -> None:
    """TestSchedulingGatedCondition (pkg/registry/core/pod/strategy_test.go): a pod with scheduling gates gets the
    PodScheduled=False condition with reason SchedulingGated; one without gets no condition."""
    gated = _pod([BE])
    gated["spec"]["schedulingGates"] = [{"name": "foo"}]
    assert run(gated)["object"]["status"]["conditions"] == [{
        "type": "PodScheduled", "status": "False", "reason": "SchedulingGated",
        "message": "Scheduling is blocked due to non-empty scheduling gates"}]
    assert "conditions" not in run(_pod([BE]))["object"]["status"]


def test_pod_generation_from_1_33() -> None:
    """podStrategy.PrepareForCreate sets generation 1 (from 1.33); before, a pod has none."""
    assert run(_pod([BE]), version="1.33")["object"]["metadata"]["generation"] == 1
    assert "generation" not in run(_pod([BE]), version="1.32")["object"]["metadata"]


def test_pod_update_keeps_status_and_bumps_generation_on_spec_change() -> None:
    """podStrategy.PrepareForUpdate: the stored status is kept; updatePodGeneration bumps on a spec change."""
    old = _pod([G])
    old["metadata"].update({"namespace": "default", "generation": 3, "uid": "u-1", "resourceVersion": "9"})
    old["status"] = {"phase": "Running", "qosClass": "Guaranteed"}
    # as stored after its create went through DefaultTolerationSeconds (which acts on updates too)
    old["spec"]["tolerations"] = [{"key": f"node.kubernetes.io/{taint}", "operator": "Exists", "effect": "NoExecute",
                                   "tolerationSeconds": 300} for taint in ("not-ready", "unreachable")]
    new = copy.deepcopy(old)
    new["status"] = {"phase": "Failed"}
    new["spec"]["activeDeadlineSeconds"] = 30
    out = run(new, old)["object"]
    assert out["status"] == {"phase": "Running", "qosClass": "Guaranteed"}
    assert out["metadata"]["generation"] == 4
    new["spec"] = copy.deepcopy(old["spec"])
    assert run(new, old)["object"]["metadata"]["generation"] == 3


def test_pod_status_update_keeps_spec_and_owner_references() -> None:
    """podStatusStrategy.PrepareForUpdate: the spec and ownerReferences of the stored pod are kept."""
    old = _pod([G])
    old["metadata"].update({"namespace": "default", "ownerReferences": [
        {"apiVersion": "v1", "kind": "Node", "name": "n", "uid": "x"}]})
    old["status"] = {"phase": "Pending"}
    new = copy.deepcopy(old)
    new["spec"]["containers"][0]["image"] = "evil"
    new["metadata"]["ownerReferences"] = []
    new["status"] = {"phase": "Running"}
    out = run(new, old, {"subResource": "status", "resource": {"group": "", "version": "v1", "resource": "pods"}})
    assert out["object"]["spec"]["containers"][0]["image"] == "x"
    assert out["object"]["metadata"]["ownerReferences"] == old["metadata"]["ownerReferences"]
    assert out["object"]["status"]["phase"] == "Running"


# ---------------------------------------------------------------------------------------------------
# Namespace: TestNamespaceStrategy, TestNamespaceStatusStrategy (pkg/registry/core/namespace/strategy_test.go)


def test_namespace_strategy() -> None:
    """TestNamespaceStrategy: create sets phase Active (whatever was sent) and the kubernetes finalizer; an
    update keeps the stored spec.finalizers and leaves the incoming resourceVersion alone."""
    ns = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "foo", "resourceVersion": "10"},
          "status": {"phase": "Terminating"}}
    obj = copy.deepcopy(ns)
    strategies.prepare_for_create(strategies.STRATEGIES[("", "Namespace")], obj, V, False)
    assert obj["status"] == {"phase": "Active"}
    assert obj["spec"]["finalizers"] == ["kubernetes"]
    invalid = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "bar", "resourceVersion": "4"}}
    strategies.prepare_for_update(strategies.STRATEGIES[("", "Namespace")], invalid, obj, V, False, "")
    assert invalid["spec"]["finalizers"] == ["kubernetes"]
    assert invalid["metadata"]["resourceVersion"] == "4"


def test_namespace_status_strategy() -> None:
    """TestNamespaceStatusStrategy: a status update may change the phase and keeps the stored finalizers."""
    old = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "foo", "resourceVersion": "10"},
           "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}}
    new = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "foo", "resourceVersion": "9"},
           "status": {"phase": "Terminating"}}
    strategies.prepare_for_update(strategies.STRATEGIES[("", "Namespace")], new, old, V, False, "status")
    assert new["status"]["phase"] == "Terminating"
    assert new["spec"]["finalizers"] == ["kubernetes"]
    assert new["metadata"]["resourceVersion"] == "9"


def test_namespace_create_appends_the_finalizer_to_others() -> None:
    """namespaceStrategy.PrepareForCreate appends kubernetes to finalizers already given."""
    out = run({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"},
               "spec": {"finalizers": ["example.com/x"]}})["object"]
    assert out["spec"]["finalizers"] == ["example.com/x", "kubernetes"]
    assert out["status"] == {"phase": "Active"}


# ---------------------------------------------------------------------------------------------------
# Deployment and the workload kinds


def test_deployment_status_updates() -> None:
    """TestStatusUpdates (pkg/registry/apps/deployment/strategy_test.go): a status update cannot change the
    labels (nor the spec), but may change the annotations."""
    old = copy.deepcopy(DEPLOYMENT)
    old["metadata"].update({"labels": {"test": "label"}, "annotations": {"test": "annotation"}})
    request = {"subResource": "status", "resource": {"group": "apps", "version": "v1", "resource": "deployments"}}
    sneaky_label = copy.deepcopy(old)
    sneaky_label["metadata"]["labels"]["sneaky"] = "label"
    assert run(sneaky_label, old, request)["object"]["metadata"]["labels"] == {"test": "label"}
    sneaky_annotation = copy.deepcopy(old)
    sneaky_annotation["metadata"]["annotations"]["sneaky"] = "annotation"
    sneaky_annotation["spec"]["replicas"] = 9
    out = run(sneaky_annotation, old, request)["object"]
    assert out["metadata"]["annotations"] == {"test": "annotation", "sneaky": "annotation"}
    assert out["spec"]["replicas"] == 2


def test_deployment_create_resets_status_and_sets_generation() -> None:
    """deploymentStrategy.PrepareForCreate: status {} and generation 1."""
    obj = copy.deepcopy(DEPLOYMENT)
    obj["status"] = {"replicas": 5}
    obj["metadata"]["generation"] = 7
    out = run(obj)["object"]
    assert out["status"] == {}
    assert out["metadata"]["generation"] == 1


def test_deployment_update_generation() -> None:
    """deploymentStrategy.PrepareForUpdate: a spec or annotation change bumps the generation; a label change
    does not; the status is the stored one."""
    old = copy.deepcopy(DEPLOYMENT)
    old["metadata"].update({"generation": 4, "resourceVersion": "7"})
    old["status"] = {"replicas": 2}
    for change, expected in ((lambda o: o["spec"].update(replicas=3), 5),
                             (lambda o: o["metadata"].update(annotations={"a": "b"}), 5),
                             (lambda o: o["metadata"]["labels"].update(tier="x"), 4)):
        new = copy.deepcopy(old)
        new.pop("status")
        change(new)
        out = run(new, old)["object"]
        assert out["metadata"]["generation"] == expected
        assert out["status"] == {"replicas": 2}


@pytest.mark.parametrize(("kind", "api_version", "status"), [
    ("StatefulSet", "apps/v1", {"availableReplicas": 0, "replicas": 0}),
    ("DaemonSet", "apps/v1", {"currentNumberScheduled": 0, "desiredNumberScheduled": 0, "numberMisscheduled": 0,
                              "numberReady": 0}),
    ("ReplicaSet", "apps/v1", {"replicas": 0}),
])
def test_workload_status_on_create(kind: str, api_version: str, status: dict[str, Any]) -> None:
    """PrepareForCreate of StatefulSet, DaemonSet, ReplicaSet: the zero status (as serialized) and generation 1."""
    obj = copy.deepcopy(DEPLOYMENT)
    obj.update(kind=kind, apiVersion=api_version, status={"numberReady": 3} if kind == "DaemonSet" else {"replicas": 3})
    if kind == "DaemonSet":
        obj["spec"].pop("replicas")
    if kind == "StatefulSet":
        obj["spec"]["serviceName"] = "web"
    out = run(obj)["object"]
    assert out["status"] == status
    assert out["metadata"]["generation"] == 1


def test_job_selector_is_generated() -> None:
    """TestJobStrategy (pkg/registry/batch/job/strategy_test.go): without manualSelector the Job gets the
    controller-uid selector and the job-name and controller-uid labels on its pod template, from its uid."""
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "myjob", "namespace": "default"},
           "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "b"}]}}}}
    out = run(job)["object"]
    uid = out["metadata"]["uid"]
    assert out["spec"]["selector"] == {"matchLabels": {"batch.kubernetes.io/controller-uid": uid}}
    assert out["spec"]["template"]["metadata"]["labels"] == {
        "job-name": "myjob", "batch.kubernetes.io/job-name": "myjob", "controller-uid": uid,
        "batch.kubernetes.io/controller-uid": uid}
    assert out["metadata"]["generation"] == 1 and out["status"] == {}
    manual = copy.deepcopy(job)
    manual["spec"].update(manualSelector=True, selector={"matchLabels": {"a": "b"}})
    manual["spec"]["template"]["metadata"] = {"labels": {"a": "b"}}
    out = run(manual)["object"]
    assert out["spec"]["selector"] == {"matchLabels": {"a": "b"}}
    assert out["spec"]["template"]["metadata"]["labels"] == {"a": "b"}


@pytest.mark.parametrize(("obj", "status"), [
    ({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}, "spec": {"ports": [{"port": 80}]},
      "status": {"loadBalancer": {"ingress": [{"ip": "1.2.3.4"}]}}}, {"loadBalancer": {}}),
    ({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "c"},
      "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
      "status": {"phase": "Bound"}}, {}),
    ({"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": {"name": "i"},
      "spec": {"defaultBackend": {"service": {"name": "s", "port": {"number": 80}}}},
      "status": {"loadBalancer": {"ingress": [{"ip": "1.2.3.4"}]}}}, {"loadBalancer": {}}),
    ({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "p"},
      "spec": {"minAvailable": 1}, "status": {"currentHealthy": 3}},
     {"currentHealthy": 0, "desiredHealthy": 0, "disruptionsAllowed": 0, "expectedPods": 0}),
    ({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "h"},
      "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}, "maxReplicas": 5},
      "status": {"currentReplicas": 3}}, {"currentMetrics": None, "desiredReplicas": 0}),
])
def test_status_reset_on_create(obj: dict[str, Any], status: dict[str, Any]) -> None:
    """PrepareForCreate of Service, PVC, Ingress, PDB and HPA: a create cannot set the status."""
    assert run(obj)["object"]["status"] == status


# ---------------------------------------------------------------------------------------------------
# Custom resources (customResourceStrategy)


CRD = """apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {size: {type: integer}}}
          status: {type: object, properties: {ready: {type: boolean}}}
"""


def _cr_body(obj: dict[str, Any], old: dict[str, Any] | None = None) -> dict[str, Any]:
    body = {"params": CRD, "object": yaml.safe_dump(obj)}
    if old is not None:
        body["oldObject"] = yaml.safe_dump(old)
    return body


def test_custom_resource_create_and_update() -> None:
    """customResourceStrategy: with the status subresource a create drops the status; generation 1; an update
    keeps the stored status and bumps the generation for a change outside metadata only."""
    widget = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w", "namespace": "default"},
              "spec": {"size": 1}, "status": {"ready": True}}
    out = evaluate(_cr_body(widget))["object"]
    assert "status" not in out and out["metadata"]["generation"] == 1
    old = copy.deepcopy(widget)
    old["metadata"].update({"generation": 2, "resourceVersion": "5"})
    new = copy.deepcopy(widget)
    new["status"] = {"ready": False}
    new["spec"]["size"] = 2
    out = evaluate(_cr_body(new, old))["object"]
    assert out["status"] == {"ready": True} and out["metadata"]["generation"] == 3
    labels_only = copy.deepcopy(old)
    labels_only["metadata"]["labels"] = {"a": "b"}
    assert evaluate(_cr_body(labels_only, old))["object"]["metadata"]["generation"] == 2


# ---------------------------------------------------------------------------------------------------
# System fields (BeforeCreate, BeforeUpdate, the store)


def test_create_system_fields() -> None:
    """FillObjectMetaSystemFields after WipeObjectMetaSystemFields: a derived uid and the fixed instant."""
    obj = copy.deepcopy(DEPLOYMENT)
    obj["metadata"].update({"uid": "client-chosen", "creationTimestamp": "2020-01-01T00:00:00Z",
                            "deletionTimestamp": "2020-01-01T00:00:00Z", "deletionGracePeriodSeconds": 5})
    md = run(obj)["object"]["metadata"]
    assert md["uid"] == meta.generated_uid("apps/v1", "Deployment", "default", "web") != "client-chosen"
    assert md["creationTimestamp"] == meta.NOW
    assert "deletionTimestamp" not in md and "deletionGracePeriodSeconds" not in md


def test_uid_is_stable_and_shaped_like_a_uuid() -> None:
    uid = meta.generated_uid("v1", "Pod", "default", "web")
    assert uid == meta.generated_uid("v1", "Pod", "default", "web") != meta.generated_uid("v1", "Pod", "x", "web")
    assert len(uid) == 36 and uid[14] == "4"


def test_update_keeps_stored_system_fields() -> None:
    """BeforeUpdate: uid (when none is sent), creationTimestamp, deletionTimestamp and generation come from the
    stored object; the store takes its resourceVersion for an update without one."""
    old = copy.deepcopy(DEPLOYMENT)
    old["metadata"].update({"uid": "stored-uid", "creationTimestamp": "2024-05-01T10:00:00Z",
                            "deletionTimestamp": "2024-06-01T10:00:00Z", "generation": 8, "resourceVersion": "77"})
    new = copy.deepcopy(DEPLOYMENT)
    new["metadata"].update({"creationTimestamp": "2030-01-01T00:00:00Z", "generation": 1})
    md = run(new, old)["object"]["metadata"]
    assert (md["uid"], md["creationTimestamp"], md["deletionTimestamp"], md["generation"], md["resourceVersion"]) == (
        "stored-uid", "2024-05-01T10:00:00Z", "2024-06-01T10:00:00Z", 8, "77")


def test_update_with_another_resource_version_is_a_conflict() -> None:
    """Store.Update: a resourceVersion other than the stored one fails with 409 Conflict, before validating
    admission."""
    old = copy.deepcopy(DEPLOYMENT)
    old["metadata"]["resourceVersion"] = "10"
    new = copy.deepcopy(DEPLOYMENT)
    new["metadata"]["resourceVersion"] = "9"
    out = run(new, old)
    assert out["allowed"] is False
    assert out["status"]["code"] == 409 and out["status"]["reason"] == "Conflict"
    assert out["status"]["message"] == ('Operation cannot be fulfilled on deployments.apps "web": the object has been '
                                        "modified; please apply your changes to the latest version and try again")


def test_stored_object_gets_its_creation_fields() -> None:
    """The stored object, pasted without them, carries what the registry gave it on create."""
    old = copy.deepcopy(DEPLOYMENT)
    out = run(copy.deepcopy(DEPLOYMENT), old)
    old_md = out["oldObject"]["metadata"]
    assert old_md["uid"] == out["object"]["metadata"]["uid"] == meta.generated_uid("apps/v1", "Deployment",
                                                                                    "default", "web")
    assert old_md["generation"] == 1 and old_md["creationTimestamp"] == meta.NOW


def test_as_stored_false_leaves_the_object_alone() -> None:
    out = run(copy.deepcopy(DEPLOYMENT), request={"asStored": False})["object"]
    assert out["metadata"] == DEPLOYMENT["metadata"]


def test_generate_name_is_generated_once() -> None:
    """The name is generated from generateName once (when the request is built) and the uid derives from it."""
    obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"generateName": "cfg-", "namespace": "default"}}
    out = run(obj)
    name = out["object"]["metadata"]["name"]
    assert name.startswith("cfg-") and out["request"]["name"] == name
    assert out["object"]["metadata"]["uid"] == meta.generated_uid("v1", "ConfigMap", "default", name)


# ---------------------------------------------------------------------------------------------------
# managedFields


def test_managed_fields_of_a_kubectl_create() -> None:
    """The entry kubectl create leaves on a Deployment: manager kubectl-create, operation Update, FieldsV1 of every
    field it set (the defaults included), the value structs of the typed object not members of their own."""
    entries = run(copy.deepcopy(DEPLOYMENT))["object"]["metadata"]["managedFields"]
    assert len(entries) == 1
    entry = entries[0]
    assert {k: entry[k] for k in ("manager", "operation", "apiVersion", "time", "fieldsType")} == {
        "manager": "kubectl-create", "operation": "Update", "apiVersion": "apps/v1", "time": meta.NOW,
        "fieldsType": "FieldsV1"}
    fields = entry["fieldsV1"]
    assert fields["f:metadata"] == {"f:labels": {".": {}, "f:app": {}}}
    assert "." not in fields["f:spec"] and "f:status" not in fields
    assert fields["f:spec"]["f:selector"] == {}
    assert fields["f:spec"]["f:strategy"] == {"f:rollingUpdate": {".": {}, "f:maxSurge": {}, "f:maxUnavailable": {}},
                                              "f:type": {}}
    template = fields["f:spec"]["f:template"]
    assert template["f:metadata"] == {"f:labels": {".": {}, "f:app": {}}}
    container = template["f:spec"]["f:containers"]['k:{"name":"nginx"}']
    assert container == {".": {}, "f:image": {}, "f:imagePullPolicy": {}, "f:name": {}, "f:resources": {},
                         "f:terminationMessagePath": {}, "f:terminationMessagePolicy": {}}


def test_field_manager_option_overrides_the_manager() -> None:
    out = run(copy.deepcopy(DEPLOYMENT), request={"options": {"kind": "CreateOptions", "apiVersion": "meta.k8s.io/v1",
                                                              "fieldManager": "argocd-controller"}})
    assert out["object"]["metadata"]["managedFields"][0]["manager"] == "argocd-controller"


def test_update_records_only_what_changed_and_keeps_other_managers() -> None:
    old = copy.deepcopy(DEPLOYMENT)
    old["metadata"]["managedFields"] = [{
        "manager": "kubectl-create", "operation": "Update", "apiVersion": "apps/v1", "time": "2025-01-01T00:00:00Z",
        "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:replicas": {}, "f:selector": {}}}}]
    new = copy.deepcopy(DEPLOYMENT)
    new["spec"]["replicas"] = 5
    entries = run(new, old)["object"]["metadata"]["managedFields"]
    assert [(e["manager"], e["time"], e["fieldsV1"]) for e in entries] == [
        ("kubectl-create", "2025-01-01T00:00:00Z", {"f:spec": {"f:selector": {}}}),
        ("kubectl-client-side-apply", meta.NOW, {"f:spec": {"f:replicas": {}}}),
    ]


def _cm(data: dict[str, str]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "configmap"}, "data": data}


def _update(managers: dict[Any, Any], manager: str, live: dict[str, Any], new: dict[str, Any], now: str) -> Any:
    schemas = schema_set("1.34")
    schema = schemas.kind("", "v1", "ConfigMap")
    assert schema is not None
    added, modified, removed = fieldsets.compare(live, new, schema.root, schemas)
    return fieldsets.update(managers, (manager, "Update", "v1", ""), added, modified, removed, [], now)


def test_managed_fields_update_does_modify_time() -> None:
    """TestManagedFieldsUpdateDoesModifyTime, TestManagedFieldsUpdateWithoutChangesDoesNotModifyTime
    (k8s.io/apimachinery/pkg/util/managedfields/internal/managedfieldsupdater_test.go)."""
    first = _update({}, "fieldmanager_test", {}, _cm({"key": "value"}), "t1")
    key = ("fieldmanager_test", "Update", "v1", "")
    assert first[key][1] == "t1"
    changed = _update(first, "fieldmanager_test", _cm({"key": "value"}), _cm({"key": "new-value"}), "t2")
    assert changed[key][1] == "t2"
    same = _update(first, "fieldmanager_test", _cm({"key": "value"}), _cm({"key": "value"}), "t2")
    assert same[key][1] == "t1"


def test_non_managed_fields_update_and_taking_over() -> None:
    """TestNonManagedFieldsUpdateDoesNotModifyTime, TestTakingOverManagedFieldsDuringUpdateDoesNotModifyPrevious
    ManagerTime (managedfieldsupdater_test.go): a manager whose only field another takes over is dropped; one that
    keeps fields keeps its time."""
    a = ("fieldmanager_a_test", "Update", "v1", "")
    b = ("fieldmanager_b_test", "Update", "v1", "")
    managers = _update({}, a[0], {}, _cm({"key_a": "value"}), "t1")
    managers = _update(managers, b[0], _cm({"key_a": "value"}), _cm({"key_a": "value", "key_b": "value"}), "t1")
    after = _update(managers, a[0], _cm({"key_a": "value", "key_b": "value"}),
                    _cm({"key_a": "value", "key_b": "new-value"}), "t2")
    assert b not in after
    managers = _update({}, a[0], {}, _cm({"key_a": "value", "key_b": "value"}), "t1")
    after = _update(managers, b[0], _cm({"key_a": "value", "key_b": "value"}), _cm({"key_b": "new-value"}), "t2")
    assert after[a][1] == "t1"


def test_fields_v1_round_trip() -> None:
    """TestFieldsRoundTrip (k8s.io/apimachinery/pkg/util/managedfields/internal/fields_test.go): a set read from
    FieldsV1 and written again is the same tree."""
    tree = {"f:metadata": {"f:labels": {".": {}, "f:app": {}}},
            "f:spec": {"f:containers": {'k:{"name":"c"}': {".": {}, "f:image": {}, "f:name": {}}},
                       "f:finalizers": {'v:"kubernetes"': {}}}}
    assert fieldsets.to_fields_v1(fieldsets.from_fields_v1(tree)) == tree


def test_status_subresource_update_records_status_not_spec() -> None:
    old = copy.deepcopy(DEPLOYMENT)
    old["status"] = {"replicas": 1}
    new = copy.deepcopy(DEPLOYMENT)
    new["status"] = {"replicas": 2}
    new["spec"]["replicas"] = 7
    out = run(new, old, {"subResource": "status", "resource": {"group": "apps", "version": "v1",
                                                               "resource": "deployments"}})
    entries = out["object"]["metadata"]["managedFields"]
    status = [e for e in entries if e.get("subresource") == "status"]
    assert len(status) == 1 and status[0]["fieldsV1"] == {"f:status": {"f:replicas": {}}}
    # the stored object, pasted without managedFields, is taken as created by kubectl apply: its entry owns the
    # spec, not the status the strategy reset at creation
    created = [e for e in entries if "subresource" not in e]
    assert [e["manager"] for e in created] == ["kubectl-client-side-apply"]
    assert "f:spec" in created[0]["fieldsV1"] and "f:status" not in created[0]["fieldsV1"]


def test_warm_evaluation_gives_the_same_answer() -> None:
    """The stages' records are kept by the object they were given: a second evaluation answers the same, and the
    plain way (nothing kept) too."""
    body = {"object": yaml.safe_dump(DEPLOYMENT)}
    first = evaluate(body)
    assert evaluate(body) == first
    with fast.plain():
        assert evaluate(body) == first


# ---------------------------------------------------------------------------------------------------
# CertificateSigningRequest: TestStrategyCreate (pkg/registry/certificates/certificates/strategy_test.go)


@pytest.mark.parametrize(("user", "spec", "expected"), [
    ({}, {}, {}),
    ({"username": "bob", "uid": "123", "groups": ["group1"], "extra": {"foo": ["bar"]}}, {},
     {"username": "bob", "uid": "123", "groups": ["group1"], "extra": {"foo": ["bar"]}}),
    ({}, {"username": "bob", "uid": "123", "groups": ["group1"]}, {}),
    ({"username": "alice", "uid": "234"}, {"username": "bob", "uid": "123", "groups": ["group1"]},
     {"username": "alice", "uid": "234"}),
    ({}, {"expirationSeconds": 1234}, {"expirationSeconds": 1234}),
], ids=["no user in context, no user in obj", "user in context, no user in obj", "no user in context, user in obj",
        "user in context, user in obj", "expirationSeconds set"])
def test_csr_strategy_create(user: dict[str, Any], spec: dict[str, Any], expected: dict[str, Any]) -> None:
    """TestStrategyCreate: the requester fields are the request's user's; a pre-approved status is dropped."""
    csr = {"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest", "metadata": {"name": "c"},
           "spec": dict(spec), "status": {"conditions": [{"type": "Approved", "status": "True"}]}}
    ctx = strategies.Context(V, user)
    strategies.prepare_for_create(strategies.STRATEGIES[("certificates.k8s.io", "CertificateSigningRequest")], csr,
                                  V, False, ctx)
    assert csr["spec"] == expected
    assert csr["status"] == {}


# ---------------------------------------------------------------------------------------------------
# AppArmor: TestApplyAppArmorVersionSkew (pkg/registry/core/pod/strategy_test.go)


def _apparmor_pod(annotation: str | None, container_profile: dict[str, Any] | None = None,
                  pod_profile: dict[str, Any] | None = None) -> dict[str, Any]:
    container: dict[str, Any] = {"name": "ctr", "image": "x"}
    if container_profile is not None:
        container["securityContext"] = {"appArmorProfile": container_profile}
    pod: dict[str, Any] = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                           "spec": {"containers": [container]}}
    if annotation is not None:
        pod["metadata"]["annotations"] = {strategies.APPARMOR_ANNOTATION_PREFIX + "ctr": annotation}
    if pod_profile is not None:
        pod["spec"]["securityContext"] = {"appArmorProfile": pod_profile}
    return pod


WARNING = ('metadata.annotations[container.apparmor.security.beta.kubernetes.io/ctr]: deprecated since v1.30; '
           'use the "appArmorProfile" field instead')


@pytest.mark.parametrize(("pod", "profile", "warned"), [
    (_apparmor_pod(None), None, False),
    (_apparmor_pod("runtime/default"), {"type": "RuntimeDefault"}, True),
    (_apparmor_pod("unconfined"), {"type": "Unconfined"}, True),
    (_apparmor_pod("localhost/test"), {"type": "Localhost", "localhostProfile": "test"}, True),
    (_apparmor_pod("localhost/"), None, True),
    (_apparmor_pod("invalid-value"), None, True),
    (_apparmor_pod("unconfined", container_profile={"type": "RuntimeDefault"}), {"type": "RuntimeDefault"}, False),
    (_apparmor_pod("runtime/default", pod_profile={"type": "RuntimeDefault"}), None, False),
    (_apparmor_pod("unconfined", pod_profile={"type": "RuntimeDefault"}), {"type": "Unconfined"}, True),
], ids=["no annotation", "runtime default", "unconfined", "localhost", "localhost without a profile", "invalid",
        "field already set", "same as the pod-level profile", "other than the pod-level profile"])
def test_apparmor_version_skew(pod: dict[str, Any], profile: dict[str, Any] | None, warned: bool) -> None:
    """TestApplyAppArmorVersionSkew: an AppArmor annotation becomes the container's field when the container has
    none and it differs from the pod-level profile; an annotation that gives no valid field, or is copied, is
    warned of."""
    ctx = strategies.Context(V)
    strategies.prepare_for_create(strategies.STRATEGIES[("", "Pod")], pod, V, False, ctx)
    context = pod["spec"]["containers"][0].get("securityContext") or {}
    assert context.get("appArmorProfile") == profile
    assert ctx.warnings == ([WARNING] if warned else [])


def test_apparmor_warning_reaches_the_response() -> None:
    out = run(_apparmor_pod("runtime/default"))
    assert WARNING in out["warnings"]
    assert run(_apparmor_pod("runtime/default"), version="1.29")["warnings"] == []


def test_cluster_scoped_object_loses_its_namespace() -> None:
    """EnsureObjectNamespaceMatchesRequestNamespace: a cluster-scoped object (a Namespace too) is stored without a
    namespace; its uid derives from its name alone."""
    out = run({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team", "namespace": "other"}})
    md = out["object"]["metadata"]
    assert "namespace" not in md
    assert md["uid"] == meta.generated_uid("v1", "Namespace", "", "team")


def test_daemonset_template_generation() -> None:
    """daemonSetStrategy: the template generation is 1 on create and one more when an update changes the pod
    template; apps/v1 shows it as the deprecated.daemonset.template.generation annotation."""
    ds = copy.deepcopy(DEPLOYMENT)
    ds.update(kind="DaemonSet")
    ds["spec"].pop("replicas")
    created = run(ds)["object"]
    assert created["metadata"]["annotations"] == {"deprecated.daemonset.template.generation": "1"}
    old = copy.deepcopy(created)
    old["metadata"]["resourceVersion"] = "3"
    new = copy.deepcopy(ds)
    new["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:1.26"
    out = run(new, old)["object"]
    assert out["metadata"]["annotations"]["deprecated.daemonset.template.generation"] == "2"
    assert out["metadata"]["generation"] == 2
    new = copy.deepcopy(ds)
    new["spec"]["minReadySeconds"] = 5
    out = run(new, old)["object"]
    assert out["metadata"]["annotations"]["deprecated.daemonset.template.generation"] == "1"
    assert out["metadata"]["generation"] == 2


def test_kept_records_follow_the_status_subresource_of_the_crd() -> None:
    """The same pasted custom resource, evaluated with its CRD declaring the status subresource and then not: the
    status is dropped only in the first (the stages' kept records are keyed by what they read)."""
    widget = yaml.safe_dump({"apiVersion": "example.com/v1", "kind": "Widget",
                             "metadata": {"name": "w", "namespace": "default"}, "spec": {"size": 1},
                             "status": {"ready": True}})
    with_status = evaluate({"params": CRD, "object": widget})["object"]
    without = evaluate({"params": CRD.replace("    subresources: {status: {}}\n", ""), "object": widget})["object"]
    assert "status" not in with_status
    assert without["status"] == {"ready": True}
    assert "f:status" in without["metadata"]["managedFields"][0]["fieldsV1"]


def test_pod_status_update_backfills_the_qos_class() -> None:
    """podStatusStrategy.PrepareForUpdate: a status without qosClass keeps the stored one."""
    old = _pod([G])
    old["metadata"]["namespace"] = "default"
    old["status"] = {"phase": "Pending", "qosClass": "Guaranteed"}
    new = copy.deepcopy(old)
    new["status"] = {"phase": "Running"}
    out = run(new, old, {"subResource": "status", "resource": {"group": "", "version": "v1", "resource": "pods"}})
    assert out["object"]["status"] == {"phase": "Running", "qosClass": "Guaranteed"}


def test_pod_template_generation() -> None:
    """podTemplateStrategy: generation 1 on create, one more when the template changes."""
    tmpl = {"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": "t", "namespace": "default"},
            "template": {"spec": {"containers": [{"name": "c", "image": "x"}]}}}
    assert run(tmpl)["object"]["metadata"]["generation"] == 1
    old = copy.deepcopy(tmpl)
    old["metadata"]["generation"] = 2
    new = copy.deepcopy(tmpl)
    new["template"]["spec"]["containers"][0]["image"] = "y"
    assert run(new, old)["object"]["metadata"]["generation"] == 3
    new["template"]["spec"]["containers"][0]["image"] = "x"
    new["metadata"]["labels"] = {"a": "b"}
    assert run(new, old)["object"]["metadata"]["generation"] == 2


V133 = (1, 33)
AA = strategies.APPARMOR_ANNOTATION_PREFIX


def test_apparmor_fields_copied_to_annotations_before_1_34() -> None:
    """TestApplyAppArmorVersionSkew as of 1.30-1.33 ("Pod field unconfined and no annotation present", "Container
    field localhost and no annotation present", "Multiple containers by annotations"): until 1.34 a container without
    an annotation gets the one its field, or else the pod's, stands for; from 1.34 no annotation is added."""
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
           "spec": {"securityContext": {"appArmorProfile": {"type": "Unconfined"}},
                    "initContainers": [{"name": "init"}], "containers": [{"name": "ctr"}]}}
    obj = copy.deepcopy(pod)
    strategies.prepare_for_create(strategies.STRATEGIES[("", "Pod")], obj, V133, False, strategies.Context(V133))
    assert obj["metadata"]["annotations"] == {AA + "init": "unconfined", AA + "ctr": "unconfined"}
    obj = copy.deepcopy(pod)
    strategies.prepare_for_create(strategies.STRATEGIES[("", "Pod")], obj, V, False, strategies.Context(V))
    assert "annotations" not in obj["metadata"]

    local = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
             "spec": {"containers": [{"name": "ctr", "securityContext": {
                 "appArmorProfile": {"type": "Localhost", "localhostProfile": "test"}}}]}}
    strategies.prepare_for_create(strategies.STRATEGIES[("", "Pod")], local, V133, False, strategies.Context(V133))
    assert local["metadata"]["annotations"] == {AA + "ctr": "localhost/test"}

    several = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "annotations": {
        AA + "init": "unconfined", AA + "a": "localhost/test", AA + "c": "runtime/default"}},
        "spec": {"securityContext": {"appArmorProfile": {"type": "RuntimeDefault"}},
                 "initContainers": [{"name": "init"}], "containers": [{"name": "a"}, {"name": "b"}, {"name": "c"}]}}
    ctx = strategies.Context(V133)
    strategies.prepare_for_create(strategies.STRATEGIES[("", "Pod")], several, V133, False, ctx)
    assert several["metadata"]["annotations"] == {AA + "init": "unconfined", AA + "a": "localhost/test",
                                                  AA + "b": "runtime/default", AA + "c": "runtime/default"}
    assert several["spec"]["initContainers"][0]["securityContext"]["appArmorProfile"] == {"type": "Unconfined"}
    assert several["spec"]["containers"][0]["securityContext"]["appArmorProfile"] == {
        "type": "Localhost", "localhostProfile": "test"}
    assert "securityContext" not in several["spec"]["containers"][1]
    assert "securityContext" not in several["spec"]["containers"][2]
    assert len(ctx.warnings) == 2


# ---------------------------------------------------------------------------------------------------
# matchLabelKeys: Test_mutatePodAffinity (pkg/registry/core/pod/strategy_test.go)


def _affinity_pod(term: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "p", "labels": {"country": "Japan", "city": "Kyoto"}},
            "spec": {"containers": [{"name": "c", "image": "x"}], "affinity": {"podAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [term],
                "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "podAffinityTerm": term}]}}}}


def test_mutate_pod_affinity() -> None:
    """Test_mutatePodAffinity: matchLabelKeys merge In requirements and mismatchLabelKeys NotIn ones; keys the pod
    has no label for are skipped; a term without labelSelector is left alone; before 1.31 nothing is merged."""
    term = {"labelSelector": {"matchLabels": {"region": "Asia"}}, "topologyKey": "zone",
            "matchLabelKeys": ["country", "not-found"], "mismatchLabelKeys": ["city"]}
    pod = _affinity_pod(term)
    strategies.prepare_for_create(strategies.STRATEGIES[("", "Pod")], pod, V, False)
    affinity = pod["spec"]["affinity"]["podAffinity"]
    expected = {"matchLabels": {"region": "Asia"}, "matchExpressions": [
        {"key": "country", "operator": "In", "values": ["Japan"]},
        {"key": "city", "operator": "NotIn", "values": ["Kyoto"]}]}
    assert affinity["requiredDuringSchedulingIgnoredDuringExecution"][0]["labelSelector"] == expected
    assert affinity["preferredDuringSchedulingIgnoredDuringExecution"][0]["podAffinityTerm"]["labelSelector"] == \
        expected
    assert term["labelSelector"] == {"matchLabels": {"region": "Asia"}}  # the input is not changed
    no_selector = _affinity_pod({"topologyKey": "zone", "matchLabelKeys": ["country"]})
    strategies.prepare_for_create(strategies.STRATEGIES[("", "Pod")], no_selector, V, False)
    assert "labelSelector" not in no_selector["spec"]["affinity"]["podAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"][0]
    old = _affinity_pod(copy.deepcopy(term))
    strategies.prepare_for_create(strategies.STRATEGIES[("", "Pod")], old, (1, 30), False)
    assert old["spec"]["affinity"]["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0][
        "labelSelector"] == {"matchLabels": {"region": "Asia"}}


def test_topology_spread_match_label_keys_from_1_34() -> None:
    """mutateTopologySpreadConstraints: from 1.34 matchLabelKeys are merged into the constraint's labelSelector."""
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "labels": {"app": "web"}},
           "spec": {"containers": [{"name": "c", "image": "x"}], "topologySpreadConstraints": [
               {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
                "labelSelector": {"matchLabels": {"tier": "a"}}, "matchLabelKeys": ["app"]}]}}
    before = copy.deepcopy(pod)
    strategies.prepare_for_create(strategies.STRATEGIES[("", "Pod")], pod, V, False)
    assert pod["spec"]["topologySpreadConstraints"][0]["labelSelector"] == {
        "matchLabels": {"tier": "a"}, "matchExpressions": [{"key": "app", "operator": "In", "values": ["web"]}]}
    strategies.prepare_for_create(strategies.STRATEGIES[("", "Pod")], before, V133, False)
    assert before["spec"]["topologySpreadConstraints"][0]["labelSelector"] == {"matchLabels": {"tier": "a"}}


def test_deleted_object_carries_its_creation_fields() -> None:
    """The stored object of a DELETE, pasted without them, carries the uid, creationTimestamp and generation the
    registry gave it on create."""
    out = run(copy.deepcopy(DEPLOYMENT), request={"operation": "DELETE"})
    md = out["oldObject"]["metadata"]
    assert md["uid"] == meta.generated_uid("apps/v1", "Deployment", "default", "web")
    assert md["creationTimestamp"] == meta.NOW and md["generation"] == 1
    assert out["object"] is None


def test_nothing_is_noted_for_other_subresources_or_as_pasted() -> None:
    out = run(copy.deepcopy(DEPLOYMENT), request={"asStored": False})
    assert not [n for n in out["notes"] if n.startswith(("registry:", "field manager:"))]


# ---------------------------------------------------------------------------------------------------
# Service allocation (pkg/registry/core/service/storage: beginCreate, beginUpdate, alloc.go), on the playground's
# single-stack IPv4 cluster (service CIDR 10.96.0.0/12, node ports 30000-32767)


def _service(spec: dict[str, Any], name: str = "foo", namespace: str = "default") -> dict[str, Any]:
    """A Service named foo with one port and a selector; a None in ``spec`` removes the field."""
    merged = {"ports": [{"name": "http", "port": 80}], "selector": {"app": "web"}, **spec}
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "namespace": namespace},
            "spec": {k: v for k, v in merged.items() if v is not None}}


@pytest.mark.parametrize(("name", "spec", "policy", "families"), [
    ("ClusterIPs:unset_Policy:unset_Families:unset", {}, "SingleStack", ["IPv4"]),
    ("ClusterIPs:unset_Policy:unset_Families:v4", {"ipFamilies": ["IPv4"]}, "SingleStack", ["IPv4"]),
    ("ClusterIPs:unset_Policy:PreferDualStack_Families:unset", {"ipFamilyPolicy": "PreferDualStack"},
     "PreferDualStack", ["IPv4"]),
    ("ClusterIPs:v4_Policy:unset_Families:unset", {"clusterIPs": ["10.96.0.10"]}, "SingleStack", ["IPv4"]),
    ("Headless_Policy:unset_Families:unset", {"clusterIP": "None"}, "SingleStack", ["IPv4"]),
    ("Headless_Policy:PreferDualStack_Families:unset", {"clusterIP": "None", "ipFamilyPolicy": "PreferDualStack"},
     "PreferDualStack", ["IPv4"]),
    ("HeadlessSelectorless_Policy:unset_Families:unset", {"clusterIP": "None", "selector": None},
     "RequireDualStack", ["IPv4", "IPv6"]),
    ("HeadlessSelectorless_Policy:unset_Families:v6", {"clusterIP": "None", "selector": None,
                                                       "ipFamilies": ["IPv6"]}, "RequireDualStack", ["IPv6", "IPv4"]),
    ("HeadlessSelectorless_Policy:SingleStack_Families:unset", {"clusterIP": "None", "selector": None,
                                                                "ipFamilyPolicy": "SingleStack"},
     "SingleStack", ["IPv4"]),
    ("HeadlessSelectorless_Policy:PreferDualStack_Families:v4", {"clusterIP": "None", "selector": None,
                                                                 "ipFamilyPolicy": "PreferDualStack",
                                                                 "ipFamilies": ["IPv4"]},
     "PreferDualStack", ["IPv4", "IPv6"]),
])
def test_create_init_ip_fields(name: str, spec: dict[str, Any], policy: str, families: list[str]) -> None:
    """TestCreateInitIPFields (pkg/registry/core/service/storage/storage_test.go), its singlestack:v4 cases that
    succeed: the policy and families initIPFamilyFields gives; a headless Service gets no address."""
    out = run(_service(spec))["object"]["spec"]
    assert out["ipFamilyPolicy"] == policy and out["ipFamilies"] == families
    if spec.get("clusterIP") == "None":
        assert out["clusterIP"] == "None" and out["clusterIPs"] == ["None"]
    elif "clusterIPs" in spec:
        assert out["clusterIP"] == spec["clusterIPs"][0] and out["clusterIPs"] == spec["clusterIPs"]


def test_create_allocates_a_cluster_ip_in_the_service_cidr() -> None:
    """allocClusterIPs (alloc.go; TestCreateInitIPFields expects an address for every non-headless case): the
    address is in the CIDR, never the network address or 10.96.0.1, the same for the same Service; a given
    clusterIP is kept and makes clusterIPs; the response notes that the address is generated."""
    import ipaddress

    seen = set()
    for index in range(200):
        out = run(_service({}, name=f"svc-{index}"))
        ip = out["object"]["spec"]["clusterIP"]
        assert out["object"]["spec"]["clusterIPs"] == [ip]
        address = ipaddress.ip_address(ip)
        assert address in ipaddress.ip_network("10.96.0.0/12")
        assert ip not in ("10.96.0.0", "10.96.0.1", "10.111.255.255")
        seen.add(ip)
    assert len(seen) > 190
    first = run(_service({}))
    assert first["object"]["spec"]["clusterIP"] == run(_service({}))["object"]["spec"]["clusterIP"]
    note = [n for n in first["notes"] if "clusterIP" in n]
    assert len(note) == 1 and "generated" in note[0] and "single-stack IPv4" in note[0]
    given = run(_service({"clusterIP": "10.96.5.5"}))
    assert given["object"]["spec"]["clusterIP"] == "10.96.5.5"
    assert given["object"]["spec"]["clusterIPs"] == ["10.96.5.5"]
    assert not [n for n in given["notes"] if "generated" in n and "clusterIP" in n]


def test_external_name_gets_nothing() -> None:
    """initIPFamilyFields and allocClusterIPs leave an ExternalName Service alone."""
    out = run(_service({"type": "ExternalName", "externalName": "db.example.com", "selector": None}))
    spec = out["object"]["spec"]
    assert not {"clusterIP", "clusterIPs", "ipFamilyPolicy", "ipFamilies"} & set(spec)
    assert "nodePort" not in spec["ports"][0]


def test_create_init_node_ports() -> None:
    """initNodePorts (alloc.go): every port of a NodePort Service gets a node port in range, a
    requested one is kept, ports with the same port number (TCP and UDP) share one; a ClusterIP Service gets none."""
    spec = {"type": "NodePort", "ports": [{"name": "a", "port": 53, "protocol": "TCP"},
                                          {"name": "b", "port": 53, "protocol": "UDP"},
                                          {"name": "c", "port": 80, "protocol": "TCP"},
                                          {"name": "d", "port": 81, "protocol": "TCP", "nodePort": 30093}]}
    out = run(_service(spec))
    ports = out["object"]["spec"]["ports"]
    assert all(30000 <= p["nodePort"] <= 32767 for p in ports)
    assert ports[0]["nodePort"] == ports[1]["nodePort"] != ports[2]["nodePort"]
    assert ports[3]["nodePort"] == 30093 and 30093 not in (ports[0]["nodePort"], ports[2]["nodePort"])
    assert [n for n in out["notes"] if "nodePort" in n and "generated" in n]
    assert "nodePort" not in run(_service({}))["object"]["spec"]["ports"][0]


def test_create_load_balancer_node_ports_and_health_check() -> None:
    """shouldAllocateNodePorts and allocHealthCheckNodePort (alloc.go): a
    LoadBalancer gets node ports unless allocateLoadBalancerNodePorts is false (a requested one is still kept);
    externalTrafficPolicy Local gets a healthCheckNodePort, distinct from the node ports; Cluster gets none."""
    local = run(_service({"type": "LoadBalancer", "externalTrafficPolicy": "Local"}))["object"]["spec"]
    assert 30000 <= local["healthCheckNodePort"] <= 32767
    assert local["healthCheckNodePort"] != local["ports"][0]["nodePort"]
    cluster = run(_service({"type": "LoadBalancer"}))["object"]["spec"]
    assert "healthCheckNodePort" not in cluster and 30000 <= cluster["ports"][0]["nodePort"] <= 32767
    given = run(_service({"type": "LoadBalancer", "externalTrafficPolicy": "Local", "healthCheckNodePort": 30200}))
    assert given["object"]["spec"]["healthCheckNodePort"] == 30200
    off = run(_service({"type": "LoadBalancer", "allocateLoadBalancerNodePorts": False,
                        "ports": [{"name": "a", "port": 80}, {"name": "b", "port": 81, "nodePort": 30081}]}))
    assert "nodePort" not in off["object"]["spec"]["ports"][0]
    assert off["object"]["spec"]["ports"][1]["nodePort"] == 30081


def test_update_patch_allocated_values() -> None:
    """TestPatchAllocatedValues (storage_test.go), patchAllocatedValues then updateNodePorts: an update that
    leaves out what was allocated (kubectl apply of the same YAML) keeps the stored cluster IPs, node ports by
    port name and health check node port; a port the stored Service did not have gets a new node port."""
    stored = run(_service({"type": "LoadBalancer", "externalTrafficPolicy": "Local"}))["object"]
    new = _service({"type": "LoadBalancer", "externalTrafficPolicy": "Local",
                    "ports": [{"name": "http", "port": 80}, {"name": "https", "port": 443}]})
    out = run(new, old=stored)
    spec, old_spec = out["object"]["spec"], stored["spec"]
    assert spec["clusterIP"] == old_spec["clusterIP"] and spec["clusterIPs"] == old_spec["clusterIPs"]
    assert spec["ports"][0]["nodePort"] == old_spec["ports"][0]["nodePort"]
    assert 30000 <= spec["ports"][1]["nodePort"] <= 32767
    assert spec["ports"][1]["nodePort"] != spec["ports"][0]["nodePort"]
    assert spec["healthCheckNodePort"] == old_spec["healthCheckNodePort"]
    assert spec["ipFamilyPolicy"] == "SingleStack" and spec["ipFamilies"] == ["IPv4"]
    to_cluster_ip = run(_service({}), old=stored)["object"]["spec"]
    assert "nodePort" not in to_cluster_ip["ports"][0] and "healthCheckNodePort" not in to_cluster_ip


def test_update_keeps_the_stored_ip_family_policy() -> None:
    """initIPFamilyFields on update: an unset ipFamilyPolicy is the stored one."""
    stored = run(_service({"ipFamilyPolicy": "PreferDualStack"}))["object"]
    out = run(_service({}), old=stored)["object"]["spec"]
    assert out["ipFamilyPolicy"] == "PreferDualStack" and out["clusterIP"] == stored["spec"]["clusterIP"]


def test_update_from_external_name_allocates() -> None:
    """updateClusterIPs, case A (alloc.go): a Service leaving ExternalName gets its cluster IP then."""
    stored = run(_service({"type": "ExternalName", "externalName": "db.example.com"}))["object"]
    out = run(_service({}), old=stored)
    assert out["object"]["spec"]["clusterIP"].startswith("10.")
    assert [n for n in out["notes"] if "clusterIP" in n and "generated" in n]


def test_the_fields_a_strategy_resets_are_cut_with_everything_under_them():
    paths = {("f:status",), ("f:status", "f:phase"), ("f:spec", "f:replicas"), ("f:statusx",), ("f:spec",)}
    assert fieldsets.without(paths, [("f:status",)]) == {("f:spec", "f:replicas"), ("f:statusx",), ("f:spec",)}
    assert fieldsets.without(paths, [("f:spec", "f:replicas")]) == paths - {("f:spec", "f:replicas")}
    assert fieldsets.without(paths, [("f:status",), ("f:spec",)]) == {("f:statusx",)}
    assert fieldsets.without(paths, []) == paths
