"""The playground page and its partials, as the page's views (app/web.py), shared links (app/shares.py)
and workshop exercises (app/workshop.py) show them.

The page is the editors, filled from form values, and the result of evaluating them: the
decision, kubectl's view, the problems in the input, what every policy did, and the test cases
matrix. What the result says comes from :func:`app.vap.evaluate`; this module only lays it out.
"""

from __future__ import annotations

from typing import Any

from flask import Response, make_response, render_template, request

from . import errors, evaluations, examples, forms, ratelimit, vap
from .isolation import EvaluationStopped
from .vap import decision
from .vap.request import OPERATIONS


def kubernetes_versions() -> tuple[tuple[str, ...], str]:
    """Return the versions the core can emulate, newest first, and the one it defaults to."""
    versions = tuple(sorted(vap.SUPPORTED_VERSIONS, key=lambda v: tuple(int(p) for p in v.split(".")), reverse=True))
    return versions, vap.DEFAULT_VERSION or versions[0]


def kubectl_text(response: dict[str, Any]) -> str:
    """Return what kubectl would print for this response (the warnings and the denial)."""
    if isinstance(response.get("kubectl"), str):  # a response that says it itself
        return response["kubectl"]
    return decision.kubectl_output(response)


def decision_of(response: dict[str, Any]) -> str:
    """Name the banner: allowed, warned (allowed with warnings) or denied."""
    if not response.get("allowed"):
        return "denied"
    return "warned" if response.get("warnings") else "allowed"


def summarize(values: dict[str, str]) -> dict[str, Any]:
    """Evaluate the form values and return what the result partial shows."""
    payload = forms.payload_from(values)
    try:
        with ratelimit.evaluation():
            response = evaluations.evaluate(payload)
    except NotImplementedError:
        return {"unavailable": True}
    except (ratelimit.RateLimited, EvaluationStopped) as exc:
        return errors.refused_result(exc)
    problems = [{**p, "paneLabel": forms.PANE_LABELS.get(p.get("pane"), p.get("pane") or "")}
                for p in response.get("problems") or []]
    return {
        "unavailable": False,
        "response": response,
        "decision": decision_of(response),
        "kubectl": kubectl_text(response),
        "problems": problems,
        "request": response.get("request") if isinstance(response.get("request"), dict) else None,
    }


def test_cases(values: dict[str, str], result: dict[str, Any]) -> dict[str, Any] | None:
    """Run the Test cases pane under the evaluation bounds; None without cases or when evaluating was refused."""
    tests = values.get("testCases")
    if not tests or not tests.strip() or result.get("error"):
        return None
    try:
        return evaluations.run("test_cases", forms.payload_from(values), tests)
    except EvaluationStopped as exc:
        return errors.stopped_suite(exc)


def result_partial(result: dict[str, Any]) -> str:
    """The result region: the result, or the error of a refused or stopped evaluation."""
    if result.get("error"):
        return render_template("_error.html", code=result["error"]["code"], description=result["error"]["description"])
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
    **extra: Any,
) -> Response:
    """The whole page with these values in the editors, evaluated (unless ``result`` is given)."""
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
        panes=forms.PANES,
        operations=OPERATIONS,
        versions=versions,
        default_version=default_version,
        default_request=examples.DEFAULT_REQUEST,
        testcases=test_cases(values, result),
        **extra,
    )
    return errors.with_status(make_response(html, status), result)


def render_playground(scenario: dict[str, Any], *, shared_id: str) -> Response:
    """Show a shared scenario in the editors, evaluated, marked as a shared snapshot."""
    return render_page(forms.scenario_values(scenario), shared_id=shared_id)


def refused(values: dict[str, str], exc: Exception) -> Response:
    """Answer a refused request with the error in the result region, keeping the editors' text."""
    result = errors.refused_result(exc)
    if request.headers.get("HX-Request"):
        return errors.with_status(make_response(result_partial(result)), result)
    return render_page(values, result=result)
