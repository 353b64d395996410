"""What a stage changed in an object: the differences between the object before and after it.

Each change is an operation at a field path (``spec.containers[0].imagePullPolicy``): ``add`` (a field
or list item that was absent), ``remove``, or ``replace``, with the value before and after. The
response lists them per stage, so that a user sees where each field of the admitted object came from.
"""

from __future__ import annotations

import marshal
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
    # plain dicts and lists by their class, their strings and numbers and empty containers without a call
    if value.__class__ is dict:
        out: dict[Any, Any] = {}
        for key, child in value.items():
            kind = child.__class__
            if kind in _LEAVES:
                out[key] = child
            elif kind is dict:
                out[key] = tree_copy(child) if child else {}
            elif kind is list:
                out[key] = tree_copy(child) if child else []
            else:
                out[key] = tree_copy(child)
        return out
    if value.__class__ is list:
        return [child if child.__class__ in _LEAVES else tree_copy(child) for child in value]
    if isinstance(value, dict):
        return {k: tree_copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [tree_copy(v) for v in value]
    return value


# the scalars of JSON, shared by copies and compared where they are met
_LEAVES = frozenset((str, int, float, bool, type(None)))


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


def copy_differences(before: Any, after: Any, path: Path = ()) -> list[tuple[str, Path, Any, Any]]:
    """:func:`differences` for a ``before`` that shares next to nothing with ``after`` (a copy kept before a change,
    which the walk would enter everywhere): a mapping or list equal to its counterpart, and written alike by marshal,
    is passed over in C. The same list, for values made of what documents hold (a bytes object and a bytearray or
    memoryview of the same bytes, which marshal writes alike and ``==`` finds equal, would be passed over)."""
    found: list[tuple[str, Path, Any, Any]] = []
    _differ_copy(before, after, path, found.append)
    return found


def _differ_copy(before: Any, after: Any, path: Path, found: Callable[[tuple[str, Path, Any, Any]], None]) -> None:
    # _differ's walk; only the parts that may hold a difference are entered (see _alike)
    if before is after:
        return
    if before.__class__ is dict and after.__class__ is dict or isinstance(before, dict) and isinstance(after, dict):
        for key, value in after.items():
            if key not in before:
                found((ADD, (*path, key), None, value))
                continue
            old = before[key]
            if old is value:
                continue
            if old.__class__ in _LEAVES and value.__class__ in _LEAVES:
                if old.__class__ is not value.__class__ or old != value:
                    found((REPLACE, (*path, key), old, value))
            elif not _alike(old, value):
                _differ_copy(old, value, (*path, key), found)
        for key, value in before.items():
            if key not in after:
                found((REMOVE, (*path, key), value, None))
        return
    if isinstance(before, list) and isinstance(after, list):
        if len(after) >= len(before):
            for index, value in enumerate(after):
                if index >= len(before):
                    found((ADD, (*path, index), None, value))
                    continue
                old = before[index]
                if old is value:
                    continue
                if old.__class__ in _LEAVES and value.__class__ in _LEAVES:
                    if old.__class__ is not value.__class__ or old != value:
                        found((REPLACE, (*path, index), old, value))
                elif not _alike(old, value):
                    _differ_copy(old, value, (*path, index), found)
            return
        found((REPLACE, path, before, after))
        return
    if type(before) is not type(after) or before != after:
        found((REPLACE, path, before, after))


def _alike(before: Any, after: Any) -> bool:
    """Whether _differ would find nothing between two mappings or lists, known in C. Marshal's version 2 writes no
    references, so its bytes depend on the values alone: alike, they hold the same keys in the same order and leaves
    of the same types and bits. A NaN is still unequal to a copy of itself for _differ; ``==`` sees that too."""
    if before.__class__ not in _CONTAINERS or after.__class__ not in _CONTAINERS:
        return False
    try:
        return before == after and marshal.dumps(before, 2) == marshal.dumps(after, 2)
    except (ValueError, RecursionError):  # not marshal's (a subclass, another object) or nested too deep: walked
        return False


_CONTAINERS = (dict, list)


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
