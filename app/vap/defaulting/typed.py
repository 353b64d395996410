"""What decoding into the Go types adds to an object before any default: fields the types always have.

The apiserver decodes a request into the kind's Go struct and hands admission that struct (serialised back
to JSON, or converted to unstructured values for CEL, which follow the same JSON tags). A field that is a
struct value, not a pointer, exists even when the request leaves it out, and serialises as that struct's zero
value (``omitempty`` does not omit a struct); a field whose JSON tag has no ``omitempty`` serialises even when
empty: ``0``, ``false``, ``""``, or ``null`` for a nil slice, map or pointer. A ``metav1.Time`` serialises as
``null`` when zero, a ``resource.Quantity`` as ``"0"``.

:data:`ZERO_VALUES` lists those fields, by OpenAPI definition, for the kinds policies commonly meet (Pods and
their templates, the workload kinds, Services, Namespaces, claims and volumes, Ingresses, NetworkPolicies,
StorageClasses, RBAC objects, HorizontalPodAutoscalers, PodDisruptionBudgets), read from the Go types of
k8s.io/api. Each row is registered as a zero-value entry of :data:`REGISTRY`, which
:func:`app.vap.defaulting.apply` walks before the scheme's defaults, as the apiserver decodes before it
defaults: an absent (or ``null``) field gets its zero value, a struct's own fields follow once it is there,
and each addition is a change named after its row (``DeploymentSpec.strategy is a struct value``).

Every ``resource.Quantity`` is also written as it serialises: in its canonical form (:func:`canonical_quantities`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .. import fast
from ..changes import REPLACE, Change
from ..schemas import SchemaSet
from . import Context, Registered, plans
from .core_v1 import _quantity as quantity_form
from .core_v1 import canonical_quantity

REGISTRY: dict[str, list[Registered]] = {}
STAGE = "decoding"

_CORE = "io.k8s.api.core.v1."
_META = "io.k8s.apimachinery.pkg.apis.meta.v1."
_APPS = "io.k8s.api.apps.v1."
_BATCH = "io.k8s.api.batch.v1."
_NETWORKING = "io.k8s.api.networking.v1."
_RBAC = "io.k8s.api.rbac.v1."
_HPA1 = "io.k8s.api.autoscaling.v1."
_HPA2 = "io.k8s.api.autoscaling.v2."
_POLICY = "io.k8s.api.policy.v1."

STRUCT = "is a struct value"  # a field holding a struct (not a pointer): present whatever its omitempty says
KEPT = "has no omitempty"  # a number, bool, string, slice, map or pointer field serialised even when empty
TIME = "is a metav1.Time, null when zero"
QUANTITY_ZERO = "is a resource.Quantity value, \"0\" when zero"

# (definition, field, zero value, why), read from the Go types of k8s.io/api (<group>/<version>/types.go) and
# k8s.io/apimachinery (meta/v1/types.go): the fields of the kinds policies commonly meet that the apiserver
# serialises even when the request leaves them out. A struct's own fields of this kind are listed under its
# definition, and filled once the struct is there. Not listed: fields a defaulting function sets whatever
# decoding gave them (a ServicePort's targetPort); the fields of status structs other than their counters
# (conditions and the like come from controllers); and the structs on the way to a pod spec (a Pod's spec, a
# template, a job template, the spec of a template): an object without them is invalid (its validation asks
# for containers), and the playground, which validates objects only in part, takes such a sketch as written.
ZERO_VALUES: tuple[tuple[str, str, Any, str], ...] = (
    # metadata
    (_META + "ObjectMeta", "creationTimestamp", None, TIME),
    (_CORE + "PodTemplateSpec", "metadata", {}, STRUCT),
    (_BATCH + "JobTemplateSpec", "metadata", {}, STRUCT),
    (_CORE + "PersistentVolumeClaimTemplate", "metadata", {}, STRUCT),
    (_CORE + "PersistentVolumeClaimTemplate", "spec", {}, STRUCT),
    # core/v1
    (_CORE + "Pod", "status", {}, STRUCT),
    (_CORE + "PodSpec", "containers", None, KEPT),
    (_CORE + "Container", "name", "", KEPT),
    (_CORE + "Container", "resources", {}, STRUCT),
    (_CORE + "EphemeralContainer", "name", "", KEPT),
    (_CORE + "EphemeralContainer", "resources", {}, STRUCT),
    (_CORE + "ContainerPort", "containerPort", 0, KEPT),
    (_CORE + "EnvVar", "name", "", KEPT),
    (_CORE + "VolumeMount", "name", "", KEPT),
    (_CORE + "VolumeMount", "mountPath", "", KEPT),
    (_CORE + "VolumeDevice", "name", "", KEPT),
    (_CORE + "VolumeDevice", "devicePath", "", KEPT),
    (_CORE + "Volume", "name", "", KEPT),
    (_CORE + "ResourceFieldSelector", "resource", "", KEPT),
    (_CORE + "ResourceFieldSelector", "divisor", "0", QUANTITY_ZERO),
    (_CORE + "ObjectFieldSelector", "fieldPath", "", KEPT),
    (_CORE + "ConfigMapKeySelector", "key", "", KEPT),
    (_CORE + "SecretKeySelector", "key", "", KEPT),
    (_CORE + "KeyToPath", "key", "", KEPT),
    (_CORE + "KeyToPath", "path", "", KEPT),
    (_CORE + "HTTPHeader", "name", "", KEPT),
    (_CORE + "HTTPHeader", "value", "", KEPT),
    (_CORE + "NodeSelector", "nodeSelectorTerms", None, KEPT),
    (_CORE + "NodeSelectorRequirement", "key", "", KEPT),
    (_CORE + "NodeSelectorRequirement", "operator", "", KEPT),
    (_CORE + "PreferredSchedulingTerm", "weight", 0, KEPT),
    (_CORE + "PreferredSchedulingTerm", "preference", {}, STRUCT),
    (_CORE + "PodAffinityTerm", "topologyKey", "", KEPT),
    (_CORE + "WeightedPodAffinityTerm", "weight", 0, KEPT),
    (_CORE + "WeightedPodAffinityTerm", "podAffinityTerm", {}, STRUCT),
    (_CORE + "TopologySpreadConstraint", "maxSkew", 0, KEPT),
    (_CORE + "TopologySpreadConstraint", "topologyKey", "", KEPT),
    (_CORE + "TopologySpreadConstraint", "whenUnsatisfiable", "", KEPT),
    (_CORE + "HostAlias", "ip", "", KEPT),
    (_CORE + "Sysctl", "name", "", KEPT),
    (_CORE + "Sysctl", "value", "", KEPT),
    (_CORE + "PodOS", "name", "", KEPT),
    (_CORE + "PodSchedulingGate", "name", "", KEPT),
    (_CORE + "PodReadinessGate", "conditionType", "", KEPT),
    (_CORE + "SeccompProfile", "type", "", KEPT),
    (_CORE + "Service", "spec", {}, STRUCT),
    (_CORE + "Service", "status", {}, STRUCT),
    (_CORE + "ServiceStatus", "loadBalancer", {}, STRUCT),
    (_CORE + "ServicePort", "port", 0, KEPT),
    (_CORE + "Namespace", "spec", {}, STRUCT),
    (_CORE + "Namespace", "status", {}, STRUCT),
    (_CORE + "PersistentVolumeClaim", "spec", {}, STRUCT),
    (_CORE + "PersistentVolumeClaim", "status", {}, STRUCT),
    (_CORE + "PersistentVolumeClaimSpec", "resources", {}, STRUCT),
    (_CORE + "PersistentVolume", "spec", {}, STRUCT),
    (_CORE + "PersistentVolume", "status", {}, STRUCT),
    (_CORE + "TypedLocalObjectReference", "kind", "", KEPT),
    (_CORE + "TypedLocalObjectReference", "name", "", KEPT),
    (_CORE + "TypedLocalObjectReference", "apiGroup", None, KEPT),
    (_CORE + "TypedObjectReference", "kind", "", KEPT),
    (_CORE + "TypedObjectReference", "name", "", KEPT),
    (_CORE + "TypedObjectReference", "apiGroup", None, KEPT),
    (_CORE + "TopologySelectorLabelRequirement", "key", "", KEPT),
    (_CORE + "TopologySelectorLabelRequirement", "values", None, KEPT),
    # meta/v1 selectors
    (_META + "LabelSelectorRequirement", "key", "", KEPT),
    (_META + "LabelSelectorRequirement", "operator", "", KEPT),
    # apps/v1
    (_APPS + "Deployment", "spec", {}, STRUCT),
    (_APPS + "Deployment", "status", {}, STRUCT),
    (_APPS + "DeploymentSpec", "selector", None, KEPT),
    (_APPS + "DeploymentSpec", "strategy", {}, STRUCT),
    (_APPS + "StatefulSet", "spec", {}, STRUCT),
    (_APPS + "StatefulSet", "status", {}, STRUCT),
    (_APPS + "StatefulSetSpec", "selector", None, KEPT),
    (_APPS + "StatefulSetSpec", "serviceName", "", KEPT),
    (_APPS + "StatefulSetSpec", "updateStrategy", {}, STRUCT),
    (_APPS + "StatefulSetStatus", "replicas", 0, KEPT),
    (_APPS + "StatefulSetStatus", "availableReplicas", 0, KEPT),
    (_APPS + "DaemonSet", "spec", {}, STRUCT),
    (_APPS + "DaemonSet", "status", {}, STRUCT),
    (_APPS + "DaemonSetSpec", "selector", None, KEPT),
    (_APPS + "DaemonSetSpec", "updateStrategy", {}, STRUCT),
    (_APPS + "DaemonSetStatus", "currentNumberScheduled", 0, KEPT),
    (_APPS + "DaemonSetStatus", "numberMisscheduled", 0, KEPT),
    (_APPS + "DaemonSetStatus", "desiredNumberScheduled", 0, KEPT),
    (_APPS + "DaemonSetStatus", "numberReady", 0, KEPT),
    (_APPS + "ReplicaSet", "spec", {}, STRUCT),
    (_APPS + "ReplicaSet", "status", {}, STRUCT),
    (_APPS + "ReplicaSetSpec", "selector", None, KEPT),
    (_APPS + "ReplicaSetStatus", "replicas", 0, KEPT),
    # batch/v1
    (_BATCH + "Job", "spec", {}, STRUCT),
    (_BATCH + "Job", "status", {}, STRUCT),
    (_BATCH + "CronJob", "spec", {}, STRUCT),
    (_BATCH + "CronJob", "status", {}, STRUCT),
    (_BATCH + "CronJobSpec", "schedule", "", KEPT),
    (_BATCH + "PodFailurePolicy", "rules", None, KEPT),
    (_BATCH + "PodFailurePolicyOnExitCodesRequirement", "values", None, KEPT),
    # networking/v1
    (_NETWORKING + "Ingress", "spec", {}, STRUCT),
    (_NETWORKING + "Ingress", "status", {}, STRUCT),
    (_NETWORKING + "IngressStatus", "loadBalancer", {}, STRUCT),
    (_NETWORKING + "IngressServiceBackend", "name", "", KEPT),
    (_NETWORKING + "IngressServiceBackend", "port", {}, STRUCT),
    (_NETWORKING + "NetworkPolicy", "spec", {}, STRUCT),
    (_NETWORKING + "NetworkPolicySpec", "podSelector", {}, STRUCT),
    (_NETWORKING + "IPBlock", "cidr", "", KEPT),
    # storage/v1
    ("io.k8s.api.storage.v1.StorageClass", "provisioner", "", KEPT),
    # rbac/v1
    (_RBAC + "Role", "rules", None, KEPT),
    (_RBAC + "ClusterRole", "rules", None, KEPT),
    (_RBAC + "PolicyRule", "verbs", None, KEPT),
    (_RBAC + "RoleBinding", "roleRef", {}, STRUCT),
    (_RBAC + "ClusterRoleBinding", "roleRef", {}, STRUCT),
    (_RBAC + "RoleRef", "apiGroup", "", KEPT),
    (_RBAC + "RoleRef", "kind", "", KEPT),
    (_RBAC + "RoleRef", "name", "", KEPT),
    (_RBAC + "Subject", "kind", "", KEPT),
    (_RBAC + "Subject", "name", "", KEPT),
    # autoscaling
    (_HPA1 + "HorizontalPodAutoscaler", "spec", {}, STRUCT),
    (_HPA1 + "HorizontalPodAutoscaler", "status", {}, STRUCT),
    (_HPA1 + "HorizontalPodAutoscalerSpec", "scaleTargetRef", {}, STRUCT),
    (_HPA1 + "HorizontalPodAutoscalerSpec", "maxReplicas", 0, KEPT),
    (_HPA1 + "CrossVersionObjectReference", "kind", "", KEPT),
    (_HPA1 + "CrossVersionObjectReference", "name", "", KEPT),
    (_HPA1 + "HorizontalPodAutoscalerStatus", "currentReplicas", 0, KEPT),
    (_HPA1 + "HorizontalPodAutoscalerStatus", "desiredReplicas", 0, KEPT),
    (_HPA2 + "HorizontalPodAutoscaler", "spec", {}, STRUCT),
    (_HPA2 + "HorizontalPodAutoscaler", "status", {}, STRUCT),
    (_HPA2 + "HorizontalPodAutoscalerSpec", "scaleTargetRef", {}, STRUCT),
    (_HPA2 + "HorizontalPodAutoscalerSpec", "maxReplicas", 0, KEPT),
    (_HPA2 + "CrossVersionObjectReference", "kind", "", KEPT),
    (_HPA2 + "CrossVersionObjectReference", "name", "", KEPT),
    (_HPA2 + "HorizontalPodAutoscalerStatus", "desiredReplicas", 0, KEPT),
    (_HPA2 + "HorizontalPodAutoscalerStatus", "currentMetrics", None, KEPT),
    (_HPA2 + "HPAScalingPolicy", "type", "", KEPT),
    (_HPA2 + "HPAScalingPolicy", "value", 0, KEPT),
    (_HPA2 + "HPAScalingPolicy", "periodSeconds", 0, KEPT),
    # policy/v1
    (_POLICY + "PodDisruptionBudget", "spec", {}, STRUCT),
    (_POLICY + "PodDisruptionBudget", "status", {}, STRUCT),
    (_POLICY + "PodDisruptionBudgetStatus", "disruptionsAllowed", 0, KEPT),
    (_POLICY + "PodDisruptionBudgetStatus", "currentHealthy", 0, KEPT),
    (_POLICY + "PodDisruptionBudgetStatus", "desiredHealthy", 0, KEPT),
    (_POLICY + "PodDisruptionBudgetStatus", "expectedPods", 0, KEPT),
)


def _nothing(value: dict[str, Any], context: Context) -> None:
    """A zero-value entry's function: :func:`app.vap.defaulting.apply` fills the field itself."""


for _definition, _field, _zero, _why in ZERO_VALUES:
    REGISTRY.setdefault(_definition, []).append(
        Registered(f"{_definition.rpartition('.')[2]}.{_field} {_why}", _nothing, zero=(_field, _zero)))


QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"
QUANTITY_STAGE = f"{STAGE}: resource.Quantity is written in its canonical form"


def canonical_quantities(obj: dict[str, Any], root: Mapping[str, Any],
                         schemas: SchemaSet) -> tuple[dict[str, Any], list[Change]]:
    """The object with every quantity of its kind's schema written as ``resource.Quantity`` serialises it
    (``0.5`` as ``500m``, ``1024Mi`` as ``1Gi``, a JSON number as a string), and each one rewritten; ``obj`` is
    left as it is (only the containers on the way to a rewritten quantity are copied)."""
    made: list[Change] = []
    out = _canonical(obj, root, plans(schemas, _QUANTITY_REGISTRY, (0, 0), prune=fast.on), (), made)
    return out, made


# the definition the walk looks for, as a registry (for the plans of the schema nodes: nothing is called)
_QUANTITY_REGISTRY = {QUANTITY: [Registered("canonical quantity", lambda value, context: None)]}


def _canonical(value: Any, node: Any, plan_of: Callable[[Any], Any], path: tuple[Any, ...],
               made: list[Change]) -> Any:
    """``value`` with its quantities in canonical form, walked on the schema nodes' plans (pruned: what leads to no
    quantity left out)."""
    definition, _, walkable, extra, items = plan_of(node)
    if definition == QUANTITY:
        text = _written(value)
        if text is None or text == value:
            return value
        made.append(Change(QUANTITY_STAGE, path, REPLACE, value, text))
        return text
    if isinstance(value, dict):
        if not walkable and extra is None:
            return value
        out = value
        for key, child in value.items():
            child_node = walkable.get(key) if walkable is not None else extra
            if child_node is None or child is None:
                continue
            new = _canonical(child, child_node, plan_of, (*path, key), made)
            if new is not child:
                if out is value:
                    out = dict(value)
                out[key] = new
        return out
    if items is not None and isinstance(value, list):
        out_list = value
        for index, item in enumerate(value):
            new = _canonical(item, items, plan_of, (*path, index), made)
            if new is not item:
                if out_list is value:
                    out_list = list(value)
                out_list[index] = new
        return out_list
    return value


def _written(value: Any) -> str | None:
    """A quantity as resource.Quantity serialises it, None when it is not one (its text is parsed once: see
    :func:`app.vap.defaulting.core_v1._quantity`)."""
    parsed = quantity_form(value)
    return canonical_quantity(*parsed) if parsed is not None else None
