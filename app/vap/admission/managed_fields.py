"""The field manager: ``metadata.managedFields`` as the create and update handlers record it.

Not an admission plugin: kube-apiserver's create and update handlers run the field manager on the decoded
object before mutating admission (k8s.io/apiserver/pkg/endpoints/handlers/create.go, update.go), so every
admission plugin sees the entry of the request's manager (:mod:`app.vap.registry.fieldsets` says how it is
formed).

The manager is the request's ``fieldManager`` (CreateOptions/UpdateOptions; the Request pane's
``options.fieldManager``). Without one the apiserver takes the client's user agent; the playground takes
the request as kubectl sends it: ``kubectl-create`` for a CREATE (``kubectl create``) and
``kubectl-client-side-apply`` for an UPDATE (``kubectl apply`` on an existing object). Both are recorded
with operation ``Update`` (only a server-side apply records ``Apply``), with the time
:data:`app.vap.registry.meta.NOW`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from .. import decoding, fast
from ..changes import changes
from ..registry import fieldsets, meta
from .state import ALLOWED, NOT_REACHED, NOTHING_TO_DO, RequestState, StageRecord, Stored

PLUGIN = "field manager"
ADMISSION_PLUGIN = False

DEFAULT_MANAGERS = {"CREATE": "kubectl-create", "UPDATE": "kubectl-client-side-apply"}


def manager_of(attrs: Any) -> tuple[str, bool]:
    """The request's field manager, and whether the Request pane named it."""
    options = attrs.options if isinstance(attrs.options, Mapping) else {}
    given = options.get("fieldManager")
    if isinstance(given, str) and given:
        return given, True
    return DEFAULT_MANAGERS[attrs.operation], False


def admit(state: RequestState, stored: Stored) -> StageRecord:
    """Record the request's manager in the object's managedFields."""
    attrs = state.attrs
    if (not attrs.as_stored or attrs.operation not in ("CREATE", "UPDATE") or not isinstance(attrs.object, dict)
            or attrs.subresource not in ("", "status")
            or (attrs.operation == "UPDATE" and not isinstance(attrs.old_object, dict))):
        return _NOTHING
    manager, named = manager_of(attrs)
    info = stored.table.by_kind(attrs.kind.group, attrs.kind.version, attrs.kind.kind)
    has_status = info is not None and "status" in info.subresources  # the strategy resets the status
    key = (attrs.operation, attrs.subresource, manager, stored.version, stored.schemas.key, id(attrs.old_object),
           has_status)
    kept = _KEPT.get(attrs.object, key)
    if kept is not None and kept[0] is attrs.old_object:
        record = kept[1]
    else:
        record = _admit(state, stored, manager, named, has_status)
        _KEPT.put(attrs.object, (attrs.old_object, record), key)
    if record.attrs is None:
        return record
    return replace(record, attrs=replace(attrs, object=record.attrs.object, old_object=record.attrs.old_object))


_NOTHING = StageRecord(PLUGIN, NOTHING_TO_DO)


def not_reached(state: RequestState, stored: Stored) -> StageRecord:
    return StageRecord(PLUGIN, NOT_REACHED)


_KEPT: fast.ByIdentity[tuple[Any, StageRecord]] = fast.ByIdentity("admission.managed_fields", 32)


def _without_managed(obj: Any) -> Any:
    md = meta.metadata(obj)
    if "managedFields" not in md:
        return obj
    out = dict(obj)
    out["metadata"] = {k: v for k, v in md.items() if k != "managedFields"}
    return out


def _admit(state: RequestState, stored: Stored, manager: str, named: bool, has_status: bool) -> StageRecord:
    attrs = state.attrs
    obj = attrs.object
    schema = decoding.kind_schema(obj, stored.schemas)
    root = schema.root if schema is not None else {}
    schemas = stored.schemas if schema is not None else None
    zero = fieldsets.zero_object(schema, stored.schemas)
    new = fieldsets.with_zero(_without_managed(obj), zero)
    # the managers the request's object gives (a client may set them), else the stored object's
    managers = fieldsets.decode(meta.metadata(obj).get("managedFields"))
    old = attrs.old_object
    words: list[str] = []
    if attrs.operation == "CREATE":
        live: Any = zero
    else:
        live = fieldsets.with_zero(_without_managed(old), zero)
        stored_managers = fieldsets.decode(meta.metadata(old).get("managedFields"))
        if not stored_managers:  # pasted without them: the entry its creation by kubectl apply left
            stored_managers, old = _created_by_apply(old, live, zero, root, schemas, has_status)
            words.append(f"the stored object has no metadata.managedFields: it is taken as created by kubectl apply "
                         f"(manager {DEFAULT_MANAGERS['UPDATE']!r}, owning every field it has)")
        managers = managers or stored_managers
    if attrs.subresource == "status":
        reset: list[tuple[str, ...]] = [("f:spec",)]
    else:
        reset = [("f:status",)] if has_status else []
    identity = (manager, "Update", str(obj.get("apiVersion") or ""), attrs.subresource)
    if fast.on and attrs.operation == "CREATE" and not managers:
        # the request's manager is the only one: its tree is made in one walk
        fields = fieldsets.created_fields(live, new, root, schemas, {path[0] for path in reset},
                                          keep=schema is not None and not schema.custom)
        entries = [] if fields is None else [fieldsets.entry(identity, fields, meta.NOW)]
    else:
        added, modified, removed = fieldsets.compare(live, new, root, schemas)
        after_managers = fieldsets.update(managers, identity, added, modified, removed, reset, meta.NOW)
        entries = fieldsets.encode(after_managers)
    out = dict(obj)
    md = dict(meta.metadata(obj))
    out["metadata"] = md
    if entries:
        md["managedFields"] = entries
    else:
        md.pop("managedFields", None)
    # the explanation says what the playground assumed (the response's notes list it)
    if not named:
        words.insert(0, f"metadata.managedFields: the manager is {manager!r}, as kubectl sends it for "
                        f"{'an' if attrs.operation == 'UPDATE' else 'a'} {attrs.operation} "
                        f"(options.fieldManager names another); its time is {meta.NOW}, "
                        "the playground's fixed instant")
    made = tuple(changes(PLUGIN, obj, out))
    if not made and old is attrs.old_object:
        return StageRecord(PLUGIN, NOTHING_TO_DO, tuple(words))
    return StageRecord(PLUGIN, ALLOWED, tuple(words), attrs=replace(attrs, object=out, old_object=old), changes=made)


def _created_by_apply(old: dict[str, Any], live: Any, zero: Any, root: Any, schemas: Any, has_status: bool
                      ) -> tuple[dict[tuple[str, str, str, str], tuple[set[Any], Any]], dict[str, Any]]:
    """The managers of a stored object created by ``kubectl apply`` (every field it has, but the status the
    strategy resets), and the object with their entry."""
    added, _, _ = fieldsets.compare(zero, live, root, schemas)
    identity = (DEFAULT_MANAGERS["UPDATE"], "Update", str(old.get("apiVersion") or ""), "")
    managers = fieldsets.update({}, identity, added, set(), set(), [("f:status",)] if has_status else [], meta.NOW)
    entries = fieldsets.encode(managers)
    if not entries:
        return managers, old
    filled = dict(old)
    filled["metadata"] = {**meta.metadata(old), "managedFields": entries}
    return managers, filled
