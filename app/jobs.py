"""What the evaluation workers run (app/isolation.py): JSON values in, JSON values out.

Evaluations, the page's test cases and its "add this request as a test case", suites of the API,
a workshop exercise's hidden checks, and the reading and writing of scenario files. The server runs them
here too when it evaluates inline. This module imports no Flask (nor anything that does): the
workers are forked from a process that never loads the web layer.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from typing import Any

from . import exercises, rendering, result_view, store, vap
from .vap import placement, suite
from .vap.evaluate import check_payload, payload_from_body
from .vap.lint import lint
from .vap.request import derived_operation


def evaluate(payload: Any) -> dict[str, Any]:
    """Evaluate a JSON API body (the core looked up at call time: tests may stand in for it)."""
    response = vap.evaluate(payload)
    given = payload.get("kubernetesVersion") if isinstance(payload, Mapping) else None
    if isinstance(given, str) and isinstance(response, dict):
        _quote_version(response, given)
    return response


_UNSUPPORTED = "unsupported Kubernetes version "
_VERSION_SHOWN = 64  # characters of an unsupported version quoted back


def _quote_version(response: dict[str, Any], given: str) -> None:
    """Quote an unsupported version as the client wrote it (the core names it as it read it: "v1.99.3" as
    '1.99', with Python's escapes): its text, cut to a few dozen characters, and what it was read as."""
    for problem in response.get("problems") or []:
        message = problem.get("message") if isinstance(problem, dict) else None
        if not (isinstance(message, str) and message.startswith(_UNSUPPORTED) and "': supported" in message):
            continue
        read, rest = message[len(_UNSUPPORTED):].split(": supported", 1)
        shown = given if len(given) <= _VERSION_SHOWN else given[:_VERSION_SHOWN] + "…"
        shown = "".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in shown)
        quoted = f"'{shown}'"
        said = quoted if read == quoted or len(read) > _VERSION_SHOWN + 2 else f"{quoted} (read as {read})"
        problem["message"] = f"{_UNSUPPORTED}{said}: supported{rest}"


def result_page(payload: Any, values: Mapping[str, str], value_bytes: int, max_bytes: int) -> dict[str, Any]:
    """Evaluate the page's form (``payload``, from its ``values``) and lay out and render its result region: the
    answer bounded as an evaluation's is (``value_bytes``, ``max_bytes``), then what the page shows of it, with its
    HTML (``html``), so that the server process only places it."""
    response = bounded("evaluate", JOBS["evaluate"](payload), value_bytes, max_bytes)
    result = result_view.layout(values, response)
    return {**result, "html": rendering.render_result(result)}


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


def place(text: str, kubernetes_version: str, context: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Sort a manifest file's documents into the panes by kind (the page's import of plain YAML); ``context``:
    the page's Policy, Binding and Params panes."""
    return placement.place(text, kubernetes_version, context).to_json()


def export(scenario: Mapping[str, Any], shared_id: str | None) -> dict[str, str]:
    """A scenario as a scenario file (YAML, {"yaml": text}): rendering a large one takes long enough to be a job."""
    return {"yaml": store.render_yaml(scenario, shared_id=shared_id)}


JOBS: dict[str, Callable[..., Any]] = {
    "evaluate": evaluate,
    "evaluate_body": evaluate_body,  # POST /api/v1/evaluate: the request body as it came
    "result_page": result_page,  # the page's result region: evaluated, laid out and rendered
    "test_cases": test_cases,  # the page's Test cases pane
    "suite": run_suite,  # POST /api/v1/test
    "checks": checks,  # a workshop exercise's hidden checks
    "add_case": add_case,  # the page's "add this request as a test case"
    "scenario_file": scenario_file,  # reading a scenario file (YAML) for sharing, importing or testing
    "place": place,  # sorting plain manifests into the panes by kind
    "lint": lint,  # POST /api/v1/lint: the problems of the panes, found without evaluating
    "export": export,  # writing a scenario file (YAML) for a download
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
    """What a hidden check got, from a fixed vocabulary: "allowed", "denied <code> <reason>" or "not evaluated",
    with ", another object" when the check expects fields of the admitted object that it does not have.

    Nothing the panes' expressions compute reaches it (no message, no warning or problem count), so a
    policy cannot turn a hidden check into an oracle on its object beyond the check's own pass or fail.
    """
    response = result.response
    if not isinstance(response, Mapping) or response.get("request") is None:
        return "not evaluated"
    if response.get("allowed"):
        return "allowed, another object" if result.object_differs else "allowed"
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


# --- bounded output ------------------------------------------------------------------------------------
#
# What a job answers is bounded where it leaves the worker (and where the server evaluates inline), never in
# the core: the core's answer stays exact, the served copy is bounded. Every string longer than the value
# bound, and every expression result (a "value") larger than it, is cut with a visible marker; when the whole
# answer is still larger than the response bound, its largest parts are cut further, each keeping a share of
# the bound (small fields such as "allowed" and "status" are kept whole). An answer that had to be cut says
# so: "truncated": true. Floats that JSON cannot carry (NaN, infinities) are served as the strings "NaN",
# "Infinity" and "-Infinity".

# Jobs whose answers are echoed to the client and bounded; the others answer the client's own text
# (add_case: the Test cases pane with a case appended; export: the scenario file of a scenario) or a
# scenario the server stores (scenario_file), bounded by the request body or the scenario's bound.
BOUNDED_JOBS = frozenset({"evaluate", "evaluate_body", "test_cases", "suite", "checks"})
# Parts that are the client's own pane texts (what a test case's Open button loads): cut only at the
# response bound, so that a test case opens as it was written whenever it can.
_OWN_TEXT = frozenset({"open"})
# Keys whose value is the result of an expression, bounded like a string whatever its type.
_RESULTS = frozenset({"value"})
_MIN_SHARE = 64  # bytes below which a container's parts are no longer shrunk each but cut from the end
_MARKER = "… truncated ({} bytes) …"


def truncation_marker(size: int) -> str:
    """The text that stands for what was cut from a value: the size of the whole value in bytes (a string's in
    UTF-8, a list's or a map's in JSON)."""
    return _MARKER.format(size)


def strict(value: Any) -> Any:
    """The value with only JSON values: NaN and the infinities as strings, tuples as lists, other objects as text."""
    return _Cutter().strict(value)


def bounded(job: str, response: Any, value_bytes: int, max_bytes: int) -> Any:
    """The answer of ``job`` as it is served, for the jobs that echo values back: strict JSON values, each value
    within ``value_bytes`` and the whole within ``max_bytes`` (0 for no bound). Other jobs' answers are returned
    as they are."""
    if job not in BOUNDED_JOBS:
        return response
    estimate = _scan(response, value_bytes or None)
    if estimate is not None and (not max_bytes or estimate * 6 <= max_bytes or _encoded_size(response) <= max_bytes):
        return response  # strict, no value near its bound, the whole within its own: most answers, untouched
    cutter = _Cutter()
    response = cutter.strict(response)
    if value_bytes > 0:
        response = cutter.values(response, value_bytes)
    if max_bytes > 0 and _encoded_size(response) > max_bytes:
        # room for the "truncated" flag, and for the estimate's slack on escaped text
        response = cutter.fit(response, max(_MIN_SHARE, max_bytes - 64))
    if cutter.cut and isinstance(response, dict):
        response = {**response, "truncated": True}
    return response


def _scan(value: Any, limit: int | None) -> int | None:
    """The characters of a value's JSON, about (each character of a string counted once); None when the value is
    not strict JSON (a float JSON cannot carry, another type) or may hold a value over ``limit`` bytes (a string
    of more than a sixth of it: JSON takes at most 6 bytes for a character; an expression's result of more)."""
    longest = limit // 6 if limit else None
    total = 0
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is str:
            if longest is not None and len(item) > longest:
                return None
            total += len(item) + 3
        elif kind is dict:
            total += 2
            for key, part in item.items():
                if type(key) is not str:
                    return None
                total += len(key) + 4
                if key in _RESULTS and limit and type(part) in (dict, list):
                    size = _scan(part, limit)
                    if size is None or size > limit:
                        return None
                    total += size
                else:
                    stack.append(part)
        elif kind is list:
            total += 2
            stack.extend(item)
        elif kind is float:
            if item != item or item in (math.inf, -math.inf):
                return None
            total += 25
        elif kind is int:
            total += 21 if -(10**20) < item < 10**20 else len(str(item)) + 1
        elif item is None or kind is bool:
            total += 6
        else:
            return None
    return total


def _encoded_size(value: Any) -> int:
    """The size of a strict JSON value as the API encodes it."""
    return len(json.dumps(value, default=str, ensure_ascii=True, separators=(",", ":")))


_FLOATS = {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}


class _Cutter:
    """One bounding of one answer: its sizes (JSON bytes as the API encodes them), and whether it cut."""

    def __init__(self) -> None:
        self.cut = False
        self._sizes: dict[int, tuple[Any, int]] = {}  # each value kept alive with its size: its id stays its own

    def strict(self, value: Any) -> Any:
        """JSON values only: NaN and the infinities as strings, tuples as lists, other objects as text."""
        if isinstance(value, dict):
            return {str(k) if not isinstance(k, str) else k: self.strict(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.strict(v) for v in value]
        if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
            return _FLOATS[repr(value)]
        if value is None or isinstance(value, (str, int, float, bool)):
            return value
        return str(value)

    def size(self, value: Any) -> int:
        """The size of a value in JSON (compact, ASCII), remembered for the values of the answer."""
        known = self._sizes.get(id(value))
        if known is not None and known[0] is value:
            return known[1]
        if isinstance(value, str):
            return len(value) + 2 if value.isascii() and value.isprintable() else len(json.dumps(value))
        if isinstance(value, dict):
            total = 2 + max(0, len(value) - 1) + sum(self.size(k) + 1 + self.size(v) for k, v in value.items())
        elif isinstance(value, list):
            total = 2 + max(0, len(value) - 1) + sum(self.size(v) for v in value)
        else:
            return len(json.dumps(value))
        self._sizes[id(value)] = (value, total)
        return total

    def values(self, value: Any, limit: int, key: str = "") -> Any:
        """Cut every string, and every expression result, over ``limit`` bytes."""
        if key in _OWN_TEXT:
            return value
        if isinstance(value, str):
            return self.fit(value, limit) if len(value) > limit // 6 else value
        if key in _RESULTS and isinstance(value, (dict, list)) and self.size(value) > limit:
            return self.fit(value, limit)
        if isinstance(value, dict):
            return {k: self.values(v, limit, k) for k, v in value.items()}
        if isinstance(value, list):
            return [self.values(v, limit) for v in value]
        return value

    def fit(self, value: Any, budget: int) -> Any:
        """The value within about ``budget`` bytes: itself when it fits, else cut, keeping a fair share for
        each of its parts (the smallest parts whole) or, when the parts are too many for that, the first ones."""
        size = self.size(value)
        if size <= budget:
            return value
        self.cut = True
        if isinstance(value, str):
            lines = value.split("\n")
            if len(lines) > 1:  # each line cut on its own, so that a message's every line keeps its end
                parts = self._share(lines, budget - len(lines) * 2)
                if parts is not None:
                    return "\n".join(parts)
            # the head and a quarter as much of the end (where a message says which limit it hit)
            marker = truncation_marker(len(value.encode("utf-8", "surrogatepass")))
            keep = max(0, budget - self.size(marker) - 4)
            head, tail = value[: keep - keep // 4], value[len(value) - keep // 4:] if keep >= 4 else ""
            while head and self.size(head) + self.size(tail) - 4 > keep:  # escaped characters take more room
                head, tail = head[: len(head) * 3 // 4], tail[len(tail) // 4:]
            return f"{head}{marker} {tail}" if tail else head + marker
        marker = truncation_marker(size)
        if isinstance(value, dict) and value:
            items = list(value.items())
            parts = self._share([v for _, v in items], budget - sum(self.size(k) + 2 for k, _ in items))
            if parts is not None:
                return {k: part for (k, _), part in zip(items, parts, strict=True)}
            kept: dict[str, Any] = {}
            room = budget - self.size(marker) - 8
            for k, v in items:
                room -= self.size(k) + 2 + self.size(v)
                if room < 0:
                    break
                kept[k] = v
            kept["…"] = marker
            return kept
        if isinstance(value, list) and value:
            parts = self._share(value, budget - len(value) - 1)
            if parts is not None:
                return parts
            kept_items: list[Any] = []
            room = budget - self.size(marker) - 4
            for v in value:
                room -= self.size(v) + 1
                if room < 0:
                    break
                kept_items.append(v)
            return [*kept_items, marker]
        return marker

    def _share(self, parts: list[Any], budget: int) -> list[Any] | None:
        """The parts within ``budget`` in all, each cut to a fair share (None when the shares would be too
        small to say anything): the smallest come first and keep what they need; the rest share what is left."""
        if not parts or budget // len(parts) < _MIN_SHARE:
            return None
        out = list(parts)
        left = budget
        order = sorted(range(len(parts)), key=lambda i: self.size(parts[i]))
        for done, i in enumerate(order):
            share = left // (len(parts) - done)
            out[i] = self.fit(parts[i], share)
            left -= self.size(out[i])
        return out
