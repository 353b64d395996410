"""Scheme defaults of admissionregistration.k8s.io/v1alpha1: admission policies and their bindings.

Restates ``pkg/apis/admissionregistration/v1alpha1/defaults.go``: as in v1beta1, plus a binding's
``paramRef.parameterNotFoundAction``, which defaults to ``Deny`` in this version only. The rules inside
match constraints get the v1 ``SetDefaults_Rule``, as the generated defaulter calls it.
MutatingAdmissionPolicy exists in v1alpha1 from 1.32; its spec's ``failurePolicy`` defaults to
``Fail`` as in the later versions.
"""

from __future__ import annotations

from typing import Any

from . import Context, defaults
from ._values import unset
from .admissionregistration_v1 import match_resources, policy_spec, rule

_V1ALPHA1 = "io.k8s.api.admissionregistration.v1alpha1."

defaults(_V1ALPHA1 + "ValidatingAdmissionPolicySpec", "SetDefaults_ValidatingAdmissionPolicySpec")(policy_spec)
defaults(_V1ALPHA1 + "MutatingAdmissionPolicySpec", "SetDefaults_MutatingAdmissionPolicySpec")(policy_spec)
defaults(_V1ALPHA1 + "MatchResources", "SetDefaults_MatchResources")(match_resources)
defaults(_V1ALPHA1 + "NamedRuleWithOperations", "SetDefaults_Rule")(rule)


@defaults(_V1ALPHA1 + "ParamRef", "SetDefaults_ParamRef")
def param_ref(ref: dict[str, Any], context: Context) -> None:
    if unset(ref, "parameterNotFoundAction"):
        ref["parameterNotFoundAction"] = "Deny"
