"""The admission chain: one decision from every admission plugin the playground knows of.

kube-apiserver runs its plugins in a fixed order (k/k pkg/kubeapiserver/options/plugins.go):
MutatingAdmissionWebhook, then ValidatingAdmissionPolicy, then ValidatingAdmissionWebhook (Kyverno is
one of these webhooks). The first plugin that fails the request ends it: if a ValidatingAdmissionPolicy
denies, no validating webhook is called. Validating webhooks are called in parallel; when several
refuse, kube-apiserver returns one of them (the playground takes the first by configuration name).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import kyverno, webhooks
from .dispatcher import Cluster
from .request import Attributes
from .resources import ResourceTable

MUTATING_PLUGIN = "MutatingAdmissionWebhook"
VAP_PLUGIN = "ValidatingAdmissionPolicy"
VALIDATING_PLUGIN = "ValidatingAdmissionWebhook"


@dataclass
class Others:
    """What the plugins other than ValidatingAdmissionPolicy would do."""

    mutating: webhooks.Phase
    validating: webhooks.Phase
    kyverno: kyverno.Outcome


def run(
    hooks: list[webhooks.Webhook],
    policies: list[kyverno.KyvernoPolicy],
    attrs: Attributes,
    *,
    cluster: Cluster,
    table: ResourceTable,
    version: str,
    authorizer: Callable[[dict[str, Any]], Any] | None,
) -> Others:
    """Work out the webhook plugins and Kyverno for the request."""
    common = {"table": table, "lookup_namespace": cluster.namespace, "version": version, "authorizer": authorizer}
    mutating = webhooks.dispatch(hooks, attrs, mutating=True, **common)
    validating = webhooks.dispatch(hooks, attrs, mutating=False, **common)
    outcome = kyverno.Outcome()  # no Kyverno policy: Kyverno registers no webhook, its configuration plays no part
    if policies:
        outcome = kyverno.evaluate(policies, attrs, config=kyverno.load_configuration(cluster.objects),
                                   cluster=cluster, table=table, version=version, authorizer=authorizer)
    return Others(mutating, validating, outcome)


def _first(candidates: list[tuple[str, int, dict[str, Any], str]]) -> tuple[dict[str, Any], str] | None:
    if not candidates:
        return None
    _, _, status, who = min(candidates, key=lambda c: (c[0], c[1]))
    return status, who


def combine(response: dict[str, Any], others: Others) -> None:
    """Fold the other plugins into the VAP response: one allowed/status, warnings, and the stages that led there."""
    stages: list[dict[str, Any]] = []
    decided_by: str | None = None
    status: dict[str, Any] | None = None
    mutating, validating, kyv = others.mutating, others.validating, others.kyverno

    called = [r for r in mutating.records if r["called"]]
    if mutating.status is not None:
        status, decided_by = mutating.status, f"{MUTATING_PLUGIN} ({mutating.decided_by})"
        stages.append(_stage(MUTATING_PLUGIN, "denied", [f"webhook {mutating.decided_by!r} ends the request"]))
    else:
        stages.append(_stage(MUTATING_PLUGIN, "allowed" if called else "nothing to do", _called_words(called)))

    vap_status = response.get("status") if not response.get("allowed", True) else None
    if status is not None:
        stages.append(_stage(VAP_PLUGIN, "not reached", []))
        response["warnings"] = []
        response["auditAnnotations"] = {}
    elif vap_status is not None:
        status, decided_by = vap_status, VAP_PLUGIN
        stages.append(_stage(VAP_PLUGIN, "denied", []))
    else:
        stages.append(_stage(VAP_PLUGIN, "allowed" if response.get("policies") else "nothing to do", []))

    called = [r for r in validating.records if r["called"]]
    kyverno_words = kyv.explanation[:1] if not kyv.called else [
        f"Kyverno's webhooks ({', '.join(sorted({p['webhook'] for p in kyv.policies if p.get('webhook')}))}) "
        "evaluate the request"]
    if status is not None:
        stages.append(_stage(VALIDATING_PLUGIN, "not reached",
                             ["validating webhooks (Kyverno among them) are not called once a request has failed"]))
        for record in validating.records:
            record["reached"] = False
        for record in kyv.policies:
            record["reached"] = False
    else:
        checks = [(r["configuration"], r["index"], r["status"], f"webhook {r['name']!r}")
                  for r in validating.records if r["outcome"] == "request-error"]
        if kyv.request_error is not None:
            checks.append((kyverno.CONFIGURATION, 0, kyv.request_error, f"Kyverno's webhook {kyv.decided_by or ''}"))
        calls = [(r["configuration"], r["index"], r["status"], f"webhook {r['name']!r}")
                 for r in validating.records if r["outcome"] == "dry-run-rejected"]
        if kyv.status is not None:
            calls.append((kyverno.CONFIGURATION, 0, kyv.status, f"Kyverno's webhook {kyv.decided_by}"))
        first = _first(checks) or _first(calls)
        if first is not None:
            status, who = first
            decided_by = f"{VALIDATING_PLUGIN} ({who})"
            words = [f"{who} ends the request"]
            if len(checks) + len(calls) > 1:
                words.append("several validating webhooks refuse the request: kube-apiserver returns one of them, in "
                             "no defined order; the playground shows the first by configuration name")
            stages.append(_stage(VALIDATING_PLUGIN, "denied", words))
        else:
            outcome = "allowed" if called or kyv.called else "nothing to do"
            stages.append(_stage(VALIDATING_PLUGIN, outcome, _called_words(called) + kyverno_words))
            response["warnings"] = list(response.get("warnings") or []) + kyv.warnings
    if status is not None and decided_by != VAP_PLUGIN:
        response["allowed"] = False
        response["status"] = status
    unknown = [r for r in [*mutating.records, *validating.records] if r["called"] and r.get("reached", True)
               and r["outcome"] == "called"]
    if unknown and response.get("allowed"):
        response.setdefault("notes", []).append(
            "the request would be sent to " + ", ".join(repr(r["name"]) for r in unknown)
            + ": the playground never calls a webhook, so this decision assumes each of them allows the request")
    response["webhooks"] = mutating.records + validating.records
    response["kyverno"] = kyv.policies
    response["admission"] = {"stages": stages, "decidedBy": decided_by}


def _stage(plugin: str, outcome: str, explanation: list[str]) -> dict[str, Any]:
    return {"plugin": plugin, "outcome": outcome, "explanation": explanation}


def _called_words(records: list[dict[str, Any]]) -> list[str]:
    if not records:
        return []
    names = ", ".join(repr(r["name"]) for r in records)
    return [f"would call {names}; their answers are not known"]
