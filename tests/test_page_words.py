"""The page's view of a response (app/playground.py): reasons, refusals, inert configuration, YAML error
positions; and the names of added test cases (app/testcases.py)."""

from __future__ import annotations

from app import playground
from app.testcases import named_after_request

POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: p
spec:
  matchConstraints:
    resourceRules:
    - operations: ["CREATE", "UPDATE]
      resources: ["deployments"]
"""


def test_an_unclosed_quote_is_placed_at_the_quote():
    problem = {"pane": "policy", "line": 9, "column": 20, "message": "invalid YAML or JSON: line 9, column 20: x"}
    placed = playground.placed_problems({"policy": POLICY}, [problem])[0]
    assert (placed["line"], placed["column"]) == (8, 30)
    assert "the quote \" opened at line 8, column 30 is not closed on its line" in placed["message"]
    assert placed["reportedAt"] == [9, 20]
    # any other YAML error stays where the parser put it
    other = {"pane": "policy", "line": 2, "column": 1, "message": "invalid YAML or JSON: line 2, column 1: x"}
    assert playground.placed_problems({"policy": "a: [b\n"}, [other]) == [other]


def test_reasons_and_diagnostics_from_the_response():
    response = {
        "policies": [
            {"name": "p", "matched": False, "explanation": ["no binding names this policy, so it is never evaluated"],
             "bindings": []},
            {"name": "q", "matched": False, "missing": True, "bindings": [],
             "explanation": ["binding 'b' names policy 'q', which does not exist: it is ignored"]},
        ],
        "rejected": [{"kind": "ValidatingAdmissionPolicyBinding", "name": "c", "pane": "binding", "document": 1,
                      "message": "invalid"}],
        "request": {"operation": "UPDATE"}, "oldObject": None,
    }
    values = {"binding": "kind: X\nspec:\n  policyName: q\n---\nkind: Y\nspec:\n  policyName: p\n"}
    view = playground.explained(values, response)
    reasons = {p["name"]: p["reason"] for p in view["policies"]}
    assert reasons["p"] == ("No binding names this policy, so it is never evaluated. Binding 'c' names it but would "
                            "be refused by API validation. Binding 'b' names 'q' instead: a misspelling?")
    assert reasons["q"].startswith("Binding 'b' names this policy, but there is no policy of that name")
    assert view["refused"] == ["1 binding"] and view["refusedCount"] == 1
    assert view["diagnostics"] == [
        "policy 'p' has no binding: it is never evaluated",
        "binding 'b' names policy 'q', which does not exist: it is ignored",
        "UPDATE without an old object: oldObject is null in every expression; paste the stored object in the Old "
        "object pane",
    ]


def test_added_cases_are_named_after_operation_and_object_and_numbered():
    before = "- name: CREATE Deployment web\n  object: x\n"
    after = before + "- name: Deployment web\n  object: |\n    kind: Deployment\n  expect:\n    allowed: true\n"
    assert named_after_request(before, after).split("\n")[2] == "- name: CREATE Deployment web (2)"
    update = "- name: Deployment web\n  object: a\n  oldObject: b\n  expect: allowed\n"
    assert named_after_request("", update).startswith("- name: UPDATE Deployment web\n")
    assert named_after_request("", "not: a list\n") == "not: a list\n"


def test_an_unclosed_quote_in_the_test_cases_is_placed_at_the_quote(client):
    from app import examples

    cases = '- name: "broken\n  object: x\n  expect: allowed\n- name: "b"\n'
    form = {name: value or "" for name, value in {**examples.default().form(), "testCases": cases}.items()}
    html = client.post("/evaluate", data=form, headers={"HX-Request": "true"}).get_data(as_text=True)
    assert 'data-pane="testCases"\n        data-line="1" data-column="9"' in html
    assert "opened at line 1, column 9 is not closed on its line" in html
