"""CEL semantics of plain Python values as the engine hands them to our functions."""

from __future__ import annotations

import datetime
import math
from typing import Any

from google.protobuf import duration_pb2, timestamp_pb2

from .errors import NoSuchOverload

_NUMBER = (int, float)


def cel_equal(a: Any, b: Any) -> bool:
    """CEL heterogeneous equality (bool is never equal to a number; NaN never equal)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, _NUMBER) and isinstance(b, _NUMBER):
        if isinstance(a, float) and math.isnan(a) or isinstance(b, float) and math.isnan(b):
            return False
        return a == b
    if isinstance(a, bytes | bytearray) and isinstance(b, bytes | bytearray):
        return bytes(a) == bytes(b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(cel_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        if len(a) != len(b):
            return False
        for k, v in a.items():
            match = [k2 for k2 in b if cel_equal(k, k2)]
            if not match or not cel_equal(v, b[match[0]]):
                return False
        return True
    if type(a) is not type(b) and not (isinstance(a, str) and isinstance(b, str)):
        return False
    return a == b


def _kind(v: Any) -> str:
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, _NUMBER):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, bytes | bytearray):
        return "bytes"
    if isinstance(v, datetime.datetime):
        return "timestamp"
    if isinstance(v, datetime.timedelta):
        return "duration"
    return type(v).__name__


def cel_compare(a: Any, b: Any) -> int:
    """CEL ordering (cel-go Compare); raises NoSuchOverload for values that do not compare."""
    ka, kb = _kind(a), _kind(b)
    if ka != kb or ka not in ("bool", "number", "string", "bytes", "timestamp", "duration"):
        raise NoSuchOverload()
    if ka == "bytes":
        a, b = bytes(a), bytes(b)
    if ka == "number" and (isinstance(a, float) and math.isnan(a) or isinstance(b, float) and math.isnan(b)):
        return 0
    return (a > b) - (a < b)


def to_engine(value: Any) -> Any:
    """A Python value as a Python function may hand it back to the engine: timestamps and durations
    as their protobuf messages (the engine takes no datetime / timedelta), in lists and maps too. A
    container holding neither is handed back as it is, not copied."""
    cls = value.__class__
    if cls in _PLAIN:
        return value
    if cls is list:
        for i, item in enumerate(value):
            converted = to_engine(item)
            if converted is not item:
                return [*value[:i], converted, *(to_engine(v) for v in value[i + 1:])]
        return value
    if cls is dict:
        for key, item in value.items():
            converted = to_engine(item)
            if converted is not item:
                return {k: (converted if k is key else to_engine(v)) for k, v in value.items()}
        return value
    if isinstance(value, datetime.datetime):
        ts = timestamp_pb2.Timestamp()
        ts.FromDatetime(value)
        return ts
    if isinstance(value, datetime.timedelta):
        d = duration_pb2.Duration()
        d.FromTimedelta(value)
        return d
    if isinstance(value, list):
        converted_list = [to_engine(v) for v in value]
        return value if all(a is b for a, b in zip(converted_list, value, strict=True)) else converted_list
    if isinstance(value, dict):
        items = {k: to_engine(v) for k, v in value.items()}
        return value if all(items[k] is value[k] for k in value) else items
    return value


_PLAIN = frozenset((str, int, bool, float, bytes, type(None)))
