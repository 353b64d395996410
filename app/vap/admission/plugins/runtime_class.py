"""RuntimeClass: a Pod that names a RuntimeClass gets its overhead and its scheduling.

On the creation of a Pod (not a subresource) with spec.runtimeClassName, the plugin
(plugin/pkg/admission/runtimeclass) refuses the Pod when the RuntimeClass does not exist; sets the Pod's
spec.overhead to the class's overhead.podFixed (refusing a Pod that gives a different one); merges the
class's scheduling.nodeSelector into the Pod's (refusing a Pod that sets one of its keys to another
value) and its scheduling.tolerations into the Pod's (a toleration already covered by another is left
out). Its Validate pass (:mod:`.runtime_class_validate`) checks the overhead again.

The RuntimeClasses are those pasted in the panes (node.k8s.io). When none is pasted, the class the Pod
names is taken to exist, with no overhead and no scheduling.
"""

from __future__ import annotations

from typing import Any

from ..state import RequestState, StageRecord, Stored
from . import _common as c
from .limit_ranger import canonical, quantity

PLUGIN = "RuntimeClass"
_VERSIONS = ("node.k8s.io/v1", "node.k8s.io/v1beta1")


def acts_on(state: RequestState) -> bool:
    return c.acts_on(state.attrs, "", "pods") and c.spec(state.attrs.object).get("runtimeClassName") is not None


def lookup(state: RequestState, stored: Stored) -> tuple[dict[str, Any] | None, dict[str, Any] | None, str]:
    """The Pod's RuntimeClass (None when not pasted), the status of its refusal when it does not exist, and
    what is assumed."""
    name = str(c.spec(state.attrs.object).get("runtimeClassName"))
    classes = c.pasted(stored, _VERSIONS, "RuntimeClass")
    found = next((k for k in classes if c.name_of(k) == name), None)
    if found is None and classes:
        return None, c.forbidden(state.attrs, f'pod rejected: RuntimeClass "{name}" not found'), ""
    if found is None:
        return None, None, (f"RuntimeClass {name!r} is not pasted: it is taken to exist, with no overhead and no "
                            "scheduling")
    return found, None, ""


def admit(state: RequestState, stored: Stored) -> StageRecord:
    """What the plugin's Admit does with the request."""
    if not acts_on(state):
        return c.nothing(PLUGIN)
    runtime_class, status, assumed = lookup(state, stored)
    if status is not None:
        return c.refused(PLUGIN, status)
    if runtime_class is None:
        return c.nothing(PLUGIN, assumed)
    attrs = state.attrs
    pod = attrs.object
    out, spec = c.with_spec(pod)
    words: list[str] = []
    fixed = overhead(runtime_class)
    if fixed is not None:
        own = spec.get("overhead")
        if own and not same_resources(own, fixed):
            return c.refused(PLUGIN, c.forbidden(attrs, "pod rejected: Pod's Overhead doesn't match RuntimeClass's "
                                                        "defined Overhead"))
        spec["overhead"] = {name: canonical(value) for name, value in fixed.items()}
        words.append(f"the Pod's overhead is RuntimeClass {c.name_of(runtime_class)}'s")
    scheduling = runtime_class.get("scheduling")
    if isinstance(scheduling, dict):
        selector = scheduling.get("nodeSelector") if isinstance(scheduling.get("nodeSelector"), dict) else {}
        own_selector = spec.get("nodeSelector")
        if own_selector is None:
            merged = dict(selector) if selector else own_selector
        else:
            merged = dict(own_selector)
            for key, value in selector.items():
                if key in merged and merged[key] != value:
                    message = (f"conflict: runtimeClass.scheduling.nodeSelector[{key}] = {value}; "
                               f"pod.spec.nodeSelector[{key}] = {merged[key]}")
                    return c.refused(PLUGIN, c.forbidden(attrs, message))
                merged[key] = value
        if merged is not None and merged != own_selector:
            spec["nodeSelector"] = merged
            words.append("the Pod gets the RuntimeClass's nodeSelector")
        tolerations = scheduling.get("tolerations") if isinstance(scheduling.get("tolerations"), list) else []
        own_tolerations = spec.get("tolerations") if isinstance(spec.get("tolerations"), list) else []
        if tolerations:
            spec["tolerations"] = merge_tolerations(own_tolerations, tolerations)
            words.append("the Pod gets the RuntimeClass's tolerations")
    return c.changed(PLUGIN, state, out, *words)


not_reached = c.not_reached_for(PLUGIN)


def overhead(runtime_class: dict[str, Any]) -> dict[str, Any] | None:
    value = runtime_class.get("overhead")
    if not isinstance(value, dict):
        return None
    fixed = value.get("podFixed")
    return fixed if isinstance(fixed, dict) else None


def same_resources(a: Any, b: Any) -> bool:
    """Two resource lists with the same names and equal quantities (semantic equality)."""
    if not isinstance(a, dict) or not isinstance(b, dict) or set(a) != set(b):
        return False
    for name, value in a.items():
        x, y = quantity(value), quantity(b[name])
        if x is None or y is None:
            if value != b[name]:
                return False
        elif x[0] != y[0]:
            return False
    return True


def merge_tolerations(first: list[Any], second: list[Any]) -> list[Any]:
    """tolerations.MergeTolerations: both lists, without a toleration another one already covers (of equal
    ones, the first is kept)."""
    everything = [*first, *second]
    merged: list[Any] = []
    for index, toleration in enumerate(everything):
        if any(_covers(kept, toleration) for kept in merged):
            continue
        if any(later != toleration and _covers(later, toleration) for later in everything[index + 1:]):
            continue
        merged.append(toleration)
    return merged


def _covers(wide: Any, narrow: Any) -> bool:
    """Whether the toleration ``wide`` tolerates everything ``narrow`` does."""
    if wide == narrow:
        return True
    if not isinstance(wide, dict) or not isinstance(narrow, dict):
        return False
    wide_key, wide_op = wide.get("key") or "", wide.get("operator") or ""
    if (narrow.get("key") or "") != wide_key and (wide_key != "" or wide_op != "Exists"):
        return False
    wide_effect = wide.get("effect") or ""
    if (narrow.get("effect") or "") != wide_effect and wide_effect != "":
        return False
    if wide_effect == "NoExecute" and wide.get("tolerationSeconds") is not None:
        seconds = narrow.get("tolerationSeconds")
        if seconds is None or seconds > wide["tolerationSeconds"]:
            return False
    if wide_op in ("Equal", ""):
        return narrow.get("operator") == "Equal" and (narrow.get("value") or "") == (wide.get("value") or "")
    return wide_op == "Exists"
