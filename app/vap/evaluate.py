"""Entry point of the core: an API request body in, the API response out.

Stages, as the apiserver has them: load the panes, sort documents by kind, default and validate
policies and bindings (an invalid one is never stored, so never evaluated), build the request,
then dispatch (match, params, compile, validate, route) and form the response.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from . import admission, compiler, decision, kyverno, limits, rbac, validation, webhooks
from .admission import Stored
from .cel import library
from .dispatcher import Cluster, Loaded
from .documents import PANES, Document, Problem, load_pane
from .params import param_kind_matches
from .request import build_attributes, request_value
from .resources import ResourceTable, builtin_table
from .schemas import schema_set
from .typecheck import check_policies, object_problems

ADMISSION_GROUP = "admissionregistration.k8s.io"
POLICY_KINDS = {"ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"}
POLICY_VERSIONS = ("v1", "v1beta1", "v1alpha1")


class InputError(ValueError):
    """A request body the API refuses (HTTP 400): not an object, or a field of the wrong type."""


def _is_policy_doc(doc: Document) -> bool:
    return doc.kind in POLICY_KINDS and doc.api_version.startswith(ADMISSION_GROUP + "/")


def payload_from_body(raw: bytes) -> Any:
    """The JSON API request body as a value (its encoding detected as JSON allows); InputError (400)
    when it is not JSON. The value is then checked by :func:`check_payload`."""
    try:
        payload = json.loads(raw) if raw.strip() else None
    except RecursionError:  # nesting deeper than the JSON decoder goes
        raise InputError("the request body is JSON nested too deeply to read") from None
    except ValueError:  # not JSON, or not in an encoding JSON allows
        payload = None
    if payload is None:
        raise InputError("the request body must be JSON (an object with a `policy` field and the other panes)")
    return payload


def check_payload(payload: Any) -> None:
    """Raise InputError when the body is not an API request (400), naming the field."""
    if not isinstance(payload, Mapping):
        raise InputError("the request body must be a JSON object")
    for pane in PANES:
        value = payload.get(pane)
        if value is not None and not isinstance(value, (str, dict, list)):
            raise InputError(f"field {pane!r} must be YAML or JSON text, or a JSON object or array")
    version = payload.get("kubernetesVersion")
    if version is not None and not isinstance(version, str):
        raise InputError("field 'kubernetesVersion' must be a string such as \"1.34\"")


def _version(payload: Mapping[str, Any], problems: list[Problem]) -> str:
    version = payload.get("kubernetesVersion") or library.DEFAULT_VERSION
    version = version.lstrip("v")
    version = ".".join(version.split(".")[:2])
    if version not in library.SUPPORTED_VERSIONS:
        problems.append(Problem("request", None, None, None, "kubernetesVersion", "error",
                                f"unsupported Kubernetes version {version!r}: supported versions are "
                                + ", ".join(library.SUPPORTED_VERSIONS)))
        version = library.DEFAULT_VERSION
    return version


_ISSUE_AT = re.compile(r"ERROR: <input>:(\d+):(\d+):")


def _field_problem(doc: Document, err: validation.FieldError, spec: Mapping[str, Any]) -> Problem:
    at = _ISSUE_AT.search(err.message)
    if at:  # a CEL compile error: point at the character inside the expression
        line, column = doc.locate_in_value(err.field, int(at.group(1)), int(at.group(2)))
    else:
        line, column = doc.locate(err.field)
    return Problem(doc.pane, doc.index, line, column, err.field, "error", err.message)


def _load_policy_docs(
    docs: list[Document], version: str, problems: list[Problem], rejected: list[dict[str, Any]]
) -> tuple[list[Loaded], list[Loaded]]:
    policies: list[Loaded] = []
    bindings: list[Loaded] = []
    compat = compiler.new_expressions_version(version)
    for doc in docs:
        if (unregistered := doc.version_problem(POLICY_VERSIONS)) is not None:
            problems.append(unregistered)
            continue
        is_policy = doc.kind == "ValidatingAdmissionPolicy"
        obj, spec, errors = _defaulted_and_validated(doc, is_policy, compat, version)
        if errors:
            problems.extend(_field_problem(doc, e, spec) for e in errors)
            rejected.append({
                "kind": doc.kind, "name": doc.name, "pane": doc.pane, "document": doc.index,
                "message": validation.aggregate_message(doc.kind, doc.name, errors),
            })
            continue
        (policies if is_policy else bindings).append(Loaded(doc.name, obj, doc.memo))
    return policies, bindings


def _defaulted_and_validated(
    doc: Document, is_policy: bool, compat: str, version: str
) -> tuple[dict[str, Any], Mapping[str, Any], list[validation.FieldError]]:
    """Default and validate a policy or binding, once per document and version (the document's memo)."""
    key = ("validated", compat, version)
    if key not in doc.memo:
        obj = validation.default_policy(doc.value) if is_policy else validation.default_binding(doc.value)
        spec = obj.get("spec") if isinstance(obj.get("spec"), Mapping) else {}
        with validation.messages_for(library.version_tuple(version)):
            if is_policy:
                errors = validation.validate_policy(obj, compiler.compile_check(spec, compat))
            else:
                errors = validation.validate_binding(obj)
        doc.memo[key] = (obj, spec, errors)
    return doc.memo[key]


def _param_scope(table: ResourceTable, objects: list[Any]) -> Any:
    def scope(param_kind: Mapping[str, Any]) -> bool | None:
        api_version = str(param_kind.get("apiVersion", ""))
        group, _, ver = api_version.rpartition("/")
        kind = str(param_kind.get("kind", ""))
        info = table.by_kind(group, ver, kind)
        if info is not None:
            return info.namespaced
        if any(param_kind_matches(o, group, kind) for o in objects):
            return True
        return None

    return scope


def evaluate(payload: Mapping[str, Any]) -> dict[str, Any]:
    """Evaluate one scenario (the JSON API body) and return the JSON API response."""
    check_payload(payload)
    problems: list[Problem] = []
    version = _version(payload, problems)
    panes: dict[str, list[Document]] = {}
    usage = limits.Usage()  # one budget of values, aliases and expressions for the whole scenario
    for pane in PANES:
        docs, pane_problems = load_pane(pane, payload.get(pane), usage)
        panes[pane] = docs
        problems.extend(pane_problems)
    unreadable = bool(problems)

    policy_docs: list[Document] = []
    webhook_docs: list[Document] = []
    kyverno_docs: list[Document] = []
    namespaces: dict[str, dict[str, Any]] = {}
    objects: list[Any] = []
    crds: list[Any] = []
    rbac_docs: list[Document] = []
    object_doc = old_object_doc = request_doc = None
    for pane in PANES:
        for doc in panes[pane]:
            if _is_policy_doc(doc):
                policy_docs.append(doc)
            elif pane not in ("object", "oldObject") and webhooks.is_webhook_doc(doc):
                webhook_docs.append(doc)  # in the object panes, a configuration is the object of the request
            elif pane not in ("object", "oldObject") and kyverno.is_kyverno_doc(doc):
                kyverno_docs.append(doc)
            elif pane == "request":
                if request_doc is None:
                    request_doc = doc
            elif pane in ("object", "oldObject"):
                if pane == "object" and object_doc is None:
                    object_doc = doc
                elif pane == "oldObject" and old_object_doc is None:
                    old_object_doc = doc
                else:
                    problems.append(doc.problem(None, f"only the first object of the {pane} pane is used; "
                                                "this document is ignored", "warning"))
            elif not isinstance(doc.value, dict):
                problems.append(doc.problem(None, "a document must be a mapping (a Kubernetes object)"))
            elif doc.kind == "Namespace" and doc.api_version == "v1":
                namespaces[doc.name] = doc.value
            elif doc.kind == "CustomResourceDefinition":
                crds.append(doc.value)
            else:
                if rbac.is_rbac_document(doc):  # RBAC objects are stored objects that also answer the authorizer
                    rbac_docs.append(doc)
                objects.append(doc.value)

    table = builtin_table(version)
    if crds:
        table = table.with_custom_resources(crds)
    schemas = schema_set(version, crds)
    for doc in (object_doc, old_object_doc):
        if doc is not None:  # unknown and ill-typed fields, as kubectl's validation warns of them
            problems.extend(object_problems(doc, schemas))
    rejected: list[dict[str, Any]] = []
    policies, bindings = _load_policy_docs(policy_docs, version, problems, rejected)
    webhook_notes: list[str] = []
    hooks = webhooks.load(webhook_docs, version=version,
                          compile_check=webhooks.compile_check_for(compiler.new_expressions_version(version)),
                          problems=problems, rejected=rejected, field_problem=lambda d, e: _field_problem(d, e, {}),
                          notes=webhook_notes)
    kyverno_policies = kyverno.load_policies(kyverno_docs, table=table, problems=problems, rejected=rejected,
                                             field_problem=lambda d, e: _field_problem(d, e, {}), version=version)
    type_checking, type_problems = check_policies(
        [(p.name, p.spec) for p in policies],
        {d.name: d for d in policy_docs if d.kind == "ValidatingAdmissionPolicy"},
        version=version, table=table, schemas=schemas,
    )
    problems.extend(type_problems)
    authorization = rbac.load(rbac_docs)
    problems.extend(authorization.problems)
    rejected.extend(authorization.rejected)
    attrs, request_problems = build_attributes(
        object_doc=object_doc, old_object_doc=old_object_doc, request_doc=request_doc, table=table
    )
    if not usage.exceeded:  # panes left unread after a bound was exceeded would only add noise here
        problems.extend(request_problems)
    response: dict[str, Any] = {
        "allowed": True,
        "status": None,
        "warnings": [],
        "auditAnnotations": {},
        "policies": [],
        "problems": [],
        "kubernetesVersion": version,
        "rejected": rejected,
        "webhooks": [],
        "kyverno": [],
    }
    if unreadable or attrs is None or any(p.severity == "error" and p.pane == "request" for p in problems):
        # A pane that cannot be read, or no request: evaluating the rest would mislead; say so.
        response["problems"] = [p.to_json() for p in problems]
        response["request"] = None
        response["notes"] = []
        return response
    stored = Stored(
        version=version, table=table,
        cluster=Cluster(table=table, namespaces=namespaces, objects=objects, assume_namespaces=not namespaces),
        policies=tuple(policies), bindings=tuple(bindings), hooks=tuple(hooks),
        kyverno_policies=tuple(kyverno_policies), param_scope=_param_scope(table, objects),
        authorizer=_authorizer(attrs.user_info, authorization.rbac), type_checking=type_checking,
        refused_policies={r["name"]: r["message"] for r in rejected if r["kind"] == "ValidatingAdmissionPolicy"},
    )
    notes = list(attrs.notes) + authorization.notes + webhook_notes
    if object_doc is not None and (webhooks.is_webhook_doc(object_doc) or kyverno.is_kyverno_doc(object_doc)):
        notes.append(f"the {object_doc.kind} in the Object pane is the object of the request; paste the "
                     "configurations and policies to evaluate in another pane")
    if not namespaces and attrs.namespace:
        notes.append(f"no Namespace given: namespace {attrs.namespace!r} is taken to exist with only its "
                     "kubernetes.io/metadata.name label")
    state = admission.run(stored, attrs)
    response["problems"] = [p.to_json() for p in problems]
    response.update(_decided(state, stored, notes))
    return response


def _decided(state: admission.RequestState, stored: admission.Stored, notes: list[str]) -> dict[str, Any]:
    """The response's decision and records, from what each stage of the chain recorded."""
    mutating, policies, validating = (state.stage(stage.plugin) for stage in admission.STAGES)
    assert mutating is not None and policies is not None and validating is not None
    ended = state.ended_by
    attrs = state.attrs
    webhook_records = [*mutating.details["webhooks"], *validating.details["webhooks"]]
    unknown = [r for r in webhook_records if r["called"] and r.get("reached", True) and r["outcome"] == "called"]
    if unknown and ended is None:
        notes.append("the request would be sent to " + ", ".join(repr(r["name"]) for r in unknown) + ": the "
                     "playground never calls a webhook, so this decision assumes each of them allows the request")
    if policies.details["denials"] > 1:
        notes.append("several denials: kube-apiserver reports one of them, in no defined order; "
                     "the playground reports the first by policy, binding and param name")
    out: dict[str, Any] = {
        "allowed": ended is None,
        "status": ended.status if ended is not None else None,
        "warnings": decision.finish_warnings([w for stage in state.stages for w in stage.warnings]),
        "auditAnnotations": dict(policies.audit_annotations),
        "policies": policies.details["policies"],
        "webhooks": webhook_records,
        "kyverno": validating.details["kyverno"],
        "request": request_value(attrs, resource=attrs.resource, kind=attrs.kind),
        "object": attrs.object,
        "oldObject": attrs.old_object,
        "notes": notes,
    }
    if stored.hooks or stored.kyverno_policies:
        out["admission"] = {"stages": [stage.to_json() for stage in state.stages],
                            "decidedBy": ended.decided_by if ended is not None else None}
    return out


def _authorizer(user_info: Mapping[str, Any], cluster_rbac: rbac.RBAC) -> Any:
    """Return a builder of the `authorizer` activation values for a request, answered by the panes' RBAC."""
    answer = rbac.no_rbac_answer if cluster_rbac.empty else cluster_rbac.authorize

    def backend(attributes: dict[str, Any]) -> tuple[Any, ...]:
        return answer(attributes).as_backend_result()

    def build(request: dict[str, Any]) -> Any:
        # authorizer.requestResource is built from the admission attributes: the original resource
        original = {**request, "resource": request.get("requestResource", request.get("resource"))}
        return library.authorizer_activation(original, dict(user_info), backend)

    return build
