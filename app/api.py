"""The JSON API: POST /api/v1/evaluate (docs/api.md describes it). No policy logic here."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, request
from flask.json.provider import DefaultJSONProvider
from werkzeug.exceptions import RequestEntityTooLarge

from . import errors, evaluations, jobs
from .vap.evaluate import InputError

bp = Blueprint("api", __name__, url_prefix="/api/v1")


class StrictJSONProvider(DefaultJSONProvider):
    """Flask's JSON, strict: a float JSON cannot carry (NaN, an infinity: a shared scenario's YAML may hold
    one) is sent as the string "NaN", "Infinity" or "-Infinity", never bare (app.jobs.strict)."""

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        try:
            return super().dumps(obj, allow_nan=False, **kwargs)
        except ValueError:
            return super().dumps(jobs.strict(obj), **kwargs)


@bp.post("/evaluate")
def evaluate_view() -> tuple[Response, int] | Response:
    """Evaluate a scenario and return what kube-apiserver would answer."""
    # Admitted before the body is decoded (app/evaluations.py), so a refused client costs little. A rate limit or a
    # full queue (429), or an evaluation stopped at its time or memory bound (422; 503 when no worker came free), is
    # answered by app.errors.refusal.
    # Read, decoded and answered where it is evaluated: this process passes the bytes on, both ways.
    raw = request.get_data(cache=True)
    try:
        return Response(evaluations.evaluate_body(raw), mimetype="application/json")
    except InputError as exc:
        return errors.json_error(str(exc), 400)


@bp.errorhandler(RequestEntityTooLarge)
def too_large(exc: RequestEntityTooLarge) -> tuple[Response, int]:
    return errors.json_error(f"the request body is larger than the limit of {request.max_content_length} bytes", 413)
