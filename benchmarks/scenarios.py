"""The fixed set of scenarios the benchmark runs: the gallery and seven synthetic ones.

Every scenario is a JSON API body with YAML text panes, as the page sends it. The synthetic ones:

* ``20-validations``: a Deployment policy with 20 validations (labels, names, replicas, images,
  security contexts, resources with quantities, probes, ports, regexes), 6 of them with a
  messageExpression, a variable, and an audit annotation; the object passes 18 and fails 2.
* ``object-10KB`` / ``object-1MB``: the same ConfigMap policy (labels, name format, owner
  annotation, a size guard on one data key) against a ConfigMap of about 10 KB and 1 MB. As in most
  real policies, nothing reads every key of the data, so the object's bulk is carried, not walked.
* ``params-100``: a paramRef selector matching 100 ConfigMaps (of 110); the policy is evaluated once
  per param.
* ``deployment-as-written``: a Deployment with a full pod template written without the fields the
  apiserver defaults, against a policy reading defaulted fields (decoding and defaulting each time).
* ``map-sidecar``: a MutatingAdmissionPolicy merging a mesh sidecar (init container with env, resources and
  a volume mount, a volume, annotations) into a Pod of three containers with an ApplyConfiguration, reinvoked
  in the second round; then a ValidatingAdmissionPolicy of 3 validations on the mutated Pod.
* ``map-jsonpatch``: a MutatingAdmissionPolicy patching a Deployment with a JSONPatch of 7 operations (a test,
  labels with keys escaped by jsonpatch.escapeKey, annotations, a replace, a list); then 3 validations.

The gallery's MutatingAdmissionPolicy examples are gallery scenarios like the others; these two are synthetic.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml

from app import examples
from app.forms import payload_from


@dataclass(frozen=True)
class Scenario:
    name: str
    group: str  # gallery | synthetic
    payload: dict[str, Any]
    description: str = ""

    @property
    def size(self) -> int:
        """Bytes of pane text."""
        return sum(len(v) for v in self.payload.values() if isinstance(v, str))


def _dump(*docs: Any) -> str:
    return "---\n".join(yaml.safe_dump(d, sort_keys=False, width=1000) for d in docs)


def _policy(name: str, group: str, resource: str, **spec: Any) -> dict[str, Any]:
    rules = [{"apiGroups": [group], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"], "resources": [resource]}]
    return {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
            "metadata": {"name": name},
            "spec": {"failurePolicy": "Fail", "matchConstraints": {"resourceRules": rules}, **spec}}


def _binding(name: str, policy: str, actions: list[str], **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
            "metadata": {"name": name}, "spec": {"policyName": policy, "validationActions": actions, **spec}}


NAMESPACE = {
    "apiVersion": "v1",
    "kind": "Namespace",
    "metadata": {"name": "default", "labels": {"kubernetes.io/metadata.name": "default", "env": "prod"}},
}


def gallery() -> list[Scenario]:
    return [Scenario(e.name, "gallery", payload_from(e.form()), e.title) for e in examples.all_examples()]


# --------------------------------------------------------------------------------------------
# 20 validations

_VALIDATIONS: list[dict[str, str]] = [
    {"expression": "has(object.metadata.labels) && 'app' in object.metadata.labels"},
    {"expression": "has(object.metadata.labels) && 'team' in object.metadata.labels",
     "messageExpression": "'Deployment ' + object.metadata.name + ' has no team label'"},
    {"expression": "object.metadata.name.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')"},
    {"expression": "!format.dns1123Label().validate(object.metadata.name).hasValue()"},
    {"expression": "object.spec.replicas <= variables.maxReplicas",
     "messageExpression": "'replicas must be at most ' + string(variables.maxReplicas)"},
    {"expression": "object.spec.replicas >= 2 || object.metadata.labels['tier'] != 'frontend'"},
    {"expression": "variables.containers.all(c, c.image.startsWith('registry.example.com/'))",
     "messageExpression": "'images must come from registry.example.com, not ' + "
                          "variables.containers.filter(c, !c.image.startsWith('registry.example.com/'))"
                          ".map(c, c.image).join(', ')"},
    {"expression": "variables.containers.all(c, !c.image.endsWith(':latest') && c.image.contains(':'))"},
    {"expression": "variables.containers.all(c, !has(c.securityContext) || !has(c.securityContext.privileged) "
                   "|| c.securityContext.privileged == false)"},
    {"expression": "variables.containers.all(c, has(c.securityContext) && has(c.securityContext.runAsNonRoot) "
                   "&& c.securityContext.runAsNonRoot)",
     "messageExpression": "'containers must run as non-root: ' + variables.containers.filter(c, "
                          "!has(c.securityContext) || !has(c.securityContext.runAsNonRoot) || "
                          "!c.securityContext.runAsNonRoot).map(c, c.name).join(', ')"},
    {"expression": "variables.containers.all(c, has(c.resources) && has(c.resources.limits) "
                   "&& 'memory' in c.resources.limits && 'cpu' in c.resources.limits)"},
    {"expression": "variables.containers.all(c, quantity(c.resources.limits.memory)"
                   ".isLessThan(quantity('4Gi')))"},
    {"expression": "variables.containers.all(c, quantity(c.resources.limits.cpu).compareTo(quantity('4')) <= 0)"},
    {"expression": "variables.containers.all(c, has(c.readinessProbe))",
     "messageExpression": "'every container needs a readinessProbe'"},
    {"expression": "variables.containers.all(c, !has(c.ports) || c.ports.all(p, p.containerPort > 1024))"},
    {"expression": "!has(object.spec.template.spec.hostNetwork) || object.spec.template.spec.hostNetwork == false"},
    {"expression": "!has(object.spec.template.spec.hostPID) || !object.spec.template.spec.hostPID"},
    {"expression": "variables.containers.map(c, c.name).size() == "
                   "variables.containers.map(c, c.name).filter(n, n.size() > 0).size()"},
    {"expression": "object.spec.template.metadata.labels.all(k, k in object.spec.selector.matchLabels "
                   "|| k != 'app')"},
    {"expression": "request.userInfo.username != 'system:anonymous'",
     "messageExpression": "'anonymous users may not create Deployments'"},
]


def _container(i: int, *, root: bool = False) -> dict[str, Any]:
    c: dict[str, Any] = {
        "name": f"app-{i}",
        "image": f"registry.example.com/shop/app-{i}:1.{i}.0",
        "ports": [{"containerPort": 8080 + i, "name": "http"}],
        "resources": {"limits": {"cpu": "500m", "memory": "512Mi"}, "requests": {"cpu": "100m", "memory": "128Mi"}},
        "readinessProbe": {"httpGet": {"path": "/healthz", "port": 8080 + i}},
        "securityContext": {"runAsNonRoot": not root, "allowPrivilegeEscalation": False},
        "env": [{"name": f"SETTING_{j}", "value": f"value-{j}"} for j in range(4)],
    }
    return c


def many_validations(count: int = 20) -> Scenario:
    policy = _policy(
        "deployment-standards.example.com", "apps", "deployments",
        variables=[{"name": "containers", "expression": "object.spec.template.spec.containers"},
                   {"name": "maxReplicas", "expression": "10"}],
        validations=_VALIDATIONS[:count],
        auditAnnotations=[{"key": "images", "valueExpression": "variables.containers.map(c, c.image).join(',')"}],
    )
    binding = _binding("deployment-standards", "deployment-standards.example.com", ["Deny", "Audit"])
    containers = [_container(i, root=(i == 2)) for i in range(3)]
    containers[1].pop("readinessProbe")
    obj = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "shop", "namespace": "default",
                     "labels": {"app": "shop", "team": "retail", "tier": "frontend"}},
        "spec": {
            "replicas": 3,
            "selector": {"matchLabels": {"app": "shop"}},
            "template": {"metadata": {"labels": {"app": "shop"}}, "spec": {"containers": containers}},
        },
    }
    payload = {"policy": _dump(policy), "binding": _dump(binding), "object": _dump(obj),
               "namespace": _dump(NAMESPACE), "request": "userInfo:\n  username: alice\n"}
    return Scenario(f"{count}-validations", "synthetic", payload,
                    f"{count} validations, 2 variables, an audit annotation; 2 validations fail")


# --------------------------------------------------------------------------------------------
# Large objects

_CONFIG_POLICY = _policy(
    "configmap-standards.example.com", "", "configmaps",
    validations=[
        {"expression": "has(object.metadata.labels) && 'app' in object.metadata.labels "
                       "&& 'team' in object.metadata.labels",
         "messageExpression": "'ConfigMap ' + object.metadata.name + ' needs the app and team labels'"},
        {"expression": "!format.dns1123Subdomain().validate(object.metadata.name).hasValue()"},
        {"expression": "has(object.metadata.annotations) && "
                       "object.metadata.annotations['example.com/owner'].contains('@')"},
        {"expression": "!has(object.data) || !('application.properties' in object.data) || "
                       "object.data['application.properties'].size() < 65536"},
        {"expression": "!has(object.immutable) || object.immutable == false || request.operation == 'CREATE'"},
    ],
)
_CONFIG_BINDING = _binding("configmap-standards", "configmap-standards.example.com", ["Deny"])


def config_map(size: int) -> dict[str, Any]:
    """A ConfigMap of about ``size`` bytes of YAML: settings files of 1 KB each."""
    data: dict[str, str] = {"application.properties": "\n".join(f"app.setting.{i}=value-{i}" for i in range(20))}
    line = "key.{i:05d} = " + "v" * 48 + "\n"
    i = 0
    while len(_dump(data)) < size - 300:
        data[f"settings-{i:05d}.conf"] = "".join(line.format(i=j) for j in range(16))
        i += 1
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": f"settings-{size // 1000}k", "namespace": "default",
                     "labels": {"app": "shop", "team": "retail"},
                     "annotations": {"example.com/owner": "retail@example.com"}},
        "data": data,
    }


def big_object(size: int, name: str) -> Scenario:
    payload = {"policy": _dump(_CONFIG_POLICY), "binding": _dump(_CONFIG_BINDING), "object": _dump(config_map(size)),
               "namespace": _dump(NAMESPACE), "request": "userInfo:\n  username: alice\n"}
    return Scenario(name, "synthetic", payload, f"ConfigMap policy (5 validations), a {name[7:]} ConfigMap")


# --------------------------------------------------------------------------------------------
# 100 params


def param_selector(count: int = 100) -> Scenario:
    policy = _policy(
        "banned-registries.example.com", "", "pods",
        paramKind={"apiVersion": "v1", "kind": "ConfigMap"},
        validations=[{
            "expression": "!object.spec.containers.exists(c, c.image.startsWith(params.data.prefix))",
            "messageExpression": "'images from ' + params.data.prefix + ' are banned (by ' + "
                                 "params.metadata.name + ')'",
        }],
    )
    binding = _binding("banned-registries", "banned-registries.example.com", ["Deny"],
                       paramRef={"namespace": "policies", "selector": {"matchLabels": {"policy": "banned-registries"}},
                                 "parameterNotFoundAction": "Deny"})
    params = [
        {"apiVersion": "v1", "kind": "ConfigMap",
         "metadata": {"name": f"banned-{i:03d}", "namespace": "policies",
                      "labels": {"policy": "banned-registries" if i < count else "other"}},
         "data": {"prefix": f"registry-{i:03d}.example.net/"}}
        for i in range(count + 10)
    ]
    pod = {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}},
        "spec": {"containers": [{"name": "web", "image": "registry.example.com/web:1.0"},
                                {"name": "proxy", "image": f"registry-{count // 2:03d}.example.net/proxy:2.1"}]},
    }
    namespaces = [NAMESPACE, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "policies"}}]
    payload = {"policy": _dump(policy), "binding": _dump(binding), "params": _dump(*params), "object": _dump(pod),
               "namespace": _dump(*namespaces), "request": "userInfo:\n  username: alice\n"}
    return Scenario(f"params-{count}", "synthetic", payload,
                    f"paramRef selector matching {count} ConfigMaps; one of them bans the Pod's image")


# --------------------------------------------------------------------------------------------
# A Deployment as people write it: decoded and defaulted before the policies see it

_AS_WRITTEN_VALIDATIONS = [
    {"expression": "object.spec.template.spec.containers.all(c, c.imagePullPolicy != 'Always')",
     "message": "images are pulled only when missing"},
    {"expression": "object.spec.template.spec.terminationGracePeriodSeconds <= 60"},
    {"expression": "object.spec.strategy.type == 'RollingUpdate' && object.spec.revisionHistoryLimit <= 10"},
    {"expression": "object.spec.template.spec.containers.all(c, c.ports.all(p, p.protocol == 'TCP'))"},
]


def deployment_as_written() -> Scenario:
    """A Deployment with a full pod template, written without the fields the apiserver defaults, against a
    policy reading defaulted fields: the object goes through decoding and the scheme's defaults each time."""
    deployment = {
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "shop", "namespace": "default", "labels": {"app": "shop", "team": "payments"}},
        "spec": {
            "replicas": 3,
            "selector": {"matchLabels": {"app": "shop"}},
            "template": {
                "metadata": {"labels": {"app": "shop", "team": "payments"}},
                "spec": {"containers": [_container(i) for i in range(3)],
                         "volumes": [{"name": "config", "configMap": {"name": "shop-config"}},
                                     {"name": "cache", "emptyDir": {}}]},
            },
        },
    }
    docs = [_policy("as-stored", "apps", "deployments", validations=_AS_WRITTEN_VALIDATIONS),
            _binding("as-stored", "as-stored", ["Deny"])]
    payload = {"policy": _dump(*docs), "object": _dump(deployment), "kubernetesVersion": "1.36"}
    return Scenario("deployment-as-written", "synthetic", payload,
                    "a Deployment as written, decoded and defaulted, against 4 validations of defaulted fields")


def all_scenarios(*, quick: bool = False) -> list[Scenario]:
    """The scenarios in table order. ``quick`` keeps 3 gallery scenarios and smaller synthetic ones."""
    scenarios = gallery()
    if quick:
        scenarios = scenarios[:3]
        return scenarios + [many_validations(20), deployment_as_written(), big_object(10_000, "object-10KB"),
                            big_object(50_000, "object-50KB"), param_selector(10), sidecar_injection(), json_patch()]
    return scenarios + [many_validations(20), deployment_as_written(), big_object(10_000, "object-10KB"),
                        big_object(1_000_000, "object-1MB"), param_selector(100), sidecar_injection(), json_patch()]


# --------------------------------------------------------------------------------------------
# MutatingAdmissionPolicy: a sidecar injected with an ApplyConfiguration, a JSONPatch

def _mutating(name: str, group: str, resource: str, mutations: list[dict[str, Any]], **spec: Any
              ) -> list[dict[str, Any]]:
    """A MutatingAdmissionPolicy on CREATE of one resource, and its binding."""
    rules = [{"apiGroups": [group], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": [resource]}]
    return [{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicy",
             "metadata": {"name": name},
             "spec": {"failurePolicy": "Fail", "reinvocationPolicy": "IfNeeded",
                      "matchConstraints": {"resourceRules": rules}, **spec, "mutations": mutations}},
            {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicyBinding",
             "metadata": {"name": name}, "spec": {"policyName": name}}]


_SIDECAR = """\
Object{
  metadata: Object.metadata{annotations: {"mesh.example.com/injected": "true",
                                          "mesh.example.com/version": "1.4.2"}},
  spec: Object.spec{
    initContainers: [Object.spec.initContainers{
      name: "mesh-proxy",
      image: "registry.example.com/mesh/proxy:1.4.2",
      restartPolicy: "Always",
      env: [
        Object.spec.initContainers.env{name: "PROXY_MODE", value: "sidecar"},
        Object.spec.initContainers.env{name: "MESH_ID", value: "retail"},
        Object.spec.initContainers.env{name: "APP_PORTS", value: variables.ports}
      ],
      resources: Object.spec.initContainers.resources{
        limits: {"cpu": "200m", "memory": "128Mi"}, requests: {"cpu": "50m", "memory": "64Mi"}},
      volumeMounts: [Object.spec.initContainers.volumeMounts{name: "mesh-certs", mountPath: "/etc/mesh/certs"}]
    }],
    volumes: [Object.spec.volumes{name: "mesh-certs",
                                  secret: Object.spec.volumes.secret{secretName: "mesh-certs"}}]
  }
}
"""


def sidecar_injection() -> Scenario:
    """A Pod of three containers given a mesh sidecar by an ApplyConfiguration (init container, volume,
    annotations), then validated as the mutation left it."""
    maps = _mutating(
        "mesh-sidecar.example.com", "", "pods",
        [{"patchType": "ApplyConfiguration", "applyConfiguration": {"expression": _SIDECAR}}],
        matchConditions=[{"name": "not-injected", "expression":
                          "!has(object.spec.initContainers) || "
                          "!object.spec.initContainers.exists(c, c.name == 'mesh-proxy')"}],
        variables=[{"name": "ports", "expression": "object.spec.containers.map(c, c.ports.map(p, "
                                                   "string(p.containerPort))).flatten().join(',')"}],
    )
    validations = [
        {"expression": "object.spec.initContainers.exists(c, c.name == 'mesh-proxy' && c.restartPolicy == 'Always')",
         "message": "the mesh sidecar is missing"},
        {"expression": "object.spec.initContainers.all(c, has(c.resources.limits) && 'memory' in c.resources.limits)"},
        {"expression": "object.spec.volumes.exists(v, v.name == 'mesh-certs')"},
    ]
    validating = [_policy("meshed-pods.example.com", "", "pods", validations=validations),
                  _binding("meshed-pods", "meshed-pods.example.com", ["Deny"])]
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": "shop", "namespace": "default", "labels": {"app": "shop"}},
           "spec": {"containers": [_container(i) for i in range(3)],
                    "volumes": [{"name": "cache", "emptyDir": {}}]}}
    payload = {"policy": _dump(*maps, *validating), "object": _dump(pod), "namespace": _dump(NAMESPACE),
               "request": "userInfo:\n  username: alice\n", "kubernetesVersion": "1.36"}
    return Scenario("map-sidecar", "synthetic", payload,
                    "MutatingAdmissionPolicy: a sidecar merged into a 3-container Pod (ApplyConfiguration), "
                    "then 3 validations of the mutated Pod")


_JSON_PATCH = """\
[
  JSONPatch{op: "test", path: "/spec/replicas", value: object.spec.replicas},
  JSONPatch{op: "add", path: "/metadata/labels/" + jsonpatch.escapeKey("app.kubernetes.io/managed-by"),
            value: "platform"},
  JSONPatch{op: "add", path: "/metadata/labels/" + jsonpatch.escapeKey("example.com/cost-center"),
            value: "cc-4711"},
  JSONPatch{op: "add", path: "/metadata/annotations",
            value: {"example.com/owner": "retail@example.com", "example.com/tier": "frontend"}},
  JSONPatch{op: "add", path: "/spec/template/metadata/labels/" + jsonpatch.escapeKey("example.com/cost-center"),
            value: "cc-4711"},
  JSONPatch{op: "replace", path: "/spec/revisionHistoryLimit", value: 3},
  JSONPatch{op: "add", path: "/spec/template/spec/tolerations", value: [Object.spec.template.spec.tolerations{
    key: "dedicated", operator: "Equal", value: "retail", effect: "NoSchedule"}]}
]
"""


def json_patch() -> Scenario:
    """A Deployment patched by a JSONPatch mutation (a test, labels with escaped keys, annotations, a
    replace, a list added), then validated as the patch left it."""
    maps = _mutating("retail-defaults.example.com", "apps", "deployments",
                     [{"patchType": "JSONPatch", "jsonPatch": {"expression": _JSON_PATCH}}])
    validations = [
        {"expression": "object.metadata.labels['app.kubernetes.io/managed-by'] == 'platform'"},
        {"expression": "object.spec.revisionHistoryLimit <= 5"},
        {"expression": "object.spec.template.spec.tolerations.exists(t, t.key == 'dedicated')"},
    ]
    validating = [_policy("retail-deployments.example.com", "apps", "deployments", validations=validations),
                  _binding("retail-deployments", "retail-deployments.example.com", ["Deny"])]
    deployment = {
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "shop", "namespace": "default", "labels": {"app": "shop"}},
        "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "shop"}},
                 "template": {"metadata": {"labels": {"app": "shop"}},
                              "spec": {"containers": [_container(i) for i in range(3)]}}},
    }
    payload = {"policy": _dump(*maps, *validating), "object": _dump(deployment), "namespace": _dump(NAMESPACE),
               "request": "userInfo:\n  username: alice\n", "kubernetesVersion": "1.36"}
    return Scenario("map-jsonpatch", "synthetic", payload,
                    "MutatingAdmissionPolicy: a JSONPatch of 7 operations (jsonpatch.escapeKey, test, replace) on "
                    "a Deployment, then 3 validations of the patched one")
