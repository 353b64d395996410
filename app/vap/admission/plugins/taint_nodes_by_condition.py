"""TaintNodesByCondition: a Node is created not ready for scheduling.

On the creation of a Node (not a subresource) the plugin (plugin/pkg/admission/nodetaint) adds the taint
``node.kubernetes.io/not-ready`` with effect NoSchedule unless the Node has a taint of that key and
effect; the node lifecycle controller removes it once the Node reports Ready.
"""

from __future__ import annotations

from ..state import RequestState, StageRecord, Stored
from . import _common as c

PLUGIN = "TaintNodesByCondition"
NOT_READY = {"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}


def admit(state: RequestState, stored: Stored) -> StageRecord:
    """What the plugin does with the request."""
    attrs = state.attrs
    if not c.acts_on(attrs, "", "nodes"):
        return c.nothing(PLUGIN)
    taints = c.spec(attrs.object).get("taints")
    taints = taints if isinstance(taints, list) else []
    if any(isinstance(t, dict) and t.get("key") == NOT_READY["key"] and t.get("effect") == NOT_READY["effect"]
           for t in taints):
        return c.nothing(PLUGIN, "the Node has the not-ready NoSchedule taint")
    out, spec = c.with_spec(attrs.object)
    spec["taints"] = [*taints, dict(NOT_READY)]
    return c.changed(PLUGIN, state, out, "adds the taint node.kubernetes.io/not-ready:NoSchedule")


not_reached = c.not_reached_for(PLUGIN)
