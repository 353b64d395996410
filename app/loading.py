"""Loading panes from templates and plain manifests: two JSON endpoints the page calls (static/loading.js).

    GET  /api/v1/templates?kubernetesVersion=1.34   every pane template (app/pane_templates), with the
                                                    apiVersions that Kubernetes version has
    POST /api/v1/place                              a manifest file (JSON {"text", "kubernetesVersion"}, a
                                                    multipart field ``file``, or the YAML itself as the body),
                                                    with the page's Policy, Binding and Params panes (fields
                                                    ``policy``, ``binding``, ``params``) when it has them
                                                    → its documents sorted into the panes by kind

The sorting is the core's (app/vap/placement.py), run in an evaluation worker like any reading of
untrusted YAML; this module maps HTTP to it and holds no policy logic.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, jsonify, request

from . import errors, evaluations, pane_templates, vap

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
