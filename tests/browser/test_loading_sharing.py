"""Loading and sharing: Copy link after Share, a pane loaded from a file (button or drop), the theme switch."""

from __future__ import annotations

import re

import pytest

from .test_page import editor_text, replace_line_end

pytestmark = pytest.mark.browser

CONFIGMAP = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: replica-limit
  namespace: default
data:
  maxReplicas: "9"
"""


def test_copy_link_after_share(page, screenshot):
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.goto("/")
    replace_line_end(page, "object", "replicas: 5", 1, "3")
    page.locator("#share").click()
    page.wait_for_url(re.compile(r"/s/[A-Za-z0-9_-]+$"))
    link = page.locator("#share-link")
    assert link.input_value() == page.url
    page.locator("#copy-link").click()
    page.locator("#copy-status", has_text="Copied.").wait_for()
    assert page.evaluate("navigator.clipboard.readText()") == page.url
    screenshot("copied")


def test_a_pane_loads_from_a_file(page, tmp_path):
    path = tmp_path / "limits.yaml"
    path.write_text(CONFIGMAP)
    page.goto("/")
    page.set_input_files("#load-params", str(path))
    page.locator("#import-status", has_text="Loaded limits.yaml into the Params pane").wait_for()
    assert editor_text(page, "params") == CONFIGMAP
    assert "replica-limit.example.com" in editor_text(page, "policy")  # the other panes are unchanged
    page.keyboard.press("Control+Enter")
    page.locator('#result[data-decision="allowed"]').wait_for()


def test_a_file_dropped_on_a_pane_goes_into_that_pane(page, screenshot):
    page.goto("/")
    data = page.evaluate_handle(
        """(text) => { const dt = new DataTransfer();
             dt.items.add(new File([text], "cm.yaml", {type: "application/yaml"})); return dt; }""",
        CONFIGMAP,
    )
    target = page.locator('.CodeMirror[data-pane="params"]')
    target.dispatch_event("dragenter", {"dataTransfer": data})
    target.dispatch_event("dragover", {"dataTransfer": data})
    target.dispatch_event("drop", {"dataTransfer": data})
    page.locator("#import-status", has_text="Loaded cm.yaml into the Params pane").wait_for()
    assert editor_text(page, "params") == CONFIGMAP
    assert editor_text(page, "object").count("kind: Deployment") == 1
    # Ctrl+Z in that editor gives the previous text back
    page.locator('.CodeMirror[data-pane="params"]').evaluate("el => el.CodeMirror.undo()")
    assert 'maxReplicas: "3"' in editor_text(page, "params")
    screenshot("dropped")


def test_the_theme_switch_is_remembered(page, screenshot):
    page.emulate_media(color_scheme="light")
    page.goto("/")
    toggle = page.locator("#theme-toggle")
    assert toggle.inner_text() == "Dark theme" and toggle.get_attribute("aria-pressed") == "false"

    def background():
        value = page.evaluate("getComputedStyle(document.body).backgroundColor")
        return max(int(c) for c in re.findall(r"\d+", value)[:3])

    assert background() > 200
    toggle.click()
    assert background() < 60 and toggle.inner_text() == "Light theme"
    assert toggle.get_attribute("aria-pressed") == "true"
    page.reload()
    assert page.evaluate("document.documentElement.dataset.theme") == "dark" and background() < 60
    screenshot("dark")
    # and back to light, which outlasts a system setting of dark
    page.locator("#theme-toggle").click()
    page.emulate_media(color_scheme="dark")
    page.reload()
    assert background() > 200
