"""What a stage changed in an object: the differences between the object before and after it.

Each change is an operation at a field path (``spec.containers[0].imagePullPolicy``): ``add`` (a field
or list item that was absent), ``remove``, or ``replace``, with the value before and after. The
response lists them per stage, so that a user sees where each field of the admitted object came from.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Path = tuple[str | int, ...]

ADD = "add"
REMOVE = "remove"
REPLACE = "replace"


def tree_copy(value: Any) -> Any:
    """A copy of a JSON-like value: its mappings and lists copied, at every level, each occurrence on its own (a
    value a YAML alias repeats is copied at each place, as decoding JSON gives independent values); the rest
    (strings, numbers, timestamps ...) shared, as nothing changes them."""
    if isinstance(value, dict):
        return {k: tree_copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [tree_copy(v) for v in value]
    return value


def render_path(path: Path) -> str:
    """``("spec", "containers", 0, "image")`` → ``spec.containers[0].image``."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


@dataclass(frozen=True, slots=True)
class Change:
    """One difference a stage made."""

    stage: str  # e.g. "defaulting: SetDefaults_Container"
    path: Path
    op: str  # ADD | REMOVE | REPLACE
    before: Any = None
    after: Any = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"stage": self.stage, "path": render_path(self.path), "op": self.op}
        if self.op != ADD:
            out["before"] = self.before
        if self.op != REMOVE:
            out["after"] = self.after
        return out


def differences(before: Any, after: Any, path: Path = ()) -> list[tuple[str, Path, Any, Any]]:
    """The differences from ``before`` to ``after``, as (op, path, before, after), the smallest ones:
    mappings are compared key by key (keys in ``after``'s order, then removed ones), lists of the same
    length item by item, a list whose length changed as a whole unless items were only appended."""
    found: list[tuple[str, Path, Any, Any]] = []
    _differ(before, after, path, found.append)
    return found


def _differ(before: Any, after: Any, path: Path, found: Callable[[tuple[str, Path, Any, Any]], None]) -> None:
    if before is after:
        return
    if before.__class__ is dict and after.__class__ is dict or isinstance(before, dict) and isinstance(after, dict):
        for key, value in after.items():
            if key not in before:
                found((ADD, (*path, key), None, value))
            else:
                old = before[key]
                if old is not value:
                    _differ(old, value, (*path, key), found)
        for key, value in before.items():
            if key not in after:
                found((REMOVE, (*path, key), value, None))
        return
    if isinstance(before, list) and isinstance(after, list):
        if len(after) >= len(before):
            for index, value in enumerate(after):
                if index < len(before):
                    _differ(before[index], value, (*path, index), found)
                else:
                    found((ADD, (*path, index), None, value))
            return
        found((REPLACE, path, before, after))
        return
    if type(before) is not type(after) or before != after:
        found((REPLACE, path, before, after))


def changes(stage: str, before: Any, after: Any, path: Path = ()) -> list[Change]:
    """The differences from ``before`` to ``after`` as changes made by ``stage``."""
    return [Change(stage, p, op, b, a) for op, p, b, a in differences(before, after, path)]


def json_patch(before: Any, after: Any) -> list[dict[str, Any]]:
    """An RFC 6902 patch taking ``before`` to ``after`` (made from :func:`differences`: ``add`` for a new field or
    an appended item, ``remove``, ``replace``)."""
    out: list[dict[str, Any]] = []
    for op, path, _, value in differences(before, after):
        pointer = "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)
        out.append({"op": op, "path": pointer} if op == REMOVE else {"op": op, "path": pointer, "value": value})
    return out
