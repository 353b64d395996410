"""Share, export and import in a real browser: links reopen the scenario, files round-trip."""

from __future__ import annotations

import re

import pytest

from .test_page import editor_text, replace_line_end

pytestmark = pytest.mark.browser

SCENARIO_FILE = """\
apiVersion: playground.admission/v1
kind: Scenario
kubernetesVersion: "1.33"
policy: |
  apiVersion: admissionregistration.k8s.io/v1
  kind: ValidatingAdmissionPolicy
  metadata:
    name: no-latest
  spec:
    failurePolicy: Fail
    matchConstraints:
      resourceRules:
      - apiGroups: [""]
        apiVersions: ["v1"]
        operations: ["CREATE"]
        resources: ["pods"]
    validations:
    - expression: "object.spec.containers.all(c, !c.image.endsWith(':latest'))"
      message: no latest tags
binding: |
  apiVersion: admissionregistration.k8s.io/v1
  kind: ValidatingAdmissionPolicyBinding
  metadata:
    name: no-latest
  spec:
    policyName: no-latest
    validationActions: [Deny]
object: |
  apiVersion: v1
  kind: Pod
  metadata:
    name: imported
    namespace: default
  spec:
    containers:
    - name: app
      image: nginx:latest
"""


def test_share_gives_a_link_that_reopens_the_scenario(page):
    page.goto("/")
    replace_line_end(page, "object", "replicas: 5", 1, "7")
    page.locator("#share").click()
    page.wait_for_url(re.compile(r"/s/[A-Za-z0-9_-]+$"))
    shared_url = page.url
    assert page.locator("#shared-title").inner_text().startswith("Shared snapshot")
    assert "replicas: 7" in editor_text(page, "object")
    assert "got 7" in page.locator("#result [data-validation-message]").first.inner_text()

    # Another visitor opening the link sees the same scenario and result.
    other = page.context.new_page()
    other.goto(shared_url)
    assert "replicas: 7" in other.locator("#pane-object").input_value()
    assert other.locator("#result").get_attribute("data-decision") == "denied"
    other.close()

    # The same scenario gives the same link; an edit gives a new one.
    page.locator("#share").click()
    page.wait_for_load_state()
    assert page.url == shared_url
    replace_line_end(page, "object", "replicas: 7", 1, "2")
    page.locator("#share").click()
    page.wait_for_url(lambda url: url != shared_url and "/s/" in url)
    assert "replicas: 2" in editor_text(page, "object")
    assert page.locator("#result").get_attribute("data-decision") == "allowed"


def test_import_from_the_file_picker_fills_the_panes_and_evaluates(page, tmp_path):
    path = tmp_path / "no-latest.yaml"
    path.write_text(SCENARIO_FILE)
    page.goto("/")
    page.set_input_files("#import-file", str(path))
    page.locator("#import-status", has_text="Imported no-latest.yaml").wait_for()
    page.locator("#result [data-validation-message]", has_text="no latest tags").wait_for()
    assert "image: nginx:latest" in editor_text(page, "object")
    assert "name: no-latest" in editor_text(page, "binding")
    assert editor_text(page, "params") == ""
    assert page.locator("#kubernetes-version").input_value() == "1.33"
    assert page.locator("#result").get_attribute("data-decision") == "denied"


def test_dropping_a_file_on_the_page_imports_it(page):
    page.goto("/")
    data = page.evaluate_handle(
        """(text) => { const dt = new DataTransfer();
             dt.items.add(new File([text], "dropped.yaml", {type: "application/yaml"})); return dt; }""",
        SCENARIO_FILE,
    )
    # Dropped on an editor, the file is imported rather than pasted into that editor.
    target = page.locator('.CodeMirror[data-pane="policy"]')
    target.dispatch_event("dragenter", {"dataTransfer": data})
    target.dispatch_event("dragover", {"dataTransfer": data})
    target.dispatch_event("drop", {"dataTransfer": data})
    page.locator("#import-status", has_text="Imported dropped.yaml").wait_for()
    page.locator("#result [data-validation-message]", has_text="no latest tags").wait_for()
    policy = editor_text(page, "policy")
    assert policy.count("kind: ValidatingAdmissionPolicy\n") == 1 and "name: no-latest" in policy


def test_a_file_that_is_not_a_scenario_is_refused_and_nothing_is_lost(page, tmp_path):
    path = tmp_path / "broken.yaml"
    path.write_text("kind: Scenario\npolicy: [unclosed\n")
    page.expected_errors.append("status of 400")
    page.goto("/")
    before = {pane: editor_text(page, pane) for pane in ("policy", "binding", "object")}
    page.set_input_files("#import-file", str(path))
    status = page.locator("#import-status", has_text="Could not import broken.yaml")
    status.wait_for()
    assert "line" in status.inner_text() and "The panes are unchanged" in status.inner_text()
    assert {pane: editor_text(page, pane) for pane in before} == before


def test_export_downloads_the_scenario_file_that_imports_back(page, tmp_path):
    page.goto("/")
    replace_line_end(page, "object", "replicas: 5", 1, "4")
    with page.expect_download() as info:
        page.locator("#export").click()
    download = info.value
    assert download.suggested_filename == "scenario.yaml"
    path = tmp_path / "exported.yaml"
    download.save_as(str(path))
    text = path.read_text()
    assert text.count("kind: Scenario") == 1 and "replicas: 4" in text

    page.goto("/?example=required-labels")
    page.set_input_files("#import-file", str(path))
    page.locator("#import-status", has_text="Imported exported.yaml").wait_for()
    page.locator("#result [data-validation-message]", has_text="got 4").wait_for()
    assert "replicas: 4" in editor_text(page, "object")
