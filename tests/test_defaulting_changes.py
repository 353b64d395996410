"""Recording what defaulting changed: the differences worked out from the copy kept before each function.

``changes.copy_differences`` passes over the parts equal in C instead of walking them; it must give the very list the
walk gives (kept below as it was written, so that a change to it does not move the reference), on the pasted objects
of the test corpora, their decoded forms, and variants of them: numbers of another type, lists grown and shrunk, keys
added, removed and reordered, at every depth.
"""

from __future__ import annotations

import copy
import marshal
import math
import random
from collections.abc import Callable
from typing import Any

import pytest

from app.vap import fast
from app.vap.changes import ADD, REMOVE, REPLACE, copy_differences

Found = list[tuple[str, tuple[Any, ...], Any, Any]]


# --- the walk as it was, the reference ----------------------------------------------------------

def former_differences(before: Any, after: Any, path: tuple[Any, ...] = ()) -> Found:
    found: Found = []
    _former_differ(before, after, path, found.append)
    return found


def _former_differ(before: Any, after: Any, path: tuple[Any, ...], found: Callable[[Any], None]) -> None:
    if before is after:
        return
    if before.__class__ is dict and after.__class__ is dict or isinstance(before, dict) and isinstance(after, dict):
        for key, value in after.items():
            if key not in before:
                found((ADD, (*path, key), None, value))
            else:
                old = before[key]
                if old is not value:
                    _former_differ(old, value, (*path, key), found)
        for key, value in before.items():
            if key not in after:
                found((REMOVE, (*path, key), value, None))
        return
    if isinstance(before, list) and isinstance(after, list):
        if len(after) >= len(before):
            for index, value in enumerate(after):
                if index < len(before):
                    _former_differ(before[index], value, (*path, index), found)
                else:
                    found((ADD, (*path, index), None, value))
            return
        found((REPLACE, path, before, after))
        return
    if type(before) is not type(after) or before != after:
        found((REPLACE, path, before, after))


def _same(a: Found, b: Found) -> bool:
    # the same operations, paths and values, each value of the same type (NaN equal to NaN here)
    def key(item: Any) -> Any:
        return marshal.dumps(item, 2) if _marshalled(item) else repr(item)

    return len(a) == len(b) and all(key(x) == key(y) for x, y in zip(a, b, strict=True))


def _marshalled(value: Any) -> bool:
    try:
        marshal.dumps(value, 2)
    except ValueError:
        return False
    return True


# --- variants ---------------------------------------------------------------------------------

def _containers(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], Any]]:
    out = [(path, value)] if isinstance(value, dict | list) else []
    if isinstance(value, dict):
        for key, child in value.items():
            out += _containers(child, (*path, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            out += _containers(child, (*path, index))
    return out


def _other_type(value: Any, rng: random.Random) -> Any:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return rng.choice([float(value), value == 1, str(value), value + 1])
    if isinstance(value, float):
        return rng.choice([int(value) if math.isfinite(value) else 0, -value, math.nan])
    if isinstance(value, str):
        return rng.choice([value + "x", value[:-1], {"was": value}, [value]])
    if value is None:
        return rng.choice([0, False, "", {}, []])
    return None


def _mutate(value: Any, rng: random.Random) -> None:
    """One change in place somewhere inside ``value``."""
    _, target = rng.choice(_containers(value))
    if isinstance(target, dict):
        keys = list(target)
        what = rng.randrange(5) if keys else 0
        if what == 0:
            target[f"added{rng.randrange(3)}"] = rng.choice([1, 1.0, True, "v", None, {"a": 1}, [1, 2], math.nan])
        elif what == 1:
            del target[rng.choice(keys)]
        elif what == 2:  # reordered
            items = list(target.items())
            rng.shuffle(items)
            target.clear()
            target.update(items)
        else:
            key = rng.choice(keys)
            target[key] = _other_type(target[key], rng)
    else:
        what = rng.randrange(5) if target else 0
        if what == 0:
            target.append(rng.choice([0, 0.0, False, "item", {"k": "v"}, []]))
        elif what == 1:
            target.pop()
        elif what == 2:
            target.insert(0, rng.choice([1, "first", {"k": 1}]))
        else:
            index = rng.randrange(len(target))
            target[index] = _other_type(target[index], rng)


def _pasted() -> list[Any]:
    from tests.test_fast_paths import _pasted_objects

    return [obj for _, obj in _pasted_objects()]


def _decoded(objects: list[Any]) -> list[Any]:
    from app.vap import decoding
    from app.vap.schemas import schema_set

    schemas = schema_set("1.36")
    return [decoding._decode(copy.deepcopy(obj), schemas, (1, 36)).value for obj in objects]


@pytest.fixture(scope="module")
def values() -> list[Any]:
    objects = _pasted()
    assert len(objects) > 300
    return objects + _decoded(objects)


def test_a_copy_s_differences_are_the_walk_s_on_every_object_and_variant(values: list[Any]) -> None:
    rng = random.Random(1961)
    compared = changed = 0
    for value in values:
        try:
            written = marshal.dumps(value)
        except ValueError:  # (a timestamp): defaulting copies it with tree_copy and walks
            continue
        for _ in range(6):
            after = marshal.loads(written)
            for _ in range(rng.randrange(1, 5)):
                _mutate(after, rng)
            for before in (marshal.loads(written), value):  # a copy as defaulting keeps it; values sharing nothing
                expected = former_differences(before, after, ("at",))
                assert _same(copy_differences(before, after, ("at",)), expected), (before, after)
                compared += 1
                changed += bool(expected)
        assert copy_differences(marshal.loads(written), value) == former_differences(marshal.loads(written), value)
    assert compared > 4000 and changed > 3000


def test_a_copy_s_differences_with_shared_parts_are_the_walk_s(values: list[Any]) -> None:
    # changed in place, as a defaulting function changes its value: what it did not touch is the same object
    rng = random.Random(7)
    for value in values[:200]:
        try:
            before = marshal.loads(marshal.dumps(value))
        except ValueError:
            continue
        after = dict(before)
        path, target = rng.choice(_containers(before))
        if path:
            parent = after
            for part in path[:-1]:
                parent[part] = child = copy.copy(parent[part])
                parent = child
            parent[path[-1]] = copied = copy.deepcopy(target)
            _mutate(copied, rng)
        else:
            _mutate(after, rng)
        assert _same(copy_differences(before, after), former_differences(before, after))


@pytest.mark.parametrize(("before", "after"), [
    ({"a": {"b": [1, True]}}, {"a": {"b": [1.0, 1]}}),
    ({"a": [{"x": 0}]}, {"a": [{"x": False}]}),
    ({"a": [{"x": 0.0}]}, {"a": [{"x": -0.0}]}),  # equal: no difference
    ({"a": {"n": math.nan}}, {"a": {"n": math.nan}}),  # the same NaN object: none
    ({"a": {"n": float("nan")}}, {"a": {"n": float("nan")}}),  # two NaNs: one
    ({"a": [[1, 2]]}, {"a": [(1, 2)]}),
    ({"a": [{1, 2}]}, {"a": [frozenset({1, 2})]}),
    ({"a": {"x": 1, "y": 2}}, {"a": {"y": 2, "x": 1}}),  # reordered: no difference
    ({"a": {"x": 1, "y": 2}}, {"a": {"y": 2}}),
    ({"a": [1, 2, 3]}, {"a": [1, 2]}),
    ({"a": [1, 2]}, {"a": [1, 2, 3]}),
    ({"a": {"x": "é"}}, {"a": {"x": "e\u0301"}}),
    ({"a": {"x": b"1"}}, {"a": {"x": "1"}}),
    ({"a": [{"x": 1}]}, {"a": [{"x": 1}, {"x": 1}]}),
])
def test_a_copy_s_differences_at_the_edges(before: Any, after: Any) -> None:
    for b in (before, marshal.loads(marshal.dumps(before))):
        assert _same(copy_differences(b, after), former_differences(b, after))


def test_defaulting_records_the_same_changes_with_and_without_the_fast_paths(values: list[Any]) -> None:
    # the function changed in place; with the switch off the walk is the former one
    from app.vap import defaulting
    from app.vap.defaulting import core_v1  # noqa: F401 (registered)
    from app.vap.schemas import schema_set

    schemas = schema_set("1.36")
    pods = [v for v in values if isinstance(v, dict) and v.get("kind") in ("Pod", "Deployment", "Job")]
    assert len(pods) > 20

    def answer(obj: Any) -> Any:
        kind = schemas.kind(*obj["apiVersion"].rpartition("/")[::2], obj["kind"])
        if kind is None:
            return None
        value, made = defaulting.apply(copy.deepcopy(obj), kind, schemas, (1, 36))
        return value, [c.to_json() for c in made]

    fast.clear()
    quick = [answer(obj) for obj in pods]
    with fast.plain():
        plain = [answer(obj) for obj in pods]
    assert quick == plain


# --- recording a function's changes ---------------------------------------------------------------

def former_run_recorded(entry: Any, value: dict[str, Any], context: Any, path: tuple[Any, ...], made: list[Any],
                        stage: str) -> None:
    from app.vap.changes import changes, tree_copy

    try:
        written: bytes | None = marshal.dumps(value)
        copied = None
    except ValueError:
        written, copied = None, tree_copy(value)
    entry.function(value, context)
    if written is not None:
        try:
            if marshal.dumps(value) == written:
                return
        except ValueError:
            pass
        copied = marshal.loads(written)
    made.extend(changes(f"{stage}: {entry.name}", copied, value, path))


def _adding(rng: random.Random) -> Callable[[dict[str, Any]], None]:
    # what most defaulting functions do: fields set where absent, after the others
    fields = [(f"field{n}", rng.choice([1, 1.0, True, "v", None, {}, [], {"a": [1]}, math.nan])) for n in range(3)]

    def add(value: dict[str, Any]) -> None:
        for key, default in fields[:rng.randrange(0, 4)]:
            value.setdefault(key, copy.deepcopy(default))
    return add


def _changing(rng: random.Random) -> Callable[[dict[str, Any]], None]:
    def change(value: dict[str, Any]) -> None:
        for _ in range(rng.randrange(0, 3)):
            _mutate(value, rng)
    return change


@pytest.mark.parametrize("make", [_adding, _changing])
def test_a_function_s_changes_are_recorded_as_before(values: list[Any], make: Any) -> None:
    from app.vap.defaulting import Context, Registered, _run_recorded

    rng = random.Random(make.__name__)
    recorded = 0
    for value in values:
        if not isinstance(value, dict):
            continue
        targets = [path for path, node in _containers(value) if isinstance(node, dict)]
        for path in rng.sample(targets, min(len(targets), 4)):
            seed = rng.random()
            answers = []
            for run in (former_run_recorded, _run_recorded):
                obj = copy.deepcopy(value)
                target = obj
                for part in path:
                    target = target[part]
                function = make(random.Random(seed))
                entry = Registered("f", lambda v, c, f=function: f(v))  # type: ignore[misc]
                made: list[Any] = []
                run(entry, target, Context((1, 36), obj, path), path, made, "defaulting")
                answers.append((obj, [(c.stage, c.path, c.op, c.before, c.after) for c in made]))
            assert _same([answers[0][0]], [answers[1][0]])
            assert _same(answers[0][1], answers[1][1]), (path, answers)
            recorded += bool(answers[0][1])
    assert recorded > 500


def test_fields_added_beside_a_nan_are_recorded_as_before() -> None:
    # the walk finds a NaN unequal to its copy wherever it is: the fields added are not the only changes
    from app.vap.defaulting import Context, Registered, _run_recorded

    for value in ({"n": math.nan}, {"a": {"n": [math.inf, math.nan]}}, {"c": complex(0, math.nan)}):
        answers = []
        for run in (former_run_recorded, _run_recorded):
            obj = copy.deepcopy(value)
            made: list[Any] = []
            run(Registered("f", lambda v, c: v.setdefault("added", 1)), obj, Context((1, 36), obj, ()), (), made, "d")
            answers.append([(c.path, c.op, c.before, c.after) for c in made])
        assert _same(answers[0], answers[1]) and len(answers[0]) >= 1


# --- copying ----------------------------------------------------------------------------------------

def former_tree_copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: former_tree_copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [former_tree_copy(v) for v in value]
    return value


def _layout(value: Any, original: Any, seen: dict[int, int]) -> Any:
    """What a copy is made of: each container's class and whether it is one of the original's (its place in the
    walk, shared containers named once), each leaf's class and whether it is the original's own object."""
    if isinstance(value, dict | list):
        fresh = id(value) not in seen
        seen.setdefault(id(value), len(seen))
        items = value.items() if isinstance(value, dict) else enumerate(value)
        inside = [(k, _layout(v, original[k] if original is not None else None, seen)) for k, v in items]
        return (type(value), id(value) == id(original), fresh, seen[id(value)], inside)
    return (type(value), value is original, repr(value))


class _Mapping(dict):  # type: ignore[type-arg]
    pass


class _Items(list):  # type: ignore[type-arg]
    pass


def test_a_tree_copy_is_made_as_before(values: list[Any]) -> None:
    from collections import OrderedDict

    from app.vap.changes import tree_copy

    shared = {"alias": [1, {"x": 2}]}
    odd = [
        {"a": shared, "b": shared, "c": [shared, shared]},  # a YAML alias: each place its own copy
        {"m": _Mapping(x={"y": []}), "l": _Items([{}, []]), "o": OrderedDict(k=[1])},
        _Mapping(a=_Items([_Mapping()])),
        [(1, {"in": "tuple"}), {1, 2}, b"x", 1.5, True, None, math.nan, -0.0, 10**30],
        {"e": {}, "f": [], "g": [{}, [], [[]]], 1: "int key", None: {"k": {}}},
        {}, [], "text", 3,
    ]
    rng = random.Random(5)
    variants = []
    for value in values[:150]:
        variant = copy.deepcopy(value)
        for _ in range(4):
            _mutate(variant, rng)
        variants.append(variant)
    for value in [*values, *odd, *variants]:
        new, old = tree_copy(value), former_tree_copy(value)
        assert _layout(new, value, {}) == _layout(old, value, {})
