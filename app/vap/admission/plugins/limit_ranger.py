"""LimitRanger: the default requests and limits of a Pod's containers, from the namespace's LimitRanges.

On the creation of a Pod (LimitRanger leaves Pod updates alone: containers cannot change), the plugin
(plugin/pkg/admission/limitranger) gives each container, then each init container, the
``defaultRequest`` and ``default`` of every ``type: Container`` item of each LimitRange of the namespace
for the resources the container does not request or limit itself, and records what it set in the
annotation ``kubernetes.io/limit-ranger`` (``LimitRanger plugin set: cpu, memory request for container
app; cpu limit for container app``). The minimums, maximums and limit-to-request ratios are checked in
its Validate pass (:mod:`.limit_ranger_validate`), for Pods and PersistentVolumeClaims.

The LimitRanges are those pasted in the panes, of the request's namespace (a LimitRange that names no
namespace is in 'default'), in pane order; with none pasted, the namespace is taken to have none. An
object whose stored old object is being deleted (metadata.deletionTimestamp) is left alone.
"""

from __future__ import annotations

from fractions import Fraction
from math import ceil
from typing import Any

from ...cel.library.errors import LibraryError
from ...cel.library.quantity import Dec, parse_quantity
from ...defaulting.core_v1 import canonical_quantity
from ..state import RequestState, StageRecord, Stored
from . import _common as c

PLUGIN = "LimitRanger"
ANNOTATION = "kubernetes.io/limit-ranger"
MAX_MILLI_VALUE = ((1 << 63) - 1) // 1000

_RESULTS = c.Results("admission.plugins.limit_ranger")


def supports(state: RequestState) -> bool:
    """Pods being created; PersistentVolumeClaims being created or updated; no subresource."""
    attrs = state.attrs
    if not attrs.as_stored or attrs.subresource or not isinstance(attrs.object, dict) or attrs.kind.group != "":
        return False
    if attrs.kind.kind == "Pod":
        return attrs.operation == "CREATE"
    return attrs.kind.kind == "PersistentVolumeClaim" and attrs.operation in ("CREATE", "UPDATE")


def limit_ranges(state: RequestState, stored: Stored) -> list[dict[str, Any]]:
    """The LimitRanges the plugin applies: none when the old object is being deleted."""
    if c.meta(state.attrs.old_object).get("deletionTimestamp") is not None:
        return []
    return [lr for lr in c.pasted(stored, ("v1",), "LimitRange") if c.namespace_of(lr) == state.attrs.namespace]


def items(limit_range: Any, kind: str) -> list[dict[str, Any]]:
    """The LimitRange's limits of a type."""
    limits = c.spec(limit_range).get("limits")
    return [i for i in limits if isinstance(i, dict) and i.get("type") == kind] if isinstance(limits, list) else []


def admit(state: RequestState, stored: Stored) -> StageRecord:
    """What the plugin's Admit does with the request: defaults, for Pods."""
    if not supports(state) or state.attrs.kind.kind != "Pod":
        return c.nothing(PLUGIN)
    ranges = limit_ranges(state, stored)
    if not ranges:
        return c.nothing(PLUGIN)
    return _RESULTS.get(state, c.freeze(ranges), lambda: _admit(state, ranges))


not_reached = c.not_reached_for(PLUGIN)


def _admit(state: RequestState, ranges: list[dict[str, Any]]) -> StageRecord:
    pod = state.attrs.object
    out: dict[str, Any] = pod
    spec: dict[str, Any] | None = None
    words: list[str] = []
    for limit_range in ranges:
        requests: dict[str, Any] = {}
        limits: dict[str, Any] = {}
        for item in items(limit_range, "Container"):
            for source, into in (("defaultRequest", requests), ("default", limits)):
                if isinstance(item.get(source), dict):
                    into.update({k: canonical(v) for k, v in item[source].items()})
        if not requests and not limits:
            continue
        notes: list[str] = []
        for field, label in (("containers", "container"), ("initContainers", "init container")):
            containers = (spec if spec is not None else c.spec(out)).get(field)
            if not isinstance(containers, list):
                continue
            new_list = list(containers)
            for index, container in enumerate(containers):
                if not isinstance(container, dict):
                    continue
                merged, set_notes = _merge(container, requests, limits, label)
                if set_notes:
                    new_list[index] = merged
                    notes.extend(set_notes)
            if new_list != containers:
                if spec is None:
                    out, spec = c.with_spec(out)
                spec[field] = new_list
        if notes:
            value = "LimitRanger plugin set: " + "; ".join(notes)
            out["metadata"] = {**c.meta(out), "annotations": {**c.annotations(out), ANNOTATION: value}}
            words.append(f"LimitRange {c.name_of(limit_range)}: " + "; ".join(notes))
    if out is pod:
        return c.nothing(PLUGIN, "the containers request and limit every resource the LimitRanges default")
    return c.changed(PLUGIN, state, out, *words)


def _merge(container: dict[str, Any], requests: dict[str, Any], limits: dict[str, Any],
           label: str) -> tuple[dict[str, Any], list[str]]:
    resources = container.get("resources") if isinstance(container.get("resources"), dict) else {}
    new_resources = dict(resources)
    notes: list[str] = []
    for field, defaults, word in (("limits", limits, "limit"), ("requests", requests, "request")):
        own = resources.get(field) if isinstance(resources.get(field), dict) else {}
        missing = sorted(k for k in defaults if k not in own)
        if missing:
            new_resources[field] = {**own, **{k: defaults[k] for k in missing}}
            notes.append(f"{', '.join(missing)} {word} for {label} {container.get('name') or ''}")
    # the plugin sets requests' note before limits'
    notes.sort(key=lambda n: " request for " not in n)
    if not notes:
        return container, []
    return {**container, "resources": new_resources}, notes


# --- quantities ---------------------------------------------------------------------------------------


def quantity(value: Any) -> tuple[Fraction, Dec, str] | None:
    """A quantity's exact value (a fraction and a decimal) and format, None when it does not parse."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return None
    text = str(value).strip()
    try:
        dec = parse_quantity(text)
    except (LibraryError, ValueError):
        return None
    suffix = text.lstrip("+-0123456789.")
    form = ("DecimalExponent" if len(suffix) > 1 and suffix[0] in "eE"
            else "BinarySI" if suffix.endswith("i") else "DecimalSI")
    return Fraction(dec.u) * Fraction(10) ** dec.e, dec, form


def canonical(value: Any) -> Any:
    """A quantity as the apiserver writes it (resource.Quantity.String); a value that does not parse as given."""
    parsed = quantity(value)
    return canonical_quantity(parsed[1], parsed[2]) if parsed is not None else value


def value_of(fraction: Fraction) -> int:
    """resource.Quantity.Value: rounded up to an integer."""
    return ceil(fraction)


def milli_value_of(fraction: Fraction) -> int:
    """resource.Quantity.MilliValue: rounded up to thousandths."""
    return ceil(fraction * 1000)
