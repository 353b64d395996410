"""The built-in table of Kubernetes API resources.

Admission needs two mappings the apiserver keeps while it installs its REST storage:
the resource (plural, lowercase) and kind of every group/version, with their subresources,
and which group/version/resources share one storage (the apiserver's
EquivalentResourceRegistry, used by ``matchPolicy: Equivalent``).

The table below is plain data checked against the discovery documents of kube-apiserver
(``api/discovery/*.json`` in kubernetes/kubernetes). Besides what a server serves, it keeps
older versions that share storage with a served one (``apps/v1beta1`` deployments,
``extensions/v1beta1`` ingresses, ...) so that equivalence across them can be shown; those
carry ``served=False``.

Usage::

    table = builtin_table("1.34")
    info = table.by_kind("apps", "v1", "Deployment")
    table.kind_for(info.gvr, "scale")  # GroupVersionKind("autoscaling", "v1", "Scale")
    table.equivalents(info.gvr)       # apps/v1, apps/v1beta2, apps/v1beta1, extensions/v1beta1
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from types import MappingProxyType
from typing import Any


@dataclass(frozen=True)
class GroupVersionResource:
    """A REST resource: API group (``""`` for core), version and plural lowercase name."""

    group: str
    version: str
    resource: str


@dataclass(frozen=True)
class GroupVersionKind:
    """A type: API group (``""`` for core), version and Kind."""

    group: str
    version: str
    kind: str


@dataclass(frozen=True)
class ResourceInfo:
    """One resource of one group/version, as the apiserver registers it.

    ``subresources`` maps each subresource name to the kind sent in admission requests for it
    (``status`` → the resource's own kind, ``scale`` → ``autoscaling/v1 Scale``, ``exec`` →
    ``v1 PodExecOptions``...). ``storage`` is the equivalence key: resources with the same key
    are served by one storage (default: a storage of their own group and resource).
    ``served`` is False for versions that a server of the table's Kubernetes version does not
    serve by default (removed, or a beta/alpha API that must be switched on); they are kept so
    that equivalence can be computed.
    """

    gvr: GroupVersionResource
    kind: str
    namespaced: bool
    subresources: Mapping[str, GroupVersionKind] = field(default_factory=dict, hash=False)
    storage: str = ""
    served: bool = True

    def __post_init__(self) -> None:
        if not self.storage:  # default: a storage of its own, keyed like the built-in ones
            object.__setattr__(self, "storage", storage_key(self.gvr.group, self.gvr.resource))

    @property
    def gvk(self) -> GroupVersionKind:
        """The group/version/kind of the main resource."""
        return GroupVersionKind(self.gvr.group, self.gvr.version, self.kind)


class ResourceTable:
    """An immutable, ordered set of :class:`ResourceInfo` with lookups by kind and resource.

    Order is registration order: it decides which resource a kind maps to when several share
    one, and the order of :meth:`equivalents`.
    """

    def __init__(self, infos: Iterable[ResourceInfo] = ()) -> None:
        ordered: dict[GroupVersionResource, ResourceInfo] = {}
        for info in infos:
            ordered[info.gvr] = info  # a later entry replaces an earlier one in place
        self._infos: tuple[ResourceInfo, ...] = tuple(ordered.values())
        self._by_resource = ordered
        self._by_kind: dict[GroupVersionKind, ResourceInfo] = {}
        self._by_storage: dict[str, list[ResourceInfo]] = {}
        for info in self._infos:
            self._by_kind.setdefault(info.gvk, info)
            self._by_storage.setdefault(info.storage, []).append(info)

    def __iter__(self) -> Iterator[ResourceInfo]:
        return iter(self._infos)

    def __len__(self) -> int:
        return len(self._infos)

    def by_kind(self, group: str, version: str, kind: str) -> ResourceInfo | None:
        """Return the resource whose main kind is ``group/version, Kind=kind``, or None."""
        return self._by_kind.get(GroupVersionKind(group, version, kind))

    def by_resource(self, group: str, version: str, resource: str) -> ResourceInfo | None:
        """Return the resource registered under ``group/version/resource`` (plural), or None."""
        return self._by_resource.get(GroupVersionResource(group, version, resource))

    def kind_for(self, gvr: GroupVersionResource, subresource: str) -> GroupVersionKind | None:
        """Return the kind registered for ``gvr`` and ``subresource`` (``""``: the main kind)."""
        info = self._by_resource.get(gvr)
        if info is None:
            return None
        if subresource == "":
            return info.gvk
        return info.subresources.get(subresource)

    def equivalents(self, gvr: GroupVersionResource, subresource: str = "") -> list[GroupVersionResource]:
        """Return every resource sharing ``gvr``'s storage, in registration order, ``gvr`` included.

        Like the apiserver's ``EquivalentResourcesFor``, a non-empty ``subresource`` keeps only
        the resources that have that subresource. Unknown ``gvr`` → ``[]``.
        """
        info = self._by_resource.get(gvr)
        if info is None:
            return []
        return [
            other.gvr
            for other in self._by_storage[info.storage]
            if subresource == "" or subresource in other.subresources
        ]

    def with_resource(self, info: ResourceInfo) -> ResourceTable:
        """Return a new table with ``info`` added (replacing an entry with the same GVR)."""
        return ResourceTable((*self._infos, info))

    def with_custom_resources(self, crds: Iterable[Mapping[str, Any]]) -> ResourceTable:
        """Return a new table with every served version of each CustomResourceDefinition.

        Accepts the ``apiextensions.k8s.io/v1`` shape (``spec.versions[].subresources``) and the
        ``v1beta1`` one (``spec.version`` and/or ``spec.versions``, top-level
        ``spec.subresources``). Documents too malformed to name a group and kind are skipped.
        """
        added: list[ResourceInfo] = []
        for crd in crds:
            added.extend(_crd_resources(crd))
        return ResourceTable((*self._infos, *added))


# --------------------------------------------------------------------------------------------
# Built-in data
#
# One row per resource: (group/version, plural, Kind, namespaced, subresources, availability).
#
# subresources: space-separated entries
#   name              kind of the main resource (status, log, finalize, ...)
#   name=Kind         Kind in the row's own group/version (exec=PodExecOptions)
#   name=g/v/Kind     explicit group/version (scale=autoscaling/v1/Scale)
#   ...@1.33          the subresource exists from that Kubernetes minor version on
# availability:
#   ""                served by every version of the table
#   "1.30"            served from 1.30 on, absent before
#   "<1.16"           served before 1.16 only; kept (served=False) for equivalence
#   "off" / "off 1.32"  present (from 1.32) but not served unless switched on
# Rows of one storage are in registration order, preferred version first.

_NS, _CL = True, False
_SCALE = "scale=autoscaling/v1/Scale"
_POD_SUBRESOURCES = (
    "status binding=Binding eviction=policy/v1/Eviction exec=PodExecOptions attach=PodAttachOptions"
    " portforward=PodPortForwardOptions proxy=PodProxyOptions log ephemeralcontainers resize@1.33"
)

_AR_V1, _AR_V1B1, _AR_V1A1 = (f"admissionregistration.k8s.io/{v}" for v in ("v1", "v1beta1", "v1alpha1"))
_ROLLBACK = "rollback=DeploymentRollback"

_Row = tuple[str, str, str, bool, str, str]

# fmt: off
_BUILTIN: tuple[_Row, ...] = (
    # core
    ("v1", "bindings", "Binding", _NS, "", ""),
    ("v1", "componentstatuses", "ComponentStatus", _CL, "", ""),
    ("v1", "configmaps", "ConfigMap", _NS, "", ""),
    ("v1", "endpoints", "Endpoints", _NS, "", ""),
    ("v1", "events", "Event", _NS, "", ""),
    ("v1", "limitranges", "LimitRange", _NS, "", ""),
    ("v1", "namespaces", "Namespace", _CL, "status finalize", ""),
    ("v1", "nodes", "Node", _CL, "status proxy=NodeProxyOptions", ""),
    ("v1", "persistentvolumeclaims", "PersistentVolumeClaim", _NS, "status", ""),
    ("v1", "persistentvolumes", "PersistentVolume", _CL, "status", ""),
    ("v1", "pods", "Pod", _NS, _POD_SUBRESOURCES, ""),
    ("v1", "podtemplates", "PodTemplate", _NS, "", ""),
    ("v1", "replicationcontrollers", "ReplicationController", _NS, f"status {_SCALE}", ""),
    ("v1", "resourcequotas", "ResourceQuota", _NS, "status", ""),
    ("v1", "secrets", "Secret", _NS, "", ""),
    ("v1", "serviceaccounts", "ServiceAccount", _NS, "token=authentication.k8s.io/v1/TokenRequest", ""),
    ("v1", "services", "Service", _NS, "status proxy=ServiceProxyOptions", ""),
    # admissionregistration.k8s.io
    (_AR_V1, "mutatingadmissionpolicies", "MutatingAdmissionPolicy", _CL, "", "1.36"),
    (_AR_V1, "mutatingadmissionpolicybindings", "MutatingAdmissionPolicyBinding", _CL, "", "1.36"),
    (_AR_V1, "mutatingwebhookconfigurations", "MutatingWebhookConfiguration", _CL, "", ""),
    (_AR_V1, "validatingadmissionpolicies", "ValidatingAdmissionPolicy", _CL, "status", "1.30"),
    (_AR_V1, "validatingadmissionpolicybindings", "ValidatingAdmissionPolicyBinding", _CL, "", "1.30"),
    (_AR_V1, "validatingwebhookconfigurations", "ValidatingWebhookConfiguration", _CL, "", ""),
    (_AR_V1B1, "mutatingadmissionpolicies", "MutatingAdmissionPolicy", _CL, "", "off 1.34"),
    (_AR_V1B1, "mutatingadmissionpolicybindings", "MutatingAdmissionPolicyBinding", _CL, "", "off 1.34"),
    (_AR_V1B1, "validatingadmissionpolicies", "ValidatingAdmissionPolicy", _CL, "status", "off 1.28"),
    (_AR_V1B1, "validatingadmissionpolicybindings", "ValidatingAdmissionPolicyBinding", _CL, "", "off 1.28"),
    (_AR_V1A1, "mutatingadmissionpolicies", "MutatingAdmissionPolicy", _CL, "", "off 1.32"),
    (_AR_V1A1, "mutatingadmissionpolicybindings", "MutatingAdmissionPolicyBinding", _CL, "", "off 1.32"),
    (_AR_V1A1, "validatingadmissionpolicies", "ValidatingAdmissionPolicy", _CL, "status", "off"),
    (_AR_V1A1, "validatingadmissionpolicybindings", "ValidatingAdmissionPolicyBinding", _CL, "", "off"),
    # apiextensions.k8s.io, apiregistration.k8s.io
    ("apiextensions.k8s.io/v1", "customresourcedefinitions", "CustomResourceDefinition", _CL, "status", ""),
    ("apiregistration.k8s.io/v1", "apiservices", "APIService", _CL, "status", ""),
    # apps (then apps/v1beta2, apps/v1beta1; extensions/v1beta1 is at the end)
    ("apps/v1", "controllerrevisions", "ControllerRevision", _NS, "", ""),
    ("apps/v1", "daemonsets", "DaemonSet", _NS, "status", ""),
    ("apps/v1", "deployments", "Deployment", _NS, f"status {_SCALE}", ""),
    ("apps/v1", "replicasets", "ReplicaSet", _NS, f"status {_SCALE}", ""),
    ("apps/v1", "statefulsets", "StatefulSet", _NS, f"status {_SCALE}", ""),
    ("apps/v1beta2", "controllerrevisions", "ControllerRevision", _NS, "", "<1.16"),
    ("apps/v1beta2", "daemonsets", "DaemonSet", _NS, "status", "<1.16"),
    ("apps/v1beta2", "deployments", "Deployment", _NS, "status scale=Scale", "<1.16"),
    ("apps/v1beta2", "replicasets", "ReplicaSet", _NS, "status scale=Scale", "<1.16"),
    ("apps/v1beta2", "statefulsets", "StatefulSet", _NS, "status scale=Scale", "<1.16"),
    ("apps/v1beta1", "controllerrevisions", "ControllerRevision", _NS, "", "<1.16"),
    ("apps/v1beta1", "deployments", "Deployment", _NS, f"status scale=Scale {_ROLLBACK}", "<1.16"),
    ("apps/v1beta1", "statefulsets", "StatefulSet", _NS, "status scale=Scale", "<1.16"),
    # authentication.k8s.io, authorization.k8s.io
    ("authentication.k8s.io/v1", "selfsubjectreviews", "SelfSubjectReview", _CL, "", ""),
    ("authentication.k8s.io/v1", "tokenreviews", "TokenReview", _CL, "", ""),
    ("authorization.k8s.io/v1", "localsubjectaccessreviews", "LocalSubjectAccessReview", _NS, "", ""),
    ("authorization.k8s.io/v1", "selfsubjectaccessreviews", "SelfSubjectAccessReview", _CL, "", ""),
    ("authorization.k8s.io/v1", "selfsubjectrulesreviews", "SelfSubjectRulesReview", _CL, "", ""),
    ("authorization.k8s.io/v1", "subjectaccessreviews", "SubjectAccessReview", _CL, "", ""),
    # autoscaling
    ("autoscaling/v2", "horizontalpodautoscalers", "HorizontalPodAutoscaler", _NS, "status", ""),
    ("autoscaling/v1", "horizontalpodautoscalers", "HorizontalPodAutoscaler", _NS, "status", ""),
    ("autoscaling/v2beta2", "horizontalpodautoscalers", "HorizontalPodAutoscaler", _NS, "status", "<1.26"),
    ("autoscaling/v2beta1", "horizontalpodautoscalers", "HorizontalPodAutoscaler", _NS, "status", "<1.25"),
    # batch
    ("batch/v1", "cronjobs", "CronJob", _NS, "status", ""),
    ("batch/v1", "jobs", "Job", _NS, "status", ""),
    ("batch/v1beta1", "cronjobs", "CronJob", _NS, "status", "<1.25"),
    # certificates.k8s.io (ClusterTrustBundle, PodCertificateRequest GA in 1.37; their v1beta1 is off by default),
    # coordination.k8s.io, discovery.k8s.io
    ("certificates.k8s.io/v1", "certificatesigningrequests", "CertificateSigningRequest", _CL,
     "status approval", ""),
    ("certificates.k8s.io/v1", "clustertrustbundles", "ClusterTrustBundle", _CL, "", "1.37"),
    ("certificates.k8s.io/v1", "podcertificaterequests", "PodCertificateRequest", _NS, "status", "1.37"),
    ("certificates.k8s.io/v1beta1", "clustertrustbundles", "ClusterTrustBundle", _CL, "", "off 1.33"),
    ("certificates.k8s.io/v1beta1", "podcertificaterequests", "PodCertificateRequest", _NS, "status", "off 1.35"),
    ("coordination.k8s.io/v1", "leases", "Lease", _NS, "", ""),
    ("discovery.k8s.io/v1", "endpointslices", "EndpointSlice", _NS, "", ""),
    # events.k8s.io (same storage as core v1 events)
    ("events.k8s.io/v1", "events", "Event", _NS, "", ""),
    ("events.k8s.io/v1beta1", "events", "Event", _NS, "", "<1.25"),
    # flowcontrol.apiserver.k8s.io
    ("flowcontrol.apiserver.k8s.io/v1", "flowschemas", "FlowSchema", _CL, "status", "1.29"),
    ("flowcontrol.apiserver.k8s.io/v1", "prioritylevelconfigurations", "PriorityLevelConfiguration", _CL,
     "status", "1.29"),
    ("flowcontrol.apiserver.k8s.io/v1beta3", "flowschemas", "FlowSchema", _CL, "status", "<1.32"),
    ("flowcontrol.apiserver.k8s.io/v1beta3", "prioritylevelconfigurations", "PriorityLevelConfiguration", _CL,
     "status", "<1.32"),
    ("flowcontrol.apiserver.k8s.io/v1beta2", "flowschemas", "FlowSchema", _CL, "status", "<1.29"),
    ("flowcontrol.apiserver.k8s.io/v1beta2", "prioritylevelconfigurations", "PriorityLevelConfiguration", _CL,
     "status", "<1.29"),
    # networking.k8s.io
    ("networking.k8s.io/v1", "ingressclasses", "IngressClass", _CL, "", ""),
    ("networking.k8s.io/v1", "ingresses", "Ingress", _NS, "status", ""),
    ("networking.k8s.io/v1", "ipaddresses", "IPAddress", _CL, "", "1.33"),
    ("networking.k8s.io/v1", "networkpolicies", "NetworkPolicy", _NS, "", ""),
    ("networking.k8s.io/v1", "servicecidrs", "ServiceCIDR", _CL, "status", "1.33"),
    ("networking.k8s.io/v1beta1", "ingressclasses", "IngressClass", _CL, "", "<1.22"),
    ("networking.k8s.io/v1beta1", "ingresses", "Ingress", _NS, "status", "<1.22"),
    # node.k8s.io, policy, rbac.authorization.k8s.io
    ("node.k8s.io/v1", "runtimeclasses", "RuntimeClass", _CL, "", ""),
    ("policy/v1", "poddisruptionbudgets", "PodDisruptionBudget", _NS, "status", ""),
    ("policy/v1beta1", "poddisruptionbudgets", "PodDisruptionBudget", _NS, "status", "<1.25"),
    ("rbac.authorization.k8s.io/v1", "clusterrolebindings", "ClusterRoleBinding", _CL, "", ""),
    ("rbac.authorization.k8s.io/v1", "clusterroles", "ClusterRole", _CL, "", ""),
    ("rbac.authorization.k8s.io/v1", "rolebindings", "RoleBinding", _NS, "", ""),
    ("rbac.authorization.k8s.io/v1", "roles", "Role", _NS, "", ""),
    # resource.k8s.io (GA in 1.34; DeviceTaintRule GA in 1.37)
    ("resource.k8s.io/v1", "deviceclasses", "DeviceClass", _CL, "", "1.34"),
    ("resource.k8s.io/v1", "devicetaintrules", "DeviceTaintRule", _CL, "status", "1.37"),
    ("resource.k8s.io/v1", "resourceclaims", "ResourceClaim", _NS, "status", "1.34"),
    ("resource.k8s.io/v1", "resourceclaimtemplates", "ResourceClaimTemplate", _NS, "", "1.34"),
    ("resource.k8s.io/v1", "resourceslices", "ResourceSlice", _CL, "", "1.34"),
    # scheduling.k8s.io, storage.k8s.io
    ("scheduling.k8s.io/v1", "priorityclasses", "PriorityClass", _CL, "", ""),
    ("storage.k8s.io/v1", "csidrivers", "CSIDriver", _CL, "", ""),
    ("storage.k8s.io/v1", "csinodes", "CSINode", _CL, "", ""),
    ("storage.k8s.io/v1", "csistoragecapacities", "CSIStorageCapacity", _NS, "", ""),
    ("storage.k8s.io/v1", "storageclasses", "StorageClass", _CL, "", ""),
    ("storage.k8s.io/v1", "volumeattachments", "VolumeAttachment", _CL, "status", ""),
    ("storage.k8s.io/v1", "volumeattributesclasses", "VolumeAttributesClass", _CL, "", "1.34"),
    # extensions/v1beta1: shares storage with apps and networking.k8s.io
    ("extensions/v1beta1", "daemonsets", "DaemonSet", _NS, "status", "<1.16"),
    ("extensions/v1beta1", "deployments", "Deployment", _NS, f"status scale=Scale {_ROLLBACK}", "<1.16"),
    ("extensions/v1beta1", "ingresses", "Ingress", _NS, "status", "<1.22"),
    ("extensions/v1beta1", "networkpolicies", "NetworkPolicy", _NS, "", "<1.16"),
    ("extensions/v1beta1", "replicasets", "ReplicaSet", _NS, "status scale=Scale", "<1.16"),
)
# fmt: on

# Resources of one group stored together with those of another (kube-apiserver's
# "cohabitating resources"); everything else is keyed by its own group.
_STORAGE_GROUP: Mapping[tuple[str, str], str] = {
    ("extensions", "daemonsets"): "apps",
    ("extensions", "deployments"): "apps",
    ("extensions", "replicasets"): "apps",
    ("extensions", "ingresses"): "networking.k8s.io",
    ("extensions", "networkpolicies"): "networking.k8s.io",
    ("events.k8s.io", "events"): "",
}

_Version = tuple[int, int]
_VERSION_RE = re.compile(r"^\s*v?(\d+)\.(\d+)(?:[.\-+].*)?\s*$")


def _parse_version(text: str) -> _Version:
    """``"1.34"``, ``"v1.34.2"`` → ``(1, 34)``; anything else raises ValueError."""
    match = _VERSION_RE.match(text)
    if match is None:
        raise ValueError(f'invalid Kubernetes version {text!r}: want MAJOR.MINOR, e.g. "1.34"')
    return int(match.group(1)), int(match.group(2))


def _split_gv(group_version: str) -> tuple[str, str]:
    """``"apps/v1"`` → ``("apps", "v1")``; ``"v1"`` → ``("", "v1")``."""
    group, _, version = group_version.rpartition("/")
    return group, version


def storage_key(group: str, resource: str) -> str:
    """Return the equivalence key of a group and plural resource (``"apps/deployments"``)."""
    group = _STORAGE_GROUP.get((group, resource), group)
    return f"{group or 'core'}/{resource}"


def _availability(spec: str, version: _Version) -> tuple[bool, bool]:
    """Evaluate an availability column for ``version``: ``(present, served)``."""
    words = spec.split()
    off = bool(words) and words[0] == "off"
    if off:
        words = words[1:]
    if not words:
        return True, not off
    bound = words[0]
    if bound.startswith("<"):
        return True, version < _parse_version(bound[1:])
    present = version >= _parse_version(bound)
    return present, present and not off


def _subresources(
    spec: str, group: str, version: str, kind: str, at: _Version
) -> dict[str, GroupVersionKind]:
    """Parse a subresource column (see the legend above) for Kubernetes version ``at``."""
    result: dict[str, GroupVersionKind] = {}
    for entry in spec.split():
        entry, _, since = entry.partition("@")
        if since and at < _parse_version(since):
            continue
        name, _, target = entry.partition("=")
        if not target:
            result[name] = GroupVersionKind(group, version, kind)
        elif "/" in target:
            gv, _, sub_kind = target.rpartition("/")
            result[name] = GroupVersionKind(*_split_gv(gv), sub_kind)
        else:
            result[name] = GroupVersionKind(group, version, target)
    return result


@lru_cache(maxsize=16)
def _builtin_for(version: _Version) -> ResourceTable:
    infos = []
    for group_version, resource, kind, namespaced, subresources, availability in _BUILTIN:
        present, served = _availability(availability, version)
        if not present:
            continue
        group, ver = _split_gv(group_version)
        infos.append(
            ResourceInfo(
                gvr=GroupVersionResource(group, ver, resource),
                kind=kind,
                namespaced=namespaced,
                subresources=MappingProxyType(_subresources(subresources, group, ver, kind, version)),
                storage=storage_key(group, resource),
                served=served,
            )
        )
    return ResourceTable(infos)


def builtin_table(kubernetes_version: str = "1.34") -> ResourceTable:
    """Return the built-in resources of a kube-apiserver of that version (cached).

    Accepts ``"1.34"``, ``"v1.34"`` or ``"1.34.2"``; raises ValueError for anything else.
    Resources added after that version are absent; removed or switched-off versions are
    present with ``served=False`` where they share storage with a served resource.
    """
    return _builtin_for(_parse_version(kubernetes_version))


# --------------------------------------------------------------------------------------------
# CustomResourceDefinitions


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _crd_subresources(
    subresources: Mapping[str, Any], group: str, version: str, kind: str
) -> dict[str, GroupVersionKind]:
    """``status`` and ``scale`` of a CRD version; ``{}`` (unlike a null) switches one on."""
    result: dict[str, GroupVersionKind] = {}
    if subresources.get("status") is not None:
        result["status"] = GroupVersionKind(group, version, kind)
    if subresources.get("scale") is not None:
        result["scale"] = GroupVersionKind("autoscaling", "v1", "Scale")
    return result


def _crd_resources(crd: Mapping[str, Any]) -> list[ResourceInfo]:
    """The resources one CustomResourceDefinition serves (both v1 and v1beta1 shapes)."""
    spec = _mapping(_mapping(crd).get("spec"))
    names = _mapping(spec.get("names"))
    group, kind, plural = spec.get("group"), names.get("kind"), names.get("plural")
    if not (isinstance(group, str) and group and isinstance(kind, str) and kind):
        return []
    if not (isinstance(plural, str) and plural):
        plural = guess_resource(kind)
    # v1 requires scope; v1beta1 defaulted it to Namespaced.
    namespaced = spec.get("scope") != "Cluster"
    shared_subresources = spec.get("subresources")  # v1beta1: one block for every version
    versions = spec.get("versions")
    if not isinstance(versions, list) or not versions:
        single = spec.get("version")  # v1beta1 single-version form
        versions = [{"name": single, "served": True}] if isinstance(single, str) and single else []

    infos = []
    for entry in versions:
        entry = _mapping(entry)
        name = entry.get("name")
        if not (isinstance(name, str) and name) or entry.get("served") is not True:
            continue
        block = entry.get("subresources")
        if block is None:
            block = shared_subresources
        infos.append(
            ResourceInfo(
                gvr=GroupVersionResource(group, name, plural),
                kind=kind,
                namespaced=namespaced,
                subresources=MappingProxyType(_crd_subresources(_mapping(block), group, name, kind)),
                storage=f"{group}/{plural}",
            )
        )
    return infos


# --------------------------------------------------------------------------------------------
# Guessing

# Kinds ending in these are the same in singular and plural (apimachinery's list).
_UNPLURALIZED_SUFFIXES = ("endpoints",)


def guess_resource(kind: str) -> str:
    """Guess the plural resource of a kind the way apimachinery's ``UnsafeGuessKindToResource`` does.

    Lowercase the kind; a name ending in ``endpoints`` stays as is; a final ``s`` takes
    ``es``; a final ``y`` becomes ``ies`` (whatever precedes it, so ``Gateway`` →
    ``gatewaies``, exactly as upstream); anything else takes ``s``. ``""`` → ``""``.
    """
    name = kind.lower()
    if not name or name.endswith(_UNPLURALIZED_SUFFIXES):
        return name
    if name.endswith("s"):
        return name + "es"
    if name.endswith("y"):
        return name[:-1] + "ies"
    return name + "s"
