"""Request bodies read whole, in one pass, before the app sees them.

werkzeug reads a body 64 KiB at a time, and gunicorn's reader copies what it has read ahead on each
such read: a 1 MB body then costs the server process milliseconds of copying under the GIL, and a
refused one (429) as much again when gunicorn drains it. A body whose declared length is within
MAX_CONTENT_LENGTH is read here in one call instead and handed on from memory; a longer one is left
for werkzeug to refuse (413) without reading it.

A body of no declared length (chunked) is read here too, up to one byte over MAX_CONTENT_LENGTH, and
handed on with the length it turned out to have: over the bound, werkzeug refuses it (413) like a
declared one, instead of cutting it short (which answered 400, the body being no longer JSON).
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable
from typing import Any

from flask import Flask


class WholeBody:
    """WSGI middleware: replace ``wsgi.input`` by the body, read whole, when its length is known and
    within ``limit`` bytes."""

    def __init__(self, app: Callable[..., Iterable[bytes]], limit: Callable[[], int | None]) -> None:
        self.app = app
        self.limit = limit

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        text = environ.get("CONTENT_LENGTH") or ""
        length = int(text) if text.isdigit() else 0
        limit = self.limit()
        if _chunked(environ):  # a declared length does not count then (HTTP/1.1)
            if limit is not None:
                body = _read_to_end(environ["wsgi.input"], limit + 1)
                environ["wsgi.input"] = io.BytesIO(body)
                environ["CONTENT_LENGTH"] = str(len(body))  # over the limit: werkzeug answers 413 without reading
                environ.pop("HTTP_TRANSFER_ENCODING", None)
                environ["wsgi.input_terminated"] = False
        elif length > 0 and (limit is None or length <= limit):
            environ["wsgi.input"] = io.BytesIO(_read(environ["wsgi.input"], length))
        return self.app(environ, start_response)


def _read(stream: Any, length: int) -> bytes:
    chunks, left = [], length
    while left > 0:
        chunk = stream.read(left)
        if not chunk:  # the client sent less than it declared: werkzeug sees the short body
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _chunked(environ: dict[str, Any]) -> bool:
    """Whether the body has no declared length: chunked, or ended by the server (``wsgi.input_terminated``)."""
    if "chunked" in (environ.get("HTTP_TRANSFER_ENCODING") or "").lower():
        return True
    return not environ.get("CONTENT_LENGTH") and bool(environ.get("wsgi.input_terminated"))


def _read_to_end(stream: Any, most: int) -> bytes:
    """Read a body of unknown length, at most ``most`` bytes of it."""
    chunks, left = [], most
    while left > 0:
        chunk = stream.read(min(left, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def init_app(app: Flask) -> None:
    app.wsgi_app = WholeBody(app.wsgi_app, lambda: app.config.get("MAX_CONTENT_LENGTH"))  # type: ignore[method-assign]
