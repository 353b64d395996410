"""The JSON API under gunicorn: round-trip latency with concurrent clients, throughput, worker memory.

The benchmark starts ``gunicorn app:create_app()`` (as ``admission-playground serve`` does) on a free
local port, with its own data directory and a request body limit large enough for the 1 MB object,
and stops it at the end. Clients are threads of the benchmark process, each sending one request at a
time over a new connection (gunicorn's sync workers close each one), so the machine's cores are
shared by the workers and the clients, as on a small server.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Server:
    port: int
    process: subprocess.Popen

    def worker_pids(self) -> list[int]:
        """The pids of gunicorn's workers (the master's children)."""
        return children(self.process.pid)

    def evaluation_worker_pids(self) -> list[int]:
        """The pids of the evaluation workers (app/isolation.py): the children of the fork server each
        gunicorn worker starts."""
        return [pid for worker in self.worker_pids() for child in children(worker) for pid in children(child)]


def children(pid: int) -> list[int]:
    """The child processes of a process (Linux /proc)."""
    try:
        return [int(p) for t in Path(f"/proc/{pid}/task").iterdir()
                for p in (t / "children").read_text().split()]
    except OSError:
        return []


def _status_mb(pid: int, field: str) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def peak_rss_mb(pid: int) -> float | None:
    """The peak resident set size of a process (VmHWM), in MiB; None where /proc is not there."""
    return _status_mb(pid, "VmHWM")


def rss_mb(pid: int) -> float | None:
    """The resident set size of a process now (VmRSS), in MiB."""
    return _status_mb(pid, "VmRSS")


@contextmanager
def gunicorn(workers: int, *, timeout: float = 60.0) -> Iterator[Server]:
    """Run the playground under gunicorn on a free port for the duration of the block."""
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="playground-bench-") as data_dir:
        # the served configuration (admission-playground serve), without the per-client rate limits: every
        # client of the benchmark is one address
        env = {**os.environ, "DATA_DIR": data_dir, "PLAYGROUND_RATE_LIMIT_ENABLED": "false",
               "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
        env.pop("DATABASE_URL", None)
        log = tempfile.TemporaryFile()
        process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "--config", "python:app.gunicorn_conf", "--bind", f"127.0.0.1:{port}",
             "--workers", str(workers), "app:create_app()"],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )
        server = Server(port, process)
        try:
            deadline = time.monotonic() + timeout
            while True:
                if process.poll() is not None:
                    log.seek(0)
                    raise RuntimeError("gunicorn exited: " + log.read().decode(errors="replace")[-2000:])
                try:
                    status, _, _ = request(port, "GET", "/api/v1/scenarios/none", None)
                    if status and len(server.worker_pids()) >= workers:
                        break
                except OSError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError("gunicorn did not start in time")
                time.sleep(0.1)
            yield server
        finally:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
            log.close()


def request(port: int, method: str, path: str, body: bytes | None) -> tuple[int, float, bytes]:
    """One request on a new connection: (status, seconds, response body)."""
    start = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        headers = {"Content-Type": "application/json"} if body is not None else {}
        conn.request(method, path, body=body, headers=headers)
        resp = conn.getresponse()
        data = resp.read()
        return resp.status, time.perf_counter() - start, data
    finally:
        conn.close()


def evaluate_body(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload).encode()


@dataclass
class Load:
    latencies: list[float]
    elapsed: float
    errors: int
    error_samples: list[str] = field(default_factory=list)

    @property
    def throughput(self) -> float:
        return len(self.latencies) / self.elapsed if self.elapsed > 0 else 0.0


def load(port: int, bodies: Sequence[bytes], *, clients: int, requests: int) -> Load:
    """Send ``requests`` evaluations (cycling through ``bodies``) from ``clients`` concurrent clients."""
    latencies: list[float] = []
    errors = [0]
    samples: list[str] = []
    counter = [0]
    lock = threading.Lock()

    def client() -> None:
        while True:
            with lock:
                n = counter[0]
                if n >= requests:
                    return
                counter[0] += 1
            status, seconds, answer = request(port, "POST", "/api/v1/evaluate", bodies[n % len(bodies)])
            with lock:
                if status == 200:
                    latencies.append(seconds)
                else:
                    errors[0] += 1
                    if len(samples) < 3:
                        samples.append(f"{status}: {answer[:300]!r}")

    threads = [threading.Thread(target=client, daemon=True) for _ in range(clients)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return Load(latencies, time.perf_counter() - start, errors[0], samples)


def percentile(samples: Sequence[float], q: float) -> float:
    """The q-th percentile (0-100), nearest rank; 0 for no samples."""
    if not samples:
        return 0.0
    ordered = sorted(samples)
    rank = max(0, min(len(ordered) - 1, round(q / 100 * len(ordered) + 0.5) - 1))
    return ordered[rank]
