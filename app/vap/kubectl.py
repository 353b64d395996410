"""What kubectl prints for the apiserver's answer: its warnings, and a refusal (a Status) as its error.

Mirrors k8s.io/kubectl/pkg/cmd/util/helpers.go. ``checkErr`` renders a status that
k8s.io/apimachinery/pkg/api/errors ``IsInvalid`` (reason Invalid, or an unknown reason with code 422)
from its details alone: ``The <kind> "<name>" is invalid``, then its causes as ``<field>: <message>``
(repeated ones once), one cause on the same line, several each on a line of its own after a ``* ``.
Any other status goes through ``StandardErrorMessage``: ``Error from server (<reason>): <message>``, or
without a reason ``Error from server: <message>``, and Unauthorized as ``error: You must be logged in to
the server (<message>)``. Commands given a file (``kubectl apply -f``) also put ``error when creating
"<file>": `` before such a message; that part, which names the user's file, is not shown.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .cel.library.goquote import go_quote

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


def error_message(status: Mapping[str, Any]) -> str:
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


def output(response: Mapping[str, Any]) -> str:
    """What kubectl prints for an API response: a ``Warning:`` line a warning, then the error of a refusal."""
    lines = [f"Warning: {warning}" for warning in response.get("warnings") or []]
    status = response.get("status")
    if not response.get("allowed", True) and isinstance(status, Mapping) and status:
        lines.append(error_message(status))
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
