"""What the registry validates of every object's metadata, and the commonest checks of a Pod's containers.

Restates k8s.io/apimachinery/pkg/api/validation/objectmeta.go (ValidateObjectMetaAccessor, with each
kind's name function, and ValidateObjectMetaAccessorUpdate), the common checks the generic registry makes
in k8s.io/apiserver/pkg/registry/rest/create.go (BeforeCreate: after the kind's own validation passed,
the name must be a valid path segment) and update.go (validateCommonFields), and, of
pkg/apis/core/validation/validation.go, what validateContainers checks first: a pod spec has
containers, each with a name (a DNS-1123 label, unique in the list) and an image.

A kind's own validation is much more than this (a Deployment's selector, a Service's ports, ...): only
what is written here is checked.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .. import validation
from ..validation import FieldError

NameFunction = Callable[[str, bool], list[str]]

# The name function of each kind whose metadata validation does not use NameIsDNSSubdomain ((group, kind)).
_NAME_FUNCTIONS: dict[tuple[str, str], NameFunction] = {
    ("", "Namespace"): validation.name_is_dns_label,
    ("", "Service"): validation.name_is_dns1035_label,
    **{("rbac.authorization.k8s.io", kind): validation.path_segment_name
       for kind in ("Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding")},
}

# where each kind holding a pod spec holds it
POD_SPECS: dict[tuple[str, str], tuple[str, ...]] = {
    ("", "Pod"): ("spec",),
    ("", "PodTemplate"): ("template", "spec"),
    ("", "ReplicationController"): ("spec", "template", "spec"),
    **{("apps", kind): ("spec", "template", "spec")
       for kind in ("Deployment", "ReplicaSet", "StatefulSet", "DaemonSet")},
    ("batch", "Job"): ("spec", "template", "spec"),
    ("batch", "CronJob"): ("spec", "jobTemplate", "spec", "template", "spec"),
}

NEGATIVE = "must be greater than or equal to 0"
IMMUTABLE = "field is immutable"
TOTAL_ANNOTATION_SIZE = 256 * 1024


def name_function(group: str, kind: str) -> NameFunction:
    """The kind's ValidateNameFunc (NameIsDNSSubdomain unless listed)."""
    return _NAME_FUNCTIONS.get((group, kind), validation.name_is_dns_subdomain)


def _text(md: Mapping[str, Any], key: str) -> str:
    value = md.get(key)
    return value if isinstance(value, str) else ""


def object_meta(md: Mapping[str, Any], namespaced: bool, name_fn: NameFunction,
                path: str = "metadata") -> list[FieldError]:
    """ValidateObjectMetaAccessor: metadata as every kind validates it on create."""
    errs: list[FieldError] = []
    name, generate_name = _text(md, "name"), _text(md, "generateName")
    if generate_name:
        errs += [validation.invalid(f"{path}.generateName", generate_name, m) for m in name_fn(generate_name, True)]
    if not name:
        errs.append(validation.required(f"{path}.name", "name or generateName is required"))
    else:
        errs += [validation.invalid(f"{path}.name", name, m) for m in name_fn(name, False)]
    return errs + _common(md, namespaced, path)


def _common(md: Mapping[str, Any], namespaced: bool, path: str) -> list[FieldError]:
    """What ValidateObjectMetaAccessor checks after the name: namespace, generation, labels, annotations,
    owner references and finalizers."""
    errs: list[FieldError] = []
    namespace = _text(md, "namespace")
    if namespaced:
        if not namespace:
            errs.append(validation.required(f"{path}.namespace"))
        else:
            errs += [validation.invalid(f"{path}.namespace", namespace, m)
                     for m in validation.name_is_dns_label(namespace, False)]
    elif namespace:
        errs.append(validation.forbidden(f"{path}.namespace", "not allowed on this type"))
    generation = md.get("generation")
    if isinstance(generation, int) and not isinstance(generation, bool) and generation < 0:
        errs.append(validation.invalid(f"{path}.generation", generation, NEGATIVE))
    errs += _labels_and_annotations(md, path)
    errs += _owner_references(md.get("ownerReferences"), f"{path}.ownerReferences")
    errs += _finalizers(md.get("finalizers"), f"{path}.finalizers")
    return errs


def _string_map(value: Any) -> dict[str, str]:
    if not isinstance(value, Mapping):
        return {}
    return {str(k): v if isinstance(v, str) else "" for k, v in value.items()}


def _labels_and_annotations(md: Mapping[str, Any], path: str) -> list[FieldError]:
    errs = validation.validate_labels(_string_map(md.get("labels")), f"{path}.labels")
    annotations = _string_map(md.get("annotations"))
    for key in sorted(annotations):  # (Go iterates the map in random order)
        errs += [validation.invalid(f"{path}.annotations", key, m) for m in validation.qualified_name(key.lower())]
    size = sum(len(k.encode("utf-8", "surrogatepass")) + len(v.encode("utf-8", "surrogatepass"))
               for k, v in annotations.items())
    if size > TOTAL_ANNOTATION_SIZE:
        errs.append(validation.too_long(f"{path}.annotations", TOTAL_ANNOTATION_SIZE))
    return errs


def _owner_references(refs: Any, path: str) -> list[FieldError]:
    """ValidateOwnerReferences."""
    errs: list[FieldError] = []
    first_controller = ""
    for ref in refs if isinstance(refs, list) else ():
        if not isinstance(ref, Mapping):
            continue
        api_version, kind = _text(ref, "apiVersion"), _text(ref, "kind")
        if not api_version.rpartition("/")[2]:
            errs.append(validation.invalid(f"{path}.apiVersion", api_version, "version must not be empty"))
        if not kind:
            errs.append(validation.invalid(f"{path}.kind", kind, "must not be empty"))
        if not _text(ref, "name"):
            errs.append(validation.invalid(f"{path}.name", "", "must not be empty"))
        if not _text(ref, "uid"):
            errs.append(validation.invalid(f"{path}.uid", "", "must not be empty"))
        if ref.get("controller") is True:
            current = f"{kind}/{_text(ref, 'name')}"
            if first_controller:
                errs.append(validation.invalid(path, _owner_references_value(refs),
                                               "Only one reference can have Controller set to true. "
                                               f'Found "true" in references for {first_controller} and {current}'))
            else:
                first_controller = current
    return errs


def _owner_references_value(refs: list[Any]) -> validation.RenderedValue:
    """A []metav1.OwnerReference as field.Error prints it: JSON in the struct's field order, its pointers
    omitted when unset."""
    items = []
    for ref in refs:
        ref = ref if isinstance(ref, Mapping) else {}
        fields = [f"{validation._go_json(k)}:{validation._go_json(_text(ref, k))}"
                  for k in ("apiVersion", "kind", "name", "uid")]
        fields += [f"{validation._go_json(k)}:{validation._go_json(ref[k])}"
                   for k in ("controller", "blockOwnerDeletion") if isinstance(ref.get(k), bool)]
        items.append("{" + ",".join(fields) + "}")
    return validation.RenderedValue("[" + ",".join(items) + "]")


def _finalizers(finalizers: Any, path: str) -> list[FieldError]:
    """ValidateFinalizers."""
    names = [f for f in finalizers if isinstance(f, str)] if isinstance(finalizers, list) else []
    errs = [validation.invalid(path, name, m) for name in names for m in validation.qualified_name(name)]
    if "orphan" in names and "foregroundDeletion" in names:
        errs.append(validation.invalid(path, validation._GoValue("[]string", names),
                                       "finalizer orphan and foregroundDeletion cannot be both set"))
    return errs


def object_meta_update(md: Mapping[str, Any], old_md: Mapping[str, Any], path: str = "metadata") -> list[FieldError]:
    """ValidateObjectMetaAccessorUpdate. The stored object of the playground may be pasted without a
    resourceVersion (a stored one always has one): the request's is then not required."""
    errs: list[FieldError] = []
    if old_md.get("deletionTimestamp"):
        old_finalizers = set(old_md.get("finalizers") or ())
        added = sorted({f for f in md.get("finalizers") or () if isinstance(f, str)} - old_finalizers)
        if added:
            shown = "[]string{" + ", ".join(validation._go_quote(f) for f in added) + "}"
            errs.append(validation.forbidden(f"{path}.finalizers", "no new finalizers can be added if the object is "
                                             f"being deleted, found new finalizers {shown}"))
    if old_md.get("resourceVersion") and not md.get("resourceVersion"):
        errs.append(validation.invalid(f"{path}.resourceVersion", "", "must be specified for an update"))
    generation, old_generation = md.get("generation"), old_md.get("generation")
    if isinstance(generation, int) and isinstance(old_generation, int) and generation < old_generation:
        errs.append(validation.invalid(f"{path}.generation", generation, "must not be decremented"))
    for key in ("name", "namespace", "uid", "creationTimestamp", "deletionTimestamp"):
        if (md.get(key) or "") != (old_md.get(key) or ""):
            # strings print as "" when empty; a time (or its pointer) unset prints as null
            shown = md.get(key) or ("" if key in ("name", "namespace", "uid") else None)
            errs.append(validation.invalid(f"{path}.{key}", shown, IMMUTABLE))
    grace, old_grace = md.get("deletionGracePeriodSeconds"), old_md.get("deletionGracePeriodSeconds")
    if grace != old_grace:
        errs.append(validation.invalid(f"{path}.deletionGracePeriodSeconds", grace, IMMUTABLE))
    errs += _labels_and_annotations(md, path)
    errs += _owner_references(md.get("ownerReferences"), f"{path}.ownerReferences")
    return errs


def pod_spec(spec: Any, path: str, *, required: bool = True) -> list[FieldError]:
    """validateContainers' first checks on the spec's containers (``required``: that there are some)."""
    if not isinstance(spec, Mapping):
        return []
    containers = spec.get("containers")
    if not isinstance(containers, list) or not containers:
        return [validation.required(f"{path}.containers")] if required else []
    errs: list[FieldError] = []
    names: set[str] = set()
    for i, container in enumerate(containers):
        if not isinstance(container, Mapping):
            continue
        at = f"{path}.containers[{i}]"
        name = _text(container, "name")
        if not name:
            errs.append(validation.required(f"{at}.name"))
        else:
            errs += [validation.invalid(f"{at}.name", name, m) for m in validation.dns1123_label(name)]
        if not _text(container, "image"):
            errs.append(validation.required(f"{at}.image"))
        if name in names:
            errs.append(validation.duplicate(f"{at}.name", name))
        names.add(name)
    return errs


def pod_spec_errors(obj: Mapping[str, Any], group: str, kind: str) -> list[FieldError]:
    """The container checks of the kind's pod spec, when it has one. Only a Pod is refused for having no
    containers: a workload's template without any fails other checks of its kind too (its selector, its
    labels), which are not reproduced, so the apiserver's message could not be given."""
    where = POD_SPECS.get((group, kind))
    if where is None:
        return []
    value: Any = obj
    for key in where:
        value = value.get(key) if isinstance(value, Mapping) else None
    if value is None:
        return []
    errs = pod_spec(value, ".".join(where), required=kind == "Pod")
    if kind == "Pod" and isinstance(value.get("containers"), list):  # validateContainersOnlyForPod
        for i, container in enumerate(value["containers"]):
            image = _text(container, "image") if isinstance(container, Mapping) else ""
            if image != image.strip(validation.GO_SPACE):
                errs.append(validation.invalid(f"spec.containers[{i}].image", image,
                                               "must not have leading or trailing whitespace"))
    return errs
