"""The editors' API: completion at a YAML position, hover documentation, problems as you type (without
evaluating) and kubectl-explain-like field documentation (app/vap/completion.py, app/vap/lint.py,
app/editing.py)."""

from __future__ import annotations

import time

import pytest

from app.vap import admission
from app.vap.completion import complete, hover

POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: demo
spec:
  failurePolicy: Fail
  paramKind:
    apiVersion: v1
    kind: ConfigMap
  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["deployments"]
  variables:
  - name: replicas
    expression: object.spec.replicas
  validations:
  - expression: "object.spec.
    messageExpression: >
      request.userInfo.
  - expression: |
      params.
  - expression: variables.
  - expression: obj
  - expression: "has(object.spec.template.spec.containers[0].
    mess
  auditAnnotations:
  -
"""

CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            description: What the widget should be.
            properties:
              size: {type: integer, description: How big the widget is.}
              colour: {type: string, enum: [red, green]}
"""


def offered(text: str, line: int, column: int, pane: str = "policy", **panes: str) -> list[str]:
    return [i.label for i in complete({pane: text, **panes}, pane, line, column, "1.34").items]


def line_of(text: str, fragment: str) -> int:
    return next(i for i, line in enumerate(text.split("\n"), start=1) if fragment in line)


@pytest.mark.parametrize(("fragment", "column", "expected", "absent"), [
    # a new key under spec: the fields of ValidatingAdmissionPolicySpec not written yet
    ("  auditAnnotations:", 3, {"matchConditions"}, {"validations", "variables", "failurePolicy"}),
    # the first key of a list item, after "- ": the fields of an auditAnnotations[] item
    ("  -\n", 5, {"key", "valueExpression"}, {"expression", "message"}),
    # a half-typed key: only the fields it starts
    ("    mess", 9, {"messageExpression", "message"}, {"reason", "expression"}),
    # a key of a list item under resourceRules (a NamedRuleWithOperations)
    ('      operations: ["CREATE"]', 7, {"scope", "resourceNames"}, {"apiGroups", "resources"}),
])
def test_keys_offered_are_the_fields_of_the_mapping_at_the_position(fragment, column, expected, absent):
    lines = POLICY.split("\n")
    line = next(i for i, t in enumerate(lines, start=1) if t == fragment.rstrip("\n")) if "\n" in fragment \
        else line_of(POLICY, fragment)
    labels = set(offered(POLICY, line, column))
    assert expected <= labels, labels
    assert not (absent & labels), labels


def test_a_completed_key_puts_in_where_its_value_goes():
    items = complete({"policy": POLICY}, "policy", line_of(POLICY, "  auditAnnotations:"), 3, "1.34").items
    by_label = {i.label: i for i in items}
    assert by_label["matchConditions"].text == "matchConditions:\n    - "  # a list of objects
    assert by_label["matchConditions"].type == "[]MatchCondition"
    assert "MatchConditions is a list of conditions" in by_label["matchConditions"].description


@pytest.mark.parametrize(("fragment", "end", "expected", "absent"), [
    ('  - expression: "object.spec.', None, {"replicas", "template", "selector"}, {"metadata"}),
    ("      request.userInfo.", None, {"username", "groups", "uid", "extra"}, set()),
    ("      params.", None, {"data", "binaryData", "metadata"}, set()),  # paramKind ConfigMap
    ("  - expression: variables.", None, {"replicas"}, set()),
    ("  - expression: obj", None, {"object"}, {"oldObject", "request"}),
    ('  - expression: "has(object.spec.template.spec.containers[0].', None, {"image", "name", "resources"}, {"spec"}),
])
def test_expressions_complete_from_the_types_the_type_checker_gives_the_roots(fragment, end, expected, absent):
    line = line_of(POLICY, fragment)
    labels = set(offered(POLICY, line, len(fragment) + 1))
    assert expected <= labels, labels
    assert not (absent & labels), labels


def test_expression_completion_replaces_the_member_being_typed():
    text = POLICY.replace('"object.spec.', '"object.spec.rep')
    line = line_of(text, '"object.spec.rep')
    result = complete({"policy": text}, "policy", line, len('  - expression: "object.spec.rep') + 1, "1.34")
    assert [i.label for i in result.items] == ["replicas"]
    start = len('  - expression: "object.spec.') + 1
    assert (result.start, result.end) == (start, start + 3)
    assert result.items[0].type == "integer"


def test_fields_of_a_crd_pasted_in_a_pane_are_offered_for_its_kind():
    obj = "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  \n"
    assert offered(obj, 6, 3, pane="object", policy=CRD) == ["colour", "size"]
    assert offered(obj, 6, 3, pane="object") == []  # without the CRD the kind is unknown
    colour = "apiVersion: example.com/v1\nkind: Widget\nspec:\n  colour: \n"
    assert offered(colour, 4, 11, pane="object", policy=CRD) == ["red", "green"]  # an enum's values


def test_values_of_a_boolean_field_are_offered():
    obj = "apiVersion: apps/v1\nkind: Deployment\nspec:\n  paused: \n"
    assert offered(obj, 4, 11, pane="object") == ["true", "false"]


def test_a_document_without_a_kind_offers_apiversion_and_kind():
    assert offered("", 1, 1) == ["apiVersion", "kind"]
    assert offered("apiVersion: v1\nk", 2, 2) == ["kind"]


def test_the_document_of_the_position_is_the_one_completed():
    text = "apiVersion: v1\nkind: ConfigMap\ndata: {}\n---\napiVersion: apps/v1\nkind: Deployment\nspec:\n  \n"
    assert "replicas" in offered(text, 8, 3)
    assert "binaryData" in offered(text, 3, 1)


@pytest.mark.parametrize(("fragment", "key", "path", "type_", "words"), [
    ("  failurePolicy: Fail", "failurePolicy", "ValidatingAdmissionPolicy.spec.failurePolicy", "string",
     "Allowed values are Ignore or Fail"),
    ("    messageExpression: >", "messageExpression",
     "ValidatingAdmissionPolicy.spec.validations[].messageExpression", "string", "messageExpression declares"),
    ("  matchConstraints:", "matchConstraints", "ValidatingAdmissionPolicy.spec.matchConstraints", "MatchResources",
     "MatchConstraints specifies what resources this policy is designed to validate"),
])
def test_hover_documents_the_field_under_the_pointer(fragment, key, path, type_, words):
    line = line_of(POLICY, fragment)
    column = fragment.index(key) + 2
    found = hover({"policy": POLICY}, "policy", line, column, "1.34")
    assert found is not None
    assert (found["path"], found["type"], found["name"]) == (path, type_, key)
    assert words in found["description"]
    assert (found["from"], found["to"]) == (fragment.index(key) + 1, fragment.index(key) + len(key) + 1)


def test_hover_shows_nothing_off_a_key_or_off_a_member_of_an_expression():
    assert hover({"policy": POLICY}, "policy", line_of(POLICY, "  failurePolicy: Fail"), 20, "1.34") is None
    text = POLICY.replace("  - expression: variables.", "  - expression: object.spec.replicas > 2")
    assert hover({"policy": text}, "policy", line_of(text, "object.spec.replicas > 2"), 38, "1.34") is None  # ">"
    assert hover({"policy": text}, "policy", line_of(text, "object.spec.replicas > 2"), 40, "1.34") is None  # "2"


def test_hover_on_a_crd_field_shows_the_crd_description():
    obj = "apiVersion: example.com/v1\nkind: Widget\nspec:\n  size: 3\n"
    found = hover({"object": obj, "policy": CRD}, "object", 4, 4, "1.34")
    assert found is not None and found["description"] == "How big the widget is." and found["type"] == "integer"


# --------------------------------------------------------------------------------------------
# The HTTP endpoints

VALID_POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: demo
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["deployments"]
  validations:
  - expression: "object.spec.replicas <= 5"
"""
OBJECT = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: default\nspec:\n  replicas: 3\n"


@pytest.fixture
def no_evaluation(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("lint must not send the request down the admission chain")

    monkeypatch.setattr(admission, "run", refuse)


@pytest.mark.parametrize(("policy", "obj", "expected"), [
    # a misspelt field: refused by strict decoding, at its line and column
    (VALID_POLICY.replace("validations:", "validatons:"), OBJECT,
     [("policy", 12, 3, "error", 'unknown field "spec.validatons"')]),
    # an expression that does not compile: at the character inside the expression
    (VALID_POLICY.replace("object.spec.replicas <= 5", "object.spec.replicas <="), OBJECT,
     [("policy", 13, 41, "error", "Syntax error")]),
    # a field the kind does not have: a type-checking warning at the expression
    (VALID_POLICY.replace("object.spec.replicas", "object.spec.replicaz"), OBJECT,
     [("policy", 13, None, "warning", "undefined field 'replicaz'")]),
    # an unknown field in the object: a warning at its line
    (VALID_POLICY, OBJECT.replace("replicas: 3", "replica: 3"),
     [("object", 7, 3, "warning", 'unknown field "spec.replica"')]),
    # YAML that cannot be read
    (VALID_POLICY, OBJECT + "  bad: [\n", [("object", 9, None, "error", "")]),
    (VALID_POLICY, OBJECT, []),
])
def test_lint_reports_the_problems_of_an_evaluation_without_evaluating(client, no_evaluation, policy, obj, expected):
    resp = client.post("/api/v1/lint", json={"policy": policy, "object": obj, "kubernetesVersion": "1.34"})
    assert resp.status_code == 200
    problems = resp.get_json()["problems"]
    assert len(problems) == len(expected), problems
    for problem, (pane, line, column, severity, words) in zip(problems, expected, strict=True):
        assert (problem["pane"], problem["line"], problem["severity"]) == (pane, line, severity), problem
        if column is not None:
            assert problem["column"] == column, problem
        assert words in problem["message"], problem


def test_lint_agrees_with_the_evaluation(client):
    body = {"policy": VALID_POLICY.replace("validations:", "validatons:"), "object": OBJECT}
    linted = client.post("/api/v1/lint", json=body).get_json()["problems"]
    evaluated = client.post("/api/v1/evaluate", json=body).get_json()["problems"]
    assert linted == evaluated


@pytest.mark.parametrize(("path", "body", "words"), [
    ("/api/v1/lint", [1], "JSON object"),
    ("/api/v1/complete", {"policy": "", "pane": "nowhere", "line": 1, "column": 1}, "'pane'"),
    ("/api/v1/complete", {"policy": "", "pane": "policy", "line": 0, "column": 1}, "'line'"),
    ("/api/v1/hover", {"policy": "", "pane": "policy", "line": 1, "column": "1"}, "'column'"),
    ("/api/v1/hover", {"policy": "", "pane": "policy", "line": 1, "column": 1, "kubernetesVersion": "1.2"},
     "unsupported Kubernetes version"),
])
def test_bad_bodies_are_400_naming_the_field(client, path, body, words):
    resp = client.post(path, json=body)
    assert resp.status_code == 400
    assert words in resp.get_json()["error"]


def test_complete_and_hover_over_http(client):
    body = {"policy": POLICY, "pane": "policy", "line": line_of(POLICY, "  auditAnnotations:"), "column": 3,
            "kubernetesVersion": "1.34"}
    completion = client.post("/api/v1/complete", json=body).get_json()
    assert completion["context"] == "key" and completion["from"] == 3 and completion["to"] == 3
    assert "matchConditions" in [i["label"] for i in completion["items"]]
    found = client.post("/api/v1/hover", json={**body, "column": 4}).get_json()
    assert found["path"] == "ValidatingAdmissionPolicy.spec.auditAnnotations"
    assert client.post("/api/v1/hover", json={**body, "line": 1, "column": 30}).get_json() is None


def test_explain_lists_a_kinds_fields_like_kubectl_explain(client):
    resp = client.get("/api/v1/explain?kubernetesVersion=1.34&apiVersion=apps/v1&kind=Deployment"
                      "&path=spec.template.spec.containers")
    assert resp.status_code == 200 and "max-age" in resp.headers["Cache-Control"]
    data = resp.get_json()
    assert data["type"] == "[]Container"
    image = next(f for f in data["fields"] if f["name"] == "image")
    assert image["type"] == "string" and "Container image name" in image["description"]
    missing = client.get("/api/v1/explain?apiVersion=apps/v1&kind=Deployment&path=spec.nothing")
    assert missing.status_code == 404 and "spec.nothing" in missing.get_json()["error"]


BINDING = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
spec:
  validationActions:
  - D
  paramRef:
    parameterNotFoundAction: A
"""


@pytest.mark.parametrize(("line", "column", "expected"), [
    (5, 5, ["Audit", "Deny", "Warn"]),  # a list item: the values API validation accepts (the schema lists none)
    (5, 6, ["Deny"]),
    (7, 30, ["Allow", "Deny"]),
    (7, 31, ["Allow"]),
])
def test_values_api_validation_accepts_are_offered(line, column, expected):
    assert offered(BINDING, line, column, pane="binding") == expected


@pytest.mark.parametrize(("column", "path", "type_", "words"), [
    (18, "object", "root", "The object of the request"),
    (26, "object.spec", "DeploymentSpec", "Specification of the desired behavior of the Deployment"),
    (31, "object.spec.replicas", "integer", "Number of desired pods"),
])
def test_hover_documents_a_member_inside_an_expression(column, path, type_, words):
    text = POLICY.replace("  - expression: variables.", "  - expression: object.spec.replicas > 2")
    found = hover({"policy": text}, "policy", line_of(text, "object.spec.replicas > 2"), column, "1.34")
    assert found is not None
    assert (found["path"], found["type"]) == (path, type_)
    assert words in found["description"]


def test_a_blank_line_after_a_block_scalar_is_in_it_only_when_indented_under_it():
    text = "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nspec:\n" \
           "  validations:\n  - expression: |\n      object.spec.replicas > 1\n  \n"
    assert "matchConditions" in offered(text, 7, 3)  # at spec's keys: a key of spec
    assert offered(text, 7, 7) == []  # under the expression: its text (nothing typed yet)
    assert offered(text + "      o", 8, 8) == ["object", "oldObject"]


@pytest.mark.parametrize("text", [
    "a" + " " * 200_000 + "x",  # a key pattern that could backtrack over the spaces
    " - " * 20_000 + "x x",  # list markers that could be split many ways
    'expression: "' + "a." * 50_000 + " x",  # a member chain searched from every position
    "- " * 20_000 + "expression: " + "o." * 20_000 + ".",
])
def test_long_lines_are_answered_quickly(text):
    doc = "apiVersion: v1\nkind: ConfigMap\ndata:\n  " + text
    started = time.monotonic()
    for column in (len(text) + 3, len(text) // 2):
        complete({"policy": doc}, "policy", 4, column, "1.34")
        hover({"policy": doc}, "policy", 4, column, "1.34")
    assert time.monotonic() - started < 3


def test_a_variable_naming_a_field_completes_as_that_field():
    text = POLICY.replace("    expression: object.spec.replicas", "    expression: object.spec.template") \
        .replace("  - expression: variables.", "  - expression: variables.replicas.")
    line = line_of(text, "  - expression: variables.replicas.")
    labels = set(offered(text, line, len("  - expression: variables.replicas.") + 1))
    assert {"metadata", "spec"} <= labels and "replicas" not in labels  # a PodTemplateSpec's fields
