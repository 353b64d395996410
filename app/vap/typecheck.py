"""Type checking a ValidatingAdmissionPolicy against the schemas of the kinds it matches.

Mirrors k8s.io/apiserver/pkg/admission/plugin/policy/validating/typechecking.go: the kinds to
check are those the RESTMapper resolves from ``spec.matchConstraints.resourceRules`` (a rule with
a wildcard group or version is skipped, so is a wildcard or subresource entry of ``resources``,
and no more than 10 kinds are collected); each expression is compiled once per kind with
``object``/``oldObject`` declared as that kind's type, ``params`` as the paramKind's type when its
schema is known, ``request`` and ``namespaceObject`` as the apiserver's hand-written types, and
the variables typed by compiling them in the same environment. Every failure becomes an
ExpressionWarning: ``fieldRef`` (``spec.validations[0].expression``) and ``warning``, one
``<group/version, Kind=kind>: <compiler issues>`` paragraph per kind, as ``status.typeChecking``
has it.

The apiserver checks validations and messageExpressions and accepts any result type; the
playground also checks matchConditions, variables and auditAnnotations, and reports a result of
the wrong type (a validation that is not bool: ``must evaluate to bool but got int``).

Rule: type checking never changes a decision; its results are warnings only.
"""

from __future__ import annotations

import json
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from . import cel, compiler, decoding, fast, reach
from .documents import Document, Problem
from .mutating import expressions
from .mutating import policy as map_policy
from .resources import ResourceTable
from .schemas import KindSchema, SchemaSet
from .schemas.decltypes import Named, TypedRoots, kind_types, typed_roots, words
from .schemas.validate import render_path

MAX_TYPES_TO_CHECK = 10


@dataclass(frozen=True)
class Issue:
    """One compiler issue of one expression against one kind (1-based position in the expression)."""

    kind: str  # "apps/v1, Kind=Deployment"
    line: int
    column: int
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "line": self.line, "column": self.column, "message": self.message}


@dataclass(frozen=True)
class ExpressionWarning:
    """The type-checking warning of one expression, as ``status.typeChecking.expressionWarnings[]``."""

    field_ref: str
    warning: str
    issues: tuple[Issue, ...]

    def to_json(self) -> dict[str, Any]:
        return {"fieldRef": self.field_ref, "warning": self.warning, "issues": [i.to_json() for i in self.issues]}


@dataclass(frozen=True)
class TypeChecking:
    """What type checking one policy found."""

    kinds: tuple[str, ...]  # the kinds checked, "apps/v1, Kind=Deployment"
    params: str | None  # the paramKind whose schema typed `params`, or None (dyn)
    warnings: tuple[ExpressionWarning, ...]
    explanation: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "expressionWarnings": [w.to_json() for w in self.warnings],
            "checkedKinds": list(self.kinds),
            "paramKind": self.params,
            "explanation": list(self.explanation),
        }


# --------------------------------------------------------------------------------------------
# Which kinds


@dataclass
class _Kinds:
    gvks: list[tuple[str, str, str]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def _strings(value: Any) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else []


def _kinds_for(table: ResourceTable, group: str, version: str, resource: str) -> list[tuple[str, str, str]]:
    """RESTMapper.KindsFor a fully specified resource: its kind, if a served resource (plural or singular)."""
    info = table.by_resource(group, version, resource.lower())
    if info is None:
        info = next((i for i in table if i.gvr.group == group and i.gvr.version == version
                     and i.kind.lower() == resource.lower()), None)
    if info is None or not info.served:
        return []
    return [(group, version, info.kind)]


def types_to_check(spec: Mapping[str, Any], table: ResourceTable) -> _Kinds:
    """The kinds whose schemas the policy is checked against, sorted by group, version and kind."""
    out = _Kinds()
    constraints = spec.get("matchConstraints")
    rules = constraints.get("resourceRules") if isinstance(constraints, Mapping) else None
    if not isinstance(rules, list) or not rules:
        out.skipped.append("the policy has no matchConstraints.resourceRules")
        return out
    found: set[tuple[str, str, str]] = set()
    count = 0
    for index, rule in enumerate(rules):
        if not isinstance(rule, Mapping):
            continue
        groups, versions = _strings(rule.get("apiGroups")), _strings(rule.get("apiVersions"))
        resources = [r for r in _strings(rule.get("resources")) if not any(c in r for c in "*/")]
        where = f"resourceRules[{index}]"
        if not groups or not versions:
            continue  # matches nothing
        if any("*" in g for g in groups):
            out.skipped.append(f"{where}: a wildcard API group matches kinds that are not type-checked")
            continue
        if any("*" in v for v in versions):
            out.skipped.append(f"{where}: a wildcard API version matches kinds that are not type-checked")
            continue
        if len(resources) < len(_strings(rule.get("resources"))):
            out.skipped.append(f"{where}: wildcard and subresource entries of resources are not type-checked")
        for group in sorted(groups):
            for version in sorted(versions):
                for resource in sorted(resources):
                    kinds = _kinds_for(table, group, version, resource)
                    if not kinds:
                        gv = f"{group}/{version}" if group else version
                        out.skipped.append(f"{where}: no served resource {resource!r} in {gv}: not type-checked")
                    for gvk in kinds:
                        found.add(gvk)
                        count += 1
                        if count == MAX_TYPES_TO_CHECK:
                            out.gvks = sorted(found)
                            out.skipped.append(f"only the first {MAX_TYPES_TO_CHECK} kinds are type-checked, "
                                               "as in kube-apiserver")
                            return out
    out.gvks = sorted(found)
    return out


def param_gvk(spec: Mapping[str, Any]) -> tuple[str, str, str] | None:
    """The paramKind as a group/version/kind, or None."""
    param_kind = spec.get("paramKind")
    if not isinstance(param_kind, Mapping):
        return None
    api_version = str(param_kind.get("apiVersion") or "")
    kind = str(param_kind.get("kind") or "")
    if not api_version or not kind or api_version.count("/") > 1:
        return None
    group, _, version = api_version.rpartition("/")
    return group, version, kind


# --------------------------------------------------------------------------------------------
# Compiling every expression against one kind


@dataclass(frozen=True)
class _Site:
    field_ref: str
    expression: str
    kind: str  # cel.VALIDATION, ...
    # a MutatingAdmissionPolicy's mutation: the expression as written (``expression`` is what the engine compiles,
    # see app.vap.mutating.expressions) and where each place of it is in the text as written
    written: Any = None


def _sites(spec: Mapping[str, Any]) -> list[_Site]:
    sites: list[_Site] = []

    def items(key: str) -> list[tuple[int, Mapping[str, Any]]]:
        value = spec.get(key)
        return [(i, v) for i, v in enumerate(value) if isinstance(v, Mapping)] if isinstance(value, list) else []

    for i, mc in items("matchConditions"):
        sites.append(_Site(f"spec.matchConditions[{i}].expression", _trimmed(str(mc.get("expression") or "")),
                           cel.MATCH_CONDITION))
    for i, v in items("variables"):
        sites.append(_Site(f"spec.variables[{i}].expression", str(v.get("expression") or ""), cel.VARIABLE))
    for i, v in items("validations"):
        sites.append(_Site(f"spec.validations[{i}].expression", str(v.get("expression") or ""), cel.VALIDATION))
        if v.get("messageExpression"):
            sites.append(_Site(f"spec.validations[{i}].messageExpression", str(v["messageExpression"]),
                               cel.MESSAGE_EXPRESSION))
    for i, a in items("auditAnnotations"):
        sites.append(_Site(f"spec.auditAnnotations[{i}].valueExpression", str(a.get("valueExpression") or ""),
                           cel.AUDIT_ANNOTATION))
    for i, m in items("mutations"):
        member = "applyConfiguration" if m.get("patchType") == "ApplyConfiguration" else "jsonPatch"
        if isinstance(m.get(member), Mapping):
            written = str(m[member].get("expression") or "")
            rewritten = expressions.rewrite(written.rstrip())  # (as it is compiled to run: the check is shared)
            sites.append(_Site(f"spec.mutations[{i}].{member}.expression", rewritten.text, cel.MUTATION,
                               (written, rewritten)))
    return sites


def _trimmed(expression: str) -> str:
    """A matchCondition's text as it is compiled to run (trimmed), when that moves no position in it (nothing
    to trim at its start): the check is then shared with that compile."""
    trimmed = expression.strip()
    return trimmed if expression.startswith(trimmed) else expression


def _as_written(site: _Site, issues: list[cel.CompileIssue]) -> tuple[str, list[cel.CompileIssue]]:
    """A site's text and issues as the user wrote them (a mutation's were found in its rewritten text)."""
    if site.written is None:
        return site.expression, issues
    written, rewritten = site.written
    moved = []
    for issue in issues:
        lines = rewritten.text.split("\n")
        offset = sum(len(x) + 1 for x in lines[: issue.line - 1]) + issue.column - 1
        at = rewritten.original_offset(offset)
        before = written[:at]
        moved.append(cel.CompileIssue(before.count("\n") + 1, at - (before.rfind("\n") + 1) + 1, issue.message))
    return written, moved


def _check_site(expression: str, kind: str, typed: cel.Declarations, plain: cel.Declarations | None) -> cel.Compiled:
    """Check one expression with typed roots. When it never names a root typed from a schema (not
    even in a string) and every variable it can see has the same type in both (``plain`` is given),
    the check where those roots are dyn is the same check: it is used when it passes, which spares
    building an environment over the kind's types for expressions that do not read the object."""
    # the roots typed from schemas (request, namespaceObject and authorizer are typed alike everywhere)
    if plain is not None and not cel.mentions(expression, *_SCHEMA_ROOTS):
        compiled = cel.check_expression(expression, kind, plain, evaluated_version=True)
        if compiled.error is None:
            return compiled
    elif plain is not None and kind == cel.MUTATION and fast.on:
        # A mutation's literal of initialisers adds nothing to the types of what it holds: when the whole checks
        # where those roots are dyn, and each of its parts that names one checks typed, the whole checks typed too
        # (a long JSONPatch reading one field of the object is not compiled again for that field). Any issue: the
        # whole is checked typed, for the issues as that check words and places them.
        pieces = expressions.parts(expression)
        if pieces is not None:
            compiled = cel.check_expression(expression, kind, plain, evaluated_version=True)
            if compiled.error is None and all(
                    cel.check_expression(piece, kind, typed, evaluated_version=True).error is None
                    for piece in pieces if cel.mentions(piece, *_SCHEMA_ROOTS)):
                return compiled
    return cel.check_expression(expression, kind, typed, evaluated_version=True)


_SCHEMA_ROOTS = ("object", "oldObject", "params")


def _compile_all(spec: Mapping[str, Any], version: str, roots: TypedRoots,
                 library: bool | str = True) -> dict[str, cel.Compiled]:
    """Compile every expression with typed roots; variables typed by their own typed compile. ``library``:
    what of the library's functions the typed environment declares (see :func:`_library_use`)."""
    has_params = spec.get("paramKind") is not None
    checking_library = compiler.library_level(spec)  # where expressions that read no typed root are checked
    results: dict[str, cel.Compiled] = {}
    visible: list[tuple[str, ...]] = []
    plain_visible: list[tuple[str, ...]] = []  # the variables as typed where object, oldObject and params are dyn

    def declarations(types: TypedRoots | None, variables: list[tuple[str, ...]]) -> cel.Declarations:
        return cel.Declarations(version=version, params=has_params, variables=tuple(variables), types=types,
                                library=library if types is not None else checking_library)

    def plain() -> cel.Declarations | None:
        return declarations(None, plain_visible) if plain_visible == visible else None

    for i, item in enumerate(spec.get("variables") or []):
        if not isinstance(item, Mapping):
            continue
        expression = str(item.get("expression") or "")
        compiled = _check_site(expression, cel.VARIABLE, declarations(roots, visible), plain())
        results[f"spec.variables[{i}].expression"] = compiled
        name = str(item.get("name") or "")
        plain_compiled = cel.check_expression(expression, cel.VARIABLE, declarations(None, plain_visible),
                                              evaluated_version=True)
        visible = [v for v in visible if v[0] != name]
        visible.append(cel.variable_declaration(name, compiled))
        plain_visible = [v for v in plain_visible if v[0] != name]
        plain_visible.append(cel.variable_declaration(name, plain_compiled))
    # One environment for every other expression, as the apiserver's type checker has it (authorizer
    # and variables declared for all): what a kind of expression may not use is already a compile
    # error of the policy, which is then not stored and so never type-checked.
    typed, untyped = declarations(roots, visible), plain()
    for site in _sites(spec):
        if site.kind != cel.VARIABLE:
            results[site.field_ref] = _check_site(site.expression, site.kind, typed, untyped)
    return results


_NO_OVERLOAD = re.compile(r"^found no matching overload for '([^']+)' applied to '\((.*)\)'$")


def _split_types(text: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return [p for p in parts if p]


def _is_member_call(expression: str, issue: cel.CompileIssue, name: str) -> bool:
    """Whether the call reported at the issue (its open parenthesis) is ``<target>.name(...)``."""
    lines = expression.split("\n")
    if not 1 <= issue.line <= len(lines):
        return False
    before = lines[issue.line - 1][: issue.column - 1].rstrip()
    return re.search(r"\.\s*" + re.escape(name) + r"$", before) is not None


def _cel_go_wording(issue: cel.CompileIssue, expression: str, roots: TypedRoots) -> str:
    message = roots.display_name(issue.message)  # already in cel-go's words (app.vap.cel)
    m = _NO_OVERLOAD.match(message)
    if m and _is_member_call(expression, issue, m.group(1)):
        # cel-go prints a receiver-style call as '<target>.(<args>)'
        types = _split_types(m.group(2))
        if types:
            message = f"found no matching overload for '{m.group(1)}' applied to '{types[0]}.({', '.join(types[1:])})'"
    return message


def _issues(compiled: cel.Compiled, roots: TypedRoots) -> list[cel.CompileIssue]:
    if compiled.error is None:
        return []
    if not compiled.issues:  # a result of the wrong type: reported at the start of the expression
        return [cel.CompileIssue(1, 1, roots.display_name(compiled.error))]
    issues = [cel.CompileIssue(i.line, i.column, _cel_go_wording(i, compiled.expression, roots))
              for i in compiled.issues]
    # cel-go reports nothing more about a sub-expression that already failed
    kept = [i for i in issues if "*error*" not in i.message]
    return kept or issues


# --------------------------------------------------------------------------------------------
# The policy


def _programs(name: str, spec: Mapping[str, Any], version: str) -> list[cel.Compiled]:
    """Every expression of a policy compiled for evaluation (a MutatingAdmissionPolicy's mutations too)."""
    compiled = list(compiler.compile_policy(name, spec, version).expressions)
    if spec.get("mutations"):
        compiled += [m.compiled for m in map_policy.compile_policy(name, spec, version).mutations]
    return compiled


def _selected_fields(name: str, spec: Mapping[str, Any], version: str) -> tuple[Any, Any]:
    """The fields of ``object`` (with ``oldObject``, of the same type) and of ``params`` that the
    policy's expressions select, their elements' fields included (tries of field names, see
    :mod:`reach`), read from the programs evaluation runs (compiled once for both); WHOLE for both
    when an expression has no program."""
    compiled = _programs(name, spec, version)
    if any(c.program is None for c in compiled):
        return reach.WHOLE, reach.WHOLE
    roots = reach.of_programs([c.program for c in compiled], ("object", "oldObject", "params"), elements=True,
                              checking=True).roots
    obj = reach.merge(roots.get("object"), roots.get("oldObject") or {})
    return obj, roots.get("params") or {}


def _library_use(name: str, spec: Mapping[str, Any], version: str) -> bool | str:
    """What of the library the policy's expressions call, together (read from the programs evaluation runs;
    True when an expression has none): the typed environments of a policy that calls none of its functions
    leave the library out, of one that calls only its comparisons and string() declare just those
    (:attr:`cel.Declarations.library`)."""
    compiled = _programs(name, spec, version)
    uses: set[bool | str] = set()
    for c in compiled:
        if c.program is None:
            return True
        use = cel.library.library_use(c.checked_program or c.program, version)
        if use is True:
            return True
        uses.add(use)
    return cel.BASIC if cel.BASIC in uses else False


def selected_object_fields(policies: Sequence[tuple[str, Mapping[str, Any]]], version: str) -> Any:
    """The fields of ``object`` that any of these policies' expressions select (:func:`_selected_fields`), for
    type-checking each of them against the same declared types: the policies of a scenario that match the same kind
    then share one typed environment (declaring fields an expression does not select changes none of its types).
    None when one of them reads ``object`` whole (or its fields cannot be worked out): each is then checked with
    its own."""
    union: Any = None
    for name, spec in policies:
        try:
            union = reach.merge(union, _selected_fields(name, spec, version)[0])
        except Exception:  # (type checking must never change the outcome)
            return None
    return None if union is reach.WHOLE else union


def scenario_types(policies: Sequence[tuple[str, Mapping[str, Any]]], *, version: str, table: ResourceTable,
                   schemas: SchemaSet) -> tuple[Named, cel.Aliases | None]:
    """What a scenario's policies are type-checked against, worked out before any of them is compiled: the
    fields of the kinds that any of their expressions may name (:func:`decltypes.words`), and the typed roots of
    every kind and paramKind they are checked against, which the scenario's environments then declare besides
    their own (:class:`cel.Aliases`): the checks are made there, with no environment built for them alone."""
    # (the words of a text naming no typed root and no variable declare nothing its check can look up: left out)
    named = words(site.expression for _, spec in policies if isinstance(spec, Mapping) for site in _sites(spec)
                  if cel.mentions(site.expression, *_SCHEMA_ROOTS, "variables"))
    roots: list[TypedRoots] = []
    for _, spec in policies:
        if not isinstance(spec, Mapping):
            continue
        pgvk = param_gvk(spec)
        params = schemas.kind(*pgvk) if pgvk is not None else None
        params_types = kind_types(params, schemas, version, named, root="params") if params is not None else None
        for gvk in types_to_check(spec, table).gvks:
            kind = schemas.kind(*gvk)
            if kind is not None:
                roots.append(typed_roots(kind_types(kind, schemas, version, named), params_types))
    return named, cel.aliases_for(roots, named.names)


def _check(spec: Mapping[str, Any], version: str, kinds: Sequence[KindSchema], params: KindSchema | None,
           schemas: SchemaSet, explanation: tuple[str, ...], name: str = "", shared_fields: Any = None
           ) -> TypeChecking:
    if isinstance(shared_fields, Named):  # the scenario's (see scenario_types), in the environment it checks in
        object_fields = params_fields = shared_fields
        library = compiler.library_level(spec)
    else:
        object_fields, params_fields = _selected_fields(name, spec, version)
        if shared_fields is not None:
            object_fields = reach.merge(shared_fields, object_fields)
        library = _library_use(name, spec, version)
    params_types = kind_types(params, schemas, version, params_fields, root="params") if params is not None else None
    per_site: dict[str, list[tuple[str, list[cel.CompileIssue]]]] = {}
    for kind in kinds:
        roots = typed_roots(kind_types(kind, schemas, version, object_fields), params_types)
        for ref, compiled in _compile_all(spec, version, roots, library).items():
            issues = _issues(compiled, roots)
            if issues:
                per_site.setdefault(ref, []).append((kind.gvk_text, issues))
    warnings = []
    for site in _sites(spec):
        found = per_site.get(site.field_ref)
        if not found:
            continue
        found = [(gvk, _as_written(site, issues)[1]) for gvk, issues in found]
        expression = site.written[0] if site.written is not None else site.expression
        # TypeCheckingResult.String per kind ("<gvk>: <issues>\n"), joined by newlines
        text = "\n".join(
            f"{gvk}: {_render(expression, issues)}\n" for gvk, issues in found
        )
        flat = tuple(Issue(gvk, i.line, i.column, i.message) for gvk, issues in found for i in issues)
        warnings.append(ExpressionWarning(site.field_ref, text, flat))
    return TypeChecking(
        kinds=tuple(k.gvk_text for k in kinds),
        params=params.gvk_text if params is not None else None,
        warnings=tuple(warnings),
        explanation=explanation,
    )


def _render(expression: str, issues: list[cel.CompileIssue]) -> str:
    if len(issues) == 1 and issues[0].message.startswith("must evaluate to"):
        return issues[0].message
    return cel.render_issues(expression, issues)


_cache: OrderedDict[tuple[Any, ...], TypeChecking] = OrderedDict()
_cache_lock = threading.Lock()
_CACHE_SIZE = 512


def clear_cache() -> None:
    """Forget every type-checking result."""
    with _cache_lock:
        _cache.clear()


fast.register("typecheck.results", clear_cache)


def check_policy(spec: Mapping[str, Any], *, version: str, table: ResourceTable, schemas: SchemaSet,
                 name: str = "", shared_fields: Callable[[], Any] | None = None) -> TypeChecking:
    """Type-check a (stored) policy's expressions against every kind its matchConstraints can match.

    Cached on the policy's spec, the Kubernetes version and the schemas of the kinds involved, so
    the warm evaluation path pays only for a lookup. ``shared_fields`` gives, when the policy is checked, the
    fields of ``object`` to declare besides its own (:func:`selected_object_fields`), or the fields of the kinds to
    declare instead (:func:`scenario_types`): they change which environment is built, never the result, so they
    are not part of the key.
    """
    found = types_to_check(spec, table)
    kinds: list[KindSchema] = []
    explanation = list(found.skipped)
    for gvk in found.gvks:
        schema = schemas.kind(*gvk)
        if schema is None:
            explanation.append(f"no schema is known for {gvk[0] + '/' if gvk[0] else ''}{gvk[1]}, Kind={gvk[2]}: "
                               "not type-checked")
            continue
        kinds.append(schema)
    pgvk = param_gvk(spec)
    params = schemas.kind(*pgvk) if pgvk is not None else None
    if pgvk is not None and params is None:
        explanation.append("no schema is known for the paramKind: params is checked as dyn")
    if not kinds:
        explanation.append("no kind to check the expressions against")
    key = (
        json.dumps(spec, sort_keys=True, default=str),
        version,
        tuple(k.key for k in kinds),
        params.key if params is not None else None,
        tuple(explanation),
    )
    with _cache_lock:
        hit = _cache.get(key) if fast.on else None
        if hit is not None:
            _cache.move_to_end(key)
            return hit
    result = _check(spec, version, kinds, params, schemas, tuple(explanation), name,
                    shared_fields() if shared_fields is not None else None)
    if not fast.on:
        return result
    with _cache_lock:
        _cache[key] = result
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return result


# --------------------------------------------------------------------------------------------
# Problems for the editor


def _kinds_label(kinds: Sequence[str]) -> str:
    return "; ".join(kinds)


def policy_problems(doc: Document, result: TypeChecking) -> list[Problem]:
    """One warning per distinct issue of a policy, at its character in the expression."""
    problems: list[Problem] = []
    for warning in result.warnings:
        grouped: dict[tuple[int, int, str], list[str]] = {}
        for issue in warning.issues:
            grouped.setdefault((issue.line, issue.column, issue.message), []).append(issue.kind)
        for (line, column, message), kinds in grouped.items():
            at_line, at_column = doc.locate_in_value(warning.field_ref, line, column)
            problems.append(Problem(doc.pane, doc.index, at_line, at_column, warning.field_ref, "warning",
                                    f"type checking against {_kinds_label(kinds)}: {message}"))
    return problems


def check_policies(
    policies: Sequence[tuple[str, Mapping[str, Any]]],
    docs: Mapping[str, Document],
    *,
    version: str,
    table: ResourceTable,
    schemas: SchemaSet,
    shared_fields: Callable[[], Any] | None = None,
) -> tuple[dict[str, dict[str, Any]], list[Problem]]:
    """Type-check stored policies: ``typeChecking`` per policy name, and the warnings as problems.
    ``shared_fields``: the fields of ``object`` to declare for all of them (see :func:`selected_object_fields` and
    :func:`scenario_types`)."""
    results: dict[str, dict[str, Any]] = {}
    problems: list[Problem] = []
    for name, spec in policies:
        try:
            result = check_policy(spec, version=version, table=table, schemas=schemas, name=name,
                                  shared_fields=shared_fields)
        except Exception as exc:  # type checking must never change the outcome (typechecking.go skips failures)
            result = TypeChecking((), None, (), (f"type checking could not run: {exc}",))
        results[name] = result.to_json()
        doc = docs.get(name)
        if doc is not None:
            problems.extend(policy_problems(doc, result))
    return results, problems


def object_problems(doc: Document, schemas: SchemaSet) -> list[Problem]:
    """Unknown, ill-typed and repeated fields of a pasted object, as warnings at their lines (worked out once per
    document and schemas: a pane read from the cache is not walked again)."""
    key = ("object problems", schemas.key)
    if key not in doc.memo:
        doc.memo[key] = _object_problems(doc, schemas)
    return list(doc.memo[key])


def _object_problems(doc: Document, schemas: SchemaSet) -> list[Problem]:
    out = []
    findings = decoding.object_findings(doc.value, schemas)
    for finding in findings:
        line, column = doc.locate(finding.path)
        out.append(Problem(doc.pane, doc.index, line, column, render_path(finding.path), "warning", finding.message))
    schema = decoding.kind_schema(doc.value, schemas) if doc.duplicates else None
    unknown = [finding.path for finding in findings if finding.message.startswith("unknown field ")]
    for repeated in decoding.strict_findings(schema, unknown, doc) if schema is not None else ():
        if repeated.path in unknown:
            continue
        line, column = doc.locate(repeated.path)
        out.append(Problem(doc.pane, doc.index, line, column, repeated.field, "warning", repeated.message))
    return out
