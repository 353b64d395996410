"""Table tests for the evaluation core, driven by the YAML files in tests/scenarios/.

Each file is a YAML list of scenarios::

    - name: unique-id
      about: which rule (with its semantics.md section) the scenario asserts
      input: {...}     # a POST /api/v1/evaluate body, exactly as in DESIGN.md
      expect: {...}    # only the keys present are checked

`expect` keys:

* ``allowed``: the decision.
* ``status``: ``null``, or a mapping compared as a subset (``code``, ``reason``, ``message``).
* ``warnings``: the exact list, in order.
* ``auditAnnotations``: the exact mapping (the validation_failure value is compared as text).
* ``problems``: each listed problem must match one reported problem on the keys given
  (``messageContains`` is a substring of ``message``); an empty list means "no error problem".
* ``checks``: ``{path, equals | contains | matches | length}`` on the response (``matches`` is a
  regular expression for the whole string), the path written with dotted keys and ``[i]``
  indexes, e.g. ``policies[0].bindings[0].evaluations[0].validations[1].result``.

An optional ``pending`` (a sentence) marks a Kubernetes fact the playground does not reproduce yet and
says what is missing: the scenario is then expected to fail (strict), so it must be removed from
``pending`` as soon as it passes.

``test_scenario_structure`` checks the files themselves (shape, unique names, readable panes,
and the hand-written strings against the formats of semantics.md §9); it does not need the core.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

SCENARIO_DIR = Path(__file__).parent / "scenarios"
ENDPOINT = "/api/v1/evaluate"

PANES = ("policy", "binding", "params", "object", "oldObject", "namespace", "request")
INPUT_KEYS = frozenset({*PANES, "kubernetesVersion"})
EXPECT_KEYS = frozenset({"allowed", "status", "warnings", "auditAnnotations", "problems", "checks"})
STATUS_KEYS = frozenset({"code", "reason", "message"})
PROBLEM_KEYS = frozenset({"pane", "document", "line", "column", "path", "severity", "message", "messageContains"})
CHECK_OPERATORS = frozenset({"equals", "contains", "matches", "length"})
REQUEST_KEYS = frozenset(
    {"operation", "userInfo", "subResource", "name", "namespace", "dryRun", "options", "resource", "kind"}
)
# semantics.md §1.3.2: the HTTP code that goes with each reason a denial can carry (NotFound: a missing Namespace).
REASON_CODES = {"Forbidden": 403, "Invalid": 422, "RequestEntityTooLarge": 413, "NotFound": 404}
VALIDATION_FAILURE_KEY = "validation.policy.admission.k8s.io/validation_failure"
VALIDATION_FAILURE_FIELDS = ["message", "policy", "binding", "expressionIndex", "validationActions"]

POLICY_KIND = "ValidatingAdmissionPolicy"
BINDING_KIND = "ValidatingAdmissionPolicyBinding"

NAME_RE = re.compile(r"^[a-z0-9][a-z0-9-]*$")
PATH_RE = re.compile(r"^(?:[^.\[\]]+|\[\d+\])(?:\.[^.\[\]]+|\[\d+\])*$")
PATH_TOKEN_RE = re.compile(r"([^.\[\]]+)|\[(\d+)\]")
STATUS_MESSAGE_RE = re.compile(
    r'^(?P<resource>[a-z0-9.-]+) "(?P<name>[^"]*)" is forbidden: '
    r"ValidatingAdmissionPolicy '(?P<policy>[^']+)'(?: with binding '(?P<binding>[^']+)')? "
    r"denied request: (?P<detail>.+)$",
    re.DOTALL,
)
WARNING_RE = re.compile(
    r"^Validation failed for ValidatingAdmissionPolicy '(?P<policy>[^']+)' "
    r"with binding '(?P<binding>[^']+)': (?P<detail>.+)$",
    re.DOTALL,
)


# --------------------------------------------------------------------------------------------
# Loading


def _load_files() -> tuple[list[tuple[str, dict[str, Any]]], list[str]]:
    """Read every scenario file; return (stem, scenario) pairs and any load errors."""
    scenarios: list[tuple[str, dict[str, Any]]] = []
    errors: list[str] = []
    for path in sorted(SCENARIO_DIR.glob("*.yaml")):
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except yaml.YAMLError as exc:
            errors.append(f"{path.name}: not valid YAML: {exc}")
            continue
        if not isinstance(data, list):
            errors.append(f"{path.name}: top level must be a list of scenarios")
            continue
        for index, scenario in enumerate(data):
            if not isinstance(scenario, dict):
                errors.append(f"{path.name}[{index}]: a scenario must be a mapping")
                continue
            scenarios.append((path.stem, scenario))
    return scenarios, errors


SCENARIOS, LOAD_ERRORS = _load_files()


def _scenario_id(stem: str, scenario: dict[str, Any]) -> str:
    return f"{stem}/{scenario.get('name', '?')}"


# --------------------------------------------------------------------------------------------
# Helpers shared by the structure test and the HTTP test


def go_json(value: Any) -> str:
    """Serialise like Go's encoding/json: compact, with <, >, & and U+2028/9 escaped."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    for char, escaped in (
        ("<", "\\u003c"),
        (">", "\\u003e"),
        ("&", "\\u0026"),
        ("\u2028", "\\u2028"),
        ("\u2029", "\\u2029"),
    ):
        text = text.replace(char, escaped)
    return text


def resolve(document: Any, path: str) -> Any:
    """Follow a path such as ``policies[0].bindings[1].name`` into a JSON value."""
    current = document
    for match in PATH_TOKEN_RE.finditer(path):
        key, index = match.groups()
        if key is not None:
            assert isinstance(current, dict), f"{path}: {key!r} applied to {type(current).__name__}"
            assert key in current, f"{path}: no key {key!r} (have {sorted(current)})"
            current = current[key]
        else:
            assert isinstance(current, list), f"{path}: [{index}] applied to {type(current).__name__}"
            assert int(index) < len(current), f"{path}: index {index} out of range ({len(current)})"
            current = current[int(index)]
    return current


def _pane_documents(value: Any) -> list[Any]:
    """The documents of one pane (text parsed as multi-document YAML, or an already-parsed value)."""
    if isinstance(value, str):
        return [doc for doc in yaml.safe_load_all(value) if doc is not None]
    if isinstance(value, list):
        return value
    return [value]


def _problem_matches(expected: dict[str, Any], actual: dict[str, Any]) -> bool:
    for key, want in expected.items():
        if key == "messageContains":
            if want not in str(actual.get("message", "")):
                return False
        elif actual.get(key) != want:
            return False
    return True


# --------------------------------------------------------------------------------------------
# Structure of the scenario files (runs without the core)


def _check_scenario(stem: str, scenario: dict[str, Any]) -> list[str]:
    """Return the structural mistakes of one scenario."""
    where = _scenario_id(stem, scenario)
    errs: list[str] = []

    def err(message: str) -> None:
        errs.append(f"{where}: {message}")

    unknown = set(scenario) - {"name", "about", "input", "expect", "pending"}
    if unknown:
        err(f"unknown keys {sorted(unknown)}")
    name = scenario.get("name")
    if not isinstance(name, str) or not NAME_RE.match(name):
        err("name must be a lowercase id (letters, digits, dashes)")
    if not isinstance(scenario.get("about"), str) or not scenario["about"].strip():
        err("about must be a non-empty sentence")
    if "pending" in scenario and (not isinstance(scenario["pending"], str) or not scenario["pending"].strip()):
        err("pending must be a sentence saying what the playground lacks")

    body = scenario.get("input")
    expect = scenario.get("expect")
    if not isinstance(body, dict) or not isinstance(expect, dict):
        err("input and expect must be mappings")
        return errs
    if set(body) - INPUT_KEYS:
        err(f"unknown input keys {sorted(set(body) - INPUT_KEYS)}")
    if "policy" not in body:
        err("input.policy is required")
    if "kubernetesVersion" in body and not isinstance(body["kubernetesVersion"], str):
        err("kubernetesVersion must be a string such as '1.34'")
    try:
        json.dumps(body)
    except (TypeError, ValueError) as exc:
        err(f"input is not JSON-serialisable: {exc}")

    # Panes with a deliberate syntax error are those named by an expected problem with a line.
    broken = {p.get("pane") for p in expect.get("problems") or [] if isinstance(p, dict) and "line" in p}
    policies: set[str] = set()
    bindings: set[str] = set()
    for pane in PANES:
        if pane not in body:
            continue
        value = body[pane]
        if not isinstance(value, str | dict | list):
            err(f"pane {pane} must be text or a parsed JSON value")
            continue
        if pane in broken:
            try:
                _pane_documents(value)
            except yaml.YAMLError:
                continue
            err(f"pane {pane} is expected to have a syntax error but parses")
            continue
        try:
            docs = _pane_documents(value)
        except yaml.YAMLError as exc:
            err(f"pane {pane} is not valid YAML: {exc}")
            continue
        if pane == "request":
            if len(docs) != 1 or not isinstance(docs[0], dict) or set(docs[0]) - REQUEST_KEYS:
                err(f"request pane must be one mapping with keys among {sorted(REQUEST_KEYS)}")
            continue
        for doc in docs:
            if not isinstance(doc, dict) or "apiVersion" not in doc or "kind" not in doc:
                err(f"pane {pane} holds a document without apiVersion/kind")
                continue
            doc_name = (doc.get("metadata") or {}).get("name")
            if doc["kind"] == POLICY_KIND:
                policies.add(doc_name)
            elif doc["kind"] == BINDING_KIND:
                bindings.add(doc_name)
    object_names = set()
    for pane in ("object", "oldObject"):
        if pane in body and pane not in broken:
            for doc in _pane_documents(body[pane]):
                meta = doc.get("metadata") or {}
                object_names.update(v for v in (meta.get("name"), meta.get("generateName")) if v)
    request = body.get("request")
    if isinstance(request, dict) and request.get("name"):
        object_names.add(request["name"])

    if set(expect) - EXPECT_KEYS:
        err(f"unknown expect keys {sorted(set(expect) - EXPECT_KEYS)}")
    if not ({"allowed", "status"} & set(expect)):
        err("expect must assert the decision (allowed and/or status)")
    if "allowed" in expect and not isinstance(expect["allowed"], bool):
        err("expect.allowed must be a bool")

    status = expect.get("status", ...)
    if expect.get("allowed") is True and status not in (None, ...):
        err("an allowed request has status null")
    if expect.get("allowed") is False and not isinstance(status, dict):
        err("a denied request must give its status")
    if isinstance(status, dict):
        if set(status) - STATUS_KEYS:
            err(f"unknown status keys {sorted(set(status) - STATUS_KEYS)}")
        reason, code = status.get("reason"), status.get("code")
        if reason is not None and REASON_CODES.get(reason) != code:
            err(f"status reason {reason} goes with code {REASON_CODES.get(reason)}, not {code}")
        message = status.get("message")
        if message is not None:
            match = STATUS_MESSAGE_RE.match(message)
            if not match:
                err(f"status.message does not have the apiserver's shape: {message!r}")
            else:
                if match["policy"] not in policies:
                    err(f"status.message names unknown policy {match['policy']!r}")
                if match["binding"] is not None and match["binding"] not in bindings:
                    err(f"status.message names unknown binding {match['binding']!r}")
                if match["name"] not in object_names:
                    err(f"status.message names {match['name']!r}, not the request's object")

    warnings = expect.get("warnings")
    if warnings is not None:
        if not isinstance(warnings, list) or not all(isinstance(w, str) for w in warnings):
            err("warnings must be a list of strings")
        else:
            for warning in warnings:
                match = WARNING_RE.match(warning)
                if not match:
                    err(f"warning does not have the apiserver's shape: {warning!r}")
                elif match["policy"] not in policies or match["binding"] not in bindings:
                    err(f"warning names an unknown policy or binding: {warning!r}")

    annotations = expect.get("auditAnnotations")
    if annotations is not None:
        if not isinstance(annotations, dict):
            err("auditAnnotations must be a mapping")
        else:
            for key, value in annotations.items():
                if not isinstance(value, str):
                    err(f"audit annotation {key} must be a string")
                elif key == VALIDATION_FAILURE_KEY:
                    errs.extend(f"{where}: {m}" for m in _check_validation_failure(value, policies, bindings))
                elif key.split("/", 1)[0] not in policies:
                    err(f"audit annotation {key!r} does not start with a policy name")

    problems = expect.get("problems")
    if problems is not None:
        if not isinstance(problems, list):
            err("problems must be a list")
        else:
            for problem in problems:
                if not isinstance(problem, dict) or not problem or set(problem) - PROBLEM_KEYS:
                    err(f"problem must be a mapping with keys among {sorted(PROBLEM_KEYS)}: {problem!r}")
                elif problem.get("pane") is not None and problem["pane"] not in PANES:
                    err(f"problem pane {problem['pane']!r} is not a pane")
                elif problem.get("severity") not in (None, "error", "warning"):
                    err(f"problem severity {problem['severity']!r} is not error/warning")

    checks = expect.get("checks")
    if checks is not None:
        if not isinstance(checks, list):
            err("checks must be a list")
        else:
            for check in checks:
                if not isinstance(check, dict) or not isinstance(check.get("path"), str):
                    err(f"check needs a path: {check!r}")
                    continue
                if not PATH_RE.match(check["path"]):
                    err(f"check path {check['path']!r} is malformed")
                operators = set(check) - {"path"}
                if len(operators) != 1 or not operators <= CHECK_OPERATORS:
                    err(f"check needs exactly one of {sorted(CHECK_OPERATORS)}: {check!r}")
    return errs


def _check_validation_failure(text: str, policies: set[str], bindings: set[str]) -> list[str]:
    """A validation_failure value must be Go-style JSON of entries in the apiserver's field order."""
    try:
        entries = json.loads(text)
    except ValueError as exc:
        return [f"validation_failure is not JSON: {exc}"]
    errs = []
    if go_json(entries) != text:
        errs.append(f"validation_failure is not Go-encoded; expected {go_json(entries)}")
    if not isinstance(entries, list) or not entries:
        return [*errs, "validation_failure must be a non-empty list"]
    for entry in entries:
        if not isinstance(entry, dict) or list(entry) != VALIDATION_FAILURE_FIELDS:
            errs.append(f"validation_failure entry fields must be {VALIDATION_FAILURE_FIELDS}")
            continue
        if entry["policy"] not in policies or entry["binding"] not in bindings:
            errs.append(f"validation_failure names an unknown policy or binding: {entry}")
    return errs


def test_scenario_structure() -> None:
    """The scenario files load, are well-formed, and their names are unique."""
    assert not LOAD_ERRORS, "\n".join(LOAD_ERRORS)
    assert SCENARIOS, f"no scenarios found in {SCENARIO_DIR}"
    problems: list[str] = []
    seen: dict[str, str] = {}
    for stem, scenario in SCENARIOS:
        problems.extend(_check_scenario(stem, scenario))
        name = scenario.get("name")
        if isinstance(name, str):
            if name in seen:
                problems.append(f"duplicate scenario name {name!r} in {seen[name]} and {stem}")
            seen.setdefault(name, stem)
    assert not problems, "\n".join(problems)


def test_path_resolution() -> None:
    """The checks' path syntax reaches nested keys and list items."""
    doc = {"policies": [{"bindings": [{"name": "a"}, {"name": "b"}]}]}
    assert resolve(doc, "policies[0].bindings[1].name") == "b"
    assert resolve({"x": [[1, 2]]}, "x[0][1]") == 2


def test_go_json() -> None:
    """go_json reproduces encoding/json's escaping of HTML characters."""
    assert go_json([{"m": "a <= b & c > d", "q": '"'}]) == '[{"m":"a \\u003c= b \\u0026 c \\u003e d","q":"\\""}]'


# --------------------------------------------------------------------------------------------
# The scenarios themselves, through the JSON API


@pytest.fixture(scope="module")
def client():
    from app import create_app

    app = create_app({"TESTING": True})
    return app.test_client()


@pytest.mark.parametrize(
    "scenario",
    [
        pytest.param(
            scenario,
            id=_scenario_id(stem, scenario),
            marks=[pytest.mark.xfail(reason=scenario["pending"], strict=True)] if scenario.get("pending") else [],
        )
        for stem, scenario in SCENARIOS
    ],
)
def test_scenario(client, scenario: dict[str, Any]) -> None:
    """Post the scenario's input and compare the response with its expectations."""
    response = client.post(ENDPOINT, json=scenario["input"])
    assert response.status_code == 200, response.get_data(as_text=True)
    result = response.get_json()
    expect = scenario["expect"]
    shown = json.dumps(result, indent=1, ensure_ascii=False)[:6000]

    if "allowed" in expect:
        assert result["allowed"] is expect["allowed"], shown
    if "status" in expect:
        if expect["status"] is None:
            assert result["status"] is None, shown
        else:
            assert isinstance(result["status"], dict), shown
            for key, want in expect["status"].items():
                assert result["status"].get(key) == want, f"status.{key}\n{shown}"
    if "warnings" in expect:
        assert result["warnings"] == expect["warnings"], shown
    if "auditAnnotations" in expect:
        assert result["auditAnnotations"] == expect["auditAnnotations"], shown
    if "problems" in expect:
        actual = result["problems"]
        if not expect["problems"]:
            errors = [p for p in actual if p.get("severity") == "error"]
            assert not errors, shown
        for want in expect["problems"]:
            assert any(_problem_matches(want, got) for got in actual), f"missing problem {want}\n{shown}"
    for check in expect.get("checks") or []:
        value = resolve(result, check["path"])
        if "equals" in check:
            assert value == check["equals"], f"{check['path']}\n{shown}"
        elif "contains" in check:
            assert check["contains"] in value, f"{check['path']}\n{shown}"
        elif "matches" in check:
            assert re.fullmatch(check["matches"], value, re.DOTALL), f"{check['path']}\n{shown}"
        else:
            assert len(value) == check["length"], f"{check['path']}\n{shown}"
