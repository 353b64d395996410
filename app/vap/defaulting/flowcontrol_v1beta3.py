"""Scheme defaults of flowcontrol.apiserver.k8s.io/v1beta3 (served 1.26-1.31; the only version in 1.28).

Restates ``pkg/apis/flowcontrol/v1beta3/defaults.go``. In v1beta3 a limited level's
``nominalConcurrencyShares`` is a plain integer, so 0 reads as unset and becomes 30. Release
difference: from 1.29 (when v1 arrived and allowed zero shares) the replacement moved into
``SetDefaults_PriorityLevelConfiguration`` and is skipped when the object carries the
``flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares`` annotation; 1.28 always replaces it.
The other defaults are those of v1.
"""

from __future__ import annotations

from typing import Any

from . import Context, defaults
from ._values import mapping, unset
from .flowcontrol_v1 import exempt_priority_level, flow_schema_spec, queuing

_FLOWCONTROL = "io.k8s.api.flowcontrol.v1beta3."
PRESERVE_ZERO_SHARES = "flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares"
DEFAULT_SHARES = 30


def _zero(value: dict[str, Any], key: str) -> bool:
    found = value.get(key)
    return found is None or (type(found) is int and found == 0)


@defaults(_FLOWCONTROL + "PriorityLevelConfiguration", "SetDefaults_PriorityLevelConfiguration", since=(1, 29))
def priority_level(obj: dict[str, Any], context: Context) -> None:
    spec = mapping(obj, "spec")
    limited = mapping(spec, "limited") if spec is not None else None
    annotations = (mapping(obj, "metadata") or {}).get("annotations")
    preserved = isinstance(annotations, dict) and PRESERVE_ZERO_SHARES in annotations
    if limited is not None and not preserved and _zero(limited, "nominalConcurrencyShares"):
        limited["nominalConcurrencyShares"] = DEFAULT_SHARES


@defaults(_FLOWCONTROL + "LimitedPriorityLevelConfiguration", "SetDefaults_LimitedPriorityLevelConfiguration")
def limited_priority_level(limited: dict[str, Any], context: Context) -> None:
    if context.version < (1, 29) and _zero(limited, "nominalConcurrencyShares"):
        limited["nominalConcurrencyShares"] = DEFAULT_SHARES
    if unset(limited, "lendablePercent"):
        limited["lendablePercent"] = 0


defaults(_FLOWCONTROL + "FlowSchemaSpec", "SetDefaults_FlowSchemaSpec")(flow_schema_spec)
defaults(_FLOWCONTROL + "ExemptPriorityLevelConfiguration", "SetDefaults_ExemptPriorityLevelConfiguration")(
    exempt_priority_level)
defaults(_FLOWCONTROL + "QueuingConfiguration", "SetDefaults_QueuingConfiguration")(queuing)
