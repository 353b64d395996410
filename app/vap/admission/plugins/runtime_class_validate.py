"""RuntimeClass, its Validate pass: the Pod's overhead must be its RuntimeClass's (plugin/pkg/admission/
runtimeclass validateOverhead): a Pod with an overhead and no RuntimeClass overhead is refused, as is one
whose overhead differs from the class's. A RuntimeClass that is not pasted (when none is) is taken
to have an overhead that is not known: the overhead is not checked then.
"""

from __future__ import annotations

from ..state import RequestState, StageRecord, Stored
from . import _common as c
from .runtime_class import PLUGIN, lookup, overhead, same_resources

__all__ = ["PLUGIN", "admit", "not_reached"]


def admit(state: RequestState, stored: Stored) -> StageRecord:
    """What the plugin's Validate does with the request."""
    attrs = state.attrs
    if not c.acts_on(attrs, "", "pods"):
        return c.nothing(PLUGIN)
    pod = attrs.object
    runtime_class = None
    if c.spec(pod).get("runtimeClassName") is not None:
        runtime_class, status, assumed = lookup(state, stored)
        if status is not None:
            return c.refused(PLUGIN, status)
        if runtime_class is None:  # not pasted: its overhead is not known
            return c.nothing(PLUGIN, assumed)
    fixed = overhead(runtime_class) if runtime_class is not None else None
    own = c.spec(pod).get("overhead")
    if fixed is not None:
        if not same_resources(fixed, own):
            return c.refused(PLUGIN, c.forbidden(attrs, "pod rejected: Pod's Overhead doesn't match RuntimeClass's "
                                                        "defined Overhead"))
    elif own is not None:
        return c.refused(PLUGIN, c.forbidden(attrs, "pod rejected: Pod Overhead set without corresponding "
                                                    "RuntimeClass defined Overhead"))
    return c.nothing(PLUGIN)


not_reached = c.not_reached_for(PLUGIN)
