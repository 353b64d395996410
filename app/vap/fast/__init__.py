"""The seam for speed: every cache and reuse that outlives one evaluation, one registry, one switch.

The rest of the core is written as the apiserver is: an evaluation works out what it needs from its
inputs and passes it along. What this package keeps between evaluations changes no answer, only how
long it takes:

* memoised pure functions (:func:`memo`): compiled expressions, CEL environments, parsed regular
  expressions and URLs, type-checking results, ...;
* what was worked out from an object, by the object's identity (:class:`ByIdentity`): the request's
  copy of a pasted object, its conversion to a matched kind;
* the documents of pane texts read before (:mod:`.panes`), the values of a policy's last evaluation
  converted for the engine (:mod:`.kept`), cost estimates by input shape (:mod:`.cost`).

Besides these caches, the core takes a few shortcuts that the switch also governs (each site reads
:data:`on`): inputs cut down to what a policy's expressions read, one engine activation shared by a
group of expressions, environments declaring only what a policy's expressions may call, programs
naming ``request`` run where they were type-checked, explanation parts that are field paths or plain tests
of them read in Python (:mod:`.parts`), checks against the kinds' schemas made in the environment a scenario's
expressions are checked and run in, its typed roots declared there under names of the playground's own
(``app.vap.cel.Aliases``).

:func:`clear` forgets everything registered (the next evaluation is a first one); :func:`plain` turns
the switch off for a block: nothing is reused between evaluations and every shortcut takes the plain
way. The equivalence test evaluates every scenario both ways and compares the answers.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from typing import Any, Generic, TypeVar

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])

on = True
"""The switch: False while :func:`plain` is in force. Read as ``fast.on`` at each use."""

_REGISTRY: dict[str, Callable[[], None]] = {}


def register(name: str, clear: Callable[[], None]) -> None:
    """Note a cache (its ``clear``) under a name: :func:`clear` empties it. A name registered again (a
    module reloaded) replaces the former entry."""
    _REGISTRY[name] = clear


def registered() -> list[str]:
    """The names of every registered cache, in registration order."""
    return list(_REGISTRY)


def clear() -> None:
    """Forget everything kept between evaluations."""
    for clear_one in list(_REGISTRY.values()):
        clear_one()


@contextmanager
def plain() -> Iterator[None]:
    """Within the block, reuse nothing between evaluations and take no shortcut; everything kept is
    forgotten on entry and on exit."""
    global on
    was = on
    clear()
    on = False
    try:
        yield
    finally:
        on = was
        clear()


def memo(maxsize: int | None = 128, *, name: str | None = None) -> Callable[[F], F]:
    """``functools.lru_cache`` for a pure function of what an evaluation reads, registered here."""

    def decorate(function: F) -> F:
        cached = lru_cache(maxsize=maxsize)(function)
        register(name or f"{function.__module__}.{function.__qualname__}", cached.cache_clear)
        return cached  # type: ignore[return-value]

    return decorate


class ByIdentity(Generic[T]):
    """What was worked out from recent objects, by each object's identity (and an optional key), the
    oldest first out past ``maxsize``. Each entry holds its object, so that no id is reused while it is
    kept; the objects are never changed once read (documents and request copies are shared, not
    modified). Nothing is found or kept while the switch is off."""

    def __init__(self, name: str, maxsize: int) -> None:
        self.maxsize = maxsize
        self._entries: dict[tuple[int, Any], tuple[Any, T]] = {}
        self._lock = threading.Lock()
        register(name, self.clear)

    def get(self, obj: Any, key: Any = None) -> T | None:
        if not on:
            return None
        seen = self._entries.get((id(obj), key))
        if seen is None or seen[0] is not obj:
            return None
        return seen[1]

    def put(self, obj: Any, value: T, key: Any = None) -> None:
        if not on:
            return
        with self._lock:
            self._entries.pop((id(obj), key), None)
            while len(self._entries) >= self.maxsize:
                self._entries.pop(next(iter(self._entries)), None)  # the oldest
            self._entries[(id(obj), key)] = (obj, value)

    def discard(self, obj: Any, key: Any = None) -> None:
        with self._lock:
            seen = self._entries.get((id(obj), key))
            if seen is not None and seen[0] is obj:
                del self._entries[(id(obj), key)]

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)
