"""Scheme defaults of core/v1 (app/vap/defaulting/core_v1.py).

Table cases restate the tests of k8s.io/kubernetes ``pkg/apis/core/v1/defaults_test.go``; each names
the Go test function it restates (cases marked "no upstream test" cover a function that test file
does not test on its own). Every case runs the whole object through ``defaulting.apply`` along its
kind's schema, as the apiserver defaults a decoded object.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from app.vap import defaulting
from app.vap.cel.library import SUPPORTED_VERSIONS
from app.vap.changes import render_path
from app.vap.defaulting import core_v1
from app.vap.schemas import schema_set

V136 = (1, 36)


def default(obj: dict[str, Any], version: tuple[int, int] = V136) -> tuple[dict[str, Any], list[Any]]:
    schemas = schema_set(f"{version[0]}.{version[1]}")
    return defaulting.apply(obj, schemas.kind("", "v1", obj["kind"]), schemas, version)


def pod(spec: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", **extra}, "spec": spec}


def service(spec: dict[str, Any], status: dict[str, Any] | None = None) -> dict[str, Any]:
    obj = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}, "spec": spec}
    if status is not None:
        obj["status"] = status
    return obj


def container(**fields: Any) -> dict[str, Any]:
    return {"name": "c", "image": "registry.example/app:1.0", **fields}


def volume_pod(volume: dict[str, Any]) -> dict[str, Any]:
    return pod({"containers": [container()], "volumes": [{"name": "v", **volume}]})


def get(obj: Any, path: str) -> Any:
    for part in path.split("."):
        obj = obj[int(part)] if isinstance(obj, list) else obj[part]
    return obj


MISSING = object()


def lookup(obj: Any, path: str) -> Any:
    try:
        return get(obj, path)
    except (KeyError, IndexError, TypeError):
        return MISSING


# (Go test restated, object, version, {path: expected value or MISSING})
CASES: list[tuple[str, dict[str, Any], tuple[int, int], dict[str, Any]]] = [
    # --- ReplicationController
    ("TestSetDefaultReplicationController: selector and labels from the template",
     {"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": "rc"},
      "spec": {"template": {"metadata": {"labels": {"foo": "bar"}}, "spec": {"containers": [container()]}}}},
     V136, {"spec.selector": {"foo": "bar"}, "metadata.labels": {"foo": "bar"}, "spec.replicas": 1}),
    ("TestSetDefaultReplicationController: a given selector and labels stay",
     {"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": "rc", "labels": {"x": "y"}},
      "spec": {"selector": {"some": "other"}, "template": {"metadata": {"labels": {"foo": "bar"}}}}},
     V136, {"spec.selector": {"some": "other"}, "metadata.labels": {"x": "y"}}),
    ("TestSetDefaultReplicationController: the RC's own labels stay, the selector comes from the template",
     {"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": "rc", "labels": {"bar": "foo"}},
      "spec": {"template": {"metadata": {"labels": {"foo": "bar"}}}}},
     V136, {"spec.selector": {"foo": "bar"}, "metadata.labels": {"bar": "foo"}}),
    ("TestSetDefaultReplicationController: a given selector stays, labels come from the template",
     {"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": "rc"},
      "spec": {"selector": {"some": "other"}, "template": {"metadata": {"labels": {"foo": "bar"}}}}},
     V136, {"spec.selector": {"some": "other"}, "metadata.labels": {"foo": "bar"}}),
    ("TestSetDefaultReplicationControllerReplicas: absent -> 1",
     {"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": "rc"}, "spec": {}},
     V136, {"spec.replicas": 1}),
    ("TestSetDefaultReplicationControllerReplicas: 0 stays 0",
     {"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": "rc"}, "spec": {"replicas": 0}},
     V136, {"spec.replicas": 0}),
    ("TestSetDefaultReplicationControllerReplicas: 3 stays 3",
     {"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": "rc"}, "spec": {"replicas": 3}},
     V136, {"spec.replicas": 3}),
    ("TestSetDefaultReplicationControllerImagePullPolicy: template containers get pull policies",
     {"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": "rc"},
      "spec": {"template": {"spec": {"containers": [{"name": "a", "image": "nginx"},
                                                    {"name": "b", "image": "nginx:1.25"}]}}}},
     V136, {"spec.template.spec.containers.0.imagePullPolicy": "Always",
            "spec.template.spec.containers.1.imagePullPolicy": "IfNotPresent",
            "spec.template.spec.restartPolicy": "Always"}),
    ("TestDefaultRequestIsNotSetForReplicationController: no requests from limits in a template",
     {"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": "rc"},
      "spec": {"template": {"spec": {"containers": [container(resources={"limits": {"cpu": "100m"}})]}}}},
     V136, {"spec.template.spec.containers.0.resources.requests": MISSING,
            "spec.template.spec.enableServiceLinks": MISSING}),
    # --- Service
    ("TestSetDefaultService: affinity None, type ClusterIP, internal traffic Cluster",
     service({}), V136,
     {"spec.sessionAffinity": "None", "spec.type": "ClusterIP", "spec.internalTrafficPolicy": "Cluster",
      "spec.externalTrafficPolicy": MISSING, "spec.allocateLoadBalancerNodePorts": MISSING}),
    ("TestSetDefaultServiceSessionAffinityConfig: ClientIP without a timeout gets 10800s",
     service({"sessionAffinity": "ClientIP"}), V136,
     {"spec.sessionAffinityConfig": {"clientIP": {"timeoutSeconds": 10800}}}),
    ("TestSetDefaultServiceSessionAffinityConfig: ClientIP with an empty clientIP gets 10800s",
     service({"sessionAffinity": "ClientIP", "sessionAffinityConfig": {"clientIP": None}}), V136,
     {"spec.sessionAffinityConfig": {"clientIP": {"timeoutSeconds": 10800}}}),
    ("TestSetDefaultServiceSessionAffinityConfig: ClientIP without timeoutSeconds gets 10800s",
     service({"sessionAffinity": "ClientIP", "sessionAffinityConfig": {"clientIP": {}}}), V136,
     {"spec.sessionAffinityConfig": {"clientIP": {"timeoutSeconds": 10800}}}),
    ("TestSetDefaultServiceSessionAffinityConfig: ClientIP keeps a given timeout",
     service({"sessionAffinity": "ClientIP", "sessionAffinityConfig": {"clientIP": {"timeoutSeconds": 60}}}),
     V136, {"spec.sessionAffinityConfig": {"clientIP": {"timeoutSeconds": 60}}}),
    ("TestSetDefaultServiceSessionAffinityConfig: affinity None drops the config",
     service({"sessionAffinityConfig": {"clientIP": {"timeoutSeconds": 60}}}), V136,
     {"spec.sessionAffinity": "None", "spec.sessionAffinityConfig": MISSING}),
    ("TestSetDefaultServiceTargetPort: target port defaults to the port, a named one stays",
     service({"ports": [{"port": 1234}, {"port": 1235, "targetPort": "p"}, {"port": 1236, "targetPort": 0}]}),
     V136, {"spec.ports.0.targetPort": 1234, "spec.ports.1.targetPort": "p", "spec.ports.2.targetPort": 1236}),
    ("TestSetDefaultServicePort: protocol TCP unless given",
     service({"ports": [{"port": 1, "protocol": "UDP"}, {"port": 2}]}), V136,
     {"spec.ports.0.protocol": "UDP", "spec.ports.1.protocol": "TCP"}),
    ("TestSetDefaultServicePort: an empty target port and a zero one default to the port",
     service({"ports": [{"protocol": "", "port": 9376, "targetPort": ""}, {"port": 8675, "targetPort": 0}]}), V136,
     {"spec.ports.0.protocol": "TCP", "spec.ports.0.targetPort": 9376, "spec.ports.1.targetPort": 8675}),
    ("TestSetDefaultServiceExternalTraffic: none for a plain ClusterIP service",
     service({"type": "ClusterIP"}), V136, {"spec.externalTrafficPolicy": MISSING}),
    ("TestSetDefaultServiceInternalTrafficPolicy: a given Cluster stays",
     service({"internalTrafficPolicy": "Cluster"}), V136, {"spec.internalTrafficPolicy": "Cluster"}),
    ("TestSetDefaultServiceExternalTraffic: NodePort gets Cluster",
     service({"type": "NodePort"}), V136, {"spec.externalTrafficPolicy": "Cluster"}),
    ("TestSetDefaultServiceExternalTraffic: LoadBalancer gets Cluster and node ports",
     service({"type": "LoadBalancer"}), V136,
     {"spec.externalTrafficPolicy": "Cluster", "spec.allocateLoadBalancerNodePorts": True}),
    ("TestSetDefaultServiceExternalTraffic: ClusterIP with external IPs gets Cluster",
     service({"externalIPs": ["1.2.3.4"]}), V136, {"spec.externalTrafficPolicy": "Cluster"}),
    ("TestSetDefaultServiceInternalTrafficPolicy: ExternalName gets none",
     service({"type": "ExternalName", "externalName": "example.com"}), V136,
     {"spec.internalTrafficPolicy": MISSING, "spec.externalTrafficPolicy": MISSING}),
    ("TestSetDefaultServiceInternalTrafficPolicy: Local stays",
     service({"type": "NodePort", "internalTrafficPolicy": "Local"}), V136,
     {"spec.internalTrafficPolicy": "Local"}),
    ("TestSetDefaultServiceLoadbalancerIPMode: VIP for an ingress IP (1.30 on)",
     service({"type": "LoadBalancer"}, {"loadBalancer": {"ingress": [{"ip": "1.2.3.4"}, {"hostname": "h"},
                                                                     {"ip": "5.6.7.8", "ipMode": "Proxy"}]}}),
     (1, 30), {"status.loadBalancer.ingress.0.ipMode": "VIP", "status.loadBalancer.ingress.1.ipMode": MISSING,
               "status.loadBalancer.ingress.2.ipMode": "Proxy"}),
    ("TestSetDefaultServiceLoadbalancerIPMode: gate off by default in 1.29",
     service({"type": "LoadBalancer"}, {"loadBalancer": {"ingress": [{"ip": "1.2.3.4"}]}}), (1, 29),
     {"status.loadBalancer.ingress.0.ipMode": MISSING}),
    ("TestSetDefaultServiceLoadbalancerIPMode: not for a NodePort service",
     service({"type": "NodePort"}, {"loadBalancer": {"ingress": [{"ip": "1.2.3.4"}]}}), V136,
     {"status.loadBalancer.ingress.0.ipMode": MISSING}),
    ("TestSetDefaultEndpointsProtocol: endpoint ports speak TCP",
     {"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": "e"},
      "subsets": [{"ports": [{"port": 1, "protocol": "UDP"}, {"port": 2}]}]}, V136,
     {"subsets.0.ports.0.protocol": "UDP", "subsets.0.ports.1.protocol": "TCP"}),
    # --- volumes
    ("TestSetDefaultSecretVolumeSource: mode 0644", volume_pod({"secret": {"secretName": "s"}}), V136,
     {"spec.volumes.0.secret.defaultMode": 420}),
    ("TestSetDefaultConfigMapVolumeSource: mode 0644", volume_pod({"configMap": {"name": "c"}}), V136,
     {"spec.volumes.0.configMap.defaultMode": 420}),
    ("TestSetDefaultDownwardAPIVolumeSource: mode 0644 and field refs of v1",
     volume_pod({"downwardAPI": {"items": [{"path": "n", "fieldRef": {"fieldPath": "metadata.name"}}]}}), V136,
     {"spec.volumes.0.downwardAPI.defaultMode": 420, "spec.volumes.0.downwardAPI.items.0.fieldRef.apiVersion": "v1"}),
    ("TestSetDefaultProjectedVolumeSource: mode 0644, token an hour",
     volume_pod({"projected": {"sources": [{"serviceAccountToken": {"path": "t"}}]}}), V136,
     {"spec.volumes.0.projected.defaultMode": 420,
      "spec.volumes.0.projected.sources.0.serviceAccountToken.expirationSeconds": 3600}),
    ("TestSetDefaultSecretVolumeSource: a given mode stays", volume_pod({"secret": {"defaultMode": 256}}), V136,
     {"spec.volumes.0.secret.defaultMode": 256}),
    ("TestSetDefaultHostPathVolumeSource: type is the empty string", volume_pod({"hostPath": {"path": "/x"}}),
     V136, {"spec.volumes.0.hostPath.type": ""}),
    ("TestSetDefaultEphemeral: claim template asks for a filesystem",
     volume_pod({"ephemeral": {"volumeClaimTemplate": {"spec": {"accessModes": ["ReadWriteOnce"]}}}}), V136,
     {"spec.volumes.0.ephemeral.volumeClaimTemplate.spec.volumeMode": "Filesystem",
      "spec.volumes.0.ephemeral.volumeClaimTemplate.status": MISSING}),
    ("no upstream test: SetDefaults_Volume, a volume without source is an emptyDir", volume_pod({}), V136,
     {"spec.volumes.0.emptyDir": {}}),
    ("no upstream test: markers of RBD and iSCSI volumes",
     volume_pod({"rbd": {"monitors": ["m"], "image": "i"}}), V136,
     {"spec.volumes.0.rbd.pool": "rbd", "spec.volumes.0.rbd.user": "admin",
      "spec.volumes.0.rbd.keyring": "/etc/ceph/keyring"}),
    ("no upstream test: iscsiInterface marker",
     volume_pod({"iscsi": {"targetPortal": "t", "iqn": "q", "lun": 0}}), V136,
     {"spec.volumes.0.iscsi.iscsiInterface": "default"}),
    ("no upstream test: markers of AzureDisk volumes",
     volume_pod({"azureDisk": {"diskName": "d", "diskURI": "u"}}), V136,
     {"spec.volumes.0.azureDisk": {"diskName": "d", "diskURI": "u", "cachingMode": "ReadWrite",
                                   "fsType": "ext4", "readOnly": False, "kind": "Shared"}}),
    ("no upstream test: markers of ScaleIO volumes",
     volume_pod({"scaleIO": {"gateway": "g", "system": "s", "secretRef": {"name": "n"}}}), V136,
     {"spec.volumes.0.scaleIO.storageMode": "ThinProvisioned", "spec.volumes.0.scaleIO.fsType": "xfs"}),
    ("no upstream test: image volume pull policy by tag (ImageVolume on in 1.35)",
     {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
      "spec": {"containers": [container()], "volumes": [{"name": "a", "image": {"reference": "tool:latest"}},
                                                        {"name": "b", "image": {"reference": "tool:v1"}}]}},
     (1, 35), {"spec.volumes.0.image.pullPolicy": "Always", "spec.volumes.1.image.pullPolicy": "IfNotPresent"}),
    ("no upstream test: image volume pull policy not defaulted while ImageVolume is off (1.34)",
     {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
      "spec": {"containers": [container()], "volumes": [{"name": "a", "image": {"reference": "tool"}}]}},
     (1, 34), {"spec.volumes.0.image.pullPolicy": MISSING}),
    # --- persistent volumes, claims
    ("TestSetDefaultPersistentVolume: pending, retained, filesystem",
     {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv"},
      "spec": {"hostPath": {"path": "/d"}, "capacity": {"storage": "1Gi"}}}, V136,
     {"status.phase": "Pending", "spec.persistentVolumeReclaimPolicy": "Retain", "spec.volumeMode": "Filesystem",
      "spec.hostPath.type": ""}),
    ("TestSetDefaultPersistentVolumeClaim: pending, filesystem",
     {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "c"},
      "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}, V136,
     {"status.phase": "Pending", "spec.volumeMode": "Filesystem"}),
    ("TestSetDefaultPersistentVolumeClaim: Block stays",
     {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "c"},
      "spec": {"volumeMode": "Block"}, "status": {"phase": "Bound"}}, V136,
     {"status.phase": "Bound", "spec.volumeMode": "Block"}),
    # --- namespaces, secrets, nodes
    ("TestSetDefaultNamespace: phase Active", {"apiVersion": "v1", "kind": "Namespace",
                                              "metadata": {"name": "ns"}, "status": {}}, V136,
     {"status.phase": "Active"}),
    ("TestSetDefaultNamespaceLabels: the name label, overriding a wrong value",
     {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ns",
                                                          "labels": {"kubernetes.io/metadata.name": "x", "a": "b"}}},
     V136, {"metadata.labels": {"kubernetes.io/metadata.name": "ns", "a": "b"}}),
    ("TestSetDefaultNamespaceLabels: no label without a name",
     {"apiVersion": "v1", "kind": "Namespace", "metadata": {"generateName": "ns-"}}, V136,
     {"metadata.labels": MISSING}),
    ("TestSetDefaultSecret: type Opaque", {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}},
     V136, {"type": "Opaque"}),
    ("no upstream test: a ConfigMap without data stores no data",
     {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}, V136, {"data": MISSING}),
    ("TestSetDefaultNodeStatusAllocatable: allocatable from capacity",
     {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"},
      "status": {"capacity": {"cpu": "1000m", "memory": "10G"}}}, V136,
     {"status.allocatable": {"cpu": "1000m", "memory": "10G"}}),
    ("TestSetDefaultNodeStatusAllocatable: nothing set, nothing defaulted",
     {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}, "status": {}}, V136,
     {"status.allocatable": MISSING}),
    ("TestSetDefaultNodeStatusAllocatable: allocatable without capacity stays",
     {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}, "status": {"allocatable": {"cpu": "500m"}}},
     V136, {"status.allocatable": {"cpu": "500m"}, "status.capacity": MISSING}),
    ("TestSetDefaultNodeStatusAllocatable: a given allocatable stays",
     {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"},
      "status": {"capacity": {"cpu": "2"}, "allocatable": {"cpu": "1"}}}, V136,
     {"status.allocatable": {"cpu": "1"}}),
    # --- containers
    ("TestSetDefaultObjectFieldSelectorAPIVersion: env field refs read v1",
     pod({"containers": [container(env=[{"name": "N", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}])]}),
     V136, {"spec.containers.0.env.0.valueFrom.fieldRef.apiVersion": "v1"}),
    ("no upstream test: the FileKeySelector.optional marker (1.34+)",
     pod({"containers": [container(env=[{"name": "N", "valueFrom": {"fileKeyRef": {
         "volumeName": "v", "path": "p.env", "key": "K"}}}])]}),
     (1, 34), {"spec.containers.0.env.0.valueFrom.fileKeyRef.optional": False}),
    ("TestSetDefaultProbe: timeout 1, period 10, success 1, failure 3",
     pod({"containers": [container(livenessProbe={"exec": {"command": ["true"]}})]}), V136,
     {"spec.containers.0.livenessProbe": {"exec": {"command": ["true"]}, "timeoutSeconds": 1, "periodSeconds": 10,
                                          "successThreshold": 1, "failureThreshold": 3}}),
    ("no upstream test: HTTP GET actions of probes and lifecycle hooks, gRPC service",
     pod({"containers": [container(readinessProbe={"httpGet": {"port": 80}}, startupProbe={"grpc": {"port": 9}},
                                   lifecycle={"preStop": {"httpGet": {"port": 8080, "path": "/stop"}}})]}), V136,
     {"spec.containers.0.readinessProbe.httpGet.path": "/", "spec.containers.0.readinessProbe.httpGet.scheme": "HTTP",
      "spec.containers.0.startupProbe.grpc.service": "",
      "spec.containers.0.lifecycle.preStop.httpGet.path": "/stop",
      "spec.containers.0.lifecycle.preStop.httpGet.scheme": "HTTP"}),
    ("no upstream test: SetDefaults_EphemeralContainer",
     pod({"containers": [container()], "ephemeralContainers": [{"name": "debug", "image": "busybox"}]}), V136,
     {"spec.ephemeralContainers.0.imagePullPolicy": "Always",
      "spec.ephemeralContainers.0.terminationMessagePolicy": "File"}),
    # --- pods
    ("TestSetDefaultPodSpecHostNetwork: host ports equal container ports on a Pod",
     pod({"hostNetwork": True, "containers": [container(ports=[{"containerPort": 12345}])],
          "initContainers": [container(ports=[{"containerPort": 12346, "hostPort": 12346}])]}), V136,
     {"spec.containers.0.ports.0.hostPort": 12345, "spec.initContainers.0.ports.0.hostPort": 12346}),
    ("TestSetDefaultPodSpecHostNetwork: not in a pod template",
     {"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": "t"},
      "template": {"spec": {"hostNetwork": True, "containers": [container(ports=[{"containerPort": 12345}])]}}},
     V136, {"template.spec.containers.0.ports.0.hostPort": MISSING,
            "template.spec.containers.0.ports.0.protocol": "TCP", "template.spec.dnsPolicy": "ClusterFirst"}),
    ("TestSetDefaultRequestsPod: requests default to limits, given requests stay",
     pod({"containers": [container(resources={"limits": {"cpu": "100m", "memory": "1Gi"},
                                              "requests": {"memory": "512Mi"}})],
          "initContainers": [container(resources={"limits": {"cpu": "1"}})]}), V136,
     {"spec.containers.0.resources.requests": {"memory": "512Mi", "cpu": "100m"},
      "spec.initContainers.0.resources.requests": {"cpu": "1"}}),
    ("TestSetDefaultRequestsPod: empty limits give no requests",
     pod({"containers": [container(resources={"limits": {}})]}), V136,
     {"spec.containers.0.resources.requests": MISSING}),
    ("TestSetMinimumScalePod: a nano request rounds up to a milli unit, in init containers too",
     pod({"containers": [container(resources={"requests": {"memory": "1n"}, "limits": {"cpu": "2n"}})],
          "initContainers": [container(resources={"requests": {"memory": "1n"}, "limits": {"cpu": "2n"}})]}),
     V136, {"spec.containers.0.resources.requests": {"memory": "1m", "cpu": "1m"},
            "spec.initContainers.0.resources.requests": {"memory": "1m", "cpu": "1m"}}),
    ("TestSetDefaultRequestsPod: a zero request stays zero",
     pod({"containers": [container(resources={"requests": {"memory": "0"},
                                              "limits": {"cpu": "100m", "memory": "1Gi"}})]}),
     V136, {"spec.containers.0.resources.requests": {"memory": "0", "cpu": "100m"}}),
    ("TestSetMinimumScalePod: quantities round up to milli units",
     pod({"containers": [container(resources={"requests": {"cpu": "1n"},
                                              "limits": {"cpu": "2n", "memory": "1.0001"}})]}),
     V136, {"spec.containers.0.resources.requests": {"cpu": "1m", "memory": "1001m"},
            "spec.containers.0.resources.limits": {"cpu": "1m", "memory": "1001m"}}),
    ("TestSetDefaultSchedulerName: default-scheduler unless given",
     pod({"containers": [container()], "schedulerName": "mine"}), V136, {"spec.schedulerName": "mine"}),
    ("TestSetDefaultEnableServiceLinks: true unless given",
     pod({"containers": [container()], "enableServiceLinks": False}), V136, {"spec.enableServiceLinks": False}),
    ("TestSetDefaultLimitRangeItem: default from max, request from default then min",
     {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "l"},
      "spec": {"limits": [{"type": "Container", "max": {"cpu": "100m"}, "min": {"memory": "100Mi"},
                           "default": {}, "defaultRequest": {}},
                          {"type": "Pod", "max": {"cpu": "1"}}]}}, V136,
     {"spec.limits.0.default": {"cpu": "100m"}, "spec.limits.0.defaultRequest": {"cpu": "100m", "memory": "100Mi"},
      "spec.limits.1.default": MISSING}),
    ("no upstream test: ResourceQuota quantities round up to milli units",
     {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "q"},
      "spec": {"hard": {"cpu": "0.0001", "pods": "10"}}}, V136, {"spec.hard": {"cpu": "1m", "pods": "10"}}),
]


@pytest.mark.parametrize(("name", "obj", "version", "expected"), CASES, ids=[case[0] for case in CASES])
def test_defaults(name: str, obj: dict[str, Any], version: tuple[int, int], expected: dict[str, Any]) -> None:
    before = copy.deepcopy(obj)
    out, _ = default(obj, version)
    assert obj == before  # apply works on a copy
    for path, value in expected.items():
        if value is MISSING:
            assert lookup(out, path) is MISSING, path
        else:
            assert lookup(out, path) == value, path


@pytest.mark.parametrize(("image", "policy"), [
    ("nginx", "Always"),
    ("nginx:latest", "Always"),
    ("docker.io/library/nginx:latest", "Always"),
    ("localhost:5000/team/app", "Always"),
    ("nginx:1.25", "IfNotPresent"),
    ("registry.example:5000/app:v2", "IfNotPresent"),
    ("nginx@sha256:" + "a" * 64, "IfNotPresent"),
    ("nginx:latest@sha256:" + "a" * 64, "Always"),
    ("Nginx", "IfNotPresent"),  # not a valid reference: the tag is unknown
    ("", "IfNotPresent"),
])
def test_set_default_pull_policy(image: str, policy: str) -> None:
    """TestSetDefaultReplicationControllerImagePullPolicy and SetDefaults_Container: policy by tag."""
    out, _ = default(pod({"containers": [{"name": "c", "image": image}]}))
    assert out["spec"]["containers"][0]["imagePullPolicy"] == policy
    assert core_v1.pull_policy(image) == policy


def test_explicit_pull_policy_stays() -> None:
    out, _ = default(pod({"containers": [container(imagePullPolicy="Never")]}))
    assert out["spec"]["containers"][0]["imagePullPolicy"] == "Never"


def test_pod_as_users_write_it_is_stored_with_the_apiserver_defaults() -> None:
    pasted = {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}},
        "spec": {
            "containers": [
                {"name": "nginx", "image": "nginx:1.27", "ports": [{"containerPort": 80}],
                 "resources": {"limits": {"cpu": "500m", "memory": "128Mi"}},
                 "readinessProbe": {"httpGet": {"path": "/healthz", "port": 80}}},
                {"name": "sidecar", "image": "busybox", "command": ["sleep", "3600"]},
            ],
            "volumes": [{"name": "cache"}, {"name": "conf", "configMap": {"name": "web"}}],
        },
    }
    out, changes = default(pasted)
    assert out == {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}},
        "spec": {
            "containers": [
                {"name": "nginx", "image": "nginx:1.27", "ports": [{"containerPort": 80, "protocol": "TCP"}],
                 "resources": {"limits": {"cpu": "500m", "memory": "128Mi"},
                               "requests": {"cpu": "500m", "memory": "128Mi"}},
                 "readinessProbe": {"httpGet": {"path": "/healthz", "port": 80, "scheme": "HTTP"},
                                    "timeoutSeconds": 1, "periodSeconds": 10, "successThreshold": 1,
                                    "failureThreshold": 3},
                 "imagePullPolicy": "IfNotPresent", "terminationMessagePath": "/dev/termination-log",
                 "terminationMessagePolicy": "File"},
                {"name": "sidecar", "image": "busybox", "command": ["sleep", "3600"],
                 "imagePullPolicy": "Always", "terminationMessagePath": "/dev/termination-log",
                 "terminationMessagePolicy": "File"},
            ],
            "volumes": [{"name": "cache", "emptyDir": {}},
                        {"name": "conf", "configMap": {"name": "web", "defaultMode": 420}}],
            "enableServiceLinks": True,
            "dnsPolicy": "ClusterFirst", "restartPolicy": "Always", "securityContext": {},
            "terminationGracePeriodSeconds": 30, "schedulerName": "default-scheduler",
        },
    }
    recorded = {(c.stage, render_path(c.path)) for c in changes}
    assert ("defaulting: SetDefaults_Pod", "spec.containers[0].resources.requests") in recorded
    assert ("defaulting: SetDefaults_PodSpec", "spec.securityContext") in recorded
    assert ("defaulting: SetDefaults_Container", "spec.containers[1].imagePullPolicy") in recorded
    assert ("defaulting: +default marker: ContainerPort.protocol", "spec.containers[0].ports[0].protocol") in recorded
    assert ("defaulting: SetDefaults_Volume", "spec.volumes[0].emptyDir") in recorded
    assert ("defaulting: SetDefaults_ConfigMapVolumeSource", "spec.volumes[1].configMap.defaultMode") in recorded
    assert all(c.op == "add" for c in changes)


def test_service_as_users_write_it_is_stored_with_the_apiserver_defaults() -> None:
    pasted = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
              "spec": {"selector": {"app": "web"}, "ports": [{"name": "http", "port": 80, "targetPort": 8080},
                                                             {"name": "metrics", "port": 9090}]}}
    out, changes = default(pasted)
    assert out == {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
                   "spec": {"selector": {"app": "web"},
                            "ports": [{"name": "http", "port": 80, "targetPort": 8080, "protocol": "TCP"},
                                      {"name": "metrics", "port": 9090, "protocol": "TCP", "targetPort": 9090}],
                            "sessionAffinity": "None", "type": "ClusterIP", "internalTrafficPolicy": "Cluster"}}
    assert {render_path(c.path) for c in changes if c.stage == "defaulting: SetDefaults_Service"} == {
        "spec.ports[0].protocol", "spec.ports[1].protocol", "spec.ports[1].targetPort", "spec.sessionAffinity",
        "spec.type", "spec.internalTrafficPolicy"}


def test_session_affinity_none_records_the_removed_config() -> None:
    """TestSetDefaultServiceSessionAffinityConfig: the dropped config is a recorded removal."""
    _, changes = default(service({"sessionAffinityConfig": {"clientIP": {"timeoutSeconds": 60}}}))
    removed = [c for c in changes if c.op == "remove"]
    assert [(c.stage, render_path(c.path), c.before) for c in removed] == [
        ("defaulting: SetDefaults_Service", "spec.sessionAffinityConfig", {"clientIP": {"timeoutSeconds": 60}})]


def test_requests_are_copied_before_the_container_defaults_run() -> None:
    """SetObjectDefaults_Pod calls SetDefaults_Pod before the containers' functions (parent first)."""
    _, changes = default(pod({"containers": [container(resources={"limits": {"cpu": "1"}})]}))
    stages = [c.stage for c in changes]
    assert stages.index("defaulting: SetDefaults_Pod") < stages.index("defaulting: SetDefaults_PodSpec") \
        < stages.index("defaulting: SetDefaults_Container")


def test_limits_below_milli_are_copied_then_rounded() -> None:
    """TestSetMinimumScalePod with requests taken from limits: the copy is rounded as well."""
    out, _ = default(pod({"containers": [container(resources={"limits": {"cpu": "0.0001"}})]}))
    assert out["spec"]["containers"][0]["resources"] == {"limits": {"cpu": "1m"}, "requests": {"cpu": "1m"}}


PLR_POD = pod({
    "resources": {"limits": {"cpu": "2", "memory": "1Gi"}},
    "containers": [container(resources={"requests": {"cpu": "500m"}}),
                   {"name": "d", "image": "x:1", "resources": {"requests": {"cpu": "250m"}}}],
    "initContainers": [{"name": "i", "image": "x:1", "resources": {"requests": {"cpu": "1"}}}],
})


def test_pod_level_requests_from_containers_and_limits() -> None:
    """TestPodResourcesDefaults (PodLevelResources, on from 1.34): pod-level requests from the
    containers' effective requests (an init container counts alone), else from the pod-level limits."""
    out, _ = default(PLR_POD, (1, 34))
    assert out["spec"]["resources"] == {"limits": {"cpu": "2", "memory": "1Gi"},
                                        "requests": {"cpu": "1", "memory": "1Gi"}}
    plain = copy.deepcopy(PLR_POD)
    plain["spec"]["containers"][1]["resources"]["requests"]["cpu"] = "750m"
    out, _ = default(plain, (1, 34))
    assert out["spec"]["resources"]["requests"]["cpu"] == "1250m"


@pytest.mark.parametrize("version", [(1, 32), (1, 33), (1, 37)])
def test_pod_level_requests_not_defaulted_by_the_scheme(version: tuple[int, int]) -> None:
    """Off by default before 1.34; done by the pod registry at create time from 1.37."""
    out, _ = default(PLR_POD, version)
    assert "requests" not in out["spec"]["resources"]


def test_pod_level_hugepage_limits_from_containers() -> None:
    obj = pod({"resources": {"requests": {"cpu": "1"}},
               "containers": [container(resources={"limits": {"hugepages-2Mi": "2Mi"}}),
                              {"name": "d", "image": "x:1", "resources": {"limits": {"hugepages-2Mi": "4Mi"}}}]})
    out, _ = default(obj, (1, 35))
    assert out["spec"]["resources"]["limits"] == {"hugepages-2Mi": "6Mi"}
    assert out["spec"]["resources"]["requests"] == {"cpu": "1", "hugepages-2Mi": "6Mi"}


@pytest.mark.parametrize("version", [tuple(int(p) for p in v.split(".")) for v in SUPPORTED_VERSIONS])
def test_every_supported_version_defaults_a_pod_and_a_service(version: tuple[int, int]) -> None:
    out, _ = default(pod({"containers": [container()]}), version)
    assert out["spec"]["terminationGracePeriodSeconds"] == 30
    assert out["spec"]["containers"][0]["imagePullPolicy"] == "IfNotPresent"
    out, _ = default(service({"ports": [{"port": 80}]}), version)
    assert out["spec"]["ports"][0] == {"port": 80, "protocol": "TCP", "targetPort": 80}


@pytest.mark.parametrize(("text", "form", "canonical"), [
    ("1m", core_v1.DECIMAL_SI, "1m"), ("1.5", core_v1.DECIMAL_SI, "1500m"), ("1000", core_v1.DECIMAL_SI, "1k"),
    ("3Gi", core_v1.BINARY_SI, "3Gi"), ("1.5Gi", core_v1.BINARY_SI, "1536Mi"), ("512", core_v1.BINARY_SI, "512"),
    ("1e3", core_v1.DECIMAL_EXPONENT, "1e3"), ("0", core_v1.DECIMAL_SI, "0"),
])
def test_canonical_quantity(text: str, form: str, canonical: str) -> None:
    from app.vap.cel.library.quantity import parse_quantity

    assert core_v1.canonical_quantity(parse_quantity(text), form) == canonical


def test_gates_follow_the_release_defaults() -> None:
    assert not core_v1.enabled("LoadBalancerIPMode", (1, 29)) and core_v1.enabled("LoadBalancerIPMode", (1, 30))
    assert not core_v1.enabled("ImageVolume", (1, 34)) and core_v1.enabled("ImageVolume", (1, 35))
    assert not core_v1.enabled("PodLevelResources", (1, 33)) and core_v1.enabled("PodLevelResources", (1, 34))
    assert not core_v1.enabled("PodLogsQuerySplitStreams", (1, 37))


# --- TestPodDefaults / TestWorkloadDefaults: every defaultable structure present, every default listed

def _every_container() -> dict[str, Any]:
    probe = {"httpGet": {}, "grpc": {"port": 1}, "exec": {}, "tcpSocket": {"port": 1}}
    return {
        "name": "c",
        "env": [{"name": "e", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}],
        "ports": [{"containerPort": 80}],
        "resources": {"limits": {"cpu": "0"}},
        "livenessProbe": copy.deepcopy(probe), "readinessProbe": copy.deepcopy(probe),
        "startupProbe": copy.deepcopy(probe),
        "lifecycle": {"postStart": {"httpGet": {"port": 1}}, "preStop": {"httpGet": {"port": 1}}},
    }


def _every_pod_spec() -> dict[str, Any]:
    field_ref = {"fieldRef": {"fieldPath": "metadata.name"}, "path": "p"}
    return {
        "containers": [_every_container()],
        "initContainers": [_every_container()],
        "ephemeralContainers": [_every_container()],
        "volumes": [
            {"name": "every", "hostPath": {"path": "/"}, "secret": {}, "configMap": {}, "iscsi": {},
             "rbd": {}, "azureDisk": {}, "scaleIO": {}, "downwardAPI": {"items": [copy.deepcopy(field_ref)]},
             "projected": {"sources": [{"downwardAPI": {"items": [copy.deepcopy(field_ref)]},
                                        "serviceAccountToken": {"path": "t"}}]},
             "ephemeral": {"volumeClaimTemplate": {"spec": {}}}},
            {"name": "none"},
        ],
    }


def _container_defaults(prefix: str) -> set[str]:
    paths = {f"{prefix}.env[0].valueFrom.fieldRef.apiVersion", f"{prefix}.imagePullPolicy",
             f"{prefix}.terminationMessagePath", f"{prefix}.terminationMessagePolicy", f"{prefix}.ports[0].protocol"}
    for hook in ("postStart", "preStop"):
        paths |= {f"{prefix}.lifecycle.{hook}.httpGet.path", f"{prefix}.lifecycle.{hook}.httpGet.scheme"}
    for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
        paths |= {f"{prefix}.{probe}.{field}" for field in
                  ("failureThreshold", "periodSeconds", "successThreshold", "timeoutSeconds",
                   "httpGet.path", "httpGet.scheme", "grpc.service")}
    return paths


def _pod_spec_defaults(prefix: str, pod: bool) -> set[str]:
    paths = {f"{prefix}.{field}" for field in
             ("dnsPolicy", "restartPolicy", "schedulerName", "securityContext", "terminationGracePeriodSeconds")}
    for kind in ("containers", "initContainers", "ephemeralContainers"):
        paths |= _container_defaults(f"{prefix}.{kind}[0]")
    volume = f"{prefix}.volumes[0]"
    paths |= {f"{volume}.{field}" for field in (
        "azureDisk.cachingMode", "azureDisk.fsType", "azureDisk.kind", "azureDisk.readOnly",
        "configMap.defaultMode", "downwardAPI.defaultMode", "downwardAPI.items[0].fieldRef.apiVersion",
        "ephemeral.volumeClaimTemplate.spec.volumeMode", "hostPath.type", "iscsi.iscsiInterface",
        "projected.defaultMode", "projected.sources[0].downwardAPI.items[0].fieldRef.apiVersion",
        "projected.sources[0].serviceAccountToken.expirationSeconds", "rbd.keyring", "rbd.pool", "rbd.user",
        "scaleIO.fsType", "scaleIO.storageMode", "secret.defaultMode")}
    paths.add(f"{prefix}.volumes[1].emptyDir")
    if pod:
        paths |= {f"{prefix}.enableServiceLinks", f"{prefix}.containers[0].resources.requests",
                  f"{prefix}.initContainers[0].resources.requests"}
    return paths


VERSIONS = [tuple(int(p) for p in v.split(".")) for v in SUPPORTED_VERSIONS]


@pytest.mark.parametrize("version", VERSIONS)
def test_pod_defaults(version: tuple[int, int]) -> None:
    """TestPodDefaults: the complete list of defaults within a Pod's spec (requests copied from the
    limits, service links, every container, probe, hook and volume default), the same in every release."""
    _, changes = default(pod(_every_pod_spec()), version)
    assert {c.op for c in changes} == {"add"}
    assert {render_path(c.path) for c in changes} == _pod_spec_defaults("spec", pod=True)


@pytest.mark.parametrize("version", VERSIONS)
def test_workload_defaults(version: tuple[int, int]) -> None:
    """TestWorkloadDefaults: a pod template gets the PodSpec defaults, but none of SetDefaults_Pod's."""
    template = {"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": "t"},
                "template": {"spec": _every_pod_spec()}}
    _, changes = default(template, version)
    assert {render_path(c.path) for c in changes} == _pod_spec_defaults("template.spec", pod=False)


@pytest.mark.parametrize(("gate", "host_network", "pod_port", "template_port"), [
    (False, False, MISSING, MISSING),
    (False, True, 12345, MISSING),
    (True, False, MISSING, MISSING),
    (True, True, 12345, 12345),
])
def test_pod_host_network_defaults(monkeypatch: pytest.MonkeyPatch, gate: bool, host_network: bool,
                                   pod_port: Any, template_port: Any) -> None:
    """TestPodHostNetworkDefaults: Pods always get host ports on the host network; pod templates only
    with DefaultHostNetworkHostPortsInPodTemplates, which no release enables by default."""
    monkeypatch.setitem(core_v1.GATES, "DefaultHostNetworkHostPortsInPodTemplates", (1, 28) if gate else None)
    spec = {"hostNetwork": host_network, "containers": [container(ports=[{"containerPort": 12345}])]}
    out, _ = default(pod(copy.deepcopy(spec)), (1, 28))
    assert lookup(out, "spec.containers.0.ports.0.hostPort") == pod_port
    template = {"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": "t"}, "template": {"spec": spec}}
    out, _ = default(template, (1, 28))
    assert lookup(out, "template.spec.containers.0.ports.0.hostPort") == template_port


RESIZE_CASES = [
    ("CPU and memory limits", {"limits": {"cpu": "100m", "memory": "200Mi"}}, None,
     [{"resourceName": "cpu", "restartPolicy": "NotRequired"},
      {"resourceName": "memory", "restartPolicy": "NotRequired"}]),
    ("CPU requests", {"requests": {"cpu": "100m"}}, None, [{"resourceName": "cpu", "restartPolicy": "NotRequired"}]),
    ("no resources", None, None, MISSING),
    ("limits, memory policy given", {"limits": {"cpu": "100m", "memory": "200Mi"}},
     [{"resourceName": "memory", "restartPolicy": "RestartContainer"}],
     [{"resourceName": "memory", "restartPolicy": "RestartContainer"},
      {"resourceName": "cpu", "restartPolicy": "NotRequired"}]),
    ("ephemeral storage only", {"limits": {"ephemeral-storage": "500Mi"}}, None, MISSING),
    ("ephemeral storage requests, CPU limits",
     {"limits": {"cpu": "100m"}, "requests": {"ephemeral-storage": "500Mi"}}, None,
     [{"resourceName": "cpu", "restartPolicy": "NotRequired"}]),
]


@pytest.mark.parametrize(("name", "resources", "given", "expected"), RESIZE_CASES, ids=[c[0] for c in RESIZE_CASES])
def test_set_default_resize_policy(monkeypatch: pytest.MonkeyPatch, name: str, resources: Any, given: Any,
                                   expected: Any) -> None:
    """TestSetDefaultResizePolicy (with InPlacePodVerticalScaling on, as that test sets it, in 1.32)."""
    monkeypatch.setitem(core_v1.GATES, "InPlacePodVerticalScaling", (1, 28))
    fields: dict[str, Any] = {}
    if resources is not None:
        fields["resources"] = resources
    if given is not None:
        fields["resizePolicy"] = given
    out, _ = default(pod({"containers": [container(**fields)]}), (1, 32))
    assert lookup(out, "spec.containers.0.resizePolicy") == expected


@pytest.mark.parametrize("version", VERSIONS)
def test_no_resize_policy_with_default_gates(version: tuple[int, int]) -> None:
    """InPlacePodVerticalScaling is off by default while the default existed (up to 1.32), then gone."""
    out, _ = default(pod({"containers": [container(resources={"limits": {"cpu": "1"}})]}), version)
    assert "resizePolicy" not in out["spec"]["containers"][0]


@pytest.mark.parametrize(("version", "names"), [
    ((1, 30), {"SetDefaults_RBDVolumeSource", "SetDefaults_AzureDiskVolumeSource", "SetDefaults_ISCSIVolumeSource",
               "SetDefaults_ScaleIOVolumeSource"}),
    ((1, 31), {"+default marker: RBDVolumeSource.pool", "+default marker: RBDVolumeSource.user",
               "+default marker: RBDVolumeSource.keyring", "+default marker: AzureDiskVolumeSource.cachingMode",
               "+default marker: AzureDiskVolumeSource.fsType", "+default marker: AzureDiskVolumeSource.readOnly",
               "+default marker: AzureDiskVolumeSource.kind", "+default marker: ISCSIVolumeSource.iscsiInterface",
               "+default marker: ScaleIOVolumeSource.storageMode", "+default marker: ScaleIOVolumeSource.fsType"}),
])
def test_volume_source_defaults_are_named_as_in_each_release(version: tuple[int, int], names: set[str]) -> None:
    volumes = [{"name": "a", "rbd": {}}, {"name": "b", "azureDisk": {}}, {"name": "c", "iscsi": {}},
               {"name": "d", "scaleIO": {}}]
    out, changes = default(pod({"containers": [container()], "volumes": volumes}), version)
    recorded = {c.stage.removeprefix("defaulting: ") for c in changes if "volumes" in c.path}
    assert recorded == names
    assert out["spec"]["volumes"][0]["rbd"] == {"pool": "rbd", "user": "admin", "keyring": "/etc/ceph/keyring"}


@pytest.mark.parametrize(("version", "name"), [
    ((1, 35), "defaulting: SetDefaults_ReplicationController"),
    ((1, 36), "defaulting: +default marker: ReplicationControllerSpec.replicas"),
])
def test_replicas_default_is_named_as_in_each_release(version: tuple[int, int], name: str) -> None:
    rc = {"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": "rc"}, "spec": {}}
    out, changes = default(rc, version)
    assert out["spec"]["replicas"] == 1
    assert [c.stage for c in changes if render_path(c.path) == "spec.replicas"] == [name]


def test_pod_log_options_stream_follows_its_gate(monkeypatch: pytest.MonkeyPatch) -> None:
    """SetDefaults_PodLogOptions: stream All only with PodLogsQuerySplitStreams (off by default)."""
    (entry,) = defaulting.registered("io.k8s.api.core.v1.PodLogOptions")
    options: dict[str, Any] = {}
    entry.function(options, defaulting.Context((1, 37), options, ()))
    assert options == {}
    monkeypatch.setitem(core_v1.GATES, "PodLogsQuerySplitStreams", (1, 32))
    entry.function(options, defaulting.Context((1, 37), options, ()))
    assert options == {"stream": "All"}
