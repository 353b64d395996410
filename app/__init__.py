"""Admission Playground: a web sandbox that answers what kube-apiserver's
ValidatingAdmissionPolicy admission would do with a request.

This module holds only the Flask app factory; the policy logic lives in the
pure core, :mod:`app.vap`, which imports no Flask. Importing this package loads
no Flask either: the factory imports the web layer when it runs, so the core,
the command line and the evaluation workers (app/isolation.py) stay without it.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from flask import Flask

_PACKAGE = os.path.dirname(os.path.abspath(__file__))
# The page's templates/ and static/: inside the package in an installed wheel (the build copies them there,
# see setup.py), else beside the package, at the top of the checkout (a checkout or an editable install).
_ROOT = os.path.dirname(_PACKAGE)


def page_folder(name: str) -> str:
    """The folder `templates` or `static` of the page: the package's copy if it has one, else the checkout's."""
    packaged = os.path.join(_PACKAGE, name)
    return packaged if os.path.isdir(packaged) else os.path.join(_ROOT, name)


TESTING_DEFAULTS = {"EVALUATION_ISOLATION": "inline", "RATE_LIMIT_ENABLED": False}


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """Create and configure the playground application."""
    from flask import Flask

    from . import api, bodies, errors, evaluations, isolation, ratelimit, security, shares, testcases, web, workshop
    from .editing import bp as editing_bp
    from .loading import bp as loading_bp
    from .vap.limits import Limits

    app = Flask(
        __name__,
        template_folder=page_folder("templates"),
        static_folder=page_folder("static"),
    )
    app.config.from_mapping(
        # Largest request body accepted, in bytes (413 above it): kube-apiserver's own bound on a request
        # body (3 MiB), so an object the apiserver would take, up to etcd's 1.5 MiB, can be pasted.
        MAX_CONTENT_LENGTH=3 * 1024 * 1024,
        MAX_FORM_MEMORY_SIZE=3 * 1024 * 1024,
        # Shared scenarios: SQLite in DATA_DIR unless DATABASE_URL names a PostgreSQL database.
        DATA_DIR=os.environ.get("DATA_DIR", "data"),
        DATABASE_URL=os.environ.get("DATABASE_URL", ""),
        SCENARIO_MAX_BYTES=256 * 1024,
    )
    # Bounds on untrusted input (docs/limits.md): the loader's, the evaluation workers', the rate limits.
    app.config.from_mapping(Limits().as_config(), **isolation.CONFIG_DEFAULTS, **ratelimit.CONFIG_DEFAULTS,
                            **shares.CONFIG_DEFAULTS)
    if test_config is None:
        app.config.from_prefixed_env("PLAYGROUND")
    else:
        app.config.update(test_config)
        if test_config.get("TESTING"):
            # Tests evaluate in their own process (so they can stand in for the core) and are not rate
            # limited, unless they ask for the workers or the limits (tests/test_hostile.py does).
            app.config.update({k: v for k, v in TESTING_DEFAULTS.items() if k not in test_config})
    app.json = api.StrictJSONProvider(app)  # no bare NaN or Infinity in any answer
    security.init_app(app)
    errors.init_app(app)
    bodies.init_app(app)
    ratelimit.init_app(app)
    evaluations.init_app(app)

    app.register_blueprint(api.bp)
    app.register_blueprint(shares.bp)
    app.register_blueprint(web.bp)  # with the routes of its form's Share, Import and Export (app/shares.py)
    app.register_blueprint(testcases.bp)
    app.register_blueprint(workshop.bp)
    app.register_blueprint(editing_bp)  # the editors' completion, hover and problems as they are typed
    app.register_blueprint(loading_bp)  # pane templates and plain manifests sorted into the panes
    return app
