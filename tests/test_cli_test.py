"""`admission-playground test` and `convert`, run as CI would run them."""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys
import xml.etree.ElementTree as ET

from app import cli
from tests.conftest import fixture_path
from tests.test_suite import BINDING, POLICY


def _block(text: str) -> str:
    return "".join("  " + line + "\n" for line in text.splitlines())


SUITE = (f"apiVersion: playground.admission/v1\nkind: Scenario\npolicy: |\n{_block(POLICY)}"
         f"binding: |\n{_block(BINDING)}") + """\
testCases:
- name: two replicas are admitted
  object: {apiVersion: apps/v1, kind: Deployment, metadata: {name: a, namespace: default}, spec: {replicas: 2}}
  expect: allowed
- name: nine replicas are denied
  object: {apiVersion: apps/v1, kind: Deployment, metadata: {name: b, namespace: default}, spec: {replicas: 9}}
  expect: {allowed: false, message: "got 9"}
"""
FAILING_CASE = """\
- name: six replicas are admitted
  object: {apiVersion: apps/v1, kind: Deployment, metadata: {name: c, namespace: default}, spec: {replicas: 6}}
  expect: allowed
"""


def line_of(text: str, start: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if line.startswith(start))


def run(*args: str) -> subprocess.CompletedProcess[str]:
    """Run the command line in this process (the entry point itself is run once, below)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(list(args))
    return subprocess.CompletedProcess(list(args), code, out.getvalue(), err.getvalue())


def test_the_installed_command_runs_suites(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "app.cli", "test", write(tmp_path, "suite.yaml", SUITE)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.endswith("2 of 2 test cases pass, 0 failed, 0 errors\n")


def write(tmp_path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_passing_suite_exits_zero_and_prints_a_summary(tmp_path):
    proc = run("test", write(tmp_path, "suite.yaml", SUITE))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].endswith("suite.yaml: 2 of 2 test cases pass")
    assert f"  PASS  two replicas are admitted (line {line_of(SUITE, '- name: two')})" in lines
    assert lines[-1] == "2 of 2 test cases pass, 0 failed, 0 errors"


def test_a_failing_case_exits_one_and_says_why(tmp_path):
    proc = run("test", write(tmp_path, "suite.yaml", SUITE + FAILING_CASE))
    assert proc.returncode == 1
    out = proc.stdout
    assert f"  FAIL  six replicas are admitted (line {line_of(SUITE + FAILING_CASE, '- name: six')})" in out
    assert "        expected: allowed" in out
    assert "- expected the request to be allowed, but it was denied: deployments.apps \"c\" is forbidden" in out
    assert out.splitlines()[-1] == "2 of 3 test cases pass, 1 failed, 0 errors"


def test_junit_xml_parses_and_counts(tmp_path):
    report = tmp_path / "out" / "junit.xml"
    report.parent.mkdir()
    proc = run("test", write(tmp_path, "suite.yaml", SUITE + FAILING_CASE), "--junit-xml", str(report), "--quiet")
    assert proc.returncode == 1
    assert "PASS" not in proc.stdout  # --quiet prints failing cases only
    root = ET.parse(report).getroot()
    assert root.tag == "testsuites"
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("3", "1", "0")
    (suite,) = root.findall("testsuite")
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == ["two replicas are admitted", "nine replicas are denied",
                                              "six replicas are admitted"]
    failure = cases[2].find("failure")
    assert failure is not None and failure.get("message").startswith("expected the request to be allowed")
    assert "got: denied 422 Invalid" in failure.text
    assert cases[0].find("failure") is None and float(cases[0].get("time")) >= 0


def test_bad_input_exits_two(tmp_path):
    proc = run("test", write(tmp_path, "bad.yaml", "apiVersion: playground.admission/v1\nkind: Scenario\n"
                                                     "policy: x\ntestCases: [{expect: allowed}]\n"))
    assert proc.returncode == 2
    assert "ERROR case 1 (line 4)" in proc.stdout and "test case 1: the case needs an object" in proc.stdout
    proc = run("test", write(tmp_path, "notasuite.yaml", "kind: Pod\n"))
    assert proc.returncode == 2
    assert "not a suite file: line 1: apiVersion: playground.admission/v1 is missing" in proc.stdout
    proc = run("test", str(tmp_path / "missing.yaml"))
    assert proc.returncode == 2 and "cannot read the file" in proc.stdout
    proc = run("test", write(tmp_path, "nocases.yaml", "apiVersion: playground.admission/v1\nkind: Scenario\n"
                                                        "policy: x\n"))
    assert proc.returncode == 2 and "has no testCases" in proc.stdout


def test_bad_input_wins_over_failures_and_junit_reports_errors(tmp_path):
    report = tmp_path / "junit.xml"
    failing = write(tmp_path, "failing.yaml", SUITE + FAILING_CASE)
    proc = run("test", failing, str(tmp_path / "missing.yaml"), "--junit-xml", str(report))
    assert proc.returncode == 2
    root = ET.parse(report).getroot()
    assert (root.get("failures"), root.get("errors")) == ("1", "1")
    assert root.findall("testsuite")[1].find("testcase/error") is not None


def test_a_kyverno_test_directory_runs_as_suites():
    proc = run("test", fixture_path("kyverno", "replicas"))
    assert proc.returncode == 0, proc.stdout
    assert "replicas/kyverno-test.yaml (replicas): 4 of 4 test cases pass" in proc.stdout
    assert "note: policy 'team-label.example.com' has no binding" in proc.stdout
    # a resource a result names but no file holds is bad input, as Kyverno CLI fails it
    proc = run("test", fixture_path("kyverno"))
    assert proc.returncode == 2
    assert "ERROR results[0]: resource 'deploy-that-is-not-there'" in proc.stdout


def test_convert_both_ways(tmp_path):
    out = tmp_path / "kyverno"
    proc = run("convert", "--to", "kyverno", write(tmp_path, "suite.yaml", SUITE), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in out.iterdir()) == ["kyverno-test.yaml", "policies.yaml", "resources.yaml"]
    assert "test case 2 (nine replicas are denied): only its per-policy results" in proc.stderr
    assert run("test", str(out)).returncode == 0
    back = tmp_path / "back.yaml"
    proc = run("convert", "--to", "suite", str(out), "-o", str(back))
    assert proc.returncode == 0, proc.stderr
    assert back.read_text().startswith("# An Admission Playground scenario")
    proc = run("test", str(back))
    assert proc.returncode == 0 and "2 of 2 test cases pass" in proc.stdout


def test_convert_to_kyverno_needs_an_output(tmp_path):
    proc = run("convert", "--to", "kyverno", write(tmp_path, "suite.yaml", SUITE))
    assert proc.returncode == 2 and "--output DIR is required" in proc.stderr
