"""What the evaluation workers run (app/isolation.py): JSON values in, JSON values out.

Evaluations, the page's test cases and its "add this request as a test case", suites of the API,
a workshop exercise's hidden checks, and the reading of scenario files. The server runs them
here too when it evaluates inline. This module imports no Flask (nor anything that does): the
workers are forked from a process that never loads the web layer.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from . import exercises, store, vap
from .vap import suite
from .vap.evaluate import check_payload, payload_from_body
from .vap.request import derived_operation


def evaluate(payload: Any) -> dict[str, Any]:
    """Evaluate a JSON API body (the core looked up at call time: tests may stand in for it)."""
    return vap.evaluate(payload)


def evaluate_body(raw: bytes) -> dict[str, Any]:
    """Evaluate a JSON API request body as it came; raise InputError when it is not an API request."""
    payload = payload_from_body(raw)
    check_payload(payload)
    return JOBS["evaluate"](payload)


def test_cases(payload: Mapping[str, Any], tests: Any) -> dict[str, Any] | None:
    """Run the Test cases pane against the panes: what the matrix shows; None when there are no test cases."""
    if tests is None or (isinstance(tests, str) and not tests.strip()) or tests == []:
        return None
    return matrix(suite.run_suite({**payload, "testCases": tests}))


def run_suite(payload: dict[str, Any], with_responses: bool) -> dict[str, Any]:
    """Run a suite of the API (POST /api/v1/test)."""
    return suite.run_suite(payload).to_json(with_responses=with_responses)


def checks(exercise: str, payload: Mapping[str, Any]) -> dict[str, Any] | None:
    """Run a workshop exercise's hidden checks against the panes: only names and outcomes come back."""
    found = exercises.get(exercise)
    return None if found is None else matrix(found.check(payload), hidden=True)


def add_case(payload: Mapping[str, Any], operation: str, text: str) -> dict[str, str]:
    """The Test cases pane's text with the panes' request appended as a case ({"testCases": ...}), or {"error": ...}."""
    cases, problems = suite.parse_cases(text)
    if problems:
        return {"error": "fix the test cases first: " + problems[0]["message"]}
    case = new_case(payload, operation, len(cases))
    if case is None:
        return {"error": "there is no object to add: fill in the Object pane (or Old object, for a DELETE)"}
    addition = suite.dump_yaml([case])
    if not text.strip() or text.strip() == "[]":
        return {"testCases": addition}
    return {"testCases": text.rstrip("\n") + "\n" + addition}


def scenario_file(text: str) -> dict[str, Any]:
    """Read a scenario file (its bytes as latin-1 text, which JSON carries unchanged): {"scenario": ...} or
    {"error": ...}."""
    try:
        return {"scenario": store.parse_yaml(text.encode("latin-1"))}
    except store.ScenarioError as exc:
        return {"error": str(exc)}
    except RecursionError:
        return {"error": "the file nests mappings and lists too deeply to read"}


JOBS: dict[str, Callable[..., Any]] = {
    "evaluate": evaluate,
    "evaluate_body": evaluate_body,  # POST /api/v1/evaluate: the request body as it came
    "test_cases": test_cases,  # the page's Test cases pane
    "suite": run_suite,  # POST /api/v1/test
    "checks": checks,  # a workshop exercise's hidden checks
    "add_case": add_case,  # the page's "add this request as a test case"
    "scenario_file": scenario_file,  # reading a scenario file (YAML) for sharing, importing or testing
}
# Jobs that run many evaluations, bounded by the suites' time limit.
SUITE_JOBS = frozenset({"test_cases", "suite", "checks"})


# --- the test cases matrix ---------------------------------------------------------------------------


def matrix(result: suite.SuiteResult | None, *, hidden: bool = False) -> dict[str, Any] | None:
    """What the test cases matrix shows; ``hidden`` (workshop checks) leaves out objects, messages and reasons."""
    if result is None:
        return None
    rows = []
    for r in result.cases:
        row: dict[str, Any] = {"index": r.case.index, "name": r.case.name, "status": r.status,
                               "expected": r.expected}
        if hidden:
            row["actual"] = hidden_outcome(r)
        else:
            # a passing case shows its outcome in brief; a failing one the whole message
            row.update(actual=r.actual if r.status != suite.PASS else r.actual_brief, reasons=r.reasons,
                       line=r.case.line, open=open_values(r),
                       problems=[p for p in r.problems if p.get("pane") == suite.PANE and p.get("line")])
        rows.append(row)
    return {"total": result.total, "passed": result.passed, "failed": result.failed,
            "errors": result.errors, "rows": rows, "problems": [] if hidden else result.problems}


# The status reasons kube-apiserver answers with: a denial of a hidden check is told by its code and one of these.
_REASONS = frozenset({
    "Unauthorized", "Forbidden", "NotFound", "AlreadyExists", "Conflict", "Gone", "Invalid", "ServerTimeout",
    "Timeout", "TooManyRequests", "BadRequest", "MethodNotAllowed", "NotAcceptable", "RequestEntityTooLarge",
    "UnsupportedMediaType", "InternalError", "Expired", "ServiceUnavailable",
})


def hidden_outcome(result: suite.CaseResult) -> str:
    """What a hidden check got, from a fixed vocabulary: "allowed", "denied <code> <reason>" or "not evaluated".

    Nothing the panes' expressions compute reaches it (no message, no warning or problem count), so a
    policy cannot turn a hidden check into an oracle on its object beyond the check's own pass or fail.
    """
    response = result.response
    if not isinstance(response, Mapping) or response.get("request") is None:
        return "not evaluated"
    if response.get("allowed"):
        return "allowed"
    status = response.get("status") if isinstance(response.get("status"), Mapping) else {}
    code, reason = status.get("code"), status.get("reason")
    if isinstance(code, int) and not isinstance(code, bool) and 400 <= code <= 599 and reason in _REASONS:
        return f"denied {code} {reason}"
    return "denied"


def stopped_checks(exercise: str, message: str) -> dict[str, Any] | None:
    """The checks' matrix when running them was stopped at a bound: every check failed, none solved."""
    found = exercises.get(exercise)
    if found is None:
        return None
    rows = [{"index": case.index, "name": case.name, "status": suite.FAIL, "expected": case.expect.describe(),
             "actual": "stopped"} for case in found.checks]
    return {"total": len(rows), "passed": 0, "failed": len(rows), "errors": 0, "rows": rows,
            "problems": [{"severity": "error", "line": None, "column": None, "message": message}]}


def open_values(result: suite.CaseResult) -> dict[str, str]:
    """The pane texts and operation that show a case in the main view (what the Open button loads)."""
    payload = result.payload
    values = {pane: _pane_text(payload.get(pane)) for pane in suite.CASE_PANES}
    req = payload.get("request")
    operation = ""
    if isinstance(req, Mapping):
        req = dict(req)
        operation = str(req.pop("operation", "") or "")
        values["request"] = suite.dump_yaml(req) if req else ""
    else:
        values["request"] = _pane_text(req)
    values["operation"] = operation
    return values


def new_case(payload: Mapping[str, Any], operation: str, count: int) -> dict[str, Any] | None:
    """A test case for the panes' request, expecting what it gets now."""
    given = {pane: payload.get(pane) not in (None, "") for pane in ("object", "oldObject")}
    if not any(given.values()):
        return None
    response = vap.evaluate(payload)
    case: dict[str, Any] = {"name": f"case {count + 1}"}
    obj = response.get("object") or response.get("oldObject")
    if isinstance(obj, Mapping):
        meta = obj.get("metadata") if isinstance(obj.get("metadata"), Mapping) else {}
        case["name"] = f"{obj.get('kind', 'object')} {meta.get('name') or ''}".strip()
    for pane, present in given.items():
        if present:
            case[pane] = _pane_text(payload[pane])
    req = response.get("request") if isinstance(response.get("request"), Mapping) else {}
    done = req.get("operation") or operation
    if done and done != derived_operation(given["object"], given["oldObject"]):
        case["operation"] = done
    expect: dict[str, Any] = {"allowed": bool(response.get("allowed"))}
    status = response.get("status") or {}
    message = str(status.get("message") or "")
    if not expect["allowed"] and message:
        # the part the policy wrote, which does not repeat the object's name
        expect["message"] = message.rpartition("denied request: ")[2] or message
    if response.get("warnings"):
        expect["warning"] = True
    case["expect"] = expect
    return case


def _pane_text(value: Any) -> str:
    if value is None:
        return ""
    # browsers send textareas with CRLF line ends; LF keeps them block scalars in the YAML
    return value.replace("\r\n", "\n") if isinstance(value, str) else suite.dump_yaml(value)
