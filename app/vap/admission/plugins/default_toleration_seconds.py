"""DefaultTolerationSeconds: a Pod tolerates a node that is not ready or unreachable for 5 minutes.

On the creation or update of a Pod (not a subresource), the plugin
(plugin/pkg/admission/defaulttolerationseconds) adds the toleration ``node.kubernetes.io/not-ready``
(operator Exists, effect NoExecute, tolerationSeconds 300) unless one of the Pod's tolerations already
covers it (that key or an empty one, with effect NoExecute or none), and the same for
``node.kubernetes.io/unreachable``. 300 seconds is kube-apiserver's default for its flags
--default-not-ready-toleration-seconds and --default-unreachable-toleration-seconds.
"""

from __future__ import annotations

from typing import Any

from ..state import RequestState, StageRecord, Stored
from . import _common as c

PLUGIN = "DefaultTolerationSeconds"
NOT_READY = "node.kubernetes.io/not-ready"
UNREACHABLE = "node.kubernetes.io/unreachable"
SECONDS = 300

_RESULTS = c.Results("admission.plugins.default_toleration_seconds")


def admit(state: RequestState, stored: Stored) -> StageRecord:
    """What the plugin does with the request."""
    if not c.acts_on(state.attrs, "", "pods", ("CREATE", "UPDATE")):
        return c.nothing(PLUGIN)
    return _RESULTS.get(state, None, lambda: _admit(state))


not_reached = c.not_reached_for(PLUGIN)


def tolerates(tolerations: Any, key: str) -> bool:
    """Whether one of the tolerations covers the NoExecute taint ``key``."""
    return any(isinstance(t, dict) and (t.get("key") or "") in ("", key)
               and (t.get("effect") or "") in ("", "NoExecute")
               for t in (tolerations if isinstance(tolerations, list) else []))


def _admit(state: RequestState) -> StageRecord:
    pod = state.attrs.object
    tolerations = c.spec(pod).get("tolerations")
    added = [{"key": key, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": SECONDS}
             for key in (NOT_READY, UNREACHABLE) if not tolerates(tolerations, key)]
    if not added:
        return c.nothing(PLUGIN, "the Pod already tolerates not-ready and unreachable nodes")
    out, spec = c.with_spec(pod)
    spec["tolerations"] = [*(tolerations if isinstance(tolerations, list) else []), *added]
    keys = " and ".join(t["key"] for t in added)
    return c.changed(PLUGIN, state, out, f"adds the NoExecute toleration{'s' if len(added) > 1 else ''} of {keys} "
                     f"for {SECONDS} seconds")
