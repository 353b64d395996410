"""gunicorn settings of the playground (`admission-playground serve`, the Dockerfile).

Evaluations run in evaluation worker processes (app/isolation.py), so a gunicorn worker mostly
waits for them: threads give the concurrency, and one gunicorn process by default keeps the
per-client rate limits exact (each process counts for itself). Command-line options override these.

`admission-playground serve` runs gunicorn behind the front (app/front.py), on a private Unix socket with
--proxy-protocol: the front reads each request whole, within its time bounds, before a gunicorn thread sees
it, so slow clients hold no thread. gunicorn run bare with these settings has no such protection: a client
sending its headers slowly keeps a thread for as long as it likes (docs/deployment.md).
"""

import os

worker_class = "gthread"
workers = int(os.environ.get("PLAYGROUND_GUNICORN_WORKERS", "1"))
threads = int(os.environ.get("PLAYGROUND_GUNICORN_THREADS", "32"))
# Never fork a loaded app: each gunicorn worker starts its own evaluation workers.
preload_app = False
# A request waits at most EVALUATION_TIMEOUT_SECONDS for its evaluation, plus the queue wait.
timeout = 60
graceful_timeout = 10
keepalive = 5
# Bounds on the request line and headers (the body is bounded by the app: MAX_CONTENT_LENGTH).
limit_request_line = 8190
limit_request_fields = 100
limit_request_field_size = 8190
