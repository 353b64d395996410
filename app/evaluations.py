"""Evaluating for the web layer: under the current app's bounds, in its evaluation workers or inline.

The app's settings (EVALUATION_* in its configuration) are read once by :func:`init_app`; the
functions here run a job of app/jobs.py as those settings say, in this process's pool of workers
(app/isolation.py) or, with EVALUATION_ISOLATION = "inline", in this process.
"""

from __future__ import annotations

from typing import Any

from flask import Flask, current_app

from . import errors, jobs, store, vap
from .isolation import EvaluationStopped, Settings, pool_for, response_json
from .vap import limits

EXTENSION = "evaluation"


def init_app(app: Flask) -> None:
    """Read the evaluation settings and, for process isolation, start this process's workers."""
    settings = Settings.from_config(app.config)
    app.extensions[EXTENSION] = settings
    app.register_error_handler(EvaluationStopped, errors.refusal)
    if settings.isolation == "process":
        pool_for(settings)


def settings() -> Settings:
    """The current app's evaluation settings."""
    return current_app.extensions.get(EXTENSION) or Settings.from_config(current_app.config)


def evaluate(payload: Any) -> dict[str, Any]:
    """Evaluate a scenario under the current app's bounds (the JSON API body in, its response out).

    Raises InputError for a body that is not an API request, EvaluationStopped at a bound.
    """
    current = settings()
    if current.isolation == "inline":
        with limits.use(current.limits):
            return current.served("evaluate", vap.evaluate(payload))
    return pool_for(current).evaluate(payload)


def evaluate_body(raw: bytes) -> bytes:
    """Evaluate a JSON API request body (bytes as received) under the current app's bounds; return the
    JSON API response, encoded (:func:`app.isolation.response_json`).

    Raises InputError for a body that is not JSON or not an API request, EvaluationStopped at a bound.
    """
    current = settings()
    if current.isolation == "inline":
        with limits.use(current.limits):
            return response_json(current.served("evaluate_body", jobs.evaluate_body(raw)))
    return pool_for(current).evaluate_body(raw)


def run(job: str, *args: Any) -> Any:
    """Run one of app.jobs.JOBS (test cases, a suite, workshop checks) under the current app's bounds."""
    current = settings()
    if current.isolation == "inline":
        with limits.use(current.limits):
            return current.served(job, jobs.JOBS[job](*args))
    return pool_for(current).run(job, *args)


def parse_scenario_file(data: bytes) -> dict[str, Any]:
    """Read a scenario file as app.store.parse_yaml does, under the bounds; raise ScenarioError as it does."""
    reply = run("scenario_file", data.decode("latin-1"))  # bytes through JSON, unchanged
    if "error" in reply:
        raise store.ScenarioError(reply["error"])
    return reply["scenario"]
