"""Field validation on the page: a key the object gives twice fails the request as the apiserver's strict
decoding of the body does, and its line is marked."""

from __future__ import annotations

import pytest

from .test_page import evaluate

pytestmark = pytest.mark.browser

OBJECT = """apiVersion: v1
kind: Pod
metadata:
  name: web
  namespace: default
spec:
  containers:
    - name: c
      image: nginx:1.27
      image: nginx:1.28
"""


def _set_editor(page, pane: str, text: str) -> None:
    page.evaluate("([pane, text]) => document.querySelector(`.CodeMirror[data-pane=${pane}]`).CodeMirror"
                  ".setValue(text)", [pane, text])


def test_a_repeated_key_is_a_bad_request_under_strict(page, screenshot):
    page.goto("/")
    _set_editor(page, "object", OBJECT)
    evaluate(page)
    page.locator('#result[data-decision="denied"]').wait_for()
    assert page.locator("#result .status-code").inner_text() == "400 BadRequest"
    kubectl = page.locator("#result [data-kubectl]").inner_text()
    assert 'strict decoding error: yaml: unmarshal errors:' in kubectl
    assert 'line 10: key "image" already set in map' in kubectl
    screenshot("refused")
