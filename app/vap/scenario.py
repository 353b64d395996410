"""The scenario: what the JSON API's request body gives the core, as a typed value.

A scenario is the panes of the page (each YAML or JSON text, or an already-parsed JSON value) and the
Kubernetes version to emulate. :meth:`Scenario.from_json` checks a request body's shape (a wrong one is
the API's 400, :class:`InputError`); the panes' contents are read later, their mistakes reported as
problems of the response.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from .documents import PANES

PaneValue = str | dict[str, Any] | list[Any] | None


class InputError(ValueError):
    """A request body the API refuses (HTTP 400): not an object, or a field of the wrong type."""


def payload_from_body(raw: bytes) -> Any:
    """The JSON API request body as a value (its encoding detected as JSON allows); InputError (400)
    when it is not JSON. The value is then checked by :func:`check_payload`."""
    try:
        payload = json.loads(raw) if raw.strip() else None
    except RecursionError:  # nesting deeper than the JSON decoder goes
        raise InputError("the request body is JSON nested too deeply to read") from None
    except ValueError:  # not JSON, or not in an encoding JSON allows
        payload = None
    if payload is None:
        raise InputError("the request body must be JSON (an object with a `policy` field and the other panes)")
    return payload


def check_payload(payload: Any) -> None:
    """Raise InputError when the body is not an API request (400), naming the field."""
    if not isinstance(payload, Mapping):
        raise InputError("the request body must be a JSON object")
    for pane in PANES:
        value = payload.get(pane)
        if value is not None and not isinstance(value, (str, dict, list)):
            raise InputError(f"field {pane!r} must be YAML or JSON text, or a JSON object or array")
    version = payload.get("kubernetesVersion")
    if version is not None and not isinstance(version, str):
        raise InputError("field 'kubernetesVersion' must be a string such as \"1.34\"")


@dataclass(frozen=True, slots=True)
class Scenario:
    """The panes of one scenario, each as given, and the Kubernetes version asked for (None: the default)."""

    policy: PaneValue = None
    binding: PaneValue = None
    params: PaneValue = None
    object: PaneValue = None
    old_object: PaneValue = None
    namespace: PaneValue = None
    request: PaneValue = None
    kubernetes_version: str | None = None

    @classmethod
    def from_json(cls, payload: Any) -> Scenario:
        """The scenario of a JSON API request body; InputError when the body is not one."""
        check_payload(payload)
        return cls(*(payload.get(pane) for pane in PANES), payload.get("kubernetesVersion"))

    def pane(self, name: str) -> PaneValue:
        """A pane by its API name (``oldObject``, not ``old_object``)."""
        return getattr(self, _ATTRIBUTES[name])

    def to_json(self) -> dict[str, Any]:
        """The JSON API request body of the scenario (the panes given, and the version when asked for)."""
        out: dict[str, Any] = {pane: self.pane(pane) for pane in PANES if self.pane(pane) is not None}
        if self.kubernetes_version is not None:
            out["kubernetesVersion"] = self.kubernetes_version
        return out


_ATTRIBUTES = dict(zip(PANES, (f.name for f in fields(Scenario)), strict=False))
