"""Small helpers the group modules share to read and fill JSON values as Go's defaulting sees them.

A Go pointer or slice that is nil, and a string that is empty, are "unset"; in the decoded JSON
that is a missing key or an explicit ``null`` (and ``""`` for strings). A nested struct that Go
holds by value always exists, so filling a field inside it creates the mapping when it is absent.
"""

from __future__ import annotations

from typing import Any


def unset(value: dict[str, Any], key: str) -> bool:
    """Whether a pointer field is nil: absent or ``null``."""
    return value.get(key) is None


def empty(value: dict[str, Any], key: str) -> bool:
    """Whether a string, slice or map field has length zero (absent, ``null``, ``""``, ``[]``, ``{}``)."""
    found = value.get(key)
    return found is None or (isinstance(found, str | list | dict) and len(found) == 0)


def struct(value: dict[str, Any], key: str) -> dict[str, Any] | None:
    """The mapping of a struct field held by value, created when absent or ``null``.

    None when the field holds something that is not a mapping (left for validation to refuse).
    """
    found = value.get(key)
    if found is None:
        found = value[key] = {}
    return found if isinstance(found, dict) else None


def mapping(value: dict[str, Any], key: str) -> dict[str, Any] | None:
    """The mapping of a pointer field, or None when it is nil (or not a mapping)."""
    found = value.get(key)
    return found if isinstance(found, dict) else None
