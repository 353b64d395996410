"""What Kyverno's validating webhook would answer: its filters, each policy's rules, and the outcome.

Mirrors kyverno/kyverno pkg/webhooks/resource (Validate: the fail/ignore webhooks, enforce and audit
policies), pkg/webhooks/handlers/filter.go (configuration exclusions, resourceFilters), pkg/engine
(rule matching with autogen, validate.cel through the apiserver's own validator, applyRules), and
pkg/webhooks/utils (the blocked message, the warnings). ``validate.cel`` rules are evaluated; other
rule types are shown as matched or not, with their outcome unknown.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .. import compiler, validator, webhooks
from ..dispatcher import Cluster, reduced_namespace
from ..matching import SelectorError, describe_selector, matches, selector_matches
from ..request import Attributes
from ..resources import GroupVersionKind, ResourceTable
from ..validator import ADMIT, DENY, ERROR
from . import goyaml, wildcard
from .config import Configuration
from .match import Request, check_kind, not_matched_message, role_refs, rule_matches
from .policy import KyvernoPolicy, cel_spec, compiled_fields

WEBHOOK = "validate.kyverno.svc"
CONFIGURATION = "kyverno-resource-validating-webhook-cfg"
_KYVERNO_REPORT_KINDS = ("AdmissionReport", "ClusterAdmissionReport", "BackgroundScanReport",
                         "ClusterBackgroundScanReport", "UpdateRequest")
PASS, FAIL, ERROR_STATUS, SKIP = "pass", "fail", "error", "skip"


@dataclass
class Outcome:
    """Kyverno's answer, with a record per policy."""

    policies: list[dict[str, Any]] = field(default_factory=list)
    called: bool = False
    status: dict[str, Any] | None = None  # the denial, if Kyverno blocks the request
    decided_by: str | None = None  # the Kyverno webhook that denies
    request_error: dict[str, Any] | None = None  # an error kube-apiserver returns before calling Kyverno
    warnings: list[str] = field(default_factory=list)
    explanation: list[str] = field(default_factory=list)


def _webhook_name(policy: KyvernoPolicy) -> tuple[str, str]:
    """The Kyverno webhook serving the policy, and that webhook's failurePolicy."""
    spec = policy.spec
    config = spec.get("webhookConfiguration") if isinstance(spec.get("webhookConfiguration"), Mapping) else {}
    failure_policy = str(config.get("failurePolicy") or spec.get("failurePolicy") or "Fail")
    name = f"{WEBHOOK}-{'ignore' if failure_policy == 'Ignore' else 'fail'}"
    if config.get("matchConditions"):
        key = f"{policy.namespace}-{policy.name}" if policy.namespace else policy.name
        name += f"-finegrained-{key}"
    return name, failure_policy


def is_enforce(action: Any) -> bool:
    return str(action).lower() == "enforce"


def effective_action(rule: Mapping[str, Any], spec: Mapping[str, Any], namespace: Mapping[str, Any] | None) -> tuple[
        str, str]:
    """The rule's failure action for this request's namespace, and where it comes from."""
    validate = rule.get("validate") if isinstance(rule.get("validate"), Mapping) else {}
    action = validate.get("failureAction")
    source = "the rule's validate.failureAction"
    if action is None:
        action = spec.get("validationFailureAction") or "Audit"
        source = "the policy's validationFailureAction"
    overrides = validate.get("failureActionOverrides") or spec.get("validationFailureActionOverrides") or []
    meta = namespace.get("metadata") if isinstance(namespace, Mapping) else None
    meta = meta if isinstance(meta, Mapping) else {}
    ns_name = str(meta.get("name") or "")
    labels = {str(k): str(v) for k, v in (meta.get("labels") or {}).items()} if isinstance(meta.get("labels"),
                                                                                            Mapping) else {}
    for override in overrides:
        if not isinstance(override, Mapping):
            continue
        namespaces = [str(n) for n in override.get("namespaces") or []]
        selector = override.get("namespaceSelector")
        if not namespaces and selector is None:
            return str(override.get("action")), "a failure action override for every namespace"
        if namespace is not None and wildcard.check_patterns(namespaces, ns_name):
            return str(override.get("action")), f"the failure action override for namespaces {namespaces}"
        if namespace is not None and isinstance(selector, Mapping):
            try:
                if selector_matches(selector, labels):
                    return str(override.get("action")), (f"the failure action override for namespaces selected by "
                                                         f"{describe_selector(selector)}")
            except SelectorError:
                continue
    return str(action), source


def _request_value(attrs: Attributes, top: GroupVersionKind, resource: Mapping[str, Any] | None) -> dict[str, Any]:
    """The ``request`` Kyverno's CEL handler builds: top-level kind, no subresource, no options, dryRun false."""
    kind = {"group": top.group, "version": top.version, "kind": top.kind}
    res = {"group": attrs.resource.group, "version": attrs.resource.version, "resource": attrs.resource.resource}
    meta = resource.get("metadata") if isinstance(resource, Mapping) else None
    meta = meta if isinstance(meta, Mapping) else {}
    value: dict[str, Any] = {"kind": kind, "resource": res, "requestKind": dict(kind), "requestResource": dict(res),
                             "operation": attrs.operation,
                             "userInfo": {k: v for k, v in attrs.user_info.items() if v not in (None, "", [], {})},
                             "dryRun": False}
    name = str(meta.get("name") or "")
    namespace = "" if (top.group, top.version, top.kind) == ("", "v1", "Namespace") else str(meta.get("namespace")
                                                                                             or "")
    if name:
        value["name"] = name
    if namespace:
        value["namespace"] = namespace
    return value


def _collect_params(cel: Mapping[str, Any], namespace: str, cluster: Cluster,
                    table: ResourceTable) -> tuple[list[Any], str | None, list[str]]:
    """admissionpolicy.CollectParams: the param objects, or Kyverno's error."""
    why: list[str] = []
    param_kind = cel.get("paramKind") if isinstance(cel.get("paramKind"), Mapping) else {}
    ref = cel.get("paramRef") if isinstance(cel.get("paramRef"), Mapping) else {}
    api_version = str(param_kind.get("apiVersion") or "")
    kind = str(param_kind.get("kind") or "")
    if api_version.count("/") > 1:
        return [], "can't parse the parameter resource group version", why
    group, _, version = api_version.rpartition("/")
    info = table.by_kind(group, version, kind)
    objects = [o for o in cluster.objects if isinstance(o, Mapping) and o.get("kind") == kind
               and str(o.get("apiVersion") or "") == api_version]
    if info is None and not objects:
        return [], (f"failed to check if resource is namespaced or not (failed to find resource "
                    f"({group}/{version}, Kind={kind}))"), why
    namespaced = info.namespaced if info is not None else True
    resource = info.gvr.resource + (f".{group}" if group else "") if info is not None else kind.lower() + "s"
    params_namespace = ""
    if namespaced:
        params_namespace = str(ref.get("namespace") or namespace)
        if not params_namespace:
            return [], "can't use namespaced paramRef to match cluster-scoped resources", why
    elif ref.get("namespace"):
        return [], "paramRef.namespace must not be provided for a cluster-scoped `paramKind`", why

    def meta(o: Mapping[str, Any]) -> Mapping[str, Any]:
        m = o.get("metadata")
        return m if isinstance(m, Mapping) else {}

    in_scope = [o for o in objects if not namespaced or str(meta(o).get("namespace") or "default") == params_namespace]
    where = f"namespace {params_namespace!r}" if namespaced else "the cluster"
    if ref.get("name"):
        found = [o for o in in_scope if meta(o).get("name") == ref["name"]][:1]
        if not found:
            return [], f'{resource} "{ref["name"]}" not found', why
        why.append(f"paramRef.name {ref['name']!r}: found in {where}")
        return found, None, why
    params: list[Any] = []
    if isinstance(ref.get("selector"), Mapping):
        try:
            params = [o for o in in_scope
                      if selector_matches(ref["selector"], {str(k): str(v) for k, v in
                                                            (meta(o).get("labels") or {}).items()})]
        except SelectorError as exc:
            return [], str(exc), why
        params.sort(key=lambda o: str(meta(o).get("name") or ""))
        why.append(f"paramRef.selector {describe_selector(ref['selector']) or 'everything'} in {where} selects "
                   f"{len(params)} {kind}")
    if not params and ref.get("parameterNotFoundAction") == "Deny":
        return [], "no params found", why
    return params, None, why


def _evaluation_record(param: Any, result: validator.ValidateResult) -> dict[str, Any]:
    meta = param.get("metadata") if isinstance(param, Mapping) and isinstance(param.get("metadata"), Mapping) else {}
    return {
        "param": {"namespace": meta.get("namespace"), "name": meta.get("name")} if param is not None else None,
        "matchConditions": result.match_conditions,
        "matched": result.matched,
        "variables": result.variables,
        "validations": result.validations,
        "auditAnnotations": [a.to_json() for a in result.audit_annotations],
    }


def _validate_cel(
    rule: Mapping[str, Any],
    record: dict[str, Any],
    req: Request,
    attrs: Attributes,
    *,
    policy_name: str,
    top: GroupVersionKind,
    cluster: Cluster,
    table: ResourceTable,
    version: str,
    authorizer: Callable[[dict[str, Any]], Any] | None,
) -> tuple[str, str]:
    """validateCELHandler.Process: the rule's status and message."""
    name = str(rule.get("name") or "")
    validate = rule.get("validate") if isinstance(rule.get("validate"), Mapping) else {}
    cel = validate.get("cel") if isinstance(validate.get("cel"), Mapping) else {}
    resource = req.new if req.new is not None else req.old
    spec, has_param = cel_spec(rule)
    compiled = compiler.compile_policy(f"{policy_name}/{name}", spec, version)
    record["compileErrors"] = [
        {"field": f, "error": c.error} for f, c in compiled_fields(compiled) if c.error is not None
    ]
    meta = resource.get("metadata") if isinstance(resource, Mapping) and isinstance(resource.get("metadata"),
                                                                                    Mapping) else {}
    is_namespace = (top.group, top.version, top.kind) == ("", "v1", "Namespace")
    ns = "" if is_namespace else str(meta.get("namespace") or "")
    namespace_full = None
    if ns:
        namespace_full = cluster.namespace(ns)
        if namespace_full is None:
            return ERROR_STATUS, f'Error getting the resource\'s namespace: namespaces "{ns}" not found'
    params: list[Any] = [None]
    if has_param:
        params, err, why = _collect_params(cel, ns, cluster, table)
        record["explanation"].extend(why)
        if err is not None:
            return ERROR_STATUS, f"error in parameterized resource: {err}"
        params = [p if "apiVersion" in p and "kind" in p else {**p, "apiVersion": cel["paramKind"].get("apiVersion"),
                                                               "kind": cel["paramKind"].get("kind")} for p in params]
    req_value = _request_value(attrs, top, resource)
    original = dict(req_value["resource"])
    results: list[validator.ValidateResult] = []
    for param in params:
        inv = validator.Invocation(  # (the validator reads its inputs, never changes them)
            object=req.new,
            old_object=req.old,
            request=req_value,
            request_original_resource=original,
            params=param,
            namespace_object=reduced_namespace(namespace_full) if namespace_full is not None else None,
            namespace_full=namespace_full,
            authorizer=authorizer(req_value) if authorizer is not None else None,
        )
        result = validator.validate(compiled, inv, "Fail")
        results.append(result)
        record["evaluations"].append(_evaluation_record(param, result))
    for result in results:
        if not result.decisions and not result.audit_annotations:
            return SKIP, "cel preconditions not met"
        for decision in result.decisions:
            if decision.action == ADMIT and decision.evaluation == ERROR:
                return ERROR_STATUS, decision.message
            if decision.action == DENY:
                return FAIL, decision.message
    return PASS, f"Validation rule '{name}' passed."


def _report_result(policy: KyvernoPolicy, rule: str, status: str, message: str) -> dict[str, Any]:
    """A PolicyReport result, as Kyverno writes one for an admission review."""
    return {"source": "kyverno", "policy": policy.key, "rule": rule, "result": status, "message": message,
            "scored": True, "properties": {"process": "admission review"}}


def _top_level_kind(attrs: Attributes, table: ResourceTable) -> GroupVersionKind:
    """WithTopLevelGVK: the kind of the requested resource itself (for pods/exec: Pod)."""
    return table.kind_for(attrs.resource, "") or attrs.kind


def evaluate(
    policies: list[KyvernoPolicy],
    attrs: Attributes,
    *,
    config: Configuration,
    cluster: Cluster,
    table: ResourceTable,
    version: str,
    authorizer: Callable[[dict[str, Any]], Any] | None,
) -> Outcome:
    """Everything Kyverno's validating webhooks would do with the request."""
    out = Outcome()
    if not policies:
        return out
    records = {p.key: _policy_record(p) for p in sorted(policies, key=lambda p: (p.namespace, p.name))}
    out.policies = list(records.values())

    def skip_all(reason: str) -> Outcome:
        out.explanation.append(reason)
        for record in out.policies:
            record["explanation"].append(reason)
        return out

    exempt = webhooks.exempt_reason(attrs, version)
    if exempt is not None:
        return skip_all(f"Kyverno is an admission webhook: {exempt}")
    top = _top_level_kind(attrs, table)
    if not any(_registers(p, attrs, top) for p in policies):
        shown = top.kind + (f"/{attrs.subresource}" if attrs.subresource else "")
        return skip_all(f"no rule selects a {attrs.operation} of a {shown}, so Kyverno does not register its webhooks "
                        "for this request and is not called")
    # Kyverno's webhook configuration: its namespaceSelector (kube-system and kyverno are left out by default)
    criteria = {"namespaceSelector": config.namespace_selector or {}, "objectSelector": config.object_selector or {},
                "matchPolicy": "Equivalent",
                "resourceRules": [{"operations": ["*"], "apiGroups": ["*"], "apiVersions": ["*"],
                                   "resources": ["*/*"], "scope": "*"}]}
    selection = matches(criteria, attrs, table=table, lookup_namespace=cluster.namespace, allow_empty_rules=False)
    if selection.error is not None:
        out.request_error = webhooks.selector_error_status(selection.error)
        return skip_all(f"the namespaceSelector of Kyverno's webhooks ({config.source}) cannot be evaluated: "
                        f"kube-apiserver fails the request with {selection.error}")
    if not selection.matches:
        detail = "; ".join(selection.explanation)
        return skip_all(f"Kyverno's webhooks are not called: their selectors ({config.source}) leave the request out "
                        f"({detail})")
    username = str(attrs.user_info.get("username") or "")
    groups = [str(g) for g in attrs.user_info.get("groups") or []]
    roles, cluster_roles = role_refs(cluster.objects, username, groups, attrs.namespace)
    excluded = config.excluded(username, groups, roles, cluster_roles)
    if excluded is not None:
        return skip_all(f"Kyverno lets the request through without looking at any policy: the {excluded} excluded "
                        f"by {config.source}")
    filtered = config.filtered(top.group, top.version, top.kind, attrs.subresource, attrs.namespace, attrs.name)
    if filtered is not None:
        where = f"{attrs.namespace}/{attrs.name}" if attrs.namespace else attrs.name
        return skip_all(f"Kyverno lets the request through without looking at any policy: resourceFilters entry "
                        f"{filtered} of {config.source} matches {top.kind} {where}")
    if attrs.kind.kind in _KYVERNO_REPORT_KINDS:
        return skip_all(f"Kyverno never validates its own {attrs.kind.kind} objects")
    out.called = True
    namespace_labels: dict[str, str] = {}
    if top.kind != "Namespace" and attrs.namespace:
        ns = cluster.namespace(attrs.namespace)
        meta = ns.get("metadata") if isinstance(ns, Mapping) else None
        labels = meta.get("labels") if isinstance(meta, Mapping) else None
        namespace_labels = {str(k): str(v) for k, v in labels.items()} if isinstance(labels, Mapping) else {}
    req = Request(operation=attrs.operation, group=top.group, version=top.version, kind=top.kind,
                  subresource=attrs.subresource, new=attrs.object if isinstance(attrs.object, dict) else None,
                  old=attrs.old_object if isinstance(attrs.old_object, dict) else None,
                  namespace_labels=namespace_labels, username=username, groups=groups, roles=roles,
                  cluster_roles=cluster_roles)
    namespace_obj = cluster.namespace(attrs.namespace) if attrs.namespace else None
    by_webhook: dict[str, dict[str, Any]] = {}
    for policy in sorted(policies, key=lambda p: (p.namespace, p.name)):
        record = records[policy.key]
        webhook, failure_policy = _webhook_name(policy)
        record["webhook"], record["failurePolicy"] = webhook, failure_policy
        record["explanation"].append(
            f"served by Kyverno's webhook {webhook} (failurePolicy {failure_policy}); the user's roles are "
            f"{roles or '[]'} and cluster roles {cluster_roles or '[]'} (from the RoleBindings and ClusterRoleBindings "
            "given, and the bootstrap ClusterRoleBindings of every cluster)")
        if policy.spec.get("admission") is False:
            record["explanation"].append("spec.admission is false: the policy only runs in background scans")
            continue
        if policy.namespace and policy.namespace != attrs.namespace:
            record["explanation"].append(f"a Policy only applies to requests in its namespace {policy.namespace!r}")
            continue
        slot = by_webhook.setdefault(webhook, {"failurePolicy": failure_policy, "enforce": [], "warn": [],
                                               "error": None})
        if "-finegrained-" in webhook and not _fine_grained_matches(
                policy, record, attrs, failure_policy, slot, version, authorizer):
            continue
        record["applies"] = True
        _evaluate_policy(policy, record, req, attrs, namespace_obj, slot, top=top, cluster=cluster, table=table,
                         version=version, authorizer=authorizer)
    _decide(out, by_webhook, attrs)
    return out


_ALL_OPERATIONS = ("CREATE", "UPDATE", "DELETE", "CONNECT")


def _registers(policy: KyvernoPolicy, attrs: Attributes, top: GroupVersionKind) -> bool:
    """Kyverno's webhook rules (mergeWebhook) include this request: a validate rule whose kinds and operations
    (all four by default) cover it."""
    if policy.spec.get("admission") is False:
        return False
    for rule in policy.rules_for(top.kind):
        if not rule.get("validate"):
            continue
        match = rule.get("match") if isinstance(rule.get("match"), Mapping) else {}
        for block in [match, *(match.get("any") or []), *(match.get("all") or [])]:
            resources = block.get("resources") if isinstance(block, Mapping) else None
            if not isinstance(resources, Mapping):
                continue
            kinds = [str(k) for k in resources.get("kinds") or []]
            operations = [str(o) for o in resources.get("operations") or []] or list(_ALL_OPERATIONS)
            if attrs.operation in operations and check_kind(kinds, top.group, top.version, top.kind,
                                                            attrs.subresource) is not None:
                return True
    return False


def _policy_record(policy: KyvernoPolicy) -> dict[str, Any]:
    spec = policy.spec
    return {
        "kind": policy.kind, "name": policy.name, "namespace": policy.namespace or None,
        "validationFailureAction": spec.get("validationFailureAction"), "webhook": None, "failurePolicy": None,
        "applies": False, "reached": True, "explanation": [], "rules": [],
    }


def _fine_grained_matches(policy: KyvernoPolicy, record: dict[str, Any], attrs: Attributes, failure_policy: str,
                          slot: dict[str, Any], version: str,
                          authorizer: Callable[[dict[str, Any]], Any] | None) -> bool:
    """spec.webhookConfiguration.matchConditions: the policy's own webhook is only called when they hold."""
    conditions = policy.spec["webhookConfiguration"]["matchConditions"]
    result = webhooks.match_conditions(f"{policy.key}/webhook", conditions, attrs, resource=attrs.resource,
                                       kind=attrs.kind, failure_policy=failure_policy, version=version,
                                       authorizer=authorizer)
    record["webhookMatchConditions"] = result.match_conditions
    if result.decisions:
        slot["error"] = webhooks.forbidden(attrs, attrs.name, result.decisions[0].message)
        record["explanation"].append("webhookConfiguration.matchConditions failed with failurePolicy Fail: "
                                     f"kube-apiserver rejects the request: {result.decisions[0].message}")
        return False
    if not result.matched:
        record["explanation"].append("webhookConfiguration.matchConditions do not hold: the policy's webhook is not "
                                     "called")
        return False
    return True


def _evaluate_policy(
    policy: KyvernoPolicy,
    record: dict[str, Any],
    req: Request,
    attrs: Attributes,
    namespace_obj: Mapping[str, Any] | None,
    slot: dict[str, Any],
    **kw: Any,
) -> None:
    spec = policy.spec
    top: GroupVersionKind = kw["top"]
    apply_one = spec.get("applyRules") == "One"
    applied = 0
    enforce_rules: list[tuple[str, str, str]] = []
    warn_rules: list[tuple[str, str, str]] = []
    emit_warning = spec.get("emitWarning") is True
    for rule in policy.rules_for(top.kind):
        name = str(rule.get("name") or "")
        action, source = effective_action(rule, spec, namespace_obj)
        rrec: dict[str, Any] = {"name": name, "autogen": name.startswith("autogen-"), "action": action,
                                "actionSource": source, "type": _rule_type(rule), "matched": False,
                                "status": None, "message": None, "explanation": [], "evaluations": [],
                                "report": None}
        record["rules"].append(rrec)
        if rrec["autogen"]:
            rrec["explanation"].append(f"generated by Kyverno from the Pod rule for this {top.kind} (autogen): "
                                       "object.spec and object.metadata refer to the Pod template")
        if apply_one and applied:
            rrec["explanation"].append("applyRules One: an earlier rule already applied")
            continue
        result = rule_matches(rule, req, policy.namespace)
        rrec["explanation"].extend(result.explanation)
        if not result.matched:
            rrec["status"] = "not-matched"
            rrec["explanation"].append(not_matched_message(name, result.reasons))
            continue
        rrec["matched"] = True
        if rrec["type"] != "validate.cel":
            rrec["status"] = "not-evaluated"
            rrec["explanation"].append(f"a {rrec['type']} rule: the playground evaluates only validate.cel rules, so "
                                       "its outcome is not known")
            continue
        validate = rule.get("validate") if isinstance(rule.get("validate"), Mapping) else {}
        if isinstance(validate.get("cel"), Mapping) and validate["cel"].get("generate") is True:
            rrec["explanation"].append("cel.generate is true: once Kyverno has generated a ValidatingAdmissionPolicy "
                                       "from it, Kyverno skips the rule and the generated policy enforces it")
        status, message = _validate_cel(rule, rrec, req, attrs, policy_name=policy.key, top=top,
                                        cluster=kw["cluster"], table=kw["table"], version=kw["version"],
                                        authorizer=kw["authorizer"])
        rrec["status"], rrec["message"] = status, message
        if status in (PASS, FAIL):
            applied += 1
        rrec["report"] = _report_result(policy, name, status, message)
        if is_enforce(action):
            enforce_rules.append((policy.name, name, status))
            rrec["explanation"].append(_enforce_words(status, slot["failurePolicy"]))
        else:
            if emit_warning:
                warn_rules.append((policy.name, name, status))
            rrec["explanation"].append(_audit_words(status, emit_warning))
        rrec["_message"] = message
    slot["enforce"].append((policy, [r for r in record["rules"] if r["status"] in (PASS, FAIL, ERROR_STATUS, SKIP)
                                     and is_enforce(r["action"])], req))
    slot["warn"].append((policy, [r for r in record["rules"] if r["status"] in (PASS, FAIL, ERROR_STATUS, SKIP)
                                  and not is_enforce(r["action"]) and emit_warning]))
    for r in record["rules"]:
        r.pop("_message", None)


def _rule_type(rule: Mapping[str, Any]) -> str:
    validate = rule.get("validate")
    if isinstance(validate, Mapping):
        if validate.get("cel") is not None:
            return "validate.cel"
        for key in ("pattern", "anyPattern", "deny", "podSecurity", "foreach", "manifests"):
            if validate.get(key) is not None:
                return f"validate.{key}"
        return "validate"
    for key in ("mutate", "generate", "verifyImages"):
        if rule.get(key):
            return key
    return "unknown"


def _enforce_words(status: str, failure_policy: str) -> str:
    if status == FAIL:
        return "Enforce: the rule fails, so Kyverno denies the request"
    if status == ERROR_STATUS:
        return ("Enforce: the rule errors, and with failurePolicy Fail Kyverno denies the request"
                if failure_policy == "Fail" else
                "Enforce: the rule errors, but with failurePolicy Ignore Kyverno lets the request through (warning)")
    return f"Enforce: the rule's result is {status}"


def _audit_words(status: str, emit_warning: bool) -> str:
    if status in (FAIL, ERROR_STATUS):
        tail = " and, with emitWarning, returns a warning" if emit_warning else ""
        return f"Audit: the request is allowed; Kyverno records result {status} in a PolicyReport{tail}"
    return f"Audit: Kyverno records result {status} in a PolicyReport"


def _decide(out: Outcome, by_webhook: dict[str, dict[str, Any]], attrs: Attributes) -> None:
    """Per Kyverno webhook: block (Enforce failures, or errors under Fail) with the blocked message, else warn."""
    for name in sorted(by_webhook):
        slot = by_webhook[name]
        if slot["error"] is not None:
            if out.request_error is None:
                out.request_error, out.decided_by = slot["error"], name
            continue
        enforce = slot["enforce"]
        blocked = any(r["status"] == FAIL for _, rules, _ in enforce for r in rules) or (
            slot["failurePolicy"] == "Fail" and any(r["status"] == ERROR_STATUS for _, rules, _ in enforce
                                                    for r in rules))
        if blocked:
            if out.status is None:
                out.status = _blocked_status(name, enforce)
                out.decided_by = name
            continue
        for policy, rules, _ in enforce:
            out.warnings += [f"policy {policy.name}.{r['name']}: {r['message']}" for r in rules
                             if r["status"] in (FAIL, ERROR_STATUS)]
        for policy, rules in slot["warn"]:
            out.warnings += [f"policy {policy.name}.{r['name']}: {r['message']}" for r in rules
                             if r["status"] in (FAIL, ERROR_STATUS)]


def blocked_message(enforce: list[tuple[KyvernoPolicy, list[dict[str, Any]], Request]]) -> str:
    """GetBlockedMessages: the failing rules of each policy, as yaml.v3 writes them."""
    failures: dict[str, dict[str, str]] = {}
    for policy, rules, _ in enforce:
        reasons = {r["name"]: str(r["message"]) for r in rules if r["status"] not in (PASS, SKIP)}
        if reasons:
            failures[policy.name] = reasons
    _, _, req = enforce[0]
    resource = req.new if req.new is not None else req.old or {}
    meta = resource.get("metadata") if isinstance(resource.get("metadata"), Mapping) else {}
    name = f"{resource.get('kind') or ''}/{meta.get('namespace') or ''}/{meta.get('name') or ''}"
    return f"\n\nresource {name} was blocked due to the following policies \n\n{goyaml.encode(failures)}"


def _blocked_status(webhook: str, enforce: list[tuple[KyvernoPolicy, list[dict[str, Any]], Request]]) -> dict[str, Any]:
    """What kube-apiserver makes of Kyverno's refusal (ToStatusErr): 400, no reason."""
    message = f'admission webhook "{webhook}" denied the request: {blocked_message(enforce)}'
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message,
            "code": 400}
