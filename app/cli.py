"""The command line: `admission-playground serve`, `eval`, `check`, `test` and `convert`.

Exit codes of eval: 0 allowed, 1 denied, 2 bad input (unreadable file or body, or problems that
stopped the evaluation). Exit codes of check: 0 every object admitted, 1 one denied, 2 bad input
(see :mod:`app.check`). Exit codes of test: 0 every case passes, 1 a case fails, 2 bad input
(see :mod:`app.testrun`).

Every command keeps Unix manners: errors go to standard error as ``admission-playground: FILE:LINE: ...``,
a closed pipe (``... | head -1``) ends the command quietly with status 141 (as SIGPIPE would), Ctrl+C
with status 130, and ``-q`` prints as little as the command can.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import sys
from collections.abc import Sequence
from typing import Any

import yaml

from . import check, check_output, front, testrun
from .vap import decision, evaluate
from .vap.documents import PANES
from .vap.evaluate import InputError

# (pane, option): a file option a pane, --old-object for oldObject
_FILE_OPTIONS = tuple((pane, "--" + re.sub(r"(?<=[a-z])([A-Z])", lambda m: "-" + m[1].lower(), pane))
                      for pane in PANES)


PROG = "admission-playground"
EXIT_BAD_INPUT = 2
EVAL_FORMATS = ("text", "json", "object")
EXIT_INTERRUPTED = 128 + signal.SIGINT  # 130, as a shell reports a command ended by Ctrl+C
EXIT_BROKEN_PIPE = 128 + signal.SIGPIPE  # 141, as a shell reports a command ended by a closed pipe


def version() -> str:
    """The installed package's version."""
    from importlib import metadata

    try:
        return metadata.version(PROG)
    except metadata.PackageNotFoundError:
        return "0.0.0"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="What would kube-apiserver's ValidatingAdmissionPolicy admission do with this request?",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="run the playground (its front, and gunicorn behind it)")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--workers", type=int, default=None,
                       help="gunicorn processes (default PLAYGROUND_GUNICORN_WORKERS, else 1: evaluations run in "
                            "their own worker processes)")
    serve.add_argument("-q", "--quiet", action="store_true", help="log warnings and errors only")

    ev = sub.add_parser("eval", help="evaluate a scenario from files, or an API body from stdin with '-'")
    ev.add_argument("body", nargs="?", help="'-' to read a JSON API request body from standard input")
    for _, flag in _FILE_OPTIONS:
        ev.add_argument(flag, metavar="FILE", help="YAML or JSON file ('-' for standard input)")
    ev.add_argument("--kubernetes-version", help="Kubernetes version to emulate, e.g. 1.34")
    ev.add_argument("-o", "--output", choices=EVAL_FORMATS, default="text",
                    help="what to print: the decision, warnings and the JSON patch from the pasted object to the "
                         "admitted one (text, the default), the API response (json), or the admitted object as "
                         "YAML (object; a denial goes to standard error)")
    ev.add_argument("--json", dest="output", action="store_const", const="json", help="the same as -o json")
    ev.add_argument("-q", "--quiet", action="store_true",
                    help="print nothing: the exit status says it (0 allowed, 1 denied, 2 bad input)")
    _check_arguments(sub)
    testrun.add_arguments(sub)
    return parser


def _check_arguments(sub: Any) -> None:
    ch = sub.add_parser(
        "check", help="check manifests against the cluster's policies (a CI gate)",
        description="Evaluate every manifest (files, directories searched recursively for *.yaml, *.yml and "
                    "*.json, or '-' for kustomize or helm output on standard input) as a CREATE, or an UPDATE of "
                    "the --old object of the same kind, namespace and name, against the policies, bindings, "
                    "params, namespaces, CRDs and RBAC of --policies (files, directories, or a cluster dump from "
                    "kubectl get -o yaml). Exit status: 0 all admitted, 1 one denied, 2 bad input.")
    ch.add_argument("manifests", nargs="*", metavar="PATH",
                    help="manifest files or directories, '-' for standard input")
    ch.add_argument("-p", "--policies", "--cluster", action="append", default=[], metavar="PATH",
                    help="policies, bindings, params, namespaces, CRDs, RBAC (files, directories, a cluster "
                         "dump; '-' for standard input); repeatable")
    ch.add_argument("--old", action="append", default=[], metavar="PATH",
                    help="the objects as they are now: a manifest of the same kind, namespace and name is "
                         "checked as an UPDATE of it; repeatable")
    ch.add_argument("-o", "--output", choices=check_output.FORMATS, default="table",
                    help="what to print: a table (default), the API response per object as json or yaml, "
                         "junit-xml or sarif")
    ch.add_argument("--junit-xml", metavar="FILE", help="also write the results as JUnit XML")
    ch.add_argument("--sarif", metavar="FILE", help="also write the findings as SARIF 2.1.0 (code scanning)")
    ch.add_argument("--fail-on-warnings", action="store_true",
                    help="an object admitted with warnings fails the check too (exit status 1)")
    ch.add_argument("-n", "--namespace", metavar="NAME",
                    help="the namespace of manifests that name none (default: default)")
    ch.add_argument("--request", metavar="FILE",
                    help="request attributes for every object (userInfo, dryRun, ...), as the Request pane")
    ch.add_argument("--kubernetes-version", metavar="VERSION", help="Kubernetes version to emulate, e.g. 1.34")
    ch.add_argument("-j", "--jobs", type=int, default=0, metavar="N",
                    help="processes evaluating objects (default: one per CPU, for 100 objects or more)")
    ch.add_argument("-q", "--quiet", action="store_true",
                    help="print only the objects that fail the check, a FILE:LINE: OBJECT: MESSAGE line each")


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
    for name, n in check.mutated_by(result).items():
        lines.append(f"mutated by MutatingAdmissionPolicy {name}: {n} change{'' if n == 1 else 's'}")
    if result.get("patch") and result.get("allowed"):  # a denied object is never stored: no patch to show
        lines.append("patch from the pasted object to the admitted one, computed by the playground (the apiserver "
                     "emits none):")
        lines.extend("  " + json.dumps(op, ensure_ascii=False, default=str) for op in result["patch"])
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


def _error(message: str) -> None:
    print(f"{PROG}: {message}", file=sys.stderr)


def _problem_places(result: dict[str, Any], files: dict[str, str]) -> list[str]:
    """The errors of the evaluation, each at the file and line of the pane it was found in."""
    out = []
    for p in result.get("problems") or []:
        if p["severity"] != "error":
            continue
        where = files.get(p["pane"], p["pane"])
        if p.get("line"):
            where += f":{p['line']}"
        out.append(f"{where}: {p['path'] + ': ' if p.get('path') else ''}{p['message']}")
    return out


def run_eval(args: argparse.Namespace) -> int:
    files: dict[str, str] = {}
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
                    files[field] = "<stdin>" if path == "-" else path
                    try:
                        payload[field] = _read(path)
                    except OSError as exc:
                        _error(f"{path}: {exc.strerror or exc}")
                        return 2
                    except UnicodeDecodeError as exc:
                        _error(f"{path}: not UTF-8 text ({exc.reason})")
                        return 2
            if args.kubernetes_version:
                payload["kubernetesVersion"] = args.kubernetes_version
            if "policy" not in payload:
                print("admission-playground: --policy FILE (or '-' with an API body) is required", file=sys.stderr)
                return 2
        result = evaluate(payload)
    except json.JSONDecodeError as exc:
        _error(f"<stdin>:{exc.lineno}: the API body is not JSON: {exc.msg}")
        return 2
    except (OSError, InputError) as exc:
        _error(str(exc))
        return 2
    for place in _problem_places(result, files):
        _error(place)
    if args.quiet:
        pass
    elif args.output == "json":
        json.dump(result, sys.stdout, indent=2)
        sys.stdout.write("\n")
    elif args.output == "object":
        _print_object(result)
    else:
        print(_text(result))
    if _stopped_by_problems(result):
        return 2
    return 0 if result["allowed"] else 1


def _print_object(result: dict[str, Any]) -> None:
    """``-o object``: the object admission ended with, as YAML, when it is admitted; else what went wrong, on
    standard error (as ``kubectl create --dry-run=server -o yaml`` prints either)."""
    if result.get("request") is None or _stopped_by_problems(result):
        return  # the problems are on standard error already
    if not result.get("allowed"):
        print(_text(result), file=sys.stderr)
        return
    if result.get("object") is None:
        _error(f"a {result['request'].get('operation')} request has no object to admit")
        return
    sys.stdout.write(yaml.safe_dump(result["object"], sort_keys=False, allow_unicode=True))


def run_check(args: argparse.Namespace) -> int:
    """The `check` command."""
    if not args.manifests:
        _error("check: no manifests: give files, directories, or '-' for standard input")
        return EXIT_BAD_INPUT
    if not args.policies:
        _error("check: no policies: give --policies PATH (files, directories or a cluster dump)")
        return EXIT_BAD_INPUT
    try:
        request = None
        if args.request:
            request = check.read_documents(args.request)
            request = request[0].value if request else None
        jobs = args.jobs or (os.cpu_count() or 1)
        options = check.Options(kubernetes_version=args.kubernetes_version, namespace=args.namespace,
                                request=request, jobs=max(1, jobs),
                                whole_responses=args.output in ("json", "yaml") and not args.quiet)
        report = check.run(args.manifests, args.policies, old_paths=args.old, options=options,
                           fail_on_warnings=args.fail_on_warnings)
    except check.CheckInputError as exc:
        _error(str(exc))
        return EXIT_BAD_INPUT
    for problem in report.problems:
        _error(str(problem))
    for name, render in ((args.junit_xml, check_output.junit_xml), (args.sarif, check_output.as_sarif)):
        if name:
            try:
                with open(name, "w", encoding="utf-8") as f:
                    f.write(render(report))
            except OSError as exc:
                _error(f"cannot write {name}: {exc.strerror or exc}")
                return EXIT_BAD_INPUT
    if args.quiet:
        text = check_output.failures(report)
    else:
        text = check_output.RENDER[args.output](report)
    if text:
        sys.stdout.write(text.rstrip("\n") + "\n")
    return report.exit_code()


def run_serve(args: argparse.Namespace) -> int:
    """The front on host:port, reading each request whole within its time bounds, and gunicorn behind it
    (app/front.py)."""
    return front.serve(args.host, args.port, workers=args.workers, quiet=args.quiet)


def _run(argv: Sequence[str] | None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "serve":
        return run_serve(args)
    if args.command == "check":
        return run_check(args)
    if args.command == "test":
        return testrun.run_test(args)
    if args.command == "convert":
        return testrun.run_convert(args)
    return run_eval(args)


def _quiet_stdout() -> None:
    """Point standard output at /dev/null: what is left in its buffer cannot fail at exit again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # not a real file (a test's capture)
        pass


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; its exit status. A closed pipe and Ctrl+C end it quietly (141, 130)."""
    try:
        code = _run(argv)
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        _quiet_stdout()
        return EXIT_BROKEN_PIPE
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
