"""The documents of pane texts read before: a pane pasted again is not parsed again.

Kept between evaluations, so part of the speed seam (see :mod:`app.vap.fast`).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from .. import fast
from .. import limits as bounds


class PaneCache:
    """The documents of recently read pane texts, least recently used first out, within a budget of
    text characters (a pane above a quarter of it is read every time).

    Only panes read without a problem are kept, with what they used of the scenario's bounds: a
    pane taken from the cache counts the same against the scenario as reading it again would, and
    when that would go over a bound the pane is read again, so the problem names its place. The
    documents are shared between evaluations: nothing may modify a document's value (every stage
    that changes one works on a copy).
    """

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self._entries: OrderedDict[tuple[str, str], tuple[list[Any], bounds.Limits, tuple[int, ...]]] = (
            OrderedDict())
        self._size = 0
        self._lock = threading.Lock()

    def get(self, pane: str, source: str, usage: bounds.Usage) -> list[Any] | None:
        if not fast.on:
            return None
        with self._lock:
            entry = self._entries.get((pane, source))
            if entry is None:
                return None
            self._entries.move_to_end((pane, source))
        documents, limits, used = entry
        if limits != usage.limits or not usage.add(used):
            return None
        return list(documents)

    def put(self, pane: str, source: str, documents: list[Any], usage: bounds.Usage,
            before: tuple[int, ...]) -> None:
        if not fast.on or len(source) > self.budget // 4:
            return
        used = tuple(after - was for after, was in zip(usage.counts(), before, strict=True))
        with self._lock:
            if (pane, source) not in self._entries:
                self._entries[(pane, source)] = (list(documents), usage.limits, used)
                self._size += len(source)
            while self._size > self.budget and self._entries:
                (_, old), _ = self._entries.popitem(last=False)
                self._size -= len(old)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._size = 0


# 8 MB of pane text: the panes of hundreds of scenarios, or a few 1 MB objects
PANES = PaneCache(8 * 1024 * 1024)
fast.register("documents.panes", PANES.clear)
