"""Deciding whether a request is in scope of a policy's matchConstraints or a binding's matchResources.

Mirrors k8s.io/apiserver/pkg/admission/plugin/policy/matching/matching.go and the webhook
predicates it reuses (pkg/admission/plugin/webhook/predicates/{namespace,object,rules}).
Rule: this module never evaluates CEL; it only decides scope, and says why in plain words.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .request import Attributes
from .resources import GroupVersionKind, GroupVersionResource, ResourceTable


class SelectorError(Exception):
    """A label selector that cannot be parsed."""


@dataclass
class MatchOutcome:
    """Whether a request matched, the (possibly equivalent) resource and kind it matched as, and why."""

    matches: bool
    resource: GroupVersionResource | None = None
    kind: GroupVersionKind | None = None
    error: str | None = None
    explanation: list[str] = field(default_factory=list)


# Connect options objects (core v1) carry no ObjectMeta: an object selector never matches them, whatever
# was pasted (object/matcher.go matchObject: meta.Accessor fails).
_NO_OBJECT_META_KINDS = frozenset({
    "PodExecOptions", "PodAttachOptions", "PodPortForwardOptions", "PodProxyOptions", "NodeProxyOptions",
    "ServiceProxyOptions",
})


def _labels(obj: Any) -> dict[str, str] | None:
    if not isinstance(obj, dict):
        return None
    if obj.get("apiVersion") == "v1" and obj.get("kind") in _NO_OBJECT_META_KINDS:
        return None
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        return None
    labels = meta.get("labels")
    return {str(k): str(v) for k, v in labels.items()} if isinstance(labels, dict) else {}


def describe_selector(selector: Mapping[str, Any]) -> str:
    """Render a label selector the way `kubectl describe` does (``app=web,tier in (a,b)``)."""
    parts = [f"{k}={v}" for k, v in sorted((selector.get("matchLabels") or {}).items())]
    for expr in selector.get("matchExpressions") or []:
        key, op = expr.get("key"), expr.get("operator")
        values = ",".join(sorted(str(v) for v in expr.get("values") or []))
        if op == "In":
            parts.append(f"{key} in ({values})")
        elif op == "NotIn":
            parts.append(f"{key} notin ({values})")
        elif op == "Exists":
            parts.append(str(key))
        elif op == "DoesNotExist":
            parts.append(f"!{key}")
        else:
            parts.append(f"{key} {op} ({values})")
    return ",".join(parts)


def is_empty_selector(selector: Any) -> bool:
    return not selector or (not selector.get("matchLabels") and not selector.get("matchExpressions"))


def selector_matches(selector: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    """Match labels against a metav1.LabelSelector (all requirements ANDed)."""
    match_labels = selector.get("matchLabels") or {}
    if not isinstance(match_labels, dict):
        raise SelectorError("matchLabels must be a map")
    for key, value in match_labels.items():
        if labels.get(str(key)) != str(value):
            return False
    expressions = selector.get("matchExpressions") or []
    if not isinstance(expressions, list):
        raise SelectorError("matchExpressions must be a list")
    for expr in expressions:
        if not isinstance(expr, dict):
            raise SelectorError("a matchExpressions item must be a map")
        key = str(expr.get("key", ""))
        op = expr.get("operator")
        values = [str(v) for v in expr.get("values") or []]
        if op == "In":
            if not values:
                raise SelectorError("for 'in', 'notin' operators, values set can't be empty")
            if labels.get(key) not in values:
                return False
        elif op == "NotIn":
            if not values:
                raise SelectorError("for 'in', 'notin' operators, values set can't be empty")
            if key in labels and labels[key] in values:
                return False
        elif op == "Exists":
            if key not in labels:
                return False
        elif op == "DoesNotExist":
            if key in labels:
                return False
        else:
            raise SelectorError(f'"{op}" is not a valid label selector operator')
    return True


# --------------------------------------------------------------------------------------------
# namespaceSelector and objectSelector


NamespaceLookup = Callable[[str], "dict[str, Any] | None"]


def _namespace_selector(
    selector: Mapping[str, Any], attrs: Attributes, lookup: NamespaceLookup, why: list[str]
) -> tuple[bool, str | None]:
    if attrs.namespace == "" and attrs.resource.resource != "namespaces":
        why.append("namespaceSelector: the request is cluster-scoped, so it is never excluded by namespace")
        return True, None
    if is_empty_selector(selector):
        why.append("namespaceSelector is empty: every namespace matches")
        return True, None
    if (
        attrs.resource.resource == "namespaces"
        and attrs.subresource == ""
        and attrs.operation in ("CREATE", "UPDATE")
    ):
        labels = _labels(attrs.object) or {}
        whose = f"the Namespace {attrs.name!r} itself (its new labels)"
    else:
        ns = lookup(attrs.namespace)
        if ns is None:
            why.append(f"namespaceSelector: namespace {attrs.namespace!r} is not in the Namespace pane")
            return False, f'namespaces "{attrs.namespace}" not found'
        labels = _labels(ns) or {}
        whose = f"namespace {attrs.namespace!r}"
    try:
        ok = selector_matches(selector, labels)
    except SelectorError as exc:
        return False, f"Internal error occurred: {exc}"
    verdict = "matches" if ok else "does not match"
    why.append(
        f"namespaceSelector {describe_selector(selector)!s} {verdict} {whose} with labels {_show(labels)}"
    )
    return ok, None


def _object_selector(selector: Mapping[str, Any], attrs: Attributes, why: list[str]) -> tuple[bool, str | None]:
    if is_empty_selector(selector):
        why.append("objectSelector is empty: every object matches")
        return True, None
    try:
        for side, obj in (("object", attrs.object), ("oldObject", attrs.old_object)):
            labels = _labels(obj)
            if labels is not None and selector_matches(selector, labels):
                why.append(f"objectSelector {describe_selector(selector)} matches the {side}'s labels {_show(labels)}")
                return True, None
    except SelectorError as exc:
        return False, f"Internal error occurred: {exc}"
    sides = [
        f"{side} labels {_show(_labels(obj))}"
        for side, obj in (("object", attrs.object), ("oldObject", attrs.old_object))
        if _labels(obj) is not None
    ]
    why.append(
        f"objectSelector {describe_selector(selector)} matches neither the object nor the old object"
        + (f" ({'; '.join(sides)})" if sides else " (there is no object with metadata)")
    )
    return False, None


def _show(labels: Mapping[str, str] | None) -> str:
    return json.dumps(labels or {}, sort_keys=True)


# --------------------------------------------------------------------------------------------
# Rules


def _rule_mismatch(rule: Mapping[str, Any], attrs: Attributes, gvr: GroupVersionResource) -> str | None:
    """Return why a RuleWithOperations does not match (None when it matches)."""
    operations = rule.get("operations") or []
    if "*" not in operations and attrs.operation not in operations:
        return f"operations {operations} do not include {attrs.operation}"
    groups = rule.get("apiGroups") or []
    if "*" not in groups and gvr.group not in groups:
        return f"apiGroups {groups} do not include {gvr.group!r}"
    versions = rule.get("apiVersions") or []
    if "*" not in versions and gvr.version not in versions:
        return f"apiVersions {versions} do not include {gvr.version!r}"
    resources = rule.get("resources") or []
    wanted = gvr.resource + ("/" + attrs.subresource if attrs.subresource else "")
    if not any(_resource_entry_matches(str(entry), gvr.resource, attrs.subresource) for entry in resources):
        return f"resources {resources} do not include {wanted!r}"
    scope = rule.get("scope") or "*"
    is_namespace = gvr.group == "" and gvr.version == "v1" and gvr.resource == "namespaces"
    if scope == "Namespaced" and (is_namespace or attrs.namespace == ""):
        return "scope Namespaced does not include a cluster-scoped request"
    if scope == "Cluster" and not (is_namespace or attrs.namespace == ""):
        return "scope Cluster does not include a namespaced request"
    names = rule.get("resourceNames") or []
    if names and attrs.name not in names:
        return f"resourceNames {names} do not include {attrs.name!r}"
    return None


def _resource_entry_matches(entry: str, resource: str, subresource: str) -> bool:
    res, _, sub = entry.partition("/")
    return (res == "*" or res == resource) and (sub == "*" or sub == subresource)


def _describe_request(attrs: Attributes, gvr: GroupVersionResource) -> str:
    group = gvr.group or "core"
    sub = f"/{attrs.subresource}" if attrs.subresource else ""
    return f"{attrs.operation} {group}/{gvr.version} {gvr.resource}{sub}"


def _first_rule(
    rules: list[Any], attrs: Attributes, gvr: GroupVersionResource, label: str, why: list[str] | None
) -> int | None:
    for i, rule in enumerate(rules):
        if not isinstance(rule, dict):
            continue
        reason = _rule_mismatch(rule, attrs, gvr)
        if reason is None:
            return i
        if why is not None:
            why.append(f"{label}[{i}] does not match {_describe_request(attrs, gvr)}: {reason}")
    return None


def _match_rules(
    rules: list[Any],
    attrs: Attributes,
    match_policy: str,
    table: ResourceTable,
    label: str,
    why: list[str],
) -> tuple[GroupVersionResource | None, GroupVersionKind | None, str | None]:
    """Try rules against the request, then (Equivalent) against its equivalent resources."""
    hit = _first_rule(rules, attrs, attrs.resource, label, why)
    if hit is not None:
        why.append(f"{label}[{hit}] matches {_describe_request(attrs, attrs.resource)}")
        return attrs.resource, attrs.kind, None
    if match_policy != "Equivalent":
        return None, None, None
    for i, rule in enumerate(rules):
        if not isinstance(rule, dict):
            continue
        for equivalent in table.equivalents(attrs.resource, attrs.subresource):
            if equivalent == attrs.resource:
                continue
            if _rule_mismatch(rule, attrs, equivalent) is None:
                kind = table.kind_for(equivalent, attrs.subresource)
                if kind is None:
                    return None, None, (
                        f"unable to convert to {equivalent.group}/{equivalent.version}, "
                        f"Resource={equivalent.resource}: unknown kind"
                    )
                why.append(
                    f"{label}[{i}] matches the equivalent resource {_describe_request(attrs, equivalent)} "
                    "(matchPolicy Equivalent): the object is seen as "
                    f"{(kind.group + '/' if kind.group else '')}{kind.version} {kind.kind}"
                )
                return equivalent, kind, None
    return None, None, None


def matches(
    criteria: Mapping[str, Any],
    attrs: Attributes,
    *,
    table: ResourceTable,
    lookup_namespace: NamespaceLookup,
    allow_empty_rules: bool,
    rules_field: str = "resourceRules",
) -> MatchOutcome:
    """Match a request against MatchResources, as matching.Matches does.

    ``rules_field`` names the rules in the explanation (a webhook's are ``rules``).
    """
    why: list[str] = []
    ns_ok, ns_err = _namespace_selector(criteria.get("namespaceSelector") or {}, attrs, lookup_namespace, why)
    if not ns_ok and ns_err is None:
        return MatchOutcome(False, explanation=why)
    obj_ok, obj_err = _object_selector(criteria.get("objectSelector") or {}, attrs, why)
    if not obj_ok and obj_err is None:
        return MatchOutcome(False, explanation=why)
    match_policy = criteria.get("matchPolicy") or "Equivalent"
    excludes = criteria.get("excludeResourceRules") or []
    if excludes:
        silent: list[str] = []
        resource, _, err = _match_rules(excludes, attrs, match_policy, table, "excludeResourceRules", silent)
        if err is not None:
            return MatchOutcome(False, error=err, explanation=why)
        if resource is not None:
            why.append(silent[-1] + ", so the request is excluded")
            return MatchOutcome(False, explanation=why)
        why.append("no excludeResourceRules match")
    rules = criteria.get(rules_field) or []
    if not rules and allow_empty_rules:
        why.append("resourceRules is empty: every resource matches")
        resource, kind = attrs.resource, attrs.kind
    else:
        resource, kind, err = _match_rules(rules, attrs, match_policy, table, rules_field, why)
        if err is not None:
            return MatchOutcome(False, error=err, explanation=why)
        if resource is None:
            if not rules:
                why.append(f"{rules_field} is empty")
            return MatchOutcome(False, explanation=why)
    if ns_err is not None:
        return MatchOutcome(False, error=ns_err, explanation=why)
    if obj_err is not None:
        return MatchOutcome(False, error=obj_err, explanation=why)
    return MatchOutcome(True, resource=resource, kind=kind, explanation=why)
