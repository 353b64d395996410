"""The estimated cost of an expression, worked out once per program and input shape.

The cost estimate (:func:`library.expression_cost`) walks the expression's AST in Python on every
evaluation, which takes longer than the engine's evaluation itself. What the walk reads of the input
is little: the size of a list it ranges over, its first element, the length of a string. So the
third estimate for a program (the first two are plain walks) runs over recording views of the input,
which note each value the walk obtains (where, and its type and size, or its value for a scalar);
the cost is stored under those observations. Later evaluations look the same places up in their own
input: when everything the walk would see is the same, so is the estimate (the walk sees the input
only through those reads), and the stored number is used. Anything else runs the walk again.

A program whose recorded estimate differs from a plain one (a walk that looks at the input in a way
the views do not reproduce) is never cached.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Mapping
from typing import Any

from .. import fast
from ..cel import library

_MISSING = object()
_ABSENT = ("absent",)
_RAISED = ("raised",)


def _summary(value: Any) -> Any:
    """What the walk can tell of a value without reading further: a container's type (its length
    and contents are reads of their own), a scalar's type and value."""
    if isinstance(value, dict):
        return "d"
    if isinstance(value, list):
        return "l"
    if value is None or isinstance(value, str | bytes | bool | int | float):
        return (type(value), value)
    return (type(value), None)


# A read: (index of the read that handed out the container it reads from, or -1 for the input itself;
# operation; argument). Operations: get(key), item(key), in(key), len, key(i) (i-th key), elem(i).
Read = tuple[int, str, Any]


class _Recorder:
    def __init__(self) -> None:
        self.reads: list[Read] = []
        self.seen: list[Any] = []
        self._index: dict[Read, int] = {}

    def note(self, parent: int, op: str, arg: Any, value: Any, seen: Any = None) -> int:
        read = (parent, op, arg)
        try:
            known = self._index.get(read)
        except TypeError:  # an unhashable argument: never the same read twice
            known = None
        if known is not None:  # the same read again (the input does not change during a walk)
            return known
        self.reads.append(read)
        self.seen.append(_summary(value) if seen is None else seen)
        index = len(self.reads) - 1
        try:
            self._index[read] = index
        except TypeError:
            pass
        return index

    def handed(self, parent: int, op: str, arg: Any, value: Any) -> Any:
        index = self.note(parent, op, arg, value)
        return self.view(index, value)

    def view(self, index: int, value: Any) -> Any:
        if isinstance(value, dict):
            return _DictView(value, index, self)
        if isinstance(value, list):
            return _ListView(value, index, self)
        return value


class _Reads:
    """What both views share: reads through to the input, each one noted."""

    _real: Any
    _index: int
    _rec: _Recorder

    def _setup(self, real: Any, index: int, recorder: _Recorder) -> None:
        self._real, self._index, self._rec = real, index, recorder

    def __len__(self) -> int:
        n = len(self._real)
        self._rec.note(self._index, "len", None, None, n)
        return n

    def __bool__(self) -> bool:
        return len(self) > 0

    def __contains__(self, key: object) -> bool:
        found = key in self._real
        self._rec.note(self._index, "in", key, None, found)
        return found

    def __getitem__(self, key: Any) -> Any:
        arg = (key.start, key.stop, key.step) if isinstance(key, slice) else key
        try:
            value = self._real[key]
        except Exception:
            self._rec.note(self._index, "item", arg, None, _RAISED)
            raise
        return self._rec.handed(self._index, "item", arg, value)


class _DictView(_Reads, dict):
    """A dict that reads through to the input, noting every read."""

    def __init__(self, real: dict, index: int, recorder: _Recorder) -> None:
        super().__init__()
        self._setup(real, index, recorder)

    def get(self, key: Any, default: Any = None) -> Any:
        value = self._real.get(key, _MISSING)
        if value is _MISSING:
            self._rec.note(self._index, "get", key, None, _ABSENT)
            return default
        return self._rec.handed(self._index, "get", key, value)

    def __iter__(self) -> Any:
        len(self)
        for i, key in enumerate(self._real):
            yield self._rec.handed(self._index, "key", i, key)

    def keys(self) -> Any:
        return list(iter(self))

    def values(self) -> Any:
        return [self[k] for k in self.keys()]

    def items(self) -> Any:
        return [(k, self[k]) for k in self.keys()]


class _ListView(_Reads, list):
    """A list that reads through to the input, noting every read."""

    def __init__(self, real: list, index: int, recorder: _Recorder) -> None:
        super().__init__()
        self._setup(real, index, recorder)

    def __iter__(self) -> Any:
        len(self)
        for i, value in enumerate(self._real):
            yield self._rec.handed(self._index, "elem", i, value)


def _observe(data: Mapping[str, Any], reads: list[Read]) -> tuple[Any, ...]:
    """What the walk would observe of this input, were it to make the same reads."""
    values: list[Any] = []
    seen: list[Any] = []
    for parent, op, arg in reads:
        base = data if parent < 0 else values[parent]
        value: Any = _MISSING
        if base is _MISSING:
            s: Any = _MISSING
        elif op == "get":
            value = base.get(arg, _MISSING) if isinstance(base, dict) else _MISSING
            s = _ABSENT if value is _MISSING else _summary(value)
        elif op == "len":
            s = len(base)
        elif op == "in":
            try:
                s = arg in base
            except Exception:  # noted as a read, never raised by the view either
                s = _RAISED
        elif op == "item":
            try:
                value = base[slice(*arg) if isinstance(arg, tuple) else arg]
                s = _summary(value)
            except Exception:
                value, s = _MISSING, _RAISED
        elif op == "key":
            value = next(itertools.islice(iter(base), arg, None), _MISSING)
            s = _summary(value) if value is not _MISSING else _MISSING
        else:  # elem
            value = base[arg] if arg < len(base) else _MISSING
            s = _summary(value) if value is not _MISSING else _MISSING
        values.append(value)
        seen.append(s)
    return tuple(seen)


# Reads beyond this many are observed by the loop above rather than generated code.
_GENERATED_READS = 1000


_LITERAL_TYPES = (str, int, bool, type(None))
# values whose summary is (class, value): the exact classes _summary gives that for
_SCALARS = frozenset((str, bytes, bool, int, float, type(None)))


def _literal(value: Any) -> bool:
    """Whether a read's argument can enter generated source as its ``repr`` (a constant of the code)."""
    return value.__class__ in _LITERAL_TYPES


def observer(reads: list[Read]) -> Callable[[Mapping[str, Any]], tuple[Any, ...]]:
    """``lambda data: _observe(data, reads)`` as straight-line Python (made once per shape, called on
    every evaluation): the same tuple, without the loop's dispatch on each read's operation. Arguments
    are constants of the code, the names it uses are its own locals, and the summary of a container or
    of a scalar of an exact JSON class is worked out inline."""
    if len(reads) > _GENERATED_READS:
        return lambda data: _observe(data, reads)
    args: list[Any] = []
    lines = ["def observe(data, MISSING=MISSING, ABSENT=ABSENT, RAISED=RAISED, summary=summary, dict=dict, "
             "list=list, SCALARS=SCALARS, A=A, islice=islice, len=len, iter=iter, next=next):"]

    def summarise(v: str, s: str, indent: str) -> None:  # _summary, inline
        lines.append(f"{indent}c = {v}.__class__")
        lines.append(f'{indent}{s} = "d" if c is dict else "l" if c is list else (c, {v}) if c in SCALARS '
                     f"else summary({v})")

    for i, (parent, op, arg) in enumerate(reads):
        base, v, s = ("data" if parent < 0 else f"v{parent}"), f"v{i}", f"s{i}"
        args.append(slice(*arg) if op == "item" and isinstance(arg, tuple) else arg)
        a = repr(arg) if _literal(arg) else f"A[{i}]"
        lines.append(f" if {base} is MISSING:")
        lines.append(f"  {v} = {s} = MISSING")
        if op == "get":
            lines.append(f" elif {base}.__class__ is dict or isinstance({base}, dict):")
            lines.append(f"  {v} = {base}.get({a}, MISSING)")
            lines.append(f"  if {v} is MISSING:")
            lines.append(f"   {s} = ABSENT")
            lines.append("  else:")
            summarise(v, s, "   ")
            lines.append(" else:")
            lines.append(f"  {v}, {s} = MISSING, ABSENT")
        elif op == "len":
            lines.append(" else:")
            lines.append(f"  {v}, {s} = MISSING, len({base})")
        elif op == "in":
            lines.append(" else:")
            lines.append(f"  {v} = MISSING")
            lines.append("  try:")
            lines.append(f"   {s} = {a} in {base}")
            lines.append("  except Exception:")
            lines.append(f"   {s} = RAISED")
        elif op == "item":
            lines.append(" else:")
            lines.append("  try:")
            lines.append(f"   {v} = {base}[{a}]")
            lines.append("  except Exception:")
            lines.append(f"   {v}, {s} = MISSING, RAISED")
            lines.append("  else:")
            summarise(v, s, "   ")
        elif op == "key":
            lines.append(" else:")
            lines.append(f"  {v} = next(islice(iter({base}), {a}, None), MISSING)")
            lines.append(f"  if {v} is MISSING:")
            lines.append(f"   {s} = MISSING")
            lines.append("  else:")
            summarise(v, s, "   ")
        else:  # elem
            lines.append(f" elif {a} < len({base}):")
            lines.append(f"  {v} = {base}[{a}]")
            summarise(v, s, "  ")
            lines.append(" else:")
            lines.append(f"  {v} = {s} = MISSING")
    lines.append(" return (" + "".join(f"s{i}, " for i in range(len(reads))) + ")")
    namespace: dict[str, Any] = {"MISSING": _MISSING, "ABSENT": _ABSENT, "RAISED": _RAISED, "summary": _summary,
                                 "SCALARS": _SCALARS, "islice": itertools.islice, "A": tuple(args)}
    exec(compile("\n".join(lines), "<cost observer>", "exec"), namespace)  # noqa: S102 - literals and names only
    return namespace["observe"]


# A program's shape is learnt on its third estimate (two plain ones first, see core_cost).
_LEARN_AFTER = 2

# A shape's observer is generated on its third lookup: generating one (Python's compile) takes longer
# than a few observations by the loop, so an expression evaluated once never pays for it.
_GENERATE_AFTER = 3


class _Shape:
    """The reads one estimate made, and the estimates (core cost) for what they observed."""

    __slots__ = ("reads", "known", "observe", "lookups")

    def __init__(self, reads: list[Read], known: dict[tuple[Any, ...], int]) -> None:
        self.reads, self.known = reads, known
        self.observe: Callable[[Mapping[str, Any]], tuple[Any, ...]] | None = None
        self.lookups = 0

    def observed(self, data: Mapping[str, Any]) -> tuple[Any, ...]:
        if self.observe is not None:
            return self.observe(data)
        self.lookups += 1
        if self.lookups >= _GENERATE_AFTER:
            self.observe = observer(self.reads)
        return _observe(data, self.reads)


class _Entry:
    __slots__ = ("program", "cacheable", "shapes", "estimated")

    def __init__(self, program: Any) -> None:
        self.program = program
        self.cacheable = True
        self.shapes: list[_Shape] = []
        self.estimated = 0  # estimates made without learning its shape (see core_cost)


_ENTRIES: dict[int, _Entry] = {}
_LOCK = threading.Lock()
_MAX_PROGRAMS = 4096
_MAX_SHAPES = 8
_MAX_VALUES = 512  # per shape: e.g. one for each of hundreds of params
_MAX_STORED = 100_000  # estimates in all
_stored = 0


def clear() -> None:
    """Forget every remembered estimate."""
    global _stored
    with _LOCK:
        _ENTRIES.clear()
        _stored = 0


fast.register("cost.estimates", clear)


def _has_room(entry: _Entry) -> bool:
    if _stored >= _MAX_STORED:
        return False
    return len(entry.shapes) < _MAX_SHAPES or any(len(shape.known) < _MAX_VALUES for shape in entry.shapes)


def core_cost(program: Any, data: Mapping[str, Any]) -> int:
    """The same number as ``library.expression_cost(program, data).core``: the estimate of everything
    but library calls."""
    global _stored
    if not fast.on:
        return library.expression_cost(program, data).core
    entry = _ENTRIES.get(id(program))
    if entry is None or entry.program is not program:
        entry = _Entry(program)
        with _LOCK:
            if len(_ENTRIES) >= _MAX_PROGRAMS or _stored >= _MAX_STORED:
                _ENTRIES.clear()
                _stored = 0
            _ENTRIES[id(program)] = entry
    if not entry.cacheable:
        return library.expression_cost(program, data).core
    for shape in entry.shapes:
        observe = shape.observe
        core = shape.known.get(observe(data) if observe is not None else shape.observed(data))
        if core is not None:
            return core
    if entry.estimated < _LEARN_AFTER or not _has_room(entry):
        # the first estimates of a program are made as they are: learning its shape takes two more walks,
        # which an expression evaluated once or twice (a matchCondition, again in the reinvocation round)
        # never pays back
        entry.estimated += 1
        return library.expression_cost(program, data).core
    recorder = _Recorder()
    recorded = library.expression_cost(program, recorder.view(-1, dict(data)))
    plain = library.expression_cost(program, data)
    observed = tuple(recorder.seen)
    if recorded.core != plain.core or _observe(data, recorder.reads) != observed:
        entry.cacheable = False
        return plain.core
    reads, key = recorder.reads, observed
    with _LOCK:
        for shape in entry.shapes:
            if shape.reads == reads:
                if len(shape.known) < _MAX_VALUES:
                    shape.known[key] = plain.core
                    _stored += 1
                break
        else:
            if len(entry.shapes) < _MAX_SHAPES:
                entry.shapes.append(_Shape(reads, {key: plain.core}))
                _stored += 1
    return plain.core
