"""Type checking policies against Kubernetes schemas, and pasted objects against theirs.

Table tests after k8s.io/apiserver/pkg/admission/plugin/policy/validating/typechecking_test.go
(TestExtractTypeNames, TestTypeCheck), run against the real schemas of the built-in kinds.
"""

from __future__ import annotations

import contextlib
import copy

import pytest
import yaml

from app import examples, vap
from app.forms import payload_from
from app.vap import cel, reach, typecheck
from app.vap.cel import library
from app.vap.resources import builtin_table
from app.vap.schemas import schema_set, schema_versions
from app.vap.schemas.decltypes import escape, kind_types
from app.vap.schemas.validate import check_object
from app.vap.typecheck import check_policy, types_to_check

DEPLOYMENTS = {"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["deployments"]}
PODS = {"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["pods"]}
SECRETS = {"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["secrets"]}

CRD = yaml.safe_load("""
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
              color: {type: string}
              x-mode: {type: string}
              tags: {type: array, items: {type: string}}
              limits: {type: object, additionalProperties: {type: integer}}
              extra: {type: object, x-kubernetes-preserve-unknown-fields: true}
              port: {x-kubernetes-int-or-string: true}
          status:
            type: object
            properties:
              problematicProperty: {type: object, additionalProperties: true}
  - name: v2
    served: false
    storage: false
    schema:
      openAPIV3Schema: {type: object}
""")
WIDGETS = {"apiGroups": ["example.com"], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["widgets"]}


def _spec(*rules, validations=(), **extra):
    spec = {"matchConstraints": {"resourceRules": [copy.deepcopy(r) for r in rules]},
            "validations": [v if isinstance(v, dict) else {"expression": v} for v in validations]}
    spec.update(extra)
    return spec


def _check(spec, version="1.36", crds=()):
    table = builtin_table(version)
    if crds:
        table = table.with_custom_resources(crds)
    return check_policy(spec, version=version, table=table, schemas=schema_set(version, crds))


def _issues(result):
    return [(w.field_ref, i.kind, i.line, i.column, i.message) for w in result.warnings for i in w.issues]


def _messages(expression, *rules, version="1.36", crds=(), **extra):
    return [m for *_, m in _issues(_check(_spec(*rules, validations=[expression], **extra), version, crds))]


# --------------------------------------------------------------------------------------------
# Expressions against one kind

CASES = [
    # (id, rules, expression, the issues expected: (kind, column, message); [] for none)
    ("typo in a path", [DEPLOYMENTS], "object.spec.replica > 1",
     [("apps/v1, Kind=Deployment", 12, "undefined field 'replica'")]),
    ("correct path", [DEPLOYMENTS], "object.spec.replicas > 1", []),
    ("typo in the metadata", [DEPLOYMENTS], "object.metadata.lables['app'] == 'web'",
     [("apps/v1, Kind=Deployment", 16, "undefined field 'lables'")]),
    ("typo inside a comprehension", [DEPLOYMENTS],
     "object.spec.template.spec.containers.all(c, c.imagee != '')",
     [("apps/v1, Kind=Deployment", 46, "undefined field 'imagee'")]),
    ("has() of an unknown field", [DEPLOYMENTS], "has(object.spec.replica)",
     [("apps/v1, Kind=Deployment", 4, "undefined field 'replica'")]),
    ("optional selection of an unknown field", [DEPLOYMENTS], "object.spec.?replica.orValue(1) > 0",
     [("apps/v1, Kind=Deployment", 12, "undefined field 'replica'")]),
    ("optional selection of a known field", [DEPLOYMENTS], "object.spec.?replicas.orValue(1) > 0", []),
    ("list used as an object", [DEPLOYMENTS], "object.spec.template.spec.containers.image == 'x'",
     [("apps/v1, Kind=Deployment", 37,
       "type 'list(Deployment.spec.template.spec.containers.@idx)' does not support field selection")]),
    ("list indexed by a name", [DEPLOYMENTS], "object.spec.template.spec.containers['web'].image == 'x'",
     [("apps/v1, Kind=Deployment", 37, "found no matching overload for '_[_]' applied to "
                                       "'(list(Deployment.spec.template.spec.containers.@idx), string)'")]),
    ("map indexed by a number", [DEPLOYMENTS], "object.metadata.labels[0] == 'x'",
     [("apps/v1, Kind=Deployment", 23,
       "found no matching overload for '_[_]' applied to '(map(string, string), int)'")]),
    ("map read as a field", [DEPLOYMENTS], "object.metadata.labels.app == 'web'", []),
    ("list indexed by a number", [DEPLOYMENTS], "object.spec.template.spec.containers[0].name == 'web'", []),
    ("int compared with a string", [DEPLOYMENTS], "object.spec.replicas == '3'",
     [("apps/v1, Kind=Deployment", 22, "found no matching overload for '_==_' applied to '(int, string)'")]),
    ("string ordered against an int", [DEPLOYMENTS], "object.metadata.name > 3",
     [("apps/v1, Kind=Deployment", 22, "found no matching overload for '_>_' applied to '(string, int)'")]),
    ("int and double compare (cross-type numeric comparisons)", [DEPLOYMENTS], "object.spec.replicas > 1.5", []),
    ("string function called on an int", [DEPLOYMENTS], "object.spec.replicas.startsWith('1')",
     [("apps/v1, Kind=Deployment", 32, "found no matching overload for 'startsWith' applied to 'int.(string)'")]),
    ("size() of an int", [DEPLOYMENTS], "size(object.spec.replicas) > 0",
     [("apps/v1, Kind=Deployment", 5, "found no matching overload for 'size' applied to '(int)'")]),
    ("an object compared with a string shows the apiserver's type name", [DEPLOYMENTS], "object.spec.template == 'x'",
     [("apps/v1, Kind=Deployment", 22,
       "found no matching overload for '_==_' applied to '(Deployment.spec.template, string)'")]),
    ("map keys are strings", [DEPLOYMENTS], "object.metadata.labels.all(k, k > 1)",
     [("apps/v1, Kind=Deployment", 33, "found no matching overload for '_>_' applied to '(string, int)'")]),
    ("list of strings holds strings", [DEPLOYMENTS],
     "object.spec.selector.matchExpressions.exists(e, e.values.exists(v, v == 1))",
     [("apps/v1, Kind=Deployment", 70, "found no matching overload for '_==_' applied to '(string, int)'")]),
    ("int-or-string is dyn", [DEPLOYMENTS],
     "object.spec.strategy.rollingUpdate.maxSurge == '25%' || object.spec.strategy.rollingUpdate.maxSurge == 1", []),
    ("quantities are dyn", [DEPLOYMENTS], "object.spec.template.spec.containers.all(c, "
     "!has(c.resources.limits) || quantity(c.resources.limits.cpu).isLessThan(quantity('2')))", []),
    ("date-time is a timestamp", [DEPLOYMENTS], "object.metadata.creationTimestamp == ''",
     [("apps/v1, Kind=Deployment", 35,
       "found no matching overload for '_==_' applied to '(google.protobuf.Timestamp, string)'")]),
    ("timestamps compare", [DEPLOYMENTS], "object.metadata.creationTimestamp < timestamp('2030-01-01T00:00:00Z')", []),
    ("format byte is bytes", [SECRETS], "object.data['key'] == 'x'",
     [("v1, Kind=Secret", 20, "found no matching overload for '_==_' applied to '(bytes, string)'")]),
    ("bytes compare with bytes", [SECRETS], "object.data['key'] == b'x' && object.stringData.key == 'y'", []),
    ("a validation that is not bool", [DEPLOYMENTS], "object.spec.replicas",
     [("apps/v1, Kind=Deployment", 1, "must evaluate to bool but got int")]),
    ("request is typed", [DEPLOYMENTS], "request.userInfo.name == 'alice'",
     [("apps/v1, Kind=Deployment", 17, "undefined field 'name'")]),
    ("request fields", [DEPLOYMENTS], "request.operation == 'CREATE' && request.userInfo.groups.exists(g, g == 'x') "
                                      "&& request.namespace == 'default'", []),
    ("namespaceObject is typed", [DEPLOYMENTS], "namespaceObject.metadata.labels.env == 'prod'", []),
    ("namespaceObject's hand-written type spells UID", [DEPLOYMENTS], "namespaceObject.metadata.uid != ''",
     [("apps/v1, Kind=Deployment", 25, "undefined field 'uid'")]),
    ("authorizer", [DEPLOYMENTS], "authorizer.group('').resource('endpoints').check('create').allowed()", []),
    ("authorizer invalid", [DEPLOYMENTS], "authorizer.allowed()",
     [("apps/v1, Kind=Deployment", 19,
       "found no matching overload for 'allowed' applied to 'kubernetes.authorization.Authorizer.()'")]),
    ("dyn() opts out of type checking", [DEPLOYMENTS], "dyn(object).spec.anything == 1", []),
    ("kind and apiVersion are strings", [DEPLOYMENTS], "object.kind == 'Deployment' && object.apiVersion != ''", []),
    ("each path is a type of its own: containers and initContainers do not concatenate", [PODS],
     "(object.spec.containers + object.spec.initContainers).size() > 0",
     [("v1, Kind=Pod", 25, "found no matching overload for '_+_' applied to "
                           "'(list(Pod.spec.containers.@idx), list(Pod.spec.initContainers.@idx))'")]),
    ("dyn() lets them concatenate", [PODS],
     "(dyn(object.spec.containers) + object.spec.initContainers).size() > 0", []),
    ("a list is never null", [PODS], "object.spec.volumes == null",
     [("v1, Kind=Pod", 21,
       "found no matching overload for '_==_' applied to '(list(Pod.spec.volumes.@idx), null_type)'")]),
    ("an object may be null", [PODS], "object.spec.securityContext == null", []),
    ("optional field of a list item", [PODS],
     "object.spec.containers.exists(c, c.securityContext.?privileged.orValue(false))", []),
]


@pytest.mark.parametrize("rules, expression, expected", [pytest.param(*c[1:], id=c[0]) for c in CASES])
def test_expression_against_one_kind(rules, expression, expected):
    result = _check(_spec(*rules, validations=[expression]))
    assert [(k, c, m) for _, k, _, c, m in _issues(result)] == expected


def test_warning_text_is_the_apiservers_status():
    result = _check(_spec(DEPLOYMENTS, validations=["object.spec.replica > 1"]))
    assert [w.to_json()["fieldRef"] for w in result.warnings] == ["spec.validations[0].expression"]
    assert result.warnings[0].warning == (
        "apps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replica'\n"
        " | object.spec.replica > 1\n"
        " | ...........^\n"
    )


# --------------------------------------------------------------------------------------------
# Several kinds


def test_field_of_deployment_is_reported_for_pod_only():
    result = _check(_spec(DEPLOYMENTS, PODS, validations=["object.spec.template.spec.containers.size() > 0"]))
    assert result.kinds == ("v1, Kind=Pod", "apps/v1, Kind=Deployment")  # sorted by group, version, kind
    assert _issues(result) == [
        ("spec.validations[0].expression", "v1, Kind=Pod", 1, 12, "undefined field 'template'")
    ]


def test_field_of_pod_is_reported_for_deployment_only():
    result = _check(_spec(DEPLOYMENTS, PODS, validations=["object.spec.containers.all(c, c.name != '')"]))
    assert [(k, m) for _, k, _, _, m in _issues(result)] == [
        ("apps/v1, Kind=Deployment", "undefined field 'containers'")]


def test_checks_stay_right_when_the_shared_pool_of_types_starts_again(monkeypatch):
    # the kinds' types share one descriptor pool, started again when it holds a few files: checks of
    # different fields and kinds, made across such restarts, each report against their own types
    from app.vap import fast as caches
    from app.vap.schemas import decltypes

    monkeypatch.setattr(decltypes, "_SHARED_POOL_FILES", 2)
    cases = [
        (DEPLOYMENTS, "object.spec.replica > 1", ["undefined field 'replica'"]),
        (PODS, "object.spec.template.spec.containers.size() > 0", ["undefined field 'template'"]),
        (DEPLOYMENTS, "object.spec.paused == 1", ["found no matching overload for '_==_' applied to '(bool, int)'"]),
        (PODS, "object.spec.containers.all(c, c.imagee != '')", ["undefined field 'imagee'"]),
        (DEPLOYMENTS, "object.spec.replicas > 1", []),
    ]
    for _ in range(2):
        caches.clear()  # the kinds' types are looked up again, and checked in new environments
        for rules, expression, expected in cases:
            assert _messages(expression, rules) == expected, expression
    caches.clear()


def test_warning_joins_one_paragraph_per_kind():
    rules = dict(DEPLOYMENTS, resources=["deployments", "replicasets"])
    result = _check(_spec(rules, validations=["object.replicas > 1"]))
    assert result.warnings[0].warning == (
        "apps/v1, Kind=Deployment: ERROR: <input>:1:7: undefined field 'replicas'\n"
        " | object.replicas > 1\n"
        " | ......^\n"
        "\n"
        "apps/v1, Kind=ReplicaSet: ERROR: <input>:1:7: undefined field 'replicas'\n"
        " | object.replicas > 1\n"
        " | ......^\n"
    )


# --------------------------------------------------------------------------------------------
# Which kinds (TestExtractTypeNames)


@pytest.mark.parametrize("rules, expected", [
    pytest.param([], [], id="empty"),
    pytest.param([DEPLOYMENTS], [("apps", "v1", "Deployment")], id="specific"),
    pytest.param([DEPLOYMENTS, PODS], [("", "v1", "Pod"), ("apps", "v1", "Deployment")], id="multiple"),
    pytest.param([dict(DEPLOYMENTS, resources=["*"])], [], id="all resources"),
    pytest.param([dict(DEPLOYMENTS, resources=["pods/*"])], [], id="sub resources"),
    pytest.param([DEPLOYMENTS, dict(DEPLOYMENTS, apiVersions=["*"])], [("apps", "v1", "Deployment")], id="mixtures"),
    pytest.param([dict(DEPLOYMENTS, apiGroups=["*"])], [], id="wildcard group"),
    pytest.param([dict(DEPLOYMENTS, resources=["deployment"])], [("apps", "v1", "Deployment")], id="singular name"),
    pytest.param([dict(DEPLOYMENTS, apiVersions=["v1beta1"])], [], id="a version that is not served"),
    pytest.param([dict(DEPLOYMENTS, resources=["nosuchthings"])], [], id="unknown resource"),
])
def test_types_to_check(rules, expected):
    assert types_to_check(_spec(*rules), builtin_table("1.36")).gvks == expected


def test_at_most_ten_kinds_are_checked():
    core = ["configmaps", "endpoints", "events", "limitranges", "persistentvolumeclaims", "pods", "podtemplates",
            "replicationcontrollers", "resourcequotas", "secrets", "serviceaccounts", "services"]
    spec = _spec(dict(PODS, resources=core), validations=["object.nothing == 1"])
    found = types_to_check(spec, builtin_table("1.36"))
    assert len(found.gvks) == 10
    assert any("only the first 10 kinds" in s for s in found.skipped)
    assert len(_check(spec).warnings[0].issues) == 10


def test_wildcards_are_explained_and_nothing_is_checked():
    result = _check(_spec(dict(DEPLOYMENTS, apiGroups=["*"]), validations=["object.spec.replica > 1"]))
    assert result.warnings == () and result.kinds == ()
    assert any("wildcard API group" in line for line in result.explanation)


# --------------------------------------------------------------------------------------------
# Expressions other than validations


def test_message_expression_of_the_wrong_type():
    spec = _spec(DEPLOYMENTS, validations=[{"expression": "true", "messageExpression": "'n=' + object.spec.replicas"}])
    assert _issues(_check(spec)) == [("spec.validations[0].messageExpression", "apps/v1, Kind=Deployment", 1, 6,
                                      "found no matching overload for '_+_' applied to '(string, int)'")]


def test_message_expression_must_be_a_string():
    spec = _spec(DEPLOYMENTS, validations=[{"expression": "true", "messageExpression": "object.spec.replicas"}])
    assert [m for *_, m in _issues(_check(spec))] == ["must evaluate to string but got int"]


def test_match_conditions_are_checked():
    spec = _spec(DEPLOYMENTS, validations=["true"],
                 matchConditions=[{"name": "big", "expression": "object.spec.replica > 5"}])
    assert _issues(_check(spec)) == [("spec.matchConditions[0].expression", "apps/v1, Kind=Deployment", 1, 12,
                                      "undefined field 'replica'")]


def test_audit_annotations_are_checked():
    spec = _spec(DEPLOYMENTS, validations=["true"],
                 auditAnnotations=[{"key": "replicas", "valueExpression": "object.spec.replicas"}])
    assert [(r, m) for r, _, _, _, m in _issues(_check(spec))] == [
        ("spec.auditAnnotations[0].valueExpression", "must evaluate to one of [string null_type] but got int")]


def test_variables_are_typed_from_the_object():
    spec = _spec(DEPLOYMENTS, validations=["variables.replicas == '3'"],
                 variables=[{"name": "replicas", "expression": "object.spec.replicas"}])
    assert _issues(_check(spec)) == [("spec.validations[0].expression", "apps/v1, Kind=Deployment", 1, 20,
                                      "found no matching overload for '_==_' applied to '(int, string)'")]


def test_variable_of_a_list_of_objects_keeps_its_element_type():
    spec = _spec(DEPLOYMENTS, validations=["variables.containers.all(c, c.imagee != '')"],
                 variables=[{"name": "containers", "expression": "object.spec.template.spec.containers"}])
    assert [m for *_, m in _issues(_check(spec))] == ["undefined field 'imagee'"]


def test_a_failing_variable_is_reported_once_and_typed_dyn():
    spec = _spec(DEPLOYMENTS, validations=["variables.name == object.spec.replicas"],
                 variables=[{"name": "name", "expression": "object.spec.replicas == 'str'"}])
    assert [r for r, *_ in _issues(_check(spec))] == ["spec.variables[0].expression"]


def test_undefined_variable():
    spec = _spec(DEPLOYMENTS, validations=["variables.nonExisting"],
                 variables=[{"name": "works", "expression": "true"}])
    assert [m for *_, m in _issues(_check(spec))] == ["undefined field 'nonExisting'"]


# --------------------------------------------------------------------------------------------
# params


def test_params_typed_from_a_built_in_param_kind():
    extra = {"paramKind": {"apiVersion": "v1", "kind": "ConfigMap"}}
    assert _messages("object.spec.replicas <= int(params.data.maxReplicas)", DEPLOYMENTS, **extra) == []
    assert _messages("object.spec.replicas <= params.data.maxReplicas", DEPLOYMENTS, **extra) == [
        "found no matching overload for '_<=_' applied to '(int, string)'"]
    assert _messages("params.spec.max > 1", DEPLOYMENTS, **extra) == ["undefined field 'spec'"]
    assert _check(_spec(DEPLOYMENTS, validations=["true"], **extra)).params == "v1, Kind=ConfigMap"


def test_params_typed_from_a_crd():
    extra = {"paramKind": {"apiVersion": "example.com/v1", "kind": "Widget"}}
    assert _messages("object.spec.replicas <= params.spec.size", DEPLOYMENTS, crds=[CRD], **extra) == []
    assert _messages("object.spec.replicas <= params.spec.color", DEPLOYMENTS, crds=[CRD], **extra) == [
        "found no matching overload for '_<=_' applied to '(int, string)'"]


def test_params_of_an_unknown_kind_are_dyn():
    extra = {"paramKind": {"apiVersion": "example.com/v1", "kind": "Unknown"}}
    result = _check(_spec(DEPLOYMENTS, validations=["object.spec.replicas <= params.whatever.max"], **extra))
    assert result.warnings == () and result.params is None
    assert any("paramKind" in line for line in result.explanation)


# --------------------------------------------------------------------------------------------
# CustomResourceDefinitions


@pytest.mark.parametrize("expression, expected", [
    pytest.param("object.spec.size > 1 && object.spec.color.startsWith('r')", [], id="typed fields"),
    pytest.param("object.spec.sise > 1", ["undefined field 'sise'"], id="typo"),
    pytest.param("object.spec.size == 'big'", ["found no matching overload for '_==_' applied to '(int, string)'"],
                 id="wrong type"),
    pytest.param("object.spec.tags.exists(t, t == 'a') && object.spec.limits.all(k, object.spec.limits[k] > 0)", [],
                 id="list and map"),
    pytest.param("object.spec.x__dash__mode == 'fast'", [], id="escaped property name"),
    pytest.param("object.spec.extra.anything.goes == 1", [], id="preserve-unknown-fields is dyn"),
    pytest.param("object.spec.port == 80 || object.spec.port == 'http'", [], id="int-or-string"),
    pytest.param("object.status.problematicProperty.foo == 'bar'", [], id="additionalProperties true"),
    pytest.param("object.metadata.labels.app == 'x' && object.metadata.name != ''", [], id="full ObjectMeta"),
])
def test_crd_fields(expression, expected):
    assert _messages(expression, WIDGETS, crds=[CRD]) == expected


def _crd(plural: str, kind: str, spec_properties: str) -> dict:
    """A one-version CRD of example.com whose spec has the given properties (YAML flow mapping)."""
    crd = copy.deepcopy(CRD)
    crd["metadata"]["name"] = f"{plural}.example.com"
    crd["spec"]["names"] = {"plural": plural, "kind": kind}
    crd["spec"]["versions"] = crd["spec"]["versions"][:1]
    spec = {"type": "object", "properties": yaml.safe_load(spec_properties)}
    schema = {"type": "object", "properties": {"spec": spec}}
    crd["spec"]["versions"][0]["schema"] = {"openAPIV3Schema": schema}
    return crd


ODD_CRD = _crd("things", "Thing", """{
  foo_bar: {type: string}, fooBar: {type: integer}, if: {type: string}, "1st": {type: string},
  nested: {type: array, items: {type: array, items: {type: integer}}},
  mapOfLists: {type: object, additionalProperties: {type: array, items: {type: string}}},
  embedded: {type: object, x-kubernetes-embedded-resource: true,
             properties: {spec: {type: object, properties: {a: {type: string}}}}}}""")
THINGS = dict(WIDGETS, resources=["things"])


@pytest.mark.parametrize("expression, expected", [
    pytest.param("object.spec.foo_bar == 'a' && object.spec.fooBar == 1", [], id="names alike but for case and _"),
    pytest.param("object.spec.if == 'x' && object.spec.__if__ == 'x'", [], id="reserved word"),
    pytest.param("object.spec.nested[0][0] == 1 && object.spec.mapOfLists['a'][0] == 'x'", [],
                 id="lists of lists and maps of lists"),
    pytest.param("object.spec.embedded.kind == 'X' && object.spec.embedded.metadata.name == 'a' "
                 "&& object.spec.embedded.spec.a == 'b'", [], id="embedded resource"),
    pytest.param("object.spec.embedded.metadata.labels.x == 'y'", ["undefined field 'labels'"],
                 id="an embedded resource's metadata has only name and generateName"),
])
def test_crd_with_unusual_properties(expression, expected):
    assert _messages(expression, THINGS, crds=[ODD_CRD]) == expected


def test_crd_version_that_is_not_served_is_not_checked():
    result = _check(_spec(dict(WIDGETS, apiVersions=["v2"]), validations=["object.nothing"]), crds=[CRD])
    assert result.kinds == () and result.warnings == ()


# --------------------------------------------------------------------------------------------
# Versions


def test_reserved_words_are_field_names_from_131():
    assert _messages("object.metadata.namespace == 'default'", DEPLOYMENTS, version="1.31") == []
    assert _messages("object.metadata.namespace == 'default'", DEPLOYMENTS, version="1.30") == [
        "undefined field 'namespace'"]
    assert _messages("object.metadata.__namespace__ == 'default'", DEPLOYMENTS, version="1.30") == []


def test_fields_follow_the_kubernetes_version():
    rules = dict(PODS, resources=["pods"])
    # PodSpec.resources (pod-level resources) arrived in 1.32
    assert _messages("has(object.spec.resources)", rules, version="1.36") == []
    assert _messages("has(object.spec.resources)", rules, version="1.31") == ["undefined field 'resources'"]


def test_every_supported_version_has_schemas():
    assert set(library.SUPPORTED_VERSIONS) <= set(schema_versions())


@pytest.mark.parametrize("name, escaped", [
    ("replicas", "replicas"), ("namespace", "__namespace__"), ("x-mode", "x__dash__mode"),
    ("a.b/c", "a__dot__b__slash__c"), ("a__b", "a__underscores__b"), ("1st", None), ("a b", None),
])
def test_property_names_are_escaped_as_the_apiserver_does(name, escaped):
    assert escape(name) == escaped


# --------------------------------------------------------------------------------------------
# Caching


def test_type_checking_is_cached_on_policy_version_and_kinds():
    spec = _spec(DEPLOYMENTS, validations=["object.spec.replicas > 1"])
    first = _check(spec)
    assert _check(copy.deepcopy(spec)) is first
    assert _check(spec, version="1.35") is not first


# --------------------------------------------------------------------------------------------
# Through the API


POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: replicas.example.com
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["deployments"]
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["pods"]
  validations:
  - expression: |
      object.kind != 'Deployment' ||
        object.spec.replicas <= 5
"""
BINDING = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: replicas
spec:
  policyName: replicas.example.com
  validationActions: [Deny]
"""
DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
spec:
  replicas: 3
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx
"""


def test_api_reports_type_checking_per_policy_and_problems_at_the_expression():
    result = vap.evaluate({"policy": POLICY, "binding": BINDING, "object": DEPLOYMENT})
    assert result["allowed"] is True  # type checking never changes the decision
    (policy,) = result["policies"]
    tc = policy["typeChecking"]
    assert tc["checkedKinds"] == ["v1, Kind=Pod", "apps/v1, Kind=Deployment"]
    (warning,) = tc["expressionWarnings"]
    assert warning["fieldRef"] == "spec.validations[0].expression"
    assert warning["warning"].startswith("v1, Kind=Pod: ERROR: <input>:2:14: undefined field 'replicas'\n")
    assert warning["issues"] == [{"kind": "v1, Kind=Pod", "line": 2, "column": 14,
                                  "message": "undefined field 'replicas'"}]
    (problem,) = [p for p in result["problems"] if p["path"] == "spec.validations[0].expression"]
    assert problem["severity"] == "warning"
    assert problem["pane"] == "policy"
    # line 2 of the block scalar is line 19 of the pane, where the '.' before "replicas" is column 20
    assert (problem["line"], problem["column"]) == (19, 20)
    assert POLICY.splitlines()[18][problem["column"] - 1 :].startswith(".replicas")
    assert "v1, Kind=Pod" in problem["message"] and "undefined field 'replicas'" in problem["message"]


def test_rejected_policy_is_not_type_checked():
    policy = POLICY.replace("object.kind != 'Deployment'", "object.kind != ")
    result = vap.evaluate({"policy": policy, "binding": BINDING, "object": DEPLOYMENT})
    assert all("typeChecking" not in p for p in result["policies"])
    assert not any(p["severity"] == "warning" and "type checking" in p["message"] for p in result["problems"])


def test_page_shows_the_warnings_beside_the_expression(client):
    form = examples.get("replica-limit").form()
    form["policy"] = form["policy"].replace("object.spec.replicas <= int", "object.spec.replica <= int")
    html = client.post("/evaluate", data=form, headers={"HX-Request": "true"}).get_data(as_text=True)
    assert 'data-type-checking data-warnings="1"' in html
    assert 'data-field-ref="spec.validations[0].expression"' in html
    assert "data-type-warning-inline>type checking: apps/v1, Kind=Deployment: ERROR: &lt;input&gt;:1:12: " \
           "undefined field &#39;replica&#39;" in html
    assert 'data-severity="warning" data-message="type checking against apps/v1, Kind=Deployment: ' \
           'undefined field &#39;replica&#39;"' in html


# --------------------------------------------------------------------------------------------
# Objects in the object panes


def _object_problems(text, pane="object", crds=None):
    payload = {"policy": POLICY, "binding": BINDING, pane: text}
    if crds:
        payload["params"] = crds
    result = vap.evaluate(payload)
    return [(p["line"], p["path"], p["message"]) for p in result["problems"]
            if p["pane"] == pane and p["severity"] == "warning"], result


def test_valid_object_has_no_problem():
    found, result = _object_problems(DEPLOYMENT)
    assert found == []
    assert not [p for p in result["problems"] if p["severity"] == "error"]


def test_unknown_field_is_a_warning_at_its_line():
    found, result = _object_problems(DEPLOYMENT.replace("  replicas: 3", "  replica: 3"))
    assert found == [(7, "spec.replica", 'unknown field "spec.replica"')]
    assert not [p for p in result["problems"] if p["pane"] == "object" and p["severity"] == "error"]


def test_unknown_field_in_a_list_item():
    text = DEPLOYMENT.replace("        image: nginx", "        image: nginx\n        imagePull: x")
    found, _ = _object_problems(text)
    assert found == [(17, "spec.template.spec.containers[0].imagePull",
                      'unknown field "spec.template.spec.containers[0].imagePull"')]


def test_ill_typed_field_is_worded_as_the_decoder_does():
    found, _ = _object_problems(DEPLOYMENT.replace("replicas: 3", 'replicas: "3"'))
    assert found == [(7, "spec.replicas", 'Deployment in version "v1" cannot be handled as a Deployment: '
                                          "json: cannot unmarshal string into Go struct field DeploymentSpec.spec"
                                          ".replicas of type int32")]


@pytest.mark.parametrize("change, path, message", [
    (("image: nginx", "image: 1.5"), "spec.template.spec.containers[0].image",
     "json: cannot unmarshal number into Go struct field Container.spec.template.spec.containers.image "
     "of type string"),
    (("labels: {app: web}\n    spec", "labels: {app: 1}\n    spec"), "spec.template.metadata.labels.app",
     "json: cannot unmarshal number into Go struct field ObjectMeta.spec.template.metadata.labels of type string"),
    (("replicas: 3", "replicas: 2.5"), "spec.replicas",
     "json: cannot unmarshal number 2.5 into Go struct field DeploymentSpec.spec.replicas of type int32"),
    (("      - name: web", "      - 42\n      - name: web"), "spec.template.spec.containers[0]",
     "json: cannot unmarshal number into Go struct field PodSpec.spec.template.spec.containers of type v1.Container"),
    (("image: nginx", "image: nginx\n        resources: {limits: {cpu: 2x}}"),
     "spec.template.spec.containers[0].resources.limits.cpu",
     "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"),
])
def test_decoder_errors(change, path, message):
    found, _ = _object_problems(DEPLOYMENT.replace(*change))
    assert [(p, m) for _, p, m in found] == [(path, 'Deployment in version "v1" cannot be handled as a '
                                                    f"Deployment: {message}")]


def test_quantities_and_int_or_string_accept_their_forms():
    text = DEPLOYMENT.replace("image: nginx", "image: nginx\n        resources: {limits: {cpu: 500m, memory: 1}}")
    text += "  strategy:\n    rollingUpdate: {maxSurge: 25%, maxUnavailable: 1}\n"
    assert _object_problems(text)[0] == []


def test_old_object_is_checked_too():
    found, _ = _object_problems(DEPLOYMENT.replace("  replicas: 3", "  replicaz: 3"), pane="oldObject")
    assert found == [(7, "spec.replicaz", 'unknown field "spec.replicaz"')]


def test_custom_resource_is_checked_against_its_crd():
    widget = ("apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: default}\n"
              "spec:\n  size: big\n  colour: red\n  extra: {free: form}\n")
    found, _ = _object_problems(widget, crds=yaml.safe_dump(CRD))
    assert found == [
        (5, "spec.size", 'spec.size: Invalid value: "string": spec.size in body must be of type integer: "string"'),
        (6, "spec.colour", 'unknown field "spec.colour"'),
    ]


def test_object_of_an_unknown_kind_is_not_judged():
    assert check_object({"apiVersion": "example.com/v1", "kind": "Nothing", "spec": {"x": 1}},
                        schema_set("1.36")) == []


def test_secret_data_must_be_base64():
    found = check_object({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"},
                          "data": {"ok": "aGVsbG8=", "bad": "a*bc"}}, schema_set("1.36"))
    assert [(f.path, f.message) for f in found] == [
        (("data", "bad"), 'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 1')]


# --------------------------------------------------------------------------------------------
# The gallery


@pytest.mark.parametrize("example", examples.all_examples(), ids=[e.name for e in examples.all_examples()])
def test_gallery_example_type_checks_without_warnings(example):
    result = vap.evaluate(payload_from(example.form()))
    warnings = [p for p in result["problems"] if p["severity"] == "warning" and p["pane"] in ("policy", "object",
                                                                                               "oldObject")]
    assert warnings == []
    for policy in result["policies"]:
        if "typeChecking" in policy:
            assert policy["typeChecking"]["expressionWarnings"] == []


# --------------------------------------------------------------------------------------------
# Checking against the selected fields only


SELECTION_CASES = [
    "object.spec.replicas > 1", "object.spec.replica > 1", "has(object.spec.template.spec.hostNetwork)",
    "object.spec.template.spec.containers.all(c, c.imagee != '')", "object.metadata.lables['app'] == 'web'",
    "'app' in object.metadata.labels && object.metadata.labels['app'] == 1", "object.?spec.?paused.orValue(1)",
    "object.spec.strategy == oldObject.spec.strategy", "object.spec.template.spec.containers[0].name + 1 == 2",
    "object.metadata.namespace == 'default'", "object.metadata.__namespace__ == 1", "object == null",
    "object.spec.replicas <= params.spec.size", "params.spec.color + 1 > 0", "params.spec.x__dash__mode == 2",
    "params.spec.limits['cpu'] == 'x'", "has(params.spec.tags) && params.spec.tags[0] == 1",
    "variables.spec.replicas == 'x'", "variables.spec.minReadySeconds > 0 && object.status.replicas > 1",
    "oldObject.spec.template.metadata.labels.size() > 0 && object.kind == 1",
    "object.spec.template.spec.containers.all(c, c.imag.startsWith('r') && c.name == 1)",
    "object.spec.containers.filter(c, c.name == 'w').all(x, x.image == 1 && x.imagee == '')",
    "object.spec.template.spec.containers.all(i, c, c.ports.all(p, p.containerPortt > i))",
    "object.spec.template.spec.containers.map(c, c.ports).all(ps, ps.all(p, p.hostPortt > 0))",
    "[1, 2].all(object, object.x > 0) && object.spec.template.spec.volumes.exists(v, has(v.secrett))",
    "object.spec.template.spec.containers.exists_one(c, c == object.spec.template.spec.containers[0].namee)",
    "object.spec.template.spec.initContainers.map(c, c.env).exists(e, e.all(v, v.valueFromm == null))",
    "object.metadata.labels.all(k, k.size() > 1) && object.metadata.labels.exists(k, v, v == 1)",
    "params.spec.tags.all(t, t.size() > 'x') && params.spec.limits.all(k, params.spec.limits[k] > 'x')",
    "size(object.spec.template.spec.containers) > 'x'", "object.spec.template.spec.volumes.size() == 1.0",
    "size(object.spec.template.spec) > 0", "object.metadata.name.size() > 'x' && size(object.metadata.labels) == ''",
    "size(object.spec.template.spec.containers) > 1 && object.spec.template.spec.containers[0].imagee == ''",
    "object.spec.template.spec.containers.all(c, size(c.ports) > 1 && c.ports[0].hostPortt > 0)",
    "size(object.spec.replicas) > 0", "size(params.spec.tags) > 'x' && params.spec.size.size() > 0",
    "dyn(object).spec.containerz.all(c, c.x == 1) && dyn(object.spec).template == 1",
    "dyn(object.spec.replicaz) == 1 || dyn(object.metadata.labels)['a'] == 1 && object.spec.paused == 1",
    "dyn(object.spec.template.spec.containers).all(c, c.imagee == 1) && dyn(params.spec.size) + 1 == 2",
    "object.spec.template.spec.containers.all(c, dyn(c).imagee == '' && c.imagee == '')",
]


@pytest.mark.parametrize("version", ["1.30", "1.36"])
def test_checking_against_the_selected_fields_reports_what_the_whole_schema_does(version, monkeypatch):
    spec = _spec(DEPLOYMENTS, PODS, validations=SELECTION_CASES,
                 variables=[{"name": "spec", "expression": "object.spec"}],
                 paramKind={"apiVersion": "example.com/v1", "kind": "Widget"})
    selected = _issues(_check(spec, version, crds=[CRD]))
    assert len(selected) > 10  # the cases hold errors for each kind
    typecheck.clear_cache()
    monkeypatch.setattr(typecheck, "_selected_fields", lambda *args: (reach.WHOLE, reach.WHOLE))
    assert _issues(_check(spec, version, crds=[CRD])) == selected


def test_a_policy_is_checked_against_the_fields_it_selects():
    spec = _spec(DEPLOYMENTS, validations=["object.spec.replicas > 1 && has(object.metadata.labels)"])
    fields, params = typecheck._selected_fields("", spec, "1.36")
    assert fields == {"spec": {"replicas": reach.WHOLE}, "metadata": {"labels": {}}} and params == {}
    schemas = schema_set("1.36")
    deployment = schemas.kind("apps", "v1", "Deployment")
    selected = kind_types(deployment, schemas, "1.36", fields)
    assert len(selected.file.message_type) == 3  # Deployment, .spec, .metadata (with all of its labels map)
    assert len(kind_types(deployment, schemas, "1.36").file.message_type) > 100
    # an expression the engine could not compile keeps every field
    # of the containers a comprehension reads, the fields it selects
    loop = _spec(PODS, validations=["object.spec.containers.all(c, c.image.startsWith('r'))"])
    fields, _ = typecheck._selected_fields("", loop, "1.36")
    assert fields == {"spec": {"containers": {reach.ELEMENT: {"image": reach.WHOLE}}}}
    pod = kind_types(schemas.kind("", "v1", "Pod"), schemas, "1.36", fields)
    assert len(pod.file.message_type) == 3  # Pod, .spec, .spec.containers.@idx
    # the size of a list: none of its elements' fields
    sized = _spec(PODS, validations=["size(object.spec.containers) <= 3"])
    fields, _ = typecheck._selected_fields("", sized, "1.36")
    assert fields == {"spec": {"containers": {reach.ELEMENT: {}}}}
    # what is selected of dyn(): checked as dyn, so none of the wrapped value's fields
    wrapped = _spec(PODS, validations=["dyn(object).spec.containers.all(c, c.image != '')"])
    fields, _ = typecheck._selected_fields("", wrapped, "1.36")
    assert fields == reach.KIND_ONLY
    assert len(kind_types(schemas.kind("", "v1", "Pod"), schemas, "1.36", fields).file.message_type) == 1
    unsafe = _spec(DEPLOYMENTS, validations=["object.spec.x +"])
    assert typecheck._selected_fields("", unsafe, "1.36")[0] is reach.WHOLE


def test_kinds_whose_selected_fields_declare_the_same_types_are_checked_in_one_environment():
    both = {"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["CREATE"],
            "resources": ["deployments", "statefulsets"]}
    cel._checking_environment.cache_clear()
    issues = _issues(_check(_spec(both, validations=["object.spec.selector + 1 > 0"])))
    # each kind's message names its own type
    assert [(kind, message) for _, kind, _, _, message in issues] == [
        ("apps/v1, Kind=Deployment",
         "found no matching overload for '_+_' applied to '(Deployment.spec.selector, int)'"),
        ("apps/v1, Kind=StatefulSet",
         "found no matching overload for '_+_' applied to '(StatefulSet.spec.selector, int)'"),
    ]
    # the dyn checking environment and one for both kinds' types
    assert cel._checking_environment.cache_info().currsize == 2
    # fields that differ between the kinds (a StatefulSet has no spec.strategy) keep an environment each
    issues = _issues(_check(_spec(both, validations=["object.spec.strategy == 1"])))
    assert [kind for _, kind, *_ in issues] == ["apps/v1, Kind=Deployment", "apps/v1, Kind=StatefulSet"]
    assert cel._checking_environment.cache_info().currsize == 4


LIBRARY_FREE_CASES = [
    *SELECTION_CASES,
    "object.metadata.name.lowerAscii() == 1", "object.metadata.name.matches(1)",
    "object.metadata.?labels.?app.orValue('') == 1", "object.metadata.creationTimestamp + duration('1h') == 1",
    "[object.metadata.name].exists(n, n.startsWith(object.spec.replicas))", "type(object.spec) == 'x'",
    "object.spec.template.spec.containers.map(c, c.image).join(',') == 1",
    "variables.n.size() > 0 && variables.n.endsWith(1)",
    # the library's comparisons and string() alone
    "object.spec.replicas < 2.5 && object.spec.replicas >= 1u && 1.5 > object.spec.replicas",
    "object.spec.replicas < 'x'", "object.metadata.name > 1", "object.spec.paused < true && b'a' <= b'b'",
    "object.metadata.creationTimestamp < timestamp('2024-01-01T00:00:00Z')",
    "duration('1h') > duration('1m') && object.spec.minReadySeconds > duration('1s')",
    "object.spec.template.spec.containers.all(c, c.name > 1)", "[1, 2.0] < [3]", "{'a': 1} > {'a': 2}",
    "string(object.spec.replicas) == 1", "string(object.spec.paused) + string(2.5) + string(b'x') == 'a'",
    "string(object.metadata) == ''", "string(object.metadata.creationTimestamp) > 1",
    "string(dyn(object.spec.replicas)) > object.metadata.name && string(1u) == string(duration('1s'))",
    "variables.n > 1 && string(variables.n) == variables.n",
]


def test_a_policy_calling_no_library_function_is_checked_alike_without_the_library(monkeypatch):
    def issues_of(expression):
        spec = _spec(DEPLOYMENTS, PODS, validations=[expression], paramKind={"apiVersion": "example.com/v1",
                                                                               "kind": "Widget"},
                     variables=[{"name": "n", "expression": "object.metadata.name"}])
        return _issues(_check(spec, "1.36", crds=[CRD]))

    lean = {}
    typed_libraries = []
    build = cel._build_environment

    def noting(decls, typed):
        if decls.types is not None:
            typed_libraries.append(decls.library)
        return build(decls, typed=typed)

    monkeypatch.setattr(cel, "_build_environment", noting)
    typecheck.clear_cache()
    cel._checking_environment.cache_clear()
    cel._check.cache_clear()
    for expression in LIBRARY_FREE_CASES:
        lean[expression] = issues_of(expression)
    # most cases call no library function, or only its comparisons and string(): their types were declared in
    # environments without the library, or with just those
    assert typed_libraries.count(False) >= 15 and typed_libraries.count(cel.BASIC) >= 15
    typecheck.clear_cache()
    cel._checking_environment.cache_clear()
    cel._check.cache_clear()
    monkeypatch.setattr(typecheck, "_library_use", lambda *args: True)
    assert {expression: issues_of(expression) for expression in LIBRARY_FREE_CASES} == lean
    assert any(lean.values())  # the cases hold errors


def test_a_policy_calling_a_library_function_is_checked_with_the_library():
    spec = _spec(DEPLOYMENTS, validations=["object.spec.replicas == 1",
                                           "quantity(object.metadata.name).isInteger() == 'x'"])
    assert typecheck._library_use("", spec, "1.36") is True
    assert [m for *_, m in _issues(_check(spec))] == [
        "found no matching overload for '_==_' applied to '(bool, string)'"]
    assert typecheck._library_use("", _spec(DEPLOYMENTS, validations=["object.spec.replicas == 1"]), "1.36") is False
    basic = _spec(DEPLOYMENTS, validations=["object.spec.replicas > 1", "string(object.spec.replicas) == 'x'"])
    assert typecheck._library_use("", basic, "1.36") == cel.BASIC
    with_ip = _spec(DEPLOYMENTS, validations=["string(variables.addr) == ''"],
                    variables=[{"name": "addr", "expression": "ip('10.0.0.1')"}])
    assert typecheck._library_use("", with_ip, "1.36") is True  # a variable calls the library
    assert _issues(_check(with_ip)) == []


def test_object_and_params_are_of_distinct_types_even_of_one_kind():
    # the apiserver names the types of each root uniquely (generateUniqueTypeName): a Deployment param's
    # selector is not of the object's selector type, even where the fields selected of both are the same
    spec = _spec(DEPLOYMENTS, validations=["object.spec.selector == params.spec.selector",
                                           "object.spec.replicas == params.spec.replicas"],
                 paramKind={"apiVersion": "apps/v1", "kind": "Deployment"})
    assert [(ref, m) for ref, _, _, _, m in _issues(_check(spec))] == [
        ("spec.validations[0].expression",
         "found no matching overload for '_==_' applied to '(Deployment.spec.selector, Deployment.spec.selector)'"),
    ]


def test_expressions_that_do_not_read_the_object_are_checked_alike_without_its_types(monkeypatch):
    spec = _spec(DEPLOYMENTS, PODS, validations=[
        "request.userInfo.username.startsWith('system:') || variables.admin",
        "request.userInfo.usernamee == 'x'", "variables.name == 1", "variables.admin == 'yes'",
        "namespaceObject.metadata.labels['env'] == 1", "variables.replicas + 'x' == ''",
    ], variables=[
        {"name": "admin", "expression": "authorizer.group('').resource('nodes').check('delete').allowed()"},
        {"name": "name", "expression": "request.name"},
        {"name": "replicas", "expression": "object.spec.replicas"},
    ], auditAnnotations=[{"key": "who", "valueExpression": "request.userInfo.username + variables.name"}])
    quick = _issues(_check(spec))
    assert len(quick) >= 8
    typecheck.clear_cache()
    monkeypatch.setattr(typecheck, "_check_site", lambda expression, kind, typed, plain:
                        typecheck.cel.check_expression(expression, kind, typed))
    assert _issues(_check(spec)) == quick


def _gallery_policies() -> list[tuple[str, dict]]:
    policies = []
    for example in examples.all_examples():
        for pane_text in payload_from(example.form()).values():
            if not isinstance(pane_text, str):
                continue
            for doc in yaml.safe_load_all(pane_text):
                if isinstance(doc, dict) and doc.get("kind") in ("ValidatingAdmissionPolicy",
                                                                 "MutatingAdmissionPolicy"):
                    policies.append((f"{example.name}/{doc['metadata']['name']}", doc["spec"]))
    return policies


def test_policies_checked_against_the_fields_any_of_them_selects_get_their_own_results():
    # every gallery policy type-checked alone, then all of them with the fields any of them selects declared
    # (what a scenario's policies share): the same warnings, the same kinds, the same explanations
    version = library.DEFAULT_VERSION
    table, schemas = builtin_table(version), schema_set(version)
    policies = [(name, spec) for name, spec in _gallery_policies()  # (one reading object whole shares nothing)
                if typecheck.selected_object_fields([(name, spec)], version) is not None]
    shared = typecheck.selected_object_fields(policies, version)
    assert shared is not None and len(policies) > 20
    for name, spec in policies:
        alone = check_policy(spec, version=version, table=table, schemas=schemas, name=name)
        typecheck.clear_cache()  # (the shared fields are not part of the cache key: checked again, not found)
        together = check_policy(spec, version=version, table=table, schemas=schemas, name=name,
                                shared_fields=lambda: shared)
        typecheck.clear_cache()
        assert together == alone, name


def test_a_scenario_builds_one_environment_for_its_checks_type_checks_and_runs(monkeypatch):
    from app.vap import fast

    built = []
    original = cel._build_environment
    monkeypatch.setattr(cel, "_build_environment",
                        lambda decls, typed: built.append(decls) or original(decls, typed=typed))
    fast.clear()
    response = vap.evaluate(payload_from(examples.get("mutation-then-validation").form()))
    assert response["allowed"] is True
    # (the MutatingAdmissionPolicy and the ValidatingAdmissionPolicy, on Deployments, checked against its schema
    # in the environment they are compiled and run in)
    assert len(built) == 1 and built[0].types is None and built[0].aliases is not None
    assert "apps/v1, Kind=Deployment" in response["policies"][0]["typeChecking"]["checkedKinds"]


def test_an_expression_ending_a_block_is_compiled_once_to_check_its_types_and_to_run(monkeypatch):
    # A matchCondition or a mutation written as a YAML block ends with a newline; it runs trimmed (as the apiserver
    # compiles it). Type checking compiles the same trimmed text, and so shares that compile.
    from app.vap import fast

    fast.clear()
    compiled: list[str] = []
    original = cel._engine_compile
    monkeypatch.setattr(cel, "_engine_compile", lambda env, text: compiled.append(text) or original(env, text))
    policy = """apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: labels}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}]
  matchConditions:
  - name: unlabelled
    expression: >
      !has(object.metadata.labels)
  reinvocationPolicy: Never
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >
        Object{metadata: Object.metadata{labels: {"team": object.metadata.name}}}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: labels}
spec: {policyName: labels}
"""
    body = payload_from(examples.get("mutation-then-validation").form())
    response = vap.evaluate({**body, "policy": policy})
    assert response["object"]["metadata"]["labels"] == {"team": "checkout"}
    assert not [p for p in response["problems"] if p["pane"] == "policy"]
    assert not [text for text in compiled if text != text.rstrip()]
    typed = [text for text in compiled if "__playground_typed" in text]
    assert len(typed) == 2 and len(set(compiled)) == len(compiled)


def _in_a_scenario(spec, version="1.36", crds=(), *others):
    """A policy type-checked as a scenario's evaluation checks it: against the fields its scenario's expressions
    name, in the environment the scenario declares (typecheck.scenario_types)."""
    from app.vap import fast

    fast.clear()  # (nothing checked before is found)
    table = builtin_table(version)
    if crds:
        table = table.with_custom_resources(crds)
    schemas = schema_set(version, crds)
    named, aliases = typecheck.scenario_types([("p", spec), *(("o", o) for o in others)], version=version,
                                              table=table, schemas=schemas)
    assert aliases is not None
    typecheck.clear_cache()
    built = []
    original = cel._build_environment

    def counting(decls, typed):
        built.append(decls)
        return original(decls, typed=typed)

    cel._build_environment = counting
    try:
        with cel.declaring(lambda: aliases):
            result = check_policy(spec, version=version, table=table, schemas=schemas, shared_fields=lambda: named)
    finally:
        cel._build_environment = original
        typecheck.clear_cache()
    return result, built


@pytest.mark.parametrize("rules, expression, expected", [pytest.param(*c[1:], id=c[0]) for c in CASES])
def test_expression_against_one_kind_in_a_scenario_s_environment(rules, expression, expected):
    result, built = _in_a_scenario(_spec(*rules, validations=[expression]))
    assert [(k, c, m) for _, k, _, c, m in _issues(result)] == expected
    assert all(decls.types is None for decls in built)  # no environment of type checking's own


@pytest.mark.parametrize("version", ["1.30", "1.36"])
def test_a_scenario_s_environment_reports_what_a_check_of_its_own_does(version):
    # the selection cases (typos, dyn(), sizes, params of a CRD kind, two kinds, a variable), and roots renamed
    # where a field, a string or a comment has their name, on several lines
    validations = [*SELECTION_CASES,
                   "object.spec.template.spec.containers.all(object, object.imagee != 'object')",
                   "// oldObject.spec.x\n  oldObject.spec.replicaz > 1 &&\n"
                   "  object.metadata.name != params.spec.colour",
                   "has(object.spec.template.spec.object) || object. spec .paused == 'x'",
                   {"expression": "object.spec.replicas > 0", "messageExpression": "params.spec.size + object.x"}]
    spec = _spec(DEPLOYMENTS, PODS, validations=validations,
                 variables=[{"name": "spec", "expression": "object.spec"}],
                 paramKind={"apiVersion": "example.com/v1", "kind": "Widget"})
    own = _issues(_check(spec, version, crds=[CRD]))
    assert len(own) > 15
    typecheck.clear_cache()
    result, _ = _in_a_scenario(spec, version, [CRD])
    assert _issues(result) == own
    assert result.warnings == _check(spec, version, crds=[CRD]).warnings  # the texts with their carets too


def test_policies_checked_in_their_scenario_s_environment_get_their_own_results():
    # every gallery policy type-checked alone, then as part of a scenario holding all of them
    version = library.DEFAULT_VERSION
    table, schemas = builtin_table(version), schema_set(version)
    policies = _gallery_policies()
    named, aliases = typecheck.scenario_types(policies, version=version, table=table, schemas=schemas)
    for name, spec in policies:
        typecheck.clear_cache()
        alone = check_policy(spec, version=version, table=table, schemas=schemas, name=name)
        typecheck.clear_cache()
        cel._check.cache_clear()  # (checked again, not found)
        with cel.declaring(lambda: aliases):
            together = check_policy(spec, version=version, table=table, schemas=schemas, name=name,
                                    shared_fields=lambda: named)
        assert together == alone, name
    typecheck.clear_cache()


def test_an_expression_naming_a_typed_root_s_declared_name_is_refused():
    # the scenario's environment declares the typed roots it checks against under names of the playground's own:
    # a policy naming one is refused as kube-apiserver refuses any undeclared name, and stored nowhere
    from app.vap import fast

    policy = _policy_yaml("__playground_typed0_object.spec.replicas > 1")
    fast.clear()
    response = vap.evaluate({"policy": policy, "object": _DEPLOYMENT_YAML})
    assert [r["message"] for r in response["rejected"]] == [
        'ValidatingAdmissionPolicy.admissionregistration.k8s.io "p" is invalid: spec.validations[0].expression: '
        'Invalid value: "__playground_typed0_object.spec.replicas > 1": compilation failed: ERROR: <input>:1:1: '
        "undeclared reference to '__playground_typed0_object' (in container '')\n"
        " | __playground_typed0_object.spec.replicas > 1\n | ^"]


def _policy_yaml(expression):
    return yaml.safe_dump_all([
        {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
         "metadata": {"name": "p"},
         "spec": {"failurePolicy": "Fail", "matchConstraints": {"resourceRules": [DEPLOYMENTS]},
                  "validations": [{"expression": expression}]}},
        {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
         "metadata": {"name": "b"}, "spec": {"policyName": "p", "validationActions": ["Deny"]}}])


_DEPLOYMENT_YAML = """apiVersion: apps/v1
kind: Deployment
metadata: {name: d, namespace: default}
spec:
  replicas: 3
  selector: {matchLabels: {a: b}}
  template: {metadata: {labels: {a: b}}, spec: {containers: [{name: c, image: x}]}}
"""


def test_a_root_the_scenario_s_texts_do_not_name_is_checked_where_it_is_declared():
    # the scenario's environment declares only the typed roots its expressions name (here object): a policy checked
    # against the same types that names oldObject is checked in an environment of its own, with oldObject typed
    from app.vap import fast

    fast.clear()
    version = "1.36"
    table, schemas = builtin_table(version), schema_set(version)
    scenario = _spec(DEPLOYMENTS, validations=["object.spec.replicas > 1"])
    named, aliases = typecheck.scenario_types([("s", scenario)], version=version, table=table, schemas=schemas)
    assert aliases is not None and "oldObject" not in aliases.renames(0)
    spec = _spec(DEPLOYMENTS, validations=["object.spec.replicas > 1 || oldObject.spec.replicaz > 1"])
    typecheck.clear_cache()
    with cel.declaring(lambda: aliases):
        result = check_policy(spec, version=version, table=table, schemas=schemas, shared_fields=lambda: named)
    typecheck.clear_cache()
    assert [(k, c, m) for _, k, _, c, m in _issues(result)] == [
        ("apps/v1, Kind=Deployment", 43, "undefined field 'replicaz'")]


def _patching(expression: str) -> str:
    return f"""apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {{name: p}}
spec:
  matchConstraints:
    resourceRules: [{{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}}]
  reinvocationPolicy: Never
  mutations:
  - patchType: JSONPatch
    jsonPatch:
      expression: >
        {expression}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {{name: p}}
spec: {{policyName: p}}
"""


MUTATION_TYPE_CHECKS = [
    ('[JSONPatch{op: "test", path: "/spec/replicas", value: object.spec.replicaz}]',
     [(12, 74, "type checking against apps/v1, Kind=Deployment: undefined field 'replicaz'")]),
    ('[JSONPatch{op: "add", path: "/metadata/labels/x", value: object.spec.replicas + "x"}, '
     'JSONPatch{op: "add", path: "/spec/paused", value: true}]',
     [(12, 87, "type checking against apps/v1, Kind=Deployment: found no matching overload for '_+_' applied to "
               "'(int, string)'")]),
    ('[JSONPatch{op: "add", path: "/metadata/annotations", value: {"names": object.spec.template.spec.containers'
     '.map(c, c.nam).join(",")}}]',
     [(12, 124, "type checking against apps/v1, Kind=Deployment: undefined field 'nam'")]),
    ('[JSONPatch{op: "test", path: "/spec/replicas", value: object.spec.replicas}, '
     'JSONPatch{op: "replace", path: "/spec/paused", value: !object.spec.paused}]', []),
]


@pytest.mark.parametrize(("expression", "warnings"), MUTATION_TYPE_CHECKS)
def test_a_mutation_is_type_checked_against_the_kind_it_patches(expression, warnings):
    # Each part of a literal of JSONPatch or Object initialisers that reads the object is checked against the
    # kind's schema on its own; the warnings are those of checking the whole, which the switch off makes.
    from app.vap import fast

    body = {**payload_from(examples.get("mutation-then-validation").form()), "policy": _patching(expression)}
    found = []
    for plain in (False, True):
        with fast.plain() if plain else contextlib.nullcontext():
            fast.clear()
            problems = vap.evaluate(body)["problems"]
        found.append([(p["line"], p["column"], p["message"]) for p in problems if p["pane"] == "policy"])
    assert found[0] == found[1] == warnings


def test_a_long_patch_reading_one_field_is_type_checked_on_that_field(monkeypatch):
    from app.vap import fast

    fast.clear()
    compiled: list[str] = []
    original = cel._engine_compile
    monkeypatch.setattr(cel, "_engine_compile", lambda env, text: compiled.append(text) or original(env, text))
    expression = ('[JSONPatch{op: "test", path: "/spec/replicas", value: object.spec.replicas}, '
                  'JSONPatch{op: "add", path: "/metadata/labels", value: {"x": "y"}}, '
                  + ", ".join(f'JSONPatch{{op: "add", path: "/metadata/labels/l{i}", value: "v{i}"}}'
                              for i in range(6)) + "]")
    body = {**payload_from(examples.get("mutation-then-validation").form()), "policy": _patching(expression)}
    response = vap.evaluate(body)
    assert response["object"]["metadata"]["labels"]["l5"] == "v5"
    typed = [text for text in compiled if "__playground_typed" in text and "JSONPatch" not in text]
    assert "__playground_typed0_object.spec.replicas" in [text.strip() for text in typed]
    assert not [text for text in compiled if "__playground_typed" in text and "JSONPatch" in text]
