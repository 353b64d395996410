"""Fair sharing of the evaluation workers between clients, and the results kept for shared scenarios.

Every job that needs an evaluation worker (app/jobs.py: evaluations, test cases, suites, workshop checks,
reading scenario files, exports) takes a seat here before it runs, whoever asked for it
(app/evaluations.py is the only way in). The idea is kube-apiserver's API Priority and Fairness, reduced
to one priority level whose flows are the clients:

- there are as many seats as evaluation workers, so a job that has a seat finds a worker free;
- each client's jobs queue behind its own, in the order they came (one queue per client);
- a free seat goes to the waiting client that holds the fewest seats (the one that waited longest among
  equals), and no client holds more than ``per_client`` seats at once: a client sending many costly jobs
  takes at most its share of the workers while the others' jobs pass it by;
- a client's queue holds at most ``queue_per_client`` jobs (more are refused at once, like a full APF
  queue), and a job waits at most ``wait`` seconds for its seat (then the server is busy);
- when ``queue_total`` jobs wait in all, a client that already has a job running or waiting is refused at once
  (a client with none still queues): a few addresses together cannot keep every server thread waiting.

The results of the jobs of a shared scenario are kept by content (:class:`Kept`): the same job with the
same arguments answers from memory, so a popular link costs one evaluation, however many open it at once.

This module imports no Flask; it holds no policy logic, only who runs next.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any


class QueueFull(Exception):
    """A client's queue of jobs waiting for a worker is full: refused at once (HTTP 429)."""

    status = 429
    retry_after = 1


class QueueTimeout(Exception):
    """No seat came free for the job within the wait (the server is busy, HTTP 503)."""


class Scheduler:
    """Seats on the evaluation workers, handed out fairly between clients; safe to use from many threads."""

    def __init__(self, seats: int, *, per_client: int | None = None, queue_per_client: int | None = None,
                 queue_total: int | None = None, wait: float = 10.0) -> None:
        self.seats = max(1, seats)
        self.per_client = max(1, min(per_client or self.seats, self.seats))
        self.queue_per_client = queue_per_client  # None: no bound but the wait
        self.queue_total = queue_total
        self.wait = wait
        self._lock = threading.Condition()
        self._held: dict[str, int] = {}  # client -> seats it holds
        self._queues: dict[str, deque[int]] = {}  # client -> its waiting jobs' tickets, oldest first
        self._tickets = itertools.count()
        self._free = self.seats

    @contextmanager
    def seat(self, client: str) -> Iterator[None]:
        """Hold a seat for the block; raise QueueFull when the client's queue is full, QueueTimeout when no
        seat came free within the wait."""
        self._take(client)
        try:
            yield
        finally:
            self._give_back(client)

    def holding(self, client: str) -> int:
        """Seats the client holds now."""
        with self._lock:
            return self._held.get(client, 0)

    def waiting(self, client: str | None = None) -> int:
        """Jobs waiting for a seat: the client's, or everyone's."""
        with self._lock:
            if client is not None:
                return len(self._queues.get(client, ()))
            return sum(len(q) for q in self._queues.values())

    def _take(self, client: str) -> None:
        deadline = time.monotonic() + self.wait
        with self._lock:
            queue = self._queues.get(client) or deque()
            held = self._held.get(client, 0)
            if self.queue_per_client is not None and len(queue) >= self.queue_per_client:
                raise QueueFull(
                    f"too many requests from your address are waiting for an evaluation worker: {len(queue)} wait "
                    f"and {held} run (PLAYGROUND_RATE_LIMIT_QUEUED, PLAYGROUND_RATE_LIMIT_CONCURRENT); wait for them "
                    "to finish")
            if (self.queue_total is not None and (queue or held) and self._free <= 0
                    and sum(len(q) for q in self._queues.values()) >= self.queue_total):
                raise QueueFull(
                    "the server is busy and your address already has requests running or waiting for an evaluation "
                    "worker (PLAYGROUND_RATE_LIMIT_QUEUED_TOTAL); wait for them to finish")
            self._queues[client] = queue
            ticket = next(self._tickets)
            queue.append(ticket)
            try:
                while self._next() != ticket:
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        raise QueueTimeout
                    self._lock.wait(remaining)
            except BaseException:
                queue.remove(ticket)
                if not queue:
                    del self._queues[client]
                self._lock.notify_all()  # the next one in line may be another job now
                raise
            queue.popleft()
            if not queue:
                del self._queues[client]
            self._held[client] = self._held.get(client, 0) + 1
            self._free -= 1
            self._lock.notify_all()  # another seat may be free for the next in line

    def _give_back(self, client: str) -> None:
        with self._lock:
            left = self._held[client] - 1
            if left:
                self._held[client] = left
            else:
                del self._held[client]
            self._free += 1
            self._lock.notify_all()

    def _next(self) -> int | None:
        """The ticket that takes the next free seat: of the clients under their cap with jobs waiting, the one
        holding the fewest seats, the oldest job among equals; None when no seat is free or no one may take it."""
        if self._free <= 0:
            return None
        best: tuple[int, int] | None = None
        for client, queue in self._queues.items():
            held = self._held.get(client, 0)
            if queue and held < self.per_client and (best is None or (held, queue[0]) < best):
                best = (held, queue[0])
        return None if best is None else best[1]


# --- results kept by content -----------------------------------------------------------------------------


def content_key(job: str, args: tuple[Any, ...]) -> str:
    """The address of a job's result: a digest of the job's name and its arguments (JSON values)."""
    text = json.dumps([job, list(args)], sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class Kept:
    """Results of jobs kept by their content address, the least recently used forgotten first beyond
    ``max_bytes``; a job being computed is computed once, the other askers waiting for its result.

    A kept outcome is a result or an exception that stands for one (an evaluation stopped at its bound:
    the same input stops again), the exception for ``stop_seconds`` only: a busy machine may have stretched it."""

    def __init__(self, max_bytes: int, stop_seconds: float = 60.0) -> None:
        self.max_bytes = max_bytes
        self.stop_seconds = stop_seconds
        self._lock = threading.Lock()
        self._entries: OrderedDict[str, tuple[bool, Any, int]] = OrderedDict()  # key -> (ok, value, size)
        self._stopped_at: dict[str, float] = {}  # key -> when its stop was kept
        self._size = 0
        self._running: dict[str, threading.Event] = {}
        self.computed = 0  # jobs computed (not answered from memory): for tests and the docs' figures

    def get_or_compute(self, key: str, compute: Callable[[], Any], *, keep_error: Callable[[BaseException], bool],
                       size: Callable[[Any], int], wait: float) -> Any:
        """The kept outcome of ``key``, or ``compute()`` kept (its exception too, when ``keep_error`` says so)."""
        while True:
            with self._lock:
                entry = self._entries.get(key)
                if entry is not None and not entry[0] and time.monotonic() - self._stopped_at.get(key, 0) > \
                        self.stop_seconds:
                    self._drop(key)
                    entry = None
                if entry is not None:
                    self._entries.move_to_end(key)
                    return _outcome(entry)
                running = self._running.get(key)
                if running is None:
                    running = self._running[key] = threading.Event()
                    break
            if not running.wait(wait):  # the first asker's job is stuck: compute it too
                return compute()
            with self._lock:
                if key not in self._entries:  # its outcome was not kept (a busy server): ask again
                    if self._running.get(key) is running:
                        del self._running[key]
                    continue
        try:
            value = compute()
            self._store(key, True, value, size(value))
            return value
        except BaseException as exc:
            if keep_error(exc):
                self._store(key, False, exc, len(str(exc)) + 200)
            raise
        finally:
            with self._lock:
                self.computed += 1
                self._running.pop(key, None)
            running.set()

    def _store(self, key: str, ok: bool, value: Any, size: int) -> None:
        if size > self.max_bytes:
            return
        with self._lock:
            self._drop(key)
            self._entries[key] = (ok, value, size)
            self._size += size
            if not ok:
                self._stopped_at[key] = time.monotonic()
            while self._size > self.max_bytes and self._entries:
                self._drop(next(iter(self._entries)))

    def _drop(self, key: str) -> None:
        """Forget a kept outcome (the lock held)."""
        old = self._entries.pop(key, None)
        if old is not None:
            self._size -= old[2]
        self._stopped_at.pop(key, None)

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)


def _outcome(entry: tuple[bool, Any, int]) -> Any:
    ok, value, _ = entry
    if not ok:
        raise value.with_traceback(None)  # the same stop again, without the tracebacks of earlier raises
    return value
