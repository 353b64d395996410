"""Admission webhooks: which webhooks of the pasted webhook configurations a request would be sent to.

Mirrors k8s.io/apiserver/pkg/admission/plugin/webhook/generic/webhook.go (ShouldCallHook, Dispatch), the
mutating and validating dispatchers (dry-run check, failurePolicy, failed-open annotations), and the
defaulting and API validation of ValidatingWebhookConfiguration and MutatingWebhookConfiguration
(k8s.io/kubernetes/pkg/apis/admissionregistration). No webhook is ever called: the playground says whether
the request would be sent, and what each possible answer of the webhook would do.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import urlsplit

from . import cel, compiler, validation, validator
from .cel import library
from .dispatcher import EXCLUDED_REVIEWS
from .documents import Document, Problem
from .matching import NamespaceLookup, matches
from .request import Attributes, request_value
from .resources import GroupVersionKind, GroupVersionResource, ResourceTable
from .validation import FieldError

ADMISSION_GROUP = "admissionregistration.k8s.io"
VALIDATING = "ValidatingWebhookConfiguration"
MUTATING = "MutatingWebhookConfiguration"
KINDS = (VALIDATING, MUTATING)
VERSIONS = ("v1", "v1beta1")
# Kinds whose requests are never sent to any webhook (rules.IsExemptAdmissionConfigurationResource).
_EXEMPT_KINDS = ("ValidatingWebhookConfiguration", "MutatingWebhookConfiguration", "ValidatingAdmissionPolicy",
                 "ValidatingAdmissionPolicyBinding")
_EXEMPT_KINDS_1_32 = ("MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding")
# From 1.37 the feature gate ExcludeAdmissionWebhookVirtualResources (beta, on by default; absent before) keeps
# the virtual review resources (TokenReview, SubjectAccessReview, ...) away from admission webhooks, decided on
# the request's group and resource like the policy plugins do (version and subresource do not matter).
VIRTUAL_RESOURCES_EXCLUDED_SINCE = 37
_SIDE_EFFECTS = ["None", "NoneOnDryRun", "Some", "Unknown"]
_NO_SIDE_EFFECTS = ["None", "NoneOnDryRun"]
_REVIEW_VERSIONS = ["v1", "v1beta1"]
FAILED_OPEN_VALIDATING = "failed-open.validating.webhook.admission.k8s.io/"
FAILED_OPEN_MUTATING = "failed-open.mutation.webhook.admission.k8s.io/"


def is_webhook_doc(doc: Document) -> bool:
    """Say whether a document is a webhook configuration (any version of admissionregistration)."""
    return doc.kind in KINDS and doc.api_version.startswith(ADMISSION_GROUP + "/")


@dataclass
class Webhook:
    """One webhook of a stored (defaulted, valid) configuration."""

    configuration: str
    kind: str
    api_version: str
    index: int
    spec: dict[str, Any]

    @property
    def name(self) -> str:
        return str(self.spec.get("name") or "")

    @property
    def mutating(self) -> bool:
        return self.kind == MUTATING


@dataclass
class Phase:
    """What one webhook admission plugin (mutating or validating) would do with the request."""

    records: list[dict[str, Any]] = field(default_factory=list)
    status: dict[str, Any] | None = None  # the error the plugin returns, if the request fails here
    decided_by: str | None = None  # the webhook whose check produced ``status``


# --------------------------------------------------------------------------------------------
# Loading: defaulting and API validation


_STR = "string"
_SELECTOR = {"matchLabels": "strmap", "matchExpressions": [{"key": _STR, "operator": _STR, "values": [_STR]}]}
_RULE = {k: [_STR] for k in ("operations", "apiGroups", "apiVersions", "resources")}
_RULE["scope"] = _STR
_WEBHOOK_SCHEMA = {
    "name": _STR, "failurePolicy": _STR, "matchPolicy": _STR, "sideEffects": _STR, "reinvocationPolicy": _STR,
    "clientConfig": {"url": _STR, "service": {"namespace": _STR, "name": _STR, "path": _STR}, "caBundle": _STR},
    "rules": [_RULE], "namespaceSelector": _SELECTOR, "objectSelector": _SELECTOR,
    "admissionReviewVersions": [_STR], "matchConditions": [{"name": _STR, "expression": _STR}],
}
_CONFIG_SCHEMA = {"apiVersion": _STR, "kind": _STR,
                  "metadata": {"name": _STR, "generateName": _STR, "labels": "strmap", "annotations": "strmap"},
                  "webhooks": [_WEBHOOK_SCHEMA]}


def default_configuration(obj: dict[str, Any]) -> dict[str, Any]:
    """A defaulted copy: the defaults of the configuration's own version (v1, or the older v1beta1)."""
    out = copy.deepcopy(obj)
    beta = str(out.get("apiVersion", "")).endswith("/v1beta1")
    mutating = out.get("kind") == MUTATING
    for hook in out.get("webhooks") or []:
        if not isinstance(hook, dict):
            continue
        defaults: dict[str, Any] = {
            "failurePolicy": "Ignore" if beta else "Fail",
            "matchPolicy": "Exact" if beta else "Equivalent",
            "namespaceSelector": {},
            "objectSelector": {},
            "timeoutSeconds": 30 if beta else 10,
        }
        if beta:
            defaults["sideEffects"] = "Unknown"
            if not hook.get("admissionReviewVersions"):
                hook["admissionReviewVersions"] = ["v1beta1"]
        if mutating:
            defaults["reinvocationPolicy"] = "Never"
        for key, value in defaults.items():
            if hook.get(key) is None:
                hook[key] = value
        for rule in hook.get("rules") or []:
            if isinstance(rule, dict) and rule.get("scope") is None:
                rule["scope"] = "*"
        service = (hook.get("clientConfig") or {}).get("service") if isinstance(hook.get("clientConfig"), dict) \
            else None
        if isinstance(service, dict) and service.get("port") is None:
            service["port"] = 443
    return out


def validate_configuration(obj: dict[str, Any], compile_check: validation.CompileCheck | None) -> list[FieldError]:
    """Validate a defaulted webhook configuration as kube-apiserver does on create, in its order."""
    errs = validation._decode_errors(obj, _CONFIG_SCHEMA)
    for i, hook in enumerate(obj.get("webhooks") or []):
        if isinstance(hook, dict):
            for key in ("timeoutSeconds",):
                value = hook.get(key)
                if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                    errs.append(validation.invalid(f"webhooks[{i}].{key}", value, "must be an integer"))
    if errs:
        return errs
    beta = str(obj.get("apiVersion", "")).endswith("/v1beta1")
    meta_errs, _ = validation._validate_object_meta(validation._obj(obj, "metadata"), "metadata")
    errs += meta_errs
    names: set[str] = set()
    for i, hook in enumerate(validation._objs(obj, "webhooks")):
        path = f"webhooks[{i}]"
        errs += _validate_webhook(hook, path, obj.get("kind") == MUTATING, beta, compile_check)
        errs += _validate_review_versions(validation._strs(hook, "admissionReviewVersions"),
                                          f"{path}.admissionReviewVersions")
        name = validation._str(hook, "name")
        if not beta and name:  # unique names are required from v1 on
            if name in names:
                errs.append(validation.duplicate(f"{path}.name", name))
            names.add(name)
    return errs


def _fully_qualified_name(name: str, path: str) -> list[FieldError]:
    if not name:
        return [validation.required(path)]
    problems = validation._dns1123_subdomain(name)
    if problems:
        return [validation.invalid(path, name, ",".join(problems))]
    if len(name.split(".")) < 3:
        return [validation.invalid(path, name, "should be a domain with at least three segments separated by dots")]
    return []


def _validate_webhook(hook: dict[str, Any], path: str, mutating: bool, beta: bool,
                      compile_check: validation.CompileCheck | None) -> list[FieldError]:
    named = validation._Named
    errs = _fully_qualified_name(validation._str(hook, "name"), f"{path}.name")
    for i, rule in enumerate(validation._objs(hook, "rules")):
        errs += _validate_rule(rule, f"{path}.rules[{i}]")
    failure_policy = hook.get("failurePolicy")
    if failure_policy is not None and failure_policy not in ("Fail", "Ignore"):
        errs.append(validation.not_supported(f"{path}.failurePolicy", named(failure_policy), ["Fail", "Ignore"]))
    match_policy = hook.get("matchPolicy")
    if match_policy is not None and match_policy not in ("Equivalent", "Exact"):
        errs.append(validation.not_supported(f"{path}.matchPolicy", named(match_policy), ["Equivalent", "Exact"]))
    allowed = _SIDE_EFFECTS if beta else _NO_SIDE_EFFECTS
    side_effects = hook.get("sideEffects")
    if side_effects is None:
        errs.append(validation.required(f"{path}.sideEffects", "must specify one of " + ", ".join(allowed)))
    elif side_effects not in allowed:
        errs.append(validation.not_supported(f"{path}.sideEffects", named(side_effects), allowed))
    timeout = hook.get("timeoutSeconds")
    if timeout is not None and not 1 <= timeout <= 30:
        errs.append(validation.invalid(f"{path}.timeoutSeconds", timeout,
                                       "the timeout value must be between 1 and 30 seconds"))
    for key in ("namespaceSelector", "objectSelector"):
        if hook.get(key) is not None:
            errs += validation._validate_selector(validation._obj(hook, key), f"{path}.{key}")
    if mutating:
        policy = hook.get("reinvocationPolicy")
        if policy is not None and policy not in ("IfNeeded", "Never"):
            errs.append(validation.not_supported(f"{path}.reinvocationPolicy", named(policy), ["IfNeeded", "Never"]))
    errs += _validate_client_config(validation._obj(hook, "clientConfig"), f"{path}.clientConfig")
    errs += validation._validate_match_conditions(validation._objs(hook, "matchConditions"),
                                                  f"{path}.matchConditions", False, compile_check)
    return errs


def _validate_rule(rule: dict[str, Any], path: str) -> list[FieldError]:
    """validateRuleWithOperations: operations, then the rule (no resourceNames on webhooks)."""
    named = validation._Named
    errs: list[FieldError] = []
    operations = validation._strs(rule, "operations")
    if not operations:
        errs.append(validation.required(f"{path}.operations"))
    if len(operations) > 1 and "*" in operations:
        errs.append(validation.invalid(f"{path}.operations",
                                       validation._GoValue("[]admissionregistration.OperationType", operations),
                                       "if '*' is present, must not specify other operations"))
    supported = ["*", "CONNECT", "CREATE", "DELETE", "UPDATE"]
    for i, op in enumerate(operations):
        if op not in supported:
            errs.append(validation.not_supported(f"{path}.operations[{i}]", named(op), supported))
    groups, versions = validation._strs(rule, "apiGroups"), validation._strs(rule, "apiVersions")
    if not groups:
        errs.append(validation.required(f"{path}.apiGroups"))
    if len(groups) > 1 and "*" in groups:
        errs.append(validation.invalid(f"{path}.apiGroups", validation._GoValue("[]string", groups),
                                       "if '*' is present, must not specify other API groups"))
    if not versions:
        errs.append(validation.required(f"{path}.apiVersions"))
    if len(versions) > 1 and "*" in versions:
        errs.append(validation.invalid(f"{path}.apiVersions", validation._GoValue("[]string", versions),
                                       "if '*' is present, must not specify other API versions"))
    errs += [validation.required(f"{path}.apiVersions[{i}]") for i, v in enumerate(versions) if not v]
    errs += validation._validate_resources(validation._strs(rule, "resources"), f"{path}.resources")
    scope = rule.get("scope")
    if scope is not None and scope not in ("*", "Cluster", "Namespaced"):
        errs.append(validation.not_supported(f"{path}.scope", named(scope), ["*", "Cluster", "Namespaced"]))
    return errs


def _validate_client_config(config: dict[str, Any], path: str) -> list[FieldError]:
    url, service = config.get("url"), config.get("service")
    if (url is None) == (service is None):
        return [validation.required(path, "exactly one of url or service is required")]
    if url is not None:
        return _validate_url(str(url), f"{path}.url")
    return _validate_service(service if isinstance(service, dict) else {}, f"{path}.service")


def _validate_url(url: str, path: str) -> list[FieldError]:
    form = "; desired format: https://host[/path]"
    try:
        parts = urlsplit(url)
    except ValueError as exc:
        return [validation.required(path, f"url must be a valid URL: {exc}{form}")]
    errs: list[FieldError] = []
    if parts.scheme != "https":
        errs.append(validation.invalid(path, parts.scheme, "'https' is the only allowed URL scheme" + form))
    host = parts.netloc.rpartition("@")[2]
    if not host:
        errs.append(validation.invalid(path, host, "host must be specified" + form))
    if "@" in parts.netloc:
        errs.append(validation.invalid(path, parts.netloc.rpartition("@")[0],
                                       "user information is not permitted in the URL"))
    if parts.fragment:
        errs.append(validation.invalid(path, parts.fragment, "fragments are not permitted in the URL"))
    if parts.query:
        errs.append(validation.invalid(path, parts.query, "query parameters are not permitted in the URL"))
    return errs


def _validate_service(service: dict[str, Any], path: str) -> list[FieldError]:
    # kube-apiserver passes the service's name where ValidateWebhookService expects the namespace and the
    # namespace where it expects the name, so a missing name is reported at .namespace and the other way round.
    errs: list[FieldError] = []
    if not service.get("name"):
        errs.append(validation.required(f"{path}.namespace"))
    if not service.get("namespace"):
        errs.append(validation.required(f"{path}.name"))
    port = service.get("port", 443)
    if isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535:
        errs.append(validation.invalid(f"{path}.port", port,
                                       "port is not valid: must be between 1 and 65535, inclusive"))
    url_path = service.get("path")
    if not isinstance(url_path, str) or url_path in ("", "/"):
        return errs
    if url_path == "//":
        return [*errs, validation.invalid(f"{path}.path", url_path, "segment[0] may not be empty")]
    if not url_path.startswith("/"):
        errs.append(validation.invalid(f"{path}.path", url_path, "must start with a '/'"))
    check = url_path[1:]
    if check.endswith("/"):
        check = check[:-1]
    for i, step in enumerate(check.split("/")):
        if not step:
            errs.append(validation.invalid(f"{path}.path", url_path, f"segment[{i}] may not be empty"))
            continue
        for failure in validation._dns1123_subdomain(step):
            errs.append(validation.invalid(f"{path}.path", url_path, f"segment[{i}]: {failure}"))
    return errs


def _validate_review_versions(versions: list[str], path: str) -> list[FieldError]:
    if not versions:
        return [validation.required(path, "must specify one of " + ", ".join(_REVIEW_VERSIONS))]
    errs: list[FieldError] = []
    seen: set[str] = set()
    accepted = False
    for i, version in enumerate(versions):
        if version in seen:
            errs.append(validation.invalid(f"{path}[{i}]", version, "duplicate version"))
            continue
        seen.add(version)
        errs += [validation.invalid(f"{path}[{i}]", version, m) for m in validation._dns1035_label(version)]
        accepted |= version in _REVIEW_VERSIONS
    if not accepted:
        errs.append(validation.invalid(path, validation._GoValue("[]string", versions),
                                       "must include at least one of " + ", ".join(_REVIEW_VERSIONS)))
    return errs


def load(
    docs: list[Document],
    *,
    version: str,
    compile_check: Callable[[str], validation.CompileCheck],
    problems: list[Problem],
    rejected: list[dict[str, Any]],
    field_problem: Callable[[Document, FieldError], Problem],
    notes: list[str],
) -> list[Webhook]:
    """Default and validate the pasted configurations; return the webhooks of those the apiserver would store."""
    hooks: list[Webhook] = []
    by_name: dict[tuple[str, str], Document] = {}
    for doc in docs:
        if (unregistered := doc.version_problem(VERSIONS)) is not None:
            problems.append(unregistered)
            continue
        version_part = doc.api_version.rpartition("/")[2]
        if version_part == "v1beta1":
            notes.append(
                f"{doc.kind} {doc.name!r} is {ADMISSION_GROUP}/v1beta1, which is not served since Kubernetes 1.22 "
                f"(kube-apiserver {version} refuses to create it): it is taken to have been created before, and "
                "keeps the v1beta1 defaults (failurePolicy Ignore, matchPolicy Exact, sideEffects Unknown, "
                "timeoutSeconds 30)"
            )
        obj = default_configuration(doc.value)
        with validation.messages_for(library.version_tuple(version)):  # the texts of that server's apimachinery
            errors = validate_configuration(obj, compile_check(version_part))
        if errors:
            problems.extend(field_problem(doc, e) for e in errors)
            rejected.append({
                "kind": doc.kind, "name": doc.name, "pane": doc.pane, "document": doc.index,
                "message": validation.aggregate_message(doc.kind, doc.name, errors),
            })
            continue
        if version_part == "v1" and _minor(version) >= VIRTUAL_RESOURCES_EXCLUDED_SINCE:
            # the warnings kube-apiserver returns with a created configuration (WarningsFor*WebhookRules)
            for path, text in excluded_rule_warnings(obj):
                problems.append(doc.problem(path, f"{path}: {text}", "warning"))
        key = (doc.kind, doc.name)
        if key in by_name:
            problems.append(doc.problem("metadata.name", f"a {doc.kind} named {doc.name!r} is already given "
                                        f"(pane {by_name[key].pane}); this one replaces it", "warning"))
            hooks = [h for h in hooks if (h.kind, h.configuration) != key]
        by_name[key] = doc
        for i, hook in enumerate(obj.get("webhooks") or []):
            hooks.append(Webhook(doc.name, doc.kind, doc.api_version, i, hook))
    return hooks


def excluded_rule_warnings(obj: dict[str, Any]) -> list[tuple[str, str]]:
    """The rules of a configuration that name a resource admission webhooks never see (the virtual review
    resources, excluded from 1.37): (rule path, warning) for each group/resource a rule names explicitly, once per
    rule, in the rule's order; a rule with '*' among its apiGroups or resources names none."""
    out: list[tuple[str, str]] = []
    for i, hook in enumerate(validation._objs(obj, "webhooks")):
        for j, rule in enumerate(validation._objs(hook, "rules")):
            groups, resources = validation._strs(rule, "apiGroups"), validation._strs(rule, "resources")
            if "*" in groups or "*" in resources:
                continue
            named = dict.fromkeys((g, r) for g in groups for r in resources if (g, r) in EXCLUDED_REVIEWS)
            out += [(f"webhooks[{i}].rules[{j}]",
                     f"{r}.{g} is excluded from admission webhooks; this rule will have no effect") for g, r in named]
    return out


# --------------------------------------------------------------------------------------------
# Dispatch


def _status(code: int, reason: str, message: str, details: dict[str, Any] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                           "message": message, "reason": reason}
    if details:
        out["details"] = details
    out["code"] = code
    return out


def internal_error(err: str) -> dict[str, Any]:
    """apierrors.NewInternalError."""
    return _status(500, "InternalError", f"Internal error occurred: {err}", {"causes": [{"message": err}]})


def bad_request(message: str) -> dict[str, Any]:
    """apierrors.NewBadRequest."""
    return _status(400, "BadRequest", message)


def forbidden(attrs: Attributes, name: str, err: str) -> dict[str, Any]:
    """apierrors.NewForbidden(request resource, name, err)."""
    resource = attrs.resource.resource + (f".{attrs.resource.group}" if attrs.resource.group else "")
    message = f'{resource} "{name}" is forbidden: {err}' if name else f"{resource} is forbidden: {err}"
    details = {k: v for k, v in (("name", name), ("group", attrs.resource.group),
                                 ("kind", attrs.resource.resource)) if v}
    return _status(403, "Forbidden", message, details)


def selector_error_status(err: str) -> dict[str, Any]:
    """The status a namespace or object selector error becomes (returned as the request's error)."""
    prefix = 'namespaces "'
    if err.startswith(prefix) and err.endswith('" not found'):
        name = err[len(prefix):-len('" not found')]
        return _status(404, "NotFound", err, {"name": name, "kind": "namespaces"})
    inner = err.removeprefix("Internal error occurred: ")
    return internal_error(inner)


def exempt_reason(attrs: Attributes, version: str) -> str | None:
    """Say why no webhook is ever called for this request (admission configuration kinds, review resources), or None."""
    kinds = _EXEMPT_KINDS + (_EXEMPT_KINDS_1_32 if _minor(version) >= 32 else ())
    if attrs.kind.group == ADMISSION_GROUP and attrs.kind.kind in kinds:
        return (f"requests on {attrs.kind.kind} objects are never sent to admission webhooks "
                "(kube-apiserver exempts webhook configurations and admission policies, so that a webhook cannot "
                "lock itself in)")
    key = (attrs.resource.group, attrs.resource.resource)
    if key in EXCLUDED_REVIEWS and _minor(version) >= VIRTUAL_RESOURCES_EXCLUDED_SINCE:
        return (f"{attrs.resource.resource}.{attrs.resource.group} requests are never sent to admission webhooks "
                "(from Kubernetes 1.37 the feature gate ExcludeAdmissionWebhookVirtualResources, on by default, "
                "excludes the virtual review resources, as for admission policies)")
    return None


def _minor(version: str) -> int:
    return int(version.split(".")[1])


def _mutating_name(attrs: Attributes) -> str:
    """The request name a mutating webhook sees: empty while the registry has not generated it yet."""
    if attrs.operation == "CREATE" and any(n.startswith("metadata.generateName") for n in attrs.notes):
        return ""
    return attrs.name


def dispatch(
    hooks: list[Webhook],
    attrs: Attributes,
    *,
    mutating: bool,
    table: ResourceTable,
    lookup_namespace: NamespaceLookup,
    version: str,
    authorizer: Callable[[dict[str, Any]], Any] | None,
) -> Phase:
    """Decide, webhook by webhook, what the mutating or the validating webhook plugin would do."""
    phase = Phase()
    kind = MUTATING if mutating else VALIDATING
    ordered = sorted((h for h in hooks if h.kind == kind), key=lambda h: (h.configuration, h.index))
    exempt = exempt_reason(attrs, version)
    relevant: list[tuple[int, Webhook, dict[str, Any]]] = []
    for position, hook in enumerate(ordered):
        record = _record(hook)
        phase.records.append(record)
        if exempt is not None:
            record["explanation"].append(exempt)
            continue
        if phase.status is not None:
            record["outcome"] = "not-reached"
            record["reached"] = False
            record["explanation"].append(f"not reached: the request already failed at webhook {phase.decided_by!r}")
            continue
        status = _should_call(hook, record, attrs, table=table, lookup_namespace=lookup_namespace,
                              version=version, authorizer=authorizer)
        if status is not None:
            record["outcome"] = "request-error"
            record["status"] = status
            phase.status, phase.decided_by = status, hook.name
            continue
        if not record["called"]:
            continue
        if mutating:
            # mutating webhooks are called one after another: a dry-run refusal ends the request here
            _consequences(hook, record, attrs, position)
            if record["status"] is not None:
                phase.status, phase.decided_by = record["status"], hook.name
        else:
            relevant.append((len(relevant), hook, record))
    if not mutating and phase.status is None:
        # validating webhooks are called in parallel once every one has been matched
        for index, hook, record in relevant:
            _consequences(hook, record, attrs, index)
            if record["status"] is not None and phase.status is None:
                phase.status, phase.decided_by = record["status"], hook.name
    return phase


def _record(hook: Webhook) -> dict[str, Any]:
    spec = hook.spec
    record: dict[str, Any] = {
        "configuration": hook.configuration,
        "kind": hook.kind,
        "apiVersion": hook.api_version,
        "name": hook.name,
        "index": hook.index,
        "phase": "mutating" if hook.mutating else "validating",
        "called": False,
        "reached": True,
        "outcome": "not-called",
        "explanation": [],
        "failurePolicy": spec.get("failurePolicy"),
        "matchPolicy": spec.get("matchPolicy"),
        "sideEffects": spec.get("sideEffects"),
        "timeoutSeconds": spec.get("timeoutSeconds"),
        "matchedResource": None,
        "matchedKind": None,
        "matchConditions": [],
        "consequences": [],
        "status": None,
    }
    if hook.mutating:
        record["reinvocationPolicy"] = spec.get("reinvocationPolicy")
    return record


def _should_call(
    hook: Webhook,
    record: dict[str, Any],
    attrs: Attributes,
    *,
    table: ResourceTable,
    lookup_namespace: NamespaceLookup,
    version: str,
    authorizer: Callable[[dict[str, Any]], Any] | None,
) -> dict[str, Any] | None:
    """ShouldCallHook: selectors, rules (with matchPolicy), deferred selector errors, matchConditions."""
    spec = hook.spec
    criteria = {
        "namespaceSelector": spec.get("namespaceSelector") or {},
        "objectSelector": spec.get("objectSelector") or {},
        "matchPolicy": spec.get("matchPolicy") or "Equivalent",
        "rules": spec.get("rules") or [],
    }
    outcome = matches(criteria, attrs, table=table, lookup_namespace=lookup_namespace, allow_empty_rules=False,
                      rules_field="rules")
    record["explanation"].extend(outcome.explanation)
    if outcome.error is not None:
        record["explanation"].append(
            "the request matches the rules but a selector could not be evaluated: kube-apiserver fails the whole "
            "request with this error, whatever the failurePolicy"
        )
        return selector_error_status(outcome.error)
    if not outcome.matches:
        if not criteria["rules"]:
            record["explanation"].append("a webhook without rules is never called")
        return None
    assert outcome.resource is not None and outcome.kind is not None
    record["matchedResource"] = {"group": outcome.resource.group, "version": outcome.resource.version,
                                 "resource": outcome.resource.resource}
    record["matchedKind"] = {"group": outcome.kind.group, "version": outcome.kind.version, "kind": outcome.kind.kind}
    conditions = spec.get("matchConditions") or []
    if conditions:
        result = match_conditions(hook.name, conditions, attrs, resource=outcome.resource, kind=outcome.kind,
                                  failure_policy=str(spec.get("failurePolicy") or "Fail"), version=version,
                                  authorizer=authorizer)
        record["matchConditions"] = result.match_conditions
        if result.decisions:  # an error under failurePolicy Fail
            message = result.decisions[0].message
            record["explanation"].append(
                f"matchConditions failed with failurePolicy Fail: the request is rejected (403) without calling "
                f"the webhook: {message}"
            )
            name = _mutating_name(attrs) if hook.mutating else attrs.name
            return forbidden(attrs, name, message)
        if not result.matched:
            if result.match_error is not None:
                record["explanation"].append(
                    f"matchConditions failed ({result.match_error}) and failurePolicy is Ignore: the webhook is skipped"
                )
            else:
                false = [m["name"] for m in result.match_conditions if m.get("result") is False]
                record["explanation"].append(f"matchCondition {', '.join(map(repr, false))} is false: the webhook "
                                             "is not called")
            return None
        record["explanation"].append("every matchCondition is true")
    record["called"] = True
    record["outcome"] = "called"
    shown = f"{outcome.resource.group or 'core'}/{outcome.resource.version} {outcome.resource.resource}"
    record["explanation"].append(f"the request would be sent to this webhook (as {shown}); its answer is not known")
    return None


def match_conditions(
    name: str,
    conditions: list[Any],
    attrs: Attributes,
    *,
    resource: GroupVersionResource,
    kind: GroupVersionKind,
    failure_policy: str,
    version: str,
    authorizer: Callable[[dict[str, Any]], Any] | None,
) -> validator.ValidateResult:
    """Evaluate a webhook's matchConditions (no params, no variables, no namespaceObject; request.resource is the
    request's own resource) under its failurePolicy, as matchconditions.Matcher does."""
    compiled = compiler.compile_policy(name, {"matchConditions": conditions}, version)
    req = request_value(attrs, resource=resource, kind=kind)
    original = {"group": attrs.resource.group, "version": attrs.resource.version, "resource": attrs.resource.resource}
    inv = validator.Invocation(
        object=attrs.object, old_object=attrs.old_object, request=req, request_original_resource=original,
        params=None, namespace_object=None, namespace_full=None,
        authorizer=authorizer(req) if authorizer is not None else None,
    )
    return validator.validate(compiled, inv, failure_policy)


def _consequences(hook: Webhook, record: dict[str, Any], attrs: Attributes, index: int) -> None:
    """What each possible answer of a called webhook would do, and the dry-run check made before calling it."""
    spec = hook.spec
    name = hook.name
    side_effects = str(spec.get("sideEffects") or "")
    if attrs.dry_run and side_effects not in _NO_SIDE_EFFECTS:
        record["status"] = bad_request(f'admission webhook "{name}" does not support dry run')
        record["outcome"] = "dry-run-rejected"
        record["called"] = False
        if record["explanation"]:
            record["explanation"][-1] = "the request matches this webhook, but it is a dry run"
        record["consequences"].append(
            f"the request is a dry run and sideEffects is {side_effects}: kube-apiserver refuses it (400) without "
            "calling the webhook, whatever its failurePolicy"
        )
        return
    if attrs.dry_run:
        record["consequences"].append(
            f"dry run with sideEffects {side_effects}: the webhook is called with dryRun: true and must not change "
            "anything outside the request"
        )
    record["consequences"].append(
        f'if it denies: the request fails with the code of its answer (400 if it gives none, or one below 400) and '
        f'the message admission webhook "{name}" denied the request: <its message, else its reason>, or '
        f'admission webhook "{name}" denied the request without explanation when it gives neither'
        + ("; if it allows, it may also send a patch that changes the object" if hook.mutating else "")
    )
    timeout = spec.get("timeoutSeconds")
    unreachable = f"if it cannot be reached or does not answer within {timeout}s: "
    if spec.get("failurePolicy") == "Ignore":
        prefix = FAILED_OPEN_MUTATING if hook.mutating else FAILED_OPEN_VALIDATING
        record["consequences"].append(
            unreachable + f"failurePolicy Ignore lets the request through, with the audit annotation "
            f"{prefix}round_0_index_{index}: {name}"
        )
    else:
        record["consequences"].append(
            unreachable + f'failurePolicy Fail rejects the request with 500 and the message Internal error occurred: '
            f'failed calling webhook "{name}": failed to call webhook: <error>'
        )
    if hook.mutating and spec.get("reinvocationPolicy") == "IfNeeded":
        record["consequences"].append(
            "reinvocationPolicy IfNeeded: it is called once more if a later mutating webhook or policy changes "
            "the object"
        )


def compile_check_for(version: str) -> Callable[[str], validation.CompileCheck]:
    """A compile check for matchConditions, as API validation runs it (new-expression environment)."""
    decls = cel.Declarations(version=version, params=False, variables=None)

    def for_version(_: str) -> validation.CompileCheck:
        def check(site: validation.ExpressionSite) -> FieldError | None:
            # declared as evaluation declares it (compiler.expression_declarations), for a webhook of one
            # matchCondition: the check is the one evaluation reuses
            site_decls = replace(decls, library=cel.library_level([site.expression]))
            compiled = cel.check_expression(site.expression, cel.MATCH_CONDITION, site_decls)
            if compiled.error is None:
                return None
            return validation.invalid(site.field, site.value, compiled.error)

        return check

    return for_version
