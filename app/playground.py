"""The playground page and its partials, as the page's views (app/web.py), shared links (app/shares.py)
and workshop exercises (app/workshop.py) show them.

The page is the editors, filled from form values, and the result of evaluating them: the
decision, kubectl's view, the problems in the input, what every policy did, and the test cases
matrix. What the result says comes from :func:`app.vap.evaluate`; this module only lays it out.
"""

from __future__ import annotations

from typing import Any

from flask import Response, make_response, render_template, request
from markupsafe import Markup

from . import errors, evaluations, examples, forms, ratelimit, vap
from .isolation import EvaluationStopped
from .result_view import (  # noqa: F401 - the page's view of a response, named here for the views and tests
    OLD_NEW_ROWS,
    decision_of,
    explained,
    kubectl_text,
    old_and_new,
    placed_problems,
)
from .vap.request import OPERATIONS


def kubernetes_versions() -> tuple[tuple[str, ...], str]:
    """Return the versions the core can emulate, newest first, and the one it defaults to."""
    versions = tuple(sorted(vap.SUPPORTED_VERSIONS, key=lambda v: tuple(int(p) for p in v.split(".")), reverse=True))
    return versions, vap.DEFAULT_VERSION or versions[0]


def summarize(values: dict[str, str], *, keep: bool = False) -> dict[str, Any]:
    """Evaluate the form values and return what the result partial shows (``keep``: a shared scenario, its
    result kept by content, app/evaluations.py)."""
    payload = forms.payload_from(values)
    bounds = evaluations.settings()
    try:
        result = evaluations.run("result_page", payload, dict(values), bounds.value_bytes, bounds.max_bytes,
                                 keep=keep)
    except NotImplementedError:
        return {"unavailable": True}
    except (ratelimit.RateLimited, EvaluationStopped) as exc:
        return errors.refused_result(exc)
    if isinstance(result.get("html"), str):  # rendered from the templates, autoescaped, by the job: markup
        result = {**result, "html": Markup(result["html"])}
    return result


def test_cases(values: dict[str, str], result: dict[str, Any], *, keep: bool = False) -> dict[str, Any] | None:
    """Run the Test cases pane under the evaluation bounds, admitted like an evaluation; None without cases or
    when evaluating was refused."""
    tests = values.get("testCases")
    if not tests or not tests.strip() or result.get("error"):
        return None
    try:
        summary = evaluations.run("test_cases", forms.payload_from(values), tests, keep=keep)
    except (ratelimit.RateLimited, EvaluationStopped) as exc:
        return errors.stopped_suite(exc)
    if isinstance(summary, dict) and summary.get("problems"):  # an unclosed quote: at the quote, as in the panes
        placed = placed_problems(values, [{**p, "pane": "testCases"} for p in summary["problems"]])
        summary = {**summary, "problems": placed}
    return summary


def result_partial(result: dict[str, Any]) -> str:
    """The result region: the result, or the error of a refused or stopped evaluation."""
    if result.get("error"):
        return render_template("_error.html", code=result["error"]["code"], description=result["error"]["description"])
    if isinstance(result.get("html"), str):  # rendered where it was evaluated (app.jobs.result_page)
        return str(result["html"])
    return render_template("_result.html", result=result)


def testcases_partial(summary: dict[str, Any] | None, *, oob: bool = False) -> str:
    """The test cases matrix region (out of band for an htmx swap of the result)."""
    return render_template("_testcases.html", testcases=summary, oob=oob)


def render_page(
    values: dict[str, str],
    example: examples.Example | None = None,
    *,
    shared_id: str | None = None,
    file_error: str | None = None,
    status: int = 200,
    template: str = "index.html",
    result: dict[str, Any] | None = None,
    keep: bool = False,
    **extra: Any,
) -> Response:
    """The whole page with these values in the editors, evaluated (unless ``result`` is given); ``keep``: the
    results kept by content (a shared scenario's)."""
    versions, default_version = kubernetes_versions()
    result = result or summarize(values, keep=keep)
    html = render_template(
        template,
        values=values,
        example=example,
        shared_id=shared_id,
        file_error=file_error,
        gallery=examples.all_examples(),
        result=result,
        panes=forms.PANES,
        operations=OPERATIONS,
        versions=versions,
        default_version=default_version,
        default_request=examples.DEFAULT_REQUEST,
        testcases=test_cases(values, result, keep=keep),
        **extra,
    )
    return errors.with_status(make_response(html, status), result)


def render_playground(scenario: dict[str, Any], *, shared_id: str) -> Response:
    """Show a shared scenario in the editors, evaluated, marked as a shared snapshot: its results are kept, so
    that a popular link costs one evaluation."""
    return render_page(forms.scenario_values(scenario), shared_id=shared_id, keep=True)


def refused(values: dict[str, str], exc: Exception) -> Response:
    """Answer a refused request with the error in the result region, keeping the editors' text."""
    result = errors.refused_result(exc)
    if request.headers.get("HX-Request"):
        return errors.with_status(make_response(result_partial(result)), result)
    return render_page(values, result=result)


