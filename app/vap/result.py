"""The response: what the core answers for a scenario, as a typed value, and its JSON form.

The JSON form is the API's response (docs/api.md): the decision (``allowed``, ``status``), the
``Warning`` headers, the audit annotations, a record per policy, binding and param, the webhooks and
Kyverno, the problems found in the panes, the request as the policies saw it, notes, and, when a
webhook configuration or a Kyverno policy is given, the admission chain's stages.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .changes import Change
from .documents import Problem


@dataclass(frozen=True, slots=True)
class Response:
    """The answer for one scenario. ``evaluated`` is False when a pane could not be read or no request
    could be made: nothing was evaluated, and the response says only what is wrong."""

    kubernetes_version: str
    problems: tuple[Problem, ...] = ()
    rejected: tuple[Mapping[str, Any], ...] = ()
    evaluated: bool = False
    allowed: bool = True
    status: Mapping[str, Any] | None = None
    warnings: tuple[str, ...] = ()
    audit_annotations: Mapping[str, str] = field(default_factory=dict)
    policies: tuple[Mapping[str, Any], ...] = ()
    webhooks: tuple[Mapping[str, Any], ...] = ()
    kyverno: tuple[Mapping[str, Any], ...] = ()
    request: Mapping[str, Any] | None = None
    object: Any = None
    old_object: Any = None
    notes: tuple[str, ...] = ()
    changes: tuple[Change, ...] = ()  # from the pasted object to the one admission saw, stage by stage
    # a record per MutatingAdmissionPolicy, binding, param and mutation, like ``policies``
    mutating_policies: tuple[Mapping[str, Any], ...] = ()
    patch: tuple[Mapping[str, Any], ...] | None = None  # RFC 6902, from the pasted object to the admitted one
    admission: Mapping[str, Any] | None = None  # the chain's stages, when webhooks or Kyverno take part

    def to_json(self) -> dict[str, Any]:
        """The JSON API response."""
        out: dict[str, Any] = {
            "allowed": self.allowed,
            "status": self.status,
            "warnings": list(self.warnings),
            "auditAnnotations": dict(self.audit_annotations),
            "policies": list(self.policies),
            "problems": [p.to_json() for p in self.problems],
            "kubernetesVersion": self.kubernetes_version,
            "rejected": list(self.rejected),
            "webhooks": list(self.webhooks),
            "kyverno": list(self.kyverno),
            "request": self.request,
        }
        if self.evaluated:
            out["object"] = self.object
            out["oldObject"] = self.old_object
        out["notes"] = list(self.notes)
        if self.evaluated:
            out["changes"] = [change.to_json() for change in self.changes]
            out["mutatingPolicies"] = list(self.mutating_policies)
            out["patch"] = list(self.patch) if self.patch is not None else None
        if self.admission is not None:
            out["admission"] = dict(self.admission)
        return out
