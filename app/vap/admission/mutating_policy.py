"""MutatingAdmissionPolicy: the plugin running the stored mutating policies and bindings on the request's object.

The evaluation is :mod:`app.vap.mutating.policy`; this stage hands it the request and the stored objects and turns
its outcome into the stage's record: the object after every invocation's mutations (each change attributed to
the policy and binding that made it, and to the defaulting that followed), and the request error, if any.

The apiserver runs the mutating plugins a second time when a MutatingAdmissionPolicy changed the object
(k8s.io/apiserver/pkg/admission/reinvocation.go): every built-in mutating plugin again, then the invocations
reinvocationcontext.go selects (``reinvocationPolicy: IfNeeded``). :func:`wants_reinvocation` says whether that
round happens; the chain runs it (:mod:`.chain`), this stage's :func:`reinvoke` being its MutatingAdmissionPolicy
part.
"""

from __future__ import annotations

from dataclasses import replace

from ..mutating import policy as mutating
from .state import ALLOWED, DENIED, NOT_REACHED, NOTHING_TO_DO, RequestState, StageRecord, Stored

PLUGIN = mutating.PLUGIN


def admit(state: RequestState, stored: Stored) -> StageRecord:
    """The first round of the plugin."""
    return _round(state, stored, 1)


def reinvoke(state: RequestState, stored: Stored) -> StageRecord:
    """The second round: the invocations the first one asks to run again."""
    return _round(state, stored, 2)


def wants_reinvocation(state: RequestState) -> bool:
    """Whether the mutating plugins run a second time: a MutatingAdmissionPolicy changed the object."""
    record = state.stage(PLUGIN)
    return record is not None and record.details.get("reinvocation") is not None \
        and record.details["reinvocation"].should_reinvoke and state.ended_by is None


def _round(state: RequestState, stored: Stored, round_: int) -> StageRecord:
    if not stored.mutating_policies and not stored.mutating_bindings:
        return StageRecord(PLUGIN, NOTHING_TO_DO, details={"policies": [], "round": round_})
    earlier = state.stage(PLUGIN) if round_ > 1 else None
    reinvocation = earlier.details["reinvocation"] if earlier is not None else mutating.Reinvocation()
    records = earlier.details["policies"] if earlier is not None else None
    outcome = mutating.dispatch(
        policies=stored.mutating_policies, bindings=stored.mutating_bindings, attrs=state.attrs,
        cluster=stored.cluster, version=stored.version, schemas=stored.schemas, param_scope=stored.param_scope,
        authorizer=stored.authorizer, reinvocation=reinvocation, round_=round_, records=records,
    )
    details = {"policies": outcome.policies, "reinvocation": reinvocation, "round": round_}
    if outcome.status is not None or outcome.errors:
        status = outcome.status if outcome.status is not None else mutating.status_of(outcome.errors, state.attrs)
        return StageRecord(PLUGIN, DENIED, (status["message"],), status=status, decided_by=PLUGIN, details=details,
                           changes=tuple(outcome.changes))
    explanation = ("reinvoked: a MutatingAdmissionPolicy changed the object in the first round",) \
        if round_ > 1 else ()
    if outcome.object is state.attrs.object or outcome.object == state.attrs.object:
        word = ALLOWED if outcome.invoked else NOTHING_TO_DO
        return StageRecord(PLUGIN, word, explanation, details=details)
    return StageRecord(PLUGIN, ALLOWED, explanation, details=details, changes=tuple(outcome.changes),
                       attrs=replace(state.attrs, object=outcome.object))


def not_reached(state: RequestState, stored: Stored) -> StageRecord:
    """The record of the plugin when an earlier stage failed the request: no policy is evaluated."""
    ended = state.ended_by
    why = f"not evaluated: the request failed in {ended.plugin if ended else 'an earlier plugin'}, before this plugin"
    policies = [{"name": p.name, "matched": False, "explanation": [why], "bindings": []}
                for p in sorted(stored.mutating_policies, key=lambda p: p.name)]
    return StageRecord(PLUGIN, NOT_REACHED, details={"policies": policies, "round": 1})
