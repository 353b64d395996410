"""Warm compile caches for the evaluation workers, and the gallery as API bodies.

The workers' fork server (app/isolation.py) imports app.warm_forkserver, which calls :func:`warm`:
every gallery example is evaluated a few times, so the CEL environments, compiled expressions and the
code generated for their later evaluations are in memory, and every worker forked afterwards starts
with them. Importing this module does nothing.
"""

from __future__ import annotations

import sys
from typing import Any

from . import examples, vap
from .vap.fast import kept


def example_bodies() -> list[dict[str, Any]]:
    """The JSON API bodies of the gallery examples, as the page would send them."""
    bodies = []
    for example in examples.all_examples():
        body: dict[str, Any] = {pane: text for pane, text in example.panes.items() if text}
        if example.kubernetes_version:
            body["kubernetesVersion"] = example.kubernetes_version
        if example.operation:
            request = body.get("request", "")
            body["request"] = f"{request}\noperation: {example.operation}\n" if request else \
                f"operation: {example.operation}\n"
        bodies.append(body)
    return bodies


# Evaluations of each example: code generated for a policy's later evaluations (pruning its inputs from the
# third, looking its costs up from the sixth: app.vap.reach, app.vap.fast.cost) is then made before workers fork.
WARM_ROUNDS = 6


def warm() -> int:
    """Evaluate every gallery example WARM_ROUNDS times; return how many evaluated cleanly."""
    done = 0
    for body in example_bodies():
        try:
            for _ in range(WARM_ROUNDS):
                kept.clear()  # each round converts its values, as a worker's first evaluation does
                vap.evaluate(body)
            done += 1
        except Exception as exc:  # noqa: BLE001 - warming is best effort
            print(f"warming the evaluation caches: {exc!r}", file=sys.stderr)
    kept.clear()
    return done

