"""The playground page: one form, one endpoint, one partial.

GET / shows the editors filled with an example and its result; POST /evaluate turns the
form into a JSON API body, asks the core, and answers with the result partial (htmx) or
the whole page (no JavaScript). The page is laid out by app/playground.py; the form's Share,
Import and Export buttons are routes of this blueprint kept with the other shared-scenario
routes, in app/shares.py.
"""

from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, Response, abort, make_response, request

from . import errors, examples, forms, mutating_page, playground

bp = Blueprint("web", __name__)


@bp.app_template_filter("pretty_json")
def pretty_json(value: Any) -> str:
    """Show a CEL value as indented JSON (autoescaped by the template like any text)."""
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


@bp.app_template_filter("mutating_view")
def mutating_view(response: Any) -> dict[str, Any] | None:
    """The MutatingAdmissionPolicy part of a response as templates/_mutating.html shows it (app/mutating_page.py)."""
    return mutating_page.view(response) if isinstance(response, dict) else None


@bp.get("/")
def index() -> Response:
    """Show the playground, opened on the example named in ?example= or the first one."""
    name = request.args.get("example")
    example = examples.get(name) if name else examples.default()
    if example is None:
        abort(404, description=f"There is no example called {name!r}.")
    return playground.render_page(example.form(), example)


@bp.post("/evaluate")
def evaluate() -> Response:
    """Evaluate the form: the result partial for htmx, the whole page otherwise."""
    values = forms.form_values(request.form)
    if request.headers.get("HX-Request"):
        result = playground.summarize(values)
        html = playground.result_partial(result) + playground.testcases_partial(
            playground.test_cases(values, result), oob=True)
        response = errors.with_status(make_response(html), result)
    else:
        response = playground.render_page(values)
    response.vary.add("HX-Request")
    return response


bp.register_error_handler(404, errors.http_error)
bp.register_error_handler(413, errors.http_error)
bp.register_error_handler(500, errors.http_error)
