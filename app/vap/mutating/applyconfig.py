"""The ``ApplyConfiguration`` mutation of a MutatingAdmissionPolicy: a structured merge, as kube-apiserver does it.

Restates k8s.io/apiserver ``pkg/admission/plugin/policy/mutating/patch/smd.go`` (ApplyStructuredMergeDiff and its
check that an apply configuration touches no atomic field), the parts of sigs.k8s.io/structured-merge-diff it relies
on (``typed``: converting a value to a typed value with its validation, and merging two typed values with the "keep
the right-hand side" rule) and of k8s.io/kube-openapi ``pkg/schemaconv`` (how an OpenAPI schema becomes a merge
schema), and the type-name check of ``pkg/cel/mutation/dynamic`` (CheckTypeNamesMatchFieldPathNames).

The merge schema comes from the kind's OpenAPI schema (:func:`app.vap.schemas.schema_set`):

- arrays are atomic unless ``x-kubernetes-list-type`` says ``set`` or ``map`` (``x-kubernetes-list-map-keys``);
- objects are granular unless ``x-kubernetes-map-type: atomic``; an object without properties (or below
  ``x-kubernetes-preserve-unknown-fields``) accepts any field, with lists inside it atomic;
- integer and number are numeric, boolean boolean, a string is a string unless it has a format other than
  ``byte`` (then, like int-or-string and ``Quantity``, any scalar); a ``RawExtension`` is any scalar.

Merging never deletes: scalars and atomic values are replaced by the configuration's, granular objects are merged
field by field, ``map`` lists item by item by their keys (a missing key takes its schema default, e.g. a container
port's ``protocol: TCP``), ``set`` lists are unioned; items keep the object's order, new ones follow the
configuration's order. An apply configuration that sets any atomic field at all is refused, as the apiserver does.
Errors are the apiserver's texts, e.g. ``error applying patch: invalid ApplyConfiguration: may not mutate atomic
arrays, maps or structs: .spec.selector``. Where Go iterates a map in random order (several unknown fields, several
atomic fields), this module takes keys in sorted order.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from app.vap import fast
from app.vap.schemas import KindSchema, SchemaSet
from app.vap.validation import _go_float, _go_quote

__all__ = [
    "ApplyConfigError", "ObjectValue", "apply_configuration", "check_type_names", "merge_apply_configuration",
]


class ApplyConfigError(Exception):
    """The error an ApplyConfiguration mutation ends with, in the apiserver's words."""

    def __init__(self, message: str, *, code: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.code = code  # an HTTP status when the apiserver answers with one directly (503), else 0


class ObjectValue(dict):
    """A CEL ``Object{...}`` / ``Object.spec{...}`` value: its fields, and the type name it was built as."""

    def __init__(self, type_name: str, fields: Mapping[str, Any] | None = None) -> None:
        super().__init__(fields or {})
        self.type_name = type_name


def check_type_names(value: ObjectValue) -> str | None:
    """The apiserver's check that every nested ``Object...`` type name is its field path from the root type.

    Returns the error text (``type mismatch: unexpected type name ...``, several joined by newlines) or None.
    Lists and maps between objects are transparent: their items carry the path of the field holding them.
    """
    errors: list[str] = []

    def visit(v: Any, path: list[str]) -> None:
        if isinstance(v, ObjectValue):
            expected = ".".join(path)
            if v.type_name != expected:
                errors.append(f"unexpected type name {_go_quote(v.type_name)}, expected {_go_quote(expected)}, "
                              "which matches field name path from root Object type")
            for key in sorted(v):
                visit(v[key], [*path, key])
        elif isinstance(v, list | tuple):
            for item in v:
                visit(item, path)
        elif _is_map(v):
            for key in sorted(v, key=str):
                visit(v[key], path)

    visit(value, [value.type_name])
    return "type mismatch: " + "\n".join(errors) if errors else None


# ---------------------------------------------------------------------------------------------
# the merge schema

_ATOMIC, _ASSOCIATIVE, _SEPARABLE = "atomic", "associative", "separable"
_NUMERIC, _STRING, _BOOLEAN, _UNTYPED = "numeric", "string", "boolean", "untyped"
_UNTYPED_SCALAR_TYPES = frozenset({"io.k8s.apimachinery.pkg.api.resource.Quantity",
                                   "io.k8s.apimachinery.pkg.runtime.RawExtension"})
# OpenAPI defaults of list-map key fields of built-in types (the +default markers the published schema carries)
_KEY_DEFAULTS = {("io.k8s.api.core.v1.ContainerPort", "protocol"): "TCP",
                 ("io.k8s.api.core.v1.ServicePort", "protocol"): "TCP"}


@dataclass
class _List:
    relationship: str
    keys: tuple[str, ...]
    element: _Ref


@dataclass
class _Map:
    fields: dict[str, _Ref]
    element: _Ref | None  # None: no other field is allowed
    relationship: str = ""  # "" (granular), "separable" or "atomic"
    defaults: dict[str, Any] = field(default_factory=dict)  # field defaults (list-map keys may use them)


@dataclass
class _Atom:
    scalar: str | None = None
    list: _List | None = None
    map: _Map | None = None


class _Ref:
    """A type reference, converted to an atom when first needed."""

    __slots__ = ("_atom", "_convert", "_plan", "name")

    def __init__(self, convert: Any, name: str = "") -> None:
        self._convert = convert
        self._atom: _Atom | None = None
        self._plan: _Plan | None = None  # what _valid reads of the type, made when first needed (see _plan)
        self.name = name

    @property
    def atom(self) -> _Atom:
        if self._atom is None:
            self._atom = self._convert()
        return self._atom


def _untyped_atomic() -> _Ref:
    ref = _Ref(None, "__untyped_atomic_")
    ref._atom = _Atom(_UNTYPED, _List(_ATOMIC, (), ref), _Map({}, ref, _ATOMIC))
    return ref


_UNTYPED_ATOMIC = _untyped_atomic()


def _deduced() -> _Ref:
    ref = _Ref(None, "__untyped_deduced_")
    ref._atom = _Atom(_UNTYPED, _List(_ATOMIC, (), _UNTYPED_ATOMIC), _Map({}, ref, _SEPARABLE))
    return ref


_DEDUCED = _deduced()
_EMPTY = _Ref(_Atom)  # the type of a field a map does not declare


class _Converter:
    """OpenAPI nodes of one schema set to merge-schema atoms (kube-openapi's ToSchemaFromOpenAPI)."""

    def __init__(self, schemas: SchemaSet) -> None:
        self.schemas = schemas
        self.named: dict[str, _Ref] = {}

    def ref(self, node: Mapping[str, Any], preserve: bool) -> _Ref:
        name = node.get("$ref")
        if isinstance(name, str):
            ref = self.named.get(name)
            if ref is None:
                ref = self.named[name] = _Ref(lambda: self.named_atom(name), name)
            map_type = node.get("x-kubernetes-map-type")
            if map_type in ("atomic", "granular"):  # the reference overrides the type's own relationship
                relationship = _ATOMIC if map_type == "atomic" else _SEPARABLE
                return _Ref(lambda: _with_relationship(ref.atom, relationship), name)
            return ref
        return _Ref(lambda: self.atom(node, preserve))

    def named_atom(self, name: str) -> _Atom:
        if name in _UNTYPED_SCALAR_TYPES:
            return _Atom(scalar=_UNTYPED)
        atom = self.atom(self.schemas.resolve({"$ref": name}), False)
        if atom.map is not None:
            for (definition, key), value in _KEY_DEFAULTS.items():
                if definition == name:
                    atom.map.defaults.setdefault(key, value)
        return atom

    def atom(self, node: Mapping[str, Any], preserve: bool) -> _Atom:
        if node.get("x-kubernetes-preserve-unknown-fields") is True:
            preserve = True
        if node.get("x-kubernetes-int-or-string") is True:
            return _Atom(scalar=_UNTYPED)
        kind = node.get("type")
        if kind == "object":
            return _Atom(map=self.object(node, preserve))
        if kind == "array":
            return _Atom(list=self.array(node, preserve))
        if kind in ("integer", "number"):
            return _Atom(scalar=_NUMERIC)
        if kind == "boolean":
            return _Atom(scalar=_BOOLEAN)
        if kind == "string":
            return _Atom(scalar=_STRING if node.get("format", "") in ("", "byte") else _UNTYPED)
        if not kind:  # any type
            return _Atom(_UNTYPED, self.array(node, preserve), self.object(node, preserve))
        return _Atom(scalar=_UNTYPED)

    def object(self, node: Mapping[str, Any], preserve: bool) -> _Map:
        properties = node.get("properties")
        properties = properties if _is_map(properties) else {}
        fields = {str(k): self.ref(v, preserve) for k, v in properties.items() if isinstance(v, Mapping)}
        defaults = {str(k): v["default"] for k, v in properties.items() if isinstance(v, Mapping) and "default" in v}
        extra = node.get("additionalProperties")
        element: _Ref | None
        if extra is None:
            element = _DEDUCED if preserve or not properties else None
        elif _is_map(extra):
            element = self.ref(extra, preserve)
        else:
            element = _DEDUCED if extra is True else None
        map_type = node.get("x-kubernetes-map-type")
        relationship = {"atomic": _ATOMIC, "granular": _SEPARABLE}.get(str(map_type), "")
        return _Map(fields, element, relationship, defaults)

    def array(self, node: Mapping[str, Any], preserve: bool) -> _List:
        list_type = node.get("x-kubernetes-list-type")
        keys: tuple[str, ...] = ()
        if list_type in ("set", "map"):
            relationship = _ASSOCIATIVE
            if list_type == "map":
                raw_keys = node.get("x-kubernetes-list-map-keys")
                keys = tuple(k for k in raw_keys if isinstance(k, str)) if isinstance(raw_keys, list) else ()
        else:
            relationship = _ATOMIC
        items = node.get("items")
        element = self.ref(items, preserve) if isinstance(items, Mapping) else _UNTYPED_ATOMIC
        return _List(relationship, keys, element)


def _with_relationship(atom: _Atom, relationship: str) -> _Atom:
    if atom.map is None:
        return atom
    m = atom.map
    return _Atom(atom.scalar, atom.list, _Map(m.fields, m.element, relationship, m.defaults))


# ---------------------------------------------------------------------------------------------
# Go renderings of values in smd's messages

def _go_v(value: Any) -> str:
    """Go's %v of an unstructured value."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _go_float(value, json=False)
    if isinstance(value, str):
        return value
    if _is_map(value):
        return "map[" + " ".join(f"{k}:{_go_v(v)}" for k, v in sorted(value.items())) + "]"
    return "[" + " ".join(_go_v(v) for v in value) + "]"


def _go_sharp_v(value: Any) -> str:
    """Go's %#v of an unstructured value."""
    if value is None:
        return "interface {}(nil)"
    if isinstance(value, bool | int | float) and not isinstance(value, str):
        return _go_v(value)
    if isinstance(value, str):
        return _go_quote(value)
    if _is_map(value):
        body = ", ".join(f"{_go_quote(str(k))}:{_go_sharp_v(v)}" for k, v in sorted(value.items()))
        return "map[string]interface {}{" + body + "}"
    return "[]interface {}{" + ", ".join(_go_sharp_v(v) for v in value) + "}"


def _go_type(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int64"
    if isinstance(value, float):
        return "float64"
    if isinstance(value, str):
        return "string"
    if _is_map(value):
        return "map[string]interface {}"
    if value is None:
        return "<nil>"
    return "[]interface {}"


def _value_text(value: Any) -> str:
    """value.ToString (key and set element renderings in paths)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return _go_float(value, json=False)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return _go_quote(value)
    if _is_map(value):
        return "".join(f"{k}={_value_text(v)}" for k, v in sorted(value.items()))
    return "[" + ",".join(_value_text(v) for v in value) + "]"


# ---------------------------------------------------------------------------------------------
# typed values: validation (smd's ObjectToTyped), path elements, atomics

@dataclass
class _Error:
    path: str
    message: str

    def text(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


def _errors_text(errors: list[_Error]) -> str:
    if len(errors) == 1:
        return errors[0].text()
    return "\n".join(["errors:", *("  " + e.text() for e in errors)])


def _prefixed(errors: list[_Error], prefix: str) -> list[_Error]:
    for e in errors:
        e.path = prefix + e.path
    return errors


def _is_map(v: Any) -> bool:
    # (a dict's class, then the common scalars first: the ABC's test costs several times more)
    return v.__class__ is dict or v.__class__ not in _NOT_MAPS and isinstance(v, Mapping)


_NOT_MAPS = frozenset({str, int, float, bool, list, type(None)})


def _is_list(v: Any) -> bool:
    return isinstance(v, list | tuple)


def _is_scalar(v: Any) -> bool:
    return isinstance(v, bool | int | float | str)


def _deduce(atom: _Atom, value: Any) -> _Atom:
    if (atom.scalar is None) + (atom.list is None) + (atom.map is None) >= 2:
        return atom  # (of one kind at most: what it deduces to for any value; atoms are never changed)
    if _is_scalar(value) and atom.scalar is not None:
        return _Atom(scalar=atom.scalar)
    if _is_list(value) and atom.list is not None:
        return _Atom(list=atom.list)
    if _is_map(value) and atom.map is not None:
        return _Atom(map=atom.map)
    return atom


def _scalar_errors(kind: str, value: Any, prefix: str = "") -> list[_Error]:
    if value is None:
        return []
    numeric = isinstance(value, int | float) and not isinstance(value, bool)
    if kind == _NUMERIC and not numeric:
        return [_Error("", f"{prefix}expected numeric (int or float), got {_go_type(value)}")]
    if kind == _STRING and not isinstance(value, str):
        return [_Error("", f"{prefix}expected string, got &value.valueUnstructured{{Value:{_go_sharp_v(value)}}}")]
    if kind == _BOOLEAN and not isinstance(value, bool):
        return [_Error("", f"{prefix}expected boolean, got &{{{_go_v(value)}}}")]
    if kind == _UNTYPED and not _is_scalar(value):
        return [_Error("", f"{prefix}expected any scalar, got &{{{_go_v(value)}}}")]
    return []


def _canonical(value: Any) -> Any:
    """A hashable form of a key or set element, equal where smd's value equality holds."""
    if isinstance(value, bool):
        return ("b", value)
    if isinstance(value, int | float):
        return ("n", float(value))
    if isinstance(value, str):
        return ("s", value)
    if value is None:
        return ("null",)
    if _is_map(value):
        return ("m", tuple(sorted((str(k), _canonical(v)) for k, v in value.items())))
    return ("l", tuple(_canonical(v) for v in value))


@dataclass(frozen=True)
class _PathElement:
    text: str
    identity: Any


def _keyed(lst: _List, item: Any) -> list[tuple[str, Any]]:
    """The key fields of an item of an associative list with keys, by name (a key absent taken from its default
    value); raises ValueError with smd's text."""
    if item is None:
        raise ValueError("associative list with keys may not have a null element")
    if not _is_map(item):
        raise ValueError("associative list with keys may not have non-map elements")
    element_map = lst.element.atom.map
    keyed: list[tuple[str, Any]] = []
    for key in lst.keys:
        if key in item:
            keyed.append((key, item[key]))
        elif element_map is not None and element_map.defaults.get(key) is not None:
            keyed.append((key, element_map.defaults[key]))
    if not keyed:
        shown = "[" + " ".join(_go_quote(k) for k in lst.keys) + "]"
        raise ValueError(f"associative list with keys has an element that omits all key fields {shown} "
                         "(and doesn't have default values for any key fields)")
    keyed.sort(key=lambda kv: kv[0])
    return keyed


def _set_item(item: Any) -> None:
    """Refuse an item an associative list without keys (a set) cannot hold, with smd's text (ValueError)."""
    if _is_map(item):
        raise ValueError("associative list without keys has an element that's a map type")
    if _is_list(item):
        raise ValueError("not supported: associative list with lists as elements")
    if item is None:
        raise ValueError("associative list without keys has an element that's an explicit null")


def _item_identity(lst: _List, item: Any) -> Any:
    """What tells an item of an associative list from the others (:func:`_item_element`'s identity), without its
    text; raises ValueError with smd's text."""
    if lst.keys:
        return ("k", tuple((k, _canonical(v)) for k, v in _keyed(lst, item)))
    _set_item(item)
    return ("v", _canonical(item))


def _item_element(lst: _List, item: Any) -> _PathElement:
    """listItemToPathElement (the list is associative); raises ValueError with smd's text."""
    if lst.keys:
        keyed = _keyed(lst, item)
        text = "[" + ",".join(f"{k}={_value_text(v)}" for k, v in keyed) + "]"
        return _PathElement(text, ("k", tuple((k, _canonical(v)) for k, v in keyed)))
    _set_item(item)
    return _PathElement(f"[={_value_text(item)}]", ("v", _canonical(item)))


def _validate(value: Any, ref: _Ref) -> list[_Error]:
    """smd's validation of a value against its type (duplicates in associative lists not allowed)."""
    atom = _deduce(ref.atom, value)
    if atom.map is not None:
        if value is None:
            return []
        if not _is_map(value):
            return [_Error("", f"expected map, got &{{{_go_v(value)}}}")]
        errors: list[_Error] = []
        for key in sorted(value, key=str):
            child = atom.map.fields.get(key) or atom.map.element
            if child is None:
                errors.append(_Error("." + str(key), "field not declared in schema"))
                break
            errors += _prefixed(_validate(value[key], child), "." + str(key))
        return errors
    if atom.scalar is not None:
        return _scalar_errors(atom.scalar, value)
    if atom.list is not None:
        if value is None:
            return []
        if not _is_list(value):
            return [_Error("", f"expected list, got &{{{_go_v(value)}}}")]
        errors = []
        seen: set[Any] = set()
        for i, item in enumerate(value):
            if atom.list.relationship != _ASSOCIATIVE:
                text = f"[{i}]"
            else:
                try:
                    element = _item_element(atom.list, item)
                except ValueError as e:
                    errors.append(_Error("", f"element {i}: {e}"))
                    return errors
                if element.identity in seen:
                    errors.append(_Error("", f"duplicate entries for key {element.text}"))
                seen.add(element.identity)
                text = element.text
            errors += _prefixed(_validate(item, atom.list.element), text)
        return errors
    name = f"named type: {ref.name}" if ref.name else "inlined"
    return [_Error("", f"schema error: invalid atom: {name}")]


# The quick validity test (_valid) works on plans: per type reference, the classes of value that pass at once and a
# test for any other value, made when the reference is first met and kept on it (a reference's atom never changes
# once made). A value whose class is exactly dict, list, str, int, float or bool is taken on the fast way; any other
# class (a subclass, a Mapping) is tested as _validate does.

_Plan = tuple[frozenset[type], Callable[[Any], bool]]
_NONE_TYPE = type(None)
_MISSING: Any = object()
_SCALAR_CLASSES: dict[str, tuple[type, ...]] = {
    _STRING: (str,), _NUMERIC: (int, float), _BOOLEAN: (bool,), _UNTYPED: (str, int, float, bool)}


def _plan(ref: _Ref) -> _Plan:
    """The reference's plan, made and kept on it if it has none yet."""
    plan = ref._plan
    if plan is None:
        atom = ref.atom
        kinds = (atom.scalar is not None) + (atom.list is not None) + (atom.map is not None)
        plan = ref._plan = _deducing_plan(atom) if kinds > 1 else _atom_plan(atom)
    return plan


def _never(value: Any) -> bool:
    return False


def _atom_plan(atom: _Atom) -> _Plan:
    """The plan of an atom taken as it is (no deduction): its map, else its scalar, else its list, as _validate."""
    if atom.map is not None:
        return frozenset({_NONE_TYPE}), _map_test(atom.map)
    if atom.scalar is not None:
        kind = atom.scalar
        return (frozenset({_NONE_TYPE, *_SCALAR_CLASSES.get(kind, ())}),
                lambda value: not _scalar_errors(kind, value))
    if atom.list is not None:
        return frozenset({_NONE_TYPE}), _list_test(atom.list)
    return frozenset(), _never  # no kind at all: schema error


def _deducing_plan(atom: _Atom) -> _Plan:
    """The plan of an atom of several kinds: each value is tested against the kind _deduce picks for it."""
    scalar = _atom_plan(_Atom(scalar=atom.scalar)) if atom.scalar is not None else None
    of_list = _atom_plan(_Atom(list=atom.list)) if atom.list is not None else None
    of_map = _atom_plan(_Atom(map=atom.map)) if atom.map is not None else None
    whole = of_map or scalar or of_list  # the atom undeduced: its map first, as _atom_plan
    assert whole is not None
    whole_test = whole[1]
    map_test = (of_map or whole)[1]  # (what an exact dict gets)
    list_test = (of_list or whole)[1]  # (what an exact list or tuple gets)

    def test(value: Any) -> bool:
        cls = value.__class__
        if cls is dict:
            return map_test(value)
        if cls is list or cls is tuple:
            return list_test(value)
        if scalar is not None and _is_scalar(value):
            return cls in scalar[0] or scalar[1](value)
        if of_list is not None and _is_list(value):
            return of_list[1](value)
        if of_map is not None and _is_map(value):
            return of_map[1](value)
        return whole_test(value)

    # None passes every atom of several kinds (its map's or its scalar's test), exact scalars pass as the scalar's
    return frozenset({_NONE_TYPE, *(scalar[0] if scalar is not None else ())}), test


def _map_test(m: _Map) -> Callable[[Any], bool]:
    """The test of a value against a map type: a map whose fields are declared or allowed, each valid."""
    fields, element = m.fields, m.element
    if not fields and element is not None:  # (any field, all of one type: labels, untyped objects)
        def test_elements(value: Any) -> bool:
            if value.__class__ is not dict:
                if value is None:
                    return True
                if not _is_map(value):
                    return False
            accept, test = element._plan or _plan(element)
            for item in value.values():
                if item.__class__ not in accept and not test(item):
                    return False
            return True

        return test_elements
    plans: dict[str, _Plan] = {}  # the declared fields' plans, as they are met

    def test_fields(value: Any) -> bool:
        if value.__class__ is not dict:
            if value is None:
                return True
            if not _is_map(value):
                return False
        for key, item in value.items():
            plan = plans.get(key)
            if plan is None:
                child = fields.get(key)
                if child is not None:
                    plan = plans[key] = _plan(child)
                elif element is not None:
                    plan = element._plan or _plan(element)
                else:
                    return False  # a field not declared
            if item.__class__ not in plan[0] and not plan[1](item):
                return False
        return True

    return test_fields


def _list_test(lst: _List) -> Callable[[Any], bool]:
    """The test of a value against a list type: a list of valid items, those of an associative list unique."""
    element = lst.element

    def test_items(value: Any) -> bool:
        if value.__class__ is not list:
            if value is None:
                return True
            if not _is_list(value):
                return False
        accept, test = element._plan or _plan(element)
        for item in value:
            if item.__class__ not in accept and not test(item):
                return False
        return True

    if lst.relationship != _ASSOCIATIVE:
        return test_items
    if not lst.keys:
        def test_set(value: Any) -> bool:
            if not test_items(value):
                return False
            if value is None:
                return True
            seen: set[Any] = set()
            for item in value:
                cls = item.__class__
                if cls is str:
                    identity = item  # (unequal to any other item's identity but an equal string's)
                elif cls is int:
                    identity = float(item)  # (equal where _canonical's is: ints equal as floats)
                else:
                    return _associative_valid(lst, value)
                if identity in seen:
                    return False
                seen.add(identity)
            return True

        return test_set

    names = tuple(sorted(lst.keys))  # (the order _keyed gives; a name twice is taken twice, as there)
    defaults: tuple[Any, ...] | None = None  # each key's default (_MISSING: none), found when first needed

    def test_keyed(value: Any) -> bool:
        nonlocal defaults
        if not test_items(value):
            return False
        if value is None:
            return True
        if defaults is None:
            element_map = element.atom.map
            found = (element_map.defaults.get(name) if element_map is not None else None for name in names)
            defaults = tuple(_MISSING if default is None else default for default in found)
        seen: set[Any] = set()
        for item in value:
            if item.__class__ is not dict:
                return _associative_valid(lst, value)
            # each key's value or default, when all are there and are exact strings or ints: the identity
            # _item_identity would give, with ("s", text) taken as the text and ("n", number) as the float
            identity: list[Any] = []
            for name, default in zip(names, defaults, strict=True):
                key = item.get(name, default)
                cls = key.__class__
                if cls is str:
                    identity.append(key)
                elif cls is int:
                    identity.append(float(key))
                else:
                    return _associative_valid(lst, value)
            frozen = tuple(identity)
            if frozen in seen:
                return False
            seen.add(frozen)
        return True

    return test_keyed


def _associative_valid(lst: _List, value: Any) -> bool:
    """Whether the items of an associative list have identities and are unique (_validate's way, for any item)."""
    seen: set[Any] = set()
    for item in value:
        try:
            identity = _item_identity(lst, item)
        except ValueError:
            return False
        if identity in seen:
            return False
        seen.add(identity)
    return True


def _valid(value: Any, ref: _Ref) -> bool:
    """Whether :func:`_validate` finds nothing in a value, found without making its errors (the keys of a map in
    any order, no error text built), on the types' plans: a value that passes is not walked again for the errors.
    False also where the test fails on a value (an exception): :func:`_errors` then gives what _validate gives."""
    try:
        accept, test = ref._plan or _plan(ref)
        return value.__class__ in accept or test(value)
    except Exception:  # (a value _validate may refuse or fail on: it is left to _validate)
        return False


def _errors(value: Any, ref: _Ref) -> list[_Error]:
    """:func:`_validate`'s errors, the value first tested for none while the fast paths are on."""
    if fast.on and _valid(value, ref):
        return []
    return _validate(value, ref)


def _find_atomics(value: Any, ref: _Ref, path: str) -> list[str]:
    """smd.go's findAtomics: paths of atomic lists, maps and structs the apply configuration sets."""
    found: list[str] = []
    _add_atomics(found, value, ref, path)
    return found


_LEAVES = frozenset({str, int, float, bool, type(None)})  # (classes of values that are no map and no list)


def _add_atomics(found: list[str], value: Any, ref: _Ref, path: str) -> None:
    """:func:`_find_atomics` adding to a list (a scalar's field or item is not visited: it holds no atomic)."""
    atom = ref._atom or ref.atom
    if atom.map is not None and _is_map(value):
        if atom.map.relationship == _ATOMIC:
            found.append(path)
        fields = atom.map.fields
        for key in sorted(value, key=str):
            child = fields.get(key)
            if child is not None:
                item = value[key]
                if item.__class__ not in _LEAVES:
                    _add_atomics(found, item, child, f"{path}.{key}")
    if atom.list is not None and _is_list(value):
        if atom.list.relationship == _ATOMIC:
            found.append(path)
        element = atom.list.element
        for i, item in enumerate(value):
            if item.__class__ not in _LEAVES:
                _add_atomics(found, item, element, f"{path}[{i}]")


# ---------------------------------------------------------------------------------------------
# merging (smd's mergingWalker with the keep-right-hand-side rule)

_NONE: Any = object()  # no value at all on one side (Go's nil value.Value)


def _merge(lhs: Any, rhs: Any, ref: _Ref, valid: bool = False) -> tuple[Any, list[_Error]]:
    """``rhs`` merged into ``lhs``, and the errors. ``valid``: ``lhs`` passed :func:`_validate`, so a part of it the
    configuration does not touch comes out as it is (the walk would give an equal copy): it is kept, not walked."""
    if rhs is _NONE and valid:
        return lhs, []
    atom = ref.atom
    left, right = _deduce(atom, lhs), _deduce(atom, rhs)
    if rhs is _NONE:
        return _merge_atom(left, lhs, rhs, ref, valid)
    if lhs is _NONE or (left.scalar == right.scalar and left.list is right.list and left.map is right.map):
        return _merge_atom(right, lhs, rhs, ref, valid)
    _, errors = _merge_atom(left, lhs, rhs, ref, valid)
    out, more = _merge_atom(right, lhs, rhs, ref, valid)
    return out, errors + more


def _leaf(lhs: Any, rhs: Any) -> Any:
    return rhs if rhs is not _NONE else lhs


def _merge_atom(atom: _Atom, lhs: Any, rhs: Any, ref: _Ref, valid: bool) -> tuple[Any, list[_Error]]:
    if atom.map is not None:
        return _merge_map(atom.map, lhs, rhs, valid)
    if atom.scalar is not None:
        left = _scalar_errors(atom.scalar, None if lhs is _NONE else lhs, "lhs: ")
        right = _scalar_errors(atom.scalar, None if rhs is _NONE else rhs, "rhs: ")
        if left and right:
            return _NONE, left + right
        return _leaf(lhs, rhs), []
    if atom.list is not None:
        return _merge_list(atom.list, lhs, rhs, valid)
    name = f"named type: {ref.name}" if ref.name else "inlined"
    return _NONE, [_Error("", f"schema error: invalid atom: {name}")]


def _merge_map(m: _Map, lhs: Any, rhs: Any, valid: bool) -> tuple[Any, list[_Error]]:
    left = lhs if _is_map(lhs) else None
    right = rhs if _is_map(rhs) else None
    if m.relationship == _ATOMIC or (not left and not right):
        return _leaf(lhs, rhs), []
    left = left or {}
    right = right or {}
    out: dict[str, Any] = {}
    errors: list[_Error] = []
    keys = list(left) + [k for k in right if k not in left]
    for key in keys:
        rchild = right.get(key, _NONE)
        if valid and rchild is _NONE:  # (what _merge gives a valid part the configuration leaves alone: itself)
            out[key] = left[key]
            continue
        child = m.fields.get(key) or m.element or _EMPTY
        merged, errs = _merge(left.get(key, _NONE), rchild, child, valid)
        if errs:
            errors += _prefixed(errs, "." + key)
        if merged is not _NONE:
            out[key] = merged
    return (out if out else _NONE), errors


def _index(lst: _List, items: list[Any], allow_duplicates: bool) -> tuple[list[Any], dict[Any, Any], list[_Error]]:
    """The identities of an associative list's items, each identity's item (_NONE: given twice, allowed), and the
    errors (an item without identity, one given twice where that is not allowed). The items' texts are made only
    for the errors."""
    identities: list[Any] = []
    observed: dict[Any, Any] = {}
    errors: list[_Error] = []
    for i, item in enumerate(items):
        try:
            identity = _item_identity(lst, item)
        except Exception:  # (made again with its text, which may fail first: smd's error is the text's)
            try:
                identity = _item_element(lst, item).identity
            except ValueError as e:
                errors.append(_Error("", f"element {i}: {e}"))
                continue
        if identity in observed:
            if not allow_duplicates:
                errors.append(_Error("", f"duplicate entries for key {_item_element(lst, item).text}"))
                continue
            observed[identity] = _NONE  # duplicated items are not merged
        else:
            observed[identity] = item
        identities.append(identity)
    return identities, observed, errors


def _merge_list(lst: _List, lhs: Any, rhs: Any, valid: bool) -> tuple[Any, list[_Error]]:
    left = list(lhs) if _is_list(lhs) else None
    right = list(rhs) if _is_list(rhs) else None
    if lst.relationship == _ATOMIC or (not left and not right):
        return _leaf(lhs, rhs), []
    right_ids, right_seen, errors = _index(lst, right or [], False)
    left_ids, left_seen, left_errors = _index(lst, left or [], True)
    errors += left_errors
    if errors:
        return _NONE, errors
    # (identities are tuples: None is no identity)
    shared = [identity for identity in right_ids if identity in left_seen]
    next_shared = shared.pop(0) if shared else None
    merged_right: set[Any] = set()
    out: list[Any] = []

    def take(lchild: Any, rchild: Any) -> None:
        merged, _ = _merge(lchild, rchild, lst.element, valid)  # smd drops the errors of single items
        if merged is not _NONE:
            out.append(merged)

    li = ri = 0
    while li < len(left_ids) or ri < len(right_ids):
        if li < len(left_ids) and ri < len(right_ids):
            identity = left_ids[li]
            if identity == right_ids[ri]:
                merged_right.add(identity)
                take(left_seen[identity], right_seen[identity])
                li += 1
                ri += 1
                next_shared = shared.pop(0) if shared else None
                continue
            if identity in right_seen and next_shared is not None and next_shared != identity:
                li += 1
                continue
        if li < len(left_ids):
            identity = left_ids[li]
            if identity not in right_seen:
                take((left or [])[li], _NONE)  # indexing errors abort, so positions coincide
                li += 1
                continue
            if identity in merged_right:
                li += 1
        if ri < len(right_ids):
            identity = right_ids[ri]
            merged_right.add(identity)
            take(left_seen.get(identity, _NONE), right_seen[identity])
            ri += 1
            if next_shared is not None and next_shared == identity:
                next_shared = shared.pop(0) if shared else None
    return (out if out else _NONE), []


# ---------------------------------------------------------------------------------------------
# the mutation


def _root(schemas: SchemaSet, kind: KindSchema) -> _Ref:
    converter = _custom_converter(schemas) if schemas.custom_key else _builtin_converter(schemas)
    return converter.ref(kind.root, False)


@lru_cache(maxsize=16)
def _builtin_converter(schemas: SchemaSet) -> _Converter:
    """The types of a version's built-in schemas, converted as they are first needed and kept: they depend on no
    input (as the CEL library's declarations)."""
    return _Converter(schemas)


@fast.memo(32)
def _custom_converter(schemas: SchemaSet) -> _Converter:
    """The types of a set holding pasted CustomResourceDefinitions, kept among the caches of what was evaluated."""
    return _Converter(schemas)


def merge_apply_configuration(obj: Mapping[str, Any], patch: Mapping[str, Any], kind: KindSchema,
                              schemas: SchemaSet) -> dict[str, Any]:
    """ApplyStructuredMergeDiff: ``patch`` (the apply configuration, as plain JSON) merged into ``obj``.

    ``patch`` gets the object's ``apiVersion`` and ``kind`` first, as the apiserver sets them. Raises
    :class:`ApplyConfigError` with the text the apiserver wraps in ``error applying patch: ``.
    """
    root = _root(schemas, kind)
    patch = dict(patch)
    for key in ("apiVersion", "kind"):
        if key in obj:
            patch[key] = obj[key]
    if errors := _errors(patch, root):
        raise ApplyConfigError("failed to convert patch object to typed object: " + _errors_text(errors))
    if atomics := _find_atomics(patch, root, ""):
        raise ApplyConfigError("invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: "
                               + ", ".join(atomics))
    if errors := _errors(dict(obj), root):
        raise ApplyConfigError("failed to convert original object to typed object: " + _errors_text(errors))
    merged, errors = _merge(dict(obj), patch, root, fast.on)  # (the object was found valid above)
    if errors:
        raise ApplyConfigError("failed to merge patch: " + _errors_text(errors))
    return merged if isinstance(merged, dict) else {}


def apply_configuration(obj: Mapping[str, Any], result: Any, kind: KindSchema | None,
                        schemas: SchemaSet) -> dict[str, Any]:
    """The apiserver's ApplyConfiguration mutation step (smd.go Patch) from the expression's result onwards.

    ``result`` is the expression's value: an :class:`ObjectValue` (a plain mapping is taken as one). The
    expression's compilation has already refused any other type (``must evaluate to Object but got ...``, the
    CEL stage's error), so a value of another type here gets the apiserver's run-time answer. ``kind`` is the
    object's schema (None when unknown: the apiserver answers 503). Raises :class:`ApplyConfigError` with the
    apiserver's text.
    """
    if kind is None:
        gvk = f"{obj.get('apiVersion', '')}, Kind={obj.get('kind', '')}"
        raise ApplyConfigError(f"Resource kind {gvk} not found. There can be a delay between when "
                               "CustomResourceDefinitions are created and when they are available.", code=503)
    if isinstance(result, ObjectValue):  # any Object... value passes here; the compiler wants ``Object`` itself
        if problem := check_type_names(result):
            raise ApplyConfigError(problem)
    elif not _is_map(result):
        raise ApplyConfigError(f"unsupported return type from ApplyConfiguration expression: {_go_type(result)}")
    try:
        return merge_apply_configuration(obj, _plain(result), kind, schemas)
    except ApplyConfigError as e:
        raise ApplyConfigError(f"error applying patch: {e.message}", code=e.code) from None


def _plain(value: Any) -> Any:
    if _is_map(value):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value
