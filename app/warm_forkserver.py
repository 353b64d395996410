"""Imported by the evaluation workers' fork server (app/isolation.py), and only there: warms the caches
that every worker forked from it inherits. Nothing here may fail the import: a fork server that
cannot warm up still forks working workers.
"""

import sys

from .warm import warm

try:
    warm()
except Exception as exc:  # noqa: BLE001 - never fail the fork server's start
    print(f"warming the evaluation caches failed: {exc!r}", file=sys.stderr)
