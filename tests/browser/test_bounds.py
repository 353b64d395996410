"""Bounds in a real browser: a stopped evaluation and a rate limit show as errors, and no text is lost."""

from __future__ import annotations

import pytest

from app import create_app
from tests import hostile_inputs as hostile

from .conftest import serve

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def bounded_url(tmp_path_factory):
    """A server as in production (evaluation workers, rate limits) with small bounds."""
    app = create_app({
        "TESTING": True, "EVALUATION_ISOLATION": "process", "EVALUATION_TIMEOUT_SECONDS": 2,
        "EVALUATION_MEMORY_MB": 64, "RATE_LIMIT_ENABLED": True, "RATE_LIMIT_EVALUATE_BURST": 6,
        "RATE_LIMIT_EVALUATE_PER_MINUTE": 6, "DATA_DIR": str(tmp_path_factory.mktemp("data")), "DATABASE_URL": "",
    })
    yield from serve(app)


@pytest.fixture
def bounded_page(browser, bounded_url):
    context = browser.new_context(viewport={"width": 1440, "height": 900}, base_url=bounded_url)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.set_default_timeout(15_000)
    yield page
    context.close()
    # the only console errors allowed are the browser's notes of the 422 and 429 answers
    assert all("status of 422" in e or "status of 429" in e for e in errors), errors


def _set_editor(page, pane: str, text: str) -> None:
    page.evaluate("([pane, text]) => document.querySelector(`.CodeMirror[data-pane=${pane}]`).CodeMirror"
                  ".setValue(text)", [pane, text])


def test_a_stopped_evaluation_shows_the_limit_and_keeps_the_editors(bounded_page):
    page = bounded_page
    page.goto("/")
    page.evaluate("window.notReloaded = true")
    bomb = hostile.nested_maps()
    for pane in ("policy", "binding", "object"):
        _set_editor(page, pane, bomb[pane])
    page.keyboard.press("Control+Enter")
    result = page.locator('#result[data-decision="error"]')
    result.wait_for()
    assert "(limit: PLAYGROUND_EVALUATION_" in result.inner_text()
    assert page.evaluate("window.notReloaded") is True
    assert page.locator("#pane-policy").input_value() == bomb["policy"]
    assert page.locator("#pane-object").input_value() == bomb["object"]


def test_a_rate_limited_evaluation_says_when_to_try_again(bounded_page):
    page = bounded_page
    page.goto("/")
    text = page.locator("#pane-object").input_value()
    for _ in range(8):
        page.locator("#evaluate").click()
        if page.locator('#result[data-decision="error"]').count():
            break
        page.wait_for_timeout(100)
    result = page.locator('#result[data-decision="error"]')
    result.wait_for()
    assert "too many evaluations" in result.inner_text() and "try again in" in result.inner_text()
    assert page.locator("#pane-object").input_value() == text
