"""Each kind's registry strategy: what ``PrepareForCreate`` and ``PrepareForUpdate`` do to the object.

Read from pkg/registry/<group>/<kind>/strategy.go of each kind (and the custom resource strategy of
k8s.io/apiextensions-apiserver/pkg/registry/customresource). What they share:

* **status**: a create cannot set it. The strategy replaces it with the kind's zero status, which the
  apiserver serializes with its fields that are never omitted (a StatefulSet's ``{replicas: 0,
  availableReplicas: 0}``, a Service's ``{loadBalancer: {}}``); a Pod gets ``phase: Pending`` and its QoS
  class, a Namespace ``phase: Active``. An update of the object keeps the stored status, and an update of
  its ``status`` subresource keeps the stored spec instead.
* **generation**: kinds whose controllers report an observedGeneration set ``metadata.generation`` to 1
  on create and add one on an update that changes the spec (a Deployment also when its annotations change;
  a webhook configuration when its webhooks change; a custom resource when anything but its metadata
  changes). Other kinds keep the stored generation.

Kind-specific steps: a Job without ``manualSelector: true`` gets the selector and pod template labels that
tie its pods to its uid (done in the strategy's Validate, before validating admission); a Namespace always
gets the ``kubernetes`` finalizer on create, and an update keeps its stored finalizers; a Pod with
scheduling gates gets the PodScheduled=False condition, reason SchedulingGated; a Pod's labels named by
``matchLabelKeys`` (and ``mismatchLabelKeys``) are merged into its pod affinity terms' selectors (from 1.31)
and its topology spread constraints' (from 1.34); from 1.30 a Pod container with a deprecated AppArmor
annotation and no ``appArmorProfile`` gets the field the annotation stands for, with a deprecation warning
(and until 1.34 the fields are copied to the annotations too); a CertificateSigningRequest's requester
fields (username, uid, groups, extra) are the requesting user's, and an update keeps its stored spec; a
DaemonSet's template generation (at least 1 on create, one more when an update changes its pod template)
shows in apps/v1 as the annotation ``deprecated.daemonset.template.generation``; a CustomResourceDefinition
records its storage version in ``status.storedVersions``.

Kinds not in the table (ConfigMap, Secret, RBAC, StorageClass, ...) have strategies that change nothing
the policies can see.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from . import meta, qos, service_alloc

Obj = dict[str, Any]
Version = tuple[int, int]


@dataclass
class Context:
    """What a strategy step reads besides the object: the Kubernetes version, the requesting user (as the
    request's userInfo), and where it adds the warnings the apiserver returns."""

    version: Version
    user: Mapping[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what the step generated, for the stage's explanation


@dataclass(frozen=True)
class Strategy:
    """What a kind's strategy does (see the module's text)."""

    package: str  # where kube-apiserver keeps it, e.g. "pkg/registry/apps/deployment"
    generation: bool = False  # generation 1 on create, bumped when `tracks` changes on update
    generation_since: Version = (0, 0)
    tracks: tuple[str, ...] = ("spec",)  # the top-level fields whose change bumps the generation
    tracks_annotations: bool = False
    # the status PrepareForCreate leaves (by apiVersion when it differs), None: status untouched
    status: Mapping[str, Any] | Callable[[Obj, str, Version], Any] | None = None
    on_create: tuple[Callable[[Obj, Context], list[str]], ...] = ()
    on_update: tuple[Callable[[Obj, Mapping[str, Any]], list[str]], ...] = ()
    status_update_keeps: tuple[tuple[str, ...], ...] = ()  # metadata fields a status update takes from the stored
    on_status_update: tuple[Callable[[Obj, Mapping[str, Any]], list[str]], ...] = ()
    # the storage's own step around the strategy: BeginCreate runs before PrepareForCreate, BeginUpdate after
    # PrepareForUpdate (k8s.io/apiserver/pkg/registry/generic/registry/store.go)
    begin_create: Callable[[Obj, Context], list[str]] | None = None
    begin_update: Callable[[Obj, Mapping[str, Any], Context], list[str]] | None = None
    note: str = ""


def _own(obj: Obj, *path: str) -> Obj:
    """The mapping at ``path`` in ``obj``, copied with the mappings on its way (made when missing), so that it
    can be changed without changing what ``obj`` shares with the objects it was copied from."""
    node = obj
    for key in path:
        child = node.get(key)
        child = dict(child) if isinstance(child, Mapping) else {}
        node[key] = child
        node = child
    return node


# ---------------------------------------------------------------------------------------------------
# kind-specific steps


def _pod_status(pod: Obj, api_version: str, version: Version) -> Any:
    status: dict[str, Any] = {"phase": "Pending", "qosClass": qos.pod_qos(pod, version)}
    return status


def _pod_scheduling_gates(pod: Obj, ctx: Context) -> list[str]:
    spec = pod.get("spec")
    gates = spec.get("schedulingGates") if isinstance(spec, Mapping) else None
    if not gates:
        return []
    status = _own(pod, "status")
    status["conditions"] = [{"type": "PodScheduled", "status": "False", "reason": "SchedulingGated",
                             "message": "Scheduling is blocked due to non-empty scheduling gates"}]
    return ["the pod has scheduling gates: status.conditions gets PodScheduled=False, reason SchedulingGated"]


def _namespace_finalizer(ns: Obj, ctx: Context) -> list[str]:
    spec = ns.get("spec")
    finalizers = spec.get("finalizers") if isinstance(spec, Mapping) else None
    finalizers = list(finalizers) if isinstance(finalizers, list) else []
    if "kubernetes" in finalizers:
        return []
    _own(ns, "spec")["finalizers"] = [*finalizers, "kubernetes"]
    return ["spec.finalizers gets the kubernetes finalizer, which every new Namespace carries"]


def _namespace_keeps_finalizers(ns: Obj, old: Mapping[str, Any]) -> list[str]:
    old_spec = old.get("spec") if isinstance(old.get("spec"), Mapping) else {}
    new_spec = ns.get("spec") if isinstance(ns.get("spec"), Mapping) else {}
    assert isinstance(old_spec, Mapping) and isinstance(new_spec, Mapping)
    if old_spec.get("finalizers") == new_spec.get("finalizers"):
        return []
    spec = _own(ns, "spec")
    if "finalizers" in old_spec:
        spec["finalizers"] = copy.deepcopy(old_spec["finalizers"])
    else:
        spec.pop("finalizers", None)
    return ["spec.finalizers is kept from the stored Namespace: only the finalize subresource changes it"]


JOB_NAME_LABELS = ("job-name", "batch.kubernetes.io/job-name")
CONTROLLER_UID_LABELS = ("controller-uid", "batch.kubernetes.io/controller-uid")


def _job_selector(job: Obj, ctx: Context) -> list[str]:
    spec = job.get("spec") if isinstance(job.get("spec"), Mapping) else {}
    assert isinstance(spec, Mapping)
    if spec.get("manualSelector") is True:
        return []
    md = meta.metadata(job)
    name, uid = str(md.get("name") or ""), str(md.get("uid") or "")
    labels = _own(job, "spec", "template", "metadata", "labels")
    for key in JOB_NAME_LABELS:
        labels.setdefault(key, name)
    for key in CONTROLLER_UID_LABELS:
        labels.setdefault(key, uid)
    match = _own(job, "spec", "selector", "matchLabels")
    match.setdefault("batch.kubernetes.io/controller-uid", uid)
    return ["the Job's selector is generated (manualSelector is not true): spec.selector.matchLabels selects "
            "batch.kubernetes.io/controller-uid, and the pod template gets the job-name and controller-uid labels"]


def _crd_status(crd: Obj, api_version: str, version: Version) -> Any:
    stored: list[str] = []
    spec = crd.get("spec") if isinstance(crd.get("spec"), Mapping) else {}
    assert isinstance(spec, Mapping)
    for entry in spec.get("versions") or []:
        if isinstance(entry, Mapping) and entry.get("storage") is True:
            stored.append(str(entry.get("name") or ""))
            break
    return {"acceptedNames": {"kind": "", "plural": ""}, "storedVersions": stored}


def _pv_status(pv: Obj, api_version: str, version: Version) -> Any:
    if version >= (1, 29):  # PersistentVolumeLastPhaseTransitionTime, on from 1.29
        return {"phase": "Pending", "lastPhaseTransitionTime": meta.NOW}
    return {}


def _pod_keeps_qos_class(pod: Obj, old: Mapping[str, Any]) -> list[str]:
    """podStatusStrategy: a status update without a QoS class keeps the stored one (it never changes)."""
    status = pod.get("status")
    old_status = old.get("status")
    if isinstance(status, Mapping) and status.get("qosClass"):
        return []
    if not isinstance(old_status, Mapping) or not old_status.get("qosClass"):
        return []
    _own(pod, "status")["qosClass"] = old_status["qosClass"]
    return ["status.qosClass kept from the stored pod: it is set once, on create"]


def _merged_selector(term: Mapping[str, Any], labels: Mapping[str, Any], keys: tuple[tuple[str, str], ...]) -> Any:
    """A copy of ``term`` whose labelSelector gets, for each (field, operator) of ``keys``, a requirement on each of
    the pod's labels that field names (None when nothing is added)."""
    selector = term.get("labelSelector")
    if not isinstance(selector, Mapping):
        return None  # a null selector matches nothing: nothing to merge into
    added = []
    for field_name, operator in keys:
        for key in term.get(field_name) or []:
            if isinstance(key, str) and key in labels:
                added.append({"key": key, "operator": operator, "values": [labels[key]]})
    if not added:
        return None
    expressions = selector.get("matchExpressions")
    return {**term, "labelSelector": {**selector, "matchExpressions": [*(expressions or []), *added]}}


def _pod_match_label_keys(pod: Obj, ctx: Context) -> list[str]:
    """mutatePodAffinity (MatchLabelKeysInPodAffinity, on from 1.31) and mutateTopologySpreadConstraints
    (MatchLabelKeysInPodTopologySpreadSelectorMerge, on from 1.34): the values of the pod's labels named by
    matchLabelKeys (In) and mismatchLabelKeys (NotIn) are merged into the terms' label selectors."""
    spec = pod.get("spec") if isinstance(pod.get("spec"), Mapping) else {}
    assert isinstance(spec, Mapping)
    labels = meta.metadata(pod).get("labels")
    labels = labels if isinstance(labels, Mapping) else {}
    words: list[str] = []
    affinity = spec.get("affinity")
    if ctx.version >= (1, 31) and isinstance(affinity, Mapping):
        keys = (("matchLabelKeys", "In"), ("mismatchLabelKeys", "NotIn"))
        for kind in ("podAffinity", "podAntiAffinity"):
            block = affinity.get(kind)
            if not isinstance(block, Mapping):
                continue
            for when in ("requiredDuringSchedulingIgnoredDuringExecution",
                         "preferredDuringSchedulingIgnoredDuringExecution"):
                terms = block.get(when)
                for index, term in enumerate(terms if isinstance(terms, list) else []):
                    if not isinstance(term, Mapping):
                        continue
                    inner = term.get("podAffinityTerm") if when.startswith("preferred") else term
                    merged = _merged_selector(inner, labels, keys) if isinstance(inner, Mapping) else None
                    if merged is None:
                        continue
                    new_terms = list(_own(pod, "spec", "affinity", kind)[when])
                    new_terms[index] = {**term, "podAffinityTerm": merged} if when.startswith("preferred") else merged
                    _own(pod, "spec", "affinity", kind)[when] = new_terms
                    words.append(f"spec.affinity.{kind}.{when}[{index}]: the pod's labels named by matchLabelKeys "
                                 "and mismatchLabelKeys are merged into its labelSelector")
    constraints = spec.get("topologySpreadConstraints")
    if ctx.version >= (1, 34) and isinstance(constraints, list):
        for index, constraint in enumerate(constraints):
            if not isinstance(constraint, Mapping):
                continue
            merged = _merged_selector(constraint, labels, (("matchLabelKeys", "In"),))
            if merged is None:
                continue
            new_constraints = list(_own(pod, "spec")["topologySpreadConstraints"])
            new_constraints[index] = merged
            _own(pod, "spec")["topologySpreadConstraints"] = new_constraints
            words.append(f"spec.topologySpreadConstraints[{index}]: the pod's labels named by matchLabelKeys are "
                         "merged into its labelSelector")
    return words


APPARMOR_ANNOTATION_PREFIX = "container.apparmor.security.beta.kubernetes.io/"


def _apparmor_field(annotation: Any) -> dict[str, Any] | None:
    """The appArmorProfile field an AppArmor annotation stands for (None when it stands for no valid one)."""
    if annotation == "runtime/default":
        return {"type": "RuntimeDefault"}
    if annotation == "unconfined":
        return {"type": "Unconfined"}
    if isinstance(annotation, str) and annotation.startswith("localhost/"):
        profile = annotation[len("localhost/"):]
        if profile and len(profile) <= 4095 and profile.strip() == profile:
            return {"type": "Localhost", "localhostProfile": profile}
    return None


def _apparmor_annotation(profile: Any) -> str:
    """The deprecated annotation value an appArmorProfile field stands for ("" when none)."""
    if not isinstance(profile, Mapping):
        return ""
    kind = profile.get("type")
    if kind == "Unconfined":
        return "unconfined"
    if kind == "RuntimeDefault":
        return "runtime/default"
    if kind == "Localhost" and isinstance(profile.get("localhostProfile"), str):
        return "localhost/" + profile["localhostProfile"]
    return ""


def _pod_apparmor_fields(pod: Obj, ctx: Context) -> list[str]:
    """applyAppArmorVersionSkew (1.30+): a container with an AppArmor annotation and no appArmorProfile field gets
    the field the annotation stands for, unless the pod-level profile is the same; every such annotation is
    answered with a deprecation warning. Before 1.34 the fields were also copied the other way: a container
    without an annotation got the one its own profile, or else the pod's, stands for."""
    if ctx.version < (1, 30):
        return []
    spec = pod.get("spec") if isinstance(pod.get("spec"), Mapping) else {}
    assert isinstance(spec, Mapping)
    if isinstance(spec.get("os"), Mapping) and spec["os"].get("name") == "windows":
        return []
    annotations = meta.metadata(pod).get("annotations")
    annotations = annotations if isinstance(annotations, Mapping) else {}
    to_annotations = ctx.version < (1, 34)
    if not to_annotations and not any(str(k).startswith(APPARMOR_ANNOTATION_PREFIX) for k in annotations):
        return []
    pod_context = spec.get("securityContext")
    pod_profile = pod_context.get("appArmorProfile") if isinstance(pod_context, Mapping) else None
    words = []
    added: dict[str, str] = {}
    for key in ("initContainers", "containers", "ephemeralContainers"):
        containers = spec.get(key)
        for index, container in enumerate(containers if isinstance(containers, list) else []):
            if not isinstance(container, Mapping):
                continue
            annotation_key = APPARMOR_ANNOTATION_PREFIX + str(container.get("name") or "")
            context = container.get("securityContext")
            container_profile = context.get("appArmorProfile") if isinstance(context, Mapping) else None
            if annotation_key not in annotations:
                if to_annotations:
                    value = _apparmor_annotation(container_profile if container_profile is not None else pod_profile)
                    if value:
                        added[annotation_key] = value
                continue
            if container_profile is not None:
                continue
            profile = _apparmor_field(annotations[annotation_key])
            warn = profile is None
            if profile is not None and profile != pod_profile:
                containers_copy = list(_own(pod, "spec")[key])
                _own(pod, "spec")[key] = containers_copy
                item = dict(containers_copy[index])
                item["securityContext"] = {**(context if isinstance(context, Mapping) else {}),
                                           "appArmorProfile": profile}
                containers_copy[index] = item
                words.append(f"spec.{key}[{index}].securityContext.appArmorProfile set from the deprecated "
                             f"annotation {annotation_key}")
                warn = True
            if warn:
                ctx.warnings.append(f"metadata.annotations[{annotation_key}]: deprecated since v1.30; use the "
                                    '"appArmorProfile" field instead')
    if added:
        pod["metadata"]["annotations"] = {**annotations, **added}
        words.append("the deprecated AppArmor annotations of " + ", ".join(sorted(added)) + " are set from the "
                     "appArmorProfile fields (until 1.34 the apiserver kept both in step for older nodes)")
    return words


def _csr_requester(csr: Obj, ctx: Context) -> list[str]:
    """The CertificateSigningRequest strategy replaces the requester fields of the spec by the request's user."""
    spec = _own(csr, "spec")
    for key in ("username", "uid", "groups", "extra"):
        spec.pop(key, None)
    user = ctx.user
    if user.get("username"):
        spec["username"] = user["username"]
    if user.get("uid"):
        spec["uid"] = user["uid"]
    if user.get("groups"):
        spec["groups"] = copy.deepcopy(list(user["groups"]))
    if user.get("extra"):
        spec["extra"] = copy.deepcopy(dict(user["extra"]))
    return ["spec.username, uid, groups and extra are the requesting user's"]


def _csr_keeps_spec(csr: Obj, old: Mapping[str, Any]) -> list[str]:
    if csr.get("spec") == old.get("spec"):
        return []
    csr["spec"] = copy.deepcopy(old.get("spec"))
    return ["spec kept from the stored CertificateSigningRequest: an update cannot change it"]


TEMPLATE_GENERATION = "deprecated.daemonset.template.generation"


def _template_generation(obj: Mapping[str, Any]) -> int:
    """A DaemonSet's template generation, which apps/v1 carries in an annotation (0 when absent or unreadable)."""
    annotations = meta.metadata(obj).get("annotations")
    value = annotations.get(TEMPLATE_GENERATION) if isinstance(annotations, Mapping) else None
    try:
        return int(str(value))
    except ValueError:
        return 0


def _set_template_generation(ds: Obj, value: int) -> None:
    md = ds["metadata"]
    annotations = dict(md.get("annotations") or {})
    annotations[TEMPLATE_GENERATION] = str(value)
    md["annotations"] = annotations


def _daemonset_template_generation(ds: Obj, ctx: Context) -> list[str]:
    """daemonSetStrategy.PrepareForCreate: the template generation is at least 1; apps/v1 shows it as an
    annotation."""
    value = max(_template_generation(ds), 1)
    if _template_generation(ds) == value and TEMPLATE_GENERATION in (meta.metadata(ds).get("annotations") or {}):
        return []
    _set_template_generation(ds, value)
    return [f"metadata.annotations[{TEMPLATE_GENERATION}] is {value}: the template generation, as apps/v1 shows it"]


def _daemonset_template_generation_update(ds: Obj, old: Mapping[str, Any]) -> list[str]:
    """daemonSetStrategy.PrepareForUpdate: the stored template generation (1 for a stored object pasted without
    it), one more when the pod template changes."""
    stored = _template_generation(old) or 1
    old_spec = old.get("spec") if isinstance(old.get("spec"), Mapping) else {}
    new_spec = ds.get("spec") if isinstance(ds.get("spec"), Mapping) else {}
    assert isinstance(old_spec, Mapping) and isinstance(new_spec, Mapping)
    value = stored + 1 if old_spec.get("template") != new_spec.get("template") else stored
    before = meta.metadata(ds).get("annotations")
    if isinstance(before, Mapping) and before.get(TEMPLATE_GENERATION) == str(value):
        return []
    _set_template_generation(ds, value)
    return [f"metadata.annotations[{TEMPLATE_GENERATION}] is {value}: the stored template generation"
            + (", one more as the pod template changes" if value > stored else "")]


def _service_begin_create(svc: Obj, ctx: Context) -> list[str]:
    """The Service storage's beginCreate: IP families, cluster IPs and node ports (:mod:`.service_alloc`)."""
    words, notes = service_alloc.allocate_create(svc)
    ctx.notes.extend(notes)
    return words


def _service_begin_update(svc: Obj, old: Mapping[str, Any], ctx: Context) -> list[str]:
    """The Service storage's beginUpdate: the stored allocations kept, what the update newly needs allocated."""
    words, notes = service_alloc.allocate_update(svc, old)
    ctx.notes.extend(notes)
    return words


_ZERO_COUNTS_PDB = {"currentHealthy": 0, "desiredHealthy": 0, "disruptionsAllowed": 0, "expectedPods": 0}
_ZERO_COUNTS_DS = {"currentNumberScheduled": 0, "desiredNumberScheduled": 0, "numberMisscheduled": 0,
                   "numberReady": 0}

# (group, kind) -> strategy
STRATEGIES: dict[tuple[str, str], Strategy] = {
    ("", "Pod"): Strategy("pkg/registry/core/pod", generation=True, generation_since=(1, 33), status=_pod_status,
                          on_create=(_pod_scheduling_gates, _pod_match_label_keys, _pod_apparmor_fields),
                          status_update_keeps=(("ownerReferences",),), on_status_update=(_pod_keeps_qos_class,)),
    ("", "PodTemplate"): Strategy("pkg/registry/core/podtemplate", generation=True, tracks=("template",)),
    ("", "Namespace"): Strategy("pkg/registry/core/namespace", status={"phase": "Active"},
                                on_create=(_namespace_finalizer,), on_update=(_namespace_keeps_finalizers,)),
    ("", "Service"): Strategy("pkg/registry/core/service", status={"loadBalancer": {}},
                              begin_create=_service_begin_create, begin_update=_service_begin_update),
    ("", "PersistentVolumeClaim"): Strategy("pkg/registry/core/persistentvolumeclaim", status={}),
    ("", "PersistentVolume"): Strategy("pkg/registry/core/persistentvolume", status=_pv_status),
    ("", "ReplicationController"): Strategy("pkg/registry/core/replicationcontroller", generation=True,
                                            status={"replicas": 0}),
    ("", "ResourceQuota"): Strategy("pkg/registry/core/resourcequota", status={}),
    ("apps", "Deployment"): Strategy("pkg/registry/apps/deployment", generation=True, tracks_annotations=True,
                                     status={}, status_update_keeps=(("labels",),)),
    ("apps", "StatefulSet"): Strategy("pkg/registry/apps/statefulset", generation=True,
                                      status={"availableReplicas": 0, "replicas": 0}),
    ("apps", "DaemonSet"): Strategy("pkg/registry/apps/daemonset", generation=True, status=_ZERO_COUNTS_DS,
                                    on_create=(_daemonset_template_generation,),
                                    on_update=(_daemonset_template_generation_update,)),
    ("apps", "ReplicaSet"): Strategy("pkg/registry/apps/replicaset", generation=True, status={"replicas": 0}),
    ("certificates.k8s.io", "CertificateSigningRequest"): Strategy(
        "pkg/registry/certificates/certificates", status={}, on_create=(_csr_requester,), on_update=(_csr_keeps_spec,)),
    ("batch", "Job"): Strategy("pkg/registry/batch/job", generation=True, status={}, on_create=(_job_selector,)),
    ("batch", "CronJob"): Strategy("pkg/registry/batch/cronjob", generation=True, status={}),
    ("networking.k8s.io", "Ingress"): Strategy("pkg/registry/networking/ingress", generation=True,
                                               status={"loadBalancer": {}}),
    ("networking.k8s.io", "NetworkPolicy"): Strategy("pkg/registry/networking/networkpolicy", generation=True),
    ("policy", "PodDisruptionBudget"): Strategy("pkg/registry/policy/poddisruptionbudget", generation=True,
                                                status=_ZERO_COUNTS_PDB),
    ("autoscaling", "HorizontalPodAutoscaler"): Strategy(
        "pkg/registry/autoscaling/horizontalpodautoscaler",
        status={"autoscaling/v1": {"currentReplicas": 0, "desiredReplicas": 0},
                "autoscaling/v2": {"currentMetrics": None, "desiredReplicas": 0}},
        note="the HPAGeneration feature gate (off here) would also make it track its generation"),
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"): Strategy(
        "pkg/registry/admissionregistration/validatingadmissionpolicy", generation=True, status={}),
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding"): Strategy(
        "pkg/registry/admissionregistration/validatingadmissionpolicybinding", generation=True),
    ("admissionregistration.k8s.io", "MutatingAdmissionPolicy"): Strategy(
        "pkg/registry/admissionregistration/mutatingadmissionpolicy", generation=True),
    ("admissionregistration.k8s.io", "MutatingAdmissionPolicyBinding"): Strategy(
        "pkg/registry/admissionregistration/mutatingadmissionpolicybinding", generation=True),
    ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"): Strategy(
        "pkg/registry/admissionregistration/validatingwebhookconfiguration", generation=True, tracks=("webhooks",)),
    ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"): Strategy(
        "pkg/registry/admissionregistration/mutatingwebhookconfiguration", generation=True, tracks=("webhooks",)),
    ("apiextensions.k8s.io", "CustomResourceDefinition"): Strategy(
        "apiextensions-apiserver/pkg/registry/customresourcedefinition", generation=True, status=_crd_status),
    ("flowcontrol.apiserver.k8s.io", "FlowSchema"): Strategy("pkg/registry/flowcontrol/flowschema",
                                                             generation=True, status={}),
    ("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"): Strategy(
        "pkg/registry/flowcontrol/prioritylevelconfiguration", generation=True, status={}),
}


def custom_resource(has_status: bool) -> Strategy:
    """The strategy of a custom resource: generation always tracked (any change outside metadata), the status
    reset and kept only when its CustomResourceDefinition declares the status subresource."""
    return Strategy("apiextensions-apiserver/pkg/registry/customresource", generation=True,
                    tracks=(), status={} if has_status else None)


def lookup(group: str, kind: str) -> Strategy | None:
    return STRATEGIES.get((group, kind))


def created_status(strategy: Strategy, obj: Obj, api_version: str, version: Version) -> Any:
    """The status a create leaves an object of the kind with (its zero status, or the strategy's own)."""
    status = strategy.status
    if callable(status):
        return status(obj, api_version, version)
    assert status is not None
    if status and all(isinstance(k, str) and "/" in k for k in status):
        return copy.deepcopy(status.get(api_version, {}))
    return copy.deepcopy(dict(status))


def tracks_generation(strategy: Strategy, version: Version) -> bool:
    return strategy.generation and version >= strategy.generation_since


def prepare_for_create(strategy: Strategy, obj: Obj, version: Version, custom: bool,
                       ctx: Context | None = None) -> list[str]:
    """PrepareForCreate (and the Job's selector, set in its Validate) on ``obj``, a copy whose top level and
    metadata are the caller's own; what it did, in words (warnings go to ``ctx``)."""
    ctx = ctx or Context(version)
    words: list[str] = []
    api_version = str(obj.get("apiVersion") or "")
    if strategy.begin_create is not None and not custom:
        words.extend(strategy.begin_create(obj, ctx))
    if strategy.status is not None:
        if custom:
            if "status" in obj:
                del obj["status"]
                words.append("status removed: the custom resource has a status subresource, a create cannot set it")
        else:
            before = obj.get("status")
            obj["status"] = created_status(strategy, obj, api_version, version)
            if before != obj["status"]:
                words.append("status reset: a create cannot set it")
    if tracks_generation(strategy, version):
        obj["metadata"]["generation"] = 1
        words.append("metadata.generation set to 1: the kind's controllers report the generation they observed")
    for step in strategy.on_create:
        words.extend(step(obj, ctx))
    return words


def _non_metadata(obj: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in obj.items() if k != "metadata"}


def prepare_for_update(strategy: Strategy, obj: Obj, old: Mapping[str, Any], version: Version, custom: bool,
                       subresource: str, ctx: Context | None = None) -> list[str]:
    """PrepareForUpdate of the object (``subresource`` "") or of its status subresource, on ``obj`` (its top
    level and metadata the caller's own), then the storage's BeginUpdate; ``old`` is the stored object. What it
    did, in words (what it generated goes to ``ctx``)."""
    words: list[str] = []
    api_version = str(obj.get("apiVersion") or "")
    if subresource == "status":
        if obj.get("spec") != old.get("spec"):
            if "spec" in old:
                obj["spec"] = copy.deepcopy(old["spec"])
            else:
                obj.pop("spec", None)
            words.append("spec kept from the stored object: an update of the status subresource cannot change it")
        md = obj["metadata"]
        old_md = meta.metadata(old)
        for (key,) in strategy.status_update_keeps:
            if md.get(key) != old_md.get(key):
                if key in old_md:
                    md[key] = copy.deepcopy(old_md[key])
                else:
                    md.pop(key, None)
                words.append(f"metadata.{key} kept from the stored object: a status update cannot change it")
        for status_step in strategy.on_status_update:
            words.extend(status_step(obj, old))
        return words
    if strategy.status is not None:
        if custom:
            if "status" in old:
                if obj.get("status") != old["status"]:
                    obj["status"] = copy.deepcopy(old["status"])
                    words.append("status kept from the stored object: only the status subresource changes it")
            elif "status" in obj:
                del obj["status"]
                words.append("status removed: only the status subresource sets it")
        else:
            kept = copy.deepcopy(old["status"]) if "status" in old else created_status(strategy, obj, api_version,
                                                                                     version)
            if obj.get("status") != kept:
                obj["status"] = kept
                words.append("status kept from the stored object: only the status subresource changes it")
    for step in strategy.on_update:
        words.extend(step(obj, old))
    if strategy.begin_update is not None and not custom:
        words.extend(strategy.begin_update(obj, old, ctx or Context(version)))
    if tracks_generation(strategy, version):
        if custom:
            changed = _non_metadata(obj) != _non_metadata(old)
            what = "something outside metadata"
        else:
            changed = any(obj.get(key) != old.get(key) for key in strategy.tracks)
            what = " or ".join(strategy.tracks)
            if strategy.tracks_annotations:
                changed = changed or meta.metadata(obj).get("annotations") != meta.metadata(old).get("annotations")
                what += " or metadata.annotations"
        if changed:
            obj["metadata"]["generation"] = meta.generation(old) + 1
            words.append(f"metadata.generation bumped to {meta.generation(old) + 1}: the update changes {what}")
    return words

