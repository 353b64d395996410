"""Sorting plain manifests into the panes by kind (app/vap/placement.py) and its endpoint, POST /api/v1/place."""

from __future__ import annotations

import io
import json

import pytest
import yaml

from app import create_app
from app.vap.placement import place

VAP = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: replica-limit
spec:
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:
    resourceRules:
    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}
  validations:
  - expression: "object.spec.replicas <= int(params.data.max)"
"""
BINDING = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: replica-limit-binding}
spec:
  policyName: replica-limit
  validationActions: [Deny]
  paramRef: {name: limits, namespace: default, parameterNotFoundAction: Deny}
"""
PARAMS = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: limits, namespace: default}
data: {max: "3"}
"""
DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx}]
"""
NAMESPACE = "apiVersion: v1\nkind: Namespace\nmetadata: {name: default}\n"
SERVICE = "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n  ports: [{port: 80}]\n"
ROLE = "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: r, namespace: default}\nrules: []\n"
WEBHOOK = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: hooks}
webhooks: []
"""
KYVERNO = "apiVersion: kyverno.io/v1\nkind: ClusterPolicy\nmetadata: {name: k}\nspec: {rules: []}\n"
CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: replicalimits.limits.example.com}
spec:
  group: limits.example.com
  scope: Namespaced
  names: {plural: replicalimits, singular: replicalimit, kind: ReplicaLimit}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
"""
CUSTOM = "apiVersion: limits.example.com/v1\nkind: ReplicaLimit\nmetadata: {name: l, namespace: default}\n"


def _list(*texts: str) -> str:
    """The documents as one List, as kubectl get -o yaml prints several objects."""
    return yaml.safe_dump({"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""},
                           "items": [yaml.safe_load(t) for t in texts]}, sort_keys=False)


def _joined(*texts: str) -> str:
    return "---\n".join(texts)


# (id, file text, {pane: [kind of each document placed there]}, [(kind, where) of each document not placed])
CASES = [
    ("multi-document file", _joined(VAP, BINDING, PARAMS, DEPLOYMENT, NAMESPACE),
     {"policy": ["ValidatingAdmissionPolicy"], "binding": ["ValidatingAdmissionPolicyBinding"],
      "params": ["ConfigMap"], "object": ["Deployment"], "namespace": ["Namespace"]}, []),
    ("kubectl get -o yaml List", _list(DEPLOYMENT, NAMESPACE, SERVICE),
     {"object": ["Deployment"], "namespace": ["Namespace"]},
     [("Service", "document 1, item 3 of its List, line 28")]),
    ("List among other documents", _joined(VAP, _list(SERVICE, NAMESPACE)),
     {"policy": ["ValidatingAdmissionPolicy"], "object": ["Service"], "namespace": ["Namespace"]}, []),
    ("JSON object", json.dumps(yaml.safe_load(DEPLOYMENT)), {"object": ["Deployment"]}, []),
    ("webhooks, Kyverno and RBAC", _joined(WEBHOOK, KYVERNO, ROLE),
     {"policy": ["ValidatingWebhookConfiguration", "ClusterPolicy"], "params": ["Role"]}, []),
    ("custom resource defined in the file", _joined(CRD, CUSTOM), {"params": ["CustomResourceDefinition"],
                                                                 "object": ["ReplicaLimit"]}, []),
    ("custom resource as params", _joined(VAP.replace("{apiVersion: v1, kind: ConfigMap}",
                                                      "{apiVersion: limits.example.com/v1, kind: ReplicaLimit}"),
                                          CRD, CUSTOM),
     {"policy": ["ValidatingAdmissionPolicy"], "params": ["CustomResourceDefinition", "ReplicaLimit"]}, []),
    ("paramRef names one ConfigMap: another is the object",
     _joined(VAP, BINDING, PARAMS.replace("name: limits", "name: settings"), PARAMS),
     {"policy": ["ValidatingAdmissionPolicy"], "binding": ["ValidatingAdmissionPolicyBinding"],
      "params": ["ConfigMap"], "object": ["ConfigMap"]}, []),
    ("second object not placed", _joined(DEPLOYMENT, SERVICE), {"object": ["Deployment"]},
     [("Service", "document 2, line 12")]),
    ("unknown kind", _joined(VAP, "# a custom resource\napiVersion: example.com/v1\nkind: Widget\n"
                                  "metadata: {name: w}\n"),
     {"policy": ["ValidatingAdmissionPolicy"]}, [("Widget", "document 2, line 14")]),
    ("kind not served by this version", "apiVersion: batch/v1beta1\nkind: CronJob\nmetadata: {name: c}\n", {},
     [("CronJob", "document 1, line 1")]),
    ("no kind", "apiVersion: v1\nmetadata: {name: x}\n", {}, [("", "document 1, line 1")]),
    ("a scenario file", "apiVersion: playground.admission/v1\nkind: Scenario\npolicy: ''\n", {},
     [("Scenario", "document 1, line 1")]),
    ("not a mapping", "- just\n- a list\n", {}, [("", "document 1, line 1")]),
]


@pytest.mark.parametrize(("text", "panes", "not_placed"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_documents_go_to_the_pane_of_their_kind(text, panes, not_placed):
    result = place(text, "1.34")
    assert result.error is None
    got = {}
    for p in result.placed:
        got.setdefault(p.pane, []).append(p.kind)
    assert got == panes
    assert [(p.kind, p.where) for p in result.not_placed] == not_placed
    for pane, kinds in panes.items():  # each pane's text holds its documents, and only them
        assert [d["kind"] for d in yaml.safe_load_all(result.panes[pane])] == kinds
    assert set(result.panes) == set(panes)


@pytest.mark.parametrize(("text", "message"), [
    ("", "the file is empty"),
    ("# only a comment\n", "the file holds no document"),
    (NAMESPACE + "---\nkind: Namespace: x\n", "document 2 cannot be read: invalid YAML or JSON: line 5, column 16"),
], ids=["empty", "comments only", "YAML error"])
def test_a_file_that_cannot_be_sorted_places_nothing(text, message):
    result = place(text, "1.34")
    assert result.error is not None and result.error.startswith(message)
    assert result.panes == {} and result.placed == []


@pytest.mark.parametrize(("context", "panes"), [
    ({}, {"object": ["ConfigMap"]}),
    ({"policy": VAP}, {"params": ["ConfigMap"]}),
    ({"policy": VAP, "binding": BINDING.replace("name: limits", "name: settings")}, {"object": ["ConfigMap"]}),
    ({"policy": "kind: [unreadable\n"}, {"object": ["ConfigMap"]}),
], ids=["no panes", "the Policy pane's paramKind", "the Binding pane's paramRef names another", "unreadable pane"])
def test_the_pages_panes_tell_params_apart(context, panes):
    result = place(PARAMS, "1.34", context)
    got = {}
    for p in result.placed:
        got.setdefault(p.pane, []).append(p.kind)
    assert got == panes


def test_a_custom_resource_whose_definition_is_in_the_params_pane_is_known():
    assert place(CUSTOM, "1.34").not_placed[0].kind == "ReplicaLimit"
    result = place(CUSTOM, "1.34", {"params": CRD})
    assert [(p.kind, p.pane) for p in result.placed] == [("ReplicaLimit", "object")]


def test_windows_line_endings():
    result = place(_joined(VAP, DEPLOYMENT).replace("\n", "\r\n"), "1.34")
    assert [p.where for p in result.placed] == ["document 1, line 1", "document 2, line 13"]
    assert result.panes["policy"] == VAP


def test_each_document_keeps_its_own_text_and_comments():
    text = "# the policy\n" + VAP + "---\n# params for it\n" + PARAMS
    result = place(text, "1.34")
    assert result.panes["policy"] == "# the policy\n" + VAP
    assert result.panes["params"] == "# params for it\n" + PARAMS


def test_unknown_kind_says_why_and_where():
    result = place("apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n", "1.34")
    (widget,) = result.not_placed
    assert widget.pane is None and widget.name == "w"
    assert "no kind 'Widget' is registered for version 'example.com/v1' in Kubernetes 1.34" in widget.reason
    assert "CustomResourceDefinition" in widget.reason


@pytest.mark.parametrize(("text", "reason"), [
    ("apiVersion: playground.admission/v1\nkind: Scenario\n", "a scenario file of this playground: open it with"),
    ("apiVersion: policies.kyverno.io/v1alpha1\nkind: ValidatingPolicy\nmetadata: {name: v}\n",
     "the playground does not evaluate Kyverno's ValidatingPolicy (policies.kyverno.io/v1alpha1)"),
    ("apiVersion: v1\nmetadata: {name: x}\n", "it has no kind, so its pane cannot be told"),
    ("[1, 2]\n", "not a Kubernetes object (a mapping with apiVersion and kind)"),
], ids=["scenario", "Kyverno ValidatingPolicy", "no kind", "a list"])
def test_what_is_not_placed_says_why(text, reason):
    (item,) = place(text, "1.34").not_placed
    assert item.reason.startswith(reason)


def test_a_version_that_does_not_serve_a_kind_names_the_versions_it_does():
    result = place("apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\n"
                   "metadata: {name: p}\n", "1.28")
    # the policy pane takes it (the evaluation reports the version); an unrelated kind is checked by version
    assert [p.pane for p in result.placed] == ["policy"]
    result = place("apiVersion: batch/v1beta1\nkind: CronJob\nmetadata: {name: c}\n", "1.34")
    assert "batch/v1beta1 CronJob is not served by Kubernetes 1.34 (it serves batch/v1)" in result.not_placed[0].reason


@pytest.fixture
def client():
    return create_app({"TESTING": True}).test_client()


def test_endpoint_sorts_a_file_upload(client):
    data = {"file": (io.BytesIO(_joined(VAP, DEPLOYMENT).encode()), "all.yaml"),
            "kubernetesVersion": "1.33"}
    answer = client.post("/api/v1/place", data=data, content_type="multipart/form-data")
    assert answer.status_code == 200
    body = answer.get_json()
    assert body["kubernetesVersion"] == "1.33"
    assert set(body["panes"]) == {"policy", "object"}
    assert [(p["kind"], p["pane"], p["where"]) for p in body["placed"]] == [
        ("ValidatingAdmissionPolicy", "policy", "document 1, line 1"), ("Deployment", "object", "document 2, line 13")]


def test_endpoint_takes_the_pages_panes_along(client):
    answer = client.post("/api/v1/place", json={"text": PARAMS, "policy": VAP, "binding": BINDING})
    assert [(p["kind"], p["pane"], p["reason"]) for p in answer.get_json()["placed"]] == [
        ("ConfigMap", "params", "params of the policy 'replica-limit' (its paramKind)")]
    data = {"file": (io.BytesIO(PARAMS.encode()), "cm.yaml"), "policy": VAP}
    answer = client.post("/api/v1/place", data=data, content_type="multipart/form-data")
    assert [p["pane"] for p in answer.get_json()["placed"]] == ["params"]


def test_endpoint_takes_json_and_raw_yaml(client):
    answer = client.post("/api/v1/place", json={"text": _joined(DEPLOYMENT, SERVICE)})
    assert answer.status_code == 200
    assert [p["kind"] for p in answer.get_json()["notPlaced"]] == ["Service"]
    answer = client.post("/api/v1/place?kubernetesVersion=1.30", data=NAMESPACE, content_type="application/yaml")
    assert answer.get_json()["panes"] == {"namespace": NAMESPACE}


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"json": {"text": "kind: [\n"}}, "document 1 cannot be read: invalid YAML or JSON: line 2"),
    ({"json": {"text": ""}}, "the file is empty"),
    ({"json": {"texts": "x"}}, 'the JSON body must be an object with "text"'),
    ({"json": {"text": NAMESPACE, "kubernetesVersion": "1.99"}}, "unsupported Kubernetes version '1.99'"),
    ({"data": b"\xff\xfe", "content_type": "application/yaml"}, "the file is not UTF-8 text (byte 1)"),
], ids=["YAML error", "empty", "no text", "unsupported version", "not UTF-8"])
def test_endpoint_says_what_is_wrong(client, kwargs, message):
    answer = client.post("/api/v1/place", **kwargs)
    assert answer.status_code == 400
    assert answer.get_json()["error"].startswith(message)


def _page_form(**panes: str) -> dict:
    return {"policy": "", "binding": "", "params": "", "object": "", "oldObject": "", "namespace": "",
            "request": "", "kubernetesVersion": "", "operation": "", "testCases": "", **panes}


def test_without_javascript_open_file_sorts_plain_manifests_into_the_panes(client):
    data = _page_form(params=PARAMS, namespace="# kept\n" + NAMESPACE)
    data["scenarioFile"] = (io.BytesIO(_joined(VAP, BINDING, DEPLOYMENT, SERVICE).encode()), "mine.yaml")
    answer = client.post("/import", data=data, content_type="multipart/form-data")
    assert answer.status_code == 200
    html = answer.get_data(as_text=True)
    assert 'class="file-status ok" id="import-status"' in html
    assert "Imported mine.yaml into the panes" in html
    assert "Deployment web (document 3, line 21) → Object" in html
    assert "Not placed: Service (document 4, line 32): the Object pane takes one object" in html
    assert "name: replica-limit-binding" in html  # the Binding pane took the file's binding
    assert "# kept" in html  # a pane the file has nothing for keeps its text
    assert 'data-decision="allowed"' in html  # and the page is evaluated: 2 replicas, 3 allowed


def test_without_javascript_a_file_with_nothing_to_place_changes_nothing(client):
    data = _page_form(object="kind: Pod # mine")
    data["scenarioFile"] = (io.BytesIO(b"apiVersion: example.com/v1\nkind: Widget\n"), "widget.yaml")
    answer = client.post("/import", data=data, content_type="multipart/form-data")
    assert answer.status_code == 400
    html = answer.get_data(as_text=True)
    assert "widget.yaml: no document was placed: Widget (document 1, line 1): no kind &#39;Widget&#39;" in html
    assert "kind: Pod # mine" in html
