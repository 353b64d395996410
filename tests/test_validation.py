"""Defaulting and API validation of VAP objects: exact apiserver messages (pkg/apis/admissionregistration/v1/defaults.go
and pkg/apis/admissionregistration/validation/validation.go in kubernetes/kubernetes)."""

from __future__ import annotations

import copy

import pytest

from app.vap.validation import (
    ExpressionSite,
    FieldError,
    aggregate_message,
    default_binding,
    default_policy,
    duplicate,
    forbidden,
    internal_error,
    invalid,
    not_supported,
    required,
    too_long,
    too_many,
    validate_binding,
    validate_policy,
)

V1 = "admissionregistration.k8s.io/v1"
V1ALPHA1 = "admissionregistration.k8s.io/v1alpha1"

# apimachinery's texts, written out in full (note the doubled spaces in the example lists).
SUBDOMAIN = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
    "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
NAME_PART = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with "
    "an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
LABEL_KEY_SLASHES = (
    "a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix "
    "and '/' (e.g. 'example.com/MyName')"
)
LABEL_VALUE = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and "
    "must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
    "regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)
DNS1035 = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
    "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for "
    "validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
)
DENY_AND_WARN = (
    "must not contain both Deny and Warn (repeating the same validation failure information in the API "
    "response and headers serves no purpose)"
)
AT_LEAST_ONE = "validations or auditAnnotations must contain at least one item"
RR = "spec.matchConstraints.resourceRules[0]"


def rule(**overrides: object) -> dict:
    """A valid resource rule, with fields replaced."""
    base = {
        "apiGroups": ["apps"],
        "apiVersions": ["v1"],
        "operations": ["CREATE"],
        "resources": ["deployments"],
    }
    return {**base, **overrides}


def vap(name: str | None = "demo", api_version: str = V1, **spec: object) -> dict:
    """A valid policy, with spec fields replaced (a value of None removes the field)."""
    full = {"matchConstraints": {"resourceRules": [rule()]}, "validations": [{"expression": "true"}], **spec}
    meta = {} if name is None else {"name": name}
    return {
        "apiVersion": api_version,
        "kind": "ValidatingAdmissionPolicy",
        "metadata": meta,
        "spec": {k: v for k, v in full.items() if v is not None},
    }


def vapb(name: str = "demo-binding", api_version: str = V1, **spec: object) -> dict:
    """A valid binding, with spec fields replaced (a value of None removes the field)."""
    full = {"policyName": "demo", "validationActions": ["Deny"], **spec}
    return {
        "apiVersion": api_version,
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": name},
        "spec": {k: v for k, v in full.items() if v is not None},
    }


def with_rule(**overrides: object) -> dict:
    return vap(matchConstraints={"resourceRules": [rule(**overrides)]})


def with_selector(selector: dict) -> dict:
    return vap(matchConstraints={"resourceRules": [rule()], "objectSelector": selector})


def messages(errors: list[FieldError]) -> list[str]:
    return [e.message for e in errors]


# ---------------------------------------------------------------------------------------------
# Policies

POLICY_CASES = [
    pytest.param(vap(), [], id="valid-minimal"),
    pytest.param(
        vap(validations=None, auditAnnotations=[{"key": "k", "valueExpression": "'v'"}]),
        [],
        id="valid-audit-annotations-only",
    ),
    # metadata
    pytest.param(
        vap(name=None), ["metadata.name: Required value: name or generateName is required"], id="name-missing"
    ),
    pytest.param(
        vap(name="Demo_1"), [f'metadata.name: Invalid value: "Demo_1": {SUBDOMAIN}'], id="name-invalid"
    ),
    pytest.param(
        vap(name="a" * 254),
        [f'metadata.name: Invalid value: "{"a" * 254}": must be no more than 253 characters'],
        id="name-too-long",
    ),
    pytest.param(
        {**vap(name=None), "metadata": {"generateName": "demo-"}}, [], id="generate-name-trailing-dash-ok"
    ),
    pytest.param(
        {**vap(), "metadata": {"name": "demo", "labels": {"ok": "bad value"}}},
        [f'metadata.labels: Invalid value: "bad value": {LABEL_VALUE}'],
        id="metadata-label-value",
    ),
    pytest.param(
        {**vap(), "metadata": {"name": "demo", "annotations": {"a/b/c": "x"}}},
        [f'metadata.annotations: Invalid value: "a/b/c": {LABEL_KEY_SLASHES}'],
        id="metadata-annotation-key",
    ),
    # failurePolicy
    pytest.param(
        vap(failurePolicy="Never"),
        ['spec.failurePolicy: Unsupported value: "Never": supported values: "Fail", "Ignore"'],
        id="failure-policy-unsupported",
    ),
    pytest.param(
        vap(failurePolicy=""),
        ['spec.failurePolicy: Unsupported value: "": supported values: "Fail", "Ignore"'],
        id="failure-policy-empty",
    ),
    # paramKind
    pytest.param(
        vap(paramKind={}),
        ["spec.paramKind.apiVersion: Required value", "spec.paramKind.kind: Required value"],
        id="param-kind-empty",
    ),
    pytest.param(vap(paramKind={"apiVersion": "v1", "kind": "ConfigMap"}), [], id="param-kind-valid"),
    pytest.param(
        vap(paramKind={"apiVersion": "a/b/c", "kind": "X"}),
        ['spec.paramKind.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c'],
        id="param-kind-two-slashes",
    ),
    pytest.param(
        vap(paramKind={"apiVersion": "Example.com/v1", "kind": "X"}),
        [f'spec.paramKind.apiVersion: Invalid value: "Example.com": {SUBDOMAIN}'],
        id="param-kind-bad-group",
    ),
    pytest.param(
        vap(paramKind={"apiVersion": "example.com/", "kind": "X"}),
        ['spec.paramKind.apiVersion: Invalid value: "example.com/": version must be specified'],
        id="param-kind-no-version",
    ),
    pytest.param(
        vap(paramKind={"apiVersion": "example.com/v1_beta", "kind": "X"}),
        [f'spec.paramKind.apiVersion: Invalid value: "v1_beta": {DNS1035}'],
        id="param-kind-bad-version",
    ),
    pytest.param(
        vap(paramKind={"apiVersion": "v1", "kind": "Config_Map"}),
        [
            f'spec.paramKind.kind: Invalid value: "Config_Map": may have mixed case, but should otherwise '
            f"match: {DNS1035}"
        ],
        id="param-kind-bad-kind",
    ),
    # matchConstraints
    pytest.param(
        vap(matchConstraints=None), ["spec.matchConstraints: Required value"], id="match-constraints-missing"
    ),
    pytest.param(
        vap(matchConstraints={}),
        ["spec.matchConstraints.resourceRules: Required value"],
        id="resource-rules-empty",
    ),
    pytest.param(
        vap(matchConstraints={"resourceRules": [rule()], "matchPolicy": "Fuzzy"}),
        [
            'spec.matchConstraints.matchPolicy: Unsupported value: "Fuzzy": supported values: '
            '"Equivalent", "Exact"'
        ],
        id="match-policy-unsupported",
    ),
    pytest.param(
        with_selector({"matchLabels": {"env": "prod", "bad key": "x"}}),
        [f'spec.matchConstraints.objectSelector.matchLabels: Invalid value: "bad key": {NAME_PART}'],
        id="selector-match-labels-key",
    ),
    pytest.param(
        with_selector({"matchExpressions": [{"key": "env", "operator": "In"}]}),
        [
            "spec.matchConstraints.objectSelector.matchExpressions[0].values: Required value: must be "
            "specified when `operator` is 'In' or 'NotIn'"
        ],
        id="selector-in-without-values",
    ),
    pytest.param(
        with_selector({"matchExpressions": [{"key": "env", "operator": "Exists", "values": ["a"]}]}),
        [
            "spec.matchConstraints.objectSelector.matchExpressions[0].values: Forbidden: may not be "
            "specified when `operator` is 'Exists' or 'DoesNotExist'"
        ],
        id="selector-exists-with-values",
    ),
    pytest.param(
        with_selector({"matchExpressions": [{"key": "env", "operator": "Gt", "values": ["1"]}]}),
        [
            'spec.matchConstraints.objectSelector.matchExpressions[0].operator: Invalid value: "Gt": not a '
            "valid selector operator"
        ],
        id="selector-unknown-operator",
    ),
    pytest.param(
        vap(
            matchConditions=[{"name": "a<b", "expression": "true"}],
            matchConstraints={
                "resourceRules": [rule()],
                "objectSelector": {"matchExpressions": [{"key": "k", "operator": "a<b"}]},
            },
        ),
        [
            # operator is a named Go string type: rendered as JSON (HTML-escaped); the name is a plain
            # string: rendered with %q.
            "spec.matchConstraints.objectSelector.matchExpressions[0].operator: Invalid value: "
            '"a\\u003cb": not a valid selector operator',
            f'spec.matchConditions[0].name: Invalid value: "a<b": {NAME_PART}',
        ],
        id="named-string-type-json-vs-plain-string-quoted",
    ),
    pytest.param(
        with_selector({"matchExpressions": [{"key": "-env", "operator": "NotIn", "values": ["x y"]}]}),
        [
            "spec.matchConstraints.objectSelector.matchExpressions[0].key: Invalid value: "
            f'"-env": {NAME_PART}',
            "spec.matchConstraints.objectSelector.matchExpressions[0].values[0]: Invalid value: "
            f'"x y": {LABEL_VALUE}',
        ],
        id="selector-bad-key-and-value",
    ),
    pytest.param(
        with_selector({"matchExpressions": [{"key": "a", "operator": "In", "values": ["v" * 64]}]}),
        [
            "spec.matchConstraints.objectSelector.matchExpressions[0].values[0]: Invalid value: "
            f'"{"v" * 64}": must be no more than 63 bytes'
        ],
        id="selector-value-too-long",
    ),
    pytest.param(
        vap(
            matchConstraints={
                "resourceRules": [rule()],
                "namespaceSelector": {"matchExpressions": [{"key": "a", "operator": "DoesNotExist"}]},
            }
        ),
        [],
        id="selector-does-not-exist-ok",
    ),
    # rules (7.4)
    pytest.param(with_rule(operations=[]), [f"{RR}.operations: Required value"], id="operations-empty"),
    pytest.param(
        with_rule(operations=["*", "CREATE"]),
        [
            f"""{RR}.operations: Invalid value: ["*","CREATE"]: if '*' is present, must not specify other """
            "operations"
        ],
        id="operations-wildcard-and-other",
    ),
    pytest.param(
        with_rule(operations=["PATCH"]),
        [
            f'{RR}.operations[0]: Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", '
            '"DELETE", "UPDATE"'
        ],
        id="operations-unsupported",
    ),
    pytest.param(with_rule(apiGroups=[]), [f"{RR}.apiGroups: Required value"], id="api-groups-empty"),
    pytest.param(with_rule(apiGroups=["", "apps"]), [], id="api-groups-core-and-apps"),
    pytest.param(
        with_rule(apiGroups=["*", "apps"]),
        [
            f"""{RR}.apiGroups: Invalid value: ["*","apps"]: if '*' is present, must not specify other API """
            "groups"
        ],
        id="api-groups-wildcard-and-other",
    ),
    pytest.param(
        with_rule(apiVersions=["*", "v1"]),
        [
            f"""{RR}.apiVersions: Invalid value: ["*","v1"]: if '*' is present, must not specify other API """
            "versions"
        ],
        id="api-versions-wildcard-and-other",
    ),
    pytest.param(
        with_rule(apiVersions=["v1", ""]),
        [f"{RR}.apiVersions[1]: Required value"],
        id="api-versions-empty-element",
    ),
    pytest.param(with_rule(apiVersions=[]), [f"{RR}.apiVersions: Required value"], id="api-versions-empty"),
    pytest.param(with_rule(resources=[]), [f"{RR}.resources: Required value"], id="resources-empty"),
    pytest.param(
        with_rule(resources=["pods", ""]),
        [f"{RR}.resources[1]: Required value"],
        id="resources-empty-element",
    ),
    pytest.param(
        with_rule(resources=["*/*", "pods"]),
        [
            f"""{RR}.resources: Invalid value: ["*/*","pods"]: if '*/*' is present, must not specify other """
            "resources"
        ],
        id="resources-double-wildcard-and-other",
    ),
    pytest.param(
        with_rule(resources=["*", "pods"]),
        [
            f"""{RR}.resources: Invalid value: ["*","pods"]: if '*' is present, must not specify other """
            "resources without subresources"
        ],
        id="resources-wildcard-then-plain",
    ),
    pytest.param(with_rule(resources=["pods", "*"]), [], id="resources-plain-then-wildcard-accepted"),
    pytest.param(with_rule(resources=["*", "pods/status"]), [], id="resources-wildcard-and-subresource"),
    pytest.param(
        with_rule(resources=["pods/*", "pods/log"]),
        [
            f"""{RR}.resources[1]: Invalid value: "pods/log": if 'pods/*' is present, must not specify """
            "pods/log"
        ],
        id="resources-subresource-wildcard-first",
    ),
    pytest.param(with_rule(resources=["pods/log", "pods/*"]), [], id="resources-subresource-wildcard-last"),
    pytest.param(
        with_rule(resources=["*/status", "pods/status"]),
        [
            f"""{RR}.resources[1]: Invalid value: "pods/status": if '*/status' is present, must not """
            "specify pods/status"
        ],
        id="resources-resource-wildcard-first",
    ),
    pytest.param(
        with_rule(scope="Global"),
        [f'{RR}.scope: Unsupported value: "Global": supported values: "*", "Cluster", "Namespaced"'],
        id="scope-unsupported",
    ),
    pytest.param(
        with_rule(resourceNames=["..", "a/b%", "x", "x"]),
        [
            f"{RR}.resourceNames[0]: Invalid value: \"..\": may not be '..'",
            f"{RR}.resourceNames[1]: Invalid value: \"a/b%\": may not contain '/'",
            f"{RR}.resourceNames[1]: Invalid value: \"a/b%\": may not contain '%'",
            f'{RR}.resourceNames[3]: Duplicate value: "x"',
        ],
        id="resource-names",
    ),
    pytest.param(
        vap(matchConstraints={"resourceRules": [rule()], "excludeResourceRules": [rule(operations=[])]}),
        ["spec.matchConstraints.excludeResourceRules[0].operations: Required value"],
        id="exclude-rules-validated",
    ),
    # matchConditions (7.5)
    pytest.param(
        vap(matchConditions=[{"name": f"c{i}", "expression": "true"} for i in range(65)]),
        ["spec.matchConditions: Too many: 65: must have at most 64 items"],
        id="match-conditions-too-many",
    ),
    pytest.param(
        vap(matchConditions=[{"expression": "  "}]),
        [
            "spec.matchConditions[0].expression: Required value",
            "spec.matchConditions[0].name: Required value",
        ],
        id="match-condition-blank",
    ),
    pytest.param(
        vap(matchConditions=[{"name": "bad name!", "expression": "true"}]),
        [f'spec.matchConditions[0].name: Invalid value: "bad name!": {NAME_PART}'],
        id="match-condition-name-invalid",
    ),
    pytest.param(
        vap(matchConditions=[{"name": "/x", "expression": "true"}]),
        ['spec.matchConditions[0].name: Invalid value: "/x": prefix part must be non-empty'],
        id="match-condition-name-empty-prefix",
    ),
    pytest.param(
        vap(matchConditions=[{"name": "n" * 64, "expression": "true"}]),
        [
            f'spec.matchConditions[0].name: Invalid value: "{"n" * 64}": name part must be no more than '
            "63 bytes"
        ],
        id="match-condition-name-too-long",
    ),
    pytest.param(
        vap(
            matchConditions=[
                {"name": "example.com/a", "expression": "true"},
                {"name": "example.com/a", "expression": "false"},
            ]
        ),
        ['spec.matchConditions[1].name: Duplicate value: "example.com/a"'],
        id="match-condition-duplicate",
    ),
    # variables
    pytest.param(
        vap(variables=[{"name": " ", "expression": ""}]),
        [
            "spec.variables[0].name: Required value: name is not specified",
            "spec.variables[0].expression: Required value: expression is not specified",
        ],
        id="variable-blank",
    ),
    pytest.param(
        vap(
            variables=[
                {"name": "1abc", "expression": "1"},
                {"name": "namespace", "expression": "2"},
                {"name": "_ok9", "expression": "3"},
            ]
        ),
        [
            'spec.variables[0].name: Invalid value: "1abc": name is not a valid CEL identifier',
            'spec.variables[1].name: Invalid value: "namespace": name is not a valid CEL identifier',
        ],
        id="variable-names",
    ),
    # validations
    pytest.param(
        vap(validations=[]),
        [
            f"spec.validations: Required value: {AT_LEAST_ONE}",
            f"spec.auditAnnotations: Required value: {AT_LEAST_ONE}",
        ],
        id="no-validations-nor-audit-annotations",
    ),
    pytest.param(
        vap(validations=[{"expression": " \t"}]),
        ["spec.validations[0].expression: Required value: expression is not specified"],
        id="validation-expression-blank",
    ),
    pytest.param(
        vap(validations=[{"expression": "true", "messageExpression": "  "}]),
        ['spec.validations[0].messageExpression: Invalid value: "  ": must be non-empty if specified'],
        id="message-expression-blank",
    ),
    pytest.param(
        vap(validations=[{"expression": "true", "message": " "}]),
        ['spec.validations[0].message: Invalid value: " ": message must be non-empty if specified'],
        id="message-blank",
    ),
    pytest.param(
        vap(validations=[{"expression": "true", "message": "line1\r\nline2"}]),
        [
            'spec.validations[0].message: Invalid value: "line1\\r\\nline2": message must not contain line '
            "breaks"
        ],
        id="message-line-breaks",
    ),
    pytest.param(
        vap(validations=[{"expression": "true", "message": "fine\n"}]), [], id="message-trailing-newline"
    ),
    pytest.param(
        vap(validations=[{"expression": "true", "reason": "Unauthorized"}]),
        [
            'spec.validations[0].reason: Unsupported value: "Unauthorized": supported values: "Forbidden", '
            '"Invalid", "RequestEntityTooLarge"'
        ],
        id="reason-unauthorized-rejected",
    ),
    pytest.param(
        vap(validations=[{"expression": "true", "reason": ""}]),
        [
            'spec.validations[0].reason: Unsupported value: "": supported values: "Forbidden", "Invalid", '
            '"RequestEntityTooLarge"'
        ],
        id="reason-empty",
    ),
    # auditAnnotations
    pytest.param(
        vap(auditAnnotations=[{"key": "bad key", "valueExpression": "'v'"}]),
        [f'spec.auditAnnotations[0].key: Invalid value: "demo/bad key": {NAME_PART}'],
        id="audit-key-invalid",
    ),
    pytest.param(
        vap(auditAnnotations=[{"key": "", "valueExpression": "'v'"}]),
        [
            'spec.auditAnnotations[0].key: Invalid value: "demo/": name part must be non-empty',
            f'spec.auditAnnotations[0].key: Invalid value: "demo/": {NAME_PART}',
        ],
        id="audit-key-empty",
    ),
    pytest.param(
        vap(auditAnnotations=[{"key": "a/b", "valueExpression": "'v'"}]),
        [f'spec.auditAnnotations[0].key: Invalid value: "demo/a/b": {LABEL_KEY_SLASHES}'],
        id="audit-key-with-slash",
    ),
    pytest.param(
        vap(name="x" * 253, auditAnnotations=[{"key": "k", "valueExpression": "'v'"}]),
        [],
        id="audit-key-prefix-is-the-policy-name",
    ),
    pytest.param(
        vap(
            auditAnnotations=[{"key": "k", "valueExpression": "'a'"}, {"key": "k", "valueExpression": "'b'"}]
        ),
        ['spec.auditAnnotations[1].key: Duplicate value: "k"'],
        id="audit-key-duplicate",
    ),
    pytest.param(
        vap(auditAnnotations=[{"key": "k", "valueExpression": " "}]),
        ["spec.auditAnnotations[0].valueExpression: Required value: valueExpression is not specified"],
        id="audit-value-expression-blank",
    ),
    pytest.param(
        vap(auditAnnotations=[{"key": "k", "valueExpression": "'" + "v" * 5119 + "'"}]),
        ["spec.auditAnnotations[0].valueExpression: Required value: must not exceed 5120 bytes in length"],
        id="audit-value-expression-too-long",
    ),
    pytest.param(
        vap(name=None, auditAnnotations=[{"key": "k", "valueExpression": "'v'"}]),
        [
            "metadata.name: Required value: name or generateName is required",
            'spec.auditAnnotations[0].key: Invalid value: "k": requires metadata.name be non-empty',
        ],
        id="audit-key-without-policy-name",
    ),
    # JSON types the decoder would reject
    pytest.param(
        vap(validations="abc"),
        ['spec.validations: Invalid value: "abc": must be a list (got string)'],
        id="type-validations-string",
    ),
    pytest.param(
        with_rule(operations="CREATE"),
        [f'{RR}.operations: Invalid value: "CREATE": must be a list (got string)'],
        id="type-operations",
    ),
    pytest.param(
        vap(validations=[{"expression": 42}, "x"]),
        [
            "spec.validations[0].expression: Invalid value: 42: must be a string (got number)",
            'spec.validations[1]: Invalid value: "x": must be an object (got string)',
        ],
        id="type-expression-number-and-item-string",
    ),
    pytest.param(
        vap(matchConstraints=["a", True]),
        ['spec.matchConstraints: Invalid value: ["a",true]: must be an object (got list)'],
        id="type-match-constraints-list",
    ),
    pytest.param(
        {**vap(), "metadata": {"name": "demo", "labels": {"a": 1}}},
        ["metadata.labels[a]: Invalid value: 1: must be a string (got number)"],
        id="type-label-value",
    ),
    pytest.param(
        {**vap(), "spec": "oops"},
        ['spec: Invalid value: "oops": must be an object (got string)'],
        id="type-spec-string",
    ),
]


@pytest.mark.parametrize(("obj", "expected"), POLICY_CASES)
def test_validate_policy(obj: dict, expected: list[str]) -> None:
    assert messages(validate_policy(default_policy(obj))) == expected


def test_policy_audit_annotations_too_many_renders_internal_structs() -> None:
    annotations = [{"key": f"k{i}", "valueExpression": "'v'"} for i in range(21)]
    shown = ",".join(f'{{"Key":"k{i}","ValueExpression":"\'v\'"}}' for i in range(21))
    errors = validate_policy(default_policy(vap(auditAnnotations=annotations)))
    assert messages(errors) == [
        f"spec.auditAnnotations: Invalid value: [{shown}]: must not have more than 20 auditAnnotations"
    ]


def test_policy_without_defaults_reports_missing_defaulted_fields() -> None:
    errors = validate_policy(vap())
    assert messages(errors) == [
        "spec.failurePolicy: Required value",
        "spec.matchConstraints.matchPolicy: Required value",
        "spec.matchConstraints.namespaceSelector: Required value",
        "spec.matchConstraints.objectSelector: Required value",
    ]


def test_policy_errors_keep_apiserver_order_across_sections() -> None:
    obj = vap(
        name="Bad",
        failurePolicy="x",
        matchConditions=[{"name": "", "expression": "true"}],
        validations=[{"expression": "", "reason": "Nope"}],
    )
    assert [e.field for e in validate_policy(default_policy(obj))] == [
        "metadata.name",
        "spec.failurePolicy",
        "spec.matchConditions[0].name",
        "spec.validations[0].expression",
        "spec.validations[0].reason",
    ]


def test_compile_check_is_called_in_apiserver_order_with_trimming() -> None:
    obj = vap(
        paramKind={"apiVersion": "v1", "kind": "ConfigMap"},
        matchConditions=[{"name": "m", "expression": "  true  "}],
        variables=[{"name": "v", "expression": " 1 "}],
        validations=[{"expression": " bad ", "messageExpression": " 'm' "}],
        auditAnnotations=[{"key": "k", "valueExpression": "  'a'  "}],
    )
    sites: list[ExpressionSite] = []

    def check(site: ExpressionSite) -> FieldError | None:
        sites.append(site)
        if site.kind == "validation":
            return invalid(
                site.field, site.value, "compilation failed: ERROR: <input>:1:2: undeclared reference"
            )
        if site.kind == "auditAnnotation":
            return invalid(site.field, site.value, "must evaluate to one of [string null_type]")
        return None

    errors = validate_policy(default_policy(obj), check)
    assert [(s.kind, s.expression, s.value, s.has_params, s.has_authorizer) for s in sites] == [
        ("matchCondition", "true", "true", True, True),
        ("variable", " 1 ", " 1 ", True, True),
        ("validation", " bad ", " bad ", True, True),
        ("messageExpression", " 'm' ", " 'm' ", True, False),
        ("auditAnnotation", "'a'", "  'a'  ", True, True),
    ]
    assert sites[1].name == "v"
    assert messages(errors) == [
        'spec.validations[0].expression: Invalid value: " bad ": compilation failed: ERROR: <input>:1:2: '
        "undeclared reference",
        "spec.auditAnnotations[0].valueExpression: Invalid value: \"  'a'  \": must evaluate to one of "
        "[string null_type]",
    ]


def test_compile_check_not_called_for_blank_expressions() -> None:
    obj = vap(validations=[{"expression": " ", "messageExpression": ""}])
    called: list[ExpressionSite] = []
    validate_policy(default_policy(obj), lambda site: called.append(site))
    assert called == []


# ---------------------------------------------------------------------------------------------
# Bindings

MR = "spec.matchResouces"  # sic: the apiserver's path

BINDING_CASES = [
    pytest.param(vapb(), [], id="valid-minimal"),
    pytest.param(
        vapb(paramRef={"name": "limits", "namespace": "any thing", "parameterNotFoundAction": "Allow"}),
        [],
        id="valid-param-ref-namespace-not-validated",
    ),
    pytest.param(vapb(name="Bad"), [f'metadata.name: Invalid value: "Bad": {SUBDOMAIN}'], id="name-invalid"),
    pytest.param(vapb(policyName=None), ["spec.policyName: Required value"], id="policy-name-missing"),
    pytest.param(
        vapb(policyName="Demo"),
        [f'spec.policyName: Invalid value: "Demo": {SUBDOMAIN}'],
        id="policy-name-invalid",
    ),
    pytest.param(
        vapb(paramRef={"name": "a", "selector": {}, "parameterNotFoundAction": "Deny"}),
        [
            "spec.paramRef.name: Forbidden: name and selector are mutually exclusive",
            "spec.paramRef.selector: Forbidden: name and selector are mutually exclusive",
        ],
        id="param-ref-name-and-selector",
    ),
    pytest.param(
        vapb(paramRef={}),
        [
            "spec.paramRef: Required value: one of name or selector must be specified",
            "spec.paramRef.parameterNotFoundAction: Required value",
        ],
        id="param-ref-empty",
    ),
    pytest.param(
        vapb(paramRef={"name": ".", "parameterNotFoundAction": "Ignore"}),
        [
            "spec.paramRef.name: Invalid value: \".\": may not be '.'",
            'spec.paramRef.parameterNotFoundAction: Unsupported value: "Ignore": supported values: "Deny", '
            '"Allow"',
        ],
        id="param-ref-bad-name-and-action",
    ),
    pytest.param(
        vapb(paramRef={"name": "x", "parameterNotFoundAction": ""}),
        ["spec.paramRef.parameterNotFoundAction: Required value"],
        id="param-ref-action-empty",
    ),
    pytest.param(
        vapb(
            paramRef={
                "selector": {"matchExpressions": [{"key": "a", "operator": "in"}]},
                "parameterNotFoundAction": "Deny",
            }
        ),
        [
            'spec.paramRef.selector.matchExpressions[0].operator: Invalid value: "in": not a valid selector '
            "operator"
        ],
        id="param-ref-selector-strict",
    ),
    pytest.param(
        vapb(api_version=V1ALPHA1, paramRef={"name": "x"}), [], id="param-ref-v1alpha1-defaults-deny"
    ),
    pytest.param(vapb(matchResources={}), [], id="match-resources-empty-rules-allowed"),
    pytest.param(
        vapb(matchResources={"resourceRules": [rule(operations=[], scope="")]}),
        [
            f"{MR}.resourceRules[0].operations: Required value",
            f'{MR}.resourceRules[0].scope: Unsupported value: "": supported values: "*", "Cluster", '
            '"Namespaced"',
        ],
        id="match-resources-typo-path",
    ),
    pytest.param(
        vapb(matchResources={"matchPolicy": "exact"}),
        [f'{MR}.matchPolicy: Unsupported value: "exact": supported values: "Equivalent", "Exact"'],
        id="match-resources-match-policy",
    ),
    pytest.param(
        vapb(validationActions=[]),
        ["spec.validationActions: Required value: at least one validation action is required"],
        id="actions-empty",
    ),
    pytest.param(
        vapb(validationActions=None),
        ["spec.validationActions: Required value: at least one validation action is required"],
        id="actions-missing",
    ),
    pytest.param(
        vapb(validationActions=["Deny", "Warn"]),
        [f'spec.validationActions: Invalid value: ["Deny","Warn"]: {DENY_AND_WARN}'],
        id="actions-deny-warn",
    ),
    pytest.param(
        vapb(validationActions=["Audit", "Audit"]),
        ['spec.validationActions[1]: Duplicate value: "Audit"'],
        id="actions-duplicate",
    ),
    pytest.param(
        vapb(validationActions=["Block"]),
        ['spec.validationActions[0]: Unsupported value: "Block": supported values: "Audit", "Deny", "Warn"'],
        id="actions-unsupported",
    ),
    pytest.param(vapb(validationActions=["Warn", "Audit"]), [], id="actions-warn-audit"),
    pytest.param(
        vapb(validationActions="Deny"),
        ['spec.validationActions: Invalid value: "Deny": must be a list (got string)'],
        id="type-actions",
    ),
]


@pytest.mark.parametrize(("obj", "expected"), BINDING_CASES)
def test_validate_binding(obj: dict, expected: list[str]) -> None:
    assert messages(validate_binding(default_binding(obj))) == expected


def test_binding_v1_param_ref_is_not_defaulted() -> None:
    obj = default_binding(vapb(paramRef={"name": "x"}))
    assert "parameterNotFoundAction" not in obj["spec"]["paramRef"]
    assert messages(validate_binding(obj)) == ["spec.paramRef.parameterNotFoundAction: Required value"]


# ---------------------------------------------------------------------------------------------
# Defaulting (section 6)


def test_default_policy_fills_every_default_and_keeps_explicit_values() -> None:
    obj = vap(
        matchConstraints={
            "resourceRules": [rule(), rule(scope="Namespaced")],
            "excludeResourceRules": [rule()],
            "matchPolicy": "Exact",
        }
    )
    before = copy.deepcopy(obj)
    out = default_policy(obj)
    assert obj == before  # a copy, not a mutation
    assert out["spec"]["failurePolicy"] == "Fail"
    mc = out["spec"]["matchConstraints"]
    assert (mc["matchPolicy"], mc["namespaceSelector"], mc["objectSelector"]) == ("Exact", {}, {})
    assert [r["scope"] for r in mc["resourceRules"] + mc["excludeResourceRules"]] == ["*", "Namespaced", "*"]


def test_default_policy_without_spec_or_constraints() -> None:
    out = default_policy({"apiVersion": V1, "kind": "ValidatingAdmissionPolicy", "metadata": {"name": "p"}})
    assert out["spec"] == {"failurePolicy": "Fail"}
    assert "matchConstraints" not in default_policy(vap(matchConstraints=None))["spec"]


def test_default_policy_explicit_nulls_are_defaulted() -> None:
    out = default_policy(
        vap(
            failurePolicy=None,
            matchConstraints={"resourceRules": [None], "matchPolicy": None, "objectSelector": None},
        )
    )
    mc = out["spec"]["matchConstraints"]
    assert (out["spec"]["failurePolicy"], mc["matchPolicy"], mc["objectSelector"]) == (
        "Fail",
        "Equivalent",
        {},
    )
    assert mc["resourceRules"] == [{"scope": "*"}]


def test_default_binding_only_touches_match_resources_when_present() -> None:
    assert default_binding(vapb()) == vapb()
    mr = default_binding(vapb(matchResources={"resourceRules": [rule()]}))["spec"]["matchResources"]
    assert mr == {
        "resourceRules": [{**rule(), "scope": "*"}],
        "matchPolicy": "Equivalent",
        "namespaceSelector": {},
        "objectSelector": {},
    }


def test_default_binding_v1alpha1_param_ref() -> None:
    out = default_binding(vapb(api_version=V1ALPHA1, paramRef={"name": "x"}))
    assert out["spec"]["paramRef"]["parameterNotFoundAction"] == "Deny"
    kept = default_binding(
        vapb(api_version=V1ALPHA1, paramRef={"name": "x", "parameterNotFoundAction": "Allow"})
    )
    assert kept["spec"]["paramRef"]["parameterNotFoundAction"] == "Allow"


@pytest.mark.parametrize(
    "obj",
    [
        None,
        "text",
        [],
        {"spec": []},
        {"spec": {"matchConstraints": "x"}},
        {"spec": {"matchConstraints": {"resourceRules": "x"}}},
        {"spec": {"matchResources": {"resourceRules": [1]}}},
    ],
)
def test_defaulting_and_validation_never_raise_on_odd_shapes(obj: object) -> None:
    for default, validate in ((default_policy, validate_policy), (default_binding, validate_binding)):
        errors = validate(default(obj))
        assert isinstance(errors, list)
        assert all(isinstance(e, FieldError) for e in errors)


# ---------------------------------------------------------------------------------------------
# field.Error rendering and the 422 message (7.1)

RENDER_CASES = [
    pytest.param(
        invalid("f", 'a"b\\c\n\té\x01\u00a0<', "d"),
        'f: Invalid value: "a\\"b\\\\c\\n\\té\\x01\\u00a0<": d',
        id="string-go-quoted",
    ),
    pytest.param(invalid("f", 3, "d"), "f: Invalid value: 3: d", id="int-bare"),
    pytest.param(invalid("f", True, "d"), "f: Invalid value: true: d", id="bool-bare"),
    pytest.param(invalid("f", 1e6, "d"), "f: Invalid value: 1e+06: d", id="float-go-v"),
    pytest.param(invalid("f", 2.5, "d"), "f: Invalid value: 2.5: d", id="float-plain"),
    pytest.param(invalid("f", None, "d"), "f: Invalid value: null: d", id="none-null"),
    pytest.param(
        invalid("f", ["<a>", "&"], "d"),
        'f: Invalid value: ["\\u003ca\\u003e","\\u0026"]: d',
        id="list-json-html-escaped",
    ),
    pytest.param(
        invalid("f", {"b": 1.0, "a": [1e21, 1e-7]}, "d"),
        'f: Invalid value: {"a":[1e+21,1e-7],"b":1}: d',
        id="dict-json-sorted-go-floats",
    ),
    pytest.param(invalid("f", "x", ""), 'f: Invalid value: "x"', id="invalid-without-detail"),
    pytest.param(required("f"), "f: Required value", id="required-bare"),
    pytest.param(required("f", "why"), "f: Required value: why", id="required-detail"),
    pytest.param(forbidden("f", "no"), "f: Forbidden: no", id="forbidden"),
    pytest.param(duplicate("f", "x"), 'f: Duplicate value: "x"', id="duplicate"),
    pytest.param(
        not_supported("f", "x", ["A", "B"]),
        'f: Unsupported value: "x": supported values: "A", "B"',
        id="not-supported",
    ),
    pytest.param(too_many("f", 2, 1), "f: Too many: 2: must have at most 1 item", id="too-many-singular"),
    pytest.param(too_long("f", 262144), "f: Too long: may not be more than 262144 bytes", id="too-long"),
    pytest.param(internal_error("f", "boom"), "f: Internal error: boom", id="internal-error"),
]


@pytest.mark.parametrize(("error", "expected"), RENDER_CASES)
def test_rendering(error: FieldError, expected: str) -> None:
    assert error.message == expected
    assert error.body() == expected[len(error.field) + 2 :]


def test_field_error_parts() -> None:
    error = invalid("spec.validations[0].expression", "x", "compilation failed: boom")
    assert (error.type, error.field, error.detail) == (
        "FieldValueInvalid",
        "spec.validations[0].expression",
        "compilation failed: boom",
    )
    assert error.body() == 'Invalid value: "x": compilation failed: boom'
    assert required("spec.x").type == "FieldValueRequired"


AGGREGATE_CASES = [
    pytest.param(
        "ValidatingAdmissionPolicy",
        "demo",
        [required("spec.matchConstraints")],
        'ValidatingAdmissionPolicy.admissionregistration.k8s.io "demo" is invalid: '
        "spec.matchConstraints: Required value",
        id="one-error",
    ),
    pytest.param(
        "ValidatingAdmissionPolicyBinding",
        "b",
        [required("spec.policyName"), required("spec.x", "y")],
        'ValidatingAdmissionPolicyBinding.admissionregistration.k8s.io "b" is invalid: '
        "[spec.policyName: Required value, spec.x: Required value: y]",
        id="several-errors",
    ),
    pytest.param(
        "ValidatingAdmissionPolicy",
        "d",
        [required("a"), required("b"), required("a")],
        'ValidatingAdmissionPolicy.admissionregistration.k8s.io "d" is invalid: '
        "[a: Required value, b: Required value]",
        id="duplicates-removed",
    ),
    pytest.param(
        "ValidatingAdmissionPolicy",
        "d",
        [required("a"), required("a")],
        'ValidatingAdmissionPolicy.admissionregistration.k8s.io "d" is invalid: a: Required value',
        id="duplicates-collapse-to-one",
    ),
    pytest.param(
        "ValidatingAdmissionPolicy",
        'we"ird',
        [],
        'ValidatingAdmissionPolicy.admissionregistration.k8s.io "we\\"ird" is invalid',
        id="no-errors",
    ),
]


@pytest.mark.parametrize(("kind", "name", "errors", "expected"), AGGREGATE_CASES)
def test_aggregate_message(kind: str, name: str, errors: list[FieldError], expected: str) -> None:
    assert aggregate_message(kind, name, errors) == expected


def test_aggregate_message_of_a_real_policy() -> None:
    errors = validate_policy(default_policy(vap(name="demo", failurePolicy="Never", validations=[])))
    assert aggregate_message("ValidatingAdmissionPolicy", "demo", errors) == (
        'ValidatingAdmissionPolicy.admissionregistration.k8s.io "demo" is invalid: ['
        'spec.failurePolicy: Unsupported value: "Never": supported values: "Fail", "Ignore", '
        f"spec.validations: Required value: {AT_LEAST_ONE}, "
        f"spec.auditAnnotations: Required value: {AT_LEAST_ONE}]"
    )
