"""The service under attack: hidden checks that stay hidden, bounded responses, and the smaller faults
(strict JSON, 413 for every oversized body, JSON errors under /api, workers lost or killed, a full disk,
share quotas). Each test reproduces an attack and shows what the server answers now.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import signal
import threading
import time
from typing import Any

import pytest

from app import create_app, exercises, vap
from app.isolation import EvaluationTimeout
from tests import hostile_inputs as h

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

    def stopped(job, *args, **kwargs):
        if job == "checks":
            raise EvaluationTimeout("the test cases were stopped after 30 seconds", "EVALUATION_SUITE_TIMEOUT_SECONDS")
        return real(job, *args, **kwargs)

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


# --- Bounded output ----------------------------------------------------------------------------------------

FIVE_MB = 5 * 1024 * 1024


def doubling(times: int = 14, *, validations: int = 1, start: int = 640) -> dict[str, Any]:
    """Variables doubling a string until it is ``start * 2**(times-1)`` bytes (5 MiB by default), shown by
    ``validations`` messageExpressions: a request of a few kB whose answer would be megabytes."""
    variables = [{"name": "v0", "expression": repr("x" * start)}]
    variables += [{"name": f"v{i}", "expression": f"variables.v{i - 1} + variables.v{i - 1}"} for i in range(1, times)]
    checks = [{"expression": "false", "messageExpression": f"variables.v{times - 1}"}] * validations
    return h.scenario(h.policy(variables=variables, validations=checks))


def strict_json(text: str) -> Any:
    def refuse(constant: str) -> Any:
        raise ValueError(f"not JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The app as in production: evaluation workers with their bounds, rate limits on."""
    app = create_app({
        "TESTING": True,
        "EVALUATION_ISOLATION": "process",
        "EVALUATION_TIMEOUT_SECONDS": 10,
        "RATE_LIMIT_ENABLED": True,
        "RATE_LIMIT_EVALUATE_BURST": 1000,
        "RATE_LIMIT_SHARE_BURST": 1000,
        "DATA_DIR": str(tmp_path_factory.mktemp("data")),
        "DATABASE_URL": "",
    })
    return app.test_client()


def test_a_few_kilobytes_building_five_megabytes_answer_in_under_one_megabyte(server):
    body = doubling()
    assert len(json.dumps(body)) < 8000
    started = time.monotonic()
    response = server.post("/api/v1/evaluate", json=body)
    assert time.monotonic() - started < 10
    assert response.status_code == 200
    assert len(response.data) < 1_000_000
    answer = strict_json(response.get_data(as_text=True))
    assert answer["truncated"] is True
    assert answer["allowed"] is False and answer["status"]["code"] == 422
    evaluation = answer["policies"][0]["bindings"][0]["evaluations"][0]
    shown = evaluation["validations"][0]["messageExpression"]["value"]
    assert shown.startswith("xxxx") and shown.endswith("xxxx") and f"… truncated ({FIVE_MB} bytes) …" in shown
    assert len(shown.encode()) <= 65536
    # the core's own answer is exact: only the served copy is bounded
    exact = vap.evaluate(body)
    assert len(exact["policies"][0]["bindings"][0]["evaluations"][0]["validations"][0]["messageExpression"]
               ["value"]) == FIVE_MB
    assert "truncated" not in exact


def test_many_large_values_are_cut_to_the_response_ceiling_keeping_the_decision(server):
    body = doubling(times=12, validations=40)  # 40 messages of 1.25 MiB: 50 MiB unbounded
    response = server.post("/api/v1/evaluate", json=body)
    assert response.status_code == 200
    assert len(response.data) <= 1048576
    answer = strict_json(response.get_data(as_text=True))
    assert answer["truncated"] is True and answer["allowed"] is False
    assert answer["status"]["reason"] == "Invalid" and answer["status"]["message"]
    validations = answer["policies"][0]["bindings"][0]["evaluations"][0]["validations"]
    assert len(validations) == 40
    assert all("… truncated (" in v["messageExpression"]["value"] for v in validations)


def test_the_page_shows_a_large_value_cut_with_its_marker(server):
    values = {pane: text for pane, text in doubling().items()}
    response = server.post("/evaluate", data={**values, "testCases": ""}, headers={"HX-Request": "true"})
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert len(html.encode()) < 2_000_000
    assert f"… truncated ({FIVE_MB} bytes)" in html


def test_the_response_ceiling_is_a_setting():
    client = create_app({"TESTING": True, "RESPONSE_MAX_BYTES": 100_000}).test_client()
    response = client.post("/api/v1/evaluate", json=doubling(times=12, validations=4))
    assert response.status_code == 200
    assert len(response.data) <= 100_000
    assert strict_json(response.get_data(as_text=True))["truncated"] is True


def test_a_small_answer_is_not_marked():
    client = create_app({"TESTING": True}).test_client()
    answer = client.post("/api/v1/evaluate", json=doubling(times=3)).get_json()
    assert "truncated" not in answer


def test_test_cases_and_suites_are_bounded_too(server):
    cases = "- name: big\n  object: {apiVersion: v1, kind: ConfigMap, metadata: {name: o, namespace: default}}\n" \
            "  expect: {allowed: false}\n"
    response = server.post("/api/v1/test?responses=true", json={**doubling(), "testCases": cases})
    assert response.status_code == 200
    assert len(response.data) < 1_000_000
    answer = strict_json(response.get_data(as_text=True))
    assert answer["truncated"] is True and answer["summary"]["passed"] == 1
    # the page's Test cases pane: its matrix shows the case's message cut
    values = {**doubling(), "testCases": cases}
    html = server.post("/evaluate", data=values, headers={"HX-Request": "true"}).get_data(as_text=True)
    assert len(html.encode()) < 2_000_000


# --- Strict JSON -------------------------------------------------------------------------------------------


def test_nan_and_infinity_are_served_as_strings_never_bare(server):
    # YAML's .nan and .inf are floats JSON cannot carry; the answer echoes the object
    body = h.scenario(h.policy(variables=[{"name": "nan", "expression": "0.0 / 0.0"}],
                               validations=[{"expression": "object.x != object.x"}]))
    body["object"] = ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: o, namespace: default}\n"
                      "x: .nan\ny: [.inf, -.inf]\n")
    for client in (server, create_app({"TESTING": True}).test_client()):
        for url in ("/api/v1/evaluate", "/api/v1/test"):
            response = client.post(url, json={**body, "testCases": "- object: {x: .nan}\n  expect: {allowed: true}\n"})
            assert response.status_code == 200, response.data
            strict_json(response.get_data(as_text=True))
        answer = client.post("/api/v1/evaluate", json=body).get_json()
        assert answer["object"]["x"] == "NaN" and answer["object"]["y"] == ["Infinity", "-Infinity"]


@pytest.mark.parametrize("value", [
    {"value": list(range(300_000))},  # a long list of small values
    {"value": {f"k{i}": i for i in range(100_000)}},  # a map of many keys
    {"value": [["é" * 500] * 100] * 100},  # nested lists of text that JSON escapes
    {"policies": [{"value": "x" * 200_000, "name": f"p{i}"} for i in range(50)], "allowed": False,
     "status": {"code": 422, "message": "denied"}},
], ids=["long list", "many keys", "nested escaped", "structure"])
def test_any_answer_is_served_within_its_bounds(value):
    from app.isolation import response_json
    from app.jobs import bounded

    served = bounded("evaluate", value, 65536, 200_000)
    encoded = response_json(served)
    assert len(encoded) <= 200_000
    assert served["truncated"] is True and "… truncated (" in encoded.decode("unicode_escape")
    if "status" in value:
        assert served["status"] == value["status"] and served["allowed"] is False
        assert [p["name"] for p in served["policies"]] == [f"p{i}" for i in range(50)]


# --- Bodies, routes, workers ---------------------------------------------------------------------------------


@pytest.mark.parametrize("url", ["/api/v1/evaluate", "/api/v1/scenarios", "/api/v1/test", "/evaluate"])
def test_an_oversized_chunked_body_is_413_like_a_declared_one(url):
    client = create_app({"TESTING": True, "MAX_CONTENT_LENGTH": 1000}).test_client()
    for small, expected in ((False, 413), (True, None)):
        body = b'{"policy": "' + b"x" * (10 if small else 5000) + b'"}'
        response = client.open(url, method="POST", input_stream=io.BytesIO(body),
                               headers={"Transfer-Encoding": "chunked", "Content-Type": "application/json"},
                               environ_overrides={"wsgi.input_terminated": True, "CONTENT_LENGTH": ""})
        if expected:
            assert response.status_code == expected
            if url.startswith("/api/"):
                assert "larger than the limit of 1000 bytes" in response.get_json()["error"]
        else:
            assert response.status_code in (200, 201, 400) and "larger than" not in response.get_data(as_text=True)


@pytest.mark.parametrize(("method", "url", "code"), [
    ("get", "/api/v1/nope", 404), ("get", "/api/nope", 404), ("get", "/api/v1/evaluate", 405),
    ("delete", "/api/v1/scenarios/abcdefgh", 405), ("put", "/api/v1/test", 405),
])
def test_routing_errors_under_api_answer_json(method, url, code):
    client = create_app({"TESTING": True}).test_client()
    response = getattr(client, method)(url)
    assert response.status_code == code and response.mimetype == "application/json"
    assert response.get_json()["error"]
    if code == 405:
        assert "POST" in response.headers["Allow"] or "GET" in response.headers["Allow"]
    # the page keeps its own error pages
    assert create_app({"TESTING": True}).test_client().get("/nope").mimetype == "text/html"


@pytest.fixture(scope="module")
def fragile_client():
    """Workers of their own (a pool of these settings), for tests that kill them."""
    app = create_app({"TESTING": True, "EVALUATION_ISOLATION": "process", "EVALUATION_TIMEOUT_SECONDS": 7,
                      "EVALUATION_WORKERS": 4, "EVALUATION_SPARE_WORKERS": 3, "EVALUATION_SLOW_SECONDS": 7})
    client = app.test_client()
    assert client.post("/api/v1/evaluate", json=h.scenario(h.policy())).status_code == 200
    return client


def _pool(client):
    from app import isolation

    return isolation.pool_for(client.application.extensions["evaluation"])


def _wait_for_idle(pool, count: int) -> list[int]:
    deadline = time.monotonic() + 30
    while len(pool.pids()) < count and time.monotonic() < deadline:
        time.sleep(0.05)
    return pool.pids()


def test_idle_workers_killed_are_replaced_without_an_error(fragile_client):
    pool = _pool(fragile_client)
    for _ in range(3):
        pids = _wait_for_idle(pool, 3)
        assert len(pids) >= 2
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.2)
        for _ in range(3):
            response = fragile_client.post("/api/v1/evaluate", json=h.scenario(h.policy()))
            assert response.status_code == 200, response.get_data(as_text=True)
            assert response.get_json()["allowed"] is True


def test_a_worker_killed_while_evaluating_is_reported_as_killed_not_as_memory(fragile_client):
    pool = _pool(fragile_client)
    _wait_for_idle(pool, 3)
    answers: list[Any] = []
    thread = threading.Thread(target=lambda: answers.append(fragile_client.post("/api/v1/evaluate", json=h.slow())))
    thread.start()
    deadline = time.monotonic() + 5
    while not pool.pids(busy=True) and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(0.3)
    [pid] = pool.pids(busy=True)
    os.kill(pid, signal.SIGKILL)
    thread.join(30)
    [response] = answers
    assert response.status_code == 503 and response.headers["Retry-After"]
    message = response.get_json()["error"]
    assert "killed by SIGKILL" in message and "memory" not in message.split("(")[0]
    assert "EVALUATION_MEMORY_MB" not in message
    assert fragile_client.post("/api/v1/evaluate", json=h.scenario(h.policy())).status_code == 200


def test_every_json_answer_is_strict():
    from flask import jsonify

    app = create_app({"TESTING": True})
    with app.app_context():
        text = jsonify(a=float("nan"), b=[float("inf"), -float("inf")], c=1.5).get_data(as_text=True)
    assert strict_json(text) == {"a": "NaN", "b": ["Infinity", "-Infinity"], "c": 1.5}


@pytest.mark.parametrize(("given", "said"), [
    ("1.38", "'1.38'"),
    ("v1.99.3", "'v1.99.3' (read as '1.99')"),
    ("x" * 300, "'" + "x" * 64 + "…'"),
    ("<b>1.x</b>", "'<b>1.x</b>'"),
])
def test_an_unsupported_version_is_quoted_as_it_was_given(given, said):
    client = create_app({"TESTING": True}).test_client()
    answer = client.post("/api/v1/evaluate", json={"policy": "", "kubernetesVersion": given}).get_json()
    [message] = [p["message"] for p in answer["problems"] if p.get("path") == "kubernetesVersion"]
    assert message.startswith(f"unsupported Kubernetes version {said}: supported versions are 1.28,")
    assert len(message) < 300


# --- The store: quota, budget, a full disk -------------------------------------------------------------------


def _scenario(i: int, size: int = 2000) -> dict[str, str]:
    return {"policy": f"# {i}\n" + "#" * size}


def _store_app(tmp_path, **config: Any):
    return create_app({"TESTING": True, "DATA_DIR": str(tmp_path), "DATABASE_URL": "", **config})


def test_a_client_has_a_quota_of_shared_bytes_answered_429(tmp_path):
    app = _store_app(tmp_path, RATE_LIMIT_ENABLED=True, RATE_LIMIT_SHARE_BURST=1000,
                     SHARE_QUOTA_BYTES_PER_HOUR=5000)
    client = app.test_client()
    codes = [client.post("/api/v1/scenarios", json=_scenario(i)).status_code for i in range(2)]
    assert codes == [201, 201]
    refused = client.post("/api/v1/scenarios", json=_scenario(2))
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) >= 1
    assert "PLAYGROUND_SHARE_QUOTA_BYTES_PER_HOUR" in refused.get_json()["error"]
    # a scenario already stored costs nothing; another client has its own quota
    assert client.post("/api/v1/scenarios", json=_scenario(0)).status_code == 200
    other = client.post("/api/v1/scenarios", json=_scenario(3), environ_base={"REMOTE_ADDR": "192.0.2.7"})
    assert other.status_code == 201
    # the page's Share button says the same in the result region
    page = client.post("/share", data={"policy": "# page\n" + "#" * 3000}, headers={"HX-Request": "true"})
    assert page.status_code == 429 and "PLAYGROUND_SHARE_QUOTA_BYTES_PER_HOUR" in page.get_data(as_text=True)


def test_the_store_has_a_budget_answered_507(tmp_path):
    client = _store_app(tmp_path, STORE_MAX_BYTES=7000).test_client()
    codes = [client.post("/api/v1/scenarios", json=_scenario(i)).status_code for i in range(4)]
    assert codes[:3] == [201, 201, 201] and codes[3] == 507
    refused = client.post("/api/v1/scenarios", json=_scenario(9))
    assert refused.status_code == 507 and "PLAYGROUND_STORE_MAX_BYTES" in refused.get_json()["error"]
    assert client.post("/api/v1/scenarios", json=_scenario(1)).status_code == 200  # stored already
    page = client.post("/share", data={"policy": "# page\n" + "#" * 3000})
    assert page.status_code == 507 and "PLAYGROUND_STORE_MAX_BYTES" in page.get_data(as_text=True)


def test_a_full_disk_is_said_as_such_507(tmp_path, monkeypatch):
    import sqlite3

    client = _store_app(tmp_path).test_client()
    assert client.post("/api/v1/scenarios", json=_scenario(0)).status_code == 201
    connect = sqlite3.connect

    def on_a_full_disk(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        conn = connect(*args, **kwargs)
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {pages}")  # no page more: SQLite's "database or disk is full"
        return conn

    monkeypatch.setattr(sqlite3, "connect", on_a_full_disk)
    response = client.post("/api/v1/scenarios", json=_scenario(1, size=50_000))
    assert response.status_code == 507
    assert "disk is full" in response.get_json()["error"] and "nothing was stored" in response.get_json()["error"]
    page = client.post("/share", data={"policy": "# page\n" + "#" * 50_000}, headers={"HX-Request": "true"})
    assert page.status_code == 507 and "disk is full" in page.get_data(as_text=True)
    monkeypatch.setattr(sqlite3, "connect", connect)
    assert client.post("/api/v1/scenarios", json=_scenario(1, size=50_000)).status_code == 201


# --- The same over a real server (gunicorn, as `admission-playground serve` runs it) ---------------------------

SERVER_BODY_LIMIT = 100_000


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """gunicorn on a free local port with the production settings (workers, rate limits), a small body bound."""
    import socket
    import subprocess
    import sys

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = {**os.environ, "DATA_DIR": str(tmp_path_factory.mktemp("served")), "DATABASE_URL": "",
           "PLAYGROUND_MAX_CONTENT_LENGTH": str(SERVER_BODY_LIMIT), "PLAYGROUND_EVALUATION_WORKERS": "2",
           "PLAYGROUND_EVALUATION_SPARE_WORKERS": "1"}
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "--config", "python:app.gunicorn_conf", "--bind", f"127.0.0.1:{port}",
         "app:create_app()"], cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if _request(port, "POST", "/api/v1/evaluate", json.dumps(h.scenario(h.policy())).encode())[0] == 200:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.3)
        yield port
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.pid, signal.SIGTERM)
        server.wait(15)


def _request(port: int, method: str, path: str, body: Any = None, chunked: bool = False) -> tuple[int, bytes]:
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        headers = {"Content-Type": "application/json"}
        if chunked:
            headers["Transfer-Encoding"] = "chunked"
            pieces = [body[i:i + 8192] for i in range(0, len(body), 8192)]
            conn.request(method, path, body=iter(pieces), headers=headers, encode_chunked=True)
        else:
            conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def test_the_real_server_answers_413_to_an_oversized_chunked_body(served):
    big = json.dumps({"policy": "#" * (SERVER_BODY_LIMIT + 50_000)}).encode()
    status, data = _request(served, "POST", "/api/v1/evaluate", big, chunked=True)
    assert status == 413 and b"larger than the limit" in data
    small = json.dumps(h.scenario(h.policy())).encode()
    assert _request(served, "POST", "/api/v1/evaluate", small, chunked=True)[0] == 200


def test_the_real_server_answers_a_five_megabyte_expression_in_under_one_megabyte(served):
    status, data = _request(served, "POST", "/api/v1/evaluate", json.dumps(doubling()).encode())
    assert status == 200 and len(data) < 1_000_000
    assert strict_json(data.decode())["truncated"] is True


def test_the_real_server_answers_api_routing_errors_as_json(served):
    for method, path, code in (("GET", "/api/v1/nothing", 404), ("GET", "/api/v1/evaluate", 405)):
        status, data = _request(served, method, path)
        assert status == code and json.loads(data)["error"]


def test_an_expression_result_is_bounded_even_when_the_answer_is_small():
    from app.jobs import bounded

    answer = {"allowed": True, "variables": [{"name": "l", "value": list(range(50_000))}]}
    served = bounded("evaluate", answer, 65536, 1048576)
    assert served["truncated"] is True and len(json.dumps(served, separators=(",", ":"))) < 70_000
    assert served["variables"][0]["value"][:3] == [0, 1, 2]
    assert served["variables"][0]["value"][-1].startswith("… truncated (")
    assert bounded("evaluate", {"allowed": True, "n": 10**30}, 65536, 1048576) == {"allowed": True, "n": 10**30}
