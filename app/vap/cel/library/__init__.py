"""The Kubernetes CEL environment: extensions and libraries per Kubernetes version.

Mirrors k8s.io/apiserver/pkg/cel/environment/base.go (which options each version has) and
k8s.io/apiserver/pkg/cel/library (the Kubernetes functions). The engine adapter, :mod:`app.vap.cel`,
builds its environments only from what this package returns:

* ``environment_yaml(version)`` -> the engine config (standard extensions, excluded std functions);
* ``function_decls(version)`` -> the Kubernetes functions, for ``NewEnv(functions=...)``;
* ``extensions(version)`` -> functions whose names the standard library or an extension already
  declares (``indexOf``, ``string``, ``hasValue`` ...), for ``NewEnv(extensions=...)``, which merges;
* ``authorizer_variables(version)`` / ``authorizer_activation(...)`` -> declarations and values;
* ``descriptor_pool()`` -> the protobuf pool with the library's value types;
* ``check_expression(...)`` -> the apiserver's extra compile-time checks;
* ``translate_runtime_error(text)`` -> cel-go's wording of an engine run-time error;
* ``track_cost()`` / ``expression_cost(...)`` -> the cost of one evaluation.

Known differences from kube-apiserver (each also stated where it is implemented):

* Engine limits stricter than the apiserver: 9,999 comprehension iterations per evaluation and a
  nesting depth of 32; ``translate_runtime_error`` / ``translate_compile_message`` word them as
  engine limits (``is_engine_limit`` tells them apart). ``transformMap``/``transformMapEntry`` and
  ``lists.range(<negative>)`` fail in the engine; reported as engine limitations too.
* ``format.named()`` / ``Format.validate()`` return a stand-in optional: ``hasValue()``, ``value()``
  (typed dyn) and ``optMap`` work; ``orValue()``/``or()`` on them fail at run time with a note.
* ``list(A).indexOf(A)`` / ``lastIndexOf`` are declared ``list(dyn), dyn``; sum/min/max over
  ``list(uint)`` return ints at run time; durations/timestamps lose sub-microsecond precision when
  they pass through a library function.
* Quantity ``isInteger()``/``asInteger()`` look at the value only (Kubernetes also looks at the
  internal representation: ``quantity('1000m').isInteger()`` is false there, true here).
* Optional library: 1.28 gets the engine's optional v1 (``optFlatMap`` compiles; cel-go 0.16 lacked it).
* Cost: library calls are charged exactly at run time; the rest is an AST estimate (see ``cost``).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from cel_expr_python import cel

from . import authz, comparisons, format, ip, lists, quantity, regex, semver, urls
from . import types as _types
from ._decl import CostTracker
from .authz import authorizer_activation, authorizer_value, register_backend, request_resource_value
from .checks import CompileIssue, check_expression
from .cost import PER_CALL_LIMIT, CostResult, expression_cost, track_cost
from .errors import ENGINE_LIMIT_NOTE, is_engine_limit, translate_compile_message, translate_runtime_error
from .versions import DEFAULT_VERSION, SUPPORTED_VERSIONS, environment_yaml, normalize_version, version_tuple

__all__ = [
    "CompileIssue",
    "CostResult",
    "CostTracker",
    "DEFAULT_VERSION",
    "ENGINE_LIMIT_NOTE",
    "PER_CALL_LIMIT",
    "SUPPORTED_VERSIONS",
    "authorizer_activation",
    "authorizer_value",
    "authorizer_variables",
    "check_expression",
    "descriptor_pool",
    "environment_yaml",
    "expression_cost",
    "extensions",
    "function_decls",
    "is_engine_limit",
    "normalize_version",
    "register_backend",
    "request_resource_value",
    "track_cost",
    "translate_compile_message",
    "translate_runtime_error",
    "version_tuple",
]


@lru_cache(maxsize=32)
def _function_decls(v: tuple[int, int]) -> tuple[Any, ...]:
    plain: list[Any] = []
    for module in (comparisons, lists, regex, urls, quantity, ip, format, semver, authz):
        plain.extend(module.decls(v))
    shared: dict[str, list[Any]] = {}
    # Quantity and Semver share isGreaterThan/isLessThan/compareTo; the engine's run time tells
    # overloads apart by argument kind only (both are messages), so the quantity overloads carry an
    # implementation that handles both types and the semver ones are declarations.
    if v >= (1, 28):
        for name, ovs in quantity.comparison_overloads().items():
            shared.setdefault(name, []).extend(ovs)
    for name, ovs in semver.comparison_overloads(v).items():
        shared.setdefault(name, []).extend(ovs)
    # string(): redeclared with the standard overloads (declarations only) plus string(IP)/string(CIDR)
    shared["string"] = comparisons.string_overloads(v) + ip.string_overloads(v)
    plain.extend(cel.FunctionDecl(name, ovs) for name, ovs in shared.items())
    return tuple(plain)


def function_decls(version: str) -> list[Any]:
    """The Kubernetes library functions of a Kubernetes version (for ``NewEnv(functions=...)``)."""
    return list(_function_decls(version_tuple(version)))


@lru_cache(maxsize=32)
def _extensions(v: tuple[int, int]) -> tuple[Any, ...]:
    exts = [cel.CelExtension("kubernetes.lists.merged", lists.merged_decls(v))]
    opt = format.optional_overloads(v)
    if opt:
        exts.append(
            cel.CelExtension("kubernetes.format.optionals", [cel.FunctionDecl(n, ovs) for n, ovs in opt.items()])
        )
    return tuple(exts)


def extensions(version: str) -> list[Any]:
    """Functions that share a name with a standard or extension function; the engine merges
    declarations only through ``NewEnv(extensions=...)``."""
    return list(_extensions(version_tuple(version)))


def authorizer_variables(version: str) -> dict[str, Any]:
    """Declarations of ``authorizer`` and ``authorizer.requestResource``."""
    return authz.variables(version_tuple(version))


def descriptor_pool() -> Any:
    """The protobuf descriptor pool holding the library's value types."""
    return _types.pool()


def library_type_names() -> tuple[str, ...]:
    """Full names of the message types that carry library values (for result rendering)."""
    return _types.LIBRARY_TYPES


def render_value(value: Any) -> Any:
    """A display form of a library value (Quantity, IP, ...) as returned by the engine, or the value."""
    name = _types.type_name(value)
    if name is None:
        return value
    if name == _types.QUANTITY:
        d = quantity.value_of(value).normalized()
        return f"quantity({d.u}e{d.e})" if d.e else f"quantity({d.u})"
    if name == _types.IP:
        return f"ip('{ip.ip_of(value)}')"
    if name == _types.CIDR:
        addr, bits = ip.cidr_of(value)
        return f"cidr('{addr}/{bits}')"
    if name == _types.URL:
        return f"url('{_types.get(value, 'url')}')"
    if name == _types.SEMVER:
        pre = list(_types.get(value, "pre"))
        core = f"{_types.get(value, 'major')}.{_types.get(value, 'minor')}.{_types.get(value, 'patch')}"
        return f"semver('{core}{'-' + '.'.join(pre) if pre else ''}')"
    if name == _types.FORMAT:
        return f"format.{_types.get(value, 'name')}()"
    if name == _types.OPTIONAL:
        if not _types.get(value, "has"):
            return "optional.none()"
        if _types.get(value, "kind") == "format":
            return {"optional.of": f"format.{_types.get(value, 'name')}()"}
        return {"optional.of": list(_types.get(value, "items"))}
    return f"<{name}>"
