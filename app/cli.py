"""The command line: `admission-playground serve`, `eval`, `test` and `convert`.

Exit codes of eval: 0 allowed, 1 denied, 2 bad input (unreadable file or body, or problems that
stopped the evaluation). Exit codes of test: 0 every case passes, 1 a case fails, 2 bad input
(see :mod:`app.testrun`).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Sequence
from typing import Any

from . import testrun
from .vap import decision, evaluate
from .vap.documents import PANES
from .vap.evaluate import InputError

# (pane, option): a file option a pane, --old-object for oldObject
_FILE_OPTIONS = tuple((pane, "--" + re.sub(r"(?<=[a-z])([A-Z])", lambda m: "-" + m[1].lower(), pane))
                      for pane in PANES)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="admission-playground",
        description="What would kube-apiserver's ValidatingAdmissionPolicy admission do with this request?",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="run the playground (gunicorn)")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--workers", type=int, default=1,
                       help="gunicorn processes (default 1: evaluations run in their own worker processes)")

    ev = sub.add_parser("eval", help="evaluate a scenario from files, or an API body from stdin with '-'")
    ev.add_argument("body", nargs="?", help="'-' to read a JSON API request body from standard input")
    for _, flag in _FILE_OPTIONS:
        ev.add_argument(flag, metavar="FILE", help="YAML or JSON file ('-' for standard input)")
    ev.add_argument("--kubernetes-version", help="Kubernetes version to emulate, e.g. 1.34")
    ev.add_argument("--json", action="store_true", help="print the API response as JSON")
    testrun.add_arguments(sub)
    return parser


def _read(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    with open(path, encoding="utf-8") as f:
        return f.read()


def _text(result: dict[str, Any]) -> str:
    """Render the outcome for a terminal: the decision, the apiserver's message, kubectl's view."""
    lines = []
    status = result.get("status")
    if status:
        lines.append(f"DENIED {status.get('code')} {status.get('reason') or ''}".rstrip())
        lines.append(str(status.get("message")))
        lines.append("kubectl: " + decision.kubectl_error(status))
    elif result.get("request") is None:
        lines.append("NOT EVALUATED: the input has problems")
    else:
        lines.append("ALLOWED" + (" with warnings" if result.get("warnings") else ""))
    lines.extend(f"Warning: {w}" for w in result.get("warnings") or [])
    for key, value in (result.get("auditAnnotations") or {}).items():
        lines.append(f"audit annotation {key}: {value}")
    for p in result.get("problems") or []:
        where = p["pane"] + (f" document {p['document']}" if p.get("document") is not None else "")
        if p.get("line"):
            where += f" line {p['line']}"
        if p.get("path"):
            where += f" {p['path']}"
        lines.append(f"{p['severity']}: {where}: {p['message']}")
    return "\n".join(lines)


def _stopped_by_problems(result: dict[str, Any]) -> bool:
    return any(p["severity"] == "error" for p in result.get("problems") or [])


def run_eval(args: argparse.Namespace) -> int:
    try:
        if args.body == "-":
            payload = json.loads(sys.stdin.read())
        elif args.body is not None:
            print(f"admission-playground: unexpected argument {args.body!r} (use '-' for stdin)", file=sys.stderr)
            return 2
        else:
            payload = {}
            for field, flag in _FILE_OPTIONS:
                path = getattr(args, flag[2:].replace("-", "_"))
                if path:
                    payload[field] = _read(path)
            if args.kubernetes_version:
                payload["kubernetesVersion"] = args.kubernetes_version
            if "policy" not in payload:
                print("admission-playground: --policy FILE (or '-' with an API body) is required", file=sys.stderr)
                return 2
        result = evaluate(payload)
    except (OSError, json.JSONDecodeError, InputError) as exc:
        print(f"admission-playground: {exc}", file=sys.stderr)
        return 2
    if args.json:
        json.dump(result, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print(_text(result))
    if _stopped_by_problems(result):
        return 2
    return 0 if result["allowed"] else 1


def run_serve(args: argparse.Namespace) -> int:
    argv = ["gunicorn", "--config", "python:app.gunicorn_conf", "--bind", f"{args.host}:{args.port}",
            "--workers", str(args.workers), "app:create_app()"]
    os.execvp(sys.executable, [sys.executable, "-m", *argv])
    return 0  # not reached


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line."""
    args = _parser().parse_args(argv)
    if args.command == "serve":
        return run_serve(args)
    if args.command == "test":
        return testrun.run_test(args)
    if args.command == "convert":
        return testrun.run_convert(args)
    return run_eval(args)


if __name__ == "__main__":
    sys.exit(main())
