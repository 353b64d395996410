"""Kyverno CLI tests (kyverno-test.yaml) read as suites, and suites written as Kyverno tests."""

from __future__ import annotations

import os

import pytest
import yaml

from app.vap import kyvernotest, suite
from tests.conftest import fixture_path

REPLICAS = fixture_path("kyverno", "replicas", kyvernotest.TEST_FILE)


def read(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


def imported() -> kyvernotest.Imported:
    (test,) = kyvernotest.import_tests(REPLICAS, read)
    return test


def test_results_become_cases_with_per_policy_expectations():
    test = imported()
    cases = {c["name"]: c for c in test.scenario["testCases"]}
    assert set(cases) == {"Deployment default/deploy-small", "Deployment prod/deploy-noteam",
                          "Deployment default/deploy-big", "Deployment default/deploy-big (DELETE)"}
    assert cases["Deployment default/deploy-small"]["expect"] == {
        "policies": {"max-replicas.example.com": "pass", "team-label.example.com": "skip"}}
    assert cases["Deployment prod/deploy-noteam"]["expect"]["policies"] == {
        "max-replicas.example.com": "pass", "team-label.example.com": "fail"}
    delete = cases["Deployment default/deploy-big (DELETE)"]
    assert delete["operation"] == "DELETE" and "object" not in delete and delete["oldObject"]["spec"]["replicas"] == 9


def test_values_userinfo_and_params_are_carried_over():
    test = imported()
    prod = next(c for c in test.scenario["testCases"] if c["name"] == "Deployment prod/deploy-noteam")
    # the namespaceSelector labels, and the name label every Namespace has
    assert prod["namespace"]["metadata"]["labels"] == {"env": "prod", "kubernetes.io/metadata.name": "prod"}
    assert yaml.safe_load(test.scenario["request"]) == {
        "userInfo": {"username": "alice@example.com", "groups": ["system:authenticated", "developers"]}}
    assert "name: limits" in test.scenario["params"]


def test_an_unbound_policy_gets_the_binding_kyverno_cli_assumes_and_other_policies_are_left_out():
    test = imported()
    assert "name: team-label.example.com-binding" in test.scenario["binding"]
    assert "Kyverno CLI evaluates an admission policy that no binding names" in test.scenario["binding"]
    assert any("ClusterPolicy 'require-owner' is not a ValidatingAdmissionPolicy or MutatingAdmissionPolicy" in n
               for n in test.notes)
    assert not test.errors


def test_the_imported_suite_passes():
    result = suite.run_suite(imported().scenario)
    assert result.ok, [(c.case.name, c.reasons) for c in result.cases]
    assert result.total == 4


def test_a_resource_not_in_the_files_is_an_error():
    (test,) = kyvernotest.import_tests(fixture_path("kyverno", "missing-resource", kyvernotest.TEST_FILE), read)
    assert test.errors == ["results[0]: resource 'deploy-that-is-not-there' of kind 'Deployment' is not in the "
                           "resource files (Kyverno CLI reports it as not found)"]
    assert [c["name"] for c in test.scenario["testCases"]] == ["Deployment default/deploy-small"]


@pytest.mark.parametrize(("text", "message"), [
    ("kind: Scenario\n", "not a Kyverno CLI test"),
    ("policies: [nowhere.yaml]\n", "policy file 'nowhere.yaml' cannot be read"),
    ("policies: [https://example.com/p.yaml]\n", "is remote"),
    ("policies: [../replicas/kyverno-policy.yaml]\n", "no ValidatingAdmissionPolicy"),
    ("policy: [a.yaml]\n", "unknown field 'policy'"),
    ("results: [\n", "not YAML"),
])
def test_unreadable_tests_name_the_file(tmp_path, text, message):
    path = tmp_path / "t" / kyvernotest.TEST_FILE
    path.parent.mkdir()
    path.write_text(text)
    (tmp_path / "replicas").symlink_to(os.path.dirname(REPLICAS))
    with pytest.raises(kyvernotest.KyvernoTestError) as exc:
        kyvernotest.import_tests(str(path), read)
    assert str(exc.value).startswith(str(path)) and message in str(exc.value)


def test_export_writes_a_kyverno_test_and_import_reads_it_back(tmp_path):
    exported = kyvernotest.export_test(imported().scenario, name="again")
    assert set(exported.files) == {"kyverno-test.yaml", "policies.yaml", "resources.yaml", "params.yaml",
                                   "values.yaml", "userinfo.yaml"}
    test = yaml.safe_load(exported.files["kyverno-test.yaml"])
    assert test["apiVersion"] == "cli.kyverno.io/v1alpha1" and test["kind"] == "Test"
    assert {"isValidatingAdmissionPolicy": True, "kind": "Deployment", "policy": "team-label.example.com",
            "resources": ["prod/deploy-noteam"], "result": "fail"} in test["results"]
    assert {"isValidatingAdmissionPolicy": True, "kind": "Deployment", "policy": "max-replicas.example.com",
            "resources": ["default/deploy-big"], "result": "skip", "operation": "DELETE"} in test["results"]
    values = yaml.safe_load(exported.files["values.yaml"])
    assert {"name": "prod", "labels": {"env": "prod"}} in values["namespaceSelector"]
    for name, text in exported.files.items():
        (tmp_path / name).write_text(text)
    (again,) = kyvernotest.import_tests(str(tmp_path / "kyverno-test.yaml"), read)
    result = suite.run_suite(again.scenario)
    assert result.ok and result.total == 4


def test_export_leaves_out_what_kyverno_cannot_say():
    policy = read(fixture_path("kyverno", "replicas", "policy.yaml"))
    obj = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "a", "namespace": "default"},
           "spec": {"replicas": 1}}
    changed = {**obj, "spec": {"replicas": 2}}
    cases = [
        {"name": "plain", "object": obj, "expect": {"policies": {"max-replicas.example.com": "pass"}}},
        {"name": "update with another old object", "object": changed, "oldObject": obj,
         "expect": {"policies": {"max-replicas.example.com": "pass"}}},
        {"name": "subresource", "object": obj, "request": {"subResource": "status"},
         "expect": {"policies": {"max-replicas.example.com": "pass"}}},
        {"name": "decision only, two policies", "object": obj, "expect": "allowed"},
        {"name": "same name, other content", "object": changed,
         "expect": {"policies": {"max-replicas.example.com": "pass"}}},
    ]
    exported = kyvernotest.export_test({"policy": policy, "testCases": cases})
    assert exported.cases == 1
    notes = "\n".join(exported.notes)
    assert "test case 2 (update with another old object) left out: Kyverno CLI sends the resource" in notes
    assert "test case 3 (subresource) left out: Kyverno CLI cannot set the request's subResource" in notes
    assert "test case 4 (decision only, two policies) left out: say the result per policy" in notes
    assert "test case 5 (same name, other content) left out" in notes
    assert "has no binding" in notes


def test_export_of_a_one_policy_suite_maps_the_decision():
    policy = read(fixture_path("kyverno", "replicas", "policy.yaml")).split("---")[2]
    obj = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "a", "namespace": "prod"},
           "spec": {"replicas": 1}}
    exported = kyvernotest.export_test({"policy": policy, "testCases": [
        {"object": obj, "expect": {"allowed": False, "message": "name their team"}}]})
    results = yaml.safe_load(exported.files["kyverno-test.yaml"])["results"]
    assert results == [{"isValidatingAdmissionPolicy": True, "kind": "Deployment", "policy": "team-label.example.com",
                        "resources": ["prod/a"], "result": "fail"}]
    assert any("only its per-policy results are carried over" in n for n in exported.notes)


# --- MutatingAdmissionPolicy results and their patched resources --------------------------------------

MUTATING = fixture_path("kyverno", "mutating", kyvernotest.TEST_FILE)


def mutating_files(tmp_path, **changes: str) -> str:
    """The mutating fixture copied to tmp_path, with some of its files replaced."""
    for name in ("kyverno-test.yaml", "policy.yaml", "resources.yaml", "patched.yaml"):
        (tmp_path / name).write_text(changes.get(name.replace("-", "_").removesuffix(".yaml"),
                                                 read(fixture_path("kyverno", "mutating", name))))
    return str(tmp_path / kyvernotest.TEST_FILE)


def test_patched_resources_become_expected_objects_and_the_suite_passes():
    (test,) = kyvernotest.import_tests(MUTATING, read)
    cases = {c["name"]: c for c in test.scenario["testCases"]}
    assert set(cases) == {"ConfigMap game-demo", "ConfigMap games/labelled", "Secret token"}
    assert cases["ConfigMap game-demo"]["expect"]["object"]["metadata"]["labels"] == {
        "app": "game", "lfx-mentorship": "kyverno"}
    assert cases["Secret token"]["expect"] == {"policies": {"add-label-to-configmap": "skip"}}
    # the binding Kyverno CLI assumes, in the policy's own version, without validationActions
    assert yaml.safe_load(test.scenario["binding"].split("\n", 2)[2]) == {
        "apiVersion": "admissionregistration.k8s.io/v1alpha1", "kind": "MutatingAdmissionPolicyBinding",
        "metadata": {"name": "add-label-to-configmap-binding"}, "spec": {"policyName": "add-label-to-configmap"}}
    result = suite.run_suite(test.scenario)
    assert result.ok, [(c.case.name, c.reasons) for c in result.cases]


def test_a_patched_resource_the_policy_does_not_make_fails_its_case(tmp_path):
    patched = read(fixture_path("kyverno", "mutating", "patched.yaml")).replace("lfx-mentorship: kyverno",
                                                                               "lfx-mentorship: cncf")
    (test,) = kyvernotest.import_tests(mutating_files(tmp_path, patched=patched), read)
    result = suite.run_suite(test.scenario)
    failed = [c for c in result.cases if not c.passed]
    assert [c.case.name for c in failed] == ["ConfigMap game-demo"]
    assert failed[0].reasons == ['the admitted object differs: metadata.labels.lfx-mentorship: expected "cncf", '
                                 'got "kyverno"']


def test_mutating_results_kyverno_cli_reads_otherwise_are_said(tmp_path):
    test_file = read(MUTATING).replace("resources: [token]\n  result: skip", "resources: [token]\n  result: fail")
    patched = read(fixture_path("kyverno", "mutating", "patched.yaml")).split("---")[0]
    (test,) = kyvernotest.import_tests(mutating_files(tmp_path, kyverno_test=test_file, patched=patched), read)
    assert any("results[1]: a MutatingAdmissionPolicy's result is pass, skip or error here" in n for n in test.notes)
    assert test.errors == ["results[0]: the patched resources have no ConfigMap 'labelled'"]


def test_export_keeps_mutating_policies_out_of_the_params():
    (test,) = kyvernotest.import_tests(MUTATING, read)
    validating = yaml.safe_dump_all([
        {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
         "metadata": {"name": "max-replicas.example.com"},
         "spec": {"matchConstraints": {"resourceRules": [{"apiGroups": ["apps"], "apiVersions": ["v1"],
                                                          "operations": ["CREATE"], "resources": ["deployments"]}]},
                  "validations": [{"expression": "object.spec.replicas <= 5"}]}},
        {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
         "metadata": {"name": "max-replicas"},
         "spec": {"policyName": "max-replicas.example.com", "validationActions": ["Deny"]}}])
    scenario = {**test.scenario, "policy": test.scenario["policy"] + "---\n" + validating}
    scenario["testCases"] = [*scenario["testCases"], {
        "name": "a Deployment", "object": {"apiVersion": "apps/v1", "kind": "Deployment",
                                           "metadata": {"name": "d", "namespace": "default"}, "spec": {"replicas": 1}},
        "expect": {"policies": {"max-replicas.example.com": "pass", "add-label-to-configmap": "skip"}}}]
    exported = kyvernotest.export_test(scenario)
    assert "params.yaml" not in exported.files
    assert "kind: MutatingAdmissionPolicy\n" in exported.files["policies.yaml"]
    assert exported.cases == 1
    notes = "\n".join(exported.notes)
    assert "their results are left out" in notes and "it expects only results of MutatingAdmissionPolicies" in notes
    results = yaml.safe_load(exported.files["kyverno-test.yaml"])["results"]
    assert [r["policy"] for r in results] == ["max-replicas.example.com"]
