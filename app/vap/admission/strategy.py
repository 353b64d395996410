"""The registry's steps between mutating and validating admission: system fields and the kind's strategy.

Not an admission plugin. After mutating admission the generic registry store fills the system fields of a
new object and calls ``BeforeCreate`` or ``BeforeUpdate`` (k8s.io/apiserver/pkg/registry/rest/create.go,
update.go; k8s.io/apiserver/pkg/registry/generic/registry/store.go), which run the kind's
``PrepareForCreate`` or ``PrepareForUpdate``; validating admission sees the result (:mod:`app.vap.registry`
says what each does).

CREATE: the create handler has cleared the system fields a client may not set (uid, creationTimestamp,
deletionTimestamp, deletionGracePeriodSeconds, selfLink); the store gives the object a uid (generated:
here a UUID derived from the object's kind, namespace and name) and a creationTimestamp (here the
playground's fixed instant, :data:`app.vap.registry.meta.NOW`). A name asked for with generateName was
generated when the request was built (:mod:`app.vap.request`), since the request's name is needed from the
first plugin on.

UPDATE (of the object or of its status subresource): the object keeps the stored object's generation
(bumped by the strategy when the spec changed), uid (when the request gives none), creationTimestamp,
deletionTimestamp and deletionGracePeriodSeconds; a request without a resourceVersion takes the stored
one, and one with a different resourceVersion fails with 409 Conflict before validating admission. The
stored object itself, when pasted without its system fields, is given those the registry gave it when it
was created (uid, creationTimestamp, generation 1 for kinds that track it).

Other subresources (scale, binding, eviction, ...) have their own storage and are left alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from .. import decision, decoding, fast
from ..cel.library import version_tuple
from ..changes import changes
from ..registry import meta, strategies
from .state import ALLOWED, DENIED, NOT_REACHED, NOTHING_TO_DO, RequestState, StageRecord, Stored

PLUGIN = "registry"
ADMISSION_PLUGIN = False

_GENERIC = strategies.Strategy("k8s.io/apiserver/pkg/registry/rest")


def admit(state: RequestState, stored: Stored) -> StageRecord:
    """BeforeCreate or BeforeUpdate on the request's object (for a DELETE, the stored object's creation fields)."""
    attrs = state.attrs
    if not attrs.as_stored or attrs.subresource not in ("", "status"):
        return _NOTHING  # other subresources (scale, binding, eviction, ...) have their own storage
    if attrs.operation == "DELETE" and isinstance(attrs.old_object, dict) and attrs.subresource == "":
        return _deleted(state, stored)
    if attrs.operation not in ("CREATE", "UPDATE") or not isinstance(attrs.object, dict):
        return _NOTHING
    if attrs.operation == "UPDATE" and not isinstance(attrs.old_object, dict):
        return _NOTHING
    key = (attrs.operation, attrs.subresource, attrs.namespace, attrs.namespaced, attrs.name, stored.version,
           stored.schemas.key, id(attrs.old_object),
           _frozen(attrs.user_info) if attrs.kind.kind == "CertificateSigningRequest" else None,
           _has_status(attrs.object, stored))
    kept = _KEPT.get(attrs.object, key)
    if kept is not None and kept[0] is attrs.old_object:
        record = kept[1]
    else:
        record = _admit(state, stored)
        _KEPT.put(attrs.object, (attrs.old_object, record), key)
    if record.attrs is None:
        return record
    return replace(record, attrs=replace(attrs, object=record.attrs.object, old_object=record.attrs.old_object))


_NOTHING = StageRecord(PLUGIN, NOTHING_TO_DO)


def _deleted(state: RequestState, stored: Stored) -> StageRecord:
    """A DELETE: the stored object carries the system fields it was created with."""
    attrs = state.attrs
    old = attrs.old_object
    key = ("DELETE", stored.version, stored.schemas.key)
    kept = _KEPT.get(old, key)
    if kept is None:
        strategy, _ = _strategy_of(old, stored)
        filled, words = _stored_system_fields(old, strategy, version_tuple(stored.version))
        kept = (old, StageRecord(PLUGIN, NOTHING_TO_DO) if filled is old else
                StageRecord(PLUGIN, ALLOWED, tuple(words), attrs=replace(attrs, old_object=filled)))
        _KEPT.put(old, kept, key)
    record = kept[1]
    if record.attrs is None:
        return record
    return replace(record, attrs=replace(attrs, old_object=record.attrs.old_object))


def _frozen(value: Any) -> Any:
    """A hashable form of a JSON value."""
    if isinstance(value, Mapping):
        return tuple(sorted((str(k), _frozen(v)) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return tuple(_frozen(v) for v in value)
    return value


def not_reached(state: RequestState, stored: Stored) -> StageRecord:
    return StageRecord(PLUGIN, NOT_REACHED)


# the stage's record by the object it was given (and what else it read)
_KEPT: fast.ByIdentity[tuple[Any, StageRecord]] = fast.ByIdentity("admission.strategy", 32)


def _strategy_of(obj: Mapping[str, Any], stored: Stored) -> tuple[strategies.Strategy, bool]:
    """The kind's strategy, and whether the object is a custom resource."""
    group = str(obj.get("apiVersion") or "").rpartition("/")[0]
    kind = str(obj.get("kind") or "")
    schema = decoding.kind_schema(obj, stored.schemas)
    if schema is not None and not schema.custom:
        return strategies.lookup(group, kind) or _GENERIC, False
    found = strategies.lookup(group, kind)
    if found is not None and schema is None:
        return found, False
    return strategies.custom_resource(_has_status(obj, stored)), True


def _has_status(obj: Mapping[str, Any], stored: Stored) -> bool:
    """Whether the object's resource has a status subresource (a custom resource's CRD may declare one)."""
    group, _, version = str(obj.get("apiVersion") or "").rpartition("/")
    info = stored.table.by_kind(group, version, str(obj.get("kind") or ""))
    return info is not None and "status" in info.subresources


def _admit(state: RequestState, stored: Stored) -> StageRecord:
    """The stage's work. Its explanation says only what the playground assumed or generated (the response's notes
    list it); what the registry did is in the changes, and in words in ``details["steps"]``."""
    attrs = state.attrs
    version = version_tuple(stored.version)
    before = attrs.object
    obj: dict[str, Any] = dict(before)
    md = dict(meta.metadata(obj))
    obj["metadata"] = md
    strategy, custom = _strategy_of(obj, stored)
    old = attrs.old_object
    assumed: list[str] = []
    steps: list[str] = []
    warnings: tuple[str, ...] = ()
    if attrs.operation == "CREATE":
        label = "registry: BeforeCreate"
        if not attrs.namespaced and md.get("namespace"):
            del md["namespace"]  # EnsureObjectNamespaceMatchesRequestNamespace, in the create handler
            steps.append("metadata.namespace cleared: the kind is cluster-scoped")
        steps.extend(_wipe(md))
        assumed.extend(_create_system_fields(md, obj))
        ctx = strategies.Context(version, attrs.user_info)
        steps.extend(strategies.prepare_for_create(strategy, obj, version, custom, ctx))
        warnings = tuple(ctx.warnings)
        assumed.extend(ctx.notes)
    else:
        label = "registry: BeforeUpdate"
        assert isinstance(old, dict)
        old, old_words = _stored_system_fields(old, strategy, version)
        assumed.extend(old_words)
        conflict = _resource_version(md, meta.metadata(old), attrs, assumed, custom)
        if conflict is not None:
            return StageRecord(PLUGIN, DENIED, (conflict["message"],), status=decision.failure_status(conflict),
                               decided_by=PLUGIN)
        if not attrs.namespaced and md.get("namespace"):
            del md["namespace"]
            steps.append("metadata.namespace cleared: the kind is cluster-scoped")
        md["generation"] = meta.generation(old)
        if "generation" not in meta.metadata(old):
            del md["generation"]
        ctx = strategies.Context(version, attrs.user_info)
        steps.extend(strategies.prepare_for_update(strategy, obj, old, version, custom, attrs.subresource, ctx))
        steps.extend(_update_system_fields(md, meta.metadata(old)))
        assumed.extend(ctx.notes)
    if strategy.note:
        assumed.append(strategy.note)
    made = tuple(changes(label, before, obj))
    details = {"steps": steps}
    if not made and old is attrs.old_object:
        return StageRecord(PLUGIN, NOTHING_TO_DO, tuple(assumed), warnings=warnings, details=details)
    return StageRecord(PLUGIN, ALLOWED, tuple(assumed), warnings=warnings, details=details,
                       attrs=replace(attrs, object=obj, old_object=old), changes=made)


def _wipe(md: dict[str, Any]) -> list[str]:
    """WipeObjectMetaSystemFields, in the create handler."""
    wiped = [key for key in meta.WIPED_ON_CREATE if key in md and key not in ("uid", "creationTimestamp")]
    for key in meta.WIPED_ON_CREATE:
        md.pop(key, None)
    if not wiped:
        return []
    return ["cleared by the create handler, a client cannot set them: " + ", ".join(f"metadata.{k}" for k in wiped)]


def _create_system_fields(md: dict[str, Any], obj: Mapping[str, Any]) -> list[str]:
    """FillObjectMetaSystemFields, with a derived uid and the fixed instant; what it generated, in words."""
    md["uid"] = meta.generated_uid(str(obj.get("apiVersion") or ""), str(obj.get("kind") or ""),
                                   str(md.get("namespace") or ""), str(md.get("name") or ""))
    md["creationTimestamp"] = meta.NOW
    return [f"metadata.uid generated ({md['uid']}: the apiserver generates a random UUID, the playground derives "
            "one from the object's kind, namespace and name)",
            f"metadata.creationTimestamp set to {meta.NOW} (the playground's fixed instant for the current time)"]


def _stored_system_fields(old: dict[str, Any], strategy: strategies.Strategy,
                          version: tuple[int, int]) -> tuple[dict[str, Any], list[str]]:
    """The stored object with the system fields it got when it was created, where it was pasted without them."""
    old_md = meta.metadata(old)
    missing: dict[str, Any] = {}
    if not old_md.get("uid"):
        missing["uid"] = meta.generated_uid(str(old.get("apiVersion") or ""), str(old.get("kind") or ""),
                                            str(old_md.get("namespace") or ""), str(old_md.get("name") or ""))
    if not old_md.get("creationTimestamp"):
        missing["creationTimestamp"] = meta.NOW
    if strategies.tracks_generation(strategy, version) and not meta.generation(old):
        missing["generation"] = 1
    status = None
    if not old.get("status") and strategy.status is not None:  # the kind's status as the create left it
        status = strategies.created_status(strategy, old, str(old.get("apiVersion") or ""), version)
    if not missing and status is None:
        return old, []
    out = dict(old)
    out["metadata"] = {**old_md, **missing}
    fields = [f"metadata.{k}" for k in missing]
    if status is not None:
        out["status"] = status
        fields.append("status")
    return out, ["the stored object is given what the registry set when it was created: " + ", ".join(fields)]


def _resource_version(md: dict[str, Any], old_md: Mapping[str, Any], attrs: Any, words: list[str],
                      custom: bool) -> dict[str, Any] | None:
    """The store's resourceVersion rules: the stored one for an unconditional update, a Conflict for another."""
    new_rv, old_rv = md.get("resourceVersion"), old_md.get("resourceVersion")
    if not new_rv:
        if old_rv:
            md["resourceVersion"] = old_rv
            words.append(f"metadata.resourceVersion {old_rv!r} taken from the stored object: an update without one "
                         "is unconditional" + (" (a custom resource's strategy refuses such an update: the "
                                                "playground takes it as kubectl apply and edit send it, with the "
                                                "stored resourceVersion)" if custom else ""))
        return None
    if old_rv and str(new_rv) != str(old_rv):
        resource = attrs.resource.resource + (f".{attrs.resource.group}" if attrs.resource.group else "")
        details = {k: v for k, v in (("name", attrs.name), ("group", attrs.resource.group),
                                     ("kind", attrs.resource.resource)) if v}
        return {"message": f'Operation cannot be fulfilled on {resource} "{attrs.name}": the object has been '
                           "modified; please apply your changes to the latest version and try again",
                "reason": "Conflict", "details": details, "code": 409}
    return None


def _update_system_fields(md: dict[str, Any], old_md: Mapping[str, Any]) -> list[str]:
    words = []
    if not md.get("uid") and old_md.get("uid"):
        md["uid"] = old_md["uid"]
        words.append("metadata.uid taken from the stored object")
    if old_md.get("creationTimestamp") and md.get("creationTimestamp") != old_md["creationTimestamp"]:
        md["creationTimestamp"] = old_md["creationTimestamp"]
        words.append("metadata.creationTimestamp kept from the stored object")
    if old_md.get("deletionTimestamp") and md.get("deletionTimestamp") != old_md["deletionTimestamp"]:
        md["deletionTimestamp"] = old_md["deletionTimestamp"]
        words.append("metadata.deletionTimestamp kept from the stored object: an update cannot change it")
    if old_md.get("deletionGracePeriodSeconds") is not None and md.get("deletionGracePeriodSeconds") is None:
        md["deletionGracePeriodSeconds"] = old_md["deletionGracePeriodSeconds"]
        words.append("metadata.deletionGracePeriodSeconds kept from the stored object")
    return words
