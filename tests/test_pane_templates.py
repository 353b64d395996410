"""Pane templates (app/pane_templates): each one, at each Kubernetes version that has its kinds, evaluates through
the JSON API (POST /api/v1/evaluate) with no problem and nothing refused; GET /api/v1/templates offers them with
that version's apiVersions."""

from __future__ import annotations

import pytest
import yaml

from app import create_app, pane_templates, vap
from app.vap.mutating import types as mutating

TEMPLATES = pane_templates.all_templates()
# The template a template is evaluated with, for the panes it does not fill itself.
COMPANIONS = {
    "policy/validatingadmissionpolicy": {"binding": "binding/validatingadmissionpolicybinding"},
    "binding/validatingadmissionpolicybinding": {"policy": "policy/validatingadmissionpolicy"},
    "policy/mutatingadmissionpolicy": {"binding": "binding/mutatingadmissionpolicybinding"},
    "binding/mutatingadmissionpolicybinding": {"policy": "policy/mutatingadmissionpolicy"},
}


def _offered(version: str) -> dict[str, dict]:
    return {t["id"]: t for t in pane_templates.for_version(version)}


def test_the_templates_the_page_offers():
    names = {(t.pane, t.title) for t in TEMPLATES}
    for kind in ("Pod", "Deployment", "StatefulSet", "DaemonSet", "Job", "CronJob", "Service", "ConfigMap", "Secret",
                 "Ingress", "Namespace", "PersistentVolumeClaim", "StorageClass", "Role", "RoleBinding"):
        assert ("object", kind) in names
    for kind in ("ValidatingAdmissionPolicy", "MutatingAdmissionPolicy", "ValidatingWebhookConfiguration",
                 "MutatingWebhookConfiguration", "ClusterPolicy"):
        assert ("policy", kind) in names
    assert {("binding", "ValidatingAdmissionPolicyBinding"), ("binding", "MutatingAdmissionPolicyBinding"),
            ("params", "ConfigMap"), ("params", "Role and RoleBinding"), ("namespace", "Namespace")} <= names
    assert len({t.id for t in TEMPLATES}) == len(TEMPLATES)


@pytest.fixture(scope="module")
def client():
    return create_app({"TESTING": True}).test_client()


@pytest.mark.parametrize("version", vap.SUPPORTED_VERSIONS)
@pytest.mark.parametrize("template", TEMPLATES, ids=[t.id for t in TEMPLATES])
def test_template_evaluates_without_problems(client, template, version):
    offered = _offered(version)
    this = offered[template.id]
    if not this["available"]:
        assert this["text"] == "" and f"Kubernetes {version} has no" in this["note"]
        return
    panes = {template.pane: this["text"]}
    for pane, name in COMPANIONS.get(template.id, {}).items():
        panes[pane] = offered[name]["text"]
    if template.pane != "object":
        panes["object"] = offered["object/deployment"]["text"]
    answer = client.post("/api/v1/evaluate", json={"kubernetesVersion": version, **panes})
    assert answer.status_code == 200
    response = answer.get_json()
    assert response["problems"] == []
    assert response["rejected"] == []
    assert response["request"] is not None  # evaluated
    documents = list(yaml.safe_load_all(this["text"]))
    if template.pane == "object":  # the template is the request's object
        assert response["request"]["kind"]["kind"] == documents[0]["kind"]
    elif template.pane == "policy":  # the policy is read, and takes part
        name = documents[0]["metadata"]["name"]
        seen = [p["name"] for p in response["policies"] + response.get("mutatingPolicies", [])] + \
            [w["configuration"] for w in response["webhooks"]] + [k["name"] for k in response["kyverno"]]
        assert name in seen
    if template.id == "policy/mutatingadmissionpolicy":  # its mutation applies
        assert response["object"]["metadata"]["labels"]["team"] == "unassigned"
    for document in documents:  # MutatingAdmissionPolicy's own API validation
        if document["kind"] == mutating.POLICY_KIND:
            assert mutating.validate_mutating_policy(mutating.default_mutating_policy(document, version)) == []
        elif document["kind"] == mutating.BINDING_KIND:
            assert mutating.validate_mutating_binding(mutating.default_mutating_binding(document, version)) == []


@pytest.mark.parametrize(("version", "api_version", "note"), [
    ("1.31", None, "Kubernetes 1.31 has no MutatingAdmissionPolicy"),
    ("1.32", "admissionregistration.k8s.io/v1alpha1", "is not served by default in Kubernetes 1.32"),
    ("1.34", "admissionregistration.k8s.io/v1beta1", "is not served by default in Kubernetes 1.34"),
    ("1.36", "admissionregistration.k8s.io/v1", ""),
])
def test_templates_take_the_api_version_of_the_kubernetes_version(client, version, api_version, note):
    answer = client.get(f"/api/v1/templates?kubernetesVersion={version}")
    assert answer.status_code == 200
    body = answer.get_json()
    assert body["kubernetesVersion"] == version
    policy = {t["id"]: t for t in body["templates"]}["policy/mutatingadmissionpolicy"]
    assert policy["pane"] == "policy" and policy["title"] == "MutatingAdmissionPolicy"
    assert policy["available"] is (api_version is not None)
    assert note in policy["note"]
    if api_version:
        assert yaml.safe_load(policy["text"])["apiVersion"] == api_version
        written = {t.id: t for t in TEMPLATES}["policy/mutatingadmissionpolicy"].text
        assert policy["text"] == written.replace("admissionregistration.k8s.io/v1\n", api_version + "\n", 1)


def test_templates_endpoint_refuses_an_unknown_version(client):
    answer = client.get("/api/v1/templates?kubernetesVersion=2.0")
    assert answer.status_code == 400
    assert answer.get_json()["error"].startswith("unsupported Kubernetes version '2.0'")
