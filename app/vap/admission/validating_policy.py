"""ValidatingAdmissionPolicy: the plugin evaluating the stored policies and bindings.

The evaluation itself is :mod:`app.vap.dispatcher` (k8s.io/apiserver/pkg/admission/plugin/policy/
validating/dispatcher.go) and :mod:`app.vap.validator`; this stage hands it the request and the
stored objects and turns its outcome into the stage's record: the first denial as a Forbidden Status
(:mod:`app.vap.decision`), or the request error the dispatcher returned, the warnings of Warn actions and
the audit annotations.
"""

from __future__ import annotations

from typing import Any

from .. import decision
from ..dispatcher import Outcome, dispatch
from .state import ALLOWED, DENIED, NOT_REACHED, NOTHING_TO_DO, RequestState, StageRecord, Stored

PLUGIN = "ValidatingAdmissionPolicy"


def admit(state: RequestState, stored: Stored) -> StageRecord:
    """What the plugin does with the request."""
    outcome = dispatch(policies=stored.policies, bindings=stored.bindings, attrs=state.attrs, cluster=stored.cluster,
                       version=stored.version, param_scope=stored.param_scope, authorizer=stored.authorizer)
    status = _status(outcome, state)
    word = DENIED if status is not None else ALLOWED if outcome.policies else NOTHING_TO_DO
    return StageRecord(PLUGIN, word, status=status, decided_by=PLUGIN if status is not None else None,
                       warnings=tuple(outcome.warnings), audit_annotations=outcome.audit_annotations,
                       details={"policies": _explained(outcome.policies, stored), "denials": len(outcome.denials)})


def not_reached(state: RequestState, stored: Stored) -> StageRecord:
    """The record of the plugin when an earlier stage failed the request: no policy is evaluated."""
    ended = state.ended_by
    why = f"not evaluated: the request failed in {ended.plugin if ended else 'an earlier plugin'}, before this plugin"
    policies = [{"name": p.name, "matched": False, "explanation": [why], "bindings": []}
                for p in sorted(stored.policies, key=lambda p: p.name)]
    return StageRecord(PLUGIN, NOT_REACHED, details={"policies": _explained(policies, stored), "denials": 0})


def _status(outcome: Outcome, state: RequestState) -> dict[str, Any] | None:
    if outcome.request_error is not None:
        return decision.failure_status(outcome.request_error)
    if outcome.denials:
        return decision.forbidden_status(outcome.denials[0], state.attrs)
    return None


def _explained(records: list[dict[str, Any]], stored: Stored) -> list[dict[str, Any]]:
    """The policies' records with their type checking, and the reason a policy named by a binding is missing
    when API validation refused it."""
    for record in records:
        if record["name"] in stored.type_checking:
            record["typeChecking"] = stored.type_checking[record["name"]]
        if record.get("missing") and record["name"] in stored.refused_policies:
            record["explanation"] = [
                "the policy failed API validation, so the apiserver would not have stored it: "
                + stored.refused_policies[record["name"]]
            ]
    return records
