"""The command line, run as a user would run it."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import fixture_path

REPLICA = ("policy", "binding", "params", "namespace", "object")


def _run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "app.cli", *args], input=stdin, capture_output=True,
                          text=True, timeout=60)


def _replica_args() -> list[str]:
    args = ["eval"]
    for pane in REPLICA:
        args += [f"--{pane}", fixture_path("replica-limit", f"{pane}.yaml")]
    return args


def test_replica_limit_example_prints_the_apiservers_denial():
    proc = _run(*_replica_args())
    assert proc.returncode == 1, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "DENIED 422 Invalid"
    assert lines[1] == (
        'deployments.apps "nginx" is forbidden: ValidatingAdmissionPolicy '
        "'replicalimit-policy.example.com' with binding 'replicalimit-binding-test.example.com' "
        "denied request: failed expression: object.spec.replicas <= params.maxReplicas"
    )
    assert lines[2].startswith('kubectl: The deployments "nginx" is invalid: : ValidatingAdmissionPolicy ')


def test_json_output_follows_the_api_contract():
    proc = _run(*_replica_args(), "--json")
    assert proc.returncode == 1
    result = json.loads(proc.stdout)
    assert result["allowed"] is False
    assert result["status"]["code"] == 422
    binding = result["policies"][0]["bindings"][0]
    assert binding["evaluations"][0]["param"] == {"namespace": "default", "name": "replica-limit-test.example.com"}


def test_allowed_exits_zero(tmp_path):
    obj = tmp_path / "deploy.yaml"
    obj.write_text(open(fixture_path("replica-limit", "object.yaml")).read().replace("replicas: 5", "replicas: 2"))
    args = _replica_args()
    args[args.index("--object") + 1] = str(obj)
    proc = _run(*args)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.startswith("ALLOWED")


def test_stdin_body_gives_the_api_response():
    body = {pane: open(fixture_path("replica-limit", f"{pane}.yaml")).read() for pane in REPLICA}
    proc = _run("eval", "-", stdin=json.dumps(body))
    assert proc.returncode == 1
    assert "denied request: failed expression" in proc.stdout


def test_bad_input_exits_two():
    proc = _run("eval", "-", stdin="not json")
    assert proc.returncode == 2
    assert "admission-playground:" in proc.stderr
    proc = _run("eval", "--policy", "/nonexistent/policy.yaml")
    assert proc.returncode == 2
    assert "No such file" in proc.stderr


def test_yaml_error_exits_two_and_names_the_line(tmp_path):
    policy = tmp_path / "p.yaml"
    policy.write_text("kind: ValidatingAdmissionPolicy\nmetadata: {name: x\n")
    proc = _run("eval", "--policy", str(policy), "--object", fixture_path("replica-limit", "object.yaml"))
    assert proc.returncode == 2
    assert "error: policy document 0 line 3" in proc.stdout
