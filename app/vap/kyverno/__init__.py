"""Kyverno ClusterPolicy and Policy: what Kyverno's validating webhook would do with the request.

Modules mirror kyverno/kyverno: ``policy`` (the CRD and the policy webhook's checks), ``config`` (the
kyverno ConfigMap), ``match`` (match and exclude blocks, roles), ``autogen`` (rules for Pod controllers),
``engine`` (validate.cel rules through the apiserver's validator, Enforce and Audit), ``goyaml`` (the
blocked message's YAML) and ``wildcard``.
"""

from __future__ import annotations

from .config import Configuration
from .config import load as load_configuration
from .engine import CONFIGURATION, Outcome, evaluate
from .policy import KyvernoPolicy, is_kyverno_doc
from .policy import load as load_policies

__all__ = ["CONFIGURATION", "Configuration", "KyvernoPolicy", "Outcome", "evaluate", "is_kyverno_doc",
           "load_configuration", "load_policies"]
