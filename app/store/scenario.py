"""The scenario format and its content address.

A scenario is the JSON API body of ``POST /api/v1/evaluate`` (every pane, the Kubernetes
version, the request attributes and so the operation), plus an optional ``testCases`` list (or
the YAML text of one, as typed in the page's Test cases pane; see :mod:`app.vap.suite`). Two
scenarios that normalize to the same canonical JSON are the same scenario and get the same id.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

from ..vap.documents import PANES

# The panes (the core's, in page order: YAML or JSON text, or an already-parsed JSON value), the Kubernetes
# version and the test cases.
FIELDS = (*PANES, "kubernetesVersion", "testCases")

# Largest canonical JSON of a stored scenario, in bytes (256 KiB).
DEFAULT_MAX_BYTES = 256 * 1024

# An id is a prefix of the lowercase, unpadded base32 of the sha256 of the canonical JSON.
# 12 characters carry 60 bits; on a collision with other content the id grows by 4 characters.
ID_LENGTH = 12
ID_STEP = 4
FULL_ID_LENGTH = 52
ID_PATTERN = re.compile(f"[a-z2-7]{{{ID_LENGTH},{FULL_ID_LENGTH}}}")


class ScenarioError(ValueError):
    """A body that is not a scenario (HTTP 400): not an object, an unknown field, a wrong type."""


class ScenarioTooLarge(ValueError):
    """A scenario whose canonical JSON is over the size limit (HTTP 413)."""

    def __init__(self, size: int, limit: int) -> None:
        super().__init__(
            f"the scenario is {size} bytes once normalized; shared scenarios are limited to {limit} bytes"
            f" ({limit // 1024} KiB): shorten or remove some panes and share again"
        )
        self.size = size
        self.limit = limit


def _text(value: str) -> str:
    # Browsers send textareas with CRLF line ends; YAML reads CR, LF and CRLF alike.
    return value.replace("\r\n", "\n").replace("\r", "\n")


def normalize(payload: Any) -> dict[str, Any]:
    """Return the scenario a body describes, or raise ScenarioError naming the field.

    Empty and null fields are dropped and line ends become LF, so the page (which sends every
    pane) and the API (which may omit some) share the same link for the same scenario.
    """
    if not isinstance(payload, Mapping):
        raise ScenarioError("a scenario must be a JSON object with the fields " + ", ".join(FIELDS))
    unknown = sorted(str(k) for k in payload if k not in FIELDS)
    if unknown:
        raise ScenarioError(f"unknown field {unknown[0]!r}: a scenario has the fields " + ", ".join(FIELDS))
    scenario: dict[str, Any] = {}
    for pane in PANES:
        value = payload.get(pane)
        if value is None or value == "":
            continue
        if isinstance(value, str):
            scenario[pane] = _text(value)
        elif isinstance(value, (dict, list)):
            scenario[pane] = value
        else:
            raise ScenarioError(f"field {pane!r} must be YAML or JSON text, or a JSON object or array")
    version = payload.get("kubernetesVersion")
    if version is not None and not isinstance(version, str):
        raise ScenarioError("field 'kubernetesVersion' must be a string such as \"1.34\"")
    if version:
        scenario["kubernetesVersion"] = version
    tests = payload.get("testCases")
    if tests is not None and not isinstance(tests, (list, str)):
        raise ScenarioError("field 'testCases' must be a list, or the YAML text of one")
    if isinstance(tests, str):
        tests = _text(tests) if tests.strip() else None
    if tests:
        scenario["testCases"] = tests
    if not scenario:
        raise ScenarioError("there is nothing to share: every pane is empty")
    return scenario


def canonical(scenario: Mapping[str, Any]) -> bytes:
    """Return the canonical JSON of a normalized scenario: sorted keys, no spaces, UTF-8."""
    try:
        text = json.dumps(scenario, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except ValueError as exc:  # NaN or infinity inside a parsed pane
        raise ScenarioError(f"the scenario is not valid JSON: {exc}") from None
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        raise ScenarioError("the scenario holds text that is not valid Unicode (a lone surrogate)") from None


def check_size(body: bytes, limit: int = DEFAULT_MAX_BYTES) -> None:
    """Raise ScenarioTooLarge when the canonical JSON is over the limit."""
    if len(body) > limit:
        raise ScenarioTooLarge(len(body), limit)


def digest(body: bytes) -> str:
    """Return the sha256 of a canonical body, as hex."""
    return hashlib.sha256(body).hexdigest()


def candidate_ids(sha256_hex: str) -> Iterator[str]:
    """Yield the ids a body may take, shortest first; the store keeps the first one free or its own."""
    full = base64.b32encode(bytes.fromhex(sha256_hex)).decode("ascii").rstrip("=").lower()
    for length in range(ID_LENGTH, FULL_ID_LENGTH, ID_STEP):
        yield full[:length]
    yield full


def is_valid_id(value: str) -> bool:
    """Tell whether a string has the shape of a scenario id (not whether one is stored)."""
    return ID_PATTERN.fullmatch(value) is not None
