"""Admission Playground: a web sandbox that answers what kube-apiserver's
ValidatingAdmissionPolicy admission would do with a request.

This module holds only the Flask app factory; the policy logic lives in the
pure core, :mod:`app.vap`, which imports no Flask.
"""

from __future__ import annotations

import os
from typing import Any

from flask import Flask

# templates/ and static/ sit beside the package, at the top of the checkout.
_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir))


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """Create and configure the playground application."""
    app = Flask(
        __name__,
        template_folder=os.path.join(_ROOT, "templates"),
        static_folder=os.path.join(_ROOT, "static"),
    )
    app.config.from_mapping(
        # Largest request body accepted, in bytes (413 above it).
        MAX_CONTENT_LENGTH=1024 * 1024,
        MAX_FORM_MEMORY_SIZE=1024 * 1024,
        # Shared scenarios: SQLite in DATA_DIR unless DATABASE_URL names a PostgreSQL database.
        DATA_DIR=os.environ.get("DATA_DIR", "data"),
        DATABASE_URL=os.environ.get("DATABASE_URL", ""),
        SCENARIO_MAX_BYTES=256 * 1024,
    )
    if test_config is None:
        app.config.from_prefixed_env("PLAYGROUND")
    else:
        app.config.update(test_config)

    from . import api, shares, web

    app.register_blueprint(api.bp)
    app.register_blueprint(shares.bp)
    app.register_blueprint(web.bp)
    from . import testcases, workshop

    app.register_blueprint(testcases.bp)
    app.register_blueprint(workshop.bp)
    return app
