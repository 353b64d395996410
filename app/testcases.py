"""Test cases over HTTP: the page's Test cases pane, its matrix, and ``POST /api/v1/test``.

    POST /api/v1/test        a suite (the /api/v1/evaluate body plus testCases, as JSON, or a
                             scenario file as application/yaml) → every case's result
    POST /testcases/add      the page's form → {"testCases": text}: the pane's text with the
                             current request appended as a case, its outcome as the expectation

This module lays out what :mod:`app.vap.suite` decides; it holds no policy logic.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import Blueprint, Response, jsonify, render_template, request
from werkzeug.exceptions import RequestEntityTooLarge

from . import isolation, ratelimit, store
from .vap import suite
from .vap.evaluate import InputError, check_payload

bp = Blueprint("testcases", __name__)

_YAML_TYPES = ("application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml")
_OPEN_PANES = ("object", "oldObject", "params", "namespace")


def cases_text(value: Any) -> str:
    """Return test cases as the text of the Test cases pane (a stored list becomes YAML)."""
    if value is None or value == "" or value == []:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        # stored as canonical JSON, with sorted keys: put them back in the order people write them
        order = {k: i for i, k in enumerate(suite.CASE_FIELDS)}
        value = [dict(sorted(c.items(), key=lambda kv: order.get(kv[0], len(order)))) if isinstance(c, dict) else c
                 for c in value]
    return suite.dump_yaml(value)


def scenario_of(payload: Mapping[str, Any], tests: Any) -> dict[str, Any]:
    """The suite for a page: the API body the panes make, and the test cases."""
    return {**payload, "testCases": tests}


def _pane_text(value: Any) -> str:
    if value is None:
        return ""
    # browsers send textareas with CRLF line ends; LF keeps them block scalars in the YAML
    return value.replace("\r\n", "\n") if isinstance(value, str) else suite.dump_yaml(value)


def open_values(result: suite.CaseResult) -> dict[str, str]:
    """The pane texts and operation that show a case in the main view (what the Open button loads)."""
    payload = result.payload
    values = {pane: _pane_text(payload.get(pane)) for pane in _OPEN_PANES}
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


def summarize(result: suite.SuiteResult | None, *, hidden: bool = False) -> dict[str, Any] | None:
    """What the matrix shows; ``hidden`` (workshop checks) leaves out objects, messages and reasons."""
    if result is None:
        return None
    rows = []
    for r in result.cases:
        row: dict[str, Any] = {"index": r.case.index, "name": r.case.name, "status": r.status,
                               "expected": r.expected}
        if hidden:
            row["actual"] = r.actual_brief
        else:
            # a passing case shows its outcome in brief; a failing one the whole message
            row.update(actual=r.actual if r.status != suite.PASS else r.actual_brief, reasons=r.reasons,
                       line=r.case.line, open=open_values(r),
                       problems=[p for p in r.problems if p.get("pane") == suite.PANE and p.get("line")])
        rows.append(row)
    return {"total": result.total, "passed": result.passed, "failed": result.failed,
            "errors": result.errors, "rows": rows, "problems": [] if hidden else result.problems}


def run_form(payload: Mapping[str, Any], tests: Any) -> dict[str, Any] | None:
    """Run the Test cases pane against the panes; None when there are no test cases."""
    if tests is None or (isinstance(tests, str) and not tests.strip()) or tests == []:
        return None
    return summarize(suite.run_suite(scenario_of(payload, tests)))


def render(summary: dict[str, Any] | None, *, oob: bool = False) -> str:
    """Render the matrix region (out of band for an htmx swap of the result)."""
    return render_template("_testcases.html", testcases=summary, oob=oob)


@bp.post("/api/v1/test")
def test_view() -> Response | tuple[Response, int]:
    """Run a suite: the panes and testCases as JSON, or a scenario file as YAML."""
    try:
        if (request.mimetype or "") in _YAML_TYPES:
            payload: Any = isolation.parse_scenario_file(request.get_data())  # parsed under the evaluation bounds
        else:
            try:
                payload = request.get_json(force=True, silent=True)
            except RecursionError:  # nested deeper than the JSON decoder goes
                payload = None
            if payload is None:
                return jsonify(error="the request body must be JSON (the panes and testCases) or a scenario file "
                                     "with Content-Type: application/yaml"), 400
        check_payload(payload)
    except (store.ScenarioError, InputError) as exc:
        return jsonify(error=str(exc)), 400
    tests = payload.get("testCases")
    if not isinstance(tests, (list, str)) or not tests:
        return jsonify(error="field 'testCases' is required: a list of test cases, or the YAML text of one"), 400
    # run in an evaluation worker, bounded and rate limited like an evaluation (429, 422, 503 answered by
    # ratelimit.refusal)
    with ratelimit.evaluation():
        return jsonify(isolation.run("suite", payload, request.args.get("responses") == "true"))


@bp.post("/testcases/add")
def add_case() -> Response | tuple[Response, int]:
    """Append the page's current request to its test cases, expecting the outcome it has now."""
    from . import web

    values = web.form_values(request.form)
    with ratelimit.evaluation():  # evaluated in a worker, bounded like any evaluation
        added = isolation.run("add_case", web.payload_from(values), values.get("operation", ""),
                              request.form.get("testCases", ""))
    if "error" in added:
        return jsonify(error=added["error"]), 400
    return jsonify(testCases=added["testCases"])


def add_to_cases(payload: Mapping[str, Any], operation: str, text: str) -> dict[str, str]:
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


def new_case(payload: Mapping[str, Any], operation: str, count: int) -> dict[str, Any] | None:
    """A test case for the panes' request, expecting what it gets now."""
    from .vap import evaluate

    if not any(payload.get(p) not in (None, "") for p in ("object", "oldObject")):
        return None
    response = evaluate(payload)
    case: dict[str, Any] = {"name": f"case {count + 1}"}
    obj = response.get("object") or response.get("oldObject")
    if isinstance(obj, Mapping):
        meta = obj.get("metadata") if isinstance(obj.get("metadata"), Mapping) else {}
        case["name"] = f"{obj.get('kind', 'object')} {meta.get('name') or ''}".strip()
    for pane in ("object", "oldObject"):
        if payload.get(pane) not in (None, ""):
            case[pane] = _pane_text(payload[pane])
    req = response.get("request") if isinstance(response.get("request"), Mapping) else {}
    done = req.get("operation") or operation
    has_old = payload.get("oldObject") not in (None, "")
    derived = ("UPDATE" if has_old else "CREATE") if payload.get("object") not in (None, "") else "DELETE"
    if done and done != derived:
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


@bp.errorhandler(RequestEntityTooLarge)
def too_large(exc: RequestEntityTooLarge) -> tuple[Response, int]:
    return jsonify(error=f"the request body is larger than the limit of {request.max_content_length} bytes"), 413
