# Admission Playground served by gunicorn.
# Two stages: the first builds the wheel from the sources (it carries the templates and static files inside the
# package), the second installs that wheel and nothing of the checkout.
FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml setup.py MANIFEST.in README.md ./
COPY app ./app
COPY templates ./templates
COPY static ./static
RUN pip wheel --no-cache-dir --no-deps --wheel-dir /wheels .

FROM python:3.11-slim
COPY --from=build /wheels /tmp/wheels
RUN pip install --no-cache-dir /tmp/wheels/*.whl \
    && rm -rf /tmp/wheels \
    && useradd --system --no-create-home playground \
    && mkdir -p /srv/playground/data \
    && chown playground /srv/playground/data
# The entry point: `docker run IMAGE check ...` (or eval, test, convert, serve, --version, --help) runs that
# admission-playground command; anything else runs as given.
RUN printf '%s\n' '#!/bin/sh' \
        'case "$1" in check|eval|test|convert|serve|--version|--help|-h) exec admission-playground "$@" ;; esac' \
        'exec "$@"' > /usr/local/bin/playground-entrypoint \
    && chmod 755 /usr/local/bin/playground-entrypoint
# The working folder holds only data/, where shared scenarios are kept (SQLite, unless DATABASE_URL is set).
WORKDIR /srv/playground
USER playground
EXPOSE 8000
ENTRYPOINT ["playground-entrypoint"]
# The default: the server as `admission-playground serve` runs it, its front (app/front.py: each request read whole,
# within time bounds, before gunicorn sees it) on port 8000 and gunicorn behind it on a private socket.
CMD ["admission-playground", "serve", "--host", "0.0.0.0", "--port", "8000"]
