"""Type-checking warnings in a real browser: marked in the policy editor and shown beside the expression."""

from __future__ import annotations

import os

import pytest

pytestmark = pytest.mark.browser


def test_type_warning_is_marked_at_the_expression(page):
    page.goto("/")
    policy = page.locator(".CodeMirror[data-pane=policy]")
    policy.evaluate(
        "el => el.CodeMirror.setValue(el.CodeMirror.getValue().replace('object.spec.replicas <=', "
        "'object.spec.replica <='))"
    )
    policy.click()
    page.keyboard.press("Control+Enter")
    marker = page.locator('.CodeMirror[data-pane="policy"] .problem-marker.problem-warning')
    marker.wait_for()
    assert "undefined field 'replica'" in marker.get_attribute("title")
    problem = page.locator('#result [data-problem][data-severity="warning"][data-pane="policy"]').first
    gutter_line = marker.locator("xpath=ancestor::div[contains(@class,'CodeMirror-gutter-wrapper')]")
    assert gutter_line.locator(".CodeMirror-linenumber").inner_text() == problem.get_attribute("data-line")
    block = page.locator("#result [data-type-checking]")
    assert block.get_attribute("data-warnings") == "1"
    assert "apps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replica'" in block.inner_text()
    inline = page.locator("#result [data-type-warning-inline]").first
    assert inline.is_visible()
    if os.environ.get("PLAYGROUND_SCREENSHOTS"):
        page.locator("#result").screenshot(path=os.path.join(os.environ["PLAYGROUND_SCREENSHOTS"], "typecheck.png"))
