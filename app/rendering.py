"""The result region rendered without Flask: the templates of the page with the filters they use.

The evaluation workers lay out a result (:mod:`app.result_view`) and render ``templates/_result.html`` here, so
that the server process only places the HTML they send back (rendering a large answer is heavy work, and it is
bounded there with the evaluation). The environment is the one Flask gives the page's templates in what they use:
HTML autoescaping, ``tojson`` as Flask writes it (keys sorted, ``<``, ``>``, ``&`` and ``'`` escaped), and the
page's own filters, defined here and registered on the app too (app/web.py).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from typing import Any

import jinja2
from markupsafe import Markup

from . import mutating_page, page_folder


def pretty_json(value: Any) -> str:
    """Show a CEL value as indented JSON (autoescaped by the template like any text)."""
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def mutating_view(response: Any) -> dict[str, Any] | None:
    """The MutatingAdmissionPolicy part of a response as templates/_mutating.html shows it (app/mutating_page.py)."""
    return mutating_page.view(response) if isinstance(response, dict) else None


FILTERS = {"pretty_json": pretty_json, "mutating_view": mutating_view}


def _default(value: Any) -> Any:
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    return str(value)


def _tojson(value: Any) -> Markup:
    """Flask's ``tojson``: JSON with sorted keys, safe inside HTML and script tags."""
    text = json.dumps(value, default=_default, ensure_ascii=True, sort_keys=True)
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
                  .replace("'", "\\u0027"))


@cache
def environment() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(page_folder("templates")),
                             autoescape=jinja2.select_autoescape(["html"]), auto_reload=False)
    env.filters.update(FILTERS)
    env.filters["tojson"] = _tojson
    return env


def render_result(result: Mapping[str, Any]) -> str:
    """The result region (templates/_result.html) for a laid-out result."""
    return environment().get_template("_result.html").render(result=result)
