"""Dispatching one request to every policy and binding, and routing their decisions.

Mirrors k8s.io/apiserver/pkg/admission/plugin/policy/validating/dispatcher.go (Dispatch) and
the final response of pkg/admission/plugin/policy/validating/plugin.go: denials through
validationActions, warnings, audit annotations, configuration errors under failurePolicy.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from . import compiler, fast, validator
from .decision import namespace_not_found
from .matching import matches
from .params import ParamError, collect_params
from .request import Attributes, request_value
from .resources import GroupVersionKind, ResourceTable
from .validator import DENY, ERROR, PolicyDecision

VALIDATION_FAILURE_KEY = "validation.policy.admission.k8s.io/validation_failure"
# From Kubernetes 1.37 every Audit failure of a request goes into one validation_failure annotation,
# written after all policies and truncated to this many entries (dispatcher.go maxValidationFailures);
# before, each failure wrote its own one-entry annotation and only the first was kept.
AGGREGATED_AUDIT_FAILURES_SINCE = (1, 37)
MAX_VALIDATION_FAILURES = 50


# Requests kube-apiserver never sends to ValidatingAdmissionPolicy: the review resources
# (from 1.30; k/k pkg/kubeapiserver/admission/exclusion, also honoured by admission webhooks from 1.37)
# and the admission policy resources themselves.
EXCLUDED_REVIEWS = frozenset({
    ("authentication.k8s.io", "selfsubjectreviews"),
    ("authentication.k8s.io", "tokenreviews"),
    ("authorization.k8s.io", "localsubjectaccessreviews"),
    ("authorization.k8s.io", "selfsubjectaccessreviews"),
    ("authorization.k8s.io", "selfsubjectrulesreviews"),
    ("authorization.k8s.io", "subjectaccessreviews"),
})
_POLICY_RESOURCES = {
    ("admissionregistration.k8s.io", "validatingadmissionpolicies"),
    ("admissionregistration.k8s.io", "validatingadmissionpolicybindings"),
    ("admissionregistration.k8s.io", "mutatingadmissionpolicies"),
    ("admissionregistration.k8s.io", "mutatingadmissionpolicybindings"),
}


def skipped_request(attrs: Attributes, version: tuple[int, int]) -> str | None:
    """Say why the apiserver would not evaluate any policy for this request, or None."""
    key = (attrs.resource.group, attrs.resource.resource)
    if key in EXCLUDED_REVIEWS and version >= (1, 30):
        return (f"{attrs.resource.resource}.{attrs.resource.group} requests are never sent to admission policies "
                "(kube-apiserver excludes the review resources from 1.30 on)")
    if key in _POLICY_RESOURCES:
        return (f"{attrs.resource.resource}.{attrs.resource.group} requests are never evaluated by "
                "ValidatingAdmissionPolicies (a policy cannot act on admission policies or their bindings)")
    return None


@dataclass
class Loaded:
    """A policy or binding that passed API validation, with its defaulted spec."""

    name: str
    obj: dict[str, Any]
    # what was derived from it (its compiled form per Kubernetes version), kept with its document
    memo: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)
    static: bool = False  # read from the static manifests (app.vap.static_manifests), not created through the API

    @property
    def spec(self) -> dict[str, Any]:
        spec = self.obj.get("spec")
        return spec if isinstance(spec, dict) else {}


def dispatch_order(policies: Sequence[Loaded]) -> list[Loaded]:
    """Policies in the order the dispatcher takes them: those of the static manifests first
    (generic/composite_policy_source.go), each group by name."""
    return sorted(policies, key=lambda p: (not p.static, p.name))


def bindings_by_policy(bindings: Sequence[Loaded]) -> dict[tuple[bool, str], list[Loaded]]:
    """Bindings by the policy they name, in name order; a binding binds a policy of its own source only (one of
    the static manifests, or one created through the API)."""
    out: dict[tuple[bool, str], list[Loaded]] = {}
    for b in sorted(bindings, key=lambda b: b.name):
        out.setdefault((b.static, str(b.spec.get("policyName") or "")), []).append(b)
    return out


@dataclass
class Denial:
    policy: str
    binding: str | None
    decision: PolicyDecision


@dataclass
class Cluster:
    """What the request's cluster holds: Namespaces, param objects and known resources."""

    table: ResourceTable
    namespaces: dict[str, dict[str, Any]]
    objects: list[Any]
    assume_namespaces: bool  # no Namespace given at all: any namespace exists, with only its name label

    def namespace(self, name: str) -> dict[str, Any] | None:
        if name in self.namespaces:
            return self.namespaces[name]
        if self.assume_namespaces:
            return {
                "apiVersion": "v1",
                "kind": "Namespace",
                "metadata": {"name": name, "labels": {"kubernetes.io/metadata.name": name}},
                "spec": {"finalizers": ["kubernetes"]},
                "status": {"phase": "Active"},
            }
        return None


@dataclass
class Outcome:
    denials: list[Denial] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    audit_annotations: dict[str, str] = field(default_factory=dict)
    policies: list[dict[str, Any]] = field(default_factory=list)
    request_error: dict[str, Any] | None = None


def reduced_namespace(ns: Mapping[str, Any]) -> dict[str, Any]:
    """The copy of a Namespace that `namespaceObject` exposes (CreateNamespaceObject)."""
    meta = ns.get("metadata") if isinstance(ns.get("metadata"), Mapping) else {}
    keep = ("name", "generateName", "namespace", "uid", "resourceVersion", "generation", "creationTimestamp",
            "deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations", "finalizers")
    out: dict[str, Any] = {"metadata": {k: copy.deepcopy(meta[k]) for k in keep if k in meta}}
    spec = ns.get("spec")
    if isinstance(spec, Mapping) and "finalizers" in spec:
        out["spec"] = {"finalizers": copy.deepcopy(spec["finalizers"])}
    status = ns.get("status")
    if isinstance(status, Mapping):
        kept = {k: copy.deepcopy(status[k]) for k in ("phase", "conditions") if k in status}
        if kept:
            out["status"] = kept
    return out


def _config_error(
    outcome: Outcome, policy: Loaded, binding: Loaded | None, err: str, record: dict[str, Any]
) -> None:
    failure_policy = policy.spec.get("failurePolicy") or "Fail"
    level = "binding" if binding is not None else "policy"
    record.setdefault("configurationErrors", []).append(f"failed to configure {level}: {err}")
    if failure_policy == "Ignore":
        record.setdefault("explanation", []).append(
            f"configuration error ignored (failurePolicy Ignore): failed to configure {level}: {err}"
        )
        return
    if failure_policy == "Fail":
        message = f"failed to configure {level}: {err}"
    else:
        message = f"unrecognized failure policy: '{failure_policy}'"
    outcome.denials.append(Denial(policy.name, binding.name if binding else None, PolicyDecision(DENY, ERROR, message)))


def param_ref_name(param: Any) -> dict[str, Any] | None:
    """A param object's namespace and name, as the results name the param an evaluation ran with."""
    if not isinstance(param, Mapping):
        return None
    meta = param.get("metadata") if isinstance(param.get("metadata"), Mapping) else {}
    return {"namespace": meta.get("namespace"), "name": meta.get("name")}


def dispatch(
    *,
    policies: Sequence[Loaded],
    bindings: Sequence[Loaded],
    attrs: Attributes,
    cluster: Cluster,
    version: str,
    param_scope: Callable[[Mapping[str, Any]], bool | None],
    authorizer: Callable[[dict[str, Any]], Any] | None = None,
) -> Outcome:
    """Evaluate every policy that has bindings against the request, as the dispatcher does."""
    outcome = Outcome()
    version_key = tuple(int(x) for x in version.split(".")[:2])
    skipped = skipped_request(attrs, version_key)  # type: ignore[arg-type]
    if skipped is not None:
        for policy in sorted(policies, key=lambda p: p.name):
            outcome.policies.append({"name": policy.name, "matched": False, "explanation": [skipped], "bindings": []})
        return outcome
    by_policy = bindings_by_policy(bindings)
    policy_names = {(p.static, p.name) for p in policies}
    audit_values: dict[str, dict[str, list[str]]] = {}
    audit_failure_written = False
    aggregate_audit_failures = version_key >= AGGREGATED_AUDIT_FAILURES_SINCE
    audit_failures: list[dict[str, Any]] = []

    for policy in dispatch_order(policies):
        record: dict[str, Any] = {"name": policy.name, "matched": False, "explanation": [], "bindings": []}
        outcome.policies.append(record)
        if outcome.request_error is not None:  # Dispatch returned at once: later policies never run
            record["explanation"].append("not evaluated: the request failed before this policy was reached")
            continue
        policy_bindings = by_policy.get((policy.static, policy.name), [])
        if not policy_bindings:
            record["explanation"].append("no binding names this policy, so it is never evaluated")
            continue
        spec = policy.spec
        constraints = spec.get("matchConstraints")
        if constraints is None:
            _config_error(outcome, policy, None, "policy contained no match constraints, a required field", record)
            continue
        match = matches(constraints, attrs, table=cluster.table, lookup_namespace=cluster.namespace,
                        allow_empty_rules=False)
        record["explanation"].extend(match.explanation)
        if match.error is not None:
            _config_error(outcome, policy, None, match.error, record)
            continue
        if not match.matches:
            record["explanation"].append("the request is not in the policy's matchConstraints")
            continue
        assert match.resource is not None and match.kind is not None
        param_kind = spec.get("paramKind")
        namespaced_params = True
        if param_kind is not None:
            scope = param_scope(param_kind)
            if scope is None:
                api_version = str(param_kind.get("apiVersion", ""))
                group, _, ver = api_version.rpartition("/")
                _config_error(
                    outcome, policy, None,
                    f"failed to find resource referenced by paramKind: '{group}/{ver}, Kind={param_kind.get('kind')}'",
                    record,
                )
                record["explanation"].append(
                    "the paramKind is unknown: paste its CustomResourceDefinition or at least one object of it"
                )
                continue
            namespaced_params = scope
        record["matched"] = True
        record["explanation"].append(
            "the request matches the policy's matchConstraints"
            + (f" as {match.resource.group or 'core'}/{match.resource.version} {match.resource.resource}"
               if match.resource != attrs.resource else "")
        )
        compiled = policy.memo.get(("compiled", version))
        if compiled is None:
            compiled = policy.memo[("compiled", version)] = compiler.compile_policy(policy.name, spec, version)
        failure_policy = str(spec.get("failurePolicy") or "Fail")
        for binding in policy_bindings:
            brecord = _dispatch_binding(
                outcome, policy, binding, compiled, attrs, cluster, match, namespaced_params, failure_policy,
                authorizer, audit_values, record,
            )
            record["bindings"].append(brecord)
            for entry in brecord.pop("_audit_failures", []):
                if aggregate_audit_failures:
                    audit_failures.append(entry)
                elif not audit_failure_written:
                    outcome.audit_annotations[VALIDATION_FAILURE_KEY] = go_json([entry])
                    audit_failure_written = True
            if outcome.request_error is not None:
                break
        if outcome.request_error is not None:  # this policy's audit annotations are never published
            audit_values.pop(policy.name, None)
            continue
        for key, values in audit_values.pop(policy.name, {}).items():
            full = f"{policy.name}/{key}"
            if full not in outcome.audit_annotations:
                outcome.audit_annotations[full] = ", ".join(values)
    # never written when Dispatch returned early (the request failed); a key already set is kept
    if audit_failures and outcome.request_error is None and VALIDATION_FAILURE_KEY not in outcome.audit_annotations:
        outcome.audit_annotations[VALIDATION_FAILURE_KEY] = go_json(audit_failures[:MAX_VALIDATION_FAILURES])
    for static, name in sorted(by_policy):
        if (static, name) not in policy_names:
            for b in by_policy[(static, name)]:
                outcome.policies.append({
                    "name": name, "matched": False, "missing": True,
                    "explanation": [f"binding {b.name!r} names policy {name!r}, which does not exist: it is ignored"],
                    "bindings": [],
                })
    return outcome


def _dispatch_binding(
    outcome: Outcome,
    policy: Loaded,
    binding: Loaded,
    compiled: compiler.CompiledPolicy,
    attrs: Attributes,
    cluster: Cluster,
    match: Any,
    namespaced_params: bool,
    failure_policy: str,
    authorizer: Callable[[dict[str, Any]], Any] | None,
    audit_values: dict[str, dict[str, list[str]]],
    precord: dict[str, Any],
) -> dict[str, Any]:
    bspec = binding.spec
    actions = [str(a) for a in bspec.get("validationActions") or []]
    brecord: dict[str, Any] = {"name": binding.name, "matched": False, "explanation": [],
                               "validationActions": actions, "evaluations": []}
    resources = bspec.get("matchResources")
    if resources is None:
        brecord["explanation"].append("the binding has no matchResources: it applies wherever the policy does")
    else:
        bmatch = matches(resources, attrs, table=cluster.table, lookup_namespace=cluster.namespace,
                         allow_empty_rules=True)
        brecord["explanation"].extend(bmatch.explanation)
        if bmatch.error is not None:
            _config_error(outcome, policy, binding, bmatch.error, brecord)
            return brecord
        if not bmatch.matches:
            brecord["explanation"].append("the request is not in the binding's matchResources")
            return brecord
    try:
        params = collect_params(
            param_kind=policy.spec.get("paramKind"),
            param_namespaced=namespaced_params,
            param_ref=bspec.get("paramRef"),
            attrs=attrs,
            objects=cluster.objects,
        )
    except ParamError as exc:
        brecord["matched"] = True
        _config_error(outcome, policy, binding, str(exc), brecord)
        return brecord
    brecord["matched"] = True
    brecord["explanation"].extend(params.explanation)

    # The request's Namespace is fetched for every binding whose params were collected, even when no
    # param was found (dispatcher.go does so before looping over the params); a failure ends the request.
    namespace_full = None
    if attrs.namespace and not attrs.is_namespace_object:
        namespace_full = cluster.namespace(attrs.namespace)
        if namespace_full is None:
            outcome.request_error = namespace_not_found(attrs.namespace)
            brecord["explanation"].append(
                f"namespace {attrs.namespace!r} is not in the Namespace pane: the apiserver fails the whole request"
            )
            return brecord
    if not params.params:
        return brecord
    namespace_object = reduced_namespace(namespace_full) if namespace_full is not None else None
    req = request_value(attrs, resource=match.resource, kind=match.kind)
    original = {"group": attrs.resource.group, "version": attrs.resource.version, "resource": attrs.resource.resource}
    versioned_object = versioned(attrs.object, match.kind)
    versioned_old_object = versioned(attrs.old_object, match.kind)
    if match.kind != attrs.kind:
        brecord["explanation"].append(
            f"the object is converted to {_gvk_text(match.kind)}, the kind the policy matched: its apiVersion and kind "
            "are rewritten; field differences between versions are not converted here"
        )
    for param in params.params:
        inv = validator.Invocation(
            object=versioned_object,
            old_object=versioned_old_object,
            request=req,
            request_original_resource=original,
            params=param,
            namespace_object=namespace_object,
            namespace_full=namespace_full,
            authorizer=authorizer(req) if authorizer is not None and compiled.uses_authorizer else None,
        )
        result = validator.validate(compiled, inv, failure_policy)
        evaluation: dict[str, Any] = {
            "param": param_ref_name(param),
            "matchConditions": result.match_conditions,
            "matched": result.matched,
            "variables": result.variables,
            "validations": result.validations,
            "auditAnnotations": [a.to_json() for a in result.audit_annotations],
            "decisions": [],
            "authorizerChecks": getattr(inv.authorizer, "checks", []),
        }
        if not result.matched:
            evaluation["explanation"] = (
                "a matchCondition is false: the policy does not apply to this request"
                if result.match_error is None else
                f"matchConditions failed ({result.match_error}) and failurePolicy is Ignore: skipped"
            )
        brecord["evaluations"].append(evaluation)
        for decision in result.decisions:
            evaluation["decisions"].append({
                "action": decision.action, "evaluation": decision.evaluation,
                "message": decision.message, "reason": decision.reason, "index": decision.index,
            })
            if decision.action != DENY:
                continue
            for action in actions:
                if action == "Deny":
                    outcome.denials.append(Denial(policy.name, binding.name, decision))
                elif action == "Warn":
                    _add_warning(
                        outcome,
                        f"Validation failed for ValidatingAdmissionPolicy '{policy.name}' with binding "
                        f"'{binding.name}': {decision.message}",
                    )
                elif action == "Audit":
                    brecord.setdefault("_audit_failures", []).append({
                        "message": decision.message,
                        "policy": str(binding.spec.get("policyName")),
                        "binding": binding.name,
                        "expressionIndex": decision.index,
                        "validationActions": actions,
                    })
        for annotation in result.audit_annotations:
            if annotation.action == "publish" and annotation.value is not None:
                value = _truncate_bytes(annotation.value, validator.AUDIT_VALUE_MAX_BYTES)
                values = audit_values.setdefault(policy.name, {}).setdefault(annotation.key, [])
                if value not in values:
                    values.append(value)
            elif annotation.action == "error":
                outcome.denials.append(
                    Denial(policy.name, binding.name, PolicyDecision(DENY, ERROR, annotation.error or ""))
                )
    return brecord


def _gvk_text(kind: GroupVersionKind) -> str:
    return f"{kind.group + '/' if kind.group else ''}{kind.version} {kind.kind}"


def versioned(obj: Any, kind: GroupVersionKind) -> Any:
    """The object as admission.ConvertToGVK hands it to a policy matched as ``kind``.

    The apiserver converts the object to the matched version and sets its apiVersion and kind; only
    that rewrite is done here (an object already of that kind is passed unchanged).
    """
    if not isinstance(obj, dict):
        return obj
    api_version = f"{kind.group}/{kind.version}" if kind.group else kind.version
    if obj.get("apiVersion") == api_version and obj.get("kind") == kind.kind:
        return obj
    seen = _VERSIONED.get(obj, kind)
    if seen is not None:  # the same request's object (see request._stable_copy)
        return seen
    out = {"apiVersion": api_version, "kind": kind.kind}
    out.update({k: v for k, v in obj.items() if k not in ("apiVersion", "kind")})
    _VERSIONED.put(obj, out, kind)
    return out


# the last objects converted to another kind, with their conversions: a later evaluation of the same
# object gets the same conversion (and what is kept for it, see fast.kept); never changed
_VERSIONED: fast.ByIdentity[Any] = fast.ByIdentity("dispatcher.versioned", 16)


def _truncate_bytes(text: str, limit: int) -> str:
    data = text.encode()
    if len(data) <= limit:
        return text
    return data[:limit].decode(errors="ignore")


def _add_warning(outcome: Outcome, text: str) -> None:
    """Record a warning in the order the dispatcher adds it; decision.finish_warnings turns them into headers."""
    outcome.warnings.append(text)


def go_json(value: Any) -> str:
    """Serialise as Go's encoding/json does by default: compact, with <, >, & escaped."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))
