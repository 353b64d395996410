"""Evaluating for the web layer: every job for the evaluation workers goes through here, admitted fairly.

The app's settings (EVALUATION_* in its configuration) are read once by :func:`init_app`; the
functions here run a job of app/jobs.py as those settings say, in this process's pool of workers
(app/isolation.py) or, with EVALUATION_ISOLATION = "inline", in this process.

Before a job runs, it is admitted for the client that asked (the request's address,
app/ratelimit.py): it takes its rate-limit tokens (429 when the client has none left), then waits for a
seat on the workers in the client's own queue (app/scheduler.py: each client at most its share of the
workers, 429 when its queue is full, 503 when no seat came free in time). A job stopped at its time or
memory bound costs the client the penalty. No view reaches a worker any other way. With ``keep``, the
job's result (or its stop at a bound) is kept by content: the same job with the same arguments is
answered from memory, taking neither tokens nor a worker (a shared scenario's result, its export).
"""

from __future__ import annotations

from typing import Any

from flask import Flask, current_app, has_request_context, request

from . import errors, jobs, ratelimit, store
from .isolation import (
    CONFIG_DEFAULTS,
    EvaluationOutOfMemory,
    EvaluationStopped,
    EvaluationTimeout,
    Settings,
    pool_for,
    response_json,
)
from .scheduler import Kept, QueueFull, QueueTimeout, Scheduler, content_key
from .vap import limits

EXTENSION = "evaluation"
_SCHEDULER = "evaluation_scheduler"
_KEPT = "kept_results"


def init_app(app: Flask) -> None:
    """Read the evaluation settings, set up the fair scheduler and, for process isolation, start this
    process's workers."""
    settings = Settings.from_config(app.config)
    app.extensions[EXTENSION] = settings
    limiter: ratelimit.Limiter = app.extensions[ratelimit.EXTENSION]
    app.extensions[_SCHEDULER] = Scheduler(
        settings.workers,
        per_client=limiter.concurrent if limiter.enabled and limiter.concurrent > 0 else None,
        queue_per_client=limiter.queued if limiter.enabled and limiter.queued > 0 else None,
        queue_total=limiter.queued_total if limiter.enabled and limiter.queued_total > 0 else None,
        wait=settings.queue)
    kept = app.config.get("KEPT_RESULTS_MAX_BYTES")
    kept = CONFIG_DEFAULTS["KEPT_RESULTS_MAX_BYTES"] if kept is None or kept == "" else int(kept)
    app.extensions[_KEPT] = Kept(kept) if kept > 0 else None
    app.register_error_handler(EvaluationStopped, errors.refusal)
    if settings.isolation == "process":
        pool_for(settings)


def settings() -> Settings:
    """The current app's evaluation settings."""
    return current_app.extensions.get(EXTENSION) or Settings.from_config(current_app.config)


def scheduler() -> Scheduler:
    """The current app's scheduler of the evaluation workers."""
    found = current_app.extensions.get(_SCHEDULER)
    if found is None:
        found = current_app.extensions[_SCHEDULER] = Scheduler(settings().workers, wait=settings().queue)
    return found


def kept_results() -> Kept | None:
    """The results kept by content in this server process (None when keeping is off)."""
    return current_app.extensions.get(_KEPT)


def evaluate(payload: Any, *, keep: bool = False) -> dict[str, Any]:
    """Evaluate a scenario under the current app's bounds (the JSON API body in, its response out).

    Raises InputError for a body that is not an API request, EvaluationStopped at a bound, RateLimited
    when the client may not evaluate now.
    """
    return _admitted("evaluate", (payload,), keep=keep)


def evaluate_body(raw: bytes) -> bytes:
    """Evaluate a JSON API request body (bytes as received) under the current app's bounds; return the
    JSON API response, encoded (:func:`app.isolation.response_json`).

    Raises InputError for a body that is not JSON or not an API request, EvaluationStopped at a bound,
    RateLimited when the client may not evaluate now.
    """
    return _admitted("evaluate_body", (), raw=raw)


def run(job: str, *args: Any, keep: bool = False) -> Any:
    """Run one of app.jobs.JOBS (test cases, a suite, workshop checks, an export) under the current app's
    bounds, admitted like an evaluation."""
    return _admitted(job, args, keep=keep)


def parse_scenario_file(data: bytes) -> dict[str, Any]:
    """Read a scenario file as app.store.parse_yaml does, under the bounds; raise ScenarioError as it does."""
    reply = run("scenario_file", data.decode("latin-1"))  # bytes through JSON, unchanged
    if "error" in reply:
        raise store.ScenarioError(reply["error"])
    return reply["scenario"]


# --- admission --------------------------------------------------------------------------------------------


def _admitted(job: str, args: tuple[Any, ...], *, raw: bytes | None = None, keep: bool = False) -> Any:
    kept = kept_results() if keep and raw is None else None
    if kept is None:
        return _seated(job, args, raw)
    return kept.get_or_compute(content_key(job, args), lambda: _seated(job, args, raw),
                               keep_error=_same_again, size=_size, wait=settings().suite_timeout)


def _seated(job: str, args: tuple[Any, ...], raw: bytes | None) -> Any:
    """Take the client's tokens, wait for its seat, run the job; the penalty when it was stopped."""
    limiter = ratelimit.limiter()
    client = _client()
    limiter.check("evaluate", client, limiter.body_tokens(request.content_length if has_request_context() else None))
    try:
        with scheduler().seat(client):
            return _perform(job, args, raw)
    except QueueFull as exc:
        raise ratelimit.RateLimited(str(exc), exc.retry_after) from None
    except QueueTimeout:
        raise settings().busy_error() from None
    except (EvaluationTimeout, EvaluationOutOfMemory):
        limiter.penalize(client)
        raise


def _perform(job: str, args: tuple[Any, ...], raw: bytes | None) -> Any:
    """Run the job, in a worker or (EVALUATION_ISOLATION = "inline") here, its answer bounded."""
    current = settings()
    if current.isolation == "inline":
        with limits.use(current.limits):
            answer = current.served(job, jobs.JOBS[job](*args, *(() if raw is None else (raw,))))
        return response_json(answer) if job == "evaluate_body" else answer
    if job == "evaluate":
        return pool_for(current).evaluate(*args)
    return pool_for(current).run(job, *args, raw=raw, encoded=job == "evaluate_body")


def _client() -> str:
    return ratelimit.client_address(request.remote_addr) if has_request_context() else "local"


def _same_again(exc: BaseException) -> bool:
    """Whether a job's exception is its outcome, the same on every run (a bound), not the server's state."""
    return isinstance(exc, (EvaluationTimeout, EvaluationOutOfMemory))


def _size(value: Any) -> int:
    if isinstance(value, (bytes, str)):
        return len(value)
    return len(response_json(value))
