"""Kyverno's own configuration: the ``kyverno`` ConfigMap in the ``kyverno`` namespace.

Mirrors kyverno/kyverno pkg/config (resourceFilters, excludeGroups, excludeUsernames, excludeRoles,
excludeClusterRoles, webhooks) with the values of its Helm chart when no ConfigMap is pasted.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from .. import fast
from . import wildcard
from .match import parse_kind_selector

KYVERNO_NAMESPACE = "kyverno"
CONFIGMAP_NAME = "kyverno"

# The Helm chart's values (charts/kyverno/values.yaml), with the release named "kyverno" in namespace "kyverno".
DEFAULT_RESOURCE_FILTERS = (
    "[*/*,kyverno,*][Event,*,*][*/*,kube-system,*][*/*,kube-public,*][*/*,kube-node-lease,*][Node,*,*]"
    "[Node/?*,*,*][APIService,*,*][APIService/?*,*,*][TokenReview,*,*][SubjectAccessReview,*,*]"
    "[SelfSubjectAccessReview,*,*][Binding,*,*][Pod/binding,*,*][ReplicaSet,*,*][ReplicaSet/?*,*,*]"
    "[EphemeralReport,*,*][ClusterEphemeralReport,*,*]"
    "[ClusterRole,*,kyverno:admission-controller][ClusterRole,*,kyverno:admission-controller:core]"
    "[ClusterRole,*,kyverno:admission-controller:additional][ClusterRole,*,kyverno:background-controller]"
    "[ClusterRole,*,kyverno:background-controller:core][ClusterRole,*,kyverno:background-controller:additional]"
    "[ClusterRole,*,kyverno:cleanup-controller][ClusterRole,*,kyverno:cleanup-controller:core]"
    "[ClusterRole,*,kyverno:cleanup-controller:additional][ClusterRole,*,kyverno:reports-controller]"
    "[ClusterRole,*,kyverno:reports-controller:core][ClusterRole,*,kyverno:reports-controller:additional]"
    "[ClusterRoleBinding,*,kyverno:admission-controller][ClusterRoleBinding,*,kyverno:background-controller]"
    "[ClusterRoleBinding,*,kyverno:cleanup-controller][ClusterRoleBinding,*,kyverno:reports-controller]"
)
DEFAULT_DATA: dict[str, str] = {
    "excludeGroups": "system:nodes",
    "resourceFilters": DEFAULT_RESOURCE_FILTERS,
    "webhooks": json.dumps({"namespaceSelector": {"matchExpressions": [
        {"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": ["kube-system"]},
        {"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": [KYVERNO_NAMESPACE]},
    ]}}),
}
_FILTER = re.compile(r"\[([^\[\]]*)\]")


@dataclass(frozen=True)
class Filter:
    """One resourceFilters entry: ``[kind,namespace,name]``, the kind in any Kyverno kind form."""

    group: str
    version: str
    kind: str
    subresource: str
    namespace: str
    name: str
    text: str


@dataclass
class Subjects:
    usernames: list[str] = field(default_factory=list)
    groups: list[str] = field(default_factory=list)
    roles: list[str] = field(default_factory=list)
    cluster_roles: list[str] = field(default_factory=list)

    def first_match(self, username: str, groups: list[str], roles: list[str], cluster_roles: list[str]) -> str | None:
        """The first pattern that matches (usernames, groups, roles, cluster roles), as a description, or None."""
        for pattern in self.usernames:
            if wildcard.match(pattern, username):
                return f"username {username!r} matches {pattern!r}"
        for label, patterns, values in (("group", self.groups, groups), ("role", self.roles, roles),
                                        ("cluster role", self.cluster_roles, cluster_roles)):
            for pattern in patterns:
                for value in values:
                    if wildcard.match(pattern, value):
                        return f"{label} {value!r} matches {pattern!r}"
        return None


@dataclass
class Configuration:
    """The parts of Kyverno's configuration that decide whether it looks at a request."""

    source: str  # "the Helm chart's defaults" or "ConfigMap kyverno/kyverno"
    filters: list[Filter]
    exclusions: Subjects
    inclusions: Subjects
    namespace_selector: dict[str, Any] | None
    object_selector: dict[str, Any] | None
    problems: list[str] = field(default_factory=list)

    def excluded(self, username: str, groups: list[str], roles: list[str], cluster_roles: list[str]) -> str | None:
        """IsExcluded: say why the user is excluded (inclusions, written ``!name``, win), or None."""
        if self.inclusions.first_match(username, groups, roles, cluster_roles) is not None:
            return None
        return self.exclusions.first_match(username, groups, roles, cluster_roles)

    def filtered(self, group: str, version: str, kind: str, subresource: str, namespace: str, name: str) -> str | None:
        """ToFilter: the resourceFilters entry that makes Kyverno ignore the request, or None."""
        for f in self.filters:
            if not (wildcard.match(f.group, group) and wildcard.match(f.version, version)
                    and wildcard.match(f.kind, kind) and wildcard.match(f.subresource, subresource)):
                continue
            if wildcard.match(f.namespace, namespace) and wildcard.match(f.name, name):
                return f.text
            if group == "" and version == "v1" and kind == "Namespace" and wildcard.match(f.namespace, name):
                return f.text
        return None


def _parse_filters(text: str) -> list[Filter]:
    if text == DEFAULT_DATA["resourceFilters"]:
        return list(_default_filters())
    return list(_filters_of(text))


@cache  # the chart's, depending on no input: read once, kept when the caches of inputs are cleared
def _default_filters() -> tuple[Filter, ...]:
    return _filters_of.__wrapped__(DEFAULT_DATA["resourceFilters"])


@fast.memo(16)  # a pasted configuration's, read for every request Kyverno may see
def _filters_of(text: str) -> tuple[Filter, ...]:
    out: list[Filter] = []
    for m in _FILTER.finditer(text):
        elements = m.group(1).split(",")
        kind = elements[0]
        namespace = elements[1] if len(elements) > 1 else ""
        name = elements[2] if len(elements) > 2 else ""
        if len(elements) > 3:
            # parseKinds keeps the previous entry for a malformed one; an empty filter matches nothing useful
            out.append(out[-1] if out else Filter("", "", "", "", "", "", m.group(0)))
            continue
        if not kind:
            out.append(Filter("", "", "", "", "", "", m.group(0)))
            continue
        g, v, k, s = parse_kind_selector(kind)
        out.append(Filter(g, v, k, s, namespace, name, m.group(0)))
    return tuple(out)


def _parse_subjects(text: str) -> tuple[list[str], list[str]]:
    exclusions: list[str] = []
    inclusions: list[str] = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        if item.startswith("!"):
            item = item[1:].strip()
            if item:
                inclusions.append(item)
        else:
            exclusions.append(item)
    return exclusions, inclusions


def load(objects: list[Any]) -> Configuration:
    """Kyverno's configuration: the pasted ``kyverno`` ConfigMap in namespace ``kyverno``, else the chart's."""
    data: Mapping[str, Any] | None = None
    for obj in objects:
        if not isinstance(obj, Mapping) or obj.get("kind") != "ConfigMap" or obj.get("apiVersion") != "v1":
            continue
        meta = obj.get("metadata") if isinstance(obj.get("metadata"), Mapping) else {}
        if meta.get("name") == CONFIGMAP_NAME and meta.get("namespace") == KYVERNO_NAMESPACE:
            data = obj.get("data") if isinstance(obj.get("data"), Mapping) else {}
    source = "ConfigMap kyverno/kyverno" if data is not None else "the defaults of Kyverno's Helm chart"
    data = DEFAULT_DATA if data is None else data
    excl, incl = Subjects(), Subjects()
    for key, attr in (("excludeGroups", "groups"), ("excludeUsernames", "usernames"),
                      ("excludeRoles", "roles"), ("excludeClusterRoles", "cluster_roles")):
        e, i = _parse_subjects(str(data.get(key) or ""))
        setattr(excl, attr, e)
        setattr(incl, attr, i)
    config = Configuration(source, _parse_filters(str(data.get("resourceFilters") or "")), excl, incl, None, None)
    webhooks = data.get("webhooks")
    if webhooks:
        try:
            parsed = json.loads(str(webhooks))
        except ValueError as exc:
            config.problems.append(f"the webhooks value of {source} is not JSON ({exc}); Kyverno ignores it")
            parsed = None
        if isinstance(parsed, dict):
            selector = parsed.get("namespaceSelector")
            config.namespace_selector = selector if isinstance(selector, dict) else None
            selector = parsed.get("objectSelector")
            config.object_selector = selector if isinstance(selector, dict) else None
    return config
