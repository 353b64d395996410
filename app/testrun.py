"""`admission-playground test` and `admission-playground convert`: suites from files, for CI.

A suite file is a scenario file (``apiVersion: playground.admission/v1``, ``kind: Scenario``)
with ``testCases``; a ``kyverno-test.yaml`` (or a directory holding some, searched
recursively as ``kyverno test`` does) is read as a suite too.

Exit codes of ``test``: 0 every case passes, 1 a case fails, 2 bad input (a file that cannot be
read, is not a suite, or holds a case that cannot be evaluated).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import Any, TextIO

from . import store
from .vap import kyvernotest, suite

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2


@dataclass
class SuiteRun:
    """One suite file (or one Kyverno test) and what running it gave."""

    name: str
    result: suite.SuiteResult | None = None
    seconds: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)   # bad input: the suite could not be (fully) run
    notes: list[str] = field(default_factory=list)

    @property
    def bad_input(self) -> bool:
        return bool(self.errors) or (self.result is not None and self.result.errors > 0)

    @property
    def failed(self) -> bool:
        return self.result is not None and self.result.failed > 0


def add_arguments(sub: Any) -> None:
    """Add the `test` and `convert` commands to the command line's subparsers."""
    test = sub.add_parser("test", help="run test suites (scenario files with testCases, or kyverno-test.yaml)")
    test.add_argument("files", nargs="+", metavar="FILE",
                      help="a suite file, '-' for standard input, a kyverno-test.yaml, or a directory of them")
    test.add_argument("--junit-xml", metavar="PATH", help="also write the results as JUnit XML")
    test.add_argument("-q", "--quiet", action="store_true", help="print failing cases and the summary only")

    convert = sub.add_parser("convert", help="convert between suite files and Kyverno CLI tests")
    convert.add_argument("source", metavar="PATH", help="a suite file, or a kyverno-test.yaml or a directory of them")
    convert.add_argument("--to", choices=("kyverno", "suite"), required=True,
                         help="kyverno: write a Kyverno test directory; suite: write suite files")
    convert.add_argument("-o", "--output", metavar="PATH",
                         help="the directory (kyverno), or the file or directory (suite; default standard output)")
    convert.add_argument("-q", "--quiet", action="store_true",
                         help="print no notes and no summary of the files written (errors only)")


# --- loading -----------------------------------------------------------------------------------------

def _read(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


def _kyverno_files(path: str) -> list[str]:
    found = []
    for root, dirs, files in os.walk(path):
        dirs.sort()
        if kyvernotest.TEST_FILE in files:
            found.append(os.path.join(root, kyvernotest.TEST_FILE))
    return found


def _is_kyverno(path: str, text: str) -> bool:
    if re.search(r"(?m)^apiVersion:\s*['\"]?cli\.kyverno\.io/", text):
        return True
    return os.path.basename(path) == kyvernotest.TEST_FILE and not re.search(
        r"(?m)^apiVersion:\s*['\"]?" + re.escape(store.API_VERSION), text)


Loaded = tuple[str, dict[str, Any] | None, list[str], list[str], str]


def load(path: str, stdin: TextIO | None = None) -> list[Loaded]:
    """Read a FILE argument: (name, scenario or None, errors, notes, file text) for each suite it holds."""
    if path != "-" and os.path.isdir(path):
        files = _kyverno_files(path)
        if not files:
            return [(path, None, [f"no {kyvernotest.TEST_FILE} under this directory"], [], "")]
        return [item for f in files for item in _load_kyverno(f)]
    try:
        text = (stdin or sys.stdin).read() if path == "-" else _read(path)
    except (OSError, UnicodeDecodeError) as exc:
        return [(path, None, [f"cannot read the file: {getattr(exc, 'strerror', None) or exc}"], [], "")]
    if path != "-" and _is_kyverno(path, text):
        return _load_kyverno(path)
    try:
        scenario = store.parse_yaml(text)
    except store.ScenarioError as exc:
        return [(path, None, [f"not a suite file: {exc}"], [], "")]
    if not scenario.get("testCases"):
        return [(path, None, ["the scenario has no testCases"], [], "")]
    return [(path, scenario, [], [], text)]


def _load_kyverno(path: str) -> list[Loaded]:
    try:
        imported = kyvernotest.import_tests(path, _read)
    except (kyvernotest.KyvernoTestError, OSError, UnicodeDecodeError) as exc:
        return [(path, None, [str(exc)], [], "")]
    return [(f"{i.path} ({i.name})", i.scenario, list(i.errors), list(i.notes), "") for i in imported]


# --- running -----------------------------------------------------------------------------------------

def run(paths: list[str], stdin: TextIO | None = None) -> list[SuiteRun]:
    """Run every suite the paths hold."""
    runs = []
    for path in paths:
        for name, scenario, errors, notes, text in load(path, stdin):
            entry = SuiteRun(name=name, errors=errors, notes=notes)
            if scenario is not None:
                # read from the file's text when there is one, for the line of each case
                cases, problems = (text and suite.parse_cases_in_file(text)) or suite.parse_cases(
                    scenario.get("testCases"))
                results = []
                for case in cases:
                    start = time.perf_counter()
                    results.append(suite.run_case(scenario, case))
                    entry.seconds.append(time.perf_counter() - start)
                entry.result = suite.SuiteResult(results, problems)
                entry.errors += [p["message"] + (f" (line {p['line']})" if p.get("line") else "") for p in problems]
            runs.append(entry)
    return runs


def exit_code(runs: list[SuiteRun]) -> int:
    if any(r.bad_input for r in runs):
        return EXIT_BAD_INPUT
    return EXIT_FAILED if any(r.failed for r in runs) else EXIT_OK


def text_report(runs: list[SuiteRun], *, quiet: bool = False) -> str:
    """The terminal summary: each suite, each case (failing ones with their reasons), the totals."""
    lines: list[str] = []
    total = passed = failed = errors = 0
    for r in runs:
        result = r.result
        count = f"{result.passed} of {result.total} test cases pass" if result is not None else "not run"
        lines.append(f"{r.name}: {count}")
        lines += [f"  note: {n}" for n in r.notes]
        lines += [f"  ERROR {e}" for e in r.errors]
        errors += len(r.errors)
        if result is None:
            continue
        total += result.total
        passed += result.passed
        failed += result.failed
        for c in result.cases:
            if c.status == suite.ERROR:
                errors += 1
            if c.passed and quiet:
                continue
            where = f" (line {c.case.line})" if c.case.line else ""
            lines.append(f"  {c.status.upper():5} {c.case.name}{where}")
            if not c.passed:
                lines.append(f"        expected: {c.expected or '(nothing)'}")
                lines.append(f"        got:      {c.actual}")
                lines += [f"        - {reason}" for reason in c.reasons]
    lines.append(f"{passed} of {total} test cases pass, {failed} failed, {errors} error{'' if errors == 1 else 's'}")
    return "\n".join(lines)


def junit_xml(runs: list[SuiteRun]) -> str:
    """The results as JUnit XML: one testsuite per suite, one testcase per case."""
    root = ET.Element("testsuites", name="admission-playground")
    totals = {"tests": 0, "failures": 0, "errors": 0}
    for r in runs:
        cases = r.result.cases if r.result is not None else []
        node = ET.SubElement(root, "testsuite", name=r.name)
        counts = {"tests": len(cases) + len(r.errors), "failures": 0, "errors": len(r.errors)}
        for message in r.errors:
            item = ET.SubElement(node, "testcase", name="(suite)", classname=r.name, time="0")
            ET.SubElement(item, "error", message=message, type="BadInput").text = message
        for c, seconds in zip(cases, r.seconds or [0.0] * len(cases), strict=False):
            item = ET.SubElement(node, "testcase", name=c.case.name, classname=r.name, time=f"{seconds:.3f}")
            if c.passed:
                continue
            detail = "\n".join([f"expected: {c.expected}", f"got: {c.actual}", *c.reasons])
            first = c.reasons[0] if c.reasons else c.actual
            if c.status == suite.ERROR:
                counts["errors"] += 1
                ET.SubElement(item, "error", message=first, type="BadInput").text = detail
            else:
                counts["failures"] += 1
                ET.SubElement(item, "failure", message=first, type="UnexpectedOutcome").text = detail
        if r.notes:
            ET.SubElement(node, "system-out").text = "\n".join(f"note: {n}" for n in r.notes)
        for key, value in counts.items():
            node.set(key, str(value))
            totals[key] += value
    for key, value in totals.items():
        root.set(key, str(value))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def run_test(args: argparse.Namespace) -> int:
    """The `test` command."""
    runs = run(args.files)
    print(text_report(runs, quiet=args.quiet))
    for r in runs:  # bad input, on standard error too, named by its file (and line)
        for error in r.errors:
            print(f"admission-playground: {r.name}: {error}", file=sys.stderr)
    if args.junit_xml:
        try:
            with open(args.junit_xml, "w", encoding="utf-8") as f:
                f.write(junit_xml(runs))
        except OSError as exc:
            print(f"admission-playground: cannot write {args.junit_xml}: {exc.strerror or exc}", file=sys.stderr)
            return EXIT_BAD_INPUT
    return exit_code(runs)


# --- converting --------------------------------------------------------------------------------------

def _file_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-.") or "suite"


def run_convert(args: argparse.Namespace) -> int:
    """The `convert` command."""
    try:
        if args.to == "kyverno":
            return _to_kyverno(args.source, args.output, quiet=getattr(args, "quiet", False))
        return _to_suites(args.source, args.output, quiet=getattr(args, "quiet", False))
    except (kyvernotest.KyvernoTestError, store.ScenarioError) as exc:
        print(f"admission-playground: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as exc:
        print(f"admission-playground: {exc.filename or ''}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_BAD_INPUT


def _to_kyverno(source: str, output: str | None, *, quiet: bool = False) -> int:
    if not output:
        print("admission-playground: --output DIR is required with --to kyverno", file=sys.stderr)
        return EXIT_BAD_INPUT
    scenario = store.parse_yaml(_read(source))
    name = _file_name(os.path.splitext(os.path.basename(source))[0])
    exported = kyvernotest.export_test(scenario, name=name)
    os.makedirs(output, exist_ok=True)
    for file_name, text in exported.files.items():
        with open(os.path.join(output, file_name), "w", encoding="utf-8") as f:
            f.write(text)
    if quiet:
        return EXIT_OK
    for note in exported.notes:
        print(f"note: {note}", file=sys.stderr)
    print(f"wrote {len(exported.files)} files to {output}: {exported.cases} test cases as Kyverno results")
    return EXIT_OK


def _to_suites(source: str, output: str | None, *, quiet: bool = False) -> int:
    files = _kyverno_files(source) if os.path.isdir(source) else [source]
    if not files:
        raise kyvernotest.KyvernoTestError(f"{source}: no {kyvernotest.TEST_FILE} under this directory")
    imported = [i for f in files for i in kyvernotest.import_tests(f, _read)]
    for item in imported:
        for note in item.notes if not quiet else ():
            print(f"note: {item.path}: {note}", file=sys.stderr)
        for error in item.errors:
            print(f"warning: {item.path}: {error}", file=sys.stderr)
    texts = [(item, store.render_yaml(store.normalize(item.scenario))) for item in imported]
    if len(texts) == 1 and (output is None or not os.path.isdir(output)):
        if output is None:
            sys.stdout.write(texts[0][1])
        else:
            with open(output, "w", encoding="utf-8") as f:
                f.write(texts[0][1])
        return EXIT_OK
    if output is None:
        print(f"admission-playground: {len(texts)} tests found: give --output DIR to write one suite file each",
              file=sys.stderr)
        return EXIT_BAD_INPUT
    os.makedirs(output, exist_ok=True)
    used: set[str] = set()
    for item, text in texts:
        # named after the test's directory, as kyverno-test.yaml files are all called the same
        base = _file_name(os.path.basename(os.path.dirname(os.path.abspath(item.path))))
        name, n = base, 1
        while name in used:
            n += 1
            name = f"{base}-{n}"
        used.add(name)
        with open(os.path.join(output, name + ".yaml"), "w", encoding="utf-8") as f:
            f.write(text)
    if not quiet:
        print(f"wrote {len(texts)} suite files to {output}")
    return EXIT_OK
