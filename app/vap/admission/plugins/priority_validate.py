"""Priority, its Validate pass: only one PriorityClass may be the global default.

Creating a PriorityClass with globalDefault true, or setting it on another one, is refused when a
PriorityClass (pasted in the panes) already is the default (plugin/pkg/admission/priority
validatePriorityClass).
"""

from __future__ import annotations

from ..state import RequestState, StageRecord, Stored
from . import _common as c
from .priority import _VERSIONS, PLUGIN, default_class

__all__ = ["PLUGIN", "admit", "not_reached"]


def admit(state: RequestState, stored: Stored) -> StageRecord:
    """What the plugin's Validate does with the request."""
    attrs = state.attrs
    if not c.acts_on(attrs, "scheduling.k8s.io", "priorityclasses", ("CREATE", "UPDATE")):
        return c.nothing(PLUGIN)
    if attrs.object.get("globalDefault") is not True:
        return c.nothing(PLUGIN)
    current = default_class(c.pasted(stored, _VERSIONS, "PriorityClass"))
    if current is None or (attrs.operation == "UPDATE" and c.name_of(current) == c.name_of(attrs.object)):
        return c.nothing(PLUGIN)
    return c.refused(PLUGIN, c.forbidden(attrs, f"PriorityClass {c.name_of(current)} is already marked as default. "
                                                "Only one default can exist"))


not_reached = c.not_reached_for(PLUGIN)
