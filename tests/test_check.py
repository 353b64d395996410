"""`admission-playground check`, run as CI runs it: the installed command in a subprocess (and in this process,
for speed) over a temporary repository of manifests, with the policies from files, directories or a cluster
dump; every output format, the exit statuses, and the pre-commit hook."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

from app import check, cli
from app.examples import get as example
from tests.conftest import fixture_path
from tests.test_cli_test import SUITE

ROOT = Path(__file__).resolve().parent.parent
COMMAND = Path(sys.executable).parent / "admission-playground"
DOCS_POLICY = ("policy", "binding", "params", "namespace")  # the Kubernetes documentation's replica-limit
GALLERY_POLICIES = ("required-labels", "image-registries", "no-privileged", "warn-rollout", "message-expression")
GALLERY_OBJECTS = ("replica-limit", *GALLERY_POLICIES)

GOOD_DEPLOYMENT = """\
# a Deployment every policy admits
apiVersion: apps/v1
kind: Deployment
metadata:
  name: payments
  namespace: default
  labels: {app: payments, team: payments, cost-center: cc-42}
spec:
  replicas: 2
  selector:
    matchLabels: {app: payments}
  template:
    metadata:
      labels: {app: payments}
    spec:
      containers:
      - name: payments
        image: registry.example.com/payments:2.1.0
        resources:
          limits: {memory: 256Mi}
"""
CONFIG_MAP = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: payments-settings
  namespace: default
data:
  mode: production
"""


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _docs_policy() -> str:
    return "---\n".join(Path(fixture_path("replica-limit", f"{p}.yaml")).read_text() for p in DOCS_POLICY)


def _gallery_repository(root: Path) -> tuple[Path, Path]:
    """The gallery's objects and a good Deployment (manifests/), the Kubernetes documentation's replica-limit
    policy and the gallery's policies (cluster/)."""
    _write(root / "cluster" / "kubernetes-docs" / "replicalimit.yaml", _docs_policy())
    for name in GALLERY_POLICIES:
        panes = example(name).panes
        _write(root / "cluster" / "gallery" / f"{name}.yaml",
               "---\n".join(panes[p] for p in ("policy", "binding", "params") if panes.get(p)))
    for name in GALLERY_OBJECTS:
        _write(root / "manifests" / "gallery" / f"{name}.yaml", example(name).panes["object"])
    _write(root / "manifests" / "kubernetes-docs" / "deployment.yaml",
           Path(fixture_path("replica-limit", "object.yaml")).read_text())
    _write(root / "manifests" / "payments" / "app.yaml", GOOD_DEPLOYMENT + "---\n" + CONFIG_MAP)
    return root / "manifests", root / "cluster"


def _run(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(COMMAND), *args], cwd=cwd, input=stdin, capture_output=True, text=True, timeout=120)


def _in_process(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, cwd: Path,
                *args: str) -> tuple[int, str, str]:
    monkeypatch.chdir(cwd)
    code = cli.main(["check", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def gallery(tmp_path: Path) -> Path:
    _gallery_repository(tmp_path)
    return tmp_path


# the table the check of _gallery_repository prints (its lines are wider than this file's)
EXPECTED_TABLE = Path(fixture_path("check", "gallery-table.txt")).read_text()


def test_the_gallery_and_the_kubernetes_documentation_give_the_expected_table_exit_status_and_files(gallery):
    proc = _run("check", "manifests", "--policies", "cluster", "--junit-xml", "report.xml", "--sarif",
                "report.sarif", cwd=gallery)
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr == ""
    assert proc.stdout == EXPECTED_TABLE
    suites = ET.parse(gallery / "report.xml").getroot()
    assert (suites.get("tests"), suites.get("failures"), suites.get("errors")) == ("9", "7", "0")
    sarif = json.loads((gallery / "report.sarif").read_text())
    assert len(sarif["runs"][0]["results"]) == 7 + 4  # 7 denials, 4 warnings


# --- a repository of manifests, in this process ----------------------------------------------------------------

def _repository(root: Path) -> None:
    """Good and bad objects in nested directories and multi-document files; the policies in their own folder."""
    _write(root / "policies" / "replicalimit.yaml", _docs_policy())
    panes = example("required-labels").panes
    _write(root / "policies" / "labels" / "required-labels.yaml", panes["policy"] + "---\n" + panes["binding"])
    _write(root / "deploy" / "base" / "payments.yaml", GOOD_DEPLOYMENT + "---\n" + CONFIG_MAP)
    bad = GOOD_DEPLOYMENT.replace("name: payments\n", "name: search\n").replace("replicas: 2", "replicas: 7")
    _write(root / "deploy" / "overlays" / "prod" / "search.yaml",
           "# Source: chart/templates/search.yaml\n---\n" + CONFIG_MAP.replace("payments-settings", "search") + "---\n"
           + bad)
    _write(root / "deploy" / "overlays" / "prod" / "README.md", "not a manifest\n")
    _write(root / ".github" / "workflows" / "ci.yaml", "on: push\n")  # hidden: never read


def test_good_and_bad_objects_in_nested_directories(tmp_path, capsys, monkeypatch):
    _repository(tmp_path)
    code, out, err = _in_process(capsys, monkeypatch, tmp_path, "deploy", "-p", "policies")
    assert code == 1, err
    rows = [line.split() for line in out.splitlines()[1:] if not line.startswith(" ")]
    assert [r[:5] for r in rows[:-1]] == [
        ["deploy/base/payments.yaml:2", "deployment.apps/payments", "default", "CREATE", "admitted"],
        ["deploy/base/payments.yaml:22", "configmap/payments-settings", "default", "CREATE", "admitted"],
        ["deploy/overlays/prod/search.yaml:3", "configmap/search", "default", "CREATE", "admitted"],
        ["deploy/overlays/prod/search.yaml:12", "deployment.apps/search", "default", "CREATE", "denied"],
    ]
    assert rows[3][5:8] == ["422", "replicalimit-policy.example.com", "replicalimit-binding-test.example.com"]
    assert out.splitlines()[-1] == "4 objects: 3 admitted, 1 denied"
    # the good ones alone pass
    code, out, err = _in_process(capsys, monkeypatch, tmp_path, "deploy/base", "-p", "policies")
    assert (code, err) == (0, "")
    assert out.splitlines()[-1] == "2 objects: 2 admitted, 0 denied"


def test_quiet_prints_only_what_fails_as_file_line(tmp_path, capsys, monkeypatch):
    _repository(tmp_path)
    code, out, _ = _in_process(capsys, monkeypatch, tmp_path, "deploy", "-p", "policies", "-q")
    assert code == 1
    assert out.splitlines() == [
        'deploy/overlays/prod/search.yaml:12: deployment.apps/search: denied (422): deployments.apps "search" is '
        "forbidden: ValidatingAdmissionPolicy 'replicalimit-policy.example.com' with binding "
        "'replicalimit-binding-test.example.com' denied request: failed expression: object.spec.replicas <= "
        "params.maxReplicas"]
    code, out, _ = _in_process(capsys, monkeypatch, tmp_path, "deploy/base", "-p", "policies", "--quiet")
    assert (code, out) == (0, "")


def test_policies_are_read_and_compiled_once_for_all_objects(tmp_path, capsys, monkeypatch):
    from app.vap import documents

    _repository(tmp_path)
    for i in range(30):
        _write(tmp_path / "many" / f"cm-{i}.yaml", CONFIG_MAP.replace("payments-settings", f"cm-{i}"))
    read: list[str] = []
    load_text = documents._load_text

    def counting(pane, source, usage):
        read.append(pane)
        return load_text(pane, source, usage)

    monkeypatch.setattr(documents, "_load_text", counting)
    code, out, _ = _in_process(capsys, monkeypatch, tmp_path, "many", "-p", "policies", "-j", "1")
    assert code == 0, out
    assert read.count(check.CLUSTER_PANE) <= 1  # the same pane text every time: read from the core's cache
    assert read.count("object") == 30


def test_worker_processes_give_the_same_answers(tmp_path, capsys, monkeypatch):
    _repository(tmp_path)
    for i in range(150):
        replicas = 7 if i % 10 == 3 else 2
        _write(tmp_path / "many" / f"d-{i:03}.yaml", GOOD_DEPLOYMENT.replace("name: payments\n", f"name: app-{i}\n")
               .replace("replicas: 2", f"replicas: {replicas}"))
    one = _in_process(capsys, monkeypatch, tmp_path, "many", "-p", "policies", "-j", "1", "-o", "json")
    two = _in_process(capsys, monkeypatch, tmp_path, "many", "-p", "policies", "-j", "2", "-o", "json")
    assert one[0] == two[0] == 1
    assert json.loads(one[1])["summary"]["denied"] == 15
    strip = re.compile(r'"(uid|creationTimestamp|time)": "[^"]*"')  # what the apiserver would make anew each time
    assert strip.sub("", one[1]) == strip.sub("", two[1])


# --- the cluster as kubectl prints it, manifests on standard input ------------------------------------------------

def _cluster_dump() -> str:
    """`kubectl get validatingadmissionpolicies,validatingadmissionpolicybindings,... -A -o yaml`: a List with
    the server's fields (status, managedFields, resourceVersion)."""
    items = [d for d in yaml.safe_load_all(_docs_policy()) if d]
    for i, item in enumerate(items):
        item["metadata"].update({"resourceVersion": str(1000 + i), "uid": f"0000-{i}", "generation": 1,
                                 "creationTimestamp": "2026-01-01T00:00:00Z",
                                 "managedFields": [{"manager": "kubectl", "operation": "Apply"}]})
        if item["kind"] == "ValidatingAdmissionPolicy":
            item["status"] = {"observedGeneration": 1, "typeChecking": {}}
    # a MutatingAdmissionPolicy the cluster stores (so valid), for a resource the manifests do not hold
    items.append({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicy",
                  "metadata": {"name": "defaults"},
                  "spec": {"matchConstraints": {"resourceRules": [{"apiGroups": ["coordination.k8s.io"],
                                                                   "apiVersions": ["v1"], "operations": ["CREATE"],
                                                                   "resources": ["leases"]}]},
                           "reinvocationPolicy": "Never",
                           "mutations": [{"patchType": "JSONPatch", "jsonPatch": {"expression": "[]"}}]}})
    return yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items, "metadata": {"resourceVersion": ""}},
                          sort_keys=False)


def test_a_cluster_dump_as_the_policies_and_kustomize_output_on_stdin(tmp_path):
    _write(tmp_path / "cluster.yaml", _cluster_dump())
    built = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-config-8h2k\n  namespace: default\n"
             "data:\n  mode: prod\n---\n" + GOOD_DEPLOYMENT.replace("replicas: 2", "replicas: 4"))
    proc = _run("check", "-", "--policies", "cluster.yaml", cwd=tmp_path, stdin=built)
    assert proc.returncode == 1, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[1].split()[:5] == ["<stdin>:1", "configmap/app-config-8h2k", "default", "CREATE", "admitted"]
    assert lines[2].split()[:7] == ["<stdin>:10", "deployment.apps/payments", "default", "CREATE", "denied", "422",
                                    "replicalimit-policy.example.com"]


def test_old_objects_make_updates_matched_by_kind_namespace_and_name(tmp_path, capsys, monkeypatch):
    panes = example("immutable-on-update").panes
    _write(tmp_path / "policies" / "immutable.yaml", panes["policy"] + "---\n" + panes["binding"])
    _write(tmp_path / "new" / "objects.yaml", panes["object"] + "---\n" + panes["object"].replace(
        "name: ", "name: brand-new-", 1))
    # the old object without its namespace: the default namespace, as kubectl apply would take it
    old = yaml.safe_load(panes["oldObject"])
    namespace = old["metadata"].pop("namespace", "default")
    _write(tmp_path / "live" / "old.yaml", yaml.safe_dump(old))
    code, out, _ = _in_process(capsys, monkeypatch, tmp_path, "new", "-p", "policies", "--old", "live",
                               "-n", namespace, "-o", "json")
    result = json.loads(out)
    first, second = result["results"]
    assert (first["operation"], first["decision"]) == ("UPDATE", "denied")
    assert first["oldObject"] == {"file": "live/old.yaml", "line": 1}
    assert "the team label cannot change (payments -> search)" in first["response"]["status"]["message"]
    assert (second["operation"], second["oldObject"], second["decision"]) == ("CREATE", None, "admitted")
    assert code == 1


# --- every output format -------------------------------------------------------------------------------------

def test_json_and_yaml_give_the_api_response_per_object(tmp_path, capsys, monkeypatch):
    _repository(tmp_path)
    code, out, _ = _in_process(capsys, monkeypatch, tmp_path, "deploy", "-p", "policies", "-o", "json")
    assert code == 1
    result = json.loads(out)
    assert result["summary"] == {"objects": 4, "admitted": 3, "denied": 1, "error": 0, "warned": 0, "exitCode": 1}
    denied = result["results"][3]
    assert (denied["file"], denied["line"], denied["kind"], denied["name"]) == (
        "deploy/overlays/prod/search.yaml", 12, "Deployment", "search")
    response = denied["response"]
    assert {"allowed", "status", "warnings", "policies", "problems", "request"} <= set(response)
    assert response["status"]["code"] == 422 and response["allowed"] is False
    assert denied["kubectl"].startswith('The deployments "search" is invalid: : ValidatingAdmissionPolicy ')
    code, out, _ = _in_process(capsys, monkeypatch, tmp_path, "deploy", "-p", "policies", "-o", "yaml")
    assert yaml.safe_load(out) == result


def test_junit_xml_has_a_test_case_per_object_at_its_file_and_line(tmp_path, capsys, monkeypatch):
    _repository(tmp_path)
    code, out, _ = _in_process(capsys, monkeypatch, tmp_path, "deploy", "-p", "policies", "--junit-xml", "r.xml")
    assert code == 1 and out.startswith("FILE ")
    root = ET.parse(tmp_path / "r.xml").getroot()
    assert root.tag == "testsuites"
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("4", "1", "0")
    cases = root.findall("testsuite/testcase")
    assert [(c.get("file"), c.get("line")) for c in cases] == [
        ("deploy/base/payments.yaml", "2"), ("deploy/base/payments.yaml", "22"),
        ("deploy/overlays/prod/search.yaml", "3"), ("deploy/overlays/prod/search.yaml", "12")]
    failure = cases[3].find("failure")
    assert failure is not None and "replicalimit-policy.example.com" in failure.get("message")
    assert all(c.find("failure") is None for c in cases[:3])
    # and on standard output
    code, out, _ = _in_process(capsys, monkeypatch, tmp_path, "deploy", "-p", "policies", "-o", "junit-xml")
    assert ET.fromstring(out.split("\n", 1)[1]).get("tests") == "4"


def test_sarif_locations_point_at_the_manifests_file_and_line(tmp_path, capsys, monkeypatch):
    _repository(tmp_path)
    _write(tmp_path / "deploy" / "warned.yaml", example("warn-rollout").panes["object"])
    panes = example("warn-rollout").panes
    _write(tmp_path / "policies" / "warn.yaml", panes["policy"] + "---\n" + panes["binding"])
    code, _, _ = _in_process(capsys, monkeypatch, tmp_path, "deploy", "-p", "policies", "--sarif", "out.sarif")
    assert code == 1
    sarif = json.loads((tmp_path / "out.sarif").read_text())
    assert sarif["version"] == "2.1.0" and sarif["$schema"].endswith("sarif-2.1.0.json")
    run = sarif["runs"][0]
    assert run["tool"]["driver"]["name"] == "admission-playground"
    rule_ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    found = {}
    for result in run["results"]:
        assert {"ruleId", "level", "message", "locations"} <= set(result)
        assert result["ruleId"] in rule_ids and result["message"]["text"]
        location = result["locations"][0]["physicalLocation"]
        found[(result["ruleId"], result["level"])] = (location["artifactLocation"]["uri"],
                                                      location["region"]["startLine"])
    assert found[("replicalimit-policy.example.com", "error")] == ("deploy/overlays/prod/search.yaml", 12)
    assert found[("required-labels.example.com", "error")] == ("deploy/warned.yaml", 1)
    assert found[("warning", "warning")] == ("deploy/warned.yaml", 1)


# --- exit statuses ------------------------------------------------------------------------------------------------

def test_warnings_fail_only_with_fail_on_warnings(tmp_path, capsys, monkeypatch):
    panes = example("warn-rollout").panes
    _write(tmp_path / "policies.yaml", panes["policy"] + "---\n" + panes["binding"])
    _write(tmp_path / "m" / "search.yaml", panes["object"])
    code, out, _ = _in_process(capsys, monkeypatch, tmp_path, "m", "-p", "policies.yaml")
    assert code == 0
    assert "    Warning: Validation failed for ValidatingAdmissionPolicy 'require-limits.example.com'" in out
    assert out.splitlines()[-1] == "1 object: 1 admitted (1 with warnings), 0 denied"
    code, out, _ = _in_process(capsys, monkeypatch, tmp_path, "m", "-p", "policies.yaml", "--fail-on-warnings",
                               "-q")
    assert code == 1
    assert out.startswith("m/search.yaml:1: deployment.apps/search: warning: Validation failed")


def test_bad_input_exits_two_naming_the_file_and_line(tmp_path):
    _repository(tmp_path)
    proc = _run("check", "deploy", "nowhere/", "-p", "policies", cwd=tmp_path)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == "admission-playground: nowhere/: no such file or directory\n"
    assert "Traceback" not in proc.stderr
    _write(tmp_path / "broken" / "x.yaml", CONFIG_MAP + "---\napiVersion: v1\nkind: Pod\nmetadata: {name: x\n")
    proc = _run("check", "broken", "-p", "policies", cwd=tmp_path)
    assert proc.returncode == 2
    assert re.fullmatch(r"admission-playground: broken/x\.yaml:11: invalid YAML: .*\n", proc.stderr)
    proc = _run("check", "deploy", cwd=tmp_path)
    assert proc.returncode == 2 and "--policies" in proc.stderr


def test_a_policy_the_apiserver_would_refuse_is_bad_input_at_its_line(tmp_path):
    _repository(tmp_path)
    panes = example("compile-error").panes
    _write(tmp_path / "policies" / "broken.yaml", "# a policy with a typo\n" + panes["policy"] + "---\n"
           + panes["binding"])
    proc = _run("check", "deploy/base", "-p", "policies", cwd=tmp_path)
    assert proc.returncode == 2
    (message,) = [line for line in proc.stderr.splitlines() if ": error: " in line]
    line = int(re.match(r"admission-playground: policies/broken\.yaml:(\d+): error: ", message)[1])
    text = (tmp_path / "policies" / "broken.yaml").read_text().splitlines()
    assert "expression:" in text[line - 1]
    assert proc.stdout.splitlines()[-1] == "2 objects: 2 admitted, 0 denied, 1 policy error"


def test_objects_that_cannot_be_evaluated_are_bad_input(tmp_path, capsys, monkeypatch):
    _repository(tmp_path)
    code, out, _ = _in_process(capsys, monkeypatch, tmp_path, "deploy/base", "-p", "policies",
                               "--kubernetes-version", "0.9")
    assert code == 2
    rows = [line.split()[:5] for line in out.splitlines()[1:3]]
    assert [r[4] for r in rows] == ["error", "error"]
    assert "unsupported Kubernetes version '0.9'" in out
    assert out.splitlines()[-1] == "2 objects: 0 admitted, 0 denied, 2 not evaluated"


def test_a_decoding_error_is_the_apiservers_400(tmp_path, capsys, monkeypatch):
    _repository(tmp_path)
    _write(tmp_path / "odd" / "x.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\nbogus: 1\n")
    code, out, _ = _in_process(capsys, monkeypatch, tmp_path, "odd", "-p", "policies")
    assert code == 1
    assert out.splitlines()[1].split()[:6] == ["odd/x.yaml:1", "configmap/x", "default", "CREATE", "denied", "400"]
    assert '    Warning: odd/x.yaml:5: bogus: unknown field "bogus"' in out.splitlines()


# --- Unix manners, for every command -------------------------------------------------------------------------

def _closed_pipe(args: list[str], cwd: Path) -> tuple[int, str]:
    """Run with standard output a pipe nobody reads: closed before the command writes, as `| head -0` does."""
    proc = subprocess.Popen([str(COMMAND), *args], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read().decode()
    return proc.wait(timeout=120), err


def test_a_closed_pipe_ends_every_command_quietly(tmp_path):
    _repository(tmp_path)
    code, err = _closed_pipe(["check", "deploy", "-p", "policies", "-o", "json"], tmp_path)
    assert (code, err) == (141, "")
    replica = [a for pane in ("policy", "binding", "params", "namespace", "object")
               for a in (f"--{pane}", fixture_path("replica-limit", f"{pane}.yaml"))]
    code, err = _closed_pipe(["eval", *replica, "--json"], tmp_path)
    assert (code, err) == (141, "")
    code, err = _closed_pipe(["--help"], tmp_path)
    assert "Traceback" not in err


def test_head_reads_the_first_line_without_a_traceback(tmp_path):
    _repository(tmp_path)
    proc = subprocess.run(["bash", "-c", f"'{COMMAND}' check deploy -p policies -o yaml | head -1"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert proc.stdout == "summary:\n"
    assert proc.stderr == ""


_READ = {"x86_64": 0, "aarch64": 63}.get(os.uname().machine)


def _wait_reading_stdin(pid: int, timeout: float = 60) -> None:
    """Wait until the process is blocked reading its standard input (started, past its imports)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            fields = Path(f"/proc/{pid}/syscall").read_text().split()
        except OSError:  # no /proc, or not allowed to read it: a few seconds are enough on a quiet machine
            time.sleep(5)
            return
        if _READ is not None and fields[:2] == [str(_READ), "0x0"]:
            time.sleep(0.2)
            return
        time.sleep(0.1)
    raise AssertionError("the command never read its standard input")


@pytest.mark.parametrize("command", [["eval", "-"], ["check", "-", "--policies", "policies"]], ids=["eval", "check"])
def test_ctrl_c_ends_quietly_with_130(tmp_path, command):
    _repository(tmp_path)
    # its own process group, signalled as a terminal's Ctrl+C signals every process of the foreground job
    proc = subprocess.Popen([str(COMMAND), *command], cwd=tmp_path, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    _wait_reading_stdin(proc.pid)
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert (proc.returncode, out, err) == (130, "", "")


def test_test_and_convert_keep_the_same_manners(tmp_path):
    proc = _run("test", "missing-suite.yaml", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr == "admission-playground: missing-suite.yaml: cannot read the file: No such file or directory\n"
    suite = _write(tmp_path / "suite.yaml", SUITE)
    proc = _run("test", str(suite), "-q", cwd=tmp_path)
    assert proc.returncode == 0
    assert proc.stdout.endswith(": 2 of 2 test cases pass\n2 of 2 test cases pass, 0 failed, 0 errors\n")
    proc = _run("convert", "--to", "kyverno", str(suite), "-o", str(tmp_path / "kyverno"), "-q", cwd=tmp_path)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    assert (tmp_path / "kyverno" / "kyverno-test.yaml").exists()


def test_version_and_quiet_eval(tmp_path):
    proc = _run("--version", cwd=tmp_path)
    assert proc.returncode == 0
    assert re.fullmatch(r"admission-playground \d+\.\d+\.\d+\S*\n", proc.stdout)
    replica = [a for pane in ("policy", "binding", "params", "namespace", "object")
               for a in (f"--{pane}", fixture_path("replica-limit", f"{pane}.yaml"))]
    proc = _run("eval", *replica, "-q", cwd=tmp_path)
    assert (proc.returncode, proc.stdout, proc.stderr) == (1, "", "")


def test_eval_names_the_file_and_line_of_an_error_on_stderr(tmp_path):
    policy = _write(tmp_path / "p.yaml", "kind: ValidatingAdmissionPolicy\nmetadata: {name: x\n")
    proc = _run("eval", "--policy", str(policy), "--object", fixture_path("replica-limit", "object.yaml"),
                cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"admission-playground: {policy}:3: invalid YAML")
    proc = _run("eval", "--policy", str(tmp_path / "missing.yaml"), cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr == f"admission-playground: {tmp_path / 'missing.yaml'}: No such file or directory\n"


# --- ready for CI: the pre-commit hook and the container's entry point -------------------------------------------

def _hook() -> dict:
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    return hook


def _git_repository(root: Path) -> None:
    _repository(root)
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "."], cwd=root, check=True, env=env)


def _pre_commit(root: Path, config: dict, home: Path) -> subprocess.CompletedProcess[str]:
    (root / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    subprocess.run(["git", "add", ".pre-commit-config.yaml"], cwd=root, check=True)
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "PATH": f"{COMMAND.parent}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run([str(Path(sys.executable).parent / "pre-commit"), "run", "--all-files", "--color", "never"],
                          cwd=root, capture_output=True, text=True, timeout=600, env=env)


@pytest.mark.skipif(shutil.which("git") is None or not (Path(sys.executable).parent / "pre-commit").exists(),
                    reason="needs git and pre-commit (the test extra)")
def test_the_pre_commit_hook_runs_as_pre_commit_runs_it(tmp_path):
    """pre-commit runs the hook of .pre-commit-hooks.yaml: its entry, its file types, the staged files as
    arguments. (As a local hook of the system's language: the command installed here stands for the
    package pre-commit would install from the hook's repository; see the next test for that.)"""
    repo = tmp_path / "repo"
    _git_repository(repo)
    hook = {**_hook(), "language": "system", "args": ["--policies", "policies/"], "exclude": "^policies/"}
    proc = _pre_commit(repo, {"repos": [{"repo": "local", "hooks": [hook]}]}, tmp_path / "home")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "admission-playground check" in proc.stdout and "Failed" in proc.stdout
    assert "deploy/overlays/prod/search.yaml:12" in proc.stdout
    assert "policies/" not in proc.stdout.split("FILE", 1)[1]  # excluded: not checked as manifests
    # fixed, it passes
    search = repo / "deploy" / "overlays" / "prod" / "search.yaml"
    search.write_text(search.read_text().replace("replicas: 7", "replicas: 3"))
    proc = _pre_commit(repo, {"repos": [{"repo": "local", "hooks": [hook]}]}, tmp_path / "home")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert re.search(r"admission-playground check\.+Passed", proc.stdout)


@pytest.mark.skipif(not os.environ.get("PLAYGROUND_PRE_COMMIT_INSTALL"),
                    reason="installs the package from a package index: set PLAYGROUND_PRE_COMMIT_INSTALL=1")
def test_the_pre_commit_hook_installs_from_this_repository(tmp_path):
    """The whole way: pre-commit clones this repository at HEAD and installs it (language: python)."""
    repo = tmp_path / "repo"
    _git_repository(repo)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    config = {"repos": [{"repo": str(ROOT), "rev": head, "hooks": [
        {"id": _hook()["id"], "args": ["--policies", "policies/"], "exclude": "^policies/"}]}]}
    proc = _pre_commit(repo, config, tmp_path / "home")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "deploy/overlays/prod/search.yaml:12" in proc.stdout


def test_the_container_runs_a_command_given_and_the_server_by_default(tmp_path):
    """The Dockerfile's entry point, written as its RUN writes it and run with stand-ins for the two programs:
    `docker run IMAGE check ...` runs admission-playground check, the default CMD runs the server (its front and
    gunicorn behind it: admission-playground serve)."""
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    instructions = [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    assert 'ENTRYPOINT ["playground-entrypoint"]' in instructions
    assert instructions.index('ENTRYPOINT ["playground-entrypoint"]') < instructions.index(instructions[-1])
    (run,) = [i for i in instructions if i.startswith("RUN ") and "playground-entrypoint" in i]
    entrypoint = tmp_path / "playground-entrypoint"
    subprocess.run(["sh", "-c", run[4:].replace("/usr/local/bin/playground-entrypoint", str(entrypoint))],
                   check=True)
    stubs = tmp_path / "bin"
    stubs.mkdir()
    for program in ("admission-playground", "gunicorn"):
        _write(stubs / program, f'#!/bin/sh\necho {program} "$@"\n').chmod(0o755)
    env = {**os.environ, "PATH": f"{stubs}{os.pathsep}{os.environ['PATH']}"}
    cmd = json.loads(instructions[-1][len("CMD "):])

    def container(*args: str) -> str:
        return subprocess.run([str(entrypoint), *args], capture_output=True, text=True, env=env,
                              check=True).stdout.strip()

    assert container(*cmd) == "admission-playground serve --host 0.0.0.0 --port 8000"
    assert container("check", "manifests/", "--policies", "cluster.yaml") == (
        "admission-playground check manifests/ --policies cluster.yaml")
    assert container("--version") == "admission-playground --version"
    assert container("echo", "hello") == "hello"


def test_a_cluster_dump_larger_than_the_cores_pane_cache_is_still_read_once(tmp_path, capsys, monkeypatch):
    from app.vap import documents

    dump = yaml.safe_load(_cluster_dump())
    # a few MB of ConfigMaps, as `kubectl get configmaps -A -o yaml` gives on a real cluster
    dump["items"] += [{"apiVersion": "v1", "kind": "ConfigMap",
                       "metadata": {"name": f"cm-{i}", "namespace": f"team-{i % 40}"},
                       "data": {"ca.crt": "x" * 2000}} for i in range(2000)]
    _write(tmp_path / "cluster.yaml", yaml.safe_dump(dump, sort_keys=False))
    assert (tmp_path / "cluster.yaml").stat().st_size > 2 * check.PANE_BUDGET
    for i in range(10):
        _write(tmp_path / "m" / f"d-{i}.yaml", GOOD_DEPLOYMENT.replace("name: payments\n", f"name: app-{i}\n")
               .replace("replicas: 2", f"replicas: {2 + i}"))
    read: list[str] = []
    load_text = documents._load_text
    monkeypatch.setattr(documents, "_load_text",
                        lambda pane, source, usage: read.append(pane) or load_text(pane, source, usage))
    code, out, _ = _in_process(capsys, monkeypatch, tmp_path, "m", "-p", "cluster.yaml", "-q", "-j", "1")
    assert code == 1
    assert len(out.splitlines()) == 8  # 4 to 11 replicas are denied (at most 3 by the params)
    assert all(read.count(pane) <= 1 for pane in check.CLUSTER_PANES), read


def test_a_pod_the_namespaces_pod_security_level_refuses_names_podsecurity(tmp_path, capsys, monkeypatch):
    """A Namespace of the cluster dump labelled pod-security.kubernetes.io/enforce: restricted refuses a Pod with no
    securityContext: the POLICY column names the PodSecurity plugin."""
    _write(tmp_path / "policies" / "cluster.yaml", _docs_policy() + "---\napiVersion: v1\nkind: Namespace\n"
           "metadata:\n  name: shop\n  labels: {pod-security.kubernetes.io/enforce: restricted}\n")
    _write(tmp_path / "app" / "pod.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: shop}\n"
           "spec:\n  containers: [{name: app, image: nginx}]\n")
    code, out, _ = _in_process(capsys, monkeypatch, tmp_path, "app", "-p", "policies")
    assert code == 1
    row = out.splitlines()[1].split()
    assert row[:8] == ["app/pod.yaml:1", "pod/web", "shop", "CREATE", "denied", "403", "PodSecurity", "-"]
    assert 'violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false' in out
