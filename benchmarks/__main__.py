"""Benchmark of the playground against its targets: ``python -m benchmarks [--quick] [--json PATH]``.

For each scenario (:mod:`benchmarks.scenarios`) it measures, in this process, the server-side
evaluation cold and warm and the part of it spent evaluating expressions (:mod:`benchmarks.core`),
and the bare CEL engine on the same expressions and inputs (:mod:`benchmarks.bare`); then, under
gunicorn with concurrent clients, the API's round-trip latency per scenario, the throughput of warm
evaluations across the workers and each worker's peak memory (:mod:`benchmarks.server`). It prints a
table and the targets, and writes everything as JSON (the default file's figures are then shown in
docs/benchmark.md, through :mod:`benchmarks.report`). Playground and bare engine runs alternate, so
both see the same machine load, and each side's cold run starts after a full collection of garbage (so
from the same state of the processor's caches); every number is a median of repeats.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from . import bare, core, report, scenarios, server

DEFAULT_JSON = Path(__file__).resolve().parent / "results.json"
PARTIAL_JSON = Path(tempfile.gettempdir()) / "admission-playground-benchmark.json"

TARGET_WARM = 1.5  # CEL stage / bare engine, warm, each gallery scenario that evaluates expressions
TARGET_COLD = 3.0  # whole evaluation / bare engine, cold, each gallery scenario
TARGET_SIZE = 10.0  # warm evaluation of the 1 MB object / of the 10 KB one
TARGET_THROUGHPUT = 200.0  # warm evaluations per second across the workers


def _median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1e3 if samples else 0.0


def _ratio(a: float, b: float) -> float | None:
    return a / b if b > 0 else None


def measure(scenario: scenarios.Scenario, *, repeat: int, cold_repeat: int) -> dict[str, Any]:
    """Cold, warm and CEL-stage times of the playground and the bare engine for one scenario."""
    payload = scenario.payload
    captured = core.capture(payload)
    engine = bare.Bare(captured.version, captured.expressions, captured.bare_inputs())
    for _ in range(3):  # warm-up
        core.warm_once(payload)
        engine.warm_once()
    warm, cel_stage, cel_fresh, bare_warm, cold, bare_cold = [], [], [], [], [], []
    gc.collect()
    for _ in range(repeat):
        warm.append(core.warm_once(payload))
        bare_warm.append(engine.warm_once())
        cel_stage.append(core.cel_stage_once(payload))
        cel_fresh.append(core.cel_stage_once(payload, fresh=True))
    for _ in range(cold_repeat):
        # each side's first evaluation starts from the same state: after a full collection, which also
        # leaves the processor's caches cold (it walks every object); a side measured straight after the
        # other would find them warm, which favours it (the bare engine by about 10% when it came second)
        gc.collect()
        cold.append(core.cold_once(payload))
        gc.collect()
        bare_cold.append(engine.cold_once())
    core.warm_once(payload)  # leave the caches filled
    row = {
        "name": scenario.name,
        "group": scenario.group,
        "description": scenario.description,
        "paneBytes": scenario.size,
        "objectBytes": len(payload.get("object") or ""),
        "expressions": len(engine.expressions),
        "evaluations": len(captured.evaluations),
        "bareRefused": len(engine.refused),
        "coldMs": _median_ms(cold),
        "warmMs": _median_ms(warm),
        "celStageMs": _median_ms(cel_stage),
        "celStageFreshMs": _median_ms(cel_fresh),
        "bareColdMs": _median_ms(bare_cold),
        "bareWarmMs": _median_ms(bare_warm),
    }
    row["coldRatio"] = _ratio(row["coldMs"], row["bareColdMs"])
    row["warmRatio"] = _ratio(row["warmMs"], row["bareWarmMs"])
    row["celStageRatio"] = _ratio(row["celStageMs"], row["bareWarmMs"])
    row["celStageFreshRatio"] = _ratio(row["celStageFreshMs"], row["bareWarmMs"])
    return row


def measure_api(rows: list[dict[str, Any]], items: list[scenarios.Scenario], args: argparse.Namespace
                ) -> dict[str, Any]:
    """Latency per scenario, throughput and worker memory under gunicorn."""
    bodies = {s.name: server.evaluate_body(s.payload) for s in items}
    gallery = [bodies[s.name] for s in items if s.group == "gallery"]
    out: dict[str, Any] = {"workers": args.workers, "clients": args.clients}
    with server.gunicorn(args.workers) as srv:
        pids = srv.worker_pids()
        out["workerRssAtStartMb"] = [server.rss_mb(p) for p in pids]
        # every evaluation worker sees every scenario before anything is timed (the gallery it has seen:
        # the fork server evaluates it at start)
        warmup = server.load(srv.port, list(bodies.values()), clients=args.clients,
                             requests=len(bodies) * (len(srv.evaluation_worker_pids()) + 2))
        if warmup.errors:
            raise RuntimeError(f"{warmup.errors} requests failed while warming the workers up: "
                               f"{warmup.error_samples}")
        for row in rows:
            result = server.load(srv.port, [bodies[row["name"]]], clients=args.clients, requests=args.requests)
            row["apiP50Ms"] = server.percentile(result.latencies, 50) * 1e3
            row["apiP95Ms"] = server.percentile(result.latencies, 95) * 1e3
            row["apiP99Ms"] = server.percentile(result.latencies, 99) * 1e3
            row["apiErrors"] = result.errors
        if gallery:
            result = server.load(srv.port, gallery, clients=args.clients, requests=args.throughput_requests)
            out["throughput"] = {
                "requests": len(result.latencies), "errors": result.errors, "seconds": result.elapsed,
                "perSecond": result.throughput,
                "p50Ms": server.percentile(result.latencies, 50) * 1e3,
                "p95Ms": server.percentile(result.latencies, 95) * 1e3,
                "p99Ms": server.percentile(result.latencies, 99) * 1e3,
            }
        out["workerPeakRssMb"] = [server.peak_rss_mb(p) for p in pids]
        out["workerRssMb"] = [server.rss_mb(p) for p in pids]
        evaluation_pids = srv.evaluation_worker_pids()
        out["evaluationWorkerPeakRssMb"] = [server.peak_rss_mb(p) for p in evaluation_pids]
        out["evaluationWorkerRssMb"] = [server.rss_mb(p) for p in evaluation_pids]
    return out


def targets(rows: list[dict[str, Any]], api: dict[str, Any] | None) -> list[dict[str, Any]]:
    gallery = [r for r in rows if r["group"] == "gallery"]
    warm = [r for r in gallery if r["celStageRatio"] is not None]
    cold = [r for r in gallery if r["coldRatio"] is not None]
    out = []
    for key, rated, limit, what in (("celStageRatio", warm, TARGET_WARM, "warm: CEL stage"),
                                    ("coldRatio", cold, TARGET_COLD, "cold: whole evaluation")):
        if not rated:
            continue
        worst = max(rated, key=lambda r, key=key: r[key])
        out.append({
            "target": f"{what} <= {limit}x the bare engine, each gallery scenario",
            "value": worst[key], "limit": limit, "met": worst[key] <= limit,
            "detail": f"worst {worst['name']}; median {statistics.median(r[key] for r in rated):.2f}x; "
                      f"{sum(r[key] <= limit for r in rated)}/{len(rated)} within",
        })
    small = next((r for r in rows if r["name"].startswith("object-") and r["name"].endswith("10KB")), None)
    large = next((r for r in rows if r["name"].startswith("object-") and r is not small), None)
    if small and large:
        ratio = large["warmMs"] / small["warmMs"]
        bare_ratio = _ratio(large["bareWarmMs"], small["bareWarmMs"])
        out.append({
            "target": f"warm: {large['name']} evaluated in under {TARGET_SIZE}x {small['name']}",
            "value": ratio, "limit": TARGET_SIZE, "met": ratio < TARGET_SIZE,
            "detail": f"{large['warmMs']:.2f} ms / {small['warmMs']:.2f} ms; cold "
                      f"{large['coldMs'] / small['coldMs']:.1f}x; bare engine "
                      + (f"{bare_ratio:.1f}x" if bare_ratio is not None else "-"),
        })
    if api and api.get("throughput"):
        t = api["throughput"]
        out.append({
            "target": f">= {TARGET_THROUGHPUT:.0f} warm evaluations/s across {api['workers']} workers",
            "value": t["perSecond"], "limit": TARGET_THROUGHPUT, "met": t["perSecond"] >= TARGET_THROUGHPUT,
            "detail": f"gallery mix, {api['clients']} concurrent clients, {t['requests']} requests, "
                      f"{t['errors']} errors",
        })
    return out


def fresh_overhead(rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The warm CEL stage of the gallery with no values kept from the evaluation before (not a target of
    its own: the playground's overhead around the engine when its inputs are converted each time, as the
    bare engine's are)."""
    rated = [r for r in rows if r["group"] == "gallery" and r.get("celStageFreshRatio") is not None]
    if not rated:
        return None
    worst = max(rated, key=lambda r: r["celStageFreshRatio"])
    return {
        "median": statistics.median(r["celStageFreshRatio"] for r in rated),
        "worst": worst["celStageFreshRatio"], "worstScenario": worst["name"],
        "within": sum(r["celStageFreshRatio"] <= TARGET_WARM for r in rated), "of": len(rated),
    }


def _fmt(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def table(rows: list[dict[str, Any]]) -> str:
    api = any("apiP50Ms" in r for r in rows)
    head = ["scenario", "evals", "cold ms", "bare", "x", "warm ms", "CEL ms", "bare", "CEL x", "fresh x",
            "warm x"]
    if api:
        head += ["API p50", "p95", "p99"]
    lines = [head]
    for r in rows:
        line = [r["name"], str(r["evaluations"]), _fmt(r["coldMs"]), _fmt(r["bareColdMs"]), _fmt(r["coldRatio"], 1),
                _fmt(r["warmMs"], 3), _fmt(r["celStageMs"], 3), _fmt(r["bareWarmMs"], 3),
                _fmt(r["celStageRatio"]), _fmt(r.get("celStageFreshRatio")), _fmt(r["warmRatio"], 1)]
        if api:
            line += [_fmt(r.get("apiP50Ms"), 1), _fmt(r.get("apiP95Ms"), 1), _fmt(r.get("apiP99Ms"), 1)]
        lines.append(line)
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    out = []
    for n, line in enumerate(lines):
        out.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(line, widths,
                                                                                                  strict=True))))
        if n == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def conditions(args: argparse.Namespace) -> dict[str, Any]:
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                cwd=Path(__file__).resolve().parent, check=False).stdout.strip()
    except OSError:
        commit = ""
    try:
        load = os.getloadavg()
    except OSError:
        load = None
    return {
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "commit": commit,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "loadAverageAtStart": load,
        "quick": args.quick,
        "repeat": args.repeat,
        "coldRepeat": args.cold_repeat,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a few scenarios, few repeats (seconds)")
    parser.add_argument("--json", type=Path, default=None,
                        help=f"results file (default {DEFAULT_JSON} for a full run, {PARTIAL_JSON} for a "
                             "--quick, --no-server or --only one, which never replaces the published results)")
    parser.add_argument("--repeat", type=int, help="warm repeats per scenario (default 40; quick 5)")
    parser.add_argument("--cold-repeat", type=int, help="cold repeats per scenario (default 7; quick 2)")
    parser.add_argument("--workers", type=int, default=1,
                        help="gunicorn workers (default 1, as served; each runs its own evaluation workers)")
    parser.add_argument("--clients", type=int, help="concurrent API clients (default 8)")
    parser.add_argument("--requests", type=int, help="API requests per scenario (default 60; quick 6)")
    parser.add_argument("--throughput-requests", type=int, help="requests of the throughput run (default 1000)")
    parser.add_argument("--no-server", action="store_true", help="skip the gunicorn measurements")
    parser.add_argument("--only", nargs="*", default=None, help="only these scenarios")
    args = parser.parse_args(argv)
    if args.json is None:
        args.json = PARTIAL_JSON if args.quick or args.no_server or args.only else DEFAULT_JSON
    args.repeat = args.repeat or (5 if args.quick else 40)
    args.cold_repeat = args.cold_repeat or (2 if args.quick else 7)
    args.clients = args.clients or 8
    args.requests = args.requests or (6 if args.quick else 60)
    args.throughput_requests = args.throughput_requests or (30 if args.quick else 1000)

    items = scenarios.all_scenarios(quick=args.quick)
    if args.only:
        items = [s for s in items if s.name in args.only]
    info = conditions(args)
    started = time.perf_counter()
    rows = []
    for s in items:
        print(f"measuring {s.name} ...", file=sys.stderr, flush=True)
        rows.append(measure(s, repeat=args.repeat, cold_repeat=args.cold_repeat))
    api = None
    if not args.no_server:
        print("measuring the API under gunicorn ...", file=sys.stderr, flush=True)
        api = measure_api(rows, items, args)
    result = {"conditions": info, "scenarios": rows, "api": api, "targets": targets(rows, api),
              "freshCelStage": fresh_overhead(rows), "seconds": time.perf_counter() - started}

    print(table(rows))
    print()
    if api:
        peak = [p for p in api["workerPeakRssMb"] if p is not None]
        if api.get("throughput"):
            t = api["throughput"]
            print(f"throughput: {t['perSecond']:.0f} warm evaluations/s ({api['workers']} workers, "
                  f"{api['clients']} clients, gallery mix; p50 {t['p50Ms']:.1f} ms, p95 {t['p95Ms']:.1f} ms, "
                  f"p99 {t['p99Ms']:.1f} ms)")
        if peak:
            print("peak memory per gunicorn worker (RSS): " + ", ".join(f"{p:.0f} MiB" for p in peak))
        evaluation_peak = [p for p in api.get("evaluationWorkerPeakRssMb", []) if p is not None]
        if evaluation_peak:
            print(f"peak memory per evaluation worker (RSS, {len(evaluation_peak)} workers): "
                  f"median {statistics.median(evaluation_peak):.0f} MiB, largest {max(evaluation_peak):.0f} MiB")
    for t in result["targets"]:
        print(f"[{'met' if t['met'] else 'MISSED'}] {t['target']}: {t['value']:.2f} ({t['detail']})")
    fresh = result["freshCelStage"]
    if fresh:
        print(f"[info] warm: CEL stage with values converted afresh (\"fresh x\": no values kept from the "
              f"evaluation before): median {fresh['median']:.2f}x, worst {fresh['worst']:.2f}x "
              f"({fresh['worstScenario']}), {fresh['within']}/{fresh['of']} within {TARGET_WARM}x")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(result, indent=2) + "\n")
    print(f"\nwritten to {args.json}")
    if args.json.resolve() == DEFAULT_JSON and report.DOCS.exists():
        report.write(DEFAULT_JSON, report.DOCS)  # the page's table is made from the results file, never by hand
        print(f"and shown in {report.DOCS}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
