"""The benchmark's results as Markdown in docs/benchmark.md: ``python -m benchmarks.report [--check]``.

The part of docs/benchmark.md between :data:`START` and :data:`END` is made here from
``benchmarks/results.json`` (the run's conditions, a row per scenario, throughput, memory and the
targets), so the page never shows figures other than those of the results file. ``python -m
benchmarks`` rewrites it after each run that writes the default results file; ``--check`` only says
whether the page is up to date (exit status 1 when it is not), as the tests do.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results.json"
DOCS = ROOT / "docs" / "benchmark.md"
START = "<!-- benchmark-results:start (made by python -m benchmarks.report from benchmarks/results.json) -->"
END = "<!-- benchmark-results:end -->"


def _num(value: float | None, digits: int) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def _range(values: list[float], digits: int = 0, unit: str = " MiB") -> str:
    low, high = f"{min(values):.{digits}f}", f"{max(values):.{digits}f}"
    return f"{low}{unit}" if low == high else f"{low} to {high}{unit}"


def table(rows: list[dict[str, Any]]) -> str:
    """One Markdown row per scenario (the API columns only when the run measured them)."""
    api = any("apiP50Ms" in r for r in rows)
    head = ["scenario", "cold", "bare cold", "x", "warm", "CEL stage", "bare warm", "CEL x", "fresh x"]
    if api:
        head += ["API p50", "p95"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        cel = r.get("evaluations", 1) > 0  # no expression evaluated: no CEL stage to compare
        cells = [r["name"], _num(r["coldMs"], 1), _num(r["bareColdMs"], 1), _num(r.get("coldRatio"), 1),
                 _num(r["warmMs"], 2), _num(r["celStageMs"] if cel else None, 3),
                 _num(r["bareWarmMs"] if cel else None, 3), _num(r.get("celStageRatio") if cel else None, 2),
                 _num(r.get("celStageFreshRatio") if cel else None, 2)]
        if api:
            cells += [_num(r.get("apiP50Ms"), 1), _num(r.get("apiP95Ms"), 0)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def render(result: dict[str, Any]) -> str:
    """The generated part of docs/benchmark.md for one results file, markers excluded."""
    c = result.get("conditions") or {}
    rows = result.get("scenarios") or []
    load = c.get("loadAverageAtStart")
    out = [
        f"Run of {c.get('date', '?')} at commit `{c.get('commit') or '?'}`: {c.get('cpus', '?')} CPUs "
        f"({c.get('machine', '?')}), Python {c.get('python', '?')}"
        + (f", load average {load[0]:.2f} at the start" if load else "")
        + f"; medians of {c.get('repeat', '?')} warm and {c.get('coldRepeat', '?')} cold repeats per scenario"
        + (" (a quick run)" if c.get("quick") else "") + ". Milliseconds; \"x\" is playground / bare engine.",
        "",
        table(rows),
    ]
    if any(r.get("evaluations", 1) == 0 for r in rows):
        out += ["", "\"-\": the scenario evaluates no expression (a compile error, no params, not matched)."]
    gallery_bare = [r["bareColdMs"] for r in rows if r.get("group") == "gallery"]
    if gallery_bare:
        out += ["", f"Over the gallery the bare engine's cold times range from {_range(gallery_bare, 1, ' ms')}."]
    api = result.get("api")
    if api:
        facts = []
        t = api.get("throughput")
        if t:
            workers = api.get("workers", 1)
            facts.append(f"Throughput: {t['perSecond']:,.0f} warm evaluations/s on {workers} gunicorn "
                         f"worker{'s' if workers != 1 else ''} with {'its' if workers == 1 else 'their'} "
                         f"evaluation workers ({api.get('clients', '?')} clients, gallery mix, {t['requests']:,} "
                         f"requests, {t['errors']} errors; p50 {t['p50Ms']:.1f} ms, p95 {t['p95Ms']:.1f} ms, "
                         f"p99 {t['p99Ms']:.1f} ms).")
        peak = [p for p in api.get("workerPeakRssMb") or [] if p is not None]
        evaluation_peak = [p for p in api.get("evaluationWorkerPeakRssMb") or [] if p is not None]
        if peak or evaluation_peak:
            parts = []
            if peak:
                parts.append(f"{_range(peak)} per gunicorn worker")
            if evaluation_peak:
                parts.append(f"{_range(evaluation_peak)} per evaluation worker ({len(evaluation_peak)} workers)")
            facts.append("Peak memory (RSS): " + ", ".join(parts) + ".")
        if facts:
            out += ["", " ".join(facts)]
    targets = result.get("targets") or []
    if targets:
        out += ["", "Targets in this run:", ""]
        for t in targets:
            out.append(f"- **{'met' if t['met'] else 'missed'}**: {t['target']}: {t['value']:.2f} ({t['detail']})")
    fresh = result.get("freshCelStage")
    if fresh:  # measured against the warm target's bound
        bound = next((t["limit"] for t in targets if "CEL stage" in t["target"]), 1.5)
        out += ["", f"\"fresh x\" (the warm CEL stage with no values kept from the evaluation before; not a target): "
                    f"median {fresh['median']:.2f}x, worst {fresh['worst']:.2f}x ({fresh['worstScenario']}), "
                    f"{fresh['within']} of {fresh['of']} gallery scenarios within {bound}x."]
    return "\n".join(out)


def update(text: str, result: dict[str, Any]) -> str:
    """``text`` (a page holding the markers) with the part between them made from ``result``."""
    head, start, rest = text.partition(START)
    body, end, tail = rest.partition(END)
    if not start or not end:
        raise ValueError(f"the page has no {START!r} ... {END!r} markers")
    return f"{head}{START}\n{render(result)}\n{END}{tail}"


def write(results: Path = RESULTS, docs: Path = DOCS) -> bool:
    """Rewrite the results part of ``docs`` from ``results``; True when it changed."""
    text = docs.read_text()
    new = update(text, json.loads(results.read_text()))
    if new != text:
        docs.write_text(new)
    return new != text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.report", description=__doc__.split("\n")[0])
    parser.add_argument("--json", type=Path, default=RESULTS, help=f"results file (default {RESULTS})")
    parser.add_argument("--docs", type=Path, default=DOCS, help=f"page to update (default {DOCS})")
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 when the page is out of date")
    args = parser.parse_args(argv)
    if args.check:
        text = args.docs.read_text()
        if update(text, json.loads(args.json.read_text())) != text:
            print(f"{args.docs} does not show {args.json}: run python -m benchmarks.report", file=sys.stderr)
            return 1
        return 0
    changed = write(args.json, args.docs)
    print(f"{args.docs} {'updated' if changed else 'already up to date'} from {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
