"""The first stage of the chain: the request's objects as the apiserver decodes and defaults them.

Not an admission plugin: the apiserver's handler decodes the body before admission starts
(:mod:`app.vap.decoding` says how). A value of the wrong type, or an unknown field or a key the body
gives twice under Strict field validation, fails the request with a 400 BadRequest before any plugin
sees it; under Warn each of those fields is a warning. The old object of an UPDATE or DELETE is the
stored object, decoded and defaulted when it was stored.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from .. import decision, decoding
from ..cel.library import version_tuple
from .state import ALLOWED, DENIED, NOT_REACHED, NOTHING_TO_DO, RequestState, StageRecord, Stored

PLUGIN = "decoding"
ADMISSION_PLUGIN = False


def admit(state: RequestState, stored: Stored) -> StageRecord:
    """Decode and default the request's objects."""
    attrs = state.attrs
    if not attrs.as_stored:
        return StageRecord(PLUGIN, NOTHING_TO_DO, ("asStored: false: the policies see the objects as pasted",))
    version = version_tuple(stored.version)
    obj, old = attrs.object, attrs.old_object
    warnings: tuple[str, ...] = ()
    changes: tuple[Any, ...] = ()
    if obj is not None and attrs.operation in ("CREATE", "UPDATE"):
        decoded = decoding.decode(obj, stored.schemas, version)
        if decoded.error is not None:
            return _refused(decoded.error)
        body = attrs.body
        if (decoded.unknown or (body is not None and body.duplicates)) and attrs.field_validation != decoding.IGNORE:
            schema = decoding.kind_schema(obj, stored.schemas)
            found = decoding.strict_findings(schema, decoded.unknown, body) if schema is not None else []
            if found and attrs.field_validation == decoding.STRICT:
                assert schema is not None
                return _refused(decoding.strict_error(obj, schema, found))
            warnings = tuple(strict.message for strict in found)
        obj, changes = decoded.value, decoded.changes
    if old is not None:
        decoded_old = decoding.decode(old, stored.schemas, version)
        if decoded_old.error is None:
            old = decoded_old.value
    if obj is attrs.object and old is attrs.old_object:
        return StageRecord(PLUGIN, NOTHING_TO_DO, warnings=warnings)
    return StageRecord(PLUGIN, ALLOWED, warnings=warnings, attrs=replace(attrs, object=obj, old_object=old),
                       changes=changes)


def not_reached(state: RequestState, stored: Stored) -> StageRecord:
    return StageRecord(PLUGIN, NOT_REACHED)


def _refused(message: str) -> StageRecord:
    status = decision.failure_status({"message": message, "reason": "BadRequest", "code": 400})
    return StageRecord(PLUGIN, DENIED, (message,), status=status, decided_by=PLUGIN)
