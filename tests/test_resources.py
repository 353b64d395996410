"""Tests of the built-in resource table (app/vap/resources.py).

Expected values come from kube-apiserver's discovery documents (api/discovery/*.json in
kubernetes/kubernetes) and apimachinery's UnsafeGuessKindToResource.
"""

from __future__ import annotations

import pytest

from app.vap.resources import (
    GroupVersionKind,
    GroupVersionResource,
    ResourceInfo,
    ResourceTable,
    builtin_table,
    guess_resource,
)

GVR = GroupVersionResource
GVK = GroupVersionKind
AR = "admissionregistration.k8s.io"
FC = "flowcontrol.apiserver.k8s.io"


@pytest.fixture(scope="module")
def table() -> ResourceTable:
    return builtin_table("1.34")


# -- by kind ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("group", "version", "kind", "resource", "namespaced"),
    [
        ("", "v1", "Pod", "pods", True),
        ("", "v1", "Namespace", "namespaces", False),
        ("", "v1", "Endpoints", "endpoints", True),
        ("", "v1", "Binding", "bindings", True),
        ("apps", "v1", "Deployment", "deployments", True),
        ("batch", "v1", "CronJob", "cronjobs", True),
        ("networking.k8s.io", "v1", "IngressClass", "ingressclasses", False),
        ("networking.k8s.io", "v1", "NetworkPolicy", "networkpolicies", True),
        ("policy", "v1", "PodDisruptionBudget", "poddisruptionbudgets", True),
        ("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding", "clusterrolebindings", False),
        ("storage.k8s.io", "v1", "CSIStorageCapacity", "csistoragecapacities", True),
        (AR, "v1", "ValidatingAdmissionPolicy", "validatingadmissionpolicies", False),
        ("apiextensions.k8s.io", "v1", "CustomResourceDefinition", "customresourcedefinitions", False),
        ("apiregistration.k8s.io", "v1", "APIService", "apiservices", False),
        ("authorization.k8s.io", "v1", "LocalSubjectAccessReview", "localsubjectaccessreviews", True),
        ("authorization.k8s.io", "v1", "SubjectAccessReview", "subjectaccessreviews", False),
        ("authentication.k8s.io", "v1", "SelfSubjectReview", "selfsubjectreviews", False),
        (FC, "v1", "PriorityLevelConfiguration", "prioritylevelconfigurations", False),
        ("resource.k8s.io", "v1", "ResourceClaimTemplate", "resourceclaimtemplates", True),
        ("events.k8s.io", "v1", "Event", "events", True),
        ("autoscaling", "v2", "HorizontalPodAutoscaler", "horizontalpodautoscalers", True),
        ("certificates.k8s.io", "v1", "CertificateSigningRequest", "certificatesigningrequests", False),
    ],
)
def test_by_kind(table, group, version, kind, resource, namespaced):
    info = table.by_kind(group, version, kind)
    assert info is not None
    assert info.gvr == GVR(group, version, resource)
    assert info.kind == kind
    assert info.namespaced is namespaced
    assert info.served is True


@pytest.mark.parametrize(
    ("group", "version", "kind"),
    [
        ("", "v1", "Widget"),
        ("apps", "v2", "Deployment"),  # no such version
        ("", "v1", "Deployment"),  # wrong group
        ("apps", "v1", "deployment"),  # kinds are case-sensitive
        ("", "v1", "PodExecOptions"),  # a subresource kind is not a resource
    ],
)
def test_by_kind_unknown(table, group, version, kind):
    assert table.by_kind(group, version, kind) is None


# -- by resource ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("group", "version", "resource", "kind"),
    [
        ("", "v1", "pods", "Pod"),
        ("", "v1", "componentstatuses", "ComponentStatus"),
        ("apps", "v1", "statefulsets", "StatefulSet"),
        ("discovery.k8s.io", "v1", "endpointslices", "EndpointSlice"),
        ("coordination.k8s.io", "v1", "leases", "Lease"),
        ("node.k8s.io", "v1", "runtimeclasses", "RuntimeClass"),
        ("scheduling.k8s.io", "v1", "priorityclasses", "PriorityClass"),
        ("storage.k8s.io", "v1", "volumeattributesclasses", "VolumeAttributesClass"),
        ("networking.k8s.io", "v1", "servicecidrs", "ServiceCIDR"),
    ],
)
def test_by_resource(table, group, version, resource, kind):
    info = table.by_resource(group, version, resource)
    assert info is not None
    assert info.kind == kind


@pytest.mark.parametrize(
    ("group", "version", "resource"),
    [
        ("", "v1", "pod"),  # singular
        ("", "v1", "Pods"),  # case-sensitive
        ("", "v1", "pods/status"),  # subresources are not resources
        ("apps", "v1", "widgets"),
        ("example.com", "v1", "widgets"),
    ],
)
def test_by_resource_unknown(table, group, version, resource):
    assert table.by_resource(group, version, resource) is None


# -- subresources -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("gvr", "subresource", "kind"),
    [
        (GVR("", "v1", "pods"), "", GVK("", "v1", "Pod")),
        (GVR("", "v1", "pods"), "status", GVK("", "v1", "Pod")),
        (GVR("", "v1", "pods"), "exec", GVK("", "v1", "PodExecOptions")),
        (GVR("", "v1", "pods"), "attach", GVK("", "v1", "PodAttachOptions")),
        (GVR("", "v1", "pods"), "portforward", GVK("", "v1", "PodPortForwardOptions")),
        (GVR("", "v1", "pods"), "proxy", GVK("", "v1", "PodProxyOptions")),
        (GVR("", "v1", "pods"), "eviction", GVK("policy", "v1", "Eviction")),
        (GVR("", "v1", "pods"), "binding", GVK("", "v1", "Binding")),
        (GVR("", "v1", "pods"), "log", GVK("", "v1", "Pod")),
        (GVR("", "v1", "pods"), "ephemeralcontainers", GVK("", "v1", "Pod")),
        (GVR("", "v1", "pods"), "resize", GVK("", "v1", "Pod")),
        (GVR("", "v1", "services"), "proxy", GVK("", "v1", "ServiceProxyOptions")),
        (GVR("", "v1", "nodes"), "proxy", GVK("", "v1", "NodeProxyOptions")),
        (GVR("", "v1", "namespaces"), "finalize", GVK("", "v1", "Namespace")),
        (GVR("", "v1", "serviceaccounts"), "token", GVK("authentication.k8s.io", "v1", "TokenRequest")),
        (GVR("", "v1", "replicationcontrollers"), "scale", GVK("autoscaling", "v1", "Scale")),
        (GVR("apps", "v1", "deployments"), "scale", GVK("autoscaling", "v1", "Scale")),
        (GVR("apps", "v1", "statefulsets"), "status", GVK("apps", "v1", "StatefulSet")),
        (GVR("apps", "v1beta1", "deployments"), "scale", GVK("apps", "v1beta1", "Scale")),
        (GVR("apps", "v1beta2", "replicasets"), "scale", GVK("apps", "v1beta2", "Scale")),
        (GVR("extensions", "v1beta1", "deployments"), "scale", GVK("extensions", "v1beta1", "Scale")),
        (GVR("extensions", "v1beta1", "deployments"), "rollback",
         GVK("extensions", "v1beta1", "DeploymentRollback")),
        (GVR("certificates.k8s.io", "v1", "certificatesigningrequests"), "approval",
         GVK("certificates.k8s.io", "v1", "CertificateSigningRequest")),
        (GVR("batch", "v1", "jobs"), "status", GVK("batch", "v1", "Job")),
        (GVR(AR, "v1", "validatingadmissionpolicies"), "status",
         GVK(AR, "v1", "ValidatingAdmissionPolicy")),
    ],
)  # fmt: skip
def test_kind_for(table, gvr, subresource, kind):
    assert table.kind_for(gvr, subresource) == kind


@pytest.mark.parametrize(
    ("gvr", "subresource"),
    [
        (GVR("", "v1", "pods"), "scale"),
        (GVR("", "v1", "configmaps"), "status"),
        (GVR("apps", "v1", "deployments"), "rollback"),  # only the old versions had it
        (GVR("networking.k8s.io", "v1", "networkpolicies"), "status"),
        (GVR("", "v1", "widgets"), ""),
    ],
)
def test_kind_for_unknown(table, gvr, subresource):
    assert table.kind_for(gvr, subresource) is None


def test_subresources_are_read_only(table):
    info = table.by_resource("", "v1", "pods")
    with pytest.raises(TypeError):
        info.subresources["hack"] = GVK("", "v1", "Pod")  # type: ignore[index]


# -- equivalence ------------------------------------------------------------------------------

DEPLOYMENTS = [
    GVR("apps", "v1", "deployments"),
    GVR("apps", "v1beta2", "deployments"),
    GVR("apps", "v1beta1", "deployments"),
    GVR("extensions", "v1beta1", "deployments"),
]


@pytest.mark.parametrize("gvr", DEPLOYMENTS)
def test_deployments_equivalent_from_any_version(table, gvr):
    assert table.equivalents(gvr) == DEPLOYMENTS


@pytest.mark.parametrize(
    ("gvr", "expected"),
    [
        (GVR("", "v1", "events"), [
            GVR("", "v1", "events"), GVR("events.k8s.io", "v1", "events"),
            GVR("events.k8s.io", "v1beta1", "events"),
        ]),
        (GVR("apps", "v1", "statefulsets"), [
            GVR("apps", "v1", "statefulsets"), GVR("apps", "v1beta2", "statefulsets"),
            GVR("apps", "v1beta1", "statefulsets"),
        ]),
        (GVR("apps", "v1", "daemonsets"), [
            GVR("apps", "v1", "daemonsets"), GVR("apps", "v1beta2", "daemonsets"),
            GVR("extensions", "v1beta1", "daemonsets"),
        ]),
        (GVR("networking.k8s.io", "v1", "ingresses"), [
            GVR("networking.k8s.io", "v1", "ingresses"), GVR("networking.k8s.io", "v1beta1", "ingresses"),
            GVR("extensions", "v1beta1", "ingresses"),
        ]),
        (GVR("batch", "v1", "cronjobs"), [
            GVR("batch", "v1", "cronjobs"), GVR("batch", "v1beta1", "cronjobs"),
        ]),
        (GVR("autoscaling", "v1", "horizontalpodautoscalers"), [
            GVR("autoscaling", v, "horizontalpodautoscalers") for v in ("v2", "v1", "v2beta2", "v2beta1")
        ]),
        (GVR("policy", "v1", "poddisruptionbudgets"), [
            GVR("policy", "v1", "poddisruptionbudgets"), GVR("policy", "v1beta1", "poddisruptionbudgets"),
        ]),
        (GVR(AR, "v1", "validatingadmissionpolicybindings"), [
            GVR(AR, v, "validatingadmissionpolicybindings")
            for v in ("v1", "v1beta1", "v1alpha1")
        ]),
        (GVR("", "v1", "configmaps"), [GVR("", "v1", "configmaps")]),
        (GVR("", "v1", "widgets"), []),
    ],
)  # fmt: skip
def test_equivalents(table, gvr, expected):
    assert table.equivalents(gvr) == expected


def test_equivalents_of_a_subresource_keep_only_resources_that_have_it(table):
    gvr = GVR("apps", "v1", "deployments")
    assert table.equivalents(gvr, "scale") == DEPLOYMENTS
    assert table.equivalents(gvr, "rollback") == [
        GVR("apps", "v1beta1", "deployments"),
        GVR("extensions", "v1beta1", "deployments"),
    ]
    assert table.kind_for(GVR("apps", "v1beta2", "deployments"), "scale") == GVK("apps", "v1beta2", "Scale")


@pytest.mark.parametrize(
    ("gvr", "served"),
    [
        (GVR("apps", "v1", "deployments"), True),
        (GVR("extensions", "v1beta1", "deployments"), False),  # removed in 1.16, kept for equivalence
        (GVR(AR, "v1beta1", "validatingadmissionpolicies"), False),  # off by default
        (GVR("events.k8s.io", "v1", "events"), True),
    ],
)
def test_served(table, gvr, served):
    assert table.by_resource(gvr.group, gvr.version, gvr.resource).served is served


# -- Kubernetes versions ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("version", "gvr", "present", "served"),
    [
        ("1.28", GVR(AR, "v1", "validatingadmissionpolicies"), False, False),
        ("1.30", GVR(AR, "v1", "validatingadmissionpolicies"), True, True),
        ("1.35", GVR(AR, "v1", "mutatingadmissionpolicies"), False, False),
        ("1.36", GVR(AR, "v1", "mutatingadmissionpolicies"), True, True),
        ("1.33", GVR("resource.k8s.io", "v1", "resourceclaims"), False, False),
        ("v1.34.2", GVR("resource.k8s.io", "v1", "resourceclaims"), True, True),
        ("1.28", GVR("flowcontrol.apiserver.k8s.io", "v1beta3", "flowschemas"), True, True),
        ("1.32", GVR("flowcontrol.apiserver.k8s.io", "v1beta3", "flowschemas"), True, False),
        ("1.28", GVR("flowcontrol.apiserver.k8s.io", "v1", "flowschemas"), False, False),
        # certificates.k8s.io: ClusterTrustBundle and PodCertificateRequest GA in 1.37, beta (off) before
        ("1.36", GVR("certificates.k8s.io", "v1", "clustertrustbundles"), False, False),
        ("1.37", GVR("certificates.k8s.io", "v1", "clustertrustbundles"), True, True),
        ("1.36", GVR("certificates.k8s.io", "v1", "podcertificaterequests"), False, False),
        ("1.37", GVR("certificates.k8s.io", "v1", "podcertificaterequests"), True, True),
        ("1.36", GVR("certificates.k8s.io", "v1beta1", "clustertrustbundles"), True, False),
        ("1.37", GVR("certificates.k8s.io", "v1beta1", "podcertificaterequests"), True, False),
        ("1.34", GVR("certificates.k8s.io", "v1beta1", "podcertificaterequests"), False, False),
        # resource.k8s.io: DeviceTaintRule GA in 1.37
        ("1.36", GVR("resource.k8s.io", "v1", "devicetaintrules"), False, False),
        ("1.37", GVR("resource.k8s.io", "v1", "devicetaintrules"), True, True),
    ],
)
def test_kubernetes_versions(version, gvr, present, served):
    info = builtin_table(version).by_resource(gvr.group, gvr.version, gvr.resource)
    assert (info is not None) == present
    assert (info is not None and info.served) == served


def test_new_resources_in_1_37():
    table = builtin_table("1.37")
    pcr = table.by_kind("certificates.k8s.io", "v1", "PodCertificateRequest")
    assert pcr is not None and pcr.namespaced is True
    assert table.kind_for(pcr.gvr, "status") == GVK("certificates.k8s.io", "v1", "PodCertificateRequest")
    ctb = table.by_kind("certificates.k8s.io", "v1", "ClusterTrustBundle")
    assert ctb is not None and ctb.namespaced is False and not ctb.subresources
    assert table.equivalents(ctb.gvr) == [ctb.gvr, GVR("certificates.k8s.io", "v1beta1", "clustertrustbundles")]
    rule = table.by_kind("resource.k8s.io", "v1", "DeviceTaintRule")
    assert rule is not None and rule.namespaced is False
    assert table.kind_for(rule.gvr, "status") == GVK("resource.k8s.io", "v1", "DeviceTaintRule")


def test_pod_resize_since_1_33():
    pods = GVR("", "v1", "pods")
    assert builtin_table("1.32").kind_for(pods, "resize") is None
    assert builtin_table("1.33").kind_for(pods, "resize") == GVK("", "v1", "Pod")


def test_builtin_table_is_cached():
    assert builtin_table("1.34") is builtin_table("1.34")
    assert builtin_table() is builtin_table("v1.34")


@pytest.mark.parametrize("version", ["", "latest", "1", "one.two"])
def test_bad_kubernetes_version(version):
    with pytest.raises(ValueError, match="invalid Kubernetes version"):
        builtin_table(version)


# -- custom resources -------------------------------------------------------------------------

CRD_V1 = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {
        "group": "example.com",
        "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
        "scope": "Namespaced",
        "versions": [
            {"name": "v2", "served": True, "storage": True,
             "subresources": {"status": {}, "scale": {"specReplicasPath": ".spec.replicas",
                                                      "statusReplicasPath": ".status.replicas"}}},
            {"name": "v1", "served": True, "storage": False, "subresources": {"status": {}}},
            {"name": "v1alpha1", "served": False, "storage": False},
        ],
    },
}  # fmt: skip

CRD_V1BETA1 = {
    "apiVersion": "apiextensions.k8s.io/v1beta1",
    "kind": "CustomResourceDefinition",
    "spec": {
        "group": "stable.example.com",
        "version": "v1",
        "names": {"plural": "crontabs", "kind": "CronTab"},
        "scope": "Cluster",
        "subresources": {"status": {}, "scale": {"specReplicasPath": ".spec.replicas"}},
    },
}


def test_crd_v1_every_served_version(table):
    extended = table.with_custom_resources([CRD_V1])
    v2 = extended.by_kind("example.com", "v2", "Widget")
    assert v2 is not None and v2.namespaced
    assert v2.gvr == GVR("example.com", "v2", "widgets")
    assert dict(v2.subresources) == {
        "status": GVK("example.com", "v2", "Widget"),
        "scale": GVK("autoscaling", "v1", "Scale"),
    }
    v1 = extended.by_resource("example.com", "v1", "widgets")
    assert dict(v1.subresources) == {"status": GVK("example.com", "v1", "Widget")}
    assert extended.by_resource("example.com", "v1alpha1", "widgets") is None  # not served
    assert extended.equivalents(v1.gvr) == [v2.gvr, v1.gvr]
    assert extended.equivalents(v1.gvr, "scale") == [v2.gvr]
    # the original table is untouched
    assert table.by_kind("example.com", "v2", "Widget") is None
    assert len(extended) == len(table) + 2


def test_crd_v1beta1_shape(table):
    extended = table.with_custom_resources([CRD_V1BETA1])
    info = extended.by_kind("stable.example.com", "v1", "CronTab")
    assert info is not None
    assert info.namespaced is False
    assert info.gvr.resource == "crontabs"
    assert extended.kind_for(info.gvr, "status") == GVK("stable.example.com", "v1", "CronTab")
    assert extended.kind_for(info.gvr, "scale") == GVK("autoscaling", "v1", "Scale")


def test_crd_v1beta1_versions_list_with_shared_subresources(table):
    crd = {
        "spec": {
            "group": "g.example.com",
            "names": {"plural": "things", "kind": "Thing"},
            "versions": [{"name": "v1", "served": True}, {"name": "v1beta1", "served": True}],
            "subresources": {"status": {}},
        }
    }
    extended = table.with_custom_resources([crd])
    for version in ("v1", "v1beta1"):
        info = extended.by_resource("g.example.com", version, "things")
        assert info.namespaced is True  # v1beta1 defaulted scope to Namespaced
        assert set(info.subresources) == {"status"}


@pytest.mark.parametrize(
    "crd",
    [
        {},
        {"spec": None},
        {"spec": {"names": {"kind": "X", "plural": "xs"}, "versions": [{"name": "v1", "served": True}]}},
        {"spec": {"group": "a.b", "names": {"plural": "xs"}, "versions": [{"name": "v1", "served": True}]}},
        {"spec": {"group": "a.b", "names": {"kind": "X"}, "versions": "v1"}},
        {"spec": {"group": "a.b", "names": {"kind": "X"}, "versions": [{"name": "v1"}]}},  # not served
    ],
)
def test_malformed_crds_add_nothing(table, crd):
    assert len(table.with_custom_resources([crd])) == len(table)


def test_crd_without_plural_uses_the_guess(table):
    crd = {"spec": {"group": "x", "names": {"kind": "Policy"}, "versions": [{"name": "v1", "served": True}]}}
    assert table.with_custom_resources([crd]).by_kind("x", "v1", "Policy").gvr.resource == "policies"


def test_with_resource(table):
    gvr = GVR("example.com", "v1", "gizmos")
    extended = table.with_resource(ResourceInfo(gvr=gvr, kind="Gizmo", namespaced=False))
    info = extended.by_kind("example.com", "v1", "Gizmo")
    assert info.gvr == gvr and info.namespaced is False and info.served is True
    assert info.storage == "example.com/gizmos"
    assert extended.equivalents(gvr) == [gvr]
    assert extended.kind_for(gvr, "") == GVK("example.com", "v1", "Gizmo")
    assert table.by_resource("example.com", "v1", "gizmos") is None


def test_with_resource_replaces_same_gvr(table):
    replaced = table.with_resource(ResourceInfo(GVR("", "v1", "configmaps"), "ConfigMap", False))
    assert len(replaced) == len(table)
    assert replaced.by_resource("", "v1", "configmaps").namespaced is False


# -- guessing ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "resource"),
    [
        ("Pod", "pods"),
        ("Deployment", "deployments"),
        ("Ingress", "ingresses"),
        ("Class", "classes"),
        ("NetworkPolicy", "networkpolicies"),
        ("Endpoints", "endpoints"),
        ("CustomEndpoints", "customendpoints"),  # suffix rule
        ("Gateway", "gatewaies"),  # upstream does not look at the letter before "y"
        ("Status", "statuses"),
        ("Box", "boxs"),  # no "x" rule upstream
        ("URLMap", "urlmaps"),
        ("", ""),
    ],
)
def test_guess_resource(kind, resource):
    assert guess_resource(kind) == resource


def test_guess_matches_builtin_plurals_where_upstream_guess_is_right(table):
    # Every built-in plural equals the guess: built-in kinds were named to fit the rule.
    mismatches = [info.gvr for info in table if guess_resource(info.kind) != info.gvr.resource]
    assert mismatches == []
