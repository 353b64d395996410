"""The explanations of a policy's last evaluation (app/vap/explain.py), kept for the next one.

An explanation of a false or failed expression evaluates parts of it again; for unchanged documents (the same
policy, object, oldObject and params, and a request and Namespaces equal to the last ones) it is the same every
time, as long as the authorizer answers the checks it made as it did. This module keeps them per policy, params
and thread (forgotten with the kept values, :func:`app.vap.fast.kept.clear`), and gives them back only then. Part of
the speed seam (:mod:`app.vap.fast`): while the switch is off nothing is kept.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import fast
from . import kept as keeping

_MAX = 16  # policies (with their params) whose explanations are kept, per thread

Lines = list[dict[str, Any]]
# what an explanation asked the authorizer: (attributes, answer) pairs
Asked = list[tuple[dict[str, Any], tuple[Any, ...]]]


class Explained:
    """The explanations made for one policy's evaluation of some documents, by the expression they explain
    (kind, index), each with the authorizer checks it made."""

    __slots__ = ("policy", "object", "old_object", "params", "seen", "lines", "inputs")

    def __init__(self, policy: Any, inv: Any, seen: tuple[Any, ...]) -> None:
        self.policy = policy
        self.object, self.old_object, self.params = inv.object, inv.old_object, inv.params
        self.seen = seen
        self.lines: dict[Any, tuple[Lines, Asked]] = {}
        self.inputs: Any = None  # the kept inputs (app.vap.fast.kept) of the last evaluation found to match


def kept(policy: Any, inv: Any, seen: tuple[Any, ...], inputs: Any = None) -> Explained | None:
    """The explanations kept for this policy's evaluation of these documents (``seen``: the request and
    Namespaces as the policy reads them), made afresh (empty) when any differ; None while the switch is off.

    ``inputs``: the evaluation's inputs; when they are the very values kept from an evaluation these explanations
    matched (:func:`app.vap.fast.kept.reuse` found its request and Namespaces unchanged), ``seen`` is not compared
    again."""
    if not fast.on:
        return None
    entries = keeping.here("explained")
    key = (id(policy), id(inv.params))
    entry = entries.get(key)
    if (entry is None or entry.policy is not policy or entry.object is not inv.object
            or entry.old_object is not inv.old_object or entry.params is not inv.params):
        entry = _made(entries, key, policy, inv, seen)
    elif inputs is None or entry.inputs is not inputs:
        if len(entry.seen) != len(seen) or not all(map(keeping.identical, entry.seen, seen)):
            entry = _made(entries, key, policy, inv, seen)
    entry.inputs = inputs
    return entry


def _made(entries: dict[Any, Explained], key: Any, policy: Any, inv: Any, seen: tuple[Any, ...]) -> Explained:
    entries.pop(key, None)
    if len(entries) >= _MAX:
        del entries[next(iter(entries))]  # the oldest
    entry = entries[key] = Explained(policy, inv, seen)
    return entry


def explanation(entry: Explained | None, key: Any, make: Callable[[], tuple[Lines, Asked]],
                answers_alike: Callable[[Asked], bool]) -> Lines:
    """The explanation of one expression: kept in ``entry`` when the authorizer answers the checks it made alike
    (``answers_alike``), else made (``make``: its lines and the checks it asked) and kept. Its lines are shared
    with the next evaluations: their readers never change them."""
    if entry is None:
        return make()[0]
    found = entry.lines.get(key)
    if found is None or (found[1] and not answers_alike(found[1])):
        found = entry.lines[key] = make()
    return list(found[0])
