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


# --- MutatingAdmissionPolicy: the patch, the admitted object ------------------------------------------------------

def _mutating_files(tmp_path, name: str) -> list[str]:
    """The panes of a scenario of tests/admission_scenarios/mutating-policies.yaml as files, as eval's options."""
    from tests import scenario_runner as runner

    (scenario,) = [s for s in runner.ADMISSION.scenarios if s.name == name]
    args = []
    for pane, text in scenario.data["input"].items():
        (tmp_path / f"{pane}.yaml").write_text(text)
        args += [f"--{pane}", str(tmp_path / f"{pane}.yaml")]
    return args


def test_eval_prints_which_policy_mutated_and_the_computed_patch(tmp_path):
    proc = _run("eval", *_mutating_files(tmp_path, "jsonpatch-with-escapekey-feeds-a-validating-policy"))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "ALLOWED"
    assert "mutated by MutatingAdmissionPolicy add-label/add-label: 1 change" in lines
    start = lines.index("patch from the pasted object to the admitted one, computed by the playground (the "
                        "apiserver emits none):")
    patch = [json.loads(line) for line in lines[start + 1:]]
    assert {"op": "add", "path": "/metadata/labels", "value": {"example.com/team": "web"}} in patch
    assert patch == json.loads(_run("eval", "--json", *_mutating_files(tmp_path, "jsonpatch-with-escapekey-feeds-"
                                                                                 "a-validating-policy")).stdout)["patch"]


def test_eval_output_object_prints_the_admitted_object_as_yaml(tmp_path):
    import yaml

    args = _mutating_files(tmp_path, "sidecar-injected-and-defaulted-then-seen-by-a-validating-policy")
    # without the validating policy that refuses the sidecar: admitted, the object as the apiserver would store it
    policy = tmp_path / "policy.yaml"
    policy.write_text(policy.read_text().split("---\napiVersion: admissionregistration.k8s.io/v1\n"
                                               "kind: ValidatingAdmissionPolicy\n")[0])
    proc = _run("eval", *args, "-o", "object")
    assert (proc.returncode, proc.stderr) == (0, "")
    admitted = yaml.safe_load(proc.stdout)
    sidecar = admitted["spec"]["initContainers"][0]
    assert (sidecar["name"], sidecar["image"], sidecar["imagePullPolicy"]) == ("mesh-proxy", "mesh/proxy:v1.0.0",
                                                                               "IfNotPresent")
    assert admitted["metadata"]["uid"]  # stored: the registry gave it one
    assert _run("eval", *args, "--output", "object").stdout == proc.stdout


def test_eval_output_object_of_a_denied_request_prints_the_denial_on_stderr(tmp_path):
    proc = _run("eval", *_mutating_files(tmp_path, "runtime-error-under-fail-denies"), "-o", "object")
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert proc.stderr.splitlines()[:2] == [
        "DENIED 403 Invalid",
        "policy 'broken' with binding 'broken' denied request: expression '[JSONPatch{op: \"add\", path: "
        "\"/data/x\", value: object.data.missing}]' resulted in error: no such key: missing"]
