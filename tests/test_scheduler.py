"""The fair scheduler of the evaluation workers (app/scheduler.py) and the admission of every job (app/evaluations.py):
a client's jobs queue behind its own, no client holds more than its share, every job costs its tokens, a shared
scenario's results are computed once."""

from __future__ import annotations

import threading
import time

import pytest

from app import create_app, evaluations, examples, exercises, isolation
from app.scheduler import Kept, QueueFull, QueueTimeout, Scheduler, content_key


def _hold(scheduler: Scheduler, client: str, release: threading.Event, order: list[str]) -> threading.Thread:
    def run() -> None:
        with scheduler.seat(client):
            order.append(client)
            release.wait(10)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def _wait_until(condition, seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the scheduler did not get there"
        time.sleep(0.005)


def test_a_client_holds_at_most_its_share_and_the_others_pass_its_queue():
    scheduler = Scheduler(3, per_client=2, wait=5)
    release, order = threading.Event(), []
    threads = [_hold(scheduler, "greedy", release, order) for _ in range(5)]
    _wait_until(lambda: scheduler.holding("greedy") == 2 and scheduler.waiting("greedy") == 3)
    threads.append(_hold(scheduler, "other", release, order))  # the third seat is free: the other client takes it
    _wait_until(lambda: scheduler.holding("other") == 1)
    assert scheduler.holding("greedy") == 2 and scheduler.waiting("greedy") == 3
    release.set()
    for thread in threads:
        thread.join(10)
    assert sorted(order) == ["greedy"] * 5 + ["other"]


def test_a_free_seat_goes_to_the_waiting_client_holding_the_fewest():
    scheduler = Scheduler(2, per_client=2, wait=5)
    first, second, order = threading.Event(), threading.Event(), []
    held = [_hold(scheduler, "a", first, order), _hold(scheduler, "a", second, order)]  # a holds both seats
    _wait_until(lambda: scheduler.holding("a") == 2)
    later = threading.Event()
    waiting = [_hold(scheduler, "a", later, order)]  # a's third job queues first ...
    _wait_until(lambda: scheduler.waiting("a") == 1)
    waiting.append(_hold(scheduler, "b", later, order))  # ... b's comes later, holding nothing
    _wait_until(lambda: scheduler.waiting("b") == 1)
    first.set()  # one seat comes free
    _wait_until(lambda: len(order) == 3)
    assert order[2] == "b" and scheduler.waiting("a") == 1  # b first though a's job waited longer: a holds one
    second.set()
    _wait_until(lambda: len(order) == 4)
    later.set()
    for thread in held + waiting:
        thread.join(5)


def test_a_full_queue_is_refused_at_once_and_a_long_wait_times_out():
    scheduler = Scheduler(1, per_client=1, queue_per_client=1, wait=5)
    release, order = threading.Event(), []
    holder = _hold(scheduler, "a", release, order)
    _wait_until(lambda: scheduler.holding("a") == 1)
    queued = _hold(scheduler, "a", release, order)
    _wait_until(lambda: scheduler.waiting("a") == 1)
    started = time.monotonic()
    with pytest.raises(QueueFull, match="PLAYGROUND_RATE_LIMIT_QUEUED"):
        with scheduler.seat("a"):
            pass
    assert time.monotonic() - started < 0.1
    scheduler.wait = 0.2
    with pytest.raises(QueueTimeout):  # another client queues, but no seat comes free in time
        with scheduler.seat("b"):
            pass
    assert scheduler.waiting("b") == 0
    release.set()
    holder.join(5)
    queued.join(5)
    assert order == ["a", "a"]
    with scheduler.seat("b"):  # every seat back, nothing left waiting
        assert scheduler.holding("b") == 1


def test_when_many_wait_a_client_with_jobs_already_is_refused_and_a_new_one_still_queues():
    # a few addresses together must not keep every server thread waiting: past RATE_LIMIT_QUEUED_TOTAL waiting jobs,
    # only clients with nothing running or waiting may queue
    scheduler = Scheduler(1, per_client=1, queue_per_client=5, queue_total=2, wait=5)
    release, order = threading.Event(), []
    threads = [_hold(scheduler, "a", release, order)]
    _wait_until(lambda: scheduler.holding("a") == 1)
    threads += [_hold(scheduler, "a", release, order), _hold(scheduler, "b", release, order)]
    _wait_until(lambda: scheduler.waiting() == 2)
    for client in ("a", "b"):
        with pytest.raises(QueueFull, match="PLAYGROUND_RATE_LIMIT_QUEUED_TOTAL"):
            with scheduler.seat(client):
                pass
    threads.append(_hold(scheduler, "c", release, order))  # nothing running or waiting yet: it queues
    _wait_until(lambda: scheduler.waiting("c") == 1)
    release.set()
    for thread in threads:
        thread.join(5)
    assert sorted(order) == ["a", "a", "b", "c"]


def test_a_kept_result_is_computed_once_however_many_ask_at_once():
    kept = Kept(1 << 20)
    calls = []
    gate = threading.Event()

    def compute():
        calls.append(1)
        gate.wait(5)
        return {"allowed": True}

    key = content_key("evaluate", ({"policy": "x"},))
    results: list = []
    threads = [threading.Thread(target=lambda: results.append(
        kept.get_or_compute(key, compute, keep_error=lambda e: False, size=lambda v: 10, wait=5))) for _ in range(8)]
    for thread in threads:
        thread.start()
    time.sleep(0.1)
    gate.set()
    for thread in threads:
        thread.join(5)
    assert calls == [1] and results == [{"allowed": True}] * 8
    assert content_key("evaluate", ({"policy": "x"},)) == key != content_key("evaluate", ({"policy": "y"},))


def test_a_stop_at_a_bound_is_kept_a_busy_server_is_not():
    kept = Kept(1 << 20)
    calls = []

    def stopped():
        calls.append("stopped")
        raise isolation.Settings().timeout_error()

    def busy():
        calls.append("busy")
        raise isolation.Settings().busy_error()

    def keep(exc):
        return isinstance(exc, isolation.EvaluationTimeout)

    for _ in range(2):
        with pytest.raises(isolation.EvaluationTimeout):
            kept.get_or_compute("k1", stopped, keep_error=keep, size=len, wait=1)
        with pytest.raises(isolation.EvaluatorBusy):
            kept.get_or_compute("k2", busy, keep_error=keep, size=len, wait=1)
    assert calls == ["stopped", "busy", "busy"]
    kept.stop_seconds = 0  # a stop is kept for a while only: a busy machine may have stretched it
    time.sleep(0.01)
    with pytest.raises(isolation.EvaluationTimeout):
        kept.get_or_compute("k1", stopped, keep_error=keep, size=len, wait=1)
    assert calls == ["stopped", "busy", "busy", "stopped"]


def test_kept_results_stay_within_their_bytes():
    kept = Kept(100)
    for i in range(5):
        kept.get_or_compute(f"k{i}", lambda: "x" * 40, keep_error=lambda e: False, size=len, wait=1)
    assert len(kept) == 2  # 2 x 40 bytes fit in 100, the least recently used went first
    kept.get_or_compute("big", lambda: "x" * 500, keep_error=lambda e: False, size=len, wait=1)
    assert len(kept) == 2  # larger than the whole budget: answered, not kept


# --- every job is admitted: tokens first, the penalty when stopped ------------------------------------------------


def _app(tmp_path, **config):
    return create_app({"TESTING": True, "RATE_LIMIT_ENABLED": True, "DATA_DIR": str(tmp_path),
                       "RATE_LIMIT_EVALUATE_PER_MINUTE": 1, "RATE_LIMIT_EVALUATE_BURST": 2, **config})


def test_workshop_checks_cost_tokens_and_refused_ones_count_as_failed(tmp_path):
    client = _app(tmp_path).test_client()
    exercise = exercises.get("first-validation")
    form = {**exercise.solved_form(), "testCases": ""}
    html = client.post(f"/workshop/{exercise.name}/evaluate", data=form,
                       headers={"HX-Request": "true"}).get_data(as_text=True)
    assert "Solved" in html  # the evaluation and the checks: the two tokens of the burst
    html = client.post(f"/workshop/{exercise.name}/evaluate", data=form,
                       headers={"HX-Request": "true"}).get_data(as_text=True)
    assert "too many evaluations" in html and "Solved" not in html
    assert f"0 of {len(exercise.checks)} checks pass" in html  # not run, so not passed: no oracle after a 429


def test_the_page_test_cases_cost_tokens_like_evaluations(tmp_path):
    client = _app(tmp_path).test_client()
    example = examples.default()
    cases = "- name: any\n  object: |\n" + "".join("    " + line + "\n" for line in
                                                   example.panes["object"].splitlines()) + "  expect: allowed\n"
    form = {**example.form(), "testCases": cases}
    first = client.post("/evaluate", data=form, headers={"HX-Request": "true"})
    assert first.status_code == 200 and 'data-status="' in first.get_data(as_text=True)
    again = client.post("/evaluate", data=form, headers={"HX-Request": "true"})
    assert again.status_code == 429  # the evaluation and its test cases took the burst of two


def test_a_stopped_job_costs_the_penalty_whatever_the_job(tmp_path, monkeypatch):
    app = _app(tmp_path, RATE_LIMIT_EVALUATE_BURST=10, RATE_LIMIT_PENALTY=20)

    def stopped(job, args, raw):
        raise isolation.Settings().timeout_error("suite")

    monkeypatch.setattr(evaluations, "_perform", stopped)
    client = app.test_client()
    resp = client.post("/api/v1/test", json={"policy": "", "testCases": [{"name": "a", "object": "{}"}]})
    assert resp.status_code == 422 and "EVALUATION_SUITE_TIMEOUT_SECONDS" in resp.get_json()["error"]
    resp = client.post("/api/v1/evaluate", json={"policy": ""})
    assert resp.status_code == 429 and int(resp.headers["Retry-After"]) >= 10


def test_a_client_over_its_queue_gets_429_and_others_are_served(tmp_path, monkeypatch):
    app = _app(tmp_path, RATE_LIMIT_EVALUATE_BURST=50, RATE_LIMIT_CONCURRENT=1, RATE_LIMIT_QUEUED=1,
               EVALUATION_WORKERS=2)
    gate = threading.Event()
    real = evaluations._perform

    def slow(job, args, raw):
        if (args and isinstance(args[0], dict) and args[0].get("policy") == "# slow") or b"# slow" in (raw or b""):
            gate.wait(10)
        return real(job, args, raw)

    monkeypatch.setattr(evaluations, "_perform", slow)
    client = app.test_client()
    statuses: list[int] = []

    def greedy() -> None:
        statuses.append(client.post("/api/v1/evaluate", json={"policy": "# slow"},
                                    environ_base={"REMOTE_ADDR": "192.0.2.1"}).status_code)

    threads = [threading.Thread(target=greedy) for _ in range(2)]  # one runs, one waits behind it
    for thread in threads:
        thread.start()
    scheduler = app.extensions["evaluation_scheduler"]
    _wait_until(lambda: scheduler.holding("192.0.2.1") == 1 and scheduler.waiting("192.0.2.1") == 1)
    refused = client.post("/api/v1/evaluate", json={"policy": "# slow"}, environ_base={"REMOTE_ADDR": "192.0.2.1"})
    assert refused.status_code == 429 and "PLAYGROUND_RATE_LIMIT_QUEUED" in refused.get_json()["error"]
    other = client.post("/api/v1/evaluate", json={"policy": ""}, environ_base={"REMOTE_ADDR": "192.0.2.2"})
    assert other.status_code == 200  # the second worker is the other client's
    gate.set()
    for thread in threads:
        thread.join(10)
    assert statuses == [200, 200]


def test_a_shared_link_costs_one_evaluation_however_often_it_is_opened(tmp_path, monkeypatch):
    app = _app(tmp_path, RATE_LIMIT_EVALUATE_BURST=3)
    client = app.test_client()
    example = examples.default()
    body = {pane: text for pane, text in example.panes.items() if text}
    link = client.post("/api/v1/scenarios", json=body).get_json()["url"]
    performed: list[str] = []
    real = evaluations._perform
    monkeypatch.setattr(evaluations, "_perform", lambda job, args, raw: performed.append(job) or real(job, args, raw))
    pages = [client.get(link, environ_base={"REMOTE_ADDR": f"192.0.2.{i}"}) for i in range(1, 6)]
    assert [p.status_code for p in pages] == [200] * 5
    assert len({p.get_data() for p in pages}) == 1  # the same page for everyone
    exports = [client.get(f"/api/v1/scenarios/{link.rsplit('/', 1)[1]}/export") for _ in range(5)]
    assert {e.status_code for e in exports} == {200} and len({e.get_data() for e in exports}) == 1
    assert performed == ["result_page", "export"]  # each once: the other views were answered from memory
    for _ in range(3):  # a viewer's own evaluations still count: the kept views took none of its tokens
        assert client.post("/api/v1/evaluate", json=body, environ_base={"REMOTE_ADDR": "192.0.2.2"}).status_code == 200
