"""The JSON API: POST /api/v1/evaluate (docs/api.md describes it). No policy logic here."""

from __future__ import annotations

from flask import Blueprint, Response, request
from werkzeug.exceptions import RequestEntityTooLarge

from . import errors, evaluations, ratelimit
from .vap.evaluate import InputError

bp = Blueprint("api", __name__, url_prefix="/api/v1")


@bp.post("/evaluate")
def evaluate_view() -> tuple[Response, int] | Response:
    """Evaluate a scenario and return what kube-apiserver would answer."""
    # The rate limit comes before decoding the body, so a refused client costs little. A rate limit (429),
    # or an evaluation stopped at its time or memory bound (422; 503 when every worker is busy), is answered
    # by app.errors.refusal.
    with ratelimit.evaluation():
        # read, decoded and answered where it is evaluated: this process passes the bytes on, both ways
        raw = request.get_data(cache=True)
        try:
            return Response(evaluations.evaluate_body(raw), mimetype="application/json")
        except InputError as exc:
            return errors.json_error(str(exc), 400)


@bp.errorhandler(RequestEntityTooLarge)
def too_large(exc: RequestEntityTooLarge) -> tuple[Response, int]:
    return errors.json_error(f"the request body is larger than the limit of {request.max_content_length} bytes", 413)
