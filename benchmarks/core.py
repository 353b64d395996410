"""The playground's server-side evaluation, in process: ``app.vap.evaluate(payload)``, cold and warm.

* **warm**: the same body evaluated again by a process that has seen it (every cache filled).
* **cold**: the first evaluation after :func:`app.vap.fast.clear` (parsed panes, validated
  policies, compiled expressions and policies, CEL environments, cost estimates all forgotten; what
  does not depend on the scenario, such as the Kubernetes library's declarations, stays loaded, as it
  does for the bare engine).
* **CEL stage**: of a warm evaluation, the time spent evaluating expressions: every
  ``validator.validate`` call (activations, matchConditions, variables, validations,
  messageExpressions, auditAnnotations, cost, error texts, result records) and every expression a
  MutatingAdmissionPolicy runs (its matchConditions, and each mutation with the variables it reads: the
  ``_run`` calls of :mod:`app.vap.mutating.policy`), but not the explanations of false or failed expressions
  (:mod:`app.vap.explain`), which the bare engine does not make: the ``validator._explain_all`` and
  ``validator._explain_match_conditions`` calls, which find the values an explanation is made on, the one kept
  for them, and make it. The rest of a warm evaluation is reading the panes, API
  validation, the request, matching, params, merging or patching what mutations return, defaulting, and the
  response.
* **CEL stage, fresh**: the same with none of the values converted for the evaluation before kept
  (what a warm process does after an edit of the object, the params or the policy): the engine
  converts its inputs again, as the bare engine does on each of its evaluations.

:func:`capture` records every expression evaluation the playground makes for a body (expression
text, the values it was given), which the bare engine then replays (:mod:`benchmarks.bare`). A mutation's
text is recorded as the engine compiles it, its ``Object{...}`` initialisers and ``jsonpatch.escapeKey`` rewritten
(:mod:`app.vap.mutating.expressions`): the bare engine evaluates the same CEL, building the same values.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml

from app.vap import cel, compiler, fast, limits, validator
from app.vap.cel import library
from app.vap.fast import kept
from app.vap.mutating import expressions as mutation_expressions
from app.vap.mutating import policy as mutating_policy

# the module, not the function of the same name that app.vap exports
evaluate_module = importlib.import_module("app.vap.evaluate")


def warm_once(payload: Mapping[str, Any]) -> float:
    """Seconds for one evaluation (warm when the body was evaluated before)."""
    start = time.perf_counter()
    evaluate_module.evaluate(payload)
    return time.perf_counter() - start


def cold_once(payload: Mapping[str, Any]) -> float:
    """Seconds for the first evaluation of a body after every scenario cache is cleared."""
    fast.clear()
    return warm_once(payload)


def cel_stage_once(payload: Mapping[str, Any], *, fresh: bool = False) -> float:
    """Seconds spent in ``validator.validate`` during one evaluation; ``fresh``: with no values kept from
    the evaluation before (each policy's values converted into engine values again, as after an edit of
    the object, the params or the policy)."""
    if fresh:
        kept.clear()
    spent = [0.0]
    original, original_run = validator.validate, mutating_policy._run

    def timer(function: Any) -> Any:
        def timed(*args: Any) -> Any:
            start = time.perf_counter()
            try:
                return function(*args)
            finally:
                spent[0] += time.perf_counter() - start
        return timed

    # the explanations of false or failed expressions (app/vap/explain.py) are not part of the stage: the bare
    # engine makes none, and they change no decision
    explaining = [0.0]
    original_explain, original_explain_matches = validator._explain_all, validator._explain_match_conditions

    def untimed(function: Any) -> Any:
        def timed(*args: Any) -> Any:
            start = time.perf_counter()
            try:
                return function(*args)
            finally:
                explaining[0] += time.perf_counter() - start
        return timed

    validator.validate = timer(original)
    mutating_policy._run = timer(original_run)
    validator._explain_all = untimed(original_explain)
    validator._explain_match_conditions = untimed(original_explain_matches)
    try:
        evaluate_module.evaluate(payload)
    finally:
        validator.validate = original
        mutating_policy._run = original_run
        validator._explain_all, validator._explain_match_conditions = original_explain, original_explain_matches
    return spent[0] - explaining[0]


@dataclass
class Evaluation:
    """One expression evaluation the playground made."""

    expression: str
    data: dict[str, Any]
    scope: Any = None  # the playground's variable scope, for the values of `variables`
    result: Any = None  # what the playground's evaluation gave (an exception when it failed)


@dataclass
class Capture:
    version: str
    evaluations: list[Evaluation] = field(default_factory=list)
    # every expression of the scenario's policies, evaluated or not (a bare engine compiles them all)
    expressions: list[str] = field(default_factory=list)
    # the authorizer values' sessions, kept alive so that the bare engine's authorizer checks reach the
    # same backend (RBAC) as the playground's did, instead of failing at once
    authorizers: list[Any] = field(default_factory=list)

    def bare_inputs(self) -> list[tuple[str, dict[str, Any]]]:
        """(expression, values) pairs: the playground's inputs, with ``variables`` as a plain map of the
        values the playground computed for them (each variable's own evaluation is in the list)."""
        out = []
        for e in self.evaluations:
            data = dict(e.data)
            if e.scope is not None:
                data["variables"] = {
                    name: value for name, value in e.scope.evaluated.items() if not isinstance(value, Exception)
                }
            out.append((e.expression, data))
        return out


def engine_text(compiled: cel.Compiled) -> str:
    """The text the engine compiles for an expression: a mutation's with its initialisers rewritten."""
    if compiled.kind == cel.MUTATION:
        return mutation_expressions.rewrite(compiled.expression).text
    return compiled.expression


def _mutating_expressions(doc: Any) -> list[str]:
    """The expressions of a MutatingAdmissionPolicy document, mutations as the engine compiles them."""
    if not isinstance(doc, Mapping) or doc.get("kind") != "MutatingAdmissionPolicy":
        return []
    spec = doc.get("spec") if isinstance(doc.get("spec"), Mapping) else {}
    out = [str(item.get("expression") or "").strip() for key in ("matchConditions", "variables")
           for item in spec.get(key) or [] if isinstance(item, Mapping)]
    for mutation in spec.get("mutations") or []:
        member = mutation.get("applyConfiguration") or mutation.get("jsonPatch") \
            if isinstance(mutation, Mapping) else None
        if isinstance(member, Mapping):
            out.append(mutation_expressions.rewrite(str(member.get("expression") or "")).text)
    return out


def policy_expressions(payload: Mapping[str, Any]) -> list[str]:
    """The expressions of every ValidatingAdmissionPolicy and MutatingAdmissionPolicy in the body's panes."""
    out: list[str] = []
    for value in payload.values():
        if not isinstance(value, str):
            continue
        try:
            docs = list(yaml.safe_load_all(value))
        except yaml.YAMLError:
            continue
        for doc in docs:
            out += [text for _, text in limits.policy_expressions(doc)] + _mutating_expressions(doc)
    return list(dict.fromkeys(out))


def _given(value: Any) -> Any:
    return value


def _nothing(*args: Any) -> None:
    return None


def capture(payload: Mapping[str, Any]) -> Capture:
    """Evaluate a body once, recording each expression evaluation (text and input values)."""
    version = evaluate_module.evaluate(payload)["kubernetesVersion"]
    if version not in library.SUPPORTED_VERSIONS:
        version = library.DEFAULT_VERSION
    result = Capture(version=version, expressions=policy_expressions(payload))
    original_attempt = cel.attempt
    original_pruners = compiler.CompiledPolicy.pruners

    def recording_attempt(compiled: cel.Compiled, data: Any, scope: Any = None) -> Any:
        values = getattr(data, "data", data)  # a shared activation carries its values as .data
        evaluation = Evaluation(engine_text(compiled), dict(values), scope)
        result.evaluations.append(evaluation)
        try:
            evaluation.result = original_attempt(compiled, data, scope)  # an EvaluationError when it failed
        except Exception as exc:
            evaluation.result = exc
            raise
        return evaluation.result

    original_validate = validator.validate

    def recording_validate(policy: Any, inv: Any, failure_policy: str) -> Any:
        if inv.authorizer is not None:
            result.authorizers.append(inv.authorizer)
        return original_validate(policy, inv, failure_policy)

    kept.clear()  # every evaluation converts its values afresh, and none converted here is kept
    cel.attempt = recording_attempt  # (cel.run, which variables are evaluated with, calls it too)
    validator.validate = recording_validate
    original_explain = validator._explain
    # an explanation's evaluations are the playground's own addition (app/vap/explain.py): not replayed
    validator._explain = _nothing  # type: ignore[assignment]
    # the inputs as given, every root whole, not cut down to what the policy reads (the playground's own
    # optimisation)
    compiler.CompiledPolicy.pruners = property(lambda policy: (_given,) * 5)  # type: ignore[assignment]
    original_reads = mutating_policy.CompiledMutatingPolicy.reads
    # (and a MutatingAdmissionPolicy's expressions given every input, not only those they name)
    mutating_policy.CompiledMutatingPolicy.reads = property(  # type: ignore[method-assign,assignment]
        lambda policy: mutating_policy.INPUTS)
    try:
        evaluate_module.evaluate(payload)
    finally:
        cel.attempt = original_attempt
        validator.validate = original_validate
        validator._explain = original_explain  # type: ignore[assignment]
        compiler.CompiledPolicy.pruners = original_pruners  # type: ignore[method-assign]
        mutating_policy.CompiledMutatingPolicy.reads = original_reads  # type: ignore[method-assign]
        kept.clear()
    return result
