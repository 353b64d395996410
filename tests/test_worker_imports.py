"""The evaluation workers load no Flask: their fork server imports app.warm_forkserver and
app.isolation (which bring app.jobs, the core, the store, the exercises, and Jinja to render the page's result
region, app.rendering), and the jobs they run import nothing more."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Run in a fresh interpreter: what the fork server preloads, then jobs as a worker performs them.
WORKER = """
import json, sys

import app.warm_forkserver  # warms the caches, as in the fork server
from app import examples, isolation

example = examples.get("replica-limit")
body = {pane: text for pane, text in example.panes.items() if text}
lines = "".join("    " + line + "\\n" for line in example.panes["object"].splitlines())
cases = "- name: denied\\n  object: |\\n" + lines + "  expect: denied\\n"
replies = {
    "evaluate": isolation._perform("evaluate", [body]),
    "result_page": isolation._perform("result_page", [body, body, 65536, 1048576]),
    "test_cases": isolation._perform("test_cases", [body, cases]),
    "suite": isolation._perform("suite", [{**body, "testCases": cases}, False]),
    "checks": isolation._perform("checks", ["first-validation", body]),
    "add_case": isolation._perform("add_case", [body, "", ""]),
    "scenario_file": isolation._perform("scenario_file", [
        "apiVersion: playground.admission/v1\\nkind: Scenario\\nobject: {kind: Pod}\\n"]),
}
loaded = sorted(name for name in sys.modules if name.split(".")[0] in ("flask", "werkzeug"))
print(json.dumps({"loaded": loaded, "replies": replies}, default=str))
"""


def test_the_worker_side_and_its_jobs_import_no_flask():
    proc = subprocess.run([sys.executable, "-c", WORKER], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.splitlines()[-1])
    assert out["loaded"] == []
    replies = out["replies"]
    assert all("response" in reply for reply in replies.values()), replies
    assert replies["evaluate"]["response"]["allowed"] is False
    page = replies["result_page"]["response"]
    assert page["decision"] == "denied" and '<section id="result"' in page["html"]
    assert replies["test_cases"]["response"]["passed"] == 1
    assert replies["suite"]["response"]["summary"]["passed"] == 1
    assert replies["checks"]["response"]["total"] > 0
    assert "testCases" in replies["add_case"]["response"]
    assert "scenario" in replies["scenario_file"]["response"]


# A process forked from the workers' own fork server (app.isolation's context, with its preloads) writes
# down the modules it has.
FORKED = """
import json, sys, tempfile

from app import isolation

with tempfile.NamedTemporaryFile("r", suffix=".json") as out:
    code = f"import json, sys\\nopen({out.name!r}, 'w').write(json.dumps(sorted(sys.modules)))"
    process = isolation._context().Process(target=exec, args=(code,))
    process.start()
    process.join(120)
    print(out.read())
"""


def test_a_process_of_the_workers_fork_server_has_no_flask():
    proc = subprocess.run([sys.executable, "-c", FORKED], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr
    modules = json.loads(proc.stdout.splitlines()[-1])
    assert {"app.warm_forkserver", "app.isolation", "app.jobs"} <= set(modules)
    assert [name for name in modules if name.split(".")[0] in ("flask", "werkzeug")] == []
