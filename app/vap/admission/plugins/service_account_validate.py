"""ServiceAccount, its Validate pass: the checks the plugin runs again on the Pod as mutating admission
left it (plugin/pkg/admission/serviceaccount Validate).

A Pod being created must name a service account (the plugin's Admit named ``default`` for one that named
none); a mirror pod may reference no service account, Secret or service account token; and a
ServiceAccount annotated ``kubernetes.io/enforce-mountable-secrets: "true"`` (pasted in the panes) limits
the Secrets and image pull secrets its Pods may reference to those it lists. An update of a Pod's ephemeral
containers (the ``ephemeralcontainers`` subresource) is checked the same way for the Secrets they reference.
"""

from __future__ import annotations

from ... import decision
from ..state import RequestState, StageRecord, Stored
from . import _common as c
from .service_account import ENFORCE_ANNOTATION, PLUGIN, account_name, acts_on, check, find_account, parse_bool

__all__ = ["PLUGIN", "admit", "not_reached"]


def admit(state: RequestState, stored: Stored) -> StageRecord:
    """What the plugin's Validate does with the request."""
    if c.acts_on(state.attrs, "", "pods", ("UPDATE",), ("ephemeralcontainers",)):
        return _ephemeral(state, stored)
    if not acts_on(state):
        return c.nothing(PLUGIN)
    pod = state.attrs.object
    name = account_name(pod)
    status = check(state.attrs, pod, find_account(stored, state.attrs.namespace, name) if name else None)
    if status is not None:
        return c.refused(PLUGIN, status)
    return c.nothing(PLUGIN)


not_reached = c.not_reached_for(PLUGIN)


def _ephemeral(state: RequestState, stored: Stored) -> StageRecord:
    """An update of a Pod's ephemeral containers: the Pod must name a service account, and an account that
    enforces mountable secrets limits the Secrets the ephemeral containers reference (that refusal is a plain
    error, which the apiserver answers with a 500)."""
    attrs = state.attrs
    pod = attrs.object
    name = account_name(pod)
    if not name:
        return c.refused(PLUGIN, c.forbidden(attrs, f"no service account specified for pod {attrs.namespace}/"
                                                    f"{c.name_of(pod)}"))
    account = find_account(stored, attrs.namespace, name)
    if account is None or not parse_bool(c.annotations(account).get(ENFORCE_ANNOTATION)):
        return c.nothing(PLUGIN)
    mountable = {str(s.get("name") or "") for s in account.get("secrets") or [] if isinstance(s, dict)}
    for container in c.spec(pod).get("ephemeralContainers") or []:
        if not isinstance(container, dict):
            continue
        where = f"ephemeral container {container.get('name') or ''}"
        for env in container.get("env") or []:
            ref = (env.get("valueFrom") or {}).get("secretKeyRef") if isinstance(env, dict) else None
            if isinstance(ref, dict) and str(ref.get("name") or "") not in mountable:
                return _plain_error(f"{where} with envVar {env.get('name') or ''} referencing "
                                    f'secret.secretName="{ref.get("name") or ""}" is not allowed because service '
                                    f"account {name} does not reference that secret")
        for env_from in container.get("envFrom") or []:
            ref = env_from.get("secretRef") if isinstance(env_from, dict) else None
            if isinstance(ref, dict) and str(ref.get("name") or "") not in mountable:
                return _plain_error(f'{where} with envFrom referencing secret.secretName="{ref.get("name") or ""}" '
                                    f"is not allowed because service account {name} does not reference that secret")
    return c.nothing(PLUGIN)


def _plain_error(message: str) -> StageRecord:
    """An error that is not an API status: the apiserver answers 500 with its text and no reason."""
    return c.refused(PLUGIN, decision.failure_status({"message": message, "code": 500}))
