"""PodSecurity on the page: a Pod in a Namespace labelled to enforce restricted is refused with the 403 kubectl
prints, and the enforce-policy audit annotation is shown."""

from __future__ import annotations

import pytest

from .test_page import evaluate

pytestmark = pytest.mark.browser

NAMESPACE = """apiVersion: v1
kind: Namespace
metadata:
  name: demo
  labels: {pod-security.kubernetes.io/enforce: restricted}
"""

POD = """apiVersion: v1
kind: Pod
metadata: {name: web, namespace: demo}
spec:
  securityContext: {runAsNonRoot: true, seccompProfile: {type: RuntimeDefault}}
  containers:
    - name: app
      image: nginx
      securityContext: {allowPrivilegeEscalation: false}
"""


def _set_editor(page, pane: str, text: str) -> None:
    page.evaluate("([pane, text]) => document.querySelector(`.CodeMirror[data-pane=${pane}]`).CodeMirror"
                  ".setValue(text)", [pane, text])


def test_a_pod_failing_the_enforced_level_is_refused_with_the_403(page, screenshot):
    page.goto("/")
    _set_editor(page, "policy", "")
    _set_editor(page, "binding", "")
    _set_editor(page, "namespace", NAMESPACE)
    _set_editor(page, "object", POD)
    evaluate(page)
    page.locator('#result[data-decision="denied"]').wait_for()
    assert page.locator("#result .status-code").inner_text() == "403 Forbidden"
    kubectl = page.locator("#result [data-kubectl]").inner_text()
    assert kubectl == ('Error from server (Forbidden): pods "web" is forbidden: violates PodSecurity '
                       '"restricted:latest": unrestricted capabilities (container "app" must set '
                       'securityContext.capabilities.drop=["ALL"])')
    audit = page.locator("#result section.audit").inner_text()
    assert "pod-security.kubernetes.io/enforce-policy" in audit and "restricted:latest" in audit
    screenshot("refused")
