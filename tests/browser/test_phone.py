"""The page on a 390×844 phone: a compact toolbar, and the result brought into view after Evaluate."""

from __future__ import annotations

import os

import pytest

from .test_page import replace_line_end

pytestmark = pytest.mark.browser


@pytest.fixture
def phone(browser, base_url):
    context = browser.new_context(viewport={"width": 390, "height": 844}, base_url=base_url, is_mobile=True,
                                  has_touch=True, device_scale_factor=2)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.set_default_timeout(10_000)
    yield page
    context.close()
    assert not errors, errors


@pytest.fixture
def phone_screenshot(phone, request):
    """Save a screenshot of the phone's page under $SCREENSHOTS_DIR, as the screenshot fixture does."""
    directory = os.environ.get("SCREENSHOTS_DIR")

    def take(name):
        if directory:
            os.makedirs(directory, exist_ok=True)
            phone.screenshot(path=os.path.join(directory, f"{request.node.name}-{name}.png"))

    return take


def test_the_toolbar_stays_compact_on_a_phone(phone, phone_screenshot):
    screenshot = phone_screenshot
    phone.goto("/")
    toolbar = phone.locator(".toolbar")
    screenshot("top")
    box = toolbar.bounding_box()
    assert box["height"] <= 90, box
    # scrolled into the editors, the sticky toolbar still takes little of the screen
    phone.locator('.CodeMirror[data-pane="object"]').scroll_into_view_if_needed()
    box = toolbar.bounding_box()
    assert box["y"] <= 1 and box["height"] <= 90, box
    assert toolbar.locator("#evaluate").is_visible() and toolbar.locator("#share").is_visible()


def test_evaluate_brings_the_result_into_view_on_a_phone(phone, phone_screenshot):
    screenshot = phone_screenshot
    phone.goto("/")
    replace_line_end(phone, "object", "replicas: 5", 1, "2")
    phone.locator("#evaluate").click()
    phone.locator('#result[data-decision="allowed"]').wait_for()
    phone.wait_for_function("Math.abs(document.getElementById('result').getBoundingClientRect().top) < 120")
    banner = phone.locator("#result [data-banner]")
    box = banner.bounding_box()
    assert 0 <= box["y"] < 844 - box["height"], box
    screenshot("result")


def test_the_drafts_menu_fits_a_phone(phone, phone_screenshot):
    phone.goto("/")
    phone.locator("#drafts summary").click()
    body = phone.locator("#drafts .menu-body")
    box = body.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    phone.fill("#draft-name", "on the phone")
    phone.locator("#draft-save").click()
    phone.locator('#draft-list li[data-draft="on the phone"]').wait_for()
    phone_screenshot("drafts")
