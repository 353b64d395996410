"""The decision: the Status a failed request carries, its code and reason, and the warning headers.

Restates what kube-apiserver does once an admission plugin fails a request: admission.NewForbidden
(k8s.io/apiserver/pkg/admission/errors.go) wrapping a ValidatingAdmissionPolicy denial with the
resource and name, the code that goes with a validation's reason (policy/validating/dispatcher.go),
the NotFound of a missing Namespace, and the warning recorder that turns the warnings plugins add into
response headers (endpoints/filters/warning.go). How kubectl prints the result is :mod:`kubectl`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

_REASON_CODES = {"Forbidden": 403, "Unauthorized": 401, "RequestEntityTooLarge": 413, "Invalid": 422}
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def failure_status(error: Mapping[str, Any]) -> dict[str, Any]:
    """A request error (``code``, ``reason``, ``message``, ``details``) as the Status object returned."""
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", **error}


def namespace_not_found(name: str) -> dict[str, Any]:
    """The NotFound status of a Namespace lookup that failed (apierrors.NewNotFound)."""
    return {"code": 404, "reason": "NotFound", "message": f'namespaces "{name}" not found',
            "details": {"name": name, "kind": "namespaces"}}


def reason_to_code(reason: str | None) -> int:
    """The HTTP code of a validation's reason (Invalid when it gives none)."""
    return _REASON_CODES.get(reason or "Invalid", 422)


def forbidden_status(first: Any, attrs: Any) -> dict[str, Any]:
    """The Status of a request a ValidatingAdmissionPolicy denies, from its first denial (``policy``,
    ``binding`` and ``decision``), as admission.NewForbidden forms it for the request's ``attrs``."""
    if first.binding is not None:
        inner = (f"ValidatingAdmissionPolicy '{first.policy}' with binding '{first.binding}' "
                 f"denied request: {first.decision.message}")
    else:
        inner = f"ValidatingAdmissionPolicy '{first.policy}' denied request: {first.decision.message}"
    resource = attrs.resource.resource + (f".{attrs.resource.group}" if attrs.resource.group else "")
    name = attrs.name
    if not name:  # admission.extractResourceName: the new object's name or generateName, else "Unknown"
        meta = attrs.object.get("metadata") if isinstance(attrs.object, Mapping) else None
        meta = meta if isinstance(meta, Mapping) else {}
        name = str(meta.get("name") or meta.get("generateName") or "Unknown")
    reason = first.decision.reason or "Invalid"
    code = reason_to_code(first.decision.reason)
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": f'{resource} "{name}" is forbidden: {inner}',
        "reason": reason,
        # StatusDetails fields are omitempty in the apiserver's JSON
        "details": {k: v for k, v in (("name", name), ("group", attrs.resource.group),
                                      ("kind", attrs.resource.resource)) if v}
        | {"causes": [{"message": inner}]},
        "code": code,
    }


# The apiserver's warning recorder (endpoints/filters/warning.go): once the texts written exceed
# 4096 runes, every warning (earlier ones replayed) is cut to 256 runes, and no more are added once
# the cut texts reach 4096 runes again.
_TRUNCATE_AT_TOTAL_RUNES = 4096
_TRUNCATE_ITEM_RUNES = 256


def _header_text_ok(text: str) -> bool:
    """net.NewWarningHeader refuses a text with a control character (Unicode category Cc)."""
    return not _CONTROL.search(text)


def finish_warnings(warnings: list[str]) -> list[str]:
    """Replay the warnings through the apiserver's recorder: dedupe, drop unwritable ones, truncate."""
    recorded: set[str] = set()
    ordered: list[str] = []
    headers: list[str] = []
    written = 0
    truncating = False
    for text in warnings:
        if not text or (truncating and written >= _TRUNCATE_AT_TOTAL_RUNES) or text in recorded:
            continue
        recorded.add(text)
        ordered.append(text)
        if truncating and len(text) > _TRUNCATE_ITEM_RUNES:
            text = text[:_TRUNCATE_ITEM_RUNES]
        if not _header_text_ok(text):
            continue
        if written + len(text) <= _TRUNCATE_AT_TOTAL_RUNES or truncating:
            written += len(text)
            headers.append(text)
            continue
        truncating = True
        written = 0
        headers = []
        for earlier in ordered:
            cut = earlier[:_TRUNCATE_ITEM_RUNES]
            if _header_text_ok(cut):
                written += len(cut)
                headers.append(cut)
    return headers
