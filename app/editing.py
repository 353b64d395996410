"""The editors' API: problems as the panes are typed, completion, hover and field documentation.

POST /api/v1/lint takes the body of POST /api/v1/evaluate and answers its ``problems`` without
evaluating (app/vap/lint.py, in the evaluation workers like any job that compiles CEL). POST
/api/v1/complete and /api/v1/hover take the same panes with a pane name and a 1-based line and column;
GET /api/v1/explain documents a kind's fields as kubectl explain does (app/vap/completion.py). No policy
logic here: docs/api.md describes the bodies.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

from flask import Blueprint, Response, jsonify, request

from . import errors, evaluations, ratelimit
from .vap import DEFAULT_VERSION, SUPPORTED_VERSIONS
from .vap.completion import complete, explain, hover
from .vap.documents import PANES
from .vap.scenario import InputError, check_payload

bp = Blueprint("editing", __name__, url_prefix="/api/v1")

EXPLAIN_MAX_AGE = 24 * 3600  # the schemas change only with the playground's release


def _body() -> dict[str, Any]:
    payload = request.get_json(silent=True)
    check_payload(payload)
    return payload


def _version(value: Any) -> str:
    version = str(value or DEFAULT_VERSION).lstrip("v")
    version = ".".join(version.split(".")[:2])
    if version not in SUPPORTED_VERSIONS:
        raise InputError(f"unsupported Kubernetes version {value!r}: supported versions are "
                         + ", ".join(SUPPORTED_VERSIONS))
    return version


def _position(payload: dict[str, Any]) -> tuple[str, int, int]:
    pane, line, column = payload.get("pane"), payload.get("line"), payload.get("column")
    if pane not in PANES:
        raise InputError(f"field 'pane' must name a pane: one of {', '.join(PANES)}")
    for name, value in (("line", line), ("column", column)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise InputError(f"field {name!r} must be a positive integer (1-based)")
    return str(pane), int(line), int(column)


@bp.post("/lint")
def lint_view() -> Response | tuple[Response, int]:
    """The problems of the panes, as an evaluation would report them, without evaluating."""
    try:
        return jsonify(evaluations.run("lint", _body()))
    except InputError as exc:
        return errors.json_error(str(exc), 400)


@bp.post("/complete")
def complete_view() -> Response | tuple[Response, int]:
    """What to offer at a position of a pane (fields, enum values, an expression's members)."""
    return _at_position(lambda payload, *at: complete(payload, *at).to_json())


@bp.post("/hover")
def hover_view() -> Response | tuple[Response, int]:
    """The documentation of the field whose key is at a position of a pane (``null`` when none is known)."""
    return _at_position(hover)


def _at_position(answer: Callable[..., Any]) -> Response | tuple[Response, int]:
    """Answer about a position: the body's panes, its pane, line and column, and its Kubernetes version."""
    try:
        payload = _body()
        pane, line, column = _position(payload)
        version = _version(payload.get("kubernetesVersion"))
    except InputError as exc:
        return errors.json_error(str(exc), 400)
    # cheap enough to answer here as one types (bounded by the body's size and the panes' limits), but counted:
    # no client may keep a server thread busy with them
    limiter = ratelimit.limiter()
    limiter.check("edit", ratelimit.client_address(request.remote_addr),
                  limiter.body_tokens(request.content_length))
    return jsonify(answer(payload, pane, line, column, version))


@bp.get("/explain")
def explain_view() -> Response | tuple[Response, int]:
    """The fields of a built-in kind, or of one of its fields (``path``), as kubectl explain lists them."""
    args = request.args
    try:
        version = _version(args.get("kubernetesVersion"))
        found = _explained(version, args.get("apiVersion", ""), args.get("kind", ""), args.get("path", ""))
    except InputError as exc:
        return errors.json_error(str(exc), 400)
    if found is None:
        return errors.json_error(f"Kubernetes {version} has no kind {args.get('kind', '')!r} in "
                                 f"{args.get('apiVersion', '')!r}, or it has no field {args.get('path', '')!r}", 404)
    response = jsonify(found)
    response.cache_control.public = True
    response.cache_control.max_age = EXPLAIN_MAX_AGE
    return response


@lru_cache(maxsize=256)
def _explained(version: str, api_version: str, kind: str, path: str) -> dict[str, Any] | None:
    return explain(version, api_version, kind, path)
