"""MutatingAdmissionPolicy at request time: compiling a policy, and dispatching the request to its invocations.

Restates k8s.io/apiserver ``pkg/admission/plugin/policy/mutating`` (compilation.go: variables, then matchConditions,
then each mutation compiled with the patch types declared; dispatcher.go: the invocations in order, each one's
matchConditions, its mutations in order with the object defaulted after each, the reinvocation bookkeeping of
reinvocationcontext.go) and the selection and error handling of ``pkg/admission/plugin/policy/generic``
(policy_dispatcher.go: policies by name, their bindings, one invocation per param; every failure a ``PolicyError``,
dropped under ``failurePolicy: Ignore``; the first one kept under Fail becomes a 403 whose message is that
error's text and whose reason is its reason).

A mutation's value is handled by :mod:`.applyconfig` (ApplyConfiguration) and :mod:`.jsonpatch` (JSONPatch); its
expression is written for the engine by :mod:`.expressions`. An error the apiserver returns as a status of its own
(an unknown kind: 503; a patched object that cannot be decoded: 500) ends the request at once.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from time import perf_counter
from typing import Any

from .. import cel, compiler, decoding, fast
from ..cel import library
from ..changes import Change, changes
from ..decision import failure_status, forbidden_details, namespace_not_found
from ..dispatcher import (
    Cluster,
    Loaded,
    bindings_by_policy,
    dispatch_order,
    param_ref_name,
    reduced_namespace,
    skipped_request,
    versioned,
)
from ..fast import kept as keeping
from ..matching import matches
from ..params import ParamError, collect_params
from ..request import Attributes, request_value
from ..schemas import SchemaSet
from ..validation import ExpressionSite, FieldError, invalid
from ..validator import MATCH_CONDITIONS_BUDGET, OUT_OF_BUDGET, _run
from . import expressions
from .applyconfig import ApplyConfigError, ObjectValue, apply_configuration
from .jsonpatch import ABSENT, MutationError, apply_json_patch_mutation, decode_patched, operation

PLUGIN = "MutatingAdmissionPolicy"
APPLY_CONFIGURATION = "ApplyConfiguration"
JSON_PATCH = "JSONPatch"
_MEMBERS = {APPLY_CONFIGURATION: "applyConfiguration", JSON_PATCH: "jsonPatch"}
_RETURN_TYPES = {APPLY_CONFIGURATION: "Object", JSON_PATCH: "list(JSONPatch)"}


# ------------------------------------------------------------------------------------------------
# compiling


@dataclass(frozen=True)
class Mutation:
    index: int
    patch_type: str
    compiled: cel.Compiled


@dataclass
class CompiledMutatingPolicy:
    name: str
    has_params: bool
    variables: list[tuple[str, cel.Compiled]]
    match_conditions: list[tuple[str, cel.Compiled]]
    mutations: list[Mutation]

    @property
    def variable_map(self) -> dict[str, cel.Compiled]:
        return dict(self.variables)

    @property
    def reads(self) -> frozenset[str]:
        """The inputs (object, oldObject, request, params, namespaceObject, authorizer ...) that an expression of
        the policy, a variable's included, names: with the fast paths on, the only ones its evaluations are
        given (what no expression names cannot change a result); every one while they are off."""
        return self._named if fast.on else INPUTS

    @functools.cached_property
    def _named(self) -> frozenset[str]:
        # (found in the texts, strings and comments included: more than the expressions read, never less)
        texts = [c.expression for c in self.expressions]
        return frozenset(name for name in INPUTS if any(cel.mentions(text, name.split(".")[0]) for text in texts))

    @functools.cached_property
    def expressions(self) -> list[cel.Compiled]:
        return [c for _, c in self.variables] + [c for _, c in self.match_conditions] + [
            m.compiled for m in self.mutations]


INPUTS = frozenset(("object", "oldObject", "request", "params", "namespaceObject", "authorizer",
                     "authorizer.requestResource"))


def _line_col(text: str, offset: int) -> tuple[int, int]:
    before = text[:offset]
    return before.count("\n") + 1, offset - (before.rfind("\n") + 1) + 1


def _offset(text: str, line: int, column: int) -> int:
    lines = text.split("\n")
    return sum(len(x) + 1 for x in lines[: line - 1]) + column - 1


def compile_mutation(expression: str, patch_type: str, decls: cel.Declarations, *, check_only: bool = False
                     ) -> cel.Compiled:
    """Compile a mutation's expression as the apiserver does (with the patch types declared); errors point at
    the text as written, and a result of the wrong type is refused (``must evaluate to Object but got ...``)."""
    # (without the whitespace that ends it, as API validation compiles it: its check is then shared; nothing else
    # moves, so positions are the same)
    written = expressions.rewrite(expression.rstrip())
    compile_fn = cel.check_expression if check_only else cel.compile_expression
    compiled = replace(compile_fn(written.text, cel.MUTATION, decls), expression=expression)
    issues = [cel.CompileIssue(*_line_col(expression, written.original_offset(_offset(written.text, i.line,
                                                                                    i.column))), i.message)
              for i in compiled.issues]
    issues += [cel.CompileIssue(*_line_col(expression, at), f"undefined field '{name}'")
               for name, at in written.unknown_fields]
    if issues:
        issues.sort(key=lambda i: (i.line, i.column))
        return replace(compiled, program=None, checked_program=None, issues=tuple(issues),
                       error="compilation failed: " + cel.render_issues(expression, issues))
    if compiled.error is None and not _may_return(patch_type, compiled.type_name):
        return replace(compiled, program=None, checked_program=None,
                       error=f"must evaluate to {_RETURN_TYPES[patch_type]} but got {compiled.type_name}")
    return compiled


def _may_return(patch_type: str, type_name: str) -> bool:
    """Whether a type the engine gives the rewritten expression can be the apiserver's Object (a map with an
    initialiser's fields) or list(JSONPatch); what it holds is checked when it is evaluated."""
    if type_name == "dyn":
        return True
    return type_name.startswith("map(string," if patch_type == APPLY_CONFIGURATION else "list(")


def _mutations(spec: Mapping[str, Any]) -> list[tuple[int, str, str]]:
    out = []
    for index, mutation in enumerate(spec.get("mutations") or []):
        if not isinstance(mutation, Mapping):
            continue
        patch_type = str(mutation.get("patchType") or "")
        member = mutation.get(_MEMBERS.get(patch_type, ""))
        if isinstance(member, Mapping):
            out.append((index, patch_type, str(member.get("expression") or "")))
    return out


def compile_policy(name: str, spec: Mapping[str, Any], version: str) -> CompiledMutatingPolicy:
    """Compile a MutatingAdmissionPolicy's expressions (cached on its spec and the Kubernetes version)."""
    return _compile_policy(name, json.dumps(spec, sort_keys=True, default=str), version)


@fast.memo(128)
def _compile_policy(name: str, spec_json: str, version: str) -> CompiledMutatingPolicy:
    spec = json.loads(spec_json)
    variables, mutation_decls, _, _, match_decls = compiler.expression_declarations(spec, version)
    conditions = [
        (str(mc.get("name", "")), cel.compile_expression(str(mc.get("expression") or "").strip(),
                                                          cel.MATCH_CONDITION, match_decls))
        for mc in spec.get("matchConditions") or [] if isinstance(mc, Mapping)
    ]
    mutations = [Mutation(index, patch_type, compile_mutation(expression, patch_type, mutation_decls))
                 for index, patch_type, expression in _mutations(spec)]
    return CompiledMutatingPolicy(name, spec.get("paramKind") is not None, variables, conditions, mutations)


def compile_check(spec: Mapping[str, Any], version: str) -> Callable[[ExpressionSite], FieldError | None]:
    """API validation's compilation of a policy's expressions, each failure reported at its field."""
    variables, mutation_decls, _, _, match_decls = compiler.expression_declarations(spec, version,
                                                                                   cel.check_expression)
    variable_fields = {f"spec.variables[{i}].expression": c for i, (_, c) in enumerate(variables)}

    def check(site: ExpressionSite) -> FieldError | None:
        if site.kind == cel.VARIABLE:
            compiled = variable_fields.get(site.field)
            if compiled is None:
                return None
        elif site.kind == cel.MATCH_CONDITION:
            compiled = cel.check_expression(site.expression, site.kind, match_decls)
        else:
            patch_type = APPLY_CONFIGURATION if site.kind == "applyConfiguration" else JSON_PATCH
            compiled = compile_mutation(site.expression, patch_type, mutation_decls, check_only=True)
        if compiled.error is None:
            return None
        return invalid(site.field, site.value, compiled.error)

    return check


# ------------------------------------------------------------------------------------------------
# dispatching


@dataclass
class PolicyError:
    """A failure of one policy (and binding), as generic.PolicyError words it."""

    policy: Loaded
    binding: Loaded | None
    message: str
    reason: str = ""  # the Status reason it gives the request ("" : Forbidden)

    def text(self) -> str:
        if self.binding is not None:
            return f"policy '{self.policy.name}' with binding '{self.binding.name}' denied request: {self.message}"
        return f"policy {json.dumps(self.policy.name)} denied request: {self.message}"


@dataclass
class Reinvocation:
    """reinvocationcontext.go: which invocations run again in the second round."""

    previously_invoked: set[tuple[str, str, str]] = field(default_factory=set)  # IfNeeded invocations run so far
    reinvoke: set[tuple[str, str, str]] = field(default_factory=set)
    should_reinvoke: bool = False
    last_output: Any = None

    def require_reinvoking_previously_invoked(self) -> None:
        if self.previously_invoked:
            self.reinvoke |= self.previously_invoked
            self.previously_invoked = set()


@dataclass
class Outcome:
    """What one round of the plugin did."""

    object: Any
    policies: list[dict[str, Any]]
    errors: list[PolicyError] = field(default_factory=list)
    status: dict[str, Any] | None = None  # a status error that ends the request at once
    changes: list[Change] = field(default_factory=list)
    invoked: int = 0


@dataclass(frozen=True)
class _Invocation:
    policy: Loaded
    binding: Loaded
    compiled: CompiledMutatingPolicy
    match: Any
    param: Any
    record: dict[str, Any]  # the binding's record


def _key(inv: _Invocation) -> tuple[str, str, str]:
    ref = param_ref_name(inv.param) or {}
    return inv.policy.name, inv.binding.name, f"{ref.get('namespace') or ''}/{ref.get('name') or ''}"


def dispatch(
    *,
    policies: Sequence[Loaded],
    bindings: Sequence[Loaded],
    attrs: Attributes,
    cluster: Cluster,
    version: str,
    schemas: SchemaSet,
    param_scope: Callable[[Mapping[str, Any]], bool | None],
    authorizer: Callable[[dict[str, Any]], Any] | None,
    reinvocation: Reinvocation,
    round_: int,
    records: list[dict[str, Any]] | None = None,
) -> Outcome:
    """One round of the plugin over the request: the first (``round_`` 1) runs every invocation, the second only
    those ``reinvocation`` names. ``records`` are the first round's policy records, which the second extends."""
    outcome = Outcome(attrs.object, records if records is not None else [])
    first = records is None
    version_key = library.version_tuple(version)
    skipped = skipped_request(attrs, version_key)
    if skipped is not None:
        if first:
            outcome.policies.extend({"name": p.name, "matched": False, "explanation": [skipped.replace(
                "ValidatingAdmissionPolicies", "admission policies")], "bindings": []}
                for p in dispatch_order(policies))
        return outcome
    invocations = _invocations(policies, bindings, attrs, cluster, version, param_scope, outcome, first)
    if round_ > 1 and not first and reinvocation.last_output is not None \
            and reinvocation.last_output != attrs.object:
        reinvocation.require_reinvoking_previously_invoked()  # an in-tree plugin changed the object since
    if not invocations:
        reinvocation.last_output = attrs.object
        return outcome
    namespace_full = None
    if attrs.namespace and not attrs.is_namespace_object:
        namespace_full = cluster.namespace(attrs.namespace)
        if namespace_full is None:
            outcome.status = failure_status(namespace_not_found(attrs.namespace))
            return outcome
    namespace_object = reduced_namespace(namespace_full) if namespace_full is not None else None
    obj = attrs.object
    for inv in invocations:
        key = _key(inv)
        evaluation: dict[str, Any] = {"param": param_ref_name(inv.param), "round": round_, "matchConditions": [],
                                      "matched": True, "variables": [], "mutations": []}
        if round_ > 1 and key not in reinvocation.reinvoke:
            continue
        inv.record["evaluations"].append(evaluation)
        failure_policy = str(inv.policy.spec.get("failurePolicy") or "Fail")
        req = request_value(attrs, resource=inv.match.resource, kind=inv.match.kind)
        reads = inv.compiled.reads
        data: dict[str, Any] = {}
        if "oldObject" in reads:
            data["oldObject"] = versioned(attrs.old_object, inv.match.kind)
        if "request" in reads:
            data["request"] = req
        if inv.compiled.has_params and "params" in reads:
            data["params"] = inv.param
        if "object" in reads:
            data["object"] = versioned(obj, inv.match.kind)
        asks = authorizer is not None and ("authorizer" in reads or "authorizer.requestResource" in reads)
        if asks:
            data.update(authorizer(req))
        if not _match_conditions(inv, data, attrs, failure_policy, evaluation, outcome, asks, round_):
            continue
        before = obj
        if "namespaceObject" in reads:
            data["namespaceObject"] = namespace_object
        outcome.invoked += 1
        for mutation in inv.compiled.mutations:
            if obj is None:  # nothing to patch
                continue
            if "object" in reads:
                data["object"] = versioned(obj, inv.match.kind)
            values: dict[str, Any] | cel.Activation = data
            kept = None
            if not asks:  # (an authorizer's values are made for each request: never kept)
                values, kept = keeping.values(inv.compiled, ("mutation", round_, mutation.index), (
                    data.get("object"), data.get("oldObject"), data.get("params")), (
                    data.get("request"), data.get("namespaceObject")), data.copy)
            scope = cel.VariableScope(inv.compiled.variable_map, values) if inv.compiled.variables else None
            record, new, status = _mutate(mutation, values, scope, obj, schemas, version_key, kept)
            evaluation["mutations"].append(record)
            if scope is not None:
                evaluation["variables"] = _variables(inv.compiled, scope, evaluation["variables"])
            if status is not None:
                outcome.status = status
                return outcome
            if record["error"] is not None:
                _policy_error(outcome, inv.policy, inv.binding, record["error"], "Invalid", evaluation)
                continue
            stage = f"{PLUGIN} {inv.policy.name}/{inv.binding.name}"
            made = changes(stage, obj, new[0])
            outcome.changes.extend(made)
            outcome.changes.extend(new[1])
            record["changes"] = [c.to_json() for c in (*made, *new[1])]
            obj = new[2]
            record["object"] = obj  # the object after the mutation and the defaulting that follows it
        if before != obj:  # the invocation changed the object: earlier IfNeeded ones run again
            reinvocation.require_reinvoking_previously_invoked()
            reinvocation.should_reinvoke = True
        if str(inv.policy.spec.get("reinvocationPolicy") or "Never") == "IfNeeded":
            reinvocation.previously_invoked.add(key)
    outcome.object = obj
    reinvocation.last_output = obj
    return outcome


def _invocations(policies: Sequence[Loaded], bindings: Sequence[Loaded], attrs: Attributes, cluster: Cluster,
                 version: str, param_scope: Callable[[Mapping[str, Any]], bool | None], outcome: Outcome,
                 first: bool) -> list[_Invocation]:
    """policy_dispatcher.go Dispatch: the (policy, binding, param) invocations of the request, in order, each
    failure to configure one recorded as a policy error. Records are made in the first round only."""
    by_policy = bindings_by_policy(bindings)
    records = {r["name"]: r for r in outcome.policies}
    out: list[_Invocation] = []
    for policy in dispatch_order(policies):
        record = records.get(policy.name)
        if record is None:
            record = {"name": policy.name, "matched": False, "explanation": [], "bindings": []}
            outcome.policies.append(record)
        note = record["explanation"].append if first else (lambda text: None)
        spec = policy.spec
        policy_bindings = by_policy.get((policy.static, policy.name), [])
        if not policy_bindings:
            note("no binding names this policy, so it is never evaluated")
            continue
        match = matches(spec.get("matchConstraints") or {}, attrs, table=cluster.table,
                        lookup_namespace=cluster.namespace, allow_empty_rules=False)
        if first:
            record["explanation"].extend(match.explanation)
        if match.error is not None:
            if first:
                _policy_error(outcome, policy, None, f"failed to configure policy: {match.error}", "", record)
            continue
        if not match.matches:
            note("the request is not in the policy's matchConstraints")
            continue
        record["matched"] = True
        namespaced_params = True
        if spec.get("paramKind") is not None:
            scope = param_scope(spec["paramKind"])
            if scope is None:
                if first:
                    kind = spec["paramKind"]
                    group, _, ver = str(kind.get("apiVersion", "")).rpartition("/")
                    _policy_error(outcome, policy, None, "failed to configure policy: failed to find resource "
                                  f"referenced by paramKind: '{group}/{ver}, Kind={kind.get('kind')}'", "", record)
                continue
            namespaced_params = scope
        compiled = policy.memo.get(("mutating", version))
        if compiled is None:
            compiled = policy.memo[("mutating", version)] = compile_policy(policy.name, spec, version)
        brecords = {b["name"]: b for b in record["bindings"]}
        for binding in policy_bindings:
            brecord = brecords.get(binding.name)
            if brecord is None:
                brecord = {"name": binding.name, "matched": False, "explanation": [], "evaluations": []}
                record["bindings"].append(brecord)
            bnote = brecord["explanation"].append if first else (lambda text: None)
            resources = binding.spec.get("matchResources")
            if resources is None:
                bnote("the binding has no matchResources: it applies wherever the policy does")
            else:
                bmatch = matches(resources, attrs, table=cluster.table, lookup_namespace=cluster.namespace,
                                 allow_empty_rules=True)
                if first:
                    brecord["explanation"].extend(bmatch.explanation)
                if bmatch.error is not None:
                    if first:
                        _policy_error(outcome, policy, binding, f"failed to configure binding: {bmatch.error}", "",
                                      brecord)
                    continue
                if not bmatch.matches:
                    bnote("the request is not in the binding's matchResources")
                    continue
            try:
                params = collect_params(param_kind=spec.get("paramKind"), param_namespaced=namespaced_params,
                                        param_ref=binding.spec.get("paramRef"), attrs=attrs,
                                        objects=cluster.objects)
            except ParamError as exc:
                brecord["matched"] = True
                if first:
                    _policy_error(outcome, policy, binding, f"failed to configure binding: {exc}", "", brecord)
                continue
            brecord["matched"] = True
            if first:
                brecord["explanation"].extend(params.explanation)
            out.extend(_Invocation(policy, binding, compiled, match, param, brecord) for param in params.params)
    if first:  # bindings naming a policy that does not exist bind nothing (the dispatcher never sees them)
        names = {(p.static, p.name) for p in policies}
        for (static, name), named in sorted(by_policy.items()):
            if (static, name) not in names:
                outcome.policies.extend({
                    "name": name, "matched": False, "missing": True, "bindings": [],
                    "explanation": [f"binding {b.name!r} names policy {name!r}, which does not exist: it is ignored"],
                } for b in named)
    return out


def _policy_error(outcome: Outcome, policy: Loaded, binding: Loaded | None, message: str, reason: str,
                  record: dict[str, Any]) -> None:
    error = PolicyError(policy, binding, message, reason)
    if str(policy.spec.get("failurePolicy") or "Fail") == "Ignore":
        record.setdefault("errors", []).append(f"ignored (failurePolicy Ignore): {error.text()}")
        return
    record.setdefault("errors", []).append(error.text())
    outcome.errors.append(error)


def _match_conditions(inv: _Invocation, data: dict[str, Any], attrs: Attributes, failure_policy: str,
                      evaluation: dict[str, Any], outcome: Outcome, asks: bool, round_: int) -> bool:
    """The invocation's matchConditions (matchconditions/matcher.go): any false skips it; errors fail it under
    Fail and skip it under Ignore. They see the request's original resource. ``asks``: ``data`` holds an
    authorizer's values; ``round_``: the round of the plugin (1, or 2 when it reinvokes)."""
    if not inv.compiled.match_conditions:
        return True
    match_data: dict[str, Any] | cel.Activation = data
    if "request" in data:
        match_data = {**data, "request": {**data["request"], "resource": {
            "group": attrs.resource.group, "version": attrs.resource.version, "resource": attrs.resource.resource}}}
    kept = None
    if not asks:
        plain = match_data
        match_data, kept = keeping.values(inv.compiled, ("matchConditions", round_), (
            plain.get("object"), plain.get("oldObject"), plain.get("params")), (plain.get("request"),), plain.copy)
    started = perf_counter()
    tracker = library.CostTracker()
    token = library.set_tracker(tracker)
    try:
        remaining = MATCH_CONDITIONS_BUDGET
        errors: list[str] = []
        any_false = False
        for name, compiled in inv.compiled.match_conditions:
            rec = _run(compiled, match_data, None, tracker)
            remaining -= rec.cost or 0
            evaluation["matchConditions"].append({"name": name, "expression": compiled.expression,
                                                  "result": rec.result, "error": rec.error, "cost": rec.cost})
            if rec.error is not None:
                errors.append(rec.error)
            elif rec.result is False:
                any_false = True
            if remaining < 0:
                errors = [OUT_OF_BUDGET]
                break
    finally:
        library.reset_tracker(token)
        if kept is not None:
            keeping.spend_values(kept, perf_counter() - started)
    if any_false:
        evaluation["matched"] = False
        evaluation["explanation"] = "a matchCondition is false: the policy does not apply to this request"
        return False
    if errors:
        unique = list(dict.fromkeys(errors))
        message = unique[0] if len(unique) == 1 else "[" + ", ".join(unique) + "]"
        evaluation["matched"] = False
        if failure_policy == "Ignore":
            evaluation["explanation"] = f"matchConditions failed ({message}) and failurePolicy is Ignore: skipped"
        else:
            _policy_error(outcome, inv.policy, inv.binding, message, "Invalid", evaluation)
        return False
    return True


def _variables(compiled: CompiledMutatingPolicy, scope: cel.VariableScope,
               earlier: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen = {v["name"]: v for v in earlier}
    out = []
    for name, variable in compiled.variables:
        entry = seen.get(name) or {"name": name, "expression": variable.expression, "evaluated": False,
                                   "value": None, "error": None}
        if name in scope.evaluated:
            value = scope.evaluated[name]
            entry["evaluated"] = True
            if isinstance(value, cel.EvaluationError):
                entry["error"] = str(value)
            else:
                entry["value"] = expressions.plain(cel.display_value(variable, value))
        out.append(entry)
    return out


def _mutate(mutation: Mutation, data: dict[str, Any] | cel.Activation, scope: cel.VariableScope | None, obj: Any,
            schemas: SchemaSet, version: tuple[int, int], kept: keeping.KeptValues | None = None
            ) -> tuple[dict[str, Any], tuple[Any, list[Change], Any], dict[str, Any] | None]:
    """One mutation: its record, (the object after it, the changes defaulting made, the defaulted object), and
    the status that ends the request when the apiserver answers with one of its own. ``kept``: what keeps
    ``data`` for later evaluations."""
    compiled = mutation.compiled
    record: dict[str, Any] = {"index": mutation.index, "patchType": mutation.patch_type,
                              "expression": compiled.expression, "result": None, "error": None, "cost": None,
                              "changes": []}
    unchanged = (obj, [], obj)
    if compiled.error is not None:
        record["error"] = compiled.error
        return record, unchanged, None
    started = perf_counter()
    tracker = library.CostTracker()
    token = library.set_tracker(tracker)
    try:
        rec = _run(compiled, data, scope, tracker)
    finally:
        library.reset_tracker(token)
        if kept is not None:
            keeping.spend_values(kept, perf_counter() - started)
    record["cost"] = rec.cost
    if rec.error is not None:
        record["error"] = rec.error
        return record, unchanged, None
    value = expressions.objects(rec.result)
    record["result"] = expressions.plain(value)
    try:
        if mutation.patch_type == APPLY_CONFIGURATION:
            if not isinstance(value, ObjectValue) or value.type_name != expressions.OBJECT:
                record["error"] = f"must evaluate to Object but got {expressions.type_of(value)}"
                return record, unchanged, None
            new = apply_configuration(obj, value, decoding.kind_schema(obj, schemas), schemas)
        else:
            operations = _operations(value)
            outcome = apply_json_patch_mutation(obj, operations)
            if outcome.test_failed:
                record["testFailed"] = outcome.test_failed
                record["explanation"] = "a test operation failed: the patch is not applied"
                return record, unchanged, None
            new = outcome.object
            decode_patched(new, schemas)
    except (ApplyConfigError, MutationError) as exc:
        code = exc.code
        if code in (500, 503):
            reason = "InternalError" if code == 500 else "ServiceUnavailable"
            status = failure_status({"message": exc.message, "reason": reason, "code": code} if code == 503 else
                                    {"message": exc.message, "reason": reason,
                                     "details": {"causes": [{"message": exc.message.removeprefix(
                                         "Internal error occurred: ")}]}, "code": code})
            record["error"] = exc.message
            return record, unchanged, status
        record["error"] = exc.message
        return record, unchanged, None
    decoded = decoding.decode(new, schemas, version)
    if decoded.error is not None or decoded.value is new:
        return record, (new, [], new), None
    return record, (new, list(decoded.changes), decoded.value), None


def _operations(value: Any) -> list[dict[str, Any]]:
    if not isinstance(value, list):
        raise MutationError("type mismatch: JSONPatchType.expression should evaluate to array")
    out = []
    for item in value:
        if not isinstance(item, ObjectValue) or item.type_name != expressions.JSON_PATCH:
            raise MutationError("type mismatch: JSONPatchType.expression should evaluate to array of JSONPatch")
        out.append(operation(str(item.get("op", "")), str(item.get("path", "")), str(item.get("from", "") or ""),
                             item["value"] if "value" in item else ABSENT))
    return out


def status_of(errors: list[PolicyError], attrs: Attributes) -> dict[str, Any]:
    """The Status of a request the plugin fails (policy_dispatcher.go): admission.NewForbidden's, with the first
    error's text as its message and its reason, when it has one, and every error as a cause."""
    first = errors[0]
    return {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": first.text(),
        "reason": first.reason or "Forbidden",
        "details": forbidden_details(attrs) | {"causes": [{"message": e.text()} for e in errors]},
        "code": 403,
    }
