"""Test suites: a scenario's policies and bindings checked against many requests.

A suite is a scenario (the JSON API body: panes and ``kubernetesVersion``) with a ``testCases``
list. Each case describes one admission request and the outcome it must get::

    testCases:
    - name: a Deployment with 5 replicas is denied
      object: |              # YAML or JSON text, or a mapping; the request's object
        apiVersion: apps/v1
        ...
      oldObject: ...         # for UPDATE and DELETE
      operation: UPDATE      # default: derived from object and oldObject, as the API does
      userInfo: {username: alice, groups: [dev]}
      request: {subResource: scale, dryRun: true}   # any other request attribute
      namespace: ...         # Namespace documents (replace the scenario's Namespace pane)
      params: ...            # param objects (replace the scenario's Params pane)
      expect:
        allowed: false
        message: "at most 3"             # substring of the denial message
        code: 422                        # and reason: Invalid
        warning: true                    # true, false, or a substring of a warning
        auditAnnotations: {"policy.example.com/key": "substring", "other/key": null}
        policies: {policy.example.com: fail}   # pass, fail, skip or error per policy
        object:                          # fields the admitted object must have (a subset, see expected_object)
          metadata: {labels: {team: web}}

A case takes the policy and binding panes, the Kubernetes version and, unless it gives its own,
the params and namespace panes from its scenario; it takes every attribute of the Request pane
but ``operation`` (its objects decide that). ``expect`` may also be one word: ``allowed``,
``denied`` or ``warning``. ``expect.object`` is compared with the response's ``object``, the object after
every mutating stage (what the apiserver would store; for a denied request, the object as it was when the request
was refused), as a subset (:mod:`.expected_object`).

The per-policy result follows Kyverno CLI's reading of a ValidatingAdmissionPolicy: ``skip``
when the policy takes no part (not matched, no binding matched, a matchCondition false),
``fail`` when a validation failed whatever the binding's validationActions, ``error`` when an
expression or the configuration failed, ``pass`` otherwise. A MutatingAdmissionPolicy has
``pass`` when its mutations ran, ``error`` when one failed, ``skip`` when it took no part.

Rule: pure, like the rest of the core; the cases are evaluated by :func:`evaluate`.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import yaml

from . import expected_object
from .documents import Document, load_pane
from .evaluate import evaluate
from .request import OPERATIONS

CASE_FIELDS = ("name", "object", "oldObject", "operation", "userInfo", "request", "namespace", "params", "expect")
EXPECT_FIELDS = ("allowed", "message", "code", "reason", "warning", "auditAnnotations", "policies", "object")
EXPECT_WORDS = {"allowed": {"allowed": True}, "denied": {"allowed": False},
                "warning": {"allowed": True, "warning": True}}
CASE_PANES = ("object", "oldObject", "namespace", "params")
POLICY_RESULTS = ("pass", "fail", "skip", "error")
PASS, FAIL, ERROR = "pass", "fail", "error"
# Most cases one suite may hold: each case is one evaluation.
MAX_CASES = 200
PANE = "testCases"

_SEVERITY = {"skip": 0, "pass": 1, "fail": 2, "error": 3}
OBJECT_DIFFERS = "the admitted object differs: "


@dataclass(frozen=True)
class Expectation:
    """What a case expects of the response; None means not checked."""

    allowed: bool | None = None
    message: str | None = None
    code: int | None = None
    reason: str | None = None
    warning: bool | str | None = None
    audit_annotations: dict[str, str | None] = field(default_factory=dict)
    policies: dict[str, str] = field(default_factory=dict)
    object: dict[str, Any] | None = None

    def describe(self) -> str:
        """Say what is expected, in a few words."""
        parts = []
        if self.allowed is False:
            parts.append("denied" + (f" {self.code}" if self.code else "") + (f" {self.reason}" if self.reason else ""))
        elif self.allowed is True:
            parts.append("allowed")
        if self.message is not None:
            parts.append(f"message contains {self.message!r}")
        if self.allowed is not False and (self.code or self.reason):
            parts.append(f"status {self.code or ''} {self.reason or ''}".strip())
        if self.warning is True:
            parts.append("with a warning")
        elif self.warning is False:
            parts.append("without warnings")
        elif isinstance(self.warning, str):
            parts.append(f"warning contains {self.warning!r}")
        for key, value in self.audit_annotations.items():
            parts.append(f"no audit annotation {key}" if value is None
                         else f"audit annotation {key} contains {value!r}")
        for name, result in self.policies.items():
            parts.append(f"{name}: {result}")
        if self.object is not None:
            parts.append(expected_object.describe(self.object))
        return ", ".join(parts)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in (("allowed", self.allowed), ("message", self.message), ("code", self.code),
                           ("reason", self.reason), ("warning", self.warning)):
            if value is not None:
                out[key] = value
        if self.audit_annotations:
            out["auditAnnotations"] = dict(self.audit_annotations)
        if self.policies:
            out["policies"] = dict(self.policies)
        if self.object is not None:
            out["object"] = copy.deepcopy(self.object)
        return out


@dataclass
class TestCase:
    """One case of a suite, read and checked; ``problems`` says what is wrong with its definition."""

    index: int
    name: str
    panes: dict[str, Any] = field(default_factory=dict)
    request: dict[str, Any] = field(default_factory=dict)
    expect: Expectation = field(default_factory=Expectation)
    line: int | None = None
    problems: list[dict[str, Any]] = field(default_factory=list)
    # where each pane given as text starts in the suite text (its line before the first content line)
    pane_lines: dict[str, int] = field(default_factory=dict)


@dataclass
class CaseResult:
    """The outcome of one case: pass, fail or error (the case or its input could not be evaluated)."""

    case: TestCase
    status: str
    expected: str
    actual: str
    actual_brief: str
    reasons: list[str]
    problems: list[dict[str, Any]]
    payload: dict[str, Any]
    response: dict[str, Any] | None = None
    policies: dict[str, str] = field(default_factory=dict)

    @property
    def object_differs(self) -> bool:
        """Whether the case expects an object that the response's object does not hold."""
        return self.status == FAIL and any(r.startswith(OBJECT_DIFFERS) for r in self.reasons)

    @property
    def passed(self) -> bool:
        return self.status == PASS

    def to_json(self, *, with_response: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "index": self.case.index, "name": self.case.name, "line": self.case.line, "status": self.status,
            "expected": self.expected, "actual": self.actual, "reasons": list(self.reasons),
            "problems": list(self.problems), "expect": self.case.expect.to_json(),
        }
        if self.response is not None:
            out["result"] = {
                "allowed": self.response.get("allowed"), "status": self.response.get("status"),
                "warnings": self.response.get("warnings") or [],
                "auditAnnotations": self.response.get("auditAnnotations") or {}, "policies": dict(self.policies),
            }
            if self.case.expect.object is not None:
                out["result"]["object"] = self.response.get("object")
            if with_response:
                out["response"] = self.response
        return out


@dataclass
class SuiteResult:
    """Every case's result, and the problems of the suite itself (testCases unreadable, too many)."""

    cases: list[CaseResult]
    problems: list[dict[str, Any]]

    @property
    def total(self) -> int:
        return len(self.cases)

    @property
    def passed(self) -> int:
        return sum(1 for c in self.cases if c.status == PASS)

    @property
    def failed(self) -> int:
        return sum(1 for c in self.cases if c.status == FAIL)

    @property
    def errors(self) -> int:
        return sum(1 for c in self.cases if c.status == ERROR) + (1 if self.problems else 0)

    @property
    def ok(self) -> bool:
        return not self.problems and all(c.passed for c in self.cases)

    def to_json(self, *, with_responses: bool = False) -> dict[str, Any]:
        return {
            "summary": {"total": self.total, "passed": self.passed, "failed": self.failed,
                        "errors": sum(1 for c in self.cases if c.status == ERROR)},
            "problems": list(self.problems),
            "cases": [c.to_json(with_response=with_responses) for c in self.cases],
        }


# --- reading the cases -------------------------------------------------------------------------------

def _problem(message: str, *, line: int | None = None, path: str | None = None,
             severity: str = "error", column: int | None = None) -> dict[str, Any]:
    return {"pane": PANE, "document": None, "line": line, "column": column, "path": path,
            "severity": severity, "message": message}


class _Reader:
    """Reads the cases, with the line of each field when they came as text.

    ``prefix`` is where the list sits in the document (``("testCases",)`` in a scenario file),
    ``offset`` the lines before the document (the cases as a block scalar of a scenario file).
    """

    def __init__(self, doc: Document | None, prefix: tuple[str | int, ...] = (), offset: int = 0) -> None:
        self.doc = doc
        self.prefix = prefix
        self.offset = offset

    def line(self, *path: str | int) -> int | None:
        if self.doc is None:
            return None
        line = self.doc.locate((*self.prefix, *path))[0]
        return line + self.offset if line is not None else None

    def block_start(self, *path: str | int) -> int | None:
        """The line before the first content line of a block scalar (`object: |`), else None."""
        key = (*self.prefix, *path)
        if self.doc is None or key not in self.doc.values:
            return None
        line, _, style = self.doc.values[key]
        return line + self.offset if style in ("|", ">") else None


def _path(index: int, *parts: str) -> str:
    return f"testCases[{index}]" + "".join(f".{p}" for p in parts)


def parse_cases_in_file(text: str) -> tuple[list[TestCase], list[dict[str, Any]]] | None:
    """Read the ``testCases`` of a scenario file's text with the line of each case in the file.

    Returns None when the file cannot be read this way (its reader reports why).
    """
    docs, problems = load_pane(PANE, text)
    if problems or len(docs) != 1 or not isinstance(docs[0].value, dict):
        return None
    doc = docs[0]
    tests = doc.value.get("testCases")
    if isinstance(tests, str):
        start = _Reader(doc).block_start("testCases")
        return parse_cases(tests, offset=start or 0)
    return parse_cases(tests, within=_Reader(doc, ("testCases",)))


def parse_cases(source: Any, *, offset: int = 0,
                within: _Reader | None = None) -> tuple[list[TestCase], list[dict[str, Any]]]:
    """Read a suite's ``testCases`` (YAML or JSON text, or a list); return the cases and the suite's problems.

    A case whose definition is wrong is returned with its ``problems`` (and is reported as an
    error when run); a problem with the list itself (unreadable, not a list, too long) is a
    problem of the suite.
    """
    if source is None or (isinstance(source, str) and not source.strip()):
        return [], []
    reader = within or _Reader(None)
    if isinstance(source, str):
        docs, problems = load_pane(PANE, source)
        if problems:
            return [], [{**p.to_json(), "pane": PANE} for p in problems]
        if not docs:
            return [], []
        if len(docs) > 1:
            return [], [_problem("the test cases are one YAML list; remove the --- separator",
                                 line=docs[1].locate(())[0])]
        reader = _Reader(docs[0], offset=offset)
        items = docs[0].value
    else:
        items = source
    if not isinstance(items, list):
        return [], [_problem("the test cases must be a YAML list, one item per case starting with '- name:'",
                             line=reader.line())]
    if len(items) > MAX_CASES:
        return [], [_problem(f"there are {len(items)} test cases; a suite holds at most {MAX_CASES}",
                             line=reader.line())]
    return [_parse_case(i, item, reader) for i, item in enumerate(items)], []


def _parse_case(index: int, item: Any, reader: _Reader) -> TestCase:
    case = TestCase(index=index, name=f"case {index + 1}", line=reader.line(index))

    def problem(message: str, *parts: str) -> None:
        case.problems.append(_problem(f"{_label(case)}: {message}", line=reader.line(index, *parts) or case.line,
                                      path=_path(index, *parts)))

    if not isinstance(item, Mapping):
        problem("a test case is a mapping with name, object and expect")
        return case
    name = item.get("name")
    if name is not None:
        if isinstance(name, str) and name.strip():
            case.name = name.strip()
        else:
            problem("name must be text", "name")
    for key in item:
        if key not in CASE_FIELDS:
            problem(f"unknown field {key!r}; a test case has " + ", ".join(CASE_FIELDS), str(key))
    for pane in CASE_PANES:
        value = item.get(pane)
        if value is None or value == "":
            continue
        if not isinstance(value, (str, dict, list)):
            problem("must be YAML or JSON text, or a mapping", pane)
            continue
        case.panes[pane] = value
        start = reader.block_start(index, pane)
        if start is not None:
            case.pane_lines[pane] = start
    request = item.get("request")
    if request is not None:
        if isinstance(request, str):
            docs, problems = load_pane("request", request)
            request = docs[0].value if docs and not problems else None
        if isinstance(request, Mapping):
            case.request.update(copy.deepcopy(dict(request)))
        else:
            problem("must be a mapping of request attributes (subResource, name, namespace, dryRun, ...)",
                    "request")
    operation = item.get("operation")
    if operation is not None:
        if operation in OPERATIONS:
            case.request["operation"] = operation
        else:
            problem(f"operation must be one of {', '.join(OPERATIONS)}, not {operation!r}", "operation")
    user = item.get("userInfo")
    if user is not None:
        if isinstance(user, Mapping):
            case.request["userInfo"] = copy.deepcopy(dict(user))
        else:
            problem("userInfo must be a mapping with username, uid, groups, extra", "userInfo")
    if "object" not in case.panes and "oldObject" not in case.panes:
        problem("the case needs an object (or an oldObject, for DELETE)")
    case.expect = _parse_expect(item.get("expect"), problem)
    return case


def _label(case: TestCase) -> str:
    return f"test case {case.index + 1}" + (f" ({case.name})" if case.name != f"case {case.index + 1}" else "")


def _parse_expect(value: Any, problem: Any) -> Expectation:
    if isinstance(value, str) and value in EXPECT_WORDS:
        value = EXPECT_WORDS[value]
    if not isinstance(value, Mapping) or not value:
        problem("expect is required: allowed, denied, warning, or a mapping with " + ", ".join(EXPECT_FIELDS),
                "expect")
        return Expectation()
    bad = False

    def wrong(message: str, *parts: str) -> None:
        nonlocal bad
        bad = True
        problem(message, "expect", *parts)

    for key in value:
        if key not in EXPECT_FIELDS:
            wrong(f"unknown field {key!r}; expect has " + ", ".join(EXPECT_FIELDS), str(key))
    allowed = value.get("allowed")
    if allowed is not None and not isinstance(allowed, bool):
        wrong("allowed must be true or false", "allowed")
    message = value.get("message")
    if message is not None and not isinstance(message, str):
        wrong("message must be text (a part of the denial message)", "message")
    if message is not None and allowed is True:
        wrong("message is the denial message: with allowed: true, use warning: 'text' for a warning", "message")
    code = value.get("code")
    if code is not None and (isinstance(code, bool) or not isinstance(code, int)):
        wrong("code must be an HTTP status code such as 403 or 422", "code")
    reason = value.get("reason")
    if reason is not None and not isinstance(reason, str):
        wrong("reason must be text such as Invalid or Forbidden", "reason")
    warning = value.get("warning")
    if warning is not None and not isinstance(warning, (bool, str)):
        wrong("warning must be true, false, or a part of the expected warning", "warning")
    annotations = value.get("auditAnnotations") or {}
    if not isinstance(annotations, Mapping) or not all(
            isinstance(v, str) or v is None for v in annotations.values()):
        wrong("auditAnnotations maps '<policy>/<key>' to a part of the value, or to null for no annotation",
              "auditAnnotations")
        annotations = {}
    policies = value.get("policies") or {}
    if not isinstance(policies, Mapping) or not all(v in POLICY_RESULTS for v in policies.values()):
        wrong("policies maps a policy name to " + ", ".join(POLICY_RESULTS), "policies")
        policies = {}
    expected = _expected_object(value.get("object"), wrong)
    if bad:
        return Expectation()
    return Expectation(allowed=allowed, message=message, code=code, reason=reason, warning=warning,
                       audit_annotations={str(k): v for k, v in annotations.items()},
                       policies={str(k): str(v) for k, v in policies.items()}, object=expected)


def _expected_object(value: Any, wrong: Any) -> dict[str, Any] | None:
    """``expect.object``: a mapping, or YAML or JSON text holding one."""
    if value is None:
        return None
    if isinstance(value, str):
        docs, problems = load_pane("object", value)
        if problems:
            wrong(f"object is not readable: {problems[0].message}", "object")
            return None
        value = docs[0].value if len(docs) == 1 else None
    if not isinstance(value, Mapping) or not value:
        wrong("object must be one mapping: the fields the admitted object must have", "object")
        return None
    return copy.deepcopy(dict(value))


# --- running -----------------------------------------------------------------------------------------

def _request_base(source: Any) -> dict[str, Any] | None:
    """The scenario's Request pane as a mapping without its operation; None when it cannot be read."""
    docs, problems = load_pane("request", source)
    if problems or (docs and not isinstance(docs[0].value, dict)):
        return None
    base = copy.deepcopy(docs[0].value) if docs else {}
    base.pop("operation", None)
    return base


def case_payload(scenario: Mapping[str, Any], case: TestCase) -> dict[str, Any]:
    """Return the JSON API body that evaluates a case: its objects and request over the scenario."""
    payload: dict[str, Any] = {}
    for pane in ("policy", "binding", "params", "namespace"):
        if scenario.get(pane) not in (None, ""):
            payload[pane] = scenario[pane]
    if scenario.get("kubernetesVersion"):
        payload["kubernetesVersion"] = scenario["kubernetesVersion"]
    payload.update(copy.deepcopy(case.panes))
    base = _request_base(scenario.get("request"))
    if base is None:
        payload["request"] = scenario.get("request")  # evaluate reports why it cannot be read
    else:
        request = {**base, **copy.deepcopy(case.request)}
        if request:
            payload["request"] = request
    return payload


def policy_results(response: Mapping[str, Any]) -> dict[str, str]:
    """Each policy's result for the request: pass, fail, skip or error (see the module's docstring)."""
    results: dict[str, str] = {}
    for record in response.get("policies") or []:
        if record.get("missing"):
            continue
        result = "error" if record.get("configurationErrors") else "skip"
        for binding in record.get("bindings") or []:
            if binding.get("configurationErrors"):
                result = _worse(result, "error")
            for ev in binding.get("evaluations") or []:
                decisions = ev.get("decisions") or []
                if ev.get("matched") is False and not any(d.get("evaluation") == "error" for d in decisions):
                    continue
                result = _worse(result, "pass")
                for d in decisions:
                    if d.get("evaluation") == "error":
                        result = _worse(result, "error")
                    elif d.get("action") == "deny" or d.get("evaluation") == "deny":
                        result = _worse(result, "fail")
                if any(a.get("error") and a.get("action") == "error" for a in ev.get("auditAnnotations") or []):
                    result = _worse(result, "error")
        results[str(record.get("name"))] = _worse(results.get(str(record.get("name")), "skip"), result)
    for record in response.get("mutatingPolicies") or []:
        name = str(record.get("name"))
        results[name] = _worse(results.get(name, "skip"), _mutating_result(record))
    return results


def _mutating_result(record: Mapping[str, Any]) -> str:
    """A MutatingAdmissionPolicy's result: ``error`` when configuring it, a matchCondition or a mutation failed
    (whatever its failurePolicy), ``pass`` when its mutations ran, ``skip`` when it took no part."""
    result = "error" if record.get("errors") else "skip"
    for binding in record.get("bindings") or []:
        if binding.get("errors"):
            result = _worse(result, "error")
        for ev in binding.get("evaluations") or []:
            if ev.get("errors") or any(m.get("error") for m in ev.get("mutations") or []):
                result = _worse(result, "error")
            elif ev.get("matched") is not False:
                result = _worse(result, "pass")
    return result


def _worse(a: str, b: str) -> str:
    return a if _SEVERITY[a] >= _SEVERITY[b] else b


def describe_response(response: Mapping[str, Any], *, brief: bool = False) -> str:
    """Say what happened, in a few words; ``brief`` leaves out every message (it may name the object)."""
    if response.get("request") is None:
        errors = [p for p in response.get("problems") or [] if p.get("severity") == "error"]
        return f"not evaluated: {len(errors)} problem{'' if len(errors) == 1 else 's'} in the input"
    warnings = response.get("warnings") or []
    status = response.get("status") or {}
    if not response.get("allowed"):
        text = f"denied {status.get('code', '')} {status.get('reason', '')}".rstrip()
        return text if brief else f"{text}: {status.get('message', '')}"
    if not warnings:
        return "allowed"
    text = f"allowed with {len(warnings)} warning{'' if len(warnings) == 1 else 's'}"
    return text if brief else text + ": " + " | ".join(warnings)


def check(expect: Expectation, response: Mapping[str, Any], policies: Mapping[str, str]) -> list[str]:
    """Return why the response does not meet the expectation (empty when it does)."""
    reasons: list[str] = []
    allowed = bool(response.get("allowed"))
    status = response.get("status") or {}
    message = str(status.get("message") or "")
    warnings = [str(w) for w in response.get("warnings") or []]
    if expect.allowed is not None and expect.allowed != allowed:
        reasons.append("expected the request to be allowed, but it was denied: " + message if expect.allowed
                       else "expected the request to be denied, but it was allowed")
    if expect.message is not None:
        if allowed:
            if expect.allowed is None:
                reasons.append(f"expected a denial message containing {expect.message!r}, but the request was allowed")
        elif expect.message not in message:
            reasons.append(f"expected the denial message to contain {expect.message!r}; it is: {message}")
    if expect.code is not None and status.get("code") != expect.code:
        reasons.append(f"expected status code {expect.code}, got {status.get('code') if status else 'none (allowed)'}")
    if expect.reason is not None and status.get("reason") != expect.reason:
        reasons.append(f"expected reason {expect.reason}, got {status.get('reason') if status else 'none (allowed)'}")
    if expect.warning is True and not warnings:
        reasons.append("expected a warning, got none")
    elif expect.warning is False and warnings:
        reasons.append("expected no warning, got: " + " | ".join(warnings))
    elif isinstance(expect.warning, str) and not any(expect.warning in w for w in warnings):
        reasons.append(f"expected a warning containing {expect.warning!r}, got "
                       + (" | ".join(warnings) if warnings else "none"))
    annotations = response.get("auditAnnotations") or {}
    for key, part in expect.audit_annotations.items():
        if part is None:
            if key in annotations:
                reasons.append(f"expected no audit annotation {key}, got {annotations[key]!r}")
        elif key not in annotations:
            present = ", ".join(annotations) or "none"
            reasons.append(f"expected the audit annotation {key}, but it is not published (published: {present})")
        elif part not in str(annotations[key]):
            reasons.append(f"expected the audit annotation {key} to contain {part!r}; it is {annotations[key]!r}")
    for name, expected in expect.policies.items():
        actual = policies.get(name)
        if actual is None:
            reasons.append(f"expected policy {name} to {expected}, but there is no policy of that name")
        elif actual != expected:
            hint = ""
            if actual == "skip" and expected == "pass":
                hint = " (Kyverno CLI counts a request the policy does not apply to as passing; this suite does not)"
            reasons.append(f"expected policy {name}: {expected}, got {actual}{hint}")
    if expect.object is not None:
        reasons.extend(OBJECT_DIFFERS + d for d in expected_object.differences(
            expect.object, response.get("object")))
    return reasons


def run_case(scenario: Mapping[str, Any], case: TestCase) -> CaseResult:
    """Evaluate one case against its scenario and compare the response with what it expects."""
    expected = case.expect.describe()
    payload = case_payload(scenario, case)
    if case.problems:
        return CaseResult(case, ERROR, expected, "not evaluated: the test case is not valid", "not evaluated",
                          [p["message"] for p in case.problems], list(case.problems), payload)
    response = evaluate(payload)
    problems = [_case_problem(case, p) for p in response.get("problems") or []]
    errors = [p for p in problems if p["severity"] == "error"]
    policies = policy_results(response)
    actual = describe_response(response)
    brief = describe_response(response, brief=True)
    if errors:
        reasons = [f"{p['where']}: {p['message']}" for p in errors]
        return CaseResult(case, ERROR, expected, actual, brief, reasons, problems, payload, response, policies)
    reasons = check(case.expect, response, policies)
    return CaseResult(case, FAIL if reasons else PASS, expected, actual, brief, reasons, problems, payload,
                      response, policies)


def _case_problem(case: TestCase, problem: Mapping[str, Any]) -> dict[str, Any]:
    """A problem of the evaluation; one in a pane the case gave as text points into the suite text."""
    out = dict(problem)
    pane = str(problem.get("pane") or "")
    where = pane + (f" line {problem['line']}" if problem.get("line") else "")
    if pane in case.panes:
        where = f"{_label(case)}, {pane}" + (f" line {problem['line']}" if problem.get("line") else "")
        start = case.pane_lines.get(pane)
        if start is not None and problem.get("line"):
            out.update(pane=PANE, line=start + int(problem["line"]), path=_path(case.index, pane))
        else:
            out.update(pane=PANE, line=case.line, column=None, path=_path(case.index, pane))
    out["where"] = where
    return out


def run_suite(scenario: Mapping[str, Any], cases: Sequence[TestCase] | None = None) -> SuiteResult:
    """Run every test case of a scenario (or the cases given) and return their results."""
    problems: list[dict[str, Any]] = []
    if cases is None:
        cases, problems = parse_cases(scenario.get("testCases"))
    return SuiteResult([run_case(scenario, c) for c in cases], problems)


# --- writing cases -----------------------------------------------------------------------------------

class _Dumper(yaml.SafeDumper):
    """Writes text with several lines as a block scalar, as people write them."""


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    if "\n" in value:
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", value)


_Dumper.add_representer(str, _represent_str)


def dump_yaml(value: Any) -> str:
    """Return YAML text for a value, with multi-line strings as block scalars and keys in their order."""
    return yaml.dump(value, Dumper=_Dumper, sort_keys=False, allow_unicode=True, default_flow_style=False,
                     width=1 << 16)
