"""The values the admission chain hands from stage to stage.

``Stored`` is what the cluster holds when the request arrives (after API validation: a refused
object takes no part); ``RequestState`` is the request as it moves down the chain, with a
``StageRecord`` for each stage it went through. All are frozen: a stage returns a new state.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..changes import Change
from ..dispatcher import Cluster, Loaded
from ..request import Attributes
from ..resources import ResourceTable
from ..schemas import SchemaSet

ALLOWED = "allowed"
DENIED = "denied"
NOTHING_TO_DO = "nothing to do"
NOT_REACHED = "not reached"


@dataclass(frozen=True)
class Stored:
    """What the request meets in the cluster: stored policies, bindings, webhook configurations, Kyverno
    policies, the Namespaces and other objects, and the authorizer answering from the RBAC objects."""

    version: str
    table: ResourceTable
    schemas: SchemaSet
    cluster: Cluster
    policies: tuple[Loaded, ...] = ()
    bindings: tuple[Loaded, ...] = ()
    mutating_policies: tuple[Loaded, ...] = ()
    mutating_bindings: tuple[Loaded, ...] = ()
    hooks: tuple[Any, ...] = ()  # webhooks.Webhook
    kyverno_policies: tuple[Any, ...] = ()  # kyverno.KyvernoPolicy
    param_scope: Callable[[Mapping[str, Any]], bool | None] = field(default=lambda kind: None)
    authorizer: Callable[[dict[str, Any]], Any] | None = None
    # per policy name: its type-checking record, and the API validation message of a refused one
    type_checking: Mapping[str, Any] = field(default_factory=dict)
    refused_policies: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class StageRecord:
    """What one stage (an admission plugin) did with the request."""

    plugin: str
    outcome: str  # ALLOWED | DENIED | NOTHING_TO_DO | NOT_REACHED
    explanation: tuple[str, ...] = ()
    status: Mapping[str, Any] | None = None  # the Status the request fails with, when this stage ends it
    decided_by: str | None = None  # who ended it, as the response's admission.decidedBy says
    warnings: tuple[str, ...] = ()  # in the order the plugin adds them to the request's warning recorder
    audit_annotations: Mapping[str, str] = field(default_factory=dict)
    details: Mapping[str, Any] = field(default_factory=dict)  # the stage's records for the response
    attrs: Attributes | None = None  # the request as the stage hands it on, when it changed it
    changes: tuple[Change, ...] = ()  # what the stage changed in the object

    def to_json(self) -> dict[str, Any]:
        return {"plugin": self.plugin, "outcome": self.outcome, "explanation": list(self.explanation)}


@dataclass(frozen=True)
class RequestState:
    """The request at a point of the chain, and the stages it went through to get there."""

    attrs: Attributes
    stages: tuple[StageRecord, ...] = ()
    ended_by: StageRecord | None = None  # the stage that failed the request, if one did: no later stage sees it

    def then(self, record: StageRecord) -> RequestState:
        ended = self.ended_by if self.ended_by is not None or record.status is None else record
        return RequestState(record.attrs or self.attrs, (*self.stages, record), ended)

    def stage(self, plugin: str) -> StageRecord | None:
        """The last record of a plugin (a mutating plugin has two when the mutating plugins ran again)."""
        for stage in reversed(self.stages):
            if stage.plugin == plugin:
                return stage
        return None
