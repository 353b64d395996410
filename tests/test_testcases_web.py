"""Test cases over HTTP: POST /api/v1/test, the page's matrix, adding a case, and shared links."""

from __future__ import annotations

import html as htmllib
import json
import re

import pytest

from app import create_app, examples, shares
from app.forms import payload_from

EXAMPLE = examples.get("replica-limit")
OBJECT = EXAMPLE.panes["object"]  # 5 replicas, limit 3: denied


def indented(text: str) -> str:
    return "".join("    " + line + "\n" for line in text.splitlines())


CASES = f"""\
- name: five replicas are denied
  object: |
{indented(OBJECT)}  expect: {{allowed: false, message: "got 5"}}
- name: two replicas are admitted
  object: |
{indented(OBJECT.replace('replicas: 5', 'replicas: 2'))}  expect: allowed
- name: <b>wrong</b> on purpose
  object:
    apiVersion: apps/v1
    kind: Deployment
    metadata: {{name: other, namespace: default}}
    spec: {{replicas: 9}}
  expect: allowed
"""


@pytest.fixture
def app(tmp_path):
    app = create_app({"TESTING": True, "DATA_DIR": str(tmp_path / "data")})
    yield app
    store = app.extensions.get(shares.EXTENSION)
    if store is not None:
        store.close()


@pytest.fixture
def client(app):
    return app.test_client()


def page_form(**overrides) -> dict[str, str]:
    return {**EXAMPLE.form(), "testCases": CASES, **overrides}


def matrix(html: str) -> list[tuple[str, str, str]]:
    """(status, name, open data) of each row of the test cases matrix."""
    rows = re.findall(r'<tr data-case="\d+" data-status="(\w+)">\s*<th scope="row">(.*?)</th>(.*?)</tr>', html, re.S)
    out = []
    for status, name, rest in rows:
        found = re.search(r'data-open-case="([^"]*)"', rest)
        out.append((status, htmllib.unescape(name), htmllib.unescape(found.group(1)) if found else ""))
    return out


def test_api_runs_a_suite_as_json(client):
    body = {**payload_from(EXAMPLE.form()), "testCases": CASES}
    response = client.post("/api/v1/test", json=body)
    assert response.status_code == 200
    data = response.get_json()
    assert data["summary"] == {"total": 3, "passed": 2, "failed": 1, "errors": 0}
    first, _, wrong = data["cases"]
    assert first["status"] == "pass" and first["line"] == 1
    assert first["result"]["policies"] == {"replica-limit.example.com": "fail"}
    assert wrong["status"] == "fail" and wrong["name"] == "<b>wrong</b> on purpose"
    assert wrong["reasons"][0].startswith("expected the request to be allowed, but it was denied")
    assert "response" not in first
    full = client.post("/api/v1/test?responses=true", json=body).get_json()
    assert full["cases"][0]["response"]["status"]["code"] == 422


def test_api_runs_a_scenario_file(client):
    from app import store

    text = store.render_yaml(store.normalize({**payload_from(EXAMPLE.form()), "testCases": CASES}))
    response = client.post("/api/v1/test", data=text, content_type="application/yaml")
    assert response.status_code == 200, response.get_json()
    assert response.get_json()["summary"]["passed"] == 2


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"data": "not json", "content_type": "text/plain"}, "must be JSON"),
    ({"json": {"policy": "x"}}, "'testCases' is required"),
    ({"json": {"policy": "x", "testCases": {"a": 1}}}, "'testCases' is required"),
    ({"json": {"policy": 3, "testCases": []}}, "field 'policy' must be"),
    ({"data": "kind: Scenario\n", "content_type": "application/yaml"}, "apiVersion"),
])
def test_api_refuses_what_is_not_a_suite(client, kwargs, message):
    response = client.post("/api/v1/test", **kwargs)
    assert response.status_code == 400
    assert message in response.get_json()["error"]


def test_api_reports_unreadable_cases_inside_the_answer(client):
    response = client.post("/api/v1/test", json={"policy": EXAMPLE.panes["policy"], "testCases": "- a: [\n"})
    assert response.status_code == 200
    data = response.get_json()
    assert data["cases"] == [] and data["problems"][0]["pane"] == "testCases"


def test_evaluating_swaps_in_the_matrix_out_of_band(client):
    response = client.post("/evaluate", data=page_form(), headers={"HX-Request": "true"})
    html = response.get_data(as_text=True)
    assert 'id="result"' in html
    assert '<section id="testcases-result" class="testcases-result" aria-labelledby="testcases-heading" ' \
           'hx-swap-oob="true" data-total="3" data-passed="2">' in html
    assert "2 of 3 test cases pass" in html
    rows = matrix(html)
    assert [(s, n) for s, n, _ in rows] == [("pass", "five replicas are denied"), ("pass", "two replicas are admitted"),
                                          ("fail", "<b>wrong</b> on purpose")]
    assert "<b>wrong</b>" not in html  # names are text, never markup
    opened = json.loads(rows[2][2])
    assert opened["object"].startswith("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: other")
    assert opened["operation"] == "" and "replica-limit" in opened["params"]
    assert "username: alice@example.com" in opened["request"]


def test_without_test_cases_the_matrix_region_is_empty(client):
    html = client.post("/evaluate", data=page_form(testCases=""), headers={"HX-Request": "true"}).get_data(
        as_text=True)
    assert re.search(r'<section id="testcases-result"[^>]* hx-swap-oob="true" hidden>\s*</section>', html)
    assert 'id="testcases-result"' in client.get("/").get_data(as_text=True)


def test_problems_of_the_test_cases_point_at_their_line(client):
    html = client.post("/evaluate", data=page_form(testCases="- name: x\n  objekt: 1\n  expect: allowed\n"),
                       headers={"HX-Request": "true"}).get_data(as_text=True)
    assert 'data-status="error"' in html
    assert re.search(r'data-problem data-pane="testCases" data-line="2"', html)
    assert "unknown field &#39;objekt&#39;" in html


def test_the_page_without_javascript_shows_the_matrix(client):
    html = client.post("/evaluate", data=page_form()).get_data(as_text=True)
    assert "<html" in html and "2 of 3 test cases pass" in html
    assert "five replicas are denied" in html and "<textarea id=\"pane-testCases\"" in html


def test_add_case_appends_the_current_request_with_its_outcome(client):
    response = client.post("/testcases/add", data=page_form(testCases="# my cases\n"))
    assert response.status_code == 200
    text = response.get_json()["testCases"]
    assert text.startswith("# my cases\n- name: CREATE Deployment web\n  object: |\n    apiVersion: apps/v1\n")
    assert text.endswith("  expect:\n    allowed: false\n    message: replicas must be at most 3, got 5\n")
    result = client.post("/api/v1/test", json={**payload_from(EXAMPLE.form()), "testCases": text}).get_json()
    assert result["summary"]["passed"] == 1
    # an UPDATE chosen in the toolbar is kept in the case
    text = client.post("/testcases/add", data=page_form(testCases="", operation="DELETE")).get_json()["testCases"]
    assert "operation: DELETE" in text and "allowed: true" in text


@pytest.mark.parametrize(("form", "message"), [
    ({"testCases": "- a: [\n"}, "fix the test cases first"),
    ({"object": "", "oldObject": ""}, "there is no object to add"),
])
def test_add_case_says_why_it_cannot(client, form, message):
    response = client.post("/testcases/add", data=page_form(**form))
    assert response.status_code == 400 and message in response.get_json()["error"]


def test_shared_links_carry_the_test_cases(client):
    response = client.post("/share", data=page_form())
    assert response.status_code == 303
    link = response.headers["Location"]
    scenario_id = link.rsplit("/", 1)[1]
    stored = client.get(f"/api/v1/scenarios/{scenario_id}").get_json()
    assert stored["testCases"] == CASES
    page = client.get(link).get_data(as_text=True)
    assert htmllib.escape(CASES.splitlines()[0], quote=False) in page
    assert "2 of 3 test cases pass" in page
    exported = client.get(f"/api/v1/scenarios/{scenario_id}/export").get_data(as_text=True)
    assert "\ntestCases: |\n  - name: five replicas are denied\n" in exported
    imported = client.post("/api/v1/scenarios/import", data=exported, content_type="application/yaml")
    assert imported.get_json()["testCases"] == CASES


def test_a_link_without_test_cases_keeps_its_id(client):
    from app import store

    by_page = client.post("/share", data=page_form(testCases="")).headers["Location"].rsplit("/", 1)[1]
    expected, _ = store.share(shares.get_store(client.application), payload_from(EXAMPLE.form()))
    assert by_page == expected


def test_stored_test_cases_as_a_list_still_open(client):
    body = {**payload_from(EXAMPLE.form()),
            "testCases": [{"name": "listed", "object": OBJECT, "expect": {"allowed": False}}]}
    scenario_id = client.post("/api/v1/scenarios", json=body).get_json()["id"]
    html = client.get(f"/s/{scenario_id}").get_data(as_text=True)
    assert "- name: listed\n  object: |\n    apiVersion: apps/v1" in htmllib.unescape(html)
    assert "1 of 1 test case pass" in html


def test_the_pages_export_and_import_carry_the_test_cases(client):
    exported = client.post("/export", data=page_form())
    assert exported.status_code == 200
    text = exported.get_data(as_text=True)
    assert "\ntestCases: |\n  - name: five replicas are denied\n" in text
    from io import BytesIO

    opened = client.post("/import", data={**page_form(testCases=""), "scenarioFile": (BytesIO(text.encode()),
                                                                                          "s.yaml")},
                         content_type="multipart/form-data")
    html = opened.get_data(as_text=True)
    assert opened.status_code == 200 and "2 of 3 test cases pass" in html
    assert "- name: five replicas are denied" in html
