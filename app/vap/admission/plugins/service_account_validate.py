"""ServiceAccount, its Validate pass: the checks the plugin runs again on the Pod as mutating admission
left it (plugin/pkg/admission/serviceaccount Validate).

A Pod being created must name a service account (the plugin's Admit named ``default`` for one that named
none); a mirror pod may reference no service account, Secret or service account token; and a
ServiceAccount annotated ``kubernetes.io/enforce-mountable-secrets: "true"`` (pasted in the panes) limits
the Secrets and image pull secrets its Pods may reference to those it lists.
"""

from __future__ import annotations

from ..state import RequestState, StageRecord, Stored
from . import _common as c
from .service_account import PLUGIN, account_name, acts_on, check, find_account

__all__ = ["PLUGIN", "admit", "not_reached"]


def admit(state: RequestState, stored: Stored) -> StageRecord:
    """What the plugin's Validate does with the request."""
    if not acts_on(state):
        return c.nothing(PLUGIN)
    pod = state.attrs.object
    name = account_name(pod)
    status = check(state.attrs, pod, find_account(stored, state.attrs.namespace, name) if name else None)
    if status is not None:
        return c.refused(PLUGIN, status)
    return c.nothing(PLUGIN)


not_reached = c.not_reached_for(PLUGIN)
