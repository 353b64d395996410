"""The pure core of the playground.

Rules for everything under this package:
- no Flask, no I/O, no globals other than compile caches;
- names follow the Kubernetes API and the apiserver's own code
  (k8s.io/apiserver/pkg/admission/plugin/policy);
- user mistakes come back as values (problems, errors in results), never as exceptions.
"""

from __future__ import annotations

from .cel.library import DEFAULT_VERSION, SUPPORTED_VERSIONS
from .evaluate import evaluate

__all__ = ["DEFAULT_VERSION", "SUPPORTED_VERSIONS", "evaluate"]
