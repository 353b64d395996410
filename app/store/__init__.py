"""Shared scenarios: the format, its content address, the YAML file, and the stores.

No Flask here. ``app.shares`` is the web layer over it.
"""

from __future__ import annotations

from typing import Any

from .backends import (
    MIGRATIONS,
    CorruptScenario,
    PostgresStore,
    SchemaTooNew,
    SQLiteStore,
    Store,
    StoreFull,
    StoreUnavailable,
    open_store,
)
from .scenario import (
    DEFAULT_MAX_BYTES,
    FIELDS,
    PANES,
    ScenarioError,
    ScenarioTooLarge,
    canonical,
    check_size,
    is_valid_id,
    normalize,
)
from .yamlfile import API_VERSION, KIND, ScenarioFileError, parse_yaml, render_yaml


def prepare(payload: Any, limit: int = DEFAULT_MAX_BYTES) -> tuple[dict[str, Any], bytes]:
    """Return the normalized scenario and its canonical body; raise ScenarioError or ScenarioTooLarge."""
    scenario = normalize(payload)
    body = canonical(scenario)
    check_size(body, limit)
    return scenario, body


def share(store: Store, payload: Any, limit: int = DEFAULT_MAX_BYTES) -> tuple[str, bool]:
    """Store a scenario unless present; return its id and whether it is new. Nothing is stored on error."""
    _, body = prepare(payload, limit)
    return store.put(body)


__all__ = [
    "API_VERSION", "DEFAULT_MAX_BYTES", "FIELDS", "KIND", "MIGRATIONS", "PANES",
    "CorruptScenario", "PostgresStore", "SQLiteStore", "ScenarioError", "ScenarioFileError",
    "ScenarioTooLarge", "SchemaTooNew", "Store", "StoreFull", "StoreUnavailable",
    "canonical", "check_size", "is_valid_id", "normalize", "open_store", "parse_yaml", "prepare",
    "render_yaml", "share",
]
