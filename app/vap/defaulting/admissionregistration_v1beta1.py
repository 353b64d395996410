"""Scheme defaults of admissionregistration.k8s.io/v1beta1: admission policies and their bindings.

Restates ``pkg/apis/admissionregistration/v1beta1/defaults.go`` for the kinds the playground's
schemas have in v1beta1: ValidatingAdmissionPolicy and its binding (1.28+), MutatingAdmissionPolicy
and its binding (1.34+). The v1beta1 webhook configurations (no longer served since 1.22) are not
in the schemas. The rules inside a policy's match constraints get the v1 ``SetDefaults_Rule``, as
the generated defaulter calls it. A v1beta1 binding's ``paramRef`` has no default.
"""

from __future__ import annotations

from . import defaults
from .admissionregistration_v1 import match_resources, policy_spec, rule

_V1BETA1 = "io.k8s.api.admissionregistration.v1beta1."

defaults(_V1BETA1 + "ValidatingAdmissionPolicySpec", "SetDefaults_ValidatingAdmissionPolicySpec")(policy_spec)
defaults(_V1BETA1 + "MutatingAdmissionPolicySpec", "SetDefaults_MutatingAdmissionPolicySpec")(policy_spec)
defaults(_V1BETA1 + "MatchResources", "SetDefaults_MatchResources")(match_resources)
defaults(_V1BETA1 + "NamedRuleWithOperations", "SetDefaults_Rule")(rule)
