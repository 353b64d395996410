"""Clients that attack the server's fairness, shared by tests/test_fairness.py and scripts/loadtest.py: requests that
each hold an evaluation worker to its time bound, and connections that send their headers slowly."""

from __future__ import annotations

import json
import select
import socket
import time
from collections import Counter
from urllib.parse import urlencode

from app import exercises
from tests import hostile_inputs as hostile


def costly_requests() -> list[tuple[str, bytes, str]]:
    """Requests that each hold an evaluation worker until its time bound (path, body, content type): an evaluation,
    test cases (POST /api/v1/test) and a workshop exercise's checks."""
    slow = hostile.slow()
    everything = {"apiGroups": ["*"], "apiVersions": ["*"], "operations": ["*"], "resources": ["*"]}
    policy = json.loads(slow["policy"])
    policy["spec"]["matchConstraints"] = {"resourceRules": [everything]}  # the exercise's objects match too
    matching = {**slow, "policy": json.dumps(policy)}
    cases = [{"name": f"case {i}", "object": slow["object"], "expect": "allowed"} for i in range(3)]
    exercise = exercises.get("first-validation")
    assert exercise is not None
    form = {**exercise.form(), **{pane: matching[pane] for pane in ("policy", "binding", "params")}, "testCases": ""}
    return [("/api/v1/evaluate", json.dumps(slow).encode(), "application/json"),
            ("/api/v1/test", json.dumps({**slow, "testCases": cases}).encode(), "application/json"),
            (f"/workshop/{exercise.name}/evaluate", urlencode(form).encode(), "application/x-www-form-urlencoded")]


def slow_connection(host: str, port: int, until: float, outcomes: Counter, every: float = 5.0) -> int:
    """Open connections that send a request's head a header line every ``every`` seconds, one after another
    until ``until`` (a connection the server closes is opened again at once); count how each ended in
    ``outcomes`` (the status the server answered, "closed" without an answer, "error"); return how many were
    opened."""
    opened = 0
    while time.monotonic() < until:
        try:
            sock = socket.create_connection((host, port), timeout=every + 10)
        except OSError:
            outcomes["error"] += 1
            time.sleep(0.1)
            continue
        opened += 1
        try:
            sock.sendall(b"POST /api/v1/evaluate HTTP/1.1\r\nHost: playground\r\n")
            line = 0
            while time.monotonic() < until:
                if select.select([sock], [], [], min(every, max(0.0, until - time.monotonic())))[0]:
                    answer = sock.recv(200)
                    parts = answer.split(b" ", 2)
                    outcomes[parts[1].decode() if answer and len(parts) > 1 else "closed"] += 1
                    break
                sock.sendall(f"X-Slow-{line}: a header line every {every:g} seconds\r\n".encode())
                line += 1
        except OSError:
            outcomes["error"] += 1
        finally:
            sock.close()
    return opened
