"""Warm compile caches for the evaluation workers, and the gallery as API bodies.

The workers' fork server (app/isolation.py) imports app.warm_forkserver, which calls :func:`warm`:
every gallery example is evaluated once, so the CEL environments and compiled expressions they use
are in memory, and every worker forked afterwards starts with them. Importing this module does nothing.
"""

from __future__ import annotations

import sys
from typing import Any

from . import examples, vap


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


def warm() -> int:
    """Evaluate every gallery example once; return how many evaluated cleanly."""
    done = 0
    for body in example_bodies():
        try:
            vap.evaluate(body)
            done += 1
        except Exception as exc:  # noqa: BLE001 - warming is best effort
            print(f"warming the evaluation caches: {exc!r}", file=sys.stderr)
    return done

