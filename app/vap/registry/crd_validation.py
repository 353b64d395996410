"""A custom resource's own validation: its CustomResourceDefinition's structural schema and CEL rules.

Restates what apiextensions-apiserver's customResourceStrategy runs in Validate and ValidateUpdate
(pkg/registry/customresource/strategy.go, validator.go), in its order:

* the OpenAPI schema, as kube-openapi's SchemaValidator checks it (pkg/validation/validate: type.go,
  object_validator.go, slice_validator.go, the string, number and enum checks of validator.go and
  values.go), its errors turned into field errors as pkg/apiserver/validation/validation.go does
  (``Required value``, ``Unsupported value: ...``, ``Too long``, ``Too many``, and ``Invalid value``
  with kube-openapi's own sentence: ``spec.replicas in body must be of type integer: "string"``);
* the uniqueness of ``x-kubernetes-list-type: set`` items and ``map`` keys
  (pkg/apiserver/schema/listtype/validation.go): ``Duplicate value``;
* the ``x-kubernetes-validations`` rules (pkg/apiserver/schema/cel/validation.go), unless an error of the
  kinds above that means the object does not have its schema's shape was found (hasBlockingErr): each
  rule with ``self`` (and ``oldSelf`` for a transition rule, on an UPDATE where the value has a
  correlatable old value; ``optionalOldSelf`` as an optional), its ``message``, ``messageExpression``,
  ``reason`` and ``fieldPath``, the per-rule cost limit and the runtime budget.

On an UPDATE, with CRDValidationRatcheting (on by default from Kubernetes 1.30): a schema error in a value
the update left as it was is dropped, a failed rule that does not read ``oldSelf`` on such a value is a
warning instead of an error, and list-type errors count only when the stored object had none.

Not reproduced: the formats beyond those listed in :data:`_FORMATS`, the scale subresource's checks, and
the rules' typed environment (``self`` is ``dyn`` here, so a rule naming a
field the schema lacks fails when evaluated rather than when the CRD is created).
"""

from __future__ import annotations

import base64
import binascii
import ipaddress
import math
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from functools import lru_cache
from typing import Any

from google.protobuf import duration_pb2, timestamp_pb2

from .. import cel, validation
from ..cel import library
from ..cel.library import regex
from ..fast import cost as fast_cost
from ..schemas.validate import openapi_kind
from ..validation import FieldError
from . import builtin_validation

PER_CALL_LIMIT = 1_000_000  # k8s.io/apiserver/pkg/apis/cel PerCallLimit
RUNTIME_BUDGET = 10_000_000  # RuntimeCELCostBudget
MESSAGE_EXPRESSION_MAX_BYTES = 5120  # MaxEvaluatedMessageExpressionSizeBytes
NOT_CHECKED = ("some validation rules were not checked because the object was invalid; correct the existing "
               "errors to complete validation")
OUT_OF_BUDGET = "validation failed due to running out of cost budget, no further validation rules will be run"
# errors meaning the object does not have the shape its rules were written for (strategy.go hasBlockingErr)
_BLOCKING = frozenset({"FieldValueNotSupported", "FieldValueRequired", "FieldValueTooLong", "FieldValueTooMany",
                       "FieldValueTypeInvalid"})
_ABSENT: Any = object()


@dataclass
class Outcome:
    """What the custom resource's validation found: the field errors (in order), the warnings of ratcheted
    rules, and what was checked, in words."""

    errors: list[FieldError] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    checked: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def validate(obj: Mapping[str, Any], old: Mapping[str, Any] | None, root: Mapping[str, Any],
             version: tuple[int, int]) -> Outcome:
    """Validate a custom resource (``old``: the stored object of an UPDATE) against its version's schema
    (``root``: the CRD's openAPIV3Schema, as :func:`app.vap.schemas.crd_schemas` keeps it)."""
    out = Outcome()
    ratcheting = old is not None and version >= (1, 30)
    previous = old if old is not None and ratcheting else _ABSENT
    schema_errors: list[FieldError] = []
    _Schema(schema_errors, ratcheting).node(obj, root, "", previous, resource=True)
    out.errors.extend(schema_errors)
    out.checked.append("the CustomResourceDefinition's schema")
    out.errors.extend(_embedded(None, obj, root))
    list_errors = list(_list_types(None, root, obj))
    if list_errors:
        out.checked.append("x-kubernetes-list-type uniqueness")
    if old is None or not list(_list_types(None, root, old)):
        out.errors.extend(list_errors)
    if _has_rules(root):
        if any(e.type in _BLOCKING for e in out.errors):
            out.errors.append(validation.invalid("<nil>", None, NOT_CHECKED))
            out.checked.append("x-kubernetes-validations: not evaluated, the object does not have the schema's shape")
        else:
            rules = evaluate_rules(obj, old, root, version, resource=True, ratcheting=ratcheting)
            out.errors.extend(rules.errors)
            out.warnings.extend(rules.warnings)
            out.notes.extend(rules.notes)
            out.checked.append(f"x-kubernetes-validations ({rules.evaluated} rule evaluations)")
    return out


def evaluate_rules(value: Any, old: Any, schema: Mapping[str, Any], version: tuple[int, int], *,
                   path: str | None = None, resource: bool = False, ratcheting: bool = True,
                   budget: int = RUNTIME_BUDGET) -> RuleEvaluation:
    """The ``x-kubernetes-validations`` rules of a schema and its descendants on a value (``old``: its stored
    value on an UPDATE, None on a CREATE), from ``path`` (None: the nil path of a resource's root); the
    returned record holds the errors, and the warnings of ratcheted failures when ``ratcheting``."""
    rules = RuleEvaluation(version, ratcheting and old is not None, budget)
    typed_old = _typed(old, schema) if old is not None else _ABSENT
    rules.node(path, _typed(value, schema), typed_old, schema, resource=resource, parent_unchanged=False, top=True)
    return rules


# --------------------------------------------------------------------------------------------
# Field paths (field.Path's String: a nil path renders "<nil>")


def _child(path: str | None, name: str) -> str:
    return name if not path else f"{path}.{name}"


def _index(path: str | None, i: int) -> str:
    return f"{path or ''}[{i}]"


def _key(path: str | None, key: str) -> str:
    return f"{path or ''}[{key}]"


def _shown(path: str | None) -> str:
    return "<nil>" if path is None else path


# --------------------------------------------------------------------------------------------
# Values as Go's unstructured decoding holds them


def _json_type(value: Any) -> str:
    """The JSON type of a value, as kube-openapi names it."""
    return openapi_kind(value)


def _same(a: Any, b: Any) -> bool:
    """apiequality.Semantic.DeepEqual of two JSON values (a bool is never a number)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if type(a) is not type(b):
        return False
    return bool(a == b)


def _go_number(value: Any) -> str:
    """Go's %v of an int64 or float64."""
    if isinstance(value, float):
        return validation._go_float(value, json=False)
    return str(value)


def _schema_types(schema: Mapping[str, Any]) -> list[str]:
    if schema.get("x-kubernetes-int-or-string"):
        return ["integer", "string"]
    kind = schema.get("type")
    return [kind] if isinstance(kind, str) and kind else []


# --------------------------------------------------------------------------------------------
# The OpenAPI schema (kube-openapi), its errors as field errors


_SUPPORTED_FORMATS = frozenset({
    "bsonobjectid", "uri", "email", "hostname", "ipv4", "ipv6", "cidr", "mac", "uuid", "uuid3", "uuid4", "uuid5",
    "isbn", "isbn10", "isbn13", "creditcard", "ssn", "hexcolor", "rgbcolor", "byte", "password", "date",
    "duration", "datetime", "date-time",
})
_UUID = re.compile(r"^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$", re.I)
_HOSTNAME_LABEL = r"[a-zA-Z0-9_]([a-zA-Z0-9_-]{0,62}[a-zA-Z0-9_])?"
_HOSTNAME = re.compile(rf"^{_HOSTNAME_LABEL}(\.{_HOSTNAME_LABEL})*\.?$")
_MAC = re.compile(r"^([0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}$|^([0-9A-Fa-f]{4}\.){2}[0-9A-Fa-f]{4}$")
_DURATION = re.compile(r"^[-+]?([0-9]*(\.[0-9]*)?[a-zµμ]+)+$")


def _is_date_time(text: str) -> bool:
    try:
        datetime.fromisoformat(text.replace("z", "Z").replace("Z", "+00:00"))
    except ValueError:
        return False
    return "T" in text.upper() or " " in text


def _is_date(text: str) -> bool:
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return len(text) == 10


def _is_ip(text: str, version: int) -> bool:
    try:
        return ipaddress.ip_address(text).version == version
    except ValueError:
        return False


def _is_cidr(text: str) -> bool:
    try:
        ipaddress.ip_network(text, strict=False)
    except ValueError:
        return False
    return "/" in text


def _is_byte(text: str) -> bool:
    try:
        base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


# the formats checked, by what strfmt.Default accepts; the other supported formats pass
_FORMATS: dict[str, Callable[[str], bool]] = {
    "date-time": _is_date_time, "datetime": _is_date_time, "date": _is_date,
    "uuid": lambda s: bool(_UUID.match(s)), "uuid3": lambda s: bool(_UUID.match(s)),
    "uuid4": lambda s: bool(_UUID.match(s)), "uuid5": lambda s: bool(_UUID.match(s)),
    "ipv4": lambda s: _is_ip(s, 4), "ipv6": lambda s: _is_ip(s, 6), "cidr": _is_cidr,
    "byte": _is_byte, "hostname": lambda s: len(s) <= 255 and bool(_HOSTNAME.match(s)),
    "mac": lambda s: bool(_MAC.match(s)), "duration": lambda s: bool(_DURATION.match(s)),
}


class _Schema:
    """kube-openapi's SchemaValidator over one object; ``name`` is its path text (``spec.items[0].x``)."""

    def __init__(self, errors: list[FieldError], ratcheting: bool) -> None:
        self.errors = errors
        self.ratcheting = ratcheting

    def _field(self, name: str) -> str:
        trimmed = name[1:] if name.startswith(".") else name
        return trimmed if trimmed else "<nil>"

    def _invalid(self, name: str, value: Any, message: str) -> None:
        self.errors.append(validation.invalid(self._field(name), value, message))

    def node(self, value: Any, schema: Mapping[str, Any], name: str, old: Any, resource: bool = False) -> None:
        if not isinstance(schema, Mapping):
            return
        if self.ratcheting and old is not _ABSENT and _same(value, old):
            return  # ratcheting: a value the update left as it was is not validated again
        types = _schema_types(schema)
        if value is None:
            if types and not schema.get("nullable"):
                self._type_invalid(name, ",".join(types), "null")
            self._enum(value, schema, name)
            return
        kind = _json_type(value)
        if types and not (kind in types or (kind == "number" and float(value).is_integer() and "integer" in types)
                          or (kind == "integer" and "number" in types)):
            self._type_invalid(name, ",".join(types), kind)
        self._composites(value, schema, name)
        if kind == "string":
            self._string(value, schema, name)
        elif kind in ("integer", "number"):
            self._number(value, schema, name)
        elif kind == "array":
            self._array(value, schema, name, old)
        self._enum(value, schema, name)
        if kind == "object":
            self._object(value, schema, name, old, resource)

    def _alternative(self, value: Any, schema: Any, name: str) -> list[FieldError]:
        """The errors of the value against one alternative of anyOf, oneOf, allOf or not."""
        errors: list[FieldError] = []
        _Schema(errors, False).node(value, schema, name, _ABSENT)
        return errors

    def _composite(self, name: str, message: str) -> None:
        """An error of anyOf, oneOf, allOf or not: not a field error of kube-openapi's, so the apiserver gives it
        the nil path and an empty value."""
        self.errors.append(validation.invalid("<nil>", "", f"{validation._go_quote(name)} {message}"))

    def _composites(self, value: Any, schema: Mapping[str, Any], name: str) -> None:
        """schemaPropsValidator: anyOf, oneOf, allOf and not. Of the failing alternatives, the errors of the first
        are kept (kube-openapi keeps those of the one that passed most checks, the first among equals)."""
        any_of = [a for a in schema.get("anyOf") or () if isinstance(a, Mapping)]
        if any_of:
            results = [self._alternative(value, a, name) for a in any_of]
            if all(results):
                self._composite(name, "must validate at least one schema (anyOf)")
                self.errors.extend(results[0])
        one_of = [a for a in schema.get("oneOf") or () if isinstance(a, Mapping)]
        if one_of:
            results = [self._alternative(value, a, name) for a in one_of]
            valid = sum(1 for r in results if not r)
            if valid != 1:
                found = "Found none valid" if valid == 0 else f"Found {valid} valid alternatives"
                self._composite(name, f"must validate one and only one schema (oneOf). {found}")
                if valid == 0:
                    self.errors.extend(results[0])
        all_of = [a for a in schema.get("allOf") or () if isinstance(a, Mapping)]
        if all_of:
            results = [self._alternative(value, a, name) for a in all_of]
            for result in results:
                self.errors.extend(result)
            failed = sum(1 for r in results if r)
            if failed:
                self._composite(name, "must validate all the schemas (allOf)"
                                + (". None validated" if failed == len(results) else ""))
        not_schema = schema.get("not")
        if isinstance(not_schema, Mapping) and not self._alternative(value, not_schema, name):
            self._composite(name, "must not validate the schema (not)")

    def _type_invalid(self, name: str, expected: str, actual: str) -> None:
        message = f'{name} in body must be of type {expected}: "{actual}"'
        self.errors.append(validation._error("FieldValueTypeInvalid", self._field(name), actual, message))

    def _string(self, value: str, schema: Mapping[str, Any], name: str) -> None:
        length = len(value)
        maximum = schema.get("maxLength")
        if isinstance(maximum, int) and length > maximum:
            self.errors.append(validation.too_long(self._field(name), maximum))
        minimum = schema.get("minLength")
        if isinstance(minimum, int) and length < minimum:
            self._invalid(name, value, f"{name} in body should be at least {minimum} chars long")
        pattern = schema.get("pattern")
        failed = _pattern_error(pattern, value) if isinstance(pattern, str) and pattern else None
        if failed is not None:
            self._invalid(name, value, f"{name} in body should match '{failed}'")
        fmt = schema.get("format")
        if isinstance(fmt, str) and fmt in _SUPPORTED_FORMATS and fmt in _FORMATS and not _FORMATS[fmt](value):
            message = f"{name} in body must be of type {fmt}: {validation._go_quote(value)}"
            self.errors.append(validation._error("FieldValueTypeInvalid", self._field(name), value, message))

    def _number(self, value: float, schema: Mapping[str, Any], name: str) -> None:
        integral = isinstance(value, int)

        def bound(b: float) -> tuple[float, str]:
            if integral:
                return int(b), str(int(b))
            return float(b), _go_number(float(b))

        multiple = schema.get("multipleOf")
        if _is_number(multiple) and multiple > 0:
            factor, text = bound(multiple)
            if factor and (value % factor != 0 if integral else not _float_multiple(value, factor)):
                self._invalid(name, value, f"{name} in body should be a multiple of {text}")
        maximum = schema.get("maximum")
        if _is_number(maximum):
            limit, text = bound(maximum)
            exclusive = bool(schema.get("exclusiveMaximum"))
            if value > limit or (exclusive and value == limit):
                word = "less than" if exclusive else "less than or equal to"
                self._invalid(name, value, f"{name} in body should be {word} {text}")
        minimum = schema.get("minimum")
        if _is_number(minimum):
            limit, text = bound(minimum)
            exclusive = bool(schema.get("exclusiveMinimum"))
            if value < limit or (exclusive and value == limit):
                word = "greater than" if exclusive else "greater than or equal to"
                self._invalid(name, value, f"{name} in body should be {word} {text}")

    def _array(self, value: list[Any], schema: Mapping[str, Any], name: str, old: Any) -> None:
        items = schema.get("items")
        if isinstance(items, Mapping):
            olds = _correlated_items(schema, value, old)
            for i, item in enumerate(value):
                self.node(item, items, f"{name}[{i}]", olds(i))
        size = len(value)
        minimum = schema.get("minItems")
        if isinstance(minimum, int) and size < minimum:
            self._invalid(name, size, f"{name} in body should have at least {minimum} items")
        maximum = schema.get("maxItems")
        if isinstance(maximum, int) and size > maximum:
            self.errors.append(validation.too_many(self._field(name), size, maximum))
        if schema.get("uniqueItems") and _non_unique(value):
            self._invalid(name, "", f"{name} in body shouldn't contain duplicates")

    def _enum(self, value: Any, schema: Mapping[str, Any], name: str) -> None:
        enum = schema.get("enum")
        if not isinstance(enum, list) or not enum:
            return
        if any(_enum_equal(value, allowed) for allowed in enum):
            return
        shown = [a if isinstance(a, str) else validation._go_json(a) for a in enum]
        self.errors.append(validation.not_supported(self._field(name), value, shown))

    def _object(self, value: Mapping[str, Any], schema: Mapping[str, Any], name: str, old: Any,
                resource: bool) -> None:
        count = len(value)
        minimum = schema.get("minProperties")
        if isinstance(minimum, int) and count < minimum:
            self._invalid(name, count, f"{name} in body should have at least {minimum} properties")
            return
        maximum = schema.get("maxProperties")
        if isinstance(maximum, int) and count > maximum:
            self.errors.append(validation.too_many(self._field(name), count, maximum))
            return
        properties = schema.get("properties")
        properties = properties if isinstance(properties, Mapping) else {}
        additional = schema.get("additionalProperties")
        old_map = old if isinstance(old, Mapping) else {}
        if isinstance(additional, Mapping):
            for key, child in value.items():
                if key not in properties and not _pruned_null(child, additional):
                    self.node(child, additional, f"{name}.{key}", old_map.get(key, _ABSENT))
        for key, prop in properties.items():
            if resource and key == "metadata":
                continue  # ObjectMeta is validated as every kind's metadata is
            if key in value and not _pruned_null(value[key], prop):
                self.node(value[key], prop, key if not name else f"{name}.{key}", old_map.get(key, _ABSENT))
        required = schema.get("required")
        for key in required if isinstance(required, list) else ():
            if key not in value or _pruned_null(value[key], properties.get(key)):
                self.errors.append(validation.required(self._field(f"{name}.{key}")))


def _pruned_null(value: Any, schema: Any) -> bool:
    """A null the decoder dropped: a field whose schema neither allows null nor has a default
    (structuraldefaulting.PruneNonNullableNullsWithoutDefaults)."""
    return value is None and isinstance(schema, Mapping) and not schema.get("nullable") and "default" not in schema


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _float_multiple(value: float, factor: float) -> bool:
    quotient = value / factor
    return math.isfinite(quotient) and quotient == math.floor(quotient)


def _enum_equal(value: Any, allowed: Any) -> bool:
    """commonValidator: the value converted to the enum value's Go type, then compared."""
    if isinstance(allowed, bool) or isinstance(value, bool):
        return type(value) is type(allowed) and value == allowed
    if _is_number(allowed) and _is_number(value):
        return float(value) == float(allowed) if isinstance(allowed, float) else value == allowed
    return _same(value, allowed)


def _pattern_error(pattern: str, value: str) -> str | None:
    """What kube-openapi's Pattern says of a string: nothing when it matches (Go's regexp, unanchored: RE2 here),
    the pattern, or the pattern with Go's parse error when it does not compile."""
    try:
        compiled = regex.compile_go(pattern)
    except regex.RegexSyntaxError as exc:
        return f"{pattern}, but pattern is invalid: {exc.go_text}"
    return None if compiled.search(value) is not None else pattern


# --------------------------------------------------------------------------------------------
# Correlating list items with the stored object's (map lists, by their keys)


def _correlated_items(schema: Mapping[str, Any], value: list[Any], old: Any) -> Callable[[int], Any]:
    if schema.get("x-kubernetes-list-type") != "map" or not isinstance(old, list):
        return lambda i: _ABSENT
    keys = schema.get("x-kubernetes-list-map-keys")
    keys = [k for k in keys if isinstance(k, str)] if isinstance(keys, list) else []

    def key_of(item: Any) -> Any:
        if not isinstance(item, Mapping):
            return None
        return validation._go_json({k: item.get(k) for k in keys})

    by_key = {key_of(item): item for item in old if isinstance(item, Mapping)}
    return lambda i: by_key.get(key_of(value[i]), _ABSENT)


# --------------------------------------------------------------------------------------------
# Embedded resources (pkg/apiserver/schema/objectmeta/validation.go)


def _embedded(path: str | None, value: Any, schema: Any) -> Iterator[FieldError]:
    """The type and object metadata of every ``x-kubernetes-embedded-resource`` value below the root."""
    if not isinstance(schema, Mapping):
        return
    if isinstance(value, Mapping):
        if schema.get("x-kubernetes-embedded-resource"):
            yield from _embedded_resource(path, value)
        properties = schema.get("properties")
        properties = properties if isinstance(properties, Mapping) else {}
        additional = schema.get("additionalProperties")
        for key, child in value.items():
            if key in properties:
                yield from _embedded(_child(path, key), child, properties[key])
            elif isinstance(additional, Mapping):
                yield from _embedded(_key(path, key), child, additional)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _embedded(_index(path, i), item, schema.get("items"))


def _embedded_resource(path: str | None, value: Mapping[str, Any]) -> Iterator[FieldError]:
    """validateEmbeddedResource: apiVersion and kind required and well formed; the metadata as
    ValidateObjectMeta checks it, with path-segment names (an absent name is not required)."""
    for key in ("apiVersion", "kind"):
        if key not in value:
            yield validation.required(_child(path, key))
    for key, child in value.items():
        at = _child(path, key)
        if key in ("apiVersion", "kind"):
            if not isinstance(child, str):
                yield validation.invalid(at, child, "must be a string")
            elif not child:
                yield validation.invalid(at, child, "must not be empty")
            elif key == "apiVersion" and child.count("/") > 1:
                yield validation.invalid(at, child, f"unexpected GroupVersion string: {child}")
            elif key == "kind" and (errors := validation.name_is_dns1035_label(child.lower(), False)):
                yield validation.invalid(at, child, "may have mixed case, but should otherwise match: "
                                         + ",".join(errors))
        elif key == "metadata" and isinstance(child, Mapping):
            md = {**child, "name": child.get("name") or "fakename"}
            yield from builtin_validation.object_meta(md, bool(child.get("namespace")), validation.path_segment_name,
                                                      at)


# --------------------------------------------------------------------------------------------
# x-kubernetes-list-type uniqueness (listtype/validation.go)


def _list_types(path: str | None, schema: Any, value: Any) -> Iterator[FieldError]:
    if not isinstance(schema, Mapping):
        return
    if isinstance(value, Mapping):
        additional = schema.get("additionalProperties")
        if isinstance(additional, Mapping):
            for key, child in value.items():
                yield from _list_types(_key(path, key), additional, child)
        properties = schema.get("properties")
        if isinstance(properties, Mapping):
            for key, child in value.items():
                if key in properties:
                    yield from _list_types(_child(path, key), properties[key], child)
    elif isinstance(value, list):
        kind = schema.get("x-kubernetes-list-type")
        if kind == "set":
            for i in _non_unique(value):
                yield validation.duplicate(_index(path, i), value[i])
        elif kind == "map":
            yield from _map_list(path, schema, value)
        items = schema.get("items")
        for i, item in enumerate(value):
            yield from _list_types(_index(path, i), items, item)


def _non_unique(values: list[Any]) -> list[int]:
    """The index of each value's second appearance."""
    seen: dict[str, int] = {}
    out = []
    for i, value in enumerate(values):
        key = _identity(value)
        seen[key] = seen.get(key, 0) + 1
        if seen[key] == 2:
            out.append(i)
    return out


def _identity(value: Any) -> str:
    if value is _UNSPECIFIED:
        return "\0unspecified"
    return _json_type(value) + ":" + validation._go_json(value)


_UNSPECIFIED: Any = object()


def _map_list(path: str | None, schema: Mapping[str, Any], value: list[Any]) -> Iterator[FieldError]:
    for i, item in enumerate(value):
        if item is not None and not isinstance(item, Mapping):
            yield validation.invalid(_index(path, i), item, "must be an object for an array of list-type map")
            return
    if len(value) <= 1:
        return
    keys = schema.get("x-kubernetes-list-map-keys")
    keys = [k for k in keys if isinstance(k, str)] if isinstance(keys, list) else []
    if len(keys) == 1:
        key = keys[0]
        found = [_UNSPECIFIED if item is None or key not in item else item[key] for item in value]
        for i in _non_unique(found):
            yield validation.duplicate(_index(path, i), {} if found[i] is _UNSPECIFIED else {key: found[i]})
        return
    composite = [{} if item is None else {k: item[k] for k in keys if k in item} for item in value]
    for i in _non_unique(composite):
        yield validation.duplicate(_index(path, i), composite[i])


# --------------------------------------------------------------------------------------------
# x-kubernetes-validations (schema/cel/validation.go)


# The values a rule sees typed by their format (model.SchemaDeclType, UnstructuredToVal): byte as bytes,
# date and date-time as timestamps, duration as a duration.
_GO_DURATION = re.compile(r"([0-9]*(?:\.[0-9]*)?)(ns|us|µs|μs|ms|s|m|h)")
_DURATION_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


def _timestamp(text: str) -> Any:
    stamp = timestamp_pb2.Timestamp()
    try:
        stamp.FromJsonString(text if "T" in text.upper() else text + "T00:00:00Z")
    except ValueError:
        return None
    return stamp


def _duration(text: str) -> Any:
    """time.ParseDuration's syntax: an optional sign, then numbers each with its unit (``1h2m3.5s``)."""
    body = text[1:] if text[:1] in "+-" else text
    if body == "0":
        return duration_pb2.Duration()
    pos, seconds = 0, 0.0
    while pos < len(body):
        match = _GO_DURATION.match(body, pos)
        if match is None or match.group(1) in ("", "."):
            return None
        seconds += float(match.group(1)) * _DURATION_UNITS[match.group(2)]
        pos = match.end()
    if not body:
        return None
    value = duration_pb2.Duration()
    value.FromNanoseconds(round((-seconds if text.startswith("-") else seconds) * 1e9))
    return value


def _bytes(text: str) -> Any:
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None


_TYPED_FORMATS: dict[str, Callable[[str], Any]] = {
    "byte": _bytes, "date": _timestamp, "date-time": _timestamp, "duration": _duration,
}


def _typed(value: Any, schema: Any) -> Any:
    """The value with its formatted strings as the typed values a rule sees (the same object when none)."""
    if not isinstance(schema, Mapping):
        return value
    if isinstance(value, str):
        convert = _TYPED_FORMATS.get(schema.get("format")) if schema.get("type") == "string" else None
        typed = convert(value) if convert is not None else None
        return value if typed is None else typed
    if isinstance(value, dict):
        properties = schema.get("properties")
        properties = properties if isinstance(properties, Mapping) else {}
        additional = schema.get("additionalProperties")
        out: dict[str, Any] | None = None
        for key, child in value.items():
            sub = properties.get(key, additional if key not in properties else None)
            new = _typed(child, sub)
            if new is not child:
                out = out if out is not None else dict(value)
                out[key] = new
        return out if out is not None else value
    if isinstance(value, list):
        items = schema.get("items")
        converted = [_typed(item, items) for item in value]
        return converted if any(a is not b for a, b in zip(converted, value, strict=True)) else value
    return value


def _has_rules(schema: Any) -> bool:
    if not isinstance(schema, Mapping):
        return False
    if schema.get("x-kubernetes-validations"):
        return True
    properties = schema.get("properties")
    return (_has_rules(schema.get("items")) or _has_rules(schema.get("additionalProperties"))
            or (isinstance(properties, Mapping) and any(_has_rules(p) for p in properties.values())))


def _declarations(version: tuple[int, int]) -> cel.Declarations:
    return cel.Declarations(version=f"{version[0]}.{version[1]}", authorizer=False, variables=None,
                            rule_roots=True)


@lru_cache(maxsize=512)
def _compiled(text: str, kind: str, version: tuple[int, int]) -> cel.Compiled:
    return cel.compile_expression(text, kind, _declarations(version))


def _optional_old_self(rule: str) -> str:
    """The rule with ``oldSelf`` an optional: none without an old value, else of it (the engine takes no
    optional value from the caller, so the rule runs inside a one-element comprehension binding it)."""
    return f"[oldSelf == null ? optional.none() : optional.of(oldSelf)].all(oldSelf, ({rule}))"


def _rule_text(rule: Mapping[str, Any]) -> str:
    """ruleErrorString: the rule's message if it has one, else the rule."""
    message = rule.get("message")
    if isinstance(message, str) and message:
        return validation._trim(message)
    return validation._trim(str(rule.get("rule") or ""))


def _fallback_message(rule: Mapping[str, Any]) -> str:
    """ruleMessageOrDefault."""
    message = rule.get("message")
    if isinstance(message, str) and message:
        return validation._trim(message)
    return f"failed rule: {_rule_text(rule)}"


def _resource_view(value: Any) -> Any:
    """The value a rule sees at a resource's root: apiVersion, kind, and of metadata only name and
    generateName (model.WithTypeAndObjectMeta)."""
    if not isinstance(value, Mapping):
        return value
    out = dict(value)
    md = value.get("metadata")
    if isinstance(md, Mapping):
        out["metadata"] = {k: md[k] for k in ("name", "generateName") if k in md}
    return out


class RuleEvaluation:
    """Validator.validate over the object; stops at the first rule that runs out of the budget."""

    def __init__(self, version: tuple[int, int], ratcheting: bool, budget: int = RUNTIME_BUDGET) -> None:
        self.version = version
        self.ratcheting = ratcheting
        self.remaining = budget
        self.errors: list[FieldError] = []
        self.warnings: list[str] = []
        self.notes: list[str] = []
        self.evaluated = 0
        self.stopped = False

    def node(self, path: str | None, value: Any, old: Any, schema: Any, resource: bool,
             parent_unchanged: bool, top: bool = False, typemeta: bool = False) -> None:
        """``typemeta``: the top value's apiVersion or kind, whose failures are never ratcheted (both objects
        are converted to the same version and kind)."""
        if self.stopped or value is None or not isinstance(schema, Mapping):
            return
        correlated = old is not _ABSENT and old is not None
        unchanged = (_same(value, old) if correlated else parent_unchanged) and not typemeta
        rules = schema.get("x-kubernetes-validations")
        if isinstance(rules, list) and rules:
            self._expressions(path, value, old if correlated else _ABSENT, schema, rules, resource, unchanged)
            if self.stopped:
                return
        if isinstance(value, Mapping):
            correlatable = schema.get("x-kubernetes-map-type") in (None, "granular", "atomic")
            old_map = old if correlated and correlatable and isinstance(old, Mapping) else {}
            additional = schema.get("additionalProperties")
            if isinstance(additional, Mapping):
                for key, child in value.items():
                    self.node(_key(path, key), child, old_map.get(key, _ABSENT), additional,
                              bool(additional.get("x-kubernetes-embedded-resource")), unchanged)
            properties = schema.get("properties")
            if isinstance(properties, Mapping):
                for key, child in value.items():
                    prop = properties.get(key)
                    if isinstance(prop, Mapping):
                        self.node(_child(path, key), child, old_map.get(key, _ABSENT), prop,
                                  bool(prop.get("x-kubernetes-embedded-resource")), unchanged,
                                  typemeta=top and key in ("apiVersion", "kind"))
        elif isinstance(value, list) and isinstance(schema.get("items"), Mapping):
            items = schema["items"]
            olds = _correlated_items(schema, value, old if correlated else None)
            for i, item in enumerate(value):
                self.node(_index(path, i), item, olds(i), items,
                          bool(items.get("x-kubernetes-embedded-resource")), unchanged)

    def _expressions(self, path: str | None, value: Any, old: Any, schema: Mapping[str, Any],
                     rules: list[Any], resource: bool, unchanged: bool) -> None:
        node_type = schema.get("type") if isinstance(schema.get("type"), str) else ""
        if resource:
            node_type = "object"
        if self.remaining <= 0:
            self.errors.append(validation.invalid(_shown(path), node_type, OUT_OF_BUDGET))
            self.stopped = True
            return
        this = _resource_view(value) if resource else value
        before = _resource_view(old) if resource and old is not _ABSENT else old
        for rule in rules:
            if not isinstance(rule, Mapping) or not isinstance(rule.get("rule"), str) or not rule["rule"].strip():
                continue
            text = rule["rule"]
            uses_old = cel.mentions(text, "oldSelf")
            optional = rule.get("optionalOldSelf") is True and self.version >= (1, 30)  # CRDValidationRatcheting
            if uses_old and old is _ABSENT and not optional:
                continue  # a transition rule runs only where the value has an old value
            compiled = _compiled(_optional_old_self(text) if optional and uses_old else text, cel.VALIDATION,
                                 self.version)
            if compiled.error is not None:
                plain = _compiled(text, cel.VALIDATION, self.version)
                detail = plain.error if plain.error is not None else compiled.error
                self.errors.append(validation.invalid(_shown(path), node_type, f"rule compile error: {detail}"))
                continue
            data: dict[str, Any] = {"self": this}
            if uses_old:
                data["oldSelf"] = None if before is _ABSENT else before
            result, cost = self._run(compiled, data)
            self.evaluated += 1
            if cost is not None:
                if cost > self.remaining:
                    self.errors.append(validation.invalid(_shown(path), node_type, OUT_OF_BUDGET))
                    self.stopped = True
                    return
                self.remaining -= cost
                if cost > PER_CALL_LIMIT:
                    result = cel.EvaluationError("operation cancelled: actual cost limit exceeded")
            if isinstance(result, cel.EvaluationError):
                if self._runtime_error(path, node_type, rule, result):
                    return
                continue
            if result is True:
                continue
            self._failed(path, node_type, schema, rule, this, before, uses_old, unchanged)
            if self.stopped:
                return

    def _run(self, compiled: cel.Compiled, data: dict[str, Any]) -> tuple[Any, int | None]:
        with library.track_cost() as tracker:
            if compiled.unsafe or compiled.program is None:
                try:
                    result = cel.evaluate(compiled, data)
                except cel.EvaluationError as exc:
                    result = exc
            else:
                result = cel.attempt(compiled, data)
        program = compiled.checked_program or compiled.program
        try:
            cost = fast_cost.core_cost(program, data) + tracker.library_cost if program is not None else None
        except Exception:  # an estimate the estimator cannot make is not counted
            cost = None
        if isinstance(result, cel.EvaluationError) and result.engine_limit:
            self.notes.append(f"rule {compiled.expression!r}: {result} (a limit of the playground's engine)")
        return result, cost

    def _runtime_error(self, path: str | None, node_type: str, rule: Mapping[str, Any],
                       error: cel.EvaluationError) -> bool:
        """Record a rule's evaluation error; True when no further rule runs."""
        text = str(error)
        where = _shown(path)
        if text.startswith("no such overload"):
            self.errors.append(validation.invalid(where, node_type, f"'{text}': call arguments did not match a "
                                                  "supported operator, function or macro signature for rule: "
                                                  + _rule_text(rule)))
            return False
        if text.startswith("operation cancelled: actual cost limit exceeded"):
            self.errors.append(validation.invalid(where, node_type, f"'{text}': no further validation rules will "
                                                  "be run due to call cost exceeds limit for rule: "
                                                  + _rule_text(rule)))
            self.stopped = True
            return True
        self.errors.append(validation.invalid(where, node_type, f"{text} evaluating rule: {_rule_text(rule)}"))
        return False

    def _failed(self, path: str | None, node_type: str, schema: Mapping[str, Any], rule: Mapping[str, Any],
                this: Any, before: Any, uses_old: bool, unchanged: bool) -> None:
        where = path
        normalized = normalized_field_path(rule.get("fieldPath"), schema)
        if normalized:
            where = _child(path, normalized)
        detail = None
        expression = rule.get("messageExpression")
        if isinstance(expression, str) and expression:
            data: dict[str, Any] = {"self": this}
            if before is not _ABSENT:
                data["oldSelf"] = before
            detail = self._message(expression, data, _shown(where), node_type)
            if self.stopped:
                return
        if detail is None:
            detail = _fallback_message(rule)
        error = _reason_error(_shown(where), node_type, detail, rule.get("reason"))
        if not uses_old and self.ratcheting and unchanged:
            self.warnings.append(error.message)  # ratcheting: the value was already so in the stored object
        else:
            self.errors.append(error)

    def _message(self, expression: str, data: dict[str, Any], where: str, node_type: str) -> str | None:
        """evalMessageExpression: its trimmed text, or None to fall back on the rule's message."""
        compiled = _compiled(expression, cel.MESSAGE_EXPRESSION, self.version)
        if compiled.error is not None:
            return None
        result, cost = self._run(compiled, data)
        if cost is not None:
            if cost > self.remaining:
                self.errors.append(validation.invalid(where, node_type, "messageExpression evaluation failed due "
                                                      "to running out of cost budget, no further validation rules "
                                                      "will be run"))
                self.stopped = True
                return None
            if cost > PER_CALL_LIMIT:
                self.errors.append(validation.invalid(where, node_type, "no further validation rules will be run "
                                                      "due to call cost exceeds limit for messageExpression: "
                                                      + validation._go_quote(expression)))
                self.stopped = True
                return None
            self.remaining -= cost
        if not isinstance(result, str):
            return None
        text = validation._trim(result)
        if not text or "\n" in text or len(text.encode("utf-8", "surrogatepass")) > MESSAGE_EXPRESSION_MAX_BYTES:
            return None
        return text


def _reason_error(where: str, node_type: str, detail: str, reason: Any) -> FieldError:
    """fieldErrorForReason."""
    if reason == "FieldValueForbidden":
        return validation.forbidden(where, detail)
    if reason == "FieldValueRequired":
        return validation.required(where, detail)
    if reason == "FieldValueDuplicate":
        return validation.duplicate(where, node_type)
    return validation.invalid(where, node_type, detail)


_FIELD_PATH_TOKEN = re.compile(r"\.([^.\[\]]+)|\['((?:[^'\\]|\\.)*)'\]")


def normalized_field_path(text: Any, schema: Mapping[str, Any]) -> str:
    """A rule's fieldPath as the path it names below the rule's value (ValidFieldPath): a property by name
    (``.spec.x`` -> ``spec.x``), a key of a map by ``[key]``; empty when it has none (a CRD whose fieldPath
    is invalid is refused when created)."""
    if not isinstance(text, str) or not text:
        return ""
    path: str | None = None
    pos = 0
    node: Any = schema
    while pos < len(text):
        match = _FIELD_PATH_TOKEN.match(text, pos)
        if match is None or not isinstance(node, Mapping):
            return ""
        name = match.group(1) if match.group(1) is not None else re.sub(r"\\(.)", r"\1", match.group(2))
        properties = node.get("properties")
        if isinstance(properties, Mapping):
            if name not in properties:
                return ""
            path, node = _child(path, name), properties[name]
        elif isinstance(node.get("additionalProperties"), Mapping):
            path, node = _key(path, name), node["additionalProperties"]
        else:
            return ""
        pos = match.end()
    return path or ""
