"""Scheme defaults of flowcontrol.apiserver.k8s.io/v1 (served from 1.29): FlowSchema and PriorityLevelConfiguration.

Restates ``pkg/apis/flowcontrol/v1/defaults.go``. ``matchingPrecedence`` and the queuing numbers
are plain integers upstream, so a zero is as good as unset and is replaced; a limited level's
``nominalConcurrencyShares`` is a pointer in v1, so an explicit 0 is kept (only absent or null
becomes 30). The earlier beta versions are not restated.
"""

from __future__ import annotations

from typing import Any

from . import Context, defaults
from ._values import unset

_FLOWCONTROL = "io.k8s.api.flowcontrol.v1."


def _zero(value: dict[str, Any], key: str) -> bool:
    """Whether a non-pointer integer is unset: absent, null or 0."""
    found = value.get(key)
    return found is None or (type(found) is int and found == 0)


@defaults(_FLOWCONTROL + "FlowSchemaSpec", "SetDefaults_FlowSchemaSpec")
def flow_schema_spec(spec: dict[str, Any], context: Context) -> None:
    if _zero(spec, "matchingPrecedence"):
        spec["matchingPrecedence"] = 1000


@defaults(_FLOWCONTROL + "ExemptPriorityLevelConfiguration", "SetDefaults_ExemptPriorityLevelConfiguration")
def exempt_priority_level(exempt: dict[str, Any], context: Context) -> None:
    if unset(exempt, "nominalConcurrencyShares"):
        exempt["nominalConcurrencyShares"] = 0
    if unset(exempt, "lendablePercent"):
        exempt["lendablePercent"] = 0


@defaults(_FLOWCONTROL + "LimitedPriorityLevelConfiguration", "SetDefaults_LimitedPriorityLevelConfiguration")
def limited_priority_level(limited: dict[str, Any], context: Context) -> None:
    if unset(limited, "nominalConcurrencyShares"):
        limited["nominalConcurrencyShares"] = 30
    if unset(limited, "lendablePercent"):
        limited["lendablePercent"] = 0


@defaults(_FLOWCONTROL + "QueuingConfiguration", "SetDefaults_QueuingConfiguration")
def queuing(queuing: dict[str, Any], context: Context) -> None:
    if _zero(queuing, "handSize"):
        queuing["handSize"] = 8
    if _zero(queuing, "queues"):
        queuing["queues"] = 64
    if _zero(queuing, "queueLengthLimit"):
        queuing["queueLengthLimit"] = 50
