"""Loading panes from templates and plain manifests: two JSON endpoints the page calls (static/loading.js).

    GET  /api/v1/templates?kubernetesVersion=1.34   every pane template (app/pane_templates), with the
                                                    apiVersions that Kubernetes version has
    POST /api/v1/place                              a manifest file (JSON {"text", "kubernetesVersion"}, a
                                                    multipart field ``file``, or the YAML itself as the body),
                                                    with the page's Policy, Binding and Params panes (fields
                                                    ``policy``, ``binding``, ``params``) when it has them
                                                    → its documents sorted into the panes by kind

The sorting is the core's (app/vap/placement.py), run in an evaluation worker like any reading of
untrusted YAML; this module maps HTTP to it and holds no policy logic. Without JavaScript, the page's
Import (POST /import, app/shares.py) hands a file that is not a scenario file to :func:`open_manifests`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from flask import Blueprint, Response, jsonify, request

from . import errors, evaluations, forms, pane_templates, playground, ratelimit, vap
from .isolation import EvaluationStopped

bp = Blueprint("loading", __name__, url_prefix="/api/v1")
# The page's panes sent along with a file: what its params and custom resources may refer to.
_CONTEXT = ("policy", "binding", "params")


def _version(given: Any) -> str | None:
    """The Kubernetes version asked for ("" or absent: the default); None when it is not a supported one."""
    if given in (None, ""):
        return vap.DEFAULT_VERSION
    return given if given in vap.SUPPORTED_VERSIONS else None


def _unsupported(given: Any) -> tuple[Response, int]:
    return errors.json_error(f"unsupported Kubernetes version {str(given)[:64]!r}: supported are "
                             f"{', '.join(vap.SUPPORTED_VERSIONS)}", 400)


@bp.get("/templates")
def templates() -> Response | tuple[Response, int]:
    """The pane templates for a Kubernetes version."""
    given = request.args.get("kubernetesVersion")
    version = _version(given)
    if version is None:
        return _unsupported(given)
    return jsonify(kubernetesVersion=version, templates=pane_templates.for_version(version))


@bp.post("/place")
def place() -> Response | tuple[Response, int]:
    """Sort the documents of a manifest file into the panes by kind; store nothing."""
    upload = request.files.get("file")
    context: dict[str, str] = {}
    if upload is not None:
        raw, given = upload.read(), request.form.get("kubernetesVersion")
        context = {pane: request.form[pane] for pane in _CONTEXT if pane in request.form}
    elif request.is_json:
        body = request.get_json(silent=True)
        if not isinstance(body, dict) or not isinstance(body.get("text"), str):
            return errors.json_error('the JSON body must be an object with "text": the YAML or JSON to sort', 400)
        raw, given = body["text"].encode("utf-8", "surrogatepass"), body.get("kubernetesVersion")
        context = {pane: body[pane] for pane in _CONTEXT if isinstance(body.get(pane), str)}
    else:
        raw, given = request.get_data(), request.args.get("kubernetesVersion")
    version = _version(given)
    if version is None:
        return _unsupported(given)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return errors.json_error(f"the file is not UTF-8 text (byte {exc.start + 1})", 400)
    placed = evaluations.run("place", text, version, context)  # in a worker, admitted and bounded like an evaluation
    if placed.get("error"):
        return errors.json_error(placed["error"], 400)
    return jsonify(placed)


_SCENARIO = re.compile(r"^kind:[ \t]*[\"']?Scenario[\"']?[ \t]*(#.*)?$|\"kind\"\s*:\s*\"Scenario\"", re.MULTILINE)


def is_scenario(data: bytes) -> bool:
    """Whether a file says it is a scenario file (kind: Scenario), as the page's script tells them apart."""
    return _SCENARIO.search(data.decode("utf-8", "replace")) is not None


def open_manifests(values: Mapping[str, str], name: str, data: bytes) -> Response:
    """The page (without JavaScript) with a file of plain manifests sorted into the panes by kind: the panes that
    take a document are replaced, the others keep their text; the status line says what went where."""
    values = dict(values)
    version = _version(values.get("kubernetesVersion")) or vap.DEFAULT_VERSION
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return playground.render_page(values, file_error=f"{name}: not UTF-8 text (byte {exc.start + 1}); the panes "
                                      "are unchanged", status=400)
    try:
        placed = evaluations.run("place", text, version, {pane: values.get(pane, "") for pane in _CONTEXT})
    except (ratelimit.RateLimited, EvaluationStopped) as exc:
        return playground.render_page(values, file_error=f"{name}: {exc}", status=exc.status)
    skipped = "; ".join(f"{p['kind'] or 'a document'} ({p['where']}): {p['reason']}" for p in placed["notPlaced"])
    if placed.get("error") or not placed["panes"]:
        why = placed.get("error") or f"no document was placed: {skipped}"
        return playground.render_page(values, file_error=f"{name}: {why}; the panes are unchanged", status=400)
    values.update(placed["panes"])
    went = "; ".join(f"{p['kind']} {p['name']} ({p['where']}) → {forms.PANE_LABELS[p['pane']]}"
                     for p in placed["placed"])
    notice = f"Imported {name} into the panes (their text replaced; Back shows them as they were): {went}."
    if skipped:
        notice += f" Not placed: {skipped}."
    return playground.render_page(values, file_notice=notice)
