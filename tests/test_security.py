"""Security headers on every response; no inline script, style or handler; nothing from another origin."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from app import create_app, examples, security

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def client(tmp_path):
    return create_app({"TESTING": True, "DATA_DIR": str(tmp_path), "DATABASE_URL": ""}).test_client()


@pytest.fixture
def shared_id(client):
    return client.post("/api/v1/scenarios", json={"policy": "# shared"}).get_json()["id"]


def _responses(client, shared_id):
    form = examples.default().form()
    return {
        "page": client.get("/"),
        "partial": client.post("/evaluate", data=form, headers={"HX-Request": "true"}),
        "api": client.post("/api/v1/evaluate", json={"policy": ""}),
        "api error": client.post("/api/v1/evaluate", data="not json", content_type="application/json"),
        "shared page": client.get(f"/s/{shared_id}"),
        "missing page": client.get("/s/nothing-here"),
        "static": client.get("/static/app.js"),
    }


def test_every_response_carries_the_security_headers(client, shared_id):
    for name, resp in _responses(client, shared_id).items():
        for header, value in security.HEADERS.items():
            assert resp.headers.get(header) == value, (name, header)


def test_the_content_security_policy_allows_nothing_inline_or_foreign():
    directives = dict(d.strip().split(" ", 1) for d in security.CONTENT_SECURITY_POLICY.split(";"))
    assert directives["default-src"] == "'self'" and directives["script-src"] == "'self'"
    assert directives["style-src"] == "'self'" and directives["object-src"] == "'none'"
    assert directives["frame-ancestors"] == "'none'" and directives["base-uri"] == "'none'"
    assert "unsafe" not in security.CONTENT_SECURITY_POLICY and "*" not in security.CONTENT_SECURITY_POLICY


def test_hsts_only_over_https(client):
    assert "Strict-Transport-Security" not in client.get("/").headers
    assert client.get("/", base_url="https://localhost").headers["Strict-Transport-Security"] == security.HSTS


class _Inline(HTMLParser):
    """Collect what a CSP without 'unsafe-inline' would block, and every URL of another origin."""

    def __init__(self) -> None:
        super().__init__()
        self.blocked: list[str] = []
        self.foreign: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name.startswith("on") or name == "style":
                self.blocked.append(f"<{tag} {name}>")
            if name in ("src", "href", "action", "content") and value and re.match(r"(https?:)?//", value):
                self.foreign.append(value)
        if tag == "style":
            self.blocked.append("<style>")
        if tag == "script":
            if not dict(attrs).get("src"):
                self.blocked.append("inline <script>")

    def handle_data(self, data):
        pass


def test_pages_have_no_inline_script_style_or_handler_and_no_foreign_url(client, shared_id):
    for name, resp in _responses(client, shared_id).items():
        if resp.mimetype != "text/html":
            continue
        parser = _Inline()
        parser.feed(resp.get_data(as_text=True))
        assert parser.blocked == [], name
        assert parser.foreign == [], name


def test_no_template_marks_text_safe_and_no_script_writes_markup():
    for template in (ROOT / "templates").glob("*.html"):
        text = template.read_text()
        assert "|safe" not in text.replace(" ", "") and "autoescape false" not in text, template.name
    app_js = (ROOT / "static" / "app.js").read_text()
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"):
        assert sink not in app_js, sink


def test_static_files_request_nothing_from_another_origin():
    for path in [ROOT / "static" / "app.js", ROOT / "static" / "style.css"]:
        text = path.read_text()
        assert not re.search(r"""(url\(|fetch\(|src\s*=|import\s)["']?(https?:)?//""", text), path.name
