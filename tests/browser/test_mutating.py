"""The "Mutating admission policies" section on a laptop and on a phone: a sidecar injected by an ApplyConfiguration,
the pasted object beside the admitted one, the computed patch folded, and a refused policy marked at its line."""

from __future__ import annotations

import re

import pytest

from tests import scenario_runner as runner

from .test_honest_words import set_pane
from .test_page import evaluate
from .test_phone import phone, phone_screenshot  # noqa: F401 (fixtures)

pytestmark = pytest.mark.browser

SCENARIOS = {s.name: s for s in runner.ADMISSION.scenarios if s.stem == "mutating-policies"}
SIDECAR = SCENARIOS["sidecar-injected-and-defaulted-then-seen-by-a-validating-policy"].data["input"]
REINVOKED = SCENARIOS["later-change-reinvokes-an-earlier-ifneeded-policy"].data["input"]


def paste(page, scenario, **panes):
    """Open the page, put the scenario's panes in the editors (emptying the others) and evaluate it."""
    page.goto("/")
    for pane in ("policy", "binding", "params", "object"):
        set_pane(page, pane, panes.get(pane, scenario.get(pane, "")))
    evaluate(page)
    section = page.locator("#result [data-mutating]")
    section.wait_for()
    return section


def test_the_mutations_and_the_admitted_object_on_a_laptop(page, screenshot):
    section = paste(page, SIDECAR)
    policy = section.locator('[data-mutating-policy="sidecar"]')
    mutation = policy.locator('[data-mutation="0"]')
    assert mutation.get_attribute("data-outcome") == "changed"
    assert mutation.locator("[data-patch-type]").inner_text() == "ApplyConfiguration"
    value = mutation.locator("[data-mutation-result]")
    assert not value.locator("pre").is_visible()  # folded
    first = mutation.locator("[data-mutation-changes] li").first.inner_text()
    assert "spec.initContainers" in first and "MutatingAdmissionPolicy sidecar/sidecar" in first
    # the validating policy after it saw the sidecar: the request is denied
    assert page.locator("#result").get_attribute("data-decision") == "denied"
    section.scroll_into_view_if_needed()
    screenshot("mutations")
    compare = section.locator("[data-pasted-admitted]")
    compare.locator("summary", has_text="Pasted and admitted object").click()
    row = compare.locator('tr[data-field="spec.initContainers[0].image"]')
    assert row.locator(".old-value").inner_text() == "absent"
    assert row.locator(".new-value").inner_text() == '"mesh/proxy:v1.0.0"'
    assert "MutatingAdmissionPolicy sidecar/sidecar" in row.locator("[data-stages]").inner_text()
    patch = section.locator("[data-patch]")
    assert "computed by the playground" in patch.locator("summary").inner_text()
    assert not patch.locator("[data-patch-text]").is_visible()
    patch.locator("summary").click()
    assert '"path": "/spec/initContainers"' in patch.locator("[data-patch-text]").inner_text()
    row.scroll_into_view_if_needed()
    screenshot("pasted-admitted")


def test_a_refused_policy_is_marked_at_its_line_in_the_policy_pane(page):
    policy = re.sub(r"^ *reinvocationPolicy: Never\n", "", SIDECAR["policy"], count=1, flags=re.MULTILINE)
    section = paste(page, SIDECAR, policy=policy)
    assert section.locator('[data-refused-mutating="sidecar"]').count() == 1
    problem = page.locator('#result [data-problem][data-message="spec.reinvocationPolicy: Required value"]')
    line = policy.splitlines().index("spec:", 3) + 1  # the spec of the first document: the mapping lacking it
    assert problem.get_attribute("data-pane") == "policy"
    assert problem.get_attribute("data-line") == str(line)
    # (the editor marks the line once the result is in: waited for, not read at once)
    page.wait_for_selector('.CodeMirror[data-pane="policy"] .problem-marker', state="attached", timeout=5000)
    assert page.locator('.CodeMirror[data-pane="policy"] .problem-marker').count() >= 1


def test_rounds_on_a_phone(phone, phone_screenshot):  # noqa: F811
    section = paste(phone, REINVOKED)
    first = section.locator('[data-mutating-policy="a-first"]')
    assert first.locator("[data-round-tag]").all_inner_texts() == ["round 1", "round 2: reinvoked"]
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    first.scroll_into_view_if_needed()
    phone_screenshot("rounds")
    compare = section.locator("[data-pasted-admitted]")
    compare.locator("summary", has_text="Pasted and admitted object").click()
    row = compare.locator('tr[data-field="metadata.labels.copied"]')
    old_box = row.locator(".old-value").bounding_box()
    new_box = row.locator(".new-value").bounding_box()
    assert new_box["y"] >= old_box["y"] + old_box["height"] - 1  # stacked, not beside
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    row.scroll_into_view_if_needed()
    phone_screenshot("pasted-admitted")
