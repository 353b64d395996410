"""Kyverno's match and exclude blocks, as its engine decides them for an admission request.

Mirrors kyverno/kyverno pkg/engine/utils/match.go (MatchesResourceDescription and
doesResourceMatchConditionBlock), pkg/utils/match (kinds, names, annotations, selectors, subjects),
pkg/utils/kube/kind.go (ParseKindSelector) and pkg/userinfo (roles and cluster roles of the requester).
Every check says why it passed or failed, in Kyverno's words where Kyverno has words for it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..matching import SelectorError, describe_selector, selector_matches
from . import wildcard

_VERSION = re.compile(r"(v\d+((alpha|beta)\d+)?|\*)")


def parse_kind_selector(text: str) -> tuple[str, str, str, str]:
    """ParseKindSelector: (group, version, kind, subresource) of a kinds entry.

    ``Pod``, ``v1/Pod``, ``apps/v1/Deployment``, ``Pod/status`` or ``Pod.status``, ``apps/v1/Deployment/scale``,
    ``*``, ``*/*`` and ``*/subresource``; the last ``/``-part is also split at dots.
    """
    parts = text.split("/")
    parts = parts[:-1] + parts[-1].split(".")
    if len(parts) == 1:
        return "*", "*", parts[0], ""
    if len(parts) == 2:
        if parts[0] == "*" and parts[1] == "*":
            return "*", "*", "*", "*"
        if parts[0] == "*" and parts[1].lower() == parts[1]:
            return "*", "*", parts[0], parts[1]
        if _VERSION.fullmatch(parts[0]):
            return "*", parts[0], parts[1], ""
        return "*", "*", parts[0], parts[1]
    if len(parts) == 3:
        if _VERSION.fullmatch(parts[0]):
            return "*", parts[0], parts[1], parts[2]
        return parts[0], parts[1], parts[2], ""
    if len(parts) == 4:
        return parts[0], parts[1], parts[2], parts[3]
    return "", "", "", ""


def check_kind(kinds: list[str], group: str, version: str, kind: str, subresource: str,
               allow_ephemeral_containers: bool = True) -> str | None:
    """CheckKind: the kinds entry that matches the request's top-level kind and subresource, or None."""
    for entry in kinds:
        g, v, k, s = parse_kind_selector(entry)
        if wildcard.match(g, group) and wildcard.match(v, version) and wildcard.match(k, kind):
            if wildcard.match(s, subresource):
                return entry
            if (allow_ephemeral_containers and (group, version, kind) == ("", "v1", "Pod")
                    and subresource == "ephemeralcontainers"):
                return entry
    return None


def kind_of_entry(entry: str) -> str:
    """GetKindFromGVK then SplitSubresource: the bare kind an entry names (``apps/v1/Deployment`` → Deployment)."""
    parts = entry.split("/")
    if len(parts) == 1:
        kind = entry.replace(".", "/", 1)
    elif len(parts) == 2:
        if parts[0] == "*" and parts[1] == "*":
            kind = "*/*"
        elif _VERSION.fullmatch(parts[0]):
            kind = parts[1].replace(".", "/", 1)
        else:
            kind = parts[0] + "/" + parts[1]
    elif len(parts) == 3:
        kind = parts[1] + "/" + parts[2] if _VERSION.fullmatch(parts[0]) else parts[2].replace(".", "/", 1)
    elif len(parts) == 4:
        kind = parts[2] + "/" + parts[3]
    else:
        kind = ""
    pieces = kind.split("/")
    return pieces[0] if len(pieces) == 2 else kind


@dataclass
class Request:
    """What Kyverno's engine matches a rule against (the policy context of an admission request)."""

    operation: str
    group: str  # the top-level kind of the requested resource (for a subresource, the parent's kind)
    version: str
    kind: str
    subresource: str
    new: dict[str, Any] | None  # the object (None on DELETE)
    old: dict[str, Any] | None
    namespace_labels: dict[str, str]
    username: str
    groups: list[str]
    roles: list[str]
    cluster_roles: list[str]
    notes: list[str] = field(default_factory=list)


def _meta(obj: Mapping[str, Any] | None) -> Mapping[str, Any]:
    meta = obj.get("metadata") if isinstance(obj, Mapping) else None
    return meta if isinstance(meta, Mapping) else {}


def _strmap(value: Any) -> dict[str, str]:
    return {str(k): str(v) for k, v in value.items()} if isinstance(value, Mapping) else {}


def resource_name(obj: Mapping[str, Any] | None) -> str:
    meta = _meta(obj)
    return str(meta.get("name") or meta.get("generateName") or "")


def _selector(selector: Mapping[str, Any], labels: dict[str, str]) -> tuple[bool, str | None]:
    """CheckSelector: wildcards in matchLabels are first replaced by a matching label, then the selector is used."""
    match_labels = selector.get("matchLabels")
    replaced: dict[str, str] = {}
    if isinstance(match_labels, Mapping):
        for key, value in match_labels.items():
            key, value = str(key), str(value)
            if wildcard.contains_wildcard(key) or wildcard.contains_wildcard(value):
                found = next(((k, v) for k, v in labels.items() if wildcard.match(key, k) and wildcard.match(value, v)),
                             None)
                if found is None:
                    found = (key.replace("*", "0").replace("?", "0"), value.replace("*", "0").replace("?", "0"))
                replaced[found[0]] = found[1]
            else:
                replaced[key] = value
    selector = {**selector, "matchLabels": replaced}
    try:
        return selector_matches(selector, labels), None
    except SelectorError as exc:
        return False, str(exc)


def _check_annotations(expected: Mapping[str, Any], actual: dict[str, str]) -> bool:
    for key, value in expected.items():
        if not any(wildcard.match(str(key), k) and wildcard.match(str(value), v) for k, v in actual.items()):
            return False
    return True


def _check_subjects(subjects: list[Any], username: str, groups: list[str]) -> bool:
    for subject in subjects:
        if not isinstance(subject, Mapping):
            continue
        kind, name = subject.get("kind"), str(subject.get("name") or "")
        if kind == "ServiceAccount":
            sa = f"system:serviceaccount:{subject.get('namespace') or ''}:{name}"
            if wildcard.match(sa, username):
                return True
        elif kind == "Group":
            if any(wildcard.match(name, g) for g in groups):
                return True
        elif kind == "User" and wildcard.match(name, username):
            return True
    return False


def condition_block(
    description: Mapping[str, Any], user_info: Mapping[str, Any], req: Request, resource: Mapping[str, Any] | None
) -> tuple[list[str], list[str]]:
    """doesResourceMatchConditionBlock: (reasons it does not match, what did match), for one resource filter."""
    why_not: list[str] = []
    why: list[str] = []
    operations = [str(o) for o in description.get("operations") or []]
    if operations:
        if req.operation not in operations:
            return ["operation does not match"], [f"operations {operations} do not include {req.operation}"]
        why.append(f"operation {req.operation} is in {operations}")
    kinds = [str(k) for k in description.get("kinds") or []]
    if kinds:
        shown = f"{req.group + '/' if req.group else ''}{req.version}/{req.kind}" + (
            f"/{req.subresource}" if req.subresource else "")
        hit = check_kind(kinds, req.group, req.version, req.kind, req.subresource)
        if hit is None:
            why_not.append(f"kind does not match {_go_list(kinds)}")
            why.append(f"kinds {kinds} do not include {shown}")
        else:
            why.append(f"kinds entry {hit!r} matches {shown}")
    name = resource_name(resource)
    if description.get("name"):
        pattern = str(description["name"])
        if wildcard.match(pattern, name):
            why.append(f"name {name!r} matches {pattern!r}")
        else:
            why_not.append("name does not match")
            why.append(f"name {name!r} does not match {pattern!r}")
    names = [str(n) for n in description.get("names") or []]
    if names:
        if any(wildcard.match(n, name) for n in names):
            why.append(f"name {name!r} matches one of {names}")
        else:
            why_not.append("none of the names match")
            why.append(f"name {name!r} matches none of {names}")
    namespaces = [str(n) for n in description.get("namespaces") or []]
    if namespaces:
        meta = _meta(resource)
        namespace = str(meta.get("name") or "") if (resource or {}).get("kind") == "Namespace" \
            else str(meta.get("namespace") or "")
        if any(wildcard.match(n, namespace) for n in namespaces):
            why.append(f"namespace {namespace!r} matches one of {namespaces}")
        else:
            why_not.append("namespace does not match")
            why.append(f"namespace {namespace!r} matches none of {namespaces}")
    annotations = description.get("annotations")
    if isinstance(annotations, Mapping) and annotations:
        actual = _strmap(_meta(resource).get("annotations"))
        if _check_annotations(annotations, actual):
            why.append(f"annotations match {dict(annotations)}")
        else:
            why_not.append("annotations does not match")
            why.append(f"annotations {actual} do not match {dict(annotations)}")
    selector = description.get("selector")
    if isinstance(selector, Mapping):
        labels = _strmap(_meta(resource).get("labels"))
        ok, err = _selector(selector, labels)
        if err is not None:
            why_not.append(f"failed to parse selector: {err}")
            why.append(f"selector cannot be parsed: {err}")
        elif ok:
            why.append(f"selector {describe_selector(selector) or '{}'} matches the labels {labels}")
        else:
            why_not.append("selector does not match")
            why.append(f"selector {describe_selector(selector)} does not match the labels {labels}")
    ns_selector = description.get("namespaceSelector")
    if isinstance(ns_selector, Mapping):
        kind = str((resource or {}).get("kind") or "")
        if kind == "Namespace":
            why_not.append("namespace selector is not applicable for namespace resource")
            why.append("namespaceSelector is not applicable for a Namespace")
        elif kind != "" or "*" in kinds:
            ok, err = _selector(ns_selector, req.namespace_labels)
            if err is not None:
                why_not.append(f"failed to parse namespace selector: {err}")
                why.append(f"namespaceSelector cannot be parsed: {err}")
            elif ok:
                why.append(f"namespaceSelector {describe_selector(ns_selector) or '{}'} matches the namespace labels "
                           f"{req.namespace_labels}")
            else:
                why_not.append("namespace selector does not match labels")
                why.append(f"namespaceSelector {describe_selector(ns_selector)} does not match the namespace labels "
                           f"{req.namespace_labels}")
    for key, noun, have, error in (
        ("roles", "roles", req.roles, "user info does not match roles for the given conditionBlock"),
        ("clusterRoles", "cluster roles", req.cluster_roles,
         "user info does not match clustersRoles for the given conditionBlock"),
    ):
        wanted = [str(r) for r in user_info.get(key) or []]
        if not wanted:
            continue
        if set(wanted) & set(have):
            why.append(f"the user has one of the {noun} {wanted}")
        else:
            why_not.append(error)
            why.append(f"the user's {noun} {have} include none of {wanted}")
    subjects = user_info.get("subjects") or []
    if subjects:
        if _check_subjects(list(subjects), req.username, req.groups):
            why.append(f"user {req.username!r} (groups {req.groups}) is one of the subjects")
        else:
            why_not.append("user info does not match subject for the given conditionBlock")
            why.append(f"user {req.username!r} (groups {req.groups}) is none of the subjects")
    return why_not, why


def _go_list(items: list[str]) -> str:
    return "[" + " ".join(items) + "]"


_DESCRIPTION_KEYS = ("name", "names", "namespaces", "kinds", "annotations", "selector", "namespaceSelector",
                     "operations")
_USER_KEYS = ("roles", "clusterRoles", "subjects")


def _split_filter(block: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A ResourceFilter's resource description (under ``resources``) and user info (inline)."""
    resources = block.get("resources")
    description = dict(resources) if isinstance(resources, Mapping) else {}
    user = {k: block[k] for k in _USER_KEYS if block.get(k)}
    return description, user


def _empty_description(description: Mapping[str, Any]) -> bool:
    return not any(description.get(k) for k in _DESCRIPTION_KEYS) and description.get("selector") is None \
        and description.get("namespaceSelector") is None


@dataclass
class RuleMatch:
    """Whether a rule applies to the request, and why."""

    matched: bool
    reasons: list[str]  # Kyverno's own reasons for not matching ("rule x not matched: 1. ...")
    explanation: list[str]


def _match_filter(block: Mapping[str, Any], req: Request, resource: Mapping[str, Any] | None,
                  label: str, why: list[str]) -> list[str]:
    description, user = _split_filter(block)
    if _empty_description(description) and not user:
        why.append(f"{label} is empty: match cannot be empty")
        return ["match cannot be empty"]
    errs, detail = condition_block(description, user, req, resource)
    why.append(f"{label} {'matches' if not errs else 'does not match'}: " + "; ".join(detail))
    return errs


def _exclude_filter(block: Mapping[str, Any], req: Request, resource: Mapping[str, Any] | None,
                    label: str, why: list[str]) -> list[str]:
    description, user = _split_filter(block)
    if _empty_description(description) and not user:
        why.append(f"{label} is empty: it excludes nothing")
        return []
    errs, detail = condition_block(description, user, req, resource)
    if errs:
        why.append(f"{label} does not exclude the request: " + "; ".join(detail))
        return []
    why.append(f"{label} excludes the request: " + "; ".join(detail))
    return ["resource excluded since one of the criteria excluded it"]


def matches_resource_description(
    rule: Mapping[str, Any], req: Request, resource: Mapping[str, Any] | None, policy_namespace: str
) -> RuleMatch:
    """MatchesResourceDescription for one resource (the new object, or the old one on DELETE)."""
    why: list[str] = []
    if resource is None:
        return RuleMatch(False, ["resource is empty"], ["there is no object to match"])
    if policy_namespace and policy_namespace != str(_meta(resource).get("namespace") or ""):
        return RuleMatch(False, ["policy and resource namespaces mismatch"],
                         [f"a Policy applies only in its own namespace {policy_namespace!r}"])
    reasons: list[str] = []
    match = rule.get("match") if isinstance(rule.get("match"), Mapping) else {}
    any_blocks = [b for b in match.get("any") or [] if isinstance(b, Mapping)]
    all_blocks = [b for b in match.get("all") or [] if isinstance(b, Mapping)]
    if any_blocks:
        hit = False
        for i, block in enumerate(any_blocks):
            if not _match_filter(block, req, resource, f"match.any[{i}]", why):
                hit = True
                break
        if not hit:
            reasons.append("no resource matched")
    elif all_blocks:
        for i, block in enumerate(all_blocks):
            reasons += _match_filter(block, req, resource, f"match.all[{i}]", why)
    else:
        reasons += _match_filter(match, req, resource, "match", why)
    exclude = rule.get("exclude") if isinstance(rule.get("exclude"), Mapping) else None
    if not reasons and exclude:
        ex_any = [b for b in exclude.get("any") or [] if isinstance(b, Mapping)]
        ex_all = [b for b in exclude.get("all") or [] if isinstance(b, Mapping)]
        if ex_any:
            for i, block in enumerate(ex_any):
                reasons += _exclude_filter(block, req, resource, f"exclude.any[{i}]", why)
        elif ex_all:
            excluded = True
            for i, block in enumerate(ex_all):
                if not _exclude_filter(block, req, resource, f"exclude.all[{i}]", why):
                    excluded = False
                    break
            if excluded:
                reasons.append("resource excluded since the combination of all criteria exclude it")
        else:
            reasons += _exclude_filter(exclude, req, resource, "exclude", why)
    return RuleMatch(not reasons, reasons, why)


def rule_matches(rule: Mapping[str, Any], req: Request, policy_namespace: str) -> RuleMatch:
    """engine.matches: the new object, and for a DELETE (no new object) the old one."""
    result = matches_resource_description(rule, req, req.new, policy_namespace)
    if result.matched or req.new is not None or req.old is None:
        return result
    old = matches_resource_description(rule, req, req.old, policy_namespace)
    old.explanation.insert(0, "matched against the object being deleted")
    return old


def not_matched_message(rule_name: str, reasons: list[str]) -> str:
    """Kyverno's log text for a rule that does not match."""
    return f"rule {rule_name} not matched:" + "".join(f"\n {i + 1}. {r}" for i, r in enumerate(reasons))


# --------------------------------------------------------------------------------------------
# Roles and cluster roles of the requester (pkg/userinfo.GetRoleRef)


# The ClusterRoleBindings kube-apiserver's RBAC bootstrap creates in every cluster (the controllers' own aside),
# and the one kubeadm adds for the admin user it writes into admin.conf.
BOOTSTRAP_CLUSTER_ROLE_BINDINGS: list[dict[str, Any]] = [
    {"name": "cluster-admin", "role": "cluster-admin", "subjects": [("Group", "system:masters")]},
    {"name": "system:discovery", "role": "system:discovery", "subjects": [("Group", "system:authenticated")]},
    {"name": "system:basic-user", "role": "system:basic-user", "subjects": [("Group", "system:authenticated")]},
    {"name": "system:public-info-viewer", "role": "system:public-info-viewer",
     "subjects": [("Group", "system:authenticated"), ("Group", "system:unauthenticated")]},
    {"name": "system:monitoring", "role": "system:monitoring", "subjects": [("Group", "system:monitoring")]},
    {"name": "system:node-proxier", "role": "system:node-proxier", "subjects": [("User", "system:kube-proxy")]},
    {"name": "system:kube-controller-manager", "role": "system:kube-controller-manager",
     "subjects": [("User", "system:kube-controller-manager")]},
    {"name": "system:kube-dns", "role": "system:kube-dns", "subjects": [("ServiceAccount", "kube-system/kube-dns")]},
    {"name": "system:kube-scheduler", "role": "system:kube-scheduler",
     "subjects": [("User", "system:kube-scheduler")]},
    {"name": "system:volume-scheduler", "role": "system:volume-scheduler",
     "subjects": [("User", "system:kube-scheduler")]},
    {"name": "system:service-account-issuer-discovery", "role": "system:service-account-issuer-discovery",
     "subjects": [("Group", "system:serviceaccounts")]},
    {"name": "kubeadm:cluster-admins", "role": "cluster-admin", "subjects": [("Group", "kubeadm:cluster-admins")]},
]


def _binding_subjects_match(subjects: Any, username: str, groups: list[str], namespace: str) -> bool:
    for subject in subjects if isinstance(subjects, list) else []:
        if not isinstance(subject, Mapping):
            continue
        kind, name = subject.get("kind"), str(subject.get("name") or "")
        if kind == "ServiceAccount":
            ns = str(subject.get("namespace") or namespace)
            if ns and username == f"system:serviceaccount:{ns}:{name}":
                return True
        elif kind == "Group":
            if name in groups:
                return True
        elif kind == "User" and username == name:
            return True
    return False


def _bootstrap_bindings() -> list[dict[str, Any]]:
    out = []
    for b in BOOTSTRAP_CLUSTER_ROLE_BINDINGS:
        subjects = []
        for kind, name in b["subjects"]:
            if kind == "ServiceAccount":
                ns, _, sa = name.partition("/")
                subjects.append({"kind": kind, "namespace": ns, "name": sa})
            else:
                subjects.append({"kind": kind, "name": name})
        out.append({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
                    "metadata": {"name": b["name"]}, "roleRef": {"kind": "ClusterRole", "name": b["role"]},
                    "subjects": subjects})
    return out


def role_refs(
    objects: list[Any], username: str, groups: list[str], request_namespace: str
) -> tuple[list[str], list[str]]:
    """GetRoleRef: the user's roles (``namespace:role``) and cluster roles, from the RoleBindings and
    ClusterRoleBindings pasted plus the bootstrap ones; each list sorted and without duplicates."""
    roles: list[str] = []
    cluster_roles: list[str] = []
    pasted = [o for o in objects if isinstance(o, Mapping)
              and str(o.get("apiVersion", "")).startswith("rbac.authorization.k8s.io/")]
    names = {(o.get("kind"), str(_meta(o).get("name") or "")) for o in pasted}
    bootstrap = [b for b in _bootstrap_bindings() if ("ClusterRoleBinding", b["metadata"]["name"]) not in names]
    for binding in pasted:
        if binding.get("kind") != "RoleBinding":
            continue
        namespace = str(_meta(binding).get("namespace") or "default")
        if not _binding_subjects_match(binding.get("subjects"), username, groups, namespace):
            continue
        ref = binding.get("roleRef") if isinstance(binding.get("roleRef"), Mapping) else {}
        if ref.get("kind") == "Role":
            roles.append(f"{namespace}:{ref.get('name')}")
        elif ref.get("kind") == "ClusterRole" and namespace == request_namespace:
            cluster_roles.append(str(ref.get("name")))
    for binding in [*pasted, *bootstrap]:
        if binding.get("kind") != "ClusterRoleBinding":
            continue
        if not _binding_subjects_match(binding.get("subjects"), username, groups, ""):
            continue
        ref = binding.get("roleRef") if isinstance(binding.get("roleRef"), Mapping) else {}
        if ref.get("kind") == "ClusterRole":
            cluster_roles.append(str(ref.get("name")))
    return sorted(set(roles)), sorted(set(cluster_roles))
