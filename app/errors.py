"""Errors and refusals, as every part of the web layer answers them.

A request to the JSON API gets ``{"error": ...}``; a page request gets the error region (the
partial, which htmx swaps in like a result) or, without htmx, the error page. A refused request
(a rate limit, 429) or an evaluation stopped at a bound (422, or 503 when every worker is busy)
carries its status and a Retry-After; on the page it shows in the result region and the editors
keep their text.
"""

from __future__ import annotations

from typing import Any

from flask import Flask, Response, jsonify, make_response, render_template, request
from werkzeug.exceptions import HTTPException


def json_error(message: str, code: int) -> tuple[Response, int]:
    """An API error: ``{"error": message}`` with the status."""
    return jsonify(error=message), code


def html_error(code: int, description: str) -> str:
    """The error as HTML: the result region's partial for htmx, the whole error page otherwise."""
    template = "_error.html" if request.headers.get("HX-Request") else "error.html"
    return render_template(template, code=code, description=description)


def retry_after(exc: Exception) -> int | None:
    """Seconds a refused client should wait: the refusal's own, or a second when the server is busy (503)."""
    return getattr(exc, "retry_after", None) or (1 if getattr(exc, "status", None) == 503 else None)


def refusal(exc: Exception) -> Response:
    """Answer a refused request (``exc.status``, ``exc.retry_after``): JSON for the API, HTML otherwise.

    The handler of rate limits and of evaluations stopped at a bound.
    """
    status = int(getattr(exc, "status", 429))
    if request.path.startswith("/api/"):
        response = jsonify(error=str(exc))
    else:
        response = make_response(html_error(status, str(exc)))
    response.status_code = status
    seconds = retry_after(exc)
    if seconds:
        response.headers["Retry-After"] = str(seconds)
    return response


def http_error(exc: Any) -> Response:
    """Show an HTTP error of a page (404, 413, 500) as the result region, so htmx can swap it in like a result."""
    code = getattr(exc, "code", 500) or 500
    description = getattr(exc, "description", None) or "Something went wrong."
    if code == 413:
        description = "The form is larger than this playground accepts; shorten the panes and try again."
    if code == 500:
        description = "The playground failed on this input. This is a bug; the server log has the details."
    return make_response(html_error(code, description), code)


def refused_result(exc: Exception) -> dict[str, Any]:
    """The result of an evaluation refused by a rate limit or stopped at a bound: an error to show."""
    error = {"code": int(getattr(exc, "status", 429)), "description": str(exc), "retry_after": retry_after(exc)}
    return {"unavailable": False, "error": error}


def with_status(response: Response, result: dict[str, Any]) -> Response:
    """Give a page or partial the status of a refused evaluation (and its Retry-After)."""
    error = result.get("error")
    if error:
        response.status_code = error["code"]
        if error.get("retry_after"):
            response.headers["Retry-After"] = str(error["retry_after"])
    return response


def stopped_suite(exc: Exception) -> dict[str, Any]:
    """What the test cases matrix (or a workshop's checks) shows when running them was stopped at a bound."""
    return {"total": 0, "passed": 0, "failed": 0, "errors": 0, "rows": [],
            "problems": [{"severity": "error", "line": None, "column": None, "message": str(exc)}]}


def api_or_default(exc: HTTPException) -> Response:
    """An HTTP error outside the views' own handlers (a route that does not exist, a method it does not
    take, a failure): ``{"error": ...}`` under /api/, with its status (and Allow for a 405); else as it was."""
    if not request.path.startswith("/api/"):
        return exc.get_response()
    code = exc.code or 500
    if code == 404:
        message = f"there is no API endpoint {request.path[:200]!r}; the endpoints are described in docs/api.md"
    elif code == 405:
        allowed = ", ".join(sorted(getattr(exc, "valid_methods", None) or []))
        message = f"{request.path[:200]} does not take {request.method}" + (f"; it takes {allowed}" if allowed else "")
    elif code >= 500:
        message = "the playground failed on this request. This is a bug; the server log has the details."
    else:
        message = exc.description or exc.name
    response = jsonify(error=message)
    response.status_code = code
    for name, value in exc.get_headers():
        if name.lower() in ("allow", "retry-after"):
            response.headers[name] = value
    return response


def init_app(app: Flask) -> None:
    """Answer the errors no view handles: JSON under /api/."""
    for code in (400, 404, 405, 413, 500):
        app.register_error_handler(code, api_or_default)
