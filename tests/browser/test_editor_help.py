"""Editors that help, in a real browser: completion with Ctrl+Space and while typing, a field's documentation on
hover, a misspelt field marked as it is typed (without evaluating), and object. completed inside an expression."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

POLICY = ".CodeMirror[data-pane=policy]"


def policy_without_validations(page):
    """The example's policy up to its validations, then an empty line at spec's indentation, the cursor on it."""
    page.goto("/")
    page.locator(POLICY).evaluate(
        "el => { var cm = el.CodeMirror; var v = cm.getValue();"
        " cm.setValue(v.slice(0, v.indexOf('  validations:')) + '  \\n'); cm.focus();"
        " cm.setCursor({line: cm.lineCount() - 2, ch: 2}); }"
    )


def hints(page):
    page.locator(".CodeMirror-hints").wait_for()
    return page.locator(".CodeMirror-hints .hint-label").all_inner_texts()


def value(page):
    return page.locator(POLICY).evaluate("el => el.CodeMirror.getValue()")


def test_ctrl_space_in_the_policy_pane_offers_validations(page, screenshot):
    policy_without_validations(page)
    page.keyboard.press("Control+Space")
    labels = hints(page)
    assert "validations" in labels and "matchConditions" in labels
    assert "failurePolicy" not in labels  # already written
    page.locator(".CodeMirror-hint", has_text="validations").hover()
    page.locator(".CodeMirror-hint", has_text="validations").click()
    assert value(page).endswith("\n  validations:\n    - \n")
    # (the editor takes the focus back from the clicked list a moment later: keys typed before go elsewhere)
    page.locator(f"{POLICY}.CodeMirror-focused").wait_for()
    # while a key is typed, the list opens by itself, and shows the field's documentation beside it
    page.keyboard.press("Escape")
    page.keyboard.press("Enter")
    page.keyboard.press("Shift+Tab")
    page.keyboard.type("matc")
    assert hints(page) == ["matchConditions"]
    page.locator(".hint-doc").wait_for()
    assert "matchConditions is a list of conditions" in page.locator(".hint-doc").inner_text()
    screenshot("completion")


def test_hover_shows_a_fields_description(page, screenshot):
    page.goto("/")
    page.locator(f"{POLICY} .CodeMirror-line span.cm-atom", has_text="failurePolicy").hover()
    doc = page.locator(".field-doc")
    doc.wait_for()
    text = doc.inner_text()
    assert "ValidatingAdmissionPolicy.spec.failurePolicy <string>" in text
    assert "failurePolicy defines how to handle failures for the admission policy" in text
    screenshot("hover")
    page.mouse.move(5, 5)
    doc.wait_for(state="detached")
    # a member inside an expression: its type and description from the kind the policy matches
    page.locator(f"{POLICY} .CodeMirror-line span.cm-cel-field", has_text="replicas").first.hover()
    doc.wait_for()
    assert "object.spec.replicas <integer>" in doc.inner_text()
    assert "Number of desired pods" in doc.inner_text()


def test_a_misspelt_field_is_marked_as_you_type_without_evaluating(page, screenshot):
    page.goto("/")
    posted = []
    page.on("request", lambda r: posted.append(r.url) if r.method == "POST" else None)
    editor = page.locator(POLICY)
    line = editor.evaluate("el => el.CodeMirror.getValue().split('\\n').indexOf('  validations:')")
    editor.evaluate(f"el => {{ el.CodeMirror.focus(); el.CodeMirror.setCursor({{line: {line}, ch: 9}}); }}")
    page.keyboard.press("Delete")  # validations -> validatons
    mark = editor.locator(".CodeMirror-lint-mark-error")
    mark.wait_for()
    assert mark.inner_text() == "validatons"
    gutter = editor.locator(".CodeMirror-lint-marker-error")
    assert gutter.count() == 1
    row = gutter.locator("xpath=ancestor::div[contains(@class,'CodeMirror-gutter-wrapper')]")
    assert row.locator(".CodeMirror-linenumber").inner_text() == str(line + 1)
    gutter.hover()
    tooltip = page.locator(".CodeMirror-lint-tooltip")
    tooltip.wait_for()
    assert 'unknown field "spec.validatons"' in tooltip.inner_text()
    page.wait_for_timeout(500)  # the tooltip fades in
    screenshot("marked")
    assert any(u.endswith("/api/v1/lint") for u in posted)
    assert not any(u.endswith("/evaluate") for u in posted)  # checked, not evaluated
    # put right, the mark goes
    page.keyboard.press("Escape")
    editor.evaluate(f"el => {{ el.CodeMirror.focus(); el.CodeMirror.setCursor({{line: {line}, ch: 9}}); }}")
    page.keyboard.type("i")
    mark.wait_for(state="detached")


def test_object_completes_inside_an_expression(page, screenshot):
    policy_without_validations(page)
    page.keyboard.type("validations:\n- expression: object.")
    assert {"metadata", "spec", "apiVersion", "kind"} <= set(hints(page))
    page.keyboard.type("spec.rep")
    page.locator(".CodeMirror-hints .hint-label", has_text="replicas").wait_for()
    assert hints(page) == ["replicas"]
    screenshot("expression")
    page.keyboard.press("Enter")
    assert value(page).endswith("  - expression: object.spec.replicas\n")
    cel = page.locator(f"{POLICY} .cm-cel-root", has_text="object")
    assert cel.count() >= 1  # CEL highlighted inside the expression field
    # in a quoted expression the closing quote typed steps over the one the editor put in (the YAML string style
    # stays under the CEL highlighting)
    page.keyboard.type('\n- expression: "object.spec.replicas <= 5"')
    page.keyboard.press("Escape")
    assert value(page).endswith('  - expression: "object.spec.replicas <= 5"\n')


def test_the_documentation_at_the_cursor_is_read_out_from_the_keyboard(page):
    page.goto("/")
    editor = page.locator(POLICY)
    line = editor.evaluate("el => el.CodeMirror.getValue().split('\\n').indexOf('  failurePolicy: Fail')")
    editor.evaluate(f"el => {{ el.CodeMirror.focus(); el.CodeMirror.setCursor({{line: {line}, ch: 4}}); }}")
    page.keyboard.press("Control+Shift+Space")
    page.locator(".field-doc").wait_for()
    announcer = page.locator("#editor-help-announcer")
    assert announcer.get_attribute("aria-live") == "polite"
    page.locator("#editor-help-announcer", has_text="failurePolicy defines").wait_for(state="attached")
    said = announcer.inner_text()
    assert said.startswith("ValidatingAdmissionPolicy.spec.failurePolicy, string: failurePolicy defines"), said
    page.keyboard.press("Escape")
    page.locator(".field-doc").wait_for(state="detached")
