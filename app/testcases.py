"""Test cases over HTTP: ``POST /api/v1/test`` and the page's "add the current request as a test case".

    POST /api/v1/test        a suite (the /api/v1/evaluate body plus testCases, as JSON, or a
                             scenario file as application/yaml) → every case's result
    POST /testcases/add      the page's form → {"testCases": text}: the pane's text with the
                             current request appended as a case, its outcome as the expectation

The cases run in the evaluation workers (app/jobs.py, app/isolation.py); this module maps HTTP to
them and holds no policy logic. The page's matrix is laid out by app/playground.py.
"""

from __future__ import annotations

import re
from typing import Any

import yaml
from flask import Blueprint, Response, jsonify, request
from werkzeug.exceptions import RequestEntityTooLarge

from . import errors, evaluations, forms, store
from .vap.evaluate import InputError, check_payload

bp = Blueprint("testcases", __name__)

_YAML_TYPES = ("application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml")


@bp.post("/api/v1/test")
def test_view() -> Response | tuple[Response, int]:
    """Run a suite: the panes and testCases as JSON, or a scenario file as YAML."""
    try:
        if (request.mimetype or "") in _YAML_TYPES:
            payload: Any = evaluations.parse_scenario_file(request.get_data())  # parsed under the evaluation bounds
        else:
            try:
                payload = request.get_json(force=True, silent=True)
            except RecursionError:  # nested deeper than the JSON decoder goes
                payload = None
            if payload is None:
                return errors.json_error("the request body must be JSON (the panes and testCases) or a scenario "
                                         "file with Content-Type: application/yaml", 400)
        check_payload(payload)
    except (store.ScenarioError, InputError) as exc:
        return errors.json_error(str(exc), 400)
    tests = payload.get("testCases")
    if not isinstance(tests, (list, str)) or not tests:
        return errors.json_error("field 'testCases' is required: a list of test cases, or the YAML text of one", 400)
    # run in an evaluation worker, admitted, bounded and rate limited like an evaluation (429, 422, 503 answered by
    # app.errors.refusal)
    return jsonify(evaluations.run("suite", payload, request.args.get("responses") == "true"))


@bp.post("/testcases/add")
def add_case() -> Response | tuple[Response, int]:
    """Append the page's current request to its test cases, expecting the outcome it has now."""
    values = forms.form_values(request.form)
    # evaluated in a worker, admitted and bounded like any evaluation
    added = evaluations.run("add_case", forms.payload_from(values), values.get("operation", ""),
                            request.form.get("testCases", ""))
    if "error" in added:
        return errors.json_error(added["error"], 400)
    return jsonify(testCases=named_after_request(request.form.get("testCases", ""), added["testCases"]))


_TOP_NAME = re.compile(r"^- name:[ \t]*(.*)$", re.MULTILINE)


def named_after_request(before: str, after: str) -> str:
    """Name the case just appended after its operation and object ("UPDATE Deployment web"), numbered when
    the pane already has a case of that name; the text is returned unchanged when it is not as expected."""
    start = len(before.rstrip("\n")) + 1 if before.strip() and before.strip() != "[]" else 0
    addition = after[start:]
    try:
        case = yaml.safe_load(addition)[0]
    except (yaml.YAMLError, TypeError, IndexError, KeyError):
        return after
    first, _, rest = addition.partition("\n")
    if not isinstance(case, dict) or not first.startswith("- name:"):
        return after
    operation = case.get("operation") or ("UPDATE" if case.get("object") and case.get("oldObject")
                                          else "DELETE" if case.get("oldObject") else "CREATE")
    name = f"{operation} {case.get('name') or 'object'}"
    taken = set()
    for found in _TOP_NAME.finditer(before):
        try:
            taken.add(str(yaml.safe_load(found.group(1) or "''")))
        except yaml.YAMLError:
            taken.add(found.group(1))
    unique, number = name, 2
    while unique in taken:
        unique, number = f"{name} ({number})", number + 1
    line = "- " + yaml.safe_dump({"name": unique}, default_flow_style=False, allow_unicode=True).strip()
    return after[:start] + line + "\n" + rest


@bp.errorhandler(RequestEntityTooLarge)
def too_large(exc: RequestEntityTooLarge) -> tuple[Response, int]:
    return errors.json_error(f"the request body is larger than the limit of {request.max_content_length} bytes", 413)
