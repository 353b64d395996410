"""The decision: the Status a failed request carries, its code and reason, and the warning headers.

Restates what kube-apiserver does once an admission plugin fails a request: admission.NewForbidden
(k8s.io/apiserver/pkg/admission/errors.go) wrapping a ValidatingAdmissionPolicy denial with the
resource and name, the code that goes with a validation's reason (policy/validating/dispatcher.go),
the NotFound of a missing Namespace, and the warning recorder that turns the warnings plugins add into
response headers (endpoints/filters/warning.go); and what kubectl prints for the answer (below).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .cel.library.goquote import go_quote

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
    name = _resource_name(attrs)
    reason = first.decision.reason or "Invalid"
    code = reason_to_code(first.decision.reason)
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": f'{resource} "{name}" is forbidden: {inner}',
        "reason": reason,
        "details": forbidden_details(attrs) | {"causes": [{"message": inner}]},
        "code": code,
    }


def _resource_name(attrs: Any) -> str:
    """admission.extractResourceName: the request's name, else the new object's name or generateName, else
    "Unknown"."""
    if attrs.name:
        return str(attrs.name)
    meta = attrs.object.get("metadata") if isinstance(attrs.object, Mapping) else None
    meta = meta if isinstance(meta, Mapping) else {}
    return str(meta.get("name") or meta.get("generateName") or "Unknown")


def forbidden_details(attrs: Any) -> dict[str, Any]:
    """The StatusDetails admission.NewForbidden gives a request: name, group, kind (the resource), each left out
    when empty (omitempty in the apiserver's JSON)."""
    return {k: v for k, v in (("name", _resource_name(attrs)), ("group", attrs.resource.group),
                              ("kind", attrs.resource.resource)) if v}


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


# --------------------------------------------------------------------------------------------
# What kubectl prints for the answer.
#
# What kubectl prints for the apiserver's answer: its warnings, and a refusal (a Status) as its error.
#
# Mirrors k8s.io/kubectl/pkg/cmd/util/helpers.go. ``checkErr`` renders a status that
# k8s.io/apimachinery/pkg/api/errors ``IsInvalid`` (reason Invalid, or an unknown reason with code 422)
# from its details alone: ``The <kind> "<name>" is invalid``, then its causes as ``<field>: <message>``
# (repeated ones once), one cause on the same line, several each on a line of its own after a ``* ``.
# Any other status goes through ``StandardErrorMessage``: ``Error from server (<reason>): <message>``, or
# without a reason ``Error from server: <message>``, and Unauthorized as ``error: You must be logged in to
# the server (<message>)``. Commands given a file (``kubectl apply -f``) also put ``error when creating
# "<file>": `` before such a message; that part, which names the user's file, is not shown.

# apimachinery's knownReasons: a status with one of these reasons is Invalid only if the reason says so.
KNOWN_REASONS = frozenset({
    "Unauthorized", "Forbidden", "NotFound", "AlreadyExists", "Conflict", "Gone", "Invalid", "ServerTimeout",
    "StorageReadError", "Timeout", "TooManyRequests", "BadRequest", "MethodNotAllowed", "NotAcceptable",
    "RequestEntityTooLarge", "UnsupportedMediaType", "InternalError", "Expired", "ServiceUnavailable",
})
# The message admission.NewForbidden gives a refusal: `<resource>[.<group>] "<name>" is forbidden: <why>`.
_FORBIDDEN_MESSAGE = re.compile(r'^(?P<resource>[^\s"]+) "(?P<name>[^"]*)" is forbidden: (?P<why>.*)$', re.S)


def is_invalid(status: Mapping[str, Any]) -> bool:
    """apierrors.IsInvalid: the reason is Invalid, or the code is 422 and the reason is not a known one."""
    reason = status.get("reason") or ""
    return reason == "Invalid" or (reason not in KNOWN_REASONS and status.get("code") == 422)


def kubectl_error(status: Mapping[str, Any]) -> str:
    """What kubectl prints for a refusal: the apiserver's Status (a mapping, as in the API response)."""
    message = str(status.get("message") or "")
    if not is_invalid(status):
        reason = status.get("reason") or ""
        if reason == "Unauthorized":
            return f"error: You must be logged in to the server ({message})"
        if reason:
            return f"Error from server ({reason}): {message}"
        return f"Error from server: {message}"
    text = "The request is invalid"
    details = _details(status)
    if details is None:
        return text
    if details.get("kind") or details.get("name"):
        text = f"The {details.get('kind') or ''} {go_quote(str(details.get('name') or ''))} is invalid"
    causes = _cause_lines(details.get("causes"))
    if not causes:
        return text
    if len(causes) == 1:
        return f"{text}: {causes[0]}"
    # MultilineError: the prefix (with its ": ") on a line of its own, then one line a cause
    return "\n".join([f"{text}: ", *(f"* {cause}" for cause in causes)])


def kubectl_output(response: Mapping[str, Any]) -> str:
    """What kubectl prints for an API response: a ``Warning:`` line a warning, then the error of a refusal."""
    lines = [f"Warning: {warning}" for warning in response.get("warnings") or []]
    status = response.get("status")
    if not response.get("allowed", True) and isinstance(status, Mapping) and status:
        lines.append(kubectl_error(status))
    return "\n".join(lines)


def _details(status: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The status's details; for a status given without them whose message is the apiserver's refusal of an
    admission plugin (``<resource> "<name>" is forbidden: <why>``), the details the apiserver sends with it
    (the resource as kind, the name, the reason as the one cause)."""
    details = status.get("details")
    if isinstance(details, Mapping):
        return details
    match = _FORBIDDEN_MESSAGE.match(str(status.get("message") or ""))
    if match is None:
        return None
    return {"kind": match["resource"].split(".")[0], "name": match["name"], "causes": [{"message": match["why"]}]}


def _cause_lines(causes: Any) -> list[str]:
    """``<field>: <message>`` a cause, each text once (kubectl's statusCausesToAggrError)."""
    lines: list[str] = []
    for cause in causes or []:
        if not isinstance(cause, Mapping):
            continue
        line = f"{cause.get('field') or ''}: {cause.get('message') or ''}"
        if line not in lines:
            lines.append(line)
    return lines
