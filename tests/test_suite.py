"""The suite runner: test cases read, evaluated against their scenario, and judged."""

from __future__ import annotations

import pytest

from app.vap import suite

POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: max-replicas.example.com
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["deployments"]
  matchConditions:
  - name: not-a-controller
    expression: "!request.userInfo.username.startsWith('system:')"
  validations:
  - expression: "object.spec.replicas <= 5"
    messageExpression: "'at most 5 replicas, got ' + string(object.spec.replicas)"
  auditAnnotations:
  - key: replicas
    valueExpression: "string(object.spec.replicas)"
"""
BINDING = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: max-replicas
spec:
  policyName: max-replicas.example.com
  validationActions: [Deny]
"""
WARN_BINDING = BINDING.replace("[Deny]", "[Warn]")


def deployment(replicas: int, name: str = "web", namespace: str = "default") -> dict:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": namespace},
            "spec": {"replicas": replicas}}


def scenario(cases, binding: str = BINDING, **panes) -> dict:
    return {"policy": POLICY, "binding": binding, "testCases": cases, **panes}


def run_one(case: dict, **kwargs) -> suite.CaseResult:
    result = suite.run_suite(scenario([case], **kwargs))
    assert not result.problems
    return result.cases[0]


@pytest.mark.parametrize(("replicas", "expect", "status"), [
    pytest.param(2, "allowed", "pass", id="allowed as expected"),
    pytest.param(9, "denied", "pass", id="denied as expected"),
    pytest.param(9, "allowed", "fail", id="denied, allowed expected"),
    pytest.param(2, "denied", "fail", id="allowed, denied expected"),
    pytest.param(9, {"allowed": False, "message": "got 9"}, "pass", id="message substring"),
    pytest.param(9, {"allowed": False, "message": "got 10"}, "fail", id="message mismatch"),
    pytest.param(9, {"allowed": False, "code": 422, "reason": "Invalid"}, "pass", id="code and reason"),
    pytest.param(9, {"allowed": False, "code": 403}, "fail", id="wrong code"),
    pytest.param(9, {"message": "got 9"}, "pass", id="message alone implies a denial"),
    pytest.param(2, {"message": "got 2"}, "fail", id="message alone but allowed"),
    pytest.param(9, {"policies": {"max-replicas.example.com": "fail"}}, "pass", id="policy fail"),
    pytest.param(2, {"policies": {"max-replicas.example.com": "pass"}}, "pass", id="policy pass"),
    pytest.param(2, {"policies": {"max-replicas.example.com": "fail"}}, "fail", id="policy pass, fail expected"),
    pytest.param(2, {"policies": {"no-such-policy": "pass"}}, "fail", id="unknown policy"),
    pytest.param(2, {"auditAnnotations": {"max-replicas.example.com/replicas": "2"}}, "pass",
                 id="audit annotation published"),
    pytest.param(2, {"auditAnnotations": {"max-replicas.example.com/replicas": None}}, "fail",
                 id="audit annotation expected absent"),
    pytest.param(2, {"auditAnnotations": {"max-replicas.example.com/other": "x"}}, "fail",
                 id="audit annotation missing"),
])
def test_expectations(replicas, expect, status):
    result = run_one({"name": "c", "object": deployment(replicas), "expect": expect})
    assert result.status == status, result.reasons
    assert bool(result.reasons) == (status == "fail")


def test_a_failure_says_why():
    result = run_one({"object": deployment(9), "expect": {"allowed": False, "message": "at most 3"}})
    assert result.status == "fail"
    assert result.reasons == ["expected the denial message to contain 'at most 3'; it is: "
                              "deployments.apps \"web\" is forbidden: ValidatingAdmissionPolicy "
                              "'max-replicas.example.com' with binding 'max-replicas' denied request: "
                              "at most 5 replicas, got 9"]
    assert result.expected == "denied, message contains 'at most 3'"
    assert result.actual.startswith("denied 422 Invalid: deployments.apps \"web\" is forbidden")
    assert result.actual_brief == "denied 422 Invalid"


@pytest.mark.parametrize(("warning", "replicas", "status"), [
    (True, 9, "pass"), (True, 2, "fail"), (False, 2, "pass"), (False, 9, "fail"),
    ("got 9", 9, "pass"), ("got 8", 9, "fail"),
])
def test_warnings(warning, replicas, status):
    result = run_one({"object": deployment(replicas), "expect": {"allowed": True, "warning": warning}},
                     binding=WARN_BINDING)
    assert result.status == status, result.reasons


def test_expect_word_warning():
    assert run_one({"object": deployment(9), "expect": "warning"}, binding=WARN_BINDING).passed
    assert not run_one({"object": deployment(2), "expect": "warning"}, binding=WARN_BINDING).passed


def test_match_condition_false_is_a_skip_not_a_pass():
    case = {"object": deployment(9), "userInfo": {"username": "system:serviceaccount:kube-system:x"},
            "expect": {"allowed": True, "policies": {"max-replicas.example.com": "skip"}}}
    result = run_one(case)
    assert result.passed, result.reasons
    case["expect"]["policies"]["max-replicas.example.com"] = "pass"
    result = run_one(case)
    assert result.status == "fail"
    assert "expected policy max-replicas.example.com: pass, got skip" in result.reasons[0]


def test_operations_and_old_objects():
    old, new = deployment(9), deployment(9)
    # DELETE is not in the rules: the policy does not apply.
    assert run_one({"oldObject": old, "expect": {"allowed": True,
                                                 "policies": {"max-replicas.example.com": "skip"}}}).passed
    # object and oldObject: UPDATE, which is checked.
    assert run_one({"object": new, "oldObject": old, "expect": "denied"}).passed
    # an explicit operation wins over the derived one
    assert run_one({"object": new, "operation": "DELETE", "expect": "allowed"}).passed


def test_the_request_pane_is_inherited_but_not_its_operation():
    request = "operation: DELETE\nuserInfo:\n  username: system:admin\n"
    # the Request pane's user is a system user, so the policy is skipped ...
    result = run_one({"object": deployment(9), "expect": {"policies": {"max-replicas.example.com": "skip"}}},
                     request=request)
    assert result.passed, result.reasons
    assert result.payload["request"] == {"userInfo": {"username": "system:admin"}}
    # ... and a case's own userInfo replaces it
    result = run_one({"object": deployment(9), "userInfo": {"username": "bob"}, "expect": "denied"}, request=request)
    assert result.passed, result.reasons


def test_case_params_and_namespace_replace_the_scenarios():
    policy = POLICY.replace("object.spec.replicas <= 5", "object.spec.replicas <= int(params.data.max)").replace(
        "spec:\n  failurePolicy: Fail", "spec:\n  failurePolicy: Fail\n  paramKind: {apiVersion: v1, kind: ConfigMap}")
    binding = BINDING + "  paramRef: {name: limits, namespace: default, parameterNotFoundAction: Deny}\n"
    params = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: limits, namespace: default}\ndata: {max: '5'}\n"
    cases = [
        {"name": "scenario params", "object": deployment(8), "expect": "denied"},
        {"name": "own params", "object": deployment(8), "expect": "allowed",
         "params": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "limits", "namespace": "default"},
                    "data": {"max": "10"}}},
        {"name": "namespace missing from the case's Namespace pane", "object": deployment(1, namespace="team-a"),
         "namespace": "apiVersion: v1\nkind: Namespace\nmetadata: {name: team-b}\n",
         "expect": {"allowed": False, "code": 404}},
    ]
    result = suite.run_suite({"policy": policy, "binding": binding, "params": params, "testCases": cases})
    assert [c.status for c in result.cases] == ["pass", "pass", "pass"], [c.reasons for c in result.cases]


def test_cases_as_text_point_at_their_lines():
    text = """\
- name: good
  object: |
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: a, namespace: default}
    spec: {replicas: 1}
  expect: allowed
- name: unreadable object
  object: |
    apiVersion: apps/v1
    kind: [
  expect: denied
- name: misspelt
  objekt: {}
  expect: {allowed: maybe}
"""
    result = suite.run_suite(scenario(text))
    good, unreadable, misspelt = result.cases
    assert good.passed and good.case.line == 1
    assert unreadable.status == "error"
    yaml_error = unreadable.problems[0]
    # YAML reports the end of the object (its line 3); the block scalar starts after line 9
    assert yaml_error["pane"] == "testCases" and yaml_error["line"] == 12
    assert "invalid YAML" in yaml_error["message"]
    assert misspelt.status == "error" and misspelt.case.line == 13
    messages = [p["message"] for p in misspelt.problems]
    assert messages[0].startswith("test case 3 (misspelt): unknown field 'objekt'")
    assert any("allowed must be true or false" in m for m in messages)
    assert {p["line"] for p in misspelt.problems} == {13, 14, 15}
    assert result.passed == 1 and result.errors == 2 and not result.ok


@pytest.mark.parametrize(("text", "message"), [
    ("name: not a list\n", "must be a YAML list"),
    ("- a: [\n", "invalid YAML"),
    ("- {}\n---\n- {}\n", "one YAML list"),
])
def test_unreadable_test_cases_are_a_problem_of_the_suite(text, message):
    result = suite.run_suite(scenario(text))
    assert not result.cases and not result.ok
    assert message in result.problems[0]["message"] and result.problems[0]["pane"] == "testCases"


def test_too_many_cases():
    result = suite.run_suite(scenario([{"object": deployment(1), "expect": "allowed"}] * (suite.MAX_CASES + 1)))
    assert not result.cases and "at most" in result.problems[0]["message"]


@pytest.mark.parametrize(("case", "message"), [
    ({"object": deployment(1)}, "expect is required"),
    ({"expect": "allowed"}, "needs an object"),
    ({"object": deployment(1), "operation": "PATCH", "expect": "allowed"}, "operation must be one of"),
    ({"object": deployment(1), "expect": {"allowed": True, "message": "x"}}, "with allowed: true"),
    ({"object": deployment(1), "expect": {"policies": {"p": "passed"}}}, "policies maps a policy name"),
    ({"object": deployment(1), "userInfo": "bob", "expect": "allowed"}, "userInfo must be a mapping"),
    ({"object": 3, "expect": "allowed"}, "must be YAML or JSON text"),
])
def test_invalid_cases_are_errors_not_failures(case, message):
    result = suite.run_suite(scenario([case]))
    assert result.cases[0].status == "error"
    assert any(message in r for r in result.cases[0].reasons), result.cases[0].reasons


def test_input_problems_make_a_case_an_error():
    broken = POLICY.replace("object.spec.replicas <= 5", "object.spec.replicas <=")
    result = suite.run_suite({"policy": broken, "binding": BINDING,
                              "testCases": [{"object": deployment(9), "expect": "allowed"}]})
    case = result.cases[0]
    assert case.status == "error"
    assert case.reasons[0].startswith("policy line 17:")


def test_policy_results_read_every_binding():
    response = {"policies": [
        {"name": "a", "matched": False, "bindings": []},
        {"name": "b", "matched": True, "bindings": [
            {"matched": True, "evaluations": [{"matched": True, "decisions": []}]},
            {"matched": True, "evaluations": [{"matched": True, "decisions": [{"action": "deny",
                                                                                "evaluation": "deny"}]}]}]},
        {"name": "c", "matched": True, "bindings": [{"matched": True, "configurationErrors": ["x"],
                                                     "evaluations": []}]},
        {"name": "d", "matched": True, "bindings": [{"matched": True, "evaluations": [
            {"matched": True, "decisions": [{"action": "admit", "evaluation": "error"}]}]}]},
        {"name": "ghost", "missing": True, "bindings": []},
    ]}
    assert suite.policy_results(response) == {"a": "skip", "b": "fail", "c": "error", "d": "error"}


def test_dump_yaml_keeps_text_as_block_scalars():
    text = suite.dump_yaml([{"name": "x", "object": "a: 1\nb: 2\n"}])
    assert text == "- name: x\n  object: |\n    a: 1\n    b: 2\n"
    cases, problems = suite.parse_cases(text)
    assert not problems and cases[0].panes["object"] == "a: 1\nb: 2\n"


# --- expected objects: the admitted object after a MutatingAdmissionPolicy ------------------------------

LABEL_POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: team-label.example.com}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
  matchConditions:
  - {name: not-system, expression: "!request.userInfo.username.startsWith('system:')"}
  reinvocationPolicy: Never
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: 'Object{metadata: Object.metadata{labels: {"team": "web"}}}'
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: team-label}
spec: {policyName: team-label.example.com}
"""
CONFIGMAP = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "default"},
             "data": {"a": "b"}}


def run_mutating(expect, *, user: str = "alice") -> suite.CaseResult:
    result = suite.run_suite({"policy": LABEL_POLICY, "testCases": [
        {"name": "labelled", "object": CONFIGMAP, "userInfo": {"username": user}, "expect": expect}]})
    assert not result.problems
    return result.cases[0]


@pytest.mark.parametrize(("expect", "status", "reason"), [
    pytest.param({"allowed": True, "object": {"metadata": {"labels": {"team": "web"}}}}, "pass", None,
                 id="the label the policy added"),
    pytest.param({"object": "metadata:\n  labels: {team: web}\ndata: {a: b}\n"}, "pass", None,
                 id="given as YAML text"),
    pytest.param({"object": {"metadata": {"labels": {"team": "api"}}}}, "fail",
                 'the admitted object differs: metadata.labels.team: expected "api", got "web"', id="another value"),
    pytest.param({"object": {"metadata": {"annotations": {"x": "y"}}}}, "fail",
                 'the admitted object differs: metadata.annotations: missing (expected {"x": "y"})',
                 id="a missing field"),
    pytest.param({"object": {"metadata": {"labels": {"team": None}}}}, "fail",
                 'the admitted object differs: metadata.labels.team: expected no value, got "web"',
                 id="null: expected absent"),
    pytest.param({"object": {"metadata": {"uid": None}}}, "fail", "metadata.uid: expected no value",
                 id="the apiserver's own fields are there"),
    pytest.param({"policies": {"team-label.example.com": "pass"}}, "pass", None, id="mutating policy pass"),
])
def test_expected_object_is_a_subset_of_the_admitted_one(expect, status, reason):
    case = run_mutating(expect)
    assert case.status == status, case.reasons
    if reason is not None:
        assert any(reason in r for r in case.reasons), case.reasons
    if "object" in expect:
        assert "object includes" in case.expected
        assert case.to_json()["result"]["object"]["metadata"]["labels"] == {"team": "web"}


def test_a_mutating_policy_that_does_not_apply_is_a_skip():
    case = run_mutating({"policies": {"team-label.example.com": "skip"},
                         "object": {"metadata": {"labels": None}}}, user="system:admin")
    assert case.status == "pass", case.reasons


@pytest.mark.parametrize(("expected", "actual", "differences"), [
    pytest.param({"spec": {"volumes": [{"name": "data"}]}},
                 {"spec": {"volumes": [{"name": "data", "emptyDir": {}}, {"name": "kube-api-access-x"}]}}, [],
                 id="a list item among items the apiserver added"),
    pytest.param({"a": [1, 3]}, {"a": [1, 2, 3]}, [], id="list items in order, others between"),
    pytest.param({"a": [3, 1]}, {"a": [1, 2, 3]}, ["a[1]: expected 1, got 2"], id="out of order"),
    pytest.param({"a": [{"n": 1}, {"n": 2}]}, {"a": [{"n": 1}]},
                 ['a: no item matches {"n": 2} (expected item 2; the list has 1 item)'], id="a list too short"),
    pytest.param({"a": True}, {"a": 1}, ["a: expected true, got 1"], id="true is not 1"),
    pytest.param({"a": 1}, {"a": 1.0}, [], id="1 is 1.0"),
    pytest.param({"metadata": {"labels": {"example.com/team": "x"}}}, {"metadata": {"labels": {}}},
                 ['metadata.labels["example.com/team"]: missing (expected "x")'], id="keys with dots quoted"),
    pytest.param({"a": {"b": 1}}, {"a": [1]}, ['a: expected a mapping, got [1]'], id="a list for a mapping"),
    pytest.param({"a": 1}, None, ["there is no object (a DELETE request, or the request was not evaluated)"],
                 id="no object"),
])
def test_expected_object_differences(expected, actual, differences):
    from app.vap import expected_object

    assert expected_object.differences(expected, actual) == differences


@pytest.mark.parametrize(("value", "message"), [
    ("[1, 2]", "object must be one mapping"),
    ("a: [\n", "object is not readable"),
    ({}, "object must be one mapping"),
])
def test_unreadable_expected_objects_are_case_errors(value, message):
    case = run_mutating({"object": value})
    assert case.status == "error"
    assert any(message in r for r in case.reasons), case.reasons
