"""Per-client rate limits on evaluating and sharing: token buckets, a clear 429 with Retry-After."""

from __future__ import annotations

import pytest

from app import create_app, evaluations, examples, isolation, ratelimit


def _app(tmp_path, **config):
    return create_app({"TESTING": True, "RATE_LIMIT_ENABLED": True, "DATA_DIR": str(tmp_path),
                       # refills slow enough that a slow test machine sees no token come back
                       "RATE_LIMIT_EVALUATE_PER_MINUTE": 2, "RATE_LIMIT_EVALUATE_BURST": 3,
                       "RATE_LIMIT_SHARE_PER_MINUTE": 1, "RATE_LIMIT_SHARE_BURST": 2, **config})


BODY = {"policy": ""}


def test_a_bucket_grants_its_burst_then_refills_at_its_rate():
    buckets = ratelimit.Buckets(ratelimit.Rule("evaluate", per_minute=60, burst=3))
    assert [buckets.take("a", now=100.0) for _ in range(3)] == [0, 0, 0]
    assert buckets.take("a", now=100.0) == pytest.approx(1.0)  # one token a second
    assert buckets.take("a", now=100.5) == pytest.approx(0.5)
    assert buckets.take("a", now=101.0) == 0
    assert buckets.take("b", now=101.0) == 0  # another client has its own bucket
    assert buckets.take("a", now=1000.0) == 0  # refilled, but never above the burst
    assert [buckets.take("a", now=1000.0) for _ in range(3)] == [0, 0, pytest.approx(1.0)]


def test_a_penalty_is_a_debt_to_wait_out():
    buckets = ratelimit.Buckets(ratelimit.Rule("evaluate", per_minute=60, burst=3))
    buckets.charge("a", 10, now=0.0)
    assert buckets.take("a", now=0.0) == pytest.approx(8.0)  # 3 - 10 = -7 tokens: 8 seconds to the next one


def test_the_api_answers_429_with_retry_after(tmp_path):
    client = _app(tmp_path).test_client()
    assert [client.post("/api/v1/evaluate", json=BODY).status_code for _ in range(3)] == [200, 200, 200]
    resp = client.post("/api/v1/evaluate", json=BODY)
    assert resp.status_code == 429 and 25 <= int(resp.headers["Retry-After"]) <= 30
    error = resp.get_json()["error"]
    assert "too many evaluations" in error and "2 a minute" in error and "bursts of up to 3" in error
    assert "PLAYGROUND_RATE_LIMIT_EVALUATE_PER_MINUTE" in error


def test_the_page_shows_429_in_the_result_region_and_keeps_the_editors(tmp_path):
    client = _app(tmp_path).test_client()
    form = examples.default().form()
    for _ in range(3):
        assert client.post("/evaluate", data=form, headers={"HX-Request": "true"}).status_code == 200
    partial = client.post("/evaluate", data=form, headers={"HX-Request": "true"})
    assert partial.status_code == 429 and partial.headers["Retry-After"]
    html = partial.get_data(as_text=True)
    assert html.lstrip().startswith('<section id="result"') and "too many evaluations" in html
    page = client.post("/evaluate", data=form)
    html = page.get_data(as_text=True)
    assert page.status_code == 429 and "too many evaluations" in html
    assert 'data-editor="policy"' in html and "replicalimit" in html.replace("-", "")


def test_evaluations_from_the_gallery_and_shared_links_count_too(tmp_path):
    client = _app(tmp_path).test_client()
    statuses = [client.get("/").status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]


def test_sharing_has_its_own_limit(tmp_path):
    client = _app(tmp_path).test_client()
    bodies = [{"policy": f"# scenario {i}"} for i in range(3)]
    statuses = [client.post("/api/v1/scenarios", json=body).status_code for body in bodies]
    assert statuses == [201, 201, 429]
    resp = client.post("/api/v1/scenarios/import", data="apiVersion: x")
    assert resp.status_code == 429 and "too many shares" in resp.get_json()["error"]
    assert client.post("/api/v1/evaluate", json=BODY).status_code == 200  # evaluating is still allowed
    form = client.post("/share", data=examples.default().form(), headers={"HX-Request": "true"})
    assert form.status_code == 429 and "too many shares" in form.get_data(as_text=True)


def test_clients_are_told_apart_by_address(tmp_path):
    client = _app(tmp_path).test_client()
    for _ in range(3):
        client.post("/api/v1/evaluate", json=BODY, environ_base={"REMOTE_ADDR": "192.0.2.1"})
    assert client.post("/api/v1/evaluate", json=BODY, environ_base={"REMOTE_ADDR": "192.0.2.1"}).status_code == 429
    assert client.post("/api/v1/evaluate", json=BODY, environ_base={"REMOTE_ADDR": "192.0.2.2"}).status_code == 200


def test_x_forwarded_for_is_ignored_unless_a_proxy_is_trusted(tmp_path):
    client = _app(tmp_path).test_client()
    statuses = [client.post("/api/v1/evaluate", json=BODY, headers={"X-Forwarded-For": f"198.51.100.{i}"}).status_code
                for i in range(4)]
    assert statuses == [200, 200, 200, 429]  # a client cannot escape its limit by inventing addresses

    trusting = _app(tmp_path, TRUSTED_PROXIES=1).test_client()
    statuses = [trusting.post("/api/v1/evaluate", json=BODY, headers={"X-Forwarded-For": f"198.51.100.{i}"})
                .status_code for i in range(4)]
    assert statuses == [200, 200, 200, 200]
    spoofed = [trusting.post("/api/v1/evaluate", json=BODY, headers={"X-Forwarded-For": f"10.0.0.{i}, 203.0.113.9"})
               .status_code for i in range(4)]
    assert spoofed == [200, 200, 200, 429]  # only the entry the trusted proxy added counts


@pytest.mark.parametrize(("address", "key"), [
    ("192.0.2.7", "192.0.2.7"),
    ("2001:db8::1", "2001:db8::/64"),
    ("2001:db8::ffff:1", "2001:db8::/64"),
    ("::ffff:192.0.2.7", "192.0.2.7"),
    ("not an address", "not an address"),
])
def test_client_keys(address, key):
    assert ratelimit.client_address(address) == key


def test_an_evaluation_stopped_at_a_bound_costs_the_penalty(tmp_path, monkeypatch):
    app = _app(tmp_path, RATE_LIMIT_EVALUATE_BURST=10, RATE_LIMIT_PENALTY=20)

    def stopped(job, args, raw):
        raise isolation.Settings().timeout_error()

    monkeypatch.setattr(evaluations, "_perform", stopped)  # what runs a job once it is admitted
    client = app.test_client()
    resp = client.post("/api/v1/evaluate", json=BODY)
    assert resp.status_code == 422
    resp = client.post("/api/v1/evaluate", json=BODY)
    assert resp.status_code == 429 and int(resp.headers["Retry-After"]) >= 10


def test_rate_limits_can_be_switched_off(tmp_path):
    client = _app(tmp_path, RATE_LIMIT_ENABLED=False).test_client()
    assert {client.post("/api/v1/evaluate", json=BODY).status_code for _ in range(10)} == {200}


def test_a_large_body_counts_as_several_evaluations(tmp_path):
    # one token per started RATE_LIMIT_BODY_BYTES: reading, parsing and evaluating it costs that much more
    client = _app(tmp_path, RATE_LIMIT_EVALUATE_BURST=10, RATE_LIMIT_BODY_BYTES=1000).test_client()
    big = {"policy": "", "object": "x: " + "y" * 3500}  # a body of some 3.5 KB: 4 tokens
    assert [client.post("/api/v1/evaluate", json=big).status_code for _ in range(2)] == [200, 200]
    resp = client.post("/api/v1/evaluate", json=big)  # 2 tokens left, 4 needed
    assert resp.status_code == 429 and int(resp.headers["Retry-After"]) >= 30
    error = resp.get_json()["error"]
    assert "counts as 4 evaluations" in error and "PLAYGROUND_RATE_LIMIT_BODY_BYTES" in error
    assert client.post("/api/v1/evaluate", json=BODY).status_code == 200  # a small one still fits
    assert client.post("/api/v1/evaluate", json=BODY).status_code == 200
    assert client.post("/api/v1/evaluate", json=BODY).status_code == 429


def test_a_body_too_large_for_a_burst_waits_for_a_full_bucket():
    buckets = ratelimit.Buckets(ratelimit.Rule("evaluate", per_minute=60, burst=3))
    assert buckets.take("a", now=0.0, count=10) == 0  # never more than a burst: a full bucket serves it
    assert buckets.take("a", now=0.0, count=10) == pytest.approx(3.0)


def test_completion_and_hover_are_counted_in_their_own_bucket():
    """The editors' completion and hover answer in the server process: a client sending them faster than
    RATE_LIMIT_EDIT allows gets 429 with Retry-After, and its evaluations are not charged for them."""
    from app import create_app

    app = create_app({"RATE_LIMIT_ENABLED": True, "RATE_LIMIT_EDIT_PER_MINUTE": 60, "RATE_LIMIT_EDIT_BURST": 3,
                      "EVALUATION_ISOLATION": "inline"})
    client = app.test_client()
    body = {"policy": "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nspec:\n  \n",
            "pane": "policy", "line": 4, "column": 3}
    codes = [client.post("/api/v1/complete", json=body).status_code for _ in range(3)]
    refused = client.post("/api/v1/hover", json=body)
    assert codes == [200, 200, 200]
    assert refused.status_code == 429 and refused.headers.get("Retry-After")
    assert "completion and hover requests" in refused.get_json()["error"]
    assert client.post("/api/v1/evaluate", json={"object": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"}
                       ).status_code == 200
