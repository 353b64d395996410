"""kubectl's rendering of the apiserver's refusal (app/vap/decision.py, as kubectl/pkg/cmd/util/helpers.go prints
it), on the page and in the CLI alike."""

from __future__ import annotations

import pytest
from markupsafe import escape

from app import cli, create_app, examples, vap
from app.vap import decision

VAP_MESSAGE = ('deployments.apps "web" is forbidden: ValidatingAdmissionPolicy \'p\' with binding \'b\' '
               "denied request: too many")
SEVERAL = {
    "code": 422, "reason": "Invalid", "message": 'Deployment.apps "web" is invalid: [spec.replicas: ..., ...]',
    "details": {"name": "web", "group": "apps", "kind": "Deployment", "causes": [
        {"reason": "FieldValueInvalid", "message": "Invalid value: 9: must be at most 5", "field": "spec.replicas"},
        {"reason": "FieldValueRequired", "message": "Required value", "field": "metadata.labels[team]"},
        {"reason": "FieldValueInvalid", "message": "Invalid value: 9: must be at most 5", "field": "spec.replicas"},
    ]},
}
SEVERAL_TEXT = ('The Deployment "web" is invalid: \n'
                "* spec.replicas: Invalid value: 9: must be at most 5\n"
                "* metadata.labels[team]: Required value")


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        # one cause: on the same line (a policy's denial has one, with no field)
        ({"code": 422, "reason": "Invalid", "message": VAP_MESSAGE,
          "details": {"name": "web", "group": "apps", "kind": "deployments", "causes": [{"message": "too many"}]}},
         'The deployments "web" is invalid: : too many'),
        # several causes: the first line ends with ": ", then one line a cause; a repeated cause is shown once
        (SEVERAL, SEVERAL_TEXT),
        # no causes: the first line alone
        ({"code": 422, "reason": "Invalid", "message": "x", "details": {"kind": "Pod", "name": "p"}},
         'The Pod "p" is invalid'),
        # details without kind and name
        ({"code": 422, "reason": "Invalid", "message": "x", "details": {"causes": [{"field": "f", "message": "m"}]}},
         "The request is invalid: f: m"),
        # no details: as the apiserver sends a policy's refusal when the message has its form, else none
        ({"code": 422, "reason": "Invalid", "message": VAP_MESSAGE},
         "The deployments \"web\" is invalid: : ValidatingAdmissionPolicy 'p' with binding 'b' denied request: "
         "too many"),
        ({"code": 422, "reason": "Invalid", "message": "admission webhook \"w\" denied the request: no"},
         "The request is invalid"),
        # the name quoted as Go's %q quotes it
        ({"code": 422, "reason": "Invalid", "details": {"kind": "Pod", "name": 'we"ird', "causes": [{"message": "m"}]}},
         'The Pod "we\\"ird" is invalid: : m'),
        # an unknown reason with 422 is Invalid too; a known other reason is not
        ({"code": 422, "reason": "", "details": {"kind": "Pod", "name": "p", "causes": [{"message": "m"}]}},
         'The Pod "p" is invalid: : m'),
        ({"code": 422, "reason": "Forbidden", "message": 'pods "p" is forbidden: no'},
         'Error from server (Forbidden): pods "p" is forbidden: no'),
        ({"code": 403, "reason": "Forbidden", "message": 'pods "p" is forbidden: no',
          "details": {"kind": "pods", "name": "p", "causes": [{"message": "no"}]}},
         'Error from server (Forbidden): pods "p" is forbidden: no'),
        ({"code": 413, "reason": "RequestEntityTooLarge", "message": "big"},
         "Error from server (RequestEntityTooLarge): big"),
        ({"code": 401, "reason": "Unauthorized", "message": 'pods "p" is forbidden: who'},
         'error: You must be logged in to the server (pods "p" is forbidden: who)'),
        # a webhook's refusal may carry no reason
        ({"code": 400, "message": 'admission webhook "w" denied the request: no'},
         'Error from server: admission webhook "w" denied the request: no'),
    ],
)
def test_kubectl_prints_a_refusal(status, expected):
    assert decision.kubectl_error(status) == expected


def test_warnings_come_first_and_an_admitted_request_prints_no_error():
    response = {"allowed": False, "warnings": ["a", "b"], "status": SEVERAL}
    assert decision.kubectl_output(response) == "Warning: a\nWarning: b\n" + SEVERAL_TEXT
    assert decision.kubectl_output({"allowed": True, "warnings": ["a"], "status": SEVERAL}) == "Warning: a"
    assert decision.kubectl_output({"allowed": True, "status": None}) == ""


def _denied(payload):
    return {"allowed": False, "status": SEVERAL, "warnings": [], "auditAnnotations": {}, "policies": [],
            "problems": [], "request": {"operation": "CREATE"}}


def test_the_page_and_the_cli_print_several_causes_alike(monkeypatch):
    monkeypatch.setattr(vap, "evaluate", _denied)
    app = create_app({"TESTING": True})
    form = {**examples.default().form(), "operation": ""}
    html = app.test_client().post("/evaluate", data=form, headers={"HX-Request": "true"}).get_data(as_text=True)
    assert str(escape(SEVERAL_TEXT)) in html
    assert "\nkubectl: " + SEVERAL_TEXT + "\n" in cli._text(_denied(None)) + "\n"
