"""Every cache of the core that depends on what was evaluated, and how to forget them all.

What the core remembers between requests, all bounded: parsed panes (:mod:`documents`), policies
and bindings after defaulting and API validation (:mod:`evaluate`), compiled expressions and CEL
environments (:mod:`cel`), compiled policies (:mod:`validator`). :func:`clear` empties them, so the
next evaluation is a first one (the benchmark's cold start); the Kubernetes library's own
declarations, which do not depend on any input, stay loaded.
"""

from __future__ import annotations

from . import cel, cost_cache, documents, validator


def clear() -> None:
    """Forget every parsed, validated and compiled input."""
    documents.clear_cache()  # validated policies and bindings are kept with their documents
    cel.compile_expression.cache_clear()
    cel.environment.cache_clear()
    validator._compile_policy.cache_clear()
    cost_cache.clear()
