"""Kubernetes versions the playground emulates: the released minors up to 1.37 (the default), and what
changes with 1.37 (kubernetes/apiserver pkg/cel/environment/base.go, policy/validating/dispatcher.go)."""

from __future__ import annotations

import json
import re

from tests.test_cel_results import policy as _policy

BINDING = """apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: b}
spec: {policyName: p, validationActions: [Audit]}
"""
OBJECT = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: default}\ndata: {a: '1'}\n"
FAILURE_KEY = "validation.policy.admission.k8s.io/validation_failure"


def policy(*validations: str) -> str:
    return _policy(list(validations))


def evaluate(client, body: dict) -> dict:
    resp = client.post("/api/v1/evaluate", json={"binding": BINDING, "object": OBJECT, **body})
    assert resp.status_code == 200
    return resp.get_json()


def test_the_page_offers_every_released_version_newest_first_and_selects_the_newest(client):
    page = client.get("/").get_data(as_text=True)
    select = page[page.index('id="kubernetes-version"'):]
    select = select[: select.index("</select>")]
    assert re.findall(r'<option value="([\d.]+)"', select) == [
        "1.37", "1.36", "1.35", "1.34", "1.33", "1.32", "1.31", "1.30", "1.29", "1.28",
    ]
    assert re.findall(r'<option value="([\d.]+)" selected', select) == ["1.37"]


def test_the_api_defaults_to_1_37_and_refuses_an_unreleased_version(client):
    data = evaluate(client, {"policy": policy("true")})
    assert data["kubernetesVersion"] == "1.37"
    data = evaluate(client, {"policy": policy("true"), "kubernetesVersion": "1.38"})
    [problem] = [p for p in data["problems"] if p["path"] == "kubernetesVersion"]
    assert problem["message"].startswith("unsupported Kubernetes version '1.38': supported versions are 1.28,")
    assert problem["message"].endswith("1.36, 1.37")


def test_from_1_37_the_audit_failures_of_a_request_are_truncated_to_50(client):
    # dispatcher.go maxValidationFailures: 51 failing validations, one annotation of the first 50
    failing = [f"object.data.a == '{i}x'" for i in range(51)]
    data = evaluate(client, {"policy": policy(*failing), "kubernetesVersion": "1.37"})
    entries = json.loads(data["auditAnnotations"][FAILURE_KEY])
    assert len(entries) == 50
    assert [e["expressionIndex"] for e in entries] == list(range(50))
    assert entries[49]["message"] == "failed expression: object.data.a == '49x'"
    data = evaluate(client, {"policy": policy(*failing), "kubernetesVersion": "1.36"})
    assert [e["expressionIndex"] for e in json.loads(data["auditAnnotations"][FAILURE_KEY])] == [0]


def test_includes_is_a_1_37_library_function_that_new_policies_may_not_use_yet(client):
    # base.go: library.Lists version 1 (includes) is introduced in 1.37, so a 1.37 server evaluates it in
    # stored expressions but validates new ones with its 1.36 environment, which lacks it
    data = evaluate(client, {"policy": policy("[1, 2].includes(2)"), "kubernetesVersion": "1.37"})
    [problem] = [p for p in data["problems"] if p["severity"] == "error"]
    assert problem["path"] == "spec.validations[0].expression"
    assert "undeclared reference to 'includes'" in problem["message"]
    assert [r["name"] for r in data["rejected"]] == ["p"]
