"""ValidatingAdmissionWebhook: the last admission plugin, with Kyverno as one of its webhooks.

As for mutating webhooks, the playground never calls one: it works out which validating webhooks the
request would be sent to and the errors kube-apiserver returns instead of calling one
(k8s.io/apiserver/pkg/admission/plugin/webhook/validating/dispatcher.go). Kyverno's policies are
evaluated as its webhooks would evaluate them (:mod:`app.vap.kyverno`). Validating webhooks are called
in parallel: when several refuse, kube-apiserver returns one of them, and the playground shows the
first by configuration name.
"""

from __future__ import annotations

from typing import Any

from .. import kyverno, webhooks
from .mutating_webhook import called_words
from .state import ALLOWED, DENIED, NOT_REACHED, NOTHING_TO_DO, RequestState, StageRecord, Stored

PLUGIN = "ValidatingAdmissionWebhook"


def admit(state: RequestState, stored: Stored) -> StageRecord:
    """What the plugin, and Kyverno's webhooks among its webhooks, do with the request."""
    phase, kyv = _dispatch(state, stored)
    details = {"webhooks": phase.records, "kyverno": kyv.policies}
    checks = [(r["configuration"], r["index"], r["status"], f"webhook {r['name']!r}")
              for r in phase.records if r["outcome"] == "request-error"]
    if kyv.request_error is not None:
        checks.append((kyverno.CONFIGURATION, 0, kyv.request_error, f"Kyverno's webhook {kyv.decided_by or ''}"))
    calls = [(r["configuration"], r["index"], r["status"], f"webhook {r['name']!r}")
             for r in phase.records if r["outcome"] == "dry-run-rejected"]
    if kyv.status is not None:
        calls.append((kyverno.CONFIGURATION, 0, kyv.status, f"Kyverno's webhook {kyv.decided_by}"))
    first = _first(checks) or _first(calls)
    if first is not None:
        status, who = first
        words = [f"{who} ends the request"]
        if len(checks) + len(calls) > 1:
            words.append("several validating webhooks refuse the request: kube-apiserver returns one of them, in "
                         "no defined order; the playground shows the first by configuration name")
        return StageRecord(PLUGIN, DENIED, tuple(words), status=status, decided_by=f"{PLUGIN} ({who})",
                           details=details)
    called = [r for r in phase.records if r["called"]]
    kyverno_words = kyv.explanation[:1] if not kyv.called else [
        f"Kyverno's webhooks ({', '.join(sorted({p['webhook'] for p in kyv.policies if p.get('webhook')}))}) "
        "evaluate the request"]
    return StageRecord(PLUGIN, ALLOWED if called or kyv.called else NOTHING_TO_DO,
                       (*called_words(called), *kyverno_words), warnings=tuple(kyv.warnings), details=details)


def not_reached(state: RequestState, stored: Stored) -> StageRecord:
    """The record of the plugin when an earlier stage failed the request: which webhooks it would have
    called, each marked as not reached."""
    phase, kyv = _dispatch(state, stored)
    for record in (*phase.records, *kyv.policies):
        record["reached"] = False
    return StageRecord(PLUGIN, NOT_REACHED,
                       ("validating webhooks (Kyverno among them) are not called once a request has failed",),
                       details={"webhooks": phase.records, "kyverno": kyv.policies})


def _dispatch(state: RequestState, stored: Stored) -> tuple[webhooks.Phase, kyverno.Outcome]:
    phase = webhooks.Phase()
    if stored.hooks:
        phase = webhooks.dispatch(list(stored.hooks), state.attrs, mutating=False, table=stored.table,
                                  lookup_namespace=stored.cluster.namespace, version=stored.version,
                                  authorizer=stored.authorizer)
    kyv = kyverno.Outcome()  # no Kyverno policy: Kyverno registers no webhook, its configuration plays no part
    if stored.kyverno_policies:
        kyv = kyverno.evaluate(list(stored.kyverno_policies), state.attrs,
                               config=kyverno.load_configuration(stored.cluster.objects), cluster=stored.cluster,
                               table=stored.table, version=stored.version, authorizer=stored.authorizer)
    return phase, kyv


def _first(candidates: list[tuple[str, int, Any, str]]) -> tuple[Any, str] | None:
    """The refusal kube-apiserver returns of several: the first by configuration name and position."""
    if not candidates:
        return None
    _, _, status, who = min(candidates, key=lambda c: (c[0], c[1]))
    return status, who
