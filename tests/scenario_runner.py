"""The runner of the table tests in tests/scenarios/ and tests/admission_scenarios/.

Both folders hold YAML files, each a list of scenarios with a ``name`` (a lowercase id, unique in
its folder), an ``about`` sentence, an ``expect`` mapping and an optional ``pending`` sentence.

In tests/scenarios/ a scenario gives its POST /api/v1/evaluate body as ``input``. In
tests/admission_scenarios/ it gives either ``input`` or one of two shorthands, which
:meth:`Scenario.body` expands to a body:

* ``webhook``: one webhook (``spec``, optional ``kind`` and ``apiVersion``) put into a webhook
  configuration ``test-hooks`` whose webhook ``check.example.com`` has a URL, ``sideEffects: None``
  (v1) and ``admissionReviewVersions: [v1]`` unless ``spec`` says otherwise;
* ``kyverno``: the ``match``/``exclude`` blocks (and optional ``spec`` fields, ``kind``, ``namespace``)
  of one rule ``check`` in a policy ``kyv-test`` that fails every request it applies to (Enforce,
  expression ``false``, message ``matched``).

With a shorthand, ``object``, ``oldObject``, ``namespace``, ``params``, ``request`` and
``kubernetesVersion`` are the other panes (a parsed value is sent as JSON text).

``expect`` keys, only those present being checked (:func:`check_expectations`):

* ``allowed``: the decision.
* ``status``: ``null``, or a mapping compared as a subset (``code``, ``reason``, ``message``; in
  tests/admission_scenarios/ also ``messageContains``, a substring of the message).
* ``warnings``: the exact list, in order.
* ``auditAnnotations``: the exact mapping.
* ``problems``: each listed problem must match one reported problem on the keys given
  (``messageContains`` is a substring of ``message``); an empty list means "no error problem".
* ``checks``: ``{path, equals | contains | matches | length}`` on the response (``matches`` is a
  regular expression for the whole string), the path written with dotted keys and ``[i]`` indexes,
  e.g. ``policies[0].bindings[0].evaluations[0].validations[1].result``.
* ``called`` (tests/admission_scenarios/): the first webhook would be sent the request.
* ``applies`` (tests/admission_scenarios/): a Kyverno rule applies, so the request is denied with
  ``check: matched``; or none does, and it is allowed.

A ``pending`` sentence marks a Kubernetes fact the playground does not reproduce yet and says what is
missing: the scenario is then a strict expected failure, to be taken out of ``pending`` once it passes.

Every scenario is evaluated by the core (:func:`evaluate_core`) and checked against its
expectations; each file is also sent once through the JSON API (:func:`http_differences`), which
must answer what the core answers. The structure checks (:func:`plain_structure_errors`,
:func:`admission_structure_errors`) read the files only.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

TESTS_DIR = Path(__file__).parent
PLAIN_DIR = TESTS_DIR / "scenarios"
ADMISSION_DIR = TESTS_DIR / "admission_scenarios"
ENDPOINT = "/api/v1/evaluate"

PANES = ("policy", "binding", "params", "object", "oldObject", "namespace", "request")
INPUT_KEYS = frozenset({*PANES, "kubernetesVersion"})
EXPECT_KEYS = frozenset({"allowed", "status", "warnings", "auditAnnotations", "problems", "checks"})
ADMISSION_EXPECT_KEYS = EXPECT_KEYS | {"called", "applies"}
STATUS_KEYS = frozenset({"code", "reason", "message"})
ADMISSION_STATUS_KEYS = STATUS_KEYS | {"messageContains"}
PROBLEM_KEYS = frozenset({"pane", "document", "line", "column", "path", "severity", "message", "messageContains"})
CHECK_OPERATORS = frozenset({"equals", "contains", "matches", "length"})
REQUEST_KEYS = frozenset(
    {"operation", "userInfo", "subResource", "name", "namespace", "dryRun", "options", "resource", "kind",
     "fieldValidation", "asStored"}
)
SCENARIO_KEYS = frozenset({"name", "about", "input", "expect", "pending"})
SHORTHANDS = ("webhook", "kyverno")
SHORTHAND_PANES = ("params", "object", "oldObject", "namespace", "request")
ADMISSION_SCENARIO_KEYS = SCENARIO_KEYS | {*SHORTHANDS, *SHORTHAND_PANES, "kubernetesVersion"}
WEBHOOK_KEYS = frozenset({"spec", "kind", "apiVersion"})
KYVERNO_KEYS = frozenset({"match", "exclude", "spec", "kind", "namespace"})
# The HTTP code that goes with each reason a policy denial can carry (NotFound: a missing Namespace).
REASON_CODES = {"Forbidden": 403, "Invalid": 422, "RequestEntityTooLarge": 413, "NotFound": 404}
VALIDATION_FAILURE_KEY = "validation.policy.admission.k8s.io/validation_failure"
# the PodSecurity plugin's audit annotations (every Pod it evaluates gets its enforce-policy annotation)
POD_SECURITY_PREFIX = "pod-security.kubernetes.io/"
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
# The response keys shown first when an expectation fails.
SHOWN_FIRST = ("allowed", "status", "warnings", "auditAnnotations", "problems", "rejected", "webhooks", "kyverno",
               "admission")
SHOWN_CHARS = 8000


# --------------------------------------------------------------------------------------------
# Loading


@dataclass(frozen=True)
class Scenario:
    """One scenario of one file."""

    folder: str  # "scenarios" or "admission_scenarios"
    stem: str  # the file's name without .yaml
    data: dict[str, Any]

    def __repr__(self) -> str:
        return f"Scenario({self.folder}/{self.id})"

    @property
    def name(self) -> str:
        return str(self.data.get("name", "?"))

    @property
    def id(self) -> str:
        """The test id: the file and the scenario."""
        return f"{self.stem}/{self.name}"

    @property
    def expect(self) -> dict[str, Any]:
        return self.data["expect"]

    def body(self) -> dict[str, Any]:
        """The POST /api/v1/evaluate body the scenario stands for (shorthands expanded)."""
        return expand(self.data)


@dataclass
class ScenarioSet:
    """The scenarios of one folder, in file order, and the mistakes that kept any from loading."""

    folder: Path
    scenarios: list[Scenario] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def by_file(self) -> dict[str, list[Scenario]]:
        files: dict[str, list[Scenario]] = {}
        for scenario in self.scenarios:
            files.setdefault(scenario.stem, []).append(scenario)
        return files


def load(folder: Path) -> ScenarioSet:
    """Read every scenario file of a folder."""
    loaded = ScenarioSet(folder)
    for path in sorted(folder.glob("*.yaml")):
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except yaml.YAMLError as exc:
            loaded.errors.append(f"{path.name}: not valid YAML: {exc}")
            continue
        if not isinstance(data, list):
            loaded.errors.append(f"{path.name}: top level must be a list of scenarios")
            continue
        for index, scenario in enumerate(data):
            if not isinstance(scenario, dict):
                loaded.errors.append(f"{path.name}[{index}]: a scenario must be a mapping")
                continue
            loaded.scenarios.append(Scenario(folder.name, path.stem, scenario))
    return loaded


PLAIN = load(PLAIN_DIR)
ADMISSION = load(ADMISSION_DIR)


def scenario_params(scenarios: Iterable[Scenario]) -> list[Any]:
    """One pytest parameter per scenario, named by its id; a pending scenario is a strict xfail."""
    return [
        pytest.param(
            scenario,
            id=scenario.id,
            marks=[pytest.mark.xfail(reason=scenario.data["pending"], strict=True)] if scenario.data.get("pending")
            else [],
        )
        for scenario in scenarios
    ]


def file_params(loaded: ScenarioSet) -> list[Any]:
    """One pytest parameter per file (its scenarios), named by the file."""
    return [pytest.param(scenarios, id=stem) for stem, scenarios in loaded.by_file().items()]


# --------------------------------------------------------------------------------------------
# Shorthands


def _text(value: Any) -> Any:
    return value if isinstance(value, str) or value is None else json.dumps(value)


def _webhook_policy(hook: dict[str, Any]) -> str:
    api_version = hook.get("apiVersion", "v1")
    spec: dict[str, Any] = {"name": "check.example.com", "clientConfig": {"url": "https://hooks.example.com/check"},
                            "admissionReviewVersions": ["v1"]}
    if api_version == "v1":
        spec["sideEffects"] = "None"
    spec.update(copy.deepcopy(hook.get("spec") or {}))
    config = {"apiVersion": f"admissionregistration.k8s.io/{api_version}",
              "kind": hook.get("kind", "ValidatingWebhookConfiguration"),
              "metadata": {"name": "test-hooks"}, "webhooks": [spec]}
    return json.dumps(config)


def _kyverno_policy(k: dict[str, Any]) -> str:
    rule: dict[str, Any] = {"name": "check", "match": copy.deepcopy(k["match"]),
                            "validate": {"message": "matched", "cel": {"expressions": [{"expression": "false"}]}}}
    if "exclude" in k:
        rule["exclude"] = copy.deepcopy(k["exclude"])
    spec = {"validationFailureAction": "Enforce", "background": False, "rules": [rule]}
    spec.update(copy.deepcopy(k.get("spec") or {}))
    metadata: dict[str, Any] = {"name": "kyv-test"}
    if k.get("namespace"):
        metadata["namespace"] = k["namespace"]
    policy = {"apiVersion": "kyverno.io/v1", "kind": k.get("kind", "ClusterPolicy"), "metadata": metadata,
              "spec": spec}
    return json.dumps(policy)


def expand(data: dict[str, Any]) -> dict[str, Any]:
    """The API body of a scenario: its ``input``, or the body its ``webhook``/``kyverno`` shorthand stands for."""
    if "input" in data:
        return data["input"]
    out: dict[str, Any] = {pane: _text(data[pane]) for pane in PANES if pane in data}
    out["policy"] = _webhook_policy(data["webhook"]) if "webhook" in data else _kyverno_policy(data["kyverno"])
    if "kubernetesVersion" in data:
        out["kubernetesVersion"] = data["kubernetesVersion"]
    return out


# --------------------------------------------------------------------------------------------
# Running


# The core's response to each scenario run so far, by folder and id, for the pass through the JSON API.
_core_responses: dict[tuple[str, str], dict[str, Any]] = {}


def evaluate_core(body: dict[str, Any]) -> dict[str, Any]:
    """The core's response to a body, given the body as the JSON API would decode it (a fresh copy)."""
    from app import vap

    return vap.evaluate(json.loads(json.dumps(body)))


def core_response(scenario: Scenario) -> dict[str, Any]:
    """The core's response to a scenario: the one its own test got, else evaluated now. (The core answers
    the same body alike each time, so the pass through the API need not evaluate every scenario again.)"""
    key = (scenario.folder, scenario.id)
    if key not in _core_responses:
        _core_responses[key] = evaluate_core(scenario.body())
    return _core_responses[key]


def http_differences(client: Any, scenarios: Iterable[Scenario]) -> list[str]:
    """Post each scenario's body to the JSON API; return, per scenario whose answer is not 200 with the
    JSON of the core's response, what differs (an empty list: the web layer answers as the core)."""
    differences: list[str] = []
    for scenario in scenarios:
        body = scenario.body()
        response = client.post(ENDPOINT, json=body)
        if response.status_code != 200 or not response.is_json:
            differences.append(f"{scenario.id}: HTTP {response.status_code} "
                               f"{response.mimetype}: {response.get_data(as_text=True)[:500]}")
            continue
        answer = response.get_json()
        core = core_response(scenario)
        if answer != core and answer != (core := json.loads(json.dumps(core))):  # as JSON, tuples are lists
            keys = sorted(k for k in answer.keys() | core.keys() if answer.get(k, ...) != core.get(k, ...))
            differences.append(f"{scenario.id}: the API's answer differs from the core's in {keys}")
    return differences


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


def problem_matches(expected: dict[str, Any], actual: dict[str, Any]) -> bool:
    """Whether a reported problem has every key of an expected one (messageContains: within the message)."""
    for key, want in expected.items():
        if key == "messageContains":
            if want not in str(actual.get("message", "")):
                return False
        elif actual.get(key) != want:
            return False
    return True


def shown(result: dict[str, Any]) -> str:
    """The response as a failure message shows it (its decision and chain first, cut short)."""
    first = {k: result[k] for k in SHOWN_FIRST if k in result}
    ordered = {**first, **{k: v for k, v in result.items() if k not in first}}
    return json.dumps(ordered, indent=1, ensure_ascii=False)[:SHOWN_CHARS]


def check_expectations(result: dict[str, Any], expect: dict[str, Any]) -> None:
    """Assert that a response meets every key of a scenario's ``expect`` (either folder's keys)."""
    # Each message is a call, so the response is only formatted for a failure.
    if "allowed" in expect:
        assert result["allowed"] is expect["allowed"], shown(result)
    if "status" in expect:
        if expect["status"] is None:
            assert result["status"] is None, shown(result)
        else:
            status = result["status"]
            assert isinstance(status, dict), shown(result)
            for key, want in expect["status"].items():
                if key == "messageContains":
                    assert isinstance(status.get("message"), str), f"status.message\n{shown(result)}"
                    assert want in status["message"], f"status.message\n{shown(result)}"
                else:
                    assert status.get(key) == want, f"status.{key}\n{shown(result)}"
    if "warnings" in expect:
        assert result["warnings"] == expect["warnings"], shown(result)
    if "auditAnnotations" in expect:
        assert result["auditAnnotations"] == expect["auditAnnotations"], shown(result)
    if "problems" in expect:
        actual = result["problems"]
        if not expect["problems"]:
            assert all("severity" in p for p in actual), shown(result)
            assert not [p for p in actual if p["severity"] == "error"], shown(result)
        for want in expect["problems"]:
            assert any(problem_matches(want, got) for got in actual), f"missing problem {want}\n{shown(result)}"
    if "called" in expect:
        assert result["webhooks"][0]["called"] is expect["called"], shown(result)
    if "applies" in expect:
        rules = [r for p in result["kyverno"] for r in p["rules"]]
        assert any(r["matched"] for r in rules) is expect["applies"], shown(result)
        if expect["applies"]:
            assert result["allowed"] is False, shown(result)
            assert "check: matched" in result["status"]["message"], shown(result)
        else:
            assert result["allowed"] is True, shown(result)
    for check in expect.get("checks") or []:
        value = resolve(result, check["path"])
        if "equals" in check:
            assert value == check["equals"], f"{check['path']}\n{shown(result)}"
        elif "contains" in check:
            assert check["contains"] in value, f"{check['path']}\n{shown(result)}"
        elif "matches" in check:
            assert re.fullmatch(check["matches"], value, re.DOTALL), f"{check['path']}\n{shown(result)}"
        else:
            assert len(value) == check["length"], f"{check['path']}\n{shown(result)}"


def run_scenario(scenario: Scenario) -> None:
    """Evaluate a scenario with the core and check its expectations."""
    result = evaluate_core(scenario.body())
    _core_responses[scenario.folder, scenario.id] = result
    check_expectations(result, scenario.expect)


# --------------------------------------------------------------------------------------------
# Structure of the files (no evaluation)


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


def _pane_documents(value: Any) -> list[Any]:
    """The documents of one pane (text parsed as multi-document YAML, or an already-parsed value)."""
    if isinstance(value, str):
        return [doc for doc in yaml.safe_load_all(value) if doc is not None]
    if isinstance(value, list):
        return value
    return [value]


def _unique_names(loaded: ScenarioSet) -> list[str]:
    errs: list[str] = []
    seen: dict[str, str] = {}
    for scenario in loaded.scenarios:
        name = scenario.data.get("name")
        if isinstance(name, str):
            if name in seen:
                errs.append(f"duplicate scenario name {name!r} in {seen[name]} and {scenario.stem}")
            seen.setdefault(name, scenario.stem)
    return errs


def _check_problems_and_checks(expect: dict[str, Any], err: Callable[[str], None]) -> None:
    """The ``problems`` and ``checks`` of an expect mapping are well-formed."""
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


def _check_common_keys(data: dict[str, Any], allowed: frozenset[str], err: Callable[[str], None]) -> None:
    """The keys every scenario of either format has: only known ones, a name, an about, an optional pending."""
    unknown = set(data) - allowed
    if unknown:
        err(f"unknown keys {sorted(unknown)}")
    name = data.get("name")
    if not isinstance(name, str) or not NAME_RE.match(name):
        err("name must be a lowercase id (letters, digits, dashes)")
    if not isinstance(data.get("about"), str) or not data["about"].strip():
        err("about must be a non-empty sentence")
    if "pending" in data and (not isinstance(data["pending"], str) or not data["pending"].strip()):
        err("pending must be a sentence saying what the playground lacks")


def check_plain_scenario(scenario: Scenario) -> list[str]:
    """Return the structural mistakes of one scenario of tests/scenarios/ (the hand-written strings are
    checked against the apiserver's formats)."""
    where = scenario.id
    data = scenario.data
    errs: list[str] = []

    def err(message: str) -> None:
        errs.append(f"{where}: {message}")

    _check_common_keys(data, SCENARIO_KEYS, err)

    body = data.get("input")
    expect = data.get("expect")
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
    parsed: dict[str, list[Any]] = {}  # each readable pane's documents, read once
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
            docs = parsed[pane] = _pane_documents(value)
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
            for doc in parsed[pane] if pane in parsed else _pane_documents(body[pane]):
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
                elif key.split("/", 1)[0] not in policies and not key.startswith(POD_SECURITY_PREFIX):
                    err(f"audit annotation {key!r} does not start with a policy name")

    _check_problems_and_checks(expect, err)
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


def plain_structure_errors(loaded: ScenarioSet) -> list[str]:
    """The mistakes of tests/scenarios/: files that do not load, malformed scenarios, repeated names."""
    errs = list(loaded.errors)
    for scenario in loaded.scenarios:
        errs.extend(check_plain_scenario(scenario))
    return errs + _unique_names(loaded)


def check_admission_scenario(scenario: Scenario) -> list[str]:
    """Return the structural mistakes of one scenario of tests/admission_scenarios/."""
    where = scenario.id
    data = scenario.data
    errs: list[str] = []

    def err(message: str) -> None:
        errs.append(f"{where}: {message}")

    _check_common_keys(data, ADMISSION_SCENARIO_KEYS, err)
    forms = [k for k in ("input", *SHORTHANDS) if k in data]
    if len(forms) != 1:
        err(f"exactly one of input, webhook and kyverno is required (have {forms})")
        return errs
    if "input" in data:
        beside = sorted(set(data) & {*SHORTHAND_PANES, "kubernetesVersion"})
        if beside:
            err(f"with input, the panes belong in it, not beside it: {beside}")
        if not isinstance(data["input"], dict):
            err("input must be a mapping")
            return errs
        if set(data["input"]) - INPUT_KEYS:
            err(f"unknown input keys {sorted(set(data['input']) - INPUT_KEYS)}")
        if "policy" not in data["input"]:
            err("input.policy is required")
    elif "webhook" in data:
        if not isinstance(data["webhook"], dict) or set(data["webhook"]) - WEBHOOK_KEYS:
            err(f"webhook must be a mapping with keys among {sorted(WEBHOOK_KEYS)}")
            return errs
    elif not isinstance(data["kyverno"], dict) or set(data["kyverno"]) - KYVERNO_KEYS or "match" not in data["kyverno"]:
        err(f"kyverno must be a mapping with match and keys among {sorted(KYVERNO_KEYS)}")
        return errs
    body = scenario.body()
    if "kubernetesVersion" in body and not isinstance(body["kubernetesVersion"], str):
        err("kubernetesVersion must be a string such as '1.34'")
    try:
        json.dumps(body)
    except (TypeError, ValueError) as exc:
        err(f"the body is not JSON-serialisable: {exc}")

    expect = data.get("expect")
    if not isinstance(expect, dict) or not expect:
        err("expect is required: a non-empty mapping")
        return errs
    if set(expect) - ADMISSION_EXPECT_KEYS:
        err(f"unknown expect keys {sorted(set(expect) - ADMISSION_EXPECT_KEYS)}")
    for key in ("allowed", "called", "applies"):
        if key in expect and not isinstance(expect[key], bool):
            err(f"expect.{key} must be a bool")
    status = expect.get("status")
    if status is not None and (not isinstance(status, dict) or set(status) - ADMISSION_STATUS_KEYS):
        err(f"status must be null or a mapping with keys among {sorted(ADMISSION_STATUS_KEYS)}")
    warnings = expect.get("warnings")
    if warnings is not None and (not isinstance(warnings, list) or not all(isinstance(w, str) for w in warnings)):
        err("warnings must be a list of strings")
    annotations = expect.get("auditAnnotations")
    if annotations is not None and not isinstance(annotations, dict):
        err("auditAnnotations must be a mapping")
    _check_problems_and_checks(expect, err)
    return errs


def admission_structure_errors(loaded: ScenarioSet) -> list[str]:
    """The mistakes of tests/admission_scenarios/: files that do not load, malformed scenarios, repeated names."""
    errs = list(loaded.errors)
    for scenario in loaded.scenarios:
        errs.extend(check_admission_scenario(scenario))
    return errs + _unique_names(loaded)
