"""The playground page: one form, one endpoint, one partial.

GET / shows the editors filled with an example and its result; POST /evaluate turns the
form into a JSON API body, asks the core, and answers with the result partial (htmx) or
the whole page (no JavaScript). This module holds no policy logic: what the result says
comes from :func:`app.vap.evaluate`, this module only lays it out.
"""

from __future__ import annotations

import json
import re
from typing import Any

from flask import Blueprint, Response, abort, current_app, make_response, redirect, render_template, request, url_for

from . import examples, isolation, ratelimit, security, testcases, vap

bp = Blueprint("web", __name__)

# (form field = API field, label, collapsible) in page order.
PANES = (
    ("policy", "Policy", False),
    ("binding", "Binding", False),
    ("params", "Params", False),
    ("object", "Object", False),
    ("oldObject", "Old object", True),
    ("namespace", "Namespace", True),
    ("request", "Request", True),
)
PANE_LABELS = {name: label for name, label, _ in PANES}
OPERATIONS = ("CREATE", "UPDATE", "DELETE", "CONNECT")
# Used when the core does not publish its own list (app.vap.SUPPORTED_VERSIONS).
_FALLBACK_VERSIONS = ("1.37", "1.36", "1.35", "1.34", "1.33", "1.32", "1.31", "1.30", "1.29", "1.28")
_OPERATION_LINE = re.compile(r"^operation[ \t]*:.*$", re.MULTILINE)
# Everything the page needs comes from this server; no inline script, style or handler is allowed.
CONTENT_SECURITY_POLICY = security.CONTENT_SECURITY_POLICY
_FORBIDDEN_MESSAGE = re.compile(r'^(?P<resource>[^\s"]+) "(?P<name>[^"]*)" is forbidden: (?P<denial>.*)$', re.S)


def kubernetes_versions() -> tuple[tuple[str, ...], str]:
    """Return the versions the core can emulate, newest first, and the one it defaults to."""
    versions = tuple(getattr(vap, "SUPPORTED_VERSIONS", ()) or _FALLBACK_VERSIONS)
    versions = tuple(sorted(versions, key=lambda v: tuple(int(p) for p in v.split(".")), reverse=True))
    default = getattr(vap, "DEFAULT_VERSION", None) or versions[0]
    return versions, default


def form_values(form: Any) -> dict[str, str]:
    """Read the page's fields from a submitted form, every one as text."""
    values = {name: form.get(name, "") for name, _, _ in PANES}
    values["kubernetesVersion"] = form.get("kubernetesVersion", "")
    values["operation"] = form.get("operation", "")
    values["testCases"] = form.get("testCases", "")
    return values


def with_operation(text: str, operation: str) -> str:
    """Set the operation in the Request pane text, keeping every other line where it was."""
    if not operation:
        return text
    if text.lstrip().startswith("{"):
        try:
            attributes = json.loads(text)
        except ValueError:
            attributes = None
        if isinstance(attributes, dict):
            return json.dumps({**attributes, "operation": operation})
    if _OPERATION_LINE.search(text):
        return _OPERATION_LINE.sub(f"operation: {operation}", text, count=1)
    separator = "" if not text or text.endswith("\n") else "\n"
    return f"{text}{separator}operation: {operation}\n"


def payload_from(values: dict[str, str]) -> dict[str, Any]:
    """Build the JSON API body from the form values."""
    payload: dict[str, Any] = {name: values.get(name, "") for name, _, _ in PANES}
    if values.get("operation") in OPERATIONS:
        payload["request"] = with_operation(payload["request"], values["operation"])
    if values.get("kubernetesVersion"):
        payload["kubernetesVersion"] = values["kubernetesVersion"]
    return payload


def scenario_payload(values: dict[str, str]) -> dict[str, Any]:
    """The scenario the form describes, for sharing and export: the API body and the test cases."""
    payload = payload_from(values)
    if values.get("testCases", "").strip():
        payload["testCases"] = values["testCases"]
    return payload


def kubectl_text(response: dict[str, Any]) -> str:
    """Return what kubectl would print for this response (the denial and the warnings)."""
    if isinstance(response.get("kubectl"), str):
        return response["kubectl"]
    lines = [f"Warning: {w}" for w in response.get("warnings") or []]
    status = response.get("status") or {}
    if not response.get("allowed", True) and status:
        lines.append(_kubectl_error(status))
    return "\n".join(lines)


def _kubectl_error(status: dict[str, Any]) -> str:
    message = str(status.get("message", ""))
    if status.get("code") != 422:
        if not status.get("reason"):  # a webhook's refusal carries no reason
            return f"Error from server: {message}"
        return f"Error from server ({status['reason']}): {message}"
    # kubectl rebuilds a 422 from the details: "The <kind> "<name>" is invalid: <field>: <message>".
    details = status.get("details") or {}
    causes = details.get("causes") or []
    match = _FORBIDDEN_MESSAGE.match(message)
    kind = details.get("kind") or (match["resource"].split(".")[0] if match else "")
    name = details.get("name") or (match["name"] if match else "")
    if causes:
        reasons = ", ".join(f"{c.get('field', '')}: {c.get('message', '')}" for c in causes)
    else:
        reasons = f": {match['denial'] if match else message}"
    if len(causes) > 1:
        reasons = f"[{reasons}]"
    return f'The {kind} "{name}" is invalid: {reasons}'


def decision_of(response: dict[str, Any]) -> str:
    """Name the banner: allowed, warned (allowed with warnings) or denied."""
    if not response.get("allowed"):
        return "denied"
    return "warned" if response.get("warnings") else "allowed"


def summarize(values: dict[str, str]) -> dict[str, Any]:
    """Evaluate the form values and return what the result partial shows."""
    payload = payload_from(values)
    try:
        with ratelimit.evaluation():
            response = isolation.evaluate(payload)
    except NotImplementedError:
        return {"unavailable": True}
    except (ratelimit.RateLimited, isolation.EvaluationStopped) as exc:
        return refusal(exc)
    problems = [
        {**p, "paneLabel": PANE_LABELS.get(p.get("pane"), p.get("pane") or "")} for p in response.get("problems") or []
    ]
    return {
        "unavailable": False,
        "response": response,
        "decision": decision_of(response),
        "kubectl": kubectl_text(response),
        "problems": problems,
        "request": response.get("request") if isinstance(response.get("request"), dict) else None,
    }


def refusal(exc: ratelimit.RateLimited | isolation.EvaluationStopped) -> dict[str, Any]:
    """The result of an evaluation refused by a rate limit or stopped at a bound: an error to show."""
    retry_after = getattr(exc, "retry_after", None) or (1 if exc.status == 503 else None)
    return {"unavailable": False, "error": {"code": exc.status, "description": str(exc), "retry_after": retry_after}}


def with_status(response: Response, result: dict[str, Any]) -> Response:
    """Give a page or partial the status of a refused evaluation (and its Retry-After)."""
    error = result.get("error")
    if error:
        response.status_code = error["code"]
        if error.get("retry_after"):
            response.headers["Retry-After"] = str(error["retry_after"])
    return response


def test_cases(values: dict[str, str], result: dict[str, Any]) -> dict[str, Any] | None:
    """Run the Test cases pane under the evaluation bounds; None without cases or when evaluating was refused."""
    tests = values.get("testCases")
    if not tests or not tests.strip() or result.get("error"):
        return None
    try:
        return isolation.run("test_cases", payload_from(values), tests)
    except isolation.EvaluationStopped as exc:
        return stopped_suite(exc)


def stopped_suite(exc: isolation.EvaluationStopped) -> dict[str, Any]:
    """What the test cases matrix shows when running them was stopped at a bound."""
    return {"total": 0, "passed": 0, "failed": 0, "errors": 0, "rows": [],
            "problems": [{"severity": "error", "line": None, "column": None, "message": str(exc)}]}


@bp.app_template_filter("pretty_json")
def pretty_json(value: Any) -> str:
    """Show a CEL value as indented JSON (autoescaped by the template like any text)."""
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def _page(
    values: dict[str, str],
    example: examples.Example | None,
    shared_id: str | None = None,
    file_error: str | None = None,
    status: int = 200,
    template: str = "index.html",
    result: dict[str, Any] | None = None,
    **extra: Any,
) -> Response:
    versions, default_version = kubernetes_versions()
    result = result or summarize(values)
    html = render_template(
        template,
        values=values,
        example=example,
        shared_id=shared_id,
        file_error=file_error,
        gallery=examples.all_examples(),
        result=result,
        panes=PANES,
        operations=OPERATIONS,
        versions=versions,
        default_version=default_version,
        default_request=examples.DEFAULT_REQUEST,
        testcases=test_cases(values, result),
        **extra,
    )
    return with_status(make_response(html, status), result)


@bp.get("/")
def index() -> Response:
    """Show the playground, opened on the example named in ?example= or the first one."""
    name = request.args.get("example")
    example = examples.get(name) if name else examples.default()
    if example is None:
        abort(404, description=f"There is no example called {name!r}.")
    return _page(example.form(), example)


def scenario_values(scenario: dict[str, Any]) -> dict[str, str]:
    """Return the page's field values for a stored or imported scenario."""
    values = {name: _pane_text(scenario.get(name)) for name, _, _ in PANES}
    values["kubernetesVersion"] = str(scenario.get("kubernetesVersion") or "")
    values["operation"] = ""
    values["testCases"] = testcases.cases_text(scenario.get("testCases"))
    return values


def render_playground(scenario: dict[str, Any], *, shared_id: str) -> Response:
    """Show a shared scenario in the editors, evaluated, marked as a shared snapshot."""
    return _page(scenario_values(scenario), None, shared_id=shared_id)


def _pane_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, indent=2)


@bp.post("/share")
def share() -> Response:
    """Store the form's scenario and go to its link (the same scenario always gets the same link)."""
    from . import shares, store

    values = form_values(request.form)
    try:
        ratelimit.check("share")
    except ratelimit.RateLimited as exc:
        return _refused(values, exc)
    try:
        shared_id, _ = store.share(shares.get_store(), scenario_payload(values),
                                   int(current_app.config.get("SCENARIO_MAX_BYTES", store.DEFAULT_MAX_BYTES)))
    except (store.ScenarioError, store.ScenarioTooLarge) as exc:
        code = 413 if isinstance(exc, store.ScenarioTooLarge) else 400
        description = f"Nothing was shared: {exc}."
        if request.headers.get("HX-Request"):  # shown in the result region; the editors keep their text
            return make_response(render_template("_error.html", code=code, description=description), code)
        return _page(values, None, file_error=description, status=code)
    link = url_for("shares.shared_page", scenario_id=shared_id)
    if request.headers.get("HX-Request"):
        response = make_response("", 204)
        response.headers["HX-Redirect"] = link  # htmx loads the shared page itself
        return response
    return redirect(link, 303)


@bp.post("/import")
def import_scenario() -> Response:
    """Open a scenario file in the page (the form without JavaScript; the script uses the import API).

    The form carries the editors' text too, so a file that cannot be read leaves every pane as it was.
    """
    from . import store

    upload = request.files.get("scenarioFile")
    name = (upload.filename or "the file") if upload is not None else ""
    if upload is None or not name:
        return _page(form_values(request.form), None, file_error="choose a scenario file to import", status=400)
    try:
        ratelimit.check("share")
        limit = int(current_app.config.get("SCENARIO_MAX_BYTES", store.DEFAULT_MAX_BYTES))
        scenario, _ = store.prepare(isolation.parse_scenario_file(upload.read()), limit)
    except (ratelimit.RateLimited, isolation.EvaluationStopped) as exc:
        return _page(form_values(request.form), None, file_error=f"{name}: {exc}", status=exc.status)
    except (store.ScenarioError, store.ScenarioTooLarge) as exc:
        status = 413 if isinstance(exc, store.ScenarioTooLarge) else 400
        return _page(form_values(request.form), None, file_error=f"{name}: not a scenario file: {exc}",
                     status=status)
    return _page(scenario_values(scenario), None)


@bp.post("/export")
def export_scenario() -> Response:
    """Download the form's scenario as one YAML file, without storing it."""
    from . import store

    try:
        scenario, _ = store.prepare(scenario_payload(form_values(request.form)),
                                    int(current_app.config.get("SCENARIO_MAX_BYTES", store.DEFAULT_MAX_BYTES)))
    except (store.ScenarioError, store.ScenarioTooLarge) as exc:
        return _page(form_values(request.form), None, file_error=f"cannot export: {exc}", status=400)
    response = make_response(store.render_yaml(scenario))
    response.mimetype = "application/yaml"
    response.headers["Content-Disposition"] = 'attachment; filename="scenario.yaml"'
    return response


@bp.post("/evaluate")
def evaluate() -> Response:
    """Evaluate the form: the result partial for htmx, the whole page otherwise."""
    values = form_values(request.form)
    if request.headers.get("HX-Request"):
        result = summarize(values)
        html = result_partial(result) + testcases.render(test_cases(values, result), oob=True)
        response = with_status(make_response(html), result)
    else:
        response = _page(values, None)
    response.vary.add("HX-Request")
    return response


def result_partial(result: dict[str, Any]) -> str:
    """The result region: the result, or the error of a refused or stopped evaluation."""
    if result.get("error"):
        return render_template("_error.html", code=result["error"]["code"], description=result["error"]["description"])
    return render_template("_result.html", result=result)


def _refused(values: dict[str, str], exc: ratelimit.RateLimited) -> Response:
    """Answer a refused request with the error in the result region, keeping the editors' text."""
    result = refusal(exc)
    if request.headers.get("HX-Request"):
        return with_status(make_response(result_partial(result)), result)
    return _page(values, None, result=result)


@bp.after_request
def protect(response: Response) -> Response:
    """Send the page's Content-Security-Policy with every page and partial."""
    response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    return response


@bp.errorhandler(404)
@bp.errorhandler(413)
@bp.errorhandler(500)
def error(exc: Any) -> Response:
    """Show an HTTP error as the result region, so htmx can swap it in like a result."""
    code = getattr(exc, "code", 500) or 500
    description = getattr(exc, "description", None) or "Something went wrong."
    if code == 413:
        description = "The form is larger than this playground accepts; shorten the panes and try again."
    if code == 500:
        description = "The playground failed on this input. This is a bug; the server log has the details."
    template = "_error.html" if request.headers.get("HX-Request") else "error.html"
    return make_response(render_template(template, code=code, description=description), code)
