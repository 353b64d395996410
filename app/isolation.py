"""Evaluations in worker processes, bounded in time and memory from outside the evaluating code.

An evaluation runs pasted YAML and CEL through PyYAML and a C++ engine; neither can be stopped
from inside. A worker process can: the server waits at most EVALUATION_TIMEOUT_SECONDS for its
answer and kills it otherwise, and the worker's address space is capped (RLIMIT_AS) at its size
before the evaluation plus EVALUATION_MEMORY_MB, so a memory bomb fails in the worker, not in
the server. Either way the request gets a clear error naming the limit (HTTP 422), the worker is
replaced, and the server goes on.

Workers are forked from a fork server that evaluated the gallery once at start (app/warm.py), so
a new worker starts in milliseconds with warm compile caches; a worker serves evaluation after
evaluation and keeps what it compiled. An evaluation that has used EVALUATION_SLOW_SECONDS of CPU
time is moved to the lowest CPU priority (nice 19, and its session's too: each worker has a session
of its own, since a kernel that schedules sessions as groups weighs nice only within a group) so
that it cannot take the processor from the quick evaluations of other users; when it finishes its
worker gets its priority back and stays (keeping what it compiled), or, where the server may not raise
a priority (neither root nor CAP_SYS_NICE), is retired. Besides evaluations, workers run test cases,
suites, workshop checks and the reading of scenario files (app/jobs.py), under the same bounds.

EVALUATION_ISOLATION = "inline" evaluates in the server process instead, with the loader's bounds
but no time or memory bound: for tests that stand in for the core, and for trusted local use.

This module imports no Flask, and nothing that does: it is what the fork server and the workers load.
The web layer reaches it through app/evaluations.py, which reads the settings from the app.
"""

from __future__ import annotations

import atexit
import json
import multiprocessing
import os
import resource
import signal
import sys
import threading
import time
import traceback
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

from .jobs import JOBS, SUITE_JOBS, bounded
from .vap import limits
from .vap.evaluate import InputError, check_payload

MiB = 1024 * 1024

# Configuration names and defaults (PLAYGROUND_<NAME> in the environment).
CONFIG_DEFAULTS: dict[str, Any] = {
    "EVALUATION_ISOLATION": "process",  # "process" (bounded workers) or "inline" (in the server process)
    "EVALUATION_TIMEOUT_SECONDS": 5.0,  # wall-clock bound of one evaluation
    "EVALUATION_SUITE_TIMEOUT_SECONDS": 30.0,  # wall-clock bound of one run of test cases or checks
    "EVALUATION_MEMORY_MB": 256,  # memory one evaluation may add to its worker
    "EVALUATION_WORKERS": 8,  # most worker processes per server process
    "EVALUATION_SPARE_WORKERS": 2,  # idle workers kept ready
    "EVALUATION_SLOW_SECONDS": 0.1,  # CPU seconds after which an evaluation runs at the lowest priority
    "EVALUATION_QUEUE_SECONDS": 10.0,  # how long a request waits for a free worker (503 after)
    "RESPONSE_VALUE_MAX_BYTES": 65536,  # most bytes of one value echoed back (a string, an expression's result)
    "RESPONSE_MAX_BYTES": 1048576,  # most bytes of a whole answer (its largest parts cut to fit)
    "KEPT_RESULTS_MAX_BYTES": 64 * 1024 * 1024,  # results of shared scenarios kept by content (app/evaluations.py)
}


class EvaluationStopped(Exception):
    """An evaluation stopped at one of its bounds: the message names the limit and its value."""

    status = 422

    def __init__(self, message: str, limit: str) -> None:
        super().__init__(message)
        self.limit = limit


class EvaluationTimeout(EvaluationStopped):
    pass


class EvaluationOutOfMemory(EvaluationStopped):
    pass


class WorkerKilled(EvaluationStopped):
    """The worker was killed from outside (the system's out-of-memory killer, an operator): not at one of the
    evaluation's bounds, so neither the input's fault as far as the playground knows nor a memory overrun
    (HTTP 503, to try again)."""

    status = 503


class _WorkerGone(Exception):
    """The worker taken from the idle ones had died before it was given the job: another one takes it."""


class EvaluatorBusy(EvaluationStopped):
    """Every worker is busy: the server is overloaded, not the input at fault (HTTP 503)."""

    status = 503


@dataclass(frozen=True)
class Settings:
    """How evaluations are run; read from the app's configuration."""

    isolation: str = "process"
    timeout: float = 5.0
    suite_timeout: float = 30.0
    memory_mb: int = 256
    workers: int = 8
    spare: int = 2
    slow: float = 0.1
    queue: float = 10.0
    value_bytes: int = 65536
    max_bytes: int = 1048576
    limits: limits.Limits = field(default_factory=limits.Limits)

    @classmethod
    def from_config(cls, config: Any) -> Settings:
        isolation = str(config.get("EVALUATION_ISOLATION") or "process")
        if isolation not in ("process", "inline"):
            raise ValueError(f"EVALUATION_ISOLATION must be 'process' or 'inline', not {isolation!r}")
        return cls(
            isolation=isolation,
            timeout=float(config.get("EVALUATION_TIMEOUT_SECONDS") or CONFIG_DEFAULTS["EVALUATION_TIMEOUT_SECONDS"]),
            suite_timeout=float(config.get("EVALUATION_SUITE_TIMEOUT_SECONDS")
                                or CONFIG_DEFAULTS["EVALUATION_SUITE_TIMEOUT_SECONDS"]),
            memory_mb=int(config.get("EVALUATION_MEMORY_MB") or CONFIG_DEFAULTS["EVALUATION_MEMORY_MB"]),
            workers=max(1, int(config.get("EVALUATION_WORKERS") or CONFIG_DEFAULTS["EVALUATION_WORKERS"])),
            spare=max(0, int(config.get("EVALUATION_SPARE_WORKERS", CONFIG_DEFAULTS["EVALUATION_SPARE_WORKERS"]))),
            slow=float(config.get("EVALUATION_SLOW_SECONDS") or CONFIG_DEFAULTS["EVALUATION_SLOW_SECONDS"]),
            queue=float(config.get("EVALUATION_QUEUE_SECONDS") or CONFIG_DEFAULTS["EVALUATION_QUEUE_SECONDS"]),
            value_bytes=_size_setting(config, "RESPONSE_VALUE_MAX_BYTES"),
            max_bytes=_size_setting(config, "RESPONSE_MAX_BYTES"),
            limits=limits.Limits.from_config(config),
        )

    def served(self, job: str, response: Any) -> Any:
        """A job's answer as it is served: strict JSON, bounded (app.jobs.bounded)."""
        return bounded(job, response, self.value_bytes, self.max_bytes)

    def time_bound(self, job: str) -> tuple[float, str]:
        """The wall-clock bound of a job, and its configuration name."""
        if job in SUITE_JOBS:
            return self.suite_timeout, "EVALUATION_SUITE_TIMEOUT_SECONDS"
        return self.timeout, "EVALUATION_TIMEOUT_SECONDS"

    def timeout_error(self, job: str = "evaluate") -> EvaluationTimeout:
        seconds, name = self.time_bound(job)
        what = "the test cases were" if job in SUITE_JOBS else "the evaluation was"
        return EvaluationTimeout(
            f"{what} stopped after {seconds:g} seconds, the most {'they' if job in SUITE_JOBS else 'one evaluation'} "
            f"may take (limit: PLAYGROUND_{name} = {seconds:g}); make the scenario smaller or its expressions "
            "cheaper", name)

    def memory_error(self) -> EvaluationOutOfMemory:
        return EvaluationOutOfMemory(
            f"the evaluation was stopped: it needed more than {self.memory_mb} MiB of memory, the most one "
            f"evaluation may use (limit: PLAYGROUND_EVALUATION_MEMORY_MB = {self.memory_mb}); make the scenario "
            "smaller or its expressions build smaller values", "EVALUATION_MEMORY_MB")

    def killed_error(self, signum: int) -> WorkerKilled:
        try:
            name = signal.Signals(signum).name
        except ValueError:
            name = f"signal {signum}"
        return WorkerKilled(
            f"the evaluation worker was killed by {name} from outside the playground (the system's out-of-memory "
            "killer, or an operator), not stopped at one of the evaluation's bounds; try again in a moment",
            "EVALUATION_WORKERS")

    def busy_error(self) -> EvaluatorBusy:
        return EvaluatorBusy(
            f"every evaluation worker is busy ({self.workers}, PLAYGROUND_EVALUATION_WORKERS) and none came free "
            f"within {self.queue:g} seconds (PLAYGROUND_EVALUATION_QUEUE_SECONDS); try again in a moment",
            "EVALUATION_WORKERS")


def _size_setting(config: Any, name: str) -> int:
    """A size bound in bytes from the configuration (0: none)."""
    value = config.get(name)
    return max(0, int(CONFIG_DEFAULTS[name] if value is None or value == "" else value))


# --------------------------------------------------------------------------------------------
# The server side: one pool of workers per server process and configuration


class _Worker:
    def __init__(self, process: Any, conn: Connection) -> None:
        self.process = process
        self.conn = conn

    @property
    def pid(self) -> int:
        return int(self.process.pid)

    def kill(self) -> None:
        try:
            os.kill(self.pid, signal.SIGKILL)
        except (ProcessLookupError, TypeError):
            pass
        self.process.join(timeout=5)
        self.conn.close()


class Pool:
    """Worker processes for the evaluations of one server process."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._ready = threading.Condition()
        self._idle: list[_Worker] = []
        self._busy: set[_Worker] = set()
        self._alive = 0  # idle, busy and starting workers
        self._starting = 0
        self._failed = False  # the last start failed
        self._failed_at = 0.0
        self._closed = False
        self._pid = os.getpid()

    # lifecycle

    def start(self) -> None:
        """Start the spare workers in the background (the first one also starts the fork server)."""
        threading.Thread(target=self._top_up, name="evaluation-workers", daemon=True).start()

    def pids(self, *, busy: bool = False) -> list[int]:
        """The process ids of the idle workers, or of the busy ones."""
        with self._ready:
            return [worker.pid for worker in (self._busy if busy else self._idle)]

    def close(self) -> None:
        with self._ready:
            self._closed = True
            idle, self._idle = self._idle, []
        for worker in idle:
            worker.kill()

    def _top_up(self) -> None:
        """Start workers until `spare` are idle or on their way (never more than `workers` in all)."""
        while True:
            with self._ready:
                if (self._closed or len(self._idle) + self._starting >= self.settings.spare
                        or self._alive >= self.settings.workers):
                    return
                self._alive += 1
                self._starting += 1
            if not self._start_one():
                return

    def _start_one(self) -> bool:
        """Start one worker (already counted in _alive and _starting) and make it idle; False if it failed."""
        try:
            worker: _Worker | None = _spawn(self.settings)
        except Exception:  # noqa: BLE001 - reported to the requests that wait for a worker
            traceback.print_exc()
            worker = None
        with self._ready:
            self._starting -= 1
            if worker is None:
                self._alive -= 1
                self._failed, self._failed_at = True, time.monotonic()
            else:
                self._failed = False
                self._idle.append(worker)
            self._ready.notify_all()
        return worker is not None

    def _acquire(self) -> _Worker:
        """Take an idle worker; when there is none, start one in the background and take whichever worker
        comes free first (a busy one finishing is often quicker than a new one starting)."""
        deadline = time.monotonic() + self.settings.queue
        with self._ready:
            while True:
                if self._idle:
                    worker = self._idle.pop()
                    self._busy.add(worker)
                    return worker
                if self._failed and self._alive == 0:
                    raise RuntimeError("could not start an evaluation worker (the server log has why)")
                retry = not self._failed or time.monotonic() - self._failed_at > 1.0
                if self._starting == 0 and self._alive < self.settings.workers and retry:
                    self._alive += 1
                    self._starting += 1
                    threading.Thread(target=self._start_one, name="evaluation-workers", daemon=True).start()
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise self.settings.busy_error()
                self._ready.wait(min(remaining, 1.0))

    def _release(self, worker: _Worker, *, keep: bool) -> None:
        with self._ready:
            self._busy.discard(worker)
        if keep:
            with self._ready:
                if not self._closed:
                    self._idle.append(worker)
                    self._ready.notify_all()
                    return
        worker.kill()
        with self._ready:
            self._alive -= 1
            self._ready.notify_all()
        if not self._closed:
            threading.Thread(target=self._top_up, name="evaluation-workers", daemon=True).start()

    # one evaluation

    def evaluate(self, payload: Any) -> dict[str, Any]:
        """Evaluate in a worker; raise EvaluationStopped at a bound, InputError for a wrong body."""
        check_payload(payload)
        return self.run("evaluate", payload)

    def evaluate_body(self, raw: bytes) -> bytes:
        """Evaluate a JSON API request body as it came and return the JSON API response as the worker
        encoded it (read, checked and answered in the worker, so that this process neither decodes nor
        encodes either); raise InputError when it is not an API request."""
        return self.run("evaluate_body", raw=raw, encoded=True)

    def run(self, job: str, *args: Any, raw: bytes | None = None, encoded: bool = False) -> Any:
        """Run one of JOBS in a worker, with its arguments (JSON values) and, given ``raw``, those bytes as
        the last argument; raise EvaluationStopped at a bound. ``encoded``: return the answer as the JSON
        the API sends (:func:`response_json`), encoded by the worker."""
        if job not in JOBS:
            raise ValueError(f"unknown job {job!r}")
        body = json.dumps({"job": job, "args": args, "raw": raw is not None, "encoded": encoded}).encode()
        # A worker that died while idle (killed, or lost with its pipe) is replaced and the job goes to another
        # one: the client never sees it. One that dies while evaluating is reported (_run).
        for _ in range(self.settings.workers + self.settings.spare + 1):
            worker = self._acquire()
            keep = False
            try:
                reply, keep = self._run(worker, body, job, raw)
            except _WorkerGone:
                continue
            finally:
                self._release(worker, keep=keep)
            return _answer(reply, self.settings, encoded)
        raise RuntimeError("every evaluation worker taken had died before it was given the scenario")

    def _run(self, worker: _Worker, body: bytes, job: str, raw: bytes | None = None) -> tuple[dict[str, Any], bool]:
        settings = self.settings
        timeout, _ = settings.time_bound(job)
        started = time.monotonic()
        if not worker.process.is_alive() or worker.conn.poll(0):  # an idle worker says nothing unless it died
            raise _WorkerGone
        try:
            worker.conn.send_bytes(body)
            if raw is not None:
                worker.conn.send_bytes(raw)
        except OSError:
            raise _WorkerGone from None
        # Wait for the answer until the time bound; once the evaluation has used EVALUATION_SLOW_SECONDS
        # of CPU (not of wall-clock time, which a busy machine stretches for everyone) lower its priority.
        deadline = started + timeout
        cpu_start = _cpu_seconds(worker.pid)
        slowed = False
        while True:
            remaining = deadline - time.monotonic()
            if worker.conn.poll(max(0.0, remaining if slowed else min(remaining, _CHECK_EVERY))):
                break
            if time.monotonic() >= deadline:
                raise settings.timeout_error(job)
            if not slowed:
                cpu = _cpu_seconds(worker.pid)
                if cpu is None or cpu_start is None or cpu - cpu_start >= settings.slow:
                    _lower_priority(worker.pid)
                    slowed = True  # given its priority back afterwards, or retired
        try:
            data = worker.conn.recv_bytes()
            reply = {"encoded": data[1:]} if data[:1] == _ENCODED else json.loads(data)
        except (EOFError, OSError):
            worker.process.join(timeout=5)
            if time.monotonic() - started >= timeout or worker.process.exitcode == -signal.SIGXCPU:
                raise settings.timeout_error(job) from None  # killed for time (SIGXCPU: the CPU-time backstop)
            code = worker.process.exitcode
            if code in (-signal.SIGABRT, -signal.SIGSEGV, -signal.SIGBUS):
                raise settings.memory_error() from None  # the allocator failed under the address-space bound
            if code is not None and code < 0:
                raise settings.killed_error(-code) from None  # a signal from outside: said as it was
            raise RuntimeError(f"an evaluation worker stopped unexpectedly (exit {code})") from None
        keep = not reply.get("retire") and (not slowed or _restore_priority(worker.pid))
        return reply, keep


def _cpu_seconds(pid: int) -> float | None:
    """The CPU time a process has used (user and system), from /proc; None where it cannot be read."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS
    except (OSError, ValueError, IndexError):
        return None


_CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
_CHECK_EVERY = 0.02  # seconds between looks at a running evaluation's CPU time


def _lower_priority(pid: int) -> bool:
    """Give a worker the lowest CPU priority: its nice value, and its session's where the kernel groups
    tasks by session for scheduling (autogroup), since nice only weighs within such a group."""
    return _set_priority(pid, 19)


def _restore_priority(pid: int) -> bool:
    """Give a demoted worker its normal priority back, where this process may raise priorities (root or
    CAP_SYS_NICE); False when it may not (the worker is then retired, and a new one takes its place)."""
    return _set_priority(pid, 0)


def _set_priority(pid: int, nice: int) -> bool:
    try:
        os.setpriority(os.PRIO_PROCESS, pid, nice)
    except OSError:
        return False
    try:
        with open(f"/proc/{pid}/autogroup", "w") as autogroup:
            autogroup.write(str(nice))
    except OSError:
        pass  # no autogroup scheduling here: the nice value is enough
    return True


def _answer(reply: dict[str, Any], settings: Settings, encoded: bool = False) -> Any:
    """Turn a worker's reply into the response (its JSON when ``encoded``), or the exception it stands for.
    A worker sends the response as an object rather than encoded when it retires after it."""
    if "encoded" in reply:
        return reply["encoded"]
    if "response" in reply:
        return response_json(reply["response"]) if encoded else reply["response"]
    error = reply.get("error")
    if error == "memory":
        raise settings.memory_error()
    if error == "input":
        raise InputError(reply.get("message") or "the request body is not an API request")
    if error == "unavailable":
        raise NotImplementedError
    raise RuntimeError(f"the evaluation failed in its worker: {reply.get('message')}")


def _spawn(settings: Settings) -> _Worker:
    context = _context()
    parent_conn, child_conn = context.Pipe()
    process = context.Process(target=_serve, args=(child_conn, settings), name="evaluation-worker", daemon=True)
    process.start()
    child_conn.close()
    if not parent_conn.poll(60) or parent_conn.recv_bytes() != b"ready":
        process.kill()
        raise RuntimeError("an evaluation worker did not start")
    return _Worker(process, parent_conn)


_context_lock = threading.Lock()
_the_context: Any = None


def _context() -> Any:
    """The fork server context, its server preloaded with warm caches (app/warm_forkserver.py)."""
    global _the_context
    with _context_lock:
        if _the_context is None:
            method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
            context = multiprocessing.get_context(method)
            if method == "forkserver":
                context.set_forkserver_preload(["app.warm_forkserver", "app.isolation"])
            _the_context = context
        return _the_context


_pools: dict[tuple[int, Settings], Pool] = {}
_pools_lock = threading.Lock()


def pool_for(settings: Settings) -> Pool:
    """Return this process's pool for these settings (apps with equal settings share one)."""
    key = (os.getpid(), settings)  # a forked server process gets pools of its own
    with _pools_lock:
        pool = _pools.get(key)
        if pool is None:
            pool = _pools[key] = Pool(settings)
            pool.start()
        return pool


@atexit.register
def _close_pools() -> None:
    for (pid, _), pool in list(_pools.items()):
        if pid == os.getpid():
            pool.close()


# --------------------------------------------------------------------------------------------
# The worker side


def _serve(conn: Connection, settings: Settings) -> None:
    """Answer evaluations from the server, one at a time, until the server goes away.

    After an evaluation that came near its memory bound the worker exits (the server starts a
    fresh one), so that the next evaluation does not inherit its fragments or its peak.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a ^C to the server's process group is the server's
    # A session of its own: where the kernel schedules sessions as groups (autogroup), a worker whose priority
    # is lowered then yields to the server's other work, not only to the other workers of its group.
    try:
        os.setsid()
    except OSError:
        pass
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    limits.set_default(settings.limits)
    budget = settings.memory_mb * MiB
    conn.send_bytes(b"ready")
    while True:
        try:
            body = conn.recv_bytes()
        except (EOFError, OSError):
            return
        message = json.loads(body)
        if message.get("raw"):
            try:
                message["args"].append(conn.recv_bytes())
            except (EOFError, OSError):
                return
        size, peak_before = _memory()
        _bound(settings, size, settings.time_bound(message["job"])[0])
        reply = _perform(message["job"], message["args"], settings)
        _unbound()
        _, peak = _memory()
        # Near the bound (half of it or more, beyond the worker's size before): an allocation may have
        # failed inside the engine, which reports that as an evaluation error, not as an exception.
        heavy = size is not None and peak is not None and peak > max(peak_before or 0, size + budget // 2)
        if heavy and isinstance(reply.get("response"), dict) and _has_errors(reply["response"]):
            reply = {"error": "memory"}
        if heavy or reply.get("error") == "memory":
            reply["retire"] = True
        try:
            if message.get("encoded") and "response" in reply and not reply.get("retire"):
                conn.send_bytes(_ENCODED + response_json(reply["response"]))
            else:
                conn.send_bytes(json.dumps(reply, default=str).encode())
        except (BrokenPipeError, OSError):
            return
        if reply.get("retire"):
            return


# The first byte of a worker's answer that is the response's JSON itself (any other answer is a JSON object).
_ENCODED = b"="


def response_json(response: Any) -> bytes:
    """A response as the JSON API sends it: Flask's ``jsonify`` out of debug mode (sorted keys, ASCII,
    compact, a final newline); values that are not JSON as their text."""
    return (json.dumps(response, default=str, ensure_ascii=True, sort_keys=True, separators=(",", ":")) + "\n").encode()


def _perform(job: str, args: list[Any], settings: Settings | None = None) -> dict[str, Any]:
    settings = settings or Settings()
    try:
        response = JOBS[job](*args)
        if isinstance(response, dict) and _has_errors(response, _ALLOCATION_FAILED):
            return {"error": "memory"}
        return {"response": settings.served(job, response)}  # bounded here, under the evaluation's bounds
    except MemoryError:
        return {"error": "memory"}
    except InputError as exc:
        return {"error": "input", "message": str(exc)}
    except NotImplementedError:
        return {"error": "unavailable"}
    except Exception as exc:  # a bug in the core: the server answers 500 and logs it
        traceback.print_exc(file=sys.stderr)
        return {"error": "bug", "message": f"{type(exc).__name__}: {exc}"}


# What the engine says when an allocation failed under RLIMIT_AS (pybind11's MemoryError text).
_ALLOCATION_FAILED = ("std::bad_alloc", "MemoryError")


def _has_errors(response: Any, endings: tuple[str, ...] = ()) -> bool:
    """Whether any expression of the response failed (with an error ending in one of ``endings``, if given)."""
    for policy in response.get("policies") or []:
        for binding in policy.get("bindings") or []:
            for evaluation in binding.get("evaluations") or []:
                for section in ("matchConditions", "variables", "validations", "auditAnnotations", "decisions"):
                    for item in evaluation.get(section) or []:
                        error = item.get("error") if isinstance(item, dict) else None
                        if section == "decisions" and isinstance(item, dict) and item.get("evaluation") == "error":
                            error = str(item.get("message") or "error")
                        if isinstance(error, str) and error and (not endings or error.endswith(endings)):
                            return True
    return False


def _memory() -> tuple[int | None, int | None]:
    """The worker's virtual memory size and its peak, in bytes (None where /proc is missing)."""
    size = peak = None
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmSize:"):
                    size = int(line.split()[1]) * 1024
                elif line.startswith("VmPeak:"):
                    peak = int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return size, peak


def _bound(settings: Settings, size: int | None, seconds: float) -> None:
    """Cap this evaluation: address space (its size now plus the budget) and CPU time (a backstop)."""
    if size is not None:
        resource.setrlimit(resource.RLIMIT_AS, (size + settings.memory_mb * MiB, resource.RLIM_INFINITY))
    used = resource.getrusage(resource.RUSAGE_SELF)
    cpu = int(used.ru_utime + used.ru_stime + seconds) + 2
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, resource.RLIM_INFINITY))


def _unbound() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    resource.setrlimit(resource.RLIMIT_CPU, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
