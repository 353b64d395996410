"""Priority: a Pod's priority comes from its PriorityClass, never from the Pod.

On the creation of a Pod (not a subresource), the plugin (plugin/pkg/admission/priority) resolves the
Pod's priorityClassName: a Pod that names none gets the global default class (the PriorityClass with
globalDefault true, the lowest value of several), its name, value and preemptionPolicy, or priority 0 and
PreemptLowerPriority when there is no default class; a Pod that names one gets that class's value and
preemptionPolicy, and is refused when the class does not exist. A priority or preemptionPolicy the Pod
gives itself must be the computed one. On an update the Pod keeps the priority and preemptionPolicy it
was stored with when it gives none.

The PriorityClasses are those pasted in the panes, with the two the apiserver creates
(system-node-critical and system-cluster-critical). When no PriorityClass is pasted, a class the Pod
names is taken to exist: its value is then not known, and spec.priority is left unset.
"""

from __future__ import annotations

from typing import Any

from ..state import RequestState, StageRecord, Stored
from . import _common as c

PLUGIN = "Priority"
PREEMPT_LOWER = "PreemptLowerPriority"
SYSTEM_CLASSES: dict[str, dict[str, Any]] = {
    name: {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
           "value": value, "preemptionPolicy": PREEMPT_LOWER}
    for name, value in (("system-node-critical", 2000001000), ("system-cluster-critical", 2000000000))
}
_VERSIONS = ("scheduling.k8s.io/v1", "scheduling.k8s.io/v1beta1", "scheduling.k8s.io/v1alpha1")

_RESULTS = c.Results("admission.plugins.priority")


def admit(state: RequestState, stored: Stored) -> StageRecord:
    """What the plugin's Admit does with the request."""
    if not c.acts_on(state.attrs, "", "pods", ("CREATE", "UPDATE")):
        return c.nothing(PLUGIN)
    classes = c.pasted(stored, _VERSIONS, "PriorityClass")
    return _RESULTS.get(state, c.freeze(classes), lambda: _admit(state, classes))


not_reached = c.not_reached_for(PLUGIN)


def _admit(state: RequestState, classes: list[dict[str, Any]]) -> StageRecord:
    attrs = state.attrs
    pod = attrs.object
    spec = c.spec(pod)
    if attrs.operation == "UPDATE":
        old = c.spec(attrs.old_object)
        kept = {f: old[f] for f in ("priority", "preemptionPolicy") if spec.get(f) is None and old.get(f) is not None}
        if not kept:
            return c.nothing(PLUGIN)
        out, new_spec = c.with_spec(pod)
        new_spec.update(kept)
        return c.changed(PLUGIN, state, out, "the Pod keeps the " + " and ".join(kept) + " it was stored with")
    words: list[str] = []
    name = str(spec.get("priorityClassName") or "")
    if not name:
        default = default_class(classes)
        if default is None:
            value, policy = 0, PREEMPT_LOWER
            words.append("the Pod names no PriorityClass and no pasted PriorityClass is the global default: "
                         "priority 0")
        else:
            name, value, policy = c.name_of(default), _value(default), _policy(default)
            words.append(f"the Pod names no PriorityClass: it gets the global default {name!r}")
    else:
        found = SYSTEM_CLASSES.get(name) or next((pc for pc in classes if c.name_of(pc) == name), None)
        if found is None and classes:
            return c.refused(PLUGIN, c.forbidden(attrs, f"no PriorityClass with name {name} was found"),
                             f"PriorityClass {name!r} is not among the PriorityClasses pasted")
        if found is None:
            return c.nothing(PLUGIN, f"PriorityClass {name!r} is not pasted: it is taken to exist, but its value "
                                     "is not known, so spec.priority is left unset here (paste the PriorityClass; "
                                     "a class that does not exist fails the request)")
        value, policy = _value(found), _policy(found)
        words.append(f"PriorityClass {name!r} gives priority {value}")
    given = spec.get("priority")
    if given is not None and given != value:
        return c.refused(PLUGIN, c.forbidden(attrs, f"the integer value of priority ({given}) must not be provided "
                                                    "in pod spec; priority admission controller computed "
                                                    f"{value} from the given PriorityClass name"))
    given_policy = spec.get("preemptionPolicy")
    if policy is not None and given_policy is not None and given_policy != policy:
        return c.refused(PLUGIN, c.forbidden(attrs, f"the string value of PreemptionPolicy ({given_policy}) must "
                                                    "not be provided in pod spec; priority admission controller "
                                                    f"computed {policy} from the given PriorityClass name"))
    out, new_spec = c.with_spec(pod)
    if name:
        new_spec["priorityClassName"] = name
    new_spec["priority"] = value
    if policy is not None:
        new_spec["preemptionPolicy"] = policy
    return c.changed(PLUGIN, state, out, *words)


def default_class(classes: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The global default class: of several, the one of lowest value (the first pasted of equal ones)."""
    defaults = [pc for pc in classes if pc.get("globalDefault") is True]
    return min(defaults, key=_value) if defaults else None


def _value(pc: dict[str, Any]) -> int:
    value = pc.get("value")
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _policy(pc: dict[str, Any]) -> str | None:
    """A stored PriorityClass's preemptionPolicy (defaulted to PreemptLowerPriority when it was created)."""
    policy = pc.get("preemptionPolicy")
    return str(policy) if policy else PREEMPT_LOWER
