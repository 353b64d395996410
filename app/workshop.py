"""Workshop mode: the list of exercises, and the playground opened on one with its task and checks.

    GET  /workshop                  the course: every exercise, in order
    GET  /workshop/<name>           the page with the exercise's starting panes, task and checks
    POST /workshop/<name>/evaluate  the form → the result partial and the checks (htmx), or the page

The checks are test cases kept on the server: the page learns how many pass, their names and, for
a failing one, what it expected and what it got in a fixed vocabulary (allowed, denied with a status
code and reason, not evaluated, stopped): never their objects, messages, warnings or the solution.
"""

from __future__ import annotations

import re
from typing import Any

from flask import Blueprint, Response, abort, make_response, render_template, request, url_for
from markupsafe import Markup, escape

from . import errors, evaluations, exercises, forms, jobs, playground, ratelimit
from .isolation import EvaluationStopped

bp = Blueprint("workshop", __name__, url_prefix="/workshop")

_CODE = re.compile(r"`([^`\n]+)`")


def task_html(text: str) -> Markup:
    """The task text as paragraphs, `code` in backticks shown as code; everything else escaped."""
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]
    out = []
    for paragraph in paragraphs:
        escaped = str(escape(" ".join(paragraph.split())))
        out.append("<p>" + _CODE.sub(lambda m: f"<code>{m.group(1)}</code>", escaped) + "</p>")
    return Markup("\n".join(out))


def _exercise(name: str) -> exercises.Exercise:
    exercise = exercises.get(name)
    if exercise is None:
        abort(404, description=f"There is no exercise called {name!r}; see the list at /workshop.")
    return exercise


def checks_of(exercise: exercises.Exercise, values: dict[str, str], *, keep: bool = False) -> dict[str, Any]:
    """Run the exercise's hidden checks against the form's panes; only names and outcomes come back.

    They run in an evaluation worker, admitted and bounded like the test cases (app/evaluations.py); ``keep``:
    the exercise's starting panes, whose outcome is kept by content.
    """
    try:
        summary = evaluations.run("checks", exercise.name, forms.payload_from(values), keep=keep)
    except (ratelimit.RateLimited, EvaluationStopped) as exc:
        # refused, or stopped at its time or memory bound: every check counts as failed, never "0 of 0 pass, solved"
        summary = jobs.stopped_checks(exercise.name, str(exc))
    assert summary is not None
    return summary


def _neighbours(exercise: exercises.Exercise) -> tuple[exercises.Exercise | None, exercises.Exercise | None]:
    course = exercises.all_exercises()
    i = course.index(exercise)
    return (course[i - 1] if i > 0 else None), (course[i + 1] if i + 1 < len(course) else None)


def _page(exercise: exercises.Exercise, values: dict[str, str], *, keep: bool = False) -> Response:
    previous, following = _neighbours(exercise)
    return playground.render_page(
        values, template="workshop_exercise.html", exercise=exercise, task=task_html(exercise.task), keep=keep,
        checks=checks_of(exercise, values, keep=keep), previous=previous, following=following,
        course_length=len(exercises.all_exercises()),
        evaluate_url=url_for("workshop.evaluate", name=exercise.name),
    )


@bp.get("")
@bp.get("/")
def index() -> Response:
    """List the exercises of the course."""
    return make_response(render_template("workshop.html", course=exercises.all_exercises()))


@bp.get("/<name>")
def exercise_page(name: str) -> Response:
    """Open the playground on an exercise: its starting panes, its task, its checks."""
    exercise = _exercise(name)
    return _page(exercise, exercise.form(), keep=True)  # the same for everyone: its results are kept


@bp.post("/<name>/evaluate")
def evaluate(name: str) -> Response:
    """Evaluate the form and run the checks: partials for htmx, the whole page otherwise."""
    exercise = _exercise(name)
    values = forms.form_values(request.form)
    if request.headers.get("HX-Request"):
        result = playground.summarize(values)
        html = (playground.result_partial(result)
                + render_template("_checks.html", checks=checks_of(exercise, values), oob=True)
                + playground.testcases_partial(playground.test_cases(values, result), oob=True))
        response = errors.with_status(make_response(html), result)
    else:
        response = _page(exercise, values)
    response.vary.add("HX-Request")
    return response


# The error pages, as the playground has them.
bp.register_error_handler(404, errors.http_error)
bp.register_error_handler(413, errors.http_error)
