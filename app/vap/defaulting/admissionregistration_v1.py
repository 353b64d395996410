"""Scheme defaults of admissionregistration.k8s.io/v1: webhook configurations and admission policies.

Restates ``pkg/apis/admissionregistration/v1/defaults.go``. The generated defaulter calls
``SetDefaults_Rule`` on the rule embedded in each webhook rule (``RuleWithOperations``) and in each
policy's resource rules (``NamedRuleWithOperations``), so it is registered on both.

In v1, unlike the old v1beta1 webhooks, ``sideEffects`` and ``admissionReviewVersions`` have no
default (they are required) and ``timeoutSeconds`` defaults to 10. A binding's ``paramRef`` has no
default here (``parameterNotFoundAction`` is required in v1). ValidatingAdmissionPolicy is served in
v1 from 1.30 and MutatingAdmissionPolicy from 1.36: their definitions exist only in those versions'
schemas, so the registrations below apply where the kinds exist.
"""

from __future__ import annotations

from typing import Any

from . import Context, defaults
from ._values import unset

_V1 = "io.k8s.api.admissionregistration.v1."


def webhook_defaults(webhook: dict[str, Any], *, timeout: int) -> None:
    """The defaults a validating and a mutating webhook share."""
    if unset(webhook, "failurePolicy"):
        webhook["failurePolicy"] = "Fail"
    if unset(webhook, "matchPolicy"):
        webhook["matchPolicy"] = "Equivalent"
    if unset(webhook, "namespaceSelector"):
        webhook["namespaceSelector"] = {}
    if unset(webhook, "objectSelector"):
        webhook["objectSelector"] = {}
    if unset(webhook, "timeoutSeconds"):
        webhook["timeoutSeconds"] = timeout


@defaults(_V1 + "ValidatingWebhook", "SetDefaults_ValidatingWebhook")
def validating_webhook(webhook: dict[str, Any], context: Context) -> None:
    webhook_defaults(webhook, timeout=10)


@defaults(_V1 + "MutatingWebhook", "SetDefaults_MutatingWebhook")
def mutating_webhook(webhook: dict[str, Any], context: Context) -> None:
    webhook_defaults(webhook, timeout=10)
    if unset(webhook, "reinvocationPolicy"):
        webhook["reinvocationPolicy"] = "Never"


def rule(value: dict[str, Any], context: Context) -> None:
    """SetDefaults_Rule: a rule that names no scope matches cluster-scoped and namespaced resources."""
    if unset(value, "scope"):
        value["scope"] = "*"


defaults(_V1 + "RuleWithOperations", "SetDefaults_Rule")(rule)
defaults(_V1 + "NamedRuleWithOperations", "SetDefaults_Rule")(rule)


@defaults(_V1 + "ServiceReference", "SetDefaults_ServiceReference")
def service_reference(service: dict[str, Any], context: Context) -> None:
    if unset(service, "port"):
        service["port"] = 443


def policy_spec(spec: dict[str, Any], context: Context) -> None:
    """SetDefaults_ValidatingAdmissionPolicySpec / SetDefaults_MutatingAdmissionPolicySpec."""
    if unset(spec, "failurePolicy"):
        spec["failurePolicy"] = "Fail"


def match_resources(match: dict[str, Any], context: Context) -> None:
    """SetDefaults_MatchResources: a policy's or binding's match constraints."""
    if unset(match, "matchPolicy"):
        match["matchPolicy"] = "Equivalent"
    if unset(match, "namespaceSelector"):
        match["namespaceSelector"] = {}
    if unset(match, "objectSelector"):
        match["objectSelector"] = {}


defaults(_V1 + "ValidatingAdmissionPolicySpec", "SetDefaults_ValidatingAdmissionPolicySpec")(policy_spec)
defaults(_V1 + "MutatingAdmissionPolicySpec", "SetDefaults_MutatingAdmissionPolicySpec")(policy_spec)
defaults(_V1 + "MatchResources", "SetDefaults_MatchResources")(match_resources)
