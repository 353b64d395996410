"""Defaulting of custom resources: the ``default`` values of a CustomResourceDefinition's structural schema.

Restates apiextensions-apiserver's pkg/apiserver/schema/defaulting (algorithm.go): for an object, each
property of the schema that has a ``default`` and is absent from it (or null where the schema does not
allow null) gets a copy of that default; then every property present (or, without properties, every
value of an ``additionalProperties`` schema) and every item of an array is defaulted the same way, so
the fields inside a default are defaulted too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..changes import ADD, REPLACE, Change, Path, tree_copy

STAGE = "defaulting: CustomResourceDefinition schema default"


def apply(obj: Mapping[str, Any], root: Mapping[str, Any]) -> tuple[dict[str, Any], list[Change]]:
    """The object with its schema's defaults (a copy; ``obj`` is left as it is), and each default set."""
    out = tree_copy(dict(obj))
    made: list[Change] = []
    _default(out, root, (), made)
    return out, made


def _default(value: Any, schema: Mapping[str, Any], path: Path, made: list[Change]) -> None:
    if not isinstance(schema, Mapping):
        return
    if isinstance(value, dict):
        properties = schema.get("properties")
        if isinstance(properties, Mapping):
            for key, prop in properties.items():
                if not isinstance(prop, Mapping) or "default" not in prop:
                    continue
                if key not in value:
                    value[key] = tree_copy(prop["default"])
                    made.append(Change(STAGE, (*path, key), ADD, None, value[key]))
                elif value[key] is None and not prop.get("nullable"):
                    value[key] = tree_copy(prop["default"])
                    made.append(Change(STAGE, (*path, key), REPLACE, None, value[key]))
            for key, child in value.items():
                if isinstance(properties.get(key), Mapping):
                    _default(child, properties[key], (*path, key), made)
        elif isinstance(schema.get("additionalProperties"), Mapping):
            for key, child in value.items():
                _default(child, schema["additionalProperties"], (*path, key), made)
    elif isinstance(value, list) and isinstance(schema.get("items"), Mapping):
        for index, item in enumerate(value):
            _default(item, schema["items"], (*path, index), made)
