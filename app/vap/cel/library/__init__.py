"""The Kubernetes CEL environment: extensions and libraries per Kubernetes version.

Mirrors k8s.io/apiserver/pkg/cel/environment/base.go (which options each version has) and
k8s.io/apiserver/pkg/cel/library (the Kubernetes functions). The engine adapter, :mod:`app.vap.cel`,
builds its environments only from what this package returns:

* ``environment_yaml(version)`` -> the engine config (standard extensions, excluded std functions,
  and the few declarations only the config can express: optional result types);
* ``function_decls(version)`` -> the Kubernetes functions, for ``NewEnv(functions=...)``;
* ``extensions(version)`` -> functions whose names the standard library or an extension already
  declares (``indexOf``, ``string``, ``hasValue`` ...), for ``NewEnv(extensions=...)``, which merges;
* ``authorizer_variables(version)`` / ``authorizer_activation(...)`` -> declarations and values;
* ``descriptor_pool()`` -> the protobuf pool with the library's value types;
* ``check_expression(...)`` -> the apiserver's extra compile-time checks;
* ``rewrite(program, deserialize)`` -> the program the engine runs (see ``transform``);
* ``render_value(value)`` -> a JSON-ready display form of an evaluation result;
* ``translate_runtime_error(text)`` -> cel-go's wording of an engine run-time error;
* ``track_cost()`` (or ``set_tracker`` / ``reset_tracker``) / ``expression_cost(...)`` -> the cost of one
  evaluation.

Known differences from kube-apiserver (each also stated where it is implemented):

* Engine limits stricter than the apiserver: 9,999 comprehension iterations per evaluation and a
  nesting depth of 32; ``translate_runtime_error`` / ``compile_limit_error`` word them as engine
  limits (``is_engine_limit`` tells them apart), and an expression the engine cannot compile for
  such a limit is reported when it is evaluated, not as a compile error. ``transformMap``/``transformMapEntry`` and
  ``lists.range(<negative>)`` fail in the engine; reported as engine limitations too.
* Durations/timestamps lose sub-microsecond precision when they pass through a library function.
* Quantities compare by their representation, not numerically, where the checker cannot see a
  Quantity (both operands ``dyn``) and inside the engine's own list functions (``sets.*``,
  ``distinct()``); see ``quantity``.
* Cost: library calls are charged exactly at run time; the rest is an AST estimate (see ``cost``).

What the engine cannot express directly (optional results of library functions, typed
``sum``/``min``/``max``, numeric Quantity equality) is rewritten on the checked AST before it runs:
see ``transform``.
"""

from __future__ import annotations

import datetime
import math
import re
from functools import lru_cache
from typing import Any

from cel_expr_python import cel

from . import astproto, authz, checks, comparisons, conversions, format, ip, lists, quantity, regex, semver, urls
from . import types as _types
from ._decl import CostTracker, function, reset_tracker, set_tracker, signature
from .authz import authorizer_activation, authorizer_value, register_backend, request_resource_value
from .checks import CompileIssue, check_expression
from .cost import PER_CALL_LIMIT, CostResult, counts_library_cost, expression_cost, track_cost
from .errors import (
    ENGINE_LIMIT_NOTE,
    OPTIONAL_ARGUMENT,
    compile_limit_error,
    is_engine_limit,
    translate_compile_message,
    translate_runtime_error,
)
from .transform import INTERNAL_PREFIX, may_hold_optionals, optional_maps_reach_python, rewrite
from .values import to_engine
from .versions import COMPARISON_OPERATORS, DEFAULT_VERSION, SUPPORTED_VERSIONS, normalize_version, version_tuple
from .versions import environment_yaml as _standard_yaml

__all__ = [
    "CompileIssue",
    "CostResult",
    "CostTracker",
    "DEFAULT_VERSION",
    "ENGINE_LIMIT_NOTE",
    "INTERNAL_PREFIX",
    "OPTIONAL_ARGUMENT",
    "PER_CALL_LIMIT",
    "SUPPORTED_VERSIONS",
    "authorizer_activation",
    "authorizer_value",
    "authorizer_variables",
    "BASIC",
    "BASIC_FUNCTIONS",
    "basic_function_decls",
    "calls_library",
    "check_expression",
    "compile_limit_error",
    "counts_library_cost",
    "descriptor_pool",
    "environment_yaml",
    "expression_cost",
    "extensions",
    "function_decls",
    "is_engine_limit",
    "library_use",
    "may_call_beyond_basic",
    "may_hold_optionals",
    "optional_maps_reach_python",
    "normalize_version",
    "register_backend",
    "render_value",
    "request_resource_value",
    "reset_tracker",
    "rewrite",
    "set_tracker",
    "to_engine",
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
    plain.extend(function(name, *ovs) for name, ovs in shared.items())
    return tuple(plain)


def function_decls(version: str) -> list[Any]:
    """The Kubernetes library functions of a Kubernetes version (for ``NewEnv(functions=...)``)."""
    return list(_function_decls(version_tuple(version)))


# The library's functions that restate standard ones: the comparisons (with cel-go's cross-type numeric
# overloads) and string() (with string(IP) and string(CIDR)). The environment configuration leaves the
# engine's own out, so an expression calling them needs these declarations, and none other of the library.
BASIC_FUNCTIONS = frozenset((*COMPARISON_OPERATORS, "string"))
BASIC = "basic"  # what library_use says of a program calling no other of the library's functions


def basic_function_decls(version: str) -> list[Any]:
    """The library's declarations of :data:`BASIC_FUNCTIONS`, as :func:`function_decls` has them."""
    return list(_basic_function_decls(version_tuple(version)))


@lru_cache(maxsize=32)
def _basic_function_decls(v: tuple[int, int]) -> tuple[Any, ...]:
    return tuple(d for d in _function_decls(v) if signature(d)[0] in BASIC_FUNCTIONS)


def environment_yaml(version: str) -> str:
    """The engine's YAML configuration for a Kubernetes version: standard extensions, and the
    library declarations with optional result types."""
    return _standard_yaml(version) + format.config_yaml(version_tuple(version))


@lru_cache(maxsize=32)
def _extension_decls(v: tuple[int, int]) -> tuple[tuple[str, list[Any]], ...]:
    # the rewriting's own functions (see transform) take dyn arguments: only an extension registers
    # a Python implementation for those (as the engine's wildcard kind)
    internal = (
        lists.internal_decls(v) + quantity.internal_decls(v) + format.internal_decls(v) + conversions.internal_decls(v)
    )
    return (("kubernetes.lists.merged", lists.merged_decls(v)), ("kubernetes.playground.rewritten", internal))


@lru_cache(maxsize=32)
def _extensions(v: tuple[int, int]) -> tuple[Any, ...]:
    return tuple(cel.CelExtension(name, decls) for name, decls in _extension_decls(v))


@lru_cache(maxsize=16)
def _declared_names(v: tuple[int, int]) -> frozenset[str] | None:
    names: set[str] = set()
    for decl in (*_function_decls(v), *(d for _, decls in _extension_decls(v) for d in decls)):
        name = signature(decl)[0]
        if name == "unknown":
            return None
        names.update((name, name.rsplit(".", 1)[-1]))  # as a call names it, with a namespace or not
    return frozenset(names)


def library_use(program: Any, version: str) -> bool | str:
    """What of the library a checked program calls: ``False`` nothing, :data:`BASIC` no function but
    :data:`BASIC_FUNCTIONS` (then :func:`basic_function_decls` alone check it alike), ``True`` more."""
    v = version_tuple(version)
    names = _declared_names(v)
    if names is None or astproto.calls_any(program, _declared_beyond_basic(v)):
        return True
    return BASIC if astproto.calls_any(program, BASIC_FUNCTIONS) else False


@lru_cache(maxsize=16)
def _declared_beyond_basic(v: tuple[int, int]) -> frozenset[str]:
    return frozenset(_declared_names(v) or ()) - BASIC_FUNCTIONS


def may_call_beyond_basic(text: str) -> bool:
    """Whether an expression's text may call a function of the library other than :data:`BASIC_FUNCTIONS`,
    or one whose call the library's rewriting changes (int(), uint(), double(), format.named(), validate()):
    a name of one followed by ``(``, anywhere in the text (in a string too). When it may not, the expression
    compiles and runs alike with :func:`basic_function_decls` alone (a rewriting the text does not show,
    such as of an equality on quantities held in variables, is refused where it would run there). The
    names are those of every supported version, so that the answer is the same whatever the version."""
    return _beyond_basic_call().search(text) is not None


@lru_cache(maxsize=1)
def _beyond_basic_call() -> re.Pattern[str]:
    names = {"int", "uint", "double", "named", "validate"}
    for version in SUPPORTED_VERSIONS:
        v = version_tuple(version)
        if _declared_names(v) is None:  # a declaration of unknown name: every text may call it
            return re.compile("")
        names |= {name.rsplit(".", 1)[-1] for name in _declared_beyond_basic(v)}
    spelled = sorted((n for n in names if _IDENTIFIER.fullmatch(n)), key=len, reverse=True)
    return re.compile(r"(?<![_a-zA-Z0-9])(?:" + "|".join(map(re.escape, spelled)) + r")\s*\(")


def calls_library(program: Any, version: str) -> bool:
    """Whether a checked program calls a function of a name the library declares (the Kubernetes functions,
    and those sharing a name with a standard or extension function): one that calls none checks alike in
    an environment without them (:func:`function_decls`, :func:`extensions`)."""
    names = _declared_names(version_tuple(version))
    return names is None or astproto.calls_any(program, names)


def _unnamed(config: str) -> str:
    return "\n".join(line for line in config.splitlines() if not line.startswith("name: "))


_IDENTIFIER = re.compile(r"[_a-zA-Z][_a-zA-Z0-9]*")


@lru_cache(maxsize=128)
def declaration_changes(older: str, newer: str) -> frozenset[str] | None:
    """The names of the functions declared differently by two versions' environments (each
    overload the same id, types and implementation or none), when nothing else differs: the
    engine configuration, the authorizer's declarations and the apiserver's extra compile checks.
    None when something else differs, or a changed name is not one an expression spells out."""
    a, b = version_tuple(older), version_tuple(newer)
    if _unnamed(environment_yaml(older)) != _unnamed(environment_yaml(newer)):
        return None
    if checks.version_key(a) != checks.version_key(b):
        return None
    if {k: t.name() for k, t in authz.variables(a).items()} != {k: t.name() for k, t in authz.variables(b).items()}:
        return None

    def declared(v: tuple[int, int]) -> dict[str, set[Any]]:
        out: dict[str, set[Any]] = {}
        for decl in (*_function_decls(v), *(d for _, decls in _extension_decls(v) for d in decls)):
            sig = signature(decl)
            if sig[0] == "unknown":
                return {}
            out.setdefault(sig[0], set()).add(sig[1])
        return out

    before, after = declared(a), declared(b)
    if not before or not after:
        return None
    changed = frozenset(name for name in before.keys() | after.keys() if before.get(name) != after.get(name))
    if any(_IDENTIFIER.fullmatch(name) is None for name in changed):
        return None
    return changed


def extensions(version: str) -> list[Any]:
    """Functions that share a name with a standard or extension function (the engine merges
    declarations only through ``NewEnv(extensions=...)``), and the functions the checked AST is
    rewritten into (see ``transform``)."""
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
    """A JSON-ready display form of an evaluation result (``Value.plain_value()``), recursively.

    JSON values stay as they are; library values read as the CEL that builds them
    (``quantity('1.5')``, ``ip('::1')``, ``format.uuid()``); timestamps and durations as cel-go's
    ``string()`` gives them; bytes as ``b'...'``; types by their name; NaN and infinities as cel-go
    prints them (``NaN``, ``+Inf``, ``-Inf``), since JSON has no such numbers.
    """
    cls = value.__class__
    if cls is str or cls is int or cls is bool or value is None:  # (the commonest first, by class)
        return value
    if isinstance(value, dict):
        return {(k if k.__class__ is str else _render_key(k)): render_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [render_value(v) for v in value]
    if isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "+Inf" if value > 0 else "-Inf"
        return value
    if isinstance(value, bytes | bytearray):
        return _render_bytes(bytes(value))
    if isinstance(value, datetime.datetime):
        return _render_timestamp(value)
    if isinstance(value, datetime.timedelta):
        return _render_duration(value)
    if isinstance(value, cel.Type):
        return type_display_name(value.name())
    name = _types.type_name(value)
    if name is None:
        return str(value)
    if name == _types.QUANTITY:
        return f"quantity('{quantity.value_of(value).decimal_text()}')"
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
    wrapped = getattr(value, "value", None)  # google.protobuf wrappers (uint results)
    if wrapped is not None and name.startswith("google.protobuf."):
        return render_value(wrapped)
    return name


def _render_key(key: Any) -> Any:
    rendered = render_value(key)
    return rendered if isinstance(rendered, str | int | float | bool) or rendered is None else str(rendered)


def _render_bytes(value: bytes) -> str:
    body = "".join(
        chr(b) if 0x20 <= b < 0x7F and b not in (0x22, 0x5C) else "\\" + chr(b) if b in (0x22, 0x5C) else f"\\x{b:02x}"
        for b in value
    )
    return 'b"' + body + '"'


def _render_timestamp(value: datetime.datetime) -> str:
    if value.tzinfo is not None:
        value = value.astimezone(datetime.UTC).replace(tzinfo=None)
    text = value.strftime("%Y-%m-%dT%H:%M:%S")
    if value.microsecond:
        text += f".{value.microsecond:06d}".rstrip("0")
    return text + "Z"


def _render_duration(value: datetime.timedelta) -> str:
    micros = (value.days * 86400 + value.seconds) * 1_000_000 + value.microseconds
    sign = "-" if micros < 0 else ""
    seconds, frac = divmod(abs(micros), 1_000_000)
    return f"{sign}{seconds}{('.' + f'{frac:06d}'.rstrip('0')) if frac else ''}s"


def type_display_name(engine_name: str) -> str:
    """cel-go's name of a type the engine names (``INT`` -> ``int``, ``LIST<INT>`` -> ``list(int)``)."""
    s = engine_name.strip()
    scalar = {
        "BOOL": "bool", "INT": "int", "UINT": "uint", "DOUBLE": "double", "STRING": "string", "BYTES": "bytes",
        "NULL": "null_type", "DYN": "dyn", "TIMESTAMP": "google.protobuf.Timestamp",
        "DURATION": "google.protobuf.Duration", "ERROR": "*error*", "TYPE": "type",
    }  # fmt: skip
    if s in scalar:
        return scalar[s]
    for outer, name in (("LIST<", "list"), ("MAP<", "map"), ("TYPE<", "type"), ("optional_type<", "optional_type")):
        if s.startswith(outer) and s.endswith(">"):
            args = ", ".join(type_display_name(a) for a in split_type_args(s[len(outer) : -1]))
            return f"{name}({args})"
    return s


def split_type_args(inner: str, opening: str = "<", closing: str = ">") -> list[str]:
    """Split the parameters of a type name (``INT, LIST<INT>``; ``int, list(int)`` with parentheses) at
    the top-level commas."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(inner):
        if ch == opening:
            depth += 1
        elif ch == closing:
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(inner[start:i])
            start = i + 1
    parts.append(inner[start:])
    return [p.strip() for p in parts]
