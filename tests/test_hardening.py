"""The service under attack: hidden checks that stay hidden, bounded responses, and the smaller faults
(strict JSON, 413 for every oversized body, JSON errors under /api, workers lost or killed, a full disk,
share quotas). Each test reproduces an attack and shows what the server answers now.
"""

from __future__ import annotations

import re

import pytest

from app import create_app, exercises
from app.isolation import EvaluationTimeout

# --- Hidden means hidden ---------------------------------------------------------------------------------

ORACLE_POLICY = """
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: oracle.example.com
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["deployments"]
  validations:
"""
ORACLE_BINDING = """
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: oracle
spec:
  policyName: oracle.example.com
  validationActions: [Warn]
"""


def checks_section(html: str) -> str:
    match = re.search(r'<section id="checks".*?</section>', html, re.S)
    assert match, "no checks section"
    return match.group(0)


def oracle_form(exercise: exercises.Exercise, expressions: list[str]) -> dict[str, str]:
    """The exercise's starting panes plus a policy whose [Warn] validations count a property of the object."""
    validations = "".join(f"  - expression: {expression!r}\n    message: warned\n" for expression in expressions)
    return {**exercise.form(), "testCases": "",
            "policy": exercise.panes["policy"] + ORACLE_POLICY + validations,
            "binding": exercise.panes["binding"] + ORACLE_BINDING}


@pytest.fixture
def workshop_client():
    return create_app({"TESTING": True}).test_client()


def test_a_warn_validation_counting_a_property_of_a_hidden_object_learns_nothing(workshop_client):
    exercise = exercises.get("first-validation")
    # one warning per character of the hidden object's name beyond the first, up to 16 ...
    counting = oracle_form(exercise, [f"object.metadata.name.size() <= {i}" for i in range(1, 17)])
    # ... against 16 warnings whatever the object: the answers must not tell the two apart
    constant = oracle_form(exercise, ["false"] * 16)
    pages = []
    for values in (counting, constant):
        response = workshop_client.post(f"/workshop/{exercise.name}/evaluate", data=values,
                                        headers={"HX-Request": "true"})
        assert response.status_code == 200
        pages.append(checks_section(response.get_data(as_text=True)))
    assert "fail" in pages[0]  # the starting panes fail some checks: their rows say what they got
    assert pages[0] == pages[1]
    for page in pages:
        assert "warning" not in page and "warned" not in page
        assert "; got allowed</span>" in page


def test_a_hidden_check_is_told_by_a_fixed_vocabulary(workshop_client):
    exercise = exercises.get("first-validation")
    # a denial whose message carries the hidden object's name: only its code and reason come back
    policy = exercise.solution["policy"].replace("<= 5", "<= 2").replace(
        'message: "a Deployment may have at most 5 replicas"', "messageExpression: \"string(object.metadata.name)\"")
    assert "messageExpression" in policy
    html = workshop_client.post(f"/workshop/{exercise.name}/evaluate",
                                data={**exercise.form(), "policy": policy, "testCases": ""}).get_data(as_text=True)
    section = checks_section(html)
    for name in ("check-three", "check-five", "check-six", "check-forty"):
        assert name not in section
    assert "got denied 422 Invalid" in section


def test_checks_stopped_at_their_bound_count_as_failed_never_solved(workshop_client, monkeypatch):
    from app import evaluations

    real = evaluations.run

    def stopped(job, *args):
        if job == "checks":
            raise EvaluationTimeout("the test cases were stopped after 30 seconds", "EVALUATION_SUITE_TIMEOUT_SECONDS")
        return real(job, *args)

    monkeypatch.setattr(evaluations, "run", stopped)
    exercise = exercises.get("first-validation")
    html = workshop_client.post(f"/workshop/{exercise.name}/evaluate", data={**exercise.solved_form(), "testCases": ""},
                                headers={"HX-Request": "true"}).get_data(as_text=True)
    section = checks_section(html)
    n = len(exercise.checks)
    assert f"0 of {n} checks pass" in section
    assert "Solved" not in section and "0 of 0" not in section
    assert section.count('data-status="fail"') == n
    assert section.count("got stopped") == n
