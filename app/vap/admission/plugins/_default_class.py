"""The default class of a kind, as the DefaultStorageClass and DefaultIngressClass plugins find it: the
classes annotated as the default, the most recently created first (by creationTimestamp), then by name."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from . import _common as c


def _created(obj: Any) -> float:
    stamp = c.meta(obj).get("creationTimestamp")
    if isinstance(stamp, str):
        try:
            return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
        except ValueError:
            return 0.0
    return 0.0


def default_class(classes: list[dict[str, Any]], annotations: tuple[str, ...]) -> dict[str, Any] | None:
    """Of the classes with one of the annotations set to "true", the newest (then the first by name)."""
    marked = [k for k in classes if any(c.annotations(k).get(a) == "true" for a in annotations)]
    if not marked:
        return None
    return min(marked, key=lambda k: (-_created(k), c.name_of(k)))
