"""Evaluation workers: same answers as in-process, warm between requests, killed and replaced at a bound."""

from __future__ import annotations

import json
import os
import threading
import time

import pytest

from app import create_app, isolation, warm
from app.vap import evaluate
from app.vap.evaluate import InputError
from tests import hostile_inputs as hostile

TIMEOUT = 1.0
MARGIN = 3.0  # what a loaded machine may add to a bound before the answer is back
SETTINGS = isolation.Settings(timeout=TIMEOUT, memory_mb=64, workers=3, spare=1)


@pytest.fixture(scope="module")
def pool():
    return isolation.pool_for(SETTINGS)


@pytest.fixture(scope="module")
def client():
    app = create_app({"TESTING": True, "EVALUATION_ISOLATION": "process", "EVALUATION_TIMEOUT_SECONDS": TIMEOUT,
                      "EVALUATION_MEMORY_MB": 64, "EVALUATION_WORKERS": 3, "EVALUATION_SPARE_WORKERS": 1})
    return app.test_client()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True



def test_a_worker_answers_exactly_as_the_core_in_process(pool):
    for body in warm.example_bodies():
        assert pool.evaluate(body) == evaluate(body)


def test_the_api_sends_the_workers_json_as_jsonify_would(client):
    from flask import jsonify

    for body in warm.example_bodies()[:6]:
        resp = client.post("/api/v1/evaluate", json=body)
        assert resp.status_code == 200 and resp.mimetype == "application/json"
        answer = resp.get_json()
        assert answer == evaluate(body)
        with client.application.app_context():  # the same bytes as Flask's own encoding of the same answer
            assert resp.get_data() == jsonify(answer).get_data()


def test_an_api_answer_is_json_also_from_a_worker_that_retires_after_it():
    # a worker that came near its memory bound sends its response as an object (with the order to retire
    # it), not encoded: the API still gets the JSON it sends
    reply = {"response": {"allowed": True, "warnings": ["é"]}, "retire": True}
    answer = isolation._answer(reply, SETTINGS, encoded=True)
    assert answer == isolation.response_json(reply["response"]) == b'{"allowed":true,"warnings":["\\u00e9"]}\n'
    assert isolation._answer(reply, SETTINGS) == reply["response"]


def test_after_warming_a_gallery_evaluation_generates_no_code(monkeypatch):
    from app.vap import fast, reach
    from app.vap.fast import cost as cost_cache

    fast.clear()
    assert warm.warm() == len(warm.example_bodies())
    generated = []
    monkeypatch.setattr(cost_cache, "observer", lambda reads: generated.append(reads))
    monkeypatch.setattr(reach, "_generated_pruner", lambda trie: generated.append(trie))
    for body in warm.example_bodies():
        evaluate(body)
    assert generated == []  # what later evaluations use was made while warming, before workers fork


def test_a_worker_serves_one_evaluation_after_another(pool):
    body = warm.example_bodies()[0]
    pool.evaluate(body)
    before = set(pool.pids())
    for _ in range(5):
        pool.evaluate(body)
    assert set(pool.pids()) == before  # the same processes, with what they compiled


def test_a_wrong_body_is_refused_before_any_worker(pool):
    with pytest.raises(InputError):
        pool.evaluate({"policy": 3})


def test_timeout_kills_the_worker_and_a_new_one_answers(pool):
    pool.evaluate(warm.example_bodies()[0])
    started = time.monotonic()
    holder: dict = {}

    def watch():  # the pid of the worker running the slow evaluation, seen while it runs
        time.sleep(TIMEOUT / 2)
        holder["busy"] = set(pool.pids(busy=True))

    watcher = threading.Thread(target=watch)
    watcher.start()
    with pytest.raises(isolation.EvaluationTimeout) as stopped:
        pool.evaluate(hostile.slow())
    elapsed = time.monotonic() - started
    watcher.join()
    assert TIMEOUT <= elapsed < TIMEOUT + MARGIN
    assert "(limit: PLAYGROUND_EVALUATION_TIMEOUT_SECONDS = 1)" in str(stopped.value)
    assert holder["busy"] and not any(_alive(pid) for pid in holder["busy"])
    assert pool.evaluate(warm.example_bodies()[1])["kubernetesVersion"]


def test_an_evaluation_using_cpu_runs_at_the_lowest_priority():
    pool = isolation.pool_for(isolation.Settings(timeout=2, memory_mb=64, workers=2, spare=1, slow=0.1))
    pool.evaluate(warm.example_bodies()[0])
    seen: set[int] = set()
    done = threading.Event()

    def watch():
        while not done.is_set():
            for pid in pool.pids(busy=True):
                try:
                    seen.add(os.getpriority(os.PRIO_PROCESS, pid))
                except ProcessLookupError:
                    pass
            time.sleep(0.02)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        with pytest.raises(isolation.EvaluationTimeout):
            pool.evaluate(hostile.slow())
    finally:
        done.set()
        watcher.join()
    assert 19 in seen
    assert all(os.getpriority(os.PRIO_PROCESS, pid) == 0 for pid in pool.pids())  # its worker was replaced


def test_a_demoted_evaluation_that_finishes_gives_its_worker_back_at_normal_priority():
    from benchmarks.scenarios import many_validations

    # the first evaluation of a 20-validation policy (compiles, type checking) takes more CPU than this bound
    pool = isolation.pool_for(isolation.Settings(timeout=5, memory_mb=64, workers=1, spare=0, slow=0.001))
    pool.evaluate(warm.example_bodies()[0])
    (pid,) = pool.pids()
    body = many_validations().payload
    first = pool.evaluate(body)
    if os.geteuid() == 0:  # may raise a priority again: the worker stays, with what it compiled
        assert pool.pids() == [pid] and os.getpriority(os.PRIO_PROCESS, pid) == 0
    else:  # may not: the worker is retired, a new one serves at normal priority
        assert pid not in pool.pids()
    assert pool.evaluate(body) == first
    assert all(os.getpriority(os.PRIO_PROCESS, p) == 0 for p in pool.pids())


def test_a_quick_evaluation_keeps_its_priority_and_its_worker(pool):
    body = warm.example_bodies()[0]
    pool.evaluate(body)
    before = set(pool.pids())
    pool.evaluate(body)
    assert set(pool.pids()) == before
    assert all(os.getpriority(os.PRIO_PROCESS, pid) == 0 for pid in before)


@pytest.mark.parametrize("body", [hostile.string_doubling(), hostile.list_doubling(), hostile.nested_maps()],
                         ids=["string doubling", "list doubling", "nested maps"])
def test_memory_bombs_stop_at_the_memory_bound(body):
    pool = isolation.pool_for(isolation.Settings(timeout=10, memory_mb=64, workers=2, spare=1))
    started = time.monotonic()
    with pytest.raises(isolation.EvaluationOutOfMemory) as stopped:
        pool.evaluate(body)
    assert time.monotonic() - started < 10
    assert "(limit: PLAYGROUND_EVALUATION_MEMORY_MB = 64)" in str(stopped.value)
    assert pool.evaluate(warm.example_bodies()[0])["kubernetesVersion"]


def test_busy_workers_answer_503_after_the_queue_wait():
    pool = isolation.pool_for(isolation.Settings(timeout=TIMEOUT, workers=1, spare=0, queue=0.2))
    pool.evaluate(warm.example_bodies()[0])
    slow = threading.Thread(target=lambda: pytest.raises(isolation.EvaluationTimeout, pool.evaluate, hostile.slow()))
    slow.start()
    waited = time.monotonic() + 5
    while not pool.pids(busy=True) and time.monotonic() < waited:  # the only worker is taken
        time.sleep(0.01)
    with pytest.raises(isolation.EvaluatorBusy) as busy:
        pool.evaluate(warm.example_bodies()[0])
    slow.join()
    assert busy.value.status == 503 and "PLAYGROUND_EVALUATION_WORKERS" in str(busy.value)
    assert pool.evaluate(warm.example_bodies()[0])["kubernetesVersion"]


def test_the_api_answers_a_timeout_with_422_naming_the_limit(client):
    started = time.monotonic()
    resp = client.post("/api/v1/evaluate", json=hostile.slow())
    assert time.monotonic() - started < TIMEOUT + MARGIN
    assert resp.status_code == 422
    assert "PLAYGROUND_EVALUATION_TIMEOUT_SECONDS" in resp.get_json()["error"]
    assert client.post("/api/v1/evaluate", json=warm.example_bodies()[0]).status_code == 200


def test_the_page_shows_a_stopped_evaluation_as_an_error_and_keeps_the_editors(client):
    form = hostile.nested_maps()  # stopped at the memory bound, or the time bound on a slow machine
    partial = client.post("/evaluate", data=form, headers={"HX-Request": "true"})
    html = partial.get_data(as_text=True)
    assert partial.status_code == 422
    assert html.lstrip().startswith('<section id="result"') and "(limit: PLAYGROUND_EVALUATION_" in html

    page = client.post("/evaluate", data=form)  # without JavaScript: the whole page, editors filled
    html = page.get_data(as_text=True)
    assert page.status_code == 422 and "(limit: PLAYGROUND_EVALUATION_" in html
    assert "variables.l4.map(x, variables.l4)" in html and 'data-editor="policy"' in html


def test_inline_isolation_runs_the_core_in_the_server_process(monkeypatch):
    from app import vap

    monkeypatch.setattr(vap, "evaluate", lambda payload: {"stand-in": True})
    app = create_app({"TESTING": True, "EVALUATION_ISOLATION": "inline"})
    assert app.test_client().post("/api/v1/evaluate", json={"policy": ""}).get_json() == {"stand-in": True}


def test_unknown_isolation_is_a_configuration_error():
    with pytest.raises(ValueError, match="EVALUATION_ISOLATION"):
        create_app({"TESTING": True, "EVALUATION_ISOLATION": "thread"})


def _pair(tmp_path):
    """The same app evaluating in workers and in process, to compare what they answer."""
    config = {"TESTING": True, "DATA_DIR": str(tmp_path), "DATABASE_URL": "", "EVALUATION_TIMEOUT_SECONDS": TIMEOUT,
              "EVALUATION_MEMORY_MB": 64, "EVALUATION_WORKERS": 3, "EVALUATION_SPARE_WORKERS": 1}
    return (create_app({**config, "EVALUATION_ISOLATION": "process"}).test_client(),
            create_app({**config, "EVALUATION_ISOLATION": "inline"}).test_client())


def _strip_timings(html: str) -> str:
    import re

    return re.sub(r"\d+(\.\d+)? ?(µs|ms)", "", html)


def test_test_cases_add_case_suites_and_workshop_checks_run_in_workers(tmp_path):
    from tests.test_testcases_web import CASES, page_form

    workers, inline = _pair(tmp_path)
    body = {**warm.example_bodies()[0], "testCases": CASES}
    assert workers.post("/api/v1/test", json=body).get_json() == inline.post("/api/v1/test", json=body).get_json()
    form = page_form()
    for path in ("/evaluate", "/testcases/add", "/workshop/first-validation/evaluate"):
        got = workers.post(path, data=form, headers={"HX-Request": "true"})
        expected = inline.post(path, data=form, headers={"HX-Request": "true"})
        assert got.status_code == expected.status_code == 200, path
        assert _strip_timings(got.get_data(as_text=True)) == _strip_timings(expected.get_data(as_text=True)), path


def test_a_long_suite_stops_at_the_suite_bound(tmp_path):
    app = create_app({"TESTING": True, "EVALUATION_ISOLATION": "process", "EVALUATION_TIMEOUT_SECONDS": TIMEOUT,
                      "EVALUATION_SUITE_TIMEOUT_SECONDS": 1.5, "EVALUATION_MEMORY_MB": 64,
                      "EVALUATION_WORKERS": 3, "EVALUATION_SPARE_WORKERS": 1})
    client = app.test_client()
    slow = hostile.slow()
    body = {**slow, "testCases": [{"name": f"case {i}", "object": slow["object"], "expect": "allowed"}
                                  for i in range(3)]}
    started = time.monotonic()
    resp = client.post("/api/v1/test", json=body)
    assert time.monotonic() - started < 1.5 + MARGIN
    assert resp.status_code == 422
    assert "(limit: PLAYGROUND_EVALUATION_SUITE_TIMEOUT_SECONDS = 1.5)" in resp.get_json()["error"]
    page = client.post("/evaluate", data={**slow, "testCases": json.dumps(body["testCases"])},
                       headers={"HX-Request": "true"})
    assert "PLAYGROUND_EVALUATION_" in page.get_data(as_text=True)  # the result, and the matrix, name a bound


def test_scenario_files_are_read_in_workers(tmp_path):
    workers, _ = _pair(tmp_path)
    text = "apiVersion: playground.admission/v1\nkind: Scenario\npolicy: |\n  # a policy\n"
    resp = workers.post("/api/v1/scenarios/import", data=text, content_type="application/yaml")
    assert resp.status_code == 200 and resp.get_json()["policy"] == "# a policy\n"
    resp = workers.post("/api/v1/scenarios/import", data="apiVersion: [\n", content_type="application/yaml")
    assert resp.status_code == 400 and "not a scenario file: line" in resp.get_json()["error"]
    deep = "[" * 1000 + "]" * 1000  # too deep for the parser: a 400, or the time bound on a slow machine
    resp = workers.post("/api/v1/scenarios", data=deep, content_type="application/yaml")
    assert (resp.status_code, "too deeply" in resp.get_json()["error"]) in ((400, True), (422, False))
    latin = "apiVersion: playground.admission/v1\nkind: Scenario\npolicy: \"é ✓\"\n".encode()
    resp = workers.post("/api/v1/scenarios/import", data=latin, content_type="application/yaml")
    assert resp.status_code == 200 and resp.get_json()["policy"] == "é ✓"


def test_an_allocation_failure_in_the_engine_fails_the_evaluation_not_the_expression(monkeypatch):
    # the engine raises MemoryError when an allocation fails under the worker's memory bound: that is the
    # memory bound's answer (422 naming it), never an expression error the policy's failurePolicy could hide
    from app.vap import cel

    def exhausted(*args, **kwargs):
        raise MemoryError("std::bad_alloc")

    compiled = cel.compile_expression("object.metadata.name == 'x'", cel.VALIDATION, cel.Declarations())
    program = compiled.program

    class Exhausted:
        eval = staticmethod(exhausted)

        def __getattr__(self, name):
            return getattr(program, name)

    monkeypatch.setattr(compiled, "program", Exhausted())
    with pytest.raises(MemoryError):
        cel.evaluate(compiled, {"object": {"metadata": {"name": "x"}}})
    monkeypatch.setattr(isolation, "JOBS", {"evaluate": lambda *a: cel.evaluate(compiled, {"object": {}})})
    assert isolation._perform("evaluate", []) == {"error": "memory"}
