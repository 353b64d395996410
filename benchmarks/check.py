"""Benchmark of `admission-playground check`: ``python -m benchmarks.check [--manifests N] [--policies N]``.

It writes a temporary repository of manifests (Deployments, Pods, Services and ConfigMaps in nested
directories, some in multi-document files, about one in eight of them breaking a policy) and a folder of
policies with their bindings and params (copies of the gallery's policies, each copy renamed), then runs
the check in this process and as a user would, through the installed command in a subprocess (writing
JUnit XML and SARIF too). It prints the time of each and fails (exit status 1) when one takes more than
the target: 1,000 manifests against 50 policies in under 10 seconds.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

from app import check, check_output
from app.examples import all_examples

TARGET_SECONDS = 10.0
# Gallery examples whose policies, bindings and params are copied: plain objects, no webhooks, no
# Kyverno, no RBAC, no deliberate compile error.
GALLERY = ("replica-limit", "required-labels", "image-registries", "no-privileged", "namespace-selector",
           "warn-rollout", "audit-annotations", "variables", "message-expression", "param-selector",
           "runtime-error-ignore", "exclude-namespaces")
NAMESPACES = ("default", "team-a", "team-b", "production")


def _policies(count: int) -> list[str]:
    """``count`` policies, each a gallery policy renamed, with a binding each; params once per example."""
    examples = {e.name: e for e in all_examples() if e.name in GALLERY}
    files = []
    params_done: set[str] = set()
    n = 0
    while n < count:
        for name in GALLERY:
            if n >= count:
                break
            panes = examples[name].panes
            docs: list[dict[str, Any]] = []
            for pane in ("policy", "binding"):
                for doc in yaml.safe_load_all(panes.get(pane) or ""):
                    if not isinstance(doc, dict):
                        continue
                    doc["metadata"]["name"] += f"-{n}"
                    if doc["kind"] == "ValidatingAdmissionPolicyBinding":
                        doc["spec"]["policyName"] += f"-{n}"
                    docs.append(doc)
            if name not in params_done and panes.get("params"):
                params_done.add(name)
                docs += [d for d in yaml.safe_load_all(panes["params"]) if isinstance(d, dict)]
            files.append(yaml.safe_dump_all(docs, sort_keys=False))
            n += sum(d["kind"] == "ValidatingAdmissionPolicy" for d in docs)
    return files


def _deployment(i: int, bad: bool) -> dict[str, Any]:
    labels = {"app": f"app-{i}", "team": "payments", "cost-center": "cc-1"}
    image = f"docker.io/library/app:{i}" if bad else f"registry.example.com/app-{i}:1.{i}"
    return {
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": f"app-{i}", "namespace": NAMESPACES[i % 4], "labels": labels},
        "spec": {
            "replicas": 9 if bad else 2,
            "selector": {"matchLabels": {"app": f"app-{i}"}},
            "template": {"metadata": {"labels": labels}, "spec": {"containers": [{
                "name": "app", "image": image,
                "resources": {"limits": {"memory": "256Mi", "cpu": "500m"}},
                "livenessProbe": {"httpGet": {"path": "/healthz", "port": 8080}},
                "readinessProbe": {"httpGet": {"path": "/ready", "port": 8080}},
            }]}},
        },
    }


def _pod(i: int, bad: bool) -> dict[str, Any]:
    security = {"privileged": True} if bad else {"runAsNonRoot": True}
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"job-{i}", "namespace": NAMESPACES[i % 4], "labels": {"app": f"job-{i}"}},
            "spec": {"containers": [{"name": "main", "image": f"registry.example.com/job:{i}",
                                     "securityContext": security,
                                     "livenessProbe": {"exec": {"command": ["true"]}}}]}}


def _service(i: int, bad: bool) -> dict[str, Any]:
    port: dict[str, Any] = {"port": 80, "targetPort": 8080}
    if bad:
        port["nodePort"] = 30000 + i % 2000
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": f"svc-{i}", "namespace": NAMESPACES[i % 4], "labels": {"app": f"app-{i}"}},
            "spec": {"type": "NodePort" if bad else "ClusterIP", "selector": {"app": f"app-{i}"}, "ports": [port]}}


def _config_map(i: int, bad: bool) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": f"config-{i}", "namespace": NAMESPACES[i % 4]},
            "data": {"setting": str(i), "mode": "debug" if bad else "production"}}


MAKERS = (_deployment, _deployment, _pod, _service, _config_map)


def write_repository(root: Path, manifests: int = 1000, policies: int = 50) -> tuple[Path, Path]:
    """Write the manifests and the policies under ``root``; their two folders."""
    repo, cluster = root / "repo", root / "cluster"
    for i, text in enumerate(_policies(policies)):
        path = cluster / f"policy-{i:03}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    i = 0
    while i < manifests:
        team = repo / f"team-{i % 7}" / ("overlays" if i % 3 else "base")
        team.mkdir(parents=True, exist_ok=True)
        group = min(1 + i % 3, manifests - i)  # one, two or three objects per file
        docs = [MAKERS[(i + k) % len(MAKERS)](i + k, (i + k) % 8 == 5) for k in range(group)]
        (team / f"app-{i:04}.yaml").write_text(yaml.safe_dump_all(docs, sort_keys=False))
        i += group
    return repo, cluster


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.check", description=__doc__.split("\n\n")[0])
    parser.add_argument("--manifests", type=int, default=1000)
    parser.add_argument("--policies", type=int, default=50)
    parser.add_argument("--target", type=float, default=TARGET_SECONDS, help="seconds (default 10)")
    args = parser.parse_args(argv)
    root = Path(tempfile.mkdtemp(prefix="check-benchmark-"))
    try:
        repo, cluster = write_repository(root, args.manifests, args.policies)
        start, times = time.perf_counter(), os.times()
        options = check.Options(jobs=os.cpu_count() or 1, whole_responses=False)  # as the command runs for a table
        report = check.run([str(repo)], [str(cluster)], options=options)
        check_output.table(report)
        check_output.junit_xml(report)
        check_output.as_sarif(report)
        in_process = time.perf_counter() - start
        cpu = sum(os.times()[:4]) - sum(times[:4])  # this process and its workers
        counts = report.counts()
        print(f"{counts['objects']} manifests, {args.policies} policies: "
              f"{counts['admitted']} admitted, {counts['denied']} denied, {counts['error']} not evaluated")
        print(f"in process:   {in_process:6.2f} s ({cpu:.2f} s of processor time, workers included)")
        command = shutil.which("admission-playground", path=os.path.dirname(sys.executable)) or ""
        argv_ = [command] if command else [sys.executable, "-m", "app.cli"]
        start = time.perf_counter()
        proc = subprocess.run([*argv_, "check", str(repo), "--policies", str(cluster), "-q",
                               "--junit-xml", str(root / "report.xml"), "--sarif", str(root / "report.sarif")],
                              capture_output=True, text=True)
        subprocess_seconds = time.perf_counter() - start
        print(f"subprocess:   {subprocess_seconds:6.2f} s (exit status {proc.returncode}, "
              f"{os.cpu_count()} CPUs)")
        if proc.returncode not in (0, 1):
            print(proc.stderr, file=sys.stderr)
            return 1
        if counts["error"] or report.problems:
            print("the generated repository did not check cleanly:", *map(str, report.problems), file=sys.stderr)
            return 1
        slow = [name for name, seconds in (("in process", in_process), ("subprocess", subprocess_seconds))
                if seconds > args.target]
        if slow:
            print(f"FAIL: {', '.join(slow)} over the target of {args.target:g} s", file=sys.stderr)
            return 1
        print(f"target: under {args.target:g} s: met")
        return 0
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
