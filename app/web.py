"""The playground page: one form, one endpoint, one partial.

GET / shows the editors filled with an example and its result; POST /evaluate turns the
form into a JSON API body, asks the core, and answers with the result partial (htmx) or
the whole page (no JavaScript). The page is laid out by app/playground.py; the form's Share,
Import and Export buttons are routes of this blueprint kept with the other shared-scenario
routes, in app/shares.py.
"""

from __future__ import annotations

from flask import Blueprint, Response, abort, make_response, request

from . import errors, examples, forms, playground, rendering

bp = Blueprint("web", __name__)


for _name, _filter in rendering.FILTERS.items():  # the page's filters, as the workers render with them too
    bp.add_app_template_filter(_filter, _name)


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
