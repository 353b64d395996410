"""Under a failed validation, the values of its operands: the element an all() is false for, and its image."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser


def test_a_failed_all_shows_the_container_that_decides_it(page, screenshot):
    page.goto("/?example=image-registries")
    row = page.locator('#result tr.validation[data-outcome="fail"]').first
    operands = row.locator("[data-explanation] li")
    first = operands.nth(0).inner_text()
    assert first.startswith("c.image.startsWith('registry.example.com/') = false for object.spec.containers[1] (c = {")
    assert '"name": "shell"' in first
    # the next line, for the same element, names it without repeating its value
    assert operands.nth(1).inner_text() == 'c.image = "docker.io/library/busybox:1.36" for object.spec.containers[1]'
    # the passing validation beside it has none
    assert page.locator('#result tr.validation[data-outcome="pass"] [data-explanation]').count() == 0
    row.scroll_into_view_if_needed()
    screenshot("laptop")
