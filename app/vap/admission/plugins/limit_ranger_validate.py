"""LimitRanger, its Validate pass: the minimums, maximums and limit-to-request ratios of the namespace's
LimitRanges (plugin/pkg/admission/limitranger PodValidateLimitFunc and
PersistentVolumeClaimValidateLimitFunc).

For a Pod being created: each ``type: Container`` item is checked against every container and init
container (``min`` against the request and the limit, ``max`` against the limit and the request,
``maxLimitRequestRatio`` against limit / request); each ``type: Pod`` item against the Pod's requests and
limits summed over its containers (an init container counts as the largest of them; a restartable one,
a sidecar, adds to the containers; from 1.34 the Pod's own spec.resources stand for cpu and memory).
For a PersistentVolumeClaim being created or updated: each ``type: PersistentVolumeClaim`` item's
``min`` and ``max`` against spec.resources.requests. The first LimitRange that is not met refuses the
request with every failure of its items (the apiserver visits a LimitRange's resources in no set order:
the playground goes by resource name).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ...cel.library import version_tuple
from ...cel.library.quantity import Dec
from ...defaulting.core_v1 import canonical_quantity
from ..state import RequestState, StageRecord, Stored
from . import _common as c
from .limit_ranger import MAX_MILLI_VALUE, PLUGIN, limit_ranges, milli_value_of, quantity, supports, value_of

__all__ = ["PLUGIN", "admit", "not_reached"]

POD_LEVEL_RESOURCES_SINCE = (1, 34)
_POD_LEVEL = ("cpu", "memory")


class Q:
    """A quantity as the plugin compares it: its exact value and its text."""

    __slots__ = ("value", "dec", "form")

    def __init__(self, value: Fraction, dec: Dec, form: str) -> None:
        self.value, self.dec, self.form = value, dec, form

    def __str__(self) -> str:
        return canonical_quantity(self.dec, self.form)

    def plus(self, other: Q) -> Q:
        e = min(self.dec.e, other.dec.e)
        dec = Dec(self.dec.u * 10 ** (self.dec.e - e) + other.dec.u * 10 ** (other.dec.e - e), e)
        return Q(self.value + other.value, dec, self.form)


ZERO = Q(Fraction(0), Dec(0, 0), "DecimalSI")


def q(value: Any) -> Q | None:
    parsed = quantity(value)
    return Q(*parsed) if parsed is not None else None


def resource_list(value: Any) -> dict[str, Q]:
    if not isinstance(value, dict):
        return {}
    out = {}
    for name, amount in value.items():
        parsed = q(amount)
        if parsed is not None:
            out[str(name)] = parsed
    return out


def admit(state: RequestState, stored: Stored) -> StageRecord:
    """What the plugin's Validate does with the request."""
    if not supports(state):
        return c.nothing(PLUGIN)
    ranges = limit_ranges(state, stored)
    if not ranges:
        return c.nothing(PLUGIN)
    obj = state.attrs.object
    for limit_range in ranges:
        if state.attrs.kind.kind == "Pod":
            errors = pod_errors(limit_range, obj, version_tuple(stored.version))
        else:
            errors = claim_errors(limit_range, obj)
        if errors:
            return c.refused(PLUGIN, c.forbidden(state.attrs, aggregate(errors)),
                             f"LimitRange {c.name_of(limit_range)} is not met")
    return c.nothing(PLUGIN)


not_reached = c.not_reached_for(PLUGIN)


def aggregate(errors: list[str]) -> str:
    """utilerrors.NewAggregate(errs).Error(): each text once, several in brackets."""
    unique = list(dict.fromkeys(errors))
    return unique[0] if len(unique) == 1 else "[" + ", ".join(unique) + "]"


def _items(limit_range: Any) -> list[dict[str, Any]]:
    limits = c.spec(limit_range).get("limits")
    return [i for i in limits if isinstance(i, dict)] if isinstance(limits, list) else []


def pod_errors(limit_range: Any, pod: Any, version: tuple[int, int]) -> list[str]:
    spec = c.spec(pod)
    errors: list[str] = []
    for item in _items(limit_range):
        kind = item.get("type")
        if kind == "Container":
            for field in ("containers", "initContainers"):
                for container in spec.get(field) or []:
                    if isinstance(container, dict):
                        resources = container.get("resources") if isinstance(container.get("resources"), dict) else {}
                        errors.extend(_check(item, "Container", resource_list(resources.get("requests")),
                                             resource_list(resources.get("limits"))))
        elif kind == "Pod":
            pod_level = version >= POD_LEVEL_RESOURCES_SINCE
            errors.extend(_check(item, "Pod", pod_total(spec, "requests", pod_level),
                                 pod_total(spec, "limits", pod_level)))
    return errors


def claim_errors(limit_range: Any, claim: Any) -> list[str]:
    resources = c.spec(claim).get("resources")
    requests = resource_list(resources.get("requests") if isinstance(resources, dict) else None)
    errors: list[str] = []
    for item in _items(limit_range):
        if item.get("type") != "PersistentVolumeClaim":
            continue
        for name, enforced in _sorted(item.get("min")):
            errors.extend(_min("PersistentVolumeClaim", name, enforced, requests, {}))
        for name, enforced in _sorted(item.get("max")):
            req = requests.get(name)
            r, _, e = _compared(req or ZERO, ZERO, enforced)
            if req is None:
                errors.append(f"maximum {name} usage per PersistentVolumeClaim is {enforced}.  No request is specified")
            elif r > e:
                errors.append(f"maximum {name} usage per PersistentVolumeClaim is {enforced}, but request is {req}")
    return errors


def _sorted(values: Any) -> list[tuple[str, Q]]:
    out = []
    for name, amount in sorted((values or {}).items()) if isinstance(values, dict) else []:
        parsed = q(amount)
        if parsed is not None:
            out.append((str(name), parsed))
    return out


def _compared(request: Q, limit: Q, enforced: Q) -> tuple[int, int, int]:
    """requestLimitEnforcedValues: the three as integers, in thousandths when none is too large for it."""
    values = (value_of(request.value), value_of(limit.value), value_of(enforced.value))
    if all(v <= MAX_MILLI_VALUE for v in values):
        return milli_value_of(request.value), milli_value_of(limit.value), milli_value_of(enforced.value)
    return values


def _check(item: dict[str, Any], kind: str, requests: dict[str, Q], limits: dict[str, Q]) -> list[str]:
    errors: list[str] = []
    for name, enforced in _sorted(item.get("min")):
        errors.extend(_min(kind, name, enforced, requests, limits))
    for name, enforced in _sorted(item.get("max")):
        req, lim = requests.get(name), limits.get(name)
        r, l_, e = _compared(req or ZERO, lim or ZERO, enforced)
        if lim is None:
            errors.append(f"maximum {name} usage per {kind} is {enforced}.  No limit is specified")
        elif l_ > e:
            errors.append(f"maximum {name} usage per {kind} is {enforced}, but limit is {lim}")
        elif req is not None and r > e:
            errors.append(f"maximum {name} usage per {kind} is {enforced}, but request is {req}")
    for name, enforced in _sorted(item.get("maxLimitRequestRatio")):
        req, lim = requests.get(name), limits.get(name)
        r, l_, _ = _compared(req or ZERO, lim or ZERO, enforced)
        prefix = f"{name} max limit to request ratio per {kind} is {enforced}"
        if req is None or r == 0:
            errors.append(f"{prefix}, but no request is specified or request is 0")
            continue
        if lim is None or l_ == 0:
            errors.append(f"{prefix}, but no limit is specified or limit is 0")
            continue
        observed = l_ / r
        shown = observed
        most = float(value_of(enforced.value))
        if value_of(enforced.value) <= MAX_MILLI_VALUE:
            observed *= 1000
            most = float(milli_value_of(enforced.value))
        if observed > most:
            errors.append(f"{prefix}, but provided ratio is {shown:f}")
    return errors


def _min(kind: str, name: str, enforced: Q, requests: dict[str, Q], limits: dict[str, Q]) -> list[str]:
    req, lim = requests.get(name), limits.get(name)
    r, l_, e = _compared(req or ZERO, lim or ZERO, enforced)
    if req is None:
        return [f"minimum {name} usage per {kind} is {enforced}.  No request is specified"]
    if r < e:
        return [f"minimum {name} usage per {kind} is {enforced}, but request is {req}"]
    if lim is not None and l_ < e:
        return [f"minimum {name} usage per {kind} is {enforced}, but limit is {lim}"]
    return []


def pod_total(spec: Any, field: str, pod_level: bool) -> dict[str, Q]:
    """The Pod's requests or limits (the plugin's podRequests and podLimits): its containers' summed, at least
    each init container's (with the sidecars started before it), sidecars added to the containers."""
    total: dict[str, Q] = {}
    for container in spec.get("containers") or []:
        _add(total, _own(container, field))
    sidecars: dict[str, Q] = {}
    inits: dict[str, Q] = {}
    for container in spec.get("initContainers") or []:
        own = _own(container, field)
        if isinstance(container, dict) and container.get("restartPolicy") == "Always":
            _add(total, own)
            _add(sidecars, own)
            current = dict(sidecars)
        else:
            current = {}
            _add(current, own)
            _add(current, sidecars)
        for name, amount in current.items():
            if name not in inits or amount.value > inits[name].value:
                inits[name] = amount
    for name, amount in inits.items():
        if name not in total or amount.value > total[name].value:
            total[name] = amount
    if pod_level:
        resources = spec.get("resources")
        if isinstance(resources, dict):
            for name, amount in resource_list(resources.get(field)).items():
                if name in _POD_LEVEL:
                    total[name] = amount
    return total


def _own(container: Any, field: str) -> dict[str, Q]:
    if not isinstance(container, dict) or not isinstance(container.get("resources"), dict):
        return {}
    return resource_list(container["resources"].get(field))


def _add(into: dict[str, Q], more: dict[str, Q]) -> None:
    for name, amount in more.items():
        into[name] = into[name].plus(amount) if name in into else amount
