"""Table tests of the built-in admission plugins (app/vap/admission/plugins/), each case restating a case of
the plugin's admission_test.go in kubernetes/kubernetes (named in ``go``), through the JSON API's
evaluate: the Object pane holds the request's object, the Params pane the cluster's objects (ServiceAccounts,
PriorityClasses, LimitRanges, StorageClasses, ...), the Namespace pane its Namespaces."""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.vap import evaluate
from app.vap.admission import chain
from app.vap.admission.plugins import runtime_class, service_account

MOUNT_PATH = "/var/run/secrets/kubernetes.io/serviceaccount"


def pod(spec: dict[str, Any] | None = None, **meta: Any) -> dict[str, Any]:
    metadata = {"name": "myname", "namespace": "myns", **meta}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata,
            "spec": spec if spec is not None else {"containers": [{"name": "c", "image": "nginx"}]}}


def run(obj: Any, *cluster: Any, namespace: Any = (), request: dict[str, Any] | None = None,
        version: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"object": json.dumps(obj)}
    if cluster:
        body["params"] = "\n---\n".join(json.dumps(o) for o in cluster)
    if namespace:
        body["namespace"] = "\n---\n".join(json.dumps(o) for o in namespace)
    if request is not None:
        body["request"] = json.dumps(request)
    if version is not None:
        body["kubernetesVersion"] = version
    return evaluate(body)


def stage_changes(response: dict[str, Any], stage: str) -> list[dict[str, Any]]:
    return [c for c in response["changes"] if c["stage"] == stage]


def service_account_object(name: str = "default", namespace: str = "myns", **fields: Any) -> dict[str, Any]:
    annotations = fields.pop("annotations", None)
    meta: dict[str, Any] = {"name": name, "namespace": namespace}
    if annotations:
        meta["annotations"] = annotations
    return {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": meta, **fields}


# --- the chain ------------------------------------------------------------------------------------------------


def test_plugins_run_in_kube_apiservers_order() -> None:
    """pkg/kubeapiserver/options/plugins.go AllOrderedPlugins: the default-on plugins in their order, the
    mutating ones between decoding and the webhooks, the Validate passes before ValidatingAdmissionPolicy."""
    names = [stage.plugin for stage in chain.STAGES]
    webhook = names.index("MutatingAdmissionWebhook")
    mutating = [n for n in names[:webhook] if n != "decoding"]
    ordered = ["NamespaceLifecycle", "LimitRanger", "ServiceAccount", "TaintNodesByCondition", "Priority",
               "DefaultTolerationSeconds", "DefaultStorageClass", "StorageObjectInUseProtection", "RuntimeClass",
               "DefaultIngressClass"]
    assert [n for n in mutating if n in ordered] == ordered
    validating = names[webhook + 1:names.index("ValidatingAdmissionPolicy")]
    assert [n for n in validating if n in ordered] == ["LimitRanger", "ServiceAccount", "Priority", "RuntimeClass"]


def test_as_stored_false_turns_every_plugin_off() -> None:
    response = run(pod(), request={"asStored": False})
    assert response["object"]["spec"] == {"containers": [{"name": "c", "image": "nginx"}]}
    assert response["changes"] == []


def test_a_request_the_plugins_do_not_act_on_is_unchanged() -> None:
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "myns"}, "data": {"a": "b"}}
    response = run(cm)
    assert response["allowed"] is True
    plugins = {"NamespaceLifecycle", "LimitRanger", "ServiceAccount", "TaintNodesByCondition", "Priority",
               "DefaultTolerationSeconds", "DefaultStorageClass", "StorageObjectInUseProtection", "RuntimeClass",
               "DefaultIngressClass"}
    assert [c for c in response["changes"] if c["stage"] in plugins] == []


def test_the_same_pod_gets_the_same_object_each_time() -> None:
    """A plugin's record is kept by the object it was given: the later stages see the very same object."""
    body = {"object": json.dumps(pod())}
    first, second = evaluate(body), evaluate(body)
    assert first["object"] == second["object"]
    assert first["changes"] == second["changes"]


# --- ServiceAccount (plugin/pkg/admission/serviceaccount/admission_test.go) -----------------------------------


def test_assigns_default_service_account_and_bound_token() -> None:
    """TestAssignsDefaultServiceAccountAndBoundTokenWithNoSecretTokens and TestAutomountsAPIToken."""
    response = run(pod(), service_account_object())
    spec = response["object"]["spec"]
    assert spec["serviceAccountName"] == "default"
    [volume] = spec["volumes"]
    assert volume["name"].startswith("kube-api-access-") and len(volume["name"]) == len("kube-api-access-") + 5
    assert volume == service_account.token_volume(volume["name"])
    assert volume["projected"] == {
        "sources": [
            {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
            {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
            {"downwardAPI": {"items": [{"path": "namespace",
                                        "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}},
        ],
        "defaultMode": 420,
    }
    assert spec["containers"][0]["volumeMounts"] == [{"name": volume["name"], "readOnly": True,
                                                      "mountPath": MOUNT_PATH}]


def test_the_volume_suffix_is_derived_from_the_object_and_said_to_be_generated() -> None:
    body = {"object": json.dumps(pod())}
    hooks = ("apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata: {name: h}\n"
             "webhooks: [{name: h.example.com, clientConfig: {url: 'https://h.example.com'}, sideEffects: None, "
             "admissionReviewVersions: [v1], rules: [{operations: [CREATE], apiGroups: [''], apiVersions: [v1], "
             "resources: [configmaps]}]}]")
    response = evaluate({**body, "policy": hooks})
    [stage] = [s for s in response["admission"]["stages"] if s["plugin"] == "ServiceAccount"]
    assert any("generates the suffix at random" in words for words in stage["explanation"])
    other = evaluate({"object": json.dumps(pod(name="other"))})
    name = response["object"]["spec"]["volumes"][0]["name"]
    assert name == evaluate(body)["object"]["spec"]["volumes"][0]["name"]
    assert other["object"]["spec"]["volumes"][0]["name"] != name


def test_automounts_api_token_in_init_containers() -> None:
    """TestAutomountsAPIToken (init containers)."""
    spec = run(pod({"initContainers": [{"name": "i", "image": "busybox"}],
                    "containers": [{"name": "c", "image": "nginx"}]}))["object"]["spec"]
    name = spec["volumes"][0]["name"]
    mount = {"name": name, "readOnly": True, "mountPath": MOUNT_PATH}
    assert spec["initContainers"][0]["volumeMounts"] == [mount]
    assert spec["containers"][0]["volumeMounts"] == [mount]


def test_respects_existing_mount() -> None:
    """TestRespectsExistingMount: a container that mounts something at the token's path keeps it, and no volume
    is added when no container needs it."""
    mount = {"name": "my-custom-mount", "mountPath": MOUNT_PATH}
    spec = run(pod({"containers": [{"name": "c", "image": "nginx", "volumeMounts": [mount]}],
                    "volumes": [{"name": "my-custom-mount", "emptyDir": {}}]}))["object"]["spec"]
    assert spec["containers"][0]["volumeMounts"] == [mount]
    assert [v["name"] for v in spec["volumes"]] == ["my-custom-mount"]


def test_an_existing_kube_api_access_volume_is_reused() -> None:
    """mountServiceAccountToken: a volume named kube-api-access-* is taken as the token volume."""
    volume = service_account.token_volume("kube-api-access-abcde")
    spec = run(pod({"containers": [{"name": "c", "image": "nginx"}], "volumes": [volume]}))["object"]["spec"]
    assert [v["name"] for v in spec["volumes"]] == ["kube-api-access-abcde"]
    assert spec["containers"][0]["volumeMounts"][0]["name"] == "kube-api-access-abcde"


@pytest.mark.parametrize("pod_automount, sa_automount, mounted", [
    (None, None, True), (None, False, False), (None, True, True),
    (False, None, False), (False, True, False), (True, False, True),
])
def test_automount_preference(pod_automount: bool | None, sa_automount: bool | None, mounted: bool) -> None:
    """TestAutomountIsBackwardsCompatible and the shouldAutomount cases of TestAutomountsAPIToken: the Pod's
    automountServiceAccountToken wins, then the service account's, then true."""
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "nginx"}]}
    if pod_automount is not None:
        spec["automountServiceAccountToken"] = pod_automount
    extra = {} if sa_automount is None else {"automountServiceAccountToken": sa_automount}
    out = run(pod(spec), service_account_object(**extra))["object"]["spec"]
    assert ("volumes" in out) is mounted
    assert ("volumeMounts" in out["containers"][0]) is mounted


def test_add_image_pull_secrets() -> None:
    """TestAddImagePullSecrets: a Pod without image pull secrets gets its service account's."""
    sa = service_account_object(imagePullSecrets=[{"name": "foo"}, {"name": "bar"}])
    spec = run(pod(), sa)["object"]["spec"]
    assert spec["imagePullSecrets"] == [{"name": "foo"}, {"name": "bar"}]


def test_do_not_add_image_pull_secrets() -> None:
    """TestDoNotAddImagePullSecrets: a Pod with its own keeps them."""
    sa = service_account_object(imagePullSecrets=[{"name": "foo"}, {"name": "bar"}])
    spec = run(pod({"containers": [{"name": "c", "image": "nginx"}], "imagePullSecrets": [{"name": "foo"}]}),
               sa)["object"]["spec"]
    assert spec["imagePullSecrets"] == [{"name": "foo"}]


def test_a_service_account_not_pasted_is_taken_to_exist() -> None:
    """TestDeniesInvalidServiceAccount needs the cluster: a service account that is not pasted is assumed."""
    response = run(pod({"serviceAccountName": "builder", "containers": [{"name": "c", "image": "nginx"}]}))
    assert response["allowed"] is True
    assert response["object"]["spec"]["serviceAccountName"] == "builder"
    record = chain_record(pod({"serviceAccountName": "builder", "containers": [{"name": "c", "image": "nginx"}]}),
                          "ServiceAccount")
    assert any("is not pasted" in words and "taken to exist" in words for words in record)


def chain_record(obj: dict[str, Any], plugin: str) -> list[str]:
    """The explanation of a plugin's stage, read through a webhook that makes the response list the stages."""
    hooks = ("apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata: {name: h}\n"
             "webhooks: [{name: h.example.com, clientConfig: {url: 'https://h.example.com'}, sideEffects: None, "
             "admissionReviewVersions: [v1], rules: [{operations: [CREATE], apiGroups: [''], apiVersions: [v1], "
             "resources: [configmaps]}]}]")
    response = evaluate({"object": json.dumps(obj), "policy": hooks})
    stages = [s for s in response["admission"]["stages"] if s["plugin"] == plugin]
    return [words for s in stages for words in s["explanation"]]


@pytest.mark.parametrize("go, spec, message", [
    ("TestRejectsMirrorPodWithServiceAccount", {"serviceAccountName": "default"},
     "a mirror pod may not reference service accounts"),
    ("TestRejectsMirrorPodWithSecretVolumes", {"volumes": [{"name": "s", "secret": {"secretName": "mysecret"}}]},
     "a mirror pod may not reference secrets"),
    ("TestRejectsMirrorPodWithServiceAccountTokenVolumeProjections",
     {"volumes": [{"name": "p", "projected": {"sources": [{"serviceAccountToken": {"path": "token"}}]}}]},
     "a mirror pod may not use ServiceAccountToken volume projections"),
])
def test_rejects_mirror_pods(go: str, spec: dict[str, Any], message: str) -> None:
    obj = pod({"containers": [{"name": "c", "image": "nginx"}], **spec},
              annotations={"kubernetes.io/config.mirror": "true"})
    response = run(obj)
    assert response["allowed"] is False, go
    assert response["status"]["code"] == 403
    assert response["status"]["reason"] == "Forbidden"
    assert response["status"]["message"] == f'pods "myname" is forbidden: {message}'
    assert response["status"]["details"] == {"name": "myname", "kind": "pods"}


def test_ignores_mirror_pod() -> None:
    """TestIgnoresMirrorPod: a mirror pod without service account or secrets is left as it is."""
    obj = pod(annotations={"kubernetes.io/config.mirror": "true"})
    response = run(obj)
    assert response["allowed"] is True
    assert stage_changes(response, "ServiceAccount") == []


@pytest.mark.parametrize("go, spec, message", [
    ("TestRejectsUnreferencedSecretVolumes",
     {"containers": [{"name": "c", "image": "nginx"}], "volumes": [{"name": "v", "secret": {"secretName": "foo"}}]},
     'volume with secret.secretName="foo" is not allowed because service account default does not reference that '
     "secret"),
    ("TestRejectsUnreferencedSecretVolumes (env)",
     {"containers": [{"name": "container-1", "image": "nginx", "env": [
         {"name": "env-1", "valueFrom": {"secretKeyRef": {"name": "foo", "key": "k"}}}]}]},
     'container container-1 with envVar env-1 referencing secret.secretName="foo" is not allowed because service '
     "account default does not reference that secret"),
    ("TestRejectsUnreferencedSecretVolumes (init container envFrom)",
     {"initContainers": [{"name": "container-1", "image": "nginx", "envFrom": [{"secretRef": {"name": "foo"}}]}],
      "containers": [{"name": "c", "image": "nginx"}]},
     'init container container-1 with envFrom referencing secret.secretName="foo" is not allowed because service '
     "account default does not reference that secret"),
    ("TestRejectsUnreferencedImagePullSecrets",
     {"containers": [{"name": "c", "image": "nginx"}], "imagePullSecrets": [{"name": "foo"}]},
     'imagePullSecrets[0].name="foo" is not allowed because service account default does not reference that '
     "imagePullSecret"),
])
def test_enforce_mountable_secrets(go: str, spec: dict[str, Any], message: str) -> None:
    sa = service_account_object(annotations={"kubernetes.io/enforce-mountable-secrets": "true"})
    response = run(pod(spec), sa)
    assert response["allowed"] is False, go
    assert response["status"]["message"] == f'pods "myname" is forbidden: {message}'


def test_allows_referenced_secret() -> None:
    """TestAllowsReferencedSecret and TestAllowsReferencedImagePullSecrets."""
    sa = service_account_object(annotations={"kubernetes.io/enforce-mountable-secrets": "true"},
                                secrets=[{"name": "foo"}], imagePullSecrets=[{"name": "bar"}])
    spec = {"containers": [{"name": "c", "image": "nginx"}],
            "volumes": [{"name": "v", "secret": {"secretName": "foo"}}],
            "imagePullSecrets": [{"name": "bar"}]}
    assert run(pod(spec), sa)["allowed"] is True


def test_allow_unreferenced_secret_volumes_for_permissive_sas() -> None:
    """TestAllowUnreferencedSecretVolumesForPermissiveSAs: the plugin does not limit secret references itself
    (LimitSecretReferences false), but an account annotated kubernetes.io/enforce-mountable-secrets "true" does."""
    spec = {"containers": [{"name": "c", "image": "nginx"}],
            "volumes": [{"name": "v", "secret": {"secretName": "foo"}}]}
    assert run(pod(spec), service_account_object())["allowed"] is True
    enforcing = service_account_object(annotations={"kubernetes.io/enforce-mountable-secrets": "true"})
    assert run(pod(spec), enforcing)["allowed"] is False


def test_ignores_non_create_and_other_resources() -> None:
    """TestIgnoresNonCreate and TestIgnoresNonPodResource."""
    old = run(pod())["object"]
    response = run(pod(), namespace=(), request={"operation": "UPDATE"})
    assert stage_changes(response, "ServiceAccount") == []
    assert "volumes" in old["spec"]


# --- DefaultTolerationSeconds (plugin/pkg/admission/defaulttolerationseconds/admission_test.go) -----------------

NOT_READY = {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute",
             "tolerationSeconds": 300}
UNREACHABLE = {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute",
               "tolerationSeconds": 300}


@pytest.mark.parametrize("description, tolerations, expected", [
    ("pod has no tolerations, expect add tolerations for `not-ready:NoExecute` and `unreachable:NoExecute`",
     None, [NOT_READY, UNREACHABLE]),
    ("pod has tolerations, but none is for taint `not-ready:NoExecute` or `unreachable:NoExecute`, expect add "
     "tolerations for `not-ready:NoExecute` and `unreachable:NoExecute`",
     [{"key": "foo", "operator": "Equal", "value": "bar", "effect": "NoSchedule", "tolerationSeconds": 700}],
     [{"key": "foo", "operator": "Equal", "value": "bar", "effect": "NoSchedule", "tolerationSeconds": 700},
      NOT_READY, UNREACHABLE]),
    ("pod specified a toleration for taint `not-ready:NoExecute`, expect add toleration for `unreachable:NoExecute`",
     [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 700}],
     [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 700},
      UNREACHABLE]),
    ("pod specified a toleration for taint `unreachable:NoExecute`, expect add toleration for `not-ready:NoExecute`",
     [{"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute",
       "tolerationSeconds": 700}],
     [{"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute",
       "tolerationSeconds": 700}, NOT_READY]),
    ("pod specified tolerations for both `not-ready:NoExecute` and `unreachable:NoExecute`, expect no change",
     [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 700},
      {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute",
       "tolerationSeconds": 700}],
     [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 700},
      {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute",
       "tolerationSeconds": 700}]),
    ("pod specified toleration for taint `unreachable`, expect add toleration for `not-ready:NoExecute`",
     [{"key": "node.kubernetes.io/unreachable", "operator": "Exists", "tolerationSeconds": 700}],
     [{"key": "node.kubernetes.io/unreachable", "operator": "Exists", "tolerationSeconds": 700}, NOT_READY]),
    ("pod has wildcard toleration for all kind of taints, expect no change",
     [{"operator": "Exists", "tolerationSeconds": 700}], [{"operator": "Exists", "tolerationSeconds": 700}]),
])
def test_forgiveness_admission(description: str, tolerations: Any, expected: list[dict[str, Any]]) -> None:
    """TestForgivenessAdmission."""
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "nginx"}]}
    if tolerations is not None:
        spec["tolerations"] = tolerations
    assert run(pod(spec))["object"]["spec"]["tolerations"] == expected, description


def test_default_toleration_seconds_ignores_subresources() -> None:
    """TestHandles / the subresource check of Admit."""
    response = run(pod(), request={"operation": "UPDATE", "subResource": "status",
                                   "resource": {"group": "", "version": "v1", "resource": "pods"}})
    assert stage_changes(response, "DefaultTolerationSeconds") == []


# --- Priority (plugin/pkg/admission/priority/admission_test.go) ----------------------------------------------


def priority_class(name: str, value: int, default: bool = False, policy: str | None = None) -> dict[str, Any]:
    pc: dict[str, Any] = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
                          "value": value}
    if default:
        pc["globalDefault"] = True
    if policy:
        pc["preemptionPolicy"] = policy
    return pc


DEFAULT_1 = priority_class("default1", 1000, default=True)
DEFAULT_2 = priority_class("default2", 2000, default=True)
NON_DEFAULT = priority_class("nondefault1", 2000)
NEVER = priority_class("nopreemptionpolicy", 2000, policy="Never")


@pytest.mark.parametrize("description, classes, spec, priority, policy, error", [
    ("Pod with priority class", [DEFAULT_1, NON_DEFAULT], {"priorityClassName": "default1"}, 1000,
     "PreemptLowerPriority", None),
    ("pod without priority class", [NON_DEFAULT], {}, 0, "PreemptLowerPriority", None),
    ("pod without priority class and no existing priority class", [], {}, 0, "PreemptLowerPriority", None),
    ("pod without priority class and no default class", [NON_DEFAULT], {}, 0, "PreemptLowerPriority", None),
    ("pod without priority class and two default classes", [DEFAULT_1, DEFAULT_2], {}, 1000,
     "PreemptLowerPriority", None),
    ("pod with a system priority class", [NON_DEFAULT], {"priorityClassName": "system-cluster-critical"},
     2000000000, "PreemptLowerPriority", None),
    ("pod with system critical priority in non-system namespace", [], {"priorityClassName": "system-node-critical"},
     2000001000, "PreemptLowerPriority", None),
    ("pod with non-existing priority class", [NON_DEFAULT], {"priorityClassName": "foo"}, None, None,
     "no PriorityClass with name foo was found"),
    ("pod with integer priority", [NON_DEFAULT], {"priorityClassName": "nondefault1", "priority": 1000}, None, None,
     "the integer value of priority (1000) must not be provided in pod spec; priority admission controller computed "
     "2000 from the given PriorityClass name"),
    ("pod with the same integer priority as its class", [NON_DEFAULT],
     {"priorityClassName": "nondefault1", "priority": 2000}, 2000, "PreemptLowerPriority", None),
    ("pod with a priority class with preemption policy Never", [NEVER],
     {"priorityClassName": "nopreemptionpolicy"}, 2000, "Never", None),
    ("pod with a preemption policy that differs from its class", [NEVER],
     {"priorityClassName": "nopreemptionpolicy", "preemptionPolicy": "PreemptLowerPriority"}, None, None,
     "the string value of PreemptionPolicy (PreemptLowerPriority) must not be provided in pod spec; priority admission "
     "controller computed Never from the given PriorityClass name"),
])
def test_pod_admission(description: str, classes: list[dict[str, Any]], spec: dict[str, Any], priority: int | None,
                       policy: str | None, error: str | None) -> None:
    """TestPodAdmission (and TestDefaultPriority for the default class)."""
    response = run(pod({"containers": [{"name": "c", "image": "nginx"}], **spec}), *classes)
    if error is not None:
        assert response["allowed"] is False, description
        assert response["status"]["message"] == f'pods "myname" is forbidden: {error}', description
        return
    assert response["allowed"] is True, description
    assert response["object"]["spec"]["priority"] == priority, description
    assert response["object"]["spec"]["preemptionPolicy"] == policy, description


def test_default_priority_class_name_is_set() -> None:
    """TestDefaultPriority: the default class's name is set on a Pod that names none."""
    spec = run(pod(), DEFAULT_1, NON_DEFAULT)["object"]["spec"]
    assert spec["priorityClassName"] == "default1"


def test_a_class_not_pasted_is_assumed_when_none_is() -> None:
    response = run(pod({"priorityClassName": "high", "containers": [{"name": "c", "image": "nginx"}]}))
    assert response["allowed"] is True
    assert "priority" not in response["object"]["spec"]


def test_update_keeps_the_stored_priority() -> None:
    """admitPod on update: a Pod that gives no priority keeps the one it was stored with."""
    old = pod({"containers": [{"name": "c", "image": "nginx"}], "priority": 5, "preemptionPolicy": "Never"})
    body = {"object": json.dumps(pod()), "oldObject": json.dumps(old)}
    out = evaluate(body)["object"]["spec"]
    assert out["priority"] == 5
    assert out["preemptionPolicy"] == "Never"


@pytest.mark.parametrize("description, existing, new, operation, error", [
    ("one default class", [], priority_class("default1", 1000, default=True), "CREATE", None),
    ("second default class", [DEFAULT_1], priority_class("default2", 2000, default=True), "CREATE",
     "PriorityClass default1 is already marked as default. Only one default can exist"),
    ("update default class", [DEFAULT_1], priority_class("default1", 1000, default=True), "UPDATE", None),
    ("update a class to be the second default", [DEFAULT_1, NON_DEFAULT],
     priority_class("nondefault1", 2000, default=True), "UPDATE",
     "PriorityClass default1 is already marked as default. Only one default can exist"),
])
def test_priority_class_admission(description: str, existing: list[dict[str, Any]], new: dict[str, Any],
                                  operation: str, error: str | None) -> None:
    """TestPriorityClassAdmission (the plugin's Validate pass)."""
    body: dict[str, Any] = {"object": json.dumps(new), "request": json.dumps({"operation": operation})}
    if operation == "UPDATE":
        body["oldObject"] = json.dumps(new)
    if existing:
        body["params"] = "\n---\n".join(json.dumps(o) for o in existing)
    response = evaluate(body)
    if error is None:
        assert response["allowed"] is True, description
    else:
        assert response["allowed"] is False, description
        name = new["metadata"]["name"]
        assert response["status"]["message"] == f'priorityclasses.scheduling.k8s.io "{name}" is forbidden: {error}'


# --- NamespaceLifecycle (k8s.io/apiserver/pkg/admission/plugin/namespace/lifecycle/admission_test.go) ----------


def namespace(name: str, phase: str = "Active") -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}, "status": {"phase": phase}}


def test_admission_namespace_active() -> None:
    """TestAdmissionNamespaceActive."""
    assert run(pod(), namespace=[namespace("myns")])["allowed"] is True


def test_admission_namespace_terminating() -> None:
    """TestAdmissionNamespaceTerminating: a create is refused with the NamespaceTerminating cause; an update,
    a delete and a request on the Namespace itself go through."""
    terminating = [namespace("myns", "Terminating")]
    response = run(pod(), namespace=terminating)
    assert response["allowed"] is False
    assert response["status"] == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": 'pods "myname" is forbidden: unable to create new content in namespace myns because it is being '
                   "terminated",
        "reason": "Forbidden",
        "details": {"name": "myname", "kind": "pods",
                    "causes": [{"reason": "NamespaceTerminating", "message": "namespace myns is being terminated",
                                "field": "metadata.namespace"}]},
        "code": 403,
    }
    old = json.dumps(pod())
    assert evaluate({"object": old, "oldObject": old, "namespace": json.dumps(terminating[0])})["allowed"] is True
    assert evaluate({"oldObject": old, "namespace": json.dumps(terminating[0]),
                     "request": json.dumps({"operation": "DELETE"})})["allowed"] is True


def test_admission_namespace_does_not_exist() -> None:
    """TestAdmissionNamespaceDoesNotExist: a request in a namespace that does not exist fails with 404 NotFound."""
    response = run(pod(), namespace=[namespace("other")])
    record = chain_record_with(pod(), "NamespaceLifecycle", namespace=[namespace("other")])
    assert response["allowed"] is False
    assert {k: response["status"][k] for k in ("code", "reason", "message")} == {
        "code": 404, "reason": "NotFound", "message": f'namespaces "{pod()["metadata"]["namespace"]}" not found'}
    assert record == [f"namespace {pod()['metadata']['namespace']!r} is not among the Namespaces pasted",
                      f'namespaces "{pod()["metadata"]["namespace"]}" not found']


def chain_record_with(obj: dict[str, Any], plugin: str, namespace: list[dict[str, Any]]) -> list[str]:
    hooks = ("apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata: {name: h}\n"
             "webhooks: [{name: h.example.com, clientConfig: {url: 'https://h.example.com'}, sideEffects: None, "
             "admissionReviewVersions: [v1], rules: [{operations: [CREATE], apiGroups: [''], apiVersions: [v1], "
             "resources: [configmaps]}]}]")
    response = evaluate({"object": json.dumps(obj), "policy": hooks,
                         "namespace": "\n---\n".join(json.dumps(n) for n in namespace)})
    return [w for s in response["admission"]["stages"] if s["plugin"] == plugin for w in s["explanation"]]


@pytest.mark.parametrize("name", ["default", "kube-system", "kube-public"])
def test_immortal_namespaces_may_not_be_deleted(name: str) -> None:
    """Admit's first check: the namespaces kube-apiserver keeps."""
    response = evaluate({"oldObject": json.dumps(namespace(name)), "request": json.dumps({"operation": "DELETE"})})
    assert response["allowed"] is False
    assert response["status"]["message"] == f'namespaces "{name}" is forbidden: this namespace may not be deleted'
    assert response["status"]["code"] == 403


def test_other_namespaces_may_be_deleted() -> None:
    response = evaluate({"oldObject": json.dumps(namespace("team-a")), "request": json.dumps({"operation": "DELETE"})})
    assert response["allowed"] is True


# --- LimitRanger (plugin/pkg/admission/limitranger/admission_test.go) ------------------------------------------


def limit_range(*items: dict[str, Any], name: str = "abc", ns: str = "myns") -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": name, "namespace": ns},
            "spec": {"limits": list(items)}}


def container(name: str = "foo", requests: dict[str, str] | None = None,
              limits: dict[str, str] | None = None) -> dict[str, Any]:
    resources: dict[str, Any] = {}
    if requests:
        resources["requests"] = requests
    if limits:
        resources["limits"] = limits
    return {"name": name, "image": "nginx", "resources": resources}


VALID_RANGE = limit_range(
    {"type": "Pod", "max": {"cpu": "200m", "memory": "4Gi"}, "min": {"cpu": "50m", "memory": "2Mi"}},
    {"type": "Container", "max": {"cpu": "100m", "memory": "2Gi"}, "min": {"cpu": "25m", "memory": "1Mi"},
     "default": {"cpu": "75m", "memory": "10Mi"}, "defaultRequest": {"cpu": "50m", "memory": "5Mi"},
     "maxLimitRequestRatio": {"cpu": "10"}},
)


def test_default_container_resource_requirements() -> None:
    """TestDefaultContainerResourceRequirements and TestMergePodResourceRequirements: a container without
    resources gets the defaults, and the annotation says so."""
    response = run(pod({"containers": [container()]}), VALID_RANGE)
    out = response["object"]
    assert out["spec"]["containers"][0]["resources"] == {"limits": {"cpu": "75m", "memory": "10Mi"},
                                                         "requests": {"cpu": "50m", "memory": "5Mi"}}
    assert out["metadata"]["annotations"]["kubernetes.io/limit-ranger"] == (
        "LimitRanger plugin set: cpu, memory request for container foo; cpu, memory limit for container foo")


def test_merge_keeps_what_the_container_sets() -> None:
    """TestMergePodResourceRequirements: only the missing values are defaulted; init containers too."""
    spec = {"containers": [container(requests={"cpu": "60m"})], "initContainers": [container("init")]}
    out = run(pod(spec), VALID_RANGE)["object"]
    assert out["spec"]["containers"][0]["resources"]["requests"] == {"cpu": "60m", "memory": "5Mi"}
    assert out["spec"]["initContainers"][0]["resources"]["limits"] == {"cpu": "75m", "memory": "10Mi"}
    assert out["metadata"]["annotations"]["kubernetes.io/limit-ranger"] == (
        "LimitRanger plugin set: memory request for container foo; cpu, memory limit for container foo; "
        "cpu, memory request for init container init; cpu, memory limit for init container init")


@pytest.mark.parametrize("description, spec, message", [
    ("container over the max limit", {"containers": [container(requests={"cpu": "50m"}, limits={"cpu": "150m"})]},
     "maximum cpu usage per Container is 100m, but limit is 150m"),
    ("container under the min request", {"containers": [container(requests={"cpu": "10m", "memory": "5Mi"},
                                                                  limits={"cpu": "50m", "memory": "10Mi"})]},
     "[minimum cpu usage per Pod is 50m, but request is 10m, "
     "minimum cpu usage per Container is 25m, but request is 10m]"),
    ("limit to request ratio", {"containers": [container(requests={"cpu": "30m", "memory": "5Mi"},
                                                         limits={"cpu": "100m", "memory": "10Mi"}),
                                               container("bar", requests={"cpu": "5m"})]},
     "[minimum cpu usage per Pod is 50m, but request is 35m, minimum cpu usage per Container is 25m, but request "
     "is 5m, "
     "cpu max limit to request ratio per Container is 10, but provided ratio is 15.000000]"),
])
def test_pod_limit_func(description: str, spec: dict[str, Any], message: str) -> None:
    """TestPodLimitFunc (the Validate pass after the defaults)."""
    response = run(pod(spec), VALID_RANGE)
    assert response["allowed"] is False, description
    assert response["status"]["message"] == f'pods "myname" is forbidden: {message}', description


def test_pod_limit_func_pod_type() -> None:
    """TestPodLimitFunc: a Pod item checks the sum of the containers."""
    spec = {"containers": [container("a", {"cpu": "60m", "memory": "5Mi"}, {"cpu": "100m", "memory": "10Mi"}),
                           container("b", {"cpu": "60m", "memory": "5Mi"}, {"cpu": "100m", "memory": "10Mi"}),
                           container("c", {"cpu": "60m", "memory": "5Mi"}, {"cpu": "100m", "memory": "10Mi"})]}
    response = run(pod(spec), VALID_RANGE)
    assert response["status"]["message"] == ('pods "myname" is forbidden: maximum cpu usage per Pod is 200m, but limit '
                                             "is 300m")


def test_pod_within_limits_is_admitted() -> None:
    spec = {"containers": [container(requests={"cpu": "50m", "memory": "5Mi"},
                                     limits={"cpu": "75m", "memory": "10Mi"})]}
    assert run(pod(spec), VALID_RANGE)["allowed"] is True


@pytest.mark.parametrize("requests, message", [
    ({"storage": "1Gi"}, None),
    ({"storage": "100Mi"}, "minimum storage usage per PersistentVolumeClaim is 500Mi, but request is 100Mi"),
    ({"storage": "20Gi"}, "maximum storage usage per PersistentVolumeClaim is 10Gi, but request is 20Gi"),
])
def test_persistent_volume_claim_limit_func(requests: dict[str, str], message: str | None) -> None:
    """TestPersistentVolumeClaimLimitFunc."""
    lr = limit_range({"type": "PersistentVolumeClaim", "min": {"storage": "500Mi"}, "max": {"storage": "10Gi"}})
    claim = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data", "namespace": "myns"},
             "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": requests}}}
    response = run(claim, lr)
    if message is None:
        assert response["allowed"] is True
    else:
        assert response["status"]["message"] == f'persistentvolumeclaims "data" is forbidden: {message}'


def test_limit_ranger_ignores_pod_updates_and_other_namespaces() -> None:
    """TestLimitRangerIgnoresSubresource / SupportsAttributes: Pod updates are left alone; a LimitRange of
    another namespace does not apply."""
    other = limit_range({"type": "Container", "default": {"cpu": "1"}}, ns="elsewhere")
    assert "limits" not in run(pod({"containers": [{"name": "c", "image": "nginx"}]}),
                               other)["object"]["spec"]["containers"][0].get("resources", {})
    old = json.dumps(pod({"containers": [{"name": "c", "image": "nginx"}]}))
    lr = json.dumps(limit_range({"type": "Container", "default": {"cpu": "1"}}))
    out = evaluate({"object": old, "oldObject": old, "params": lr})["object"]
    assert "limits" not in out["spec"]["containers"][0].get("resources", {})


# --- DefaultStorageClass, DefaultIngressClass, StorageObjectInUseProtection, TaintNodesByCondition -------------


def storage_class(name: str, default: bool = False, created: str | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if default:
        meta["annotations"] = {"storageclass.kubernetes.io/is-default-class": "true"}
    if created:
        meta["creationTimestamp"] = created
    return {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": meta, "provisioner": "x"}


def claim(**spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "claim", "namespace": "myns"},
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}, **spec}}


@pytest.mark.parametrize("description, classes, spec, expected", [
    ("no default, no modification of PVCs", [storage_class("foo")], {}, None),
    ("one default, modify PVC with class=nil", [storage_class("foo"), storage_class("default1", True)], {},
     "default1"),
    ("one default, no modification of PVC with class=''", [storage_class("default1", True)],
     {"storageClassName": ""}, ""),
    ("one default, no modification of PVC with class='foo'", [storage_class("default1", True)],
     {"storageClassName": "foo"}, "foo"),
    ("two defaults, the newest wins",
     [storage_class("default1", True, "2024-01-01T00:00:00Z"), storage_class("default2", True, "2024-02-01T00:00:00Z")],
     {}, "default2"),
    ("two defaults created together, the first by name wins",
     [storage_class("b", True, "2024-01-01T00:00:00Z"), storage_class("a", True, "2024-01-01T00:00:00Z")],
     {}, "a"),
])
def test_default_storage_class(description: str, classes: list[dict[str, Any]], spec: dict[str, Any],
                               expected: str | None) -> None:
    """TestAdmission of storage/storageclass/setdefault."""
    out = run(claim(**spec), *classes)["object"]["spec"]
    assert out.get("storageClassName") == expected, description


def test_storage_object_in_use_protection() -> None:
    """TestAdmit of storageobjectinuseprotection: the finalizers are added once."""
    assert run(claim())["object"]["metadata"]["finalizers"] == ["kubernetes.io/pvc-protection"]
    with_finalizer = claim()
    with_finalizer["metadata"]["finalizers"] = ["kubernetes.io/pvc-protection"]
    assert run(with_finalizer)["object"]["metadata"]["finalizers"] == ["kubernetes.io/pvc-protection"]
    pv = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv"},
          "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/tmp"}}}
    assert run(pv)["object"]["metadata"]["finalizers"] == ["kubernetes.io/pv-protection"]


def test_taint_nodes_by_condition() -> None:
    """Test_nodeTaints of nodetaint: "notReady taint is added on creation", "already tainted node is not tainted
    again", "NotReady taint is added to an unready node as well"."""
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}}
    assert run(node)["object"]["spec"]["taints"] == [{"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}]
    tainted = {**node, "spec": {"taints": [{"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}]}}
    assert stage_changes(run(tainted), "TaintNodesByCondition") == []
    unready = {**node, "status": {"conditions": [{"type": "Ready", "status": "False"}]}}
    assert run(unready)["object"]["spec"]["taints"] == [{"key": "node.kubernetes.io/not-ready",
                                                         "effect": "NoSchedule"}]
    other = {**node, "spec": {"taints": [{"key": "foo", "value": "bar", "effect": "NoExecute"}]}}
    assert run(other)["object"]["spec"]["taints"] == [{"key": "foo", "value": "bar", "effect": "NoExecute"},
                                                      {"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}]


def ingress_class(name: str, default: bool = False) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if default:
        meta["annotations"] = {"ingressclass.kubernetes.io/is-default-class": "true"}
    return {"apiVersion": "networking.k8s.io/v1", "kind": "IngressClass", "metadata": meta,
            "spec": {"controller": "example.com/c"}}


@pytest.mark.parametrize("description, classes, spec, annotations, expected", [
    ("no default, no modification of Ingress", [ingress_class("nondefault1")], {}, None, None),
    ("one default, modify Ingress with class=nil", [ingress_class("default1", True)], {}, None, "default1"),
    ("one default, no modification of Ingress with class field=''", [ingress_class("default1", True)],
     {"ingressClassName": ""}, None, ""),
    ("one default, no modification of Ingress with class annotation", [ingress_class("default1", True)], {},
     {"kubernetes.io/ingress.class": "foo"}, None),
])
def test_default_ingress_class(description: str, classes: list[dict[str, Any]], spec: dict[str, Any],
                               annotations: dict[str, str] | None, expected: str | None) -> None:
    """TestAdmission of network/defaultingressclass."""
    meta: dict[str, Any] = {"name": "ing", "namespace": "myns"}
    if annotations:
        meta["annotations"] = annotations
    ingress = {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": meta,
               "spec": {"defaultBackend": {"service": {"name": "s", "port": {"number": 80}}}, **spec}}
    assert run(ingress, *classes)["object"]["spec"].get("ingressClassName") == expected, description


# --- RuntimeClass (plugin/pkg/admission/runtimeclass/admission_test.go) ----------------------------------------


def runtime_class_object(name: str = "foo", overhead: dict[str, str] | None = None,
                         scheduling: dict[str, Any] | None = None) -> dict[str, Any]:
    rc: dict[str, Any] = {"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": name},
                          "handler": "bar"}
    if overhead:
        rc["overhead"] = {"podFixed": overhead}
    if scheduling:
        rc["scheduling"] = scheduling
    return rc


@pytest.mark.parametrize("description, rc, spec, expected, error", [
    ("overhead, no scheduling, pod without overhead", runtime_class_object(overhead={"cpu": "100m", "memory": "1"}),
     {}, {"overhead": {"cpu": "100m", "memory": "1"}}, None),
    ("overhead, pod with the same overhead", runtime_class_object(overhead={"cpu": "100m"}),
     {"overhead": {"cpu": "0.1"}}, {"overhead": {"cpu": "100m"}}, None),
    ("overhead, pod with a different overhead", runtime_class_object(overhead={"cpu": "100m"}),
     {"overhead": {"cpu": "200m"}}, None, "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead"),
    ("nodeSelector merged", runtime_class_object(scheduling={"nodeSelector": {"foo": "bar"}}),
     {"nodeSelector": {"fizz": "buzz"}}, {"nodeSelector": {"fizz": "buzz", "foo": "bar"}}, None),
    ("nodeSelector conflict", runtime_class_object(scheduling={"nodeSelector": {"foo": "bar"}}),
     {"nodeSelector": {"foo": "conflict"}}, None,
     "conflict: runtimeClass.scheduling.nodeSelector[foo] = bar; pod.spec.nodeSelector[foo] = conflict"),
])
def test_set_overhead_and_scheduling(description: str, rc: dict[str, Any], spec: dict[str, Any],
                                     expected: dict[str, Any] | None, error: str | None) -> None:
    """TestSetOverhead and TestSetScheduling."""
    response = run(pod({"runtimeClassName": "foo", "containers": [{"name": "c", "image": "nginx"}], **spec}), rc)
    if error is not None:
        assert response["status"]["message"] == f'pods "myname" is forbidden: {error}', description
        return
    assert response["allowed"] is True, description
    for key, value in (expected or {}).items():
        assert response["object"]["spec"][key] == value, description


def test_runtime_class_not_found() -> None:
    """TestRuntimeClassAdmission: a class that does not exist (others pasted) refuses the Pod."""
    response = run(pod({"runtimeClassName": "missing", "containers": [{"name": "c", "image": "nginx"}]}),
                   runtime_class_object())
    assert response["status"]["message"] == 'pods "myname" is forbidden: pod rejected: RuntimeClass "missing" not found'


def test_validate_overhead_without_runtime_class() -> None:
    """TestValidateOverhead: an overhead with no RuntimeClass overhead is refused."""
    response = run(pod({"overhead": {"cpu": "100m"}, "containers": [{"name": "c", "image": "nginx"}]}))
    assert response["status"]["message"] == ('pods "myname" is forbidden: pod rejected: Pod Overhead set without '
                                             "corresponding RuntimeClass defined Overhead")


def test_merge_tolerations() -> None:
    """TestMergeTolerations of pkg/util/tolerations: a toleration another covers is dropped."""
    a = {"key": "foo", "operator": "Exists", "effect": "NoSchedule"}
    b = {"key": "foo", "operator": "Equal", "value": "bar", "effect": "NoSchedule"}
    c = {"operator": "Exists"}
    assert runtime_class.merge_tolerations([b], [a]) == [a]
    assert runtime_class.merge_tolerations([a], [a]) == [a]
    assert runtime_class.merge_tolerations([a, b], [c]) == [c]


def test_limit_ephemeral_container_secret_references() -> None:
    """TestRejectsUnreferencedSecretVolumes and TestAllowsReferencedSecret, their ephemeral-container cases
    (Validate on pods/ephemeralcontainers): an ephemeral container may only reference the Secrets of an account
    that enforces mountable secrets; the refusal is a plain error, which the apiserver answers with a 500."""
    sa = service_account_object(annotations={"kubernetes.io/enforce-mountable-secrets": "true"},
                                secrets=[{"name": "allowed"}])
    spec = {"serviceAccountName": "default", "containers": [{"name": "c", "image": "nginx"}],
            "ephemeralContainers": [{"name": "debug", "image": "busybox",
                                     "envFrom": [{"secretRef": {"name": "other"}}]}]}
    request = {"operation": "UPDATE", "subResource": "ephemeralcontainers",
               "resource": {"group": "", "version": "v1", "resource": "pods"}}
    obj = json.dumps(pod(spec))
    body = {"object": obj, "oldObject": obj, "params": json.dumps(sa), "request": json.dumps(request)}
    response = evaluate(body)
    assert response["allowed"] is False
    assert response["status"]["code"] == 500
    assert response["status"]["message"] == (
        'ephemeral container debug with envFrom referencing secret.secretName="other" is not allowed because service '
        "account default does not reference that secret")
    spec["ephemeralContainers"][0]["envFrom"] = [{"secretRef": {"name": "allowed"}}]
    obj = json.dumps(pod(spec))
    assert evaluate({**body, "object": obj, "oldObject": obj})["allowed"] is True
