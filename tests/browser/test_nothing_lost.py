"""Nothing lost: the panes kept per tab as typed, evaluations as history entries, named drafts, and a
gallery example that asks before it replaces edits."""

from __future__ import annotations

import re

import pytest

from .test_page import editor_text, replace_line_end

pytestmark = pytest.mark.browser


@pytest.fixture(autouse=True)
def settled(page):
    """End each test with no evaluation in flight: a reload or Back evaluates the panes again, and an answer cut
    off by closing the page should not overlap the next test's first evaluation."""
    yield
    if page.url.startswith("http"):
        page.wait_for_function("() => !document.querySelector('.htmx-request')")


def wait_kept(page):
    """Let the debounced save of what was typed run."""
    page.wait_for_timeout(400)


def test_the_panes_and_selectors_are_kept_as_typed_and_restored_on_reload(page, screenshot):
    page.goto("/?example=replica-limit")
    assert page.title().startswith("Replica limit")
    replace_line_end(page, "object", "replicas: 5", 1, "8")
    page.select_option("#operation", "UPDATE")
    page.locator('details[data-pane="testCases"] summary').click()
    page.locator('.CodeMirror[data-pane="testCases"]').click()
    page.keyboard.type("- name: mine")
    wait_kept(page)
    # the example's title and introduction are gone once its panes are edited
    assert page.locator("#example-intro").is_hidden()
    assert page.title() == "Admission Playground"
    page.reload()
    assert "replicas: 8" in editor_text(page, "object")
    assert page.locator("#operation").input_value() == "UPDATE"
    assert editor_text(page, "testCases").startswith("- name: mine")
    assert page.locator("#example-intro").is_hidden()
    screenshot("after-reload")


def test_each_evaluation_is_a_history_entry_for_back_and_forward(page, screenshot):
    page.goto("/")
    url = page.url
    message = page.locator("#result [data-validation-message]").first
    assert message.inner_text().endswith("got 5")
    replace_line_end(page, "object", "replicas: 5", 1, "7")
    page.keyboard.press("Control+Enter")
    message.filter(has_text="got 7").wait_for()
    replace_line_end(page, "object", "replicas: 7", 1, "2")
    page.keyboard.press("Control+Enter")
    page.locator('#result[data-decision="allowed"]').wait_for()
    assert page.url == url

    # a reload shows the last evaluation, panes and result
    page.reload()
    assert "replicas: 2" in editor_text(page, "object")
    page.locator('#result[data-decision="allowed"]').wait_for()

    page.go_back()
    page.locator("#result [data-validation-message]", has_text="got 7").wait_for()
    assert "replicas: 7" in editor_text(page, "object")
    screenshot("back-once")
    page.go_back()
    page.locator("#result [data-validation-message]", has_text="got 5").wait_for()
    assert "replicas: 5" in editor_text(page, "object")
    page.go_forward()
    page.locator("#result [data-validation-message]", has_text="got 7").wait_for()
    assert "replicas: 7" in editor_text(page, "object")
    # the markers of a restored result are shown too: Forward to a result with a problem
    page.go_forward()
    page.locator('#result[data-decision="allowed"]').wait_for()
    assert "replicas: 2" in editor_text(page, "object")


def test_named_drafts_are_saved_opened_exported_and_deleted(page, tmp_path, screenshot):
    page.goto("/")
    replace_line_end(page, "object", "replicas: 5", 1, "6")
    drafts = page.locator("#drafts")
    drafts.locator("summary").click()
    page.fill("#draft-name", "six replicas")
    page.keyboard.press("Enter")  # saves the draft rather than submitting the form
    entry = page.locator('#draft-list li[data-draft="six replicas"]')
    entry.wait_for()
    screenshot("saved")

    # another tab of the same browser sees the draft; a reload keeps it too
    other = page.context.new_page()
    other.goto("/?example=required-labels")
    other.locator("#drafts summary").click()
    other.locator('#draft-list li[data-draft="six replicas"] [data-draft-action="open"]').click()
    other.locator("#result [data-validation-message]", has_text="got 6").wait_for()
    assert "replicas: 6" in other.locator("#pane-object").input_value()
    other.close()

    with page.expect_download() as info:
        entry.locator('[data-draft-action="export"]').click()
    download = info.value
    assert download.suggested_filename == "six-replicas.yaml"
    path = tmp_path / "draft.yaml"
    download.save_as(str(path))
    assert "kind: Scenario" in path.read_text() and "replicas: 6" in path.read_text()

    page.once("dialog", lambda dialog: dialog.accept())
    entry.locator('[data-draft-action="delete"]').click()
    entry.wait_for(state="detached")
    page.reload()
    page.locator("#drafts summary").click()
    assert page.locator('#draft-list li[data-draft="six replicas"]').count() == 0


def test_a_gallery_example_asks_before_it_replaces_edits(page, screenshot):
    page.goto("/")
    page.locator("#gallery summary").click()
    replace_line_end(page, "object", "replicas: 5", 1, "9")
    wait_kept(page)
    page.get_by_role("link", name="Warn-only rollout").click()
    dialog = page.locator("#leave-dialog")
    dialog.wait_for()
    screenshot("asked")
    page.locator("#leave-cancel").click()
    assert dialog.is_hidden() and "replicas: 9" in editor_text(page, "object")
    assert page.url.endswith("/")

    page.get_by_role("link", name="Warn-only rollout").click()
    page.locator("#leave-save").click()
    page.wait_for_url(re.compile(r"\?example=warn-rollout$"))
    page.locator("#drafts summary").click()
    saved = page.locator("#draft-list li", has_text="Edits of")
    assert saved.count() == 1
    # and Back brings the edits back in the tab as well
    page.go_back()
    page.wait_for_url(re.compile(r"/$"))
    page.locator("#pane-object").wait_for(state="attached")
    page.wait_for_function("document.getElementById('pane-object').value.includes('replicas: 9')")


def test_unedited_pages_open_examples_without_asking(page):
    page.goto("/")
    page.locator("#gallery summary").click()
    page.get_by_role("link", name="Warn-only rollout").click()
    page.wait_for_url(re.compile(r"\?example=warn-rollout$"))
    assert page.locator("#example-intro").is_visible()


def test_back_in_a_workshop_exercise_brings_back_its_checks(page):
    page.goto("/workshop")
    page.get_by_role("link", name="Your first validation").click()
    summary = page.locator("#checks [data-checks-summary]")
    assert summary.inner_text().strip() == "2 of 4 checks pass"
    expression = page.locator('.CodeMirror[data-pane="policy"]')
    text = editor_text(page, "policy").replace('expression: "true"', 'expression: "object.spec.replicas <= 5"')
    expression.evaluate("(el, text) => el.CodeMirror.setValue(text)", text)
    page.keyboard.press("Control+Enter")
    summary.filter(has_text="4 of 4 checks pass").wait_for()
    page.go_back()
    summary.filter(has_text="2 of 4 checks pass").wait_for()
    assert 'expression: "true"' in editor_text(page, "policy")
    assert page.locator("#exercise-title").is_visible()  # an exercise's task stays while it is edited
    page.go_forward()
    summary.filter(has_text="4 of 4 checks pass").wait_for()


def test_the_drafts_menu_closes_with_escape_and_a_click_elsewhere(page):
    page.goto("/")
    menu = page.locator("#drafts")
    menu.locator("summary").click()
    page.locator("#draft-name").focus()
    page.keyboard.press("Escape")
    assert menu.get_attribute("open") is None
    assert page.evaluate("document.activeElement === document.querySelector('#drafts summary')")
    menu.locator("summary").click()
    page.locator("#result h2").click()
    assert menu.get_attribute("open") is None
