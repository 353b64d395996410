"""NamespaceLifecycle: no new object in a Namespace being deleted, none in a Namespace that does not exist,
and the three Namespaces kube-apiserver keeps may not be deleted.

The plugin (k8s.io/apiserver/pkg/admission/plugin/namespace/lifecycle) refuses the deletion of the
Namespaces default, kube-system and kube-public; lets every request on a Namespace itself, on a
cluster-scoped resource, every deletion and every LocalSubjectAccessReview through; fails a creation or
an update in a Namespace that does not exist with the NotFound of the lookup; and refuses a creation in
a Namespace whose status.phase is Terminating.

The Namespaces are those pasted in the panes: when none is pasted every namespace is taken to exist, and
be active, as elsewhere in the playground. A request in a namespace missing from those pasted fails here with
404 NotFound, as in kube-apiserver; the policies' own lookups of a missing namespace
(which a real cluster meets only when their informer lags behind) are seen with ``asStored: false``.
"""

from __future__ import annotations

from ... import decision
from ..state import RequestState, StageRecord, Stored
from . import _common as c

PLUGIN = "NamespaceLifecycle"
IMMORTAL = frozenset({"default", "kube-system", "kube-public"})


def admit(state: RequestState, stored: Stored) -> StageRecord:
    """What the plugin does with the request."""
    attrs = state.attrs
    if not attrs.as_stored or attrs.operation not in ("CREATE", "UPDATE", "DELETE"):
        return c.nothing(PLUGIN)
    is_namespace = attrs.kind.group == "" and attrs.kind.kind == "Namespace"
    if attrs.operation == "DELETE" and is_namespace and attrs.name in IMMORTAL:
        return c.refused(PLUGIN, c.forbidden(attrs, "this namespace may not be deleted"))
    if is_namespace or not attrs.namespace or attrs.operation == "DELETE":
        return c.nothing(PLUGIN)
    if (attrs.resource.group, attrs.resource.resource) == ("authorization.k8s.io", "localsubjectaccessreviews"):
        return c.nothing(PLUGIN)
    if stored.cluster.assume_namespaces:  # no Namespace pasted: every namespace exists and is active
        return c.nothing(PLUGIN)
    namespace = stored.cluster.namespace(attrs.namespace)
    if namespace is None:
        status = decision.failure_status(decision.namespace_not_found(attrs.namespace))
        return c.refused(PLUGIN, status, f"namespace {attrs.namespace!r} is not among the Namespaces pasted")
    phase = namespace.get("status", {}).get("phase") if isinstance(namespace.get("status"), dict) else None
    if attrs.operation == "CREATE" and phase == "Terminating":
        status = c.forbidden(attrs, f"unable to create new content in namespace {attrs.namespace} because it is "
                                    "being terminated")
        status["details"]["causes"] = [{"reason": "NamespaceTerminating",
                                        "message": f"namespace {attrs.namespace} is being terminated",
                                        "field": "metadata.namespace"}]
        return c.refused(PLUGIN, status)
    return c.nothing(PLUGIN)


not_reached = c.not_reached_for(PLUGIN)
