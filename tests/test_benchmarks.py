"""The benchmark runs (its quick mode), so it does not rot; no timing is asserted."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_quick_benchmark_prints_the_table_and_writes_the_json(tmp_path):
    out = tmp_path / "results.json"
    proc = subprocess.run([sys.executable, "-m", "benchmarks", "--quick", "--json", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(out.read_text())
    names = [row["name"] for row in result["scenarios"]]
    assert "replica-limit" in names and "20-validations" in names and "object-10KB" in names
    assert any(name.startswith("params-") for name in names)
    for row in result["scenarios"]:
        assert row["warmMs"] > 0 and row["coldMs"] > 0 and row["bareColdMs"] > 0, row
        assert row["apiErrors"] == 0 and row["apiP50Ms"] > 0, row
        assert row["bareRefused"] == 0, row
    assert {"replica-limit": 2, "20-validations": 32}.items() <= {r["name"]: r["evaluations"]
                                                                  for r in result["scenarios"]}.items()
    api = result["api"]
    assert api["workers"] == 1 and len(api["workerPeakRssMb"]) == 1
    assert len(api["evaluationWorkerPeakRssMb"]) >= 1
    assert api["throughput"]["errors"] == 0 and api["throughput"]["perSecond"] > 0
    assert {t["target"].split(":")[0] for t in result["targets"]} >= {"warm", "cold"}
    assert len(result["targets"]) == 4
    fresh = result["freshCelStage"]
    assert fresh["of"] >= 1 and fresh["worst"] > 0 and "fresh x" in proc.stdout
    assert "scenario" in proc.stdout and "throughput:" in proc.stdout
    assert "peak memory per gunicorn worker" in proc.stdout


def test_the_bare_engine_replays_what_the_playground_evaluated():
    """The bare engine is given the playground's inputs and gets the playground's answers (the
    authorizer's checks included: they reach the same RBAC backend), so it does the same work."""
    from benchmarks import bare, core, scenarios

    compared = 0
    for scenario in scenarios.gallery():
        captured = core.capture(scenario.payload)
        engine = bare.Bare(captured.version, captured.expressions, captured.bare_inputs())
        for evaluation, (expression, data) in zip(captured.evaluations, captured.bare_inputs(), strict=True):
            if not isinstance(evaluation.result, bool) or engine.programs[expression] is None:
                continue
            value = engine.programs[expression].eval(data=data)
            assert value.plain_value() is evaluation.result, (scenario.name, expression, str(value.value())[:200])
            compared += 1
    assert compared > 20


def test_the_bare_engine_is_given_each_input_whole():
    """The playground cuts its inputs down to what a policy reads; the bare engine is given them as they
    are, so that its time includes converting all of them."""
    from benchmarks import core, scenarios

    scenario = next(s for s in scenarios.gallery() if s.name == "required-labels")
    core.warm_once(scenario.payload)  # the policy's pruners made (and final) beforehand
    core.warm_once(scenario.payload)
    captured = core.capture(scenario.payload)
    (evaluation,) = captured.evaluations
    obj = evaluation.data["object"]
    # the policy reads only metadata.labels: the rest of the object is there all the same
    assert obj["apiVersion"] and obj["kind"] and obj["metadata"]["name"] and obj["spec"]


def test_the_fresh_cel_stage_converts_the_values_again(activations_made):
    """The CEL stage is measured twice: with the values kept from the evaluation before (a re-evaluation
    of the same scenario) and with them converted again (after an edit), as the bare engine's are."""
    from benchmarks import core, scenarios

    scenario = next(s for s in scenarios.gallery() if s.name == "replica-limit")
    for _ in range(4):
        core.warm_once(scenario.payload)
    activations_made.clear()
    assert core.cel_stage_once(scenario.payload) > 0 and activations_made == []
    assert core.cel_stage_once(scenario.payload, fresh=True) > 0 and len(activations_made) >= 1


def test_both_sides_start_their_cold_evaluation_after_a_full_collection(monkeypatch):
    # a collection leaves the processor's caches cold; the side measured second must not find them warm
    from benchmarks import __main__ as bench
    from benchmarks import bare, core, scenarios

    events: list[str] = []
    monkeypatch.setattr(bench.gc, "collect", lambda *a: events.append("collect") or 0)
    playground_cold, bare_cold = core.cold_once, bare.Bare.cold_once
    monkeypatch.setattr(core, "cold_once", lambda payload: events.append("playground") or playground_cold(payload))
    monkeypatch.setattr(bare.Bare, "cold_once", lambda self: events.append("bare") or bare_cold(self))
    scenario = next(s for s in scenarios.gallery() if s.name == "replica-limit")
    bench.measure(scenario, repeat=1, cold_repeat=3)
    assert events.count("playground") == 3 and events.count("bare") == 3
    for i, event in enumerate(events):
        if event in ("playground", "bare"):
            assert i > 0 and events[i - 1] == "collect", events


def test_mutating_policies_are_measured_on_both_sides():
    """A MutatingAdmissionPolicy's expressions are in the CEL stage, and the bare engine evaluates each mutation as
    the engine compiles it (its initialisers rewritten), with the values the playground gave it."""
    from app.vap.cel.library.checks import OBJECT_TYPE_KEY
    from benchmarks import bare, core, scenarios

    gallery = {s.name: s for s in scenarios.gallery()}
    for scenario in (scenarios.sidecar_injection(), scenarios.json_patch(), gallery["labels-from-params"]):
        captured = core.capture(scenario.payload)
        engine = bare.Bare(captured.version, captured.expressions, captured.bare_inputs())
        assert engine.refused == [], scenario.name
        mutations = [e for e in captured.evaluations if OBJECT_TYPE_KEY in e.expression]
        assert mutations, scenario.name
        for evaluation in mutations:  # the bare engine builds the value the playground's engine built
            value = engine.programs[evaluation.expression].eval(data=dict(evaluation.data, **(
                {"variables": {n: v for n, v in evaluation.scope.evaluated.items()}} if evaluation.scope else {})))
            assert value.plain_value() == evaluation.result, scenario.name
        core.warm_once(scenario.payload)
        assert core.cel_stage_once(scenario.payload) > 0, scenario.name
    assert scenarios.sidecar_injection().group == scenarios.json_patch().group == "synthetic"
