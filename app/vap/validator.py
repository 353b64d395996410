"""Evaluating a compiled policy (:mod:`compiler`) for one (binding, param).

Mirrors k8s.io/apiserver/pkg/admission/plugin/policy/validating/validator.go (Validate) and
pkg/admission/plugin/webhook/matchconditions/matcher.go (matchConditions), with the lazy
composited variables of pkg/admission/plugin/cel/composition.go.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from time import perf_counter
from typing import Any

from . import cel, explain, fast
from .cel import library
from .cel.library import authz
from .compiler import CompiledPolicy, PlannedValidation, trim_space
from .fast import cost
from .fast import explained as explaining_kept
from .fast import kept as keeping

ADMIT = "admit"
DENY = "deny"
ERROR = "error"

PER_CALL_LIMIT = 1_000_000
RUNTIME_BUDGET = 10_000_000
MATCH_CONDITIONS_BUDGET = 2_500_000
MESSAGE_EXPRESSION_MAX_BYTES = 5120
AUDIT_VALUE_MAX_BYTES = 10240
# an explanation's parts together may cost this many times what the expression they explain cost, and at least
# the floor (the playground's own bound: an explanation takes about as long as the evaluation it explains)
EXPLANATION_COST_FACTOR = 3
EXPLANATION_COST_FLOOR = 10_000
# and its evaluations may take as long as the policy's evaluation took before it, and at least this many seconds
# (so that it never makes an evaluation take much longer than without it)
EXPLANATION_SECONDS_FLOOR = 0.5  # of the process's CPU time: what a loaded machine does not stretch
OUT_OF_BUDGET = "validation failed due to running out of cost budget, no further validation rules will be run"


@dataclass(slots=True)
class PolicyDecision:
    """One decision of a validation (or of a whole failed evaluation), as policy_decision.go has it."""

    action: str  # admit | deny
    evaluation: str  # admit | deny | error
    message: str = ""
    reason: str | None = None
    index: int = 0


@dataclass
class AuditAnnotationResult:
    key: str
    action: str  # publish | error | exclude
    value: str | None = None
    error: str | None = None
    explanation: list[dict[str, Any]] | None = None  # when its valueExpression failed (see app.vap.explain)

    def to_json(self) -> dict[str, Any]:
        """Its record in the results: key, action, value, error, and the explanation of a failure."""
        out: dict[str, Any] = {"key": self.key, "action": self.action, "value": self.value, "error": self.error}
        if self.explanation:
            out["explanation"] = self.explanation
        return out


# --------------------------------------------------------------------------------------------


@dataclass(slots=True)
class Invocation:
    """Everything one Validate call sees."""

    object: Any
    old_object: Any
    request: dict[str, Any]
    request_original_resource: dict[str, Any]
    params: Any
    namespace_object: Any  # the reduced copy
    namespace_full: Any
    authorizer: Any = None


@dataclass(slots=True)
class ExpressionRecord:
    """What one expression did, for the results view."""

    result: Any = None
    error: str | None = None
    cost: int | None = None
    # the error comes from a limit of the playground's CEL engine, not one kube-apiserver has
    engine_limit: bool = False


class ValidateResult:
    """What one Validate call gave: its decisions and, for the results view, what each expression did."""

    __slots__ = ("decisions", "audit_annotations", "match_conditions", "matched", "match_error", "variables",
                 "validations")

    def __init__(self) -> None:  # written out: a dataclass's factories cost more, once per (binding, param)
        self.decisions: list[PolicyDecision] = []
        self.audit_annotations: list[AuditAnnotationResult] = []
        self.match_conditions: list[dict[str, Any]] = []
        self.matched = True
        self.match_error: str | None = None
        self.variables: list[dict[str, Any]] = []
        self.validations: list[dict[str, Any]] = []


def _run(
    compiled: cel.Compiled,
    data: Mapping[str, Any] | cel.Activation,
    scope: cel.VariableScope | None,
    tracker: Any,
) -> ExpressionRecord:
    """Evaluate one expression; ``tracker`` counts library calls (the active one; one never active, its
    count 0, for a policy calling no costed library function).

    Its cost: the library calls as counted, the rest estimated from the AST and the input sizes (the
    estimate is remembered per input shape, see :mod:`app.vap.fast.cost`); a cost the estimator cannot work
    out is shown as unknown and never fails the evaluation."""
    if compiled.error is not None:
        return ExpressionRecord(None, f"compilation error: {compiled.error}", None, compiled.engine_limit)
    before = tracker.library_cost
    error = None
    engine_limit = False
    program = compiled.program
    if compiled.unsafe or program is None:
        try:
            result = cel.evaluate(compiled, data, scope)  # raises the error it would run into
        except _EvaluationError as exc:
            result = exc
    else:
        result = cel.attempt(compiled, data, scope)
    if result.__class__ is _EvaluationError:
        text = str(result)
        if len(text) + len(compiled.expression) <= _REMEMBERED_ERROR:
            error, engine_limit = _error_record(compiled.expression, text)
        else:
            error, engine_limit = _error_record.__wrapped__(compiled.expression, text)
        result = None
    cost: int | None = None
    if program is not None:
        program = compiled.checked_program or program
        if data.__class__ is not _Activation:
            cost = _core_cost(program, data)
        else:
            costs = data.costs
            if costs is None:
                cost = _core_cost(program, data.data)
            else:  # values kept for later evaluations: so is the estimate on them
                cost = costs.get(program, _NOT_KNOWN)
                if cost is _NOT_KNOWN:
                    cost = _core_cost(program, data.data)
                    if cost is None:
                        data.costs = None  # what is evaluated on them cannot be counted: they are not kept
                    else:
                        costs[program] = cost
        if cost is not None:
            cost += tracker.library_cost - before
            if cost > PER_CALL_LIMIT:
                return ExpressionRecord(None, f"expression '{compiled.expression}' resulted in error: "
                                        "operation cancelled: actual cost limit exceeded", cost, False)
    return ExpressionRecord(result, error, cost, engine_limit)


_EvaluationError, _Activation = cel.EvaluationError, cel.Activation


def _core_cost(program: Any, data: Mapping[str, Any]) -> int | None:
    try:
        return cost.core_cost(program, data)
    except Exception:  # unknown (see _run)
        return None


_NOT_KNOWN: Any = object()

_REMEMBERED_ERROR = 2048  # characters of an expression and its error text, at most, for a remembered record


@fast.memo(256)
def _error_record(expression: str, text: str) -> tuple[str, bool]:
    """The error of an evaluation as the apiserver words it, and whether it comes from a limit of the
    engine (remembered: the same error again is one lookup, no slower than a result)."""
    return f"expression '{expression}' resulted in error: {text}", library.is_engine_limit(text)


def _inputs(
    policy: CompiledPolicy, pruners: tuple[Callable[[Any], Any] | None, ...], inv: Invocation
) -> dict[str, Any]:
    """object, oldObject, request and params as the policy's expressions can see them: each cut down to
    what they read of it (``pruners``: see :mod:`reach`), and left out when none reads it (the engine then
    never converts it)."""
    obj, old, request, params, _ = pruners
    data: dict[str, Any] = {}
    if obj is not None:
        data["object"] = obj(inv.object)
    if old is not None:
        data["oldObject"] = old(inv.old_object)
    if request is not None:
        data["request"] = request(inv.request)
    if params is not None and policy.has_params:
        data["params"] = params(inv.params)
    return data


def _data(
    prune_namespace: Callable[[Any], Any] | None,
    inputs: dict[str, Any],
    namespace: Any,
    authorizer: Any,
    readers: int,
) -> Mapping[str, Any] | cel.Activation:
    """The values of one group of expressions (``inputs`` with the Namespace they see, when they read it,
    and the authorizer, when given). For more than one reader (expressions and variables that may be
    evaluated on them) they are converted into engine values once for the whole group; for one, the
    evaluation converts them itself, which costs the engine less than a shared activation."""
    if prune_namespace is not None:
        inputs = {**inputs, "namespaceObject": prune_namespace(namespace)}
    if authorizer is not None:
        inputs = {**inputs, **authorizer}
    return cel.Activation(inputs) if readers > 1 and fast.on else inputs


def _scope(
    policy: CompiledPolicy, data: Mapping[str, Any] | cel.Activation, scopes: list[cel.VariableScope]
) -> cel.VariableScope | None:
    """The lazy variables of one activation (None when the policy has none), noted in ``scopes``."""
    if not policy.variables:
        return None
    scope = cel.VariableScope(policy.variable_map, data)
    scopes.append(scope)
    return scope


def _variable_records(policy: CompiledPolicy, scopes: list[cel.VariableScope]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if not policy.variables:
        return out
    for name, compiled in policy.variables:
        entry: dict[str, Any] = {"name": name, "expression": compiled.expression, "evaluated": False,
                                 "value": None, "error": None, "engineLimit": False}
        if compiled.error is not None:
            entry["error"] = f"compilation error: {compiled.error}"
            entry["engineLimit"] = compiled.engine_limit
        for scope in scopes:
            if name in scope.evaluated:
                value = scope.evaluated[name]
                entry["evaluated"] = True
                if isinstance(value, cel.EvaluationError):
                    entry["error"] = str(value)
                    entry["engineLimit"] = value.engine_limit
                else:
                    entry["value"] = cel.display_value(compiled, value)
                break
        out.append(entry)
    return out


_NOTHING_COUNTED = library.CostTracker()  # never active: its library cost stays 0


def validate(policy: CompiledPolicy, inv: Invocation, failure_policy: str) -> ValidateResult:
    """Evaluate one policy for one (binding, param): matchConditions, validations, messages, audit."""
    begun = perf_counter()
    token = None
    tracker = _NOTHING_COUNTED  # nothing to count: no tracker to make active
    if policy.counts_library_cost or not fast.on:
        tracker = library.CostTracker()
        token = library.set_tracker(tracker)
    kept: keeping.Kept | None = None
    started: float | None = None  # when evaluating on a kept activation began
    try:
        err_action = ADMIT if failure_policy == "Ignore" else DENY
        out = ValidateResult()
        pruners = policy.pruners
        authorizer = inv.authorizer if policy.uses_authorizer else None
        kept = keeping.reuse(policy, pruners, inv) if authorizer is None else None
        inputs = kept.inputs if kept is not None else _inputs(policy, pruners, inv)
        if kept is None and authorizer is None and policy._pruners is not None:
            # (from a policy's third evaluation on, once its pruners are generated, its documents are noted,
            # and their values kept when they are evaluated again: a first evaluation does not pay for keeping,
            # nor is code generation counted as time evaluating on kept values; they are converted on first use)
            kept = keeping.keep(policy, pruners, inv, inputs)
        if kept is not None:
            started = perf_counter()
        if policy.match_conditions and not _match(policy, inv, inputs, authorizer, err_action, tracker, out, begun,
                                                  kept):
            return out

        # validations, then every messageExpression, against one budget.
        scopes: list[cel.VariableScope] = []
        readers = policy.validation_readers
        if kept is not None:
            data: Mapping[str, Any] | cel.Activation = kept.activation
            if started is None:
                started = perf_counter()
        else:
            data = _data(pruners[4], inputs, inv.namespace_object, authorizer, readers)
        scope = _scope(policy, data, scopes) if policy.variables else None
        remaining = RUNTIME_BUDGET
        decisions, validation_records = out.decisions, out.validations
        if not policy.has_messages:  # each validation decided as it is evaluated
            for planned in policy.validation_plan:
                rec = _run(planned.compiled, data, scope, tracker)
                remaining -= rec.cost or 0
                if remaining < 0:
                    return _out_of_budget(policy, scopes, err_action, out)
                _decide(planned, rec, None, None, err_action, decisions, validation_records)
        else:
            records: list[ExpressionRecord] = []
            for planned in policy.validation_plan:
                rec = _run(planned.compiled, data, scope, tracker)
                records.append(rec)
                remaining -= rec.cost or 0
                if remaining < 0:
                    return _out_of_budget(policy, scopes, err_action, out)
            # messageExpressions see the same values but authorizer: when no expression of the policy (a
            # variable included) references authorizer, the validations' activation serves them as well; their
            # variables are evaluated afresh, as the apiserver's message filter composes its own
            message_data = data
            if policy.uses_authorizer:
                message_data = _data(pruners[4], inputs, inv.namespace_object, None, policy.message_readers)
            message_scope = _scope(policy, message_data, scopes) if policy.variables else None
            messages: list[ExpressionRecord | None] = []
            message_budget_error: str | None = None
            for planned in policy.validation_plan:
                if planned.message_compiled is None:
                    messages.append(None)
                    continue
                rec = _run(planned.message_compiled, message_data, message_scope, tracker)
                messages.append(rec)
                remaining -= rec.cost or 0
                if remaining < 0:
                    message_budget_error = OUT_OF_BUDGET
                    break
            for planned, rec in zip(policy.validation_plan, records, strict=True):
                msg_rec = messages[planned.index] if planned.index < len(messages) else None
                _decide(planned, rec, msg_rec, message_budget_error, err_action, decisions, validation_records)
        later: list[_ToExplain] = []
        for planned, entry in zip(policy.validation_plan, validation_records, strict=True):
            if entry["error"] is not None or entry["result"] is False:
                later.append((("validation", planned.index), entry, planned.compiled, entry["cost"]))
        if policy.audit_annotations:
            _audit(policy, inv, inputs, data, scopes, failure_policy, err_action, tracker, out, later)
        if policy.variables:
            out.variables = _variable_records(policy, scopes)
        if later:  # explained once the variables' records are made (explaining may evaluate more of them)
            explaining = perf_counter()
            _explain_all(later, policy, inv, inputs, data, tracker, kept, begun, explaining)
            if started is not None:
                started += perf_counter() - explaining  # (not evaluating for the decision)
        return out
    finally:
        if token is not None:
            library.reset_tracker(token)
        if kept is not None and started is not None:
            keeping.spend(kept, perf_counter() - started)


# an expression to explain: its key (kind, index), its record, the expression, what it cost
_ToExplain = tuple[tuple[str, int], "dict[str, Any] | AuditAnnotationResult", cel.Compiled, int | None]


class _Unpruned:
    """The values of a group of expressions with each root whole, not cut down to what the policy reads (an
    explanation shows a macro's element, or an operand, as the request has it): converted when first used."""

    def __init__(self, data: Mapping[str, Any] | cel.Activation, inv: Invocation, namespace: Any,
                 original_resource: bool = False) -> None:
        self._parts = (data, inv, namespace, original_resource)
        self._activation: cel.Activation | None = None

    def activation(self) -> cel.Activation:
        if self._activation is None:
            data, inv, namespace, original_resource = self._parts
            request = inv.request
            if original_resource:  # (as matchConditions see it)
                request = {**request, "resource": inv.request_original_resource}
            whole = dict(data.data if isinstance(data, cel.Activation) else data)
            for key, value in (("object", inv.object), ("oldObject", inv.old_object), ("params", inv.params),
                               ("request", request), ("namespaceObject", namespace)):
                if key in whole:
                    whole[key] = value
            self._activation = cel.Activation(whole)
        return self._activation


def _allowance(begun: float, now: float) -> explain.Allowance:
    """The time the explanations' evaluations may take in all, when explaining starts ``now``: as long as the
    policy's evaluation took since ``begun``, or EXPLANATION_SECONDS_FLOOR."""
    return explain.Allowance(max(EXPLANATION_SECONDS_FLOOR, now - begun))


def _explain_all(later: list[_ToExplain], policy: CompiledPolicy, inv: Invocation, inputs: dict[str, Any],
                 data: Mapping[str, Any] | cel.Activation, tracker: Any, kept: keeping.Kept | None,
                 begun: float, explaining: float) -> None:
    """Explain the validations and auditAnnotations noted in ``later``, each on its group's values (``kept``:
    the values kept from the policy's last evaluation, ``inputs`` are then its; ``begun``: when the evaluation
    of the policy began, ``explaining``: when explaining did)."""
    made = explaining_kept.kept(policy, inv, _seen(policy, policy.pruners, inv), inputs if kept is not None else None)
    allowance = _allowance(begun, explaining)
    validation_data = _Unpruned(data, inv, inv.namespace_object)
    audit_data: _Unpruned | None = validation_data if policy.audit_shares_values else None
    for key, record, compiled, spent in later:
        values = validation_data
        if isinstance(record, AuditAnnotationResult):
            if audit_data is None:  # (the audit's values: the full Namespace, no authorizer)
                audit_data = _Unpruned(_data(policy.pruners[4], inputs, inv.namespace_full, None, 1), inv,
                                       inv.namespace_full)
            values = audit_data
        _explain(record, compiled, spent, values, policy, inv, tracker, made, key, allowance)


def _seen(policy: CompiledPolicy, pruners: tuple[Callable[[Any], Any] | None, ...], inv: Invocation
          ) -> tuple[Any, ...]:
    """The request and Namespaces of an evaluation as far as the policy reads them (the request also when it
    asks the authorizer, whose requestResource comes from it): what explanations kept for the same documents must
    have been made for (an explanation may show them whole)."""
    request = inv.request if pruners[2] is not None or policy.uses_authorizer else None
    namespaces = (inv.namespace_object, inv.namespace_full) if pruners[4] is not None else (None, None)
    return (request, *namespaces)


def _explain(record: dict[str, Any] | AuditAnnotationResult, compiled: cel.Compiled, spent: int | None,
             values: _Unpruned, policy: CompiledPolicy, inv: Invocation, tracker: Any,
             made: explaining_kept.Explained | None, key: tuple[str, int], allowance: explain.Allowance) -> None:
    """Add the explanation (:mod:`app.vap.explain`) of a false or failed expression to its record: its parts
    evaluated on the same values (and variables, evaluated afresh on them), each under the per-call cost limit,
    together under a budget in proportion to what the expression cost (``spent``; the verdict is made already:
    nothing here changes it). The authorizer checks it makes are not listed with the decision's. Made once for
    unchanged documents (``made``: the explanations kept for them, see :mod:`app.vap.fast.explained`)."""
    if compiled.program is None or compiled.unsafe:
        return
    audit = isinstance(record, AuditAnnotationResult)
    result = explain.Outcome(None, record.error) if audit else explain.Outcome(record["result"], record["error"])

    def make() -> tuple[list[dict[str, Any]], explaining_kept.Asked]:
        with authz.unrecorded(inv.authorizer) as asked:
            return lines_of(), asked

    def lines_of() -> list[dict[str, Any]]:
        data = values.activation()
        scope = cel.VariableScope(policy.variable_map, data) if policy.variables else None

        def run(part: cel.Compiled) -> explain.Outcome:
            rec = _run(part, data, scope, tracker)
            error = rec.error
            prefix = f"expression '{part.expression}' resulted in error: "
            if error is not None and error.startswith(prefix):
                error = error[len(prefix):]
            value = cel.display_value(part, rec.result) if part.holds_optionals else rec.result
            if part.engine_type == "UINT" and value.__class__ is int:
                value = explain.Unsigned(value)
            return explain.Outcome(value, error, rec.cost)

        budget = min(RUNTIME_BUDGET, max(EXPLANATION_COST_FLOOR, EXPLANATION_COST_FACTOR * (spent or 0)))
        return explain.explain(compiled, result, run, budget, policy.variable_map, allowance, data.data)

    lines = explaining_kept.explanation(made, key, make, lambda asked: authz.answers_alike(inv.authorizer, asked))
    if audit:
        record.explanation = lines or None
    elif lines:
        record["explanation"] = lines


def _out_of_budget(policy: CompiledPolicy, scopes: list[cel.VariableScope], err_action: str,
                   out: ValidateResult) -> ValidateResult:
    """The validations ran out of the runtime budget: validator.go returns at once, with no message, no
    decision per validation and no audit annotations."""
    out.decisions = [PolicyDecision(err_action, ERROR, OUT_OF_BUDGET)]
    out.validations = []
    if policy.variables:
        out.variables = _variable_records(policy, scopes)
    return out


def _match(policy: CompiledPolicy, inv: Invocation, inputs: dict[str, Any], authorizer: Any, err_action: str,
           tracker: Any, out: ValidateResult, begun: float, kept: keeping.Kept | None = None) -> bool:
    """The matchConditions, recorded in ``out``: all evaluated, any false skips the policy; errors under
    failurePolicy. They see the request's original resource, no Namespace. False: the evaluation ends.
    ``kept``: the values kept from the policy's last evaluation (``inputs`` are its), where theirs are kept too."""

    def values() -> Mapping[str, Any] | cel.Activation:
        match_inputs = inputs
        if "request" in inputs:
            match_inputs = {**inputs, "request": {**inputs["request"], "resource": inv.request_original_resource}}
        return _data(policy.pruners[4], match_inputs, None, authorizer, 1 if kept is not None else
                     len(policy.match_conditions))

    data = keeping.matching(kept, inv.request_original_resource, values) if kept is not None else values()
    remaining = MATCH_CONDITIONS_BUDGET  # the cost budget
    any_false = False
    errors: list[str] = []
    for name, compiled in policy.match_conditions:
        rec = _run(compiled, data, None, tracker)
        remaining -= rec.cost or 0
        if remaining < 0:
            errors = [OUT_OF_BUDGET]
            any_false = False
            out.match_conditions.append({"name": name, "expression": compiled.expression, "result": None,
                                         "error": errors[0], "cost": rec.cost, "engineLimit": False})
            break
        out.match_conditions.append({"name": name, "expression": compiled.expression, "result": rec.result,
                                     "error": rec.error, "cost": rec.cost, "engineLimit": rec.engine_limit})
        if rec.error is not None:
            errors.append(rec.error)
        elif rec.result is False:
            any_false = True
    if any_false or errors:
        _explain_match_conditions(policy, inv, inputs, data, tracker, out, kept, begun)
    if any_false:
        out.matched = False
        return False
    if errors:
        unique = list(dict.fromkeys(errors))
        message = unique[0] if len(unique) == 1 else "[" + ", ".join(unique) + "]"
        out.match_error = message
        if err_action == ADMIT:
            out.matched = False
        else:
            out.decisions.append(PolicyDecision(DENY, ERROR, message))
        return False
    return True


def _explain_match_conditions(policy: CompiledPolicy, inv: Invocation, inputs: dict[str, Any],
                              data: Mapping[str, Any] | cel.Activation, tracker: Any, out: ValidateResult,
                              kept: keeping.Kept | None, begun: float) -> None:
    """Explain the false and failed matchConditions recorded in ``out`` (not one that ran out of the budget), on
    their values ``data`` (see :func:`_explain_all` for ``kept`` and ``begun``)."""
    whole: _Unpruned | None = None
    made: explaining_kept.Explained | None = None
    allowance = explain.Allowance(0.0)
    for index, (entry, (_, compiled)) in enumerate(zip(out.match_conditions, policy.match_conditions, strict=False)):
        if entry["result"] is False or (entry["error"] is not None and entry["error"] != OUT_OF_BUDGET):
            if whole is None:
                whole = _Unpruned(data, inv, None, original_resource=True)
                made = explaining_kept.kept(policy, inv, _seen(policy, policy.pruners, inv),
                                            inputs if kept is not None else None)
                allowance = _allowance(begun, perf_counter())
            _explain(entry, compiled, entry["cost"], whole, policy, inv, tracker, made, ("matchCondition", index),
                     allowance)


def _audit(policy: CompiledPolicy, inv: Invocation, inputs: dict[str, Any], data: Any,
           scopes: list[cel.VariableScope], failure_policy: str, err_action: str, tracker: Any,
           out: ValidateResult, later: list[_ToExplain]) -> None:
    """The auditAnnotations, recorded in ``out``: a fresh budget, the full Namespace, no authorizer. Those that
    fail are noted in ``later``, to be explained."""
    audit_data = data
    if not policy.audit_shares_values:
        audit_data = _data(policy.pruners[4], inputs, inv.namespace_full, None,
                           len(policy.audit_annotations) + len(policy.variables))
    audit_scope = _scope(policy, audit_data, scopes)
    remaining = RUNTIME_BUDGET  # a fresh budget
    results: list[AuditAnnotationResult] = []
    for key, compiled in policy.audit_annotations:
        rec = _run(compiled, audit_data, audit_scope, tracker)
        remaining -= rec.cost or 0
        if remaining < 0:
            out.decisions = [PolicyDecision(err_action, ERROR, OUT_OF_BUDGET)]
            return
        results.append(_audit_result(key, compiled, rec, failure_policy))
        if rec.error is not None:
            later.append((("audit", len(results) - 1), results[-1], compiled, rec.cost))
    out.audit_annotations = results


def _decide(
    planned: PlannedValidation,
    rec: ExpressionRecord,
    msg_rec: ExpressionRecord | None,
    message_budget_error: str | None,
    err_action: str,
    decisions: list[PolicyDecision],
    records: list[dict[str, Any]],
) -> None:
    """The decision of one validation, and its record for the results view, appended to the lists."""
    if rec.error is not None:
        decision = PolicyDecision(err_action, ERROR, rec.error, None, planned.index)
    elif message_budget_error is not None:
        decision = PolicyDecision(err_action, ERROR, "failed messageExpression: " + message_budget_error,
                                  index=planned.index)
    elif rec.result is not True:
        message = planned.static_message if msg_rec is None else failure_message(planned, msg_rec)
        decision = PolicyDecision(DENY, DENY, message, planned.reason, planned.index)
    else:
        decision = PolicyDecision(ADMIT, ADMIT, "", None, planned.index)
    decisions.append(decision)
    entry: dict[str, Any] = {
        "index": planned.index,
        "expression": planned.compiled.expression,
        "result": rec.result if rec.error is None else None,
        "outcome": _OUTCOMES[decision.evaluation],
        "error": rec.error,
        "message": decision.message if decision.evaluation != ADMIT else None,
        "reason": decision.reason,
        "cost": rec.cost,
        "engineLimit": rec.engine_limit,
    }
    if msg_rec is not None:
        entry["messageExpression"] = {
            "expression": planned.validation.get("messageExpression"),
            "value": msg_rec.result if msg_rec.error is None else None,
            "error": msg_rec.error,
            "cost": msg_rec.cost,
            "engineLimit": msg_rec.engine_limit,
        }
    records.append(entry)


def failure_message(planned: PlannedValidation, msg_rec: ExpressionRecord | None) -> str:
    """The message of a false validation: messageExpression, else message, else the expression."""
    if msg_rec is not None and msg_rec.error is None and isinstance(msg_rec.result, str):
        message = trim_space(msg_rec.result)
        if message and len(message.encode()) <= MESSAGE_EXPRESSION_MAX_BYTES and "\n" not in message:
            return message
    return planned.static_message


_OUTCOMES = {ADMIT: "pass", DENY: "fail", ERROR: "error"}


def _audit_result(
    key: str, compiled: cel.Compiled, rec: ExpressionRecord, failure_policy: str
) -> AuditAnnotationResult:
    if rec.error is not None:
        if failure_policy == "Ignore":
            return AuditAnnotationResult(key, "exclude", error=rec.error)
        return AuditAnnotationResult(key, "error", error=rec.error)
    value = rec.result
    if value is None:
        return AuditAnnotationResult(key, "exclude")
    if isinstance(value, str):
        trimmed = trim_space(value)
        if not trimmed:
            return AuditAnnotationResult(key, "exclude", value="")
        return AuditAnnotationResult(key, "publish", value=trimmed)
    type_name = cel.type_name(type(value).__name__.upper())
    return AuditAnnotationResult(
        key,
        "error",
        error=f"valueExpression '{compiled.expression}' resulted in unsupported return type: {type_name}. "
        "Return type must be either string or null.",
    )
