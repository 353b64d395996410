"""The system fields of an object's metadata, as the apiserver sets them on create and keeps them on update.

On create the handler first clears what a client may not set (``WipeObjectMetaSystemFields``:
creationTimestamp, uid, deletionTimestamp, deletionGracePeriodSeconds, selfLink); the registry store then
fills ``creationTimestamp`` with the current time and ``uid`` with a new random UUID
(``FillObjectMetaSystemFields``). The playground has no clock and no randomness worth showing: the time is
one fixed instant, :data:`NOW`, and the uid a UUID derived from the object's kind, namespace and name (so
that the same object gets the same uid in every evaluation).

On update, ``BeforeUpdate`` keeps the stored object's generation (the strategy may bump it), its uid when
the request gives none, its creationTimestamp, deletionTimestamp and deletionGracePeriodSeconds; the store
takes the stored resourceVersion when the request gives none (an unconditional update) and refuses a
different one with a 409 Conflict.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Mapping
from typing import Any

# The playground's clock: every creationTimestamp and managedFields time it sets. A fixed instant, so that an
# evaluation's answer depends only on its input.
NOW = "2026-01-01T00:00:00Z"

# what WipeObjectMetaSystemFields clears on create (selfLink is no longer served at all)
WIPED_ON_CREATE = ("creationTimestamp", "uid", "deletionTimestamp", "deletionGracePeriodSeconds", "selfLink")


def generated_uid(api_version: str, kind: str, namespace: str, name: str) -> str:
    """The uid the playground gives a new object: a version-4-shaped UUID derived from its identity."""
    digest = hashlib.sha256(f"{api_version}/{kind}/{namespace}/{name}".encode()).digest()
    return str(uuid.UUID(bytes=digest[:16], version=4))


def metadata(obj: Any) -> Mapping[str, Any]:
    value = obj.get("metadata") if isinstance(obj, Mapping) else None
    return value if isinstance(value, Mapping) else {}


def generation(obj: Any) -> int:
    """An object's metadata.generation (0 when unset, as the Go field reads)."""
    value = metadata(obj).get("generation")
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
