"""What the built-in admission plugins share: which requests they see, the objects pasted in the panes that
stand for the cluster's, the Forbidden status a refusal carries, and the copies a stage makes of what it
changes (the request's object is shared between evaluations: it is never changed in place).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any, TypeVar

from ... import decision, fast
from ...changes import changes
from ...request import Attributes
from ..state import ALLOWED, DENIED, NOT_REACHED, NOTHING_TO_DO, RequestState, StageRecord, Stored

T = TypeVar("T")


def acts_on(attrs: Attributes, group: str, resource: str, operations: tuple[str, ...] = ("CREATE",),
            subresources: tuple[str, ...] = ("",)) -> bool:
    """Whether the request is one the plugin looks at: asStored on, the resource (any version), one of the
    operations, one of the subresources, and an object of the request."""
    r = attrs.resource
    return (attrs.as_stored and r.resource == resource and r.group == group and attrs.operation in operations
            and attrs.subresource in subresources and isinstance(attrs.object, dict))


def meta(obj: Any) -> Mapping[str, Any]:
    value = obj.get("metadata") if isinstance(obj, Mapping) else None
    return value if isinstance(value, Mapping) else {}


def spec(obj: Any) -> Mapping[str, Any]:
    value = obj.get("spec") if isinstance(obj, Mapping) else None
    return value if isinstance(value, Mapping) else {}


def annotations(obj: Any) -> Mapping[str, Any]:
    value = meta(obj).get("annotations")
    return value if isinstance(value, Mapping) else {}


def pasted(stored: Stored, api_versions: Iterable[str], kind: str) -> list[dict[str, Any]]:
    """The objects of a kind pasted in the panes (the stored objects of the cluster), in pane order."""
    versions = tuple(api_versions)
    return [o for o in stored.cluster.objects
            if isinstance(o, dict) and o.get("kind") == kind and o.get("apiVersion") in versions]


def namespace_of(obj: Any) -> str:
    """A pasted namespaced object's namespace ('default' when it names none, as kubectl would create it)."""
    return str(meta(obj).get("namespace") or "default")


def name_of(obj: Any) -> str:
    return str(meta(obj).get("name") or "")


def forbidden(attrs: Attributes, message: str) -> dict[str, Any]:
    """The status of admission.NewForbidden(attrs, message): the request's name, else the object's name or
    generateName, else "Unknown"."""
    name = attrs.name or str(meta(attrs.object).get("name") or meta(attrs.object).get("generateName") or "Unknown")
    resource = attrs.resource.resource + (f".{attrs.resource.group}" if attrs.resource.group else "")
    details = {k: v for k, v in (("name", name), ("group", attrs.resource.group),
                                 ("kind", attrs.resource.resource)) if v}
    return decision.failure_status({"message": f'{resource} "{name}" is forbidden: {message}',
                                    "reason": "Forbidden", "details": details, "code": 403})


def refused(plugin: str, status: Mapping[str, Any], *explanation: str) -> StageRecord:
    """The record of a plugin that fails the request with ``status``."""
    return StageRecord(plugin, DENIED, (*explanation, str(status.get("message") or "")), status=status,
                       decided_by=plugin)


_NOTHING: dict[str, StageRecord] = {}


def nothing(plugin: str, *explanation: str) -> StageRecord:
    """The record of a plugin that leaves the request as it is (one shared record when it has nothing to say:
    records are never changed)."""
    if explanation:
        return StageRecord(plugin, NOTHING_TO_DO, explanation)
    record = _NOTHING.get(plugin)
    if record is None:
        record = _NOTHING[plugin] = StageRecord(plugin, NOTHING_TO_DO)
    return record


def changed(plugin: str, state: RequestState, after: dict[str, Any], *explanation: str) -> StageRecord:
    """The record of a plugin that hands the request on with ``after`` as its object."""
    before = state.attrs.object
    made = tuple(changes(plugin, before, after)) if after is not before else ()
    if not made:  # an equal copy: the request goes on with its own object
        return StageRecord(plugin, NOTHING_TO_DO, explanation)
    return StageRecord(plugin, ALLOWED, explanation, attrs=replace(state.attrs, object=after), changes=made)


def not_reached_for(plugin: str) -> Callable[[RequestState, Stored], StageRecord]:
    """A stage's ``not_reached``: one shared record."""
    record = StageRecord(plugin, NOT_REACHED)

    def not_reached(state: RequestState, stored: Stored) -> StageRecord:
        return record

    return not_reached


def with_spec(obj: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A copy of ``obj`` and of its spec, the copy's spec: the rest is shared with ``obj``."""
    out = dict(obj)
    new_spec = dict(spec(obj))
    out["spec"] = new_spec
    return out, new_spec


def with_metadata(obj: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A copy of ``obj`` and of its metadata, the copy's metadata."""
    out = dict(obj)
    new_meta = dict(meta(obj))
    out["metadata"] = new_meta
    return out, new_meta


class Results:
    """A stage's records by the object it was given and what else it read (``key``): a later evaluation of
    the same object in the same cluster gets the same record, and so the same object for the later stages
    (whose own fast paths go by the object's identity)."""

    def __init__(self, name: str, maxsize: int = 32) -> None:
        # (the old object kept with the record: the key holds only its id, which a later object may get)
        self._kept: fast.ByIdentity[tuple[Any, StageRecord]] = fast.ByIdentity(name, maxsize)

    def get(self, state: RequestState, key: Any, work: Callable[[], StageRecord]) -> StageRecord:
        obj, old = state.attrs.object, state.attrs.old_object
        full_key = (key, id(old), state.attrs.operation, state.attrs.name, state.attrs.namespace)
        found = self._kept.get(obj, full_key)
        if found is not None and found[0] is old:
            kept = found[1]
            if kept.attrs is None:
                return kept
            return replace(kept, attrs=replace(state.attrs, object=kept.attrs.object))
        record = work()
        self._kept.put(obj, (old, record), full_key)
        return record


def freeze(value: Any) -> Any:
    """A hashable form of a JSON value (for the keys of :class:`Results`)."""
    if isinstance(value, Mapping):
        return tuple(sorted((str(k), freeze(v)) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return tuple(freeze(v) for v in value)
    return value
