"""Sharing over HTTP, on SQLite and on PostgreSQL: the JSON API, export and import, the /s/<id> page."""

from __future__ import annotations

import pytest

from app import create_app, shares, store
from tests.conftest import fixture_path

PANES = ("policy", "binding", "params", "namespace", "object")
DENIAL = 'deployments.apps "nginx" is forbidden'


def make_app(config: dict[str, str], **extra):
    app = create_app({"TESTING": True, **config, **extra})
    if "shares" not in app.blueprints:  # until app/__init__.py registers it
        app.register_blueprint(shares.bp)
    return app


@pytest.fixture
def app(store_config):
    app = make_app(store_config)
    yield app
    shares.get_store(app).close()


@pytest.fixture
def client(app):
    return app.test_client()


def replica_body(**overrides):
    body = {pane: open(fixture_path("replica-limit", f"{pane}.yaml")).read() for pane in PANES}
    body["kubernetesVersion"] = "1.34"
    body.update(overrides)
    return body


def share(client, body) -> str:
    resp = client.post("/api/v1/scenarios", json=body)
    assert resp.status_code in (200, 201), resp.get_json()
    return resp.get_json()["id"]


def test_share_answers_201_with_id_and_link_then_200_with_the_same(client):
    first = client.post("/api/v1/scenarios", json=replica_body())
    assert first.status_code == 201
    data = first.get_json()
    assert data == {"id": data["id"], "url": f"/s/{data['id']}"}
    assert first.headers["Location"] == data["url"]
    again = client.post("/api/v1/scenarios", json=replica_body(params=replica_body()["params"].replace("\n", "\r\n")))
    assert again.status_code == 200 and again.get_json() == data


def test_a_shared_scenario_reads_back_exactly(client):
    body = replica_body(request={"operation": "CREATE", "userInfo": {"username": "ö"}}, oldObject="")
    scenario_id = share(client, body)
    resp = client.get(f"/api/v1/scenarios/{scenario_id}")
    assert resp.status_code == 200
    assert resp.get_json() == {k: v for k, v in body.items() if v != ""}
    assert "immutable" in resp.headers["Cache-Control"]


def test_a_link_made_on_one_instance_opens_on_another(store_config):
    one, two = make_app(store_config), make_app(store_config)
    scenario_id = share(one.test_client(), replica_body())
    page = two.test_client().get(f"/s/{scenario_id}")
    assert page.status_code == 200 and "Shared snapshot" in page.text
    assert two.test_client().get(f"/api/v1/scenarios/{scenario_id}").get_json() == replica_body()
    for app in (one, two):
        shares.get_store(app).close()


@pytest.mark.parametrize("scenario_id", ["nope", "ABCDEFGHIJKL", "abcdefghijk1", "a" * 60, "aaaaaaaaaaaa"])
def test_unknown_or_malformed_ids_are_404_json(client, scenario_id):
    for path in (f"/api/v1/scenarios/{scenario_id}", f"/api/v1/scenarios/{scenario_id}/export"):
        resp = client.get(path)
        assert resp.status_code == 404
        assert "no shared scenario" in resp.get_json()["error"]


def test_over_the_size_limit_is_413_and_nothing_is_stored(app, client):
    resp = client.post("/api/v1/scenarios", json=replica_body(object="x" * (256 * 1024)))
    assert resp.status_code == 413
    assert "limited to 262144 bytes (256 KiB)" in resp.get_json()["error"]
    assert shares.get_store(app).count() == 0


def test_a_body_over_the_request_limit_is_413_json(app, client):
    app.config["MAX_CONTENT_LENGTH"] = 2000
    resp = client.post("/api/v1/scenarios", json=replica_body(object="x" * 5000))
    assert resp.status_code == 413 and "limit" in resp.get_json()["error"]
    assert shares.get_store(app).count() == 0


@pytest.mark.parametrize("body, message", [
    ([1], "must be a JSON object"),
    ({"policy": 3}, "'policy'"),
    ({"policy": "x", "kubernetesVersion": 1.34}, "'kubernetesVersion'"),
    ({"policy": "x", "shoe": 1}, "unknown field 'shoe'"),
    ({}, "nothing to share"),
])
def test_wrong_types_are_400_naming_the_field(app, client, body, message):
    resp = client.post("/api/v1/scenarios", json=body)
    assert resp.status_code == 400 and message in resp.get_json()["error"]
    assert shares.get_store(app).count() == 0


def test_a_body_that_is_not_json_is_400(client):
    resp = client.post("/api/v1/scenarios", data="{not json", content_type="application/json")
    assert resp.status_code == 400 and "JSON" in resp.get_json()["error"]


def test_export_then_import_gives_back_the_scenario(client):
    scenario_id = share(client, replica_body())
    export = client.get(f"/api/v1/scenarios/{scenario_id}/export")
    assert export.status_code == 200 and export.mimetype == "application/yaml"
    assert f'filename="scenario-{scenario_id}.yaml"' in export.headers["Content-Disposition"]
    assert "kind: Scenario" in export.text and "policy: |" in export.text
    imported = client.post("/api/v1/scenarios/import", data=export.data, content_type="application/yaml")
    assert imported.status_code == 200 and imported.get_json() == replica_body()
    upload = client.post("/api/v1/scenarios/import", data={"file": (__import__("io").BytesIO(export.data), "s.yaml")},
                         content_type="multipart/form-data")
    assert upload.status_code == 200 and upload.get_json() == replica_body()
    shared = client.post("/api/v1/scenarios", data=export.data, content_type="application/yaml")
    assert shared.status_code == 200 and shared.get_json()["id"] == scenario_id


def test_import_stores_nothing_and_names_the_line_of_a_mistake(app, client):
    text = "apiVersion: playground.admission/v1\nkind: Scenario\npolicy: |\n  a: 1\npolcy: x\n"
    resp = client.post("/api/v1/scenarios/import", data=text, content_type="application/yaml")
    assert resp.status_code == 400
    assert resp.get_json()["error"].startswith("not a scenario file: line 5: unknown field 'polcy'")
    good = client.post("/api/v1/scenarios/import", data=text.replace("polcy", "binding"))
    assert good.status_code == 200
    assert shares.get_store(app).count() == 0


def test_import_over_the_size_limit_is_413(client):
    big = "apiVersion: playground.admission/v1\nkind: Scenario\npolicy: |\n" + "  x\n" * 140_000
    resp = client.post("/api/v1/scenarios/import", data=big, content_type="application/yaml")
    assert resp.status_code == 413 and "256 KiB" in resp.get_json()["error"]


def test_the_shared_page_shows_the_snapshot_and_its_result_escaped(client):
    scenario_id = share(client, replica_body(object=replica_body()["object"] + "# <script>alert(1)</script>\n"))
    page = client.get(f"/s/{scenario_id}")
    assert page.status_code == 200
    assert "Shared snapshot" in page.text and scenario_id in page.text
    assert "<script>alert(1)</script>" not in page.text and "&lt;script&gt;alert(1)&lt;/script&gt;" in page.text
    assert "replicalimit-policy.example.com" in page.text
    assert "denied request: failed expression: object.spec.replicas" in page.text
    assert f"/api/v1/scenarios/{scenario_id}/export" in page.text


@pytest.mark.parametrize("scenario_id", ["nope", "aaaaaaaaaaaa", "%3Cscript%3E"])
def test_an_unknown_link_is_a_friendly_404_page(client, scenario_id):
    page = client.get(f"/s/{scenario_id}")
    assert page.status_code == 404 and page.mimetype == "text/html"
    assert "No shared scenario here" in page.text and "<script>" not in page.text


def test_an_unreachable_store_is_503_and_says_nothing_was_stored(tmp_path):
    app = make_app({"DATA_DIR": str(tmp_path), "DATABASE_URL": ""})

    class Down(store.Store):
        def _run(self, work):
            raise store.StoreUnavailable("down for the test")

    app.extensions[shares.EXTENSION] = Down()
    client = app.test_client()
    resp = client.post("/api/v1/scenarios", json=replica_body())
    assert resp.status_code == 503 and "nothing was stored" in resp.get_json()["error"]
    assert client.get("/api/v1/scenarios/aaaaaaaaaaaa").status_code == 503
    page = client.get("/s/aaaaaaaaaaaa")
    assert page.status_code == 503 and page.mimetype == "text/html" and "try again" in page.text


def test_the_store_opens_in_the_configured_data_dir(tmp_path):
    app = make_app({"DATA_DIR": str(tmp_path / "fresh"), "DATABASE_URL": ""})
    share(app.test_client(), replica_body())
    assert (tmp_path / "fresh" / "playground.sqlite3").is_file()


def test_the_shared_page_uses_the_playground_page_when_it_offers_one(client, monkeypatch):
    from app import playground

    calls = []

    def render_playground(scenario, *, shared_id):
        calls.append((scenario, shared_id))
        return "the playground page"

    monkeypatch.setattr(playground, "render_playground", render_playground, raising=False)
    scenario_id = share(client, replica_body())
    page = client.get(f"/s/{scenario_id}")
    assert page.status_code == 200 and page.text == "the playground page"
    assert calls == [(replica_body(), scenario_id)]


def test_share_button_stores_the_page_and_opens_the_snapshot(tmp_path):
    from app import create_app

    app = create_app({"TESTING": True, "DATA_DIR": str(tmp_path), "DATABASE_URL": ""})
    client = app.test_client()
    form = {"policy": "", "binding": "", "params": "", "object": "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n",
            "oldObject": "", "namespace": "", "request": "", "kubernetesVersion": "1.34", "operation": ""}
    resp = client.post("/share", data=form)
    assert resp.status_code == 303
    link = resp.headers["Location"]
    assert link.startswith("/s/")
    again = client.post("/share", data=form, headers={"HX-Request": "true"})
    assert again.headers["HX-Redirect"] == link
    page = client.get(link)
    assert page.status_code == 200
    assert b"Shared snapshot" in page.data and b"kind: Pod" in page.data
