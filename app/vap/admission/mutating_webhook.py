"""MutatingAdmissionWebhook: the first admission plugin of the chain the playground reproduces.

The playground never calls a webhook. For each mutating webhook it works out whether the request would
be sent to it (rules, selectors, matchConditions) and the errors kube-apiserver returns instead of
calling one, such as a dry-run request to a webhook with side effects
(k8s.io/apiserver/pkg/admission/plugin/webhook/mutating/dispatcher.go): such an error fails the request.
"""

from __future__ import annotations

from typing import Any

from .. import webhooks
from .state import ALLOWED, DENIED, NOT_REACHED, NOTHING_TO_DO, RequestState, StageRecord, Stored

PLUGIN = "MutatingAdmissionWebhook"


def admit(state: RequestState, stored: Stored) -> StageRecord:
    """What the plugin does with the request."""
    if not stored.hooks:
        return StageRecord(PLUGIN, NOTHING_TO_DO, details={"webhooks": []})
    phase = webhooks.dispatch(list(stored.hooks), state.attrs, mutating=True, table=stored.table,
                              lookup_namespace=stored.cluster.namespace, version=stored.version,
                              authorizer=stored.authorizer)
    if phase.status is not None:
        return StageRecord(PLUGIN, DENIED, (f"webhook {phase.decided_by!r} ends the request",), status=phase.status,
                           decided_by=f"{PLUGIN} ({phase.decided_by})", details={"webhooks": phase.records})
    called = [r for r in phase.records if r["called"]]
    return StageRecord(PLUGIN, ALLOWED if called else NOTHING_TO_DO, called_words(called),
                       details={"webhooks": phase.records})


def not_reached(state: RequestState, stored: Stored) -> StageRecord:
    """The record of the plugin when an earlier stage failed the request."""
    return StageRecord(PLUGIN, NOT_REACHED, details={"webhooks": []})


def called_words(records: list[dict[str, Any]]) -> tuple[str, ...]:
    """The explanation of webhooks the request would be sent to."""
    if not records:
        return ()
    names = ", ".join(repr(r["name"]) for r in records)
    return (f"would call {names}; their answers are not known",)
