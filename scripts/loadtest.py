#!/usr/bin/env python3
"""Load test: normal users evaluating the gallery while a few clients send hostile inputs.

Starts the playground as `admission-playground serve` does (its front, gunicorn behind it; --bare: gunicorn
alone, to compare) on a free local port, unless --url names a running one; then

1. idle: one user evaluates the gallery examples one after another (think time between requests);
2. users: --users users do the same, each from its own address (X-Forwarded-For, the server trusting
   one proxy);
3. load: the same users while --hostile clients send hostile inputs back to back (CPU for seconds,
   memory bombs, alias bombs, deep nesting, oversized bodies), each also from its own address;
4. slow: the same users while --slow connections send a request's headers a line every 5 seconds
   (each opened again as soon as the server closes it);
5. costly: the same users while one client keeps --costly requests outstanding that each hold an
   evaluation worker to its time bound (evaluations, test cases, workshop checks).

The phases alternate --rounds times, so that whatever else runs on the machine weighs on each about
equally. It prints the latency percentiles of the normal users in each phase, their errors, and what
the hostile clients got back (status counts), and exits 1 when a normal user saw an error, the
p95 under load exceeds twice the idle p95, or fewer than 95% of the normal users' evaluations were
answered within 3 seconds beside the slow connections or the costly client (the issue's bars). Usage:

    .venv/bin/python scripts/loadtest.py [--users 50] [--hostile 3] [--slow 64] [--costly 12] [--seconds 60]
        [--idle-requests 60] [--rounds 3] [--bare]
        [--only 'oversized body' ...]   (one kind of hostile input alone, to find which one weighs)
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import multiprocessing
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
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from app.warm import example_bodies  # noqa: E402
from tests import attacks  # noqa: E402
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

    def post(self, path: str, body: bytes, kind: str = "application/json") -> tuple[int, float]:
        headers = {"Content-Type": kind, "X-Forwarded-For": self.address}
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


def start_server(data_dir: str, bare: bool = False) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = {**os.environ, "PLAYGROUND_TRUSTED_PROXIES": "1", "DATA_DIR": data_dir}
    command = ([sys.executable, "-m", "gunicorn", "--config", "python:app.gunicorn_conf", "--bind", f"127.0.0.1:{port}",
                "app:create_app()"] if bare else [sys.executable, "-m", "app.cli", "serve", "--port", str(port), "-q"])
    server = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True)  # a session of its own, as a service has (the kernel may schedule by session)
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
    parser.add_argument("--slow", type=int, default=64, help="slow connections in the slow phase (0: no such phase)")
    parser.add_argument("--costly", type=int, default=12,
                        help="costly requests one client keeps outstanding in the costly phase (0: no such phase)")
    parser.add_argument("--bare", action="store_true", help="gunicorn alone, without the front (to compare)")
    parser.add_argument("--seconds", type=float, default=60, help="seconds of each loaded phase, in all rounds")
    parser.add_argument("--idle-requests", type=int, default=60)
    parser.add_argument("--think", type=float, nargs=2, default=(0.5, 1.5), metavar=("MIN", "MAX"),
                        help="seconds a normal user waits between evaluations (default 0.5 1.5)")
    parser.add_argument("--rounds", type=int, default=3, help="alternations of the phases (default 3)")
    parser.add_argument("--seed", type=int, default=6)
    parser.add_argument("--only", action="append", metavar="NAME",
                        help="send only this hostile input (repeatable), e.g. --only 'many values'")
    args = parser.parse_args()

    load_before = os.getloadavg()[0]
    rng = random.Random(args.seed)
    bodies = [json.dumps(body).encode() for body in example_bodies()]
    server = None
    with tempfile.TemporaryDirectory() as data_dir:
        if args.url:
            url = args.url
        else:
            server, url = start_server(data_dir, args.bare)
        try:
            warm = Client(url, "192.0.2.250")
            for body in bodies:  # the server's workers have evaluated every example once
                warm.post("/api/v1/evaluate", body)

            idle: list[tuple[int, float]] = []
            crowd: list[tuple[int, float]] = []  # normal users, no hostile client
            loaded: list[tuple[int, float]] = []  # normal users while hostile clients send bombs
            beside_slow: list[tuple[int, float]] = []  # normal users beside the slow connections
            beside_costly: list[tuple[int, float]] = []  # normal users beside the costly client
            hostile_results: Counter = Counter()
            slow_results: Counter = Counter()
            costly_results: Counter = Counter()
            inputs = [(name, body) for name, body in hostile_bodies() if not args.only or name in args.only]
            if not inputs:
                parser.error(f"no hostile input named {args.only}: {[name for name, _ in hostile_bodies()]}")
            seconds = args.seconds / args.rounds
            # Phases alternate, so that what else runs on the machine weighs on each about equally.
            for _ in range(args.rounds):
                user = Client(url, "192.0.2.1")
                for _ in range(args.idle_requests // args.rounds):  # the same think time as under load
                    idle.append(user.post("/api/v1/evaluate", rng.choice(bodies)))
                    time.sleep(rng.uniform(*args.think))
                crowd += run_users(url, bodies, inputs, args.users, 0, seconds, tuple(args.think), rng, Counter())
                loaded += run_users(url, bodies, inputs, args.users, args.hostile, seconds, tuple(args.think), rng,
                                    hostile_results)
                if args.slow:
                    with attacking(slow_connections, url, args.slow, seconds, slow_results):
                        beside_slow += run_users(url, bodies, inputs, args.users, 0, seconds, tuple(args.think), rng,
                                                 Counter())
                if args.costly:
                    with attacking(costly_client, url, args.costly, seconds, costly_results):
                        beside_costly += run_users(url, bodies, inputs, args.users, 0, seconds, tuple(args.think),
                                                   rng, Counter())
        finally:
            if server is not None:
                server.terminate()
                server.wait(timeout=30)

    print(f"machine: {os.cpu_count()} CPUs, load average {load_before:.2f} before the run, "
          f"{os.getloadavg()[0]:.2f} after; {args.rounds} rounds of each phase")
    idle_p = report("idle (1 user)", idle, args.seconds)
    report(f"{args.users} users", crowd, args.seconds)
    loaded_p, errors = report(f"{args.users} users + {args.hostile} hostile", loaded, args.seconds, errors=True)
    print(f"with hostile clients / idle: p50 x{loaded_p['p50'] / idle_p['p50']:.2f}, "
          f"p95 x{loaded_p['p95'] / idle_p['p95']:.2f}")
    print("hostile clients got:")
    for (name, status), count in sorted(hostile_results.items()):
        print(f"  {name:28} HTTP {status}: {count}")
    within = not errors and loaded_p["p95"] <= 2 * idle_p["p95"]
    print("normal users' latency under load within twice its idle value:", "yes" if within else "NO")
    for label, results, what, count in ((f"{args.users} users + {args.slow} slow conns", beside_slow,
                                         slow_results, args.slow),
                                        (f"{args.users} users + 1 costly client", beside_costly, costly_results,
                                         args.costly)):
        if not count:
            continue
        report(label, results, args.seconds)
        answered = sum(1 for status, took in results if status == 200 and took <= 3.0)
        share = answered / len(results) if results else 0.0
        print(f"  answered within 3 s: {answered} of {len(results)} ({share:.1%}); the attack got: "
              f"{dict(sorted(what.items(), key=str))}")
        within = within and share >= 0.95
    print("every bar met:", "yes" if within else "NO")
    return 0 if within else 1


@contextlib.contextmanager
def attacking(attack: Any, url: str, count: int, seconds: float, results: Counter) -> Iterator[None]:
    """Run an attack (in a process of its own, as from other machines) while the block runs."""
    pool = multiprocessing.get_context("spawn").Pool(1)
    pending = pool.apply_async(attack, (url, count, seconds + 1.0))
    time.sleep(1.0)  # the attack is in place before the users start
    try:
        yield
    finally:
        results.update(pending.get(timeout=seconds + 180))
        pool.close()
        pool.join()


def slow_connections(url: str, count: int, seconds: float) -> Counter:
    """``count`` connections sending a request's headers a line every 5 seconds, reopened when closed; what they got."""
    os.setsid()
    parts = urlsplit(url)
    until = time.monotonic() + seconds
    outcomes: Counter = Counter()
    threads = [threading.Thread(target=attacks.slow_connection, args=(parts.hostname, parts.port, until, outcomes))
               for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return outcomes


def costly_client(url: str, count: int, seconds: float) -> Counter:
    """One client keeping ``count`` costly requests outstanding (each sent again once answered); what it got."""
    os.setsid()
    until = time.monotonic() + seconds
    requests = attacks.costly_requests()
    outcomes: Counter = Counter()

    def keep_sending(i: int) -> None:
        client = Client(url, "203.0.113.66")
        while time.monotonic() < until:
            path, body, kind = requests[i % len(requests)]
            status, _ = client.post(path, body, kind)
            outcomes[status] += 1
            if status == 429:
                time.sleep(0.2)  # a refused client keeps knocking, a little less often

    threads = [threading.Thread(target=keep_sending, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return outcomes


def run_users(url: str, bodies: list[bytes], inputs: list[tuple[str, bytes]], users: int, hostile: int,
              seconds: float, think: tuple[float, float], rng: random.Random,
              hostile_results: Counter) -> list[tuple[int, float]]:
    """Run the normal users (and hostile clients) for some seconds; return the normal users' results.

    The hostile clients run in a process of their own, as they would on machines of their own: their
    work in the load generator must not delay the normal users' requests or stretch their timings.
    """
    until = time.monotonic() + seconds
    results: list[tuple[int, float]] = []
    threads = [threading.Thread(target=normal_user, args=(url, f"10.0.{i // 250}.{i % 250 + 1}", bodies, until,
                                                          think, results, random.Random(rng.random())))
               for i in range(users)]
    attackers = None
    if hostile:
        attackers = multiprocessing.get_context("spawn").Pool(1)
        pending = attackers.apply_async(run_hostile, (url, inputs, hostile, seconds, rng.random()))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if attackers is not None:
        hostile_results.update(pending.get(timeout=seconds + 120))
        attackers.close()
        attackers.join()
    return results


def run_hostile(url: str, inputs: list[tuple[str, bytes]], hostile: int, seconds: float, seed: float) -> Counter:
    """The hostile clients, each in a thread, for some seconds; return what they got (name, status) counts."""
    os.setsid()  # apart from the normal users, as other machines would be
    until = time.monotonic() + seconds
    rng = random.Random(seed)
    results: Counter = Counter()
    threads = [threading.Thread(target=hostile_user, args=(url, f"172.16.0.{i + 1}", inputs, until, results,
                                                           random.Random(rng.random())))
               for i in range(hostile)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def report(label: str, results: list[tuple[int, float]], seconds: float, errors: bool = False) -> Any:
    ok = [t for s, t in results if s == 200]
    failed = Counter(s for s, _ in results if s != 200)
    p = percentiles(ok)
    print(f"{label:28} {fmt(p)}  errors={dict(failed) or 0}")
    return (p, failed) if errors else p


if __name__ == "__main__":
    sys.exit(main())
