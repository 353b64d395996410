"""Compiling a ValidatingAdmissionPolicy's expressions: once for evaluation, and as API validation does.

Restates k8s.io/apiserver/pkg/admission/plugin/policy/validating/plugin.go's compilePolicy (variables
first, each visible to the next; then matchConditions, validations with their messageExpressions and
auditAnnotations, each kind in its own declarations) and the checks of
pkg/apis/admissionregistration/validation/validation.go that compile each expression of a policy
being stored. A compiled policy also knows what its expressions read of their inputs (:mod:`reach`)
and what each validation's decision needs that no evaluation changes.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from . import cel, fast, limits, reach, validation
from .cel import library


@dataclass
class CompiledPolicy:
    """Every expression of a policy, compiled for evaluation."""

    name: str
    has_params: bool
    variables: list[tuple[str, cel.Compiled]]
    match_conditions: list[tuple[str, cel.Compiled]]
    validations: list[tuple[Mapping[str, Any], cel.Compiled, cel.Compiled | None]]
    audit_annotations: list[tuple[str, cel.Compiled]]
    _pruners: tuple[Callable[[Any], Any] | None, ...] | None = field(
        default=None, init=False, repr=False, compare=False
    )
    _pruned: bool = field(default=False, init=False, repr=False, compare=False)

    @functools.cached_property
    def variable_map(self) -> dict[str, cel.Compiled]:
        return dict(self.variables)

    @functools.cached_property
    def expressions(self) -> list[cel.Compiled]:
        """Every compiled expression of the policy: variables, matchConditions, validations with their
        messageExpressions, auditAnnotations."""
        out = [c for _, c in self.variables] + [c for _, c in self.match_conditions]
        out += [c for _, expr, msg in self.validations for c in (expr, msg) if c is not None]
        return out + [c for _, c in self.audit_annotations]

    @functools.cached_property
    def reach(self) -> reach.Reach:
        """What the policy's expressions read of their inputs (see :mod:`app.vap.reach`)."""
        return reach.of_programs((c.program for c in self.expressions if c.program is not None), _ROOTS,
                                 elements=True)

    @property
    def pruners(self) -> tuple[Callable[[Any], Any] | None, ...]:
        """Functions cutting object, oldObject, request, params and namespaceObject down to what the
        policy reads (see :meth:`reach.Reach.pruner`), None for a root it does not read; each the identity
        while the fast paths are off (:mod:`app.vap.fast`)."""
        if not fast.on:
            return _WHOLE
        made = self._pruners
        if made is None:
            if not self._pruned:  # the first evaluation sees every input whole: working out what the
                self._pruned = True  # expressions read costs more than the engine's converting all of it
                return _WHOLE
            made, final = self.reach.pruners(_PRUNER_ROOTS, earlier=1)
            if final:
                self._pruners = made
        return made

    @functools.cached_property
    def uses_authorizer(self) -> bool:
        return self._names("authorizer") and (
            self.reach.uses("authorizer") or self.reach.uses("authorizer.requestResource"))

    def _names(self, root: str) -> bool:
        """Whether an expression's text names ``root`` (else none reads it: a variable is read by its name)."""
        return any(cel.mentions(c.expression, root) for c in self.expressions)

    @functools.cached_property
    def counts_library_cost(self) -> bool:
        """Whether an expression of the policy (a variable included) may call a library function that
        charges a cost."""
        return any(library.counts_library_cost(c.program) for c in self.expressions if c.program is not None)

    @functools.cached_property
    def validation_plan(self) -> tuple[PlannedValidation, ...]:
        """Each validation with what its decision needs that no evaluation changes."""
        return tuple(
            PlannedValidation(index, validation, compiled, msg, _static_message(validation, compiled),
                              str(validation.get("reason") or "Invalid"))
            for index, (validation, compiled, msg) in enumerate(self.validations)
        )

    @functools.cached_property
    def has_messages(self) -> bool:
        return any(msg is not None for _, _, msg in self.validations)

    @functools.cached_property
    def message_readers(self) -> int:
        """How many expressions and variables may be evaluated on the messageExpressions' values."""
        return sum(msg is not None for _, _, msg in self.validations) + len(self.variables)

    @functools.cached_property
    def audit_shares_values(self) -> bool:
        """Whether the auditAnnotations see the validations' values: they see the full Namespace and no
        authorizer, which makes no difference when the policy reads neither."""
        return not self.uses_authorizer and not (self._names("namespaceObject") and self.reach.uses("namespaceObject"))

    @functools.cached_property
    def validation_readers(self) -> int:
        """How many expressions and variables may be evaluated on the validations' values: the
        messageExpressions (which see no authorizer) and auditAnnotations too when they see the same."""
        readers = len(self.validations) + len(self.variables)
        if not self.uses_authorizer:
            readers += self.message_readers - len(self.variables)
        if self.audit_shares_values:
            readers += len(self.audit_annotations)
        return readers


def _whole(value: Any) -> Any:
    return value


_WHOLE = (_whole,) * 5  # every input as it is
_ROOTS = (*reach.PRUNED_ROOTS, "request", "authorizer", "authorizer.requestResource")
_PRUNER_ROOTS = ("object", "oldObject", "request", "params", "namespaceObject")


def expression_declarations(
    spec: Mapping[str, Any], version: str, compile_variable: Callable[..., cel.Compiled] = cel.compile_expression
) -> tuple[list[tuple[str, cel.Compiled]], cel.Declarations, cel.Declarations, cel.Declarations, cel.Declarations]:
    """Compile the variables in order (with ``compile_variable``: :func:`cel.check_expression` when
    nothing is to run); return them and the declarations of each expression kind."""
    has_params = spec.get("paramKind") is not None
    level = library_level(spec)
    variables: list[tuple[str, cel.Compiled]] = []
    visible: list[tuple[str, ...]] = []
    for item in spec.get("variables") or []:
        if not isinstance(item, Mapping):
            continue
        name = str(item.get("name") or "")
        decls = cel.Declarations(version=version, params=has_params, variables=tuple(visible), library=level)
        compiled = compile_variable(str(item.get("expression") or ""), cel.VARIABLE, decls)
        variables.append((name, compiled))
        visible = [v for v in visible if v[0] != name]
        visible.append(cel.variable_declaration(name, compiled))
    full = tuple(visible)
    validation = cel.Declarations(version=version, params=has_params, variables=full, library=level)
    message = cel.Declarations(version=version, params=has_params, authorizer=False, variables=full, library=level)
    audit = cel.Declarations(version=version, params=has_params, variables=full, library=level)
    match = cel.Declarations(version=version, params=has_params, variables=None, library=level)
    return variables, validation, message, audit, match


def library_level(spec: Mapping[str, Any]) -> bool | str:
    """What of the library the environments a policy's expressions are checked and run in declare
    (:func:`cel.library_level`, over every expression of the policy, so that they share one)."""
    return cel.library_level(text for _, text in limits.spec_expressions(spec))


def _cache_key(spec: Mapping[str, Any]) -> str:
    return json.dumps(spec, sort_keys=True, default=str)


def compile_policy(name: str, spec: Mapping[str, Any], version: str) -> CompiledPolicy:
    """Compile a policy's expressions (cached on its spec and the Kubernetes version)."""
    return _compile_policy(name, _cache_key(spec), version)


@fast.memo(256)
def _compile_policy(name: str, spec_json: str, version: str) -> CompiledPolicy:
    spec = json.loads(spec_json)
    variables, validation, message, audit, match = expression_declarations(spec, version)
    conditions = [
        (str(mc.get("name", "")), cel.compile_expression(str(mc.get("expression") or "").strip(),
                                                          cel.MATCH_CONDITION, match))
        for mc in spec.get("matchConditions") or []
        if isinstance(mc, Mapping)
    ]
    validations = []
    for v in spec.get("validations") or []:
        if not isinstance(v, Mapping):
            continue
        expr = cel.compile_expression(str(v.get("expression") or ""), cel.VALIDATION, validation)
        msg = None
        if v.get("messageExpression"):
            msg = cel.compile_expression(str(v["messageExpression"]), cel.MESSAGE_EXPRESSION, message)
        validations.append((v, expr, msg))
    annotations = [
        (
            str(a.get("key", "")),
            cel.compile_expression(str(a.get("valueExpression") or ""), cel.AUDIT_ANNOTATION, audit),
        )
        for a in spec.get("auditAnnotations") or []
        if isinstance(a, Mapping)
    ]
    return CompiledPolicy(
        name=name,
        has_params=spec.get("paramKind") is not None,
        variables=variables,
        match_conditions=conditions,
        validations=validations,
        audit_annotations=annotations,
    )


class PlannedValidation(NamedTuple):
    """A validation of a compiled policy, with what its decision needs that no evaluation changes."""

    index: int
    validation: Mapping[str, Any]
    compiled: cel.Compiled
    message_compiled: cel.Compiled | None
    static_message: str  # the message of a false validation when no messageExpression gives one
    reason: str


def _static_message(validation: Mapping[str, Any], compiled: cel.Compiled) -> str:
    """The message of a false validation without a messageExpression's: message, else the expression."""
    message = trim_space(str(validation["message"])) if validation.get("message") else ""
    return message or "failed expression: " + trim_space(compiled.expression)


def trim_space(text: str) -> str:
    """Go's strings.TrimSpace: white space as Unicode defines it, at both ends."""
    return text.strip(" \t\n\r\v\f\u0085\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
                      "\u2009\u200a\u2028\u2029\u202f\u205f\u3000")


def new_expressions_version(version: str) -> str:
    """The compatibility version whose libraries new expressions may use: API validation checks an expression
    being stored in the environment of the previous minor version (apiserver/pkg/cel/environment's
    DefaultCompatibilityVersion), so that a rollback can still run it."""
    major, minor = library.version_tuple(version)
    return f"{major}.{minor - 1}"


def compile_check(spec: Mapping[str, Any], version: str) -> validation.CompileCheck:
    """Compile a policy's expressions as API validation does (in the version ``version``'s environment, see
    :func:`new_expressions_version`), and report each failure at its field."""
    variables, vdecls, mdecls, adecls, cdecls = expression_declarations(spec, version, cel.check_expression)
    declarations = {
        cel.MATCH_CONDITION: cdecls,
        cel.VALIDATION: vdecls,
        cel.MESSAGE_EXPRESSION: mdecls,
        cel.AUDIT_ANNOTATION: adecls,
    }
    variable_fields = {f"spec.variables[{i}].expression": compiled for i, (_, compiled) in enumerate(variables)}

    def check(site: validation.ExpressionSite) -> validation.FieldError | None:
        if site.kind == cel.VARIABLE:
            compiled = variable_fields.get(site.field)
            if compiled is None:
                return None
        else:
            compiled = cel.check_expression(site.expression, site.kind, declarations[site.kind])
        if compiled.error is None:
            return None
        return validation.invalid(site.field, site.value, compiled.error)

    return check
