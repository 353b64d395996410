"""The kind's own validation: what the registry checks after the strategy prepared the object, before
validating admission.

Not an admission plugin. The generic registry store's Create and Update (k8s.io/apiserver/pkg/registry/
generic/registry/store.go) call BeforeCreate or BeforeUpdate (pkg/registry/rest/create.go, update.go),
which, after the strategy's PrepareForCreate or PrepareForUpdate (:mod:`.strategy`), run its Validate or
ValidateUpdate; only an object that passes reaches validating admission. A failure is the 422 Invalid
Status of apierrors.NewInvalid: ``<Kind>[.<group>] "<name>" is invalid: <field errors>`` (several errors
bracketed and comma-separated, each text once), every error also a cause with its field.

What is checked:

* a custom resource whose CustomResourceDefinition is pasted: the CRD version's schema, list-type
  uniqueness and ``x-kubernetes-validations`` rules (:mod:`app.vap.registry.crd_validation`), after its
  metadata (ValidateObjectMetaAccessor with NameIsDNSSubdomain, or on UPDATE the metadata update rules);
* a built-in kind: its metadata, with the kind's name function, and a pod spec's containers
  (:mod:`app.vap.registry.builtin_validation`); the rest of the kind's own validation is not reproduced;
* then, on CREATE when the kind's checks passed, the generic registry's own check that the name is a
  valid path segment; on UPDATE, before the kind's checks, the generic metadata checks and the metadata
  update rules (name, namespace, uid, creationTimestamp immutable, ...).

Custom resources of a kind without a pasted CRD, DELETE and CONNECT requests, subresources other than
``status``, and requests evaluated ``asStored: false`` are not validated.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .. import decision, decoding, fast
from ..cel.library import version_tuple
from ..cel.library.goquote import go_quote
from ..registry import builtin_validation, crd_validation
from ..validation import FieldError, messages_for, name_is_dns_subdomain, path_segment_name
from .state import ALLOWED, DENIED, NOT_REACHED, NOTHING_TO_DO, RequestState, StageRecord, Stored

PLUGIN = "registry validation"
ADMISSION_PLUGIN = False


def admit(state: RequestState, stored: Stored) -> StageRecord:
    """Validate the request's object as its kind's strategy does."""
    attrs = state.attrs
    if not attrs.as_stored or attrs.operation not in ("CREATE", "UPDATE") or attrs.subresource not in ("", "status"):
        return _NOTHING
    obj, old = attrs.object, attrs.old_object
    if not isinstance(obj, dict) or (attrs.operation == "UPDATE" and not isinstance(old, dict)):
        return _NOTHING
    key = (attrs.operation, attrs.subresource, attrs.namespace, attrs.namespaced, stored.version, stored.schemas.key)
    kept = _KEPT.get(obj, key)
    if kept is not None and kept[0] is old:
        return kept[1]
    record = _validated(state, stored)
    _KEPT.put(obj, (old, record), key)
    return record


def not_reached(state: RequestState, stored: Stored) -> StageRecord:
    return StageRecord(PLUGIN, NOT_REACHED)


_NOTHING = StageRecord(PLUGIN, NOTHING_TO_DO)
_VIRTUAL_GROUPS = frozenset({"authentication.k8s.io", "authorization.k8s.io"})
# the stage's record by the object it was given (and the stored object it was compared with)
_KEPT: fast.ByIdentity[tuple[Any, StageRecord]] = fast.ByIdentity("admission.object_validation", 32)


def _metadata(obj: Mapping[str, Any], namespace: str) -> dict[str, Any]:
    """The object's metadata, with the request's namespace where it gives none (the handler sets it from the
    URL before the registry runs)."""
    md = obj.get("metadata")
    md = dict(md) if isinstance(md, Mapping) else {}
    if namespace and not md.get("namespace"):
        md["namespace"] = namespace
    return md


def _validated(state: RequestState, stored: Stored) -> StageRecord:
    attrs = state.attrs
    version = version_tuple(stored.version)
    obj: dict[str, Any] = attrs.object
    old = attrs.old_object if attrs.operation == "UPDATE" else None
    group, _, _ = str(obj.get("apiVersion") or "").rpartition("/")
    kind = str(obj.get("kind") or "")
    schema = decoding.kind_schema(obj, stored.schemas)
    if schema is None:  # a custom resource whose CRD is not pasted (every built-in kind has a schema)
        return _NOTHING
    if group in _VIRTUAL_GROUPS and kind.endswith("Review"):
        return _NOTHING  # TokenReview, SubjectAccessReview, ...: answered by their own storage, never stored
    namespace = attrs.namespace if attrs.namespaced else ""
    md = _metadata(obj, namespace)
    checked: list[str] = []
    warnings: list[str] = []
    notes: list[str] = []
    with messages_for(version):
        errors: list[FieldError] = []
        if old is not None:  # validateCommonFields, before the kind's ValidateUpdate
            old_md = _metadata(old, namespace)
            errors += builtin_validation.object_meta(md, attrs.namespaced, path_segment_name)
            errors += builtin_validation.object_meta_update(md, old_md)
            checked.append("metadata (update)")
        if schema.custom:
            if old is not None:
                errors += builtin_validation.object_meta_update(md, _metadata(old, namespace))
            else:
                errors += builtin_validation.object_meta(md, attrs.namespaced, name_is_dns_subdomain)
                checked.append("metadata")
            found = crd_validation.validate(obj, old, schema.root, version)
            errors += found.errors
            warnings += found.warnings
            notes += found.notes
            checked += found.checked
        else:
            if old is None:
                errors += builtin_validation.object_meta(md, attrs.namespaced,
                                                         builtin_validation.name_function(group, kind))
                checked.append("metadata")
            if (group, kind) in builtin_validation.POD_SPECS and attrs.subresource == "":
                errors += builtin_validation.pod_spec_errors(obj, group, kind)
                checked.append("the pod spec's containers")
        if not errors and old is None:  # BeforeCreate: the generic check, once the kind's passed
            errors += builtin_validation.object_meta(md, attrs.namespaced, path_segment_name)
        if not errors:
            return StageRecord(PLUGIN, ALLOWED, tuple(notes), warnings=tuple(warnings),
                               details={"checked": checked})
        status = invalid_status(kind, group, str(md.get("name") or ""), errors)
    return StageRecord(PLUGIN, DENIED, (status["message"],), status=status, decided_by=PLUGIN,
                       warnings=tuple(warnings), details={"checked": checked, "errors": [e.message for e in errors]})


def invalid_status(kind: str, group: str, name: str, errors: list[FieldError]) -> dict[str, Any]:
    """apierrors.NewInvalid: the 422 Status of a kind's field errors."""
    qualified = f"{kind}.{group}" if group else kind
    head = f"{qualified} {go_quote(name)} is invalid"
    messages = list(dict.fromkeys(e.message for e in errors))
    message = head if not messages else f"{head}: {messages[0]}" if len(messages) == 1 else \
        f"{head}: [{', '.join(messages)}]"
    details = {k: v for k, v in (("name", name), ("group", group), ("kind", kind)) if v}
    details["causes"] = [{"reason": e.type, "message": e.body(), "field": e.field} for e in errors]
    return decision.failure_status({"message": message, "reason": "Invalid", "details": details, "code": 422})
