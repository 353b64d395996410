"""Kubernetes RBAC: the answers kube-apiserver's authorizer gives for Role, ClusterRole, RoleBinding and
ClusterRoleBinding objects.

Mirrors kubernetes/kubernetes:

* plugin/pkg/auth/authorizer/rbac/rbac.go: ``RuleAllows`` and the reasons (``RBAC: allowed by ...``; no
  opinion with an empty reason, or ``RBAC: <errors>`` when a binding's role could not be found);
* pkg/apis/rbac/v1/evaluation_helpers.go: ``VerbMatches``, ``APIGroupMatches``, ``ResourceMatches``
  (``pods/status``, ``*/scale``), ``ResourceNameMatches``, ``NonResourceURLMatches`` (trailing ``*``);
* pkg/registry/rbac/validation/rule.go: ``VisitRulesFor`` (every ClusterRoleBinding, then the
  RoleBindings of the request's namespace only), ``appliesTo`` (User, Group, ServiceAccount subjects)
  and the describers used in the reason;
* pkg/controller/clusterroleaggregation: a ClusterRole with an ``aggregationRule`` holds the rules of
  every other ClusterRole its selectors match (its own ``rules`` are replaced);
* pkg/apis/rbac/validation and pkg/apis/rbac/v1/defaults.go: what the apiserver refuses to store;
* the authorizer chain of kube-apiserver: the group ``system:masters`` is always allowed (with an empty
  reason) before RBAC is asked. The Node authorizer is not simulated.

Rule: this module is pure and knows nothing of CEL; it turns documents into an :class:`RBAC` value and
answers one ``authorizer.Attributes`` at a time.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from . import validation
from .cel.library.format import is_dns1123_subdomain
from .cel.library.goquote import go_quote
from .documents import Document, Problem
from .matching import SelectorError, selector_matches

GROUP = "rbac.authorization.k8s.io"
KINDS = ("Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding")
NAMESPACED_KINDS = ("Role", "RoleBinding")
PRIVILEGED_GROUP = "system:masters"
SERVICE_ACCOUNT_PREFIX = "system:serviceaccount:"

ALLOW = "allow"
NO_OPINION = "no opinion"

NO_RBAC_REASON = (
    "the playground simulates no authorizer: there is no Role, ClusterRole, RoleBinding or ClusterRoleBinding in "
    "the panes, so every check answers no opinion (allowed() is false)"
)

# The bootstrap ClusterRole every cluster has (plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go),
# used when a binding names it and no pasted ClusterRole of that name exists.
_CLUSTER_ADMIN = {
    "apiVersion": f"{GROUP}/v1",
    "kind": "ClusterRole",
    "metadata": {"name": "cluster-admin", "labels": {"kubernetes.io/bootstrapping": "rbac-defaults"}},
    "rules": [
        {"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]},
        {"nonResourceURLs": ["*"], "verbs": ["*"]},
    ],
}


def is_rbac_document(doc: Document) -> bool:
    """An RBAC object (any version of the group; only v1 is served, the others are reported)."""
    return doc.kind in KINDS and doc.group == GROUP


# ------------------------------------------------------------------------------------------------
# The objects


@dataclass(frozen=True)
class PolicyRule:
    """One rbacv1.PolicyRule."""

    verbs: tuple[str, ...] = ()
    api_groups: tuple[str, ...] = ()
    resources: tuple[str, ...] = ()
    resource_names: tuple[str, ...] = ()
    non_resource_urls: tuple[str, ...] = ()

    def to_json(self) -> dict[str, list[str]]:
        fields = (("verbs", self.verbs), ("apiGroups", self.api_groups), ("resources", self.resources),
                  ("resourceNames", self.resource_names), ("nonResourceURLs", self.non_resource_urls))
        return {key: list(values) for key, values in fields if values}


@dataclass
class Role:
    """A Role or ClusterRole; ``sources[i]`` names the ClusterRole rule ``i`` was aggregated from."""

    kind: str
    name: str
    namespace: str
    rules: list[PolicyRule]
    labels: dict[str, str] = field(default_factory=dict)
    selectors: list[Mapping[str, Any]] | None = None  # aggregationRule.clusterRoleSelectors
    sources: list[str | None] = field(default_factory=list)
    built_in: bool = False

    def ref(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "name": self.name}
        if self.namespace:
            out["namespace"] = self.namespace
        if self.built_in:
            out["builtIn"] = True
        return out


@dataclass(frozen=True)
class Subject:
    kind: str
    name: str
    namespace: str = ""
    api_group: str = ""


@dataclass
class Binding:
    """A RoleBinding or ClusterRoleBinding."""

    kind: str
    name: str
    namespace: str
    role_kind: str
    role_name: str
    subjects: list[Subject]

    def ref(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "name": self.name}
        if self.namespace:
            out["namespace"] = self.namespace
        return out

    def describe(self, subject: Subject) -> str:
        """The source text of the allow reason (clusterRoleBindingDescriber / roleBindingDescriber)."""
        shown = self.name if self.kind == "ClusterRoleBinding" else f"{self.name}/{self.namespace}"
        return (f"{self.kind} {go_quote(shown)} of {self.role_kind} {go_quote(self.role_name)} to "
                f"{_describe_subject(subject, self.namespace)}")


def _describe_subject(subject: Subject, binding_namespace: str) -> str:
    if subject.kind == "ServiceAccount":
        return f"{subject.kind} {go_quote(subject.name + '/' + (subject.namespace or binding_namespace))}"
    return f"{subject.kind} {go_quote(subject.name)}"


# ------------------------------------------------------------------------------------------------
# Matching (evaluation_helpers.go, rbac.go RuleAllows)


def verb_matches(rule: PolicyRule, verb: str) -> bool:
    return any(v == "*" or v == verb for v in rule.verbs)


def api_group_matches(rule: PolicyRule, group: str) -> bool:
    return any(g == "*" or g == group for g in rule.api_groups)


def resource_matches(rule: PolicyRule, combined: str, subresource: str) -> bool:
    """``*`` matches everything, ``pods/status`` the combined resource, ``*/status`` any resource's subresource."""
    for r in rule.resources:
        if r == "*" or r == combined:
            return True
        if subresource and len(r) == len(subresource) + 2 and r.startswith("*/") and r.endswith(subresource):
            return True
    return False


def resource_name_matches(rule: PolicyRule, name: str) -> bool:
    """An empty resourceNames list always matches; otherwise the request's name must be listed."""
    return not rule.resource_names or name in rule.resource_names


def non_resource_url_matches(rule: PolicyRule, path: str) -> bool:
    for url in rule.non_resource_urls:
        if url == "*" or url == path:
            return True
        if url.endswith("*") and path.startswith(url.rstrip("*")):
            return True
    return False


def rule_allows(attributes: Mapping[str, Any], rule: PolicyRule) -> bool:
    """RuleAllows: does one rule allow the request attributes?"""
    verb = str(attributes.get("verb", ""))
    if attributes.get("resourceRequest"):
        resource = str(attributes.get("resource", ""))
        subresource = str(attributes.get("subresource", ""))
        combined = f"{resource}/{subresource}" if subresource else resource
        return (verb_matches(rule, verb)
                and api_group_matches(rule, str(attributes.get("apiGroup", "")))
                and resource_matches(rule, combined, subresource)
                and resource_name_matches(rule, str(attributes.get("name", ""))))
    return verb_matches(rule, verb) and non_resource_url_matches(rule, str(attributes.get("path", "")))


def _applies_to(username: str, groups: list[str], subject: Subject, namespace: str) -> bool:
    """appliesToUser: User by name, Group by membership, ServiceAccount by its user name."""
    if subject.kind == "User":
        return username == subject.name
    if subject.kind == "Group":
        return subject.name in groups
    if subject.kind == "ServiceAccount":
        sa_namespace = subject.namespace or namespace
        if not sa_namespace:
            return False
        return username == f"{SERVICE_ACCOUNT_PREFIX}{sa_namespace}:{subject.name}"
    return False


def _aggregate(errors: list[str]) -> str:
    """utilerrors.NewAggregate(...).Error(): one text, or several (duplicates dropped) in brackets."""
    unique = list(dict.fromkeys(errors))
    if len(unique) == 1:
        return unique[0]
    return "[" + ", ".join(unique) + "]"


# ------------------------------------------------------------------------------------------------
# The authorizer


@dataclass
class Answer:
    """An authorizer's decision, reason and error, and what the playground can tell about it."""

    decision: str
    reason: str
    error: str | None = None
    granted_by: dict[str, Any] | None = None
    details: dict[str, Any] = field(default_factory=dict)

    def as_backend_result(self) -> tuple[str, str, str | None, dict[str, Any]]:
        extra = dict(self.details)
        if self.granted_by is not None:
            extra["grantedBy"] = self.granted_by
        return self.decision, self.reason, self.error, extra


@dataclass
class RBAC:
    """The RBAC objects of a cluster, ready to answer checks."""

    roles: dict[tuple[str, str], Role] = field(default_factory=dict)
    cluster_roles: dict[str, Role] = field(default_factory=dict)
    role_bindings: list[Binding] = field(default_factory=list)
    cluster_role_bindings: list[Binding] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.roles or self.cluster_roles or self.role_bindings or self.cluster_role_bindings)

    def _role_for(self, binding: Binding, namespace: str) -> tuple[Role | None, str | None]:
        """GetRoleReferenceRules: the role a binding names, or the lister's not-found error."""
        if binding.role_kind == "Role":
            role = self.roles.get((namespace, binding.role_name))
            if role is None:
                return None, f"role.{GROUP} {go_quote(binding.role_name)} not found"
            return role, None
        if binding.role_kind == "ClusterRole":
            role = self.cluster_roles.get(binding.role_name)
            if role is None and binding.role_name == "cluster-admin":
                role = _built_in_cluster_admin()
            if role is None:
                return None, f"clusterrole.{GROUP} {go_quote(binding.role_name)} not found"
            return role, None
        return None, f"unsupported role reference kind: {go_quote(binding.role_kind)}"

    def authorize(self, attributes: Mapping[str, Any]) -> Answer:
        """Answer one check as kube-apiserver's chain would: system:masters, then RBAC."""
        user = attributes.get("user") if isinstance(attributes.get("user"), Mapping) else {}
        username = str(user.get("username") or "")
        groups = [str(g) for g in user.get("groups") or [] if g is not None]
        if PRIVILEGED_GROUP in groups:
            return Answer(ALLOW, "", granted_by={"privilegedGroup": PRIVILEGED_GROUP})
        namespace = str(attributes.get("namespace") or "") if attributes.get("resourceRequest") else ""
        errors: list[str] = []
        considered: list[str] = []
        bindings = list(self.cluster_role_bindings)
        if namespace:
            bindings += [b for b in self.role_bindings if b.namespace == namespace]
        for binding in bindings:
            subject = next((s for s in binding.subjects if _applies_to(username, groups, s, binding.namespace)), None)
            if subject is None:
                continue
            role, error = self._role_for(binding, binding.namespace)
            if role is None:
                errors.append(error or "")
                considered.append(f"{binding.describe(subject)}: {error}")
                continue
            for index, rule in enumerate(role.rules):
                if rule_allows(attributes, rule):
                    granted: dict[str, Any] = {
                        "binding": binding.ref(),
                        "role": role.ref(),
                        "subject": _subject_json(subject, binding.namespace),
                        "ruleIndex": index,
                        "rule": rule.to_json(),
                    }
                    source = role.sources[index] if index < len(role.sources) else None
                    if source is not None:
                        granted["aggregatedFrom"] = {"kind": "ClusterRole", "name": source}
                    return Answer(ALLOW, f"RBAC: allowed by {binding.describe(subject)}", granted_by=granted)
            considered.append(f"{binding.describe(subject)}: no rule of the {role.kind} matches")
        reason = f"RBAC: {_aggregate(errors)}" if errors else ""
        details: dict[str, Any] = {"bindingsForUser": considered}
        if not considered and namespace:
            details["explanation"] = (f"no ClusterRoleBinding, and no RoleBinding in namespace {namespace!r}, names "
                                      "this user, one of its groups or its service account")
        elif not considered:
            details["explanation"] = ("no ClusterRoleBinding names this user, one of its groups or its service "
                                      "account (a RoleBinding grants only inside its namespace, and this check is "
                                      "cluster-wide)")
        return Answer(NO_OPINION, reason, details=details)


def _subject_json(subject: Subject, binding_namespace: str) -> dict[str, str]:
    out = {"kind": subject.kind, "name": subject.name}
    if subject.kind == "ServiceAccount":
        out["namespace"] = subject.namespace or binding_namespace
    return out


def no_rbac_answer(attributes: Mapping[str, Any]) -> Answer:
    """The answer when the panes hold no RBAC object: no opinion, saying why."""
    return Answer(NO_OPINION, NO_RBAC_REASON)


def _built_in_cluster_admin() -> Role:
    role = _role_from(_CLUSTER_ADMIN, "ClusterRole", [])
    assert role is not None
    role.built_in = True
    return role


# ------------------------------------------------------------------------------------------------
# Loading and validating the documents


@dataclass
class Loaded:
    rbac: RBAC
    problems: list[Problem] = field(default_factory=list)
    rejected: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _strings(value: Any, path: str, errors: list[validation.FieldError]) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        errors.append(validation.invalid(path, value, "must be a list of strings"))
        return ()
    return tuple(value)


def _mapping(value: Any, path: str, errors: list[validation.FieldError]) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        errors.append(validation.invalid(path, value, "must be an object"))
        return {}
    return value


def _list(value: Any, path: str, errors: list[validation.FieldError]) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        errors.append(validation.invalid(path, value, "must be a list"))
        return []
    return value


def _path_segment_errors(name: str) -> list[str]:
    """path.IsValidPathSegmentName, the only rule RBAC object names follow."""
    if name in (".", ".."):
        return [f"may not be '{name}'"]
    return [f"may not contain '{c}'" for c in "/%" if c in name]


def _policy_rule(raw: Any, path: str, namespaced: bool, errors: list[validation.FieldError]) -> PolicyRule:
    """Read one rule and validate it as validatePolicyRule does."""
    item = _mapping(raw, path, errors)
    rule = PolicyRule(
        verbs=_strings(item.get("verbs"), f"{path}.verbs", errors),
        api_groups=_strings(item.get("apiGroups"), f"{path}.apiGroups", errors),
        resources=_strings(item.get("resources"), f"{path}.resources", errors),
        resource_names=_strings(item.get("resourceNames"), f"{path}.resourceNames", errors),
        non_resource_urls=_strings(item.get("nonResourceURLs"), f"{path}.nonResourceURLs", errors),
    )
    if not rule.verbs:
        errors.append(validation.required(f"{path}.verbs", "verbs must contain at least one value"))
    if rule.non_resource_urls:
        urls = list(rule.non_resource_urls)
        if namespaced:
            errors.append(validation.invalid(f"{path}.nonResourceURLs", urls,
                                             "namespaced rules cannot apply to non-resource URLs"))
        if rule.api_groups or rule.resources or rule.resource_names:
            errors.append(validation.invalid(f"{path}.nonResourceURLs", urls,
                                             "rules cannot apply to both regular resources and non-resource URLs"))
        return rule
    if not rule.api_groups:
        errors.append(validation.required(f"{path}.apiGroups", "resource rules must supply at least one api group"))
    if not rule.resources:
        errors.append(validation.required(f"{path}.resources", "resource rules must supply at least one resource"))
    if rule.resource_names and len(rule.resources) > 1:
        errors.append(validation.required(f"{path}.resourceNames", "resource names cannot apply to multiple resources"))
    return rule


def _meta(obj: Mapping[str, Any], kind: str, errors: list[validation.FieldError]) -> tuple[str, str, dict[str, str]]:
    meta = _mapping(obj.get("metadata"), "metadata", errors)
    name = meta.get("name")
    if not isinstance(name, str) or not name:
        errors.append(validation.required("metadata.name", "name or generateName is required"))
        name = ""
    else:
        errors.extend(validation.invalid("metadata.name", name, m) for m in _path_segment_errors(name))
    namespace = meta.get("namespace")
    namespace = str(namespace) if isinstance(namespace, str) and namespace else ""
    labels = _mapping(meta.get("labels"), "metadata.labels", errors)
    return name, namespace, {str(k): str(v) for k, v in labels.items()}


def _role_from(obj: Mapping[str, Any], kind: str, errors: list[validation.FieldError]) -> Role | None:
    name, namespace, labels = _meta(obj, kind, errors)
    namespaced = kind == "Role"
    rules = [_policy_rule(raw, f"rules[{i}]", namespaced, errors)
             for i, raw in enumerate(_list(obj.get("rules"), "rules", errors))]
    selectors: list[Mapping[str, Any]] | None = None
    if kind == "ClusterRole" and obj.get("aggregationRule") is not None:
        aggregation = _mapping(obj.get("aggregationRule"), "aggregationRule", errors)
        raw_selectors = _list(aggregation.get("clusterRoleSelectors"), "aggregationRule.clusterRoleSelectors", errors)
        if not raw_selectors:
            errors.append(validation.required("aggregationRule.clusterRoleSelectors",
                                              "at least one clusterRoleSelector required if aggregationRule is "
                                              "non-nil"))
        selectors = []
        for i, raw in enumerate(raw_selectors):
            path = f"aggregationRule.clusterRoleSelectors[{i}]"
            selector = _mapping(raw, path, errors)
            try:
                selector_matches(selector, {})
            except SelectorError as exc:
                errors.append(validation.invalid(path, dict(selector), str(exc)))
                continue
            selectors.append(selector)
    return Role(kind, name, namespace, rules, labels, selectors, [None] * len(rules))


def _subject(raw: Any, path: str, namespaced: bool, errors: list[validation.FieldError]) -> Subject | None:
    """Read one subject, defaulted (SetDefaults_Subject) and validated (validateRoleBindingSubject)."""
    item = _mapping(raw, path, errors)
    kind, name = str(item.get("kind") or ""), str(item.get("name") or "")
    namespace, api_group = str(item.get("namespace") or ""), str(item.get("apiGroup") or "")
    if not api_group and kind in ("User", "Group"):
        api_group = GROUP
    before = len(errors)
    if not name:
        errors.append(validation.required(f"{path}.name"))
    if kind == "ServiceAccount":
        if name:
            errors.extend(validation.invalid(f"{path}.name", name, m) for m in is_dns1123_subdomain(name))
        if api_group:
            errors.append(validation.not_supported(f"{path}.apiGroup", api_group, [""]))
        if not namespaced and not namespace:
            errors.append(validation.required(f"{path}.namespace"))
    elif kind in ("User", "Group"):
        if not name:
            errors.append(validation.invalid(f"{path}.name", name, f"{kind.lower()} name cannot be empty"))
        if api_group != GROUP:
            errors.append(validation.not_supported(f"{path}.apiGroup", api_group, [GROUP]))
    else:
        errors.append(validation.not_supported(f"{path}.kind", kind, ["ServiceAccount", "User", "Group"]))
    if len(errors) > before:
        return None
    return Subject(kind, name, namespace, api_group)


def _binding_from(obj: Mapping[str, Any], kind: str, errors: list[validation.FieldError]) -> Binding:
    name, namespace, _ = _meta(obj, kind, errors)
    role_ref = _mapping(obj.get("roleRef"), "roleRef", errors)
    api_group = str(role_ref.get("apiGroup") or "") or GROUP  # SetDefaults_(Cluster)RoleBinding
    if api_group != GROUP:
        errors.append(validation.not_supported("roleRef.apiGroup", api_group, [GROUP]))
    role_kind = str(role_ref.get("kind") or "")
    allowed_kinds = ["Role", "ClusterRole"] if kind == "RoleBinding" else ["ClusterRole"]
    if role_kind not in allowed_kinds:
        errors.append(validation.not_supported("roleRef.kind", role_kind, allowed_kinds))
    role_name = str(role_ref.get("name") or "")
    if not role_name:
        errors.append(validation.required("roleRef.name"))
    else:
        errors.extend(validation.invalid("roleRef.name", role_name, m) for m in _path_segment_errors(role_name))
    subjects = [_subject(raw, f"subjects[{i}]", kind == "RoleBinding", errors)
                for i, raw in enumerate(_list(obj.get("subjects"), "subjects", errors))]
    return Binding(kind, name, namespace, role_kind, role_name, [s for s in subjects if s is not None])


def _invalid_message(kind: str, name: str, errors: list[validation.FieldError]) -> str:
    """apierrors.NewInvalid's message for an RBAC kind."""
    head = f"{kind}.{GROUP} {go_quote(name)} is invalid"
    messages = list(dict.fromkeys(e.message for e in errors))
    return f"{head}: {messages[0]}" if len(messages) == 1 else f"{head}: [{', '.join(messages)}]"


def load(documents: Iterable[Document]) -> Loaded:
    """Build the cluster's RBAC from the documents; refuse (and report) what the apiserver would not store."""
    out = Loaded(RBAC())
    seen: dict[tuple[str, str, str], Document] = {}
    roles: list[Role] = []
    bindings: list[Binding] = []
    for doc in documents:
        version = doc.api_version.rpartition("/")[2]
        if version != "v1":
            out.problems.append(doc.problem("apiVersion", f"no matches for kind {go_quote(doc.kind)} in version "
                                            f"{go_quote(doc.api_version)}: RBAC is served as {GROUP}/v1 only "
                                            "(v1beta1 and v1alpha1 were removed in Kubernetes 1.22)"))
            continue
        errors: list[validation.FieldError] = []
        obj = doc.value
        kind = doc.kind
        item: Role | Binding | None
        if kind in ("Role", "ClusterRole"):
            item = _role_from(obj, kind, errors)
        else:
            item = _binding_from(obj, kind, errors)
        if item is None:
            continue
        if kind in NAMESPACED_KINDS and not item.namespace:
            item.namespace = "default"
            out.notes.append(f"{kind} {item.name!r} names no namespace: it is taken to be in namespace 'default', "
                             "as kubectl would create it")
        if errors:
            for e in errors:
                line, column = doc.locate(e.field)
                out.problems.append(Problem(doc.pane, doc.index, line, column, e.field, "error", e.message))
            out.rejected.append({"kind": kind, "name": item.name, "pane": doc.pane, "document": doc.index,
                                 "message": _invalid_message(kind, item.name, errors)})
            continue
        key = (kind, item.namespace, item.name)
        if key in seen:
            where = f"{kind} {item.namespace + '/' if item.namespace else ''}{item.name}"
            out.problems.append(doc.problem("metadata.name", f"{where} is given twice (also {seen[key].pane} pane, "
                                            f"document {seen[key].index + 1}): the later one is used", "warning"))
            roles = [r for r in roles if (r.kind, r.namespace, r.name) != key]
            bindings = [b for b in bindings if (b.kind, b.namespace, b.name) != key]
        seen[key] = doc
        if isinstance(item, Role):
            roles.append(item)
        else:
            bindings.append(item)
    rbac = out.rbac
    for role in roles:
        if role.kind == "Role":
            rbac.roles[(role.namespace, role.name)] = role
        else:
            rbac.cluster_roles[role.name] = role
    _aggregate_cluster_roles(rbac.cluster_roles)
    # Listers return objects in no defined order; by name makes the reported binding stable.
    rbac.cluster_role_bindings = sorted((b for b in bindings if b.kind == "ClusterRoleBinding"), key=lambda b: b.name)
    rbac.role_bindings = sorted((b for b in bindings if b.kind == "RoleBinding"), key=lambda b: (b.namespace, b.name))
    return out


def _aggregate_cluster_roles(cluster_roles: dict[str, Role]) -> None:
    """Do what the aggregation controller converges to: each aggregated ClusterRole holds, in order of the
    selectors and then of the selected roles' names, every distinct rule of the other ClusterRoles selected."""
    aggregated = sorted((r for r in cluster_roles.values() if r.selectors is not None), key=lambda r: r.name)
    if not aggregated:
        return
    everything = sorted(cluster_roles.values(), key=lambda r: r.name)
    for _ in range(len(aggregated) + 1):  # chains of aggregated roles settle within this many passes
        changed = False
        for target in aggregated:
            rules: list[PolicyRule] = []
            sources: list[str | None] = []
            for selector in target.selectors or []:
                for role in everything:
                    if role.name == target.name or not selector_matches(selector, role.labels):
                        continue
                    for index, rule in enumerate(role.rules):
                        if rule not in rules:
                            rules.append(rule)
                            sources.append(role.sources[index] or role.name)
            if rules != target.rules:
                target.rules, target.sources, changed = rules, sources, True
            else:
                target.sources = sources
        if not changed:
            return
