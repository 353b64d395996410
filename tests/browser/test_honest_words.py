"""Honest words: why a policy did nothing, a banner for refused configuration, configuration that does
nothing, YAML errors at the quote that caused them, test case names and unreadable test cases."""

from __future__ import annotations

import pytest

from .test_page import editor_line, editor_text, evaluate

pytestmark = pytest.mark.browser


def set_pane(page, pane, text):
    page.locator(f'.CodeMirror[data-pane="{pane}"]').evaluate("(el, text) => el.CodeMirror.setValue(text)", text)


def test_a_misspelt_policy_name_is_explained_and_listed(page, screenshot):
    page.goto("/")
    binding = editor_text(page, "binding").replace("policyName: replica-limit.example.com",
                                                   "policyName: replica-limt.example.com")
    set_pane(page, "binding", binding)
    evaluate(page)
    page.locator("#result [data-diagnostics]").wait_for()
    reason = page.locator('#result section.policy[data-policy="replica-limit.example.com"] [data-reason]')
    assert reason.inner_text() == ("No binding names this policy, so it is never evaluated. Binding "
                                   "'replica-limit-default' names 'replica-limt.example.com' instead: a misspelling?")
    missing = page.locator('#result section.policy[data-policy="replica-limt.example.com"] [data-reason]')
    assert missing.inner_text() == ("Binding 'replica-limit-default' names this policy, but there is no policy of "
                                    "that name in the panes: the binding is ignored.")
    diagnostics = page.locator("#result [data-diagnostic]").all_inner_texts()
    assert "policy 'replica-limit.example.com' has no binding: it is never evaluated" in diagnostics
    assert any("names policy 'replica-limt.example.com', which does not exist" in d for d in diagnostics)
    banner = page.locator("#result [data-banner]").inner_text()
    assert "Allowed" in banner and "2 diagnostics below" in banner
    assert "No binding refers" not in page.locator("#result").inner_text()
    screenshot("misspelt")


def test_a_refused_policy_has_a_banner_of_its_own(page, screenshot):
    page.goto("/")
    set_pane(page, "policy", editor_text(page, "policy").replace("failurePolicy: Fail", "failurePolicy: Bogus"))
    evaluate(page)
    banner = page.locator("#result [data-banner][data-refused]")
    banner.wait_for()
    assert "banner-refused" in banner.get_attribute("class")
    assert banner.locator(".verdict").inner_text() == "Not evaluated: 1 policy would be refused"
    reason = page.locator("#result section.policy [data-reason]").inner_text()
    assert reason.startswith("Refused by API validation")
    screenshot("refused")


def test_a_refused_binding_is_named_in_the_policy_s_reason(page):
    page.goto("/")
    set_pane(page, "binding", editor_text(page, "binding").replace("[Deny]", "[Nope]"))
    evaluate(page)
    page.locator("#result [data-banner][data-refused]").wait_for()
    assert "1 binding would be refused" in page.locator("#result [data-banner]").inner_text()
    reason = page.locator("#result section.policy [data-reason]").inner_text()
    assert "Binding 'replica-limit-default' names it but would be refused by API validation." in reason


def test_inert_configuration_and_an_update_without_its_old_object_are_diagnosed(page):
    page.goto("/")
    page.select_option("#operation", "UPDATE")
    evaluate(page)
    page.locator("#result [data-diagnostic]", has_text="UPDATE without an old object").wait_for()
    page.select_option("#operation", "")
    set_pane(page, "params", "")
    evaluate(page)
    page.locator("#result [data-diagnostic]", has_text="its paramRef finds no params").wait_for()


def test_an_unclosed_quote_is_marked_at_the_quote(page, screenshot):
    page.goto("/")
    lines = editor_text(page, "policy").split("\n")
    assert lines[13].strip() == 'operations: ["CREATE", "UPDATE"]'
    lines[13] = lines[13].replace('"UPDATE"]', '"UPDATE]')
    set_pane(page, "policy", "\n".join(lines))
    evaluate(page)
    problem = page.locator('#result [data-problem][data-pane="policy"]').first
    problem.wait_for()
    assert problem.get_attribute("data-line") == "14" and problem.get_attribute("data-column") == "30"
    assert "line 14:30" in problem.locator("[data-goto]").inner_text()
    banner = page.locator("#result [data-banner][data-unread]")
    assert banner.locator(".verdict").inner_text() == "Not evaluated: the Policy pane could not be read"
    assert "No ValidatingAdmissionPolicy could be read from the panes." in page.locator("#result").inner_text()
    assert "the quote \" opened at line 14, column 30 is not closed on its line" in problem.inner_text()
    marker = page.locator('.CodeMirror[data-pane="policy"] .problem-marker')
    gutter = marker.locator("xpath=ancestor::div[contains(@class,'CodeMirror-gutter-wrapper')]")
    assert gutter.locator(".CodeMirror-linenumber").inner_text() == "14"
    assert editor_line(page, "policy", "UPDATE]").locator(".problem-text").inner_text().startswith('"UPDATE]')
    screenshot("quote")


def test_added_test_cases_are_named_after_their_operation_and_object(page):
    page.goto("/")
    page.locator('details[data-pane="testCases"] summary').click()
    add = page.locator("#add-case")
    add.click()
    page.locator("#add-case-status", has_text="Added").wait_for()
    page.locator("#add-case-status").evaluate("el => el.textContent = ''")
    add.click()
    page.locator("#add-case-status", has_text="Added").wait_for()
    names = [line for line in editor_text(page, "testCases").split("\n") if line.startswith("- name:")]
    assert names == ["- name: CREATE Deployment web", "- name: CREATE Deployment web (2)"]
    evaluate(page)
    rows = page.locator("#testcases-result tbody th[scope=row]")
    rows.first.wait_for()
    assert rows.all_inner_texts() == ["CREATE Deployment web", "CREATE Deployment web (2)"]


def test_a_yaml_error_in_the_test_cases_is_reported_as_such(page):
    page.goto("/")
    set_pane(page, "testCases", "- name: broken\n  object: [unclosed\n")
    evaluate(page)
    summary = page.locator("#testcases-result [data-testcases-summary]")
    summary.wait_for()
    assert summary.inner_text().startswith("The test cases could not be read: 1 problem in the Test cases pane")
    assert "0 of 0" not in summary.inner_text()
