"""What `admission-playground check` prints and writes: a table like kubectl's, the API responses as JSON
or YAML, JUnit XML for CI test pages and SARIF for code-scanning pages. Every finding names the manifest's
file and the line where its document starts (or the line of the field a problem is about)."""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from typing import Any
from urllib.parse import quote

import yaml

from .check import ADMITTED, DENIED, ERROR, Outcome, Report
from .vap import decision

TOOL = "admission-playground"
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
FORMATS = ("table", "json", "yaml", "junit-xml", "sarif")
NONE = "-"


def _version() -> str:
    from importlib import metadata

    try:
        return metadata.version(TOOL)
    except metadata.PackageNotFoundError:
        return "0.0.0"


# --- the table --------------------------------------------------------------------------------------------

HEADERS = ("FILE", "OBJECT", "NAMESPACE", "OPERATION", "DECISION", "CODE", "POLICY", "BINDING", "MESSAGE")


def _row(outcome: Outcome) -> tuple[str, ...]:
    policy, binding = outcome.denied_by if outcome.decision == DENIED else ("", "")
    if outcome.decision == ERROR:
        message = "; ".join(outcome.errors)
    else:
        message = outcome.message
    code = outcome.status.get("code")
    return (outcome.manifest.where, outcome.object_ref, outcome.namespace or NONE, outcome.operation,
            outcome.decision, str(code) if code else NONE, policy or NONE, binding or NONE,
            message.replace("\n", " ") or NONE)


def table(report: Report, *, only_failed: bool = False) -> str:
    """kubectl's way: upper-case headers, columns three spaces apart, the message last; under each object, the
    MutatingAdmissionPolicies that changed it and its warnings, then the problems of the policies and a summary."""
    outcomes = [o for o in report.outcomes if report.failed(o)] if only_failed else report.outcomes
    rows = [_row(o) for o in outcomes]
    lines: list[str] = []
    if rows:
        widths = [max(len(r[i]) for r in [HEADERS, *rows]) for i in range(len(HEADERS) - 1)]

        def line(cells: tuple[str, ...]) -> str:
            return "   ".join([c.ljust(w) for c, w in zip(cells, widths, strict=False)] + [cells[-1]]).rstrip()

        lines.append(line(HEADERS))
        for outcome, row in zip(outcomes, rows, strict=True):
            lines.append(line(row))
            lines += [f"    Mutated by MutatingAdmissionPolicy {name}: {n} change{'' if n == 1 else 's'}"
                      for name, n in outcome.mutated_by.items()]
            lines += [f"    Warning: {w}" for w in outcome.warnings]
    if not only_failed:
        lines += [f"note: {n}" for n in report.notes]
        lines.append(summary(report))
    return "\n".join(lines)


def summary(report: Report) -> str:
    counts = report.counts()
    n = counts["objects"]
    parts = [f"{counts[ADMITTED]} admitted" + (f" ({counts['warned']} with warnings)" if counts["warned"] else ""),
             f"{counts[DENIED]} denied"]
    if counts[ERROR]:
        parts.append(f"{counts[ERROR]} not evaluated")
    errors = sum(p.severity == "error" for p in report.problems)
    if errors:
        parts.append(f"{errors} policy error{'' if errors == 1 else 's'}")
    return f"{n} object{'' if n == 1 else 's'}: " + ", ".join(parts)


def failures(report: Report) -> str:
    """The quiet form: one ``file:line: object: message`` line per object that fails the check."""
    lines = []
    for o in report.outcomes:
        if not report.failed(o):
            continue
        if o.decision == DENIED:
            text = f"denied ({o.status.get('code')}): {o.status.get('message')}"
        elif o.decision == ERROR:
            text = "error: " + "; ".join(o.errors)
        else:
            text = "warning: " + "; ".join(o.warnings)
        lines.append(f"{o.manifest.where}: {o.object_ref}: {text}")
    return "\n".join(lines)


# --- JSON and YAML -----------------------------------------------------------------------------------------

def document(report: Report) -> dict[str, Any]:
    """The whole check as one value: the summary, the policies' problems, and per object its place,
    its decision and the API response (as ``POST /api/v1/evaluate`` answers it)."""
    return {
        "summary": {**report.counts(), "exitCode": report.exit_code()},
        "problems": [p.to_json() for p in report.problems],
        "notes": list(report.notes),
        "results": [{
            "file": o.manifest.file,
            "line": o.manifest.line,
            "object": o.object_ref,
            "apiVersion": o.manifest.api_version,
            "kind": o.manifest.kind,
            "namespace": o.namespace or None,
            "name": o.name or None,
            "operation": o.operation,
            "oldObject": {"file": o.old.file, "line": o.old.line} if o.old is not None else None,
            "decision": o.decision,
            "kubectl": decision.kubectl_output(o.response) or None,
            "response": o.response,
        } for o in report.outcomes],
    }


def as_json(report: Report) -> str:
    return json.dumps(document(report), indent=2)


def as_yaml(report: Report) -> str:
    return yaml.safe_dump(document(report), sort_keys=False, allow_unicode=True).rstrip("\n")


# --- JUnit XML -------------------------------------------------------------------------------------------

def junit_xml(report: Report) -> str:
    """One testsuite per manifest file, one testcase per object (``file`` and ``line`` attributes as CI
    test pages read them); a denial is a failure, an object that cannot be evaluated or a problem of the
    policies an error, warnings the test case's system-out (failures with --fail-on-warnings)."""
    root = ET.Element("testsuites", name=f"{TOOL} check")
    by_file: dict[str, list[Outcome]] = {}
    for o in report.outcomes:
        by_file.setdefault(o.manifest.file, []).append(o)
    totals = {"tests": 0, "failures": 0, "errors": 0}
    if report.problems:
        node = ET.SubElement(root, "testsuite", name="policies")
        counts = {"tests": 0, "failures": 0, "errors": 0}
        for p in report.problems:
            case = ET.SubElement(node, "testcase", name=f"{p.file}:{p.line or 1}", classname="policies",
                                 file=p.file, line=str(p.line or 1), time="0")
            counts["tests"] += 1
            if p.severity == "error":
                counts["errors"] += 1
                ET.SubElement(case, "error", message=p.message, type="PolicyError").text = str(p)
            else:
                ET.SubElement(case, "system-out").text = str(p)
        _count(node, counts, totals)
    for file, outcomes in by_file.items():
        node = ET.SubElement(root, "testsuite", name=file)
        counts = {"tests": len(outcomes), "failures": 0, "errors": 0}
        for o in outcomes:
            case = ET.SubElement(node, "testcase", name=f"{o.object_ref} ({o.operation})", classname=file,
                                 file=file, line=str(o.manifest.line), time="0")
            if o.decision == ERROR:
                counts["errors"] += 1
                ET.SubElement(case, "error", message="; ".join(o.errors), type="BadInput").text = (
                    f"{o.manifest.where}: " + "\n".join(o.errors))
            elif o.decision == DENIED:
                counts["failures"] += 1
                status = o.status
                ET.SubElement(case, "failure", message=str(status.get("message")),
                              type=str(status.get("reason") or "Denied")).text = (
                    f"{o.manifest.where}: {status.get('code')} {status.get('reason') or ''}\n{status.get('message')}\n"
                    f"kubectl: {decision.kubectl_error(status)}")
            elif o.warnings and report.fail_on_warnings:
                counts["failures"] += 1
                ET.SubElement(case, "failure", message="; ".join(o.warnings), type="Warning").text = "\n".join(
                    f"Warning: {w}" for w in o.warnings)
            if o.warnings:
                ET.SubElement(case, "system-out").text = "\n".join(f"Warning: {w}" for w in o.warnings)
        _count(node, counts, totals)
    for key, value in totals.items():
        root.set(key, str(value))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _count(node: ET.Element, counts: dict[str, int], totals: dict[str, int]) -> None:
    for key, value in counts.items():
        node.set(key, str(value))
        totals[key] += value
    node.set("skipped", "0")


# --- SARIF ---------------------------------------------------------------------------------------------------

def _artifact(file: str) -> dict[str, str]:
    """A file as SARIF names it: relative to the working folder (%SRCROOT%), or an absolute file URI."""
    path = file.replace("\\", "/")
    if path.startswith("/"):
        return {"uri": "file://" + quote(path)}
    return {"uri": quote(path), "uriBaseId": "%SRCROOT%"}


def sarif(report: Report) -> dict[str, Any]:
    """SARIF 2.1.0 as code-scanning pages read it: a rule per policy (or webhook) that denied, a result per
    finding at its file (relative to the working folder) and line."""
    rules: dict[str, dict[str, Any]] = {}
    results: list[dict[str, Any]] = []

    def rule(rule_id: str, text: str) -> str:
        if rule_id not in rules:
            rules[rule_id] = {"id": rule_id, "name": rule_id, "shortDescription": {"text": text}}
        return rule_id

    def result(rule_id: str, level: str, message: str, file: str, line: int | None) -> None:
        results.append({
            "ruleId": rule_id, "ruleIndex": list(rules).index(rule_id), "level": level,
            "message": {"text": message},
            "locations": [{"physicalLocation": {"artifactLocation": _artifact(file),
                                                "region": {"startLine": line or 1}}}],
        })

    for p in report.problems:
        rule_id = rule("policy-" + p.severity, f"a problem of the policies ({p.severity})")
        result(rule_id, "error" if p.severity == "error" else "warning",
               f"{p.path + ': ' if p.path else ''}{p.message}", p.file, p.line)
    for o in report.outcomes:
        where = o.manifest
        if o.decision == DENIED:
            policy, binding = o.denied_by
            rule_id = rule(policy or "denied", f"denied by {policy}" if policy else "denied by admission")
            result(rule_id, "error", f"{o.object_ref}: {o.status.get('code')} {o.status.get('reason') or ''}: "
                   f"{o.status.get('message')}", where.file, where.line)
        elif o.decision == ERROR:
            result(rule("invalid-manifest", "a manifest that cannot be evaluated"), "error",
                   f"{o.object_ref}: " + "; ".join(o.errors), where.file, where.line)
        for w in o.warnings:
            result(rule("warning", "a warning the apiserver would send"),
                   "error" if report.fail_on_warnings else "warning", f"{o.object_ref}: {w}", where.file, where.line)
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": TOOL, "version": _version(), "rules": list(rules.values())}},
            "originalUriBaseIds": {"%SRCROOT%": {"uri": "file://" + _cwd_uri()}},
            "results": results,
        }],
    }


def _cwd_uri() -> str:
    return quote(os.getcwd().replace("\\", "/").rstrip("/") + "/")


def as_sarif(report: Report) -> str:
    return json.dumps(sarif(report), indent=2)


RENDER = {"table": table, "json": as_json, "yaml": as_yaml, "junit-xml": junit_xml, "sarif": as_sarif}
