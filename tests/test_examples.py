"""The example gallery: every file loads, and the core reaches the decision each one records."""

from __future__ import annotations

import re

import pytest

from app import examples, vap
from app.forms import payload_from
from app.vap import expected_object

EXAMPLES = examples.all_examples()
# Examples the core gets wrong today, with the reason; each is a bug in the core, not in the example.
KNOWN_CORE_BUGS: dict[str, str] = {}


def _cases(*, core_bugs: bool):
    for example in EXAMPLES:
        marks = []
        if core_bugs and example.name in KNOWN_CORE_BUGS:
            marks.append(pytest.mark.xfail(reason=KNOWN_CORE_BUGS[example.name], strict=False))
        yield pytest.param(example, id=example.name, marks=marks)


def test_gallery_has_the_scenarios_the_issue_asks_for():
    names = [e.name for e in EXAMPLES]
    assert len(names) >= 15
    assert len(set(names)) == len(names)
    assert examples.default() is EXAMPLES[0]
    assert examples.get("no-such-example") is None
    # issue 27: the MutatingAdmissionPolicy scenarios, each recording what the object becomes or why it is refused
    mutating = {"sidecar-injection", "sidecar-atomic-args", "labels-from-params", "jsonpatch-escapekey",
                "mutation-then-validation"}
    assert mutating <= set(names)
    for name in mutating:
        example = examples.get(name)
        assert "kind: MutatingAdmissionPolicy\n" in example.panes["policy"]
        assert example.expect.object is not None or example.expect.message_contains, name
    assert "jsonpatch.escapeKey(" in examples.get("jsonpatch-escapekey").panes["policy"]
    assert "kind: ValidatingAdmissionPolicy\n" in examples.get("mutation-then-validation").panes["policy"]


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.name for e in EXAMPLES])
def test_example_is_complete(example):
    assert example.title and len(example.explanation.split()) >= 25
    assert re.search(r"kind: (Validating|Mutating)AdmissionPolicy\n", example.panes["policy"])
    assert example.panes["request"].strip()
    assert set(example.form()) == {*examples.PANES, "kubernetesVersion", "operation"}


@pytest.mark.parametrize("example", list(_cases(core_bugs=True)))
def test_core_reaches_the_recorded_decision(example):
    result = vap.evaluate(payload_from(example.form()))
    expect = example.expect
    errors = [p for p in result["problems"] if p["severity"] == "error"]
    assert bool(errors) == expect.problems, errors
    assert result["allowed"] is expect.allowed, result.get("status")
    assert len(result["warnings"]) == expect.warnings, result["warnings"]
    if expect.object is not None:
        assert expected_object.differences(expect.object, result["object"]) == []
    if expect.allowed:
        assert result["status"] is None
        return
    status = result["status"]
    if expect.code is not None:
        assert status["code"] == expect.code
    if expect.reason is not None:
        assert status["reason"] == expect.reason
    if expect.message_contains is not None:
        assert expect.message_contains in status["message"]


@pytest.mark.parametrize("example", list(_cases(core_bugs=False)))
def test_page_shows_what_the_api_answers(client, example):
    api = client.post("/api/v1/evaluate", json=payload_from(example.form())).get_json()
    page = client.get("/", query_string={"example": example.name}).get_data(as_text=True)
    decision = "denied" if not api["allowed"] else ("warned" if api["warnings"] else "allowed")
    assert re.search(rf'<section id="result"[^>]*data-decision="{decision}"', page)
    if not api["allowed"]:
        # a webhook's refusal has no reason
        assert f"{api['status']['code']} {api['status'].get('reason', '')}" in page
    for policy in api["policies"]:
        assert f'data-policy="{policy["name"]}"' in page


@pytest.mark.parametrize(
    "text",
    [
        "- a list",
        "title: t\nexplanation: e\npanes: {}\n",  # no expectation
        "title: t\nexplanation: e\nexpect: {allowed: yes-ish}\n",
        "title: t\nexplanation: e\nexpect: {allowed: true}\npanes: {policies: x}\n",
        "title: t\nexplanation: e\nexpect: {allowed: true}\ncolour: blue\n",
        "title: t\nexplanation: e\nexpect: {allowed: true, object: [a]}\n",
        "title: ''\nexplanation: e\nexpect: {allowed: true}\n",
    ],
)
def test_malformed_example_files_are_refused(text):
    with pytest.raises(examples.ExampleError):
        examples._parse("broken", text)


def test_request_pane_defaults_to_a_commented_template():
    example = examples._parse("tiny", "title: t\nexplanation: e\nexpect: {allowed: true}\n")
    assert example.panes["request"] == examples.DEFAULT_REQUEST
    assert example.form()["operation"] == ""
