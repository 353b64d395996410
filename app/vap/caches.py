"""Every cache of the core that depends on what was evaluated, and how to forget them all.

What the core remembers between requests, all bounded: parsed panes (:mod:`documents`), policies
and bindings after defaulting and API validation (kept with their documents), compiled expressions
and CEL environments (:mod:`cel`), compiled policies and the values last converted for them
(:mod:`validator`), the request's copies of the objects (:mod:`request`), type-checking results
(:mod:`typecheck`) and the declared types they check against, cost estimates (:mod:`cost_cache`),
compiled regular expressions, parsed URLs and error texts of the CEL library, Kyverno's resource
filters. :func:`clear` empties them, so the next evaluation is a first one (the benchmark's cold
start); what does not depend on any input (the Kubernetes library's declarations, the built-in
schemas, the declared types of ``request`` and ``namespaceObject``, a descriptor pool of the base types
that the kinds' types are added to) stays loaded.
"""

from __future__ import annotations

from . import cel, cost_cache, dispatcher, documents, request, typecheck, validator
from .cel.library import astproto, errors, regex, urls
from .kyverno import config as kyverno_config
from .schemas import decltypes


def clear() -> None:
    """Forget every parsed, validated, checked and compiled input."""
    documents.clear_cache()  # validated policies and bindings are kept with their documents
    cel.compile_expression.cache_clear()
    cel._check.cache_clear()
    cel._checking_environment.cache_clear()
    cel._runtime_environment.cache_clear()
    for function in (cel._code_spans, cel._mention, cel.mentions, cel._environment_declarations, cel._checking_version,
                     cel._rewrite_variables, cel._error_text, cel._root_fields):  # read of expression texts
        function.cache_clear()
    astproto.clear_cache()
    validator._compile_policy.cache_clear()
    validator.clear_kept()
    request.clear_copies()
    dispatcher.clear_versioned()
    validator._error_record.cache_clear()
    typecheck.clear_cache()
    cost_cache.clear()
    for function in (*_lru_functions(regex), *_lru_functions(urls), *_lru_functions(errors)):
        function.cache_clear()
    kyverno_config._filters_of.cache_clear()
    decltypes.typed_roots.cache_clear()
    decltypes.clear_shared_pool()
    decltypes.clear_kind_types()
    decltypes.typed_roots(None, None)  # the apiserver's request and namespaceObject types: no input in them


def _lru_functions(module: object) -> list:
    return [f for f in vars(module).values() if callable(f) and hasattr(f, "cache_clear")]
