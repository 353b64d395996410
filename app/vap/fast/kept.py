"""The values of a policy's last evaluation, converted for the CEL engine, kept for the next one.

An evaluation converts object, oldObject, request, params and the Namespace into engine values
before any expression runs; for an unchanged document (a pane read from the cache, the params of a
binding) that conversion is the same every time. This module keeps it per policy, params and thread
(an engine activation is never shared between threads), so that the next evaluation of the same
documents skips it. Part of the speed seam (:mod:`app.vap.fast`): while the switch is off nothing is
kept or reused.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from typing import Any

from .. import cel, fast


class Kept:
    """The validations' values of one evaluation of a policy, converted into engine values, kept for the
    next evaluation of the same documents: an unchanged object (a pane read from its cache, the params
    of a binding) is converted once, not on every evaluation. The engine allocates what it evaluates in
    the activation's memory too, which is freed only with the activation: after some time spent
    evaluating on it (``spent``, seconds: the engine allocates at most a few kB per microsecond) it is
    made afresh. So is one on which a cost could not be estimated.

    Documents evaluated for the first time are only noted (``activation`` None): values are kept on their
    second evaluation, so that evaluations of documents edited each time (which would never reuse them)
    do not pay for keeping them."""

    __slots__ = ("key", "policy", "object", "old_object", "params", "inputs", "activation", "spent", "matching",
                 "matched_resource")

    def __init__(self, key: tuple[int, int], policy: Any, inv: Any,
                 inputs: dict[str, Any] | None, activation: cel.Activation | None) -> None:
        self.key, self.policy = key, policy
        self.object, self.old_object, self.params = inv.object, inv.old_object, inv.params
        self.inputs, self.activation = inputs, activation  # (the activation's values: inputs and the Namespace)
        self.spent = 0.0
        # the matchConditions' values (see matching), and the request's original resource they hold
        self.matching: cel.Activation | None = None
        self.matched_resource: Any = None


# Per thread (an engine activation belongs to the thread that made it, and is never handed to another: a
# thread's identifier can be reused by a new thread once it ends, its thread-local values cannot):
# (ids of the policy and the params) -> what was kept; each holds its policy and documents, so that no id is
# reused while it is kept.
_LOCAL = threading.local()
_GENERATION = [0]  # bumped by clear(): a thread's entries of an earlier generation are forgotten
_KEPT_MAX = 16
_KEPT_SECONDS = 0.00025  # evaluating on a kept activation before it is made afresh (its memory: < 1 MB)
_KEPT_SIZE = 2_000  # the size of a kept activation's inputs, at most (see _small)


def clear() -> None:
    """Forget the values kept for later evaluations (in every thread: another thread's at its next use; the calling
    thread's at once, as the other caches empty, rather than during its next evaluation)."""
    _GENERATION[0] += 1
    local = _LOCAL.__dict__
    local.clear()
    local["generation"] = _GENERATION[0]


def kept_here() -> dict[tuple[int, int], Kept]:
    """This thread's kept values."""
    return here("entries")


def here(name: str) -> dict[Any, Any]:
    """This thread's entries of one kind (``name``), forgotten by :func:`clear` with the kept values."""
    local = _LOCAL.__dict__
    if local.get("generation") != _GENERATION[0]:
        local.clear()
        local["generation"] = _GENERATION[0]
    entries = local.get(name)
    if entries is None:
        entries = local[name] = {}
    return entries


fast.register("validator.kept", clear)


def _noted(policy: Any, inv: Any) -> tuple[tuple[int, int], Kept | None]:
    """The key of this policy's entry for the thread, and the entry when it notes the same documents
    (kept values, or a note of their first evaluation)."""
    key = (id(policy), id(inv.params))
    entry = kept_here().get(key)
    if (entry is None or entry.policy is not policy or entry.object is not inv.object
            or entry.old_object is not inv.old_object or entry.params is not inv.params):
        return key, None
    return key, entry


def reuse(policy: Any, pruners: tuple[Callable[[Any], Any] | None, ...], inv: Any) -> Kept | None:
    """The kept values of this policy's last evaluation with the same documents, when its request and
    Namespace, as the policy reads them, are the same too (never while the switch is off)."""
    if not fast.on:
        return None
    kept = _noted(policy, inv)[1]
    if kept is None or kept.activation is None:
        return None
    request, namespace = pruners[2], pruners[4]
    if request is not None and not _identical(request(inv.request), kept.inputs["request"]):
        return None
    if namespace is not None and not _identical(namespace(inv.namespace_object),
                                                kept.activation.data["namespaceObject"]):
        return None
    return kept


def _identical(a: Any, b: Any) -> bool:
    """Whether two values are the same to CEL, as its engine would convert them: of the same types
    (1, 1.0 and true are equal in Python), maps with their keys in the same order (the order they were
    given in, which the engine may follow), floats of the same sign. False is never wrong: they are then
    converted again."""
    if a is b:
        return True
    cls = a.__class__
    if cls is not b.__class__:
        return False
    if cls is dict:
        if len(a) != len(b):
            return False
        for (key, value), (other_key, other) in zip(a.items(), b.items(), strict=True):
            if key is not other_key and (key.__class__ is not other_key.__class__ or key != other_key):
                return False
            if value is not other and not _identical(value, other):
                return False
        return True
    if cls is list:
        return len(a) == len(b) and all(map(_identical, a, b))
    if cls is float:
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    return bool(a == b)


identical = _identical  # (public: app.vap.fast.explained compares requests with it)


def keep(policy: Any, pruners: tuple[Callable[[Any], Any] | None, ...], inv: Any,
         inputs: dict[str, Any]) -> Kept | None:
    """The validations' values (of a policy reading no authorizer) in an activation kept for the next
    evaluation; None when they are too large to keep, or when these documents were not evaluated with the
    policy just before (they are then noted, and kept on their next evaluation), and while the switch is
    off."""
    if not fast.on:
        return None
    key, seen = _noted(policy, inv)
    if seen is None:
        _note(key, Kept(key, policy, inv, None, None))
        return None
    prune_namespace = pruners[4]
    values = inputs if prune_namespace is None else {**inputs,
                                                     "namespaceObject": prune_namespace(inv.namespace_object)}
    if _small(values, _KEPT_SIZE) < 0:
        return None
    activation = cel.Activation(values)
    activation.costs = {}
    kept = Kept(key, policy, inv, inputs, activation)
    _note(key, kept)
    return kept


def matching(kept: Kept, original_resource: Any, values: Callable[[], dict[str, Any]]) -> cel.Activation:
    """The matchConditions' values (the kept inputs, the request with its original resource, no Namespace) in an
    activation kept with the validations' one: made from ``values`` when none is kept for this original resource."""
    if kept.matching is None or not _identical(kept.matched_resource, original_resource):
        kept.matching = cel.Activation(values())
        kept.matching.costs = {}
        kept.matched_resource = original_resource
    return kept.matching


def _note(key: Any, kept: Any, entries: dict[Any, Any] | None = None) -> None:
    """Note ``kept`` under ``key`` in this thread's entries (``entries``: of another kind than :class:`Kept`), the
    oldest forgotten past the bound."""
    entries = kept_here() if entries is None else entries
    entries.pop(key, None)
    if len(entries) >= _KEPT_MAX:
        del entries[next(iter(entries))]  # the oldest
    entries[key] = kept


def _small(value: Any, room: int) -> int:
    """``room`` less the size of ``value`` (one per value, and one more per 64 characters of a string);
    negative once it runs out."""
    room -= 1
    if room < 0:
        return room
    if value.__class__ is str:
        room -= len(value) >> 6
    elif value.__class__ is dict:
        for item in value.values():
            room = _small(item, room)
            if room < 0:
                break
    elif value.__class__ is list:
        for item in value:
            room = _small(item, room)
            if room < 0:
                break
    return room


def spend(kept: Kept, seconds: float) -> None:
    """Count ``seconds`` of evaluating on ``kept``: past its allowance its activation is made afresh on
    the next evaluation of the same documents; one whose cost could not be estimated is forgotten."""
    kept.spent += seconds
    unknown = (kept.activation is not None and kept.activation.costs is None) or (
        kept.matching is not None and kept.matching.costs is None)
    if not unknown and kept.spent <= _KEPT_SECONDS:
        return
    entries = kept_here()
    if entries.get(kept.key) is kept:
        if unknown:
            del entries[kept.key]
        else:  # made afresh on the next evaluation of the same documents
            kept.inputs = kept.activation = kept.matching = None
            kept.spent = 0.0


class KeptValues:
    """The values of one group of expressions (a MutatingAdmissionPolicy's matchConditions, or one of its
    mutations with the variables it reads) in an activation kept for the next evaluation of the same
    documents (``documents``, by identity) with the same request and Namespace (``compared``, alike to
    CEL). Like :class:`Kept`, noted on a first evaluation, kept on the second, made afresh after some time
    spent evaluating on it, forgotten when a cost on it could not be estimated."""

    __slots__ = ("key", "owner", "documents", "compared", "activation", "spent", "too_large")

    def __init__(self, key: tuple[int, Any], owner: Any, documents: tuple[Any, ...],
                 compared: tuple[Any, ...]) -> None:
        self.key, self.owner, self.documents, self.compared = key, owner, documents, compared
        self.activation: cel.Activation | None = None
        self.spent = 0.0
        self.too_large = False  # (the values of these documents are over the size bound: never kept)


def values(owner: Any, group: Any, documents: tuple[Any, ...], compared: tuple[Any, ...],
           make: Callable[[], dict[str, Any]]) -> tuple[dict[str, Any] | cel.Activation, KeptValues | None]:
    """The values ``make`` gives, for the expressions ``group`` of ``owner`` (a compiled policy): the activation
    kept from their last evaluation when it had the same documents and request and Namespace, else ``make()``
    (kept for the next evaluation when it is the second of these documents running, and small enough); and what
    keeps them, to :func:`spend` the time evaluating on them (None: nothing is kept)."""
    if not fast.on:
        return make(), None
    entries = here("values")
    key = (id(owner), group)
    entry = entries.get(key)
    if (entry is None or entry.owner is not owner or len(entry.documents) != len(documents)
            or any(a is not b for a, b in zip(entry.documents, documents, strict=True))
            or not all(map(_identical, entry.compared, compared))):
        _note(key, KeptValues(key, owner, documents, compared), entries)
        return make(), None
    if entry.too_large:
        return make(), None
    if entry.activation is None:
        made = make()
        if _small(made, _KEPT_SIZE) < 0:
            entry.too_large = True
            return made, None
        entry.activation = cel.Activation(made)
        entry.activation.costs = {}
    return entry.activation, entry


def spend_values(kept: KeptValues, seconds: float) -> None:
    """:func:`spend` for :class:`KeptValues`."""
    kept.spent += seconds
    if kept.activation is None:
        return
    entries = here("values")
    if entries.get(kept.key) is not kept:
        return
    if kept.activation.costs is None:
        del entries[kept.key]
    elif kept.spent > _KEPT_SECONDS:
        kept.activation = None
        kept.spent = 0.0
