"""The one place that talks to the CEL engine (cel-expr-python).

Mirrors k8s.io/apiserver/pkg/admission/plugin/cel (compile.go, composition.go): expressions are
compiled against a declared environment, their result type checked exactly, and evaluated against
plain JSON-like values. Composited variables are evaluated lazily, once per activation, as
pkg/cel/lazy does: the engine has no lazy bindings, so each ``variables.<name>`` is rewritten into a
call of a declared function whose implementation evaluates the variable on first use.
"""

from __future__ import annotations

import contextvars
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from cel_expr_python import cel

from . import library

# Kinds of expressions, each with the result types the apiserver accepts (None: anything).
VALIDATION = "validation"
MATCH_CONDITION = "matchCondition"
MESSAGE_EXPRESSION = "messageExpression"
AUDIT_ANNOTATION = "auditAnnotation"
VARIABLE = "variable"

_EXPECTED_TYPES: dict[str, tuple[str, ...] | None] = {
    VALIDATION: ("bool",),
    MATCH_CONDITION: ("bool",),
    MESSAGE_EXPRESSION: ("string",),
    AUDIT_ANNOTATION: ("string", "null_type"),
    VARIABLE: None,
}


class EvaluationError(Exception):
    """A CEL run-time error, with the text cel-go would give."""


@dataclass(frozen=True)
class CompileIssue:
    """One compile error, positioned in the expression text (1-based line and column)."""

    line: int
    column: int
    message: str


@dataclass(frozen=True)
class Declarations:
    """What an expression may reference; the key of the environment cache."""

    version: str = library.DEFAULT_VERSION
    params: bool = False
    authorizer: bool = True
    # (name, engine type signature) of the composited variables visible to the expression, in order;
    # None when `variables` is not declared at all (matchConditions).
    variables: tuple[tuple[str, str], ...] | None = ()
    # Declared types of the roots (object, oldObject, params, request, namespaceObject) and the descriptor
    # pool holding them, for type checking (app.vap.schemas.decltypes.TypedRoots); None: every root is dyn.
    types: Any = None


@dataclass
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


# --------------------------------------------------------------------------------------------
# Environments


_current_scope: contextvars.ContextVar[VariableScope | None] = contextvars.ContextVar(
    "playground_variable_scope", default=None
)


def _variable_function_name(name: str) -> str:
    return "__playground_variable_" + name


def _variable_impl(name: str) -> Callable[[], Any]:
    def resolve() -> Any:
        scope = _current_scope.get()
        if scope is None:
            raise EvaluationError(f'composited variable "{name}" fails to evaluate: no such attribute(s): variables')
        return scope.resolve(name)

    return resolve


_env_lock = threading.Lock()


@lru_cache(maxsize=512)
def environment(decls: Declarations) -> Any:
    """Build (once) the engine environment for a set of declarations."""
    variables: dict[str, Any] = {
        "object": cel.Type.DYN,
        "oldObject": cel.Type.DYN,
        "request": cel.Type.DYN,
        "namespaceObject": cel.Type.DYN,
    }
    if decls.params:
        variables["params"] = cel.Type.DYN
    if decls.authorizer:
        variables.update(library.authorizer_variables(decls.version))
    functions = list(library.function_decls(decls.version))
    for name, signature in decls.variables or ():
        functions.append(
            cel.FunctionDecl(
                _variable_function_name(name),
                [
                    cel.Overload(
                        _variable_function_name(name),
                        _engine_type(signature),
                        [],
                        impl=_variable_impl(name),
                    )
                ],
            )
        )
    pool = library.descriptor_pool()
    if decls.types is not None:
        variables.update({k: t for k, t in decls.types.variable_types().items() if k in variables})
        pool = decls.types.pool
    config = cel.NewEnvConfigFromYaml(library.environment_yaml(decls.version))
    with _env_lock:
        return cel.NewEnv(
            descriptor_pool=pool,
            config=config,
            extensions=library.extensions(decls.version),
            variables=variables,
            functions=functions,
        )


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
    s = engine_type.strip()
    scalar = {
        "BOOL": "bool",
        "INT": "int",
        "UINT": "uint",
        "DOUBLE": "double",
        "STRING": "string",
        "BYTES": "bytes",
        "NULL": "null_type",
        "DYN": "dyn",
        "TIMESTAMP": "google.protobuf.Timestamp",
        "DURATION": "google.protobuf.Duration",
        "ERROR": "*error*",
    }
    if s in scalar:
        return scalar[s]
    m = re.fullmatch(r"(LIST|MAP|TYPE|optional_type)<(.*)>", s)
    if m:
        outer, inner = m.groups()
        args = ", ".join(type_name(a) for a in _split_type_args(inner))
        name = {"LIST": "list", "MAP": "map", "TYPE": "type", "optional_type": "optional_type"}[outer]
        return f"{name}({args})"
    return s


def _split_type_args(inner: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(inner):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(inner[start:i])
            start = i + 1
    parts.append(inner[start:])
    return [p.strip() for p in parts]


# --------------------------------------------------------------------------------------------
# Rewriting variables.<name> into lazy calls

_IDENT = re.compile(r"[_a-zA-Z][_a-zA-Z0-9]*")


def _code_spans(text: str) -> list[tuple[int, int]]:
    """Return the (start, end) spans of ``text`` that are code: not string literals or comments."""
    spans: list[tuple[int, int]] = []
    i, start, n = 0, 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "/" and text.startswith("//", i):
            spans.append((start, i))
            end = text.find("\n", i)
            i = n if end < 0 else end
            start = i
            continue
        if ch in "'\"":
            spans.append((start, i))
            raw = i > 0 and text[i - 1] in "rR"
            quote = text[i : i + 3] if text.startswith(ch * 3, i) else ch
            j = i + len(quote)
            while j < n and not text.startswith(quote, j):
                if text[j] == "\\" and not raw:
                    j += 1
                elif text[j] == "\n" and len(quote) == 1:
                    break
                j += 1
            i = min(n, j + len(quote))
            start = i
            continue
        i += 1
    spans.append((start, n))
    return [s for s in spans if s[0] < s[1]]


_VARIABLE_REF = re.compile(r"(?<![\w.])variables\s*\.\s*([_a-zA-Z][_a-zA-Z0-9]*)(?!\s*\()")


@dataclass
class _Rewrite:
    text: str
    # (position in rewritten text, shift to add to get the original position) from that point on
    shifts: list[tuple[int, int]] = field(default_factory=list)
    used: tuple[str, ...] = ()
    unknown: tuple[tuple[str, int], ...] = ()  # (name, original offset of the '.')

    def original_offset(self, offset: int) -> int:
        shift = 0
        for at, s in self.shifts:
            if offset >= at:
                shift = s
        return offset + shift


def _rewrite_variables(text: str, known: Sequence[str]) -> _Rewrite:
    out: list[str] = []
    shifts: list[tuple[int, int]] = []
    used: list[str] = []
    unknown: list[tuple[str, int]] = []
    pos = 0
    delta = 0  # original - rewritten
    for start, end in _code_spans(text):
        for m in _VARIABLE_REF.finditer(text, start, end):
            name = m.group(1)
            if name not in known:
                unknown.append((name, text.index(".", m.start())))
                continue
            out.append(text[pos : m.start()])
            replacement = _variable_function_name(name) + "()"
            out.append(replacement)
            pos = m.end()
            new_end = sum(len(p) for p in out)
            delta += (m.end() - m.start()) - len(replacement)
            shifts.append((new_end, delta))
            if name not in used:
                used.append(name)
    out.append(text[pos:])
    return _Rewrite("".join(out), shifts, tuple(used), tuple(unknown))


# --------------------------------------------------------------------------------------------
# Compiling

_ISSUE_HEAD = re.compile(r"^ERROR: <input>:(\d+):(\d+): (.*)$")


def _parse_issues(text: str) -> list[CompileIssue]:
    text = re.sub(r"^[A-Z_]+: ", "", text.strip(), count=1)
    text = re.sub(r" \[[A-Z_]+\]$", "", text)
    issues: list[CompileIssue] = []
    current: list[str] | None = None
    for line in text.split("\n"):
        m = _ISSUE_HEAD.match(line)
        if m:
            current = [m.group(3)]
            issues.append(CompileIssue(int(m.group(1)), int(m.group(2)), ""))
            issues[-1] = CompileIssue(issues[-1].line, issues[-1].column, m.group(3))
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


@lru_cache(maxsize=4096)
def compile_expression(expression: str, kind: str, decls: Declarations) -> Compiled:
    """Compile one expression of a kind (validation, messageExpression, ...) in an environment."""
    env = environment(decls)
    known = [name for name, _ in decls.variables or ()]
    rewrite = _rewrite_variables(expression, known) if decls.variables is not None else _Rewrite(expression)
    compiled = Compiled(expression=expression, kind=kind, uses_variables=rewrite.used)
    issues: list[CompileIssue] = []
    program = None
    try:
        program = env.compile(rewrite.text)
    except Exception as exc:  # the engine reports parse and check errors as one exception text
        for issue in _parse_issues(str(exc)):
            if decls.variables is not None and re.match(r"undeclared reference to 'variables[.']", issue.message):
                continue  # reported below as cel-go does: an undefined field of `variables`
            offset = rewrite.original_offset(_offset(rewrite.text, issue.line, issue.column))
            line, col = _line_col(expression, offset)
            issues.append(_undeclared_root(CompileIssue(line, col, _translate_compile_message(issue.message)),
                                           expression))
    for name, dot in rewrite.unknown:
        line, col = _line_col(expression, dot)
        issues.append(CompileIssue(line, col, f"undefined field '{name}'"))
    if issues:
        issues.sort(key=lambda i: (i.line, i.column))
        compiled.issues = tuple(issues)
        compiled.error = "compilation failed: " + render_issues(expression, issues)
        return compiled
    extra = library.check_expression(program, expression, decls.version)
    if extra:
        compiled.issues = tuple(extra)
        compiled.error = "compilation failed: " + render_issues(expression, extra)
        return compiled
    engine_type = program.return_type().name()
    compiled.engine_type = engine_type
    compiled.type_name = type_name(engine_type)
    expected = _EXPECTED_TYPES[kind]
    if expected is not None and compiled.type_name not in expected:
        if len(expected) == 1:
            compiled.error = f"must evaluate to {expected[0]} but got {compiled.type_name}"
        else:
            compiled.error = f"must evaluate to one of [{' '.join(expected)}] but got {compiled.type_name}"
        return compiled
    guarded = _guard_presence_tests(rewrite.text)
    if guarded != rewrite.text:
        try:
            program = env.compile(guarded)
        except Exception:  # keep the unguarded program: same result except for has() on null
            pass
    compiled.program = program
    _program_source[id(program)] = expression
    return compiled


_UNDECLARED_PATH = re.compile(
    r"^undeclared reference to '([_a-zA-Z][_a-zA-Z0-9]*)((?:\.[_a-zA-Z][_a-zA-Z0-9]*)+)'(.*)$", re.S
)


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
    out, pos = [], 0
    for start, end in _code_spans(text):
        for m in _HAS_ON_ROOT.finditer(text, start, end):
            out.append(text[pos : m.start()])
            out.append(f"({m.group(1)} != null && has({m.group(1)}{m.group(2)})")
            pos = m.end()
    out.append(text[pos:])
    return "".join(out)


def _translate_compile_message(message: str) -> str:
    # the rewritten call names must never leak into a message
    return re.sub(r"__playground_variable_(\w+)\(\)", r"variables.\1", message)


# --------------------------------------------------------------------------------------------
# Evaluating


class VariableScope:
    """The lazy ``variables`` of one activation: each is evaluated on first use and cached."""

    def __init__(self, variables: Mapping[str, Compiled], data: Mapping[str, Any]) -> None:
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
        elif compiled.program is None:
            err = EvaluationError(f'composited variable "{name}" fails to compile: {compiled.error}')
        else:
            try:
                value = _run(compiled.program, self._data, self)
            except EvaluationError as exc:
                err = EvaluationError(f'composited variable "{name}" fails to evaluate: {exc}')
            else:
                self._cache[name] = value
                self.evaluated[name] = value
                return value
        self._cache[name] = err
        self.evaluated[name] = err
        raise err


def _run(program: Any, data: Mapping[str, Any], scope: VariableScope | None) -> Any:
    token = _current_scope.set(scope)
    try:
        result = program.eval(data=data)
    except Exception as exc:  # the engine raises, rather than returns, some errors (its own limits)
        raise EvaluationError(library.translate_runtime_error(str(exc))) from exc
    finally:
        _current_scope.reset(token)
    if result.type().name() == "ERROR":
        raise EvaluationError(_activation_error(str(result.value()), program, data))
    return to_python(result)


_MISSING_VALUE = re.compile(r'^(?:[A-Z_]+: )?No value with name "([^"]+)" found in Activation$')
_SELECT_ON_NULL = "Applying SELECT to non-message type"


def _activation_error(text: str, program: Any, data: Mapping[str, Any]) -> str:
    """Translate an engine error, naming what the engine leaves out (the missing attribute or key)."""
    m = _MISSING_VALUE.match(text)
    if m:
        return f"no such attribute(s): {m.group(1)}"
    if text.endswith(_SELECT_ON_NULL):
        # cel-go reports a field selected on null (object on DELETE, oldObject on CREATE) as a missing key.
        source = _program_source.get(id(program), "")
        for m in re.finditer(r"(?<![\w.])(object|oldObject|params|namespaceObject)\s*\.\??\s*([_a-zA-Z]\w*)", source):
            if m.group(1) in data and data[m.group(1)] is None:
                return f"no such key: {m.group(2)}"
        return "no such key"
    return library.translate_runtime_error(text)


_program_source: dict[int, str] = {}


def to_python(value: Any) -> Any:
    """Convert an engine value into plain Python (dict, list, str, int, float, bool, None ...)."""
    return value.plain_value()


def evaluate(compiled: Compiled, data: Mapping[str, Any], scope: VariableScope | None = None) -> Any:
    """Evaluate a compiled expression; raise EvaluationError with cel-go's text on failure."""
    if compiled.program is None:
        raise EvaluationError(f"compilation error: {compiled.error}")
    return _run(compiled.program, data, scope)
