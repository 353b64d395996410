#!/usr/bin/env python3
"""Load test: normal users evaluating the gallery while a few clients send hostile inputs.

Starts the playground under gunicorn (as `admission-playground serve` does) on a free local port,
unless --url names a running one; then

1. idle: one user evaluates the gallery examples one after another (think time between requests);
2. load: --users users do the same, each from its own address (X-Forwarded-For, the server trusting
   one proxy), while --hostile clients send hostile inputs back to back (CPU for seconds, memory
   bombs, alias bombs, deep nesting, oversized bodies), each also from its own address.

It prints the latency percentiles of the normal users in both phases, their errors, and what the
hostile clients got back (status counts), and exits 1 when a normal user saw an error or the loaded
p95 exceeds twice the idle p95 (the issue's bar). Usage:

    .venv/bin/python scripts/loadtest.py [--users 50] [--hostile 3] [--seconds 60] [--idle-requests 60]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from typing import Any
from urllib.parse import urlsplit

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from app.warm import example_bodies  # noqa: E402
from tests import hostile_inputs as hostile  # noqa: E402


def hostile_bodies() -> list[tuple[str, bytes]]:
    def body(value: Any) -> bytes:
        return json.dumps(value).encode()

    return [
        ("cpu seconds", body(hostile.slow())),
        ("string doubling", body(hostile.string_doubling())),
        ("nested maps", body(hostile.nested_maps())),
        ("billion laughs", body({"policy": "", "params": hostile.billion_laughs()})),
        ("deep nesting", body({"policy": "[" * 10_000 + "]" * 10_000})),
        ("exponential comprehension", body(hostile.exponential_comprehension())),
        ("oversized body", body({"policy": "x" * (1024 * 1024 + 10)})),
        ("many values", body({"policy": "", "object": "[" + ",".join("1" for _ in range(60_000)) + "]"})),
    ]


class Client:
    """One user: a keep-alive connection and its own client address."""

    def __init__(self, url: str, address: str) -> None:
        parts = urlsplit(url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.address = address
        self.conn: http.client.HTTPConnection | None = None

    def post(self, path: str, body: bytes) -> tuple[int, float]:
        headers = {"Content-Type": "application/json", "X-Forwarded-For": self.address}
        for attempt in range(2):
            try:
                if self.conn is None:
                    self.conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
                started = time.perf_counter()
                self.conn.request("POST", path, body=body, headers=headers)
                response = self.conn.getresponse()
                response.read()
                elapsed = time.perf_counter() - started
                if response.getheader("Connection", "").lower() == "close":
                    self.conn.close()
                    self.conn = None
                return response.status, elapsed
            except (OSError, http.client.HTTPException):
                if self.conn is not None:
                    self.conn.close()
                self.conn = None
                if attempt:
                    return 0, 0.0
        return 0, 0.0


def normal_user(url: str, address: str, bodies: list[bytes], until: float, think: tuple[float, float],
                results: list[tuple[int, float]], rng: random.Random) -> None:
    client = Client(url, address)
    time.sleep(rng.uniform(0, think[1]))  # users do not all start at the same instant
    while time.monotonic() < until:
        results.append(client.post("/api/v1/evaluate", rng.choice(bodies)))
        time.sleep(rng.uniform(*think))


def hostile_user(url: str, address: str, inputs: list[tuple[str, bytes]], until: float,
                 results: Counter, rng: random.Random) -> None:
    client = Client(url, address)
    while time.monotonic() < until:
        name, body = rng.choice(inputs)
        status, _ = client.post("/api/v1/evaluate", body)
        results[(name, status)] += 1
        if status == 429:
            time.sleep(0.2)  # a refused client keeps knocking, a little less often


def percentiles(latencies: list[float]) -> dict[str, float]:
    if not latencies:
        return {}
    ordered = sorted(latencies)

    def at(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000

    return {"n": len(ordered), "p50": at(0.50), "p90": at(0.90), "p95": at(0.95), "p99": at(0.99),
            "max": ordered[-1] * 1000, "mean": statistics.fmean(ordered) * 1000}


def fmt(p: dict[str, float]) -> str:
    return (f"n={p['n']:.0f}  p50={p['p50']:.1f} ms  p90={p['p90']:.1f} ms  p95={p['p95']:.1f} ms  "
            f"p99={p['p99']:.1f} ms  max={p['max']:.1f} ms  mean={p['mean']:.1f} ms")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(data_dir: str) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = {**os.environ, "PLAYGROUND_TRUSTED_PROXIES": "1", "DATA_DIR": data_dir}
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "--config", "python:app.gunicorn_conf", "--bind", f"127.0.0.1:{port}",
         "app:create_app()"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        status, _ = Client(url, "127.0.0.1").post("/api/v1/evaluate", json.dumps(example_bodies()[0]).encode())
        if status == 200:
            return server, url
        time.sleep(0.5)
    server.terminate()
    raise SystemExit("the server did not answer within 60 seconds")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="a running playground (it must trust one proxy: PLAYGROUND_TRUSTED_PROXIES=1)")
    parser.add_argument("--users", type=int, default=50)
    parser.add_argument("--hostile", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--idle-requests", type=int, default=60)
    parser.add_argument("--think", type=float, nargs=2, default=(0.5, 1.5), metavar=("MIN", "MAX"),
                        help="seconds a normal user waits between evaluations (default 0.5 1.5)")
    parser.add_argument("--seed", type=int, default=6)
    args = parser.parse_args()

    load_before = os.getloadavg()[0]
    rng = random.Random(args.seed)
    bodies = [json.dumps(body).encode() for body in example_bodies()]
    server = None
    with tempfile.TemporaryDirectory() as data_dir:
        if args.url:
            url = args.url
        else:
            server, url = start_server(data_dir)
        try:
            warm = Client(url, "192.0.2.250")
            for body in bodies:  # the server's workers have evaluated every example once
                warm.post("/api/v1/evaluate", body)

            idle: list[tuple[int, float]] = []
            user = Client(url, "192.0.2.1")
            for _ in range(args.idle_requests):  # the same think time as under load, for a fair comparison
                idle.append(user.post("/api/v1/evaluate", rng.choice(bodies)))
                time.sleep(rng.uniform(*args.think))

            until = time.monotonic() + args.seconds
            loaded: list[tuple[int, float]] = []
            hostile_results: Counter = Counter()
            think = tuple(args.think)
            threads = [threading.Thread(target=normal_user, args=(url, f"10.0.{i // 250}.{i % 250 + 1}", bodies, until,
                                                                  think, loaded, random.Random(rng.random())))
                       for i in range(args.users)]
            inputs = hostile_bodies()
            threads += [threading.Thread(target=hostile_user, args=(url, f"172.16.0.{i + 1}", inputs, until,
                                                                    hostile_results, random.Random(rng.random())))
                        for i in range(args.hostile)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
        finally:
            if server is not None:
                server.terminate()
                server.wait(timeout=30)

    idle_ok = [t for s, t in idle if s == 200]
    loaded_ok = [t for s, t in loaded if s == 200]
    errors = Counter(s for s, _ in loaded if s != 200)
    idle_p, loaded_p = percentiles(idle_ok), percentiles(loaded_ok)
    print(f"machine: {os.cpu_count()} CPUs, load average {load_before:.2f} before the run, "
          f"{os.getloadavg()[0]:.2f} after")
    print(f"idle   (1 user):              {fmt(idle_p)}  errors={len(idle) - len(idle_ok)}")
    print(f"loaded ({args.users} users, {args.hostile} hostile): {fmt(loaded_p)}  errors={dict(errors) or 0}")
    print(f"throughput of normal users: {len(loaded) / args.seconds:.1f} evaluations/s")
    print(f"loaded / idle: p50 x{loaded_p['p50'] / idle_p['p50']:.2f}, p95 x{loaded_p['p95'] / idle_p['p95']:.2f}")
    print("hostile clients got:")
    for (name, status), count in sorted(hostile_results.items()):
        print(f"  {name:28} HTTP {status}: {count}")
    within = not errors and loaded_p["p95"] <= 2 * idle_p["p95"]
    print("normal users' latency under load within twice its idle value:", "yes" if within else "NO")
    return 0 if within else 1


if __name__ == "__main__":
    sys.exit(main())
