"""PodSecurity: the Pod Security Standards a Namespace's ``pod-security.kubernetes.io/*`` labels ask for
(plugin/pkg/admission/security/podsecurity, delegating to k8s.io/pod-security-admission admission/admission.go;
the checks are :mod:`app.vap.podsecurity`).

A validating plugin, run after mutating admission on the object as it will be stored. It acts on CREATE and
UPDATE of:

* Pods (and their subresources other than exec, attach, binding, eviction, log, portforward, proxy and status,
  so ``ephemeralcontainers`` too): the enforce level refuses the Pod with 403 Forbidden, the audit level adds the
  ``pod-security.kubernetes.io/audit-violations`` audit annotation, the warn level a warning (not when the
  request is refused); every Pod evaluated gets ``pod-security.kubernetes.io/enforce-policy``. An update that
  changes no container image and no number of containers is let through unchecked;
* the workloads with a pod template (ReplicationController, PodTemplate, ReplicaSet, Deployment, StatefulSet,
  DaemonSet, Job, CronJob; not their subresources): audit and warn only, never refused;
* Namespaces: invalid pod-security labels refuse a creation (422 Invalid), and an update that makes them
  invalid; an update making the enforce level stricter warns about the Pods already in the Namespace (the Pods
  pasted in the panes).

The Namespace's labels are those of the Namespace pasted in the panes; with none pasted a namespace has only
its name label, so the cluster's default policy applies: privileged:latest for all three modes, as in a cluster
whose PodSecurity plugin is given no AdmissionConfiguration. The exemptions (usernames, runtime classes,
namespaces) exist only in that configuration, so none applies here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ... import decision, podsecurity
from ...cel.library import version_tuple
from ...cel.library.goquote import go_quote
from ...validation import invalid
from ..object_validation import invalid_status
from ..state import DENIED, NOTHING_TO_DO, RequestState, StageRecord, Stored
from . import _common as c

__all__ = ["PLUGIN", "admit", "not_reached"]

PLUGIN = "PodSecurity"
# what a Pod in a namespace whose policy is privileged for every mode gets (admission/response.go)
_PRIVILEGED = StageRecord(PLUGIN, NOTHING_TO_DO, audit_annotations={
    podsecurity.ENFORCE_POLICY_ANNOTATION: str(podsecurity.LevelVersion(podsecurity.PRIVILEGED))})


def admit(state: RequestState, stored: Stored) -> StageRecord:
    """What the plugin's Validate does with the request."""
    attrs = state.attrs
    if not attrs.as_stored or attrs.operation not in ("CREATE", "UPDATE") or not isinstance(attrs.object, dict):
        return c.nothing(PLUGIN)
    where = (attrs.resource.group, attrs.resource.resource)
    if where == ("", "pods"):
        return _pod(state, stored)
    if where == ("", "namespaces"):
        return _namespace(state, stored)
    path = podsecurity.POD_TEMPLATE_PATHS.get(where)
    if path is None or attrs.subresource:
        return c.nothing(PLUGIN)
    labels = _labels(stored, attrs.namespace)
    if not podsecurity.has_labels(labels):  # the default policy: privileged for audit and warn
        return c.nothing(PLUGIN)
    policy, errors = podsecurity.policy_to_evaluate(labels)
    if not errors and policy.audit.level == policy.warn.level == podsecurity.PRIVILEGED:
        return c.nothing(PLUGIN)
    template = podsecurity.pod_template(attrs.object, path)
    if template is None:
        return c.nothing(PLUGIN)
    result = podsecurity.evaluate_pod(policy, errors, c.meta(template), c.spec(template),
                                      version_tuple(stored.version), enforce=False)
    return StageRecord(PLUGIN, NOTHING_TO_DO, _explained(attrs.namespace, policy), warnings=result.warnings,
                       audit_annotations=result.audit_annotations)


not_reached = c.not_reached_for(PLUGIN)


def _labels(stored: Stored, namespace: str) -> Mapping[str, Any]:
    found = stored.cluster.namespace(namespace) if namespace else None
    labels = c.meta(found).get("labels") if found is not None else None
    return labels if isinstance(labels, Mapping) else {}


def _explained(namespace: str, policy: podsecurity.Policy) -> tuple[str, ...]:
    return (f"namespace {namespace!r} asks for enforce {policy.enforce}, audit {policy.audit}, "
            f"warn {policy.warn}",)


def _pod(state: RequestState, stored: Stored) -> StageRecord:
    attrs = state.attrs
    if attrs.subresource in podsecurity.IGNORED_POD_SUBRESOURCES:
        return c.nothing(PLUGIN)
    labels = _labels(stored, attrs.namespace)
    if not podsecurity.has_labels(labels):  # the common case, answered at once
        return _PRIVILEGED
    policy, errors = podsecurity.policy_to_evaluate(labels)
    if not errors and policy.fully_privileged:
        return _PRIVILEGED
    pod = attrs.object
    if pod.get("kind") != "Pod":
        return _bad_request(attrs, "failed to decode pod")
    explanation = _explained(attrs.namespace, policy)
    if attrs.operation == "UPDATE":
        old = attrs.old_object
        if old is None:  # the apiserver always has the stored Pod; without one the update is taken to matter
            explanation += ("no old object given: the update is checked as one that changes a container image",)
        elif not isinstance(old, dict) or old.get("kind") != "Pod":
            return _bad_request(attrs, "failed to decode old pod")
        elif not podsecurity.is_significant_pod_update(pod, old):
            return c.nothing(PLUGIN, "the update changes no container image and no number of containers: "
                                     "the pod security levels are not checked")
    result = podsecurity.evaluate_pod(policy, errors, c.meta(pod), c.spec(pod), version_tuple(stored.version),
                                      enforce=True)
    if result.denied is None:
        return StageRecord(PLUGIN, NOTHING_TO_DO, explanation, warnings=result.warnings,
                           audit_annotations=result.audit_annotations)
    status = _forbidden(attrs.resource.resource, attrs.name, result.denied)
    return StageRecord(PLUGIN, DENIED, (*explanation, status["message"]), status=status, decided_by=PLUGIN,
                       audit_annotations=result.audit_annotations)


def _forbidden(resource: str, name: str, why: str) -> dict[str, Any]:
    """apierrors.NewForbidden for the core resource and the request's name (left out when it is empty)."""
    message = f'{resource} "{name}" is forbidden: {why}' if name else f"{resource} is forbidden: {why}"
    details = {"name": name, "kind": resource} if name else {"kind": resource}
    return decision.failure_status({"message": message, "reason": "Forbidden", "details": details, "code": 403})


def _bad_request(attrs: Any, message: str) -> StageRecord:
    """The plugin's BadRequest, over the details of the generic Forbidden it starts from (it carries none)."""
    status = decision.failure_status({"message": message, "reason": "BadRequest",
                                      "details": decision.forbidden_details(attrs), "code": 400})
    return StageRecord(PLUGIN, DENIED, (message,), status=status, decided_by=PLUGIN,
                       audit_annotations={podsecurity.ERROR_ANNOTATION: message})


def _namespace(state: RequestState, stored: Stored) -> StageRecord:
    """ValidateNamespace: valid labels on a creation and on an update that changes them; an update making the
    enforce level stricter warns about the Pods already in the Namespace."""
    attrs = state.attrs
    if attrs.subresource:
        return c.nothing(PLUGIN)
    labels = c.meta(attrs.object).get("labels")
    labels = labels if isinstance(labels, Mapping) else {}
    old_labels = c.meta(attrs.old_object).get("labels") if attrs.operation == "UPDATE" else None
    old_labels = old_labels if isinstance(old_labels, Mapping) else {}
    if not podsecurity.has_labels(labels) and not podsecurity.has_labels(old_labels):
        return c.nothing(PLUGIN)
    policy, errors = podsecurity.policy_to_evaluate(labels)
    if attrs.operation == "CREATE":
        return _invalid(attrs.name, errors) if errors else c.nothing(PLUGIN)
    old_policy, old_errors = podsecurity.policy_to_evaluate(old_labels)
    if errors and (not old_errors or errors != old_errors):
        return _invalid(attrs.name, errors)
    new, old = policy.enforce, old_policy.enforce
    if new == old or new.level == podsecurity.PRIVILEGED or (
            new.version == old.version and podsecurity.LEVELS.index(new.level) <= podsecurity.LEVELS.index(old.level)):
        return c.nothing(PLUGIN)
    warnings = _existing_pods(stored, attrs.name, new)
    return StageRecord(PLUGIN, NOTHING_TO_DO, (f"the enforce level becomes {new}: the Pods pasted in namespace "
                                               f"{attrs.name!r} are checked against it",), warnings=warnings)


def _invalid(name: str, errors: tuple[podsecurity.LabelError, ...]) -> StageRecord:
    status = invalid_status("Namespace", "", name, [invalid(e.field, e.value, e.detail) for e in errors])
    return c.refused(PLUGIN, status)


def _existing_pods(stored: Stored, namespace: str, enforce: podsecurity.LevelVersion) -> tuple[str, ...]:
    """EvaluatePodsInNamespace: one warning saying that pods violate the new level, then one a distinct list of
    failed checks, naming the lexically first pod with it and how many others."""
    server = version_tuple(stored.version)
    first: dict[str, str] = {}
    counts: dict[str, int] = {}
    for pod in c.pasted(stored, ("v1",), "Pod"):
        if c.namespace_of(pod) != namespace:
            continue
        failed = podsecurity.check_pod(enforce, c.meta(pod), c.spec(pod), server)
        if not failed:
            continue
        reasons = ", ".join(reason for reason, _ in failed)
        name = c.name_of(pod)
        first[reasons] = min(first.get(reasons, name), name)
        counts[reasons] = counts.get(reasons, 0) + 1
    if not first:
        return ()
    decorated = []
    for reasons, name in first.items():
        others = counts[reasons] - 1
        tail = "" if others == 0 else " (and 1 other pod)" if others == 1 else f" (and {others} other pods)"
        decorated.append(f"{name}{tail}: {reasons}")
    head = (f"existing pods in namespace {go_quote(namespace)} violate the new PodSecurity enforce level "
            f"{go_quote(str(enforce))}")
    return (head, *sorted(decorated))
