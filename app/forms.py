"""The page's form and the scenario it describes.

The form has a field per pane (named as the JSON API names it), the Kubernetes version, the operation
chosen over the Request pane's, and the Test cases pane. This module reads a submitted form into those
values, makes them the JSON API body or the scenario to share, and makes a stored scenario the values
again. It imports no Flask: a form is any mapping with ``get``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from .vap import documents, suite
from .vap.request import OPERATIONS

# Panes the page shows folded until opened.
FOLDED = frozenset({"oldObject", "namespace", "request"})


def pane_label(name: str) -> str:
    """A pane's label on the page, from its field name: ``oldObject`` is "Old object"."""
    return re.sub(r"(?<=[a-z])([A-Z])", lambda m: " " + m[1].lower(), name).capitalize()


# (form field = API field, label, folded) in page order: the core's panes.
PANES: tuple[tuple[str, str, bool], ...] = tuple((name, pane_label(name), name in FOLDED)
                                                 for name in documents.PANES)
PANE_LABELS = {name: label for name, label, _ in PANES}
_OPERATION_LINE = re.compile(r"^operation[ \t]*:.*$", re.MULTILINE)


def form_values(form: Mapping[str, Any]) -> dict[str, str]:
    """Read the page's fields from a submitted form, every one as text."""
    values = {name: form.get(name, "") for name in documents.PANES}
    values["kubernetesVersion"] = form.get("kubernetesVersion", "")
    values["operation"] = form.get("operation", "")
    values["testCases"] = form.get("testCases", "")
    return values


def with_operation(text: str, operation: str) -> str:
    """Set the operation in the Request pane text, keeping every other line where it was."""
    if not operation:
        return text
    if text.lstrip().startswith("{"):
        try:
            attributes = json.loads(text)
        except ValueError:
            attributes = None
        if isinstance(attributes, dict):
            return json.dumps({**attributes, "operation": operation})
    if _OPERATION_LINE.search(text):
        return _OPERATION_LINE.sub(f"operation: {operation}", text, count=1)
    separator = "" if not text or text.endswith("\n") else "\n"
    return f"{text}{separator}operation: {operation}\n"


def payload_from(values: Mapping[str, str]) -> dict[str, Any]:
    """Build the JSON API body from the form values."""
    payload: dict[str, Any] = {name: values.get(name, "") for name in documents.PANES}
    if values.get("operation") in OPERATIONS:
        payload["request"] = with_operation(payload["request"], values["operation"])
    if values.get("kubernetesVersion"):
        payload["kubernetesVersion"] = values["kubernetesVersion"]
    return payload


def scenario_payload(values: Mapping[str, str]) -> dict[str, Any]:
    """The scenario the form describes, for sharing and export: the API body and the test cases."""
    payload = payload_from(values)
    if values.get("testCases", "").strip():
        payload["testCases"] = values["testCases"]
    return payload


def scenario_values(scenario: Mapping[str, Any]) -> dict[str, str]:
    """Return the page's field values for a stored or imported scenario."""
    values = {name: _pane_text(scenario.get(name)) for name in documents.PANES}
    values["kubernetesVersion"] = str(scenario.get("kubernetesVersion") or "")
    values["operation"] = ""
    values["testCases"] = cases_text(scenario.get("testCases"))
    return values


def cases_text(value: Any) -> str:
    """Return test cases as the text of the Test cases pane (a stored list becomes YAML)."""
    if value is None or value == "" or value == []:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        # stored as canonical JSON, with sorted keys: put them back in the order people write them
        order = {k: i for i, k in enumerate(suite.CASE_FIELDS)}
        value = [dict(sorted(c.items(), key=lambda kv: order.get(kv[0], len(order)))) if isinstance(c, dict) else c
                 for c in value]
    return suite.dump_yaml(value)


def _pane_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, indent=2)
