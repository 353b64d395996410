"""Per-client rate limits on evaluating and sharing: token buckets, answered with a clear 429.

Each client (its IP address; an IPv6 client by its /64 network, which one machine can fill with
addresses) has a bucket per action that holds up to ``BURST`` tokens and refills at ``PER_MINUTE``
a minute; a request takes one token or is refused with 429 and a Retry-After header saying when
the next token is there. A large request body takes a token per started RATE_LIMIT_BODY_BYTES
(reading, parsing and evaluating it costs as much as that many small ones). An evaluation stopped at
its time or memory bound also costs the client RATE_LIMIT_PENALTY tokens, so repeating a costly
input is refused quickly. Every job for the evaluation workers takes its tokens before it runs
(app/evaluations.py), and then waits for a worker in the client's own queue (app/scheduler.py): a client
holds at most RATE_LIMIT_CONCURRENT workers at once and has at most RATE_LIMIT_QUEUED jobs waiting.

The client address is the connection's, or with TRUSTED_PROXIES = N the address the N-th proxy
in front saw (X-Forwarded-For, read by werkzeug's ProxyFix); never trust the header otherwise.
Buckets live in the server process's memory: each server process counts for itself. A refused
request is answered by :func:`app.errors.refusal`.
"""

from __future__ import annotations

import ipaddress
import math
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass

from flask import Flask, current_app, request
from werkzeug.middleware.proxy_fix import ProxyFix

from . import errors

EXTENSION = "rate_limits"

# Configuration names and defaults (PLAYGROUND_<NAME> in the environment).
CONFIG_DEFAULTS = {
    "RATE_LIMIT_ENABLED": True,
    "RATE_LIMIT_EVALUATE_PER_MINUTE": 300,  # evaluations: the API, the page, shared links
    "RATE_LIMIT_EVALUATE_BURST": 60,
    "RATE_LIMIT_SHARE_PER_MINUTE": 30,  # storing and importing scenarios
    "RATE_LIMIT_SHARE_BURST": 20,
    "RATE_LIMIT_EDIT_PER_MINUTE": 1200,  # the editors' completion and hover (cheap, in the server, as one types)
    "RATE_LIMIT_EDIT_BURST": 120,
    "RATE_LIMIT_PENALTY": 60,  # tokens an evaluation stopped at its time or memory bound costs (a full burst)
    "RATE_LIMIT_CONCURRENT": 2,  # evaluation workers one client may hold at once (app/scheduler.py)
    "RATE_LIMIT_QUEUED": 8,  # jobs one client may have waiting for a worker (429 beyond)
    "RATE_LIMIT_QUEUED_TOTAL": 16,  # jobs waiting in all beyond which a client with jobs already is refused (429)
    "RATE_LIMIT_BODY_BYTES": 256 * 1024,  # an evaluation's request body counts one token per started this many bytes
    "TRUSTED_PROXIES": 0,  # proxies in front whose X-Forwarded-For entry is the client's address
}
ACTIONS = {"evaluate": "evaluations", "share": "shares", "edit": "completion and hover requests"}
_MAX_CLIENTS = 100_000  # buckets kept; the least recently used are forgotten first


class RateLimited(Exception):
    """A request refused by a rate limit (HTTP 429); ``retry_after`` in whole seconds."""

    status = 429

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


@dataclass(frozen=True)
class Rule:
    action: str
    per_minute: float
    burst: float

    @property
    def rate(self) -> float:
        return self.per_minute / 60.0


class Buckets:
    """Token buckets of one action, one per client, safe to use from several threads."""

    def __init__(self, rule: Rule, max_clients: int = _MAX_CLIENTS) -> None:
        self.rule = rule
        self._max_clients = max_clients
        self._lock = threading.Lock()
        self._state: OrderedDict[str, tuple[float, float]] = OrderedDict()  # client -> (tokens, when)

    def _tokens(self, client: str, now: float) -> float:
        tokens, when = self._state.get(client, (self.rule.burst, now))
        return min(self.rule.burst, tokens + (now - when) * self.rule.rate)

    def _store(self, client: str, tokens: float, now: float) -> None:
        self._state[client] = (tokens, now)
        self._state.move_to_end(client)
        while len(self._state) > self._max_clients:
            self._state.popitem(last=False)

    def take(self, client: str, now: float | None = None, count: float = 1.0) -> float:
        """Take ``count`` tokens (at most a burst): return 0 when granted, else the seconds until they are there."""
        now = time.monotonic() if now is None else now
        count = min(count, self.rule.burst)
        with self._lock:
            tokens = self._tokens(client, now)
            if tokens >= count:
                self._store(client, tokens - count, now)
                return 0.0
            self._store(client, tokens, now)
        if self.rule.rate <= 0:
            return math.inf
        return (count - tokens) / self.rule.rate

    def charge(self, client: str, tokens: float, now: float | None = None) -> None:
        """Take extra tokens, going into debt that the client waits out."""
        now = time.monotonic() if now is None else now
        with self._lock:
            self._store(client, self._tokens(client, now) - tokens, now)


class Limiter:
    """The rate limits of one app."""

    def __init__(self, config: dict) -> None:
        self.enabled = bool(config.get("RATE_LIMIT_ENABLED", True))
        self.buckets = {
            action: Buckets(Rule(action, float(config[f"RATE_LIMIT_{action.upper()}_PER_MINUTE"]),
                                 max(1.0, float(config[f"RATE_LIMIT_{action.upper()}_BURST"]))))
            for action in ACTIONS
        }
        self.penalty = float(config.get("RATE_LIMIT_PENALTY") or 0)
        self.concurrent = int(config.get("RATE_LIMIT_CONCURRENT") or 0)
        self.queued = int(config.get("RATE_LIMIT_QUEUED", CONFIG_DEFAULTS["RATE_LIMIT_QUEUED"]) or 0)
        self.queued_total = int(config.get("RATE_LIMIT_QUEUED_TOTAL", CONFIG_DEFAULTS["RATE_LIMIT_QUEUED_TOTAL"]) or 0)
        self.body_bytes = int(config.get("RATE_LIMIT_BODY_BYTES", CONFIG_DEFAULTS["RATE_LIMIT_BODY_BYTES"]) or 0)

    def body_tokens(self, size: int | None) -> int:
        """Tokens an evaluation with a request body of ``size`` bytes takes: one per started
        RATE_LIMIT_BODY_BYTES (a large body costs the server as much as several small ones)."""
        if not size or self.body_bytes <= 0:
            return 1
        return max(1, math.ceil(size / self.body_bytes))

    def check(self, action: str, client: str, count: int = 1) -> None:
        """Take ``count`` tokens for the action, or raise RateLimited."""
        if not self.enabled:
            return
        wait = self.buckets[action].take(client, count=count)
        if wait > 0:
            rule = self.buckets[action].rule
            seconds = max(1, math.ceil(wait)) if math.isfinite(wait) else 3600
            counted = ""
            if count > 1:
                counted = (f"; a request body this large counts as {count} {ACTIONS[action]} (one per started "
                           f"{self.body_bytes:,} bytes: PLAYGROUND_RATE_LIMIT_BODY_BYTES)")
            raise RateLimited(
                f"too many {ACTIONS[action]} from your address: the limit is {rule.per_minute:g} a minute in bursts "
                f"of up to {rule.burst:g} (PLAYGROUND_RATE_LIMIT_{action.upper()}_PER_MINUTE, "
                f"PLAYGROUND_RATE_LIMIT_{action.upper()}_BURST){counted}; try again in {seconds} second"
                f"{'' if seconds == 1 else 's'}", seconds)

    def penalize(self, client: str) -> None:
        if self.enabled and self.penalty:
            self.buckets["evaluate"].charge(client, self.penalty)


def client_address(remote_addr: str | None) -> str:
    """The key of a client: its IPv4 address, or its IPv6 /64 network."""
    text = remote_addr or "unknown"
    try:
        address = ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return text
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


def init_app(app: Flask) -> None:
    """Set up the app's rate limits and, when proxies are trusted, read the client address from them."""
    app.extensions[EXTENSION] = Limiter(app.config)
    app.register_error_handler(RateLimited, errors.refusal)
    proxies = int(app.config.get("TRUSTED_PROXIES") or 0)
    if proxies > 0:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxies)  # type: ignore[method-assign]


def limiter() -> Limiter:
    """The current app's rate limits."""
    found = current_app.extensions.get(EXTENSION)
    if found is None:
        found = current_app.extensions[EXTENSION] = Limiter({**CONFIG_DEFAULTS, **current_app.config})
    return found


def check(action: str) -> None:
    """Count a request of this action for the current client; raise RateLimited over the limit."""
    limiter().check(action, client_address(request.remote_addr))
