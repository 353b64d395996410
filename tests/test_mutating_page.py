"""The page's "Mutating admission policies" section (templates/_mutating.html, app/mutating_page.py): each policy,
binding, param and round with its mutations and the changes they made, why a policy did nothing, the pasted object
beside the admitted one, and the JSON patch labelled as the playground's own.

The scenarios are those of tests/admission_scenarios/mutating-policies.yaml, posted as the page's form."""

from __future__ import annotations

import html
import re

import pytest

from app import mutating_page
from tests import scenario_runner as runner

SCENARIOS = {s.name: s for s in runner.ADMISSION.scenarios if s.stem == "mutating-policies"}


def _page(client, name: str, **panes: str) -> str:
    form = {**runner.expand(SCENARIOS[name].data), **panes}
    response = client.post("/evaluate", data=form, headers={"HX-Request": "true"})
    return response.get_data(as_text=True)


def _section(page: str, attribute: str, value: str) -> str:
    """The HTML of the element carrying ``attribute="value"``, up to the next one of its kind."""
    start = page.index(f'{attribute}="{value}"')
    following = page.find(f"{attribute}=", start + len(attribute))
    return page[start:following if following > 0 else len(page)]


def test_a_jsonpatch_mutation_shows_its_value_its_change_and_the_patch(module_client) -> None:
    page = _page(module_client, "jsonpatch-with-escapekey-feeds-a-validating-policy")
    assert "Mutating admission policies" in page
    policy = _section(page, "data-mutating-policy", "add-label")
    assert 'data-patch-type>JSONPatch<' in policy
    assert "jsonpatch.escapeKey(&#34;example.com/team&#34;)" in policy  # the expression as written
    assert "/metadata/labels/example.com~1team" in policy  # its value, folded
    assert re.search(r'<details class="mutation-result" data-mutation-result>', policy)
    change = _section(policy, "data-change-path", "metadata.labels")
    assert '{"example.com/team": "web"}' in html.unescape(change)
    assert "MutatingAdmissionPolicy add-label/add-label" in change
    assert "Changed the object: <code>add-label/add-label</code>" in page
    # the patch, folded and said to be the playground's, not the apiserver's
    patch = page[page.index("data-patch>"):]
    assert "computed by the playground" in patch
    assert "The apiserver emits no patch" in patch
    assert '&#34;path&#34;: &#34;/metadata/labels&#34;' in patch


def test_pasted_and_admitted_fields_name_the_stage_that_made_them(module_client) -> None:
    """The sidecar comes from the policy; its imagePullPolicy from the defaulting that followed the mutation."""
    page = _page(module_client, "sidecar-injected-and-defaulted-then-seen-by-a-validating-policy")
    table = page[page.index("data-pasted-admitted"):page.index("data-patch>")]
    name = _section(table, "data-field", "spec.initContainers[0].name")
    assert "MutatingAdmissionPolicy sidecar/sidecar" in name and "&#34;mesh-proxy&#34;" in name
    pull = _section(table, "data-field", "spec.initContainers[0].imagePullPolicy")
    assert "defaulting: SetDefaults_Container" in pull and "MutatingAdmissionPolicy" not in pull
    assert '<td class="old-value" data-label="Pasted"><span class="muted">absent</span>' in pull
    same = _section(table, "data-field", "spec.containers[0].name")
    assert "old-new-same-row" in page[page.rindex("<tr", 0, page.index('data-field="spec.containers[0].name"')):]
    assert "&#34;web&#34;" in same
    # denied by the validating policy after it: nothing is stored, and the page says so
    assert "the request is denied: nothing is stored" in table


def test_the_second_round_is_shown_for_the_reinvoked_policy_only(module_client) -> None:
    page = _page(module_client, "later-change-reinvokes-an-earlier-ifneeded-policy")
    first = _section(page, "data-mutating-policy", "a-first")
    second = _section(page, "data-mutating-policy", "z-second")
    assert re.findall(r'data-round="(\d)"', first) == ["1", "2"]
    assert "round 2: reinvoked" in first
    assert re.findall(r'data-round="(\d)"', second) == ["1"]
    assert "ran a second time (reinvocation)" in page


@pytest.mark.parametrize(("name", "error_class"), [
    ("runtime-error-under-fail-denies", "data-policy-error>policy &#39;broken&#39; with binding &#39;broken&#39; "
                                        "denied request: expression"),
    ("runtime-error-under-ignore-is-dropped", "data-policy-error>ignored (failurePolicy Ignore): policy"),
])
def test_a_failed_mutation_shows_its_error_and_what_failurepolicy_made_of_it(module_client, name, error_class):
    page = _page(module_client, name)
    mutation = _section(page, "data-mutation", "0")
    assert 'data-outcome="error"' in mutation
    assert "resulted in error: no such key: missing" in mutation
    assert error_class in page
    assert "None of them changed the object." in page


def test_a_failed_test_operation_is_a_no_op_with_its_reason(module_client) -> None:
    page = _page(module_client, "failed-test-operation-leaves-the-object-unchanged")
    mutation = _section(page, "data-mutation", "0")
    assert 'data-outcome="test failed"' in mutation
    assert "A test operation failed" in mutation
    assert "data-mutation-changes" not in mutation


def test_skipped_and_refused_policies_say_why(module_client) -> None:
    """A MAP without a binding says so; one the apiserver would refuse is listed, its problems at their lines."""
    policy = SCENARIOS["failed-test-operation-leaves-the-object-unchanged"].data["input"]["policy"]
    policy += """---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: lonely}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
  reinvocationPolicy: Never
  mutations: [{patchType: JSONPatch, jsonPatch: {expression: '[]'}}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: refused}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
  mutations: [{patchType: JSONPatch, jsonPatch: {expression: '[]'}}]
"""
    page = _page(module_client, "failed-test-operation-leaves-the-object-unchanged", policy=policy)
    lonely = _section(page, "data-mutating-policy", "lonely")
    assert "No binding names this policy, so it is never evaluated" in lonely
    assert "<li data-diagnostic>MutatingAdmissionPolicy &#39;lonely&#39; has no binding: it is never evaluated</li>" \
        in page  # listed with the other diagnostics, counted in the banner
    assert 'data-refused-mutating="refused"' in page
    spec = policy.index("spec:", policy.index("{name: refused}"))  # a missing field: at the mapping that lacks it
    line = policy.count("\n", 0, spec) + 1
    assert re.search(rf'data-pane="policy"\s+data-line="{line}" data-column="1"\s+data-severity="error" '
                     r'data-message="spec.reinvocationPolicy: Required value"', page)


def test_no_section_without_mutating_policies(module_client) -> None:
    page = module_client.get("/").get_data(as_text=True)
    assert "data-mutating" not in page


@pytest.mark.parametrize(("response", "expected"), [
    pytest.param(  # a value the built-in stages replaced: pasted from the first change's "before"
        {"object": {"spec": {"replicas": 3}}, "patch": [{"op": "replace", "path": "/spec/replicas", "value": 3}],
         "changes": [{"stage": "one", "path": "spec.replicas", "op": "replace", "before": 1, "after": 2},
                     {"stage": "two", "path": "spec.replicas", "op": "replace", "before": 2, "after": 3}]},
        [{"op": "replace", "path": "spec.replicas", "before": "1", "after": "3", "beforeKnown": True,
          "stages": ["one", "two"]}],
        id="replaced-twice"),
    pytest.param(  # a field removed inside a mapping that a stage replaced whole
        {"object": {"spec": {}}, "patch": [{"op": "remove", "path": "/spec/x"}],
         "changes": [{"stage": "s", "path": "spec", "op": "replace", "before": {"x": "a"}, "after": {}}]},
        [{"op": "remove", "path": "spec.x", "before": '"a"', "after": None, "beforeKnown": True, "stages": ["s"]}],
        id="removed-inside-a-replaced-mapping"),
    pytest.param(  # list indexes as numbers, keys with a slash unescaped; no change recorded the old value
        {"object": {"c": [{"k/x": 2}]}, "patch": [{"op": "replace", "path": "/c/0/k~1x", "value": 2}], "changes": []},
        [{"op": "replace", "path": "c[0].k/x", "before": None, "after": "2", "beforeKnown": False, "stages": []}],
        id="pointer-escapes"),
])
def test_pasted_and_admitted_rows(response, expected) -> None:
    assert mutating_page.pasted_and_admitted(response)["changed"] == expected


def test_each_mutation_folds_the_object_after_it(module_client) -> None:
    page = _page(module_client, "sidecar-injected-and-defaulted-then-seen-by-a-validating-policy")
    mutation = _section(page, "data-mutation", "0")
    after = mutation[mutation.index("data-mutation-object"):]
    assert "The object after it" in after
    assert "&#34;imagePullPolicy&#34;: &#34;IfNotPresent&#34;" in after  # with the defaulting that followed it


def test_a_binding_whose_match_resources_leave_the_request_out_says_so(module_client) -> None:
    policy = SCENARIOS["failed-test-operation-leaves-the-object-unchanged"].data["input"]["policy"].replace(
        "spec: {policyName: guarded}",
        "spec: {policyName: guarded, matchResources: {objectSelector: {matchLabels: {inject: 'yes'}}}}")
    page = _page(module_client, "failed-test-operation-leaves-the-object-unchanged", policy=policy)
    binding = _section(page, "data-binding", "guarded")
    assert 'data-matched="false"' in binding
    assert re.search(r'data-reason>The request is not in the binding&#39;s matchResources</p>', binding)
    assert binding.count("not in the binding&#39;s matchResources") == 1  # the reason, not the explanation again
    assert "data-round" not in binding
