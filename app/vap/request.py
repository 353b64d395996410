"""Building the admission request from the panes, as kube-apiserver would for the object given.

Mirrors k8s.io/apiserver/pkg/admission/attributes.go (the attributes of one request) and
pkg/admission/plugin/cel/condition.go (CreateAdmissionRequest: the `request` CEL value).
"""

from __future__ import annotations

import copy
import hashlib
from dataclasses import dataclass, field
from typing import Any

from . import fast
from .changes import render_path
from .documents import Document, Problem
from .resources import GroupVersionKind, GroupVersionResource, ResourceTable, guess_resource

OPERATIONS = ("CREATE", "UPDATE", "DELETE", "CONNECT")
# a request's fieldValidation (CreateOptions, UpdateOptions), as the apiserver lists the values it takes in its
# error; an empty one is Warn (handlers/rest.go); kubectl sends Strict, which the playground takes when none is given
FIELD_VALIDATIONS = ("", "Ignore", "Strict", "Warn")


def derived_operation(has_object: bool, has_old_object: bool) -> str:
    """The operation of a request whose Request pane names none, from the objects given: an object and an old
    object make an UPDATE, an old object alone a DELETE, anything else a CREATE."""
    if has_old_object:
        return "UPDATE" if has_object else "DELETE"
    return "CREATE"

_OPTIONS_KIND = {"CREATE": "CreateOptions", "UPDATE": "UpdateOptions", "DELETE": "DeleteOptions"}
# The user kubectl talks as on a kubeadm or kind cluster, when the Request pane names none.
DEFAULT_USER_INFO: dict[str, Any] = {
    "username": "kubernetes-admin",
    "groups": ["kubeadm:cluster-admins", "system:authenticated"],
}
# apimachinery's simple name generator: 5 characters from an alphabet without vowels and lookalikes.
_NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"


@dataclass
class Attributes:
    """The admission attributes of one request (admission.Attributes)."""

    operation: str
    resource: GroupVersionResource
    subresource: str
    kind: GroupVersionKind
    name: str
    namespace: str
    namespaced: bool
    object: Any
    old_object: Any
    user_info: dict[str, Any]
    dry_run: bool
    options: dict[str, Any] | None
    notes: list[str] = field(default_factory=list)
    # how the apiserver decodes the object (CreateOptions/UpdateOptions fieldValidation: Strict, Warn, Ignore)
    field_validation: str = "Strict"
    # False: the policies see the objects as pasted, not decoded and defaulted as the apiserver stores them
    as_stored: bool = True
    # the document of the Object pane the object was read from: the request's body as written, whose keys
    # given twice strict decoding reports
    body: Document | None = field(default=None, compare=False, repr=False)

    @property
    def is_namespace_object(self) -> bool:
        r = self.resource
        return r.group == "" and r.version == "v1" and r.resource == "namespaces"


def _gvk_of(obj: Any) -> GroupVersionKind | None:
    if not isinstance(obj, dict):
        return None
    api_version = obj.get("apiVersion")
    kind = obj.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str) or not kind:
        return None
    group, _, version = api_version.rpartition("/")
    return GroupVersionKind(group, version, kind)


def _metadata(obj: Any) -> dict[str, Any]:
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    return meta if isinstance(meta, dict) else {}


def _generated_name(prefix: str, obj: Any) -> str:
    digest = hashlib.sha256(repr(obj).encode()).digest()
    return prefix + "".join(_NAME_ALPHABET[b % len(_NAME_ALPHABET)] for b in digest[:5])


def _gvr_from(value: Any) -> GroupVersionResource | None:
    if isinstance(value, dict) and isinstance(value.get("resource"), str):
        return GroupVersionResource(str(value.get("group", "")), str(value.get("version", "")), value["resource"])
    return None


def _gvk_from(value: Any) -> GroupVersionKind | None:
    if isinstance(value, dict) and isinstance(value.get("kind"), str):
        return GroupVersionKind(str(value.get("group", "")), str(value.get("version", "")), value["kind"])
    return None


def build_attributes(
    *,
    object_doc: Document | None,
    old_object_doc: Document | None,
    request_doc: Document | None,
    table: ResourceTable,
) -> tuple[Attributes | None, list[Problem]]:
    """Derive the request's attributes from the object panes and the Request pane."""
    problems: list[Problem] = []
    req: dict[str, Any] = request_doc.value if request_doc is not None and isinstance(request_doc.value, dict) else {}
    if request_doc is not None and not isinstance(request_doc.value, dict):
        problems.append(request_doc.problem(None, "the Request pane must hold a mapping of request attributes"))
    obj_source = object_doc.value if object_doc is not None else None
    old_source = old_object_doc.value if old_object_doc is not None else None
    obj = _own_metadata(obj_source) if object_doc is not None else None
    old = _own_metadata(old_source) if old_object_doc is not None else None
    for doc, label in ((object_doc, "object"), (old_object_doc, "old object")):
        if doc is not None and not isinstance(doc.value, dict):
            problems.append(doc.problem(None, f"the {label} must be a mapping (a Kubernetes object)"))
            return None, problems

    operation = req.get("operation")
    if operation is None:
        operation = derived_operation(obj is not None, old is not None)
    elif operation not in OPERATIONS:
        problems.append(
            _req_problem(request_doc, "operation", f'Unsupported value: "{operation}": supported values: '
                         + ", ".join(f'"{o}"' for o in OPERATIONS))
        )
        return None, problems
    if operation == "DELETE":
        if old is None and obj is not None:
            old, obj = obj, None  # the pasted object is the one being deleted
            old_source = obj_source
        obj = None
    if operation == "CREATE":
        old = None
    if operation == "CONNECT":
        old = None

    subresource = str(req.get("subResource") or "")
    source = obj if obj is not None else old
    gvk = _gvk_from(req.get("kind")) or _gvk_of(source)
    gvr = _gvr_from(req.get("resource"))
    notes: list[str] = []
    if object_doc is not None and object_doc.duplicates and obj is not None:
        keys = ", ".join(sorted({render_path(d.path) for d in object_doc.duplicates}))
        notes.append(f"the object gives a key twice ({keys}): the pane's text is taken as the request's body, which "
                     "the apiserver's strict decoding checks; kubectl would convert the manifest first, keeping each "
                     "key's last value, and the apiserver would not see the repeated key")
    info = None
    if gvr is not None:
        info = table.by_resource(gvr.group, gvr.version, gvr.resource)
    elif gvk is not None:
        info = table.by_kind(gvk.group, gvk.version, gvk.kind)
        if info is not None:
            gvr = info.gvr
        elif subresource:
            problems.append(
                _req_problem(
                    request_doc,
                    "resource",
                    f"the {gvk.kind} object is sent to a subresource: say which resource it belongs to "
                    "with resource: {group, version, resource} in the Request pane",
                )
            )
            return None, problems
        else:
            gvr = GroupVersionResource(gvk.group, gvk.version, guess_resource(gvk.kind))
            notes.append(
                f"{gvk.kind} ({gvk.group or 'core'}/{gvk.version}) is not a built-in kind: its resource is taken "
                f"to be {gvr.resource!r}, namespaced; paste its CustomResourceDefinition (or set resource and scope in "
                "the Request pane) to be exact"
            )
    if gvr is None:
        if source is None:
            problems.append(
                Problem("object", None, None, None, None, "error",
                        "no object: paste the object of the request in the Object pane "
                        "(or the Old object pane for a DELETE)")
            )
        else:
            doc = object_doc if obj is not None else old_object_doc
            assert doc is not None
            problems.append(doc.problem(None, "the object needs apiVersion and kind to know which resource it is"))
        return None, problems

    if subresource:
        sub_kind = table.kind_for(gvr, subresource)
        if gvk is None or req.get("kind") is None:
            gvk = sub_kind or gvk
    if gvk is None:
        gvk = table.kind_for(gvr, "") or GroupVersionKind(gvr.group, gvr.version, gvr.resource)

    scope = req.get("scope")
    if scope in ("Namespaced", "Cluster"):
        namespaced = scope == "Namespaced"
    elif info is not None:
        namespaced = info.namespaced
    else:
        namespaced = True  # most custom kinds are; the note above says how to be exact
    meta = _metadata(source)
    name = str(req.get("name") or meta.get("name") or "")
    generated = False
    if not name and operation == "CREATE" and meta.get("generateName") and isinstance(obj, dict):
        # The registry generates the name before validating admission runs.
        name = _generated_name(str(meta["generateName"]), obj)
        obj.setdefault("metadata", {})["name"] = name
        generated = True
        notes.append(f"metadata.generateName: the apiserver would generate a name; {name!r} is used here")
    if gvr.group == "" and gvr.resource == "namespaces":
        # Requests on a Namespace carry its own name as namespace (handlers/create.go copies the name it
        # was sent; a generated name comes later, so a Namespace created from generateName has none).
        namespace = str(req.get("namespace") or "") if generated else name
        namespaced = False
    elif namespaced:
        namespace = str(req.get("namespace") or meta.get("namespace") or "default")
        if not req.get("namespace") and not meta.get("namespace"):
            notes.append("no namespace given: the request is in namespace 'default', as kubectl would send it")
        for o in (obj, old):
            if isinstance(o, dict) and operation != "CONNECT" and subresource == "":
                o.setdefault("metadata", {}).setdefault("namespace", namespace)
    else:
        namespace = str(req.get("namespace") or "")

    user_info = req.get("userInfo")
    if user_info is None:
        user_info = copy.deepcopy(DEFAULT_USER_INFO)
    elif not isinstance(user_info, dict):
        problems.append(_req_problem(request_doc, "userInfo", "userInfo must be a mapping"))
        return None, problems
    field_validation = req.get("fieldValidation", "Strict")
    if field_validation not in FIELD_VALIDATIONS:
        problems.append(_req_problem(request_doc, "fieldValidation", f'Unsupported value: "{field_validation}": '
                                     "supported values: " + ", ".join(f'"{v}"' for v in FIELD_VALIDATIONS)))
        return None, problems
    as_stored = req.get("asStored", True)
    if not isinstance(as_stored, bool):
        problems.append(_req_problem(request_doc, "asStored", "asStored must be true or false"))
        return None, problems
    options = req.get("options")
    dry_run = bool(req.get("dryRun", False))
    if operation == "CONNECT":
        options = None
    elif options is None:
        options = {"kind": _OPTIONS_KIND[operation], "apiVersion": "meta.k8s.io/v1"}
        if dry_run:
            options["dryRun"] = ["All"]
        if operation in ("CREATE", "UPDATE") and field_validation:
            options["fieldValidation"] = field_validation
    obj, old = _stable_copy(obj_source, obj), _stable_copy(old_source, old)
    attrs = Attributes(
        operation=operation,
        resource=gvr,
        subresource=subresource,
        kind=gvk,
        name=name,
        namespace=namespace,
        namespaced=namespaced,
        object=obj,
        old_object=old,
        user_info=user_info,
        dry_run=dry_run,
        options=options if isinstance(options, dict) else None,
        notes=notes,
        field_validation=field_validation or "Warn",
        as_stored=as_stored,
        body=object_doc if obj is not None else None,
    )
    return attrs, problems


def _own_metadata(value: Any) -> Any:
    """A copy of an object that shares everything but its top level and metadata, the only parts the
    request changes (generated name, defaulted namespace); the documents themselves stay untouched."""
    if not isinstance(value, dict):
        return value
    out = dict(value)
    if isinstance(out.get("metadata"), dict):
        out["metadata"] = dict(out["metadata"])
    return out


# The request's copy of each of the last objects read, by the document it copies: an evaluation of the
# same document gets the same copy when it is equal, so what is worked out from it (its values converted
# for the CEL engine) can be kept for the next evaluation. Like the documents, copies are never changed
# once the request is built.
_COPIES: fast.ByIdentity[Any] = fast.ByIdentity("request.copies", 16)


def _stable_copy(source: Any, made: Any) -> Any:
    """``made`` (a copy of ``source`` by :func:`_own_metadata`, then given a namespace or a name), or the
    copy of ``source`` handed out before when it is equal. Equality is exact here: all but the values
    set on metadata (strings) are the very objects of ``source`` in both copies."""
    if made.__class__ is not dict:
        return made
    seen = _COPIES.get(source)
    if seen is not None and seen == made:
        return seen
    _COPIES.put(source, made)
    return made


def _req_problem(doc: Document | None, path: str, message: str) -> Problem:
    if doc is None:
        return Problem("request", None, None, None, path, "error", message)
    return doc.problem(path, message)


def request_value(
    attrs: Attributes, *, resource: GroupVersionResource, kind: GroupVersionKind
) -> dict[str, Any]:
    """Return the `request` CEL value: the AdmissionRequest's JSON, with empty fields omitted."""
    value: dict[str, Any] = {
        "kind": {"group": kind.group, "version": kind.version, "kind": kind.kind},
        "resource": {"group": resource.group, "version": resource.version, "resource": resource.resource},
        "requestKind": {"group": attrs.kind.group, "version": attrs.kind.version, "kind": attrs.kind.kind},
        "requestResource": {
            "group": attrs.resource.group,
            "version": attrs.resource.version,
            "resource": attrs.resource.resource,
        },
        "operation": attrs.operation,
        "userInfo": {k: v for k, v in attrs.user_info.items() if v not in (None, "", [], {})},
        "dryRun": attrs.dry_run,
    }
    if attrs.subresource:
        value["subResource"] = attrs.subresource
        value["requestSubResource"] = attrs.subresource
    if attrs.name:
        value["name"] = attrs.name
    if attrs.namespace:
        value["namespace"] = attrs.namespace
    if attrs.options is not None:
        value["options"] = attrs.options
    return value
