"""The page in a real browser: editors, the keyboard shortcut, results, markers, examples."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.browser


def editor_line(page, pane, text):
    """The rendered line of a pane's editor that contains text."""
    return page.locator(f'.CodeMirror[data-pane="{pane}"] .CodeMirror-line', has_text=text).first


def editor_text(page, pane):
    return page.locator(f"#pane-{pane}").input_value()


def forget_result(page):
    """Empty the result shown, decision included, so that a wait that follows waits for the next answer, not for
    the one the page already shows (an example's denial, say)."""
    page.locator("#result").evaluate("el => { el.removeAttribute('data-decision'); el.replaceChildren(); }")


def evaluate(page):
    """Click Evaluate, after forgetting the result shown."""
    forget_result(page)
    page.locator("#evaluate").click()


def replace_line_end(page, pane, text, remove, insert):
    """Click a line, go to its end, delete `remove` characters and type `insert`."""
    editor_line(page, pane, text).click()
    page.keyboard.press("End")
    for _ in range(remove):
        page.keyboard.press("Backspace")
    page.keyboard.type(insert)


def test_page_loads_with_seven_editors_and_a_result(page):
    page.goto("/")
    assert page.locator("#editors .CodeMirror").count() == 7
    assert page.locator(".CodeMirror-linenumber").first.is_visible()
    assert page.locator(".cm-atom").first.is_visible()  # YAML keys are highlighted
    assert page.locator("#result").get_attribute("data-decision") == "denied"
    assert page.locator('details[data-pane="request"]').get_attribute("open") is None


def test_edit_then_ctrl_enter_swaps_the_result_without_a_reload(page):
    page.goto("/")
    page.evaluate("window.notReloaded = true")
    replace_line_end(page, "object", "replicas: 5", 1, "2")
    page.keyboard.press("Control+Enter")
    banner = page.locator("#result [data-banner]")
    banner.filter(has_text="Allowed").wait_for()
    assert page.locator("#result").get_attribute("data-decision") == "allowed"
    assert page.evaluate("window.notReloaded") is True
    # The textarea (the form) holds the edit, and the shortcut added no newline.
    assert "\n  replicas: 2\n  selector:\n" in editor_text(page, "object")


def test_failing_validation_message_and_kubectl_output(page):
    page.goto("/")
    replace_line_end(page, "object", "replicas: 5", 1, "9")
    page.locator("#evaluate").focus()
    page.keyboard.press("Enter")
    message = page.locator("#result [data-validation-message]").first
    message.filter(has_text="got 9").wait_for()
    assert message.inner_text() == "replicas must be at most 3, got 9"
    banner = page.locator("#result [data-banner]").inner_text()
    assert "Denied" in banner and "422 Invalid" in banner
    kubectl = page.locator("#result [data-kubectl]").inner_text()
    assert kubectl.startswith('The deployments "web" is invalid: : ValidatingAdmissionPolicy')
    assert page.locator('#result tr.validation[data-outcome="fail"]').count() == 1


def test_problem_is_marked_in_the_editor_and_listed(page):
    page.goto("/")
    editor_line(page, "binding", "policyName").click()
    page.keyboard.press("Control+End")
    page.keyboard.type("foo: bar: baz")
    page.keyboard.press("Control+Enter")
    marker = page.locator('.CodeMirror[data-pane="binding"] .problem-marker')
    marker.wait_for()
    problem = page.locator("#result [data-problem]").first
    line = problem.get_attribute("data-line")
    assert problem.get_attribute("data-pane") == "binding"
    assert "Binding" in problem.inner_text() and f"line {line}" in problem.inner_text()
    gutter_line = marker.locator("xpath=ancestor::div[contains(@class,'CodeMirror-gutter-wrapper')]")
    assert gutter_line.locator(".CodeMirror-linenumber").inner_text() == line
    assert "mapping values are not allowed" in marker.get_attribute("title")
    # The listed problem takes the keyboard user to the line.
    problem.locator("[data-goto]").click()
    cursor_line = page.locator(".CodeMirror[data-pane=binding]").evaluate("el => el.CodeMirror.getCursor().line + 1")
    assert str(cursor_line) == line
    # Fixing the text and evaluating again removes the marker.
    page.keyboard.press("Control+End")
    page.keyboard.press("Shift+Home")
    page.keyboard.press("Backspace")
    page.keyboard.press("Control+Enter")
    page.locator("#result").filter(has_not=page.locator("[data-problem]")).wait_for()
    marker.wait_for(state="detached")


def test_example_link_opens_the_example(page):
    page.goto("/")
    page.locator("#gallery summary").click()
    page.get_by_role("link", name="Warn-only rollout").click()
    page.wait_for_url(re.compile(r"\?example=warn-rollout$"))
    assert page.locator("#example-title").inner_text() == "Warn-only rollout"
    assert "require-limits.example.com" in editor_text(page, "policy")
    assert page.locator("#result").get_attribute("data-decision") == "warned"
    assert "Warning: Validation failed" in page.locator("#result [data-kubectl]").inner_text()


def test_keyboard_user_can_leave_an_editor(page):
    page.goto("/")
    editor_line(page, "policy", "kind:").click()
    page.keyboard.press("Tab")  # indents inside the editor
    assert page.evaluate("document.activeElement.closest('.CodeMirror') !== null")
    page.keyboard.press("Escape")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.closest('.CodeMirror[data-pane=policy]') === null")


def test_dark_theme_follows_the_system(page):
    page.emulate_media(color_scheme="dark")
    page.goto("/")
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    channels = [int(c) for c in re.findall(r"\d+", background)[:3]]
    assert max(channels) < 60


def test_an_http_error_is_shown_in_the_result_region(page):
    page.expected_errors.append("status of 413")
    page.goto("/")
    page.locator(".CodeMirror[data-pane=params]").evaluate("el => el.CodeMirror.setValue('#' + 'x'.repeat(3200000))")
    page.keyboard.press("Control+Enter")
    page.locator('#result[data-decision="error"]').wait_for()
    assert "HTTP 413" in page.locator("#result [data-banner]").inner_text()
    assert "replica-limit.example.com" in editor_text(page, "policy")


def test_the_changes_from_the_pasted_object_are_shown_as_a_diff(page):
    page.goto("/?example=replica-limit")
    changes = page.locator("section.changes")
    assert not changes.locator(".diff").is_visible()  # folded until asked for
    changes.locator("summary").click()
    added = changes.locator("li.diff-add", has_text="spec.revisionHistoryLimit")
    assert added.locator(".diff-after").inner_text() == "10"
    assert added.locator(".diff-stage").inner_text() == "defaulting: SetDefaults_Deployment"
    # evaluated as pasted, nothing changes and the section is gone
    page.locator('details[data-pane="request"] summary').click()
    page.locator('.CodeMirror[data-pane="request"]').click()
    page.keyboard.press("Control+End")
    page.keyboard.type("\nasStored: false\n")
    page.keyboard.press("Control+Enter")
    page.locator("section.changes").wait_for(state="detached")
