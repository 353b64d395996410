"""Scenario files on the page without JavaScript: the Open file and Export buttons of the form."""

from __future__ import annotations

import io

import pytest

from app import store

POLICY = """apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: keep-me}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  validations: [{expression: "false", message: typed by hand}]
"""


@pytest.fixture
def client(tmp_path):
    from app import create_app

    return create_app({"TESTING": True, "DATA_DIR": str(tmp_path), "DATABASE_URL": ""}).test_client()


def form(**panes):
    return {"policy": "", "binding": "", "params": "", "object": "", "oldObject": "", "namespace": "",
            "request": "", "kubernetesVersion": "", "operation": "", **panes}


def test_open_file_shows_the_scenario_in_the_editors(client):
    scenario = {"policy": POLICY, "object": "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\n",
                "kubernetesVersion": "1.32"}
    data = form(policy="something else")
    data["scenarioFile"] = (io.BytesIO(store.render_yaml(scenario).encode()), "mine.yaml")
    response = client.post("/import", data=data, content_type="multipart/form-data")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert "typed by hand" in html and "something else" not in html
    assert '<option value="1.32" selected>' in html


def test_a_bad_file_keeps_every_pane_and_says_which_line(client):
    data = form(policy=POLICY, object="kind: Pod # mine")
    data["scenarioFile"] = (io.BytesIO(b"kind: Scenario\npolicy: [unclosed\n"), "broken.yaml")
    response = client.post("/import", data=data, content_type="multipart/form-data")
    assert response.status_code == 400
    html = response.get_data(as_text=True)
    assert "broken.yaml: not a scenario file: line" in html
    assert "typed by hand" in html and "kind: Pod # mine" in html


def test_open_without_a_file_asks_for_one(client):
    response = client.post("/import", data=form(policy=POLICY), content_type="multipart/form-data")
    assert response.status_code == 400
    html = response.get_data(as_text=True)
    assert "choose a scenario file to import" in html and "typed by hand" in html


def test_a_file_over_the_size_limit_is_refused(tmp_path):
    from app import create_app

    client = create_app({"TESTING": True, "DATA_DIR": str(tmp_path), "SCENARIO_MAX_BYTES": 1024}).test_client()
    data = form(policy=POLICY)
    big = store.render_yaml({"policy": POLICY + "#" * 4000 + "\n"})
    data["scenarioFile"] = (io.BytesIO(big.encode()), "big.yaml")
    response = client.post("/import", data=data, content_type="multipart/form-data")
    assert response.status_code == 413
    assert "limited to 1024 bytes" in response.get_data(as_text=True)


def test_export_downloads_the_form_as_a_scenario_file(client):
    response = client.post("/export", data=form(policy=POLICY, kubernetesVersion="1.34", operation="DELETE"))
    assert response.status_code == 200
    assert response.mimetype == "application/yaml"
    assert response.headers["Content-Disposition"] == 'attachment; filename="scenario.yaml"'
    scenario = store.parse_yaml(response.get_data())
    assert scenario["policy"] == POLICY
    assert scenario["kubernetesVersion"] == "1.34"
    assert scenario["request"] == "operation: DELETE\n"  # the operation selector travels in the Request pane
    from app import shares

    assert shares.get_store(client.application).count() == 0  # exporting stores nothing


def test_export_of_an_empty_form_is_refused_with_the_reason(client):
    response = client.post("/export", data=form())
    assert response.status_code == 400
    assert "cannot export: there is nothing to share: every pane is empty" in response.get_data(as_text=True)


def test_sharing_an_empty_form_says_why_and_stores_nothing(client):
    from app import shares

    response = client.post("/share", data=form(), headers={"HX-Request": "true"})
    assert response.status_code == 400
    assert "Nothing was shared: there is nothing to share: every pane is empty." in response.get_data(as_text=True)
    assert "HX-Redirect" not in response.headers
    assert shares.get_store(client.application).count() == 0


def test_sharing_over_the_limit_keeps_the_panes_and_names_the_limit(tmp_path):
    from app import create_app, shares

    app = create_app({"TESTING": True, "DATA_DIR": str(tmp_path), "SCENARIO_MAX_BYTES": 1024})
    response = app.test_client().post("/share", data=form(policy=POLICY + "#" * 2000))
    assert response.status_code == 413
    html = response.get_data(as_text=True)
    assert "Nothing was shared: the scenario is" in html and "limited to 1024 bytes" in html
    assert "typed by hand" in html
    assert shares.get_store(app).count() == 0
