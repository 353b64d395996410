"""An expected object: the fields a test names, compared with the object admission stored.

This restates no upstream file. kube-apiserver stores more than a test author writes (uid, creationTimestamp,
managedFields, the defaults, what the built-in plugins add), so an expected object is read as a subset of the
admitted one:

- a mapping matches when every key it gives matches the object's value under that key; ``null`` means the key
  must be absent (or null);
- a list matches when its items match items of the object's list in the same order, each a distinct one; items
  the object has in addition (the service account's volume, a defaulted toleration) do not matter;
- any other value matches an equal value (``1`` and ``1.0`` are equal, ``true`` and ``1`` are not).

:func:`differences` says where and how the object differs, one sentence per place, naming the field path as the
playground writes paths (``spec.initContainers[0].image``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

# Most differences reported for one comparison: the first ones say enough.
MAX_DIFFERENCES = 5


def _shown(value: Any, limit: int = 80) -> str:
    text = json.dumps(value, sort_keys=False, separators=(", ", ": "), ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _key_path(path: str, key: str) -> str:
    plain = key.replace("_", "").replace("-", "").isalnum() and not key[:1].isdigit()
    return (f"{path}.{key}" if path else key) if plain else f"{path}[{json.dumps(key)}]"


def _same_scalar(expected: Any, actual: Any) -> bool:
    if isinstance(expected, bool) or isinstance(actual, bool):
        return isinstance(expected, bool) and isinstance(actual, bool) and expected == actual
    return expected == actual


def _matches(expected: Any, actual: Any) -> bool:
    return not _differences(expected, actual, "", limit=1)


def _list_differences(expected: list[Any], actual: Any, path: str, limit: int) -> list[str]:
    if not isinstance(actual, list):
        return [f"{path}: expected a list, got {_shown(actual)}"]
    start = 0
    for i, item in enumerate(expected):
        found = next((j for j in range(start, len(actual)) if _matches(item, actual[j])), None)
        if found is not None:
            start = found + 1
            continue
        # say why with the item at the same place, if there is one; else that the list has no such item
        if i < len(actual):
            return _differences(item, actual[i], f"{path}[{i}]", limit)
        return [f"{path}: no item matches {_shown(item)} (expected item {i + 1}; the list has {len(actual)} "
                f"item{'' if len(actual) == 1 else 's'})"]
    return []


def _differences(expected: Any, actual: Any, path: str, limit: int) -> list[str]:
    where = path or "the object"
    if isinstance(expected, Mapping):
        if not isinstance(actual, Mapping):
            return [f"{where}: expected a mapping, got {_shown(actual)}"]
        out: list[str] = []
        for key, value in expected.items():
            if len(out) >= limit:
                break
            sub = _key_path(path, str(key))
            if value is None:
                if actual.get(key) is not None:
                    out.append(f"{sub}: expected no value, got {_shown(actual[key])}")
            elif key not in actual:
                out.append(f"{sub}: missing (expected {_shown(value)})")
            else:
                out.extend(_differences(value, actual[key], sub, limit - len(out)))
        return out[:limit]
    if isinstance(expected, list):
        return _list_differences(expected, actual, where, limit)
    if not _same_scalar(expected, actual):
        return [f"{where}: expected {_shown(expected)}, got {_shown(actual)}"]
    return []


def differences(expected: Mapping[str, Any], actual: Any) -> list[str]:
    """Where ``actual`` does not hold what ``expected`` gives (empty when it does); at most MAX_DIFFERENCES."""
    if actual is None:
        return ["there is no object (a DELETE request, or the request was not evaluated)"]
    return _differences(expected, actual, "", MAX_DIFFERENCES)


def describe(expected: Mapping[str, Any], limit: int = 100) -> str:
    """The expected object in a few words, for a test's "expected" column."""
    return "object includes " + _shown(dict(expected), limit)
