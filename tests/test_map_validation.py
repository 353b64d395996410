"""MutatingAdmissionPolicy(Binding): served versions, defaulting and API validation (app.vap.mutating.types).

Restates the MutatingAdmissionPolicy cases of kubernetes/kubernetes pkg/apis/admissionregistration/validation/
validation_test.go (TestValidateMutatingAdmissionPolicy, TestValidateMutatingAdmissionPolicyBinding) for the API as
released (a mutation is a patchType with an applyConfiguration or jsonPatch member), with the messages the
apiserver's validateMutatingAdmissionPolicySpec, validateMutation and validateMutatingAdmissionPolicyBindingSpec give,
written out in full; and the defaulting of pkg/apis/admissionregistration/v1*/defaults.go.
"""

from __future__ import annotations

import pytest

from app.vap.mutating.types import (
    default_mutating_binding,
    default_mutating_policy,
    served_versions,
    validate_mutating_binding,
    validate_mutating_policy,
)
from app.vap.validation import ExpressionSite, FieldError, aggregate_message, invalid

V1ALPHA1 = "admissionregistration.k8s.io/v1alpha1"
V1BETA1 = "admissionregistration.k8s.io/v1beta1"
V1 = "admissionregistration.k8s.io/v1"
SUBDOMAIN = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
    "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
DNS1035 = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
    "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for "
    "validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
)
MUTATING_OPS = 'supported values: "*", "CONNECT", "CREATE", "UPDATE"'
APPLY = {"patchType": "ApplyConfiguration", "applyConfiguration": {"expression": "Object{}"}}
PATCH = {"patchType": "JSONPatch", "jsonPatch": {"expression": "[]"}}


def rule(**overrides: object) -> dict:
    base = {"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["deployments"]}
    return {**base, **overrides}


def map_(name: str | None = "demo", api_version: str = V1, **spec: object) -> dict:
    """A valid defaulted policy, with spec fields replaced (None removes the field)."""
    constraints = {"matchPolicy": "Equivalent", "namespaceSelector": {}, "objectSelector": {},
                   "resourceRules": [rule(scope="*")]}
    full = {"failurePolicy": "Fail", "matchConstraints": constraints, "mutations": [APPLY],
            "reinvocationPolicy": "Never", **spec}
    return {"apiVersion": api_version, "kind": "MutatingAdmissionPolicy",
            "metadata": {} if name is None else {"name": name},
            "spec": {k: v for k, v in full.items() if v is not None}}


def constraints(**overrides: object) -> dict:
    base = {"matchPolicy": "Equivalent", "namespaceSelector": {}, "objectSelector": {},
            "resourceRules": [rule(scope="*")]}
    return {**base, **overrides}


def mapb(name: str = "demo-binding", api_version: str = V1, **spec: object) -> dict:
    full = {"policyName": "demo", **spec}
    return {"apiVersion": api_version, "kind": "MutatingAdmissionPolicyBinding", "metadata": {"name": name},
            "spec": {k: v for k, v in full.items() if v is not None}}


def messages(errors: list[FieldError]) -> list[str]:
    return [e.message for e in errors]


POLICY_CASES = [
    pytest.param(map_(), [], id="valid-apply-configuration"),
    pytest.param(map_(mutations=[PATCH], reinvocationPolicy="IfNeeded"), [], id="valid-json-patch"),
    # TestValidateMutatingAdmissionPolicy
    pytest.param(map_(name="!!!!"), [f'metadata.name: Invalid value: "!!!!": {SUBDOMAIN}'],
                 id="metadata.name validation"),
    pytest.param(map_(failurePolicy="other"),
                 ['spec.failurePolicy: Unsupported value: "other": supported values: "Fail", "Ignore"'],
                 id="failure policy validation"),
    pytest.param(map_(paramKind={"kind": "Example", "apiVersion": "test.example.com"}),
                 [f'spec.paramKind.apiVersion: Invalid value: "test.example.com": {DNS1035}'],
                 id="API version is required in ParamKind"),
    pytest.param(map_(paramKind={"apiVersion": "test.example.com/v1"}), ["spec.paramKind.kind: Required value"],
                 id="API kind is required in ParamKind"),
    pytest.param({"apiVersion": V1, "kind": "MutatingAdmissionPolicy", "metadata": {"name": "config"}, "spec": {}},
                 ["spec.failurePolicy: Required value", "spec.matchConstraints: Required value",
                  "spec.mutations: Required value: mutations must contain at least one item",
                  "spec.reinvocationPolicy: Required value"],
                 id="mutations and reinvocationPolicy are required"),
    pytest.param(map_(matchConstraints=constraints(resourceRules=None)),
                 ["spec.matchConstraints.resourceRules: Required value"],
                 id="matchConstraints.resourceRules is required"),
    pytest.param(map_(matchConstraints=constraints(resourceRules=[{"resourceNames": ["test", "test"],
                                                                   **rule(scope="*")}])),
                 ['spec.matchConstraints.resourceRules[0].resourceNames[1]: Duplicate value: "test"'],
                 id="matchResources resourceNames cannot duplicate"),
    pytest.param(map_(matchConstraints=constraints(matchPolicy="other")),
                 ['spec.matchConstraints.matchPolicy: Unsupported value: "other": supported values: '
                  '"Equivalent", "Exact"'],
                 id="matchResources validation: matchPolicy"),
    pytest.param(map_(matchConstraints=constraints(resourceRules=[rule(operations=["PATCH"], scope="*")])),
                 ['spec.matchConstraints.resourceRules[0].operations[0]: Unsupported value: "PATCH": supported '
                  'values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"',
                  f'spec.matchConstraints.resourceRules.operations: Unsupported value: "PATCH": {MUTATING_OPS}'],
                 id="operation must be either create/update/connect"),
    pytest.param(map_(matchConstraints=constraints(resourceRules=[rule(operations=["CREATE", "DELETE"], scope="*")])),
                 [f'spec.matchConstraints.resourceRules.operations: Unsupported value: "DELETE": {MUTATING_OPS}'],
                 id="DELETE cannot be matched"),
    pytest.param(map_(matchConstraints=constraints(resourceRules=[rule(operations=["CREATE", "*"], scope="*")])),
                 ['spec.matchConstraints.resourceRules[0].operations: Invalid value: ["CREATE","*"]: if \'*\' is '
                  'present, must not specify other operations'],
                 id="wildcard operation cannot be mixed with other strings"),
    # reinvocationPolicy
    pytest.param(map_(reinvocationPolicy=None), ["spec.reinvocationPolicy: Required value"],
                 id="reinvocationPolicy is required"),
    pytest.param(map_(reinvocationPolicy="Always"),
                 ['spec.reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"'],
                 id="reinvocationPolicy must be IfNeeded or Never"),
    # mutations
    pytest.param(map_(mutations=[{"applyConfiguration": {"expression": "Object{}"}}]),
                 ["spec.mutations[0].patchType: Required value"], id="patchType is required"),
    pytest.param(map_(mutations=[{"patchType": "Merge"}]),
                 ['spec.mutations[0].patchType: Unsupported value: "Merge": supported values: "ApplyConfiguration", '
                  '"JSONPatch"'],
                 id="patchType must be ApplyConfiguration or JSONPatch"),
    pytest.param(map_(mutations=[{"patchType": "JSONPatch", "applyConfiguration": {"expression": "Object{}"}}]),
                 ["spec.mutations[0].jsonPatch: Required value: must be specified when patchType is JSONPatch",
                  'spec.mutations[0].applyConfiguration: Invalid value: "{applyConfiguration}": must not be specified '
                  "when patchType is JSONPatch"],
                 id="jsonPatch needs its member and no other"),
    pytest.param(map_(mutations=[{"patchType": "ApplyConfiguration", "jsonPatch": {"expression": "[]"}}]),
                 ["spec.mutations[0].applyConfiguration: Required value: must be specified when patchType is "
                  "ApplyConfiguration",
                  'spec.mutations[0].jsonPatch: Invalid value: "{jsonPatch}": must not be specified when patchType '
                  "is ApplyConfiguration"],
                 id="applyConfiguration needs its member and no other"),
    pytest.param(map_(mutations=[{"patchType": "JSONPatch", "jsonPatch": {"expression": "  "}}]),
                 ["spec.mutations[0].jsonPatch.expression: Required value"], id="expression is required"),
    pytest.param(map_(mutations=[{"patchType": "ApplyConfiguration", "applyConfiguration": {}}]),
                 ["spec.mutations[0].applyConfiguration.expression: Required value"],
                 id="applyConfiguration expression is required"),
    # the shared parts: match conditions and variables, as for a validating policy
    pytest.param(map_(matchConditions=[{"name": "a", "expression": "true"}, {"name": "a", "expression": "true"}]),
                 ['spec.matchConditions[1].name: Duplicate value: "a"'], id="matchConditions names are unique"),
    pytest.param(map_(variables=[{"name": "1x", "expression": "1"}]),
                 ['spec.variables[0].name: Invalid value: "1x": name is not a valid CEL identifier'],
                 id="variable names are CEL identifiers"),
    # wrong JSON types stop the apiserver before validation
    pytest.param(map_(mutations={"patchType": "JSONPatch"}),
                 ['spec.mutations: Invalid value: {"patchType":"JSONPatch"}: must be a list (got object)'],
                 id="decode-error-mutations-object"),
]


@pytest.mark.parametrize(("obj", "expected"), POLICY_CASES)
def test_validate_mutating_policy(obj: dict, expected: list[str]) -> None:
    assert messages(validate_mutating_policy(obj)) == expected


def test_aggregate_message_of_an_invalid_policy() -> None:
    errors = validate_mutating_policy(map_(reinvocationPolicy=None, mutations=[{"patchType": "JSONPatch"}]))
    assert aggregate_message("MutatingAdmissionPolicy", "demo", errors) == (
        'MutatingAdmissionPolicy.admissionregistration.k8s.io "demo" is invalid: '
        "[spec.mutations[0].jsonPatch: Required value: must be specified when patchType is JSONPatch, "
        "spec.reinvocationPolicy: Required value]")


def test_compile_check_sees_mutation_expressions_in_order() -> None:
    seen: list[ExpressionSite] = []

    def check(site: ExpressionSite) -> FieldError | None:
        seen.append(site)
        return invalid(site.field, site.value, "compilation failed") if site.kind == "jsonPatch" else None

    obj = map_(paramKind={"apiVersion": "v1", "kind": "ConfigMap"},
               matchConditions=[{"name": "m", "expression": " true "}],
               variables=[{"name": "v", "expression": "1"}],
               mutations=[{"patchType": "ApplyConfiguration", "applyConfiguration": {"expression": " Object{} "}},
                          {"patchType": "JSONPatch", "jsonPatch": {"expression": "[ x ]\n"}}])
    errors = validate_mutating_policy(obj, check)
    assert [(s.kind, s.field, s.expression, s.has_params) for s in seen] == [
        ("matchCondition", "spec.matchConditions[0].expression", "true", True),
        ("variable", "spec.variables[0].expression", "1", True),
        ("applyConfiguration", "spec.mutations[0].applyConfiguration.expression", "Object{}", True),
        ("jsonPatch", "spec.mutations[1].jsonPatch.expression", "[ x ]", True),
    ]
    assert messages(errors) == ['spec.mutations[1].jsonPatch.expression: Invalid value: "[ x ]": compilation failed']


BINDING_CASES = [
    pytest.param(mapb(), [], id="valid"),
    pytest.param(mapb(paramRef={"name": "p", "parameterNotFoundAction": "Deny"},
                      matchResources=constraints()), [], id="valid-with-param-and-match-resources"),
    # TestValidateMutatingAdmissionPolicyBinding
    pytest.param(mapb(name="!!!!"), [f'metadata.name: Invalid value: "!!!!": {SUBDOMAIN}'],
                 id="metadata.name validation"),
    pytest.param(mapb(policyName=None), ["spec.policyName: Required value"], id="policy name is required"),
    pytest.param(mapb(policyName="1"), [], id="policy name is a subdomain"),
    pytest.param(mapb(policyName="Bad_Name"), [f'spec.policyName: Invalid value: "Bad_Name": {SUBDOMAIN}'],
                 id="policy name must be a subdomain"),
    pytest.param(mapb(matchResources=constraints(resourceRules=[rule(operations=["PATCH"], scope="*")])),
                 ['spec.matchResources.resourceRules[0].operations[0]: Unsupported value: "PATCH": supported values: '
                  '"*", "CONNECT", "CREATE", "DELETE", "UPDATE"',
                  f'spec.matchResources.resourceRules.operations: Unsupported value: "PATCH": {MUTATING_OPS}'],
                 id="operation must be either create/update/connect"),
    pytest.param(mapb(matchResources=constraints(resourceRules=[rule(operations=["DELETE"], scope="*")])),
                 [f'spec.matchResources.resourceRules.operations: Unsupported value: "DELETE": {MUTATING_OPS}'],
                 id="DELETE cannot be matched"),
    pytest.param(mapb(matchResources=constraints(resourceRules=[rule(resources=["a/*", "a/x"], scope="*")])),
                 ['spec.matchResources.resourceRules[0].resources[1]: Invalid value: "a/x": if \'a/*\' is present, '
                  "must not specify a/x"],
                 id="resource a/* cannot mix with a/x"),
    pytest.param(mapb(matchResources=constraints(resourceRules=[rule(resources=["*/*", "a"], scope="*")])),
                 ['spec.matchResources.resourceRules[0].resources: Invalid value: ["*/*","a"]: if \'*/*\' is present, '
                  "must not specify other resources"],
                 id="resource */* cannot mix with other resources"),
    pytest.param(mapb(paramRef={"name": "p", "selector": {"matchLabels": {"label": "value"}},
                                "parameterNotFoundAction": "Deny"}),
                 ["spec.paramRef.name: Forbidden: name and selector are mutually exclusive",
                  "spec.paramRef.selector: Forbidden: name and selector are mutually exclusive"],
                 id="paramRef selector must not be set when name is set"),
    pytest.param(mapb(paramRef={"name": "p"}), ["spec.paramRef.parameterNotFoundAction: Required value"],
                 id="paramRef parameterNotFoundAction must be set"),
    pytest.param(mapb(paramRef={"name": "p", "parameterNotFoundAction": "invalid"}),
                 ['spec.paramRef.parameterNotFoundAction: Unsupported value: "invalid": supported values: "Deny", '
                  '"Allow"'],
                 id="paramRef parameterNotFoundAction must be an valid value"),
    pytest.param(mapb(paramRef={"parameterNotFoundAction": "Deny"}),
                 ["spec.paramRef: Required value: one of name or selector must be specified"],
                 id="paramRef one of name or selector"),
    # a binding has no validationActions: nothing checks them (the decoder reports the unknown field)
    pytest.param(mapb(validationActions=["Bogus"]), [], id="no validationActions check"),
]


@pytest.mark.parametrize(("obj", "expected"), BINDING_CASES)
def test_validate_mutating_binding(obj: dict, expected: list[str]) -> None:
    assert messages(validate_mutating_binding(obj)) == expected


# ---------------------------------------------------------------------------------------------
# served versions and defaulting

@pytest.mark.parametrize(("version", "served"), [
    ("1.31", ()),
    ("1.32", ("v1alpha1",)),
    ("1.33", ("v1alpha1",)),
    ("1.34", ("v1beta1", "v1alpha1")),
    ("1.35", ("v1beta1", "v1alpha1")),
    ("1.36", ("v1", "v1beta1", "v1alpha1")),
])
def test_served_versions(version: str, served: tuple[str, ...]) -> None:
    assert served_versions(version) == served


@pytest.mark.parametrize(("api_version", "version"), [(V1ALPHA1, "1.32"), (V1BETA1, "1.34"), (V1, "1.36")])
def test_default_policy(api_version: str, version: str) -> None:
    obj = {"apiVersion": api_version, "kind": "MutatingAdmissionPolicy", "metadata": {"name": "demo"},
           "spec": {"matchConstraints": {"resourceRules": [rule()]}, "mutations": [APPLY]}}
    defaulted = default_mutating_policy(obj, version)
    assert defaulted["spec"] == {
        "failurePolicy": "Fail",
        "matchConstraints": {"matchPolicy": "Equivalent", "namespaceSelector": {}, "objectSelector": {},
                             "resourceRules": [rule(scope="*")]},
        "mutations": [APPLY],
    }
    assert "reinvocationPolicy" not in defaulted["spec"]  # not defaulted: validation requires it
    assert obj["spec"].get("failurePolicy") is None  # the input is left as it is
    assert messages(validate_mutating_policy(defaulted)) == ["spec.reinvocationPolicy: Required value"]


@pytest.mark.parametrize(("api_version", "version", "action"), [
    (V1ALPHA1, "1.32", "Deny"), (V1BETA1, "1.34", None), (V1, "1.36", None),
])
def test_default_binding(api_version: str, version: str, action: str | None) -> None:
    obj = mapb(api_version=api_version, paramRef={"name": "p"}, matchResources={"resourceRules": [rule()]})
    spec = default_mutating_binding(obj, version)["spec"]
    assert spec["paramRef"].get("parameterNotFoundAction") == action
    assert spec["matchResources"] == constraints(resourceRules=[rule(scope="*")])


def test_default_of_an_unserved_version_is_left_alone() -> None:
    obj = map_(api_version=V1, failurePolicy=None)
    assert default_mutating_policy(obj, "1.34") == obj
