"""RBAC as kube-apiserver answers it, and the CEL authorizer library backed by it.

Cases follow kubernetes/kubernetes plugin/pkg/auth/authorizer/rbac/rbac_test.go (TestAuthorizer,
TestRuleMatches), pkg/registry/rbac/validation/rule_test.go (TestAppliesTo), the reason texts of
rbac.go and rule.go, the aggregation controller, pkg/apis/rbac/validation, and
k8s.io/apiserver pkg/admission/plugin/cel/condition_test.go for the library (attributes sent,
selector parse errors, service account user).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from app import vap
from app.vap import cel as c
from app.vap import rbac
from app.vap.cel import library
from app.vap.cel.library import authz
from app.vap.documents import load_pane


def cluster(text: str) -> rbac.Loaded:
    docs, problems = load_pane("params", text)
    assert not problems
    return rbac.load([d for d in docs if rbac.is_rbac_document(d)])


def resource(verb: str, resource_: str, *, group: str = "", sub: str = "", ns: str = "", name: str = "",
             user: str = "", groups: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"user": {"username": user, "groups": list(groups)}, "verb": verb, "resourceRequest": True,
            "apiGroup": group, "apiVersion": "*", "resource": resource_, "subresource": sub, "namespace": ns,
            "name": name}


def path(verb: str, url: str, *, user: str = "", groups: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"user": {"username": user, "groups": list(groups)}, "verb": verb, "path": url, "resourceRequest": False}


def rule(**fields: list[str]) -> rbac.PolicyRule:
    return rbac.PolicyRule(
        verbs=tuple(fields.get("verbs", [])),
        api_groups=tuple(fields.get("apiGroups", [])),
        resources=tuple(fields.get("resources", [])),
        resource_names=tuple(fields.get("resourceNames", [])),
        non_resource_urls=tuple(fields.get("nonResourceURLs", [])),
    )


# ------------------------------------------------------------------------------------------------
# RuleAllows (rbac_test.go TestRuleMatches and the helpers' rules)


@pytest.mark.parametrize(
    ("the_rule", "attributes", "allowed"),
    [
        pytest.param(rule(verbs=["*"], apiGroups=["group1"], resources=["resource1"]),
                     resource("verb2", "resource1", group="group1"), True, id="star verb, exact match other"),
        pytest.param(rule(verbs=["*"], apiGroups=["group1"], resources=["resource1"]),
                     resource("verb1", "resource1", group="group2"), False, id="star verb, other group"),
        pytest.param(rule(verbs=["verb1"], apiGroups=["*"], resources=["resource1"]),
                     resource("verb1", "resource1", group="group2"), True, id="star group, exact match other"),
        pytest.param(rule(verbs=["verb1"], apiGroups=["*"], resources=["resource1"]),
                     resource("verb2", "resource1", group="group1"), False, id="star group, other verb"),
        pytest.param(rule(verbs=["verb1"], apiGroups=["group1"], resources=["*"]),
                     resource("verb1", "resource2", group="group1"), True, id="star resource, exact match other"),
        pytest.param(rule(verbs=["verb1"], apiGroups=["group1"], resources=["*"]),
                     resource("verb1", "pods", group="group1", sub="status"), True,
                     id="star resource covers subresources"),
        pytest.param(rule(verbs=["verb1", "verb2"], apiGroups=["group1", "group2"], resources=["r1", "r2"]),
                     resource("verb2", "r2", group="group2"), True, id="tuple expansion"),
        pytest.param(rule(verbs=["*"], apiGroups=["*"], resources=["resource1/subresource1"]),
                     resource("verb1", "resource1", group="g", sub="subresource1"), True,
                     id="subresource expansion"),
        pytest.param(rule(verbs=["*"], apiGroups=["*"], resources=["resource1/subresource1"]),
                     resource("verb1", "resource1", group="g", sub="subresource2"), False,
                     id="subresource expansion, other subresource"),
        pytest.param(rule(verbs=["*"], apiGroups=["*"], resources=["pods"]),
                     resource("get", "pods", sub="status"), False, id="resource does not cover its subresources"),
        pytest.param(rule(verbs=["*"], apiGroups=["*"], resources=["pods/status"]),
                     resource("get", "pods"), False, id="subresource rule does not cover the resource"),
        pytest.param(rule(verbs=["update"], apiGroups=["*"], resources=["*/scale"]),
                     resource("update", "deployments", group="apps", sub="scale"), True,
                     id="*/scale matches every resource's scale"),
        pytest.param(rule(verbs=["update"], apiGroups=["*"], resources=["*/scale"]),
                     resource("update", "deployments", group="apps"), False, id="*/scale needs a subresource"),
        pytest.param(rule(verbs=["update"], apiGroups=["*"], resources=["*/scale"]),
                     resource("update", "deployments", group="apps", sub="status"), False,
                     id="*/scale does not match status"),
        pytest.param(rule(verbs=["get"], apiGroups=[""], resources=["configmaps"], resourceNames=["cfg"]),
                     resource("get", "configmaps", name="cfg"), True, id="resourceNames lists the name"),
        pytest.param(rule(verbs=["get"], apiGroups=[""], resources=["configmaps"], resourceNames=["cfg"]),
                     resource("get", "configmaps", name="other"), False, id="resourceNames without the name"),
        pytest.param(rule(verbs=["list"], apiGroups=[""], resources=["configmaps"], resourceNames=["cfg"]),
                     resource("list", "configmaps"), False,
                     id="resourceNames never match a request without a name (list, create)"),
        pytest.param(rule(verbs=["get"], apiGroups=[""], resources=["configmaps"]),
                     resource("get", "configmaps", name="anything"), True, id="no resourceNames match any name"),
        pytest.param(rule(verbs=["get"], apiGroups=[""], resources=["Pods"]),
                     resource("get", "pods"), False, id="resources compare case-sensitively"),
        pytest.param(rule(verbs=["verb1"], nonResourceURLs=["*"]), path("verb1", "/foo/bar/one"), True,
                     id="star nonresource"),
        pytest.param(rule(verbs=["verb1"], nonResourceURLs=["*"]), path("verb2", "/foo"), False,
                     id="star nonresource, other verb"),
        pytest.param(rule(verbs=["verb1"], nonResourceURLs=["/foo/*"]), path("verb1", "/foo/baz/one"), True,
                     id="star nonresource subpath"),
        pytest.param(rule(verbs=["verb1"], nonResourceURLs=["/foo/*"]), path("verb1", "/foo"), False,
                     id="star nonresource subpath, the parent"),
        pytest.param(rule(verbs=["verb1"], nonResourceURLs=["/foo/*"]), path("verb1", "/notfoo/bar"), False,
                     id="star nonresource subpath, other prefix"),
        pytest.param(rule(verbs=["*"], nonResourceURLs=["/foo", "/foo/bar/one"]), path("verb2", "/foo/bar"),
                     False, id="star verb, exact nonresource"),
        pytest.param(rule(verbs=["get"], nonResourceURLs=["/healthz"]), path("get", "healthz"), False,
                     id="paths compare literally (no leading slash added)"),
        pytest.param(rule(verbs=["*"], apiGroups=["*"], resources=["*"]), path("get", "/healthz"), False,
                     id="a resource rule never allows a path"),
        pytest.param(rule(verbs=["*"], nonResourceURLs=["*"]), resource("get", "pods"), False,
                     id="a nonResourceURLs rule never allows a resource"),
    ],
)
def test_rule_allows(the_rule: rbac.PolicyRule, attributes: dict[str, Any], allowed: bool) -> None:
    assert rbac.rule_allows(attributes, the_rule) is allowed


# ------------------------------------------------------------------------------------------------
# The authorizer (rbac_test.go TestAuthorizer, rule_test.go TestAppliesTo)

NS_ADMIN = """
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: admin}
rules:
- {verbs: ["*"], apiGroups: ["*"], resources: ["*"]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: admins, namespace: ns1}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: admin}
subjects:
- {kind: User, name: admin}
- {kind: Group, name: admins}
"""


@pytest.mark.parametrize(
    ("attributes", "allowed"),
    [
        pytest.param(resource("get", "Pods", ns="ns1", user="admin"), True, id="user subject in ns1"),
        pytest.param(resource("watch", "Foobar", ns="ns1", user="joe", groups=("group1", "admins")), True,
                     id="group subject in ns1"),
        pytest.param(resource("GET", "Pods", ns="ns2", user="admin"), False,
                     id="RoleBinding to a ClusterRole grants only in its namespace"),
        pytest.param(resource("GET", "Nodes", user="admin", groups=("admins",)), False,
                     id="RoleBinding never grants cluster-scoped requests"),
        pytest.param(resource("get", "pods", ns="ns1", user="Admin"), False, id="user names are case-sensitive"),
    ],
)
def test_role_binding_to_cluster_role(attributes: dict[str, Any], allowed: bool) -> None:
    answer = cluster(NS_ADMIN).rbac.authorize(attributes)
    assert (answer.decision == rbac.ALLOW) is allowed
    assert answer.error is None


SUBJECTS = """
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: reader, namespace: apps}
rules:
- {verbs: [get, list], apiGroups: [""], resources: [pods]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: readers, namespace: apps}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: reader}
subjects:
- {kind: User, name: "*"}
- {kind: ServiceAccount, name: builder}
- {kind: ServiceAccount, name: deployer, namespace: ci}
- {kind: Group, name: "system:serviceaccounts:monitoring"}
"""


@pytest.mark.parametrize(
    ("user", "groups", "allowed"),
    [
        pytest.param("system:serviceaccount:apps:builder", (), True,
                     id="ServiceAccount without namespace means the binding's namespace"),
        pytest.param("system:serviceaccount:other:builder", (), False, id="same name, other namespace"),
        pytest.param("system:serviceaccount:ci:deployer", (), True, id="ServiceAccount of another namespace"),
        pytest.param("system:serviceaccount:monitoring:prom", ("system:serviceaccounts:monitoring",), True,
                     id="service accounts of a namespace as a group"),
        pytest.param("foobar", ("system:authenticated",), False, id="* user subject name doesn't match all users"),
    ],
)
def test_subjects(user: str, groups: tuple[str, ...], allowed: bool) -> None:
    answer = cluster(SUBJECTS).rbac.authorize(resource("list", "pods", ns="apps", user=user, groups=groups))
    assert (answer.decision == rbac.ALLOW) is allowed


def test_allow_reason_names_binding_role_and_subject() -> None:
    loaded = cluster(NS_ADMIN + SUBJECTS.replace("apiVersion", "---\napiVersion", 1))
    answer = loaded.rbac.authorize(resource("get", "pods", ns="ns1", user="joe", groups=("admins",)))
    assert answer.reason == 'RBAC: allowed by RoleBinding "admins/ns1" of ClusterRole "admin" to Group "admins"'
    answer = loaded.rbac.authorize(resource("get", "pods", ns="apps", user="system:serviceaccount:apps:builder"))
    assert answer.reason == ('RBAC: allowed by RoleBinding "readers/apps" of Role "reader" to '
                             'ServiceAccount "builder/apps"')
    assert answer.granted_by == {
        "binding": {"kind": "RoleBinding", "name": "readers", "namespace": "apps"},
        "role": {"kind": "Role", "name": "reader", "namespace": "apps"},
        "subject": {"kind": "ServiceAccount", "name": "builder", "namespace": "apps"},
        "ruleIndex": 0,
        "rule": {"verbs": ["get", "list"], "apiGroups": [""], "resources": ["pods"]},
    }


CLUSTER_ADMINS = """
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: kubeadm:cluster-admins}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
subjects:
- {kind: Group, name: "kubeadm:cluster-admins"}
"""


def test_cluster_role_binding_reason_and_built_in_cluster_admin() -> None:
    answer = cluster(CLUSTER_ADMINS).rbac.authorize(path("get", "/metrics", user="kubernetes-admin",
                                                         groups=("kubeadm:cluster-admins",)))
    assert answer.decision == rbac.ALLOW
    assert answer.reason == ('RBAC: allowed by ClusterRoleBinding "kubeadm:cluster-admins" of ClusterRole '
                             '"cluster-admin" to Group "kubeadm:cluster-admins"')
    assert answer.granted_by["role"] == {"kind": "ClusterRole", "name": "cluster-admin", "builtIn": True}
    assert answer.granted_by["ruleIndex"] == 1  # the nonResourceURLs rule


def test_no_opinion_reason_is_empty_or_the_resolution_errors() -> None:
    loaded = cluster(CLUSTER_ADMINS + """
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: viewers}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}
subjects: [{kind: Group, name: "system:authenticated"}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: devs, namespace: dev}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: developer}
subjects: [{kind: User, name: alice}]
""")
    assert loaded.rbac.authorize(resource("get", "pods", ns="dev", user="bob")).reason == ""
    answer = loaded.rbac.authorize(resource("get", "pods", ns="prod", user="bob", groups=("system:authenticated",)))
    assert (answer.decision, answer.reason) == (rbac.NO_OPINION, 'RBAC: clusterrole.rbac.authorization.k8s.io '
                                                                 '"view" not found')
    answer = loaded.rbac.authorize(resource("get", "pods", ns="dev", user="alice", groups=("system:authenticated",)))
    assert answer.reason == ('RBAC: [clusterrole.rbac.authorization.k8s.io "view" not found, '
                             'role.rbac.authorization.k8s.io "developer" not found]')
    assert answer.error is None


def test_system_masters_is_allowed_before_rbac_with_an_empty_reason() -> None:
    answer = cluster(NS_ADMIN).rbac.authorize(resource("delete", "nodes", user="x", groups=("system:masters",)))
    assert (answer.decision, answer.reason) == (rbac.ALLOW, "")
    assert answer.granted_by == {"privilegedGroup": "system:masters"}


def test_cluster_role_bindings_are_visited_before_role_bindings() -> None:
    loaded = cluster(NS_ADMIN + """
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: everyone-reads}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: admin}
subjects: [{kind: User, name: admin}]
""")
    answer = loaded.rbac.authorize(resource("get", "pods", ns="ns1", user="admin"))
    assert answer.reason.startswith('RBAC: allowed by ClusterRoleBinding "everyone-reads"')


# ------------------------------------------------------------------------------------------------
# Aggregated ClusterRoles (pkg/controller/clusterroleaggregation)

AGGREGATION = """
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: monitoring}
aggregationRule:
  clusterRoleSelectors:
  - matchLabels: {rbac.example.com/aggregate-to-monitoring: "true"}
rules:
- {verbs: ["*"], apiGroups: ["*"], resources: ["*"]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: monitoring-endpoints
  labels: {rbac.example.com/aggregate-to-monitoring: "true"}
rules:
- {verbs: [get, list, watch], apiGroups: [""], resources: [services, endpoints, pods]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: monitoring-metrics
  labels: {rbac.example.com/aggregate-to-monitoring: "true"}
rules:
- {verbs: [get], nonResourceURLs: ["/metrics"]}
- {verbs: [get, list, watch], apiGroups: [""], resources: [services, endpoints, pods]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: prometheus}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: monitoring}
subjects: [{kind: ServiceAccount, name: prometheus, namespace: monitoring}]
"""


def test_aggregated_cluster_role_holds_the_selected_roles_rules_and_not_its_own() -> None:
    loaded = cluster(AGGREGATION)
    monitoring = loaded.rbac.cluster_roles["monitoring"]
    assert [r.to_json() for r in monitoring.rules] == [
        {"verbs": ["get", "list", "watch"], "apiGroups": [""], "resources": ["services", "endpoints", "pods"]},
        {"verbs": ["get"], "nonResourceURLs": ["/metrics"]},
    ]  # the duplicate rule once; the "*" rule written in the aggregated role is replaced
    sa = "system:serviceaccount:monitoring:prometheus"
    answer = loaded.rbac.authorize(path("get", "/metrics", user=sa))
    assert answer.decision == rbac.ALLOW
    assert answer.granted_by["aggregatedFrom"] == {"kind": "ClusterRole", "name": "monitoring-metrics"}
    assert loaded.rbac.authorize(resource("delete", "pods", ns="x", user=sa)).decision == rbac.NO_OPINION


def test_aggregation_follows_chains_of_aggregated_roles() -> None:
    loaded = cluster(AGGREGATION + """
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: ops}
aggregationRule:
  clusterRoleSelectors:
  - matchExpressions: [{key: tier, operator: In, values: [ops]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: monitoring-ops, labels: {tier: ops, rbac.example.com/aggregate-to-monitoring: "true"}}
aggregationRule:
  clusterRoleSelectors: [{matchLabels: {feeds: monitoring-ops}}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: logs, labels: {feeds: monitoring-ops}}
rules: [{verbs: [get], apiGroups: [""], resources: [pods/log]}]
""")
    ops = loaded.rbac.cluster_roles["ops"]
    assert [r.resources for r in ops.rules] == [("pods/log",)]
    assert ops.sources == ["logs"]
    monitoring = loaded.rbac.cluster_roles["monitoring"]
    assert ("pods/log",) in [r.resources for r in monitoring.rules]


# ------------------------------------------------------------------------------------------------
# What the apiserver refuses to store (pkg/apis/rbac/validation)


@pytest.mark.parametrize(
    ("text", "field", "message"),
    [
        pytest.param("kind: Role\nmetadata: {name: r, namespace: a}\nrules: [{apiGroups: [''], resources: [pods]}]",
                     "rules[0].verbs", "rules[0].verbs: Required value: verbs must contain at least one value",
                     id="verbs required"),
        pytest.param("kind: Role\nmetadata: {name: r, namespace: a}\nrules: [{verbs: [get], nonResourceURLs: [/x]}]",
                     "rules[0].nonResourceURLs", 'rules[0].nonResourceURLs: Invalid value: ["/x"]: namespaced rules '
                     "cannot apply to non-resource URLs", id="no nonResourceURLs in a Role"),
        pytest.param("kind: ClusterRole\nmetadata: {name: r}\nrules: [{verbs: [get], resources: [pods]}]",
                     "rules[0].apiGroups", "rules[0].apiGroups: Required value: resource rules must supply at least "
                     "one api group", id="apiGroups required"),
        pytest.param("kind: ClusterRole\nmetadata: {name: r}\n"
                     "rules: [{verbs: [get], apiGroups: [''], resources: [a, b], resourceNames: [x]}]",
                     "rules[0].resourceNames", "rules[0].resourceNames: Required value: resource names cannot apply to "
                     "multiple resources", id="resourceNames with several resources"),
        pytest.param("kind: ClusterRoleBinding\nmetadata: {name: b}\nroleRef: {kind: Role, name: r}",
                     "roleRef.kind", 'roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"',
                     id="ClusterRoleBinding to a Role"),
        pytest.param("kind: ClusterRoleBinding\nmetadata: {name: b}\nroleRef: {kind: ClusterRole, name: r}\n"
                     "subjects: [{kind: ServiceAccount, name: sa}]",
                     "subjects[0].namespace", "subjects[0].namespace: Required value", id="SA namespace required"),
        pytest.param("kind: RoleBinding\nmetadata: {name: b, namespace: a}\nroleRef: {kind: Role, name: r}\n"
                     "subjects: [{kind: Robot, name: x}]", "subjects[0].kind",
                     'subjects[0].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", '
                     '"Group"', id="unknown subject kind"),
        pytest.param("kind: ClusterRole\nmetadata: {name: r}\naggregationRule: {clusterRoleSelectors: []}",
                     "aggregationRule.clusterRoleSelectors", "aggregationRule.clusterRoleSelectors: Required value: "
                     "at least one clusterRoleSelector required if aggregationRule is non-nil",
                     id="aggregationRule without selectors"),
    ],
)
def test_invalid_rbac_objects_are_refused_with_the_apiserver_message(text: str, field: str, message: str) -> None:
    loaded = cluster("apiVersion: rbac.authorization.k8s.io/v1\n" + text)
    assert loaded.rbac.empty
    [problem] = [p for p in loaded.problems if p.path == field]
    assert problem.message == message and problem.severity == "error" and problem.line is not None
    [rejected] = loaded.rejected
    assert rejected["message"].endswith(f'.rbac.authorization.k8s.io "{rejected["name"]}" is invalid: {message}')


def test_removed_rbac_versions_are_reported() -> None:
    loaded = cluster("apiVersion: rbac.authorization.k8s.io/v1beta1\nkind: ClusterRole\nmetadata: {name: r}\n")
    [problem] = loaded.problems
    assert problem.path == "apiVersion" and "rbac.authorization.k8s.io/v1beta1" in problem.message


# ------------------------------------------------------------------------------------------------
# The CEL library (k8s.io/apiserver pkg/cel/library/authz.go; condition_test.go)


def run(expression: str, activation: dict[str, Any], version: str = library.DEFAULT_VERSION) -> Any:
    compiled = c.compile_expression(expression, c.VALIDATION, c.Declarations(version=version))
    assert compiled.error is None, compiled.error
    return c.evaluate(compiled, {"object": None, "oldObject": None, "request": {}, "namespaceObject": None,
                                 **activation})


REQUEST = {"resource": {"group": "", "version": "v1", "resource": "endpoints"}, "subResource": "status",
           "namespace": "default", "name": "endpoints1"}


def test_checks_send_the_attributes_and_are_recorded() -> None:
    seen: list[dict[str, Any]] = []

    def backend(attributes: dict[str, Any]) -> tuple[Any, ...]:
        seen.append(attributes)
        return ("allow", "fake reason", None, {"grantedBy": {"note": "test"}})

    values = library.authorizer_activation(REQUEST, {"username": "alice", "groups": ["dev"]}, backend)
    assert run("authorizer.requestResource.check('custom-verb').allowed()", values) is True
    assert seen[0] == {"user": {"username": "alice", "groups": ["dev"]}, "verb": "custom-verb",
                       "resourceRequest": True, "apiGroup": "", "apiVersion": "*", "resource": "endpoints",
                       "subresource": "status", "namespace": "default", "name": "endpoints1"}
    assert run("authorizer.path('/healthz').check('get').reason() == 'fake reason'", values) is True
    assert seen[1] == {"user": {"username": "alice", "groups": ["dev"]}, "verb": "get", "path": "/healthz",
                       "resourceRequest": False}
    assert [check["verb"] for check in values.checks] == ["custom-verb", "get"]
    assert values.checks[0]["grantedBy"] == {"note": "test"} and values.checks[0]["allowed"] is True


def test_service_account_checks_ask_as_the_service_account_without_authenticated_group() -> None:
    seen: list[dict[str, Any]] = []
    values = library.authorizer_activation(REQUEST, {"username": "alice"},
                                           lambda a: (seen.append(a), ("no opinion", "", None))[1])
    expression = ("authorizer.serviceAccount('default', 'test-serviceaccount').group('').resource('endpoints')"
                  ".namespace('default').name('endpoints1').check('custom-verb').allowed()")
    assert run(expression, values) is False
    assert seen[0]["user"] == {"username": "system:serviceaccount:default:test-serviceaccount",
                               "groups": ["system:serviceaccounts", "system:serviceaccounts:default"]}


def test_errors_of_the_authorizer_are_errored_not_allowed() -> None:
    values = library.authorizer_activation(REQUEST, {}, lambda a: ("no opinion", "", "fake authz error"))
    assert run("authorizer.group('').resource('endpoints').check('create').errored()", values) is True
    assert run("authorizer.group('').resource('endpoints').check('create').error() == 'fake authz error'",
               values) is True
    assert run("authorizer.group('').resource('endpoints').check('create').allowed()", values) is False


def test_selector_parse_errors_are_recorded_with_the_check() -> None:
    values = library.authorizer_activation(REQUEST, {}, lambda a: ("allow", "", None))
    expression = ("authorizer.group('apps').resource('deployments').fieldSelector('foo badoperator bar')"
                  ".labelSelector('apple badoperator banana').subresource('status').namespace('test')"
                  ".name('backend').check('create').allowed()")
    assert run(expression, values, "1.32") is True
    check = values.checks[0]
    assert check["fieldSelectorError"] == ("invalid selector: 'foo badoperator bar'; "
                                           "can't understand 'foo badoperator bar'")
    assert check["labelSelectorError"] == ("unable to parse requirement: found 'badoperator', expected: in, notin, "
                                           "=, ==, !=, gt, lt")


@pytest.mark.parametrize("version", ["1.31", "1.32", "1.34", "1.37"])
def test_selectors_reach_the_authorizer_as_the_default_feature_gate_has_it(version: str) -> None:
    # AuthorizeWithSelectors: alpha and off by default in 1.31 (authz.go Authorize then passes no
    # selector on), beta and on in 1.32, GA in 1.34, removed in 1.37
    seen: list[dict[str, Any]] = []
    values = library.authorizer_activation(REQUEST, {}, lambda a: (seen.append(a), ("allow", "", None))[1])
    expression = ("authorizer.group('').resource('pods').fieldSelector('spec.nodeName=n1')"
                  ".labelSelector('app bad').check('list').allowed()")
    assert run(expression, values, version) is True
    check = values.checks[0]
    if version == "1.31":
        assert "fieldSelector" not in seen[0] and "labelSelector" not in seen[0]
        assert check["fieldSelector"] == "spec.nodeName=n1" and check["labelSelector"] == "app bad"
        assert "labelSelectorError" not in check  # not parsed either
        assert check["selectorsIgnored"].startswith("not passed to the authorizer: the AuthorizeWithSelectors")
    else:
        assert seen[0]["fieldSelector"] == "spec.nodeName=n1" and seen[0]["labelSelector"] == "app bad"
        assert check["labelSelectorError"].startswith("unable to parse requirement")
        assert "selectorsIgnored" not in check


@pytest.mark.parametrize(
    ("selector", "error"),
    [
        ("spec.nodeName=n1,metadata.name!=x", None),
        ("a==b", None),
        ("a=b\\,c", None),
        ("a=b=c", "invalid field selector: unescaped character in value: 61"),
        ("a=b\\x", "invalid field selector: invalid escape sequence: \\x"),
    ],
)
def test_field_selector_parsing(selector: str, error: str | None) -> None:
    assert authz.parse_field_selector(selector) == error


@pytest.mark.parametrize(
    ("selector", "error"),
    [
        ("app=example", None),
        ("env in (prod, staging),!canary,tier", None),
        ("x notin ()", None),
        ("a,", "found '', expected: identifier after ','"),
        ("a b", "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"),
        ("a in b", "unable to parse requirement: found 'b' expected: '('"),
        ("=a", "found '=', expected: !, identifier, or 'end of string'"),
    ],
)
def test_label_selector_parsing(selector: str, error: str | None) -> None:
    assert authz.parse_label_selector(selector) == error


# ------------------------------------------------------------------------------------------------
# Through the API: RBAC documents in any stored-object pane answer the policy's checks

POLICY = """
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: admins-only-scale}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}
  validations:
  - expression: >-
      object.spec.replicas <= 3 || authorizer.group('apps').resource('deployments').subresource('scale')
      .namespace(object.metadata.namespace).check('update').allowed()
    message: "more than 3 replicas need update on deployments/scale"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: admins-only-scale}
spec: {policyName: admins-only-scale, validationActions: [Deny]}
"""
DEPLOYMENT = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: team-a}\nspec: {replicas: 5}\n"
SCALERS = """
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: scaler}
rules: [{verbs: [update, patch], apiGroups: ["*"], resources: ["*/scale"]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: team-a-scalers, namespace: team-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: scaler}
subjects: [{kind: Group, name: team-a-leads}]
"""


def evaluate(user: dict[str, Any], **panes: str) -> dict[str, Any]:
    return vap.evaluate({"policy": POLICY, "object": DEPLOYMENT, "request": json.dumps({"userInfo": user}), **panes})


@pytest.mark.parametrize("pane", ["policy", "binding", "params", "namespace"])
def test_rbac_documents_in_any_pane_answer_the_checks(pane: str) -> None:
    panes = {pane: (POLICY if pane == "policy" else "") + "\n---\n" + SCALERS}
    lead = evaluate({"username": "carol", "groups": ["team-a-leads"]}, **panes)
    assert lead["allowed"] is True, lead["status"]
    [check] = lead["policies"][0]["bindings"][0]["evaluations"][0]["authorizerChecks"]
    assert check["reason"] == ('RBAC: allowed by RoleBinding "team-a-scalers/team-a" of ClusterRole "scaler" to '
                               'Group "team-a-leads"')
    assert check["grantedBy"]["rule"] == {"verbs": ["update", "patch"], "apiGroups": ["*"], "resources": ["*/scale"]}
    other = evaluate({"username": "dave", "groups": ["system:authenticated"]}, **panes)
    assert other["allowed"] is False
    assert other["status"]["message"].endswith("denied request: more than 3 replicas need update on deployments/scale")
    [check] = other["policies"][0]["bindings"][0]["evaluations"][0]["authorizerChecks"]
    assert (check["allowed"], check["reason"], check["bindingsForUser"]) == (False, "", [])


def test_no_rbac_documents_deny_every_check_and_say_why() -> None:
    result = evaluate({"username": "root", "groups": ["system:masters"]})
    assert result["allowed"] is False
    [check] = result["policies"][0]["bindings"][0]["evaluations"][0]["authorizerChecks"]
    assert (check["decision"], check["allowed"]) == ("no opinion", False)
    assert "no Role, ClusterRole, RoleBinding or ClusterRoleBinding" in check["reason"]


def test_rejected_rbac_objects_take_no_part_and_are_reported() -> None:
    broken = SCALERS.replace("kind: Group, name: team-a-leads", "kind: Group, name: team-a-leads, apiGroup: x")
    result = evaluate({"username": "carol", "groups": ["team-a-leads"]}, params=broken)
    assert result["allowed"] is False
    [problem] = [p for p in result["problems"] if p["severity"] == "error"]
    assert problem["pane"] == "params" and problem["path"] == "subjects[0].apiGroup"
    assert [r["kind"] for r in result["rejected"]] == ["RoleBinding"]


def test_the_page_shows_each_check_with_its_grant(client) -> None:
    form = {"policy": POLICY, "object": DEPLOYMENT, "params": SCALERS,
            "request": "userInfo: {username: carol, groups: [team-a-leads]}"}
    page = client.post("/evaluate", data=form, headers={"HX-Request": "true"}).get_data(as_text=True)
    assert "data-authorizer-checks" in page and 'data-allowed="true"' in page
    assert "update deployments.apps/scale" in page
    assert "Rule 0 of ClusterRole <code>scaler</code>" in page


SELECTOR_POLICY = POLICY.replace(
    ".namespace(object.metadata.namespace).check('update').allowed()",
    ".namespace(object.metadata.namespace).labelSelector('team=a').check('update').allowed()",
)


@pytest.mark.parametrize("version", ["1.31", "1.32"])
def test_a_new_policy_may_use_selectors_where_the_default_feature_gate_allows(client, version: str) -> None:
    # a 1.31 server validates new expressions with its 1.30 environment and the AuthorizeWithSelectors gate
    # off by default; a 1.32 server with the gate on (beta)
    body = {"policy": SELECTOR_POLICY, "object": DEPLOYMENT, "params": SCALERS, "kubernetesVersion": version,
            "request": json.dumps({"userInfo": {"username": "carol", "groups": ["team-a-leads"]}})}
    result = client.post("/api/v1/evaluate", json=body).get_json()
    errors = [p for p in result["problems"] if p["severity"] == "error"]
    if version == "1.31":
        assert [e["path"] for e in errors] == ["spec.validations[0].expression"]
        assert "undeclared reference to 'labelSelector'" in errors[0]["message"]
        assert [r["name"] for r in result["rejected"]] == ["admins-only-scale"]
    else:
        assert errors == [] and result["allowed"] is True
        [check] = result["policies"][0]["bindings"][0]["evaluations"][0]["authorizerChecks"]
        assert check["labelSelector"] == "team=a" and "selectorsIgnored" not in check


@pytest.mark.parametrize(("name", "allowed"), [("admin-bypass", True), ("admin-bypass-denied", False)])
def test_gallery_shows_the_bypass_for_an_admin_and_the_denial_for_a_developer(name: str, allowed: bool) -> None:
    from app import examples
    from app.forms import payload_from

    result = vap.evaluate(payload_from(examples.get(name).form()))
    assert result["allowed"] is allowed
    [check] = result["policies"][0]["bindings"][0]["evaluations"][0]["authorizerChecks"]
    assert (check["verb"], check["resource"], check["namespace"]) == ("delete", "nodes", "")
    assert check["allowed"] is allowed
    if allowed:
        assert check["grantedBy"]["binding"] == {"kind": "ClusterRoleBinding", "name": "kubeadm:cluster-admins"}
    else:
        assert result["status"]["code"] == 403 and check["reason"] == ""


def test_an_evaluations_backend_lives_as_long_as_its_activation() -> None:
    import gc

    before = len(authz._sessions)
    values = library.authorizer_activation(REQUEST, {}, lambda a: ("allow", "", None))
    entries = dict(values)
    assert len(authz._sessions) == before + 1
    assert run("authorizer.path('/x').check('get').allowed()", entries) is True
    del values
    gc.collect()
    assert len(authz._sessions) == before  # nothing of a finished evaluation stays behind
    with pytest.raises(c.EvaluationError, match="no longer available"):
        run("authorizer.path('/x').check('get').allowed()", entries)


def test_checks_listed_per_evaluation_are_bounded() -> None:
    values = library.authorizer_activation(REQUEST, {}, lambda a: ("no opinion", "", None))
    assert run("[1, 2, 3].all(i, !authorizer.path('/x').check('get').allowed())", values) is True
    assert len(values.checks) == 3
    assert run("lists.range(150).all(i, !authorizer.path('/x').check('get').allowed())", values) is True
    assert len(values.checks) == authz.MAX_RECORDED_CHECKS + 1
    assert values.checks[-1] == {"omitted": 153 - authz.MAX_RECORDED_CHECKS}
