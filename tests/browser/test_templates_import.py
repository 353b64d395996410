"""Templates of common objects inserted into a pane, and plain manifests imported into the panes by kind."""

from __future__ import annotations

import pytest

from .test_page import editor_text, forget_result
from .test_phone import phone, phone_screenshot  # noqa: F401 - fixtures

pytestmark = pytest.mark.browser

MANIFESTS = """\
# everything for the replica limit, as kubectl apply -f would take it
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: max-replicas
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}
  validations:
  - expression: "object.spec.replicas <= 3"
    message: at most 3 replicas
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: max-replicas
spec:
  policyName: max-replicas
  validationActions: [Deny]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: big
  namespace: default
spec:
  replicas: 9
  selector: {matchLabels: {app: big}}
  template:
    metadata: {labels: {app: big}}
    spec:
      containers: [{name: big, image: nginx}]
---
apiVersion: v1
kind: Service
metadata:
  name: big
  namespace: default
spec:
  ports: [{port: 80}]
---
apiVersion: example.com/v1
kind: Widget
metadata:
  name: w
"""


def template_button(page, pane, title):
    """The menu's button for a template (the menu opened first)."""
    menu = page.locator(f'details[data-template-pane="{pane}"]')
    if not menu.evaluate("el => el.open"):
        menu.locator("summary").click()
    return menu.get_by_role("button", name=title, exact=True)


def choose_template(page, pane, title):
    template_button(page, pane, title).click()


def test_a_template_goes_into_an_empty_pane_then_asks_before_replacing(page, screenshot):
    page.goto("/")
    # an empty pane takes the template at once
    page.locator('details[data-pane="oldObject"] > summary').click()
    assert page.locator('details[data-template-pane="oldObject"]').count() == 0  # (a pane without templates)
    page.locator('.CodeMirror[data-pane="params"]').evaluate("el => el.CodeMirror.setValue('')")
    choose_template(page, "params", "ConfigMap")
    page.locator("#import-status", has_text="Inserted the ConfigMap template into the Params pane").wait_for()
    assert "kind: ConfigMap" in editor_text(page, "params")

    # a pane with text: the dialog asks; Add puts the template after the text as another document
    before = editor_text(page, "policy")
    choose_template(page, "policy", "ValidatingWebhookConfiguration")
    dialog = page.locator("#place-dialog")
    dialog.wait_for()
    assert "already has text" in dialog.inner_text()
    screenshot("ask")
    dialog.locator("#place-add").click()
    text = editor_text(page, "policy")
    assert text.startswith(before.rstrip("\n")) and "---\napiVersion: admissionregistration.k8s.io/v1\n" \
        "kind: ValidatingWebhookConfiguration" in text

    # the Object pane holds one object: only Replace or Cancel; Cancel changes nothing, Replace then Ctrl+Z undoes
    choose_template(page, "object", "StatefulSet")
    dialog.wait_for()
    assert not page.locator("#place-add").is_visible()
    page.locator("#place-cancel").click()
    assert "kind: Deployment" in editor_text(page, "object")
    choose_template(page, "object", "StatefulSet")
    page.locator("#place-replace").click()
    assert "kind: StatefulSet" in editor_text(page, "object")
    page.locator('.CodeMirror[data-pane="object"]').evaluate("el => el.CodeMirror.undo()")
    assert "kind: Deployment" in editor_text(page, "object")
    screenshot("inserted")


def test_templates_follow_the_kubernetes_version(page, screenshot):
    page.goto("/")
    page.locator("#kubernetes-version").select_option("1.33")
    menu = page.locator('details[data-template-pane="policy"]')
    menu.locator(".template-version", has_text="Kubernetes 1.33").wait_for(state="attached")
    page.locator('.CodeMirror[data-pane="policy"]').evaluate("el => el.CodeMirror.setValue('')")
    button = template_button(page, "policy", "MutatingAdmissionPolicy")
    assert "not served by default in Kubernetes 1.33" in button.get_attribute("title")
    screenshot("menu")
    button.click()
    assert not menu.evaluate("el => el.open")
    assert "apiVersion: admissionregistration.k8s.io/v1alpha1\nkind: MutatingAdmissionPolicy" \
        in editor_text(page, "policy")
    page.locator("#import-status", has_text="is not served by default in Kubernetes 1.33").wait_for()
    page.locator("#kubernetes-version").select_option("1.31")
    menu.locator(".template-version", has_text="Kubernetes 1.31").wait_for(state="attached")
    button = template_button(page, "policy", "MutatingAdmissionPolicy")
    assert button.is_disabled()
    assert button.locator("xpath=following-sibling::span").inner_text() == "not in 1.31"
    page.keyboard.press("Escape")  # Esc closes the menu
    assert not menu.evaluate("el => el.open")


def test_a_multi_document_file_goes_into_the_panes_of_its_kinds(page, tmp_path, screenshot):
    path = tmp_path / "replicas.yaml"
    path.write_text(MANIFESTS)
    page.goto("/")
    page.set_input_files("#import-file", str(path))
    dialog = page.locator("#place-dialog")
    dialog.wait_for()
    rows = dialog.locator("tr[data-placed-pane]")
    assert [rows.nth(i).get_attribute("data-placed-pane") for i in range(rows.count())] == \
        ["policy", "binding", "object"]
    skipped = dialog.locator("[data-not-placed]")
    assert skipped.count() == 2
    assert "Service big, document 4, line 35: the Object pane takes one object" in skipped.nth(0).inner_text()
    assert "Widget w, document 5, line 43: no kind 'Widget'" in skipped.nth(1).inner_text()
    screenshot("preview")
    forget_result(page)
    dialog.locator("#place-replace").click()
    page.locator('#result[data-decision="denied"]').wait_for()
    assert editor_text(page, "policy").startswith("# everything for the replica limit")
    assert "name: max-replicas" in editor_text(page, "binding")
    assert "replicas: 9" in editor_text(page, "object") and "kind: Service" not in editor_text(page, "object")
    assert 'maxReplicas: "3"' in editor_text(page, "params")  # a pane with nothing to take is unchanged
    report = page.locator("#place-report")
    assert "Imported replicas.yaml into the panes Policy, Binding, Object" in report.inner_text()
    assert "Deployment big (document 3, line 22) → Object" in report.inner_text()
    screenshot("placed")
    # Ctrl+Z in an editor brings its text back
    page.locator('.CodeMirror[data-pane="policy"]').evaluate("el => el.CodeMirror.undo()")
    assert "replica-limit.example.com" in editor_text(page, "policy")
    # the import was evaluated as a history entry of its own: Back shows the panes as they were before it
    page.go_back()
    page.locator("#result [data-validation-message]", has_text="got 5").wait_for()
    assert "name: web" in editor_text(page, "object") and "replica-limit-default" in editor_text(page, "binding")


def test_a_file_dropped_outside_the_panes_is_sorted_with_the_pages_policy(page):
    page.goto("/")
    params = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: replica-limit\n  namespace: default\n" \
        "data:\n  maxReplicas: \"9\"\n"
    data = page.evaluate_handle(
        """(text) => { const dt = new DataTransfer();
             dt.items.add(new File([text], "limits.yaml", {type: "application/yaml"})); return dt; }""",
        params,
    )
    target = page.locator("#import-more")
    for event in ("dragenter", "dragover", "drop"):
        target.dispatch_event(event, {"dataTransfer": data})
    dialog = page.locator("#place-dialog")
    dialog.wait_for()
    # the policy in the Policy pane has paramKind ConfigMap, and its binding's paramRef names this one
    assert dialog.locator("tr[data-placed-pane]").get_attribute("data-placed-pane") == "params"
    dialog.locator("#place-replace").click()
    page.locator('#result[data-decision="allowed"]').wait_for()
    assert editor_text(page, "params") == params


def test_pasted_yaml_is_added_to_the_panes_and_errors_say_where(page):
    page.expected_errors.append("the server responded with a status of 400")  # the YAML error's answer
    page.goto("/")
    page.locator("#paste-yaml").click()
    page.locator("#paste-text").fill("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team-a\n---\nkind: [\n")
    page.locator("#paste-sort").click()
    page.locator("#import-status", has_text="Could not import the pasted YAML: document 2 cannot be read").wait_for()
    assert "kind: Deployment" in editor_text(page, "object")

    page.locator("#paste-yaml").click()
    page.locator("#paste-text").fill("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team-a\n")
    page.keyboard.press("Control+Enter")  # sorts (the page behind is not evaluated)
    page.locator("#place-add").click()
    text = editor_text(page, "namespace")
    assert text.count("kind: Namespace") == 2 and text.rstrip().endswith("name: team-a")


def test_import_on_a_phone(phone, phone_screenshot):  # noqa: F811
    phone.goto("/")
    phone.locator("#paste-yaml").click()
    phone.locator("#paste-text").fill(MANIFESTS)
    phone.locator("#paste-sort").click()
    dialog = phone.locator("#place-dialog")
    dialog.wait_for()
    box = dialog.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390
    phone_screenshot("preview")
    dialog.locator("#place-replace").click()
    phone.locator("#place-report").wait_for()
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    phone.locator("#place-report").scroll_into_view_if_needed()
    phone_screenshot("placed")
    button = template_button(phone, "object", "StatefulSet")
    body = phone.locator('details[data-template-pane="object"] .menu-body')
    box = body.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    body.scroll_into_view_if_needed()
    phone_screenshot("templates")
    button.click()
    phone.locator("#place-replace").click()
    assert "kind: StatefulSet" in phone.locator("#pane-object").input_value()
