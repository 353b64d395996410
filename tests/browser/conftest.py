"""One live server and one headless Debian Chromium for the whole browser-test session."""

from __future__ import annotations

import os
import threading

import pytest
from werkzeug.serving import make_server

from app import create_app

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]


def pytest_collection_modifyitems(items):
    here = os.path.dirname(__file__)
    for item in items:
        if str(item.fspath).startswith(here):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def base_url(tmp_path_factory):
    """Serve the app from a thread on a free port of 127.0.0.1, sharing into a throwaway SQLite store."""
    data_dir = str(tmp_path_factory.mktemp("browser-data"))
    yield from serve(create_app({"TESTING": True, "DATA_DIR": data_dir, "DATABASE_URL": ""}))


def serve(app):
    """Serve an app from a thread on a free port of 127.0.0.1; yield its URL, then stop it (a fixture body)."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    thread.join(timeout=5)


@pytest.fixture(scope="session")
def browser():
    """Launch Debian's Chromium (scripts/install-chromium installs it); never download one."""
    if not os.path.exists(CHROMIUM):
        message = f"{CHROMIUM} is missing: run scripts/install-chromium"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()


@pytest.fixture
def page(browser, base_url):
    """A fresh page at a laptop-sized viewport; fails the test on any script error."""
    context = browser.new_context(viewport={"width": 1440, "height": 900}, base_url=base_url)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.set_default_timeout(10_000)
    page.expected_errors = []  # a test that provokes an HTTP error lists its console text here
    yield page
    context.close()
    unexpected = [e for e in errors if not any(x in e for x in page.expected_errors)]
    assert not unexpected, unexpected


@pytest.fixture
def screenshot(page, request):
    """Save a screenshot of the page under $SCREENSHOTS_DIR (to be looked at by a person); nothing when unset."""
    directory = os.environ.get("SCREENSHOTS_DIR")

    def take(name, **options):
        if directory:
            os.makedirs(directory, exist_ok=True)
            page.screenshot(path=os.path.join(directory, f"{request.node.name}-{name}.png"), **options)

    return take
