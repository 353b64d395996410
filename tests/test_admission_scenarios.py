"""Table tests for admission webhooks and Kyverno policies, from tests/admission_scenarios/*.yaml.

Each file is a YAML list of scenarios with ``name``, ``about`` (the documented fact the scenario
checks, with its source), ``expect`` and an optional ``pending``, and one of ``input`` (a POST
/api/v1/evaluate body, as in tests/scenarios), ``webhook`` (one webhook) or ``kyverno`` (the
match/exclude blocks of one rule), with the other panes beside a shorthand. The shorthands, the
``expect`` keys (those of tests/scenarios plus ``called`` and ``applies``) and ``pending`` are
described in tests/scenario_runner.py, which runs these files and those of tests/scenarios/.

Every scenario is evaluated by the core (``test_scenario``); each file is also sent once through the
JSON API, which must answer what the core answers (``test_api_answers_as_the_core``).
"""

from __future__ import annotations

import re

import pytest

from tests import scenario_runner as runner


def test_files_are_well_formed() -> None:
    """The files load, each scenario has one form (input, webhook or kyverno), known keys and a unique name."""
    assert runner.ADMISSION.scenarios, f"no scenarios found in {runner.ADMISSION_DIR}"
    problems = runner.admission_structure_errors(runner.ADMISSION)
    assert not problems, "\n".join(problems)


def test_enough_scenarios() -> None:
    """The issue asks for at least 25 webhook scenarios and 40 Kyverno match/exclude scenarios."""
    webhooks = [s for s in runner.ADMISSION.scenarios if s.stem.startswith("webhooks")]
    kyverno_match = [s for s in runner.ADMISSION.scenarios if s.stem.startswith("kyverno-match")]
    assert len(webhooks) >= 25
    assert len(kyverno_match) >= 40


@pytest.mark.parametrize("scenario", runner.scenario_params(runner.ADMISSION.scenarios))
def test_scenario(scenario: runner.Scenario) -> None:
    """Evaluate the scenario's body with the core and compare the response with its expectations."""
    runner.run_scenario(scenario)


@pytest.mark.parametrize("scenarios", runner.file_params(runner.ADMISSION))
def test_api_answers_as_the_core(module_client, scenarios: list[runner.Scenario]) -> None:
    """POST /api/v1/evaluate answers each scenario of the file with 200 and the core's response."""
    differences = runner.http_differences(module_client, scenarios)
    assert not differences, "\n".join(differences)


def test_page_shows_the_chain_webhooks_and_kyverno(module_client) -> None:
    page = module_client.get("/", query_string={"example": "kyverno-enforce"}).get_data(as_text=True)
    assert 'data-kyverno-policy="disallow-latest-tag"' in page
    assert re.search(r'data-rule="autogen-no-latest" data-status="fail"', page)
    assert re.search(r'data-stage="ValidatingAdmissionWebhook" data-outcome="denied"', page)
    assert "Error from server: admission webhook &#34;validate.kyverno.svc-fail&#34; denied the request" in page
    page = module_client.get("/", query_string={"example": "webhooks-who-else"}).get_data(as_text=True)
    assert re.search(r'data-webhook="inject.sidecars.example.com"[^>]*data-called="true"', page)
    assert re.search(r'data-webhook="images.checker.example.com"[^>]*data-called="false"', page)


def test_partial_escapes_what_a_policy_says(module_client) -> None:
    """A message from a pasted policy is shown as text, never as markup."""
    scenario = {"kyverno": {"match": {"any": [{"resources": {"kinds": ["Pod"]}}]}},
                "object": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
                           "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}
    form = dict(runner.expand(scenario))
    form["policy"] = form["policy"].replace('"message": "matched"', '"message": "<b>bold</b>"')
    html = module_client.post("/evaluate", data=form, headers={"HX-Request": "true"}).get_data(as_text=True)
    assert "&lt;b&gt;bold&lt;/b&gt;" in html
    assert "<b>bold</b>" not in html
