"""The one place that talks to the CEL engine (cel-expr-python).

Mirrors k8s.io/apiserver/pkg/admission/plugin/cel (compile.go, composition.go): expressions are
compiled against a declared environment, their result type checked exactly, and evaluated against
plain JSON-like values. Composited variables are evaluated lazily, once per activation, as
pkg/cel/lazy does: the engine has no lazy bindings, so each ``variables.<name>`` is rewritten into a
call of a declared function whose implementation evaluates the variable on first use.

Two environments per set of declarations. The checking one declares ``request`` and
``namespaceObject`` as the apiserver does, as the object types ``kubernetes.AdmissionRequest`` and
``kubernetes.Namespace`` (compile.go BuildRequestType / BuildNamespaceType; the message types are
those of :mod:`app.vap.schemas.decltypes`): an unknown field is a compile error and result types
are the declared ones. The engine would read a value of a message type with protobuf semantics
(an absent field as its default), while the apiserver hands the JSON form of the request and the
namespace to the expression, so a program that names either runs in a second environment where every
root is ``dyn``: absent fields stay ``no such key`` (any other program runs where it was checked).
The checked program is moved there (serialized and read back) rather than compiled again, so the
run-time environment never type-checks, which spares it the engine's first-compile set-up (a few
milliseconds per environment).

Environments are shared as widely as exactness allows: a root an expression never names (``params``,
``authorizer``, ``variables``) is declared as in most environments; a variable of a common type is read
through one function per type taking its name, so expressions referencing such variables share one
environment whichever they reference; and a check in another version's environment (API validation uses
the previous version's) is made in the evaluation version's when the two declare nothing differently
that the expression names (:func:`library.declaration_changes`).

Caches, each bounded (least recently used entries are dropped): :data:`ENVIRONMENT_CACHE_SIZE`
environments of each kind, and :data:`COMPILE_CACHE_SIZE` compiled expressions.
"""

from __future__ import annotations

import contextvars
import re
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any

from cel_expr_python import cel

from .. import fast
from . import library

# Kinds of expressions, each with the result types the apiserver accepts (None: anything).
VALIDATION = "validation"
MATCH_CONDITION = "matchCondition"
MESSAGE_EXPRESSION = "messageExpression"
AUDIT_ANNOTATION = "auditAnnotation"
VARIABLE = "variable"
MUTATION = "mutation"  # a MutatingAdmissionPolicy's mutation (app.vap.mutating checks what it returns)

_EXPECTED_TYPES: dict[str, tuple[str, ...] | None] = {
    VALIDATION: ("bool",),
    MATCH_CONDITION: ("bool",),
    MESSAGE_EXPRESSION: ("string",),
    AUDIT_ANNOTATION: ("string", "null_type"),
    VARIABLE: None,
    MUTATION: None,
}


class EvaluationError(Exception):
    """A CEL run-time error, with the text cel-go would give."""

    @property
    def engine_limit(self) -> bool:
        """True when the error comes from a limit of the playground's engine that kube-apiserver does
        not have (its comprehension iteration budget, nesting depth ...): the apiserver would go on."""
        return library.is_engine_limit(str(self))


@dataclass(frozen=True)
class CompileIssue:
    """One compile error, positioned in the expression text (1-based line and column)."""

    line: int
    column: int
    message: str


BASIC = library.BASIC  # Declarations.library: the library's comparisons and string() alone


@dataclass(frozen=True)
class Declarations:
    """What an expression may reference; the key of the environment cache."""

    version: str = library.DEFAULT_VERSION
    params: bool = False
    authorizer: bool = True
    # The composited variables visible to the expression, in order: (name, engine type signature) as
    # variable_declaration() gives them; None when `variables` is not declared at all (matchConditions).
    variables: tuple[tuple[str, ...], ...] | None = ()
    # Declared types of the roots (object, oldObject, params, request, namespaceObject) and the descriptor
    # pool holding them, for type checking against schemas (app.vap.schemas.decltypes.TypedRoots); None:
    # object, oldObject and params are dyn, request and namespaceObject the apiserver's types.
    types: Any = None
    # Whether the library's functions are declared (:func:`library.function_decls` and extensions). Type
    # checking, and the run-time environment of a program naming request or namespaceObject, leave them out
    # for expressions calling none of them (:func:`library.calls_library`): they check and run alike, and an
    # environment without them costs the engine a fraction to set up. BASIC: just the library's comparisons
    # and string(), for a policy whose expressions call no other of its functions (type checking:
    # :func:`library.library_use`; checking and running: :func:`library_level`), half the engine's set-up;
    # an expression the library's rewriting changes is compiled again where the whole library is declared.
    library: bool | str = True
    # A CustomResourceDefinition's x-kubernetes-validations rule (apiextensions-apiserver's
    # pkg/apiserver/schema/cel): its roots are ``self`` and ``oldSelf`` (both dyn), not the admission ones.
    rule_roots: bool = False
    # Typed roots declared besides, under names of the playground's own (:class:`Aliases`): the environment
    # then also type-checks against schemas. None: none (what an expression may reference is the same).
    aliases: Any = None


@dataclass(frozen=True)
class Aliases:
    """Typed roots (``app.vap.schemas.decltypes.TypedRoots``) that an environment declares besides its own roots,
    each under names of the playground's own: ``object`` of the first as ``__playground_typed0_object``, ...

    A check against a schema (``Declarations.types``) is then made in the environment the scenario's other
    expressions are checked in, its text with those roots renamed (:func:`_rename_roots`), instead of in an
    environment of its own: the engine's first compile in an environment costs about a millisecond. An
    expression naming an alias is refused (:func:`_internal_names`), so declaring them changes no other check.
    Set for the evaluation of a scenario by :func:`declaring`; a shortcut of the fast paths."""

    roots: tuple[Any, ...]
    # the roots any of the scenario's expressions may name (the others are not declared: every name an environment
    # declares costs each evaluation in it a little)
    named: frozenset[str] = frozenset(("object", "oldObject", "params"))

    @property
    def pool(self) -> Any:
        return self.roots[0].pool

    def index(self, roots: Any) -> int | None:
        for i, declared in enumerate(self.roots):
            if declared == roots:
                return i
        return None

    def renames(self, index: int) -> dict[str, str]:
        """The roots of ``roots[index]`` that are typed from a schema, and the names they are declared under."""
        signatures = dict(self.roots[index].signatures)
        return {name: f"__playground_typed{index}_{name}" for name in _ALIASED_ROOTS
                if signatures.get(name) != "DYN" and name in self.named}

    def variable_types(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for index, roots in enumerate(self.roots):
            types = roots.variable_types()
            out.update({alias: types[name] for name, alias in self.renames(index).items()})
        return out


_ALIASED_ROOTS = ("object", "oldObject", "params")
_scenario_aliases: contextvars.ContextVar[Callable[[], Aliases | None] | None] = contextvars.ContextVar(
    "_scenario_aliases", default=None)


def aliases_for(roots: Sequence[Any], named: Iterable[str] = _ALIASED_ROOTS) -> Aliases | None:
    """The typed roots an environment can declare together (those over one descriptor pool), or None; ``named``:
    the roots the expressions to check may name."""
    kept = [r for r in dict.fromkeys(roots) if r.pool is roots[0].pool] if roots else []
    return Aliases(tuple(kept[:_MAX_ALIASED]), frozenset(named) & frozenset(_ALIASED_ROOTS)) if kept else None


_MAX_ALIASED = 8


@contextmanager
def declaring(aliases: Callable[[], Aliases | None] | None) -> Iterator[None]:
    """Within the block (a scenario's evaluation), environments built for checking declare the typed roots
    ``aliases`` gives, and checks against them are made there (while the fast paths are on). It is asked (and should
    work them out once) only when an environment is built or a check made: an evaluation whose expressions were
    all compiled before never asks."""
    token = _scenario_aliases.set(aliases if fast.on else None)
    try:
        yield
    finally:
        _scenario_aliases.reset(token)


def _current_aliases() -> Aliases | None:
    given = _scenario_aliases.get()
    return given() if given is not None else None


@dataclass(slots=True)
class Compiled:
    """The result of compiling one expression: a program, or the apiserver's error detail."""

    expression: str
    kind: str
    program: Any = None
    type_name: str = "dyn"
    engine_type: str = "DYN"
    # the apiserver's detail: "compilation failed: ERROR: <input>:1:1: ..." or "must evaluate to bool but got dyn"
    error: str | None = None
    issues: tuple[CompileIssue, ...] = ()
    uses_variables: tuple[str, ...] = ()
    # the checked program as written (the cost estimate reads it; ``program`` may be rewritten)
    checked_program: Any = None
    # a result may hold optional values: converted element by element (see to_python)
    holds_optionals: bool = False
    # why the program must not or cannot run (the engine would crash on it, or could not compile an
    # expression the apiserver accepts): an engine-limit error text, reported when it is evaluated
    unsafe: str | None = None
    # the program runs where it was checked, where request or namespaceObject (which it names) has the
    # apiserver's declared type: the engine takes their JSON values only through an activation (None: it
    # takes its data as given)
    typed_roots: TypedRoots | None = None
    # the declarations the program was compiled with (set with ``program``): a part of the expression is
    # compiled with them to be evaluated on its own (app.vap.explain)
    declarations: Declarations | None = None

    @property
    def engine_limit(self) -> bool:
        """True when the expression fails only because of a limit of the playground's engine."""
        text = self.error if self.error is not None else self.unsafe
        return text is not None and library.is_engine_limit(text)


# --------------------------------------------------------------------------------------------
# Environments


_current_scope: contextvars.ContextVar[VariableScope | None] = contextvars.ContextVar(
    "playground_variable_scope", default=None
)


def _variable_function_name(name: str) -> str:
    return "__playground_variable_" + name


def _variable_impl(name: str) -> Callable[[], Any]:
    def resolve() -> Any:
        return _resolve_variable(name)

    return resolve


def _resolve_variable(name: str) -> Any:
    scope = _current_scope.get()
    if scope is None:
        raise EvaluationError(f'composited variable "{name}" fails to evaluate: no such attribute(s): variables')
    return scope.resolve(name)


# Variables of these types are read through one function per type, taking the variable's name:
# expressions referencing any of them share one environment, whichever variables they reference (each
# environment costs the engine milliseconds on first use). A variable of any other type (an object type,
# an optional, a nested list) gets a function of its own, in environments per set of such variables
# referenced. The types most variables have: every environment declares a function for each.
_SHARED_VARIABLE_TYPES = ("DYN", "BOOL", "INT", "UINT", "DOUBLE", "STRING", "LIST<DYN>", "LIST<STRING>", "LIST<INT>",
                          "MAP<STRING, DYN>", "MAP<STRING, STRING>", "MAP<STRING, INT>", "LIST<MAP<STRING, DYN>>")


def _shared_variable_function(signature: str) -> str:
    return "__playground_variables_" + re.sub(r"[^A-Za-z0-9]+", "_", signature).strip("_").lower()


@cache
def _shared_variable_declarations() -> tuple[Any, ...]:
    return tuple(
        cel.FunctionDecl(
            _shared_variable_function(signature),
            [cel.Overload(_shared_variable_function(signature), _engine_type(signature), [cel.Type.STRING],
                          impl=_resolve_variable)],
        )
        for signature in _SHARED_VARIABLE_TYPES
    )


def _shares_environments(entry: Sequence[str]) -> bool:
    """Whether a variable (an entry of ``Declarations.variables``) is read through a shared function."""
    return entry[1] in _SHARED_VARIABLE_TYPES


_env_lock = threading.Lock()

# Environments kept of each kind (checking, running): about 0.2 MB each.
ENVIRONMENT_CACHE_SIZE = 128
# Compiled expressions kept (the key holds the text; a value holds one or two programs, some 10 KB).
COMPILE_CACHE_SIZE = 2048


_ADMISSION_TYPES: list[Callable[[], Any]] = []


def provide_admission_types(provider: Callable[[], Any]) -> None:
    """Set where the declared types of ``request`` and ``namespaceObject`` come from: the schemas
    package builds them on this package's library (:mod:`app.vap.schemas.decltypes` provides them when
    it is imported, as the core's entry point does), so this package cannot import it."""
    _ADMISSION_TYPES[:] = [provider]


def _admission_types() -> Any:
    """The declared types of ``request`` and ``namespaceObject`` (the other roots dyn), with their pool."""
    if not _ADMISSION_TYPES:
        raise RuntimeError("no provider of the admission types: import app.vap.schemas.decltypes first")
    return _ADMISSION_TYPES[0]()


def environment(decls: Declarations) -> Any:
    """Build (once) the environment expressions are checked in: ``request`` and ``namespaceObject``
    typed as in the apiserver (and every root of ``decls.types`` typed as given; in a scenario's evaluation, the
    typed roots it checks against declared besides, see :class:`Aliases`)."""
    if decls.types is None and decls.aliases is None and not decls.rule_roots:
        aliases = _current_aliases()
        if aliases is not None:
            decls = replace(decls, aliases=aliases)
    return _checking_environment(_own_functions(decls))


def _aliased(decls: Declarations, text: str) -> tuple[Declarations, dict[str, str]] | None:
    """For a check against schemas (``decls.types``) that the scenario's environment can make: the declarations of
    that environment, and the roots to rename in the text (see :class:`Aliases`)."""
    aliases = _current_aliases()
    if aliases is None or decls.types is None or decls.rule_roots:
        return None
    index = aliases.index(decls.types)
    if index is None or aliases.pool is not _admission_types().pool:
        return None
    if not all(_shares_environments(entry) for entry in decls.variables or ()):
        return None  # (a variable of a schema's type is declared by a function of its own: an environment apart)
    renames = aliases.renames(index)
    typed = [name for name, signature in decls.types.signatures if name in _ALIASED_ROOTS and signature != "DYN"]
    if any(name not in renames and mentions(text, name) for name in typed):
        return None  # (it names a typed root the scenario's environment does not declare)
    return replace(decls, types=None, aliases=aliases), renames


@fast.memo(ENVIRONMENT_CACHE_SIZE)
def _checking_environment(decls: Declarations) -> Any:
    return _build_environment(decls, typed=True)


def _own_functions(decls: Declarations) -> Declarations:
    """The declarations an environment is built from: of the variables, those read through a function
    of their own (every environment declares the shared ones, whichever variables those are)."""
    if decls.variables is None:
        return decls
    own = tuple(entry for entry in decls.variables if not _shares_environments(entry))
    if own == decls.variables:
        return decls
    return replace(decls, variables=own)


def runtime_environment(decls: Declarations) -> Any:
    """The environment programs run in: every root ``dyn``, so values keep JSON semantics, and every
    variable's function ``dyn`` (programs are checked elsewhere: it only runs them). With
    ``decls.types`` (type checking against schemas, which never runs a program) the checking one."""
    if decls.types is not None:
        return environment(decls)
    own = _own_functions(decls)
    names = tuple((entry[0], "DYN") for entry in own.variables or ())
    return _runtime_environment(Declarations(version=decls.version, params=decls.params, authorizer=decls.authorizer,
                                             variables=names, library=decls.library))


@fast.memo(ENVIRONMENT_CACHE_SIZE)
def _runtime_environment(decls: Declarations) -> Any:
    return _build_environment(decls, typed=False)


def variable_declaration(name: str, compiled: Compiled) -> tuple[str, str]:
    """A composited variable as the expressions after it see it (an entry of ``Declarations.variables``):
    its name and its checked type."""
    if compiled.checked_program is None:
        return name, "DYN"
    return name, compiled.engine_type


def _variable_signature(entry: Sequence[str], typed: bool) -> str:
    # the run-time environment only runs programs checked in the checking one: every variable is dyn there
    return entry[1] if typed else "DYN"


@cache
def _environment_config(version: str) -> Any:
    """The engine's reading of a version's environment configuration (the same for every environment)."""
    return cel.NewEnvConfigFromYaml(library.environment_yaml(version))


def _build_environment(decls: Declarations, *, typed: bool) -> Any:
    variables: dict[str, Any] = {
        "object": cel.Type.DYN,
        "oldObject": cel.Type.DYN,
        "request": cel.Type.DYN,
        "namespaceObject": cel.Type.DYN,
    } if not decls.rule_roots else {"self": cel.Type.DYN, "oldSelf": cel.Type.DYN}
    if decls.params:
        variables["params"] = cel.Type.DYN
    if decls.authorizer:
        variables.update(library.authorizer_variables(decls.version))
    # the functions variables of common types are read through, in every environment (declaring them costs
    # the engine nothing measurable; an expression naming them is refused, see _internal_names)
    functions = [*_library_functions(decls), *_shared_variable_declarations()]
    for entry in decls.variables or ():
        name, signature = entry[0], _variable_signature(entry, typed)
        encoded = _encoded_signature(signature)
        if encoded is not None and "TYPE<" in encoded:
            encoded = None  # the engine takes type values neither as declared results nor from Python
        functions.append(
            cel.FunctionDecl(
                _variable_function_name(name),
                [
                    cel.Overload(
                        _variable_function_name(name),
                        _engine_type(encoded if encoded is not None else "DYN"),
                        [],
                        impl=_variable_impl(name),
                    )
                ],
            )
        )
    pool = library.descriptor_pool()
    if typed:
        roots = decls.types if decls.types is not None else _admission_types()
        variables.update({k: t for k, t in roots.variable_types().items() if k in variables})
        pool = roots.pool
        if decls.aliases is not None and decls.aliases.pool is roots.pool:
            variables.update(decls.aliases.variable_types())
    with _env_lock:
        return cel.NewEnv(
            descriptor_pool=pool,
            config=_environment_config(decls.version),
            extensions=library.extensions(decls.version) if decls.library is True else [],
            variables=variables,
            functions=functions,
        )


def _library_functions(decls: Declarations) -> list[Any]:
    if decls.library is True:
        return library.function_decls(decls.version)
    if decls.library == BASIC:
        return library.basic_function_decls(decls.version)
    return []


def _engine_type(signature: str) -> Any:
    simple = {
        "BOOL": cel.Type.BOOL,
        "INT": cel.Type.INT,
        "UINT": cel.Type.UINT,
        "DOUBLE": cel.Type.DOUBLE,
        "STRING": cel.Type.STRING,
        "BYTES": cel.Type.BYTES,
        "NULL": cel.Type.NULL,
        "DYN": cel.Type.DYN,
        "TIMESTAMP": cel.Type.TIMESTAMP,
        "DURATION": cel.Type.DURATION,
    }
    if signature in simple:
        return simple[signature]
    m = re.fullmatch(r"(LIST|MAP|TYPE|optional_type)<(.*)>", signature.strip())
    if m:
        args = [_engine_type(a) for a in _split_type_args(m.group(2))]
        if m.group(1) == "LIST" and len(args) == 1:
            return cel.Type.List(args[0])
        if m.group(1) == "MAP" and len(args) == 2:
            return cel.Type.Map(args[0], args[1])
        if m.group(1) == "TYPE" and len(args) == 1:
            return cel.Type.Type(args[0])
        return cel.Type.DYN  # optional_type cannot be named back to the engine: checked as dyn
    try:
        return cel.Type(signature)
    except Exception:  # a type the engine cannot name back: keep the expression usable as dyn
        return cel.Type.DYN


# --------------------------------------------------------------------------------------------
# Type names as cel-go prints them


def type_name(engine_type: str) -> str:
    """Render an engine type signature the way cel-go names the type (``list(int)``, ``dyn`` ...)."""
    return library.type_display_name(engine_type)


_split_type_args = library.split_type_args


# --------------------------------------------------------------------------------------------
# Optional values through composited variables
#
# The engine cannot hand an optional value to Python or take one back, and a variable's value goes
# through Python (it is evaluated once, cached, and returned by the function its references are
# rewritten into). A variable whose type holds optionals is therefore evaluated in an encoded form
# (each optional(T) as a list of zero or one T) and decoded where it is referenced
# (``list[?0]`` gives the optional back). Maps of optionals cannot be encoded without
# ``transformMap``, which the engine cannot run: such a variable fails with an engine-limit error.

_OPTIONAL_SIGNATURE = re.compile(r"^optional_type<(.*)>$")
_LIST_SIGNATURE = re.compile(r"^LIST<(.*)>$")


def _holds_optional(signature: str) -> bool:
    return "optional_type<" in signature


def _encoded_signature(signature: str) -> str | None:
    """The type of a variable's encoded value (None: it cannot be encoded)."""
    if not _holds_optional(signature):
        return signature
    m = _OPTIONAL_SIGNATURE.match(signature)
    if m:
        inner = _encoded_signature(m.group(1))
        return None if inner is None else f"LIST<{inner}>"
    m = _LIST_SIGNATURE.match(signature)
    if m:
        inner = _encoded_signature(m.group(1))
        return None if inner is None else f"LIST<{inner}>"
    return None


def _encode_text(signature: str, text: str, depth: int = 0) -> str:
    """CEL text that turns the value of ``text`` (of type ``signature``) into its encoded form."""
    if not _holds_optional(signature):
        return text
    var = f"__playground_v{depth}"
    m = _OPTIONAL_SIGNATURE.match(signature)
    if m:
        return f"({text}).optMap({var}, [{_encode_text(m.group(1), var, depth + 1)}]).orValue([])"
    m = _LIST_SIGNATURE.match(signature)
    if m:
        return f"({text}).map({var}, {_encode_text(m.group(1), var, depth + 1)})"
    return text


def _decode_text(signature: str, text: str, depth: int = 0) -> str:
    """CEL text that turns an encoded value ``text`` back into a value of type ``signature``."""
    if not _holds_optional(signature):
        return text
    var = f"__playground_v{depth}"
    m = _OPTIONAL_SIGNATURE.match(signature)
    if m:
        if not _holds_optional(m.group(1)):
            return f"{text}[?0]"
        return f"{text}.map({var}, {_decode_text(m.group(1), var, depth + 1)})[?0]"
    m = _LIST_SIGNATURE.match(signature)
    if m:
        return f"{text}.map({var}, {_decode_text(m.group(1), var, depth + 1)})"
    return text


def _decode_value(signature: str, value: Any) -> Any:
    """A display form of an encoded value: optionals as ``optional.none()`` / ``{"optional.of": v}``."""
    if not _holds_optional(signature) or not isinstance(value, list):
        return value
    m = _OPTIONAL_SIGNATURE.match(signature)
    if m:
        return {"optional.of": _decode_value(m.group(1), value[0])} if value else "optional.none()"
    m = _LIST_SIGNATURE.match(signature)
    if m:
        return [_decode_value(m.group(1), v) for v in value]
    return value


def display_value(compiled: Compiled, value: Any) -> Any:
    """A JSON-ready display form of an evaluation result of ``compiled``: library values read as
    the CEL that builds them, optionals as ``optional.none()`` / ``{"optional.of": ...}``."""
    return library.render_value(_decode_value(compiled.engine_type, value))


# --------------------------------------------------------------------------------------------
# Rewriting variables.<name> into lazy calls

_IDENT = re.compile(r"[_a-zA-Z][_a-zA-Z0-9]*")


def _string_literals(quote: str) -> str:
    """The string literals opened by ``quote`` (one character): raw ones when the character before the opening quote
    is r or R (a backslash is then a character like any other), else a backslash takes the next character with it,
    whatever it is. A literal runs to its closing quote or to the end of the text; a single-quoted one also ends at a
    newline, which it takes. (The pattern starts with the quote, for the search to skip to the next one.)"""
    q = re.escape(quote)
    return (rf"{q}(?:(?<![rR]{q})(?:{q}{q}(?:[^\\{q}]+|\\[\s\S]|{q}(?!{q}{q}))*(?:{q}{q}{q}|\\?\Z)"
            rf"|(?:[^\\{q}\n]+|\\[\s\S])*(?:[{q}\n]|\\?\Z))"
            rf"|(?<=[rR]{q})(?:{q}{q}(?:[^{q}]+|{q}(?!{q}{q}))*(?:{q}{q}{q}|\Z)|[^{q}\n]*(?:[{q}\n]|\Z)))")


# a comment (to its line's end, the newline left to the code) or a string literal
_NOT_CODE = re.compile("|".join([r"//[^\n]*", _string_literals("'"), _string_literals('"')]))


@fast.memo(COMPILE_CACHE_SIZE)
def _code_spans(text: str) -> tuple[tuple[int, int], ...]:
    """Return the (start, end) spans of ``text`` that are code: not string literals or comments (read
    several times for each expression compiled)."""
    spans: list[tuple[int, int]] = []
    start = 0
    for m in _NOT_CODE.finditer(text):
        skipped_from, skipped_to = m.span()
        if start < skipped_from:
            spans.append((start, skipped_from))
        start = skipped_to
    if start < len(text):
        spans.append((start, len(text)))
    return tuple(spans)


code_spans = _code_spans  # (public: app.vap.explain splits expressions outside their strings and comments)

_VARIABLE_REF = re.compile(r"(?<![\w.])variables\s*\.\s*([_a-zA-Z][_a-zA-Z0-9]*)(?!\s*\()")


_PRESENCE_TEST = re.compile(r"(?<![\w.])has\s*\(\s*$")
_CLOSE = re.compile(r"\s*\)")


@dataclass
class _Rewrite:
    """A text with its ``variables.<name>`` references rewritten, and the way back to the original."""

    text: str
    # (start, end) in the rewritten text, (start, end) in the original, original offset of the '.'
    spans: list[tuple[int, int, int, int, int]] = field(default_factory=list)
    used: tuple[str, ...] = ()
    unknown: tuple[tuple[str, int], ...] = ()  # (name, original offset of the '.')
    # the rewriting this one was made from (its offsets are then in that one's text, see _rename_roots)
    inner: _Rewrite | None = None

    def original_offset(self, offset: int) -> int:
        """The offset in the original text of an offset in the rewritten one; a position inside a
        replacement is the '.' of ``variables.<name>``, where cel-go reports a selection."""
        shift = 0
        for new_start, new_end, _, orig_end, dot in self.spans:
            if offset < new_start:
                break
            if offset < new_end:
                offset, shift = dot, 0
                break
            shift = orig_end - new_end
        offset += shift
        return self.inner.original_offset(offset) if self.inner is not None else offset


_ROOT_NAME = re.compile(r"(?<![\w.])(object|oldObject|params)(?!\w)")


def _rename_roots(rewrite: _Rewrite, renames: Mapping[str, str]) -> _Rewrite:
    """The rewritten text with the roots ``renames`` names referenced under their new names (not a field of the
    same name, nor a word in a string); offsets lead back through ``rewrite`` to the original text."""
    text = rewrite.text
    out: list[str] = []
    spans: list[tuple[int, int, int, int, int]] = []
    pos = length = 0
    # (a text naming none of the roots anywhere has none in its code: its spans are not searched one by one)
    for start, end in _code_spans(text) if any(name in text for name in renames) else ():
        for m in _ROOT_NAME.finditer(text, start, end):
            if m.group(1) not in renames:
                continue
            before = text[start:m.start()].rstrip()
            if before.endswith(".") or (before.endswith("?") and before[:-1].rstrip().endswith(".")):
                continue  # a field selected by that name
            replacement = renames[m.group(1)]
            out.append(text[pos:m.start()])
            length += m.start() - pos
            spans.append((length, length + len(replacement), m.start(), m.end(), m.start()))
            out.append(replacement)
            length += len(replacement)
            pos = m.end()
    out.append(text[pos:])
    return _Rewrite("".join(out), spans, rewrite.used, rewrite.unknown, inner=rewrite)


@fast.memo(COMPILE_CACHE_SIZE)  # a text is rewritten for its environment's declarations, then checked
def _rewrite_variables(text: str, known: tuple[tuple[str, ...], ...]) -> _Rewrite:
    """Rewrite each ``variables.<name>`` of a known variable into the call that evaluates it lazily
    (decoded when its value holds optionals); note unknown names. The result is shared: its readers
    never change it."""
    signatures = {entry[0]: entry[1] for entry in known}
    out: list[str] = []
    spans: list[tuple[int, int, int, int, int]] = []
    used: list[str] = []
    unknown: list[tuple[str, int]] = []
    pos = 0
    length = 0  # length of the rewritten text so far
    for start, end in _code_spans(text) if "variables" in text else ():  # (none anywhere: none in the code)
        for m in _VARIABLE_REF.finditer(text, start, end):
            name = m.group(1)
            dot = text.index(".", m.start())
            if name not in signatures:
                unknown.append((name, dot))
                continue
            if _shares_environments((name, signatures[name])):
                call = f"{_shared_variable_function(signatures[name])}('{name}')"
            else:
                call = _variable_function_name(name) + "()"
            replacement = call if not _holds_optional(signatures[name]) else f"({_decode_text(signatures[name], call)})"
            begin, finish = m.start(), m.end()
            presence = _PRESENCE_TEST.search(text, 0, begin), _CLOSE.match(text, finish)
            if presence[0] and presence[1] and presence[0].end() == begin:
                # has(variables.x) evaluates x (pkg/cel/lazy MapValue.Find): true, or x's error
                begin, finish, replacement = presence[0].start(), presence[1].end(), f"([{call}].size() == 1)"
            out.append(text[pos:begin])
            length += begin - pos
            spans.append((length, length + len(replacement), begin, finish, dot))
            out.append(replacement)
            length += len(replacement)
            pos = finish
            if name not in used:
                used.append(name)
    out.append(text[pos:])
    return _Rewrite("".join(out), spans, tuple(used), tuple(unknown))


# --------------------------------------------------------------------------------------------
# Compiling

_ISSUE_HEAD = re.compile(r"^ERROR: <input>:(-?\d+):(-?\d+): (.*)$")


def _parse_issues(text: str) -> list[CompileIssue]:
    text = re.sub(r"^[A-Z_]+: ", "", text.strip(), count=1)
    text = re.sub(r" \[[A-Z_]+\]$", "", text)
    issues: list[CompileIssue] = []
    current: list[str] | None = None
    for line in text.split("\n"):
        m = _ISSUE_HEAD.match(line)
        if m:
            current = [m.group(3)]
            # the engine's own limits carry no position (-1:-1): the whole expression is at fault
            issue = CompileIssue(max(1, int(m.group(1))), max(1, int(m.group(2))), m.group(3))
            if issue not in issues:
                issues.append(issue)
        elif current is not None and not line.startswith(" | "):
            # a message that spans lines (rare): keep it on the issue
            last = issues[-1]
            issues[-1] = CompileIssue(last.line, last.column, last.message + "\n" + line)
    if not issues and text:
        issues.append(CompileIssue(1, 1, text))
    return issues


def render_issues(expression: str, issues: Sequence[CompileIssue]) -> str:
    """Render compile issues as cel-go does: an ERROR line, the source line and a caret each."""
    lines = expression.split("\n")
    blocks = []
    for issue in issues:
        block = f"ERROR: <input>:{issue.line}:{issue.column}: {issue.message}"
        if 1 <= issue.line <= len(lines):
            src = lines[issue.line - 1]
            block += "\n | " + src + "\n | " + "." * max(0, issue.column - 1) + "^"
        blocks.append(block)
    return "\n".join(blocks)


def _line_col(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, col


def _offset(text: str, line: int, column: int) -> int:
    lines = text.split("\n")
    return sum(len(x) + 1 for x in lines[: line - 1]) + column - 1


_INTERNAL_NAME = re.compile(r"(?<![\w.])(__playground_\w*|" + re.escape(library.INTERNAL_PREFIX) + r"\w*)(\s*\()?")


def _internal_names(text: str) -> list[tuple[str, int]]:
    """Names reserved for the playground's own rewriting, used in an expression's code, each with the
    offset cel-go reports an undeclared one at (a call's '(', else the identifier)."""
    if "__playground_" not in text and library.INTERNAL_PREFIX not in text:
        return []  # (none anywhere: none in the code)
    return [
        (m.group(1), m.end() - 1 if m.group(2) else m.start())
        for start, end in _code_spans(text)
        for m in _INTERNAL_NAME.finditer(text, start, end)
    ]


def _engine_issues(text: str, rewrite: _Rewrite, expression: str, decls: Declarations) -> list[CompileIssue]:
    """The issues of an engine compile error, positioned in the original expression, in cel-go's words."""
    issues = []
    for issue in _parse_issues(text):
        if decls.variables is not None and re.match(r"undeclared reference to 'variables[.']", issue.message):
            continue  # reported by the caller as cel-go does: an undefined field of `variables`
        offset = rewrite.original_offset(_offset(rewrite.text, issue.line, issue.column))
        line, col = _line_col(expression, offset)
        issue = CompileIssue(line, col, _translate_compile_message(issue.message))
        issues.append(_member_signature(_undeclared_root(issue, expression), expression))
    return issues


@fast.memo(COMPILE_CACHE_SIZE)  # asked for each check and compile of an expression
def _environment_declarations(decls: Declarations, text: str) -> Declarations:
    """The declarations of the environment ``text`` is compiled in: a root the expression never names
    (``params``, ``authorizer``, ``variables``, not even inside a string) cannot change what it compiles
    to, so it is declared as in most environments, and expressions of every kind share them."""
    params = decls.params or not mentions(text, "params")
    authorizer = decls.authorizer or not mentions(text, "authorizer")
    variables = decls.variables if mentions(text, "variables") else ()
    if variables:  # of the composited variables, those the expression references
        used = _rewrite_variables(text, variables).used
        variables = tuple(entry for entry in variables if entry[0] in used)
    if (params, authorizer, variables) == (decls.params, decls.authorizer, decls.variables):
        return decls
    return replace(decls, params=params, authorizer=authorizer, variables=variables)


@dataclass(frozen=True)
class _CompileFailure:
    error: Exception


@fast.memo(COMPILE_CACHE_SIZE)
def _engine_compile(env: Any, text: str) -> Any:
    """The engine's checked program for a text in an environment, or the failure: the same text checked as
    another kind of expression (a matchCondition and a validation alike), or with declarations that build the
    same environment (the variables it does not read left out), is compiled once; what a kind accepts is
    decided after (:func:`_check`)."""
    try:
        return env.compile(text)
    except Exception as exc:
        return _CompileFailure(exc)


@fast.memo(COMPILE_CACHE_SIZE)
def _check(expression: str, kind: str, decls: Declarations) -> tuple[Compiled, _Rewrite]:
    """Compile and check one expression in the checking environment: its errors and result type, and
    the checked program (no program to run). Also returns the text the engine compiled (variables
    rewritten)."""
    rewrite = _rewrite_variables(expression, decls.variables) if decls.variables is not None else _Rewrite(expression)
    aliased = _aliased(decls, expression)
    if aliased is not None:  # checked against schemas in the scenario's environment, its typed roots renamed
        env = environment(aliased[0])
        rewrite = _rename_roots(rewrite, aliased[1])
    else:
        env = environment(decls)
    compiled = Compiled(expression=expression, kind=kind, uses_variables=rewrite.used)
    issues: list[CompileIssue] = []
    program = _engine_compile(env, rewrite.text)
    if isinstance(program, _CompileFailure):  # the engine reports parse and check errors as one exception text
        exc = program.error
        program = None
        limit = library.compile_limit_error(str(exc))
        if limit is not None:
            # the engine cannot compile what the apiserver accepts: not an error of the policy, and
            # reported when the expression is evaluated
            compiled.unsafe = limit
            return compiled, rewrite
        issues.extend(_engine_issues(str(exc), rewrite, expression, decls))
    for name, dot in rewrite.unknown:
        line, col = _line_col(expression, dot)
        issues.append(CompileIssue(line, col, f"undefined field '{name}'"))
    for name, at in _internal_names(expression):
        if not any(i.message.startswith(f"undeclared reference to '{name}'") for i in issues):
            line, col = _line_col(expression, at)
            issues.append(CompileIssue(line, col, f"undeclared reference to '{name}' (in container '')"))
    if not issues:
        issues.extend(
            library.check_expression(
                program, rewrite.text, decls.version,
                locate=lambda offset: _line_col(expression, rewrite.original_offset(offset)),
            )
        )
    if issues:
        return _failed(compiled, issues), rewrite
    engine_type = program.return_type().name()
    compiled.engine_type = engine_type
    compiled.type_name = type_name(engine_type)
    expected = _EXPECTED_TYPES[kind]
    if expected is not None and compiled.type_name not in expected:
        if len(expected) == 1:
            compiled.error = f"must evaluate to {expected[0]} but got {compiled.type_name}"
        else:
            compiled.error = f"must evaluate to one of [{' '.join(expected)}] but got {compiled.type_name}"
        return compiled, rewrite
    compiled.checked_program = program
    return compiled, rewrite


def check_expression(expression: str, kind: str, decls: Declarations, *, evaluated_version: bool = False
                     ) -> Compiled:
    """Compile one expression of a kind for its errors and result type only, as API validation and
    type checking do: ``checked_program`` is set on success, ``program`` never. API validation checks in the
    version before the one evaluated, and shares the evaluation's check where the two check alike; a check in
    the evaluated version itself (``evaluated_version``: type checking) is made there, where it is shared."""
    decls = _environment_declarations(decls, expression)
    version = decls.version if evaluated_version else _checking_version(decls.version, expression)
    if version != decls.version:
        decls = replace(decls, version=version)
    return _check(expression, kind, decls)[0]


def library_level(texts: Iterable[str]) -> bool | str:
    """What of the library the checking environment of these expressions (a policy's) declares: BASIC
    when none of them may call more of it than its comparisons and string(), else all of it (always all of
    it while the fast paths are off)."""
    if not fast.on:
        return True
    return True if any(_may_call_beyond_basic(t) for t in texts) else BASIC


# (asked of each text of a policy by API validation, type checking and compiling alike)
_may_call_beyond_basic = fast.memo(COMPILE_CACHE_SIZE, name="cel.may_call_beyond_basic")(library.may_call_beyond_basic)


@fast.memo(COMPILE_CACHE_SIZE)  # asked of one text several times as it is checked, compiled and run
def mentions(text: str, *names: str) -> bool:
    """Whether the expression text names any of ``names`` as an identifier (inside a string too): ``name``
    with neither a letter, a digit nor ``_`` on either side. A name of those characters only is found among the
    text's runs of them, read once per text; another (``format.named``) is searched for."""
    runs = None
    for name in names:
        if _RUN.fullmatch(name):
            if runs is None:
                runs = _runs(text) if len(text) <= _KEPT_RUNS else _runs.__wrapped__(text)
            if name in runs:
                return True
        elif _mention(name).search(text) is not None:
            return True
    return False


_RUN = re.compile(r"[_a-zA-Z0-9]+")
_KEPT_RUNS = 16 * 1024  # characters of a text whose runs are kept (a longer one's are read each time)


@fast.memo(COMPILE_CACHE_SIZE)
def _runs(text: str) -> frozenset[str]:
    """Every longest run of letters, digits and ``_`` in the text."""
    return frozenset(_RUN.findall(text))


@fast.memo(256)
def _mention(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![_a-zA-Z0-9]){re.escape(name)}(?![_a-zA-Z0-9])")


@fast.memo(COMPILE_CACHE_SIZE)
def _checking_version(version: str, text: str) -> str:
    """A newer version whose environment checks ``text`` exactly as ``version``'s does (it declares
    nothing differently but functions the text never names), so that API validation, which checks
    in the previous version's environment, shares the environment evaluation runs in."""
    # the nearest such version: API validation checks in the version before the evaluation's, so the nearest is
    # the evaluation's own, whose check the evaluation's compile then shares
    for newer in library.SUPPORTED_VERSIONS:
        if library.version_tuple(newer) <= library.version_tuple(version):
            continue
        changes = library.declaration_changes(version, newer)
        if changes is not None and not mentions(text, *changes):
            return newer
    return version


@fast.memo(COMPILE_CACHE_SIZE)
def compile_expression(expression: str, kind: str, decls: Declarations) -> Compiled:
    """Compile one expression of a kind (validation, messageExpression, ...) in an environment."""
    decls = _environment_declarations(decls, expression)
    try:
        return _compile(expression, kind, decls)
    except _Rewritten:  # (BASIC) the library's rewriting changes the program: it runs where all of it is declared
        return _compile(expression, kind, replace(decls, library=True))


def _compile(expression: str, kind: str, decls: Declarations) -> Compiled:
    # the check API validation (or type checking) made is reused, not compiled again; the copy is this
    # expression's own object (its programs are set on it below)
    checked, rewrite = _check(expression, kind, decls)
    compiled = replace(checked)
    text = rewrite.text
    if compiled.checked_program is None:
        return compiled
    env = environment(decls)
    program = None
    if _runs_where_checked(text, decls):
        if not mentions(text, "request", "namespaceObject"):
            program = _runtime_program(env, compiled.checked_program, text, compiled.engine_type,
                                       decls.library is True)
        else:
            program = _typed_root_program(env, compiled.checked_program, text, compiled.engine_type,
                                          decls.library is True)
            if program is not None:
                compiled.typed_roots = TypedRoots(decls, text)
    if program is None:
        try:
            program = _dyn_program(env, compiled.checked_program, text, compiled.engine_type, decls)
        except _RuntimeRefused as exc:  # not seen: what type-checks with declared types also does with dyn ones
            return _failed(compiled, _engine_issues(str(exc), rewrite, expression, decls))
    compiled.program = program
    compiled.declarations = decls
    compiled.holds_optionals = library.may_hold_optionals(compiled.program)
    if compiled.holds_optionals and library.optional_maps_reach_python(compiled.program):
        compiled.unsafe = library.OPTIONAL_ARGUMENT
    return compiled


_PLAIN_TYPES = frozenset(("BOOL", "INT", "UINT", "DOUBLE", "STRING", "BYTES", "NULL", "DYN", "LIST", "MAP"))


def _runs_where_checked(text: str, decls: Declarations) -> bool:
    """Whether a program can run in the environment it was checked in, which saves building the
    run-time one: when every variable it references has a plain JSON type (what the run-time
    environment declares ``dyn`` is then handed over the same either way). A program naming
    ``request`` or ``namespaceObject``, whose declared types differ there, runs with their values in
    an activation (see :func:`_typed_root_program`)."""
    return all(set(re.findall(r"[A-Za-z_.]+", entry[1])) <= _PLAIN_TYPES for entry in decls.variables or ())


def _failed(compiled: Compiled, issues: list[CompileIssue]) -> Compiled:
    issues.sort(key=lambda i: (i.line, i.column))
    compiled.issues = tuple(issues)
    compiled.error = "compilation failed: " + render_issues(compiled.expression, issues)
    return compiled


def _runtime_text(text: str, engine_type: str) -> tuple[str, bool]:
    runtime_text = _guard_presence_tests(text)
    encoded = _holds_optional(engine_type) and _encoded_signature(engine_type) is not None
    if encoded:
        runtime_text = _encode_text(engine_type, runtime_text + "\n")
    return runtime_text, encoded


def _runtime_program(env: Any, checked: Any, text: str, engine_type: str, with_library: bool = True) -> Any:
    """The program to evaluate: presence tests on the roots guarded, a value holding optionals
    encoded (see display_value), and the library's rewriting of the checked AST applied (``with_library``
    False: an environment declaring not all of the library, where a rewriting raises _Rewritten)."""
    program = _guarded_program(env, checked, text, engine_type)
    if program is None:  # keep the checked program: same result except for has() on a null root
        program = checked
        if _runtime_text(text, engine_type)[1]:  # its value encoded all the same
            program = env.compile(_encode_text(engine_type, text + "\n"))
    return library.rewrite(program, env.deserialize if with_library else _refuse_rewriting)


class _RuntimeRefused(Exception):
    """The run-time environment refuses a text its checking environment accepted (the engine's message)."""


def _dyn_program(env: Any, checked: Any, text: str, engine_type: str, decls: Declarations) -> Any:
    """The program to evaluate where every root is ``dyn``, so that the engine takes JSON values for
    request and namespaceObject, and variables of any type (see :func:`runtime_environment`): in one
    without the library when the program calls none of it (a fraction of the set-up)."""
    program = None
    if not library.calls_library(checked, decls.version):
        lean = runtime_environment(replace(decls, library=False))
        program = _moved_program(env, lean, checked, text, engine_type, with_library=False)
    if program is None:
        runtime_env = runtime_environment(decls)
        program = _moved_program(env, runtime_env, checked, text, engine_type, with_library=decls.library is True)
        if program is None:  # the checking environment refuses the run-time text: compiled where it runs
            try:
                runtime_checked = runtime_env.compile(text)
            except Exception as exc:
                raise _RuntimeRefused(str(exc)) from exc
            program = _runtime_program(runtime_env, runtime_checked, text, engine_type, decls.library is True)
    return program


# evaluations of a typed-root program with its data as given after which it moves (see TypedRoots)
_MOVE_AFTER = 3


class TypedRoots:
    """How a program naming request or namespaceObject runs where it was checked (:func:`_typed_root_program`):
    with its values in an activation, which costs an evaluation a little more than data handed to the
    engine as given. Once it has been evaluated a few times with data as given (:func:`run`), it is
    compiled where every root is dyn and runs there: a first evaluation builds one environment fewer, a
    repeated one runs as quickly as any other."""

    __slots__ = ("decls", "text", "runs")

    def __init__(self, decls: Declarations, text: str) -> None:
        self.decls, self.text, self.runs = decls, text, 0

    def evaluated(self, compiled: Compiled) -> None:
        self.runs += 1
        if self.runs != _MOVE_AFTER:  # (tried once: a failure is never tried again)
            return
        try:
            program = _dyn_program(environment(self.decls), compiled.checked_program, self.text,
                                   compiled.engine_type, self.decls)
        except Exception:  # not seen (see _compile): it goes on running where it was checked
            return
        compiled.program = program  # (before typed_roots: another thread may be reading both)
        compiled.typed_roots = None


def _typed_root_program(env: Any, checked: Any, text: str, engine_type: str, with_library: bool) -> Any:
    """The program to evaluate, for a text naming ``request`` or ``namespaceObject``, in the environment
    it was checked in, where they have the apiserver's declared types. The engine refuses their JSON
    values as evaluation data there, but reads them from an activation as it reads them where every
    root is ``dyn`` (map keys for fields, the same errors for missing ones): evaluate it with one
    (``Compiled.typed_roots``). None when the checking environment refuses the run-time text (not
    seen: a presence test guarded with a comparison with null compiles there too): it then runs where
    every root is dyn; and always None while the fast paths are off."""
    if not fast.on:
        return None
    program = _guarded_program(env, checked, text, engine_type)
    if program is None:
        return None
    return library.rewrite(program, env.deserialize if with_library else _refuse_rewriting)


def _guarded_program(env: Any, checked: Any, text: str, engine_type: str) -> Any:
    """The run-time text (:func:`_runtime_text`) compiled in the checking environment, or the checked
    program when it is the text as checked; None when the checking environment refuses it."""
    runtime_text, _ = _runtime_text(text, engine_type)
    if runtime_text == text:
        return checked
    try:
        return env.compile(runtime_text)
    except Exception:  # e.g. a comparison of a typed root with null: the run-time environment compiles it
        return None


def _moved_program(env: Any, runtime_env: Any, checked: Any, text: str, engine_type: str,
                   with_library: bool = True) -> Any:
    """The program to evaluate, checked in the checking environment and run in the run-time one (its
    roots ``dyn``, so the engine takes JSON values for them), which then never type-checks anything.
    None when the checking environment refuses the run-time text (then it is compiled where it runs), and,
    for a run-time environment without the library (``with_library`` False), when the library's rewriting
    would call its functions."""
    program = _guarded_program(env, checked, text, engine_type)
    if program is None:
        return None
    try:
        moved = runtime_env.deserialize(program.serialize())
    except Exception:  # not seen: both environments declare the same names
        return None
    if not with_library:
        try:
            return library.rewrite(moved, _refuse_rewriting)
        except _Rewritten:
            return None
    return library.rewrite(moved, runtime_env.deserialize)


class _Rewritten(Exception):
    """The library's rewriting would change a program (its functions are then needed where it runs)."""


def _refuse_rewriting(serialized: bytes) -> Any:
    raise _Rewritten


_UNDECLARED_PATH = re.compile(
    r"^undeclared reference to '([_a-zA-Z][_a-zA-Z0-9]*)((?:\.[_a-zA-Z][_a-zA-Z0-9]*)+)'(.*)$", re.S
)


_NO_OVERLOAD = re.compile(r"^found no matching overload for '([_a-zA-Z][_a-zA-Z0-9]*)' applied to '\((.*)\)'$", re.S)


def _member_signature(issue: CompileIssue, source: str) -> CompileIssue:
    """cel-go writes a receiver call's argument types as ``string.(int)``; the engine as ``(string, int)``."""
    m = _NO_OVERLOAD.match(issue.message)
    if not m:
        return issue
    fn = m.group(1)
    lines = source.split("\n")
    if not 1 <= issue.line <= len(lines):
        return issue
    line = lines[issue.line - 1]
    paren = issue.column - 1  # the error is reported at the call's '('
    start = paren - len(fn)
    if line[paren : paren + 1] != "(" or start < 0 or line[start:paren] != fn:
        return issue
    if not line[:start].rstrip().endswith("."):
        return issue
    args = [a for a in library.split_type_args(m.group(2), "(", ")") if a]
    if not args:
        return issue
    signature = f"{args[0]}.({', '.join(args[1:])})"
    return CompileIssue(issue.line, issue.column, f"found no matching overload for '{fn}' applied to '{signature}'")


def _undeclared_root(issue: CompileIssue, source: str) -> CompileIssue:
    """cel-go names only the undeclared root identifier, at its own position; the engine names the dotted path."""
    m = _UNDECLARED_PATH.match(issue.message)
    if not m:
        return issue
    dotted = m.group(1) + m.group(2)
    lines = source.split("\n")
    column = issue.column
    if 1 <= issue.line <= len(lines):
        line = lines[issue.line - 1]
        starts = [i for i in range(len(line)) if line.startswith(dotted, i) and i < issue.column]
        if starts:
            column = starts[-1] + 1
    return CompileIssue(issue.line, column, f"undeclared reference to '{m.group(1)}'{m.group(3)}")


# has() of a field of a null root (object on DELETE, oldObject on CREATE, params without paramRef) is false
# in cel-go; the engine errors, so presence tests on the roots are guarded for evaluation.
_HAS_ON_ROOT = re.compile(r"has\(\s*(object|oldObject|params|namespaceObject)(\s*\.\s*[_a-zA-Z]\w*\s*\))")


def _guard_presence_tests(text: str) -> str:
    if "has(" not in text:
        return text  # (no presence test anywhere: none in the code)
    out, pos = [], 0
    for start, end in _code_spans(text):
        for m in _HAS_ON_ROOT.finditer(text, start, end):
            out.append(text[pos : m.start()])
            out.append(f"({m.group(1)} != null && has({m.group(1)}{m.group(2)})")
            pos = m.end()
    out.append(text[pos:])
    return "".join(out)


def _translate_compile_message(message: str) -> str:
    # the rewritten call names must never leak into a message; the engine's limits are named as such
    message = re.sub(r"__playground_variable_(\w+)\(\)", r"variables.\1", message)
    message = re.sub(r"__playground_variables_\w+\('(\w+)'\)", r"variables.\1", message)
    return library.translate_compile_message(message)


# --------------------------------------------------------------------------------------------
# Evaluating


class VariableScope:
    """The lazy ``variables`` of one activation: each is evaluated on first use and cached."""

    def __init__(self, variables: Mapping[str, Compiled], data: Mapping[str, Any] | Activation) -> None:
        self._variables = variables
        self._data = data
        self._cache: dict[str, Any] = {}
        self.evaluated: dict[str, Any] = {}  # name -> value or EvaluationError, for the results view

    def resolve(self, name: str) -> Any:
        if name in self._cache:
            value = self._cache[name]
            if isinstance(value, EvaluationError):
                raise value
            return value
        compiled = self._variables.get(name)
        if compiled is None:
            err = EvaluationError(f'composited variable "{name}" fails to evaluate: no such key: {name}')
        elif compiled.unsafe:
            err = EvaluationError(f'composited variable "{name}" fails to evaluate: {compiled.unsafe}')
        elif compiled.program is None:
            err = EvaluationError(f'composited variable "{name}" fails to compile: {compiled.error}')
        else:
            try:
                value = run(compiled, self._data, self)
            except EvaluationError as exc:
                err = EvaluationError(f'composited variable "{name}" fails to evaluate: {exc}')
            else:
                self.evaluated[name] = value
                value = library.to_engine(value)  # sub-microsecond digits are lost already
                self._cache[name] = value
                return value
        self._cache[name] = err
        self.evaluated[name] = err
        raise err


class Activation:
    """Input values shared by several evaluations: the engine converts each value once, on first use,
    instead of once per evaluation (pass it wherever a data mapping is accepted)."""

    __slots__ = ("data", "_engine", "costs")

    def __init__(self, data: Mapping[str, Any]) -> None:
        self.data = data
        self._engine: Any = None
        # the core cost of each program evaluated on these values, when they are kept for later
        # evaluations (a cost estimate depends on the program and the values only)
        self.costs: dict[Any, int | None] | None = None

    def engine(self) -> Any:
        if self._engine is None:
            self._engine = _activation_env().Activation(self.data)
        return self._engine


_ACTIVATION_ENV: Any = None


def _activation_env() -> Any:
    global _ACTIVATION_ENV
    if _ACTIVATION_ENV is None:
        _ACTIVATION_ENV = cel.NewEnv(descriptor_pool=library.descriptor_pool())
    return _ACTIVATION_ENV


# A result the engine cannot hand to Python: an optional where the checked type does not show one
# (a dyn-typed optional, an optional inside a map).
UNCONVERTIBLE_VALUE = (
    "the playground's CEL engine cannot convert this value (it holds an optional value where the type "
    "does not show one, or inside a map); kube-apiserver has no such limit and would use it"
)


def run(compiled: Compiled, data: Mapping[str, Any] | Activation, scope: VariableScope | None = None) -> Any:
    """:func:`evaluate` for a program that can run (``compiled.program`` set, ``compiled.unsafe`` not)."""
    value = attempt(compiled, data, scope)
    if value.__class__ is EvaluationError:
        raise value
    return value


def attempt(compiled: Compiled, data: Mapping[str, Any] | Activation, scope: VariableScope | None = None) -> Any:
    """:func:`run`, returning the EvaluationError it would raise instead of raising it: to a caller that
    records an error as one more result, raising and catching it costs more than evaluating a small
    expression."""
    # the variables' scope, for the functions `variables.<name>` is rewritten into
    token = _current_scope.set(scope) if compiled.uses_variables else None
    try:
        if data.__class__ is Activation:
            result = compiled.program.eval(activation=data.engine())
            data = data.data
        elif compiled.typed_roots is not None:
            typed_roots = compiled.typed_roots
            result = compiled.program.eval(activation=_activation_env().Activation(data))
            typed_roots.evaluated(compiled)
        else:
            result = compiled.program.eval(data=data)
    except MemoryError:  # out of the worker's memory bound: the evaluation fails as a whole, not the expression
        raise
    except Exception as exc:  # the engine raises, rather than returns, some errors (its own limits)
        return _caused(EvaluationError(library.translate_runtime_error(str(exc))), exc)
    finally:
        if token is not None:
            _current_scope.reset(token)
    type_name = compiled.type_name
    if type_name == "bool":  # the plain value of an error is its text: a bool is a result
        value = result.plain_value()
        if value is True or value is False:
            return value
        if value.__class__ is str:  # an error: nothing else of a bool-typed program reads as text
            if value.endswith(_SELECT_ON_NULL):
                return EvaluationError(_activation_error(value, compiled.expression, data))
            return EvaluationError(_error_text(value))
    elif not compiled.holds_optionals and (type_name.startswith("map(") or type_name.startswith("list(")):
        value = result.plain_value()  # (a map or a list: a text can only be an error's)
        if value.__class__ is not str:
            return value
        return EvaluationError(_activation_error(value, compiled.expression, data))
    if result.type().name() == "ERROR":  # an optional value reads as ERROR too, without an error text
        return EvaluationError(_activation_error(str(result.value()), compiled.expression, data))
    try:
        return to_python(result, careful=compiled.holds_optionals)
    except TypeError as exc:
        return _caused(EvaluationError(UNCONVERTIBLE_VALUE), exc)


def _caused(error: EvaluationError, cause: BaseException) -> EvaluationError:
    error.__cause__ = cause
    return error


_MISSING_VALUE = re.compile(r'^(?:[A-Z_]+: )?No value with name "([^"]+)" found in Activation$')
_SELECT_ON_NULL = "Applying SELECT to non-message type"


def _activation_error(text: str, source: str, data: Mapping[str, Any]) -> str:
    """Translate an engine error, naming what the engine leaves out (the missing attribute or key)."""
    if text.endswith(_SELECT_ON_NULL):
        # cel-go reports a field selected on null (object on DELETE, oldObject on CREATE) as a missing key.
        for root, name in _root_fields(source):
            if root in data and data[root] is None:
                return f"no such key: {name}"
        return "no such key"
    return _error_text(text)


@fast.memo(COMPILE_CACHE_SIZE)
def _error_text(text: str) -> str:
    m = _MISSING_VALUE.match(text)
    if m:
        return f"no such attribute(s): {m.group(1)}"
    return library.translate_runtime_error(text)


@fast.memo(COMPILE_CACHE_SIZE)
def _root_fields(source: str) -> tuple[tuple[str, str], ...]:
    """The fields selected directly on a root that can be null, in the order the expression has them."""
    return tuple((m.group(1), m.group(2)) for m in _ROOT_FIELD.finditer(source))


_ROOT_FIELD = re.compile(r"(?<![\w.])(object|oldObject|params|namespaceObject)\s*\.\??\s*([_a-zA-Z]\w*)")


def to_python(value: Any, careful: bool = False) -> Any:
    """Convert an engine value into plain Python (dict, list, str, int, float, bool, None ...).

    ``careful``: the value may hold optionals, which the engine's own conversion cannot handle (it
    fails on a list holding one and crashes on a map holding one): containers are then walked here,
    and an optional inside raises TypeError.
    """
    if not careful:
        return value.plain_value()
    kind = value.type().name()
    if kind == "ERROR":  # an optional (an error value cannot sit inside a container)
        raise TypeError("optional value")
    if kind.startswith("LIST"):
        return [to_python(v, careful=True) for v in value.value()]
    if kind.startswith("MAP"):
        return {k: to_python(v, careful=True) for k, v in value.value().items()}
    return value.plain_value()


def evaluate(compiled: Compiled, data: Mapping[str, Any] | Activation, scope: VariableScope | None = None) -> Any:
    """Evaluate a compiled expression; raise EvaluationError with cel-go's text on failure."""
    if compiled.unsafe:
        raise EvaluationError(compiled.unsafe)
    if compiled.program is None:
        raise EvaluationError(f"compilation error: {compiled.error}")
    return run(compiled, data, scope)
