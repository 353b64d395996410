"""Unit facts of Kyverno's matching helpers and of the yaml.v3 encoding of its blocked message.

The kind, name, annotation and selector cases are the cases of kyverno/kyverno's own tests
(pkg/utils/match/*_test.go); the YAML cases follow gopkg.in/yaml.v3's encoder and emitter rules.
"""

from __future__ import annotations

import pytest

from app.vap.kyverno import autogen, goyaml, wildcard
from app.vap.kyverno.match import _check_annotations, _selector, check_kind, kind_of_entry, parse_kind_selector


@pytest.mark.parametrize(
    ("kinds", "gvk", "sub", "ephemeral", "want"),
    [
        (["*"], ("", "v1", "Deployment"), "", False, True),
        (["Pod"], ("", "v1", "Pod"), "", False, True),
        (["v1/Pod"], ("", "v1", "Pod"), "", False, True),
        (["tekton.dev/v1beta1/TaskRun"], ("tekton.dev", "v1beta1", "TaskRun"), "", False, True),
        (["tekton.dev/*/TaskRun"], ("tekton.dev", "v1alpha1", "TaskRun"), "", False, True),
        (["v1/Pod"], ("", "v1", "Pod"), "status", False, False),
        (["v1/Pod"], ("", "v1", "Pod"), "ephemeralcontainers", True, True),
        (["v1/Pod"], ("", "v1", "Pod"), "ephemeralcontainers", False, False),
        (["postgresdb"], ("acid.zalan.do", "v1", "postgresdb"), "", False, True),
        (["Postgresdb"], ("acid.zalan.do", "v1", "postgresdb"), "", False, False),
        (["networking.k8s.io/v1/NetworkPolicy/status"], ("networking.k8s.io", "v1", "NetworkPolicy"), "status", False,
         True),
        (["v1/Pod.status"], ("", "v1", "Pod"), "status", False, True),
        (["*/Pod.eviction"], ("", "v1", "Pod"), "eviction", False, True),
        (["v1alpha1/Pod.eviction"], ("", "v1", "Pod"), "eviction", False, False),
    ],
)
def test_check_kind(kinds, gvk, sub, ephemeral, want):
    assert (check_kind(kinds, *gvk, sub, ephemeral) is not None) is want


@pytest.mark.parametrize(
    ("entry", "parsed"),
    [
        ("Pod", ("*", "*", "Pod", "")),
        ("v1/Pod", ("*", "v1", "Pod", "")),
        ("*/*", ("*", "*", "*", "*")),
        ("*/scale", ("*", "*", "*", "scale")),
        ("Pod/status", ("*", "*", "Pod", "status")),
        ("Pod.status", ("*", "*", "Pod", "status")),
        ("apps/v1/Deployment", ("apps", "v1", "Deployment", "")),
        ("apps/v1/Deployment/scale", ("apps", "v1", "Deployment", "scale")),
        ("v1/Pod/exec", ("*", "v1", "Pod", "exec")),
    ],
)
def test_parse_kind_selector(entry, parsed):
    assert parse_kind_selector(entry) == parsed


def test_kind_of_entry():
    assert [kind_of_entry(k) for k in ("Pod", "v1/Pod", "apps/v1/Deployment", "Pod/status", "Pod.status")] == \
        ["Pod", "Pod", "Deployment", "Pod", "Pod"]


@pytest.mark.parametrize(
    ("pattern", "name", "want"),
    [("", "", True), ("", "foo", False), ("*", "foo", True), ("foo", "foo", True), ("bar", "foo", False),
     ("f?o", "foo", True), ("f?o", "fo", False), ("a*b", "ab", True), ("A*", "abc", False)],
)
def test_wildcard(pattern, name, want):
    assert wildcard.match(pattern, name) is want


@pytest.mark.parametrize(
    ("expected", "actual", "want"),
    [
        ({}, {}, True),
        ({"test/*": "*"}, {}, False),
        ({"test/*": "*"}, {"tes1/test": "*"}, False),
        ({"test/*": "*"}, {"test/test": "*"}, True),
        ({"test/*": "*"}, {"test/bar": "foo"}, True),
        ({"test/b*": "*"}, {"test/bar": "foo"}, True),
        ({"test/b*": "*", "test2/*": "*"}, {"test/bar": "foo"}, False),
        ({"test/b*": "*", "test2/*": "*"}, {"test/bar": "foo", "test2/123": "bar"}, True),
    ],
)
def test_annotations(expected, actual, want):
    assert _check_annotations(expected, actual) is want


@pytest.mark.parametrize(
    ("match_labels", "labels", "want"),
    [
        ({}, {}, True),
        ({}, {"foo": "bar"}, True),
        ({"test.io/*": "bar"}, {"foo": "bar"}, False),
        ({"test.io/*": "bar"}, {"test.io/scale": "foo", "test.io/functional": "bar"}, True),
        ({"test.io/*": "*"}, {"test.io/scale": "foo", "test.io/functional": "bar"}, True),
        ({"test.io/*": "a*"}, {"test.io/scale": "foo", "test.io/functional": "bar"}, False),
        ({"test.io/scale": "f??"}, {"test.io/scale": "foo", "test.io/functional": "bar"}, True),
        ({"*": "*"}, {"test.io/scale": "foo"}, True),
        ({"test.io/functional": "foo"}, {"test.io/scale": "foo", "test.io/functional": "bar"}, False),
        ({"*": "*"}, {}, False),
    ],
)
def test_selector_wildcards(match_labels, labels, want):
    ok, err = _selector({"matchLabels": match_labels}, labels)
    assert err is None and ok is want


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("label team is required", "label team is required"),
        ("failed expression: object.spec.replicas <= 5", "'failed expression: object.spec.replicas <= 5'"),
        ("it's: here", "'it''s: here'"),
        ("true", '"true"'),
        ("yes", '"yes"'),
        ("123", '"123"'),
        ("1.5", '"1.5"'),
        ("", '""'),
        ("- item", "'- item'"),
        ("a #b", "'a #b'"),
        ("a#b", "a#b"),
        ("key:value", "key:value"),
        ("*star", "'*star'"),
        ("tab\there", '"tab\\there"'),
        (" leading", "' leading'"),
    ],
)
def test_yaml_scalars(value, shown):
    assert goyaml.scalar(value, indent=4) == shown


def test_yaml_literal_and_sorting():
    text = goyaml.encode({"zeta": {"rule-10": "a", "rule-9": "line one\nline two"}, "alpha": {"r": "x\n"}})
    assert text == ("alpha:\n  r: |\n    x\n"
                    "zeta:\n  rule-9: |-\n    line one\n    line two\n  rule-10: a\n")


def _pod_policy(**match):
    expression = "object.spec.containers.size() > 0 && has(object.metadata.name)"
    rule = {"name": "r", "match": {"any": [{"resources": {"kinds": ["Pod"], **match}}]},
            "validate": {"cel": {"expressions": [{"expression": expression}]}}}
    return {"apiVersion": "kyverno.io/v1", "kind": "ClusterPolicy", "metadata": {"name": "p"},
            "spec": {"rules": [rule]}}


def test_autogen_rules_for_a_deployment():
    rules = autogen.compute_rules(_pod_policy(), "Deployment")
    assert [r["name"] for r in rules] == ["r", "autogen-r"]
    assert rules[1]["match"]["any"][0]["resources"]["kinds"] == ["apps/v1/Deployment"]
    assert rules[1]["validate"]["cel"]["expressions"][0]["expression"] == \
        "object.spec.template.spec.containers.size() > 0 && has(object.spec.template.metadata.name)"


def test_autogen_rules_for_a_cronjob_and_a_pod():
    rules = autogen.compute_rules(_pod_policy(), "CronJob")
    assert [r["name"] for r in rules] == ["r", "autogen-cronjob-r"]
    assert rules[1]["match"]["any"][0]["resources"]["kinds"] == ["batch/v1/CronJob"]
    assert rules[1]["validate"]["cel"]["expressions"][0]["expression"].startswith(
        "object.spec.jobTemplate.spec.template.spec.containers")
    assert [r["name"] for r in autogen.compute_rules(_pod_policy(), "Pod")] == ["r"]


def test_autogen_skipped_with_a_selector():
    assert [r["name"] for r in autogen.compute_rules(_pod_policy(selector={"matchLabels": {"a": "b"}}),
                                                     "Deployment")] == ["r"]
