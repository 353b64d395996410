"""Shared scenarios over HTTP: the JSON API, the YAML export and import, and the /s/<id> page.

This module only maps HTTP to :mod:`app.store` (format, ids, storage) and shows results of
:func:`app.vap.evaluate`; it holds no policy logic.

    POST /api/v1/scenarios              a scenario (JSON, or a scenario file as YAML) → 201 {id, url}, 200 if known
    GET  /api/v1/scenarios/<id>         the scenario, as stored
    GET  /api/v1/scenarios/<id>/export  the scenario file (YAML download)
    POST /api/v1/scenarios/import       a scenario file (body or multipart `file`) → the scenario as JSON
    GET  /s/<id>                        the page, marked as a shared snapshot

and the page's form actions (routes of the page's blueprint, app/web.py: endpoints web.share, ...):

    POST /share                         store the form's scenario and go to its link
    POST /import                        open a scenario file in the page (without JavaScript)
    POST /export                        download the form's scenario as a scenario file
"""

from __future__ import annotations

import math
import os
import threading
import time
from typing import Any

from flask import (
    Blueprint,
    Flask,
    Response,
    current_app,
    jsonify,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)
from werkzeug.exceptions import RequestEntityTooLarge

from . import errors, evaluations, forms, loading, playground, ratelimit, web
from . import store as scenarios
from .isolation import EvaluationStopped

bp = Blueprint("shares", __name__)

EXTENSION = "scenario_store"
_YAML_TYPES = ("application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml")
_open_lock = threading.Lock()
_TOO_DEEP = "the scenario nests mappings and lists too deeply to read"


def get_store(app: Flask | None = None) -> scenarios.Store:
    """Return the app's store, opening it (and migrating the schema) on first use in this process."""
    app = app or current_app._get_current_object()  # type: ignore[attr-defined]
    store = app.extensions.get(EXTENSION)
    if store is None:
        with _open_lock:
            store = app.extensions.get(EXTENSION)
            if store is None:
                # The app's config first; the plain environment variables the issue names otherwise.
                data_dir = app.config.get("DATA_DIR", os.environ.get("DATA_DIR")) or "data"
                database_url = app.config.get("DATABASE_URL", os.environ.get("DATABASE_URL")) or None
                store = scenarios.open_store(data_dir, database_url)
                app.extensions[EXTENSION] = store
    return store


# Per-client quota on the bytes of new shared scenarios, and the budget of the whole store (docs/limits.md).
CONFIG_DEFAULTS = {
    "SHARE_QUOTA_BYTES_PER_HOUR": 8 * 1024 * 1024,  # new scenarios one client may store an hour (0: no quota)
    "STORE_MAX_BYTES": 1024 * 1024 * 1024,  # all the stored scenarios (0: no budget)
}
_QUOTA = "share_quota"
_STORED = "store_bytes"
_STORED_FOR = 60.0  # seconds the store's size is trusted before it is read again (other processes write too)
_STORED_FRESH = 5.0  # ... and, when it says the store is full, before it is read again to be sure


class OverBudget(Exception):
    """The store holds its budget of scenarios (HTTP 507): nothing was stored."""

    status = 507


def _setting(name: str) -> int:
    value = current_app.config.get(name)
    return max(0, int(CONFIG_DEFAULTS[name] if value is None or value == "" else value))


def _quota() -> ratelimit.Buckets | None:
    """The app's per-client buckets of bytes of new shares (None without a quota or rate limits)."""
    per_hour = _setting("SHARE_QUOTA_BYTES_PER_HOUR")
    if not per_hour or not current_app.config.get("RATE_LIMIT_ENABLED", True):
        return None
    buckets = current_app.extensions.get(_QUOTA)
    if buckets is None:
        buckets = current_app.extensions[_QUOTA] = ratelimit.Buckets(
            ratelimit.Rule("share bytes", per_hour / 60.0, float(per_hour)))
    return buckets


def _stored_bytes(store: scenarios.Store, *, fresh: bool = False) -> int:
    """The bytes the store holds: read at most once a minute (or, ``fresh``, once every few seconds: a full store
    refusing shares must not read its whole table for each refusal), plus what this process stored since."""
    known = current_app.extensions.get(_STORED)
    now = time.monotonic()
    if known is None or now - known[1] > (_STORED_FRESH if fresh else _STORED_FOR):
        known = current_app.extensions[_STORED] = [store.total_bytes(), now]
    return int(known[0])


def store_body(body: bytes) -> tuple[str, bool]:
    """Store a canonical scenario body unless present, within the client's quota and the store's budget;
    return its id and whether it is new. A scenario already stored costs neither.

    Raises RateLimited (429) over the client's quota, OverBudget (507) over the store's budget,
    StoreFull (507) when the disk is full.
    """
    store = get_store()
    known = store.find(body)
    if known is not None:
        return known, False
    size = len(body)
    quota = _quota()
    client = ratelimit.client_address(request.remote_addr)
    if quota is not None:
        wait = quota.take(client, count=size)
        if wait > 0:
            per_hour = _setting("SHARE_QUOTA_BYTES_PER_HOUR")
            seconds = max(1, math.ceil(wait))
            raise ratelimit.RateLimited(
                f"your address has stored its quota of new shared scenarios: {per_hour:,} bytes an hour "
                f"(PLAYGROUND_SHARE_QUOTA_BYTES_PER_HOUR); this one is {size:,} bytes; nothing was stored, try "
                f"again in {seconds} second{'' if seconds == 1 else 's'}", seconds)
    budget = _setting("STORE_MAX_BYTES")
    if budget and (_stored_bytes(store) + size > budget and _stored_bytes(store, fresh=True) + size > budget):
        if quota is not None:
            quota.charge(client, -size)  # nothing stored: the bytes are the client's again
        raise OverBudget(
            f"the scenario store is full: it holds {_stored_bytes(store):,} bytes of shared scenarios and its "
            f"budget is {budget:,} (PLAYGROUND_STORE_MAX_BYTES); nothing was stored")
    try:
        scenario_id, created = store.put(body)
    except scenarios.StoreUnavailable:
        if quota is not None:
            quota.charge(client, -size)
        raise
    if created:
        known_size = current_app.extensions.get(_STORED)
        if known_size is not None:
            known_size[0] += size
    elif quota is not None:
        quota.charge(client, -size)
    return scenario_id, created


def _limit() -> int:
    return int(current_app.config.get("SCENARIO_MAX_BYTES") or scenarios.DEFAULT_MAX_BYTES)


def _json_body() -> Any:
    try:
        return request.get_json(force=True, silent=True)
    except RecursionError:  # nested deeper than the JSON decoder goes: not a scenario either
        return None


def _is_yaml() -> bool:
    return (request.mimetype or "") in _YAML_TYPES


def _lookup(scenario_id: str) -> dict[str, Any] | None:
    if not scenarios.is_valid_id(scenario_id):
        return None
    return get_store().get(scenario_id)


def _not_found(scenario_id: str) -> tuple[Response, int]:
    return errors.json_error(f"there is no shared scenario with id {scenario_id[:64]!r}", 404)


@bp.post("/api/v1/scenarios")
def create() -> tuple[Response, int]:
    """Share a scenario: 201 with its id and link when new, 200 with the same when already shared."""
    ratelimit.check("share")
    try:
        if _is_yaml():
            payload: Any = evaluations.parse_scenario_file(request.get_data())
        else:
            payload = _json_body()
            if payload is None:
                return errors.json_error("the request body must be a JSON object (the panes of a scenario) "
                              "or a scenario file with Content-Type: application/yaml", 400)
        _, body = scenarios.prepare(payload, _limit())
    except scenarios.ScenarioTooLarge as exc:
        return errors.json_error(str(exc), 413)
    except scenarios.ScenarioError as exc:
        return errors.json_error(str(exc), 400)
    except RecursionError:
        return errors.json_error(_TOO_DEEP, 400)
    scenario_id, created = store_body(body)
    response = jsonify(id=scenario_id, url=f"/s/{scenario_id}")
    response.headers["Location"] = f"/s/{scenario_id}"
    return response, 201 if created else 200


@bp.get("/api/v1/scenarios/<scenario_id>")
def read(scenario_id: str) -> Response | tuple[Response, int]:
    """Return a shared scenario exactly as it was stored."""
    scenario = _lookup(scenario_id)
    if scenario is None:
        return _not_found(scenario_id)
    response = jsonify(scenario)
    response.headers["Cache-Control"] = "public, max-age=31536000, immutable"
    return response


@bp.get("/api/v1/scenarios/<scenario_id>/export")
def export(scenario_id: str) -> Response | tuple[Response, int]:
    """Download a shared scenario as a scenario file."""
    scenario = _lookup(scenario_id)
    if scenario is None:
        return _not_found(scenario_id)
    # written in an evaluation worker, admitted like an evaluation; kept by content: a popular link's file is
    # written once
    response = make_response(evaluations.run("export", scenario, scenario_id, keep=True)["yaml"])
    response.mimetype = "application/yaml"
    response.headers["Content-Disposition"] = f'attachment; filename="scenario-{scenario_id}.yaml"'
    return response


@bp.post("/api/v1/scenarios/import")
def import_file() -> Response | tuple[Response, int]:
    """Read a scenario file (the body, or a multipart field `file`) and return the scenario; store nothing."""
    ratelimit.check("share")
    upload = request.files.get("file")
    text = upload.read() if upload is not None else request.get_data()
    try:
        scenario, _ = scenarios.prepare(evaluations.parse_scenario_file(text), _limit())
    except scenarios.ScenarioTooLarge as exc:
        return errors.json_error(str(exc), 413)
    except scenarios.ScenarioError as exc:
        return errors.json_error(f"not a scenario file: {exc}", 400)
    except RecursionError:
        return errors.json_error(f"not a scenario file: {_TOO_DEEP}", 400)
    return jsonify(scenario)


@bp.get("/s/<scenario_id>")
def shared_page(scenario_id: str) -> Response:
    """Show a shared scenario and its result, marked as a shared snapshot."""
    scenario = _lookup(scenario_id)
    if scenario is None:
        html = render_template("shared_404.html", scenario_id=scenario_id[:64])
        return make_response(html, 404)
    return make_response(playground.render_playground(scenario, shared_id=scenario_id))


# --- the page's form actions ------------------------------------------------------------------------


@web.bp.post("/share")
def share() -> Response:
    """Store the form's scenario and go to its link (the same scenario always gets the same link)."""
    values = forms.form_values(request.form)
    try:
        ratelimit.check("share")
    except ratelimit.RateLimited as exc:
        return playground.refused(values, exc)
    try:
        _, body = scenarios.prepare(forms.scenario_payload(values), _limit())
        shared_id, _ = store_body(body)
    except ratelimit.RateLimited as exc:
        return playground.refused(values, exc)
    except (scenarios.ScenarioError, scenarios.ScenarioTooLarge) as exc:
        code = 413 if isinstance(exc, scenarios.ScenarioTooLarge) else 400
        description = f"Nothing was shared: {exc}."
        if request.headers.get("HX-Request"):  # shown in the result region; the editors keep their text
            return make_response(errors.html_error(code, description), code)
        return playground.render_page(values, file_error=description, status=code)
    link = url_for("shares.shared_page", scenario_id=shared_id)
    if request.headers.get("HX-Request"):
        response = make_response("", 204)
        response.headers["HX-Redirect"] = link  # htmx loads the shared page itself
        return response
    return redirect(link, 303)


@web.bp.post("/import")
def import_scenario() -> Response:
    """Open a scenario file in the page (the form without JavaScript; the script uses the import API).

    The form carries the editors' text too, so a file that cannot be read leaves every pane as it was.
    """
    upload = request.files.get("scenarioFile")
    name = (upload.filename or "the file") if upload is not None else ""
    if upload is None or not name:
        return playground.render_page(forms.form_values(request.form), file_error="choose a scenario file to import",
                                      status=400)
    data = upload.read()
    if not loading.is_scenario(data):  # plain Kubernetes YAML: each document goes to the pane of its kind
        return loading.open_manifests(forms.form_values(request.form), name, data)
    try:
        ratelimit.check("share")
        scenario, _ = scenarios.prepare(evaluations.parse_scenario_file(data), _limit())
    except (ratelimit.RateLimited, EvaluationStopped) as exc:
        return playground.render_page(forms.form_values(request.form), file_error=f"{name}: {exc}", status=exc.status)
    except (scenarios.ScenarioError, scenarios.ScenarioTooLarge) as exc:
        status = 413 if isinstance(exc, scenarios.ScenarioTooLarge) else 400
        return playground.render_page(forms.form_values(request.form), file_error=f"{name}: not a scenario file: {exc}",
                                      status=status)
    return playground.render_page(forms.scenario_values(scenario))


@web.bp.post("/export")
def export_scenario() -> Response:
    """Download the form's scenario as one YAML file, without storing it."""
    try:
        scenario, _ = scenarios.prepare(forms.scenario_payload(forms.form_values(request.form)), _limit())
    except (scenarios.ScenarioError, scenarios.ScenarioTooLarge) as exc:
        return playground.render_page(forms.form_values(request.form), file_error=f"cannot export: {exc}", status=400)
    response = make_response(evaluations.run("export", scenario, None)["yaml"])  # written in a worker, admitted
    response.mimetype = "application/yaml"
    response.headers["Content-Disposition"] = 'attachment; filename="scenario.yaml"'
    return response


# --- errors -------------------------------------------------------------------------------------------


@bp.errorhandler(RequestEntityTooLarge)
def too_large(exc: RequestEntityTooLarge) -> tuple[Response, int]:
    return errors.json_error(f"the request body is larger than the limit of {request.max_content_length} bytes; "
                  f"shared scenarios are limited to {_limit()} bytes", 413)


@bp.app_errorhandler(scenarios.StoreFull)  # the page's Share is a route of the page's blueprint
@bp.app_errorhandler(OverBudget)
@bp.errorhandler(scenarios.StoreFull)  # before this blueprint's handler of StoreUnavailable, which it is
def full(exc: Exception) -> Response | tuple[Response, int]:
    """507: the disk under the store is full, or the store holds its budget; nothing was stored."""
    if isinstance(exc, scenarios.StoreFull):
        current_app.logger.error("scenario store: %s", exc)
        message = "the server's disk is full: the scenario store cannot write, and nothing was stored"
    else:
        message = str(exc)
    if request.path.startswith("/api/"):
        return errors.json_error(message, 507)
    return make_response(errors.html_error(507, message[:1].upper() + message[1:] + ".")), 507


@bp.errorhandler(scenarios.StoreUnavailable)
def unavailable(exc: scenarios.StoreUnavailable) -> tuple[Response, int]:
    current_app.logger.warning("scenario store unavailable: %s", exc)
    if not request.path.startswith("/api/"):
        html = render_template("error.html", code=503,
                               description="Shared scenarios cannot be read right now; try again in a moment.")
        return make_response(html), 503
    return errors.json_error("the scenario store is unavailable; nothing was stored, try again in a moment", 503)
