"""The page over HTTP: the form, the htmx partial, and how a result is laid out."""

from __future__ import annotations

import copy
import re

import pytest

from app import examples, forms, playground, vap

DENIAL = (
    "ValidatingAdmissionPolicy 'demo.example.com' with binding 'demo-binding' denied request: replicas <b>6</b> > 5"
)
# A response in the shape docs/api.md gives, exercising every part of the result partial.
SAMPLE = {
    "allowed": False,
    "status": {
        "code": 422,
        "reason": "Invalid",
        "message": f'deployments.apps "web" is forbidden: {DENIAL}',
        "details": {"name": "web", "group": "apps", "kind": "deployments", "causes": [{"message": DENIAL}]},
    },
    "warnings": ["Validation failed for ValidatingAdmissionPolicy 'demo.example.com' with binding 'w': too big"],
    "auditAnnotations": {"demo.example.com/replicas": "6"},
    "policies": [
        {
            "name": "demo.example.com",
            "matched": True,
            "explanation": ["resourceRules[0] matches CREATE apps/v1 deployments"],
            "bindings": [
                {
                    "name": "demo-binding",
                    "matched": True,
                    "explanation": ["the binding has no matchResources"],
                    "validationActions": ["Deny"],
                    "evaluations": [
                        {
                            "param": {"namespace": "default", "name": "limits"},
                            "matchConditions": [{"name": "not-system", "result": True, "error": None}],
                            "variables": [{"name": "replicas", "value": 6, "error": None}],
                            "validations": [
                                {
                                    "index": 0,
                                    "expression": "object.spec.replicas <= 5",
                                    "result": False,
                                    "error": None,
                                    "message": "replicas <b>6</b> > 5",
                                    "reason": "Invalid",
                                    "cost": 3,
                                },
                                {
                                    "index": 1,
                                    "expression": "object.spec.foo == 'x'",
                                    "result": None,
                                    "error": "expression 'object.spec.foo == 'x'' resulted in error: no such key: foo",
                                    "message": None,
                                    "reason": None,
                                    "cost": None,
                                },
                                {
                                    "index": 2,
                                    "expression": "true",
                                    "result": True,
                                    "error": None,
                                    "message": None,
                                    "reason": None,
                                    "cost": 0,
                                },
                            ],
                            "auditAnnotations": [{"key": "replicas", "value": "6", "error": None}],
                        }
                    ],
                }
            ],
        },
        {"name": "other.example.com", "matched": False, "explanation": ["no resourceRule matches"], "bindings": []},
    ],
    "problems": [
        {
            "pane": "policy",
            "document": 0,
            "line": 12,
            "column": 7,
            "path": "spec.validations[0].expression",
            "severity": "error",
            "message": "undeclared reference to 'startswith'",
        },
        {
            "pane": "oldObject",
            "document": 0,
            "line": None,
            "column": None,
            "path": None,
            "severity": "warning",
            "message": "ignored",
        },
    ],
}


@pytest.fixture
def sample(monkeypatch):
    """Make the core answer SAMPLE and record the payloads it was given."""
    calls = []

    def fake(payload):
        calls.append(payload)
        return copy.deepcopy(SAMPLE)

    monkeypatch.setattr(vap, "evaluate", fake)
    return calls


def _form(**overrides):
    values = examples.default().form()
    values.update(overrides)
    return values


def test_page_has_every_pane_and_the_first_example(client):
    resp = client.get("/")
    html = resp.get_data(as_text=True)
    assert resp.status_code == 200
    for name, label, _ in forms.PANES:
        assert f'data-editor="{name}"' in html
        assert f'name="{name}"' in html
        assert label in html
    assert examples.default().title in html
    assert 'id="result"' in html and "data-banner" in html
    for example in examples.all_examples():
        assert f'href="/?example={example.name}"' in html


def test_page_loads_only_vendored_scripts_and_no_inline_code(client):
    html = client.get("/").get_data(as_text=True)
    scripts = re.findall(r"<script\b[^>]*>", html)
    assert scripts and all('src="/static/' in s for s in scripts)
    assert "http://" not in html and "https://" not in html
    assert not re.search(r"\son[a-z]+=", html)
    assert not re.search(r"\sstyle=", html)
    for path in re.findall(r'(?:src|href)="(/static/[^"]+)"', html):
        assert client.get(path).status_code == 200, path


def test_textareas_keep_the_text_exactly(client):
    text = "\n# starts with a blank line\nkind: <Thing> & 'more'\n"
    html = client.post("/evaluate", data=_form(object=text)).get_data(as_text=True)
    body = re.search(r'<textarea id="pane-object"[^>]*>(.*?)</textarea>', html, re.S).group(1)
    assert body == "\n" + text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("'", "&#39;")


def test_example_query_opens_that_example(client):
    example = examples.all_examples()[3]
    html = client.get("/", query_string={"example": example.name}).get_data(as_text=True)
    assert f'data-example="{example.name}" aria-current="page"' in html
    assert example.explanation.split()[0] in html


def test_unknown_example_is_a_404_page(client):
    resp = client.get("/?example=nope")
    assert resp.status_code == 404
    assert "nope" in resp.get_data(as_text=True)


def test_htmx_post_returns_the_partial(client, sample):
    resp = client.post("/evaluate", data=_form(), headers={"HX-Request": "true"})
    html = resp.get_data(as_text=True)
    assert resp.status_code == 200
    assert html.lstrip().startswith('<section id="result"')
    assert "<html" not in html and "<textarea" not in html
    assert "HX-Request" in resp.headers["Vary"]


def test_plain_post_returns_the_whole_page_with_the_form(client, sample):
    resp = client.post("/evaluate", data=_form(policy="kind: Edited"))
    html = resp.get_data(as_text=True)
    assert "<html" in html and "kind: Edited</textarea>" in html
    assert 'data-decision="denied"' in html
    assert "HX-Request" in resp.headers["Vary"]


def test_form_becomes_the_api_body(client, sample):
    client.post("/evaluate", data=_form(kubernetesVersion="1.31", operation="UPDATE"), headers={"HX-Request": "true"})
    payload = sample[-1]
    assert payload["kubernetesVersion"] == "1.31"
    assert set(payload) == {*examples.PANES, "kubernetesVersion"}
    assert payload["policy"] == examples.default().panes["policy"]
    assert payload["request"].endswith("operation: UPDATE\n")


def test_derived_operation_leaves_the_request_pane_alone(client, sample):
    client.post("/evaluate", data=_form(operation=""), headers={"HX-Request": "true"})
    assert sample[-1]["request"] == examples.DEFAULT_REQUEST


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", "operation: DELETE\n"),
        ("userInfo:\n  username: a\n", "userInfo:\n  username: a\noperation: DELETE\n"),
        ("userInfo: {}", "userInfo: {}\noperation: DELETE\n"),
        ("operation: CREATE # note\nname: x\n", "operation: DELETE\nname: x\n"),
        ('{"name": "x"}', '{"name": "x", "operation": "DELETE"}'),
    ],
)
def test_operation_override_keeps_lines_in_place(text, expected):
    assert forms.with_operation(text, "DELETE") == expected


def test_result_lays_out_every_part_of_the_response(client, sample):
    html = client.post("/evaluate", data=_form(), headers={"HX-Request": "true"}).get_data(as_text=True)
    assert 'data-decision="denied"' in html
    assert re.search(r"Denied</strong>\s*<span class=\"status-code\">422 Invalid</span>", html)
    assert "2 problems in the input" in html
    # kubectl's rendering of a 422, warnings first, user text escaped.
    assert (
        "Warning: Validation failed for ValidatingAdmissionPolicy &#39;demo.example.com&#39; "
        "with binding &#39;w&#39;: too big\nThe deployments &#34;web&#34; is invalid: : "
    ) in html
    assert "replicas &lt;b&gt;6&lt;/b&gt; &gt; 5" in html and "<b>6</b>" not in html
    assert "demo.example.com/replicas" in html
    assert 'data-policy="other.example.com" data-matched="false"' in html
    assert "not matched" in html
    assert "default/limits" in html
    assert "not-system" in html and "variables.replicas" in html
    outcomes = re.findall(r'<tr class="validation" data-outcome="(\w+)"', html)
    assert outcomes == ["fail", "error", "pass"]
    assert "no such key: foo" in html


def test_problems_carry_their_position_for_the_editor(client, sample):
    html = client.post("/evaluate", data=_form(), headers={"HX-Request": "true"}).get_data(as_text=True)
    problem = re.search(r"<li class=\"problem severity-error\"[^>]*>", html).group(0)
    assert 'data-pane="policy"' in problem and 'data-line="12"' in problem and 'data-column="7"' in problem
    assert "Policy · line 12:7" in html
    assert "spec.validations[0].expression" in html
    assert "Old object" in html


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        ({"allowed": True, "status": None, "warnings": []}, ""),
        ({"allowed": True, "status": None, "warnings": ["a", "b"]}, "Warning: a\nWarning: b"),
        (
            {
                "allowed": False,
                "warnings": [],
                "status": {"code": 403, "reason": "Forbidden", "message": 'pods "p" is forbidden: no'},
            },
            'Error from server (Forbidden): pods "p" is forbidden: no',
        ),
        (
            {
                "allowed": False,
                "warnings": [],
                "status": {"code": 422, "reason": "Invalid", "message": 'deployments.apps "d" is forbidden: M'},
            },
            'The deployments "d" is invalid: : M',
        ),
        ({"kubectl": "from the core", "allowed": False}, "from the core"),
    ],
)
def test_kubectl_rendering(response, expected):
    assert playground.kubectl_text(response) == expected


def test_allowed_with_warnings_banner(client, monkeypatch):
    monkeypatch.setattr(
        vap,
        "evaluate",
        lambda payload: {
            "allowed": True,
            "status": None,
            "warnings": ["careful"],
            "auditAnnotations": {},
            "policies": [],
            "problems": [],
        },
    )
    html = client.post("/evaluate", data=_form(), headers={"HX-Request": "true"}).get_data(as_text=True)
    assert 'data-decision="warned"' in html and "Allowed with 1 warning<" in html
    assert "Warning: careful" in html


def test_core_not_ready_is_a_normal_page(client, monkeypatch):
    def not_yet(payload):
        raise NotImplementedError

    monkeypatch.setattr(vap, "evaluate", not_yet)
    resp = client.get("/")
    assert resp.status_code == 200
    assert 'data-decision="unavailable"' in resp.get_data(as_text=True)


def test_oversized_form_is_an_error_partial(app):
    app.config["MAX_CONTENT_LENGTH"] = 1000
    resp = app.test_client().post("/evaluate", data=_form(policy="x" * 500), headers={"HX-Request": "true"})
    html = resp.get_data(as_text=True)
    assert resp.status_code == 413
    assert html.lstrip().startswith('<section id="result"') and "HTTP 413" in html


def test_real_core_denial_reaches_the_page(client):
    html = client.post("/evaluate", data=_form(), headers={"HX-Request": "true"}).get_data(as_text=True)
    assert 'data-decision="denied"' in html
    assert "replicas must be at most 3, got 5" in html


def test_operation_selector_changes_what_the_core_sees(client):
    html = client.post("/evaluate", data=_form(operation="UPDATE"), headers={"HX-Request": "true"}).get_data(
        as_text=True
    )
    assert "<code>UPDATE</code>" in html


def test_a_bug_in_the_core_is_an_error_partial_not_a_blank(monkeypatch):
    from app import create_app

    def broken(payload):
        raise RuntimeError("boom")

    monkeypatch.setattr(vap, "evaluate", broken)
    client = create_app({"TESTING": False, "EVALUATION_ISOLATION": "inline"}).test_client()
    resp = client.post("/evaluate", data=_form(), headers={"HX-Request": "true"})
    assert resp.status_code == 500
    html = resp.get_data(as_text=True)
    assert html.lstrip().startswith('<section id="result"') and "HTTP 500" in html and "boom" not in html


def test_pages_and_partials_carry_a_strict_content_security_policy(client):
    for resp in (client.get("/"), client.post("/evaluate", data=_form(), headers={"HX-Request": "true"})):
        csp = resp.headers["Content-Security-Policy"]
        assert "script-src 'self'" in csp and "unsafe-inline" not in csp


def test_collapsible_panes_open_when_they_hold_something(client):
    html = client.get("/?example=immutable-on-update").get_data(as_text=True)
    assert '<details class="pane" data-pane="oldObject" open>' in html
    assert '<details class="pane" data-pane="request">' in html
    html = client.get("/").get_data(as_text=True)
    assert '<details class="pane" data-pane="oldObject">' in html


def test_plain_post_keeps_the_chosen_version_and_operation(client, sample):
    html = client.post("/evaluate", data=_form(kubernetesVersion="1.30", operation="DELETE")).get_data(as_text=True)
    assert '<option value="1.30" selected>' in html
    assert '<option value="DELETE" selected>' in html
