"""Table tests for admission webhooks and Kyverno policies, from tests/admission_scenarios/*.yaml.

Each file is a YAML list of scenarios with ``name``, ``about`` (the documented fact the scenario
checks, with its source) and ``expect``, and one of:

* ``input``: a POST /api/v1/evaluate body, as in tests/scenarios;
* ``webhook``: one webhook (``spec``, optional ``kind`` and ``apiVersion``) put into a webhook
  configuration ``test-hooks`` whose webhook ``check.example.com`` has a URL, ``sideEffects: None``
  (v1) and ``admissionReviewVersions: [v1]`` unless ``spec`` says otherwise;
* ``kyverno``: the ``match``/``exclude`` blocks (and optional ``spec`` fields, ``kind``, ``namespace``)
  of one rule ``check`` in a policy ``kyv-test`` that fails every request it applies to (Enforce,
  expression ``false``, message ``matched``).

With a shorthand, ``object``, ``oldObject``, ``namespace``, ``params``, ``request`` and
``kubernetesVersion`` are the other panes. ``expect`` keys: ``allowed``; ``status`` (a subset of
``code``, ``reason``, ``message``, and ``messageContains``); ``warnings`` (exact list); ``problems``
(each must match a reported problem; ``[]``: no error); ``checks`` (``{path, equals | contains |
length}``); ``called`` (the webhook would be sent the request); ``applies`` (the Kyverno rule applies).
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

DIR = Path(__file__).parent / "admission_scenarios"
PANES = ("policy", "binding", "params", "object", "oldObject", "namespace", "request")
_TOKEN = re.compile(r"([^.\[\]]+)|\[(-?\d+)\]")


def _load() -> list[tuple[str, dict[str, Any]]]:
    out = []
    for path in sorted(DIR.glob("*.yaml")):
        for scenario in yaml.safe_load(path.read_text(encoding="utf-8")):
            out.append((path.stem, scenario))
    return out


SCENARIOS = _load()


def _text(value: Any) -> Any:
    return value if isinstance(value, str) or value is None else json.dumps(value)


def _webhook_body(s: dict[str, Any]) -> str:
    hook = s["webhook"]
    api_version = hook.get("apiVersion", "v1")
    spec = {"name": "check.example.com", "clientConfig": {"url": "https://hooks.example.com/check"},
            "admissionReviewVersions": ["v1"]}
    if api_version == "v1":
        spec["sideEffects"] = "None"
    spec.update(copy.deepcopy(hook.get("spec") or {}))
    config = {"apiVersion": f"admissionregistration.k8s.io/{api_version}",
              "kind": hook.get("kind", "ValidatingWebhookConfiguration"),
              "metadata": {"name": "test-hooks"}, "webhooks": [spec]}
    return json.dumps(config)


def _kyverno_body(s: dict[str, Any]) -> str:
    k = s["kyverno"]
    rule: dict[str, Any] = {"name": "check", "match": copy.deepcopy(k["match"]),
                            "validate": {"message": "matched", "cel": {"expressions": [{"expression": "false"}]}}}
    if "exclude" in k:
        rule["exclude"] = copy.deepcopy(k["exclude"])
    spec = {"validationFailureAction": "Enforce", "background": False, "rules": [rule]}
    spec.update(copy.deepcopy(k.get("spec") or {}))
    metadata: dict[str, Any] = {"name": "kyv-test"}
    if k.get("namespace"):
        metadata["namespace"] = k["namespace"]
    policy = {"apiVersion": "kyverno.io/v1", "kind": k.get("kind", "ClusterPolicy"), "metadata": metadata,
              "spec": spec}
    return json.dumps(policy)


def body(s: dict[str, Any]) -> dict[str, Any]:
    """The API body a scenario stands for."""
    if "input" in s:
        return s["input"]
    out: dict[str, Any] = {pane: _text(s[pane]) for pane in PANES if pane in s}
    out["policy"] = _webhook_body(s) if "webhook" in s else _kyverno_body(s)
    if "kubernetesVersion" in s:
        out["kubernetesVersion"] = s["kubernetesVersion"]
    return out


def resolve(document: Any, path: str) -> Any:
    current = document
    for m in _TOKEN.finditer(path):
        key, index = m.groups()
        current = current[key] if key is not None else current[int(index)]
    return current


def test_files_are_well_formed() -> None:
    names = [s.get("name") for _, s in SCENARIOS]
    assert len(names) == len(set(names)), "scenario names must be unique"
    for stem, s in SCENARIOS:
        assert s.get("about"), f"{stem}/{s.get('name')}: about is required"
        assert sum(k in s for k in ("input", "webhook", "kyverno")) == 1, f"{stem}/{s.get('name')}"
        assert s.get("expect"), f"{stem}/{s.get('name')}: expect is required"


def test_enough_scenarios() -> None:
    """The issue asks for at least 25 webhook scenarios and 40 Kyverno match/exclude scenarios."""
    webhooks = [s for stem, s in SCENARIOS if stem.startswith("webhooks")]
    kyverno_match = [s for stem, s in SCENARIOS if stem.startswith("kyverno-match")]
    assert len(webhooks) >= 25
    assert len(kyverno_match) >= 40


@pytest.fixture(scope="module")
def client():
    from app import create_app

    return create_app({"TESTING": True}).test_client()


@pytest.mark.parametrize("scenario", [pytest.param(s, id=f"{stem}/{s['name']}") for stem, s in SCENARIOS])
def test_scenario(client, scenario: dict[str, Any]) -> None:
    response = client.post("/api/v1/evaluate", json=body(scenario))
    assert response.status_code == 200, response.get_data(as_text=True)
    result = response.get_json()
    expect = scenario["expect"]
    shown = json.dumps({k: result.get(k) for k in ("allowed", "status", "warnings", "problems", "rejected",
                                                   "webhooks", "kyverno", "admission")}, indent=1)[:8000]
    if "allowed" in expect:
        assert result["allowed"] is expect["allowed"], shown
    if "status" in expect:
        if expect["status"] is None:
            assert result["status"] is None, shown
        else:
            for key, want in expect["status"].items():
                if key == "messageContains":
                    assert want in result["status"]["message"], shown
                else:
                    assert result["status"].get(key) == want, f"status.{key}\n{shown}"
    if "warnings" in expect:
        assert result["warnings"] == expect["warnings"], shown
    if "problems" in expect:
        if not expect["problems"]:
            assert not [p for p in result["problems"] if p["severity"] == "error"], shown
        for want in expect["problems"]:
            assert any(all((want[k] in p.get("message", "")) if k == "messageContains" else p.get(k) == want[k]
                           for k in want) for p in result["problems"]), f"missing problem {want}\n{shown}"
    if "called" in expect:
        assert result["webhooks"][0]["called"] is expect["called"], shown
    if "applies" in expect:
        rules = [r for p in result["kyverno"] for r in p["rules"]]
        applied = any(r["matched"] for r in rules)
        assert applied is expect["applies"], shown
        if expect["applies"]:
            assert result["allowed"] is False, shown
            assert "check: matched" in result["status"]["message"], shown
        else:
            assert result["allowed"] is True, shown
    for check in expect.get("checks") or []:
        value = resolve(result, check["path"])
        if "equals" in check:
            assert value == check["equals"], f"{check['path']}\n{shown}"
        elif "contains" in check:
            assert check["contains"] in value, f"{check['path']}\n{shown}"
        else:
            assert len(value) == check["length"], f"{check['path']}\n{shown}"


def test_page_shows_the_chain_webhooks_and_kyverno(client) -> None:
    page = client.get("/", query_string={"example": "kyverno-enforce"}).get_data(as_text=True)
    assert 'data-kyverno-policy="disallow-latest-tag"' in page
    assert re.search(r'data-rule="autogen-no-latest" data-status="fail"', page)
    assert re.search(r'data-stage="ValidatingAdmissionWebhook" data-outcome="denied"', page)
    assert "Error from server: admission webhook &#34;validate.kyverno.svc-fail&#34; denied the request" in page
    page = client.get("/", query_string={"example": "webhooks-who-else"}).get_data(as_text=True)
    assert re.search(r'data-webhook="inject.sidecars.example.com"[^>]*data-called="true"', page)
    assert re.search(r'data-webhook="images.checker.example.com"[^>]*data-called="false"', page)


def test_partial_escapes_what_a_policy_says(client) -> None:
    """A message from a pasted policy is shown as text, never as markup."""
    scenario = {"kyverno": {"match": {"any": [{"resources": {"kinds": ["Pod"]}}]}},
                "object": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
                           "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}
    form = {k: v for k, v in body(scenario).items()}
    form["policy"] = form["policy"].replace('"message": "matched"', '"message": "<b>bold</b>"')
    html = client.post("/evaluate", data=form, headers={"HX-Request": "true"}).get_data(as_text=True)
    assert "&lt;b&gt;bold&lt;/b&gt;" in html
    assert "<b>bold</b>" not in html
