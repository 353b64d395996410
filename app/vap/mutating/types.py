"""MutatingAdmissionPolicy and MutatingAdmissionPolicyBinding: API versions, defaulting and API validation.

Restates, for the mutating kinds, what :mod:`app.vap.validation` does for ValidatingAdmissionPolicy:
k8s.io/kubernetes ``pkg/apis/admissionregistration/validation/validation.go`` (ValidateMutatingAdmissionPolicy,
validateMutation, validateJSONPatch, validateApplyConfiguration, ValidateMutatingAdmissionPolicyBinding) with the
field checks they share with ValidatingAdmissionPolicy taken from that module, and the defaulting of
``pkg/apis/admissionregistration/{v1alpha1,v1beta1,v1}/defaults.go`` as :mod:`app.vap.defaulting` registers it.

What differs from a ValidatingAdmissionPolicy: ``mutations`` (at least one; each a ``patchType`` of
``ApplyConfiguration`` or ``JSONPatch`` with the matching member and not the other) replace validations and audit
annotations; ``reinvocationPolicy`` is required (``IfNeeded`` or ``Never``); no rule may match ``DELETE`` (the error
is reported at ``spec.matchConstraints.resourceRules.operations``, without an index); the binding has no
``validationActions`` and reports its match resources under ``spec.matchResources`` (spelt right, unlike the
validating binding).

Which API versions exist per Kubernetes version is read from the built-in schemas: v1alpha1 from 1.32, v1beta1 from
1.34, v1 from 1.36 (the alpha and beta versions are served only when enabled; v1 by default).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.vap import defaulting
from app.vap.schemas import schema_set
from app.vap.validation import (
    _MATCH_RESOURCES,
    _METADATA,
    _NAMED_EXPRESSION,
    _SELECTOR,
    _STR,
    CompileCheck,
    ExpressionSite,
    FieldError,
    _compile,
    _decode_errors,
    _Named,
    _obj,
    _objs,
    _str,
    _strs,
    _trim,
    _validate_match_conditions,
    _validate_match_resources,
    _validate_object_meta,
    _validate_variable,
    binding_head,
    invalid,
    not_supported,
    policy_spec_head,
    required,
)

__all__ = [
    "BINDING_KIND", "GROUP", "POLICY_KIND", "default_mutating_binding", "default_mutating_policy",
    "served_versions", "validate_mutating_binding", "validate_mutating_policy",
]

GROUP = "admissionregistration.k8s.io"
POLICY_KIND = "MutatingAdmissionPolicy"
BINDING_KIND = "MutatingAdmissionPolicyBinding"
_VERSIONS = ("v1", "v1beta1", "v1alpha1")

_MUTATING_OPERATIONS = ["*", "CONNECT", "CREATE", "UPDATE"]  # DELETE cannot be mutated
_REINVOCATION_POLICIES = ["IfNeeded", "Never"]
_PATCH_TYPES = ["ApplyConfiguration", "JSONPatch"]

_EXPRESSION = {"expression": _STR}
_POLICY_SCHEMA = {"apiVersion": _STR, "kind": _STR, "metadata": _METADATA, "spec": {
    "failurePolicy": _STR, "paramKind": {"apiVersion": _STR, "kind": _STR},
    "matchConstraints": _MATCH_RESOURCES,
    "matchConditions": [_NAMED_EXPRESSION], "variables": [_NAMED_EXPRESSION],
    "mutations": [{"patchType": _STR, "applyConfiguration": _EXPRESSION, "jsonPatch": _EXPRESSION}],
    "reinvocationPolicy": _STR}}
_BINDING_SCHEMA = {"apiVersion": _STR, "kind": _STR, "metadata": _METADATA, "spec": {
    "policyName": _STR, "matchResources": _MATCH_RESOURCES,
    "paramRef": {"name": _STR, "namespace": _STR, "selector": _SELECTOR, "parameterNotFoundAction": _STR}}}


def served_versions(version: str) -> tuple[str, ...]:
    """The admissionregistration.k8s.io versions that have MutatingAdmissionPolicy in Kubernetes ``version``
    (``"1.34"``), newest first; empty before 1.32."""
    schemas = schema_set(version)
    return tuple(v for v in _VERSIONS if schemas.kind(GROUP, v, POLICY_KIND) is not None)


def _defaulted(obj: Mapping[str, Any], kind: str, version: str) -> dict[str, Any]:
    api_version = str(obj.get("apiVersion") or "")
    group, _, api = api_version.rpartition("/")
    schemas = schema_set(version)
    schema = schemas.kind(group, api, kind) if group == GROUP else None
    if schema is None:
        return dict(obj)
    major, _, minor = version.partition(".")
    defaulted, _ = defaulting.apply(obj, schema, schemas, (int(major), int(minor)))
    return defaulted


def default_mutating_policy(obj: Mapping[str, Any], version: str) -> dict[str, Any]:
    """A defaulted copy of a MutatingAdmissionPolicy: ``failurePolicy: Fail``, matchConstraints' matchPolicy
    ``Equivalent`` and empty selectors, each rule's ``scope: "*"`` (nothing for reinvocationPolicy)."""
    return _defaulted(obj, POLICY_KIND, version)


def default_mutating_binding(obj: Mapping[str, Any], version: str) -> dict[str, Any]:
    """A defaulted copy of a MutatingAdmissionPolicyBinding: matchResources as in a policy when present, and in
    v1alpha1 only, ``paramRef.parameterNotFoundAction: Deny``."""
    return _defaulted(obj, BINDING_KIND, version)


def _mutating_operations(mr: dict, path: str) -> list[FieldError]:
    """The operations a mutating policy may not match, reported without the rule's index as upstream does."""
    errs: list[FieldError] = []
    for rule in _objs(mr, "resourceRules"):
        for op in _strs(rule, "operations"):
            if op not in _MUTATING_OPERATIONS:
                errs.append(not_supported(f"{path}.resourceRules.operations", _Named(op), _MUTATING_OPERATIONS))
    return errs


def validate_mutating_policy(obj: dict, compile_check: CompileCheck | None = None) -> list[FieldError]:
    """Validate a defaulted MutatingAdmissionPolicy as kube-apiserver does on create, in its order.

    CEL is compiled only through ``compile_check``, called for each non-blank expression in the apiserver's
    order: matchConditions, variables, then each mutation's ``applyConfiguration`` or ``jsonPatch`` expression
    (sites of kind ``"applyConfiguration"`` and ``"jsonPatch"``, trimmed, with the patch types declared). If any
    field has the wrong JSON type, only those errors are returned.
    """
    if errs := _decode_errors(obj, _POLICY_SCHEMA):
        return errs
    errs, _ = _validate_object_meta(_obj(obj, "metadata"), "metadata")
    spec = _obj(obj, "spec")
    head, has_params, constraints = policy_spec_head(spec)
    errs += head
    if constraints is not None:
        errs += _mutating_operations(constraints, "spec.matchConstraints")
    errs += _validate_match_conditions(_objs(spec, "matchConditions"), "spec.matchConditions", has_params,
                                       compile_check)
    for i, variable in enumerate(_objs(spec, "variables")):
        errs += _validate_variable(variable, f"spec.variables[{i}]", has_params, compile_check)
    mutations = _objs(spec, "mutations")
    if not mutations:
        errs.append(required("spec.mutations", "mutations must contain at least one item"))
    for i, mutation in enumerate(mutations):
        errs += _validate_mutation(mutation, f"spec.mutations[{i}]", has_params, compile_check)
    reinvocation = _str(spec, "reinvocationPolicy")
    if not reinvocation:
        errs.append(required("spec.reinvocationPolicy"))
    elif reinvocation not in _REINVOCATION_POLICIES:
        errs.append(not_supported("spec.reinvocationPolicy", _Named(reinvocation), _REINVOCATION_POLICIES))
    return errs


def _validate_mutation(mutation: dict, path: str, has_params: bool, check: CompileCheck | None) -> list[FieldError]:
    patch_type = _str(mutation, "patchType")
    if not patch_type:
        return [required(f"{path}.patchType")]
    if patch_type not in _PATCH_TYPES:
        return [not_supported(f"{path}.patchType", _Named(patch_type), _PATCH_TYPES)]
    member, other = ("jsonPatch", "applyConfiguration") if patch_type == "JSONPatch" else \
        ("applyConfiguration", "jsonPatch")
    errs: list[FieldError] = []
    if mutation.get(member) is None:
        errs.append(required(f"{path}.{member}", f"must be specified when patchType is {patch_type}"))
    else:
        expression = _trim(_str(mutation[member], "expression"))
        field = f"{path}.{member}.expression"
        if not expression:
            errs.append(required(field))
        else:
            errs += _compile(check, ExpressionSite(member, field, expression, expression, has_params=has_params))
    if mutation.get(other) is not None:
        detail = f"must not be specified when patchType is {patch_type}"
        errs.append(invalid(f"{path}.{other}", "{" + other + "}", detail))
    return errs


def validate_mutating_binding(obj: dict) -> list[FieldError]:
    """Validate a defaulted MutatingAdmissionPolicyBinding as kube-apiserver does, in its order.

    If any field has the wrong JSON type, only those errors are returned.
    """
    if errs := _decode_errors(obj, _BINDING_SCHEMA):
        return errs
    errs, spec = binding_head(obj)
    if spec.get("matchResources") is not None:
        errs += _validate_match_resources(spec["matchResources"], "spec.matchResources")
        errs += _mutating_operations(spec["matchResources"], "spec.matchResources")
    return errs
