"""Entry point of the core: a scenario in, kube-apiserver's answer out.

In order: read the panes and sort their documents by kind; what the cluster stores, as API validation
leaves it (policies and bindings defaulted and validated, webhook configurations, Kyverno policies,
RBAC objects: a refused one takes no part); decode the request (:mod:`request`); send it down the
admission chain (:mod:`admission`); and form the response from what each stage recorded
(:mod:`result`). :func:`evaluate` is the same with the JSON API's body and response.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import replace
from functools import cache, partial
from typing import Any

from . import (
    admission,
    cel,
    compiler,
    decision,
    decoding,
    fast,
    kyverno,
    limits,
    rbac,
    static_manifests,
    validation,
    webhooks,
)
from .admission import Stored, mutating_policy
from .cel import library
from .changes import json_patch
from .dispatcher import Cluster, Loaded
from .documents import PANES, Document, Problem, load_pane
from .mutating import policy as map_policy
from .mutating import types as map_types
from .params import param_kind_matches
from .request import FIELD_VALIDATIONS, build_attributes, request_value
from .resources import ResourceTable, builtin_table
from .result import Response
from .scenario import InputError, Scenario, check_payload, payload_from_body
from .schemas import SchemaSet, schema_set
from .schemas.validate import render_path
from .typecheck import check_policies, object_problems, scenario_types, selected_object_fields

# (the body's checks live with the scenario; the web layer finds them here too)
__all__ = ["InputError", "check_payload", "evaluate", "payload_from_body", "respond"]

ADMISSION_GROUP = "admissionregistration.k8s.io"
POLICY_KINDS = {"ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"}
MUTATING_KINDS = {"MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding"}
POLICY_VERSIONS = ("v1", "v1beta1", "v1alpha1")
STORED_PANES = ("policy", "binding", "params", "namespace")  # documents stored in the cluster before the request


def _is_policy_doc(doc: Document) -> bool:
    return doc.kind in POLICY_KINDS and doc.api_version.startswith(ADMISSION_GROUP + "/")


def _is_mutating_doc(doc: Document) -> bool:
    return doc.kind in MUTATING_KINDS and doc.api_version.startswith(ADMISSION_GROUP + "/")


def _version(scenario: Scenario, problems: list[Problem]) -> str:
    version = scenario.kubernetes_version or library.DEFAULT_VERSION
    version = version.lstrip("v")
    version = ".".join(version.split(".")[:2])
    if version not in library.SUPPORTED_VERSIONS:
        problems.append(Problem("request", None, None, None, "kubernetesVersion", "error",
                                f"unsupported Kubernetes version {version!r}: supported versions are "
                                + ", ".join(library.SUPPORTED_VERSIONS)))
        version = library.DEFAULT_VERSION
    return version


_ISSUE_AT = re.compile(r"ERROR: <input>:(\d+):(\d+):")


def _field_problem(doc: Document, err: validation.FieldError) -> Problem:
    at = _ISSUE_AT.search(err.message)
    if at:  # a CEL compile error: point at the character inside the expression
        line, column = doc.locate_in_value(err.field, int(at.group(1)), int(at.group(2)))
    else:
        line, column = doc.locate(err.field)
    return Problem(doc.pane, doc.index, line, column, err.field, "error", err.message)


def _load_admission_docs(
    docs: list[Document], version: str, problems: list[Problem], rejected: list[dict[str, Any]], *,
    policy_kind: str, served: tuple[str, ...],
    default_and_validate: Callable[[Any, bool, str], tuple[dict[str, Any], list[validation.FieldError]]],
) -> tuple[list[Loaded], list[Loaded]]:
    """Admission policies of one kind (``policy_kind``) and their bindings as API validation leaves them: defaulted,
    or refused with the errors at their fields. Each document is defaulted and validated once per version (its
    memo); expressions are compiled as a policy being stored is (:func:`compiler.new_expressions_version`)."""
    policies: list[Loaded] = []
    bindings: list[Loaded] = []
    compat = compiler.new_expressions_version(version)
    for doc in docs:
        if (unregistered := doc.version_problem(served)) is not None:
            problems.append(unregistered)
            continue
        is_policy = doc.kind == policy_kind
        key = ("validated", compat, version)
        if key not in doc.memo:
            with validation.messages_for(library.version_tuple(version)):
                doc.memo[key] = default_and_validate(doc.value, is_policy, compat)
        obj, errors = doc.memo[key]
        if errors:
            problems.extend(_field_problem(doc, e) for e in errors)
            rejected.append({"kind": doc.kind, "name": doc.name, "pane": doc.pane, "document": doc.index,
                             "message": validation.aggregate_message(doc.kind, doc.name, errors)})
            continue
        (policies if is_policy else bindings).append(Loaded(doc.name, obj, doc.memo))
    return policies, bindings


def _spec(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return obj["spec"] if isinstance(obj.get("spec"), Mapping) else {}


def _validating(value: Any, is_policy: bool, compat: str) -> tuple[dict[str, Any], list[validation.FieldError]]:
    """A ValidatingAdmissionPolicy or its binding, defaulted and validated."""
    if is_policy:
        obj = validation.default_policy(value)
        return obj, validation.validate_policy(obj, compiler.compile_check(_spec(obj), compat))
    obj = validation.default_binding(value)
    return obj, validation.validate_binding(obj)


def _mutating(version: str) -> Callable[[Any, bool, str], tuple[dict[str, Any], list[validation.FieldError]]]:
    """A MutatingAdmissionPolicy or its binding, defaulted (per Kubernetes version) and validated."""
    def default_and_validate(value: Any, is_policy: bool, compat: str
                             ) -> tuple[dict[str, Any], list[validation.FieldError]]:
        if is_policy:
            obj = map_types.default_mutating_policy(value, version)
            return obj, map_types.validate_mutating_policy(obj, map_policy.compile_check(_spec(obj), compat))
        obj = map_types.default_mutating_binding(value, version)
        return obj, map_types.validate_mutating_binding(obj)

    return default_and_validate


def _from_manifests(kind: str, policies: list[Loaded], bindings: list[Loaded], docs: list[Document], version: str,
                    problems: list[Problem], rejected: list[dict[str, Any]], notes: list[str]
                    ) -> tuple[list[Loaded], list[Loaded]]:
    """The policies and bindings of one kind with those of the static manifests (:mod:`static_manifests`) marked,
    or left out with the loader's error when it would refuse them; the 1.36 warning of a reserved name."""
    by_memo = {id(d.memo): d for d in docs}
    for loaded in (*policies, *bindings):
        if static_manifests.warned(loaded.name, version):
            problems.append(by_memo[id(loaded.memo)].problem("metadata.name", static_manifests.SUFFIX_WARNING,
                                                             "warning"))
    static = [[x for x in group if static_manifests.is_static(x.name, version)] for group in (policies, bindings)]
    if not static[0] and not static[1]:
        return policies, bindings
    kept_policies, kept_bindings, errors = static_manifests.load(kind, static[0], static[1])
    for loaded, text in errors:
        doc = by_memo[id(loaded.memo)]
        problems.append(doc.problem("metadata.name", f"the static manifests would not load: {text}"))
        rejected.append({"kind": doc.kind, "name": doc.name, "pane": doc.pane, "document": doc.index,
                         "message": text})
    if errors:
        notes.append(f"no {kind} of the static manifests is loaded: kube-apiserver refuses the whole directory when "
                     "one manifest is wrong (it does not start, or keeps the manifests it had)")
    names = ", ".join(repr(x.name) for x in (*kept_policies, *kept_bindings))
    if names:
        notes.append(f"{names}: read from the static manifests (staticManifestsDir), as names ending in "
                     f"{static_manifests.SUFFIX!r} are reserved for them; they run before the ones created through "
                     "the API")
    return (kept_policies + [p for p in policies if p not in static[0]],
            kept_bindings + [b for b in bindings if b not in static[1]])


def _field_validation(request_docs: list[Document]) -> str:
    """The request's fieldValidation, as the Request pane gives it (Strict when it does not; a value the
    apiserver does not know is reported when the request is built)."""
    value = request_docs[0].value if request_docs else None
    given = value.get("fieldValidation", decoding.STRICT) if isinstance(value, dict) else decoding.STRICT
    return (given or decoding.WARN) if given in FIELD_VALIDATIONS else decoding.STRICT


def _refused_by_decoding(doc: Document, schemas: SchemaSet, field_validation: str, problems: list[Problem],
                         rejected: list[dict[str, Any]]) -> bool:
    """Whether the apiserver would refuse to store a document when decoding it: a value of the wrong type,
    or unknown or repeated fields under Strict field validation (the same request option, as kubectl sends it
    when the objects are created). Under Warn each of those fields is a warning at its line."""
    key = ("decoding", schemas.key)
    if key not in doc.memo:
        doc.memo[key] = decoding.stored_findings(doc, schemas)
    error, unknown = doc.memo[key]
    if error is None and unknown and field_validation == decoding.STRICT:
        schema = decoding.kind_schema(doc.value, schemas)
        assert schema is not None
        error = (unknown[0].path, decoding.strict_error(doc.value, schema, unknown))
    if error is not None:
        path, message = error
        line, column = doc.locate(path)
        problems.append(Problem(doc.pane, doc.index, line, column, render_path(path), "error", message))
        rejected.append({"kind": doc.kind, "name": doc.name, "pane": doc.pane, "document": doc.index,
                         "message": message})
        return True
    if field_validation == decoding.WARN:
        for found in unknown:
            line, column = doc.locate(found.path)
            problems.append(Problem(doc.pane, doc.index, line, column, found.field, "warning", found.message))
    return False


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


def _checked_against(policy_docs: list[Document], mutating_docs: list[Document], version: str, table: ResourceTable,
                     schemas: SchemaSet) -> tuple[Any, cel.Aliases | None]:
    """With the fast paths on, what the scenario's admission policies are type-checked against, worked out from
    their texts before any is compiled (:func:`typecheck.scenario_types`): the fields every check declares, and
    the typed roots the scenario's environments declare besides their own, so that no environment is built for
    type checking alone. (None, None) with them off: each check declares what its policy selects, apart."""
    if not fast.on:
        return None, None
    specs = [(doc.name, doc.value.get("spec")) for doc in (*policy_docs, *mutating_docs)
             if doc.kind in ("ValidatingAdmissionPolicy", "MutatingAdmissionPolicy") and isinstance(doc.value, dict)]
    try:
        return scenario_types(specs, version=version, table=table, schemas=schemas)
    except Exception:  # (type checking must never change the outcome: each check then declares its own)
        return None, None


def evaluate(payload: Mapping[str, Any]) -> dict[str, Any]:
    """Evaluate one scenario given as the JSON API body and return the JSON API response; InputError when the
    body is not an API request."""
    return respond(Scenario.from_json(payload)).to_json()


def respond(scenario: Scenario) -> Response:
    """What kube-apiserver would answer in the scenario."""
    problems: list[Problem] = []
    version = _version(scenario, problems)
    panes: dict[str, list[Document]] = {}
    usage = limits.Usage()  # one budget of values, aliases and expressions for the whole scenario
    for pane in PANES:
        docs, pane_problems = load_pane(pane, scenario.pane(pane), usage)
        panes[pane] = docs
        problems.extend(pane_problems)
    unreadable = bool(problems)

    # CustomResourceDefinitions first: the other documents are decoded with their kinds known
    crds = [doc.value for pane in STORED_PANES for doc in panes[pane]
            if doc.kind == "CustomResourceDefinition" and isinstance(doc.value, dict)]
    table = builtin_table(version)
    if crds:
        table = table.with_custom_resources(crds)
    schemas = schema_set(version, crds)
    field_validation = _field_validation(panes["request"])
    rejected: list[dict[str, Any]] = []

    policy_docs: list[Document] = []
    mutating_docs: list[Document] = []
    webhook_docs: list[Document] = []
    kyverno_docs: list[Document] = []
    namespaces: dict[str, dict[str, Any]] = {}
    objects: list[Any] = []
    rbac_docs: list[Document] = []
    object_doc = old_object_doc = request_doc = None
    for pane in PANES:
        for doc in panes[pane]:
            if pane in STORED_PANES and _refused_by_decoding(doc, schemas, field_validation, problems, rejected):
                continue
            if _is_policy_doc(doc):
                policy_docs.append(doc)
            elif _is_mutating_doc(doc) and pane not in ("object", "oldObject"):
                mutating_docs.append(doc)
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
                pass  # read above
            else:
                if rbac.is_rbac_document(doc):  # RBAC objects are stored objects that also answer the authorizer
                    rbac_docs.append(doc)
                objects.append(doc.value)

    # what the policies are type-checked against, known before any of them is compiled (see typecheck.scenario_types),
    # worked out when first asked: an evaluation that compiles and checks nothing new never asks
    checked_against = cache(partial(_checked_against, policy_docs, mutating_docs, version, table, schemas))
    with cel.declaring(lambda: checked_against()[1]):
        for doc in (object_doc, old_object_doc):
            if doc is not None:  # unknown and ill-typed fields, as kubectl's validation warns of them
                problems.extend(object_problems(doc, schemas))
        policies, bindings = _load_admission_docs(policy_docs, version, problems, rejected,
                                                  policy_kind="ValidatingAdmissionPolicy", served=POLICY_VERSIONS,
                                                  default_and_validate=_validating)
        mutating_policies, mutating_bindings = _load_admission_docs(
            mutating_docs, version, problems, rejected, policy_kind="MutatingAdmissionPolicy",
            served=map_types.served_versions(version), default_and_validate=_mutating(version))
        static_notes: list[str] = []
        policies, bindings = _from_manifests("ValidatingAdmissionPolicy", policies, bindings, policy_docs, version,
                                             problems, rejected, static_notes)
        mutating_policies, mutating_bindings = _from_manifests(
            "MutatingAdmissionPolicy", mutating_policies, mutating_bindings, mutating_docs, version, problems, rejected,
            static_notes)
        webhook_notes: list[str] = []
        hooks = webhooks.load(webhook_docs, version=version,
                              compile_check=webhooks.compile_check_for(compiler.new_expressions_version(version)),
                              problems=problems, rejected=rejected, field_problem=_field_problem,
                              notes=webhook_notes)
        kyverno_policies = kyverno.load_policies(kyverno_docs, table=table, problems=problems, rejected=rejected,
                                                 field_problem=_field_problem, version=version)
        checked = [(p.name, p.spec) for p in policies]
        mutating_checked = [(p.name, p.spec) for p in mutating_policies]
        # a policy checked (not found checked before) declares the fields the scenario's environment declares, else
        # (the fast paths off) the fields any of them selects: those matching the same kind share one environment
        selected = cache(partial(selected_object_fields, [*checked, *mutating_checked], version))

        def shared_fields() -> Any:
            named = checked_against()[0]
            if named is not None:
                return named
            return selected() if len(checked) + len(mutating_checked) > 1 else None
        type_checking, type_problems = check_policies(
            checked, {d.name: d for d in policy_docs if d.kind == "ValidatingAdmissionPolicy"},
            version=version, table=table, schemas=schemas, shared_fields=shared_fields,
        )
        problems.extend(type_problems)
        _, mutating_type_problems = check_policies(
            mutating_checked, {d.name: d for d in mutating_docs if d.kind == "MutatingAdmissionPolicy"},
            version=version, table=table, schemas=schemas, shared_fields=shared_fields,
        )
        problems.extend(mutating_type_problems)
        authorization = rbac.load(rbac_docs)
        problems.extend(authorization.problems)
        rejected.extend(authorization.rejected)
        attrs, request_problems = build_attributes(
            object_doc=object_doc, old_object_doc=old_object_doc, request_doc=request_doc, table=table
        )
        if not usage.exceeded:  # panes left unread after a bound was exceeded would only add noise here
            problems.extend(request_problems)
        if unreadable or attrs is None or any(p.severity == "error" and p.pane == "request" for p in problems):
            # A pane that cannot be read, or no request: evaluating the rest would mislead; say so.
            return Response(version, tuple(problems), tuple(rejected))
        stored = Stored(
            version=version, table=table, schemas=schemas,
            cluster=Cluster(table=table, namespaces=namespaces, objects=objects, assume_namespaces=not namespaces),
            policies=tuple(policies), bindings=tuple(bindings), hooks=tuple(hooks),
            mutating_policies=tuple(mutating_policies), mutating_bindings=tuple(mutating_bindings),
            kyverno_policies=tuple(kyverno_policies), param_scope=_param_scope(table, objects),
            authorizer=_authorizer(attrs.user_info, authorization.rbac), type_checking=type_checking,
            refused_policies={r["name"]: r["message"] for r in rejected if r["kind"] == "ValidatingAdmissionPolicy"},
        )
        notes = list(attrs.notes) + authorization.notes + webhook_notes + static_notes
        if object_doc is not None and (webhooks.is_webhook_doc(object_doc) or kyverno.is_kyverno_doc(object_doc)):
            notes.append(f"the {object_doc.kind} in the Object pane is the object of the request; paste the "
                         "configurations and policies to evaluate in another pane")
        if not namespaces and attrs.namespace:
            notes.append(f"no Namespace given: namespace {attrs.namespace!r} is taken to exist with only its "
                         "kubernetes.io/metadata.name label")
        state = admission.run(stored, attrs)
        response = _decided(state, stored, Response(version, tuple(problems), tuple(rejected), evaluated=True), notes)
        return replace(response, patch=tuple(json_patch(attrs.object, state.attrs.object)))


def _decided(state: admission.RequestState, stored: admission.Stored, response: Response,
             notes: list[str]) -> Response:
    """The response's decision and records, from what each stage of the chain recorded."""
    mutating, policies, validating = (state.stage(plugin) for plugin in admission.ALWAYS_LISTED)
    assert mutating is not None and policies is not None and validating is not None
    ended = state.ended_by
    attrs = state.attrs
    # what the stages before admission's own plugins assumed or generated (a ServiceAccount taken to exist, the
    # token volume's generated name, the objects evaluated as pasted), unless it is why the request failed
    notes.extend(f"{stage.plugin}: {text}" for stage in state.stages
                 if stage.plugin not in admission.ALWAYS_LISTED and stage.outcome in ("allowed", "nothing to do")
                 for text in stage.explanation)
    notes[:] = list(dict.fromkeys(notes))  # a plugin run a second time (reinvocation) says the same again
    mutating_policies = state.stage(mutating_policy.PLUGIN)
    webhook_records = [*mutating.details["webhooks"], *validating.details["webhooks"]]
    unknown = [r for r in webhook_records if r["called"] and r.get("reached", True) and r["outcome"] == "called"]
    if unknown and ended is None:
        notes.append("the request would be sent to " + ", ".join(repr(r["name"]) for r in unknown) + ": the "
                     "playground never calls a webhook, so this decision assumes each of them allows the request")
    if policies.details["denials"] > 1:
        notes.append("several denials: kube-apiserver reports one of them, in no defined order; "
                     "the playground reports the first by policy, binding and param name")
    return replace(
        response,
        allowed=ended is None,
        status=ended.status if ended is not None else None,
        warnings=tuple(decision.finish_warnings([w for stage in state.stages for w in stage.warnings])),
        audit_annotations={k: v for stage in state.stages for k, v in stage.audit_annotations.items()},
        policies=tuple(policies.details["policies"]),
        mutating_policies=tuple(mutating_policies.details["policies"]) if mutating_policies is not None else (),
        webhooks=tuple(webhook_records),
        kyverno=tuple(validating.details["kyverno"]),
        request=request_value(attrs, resource=attrs.resource, kind=attrs.kind),
        object=attrs.object,
        old_object=attrs.old_object,
        notes=tuple(notes),
        changes=tuple(change for stage in state.stages for change in stage.changes),
        admission=({"stages": [stage.to_json() for stage in state.stages if _listed(stage)],
                    "decidedBy": ended.decided_by if ended is not None else None}
                   if stored.hooks or stored.kyverno_policies else None),
    )


def _listed(stage: admission.StageRecord) -> bool:
    """Whether the response's admission.stages lists a stage: every admission plugin that changed or refused the
    request, and the webhook and policy plugins whatever they did."""
    return stage.plugin in admission.PLUGINS and (stage.plugin in admission.ALWAYS_LISTED
                                                  or stage.outcome not in ("nothing to do", "not reached"))


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
