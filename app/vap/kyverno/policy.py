"""Kyverno ClusterPolicy and Policy documents: defaults, and the checks Kyverno's policy webhook makes.

Mirrors kyverno/kyverno api/kyverno/v1 (the CRD schema's enums and defaults, Spec and Rule validation)
and pkg/validation/policy (the admission checks of the policy validating webhook
``validate-policy.kyverno.svc``). A refused policy is reported with the message ``kubectl`` would print,
and takes no part in the decision.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .. import compiler, validation
from ..documents import Document, Problem
from ..resources import ResourceTable
from ..validation import FieldError
from . import autogen, wildcard
from .match import parse_kind_selector

GROUP = "kyverno.io"
KINDS = ("ClusterPolicy", "Policy")
VERSIONS = ("v1", "v2beta1")
POLICY_WEBHOOK = "validate-policy.kyverno.svc"
_ACTIONS = ["audit", "enforce", "Audit", "Enforce"]
_OPERATIONS = ["CREATE", "CONNECT", "UPDATE", "DELETE"]


def is_kyverno_doc(doc: Document) -> bool:
    """Say whether a document is a Kyverno ClusterPolicy or Policy."""
    return doc.kind in KINDS and doc.api_version.startswith(GROUP + "/")


@dataclass
class KyvernoPolicy:
    """A policy Kyverno accepted, defaulted."""

    kind: str
    name: str
    namespace: str  # "" for a ClusterPolicy
    obj: dict[str, Any]
    doc: Document
    _rules: dict[str, list[dict[str, Any]]] = dataclasses.field(default_factory=dict, repr=False, compare=False)

    def rules_for(self, kind: str) -> list[dict[str, Any]]:
        """The rules Kyverno evaluates for a request on ``kind`` (autogen's ComputeRules), worked out once
        per kind; read, never changed."""
        rules = self._rules.get(kind)
        if rules is None:
            rules = self._rules[kind] = autogen.compute_rules(self.obj, kind)
        return rules

    @property
    def spec(self) -> dict[str, Any]:
        spec = self.obj.get("spec")
        return spec if isinstance(spec, dict) else {}

    @property
    def key(self) -> str:
        """The cache key Kyverno uses: ``name`` or ``namespace/name``."""
        return f"{self.namespace}/{self.name}" if self.namespace else self.name


def default_policy(obj: dict[str, Any]) -> dict[str, Any]:
    """The CRD defaults: validationFailureAction Audit, background and admission true, emitWarning false."""
    out = copy.deepcopy(obj)
    spec = out.setdefault("spec", {})
    if not isinstance(spec, dict):
        return out
    for key, value in (("validationFailureAction", "Audit"), ("background", True), ("admission", True),
                       ("emitWarning", False)):
        if spec.get(key) is None:
            spec[key] = value
    if out.get("kind") == "Policy":
        meta = out.setdefault("metadata", {})
        if isinstance(meta, dict) and not meta.get("namespace"):
            meta["namespace"] = "default"
    return out


def _rules(spec: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [r if isinstance(r, dict) else {} for r in spec.get("rules") or []]


def _blocks(block: Any) -> list[tuple[str, dict[str, Any]]]:
    """(path suffix, resource filter) of a match or exclude block and of its any/all entries."""
    if not isinstance(block, Mapping):
        return []
    out: list[tuple[str, dict[str, Any]]] = [("", dict(block))]
    for key in ("any", "all"):
        for i, item in enumerate(block.get(key) or []):
            out.append((f".{key}[{i}]", dict(item) if isinstance(item, Mapping) else {}))
    return out


def _description(block: Mapping[str, Any]) -> dict[str, Any]:
    res = block.get("resources")
    return dict(res) if isinstance(res, Mapping) else {}


def _schema_errors(obj: dict[str, Any]) -> list[FieldError]:
    """What the CRD's OpenAPI schema refuses: enums, required rule names, their length."""
    errs: list[FieldError] = []
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return [validation.invalid("spec", spec, "must be an object")]
    named = validation._Named
    action = spec.get("validationFailureAction")
    if action is not None and action not in _ACTIONS:
        errs.append(validation.not_supported("spec.validationFailureAction", named(str(action)), _ACTIONS))
    failure_policy = spec.get("failurePolicy")
    if failure_policy is not None and failure_policy not in ("Ignore", "Fail"):
        errs.append(validation.not_supported("spec.failurePolicy", named(str(failure_policy)), ["Ignore", "Fail"]))
    apply_rules = spec.get("applyRules")
    if apply_rules is not None and apply_rules not in ("All", "One"):
        errs.append(validation.not_supported("spec.applyRules", named(str(apply_rules)), ["All", "One"]))
    for key in ("background", "admission", "emitWarning"):
        if not isinstance(spec.get(key), bool):
            errs.append(validation.invalid(f"spec.{key}", spec.get(key), "must be a boolean"))
    rules = spec.get("rules")
    if rules is not None and not isinstance(rules, list):
        return [*errs, validation.invalid("spec.rules", rules, "must be a list")]
    for i, rule in enumerate(rules or []):
        path = f"spec.rules[{i}]"
        if not isinstance(rule, dict):
            errs.append(validation.invalid(path, rule, "must be an object"))
            continue
        name = rule.get("name")
        if not name:
            errs.append(validation.required(f"{path}.name"))
        elif not isinstance(name, str):
            errs.append(validation.invalid(f"{path}.name", name, "must be a string"))
        elif len(name) > 63:
            errs.append(validation.too_long(f"{path}.name", 63))
        validate = rule.get("validate")
        if isinstance(validate, dict):
            action = validate.get("failureAction")
            if action is not None and action not in ("Audit", "Enforce"):
                errs.append(validation.not_supported(f"{path}.validate.failureAction", named(str(action)),
                                                     ["Audit", "Enforce"]))
        for block_name in ("match", "exclude"):
            for suffix, block in _blocks(rule.get(block_name)):
                ops = _description(block).get("operations") or []
                for j, op in enumerate(ops if isinstance(ops, list) else []):
                    if op not in _OPERATIONS:
                        errs.append(validation.not_supported(
                            f"{path}.{block_name}{suffix}.resources.operations[{j}]", named(str(op)), _OPERATIONS))
    return errs


def _user_info_errors(block: Mapping[str, Any], path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    for i, subject in enumerate(block.get("subjects") or []):
        at = f"{path}.subjects[{i}]"
        subject = subject if isinstance(subject, Mapping) else {}
        kind = subject.get("kind")
        if not kind:
            errs.append(validation.required(f"{at}.kind"))
        elif kind not in ("User", "Group", "ServiceAccount"):
            errs.append(validation.invalid(f"{at}.kind", kind, "kind must be 'User', 'Group', or 'ServiceAccount'"))
        if not subject.get("name"):
            errs.append(validation.required(f"{at}.name"))
        if kind == "ServiceAccount" and not subject.get("namespace"):
            errs.append(validation.required(f"{at}.namespace", "namespace is required when Kind is ServiceAccount"))
    for i, role in enumerate(block.get("roles") or []):
        if len(str(role).split(":")) != 2:
            errs.append(validation.invalid(f"{path}.roles[{i}]", role,
                                           "Role is expected to be in namespace:name format"))
    return errs


def _cluster_scoped(kind_entry: str, table: ResourceTable) -> bool:
    group, version, kind, _ = parse_kind_selector(kind_entry)
    infos = [i for i in table if i.served and i.kind == kind and (group in ("*", i.gvr.group))
             and (version in ("*", i.gvr.version))]
    return bool(infos) and not any(i.namespaced for i in infos)


def _spec_errors(policy: dict[str, Any], table: ResourceTable) -> list[FieldError]:
    """Spec.Validate (api/kyverno/v1): rule names, rule types, match blocks, namespaced-policy limits."""
    errs: list[FieldError] = []
    spec = policy["spec"]
    namespaced = policy.get("kind") == "Policy"
    seen: set[str] = set()
    for i, rule in enumerate(_rules(spec)):
        path = f"spec.rules[{i}]"
        name = str(rule.get("name") or "")
        if name in seen:
            errs.append(validation.invalid(f"{path}.name", rule, f"Duplicate rule name: '{name}'"))
        seen.add(name)
        types = [k for k in ("mutate", "validate", "generate", "verifyImages") if rule.get(k)]
        if not types:
            errs.append(validation.invalid(path, rule, f"No operation defined in the rule '{name}'.(supported "
                                           "operations: mutate,validate,generate,verifyImages)"))
        elif len(types) > 1:
            errs.append(validation.invalid(path, rule, f"Multiple operations defined in the rule '{name}', only one "
                                           "operation (mutate,validate,generate,verifyImages) is allowed per rule"))
        for block_name in ("match", "exclude"):
            block = rule.get(block_name)
            if isinstance(block, Mapping) and block.get("any") and block.get("all"):
                errs.append(validation.invalid(f"{path}.{block_name}", block, "Can't specify any and all together"))
            for suffix, item in _blocks(block):
                at = f"{path}.{block_name}{suffix}"
                description = _description(item)
                if description.get("name") and description.get("names"):
                    errs.append(validation.invalid(f"{at}.resources", description,
                                                   "Both name and names can not be specified together"))
                selector = description.get("selector")
                if isinstance(selector, Mapping) and not selector.get("matchLabels") \
                        and not selector.get("matchExpressions"):
                    errs.append(validation.invalid(f"{at}.resources.selector", selector,
                                                   "The requirements are not specified in selector"))
                if namespaced and description.get("namespaces"):
                    errs.append(validation.forbidden(f"{at}.resources.namespaces",
                                                     "Filtering namespaces not allowed in namespaced policies"))
                if namespaced:
                    for j, kind in enumerate(description.get("kinds") or []):
                        if _cluster_scoped(str(kind), table):
                            errs.append(validation.forbidden(
                                f"{at}.resources.kinds[{j}]",
                                f"Cluster wide resource '{kind}' not allowed in namespaced policy"))
                errs += _user_info_errors(item, at)
    if namespaced and spec.get("validationFailureActionOverrides"):
        detail = "Use of validationFailureActionOverrides is supported only with ClusterPolicy"
        errs.append(validation.forbidden("spec.validationFailureActionOverrides", detail))
    return errs


def _webhook_errors(policy: dict[str, Any], table: ResourceTable) -> tuple[str | None, str | None, list[str]]:
    """The policy webhook's own checks (pkg/validation/policy.Validate), in its order.

    Returns (path, error, warnings): the first error stops validation, as Kyverno returns on it.
    """
    warnings: list[str] = []
    spec = policy["spec"]
    if policy.get("kind") == "ClusterPolicy" and (policy.get("metadata") or {}).get("namespace"):
        return "metadata.namespace", "A clusterpolicy should not have the namespace defined", warnings
    if spec.get("validationFailureAction") in ("enforce", "audit"):
        warnings.append("Validation failure actions enforce/audit are deprecated, use Enforce/Audit instead.")
    if spec.get("admission") is False and spec.get("background") is False:
        return "spec.admission", "disabling both admission and background processing is not allowed", warnings
    background = spec.get("background") is not False
    for i, rule in enumerate(_rules(spec)):
        for block_name in ("match", "exclude"):
            block = rule.get(block_name)
            for suffix, item in _blocks(block):
                if not suffix and block_name == "exclude" and not _description(item):
                    continue
                kinds = [str(k) for k in _description(item).get("kinds") or []]
                where = f"spec.rules[{i}].{block_name}{suffix}.kinds"
                if "*" in kinds and background:
                    return where, (f"path: {where}: wildcard policy not allowed in background mode. Set "
                                   "spec.background=false to disable background mode for this policy rule "), warnings
                if "*" in kinds and len(kinds) > 1:
                    return where, f"path: {where}: wildcard policy can not deal with more than one kind", warnings
                if "*" in kinds:
                    continue
                for kind in kinds:
                    group, version, name, sub = parse_kind_selector(kind)
                    found = [info for info in table if info.served and _kind_known(info, group, version, name, sub)]
                    if not found:
                        warnings.append("the kind defined in the all match resource is invalid: unable to convert "
                                        f"GVK to GVR for kinds {kind}")
                        return None, None, warnings
                    if background and sub and rule.get("validate"):
                        return where, f"path: {where}: background scan enabled with subresource {kind}", warnings
    for i, rule in enumerate(_rules(spec)):
        path = f"spec.rules[{i}]"
        match = rule.get("match") if isinstance(rule.get("match"), Mapping) else {}
        exclude = rule.get("exclude") if isinstance(rule.get("exclude"), Mapping) else None
        if exclude is not None and (exclude.get("any") or exclude.get("all")) and _description(exclude):
            return f"{path}.exclude", f"path: {path}.exclude.: can't specify any/all together with exclude resources", \
                warnings
        if exclude is not None and exclude.get("any") and exclude.get("all"):
            return f"{path}.exclude", f"path: {path}.match.: can't specify any and all together", warnings
        if (match.get("any") or match.get("all")) and _description(match):
            return f"{path}.match", f"path: {path}.match.: can't specify any/all together with match resources", \
                warnings
        entries = match.get("any") or match.get("all") or []
        for item in entries if isinstance(entries, list) else []:
            if isinstance(item, Mapping) and not _description(item):
                return f"{path}.match", f"path: {path}.match.resources.: match resources not specified", warnings
        validate = rule.get("validate") if isinstance(rule.get("validate"), Mapping) else {}
        if validate.get("cel") is not None and rule.get("context"):
            return f"{path}.context", (f"path: {path}: context variables are not supported for CEL expressions in "
                                       "validate rules"), warnings
        blocks = [b for b in entries if isinstance(b, Mapping)] if entries else [match]
        if any(not _description(b).get("kinds") for b in blocks):
            return f"{path}.match", ("at least one element must be specified in a kind block, the kind attribute is "
                                     "mandatory when working with the resources element"), warnings
    return None, None, warnings


def _kind_known(info: Any, group: str, version: str, kind: str, sub: str) -> bool:
    """FindResources: a served resource of that group, version and kind (and subresource, if any)."""
    if not (wildcard.match(group, info.gvr.group) and wildcard.match(version, info.gvr.version)
            and wildcard.match(kind, info.kind)):
        return False
    return not sub or sub == "*" or sub in info.subresources


def cel_spec(rule: Mapping[str, Any]) -> tuple[dict[str, Any], bool]:
    """The rule as the validator sees it: celPreconditions as matchConditions, messages defaulted."""
    validate = rule.get("validate") if isinstance(rule.get("validate"), Mapping) else {}
    cel = validate.get("cel") if isinstance(validate.get("cel"), Mapping) else {}
    has_param = cel.get("paramKind") is not None and cel.get("paramRef") is not None
    validations = []
    for expression in cel.get("expressions") or []:
        if not isinstance(expression, Mapping):
            continue
        item = dict(expression)
        if not item.get("message"):
            item["message"] = validate.get("message") or ""
        validations.append(item)
    spec: dict[str, Any] = {
        "failurePolicy": "Fail",
        "matchConditions": list(rule.get("celPreconditions") or []),
        "variables": list(cel.get("variables") or []),
        "validations": validations,
        "auditAnnotations": list(cel.get("auditAnnotations") or []),
    }
    if has_param:
        spec["paramKind"] = cel["paramKind"]
    return spec, has_param


def compiled_fields(compiled: compiler.CompiledPolicy) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    out += [(f"celPreconditions[{i}].expression", c) for i, (_, c) in enumerate(compiled.match_conditions)]
    out += [(f"validate.cel.variables[{i}].expression", c) for i, (_, c) in enumerate(compiled.variables)]
    for i, (_, expr, msg) in enumerate(compiled.validations):
        out.append((f"validate.cel.expressions[{i}].expression", expr))
        if msg is not None:
            out.append((f"validate.cel.expressions[{i}].messageExpression", msg))
    out += [(f"validate.cel.auditAnnotations[{i}].valueExpression", c)
            for i, (_, c) in enumerate(compiled.audit_annotations)]
    return out


def _compile_warnings(doc: Document, obj: dict[str, Any], version: str,
                      field_problem: Callable[[Document, FieldError], Problem]) -> list[Problem]:
    """CEL that does not compile: Kyverno stores the policy, and the rule fails with the compile error."""
    out: list[Problem] = []
    for i, rule in enumerate(_rules(obj["spec"])):
        validate = rule.get("validate") if isinstance(rule.get("validate"), Mapping) else {}
        if not isinstance(validate.get("cel"), Mapping):
            continue
        spec, _ = cel_spec(rule)
        compiled = compiler.compile_policy(f"{doc.name}/{rule.get('name')}", spec, version)
        for field, c in compiled_fields(compiled):
            if c.error is None:
                continue
            problem = field_problem(doc, validation.invalid(f"spec.rules[{i}].{field}", c.expression, c.error))
            out.append(dataclasses.replace(problem, severity="warning", message=(
                "Kyverno accepts the policy, but this expression does not compile, so the rule fails on every request "
                f"it applies to: compilation error: {c.error}")))
    return out


def _invalid_message(kind: str, name: str, errors: list[FieldError]) -> str:
    head = f"{kind}.{GROUP} {validation._go_quote(name)} is invalid"
    messages = list(dict.fromkeys(e.message for e in errors))
    if len(messages) == 1:
        return f"{head}: {messages[0]}"
    return f"{head}: [{', '.join(messages)}]"


def load(
    docs: list[Document],
    *,
    table: ResourceTable,
    problems: list[Problem],
    rejected: list[dict[str, Any]],
    field_problem: Callable[[Document, FieldError], Problem],
    version: str,
) -> list[KyvernoPolicy]:
    """Default and check the pasted Kyverno policies; return those Kyverno would accept."""
    out: list[KyvernoPolicy] = []
    for doc in docs:
        if not isinstance(doc.value, dict):
            continue
        if (unregistered := doc.version_problem(VERSIONS)) is not None:
            problems.append(unregistered)
            continue
        obj = default_policy(doc.value)
        errors = _schema_errors(obj)
        if not errors:
            errors = _spec_errors(obj, table)
        meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
        name = str(meta.get("name") or "")
        if not name:
            errors.insert(0, validation.required("metadata.name", "name or generateName is required"))
        if errors:
            problems.extend(field_problem(doc, e) for e in errors)
            message = _invalid_message(doc.kind, name, errors)
            if not any(e.field.startswith("metadata") for e in errors) and not _schema_errors(obj):
                message = (f'admission webhook "{POLICY_WEBHOOK}" denied the request: '
                           + "[" + ", ".join(dict.fromkeys(e.message for e in errors)) + "]"
                           if len(errors) > 1 else
                           f'admission webhook "{POLICY_WEBHOOK}" denied the request: {errors[0].message}')
            rejected.append({"kind": doc.kind, "name": name, "pane": doc.pane, "document": doc.index,
                             "message": message})
            continue
        path, error, warnings = _webhook_errors(obj, table)
        for warning in warnings:
            problems.append(doc.problem(path or "spec", f"Kyverno warns when the policy is created: {warning}",
                                        "warning"))
        if error is not None:
            problems.append(doc.problem(path, error))
            rejected.append({"kind": doc.kind, "name": name, "pane": doc.pane, "document": doc.index,
                             "message": f'admission webhook "{POLICY_WEBHOOK}" denied the request: {error}'})
            continue
        problems.extend(_compile_warnings(doc, obj, version, field_problem))
        namespace = str(meta.get("namespace") or "") if doc.kind == "Policy" else ""
        out.append(KyvernoPolicy(doc.kind, name, namespace, obj, doc))
    return out
