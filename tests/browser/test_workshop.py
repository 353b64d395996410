"""Workshop and test cases in a real browser: solve an exercise by typing, run and open test cases."""

from __future__ import annotations

import pytest

from tests.browser.test_page import editor_line, editor_text

pytestmark = pytest.mark.browser


def test_solving_the_first_exercise_in_the_editor(page):
    page.goto("/workshop")
    page.get_by_role("link", name="Your first validation").click()
    summary = page.locator("#checks [data-checks-summary]")
    assert summary.inner_text().strip() == "2 of 4 checks pass"
    assert page.locator('#checks li[data-status="fail"]').count() == 2
    # Replace the placeholder expression "true" by the solution, typing it as a user does.
    editor_line(page, "policy", 'expression: "true"').click()
    page.keyboard.press("End")
    for _ in range(len('"true"')):
        page.keyboard.press("Backspace")
    page.keyboard.type('"object.spec.replicas <= 5"')
    page.keyboard.press("Control+Enter")
    summary.filter(has_text="4 of 4 checks pass").wait_for()
    assert "Solved." in summary.inner_text()
    assert page.locator('#checks li[data-status="pass"]').count() == 4
    assert '- expression: "object.spec.replicas <= 5"' in editor_text(page, "policy")
    # The starting object asks for 8 replicas: the main view now denies it.
    assert page.locator("#result").get_attribute("data-decision") == "denied"
    # The hidden checks' objects never reached the page.
    assert "check-six" not in page.content() and "check-forty" not in page.content()
    # Breaking it again is reported too.
    editor_line(page, "policy", "replicas <= 5").click()
    page.keyboard.press("End")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("Backspace")
    page.keyboard.type("1")
    page.keyboard.press("Control+Enter")
    summary.filter(has_text="2 of 4 checks pass").wait_for()
    assert page.locator("#checks li[data-status=\"fail\"] .check-name").all_inner_texts() == [
        "a Deployment with 3 replicas is admitted", "a Deployment with exactly 5 replicas is admitted"]


def test_test_cases_run_on_evaluate_and_open_in_the_main_view(page):
    page.goto("/")
    page.locator("#testcases-pane summary").click()
    page.locator("#add-case").click()
    page.locator("#add-case-status").filter(has_text="Added").wait_for()
    assert "message: replicas must be at most 3, got 5" in editor_text(page, "testCases")
    # Change the main view's object: the case keeps the one it was added with.
    editor_line(page, "object", "replicas: 5").click()
    page.keyboard.press("End")
    page.keyboard.press("Backspace")
    page.keyboard.type("2")
    page.keyboard.press("Control+Enter")
    page.locator('#result[data-decision="allowed"]').wait_for()
    matrix = page.locator("#testcases-result")
    assert matrix.locator("[data-testcases-summary]").inner_text().strip() == "1 of 1 test case pass"
    row = matrix.locator('tr[data-case="0"]')
    assert row.get_attribute("data-status") == "pass"
    # Open loads the case's object into the Object pane and evaluates it.
    row.get_by_role("button", name="Open CREATE Deployment web in the main view").click()
    page.locator('#result[data-decision="denied"]').wait_for()
    assert "  replicas: 5\n" in editor_text(page, "object")
    # A case that fails shows why.
    page.locator(".CodeMirror[data-pane=testCases]").evaluate(
        "el => { const cm = el.CodeMirror; cm.setValue(cm.getValue().replace('allowed: false', 'allowed: true')"
        ".replace(/    message: .*\\n/, '')); }")
    page.keyboard.press("Control+Enter")
    matrix.locator('tr[data-case="0"][data-status="fail"]').wait_for()
    assert "expected the request to be allowed, but it was denied" in matrix.inner_text()
