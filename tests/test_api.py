"""The JSON API over HTTP: status codes and the response contract of docs/api.md."""

from __future__ import annotations

import pytest

from tests.conftest import fixture_path

PANES = ("policy", "binding", "params", "namespace", "object")


def _replica_body(**overrides):
    body = {pane: open(fixture_path("replica-limit", f"{pane}.yaml")).read() for pane in PANES}
    body.update(overrides)
    return body


def test_denial_is_a_200_with_the_status(client):
    resp = client.post("/api/v1/evaluate", json=_replica_body())
    assert resp.status_code == 200
    data = resp.get_json()
    assert data["allowed"] is False
    assert data["status"]["code"] == 422
    assert data["status"]["reason"] == "Invalid"
    assert data["status"]["message"].startswith('deployments.apps "nginx" is forbidden: ')
    assert data["warnings"] == []
    assert data["auditAnnotations"] == {}
    assert data["problems"] == []
    policy = data["policies"][0]
    assert policy["name"] == "replicalimit-policy.example.com" and policy["matched"] is True
    binding = policy["bindings"][0]
    assert binding["matched"] is True and binding["validationActions"] == ["Deny"]
    validation = binding["evaluations"][0]["validations"][0]
    assert validation["result"] is False
    assert validation["message"] == "failed expression: object.spec.replicas <= params.maxReplicas"
    assert validation["reason"] == "Invalid"


def test_parsed_json_values_are_accepted_in_panes(client):
    body = _replica_body(object={"apiVersion": "apps/v1", "kind": "Deployment",
                                 "metadata": {"name": "web", "namespace": "default"}, "spec": {"replicas": 1}})
    data = client.post("/api/v1/evaluate", json=body).get_json()
    assert data["allowed"] is True and data["status"] is None


def test_not_json_is_400(client):
    resp = client.post("/api/v1/evaluate", data="policy: x", content_type="application/json")
    assert resp.status_code == 400
    assert "JSON" in resp.get_json()["error"]


@pytest.mark.parametrize("body", [[1, 2], "text", {"policy": 3}, {"policy": "", "kubernetesVersion": 1.3}])
def test_wrong_types_are_400_naming_the_field(client, body):
    resp = client.post("/api/v1/evaluate", json=body)
    assert resp.status_code == 400
    assert resp.get_json()["error"]


def test_oversized_body_is_413(app):
    app.config["MAX_CONTENT_LENGTH"] = 1000
    client = app.test_client()
    resp = client.post("/api/v1/evaluate", json={"policy": "x" * 5000})
    assert resp.status_code == 413
    assert "limit" in resp.get_json()["error"]


def test_yaml_error_points_at_pane_document_line_and_column(client):
    body = _replica_body(binding="---\napiVersion: v1\n---\nkind: [unclosed\n")
    data = client.post("/api/v1/evaluate", json=body).get_json()
    problem = data["problems"][0]
    assert problem["pane"] == "binding"
    assert problem["document"] == 1
    assert problem["line"] == 5
    assert problem["severity"] == "error"


def test_invalid_policy_is_reported_and_not_evaluated(client):
    policy = open(fixture_path("replica-limit", "policy.yaml")).read()
    policy = policy.replace("reason: Invalid", "reason: Unauthorized")
    data = client.post("/api/v1/evaluate", json=_replica_body(policy=policy)).get_json()
    assert data["allowed"] is True
    [problem] = data["problems"]
    assert problem["pane"] == "policy"
    assert problem["path"] == "spec.validations[0].reason"
    assert problem["line"] == 19
    assert problem["message"] == (
        'spec.validations[0].reason: Unsupported value: "Unauthorized": supported values: '
        '"Forbidden", "Invalid", "RequestEntityTooLarge"'
    )
    [policy] = data["policies"]
    assert policy["matched"] is False
    assert policy["explanation"][0].endswith(
        'ValidatingAdmissionPolicy.admissionregistration.k8s.io "replicalimit-policy.example.com" is invalid: '
        'spec.validations[0].reason: Unsupported value: "Unauthorized": supported values: '
        '"Forbidden", "Invalid", "RequestEntityTooLarge"'
    )


class _Trickle:
    """A request body as a socket gives it: a few bytes per read."""

    def __init__(self, data: bytes) -> None:
        self.data, self.reads = data, 0

    def read(self, size: int = -1) -> bytes:
        self.reads += 1
        size = len(self.data) if size is None or size < 0 else size
        chunk, self.data = self.data[: min(size, 1000)], self.data[min(size, 1000):]
        return chunk


def test_a_body_within_the_limit_is_read_whole_before_the_app_and_one_over_it_is_not_read():
    from app.bodies import WholeBody

    seen = {}

    def app(environ, start_response):
        seen["body"] = environ["wsgi.input"].read()
        return [b""]

    body = b'{"policy": "' + b"x" * 50_000 + b'"}'
    stream = _Trickle(body)
    WholeBody(app, lambda: 100_000)({"CONTENT_LENGTH": str(len(body)), "wsgi.input": stream}, None)
    assert seen["body"] == body and stream.data == b""
    over = _Trickle(body)
    WholeBody(lambda environ, start_response: [b""], lambda: 1000)(
        {"CONTENT_LENGTH": str(len(body)), "wsgi.input": over}, None)
    assert over.reads == 0  # left for werkzeug to refuse with 413, unread


def test_a_large_body_is_evaluated_through_the_api(app):
    data = "\n".join(f"  k{i}: v{i}" for i in range(50_000))
    body = {"policy": "", "object": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n" + data}
    resp = app.test_client().post("/api/v1/evaluate", json=body)
    assert resp.status_code == 200
    assert resp.get_json()["kubernetesVersion"]
