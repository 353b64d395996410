"""The kind's own validation on the page: a custom resource its CRD's rule refuses is denied with the 422."""

from __future__ import annotations

import pytest

from .test_page import evaluate

pytestmark = pytest.mark.browser

CRD = """apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: crontabs.stable.example.com}
spec:
  group: stable.example.com
  scope: Namespaced
  names: {plural: crontabs, singular: crontab, kind: CronTab}
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              x-kubernetes-validations:
                - rule: "self.minReplicas <= self.replicas"
                  message: "replicas should be greater than or equal to minReplicas."
              properties:
                replicas: {type: integer}
                minReplicas: {type: integer}
"""

OBJECT = """apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: my-cron, namespace: default}
spec: {replicas: 1, minReplicas: 3}
"""


def _set_editor(page, pane: str, text: str) -> None:
    page.evaluate("([pane, text]) => document.querySelector(`.CodeMirror[data-pane=${pane}]`).CodeMirror"
                  ".setValue(text)", [pane, text])


def test_a_rule_of_the_crd_denies_with_the_apiservers_422(page, screenshot):
    page.goto("/")
    _set_editor(page, "policy", CRD)
    _set_editor(page, "binding", "")
    _set_editor(page, "object", OBJECT)
    evaluate(page)
    page.locator('#result[data-decision="denied"]').wait_for()
    assert page.locator("#result .status-code").inner_text() == "422 Invalid"
    kubectl = page.locator("#result [data-kubectl]").inner_text()
    assert kubectl == ('The CronTab "my-cron" is invalid: spec: Invalid value: "object": '
                       "replicas should be greater than or equal to minReplicas.")
    screenshot("denied")
