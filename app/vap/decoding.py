"""Decoding the request's object as kube-apiserver does, before any admission plugin sees it.

The apiserver decodes the body into the kind's typed object (k8s.io/apiserver/pkg/endpoints/handlers/
create.go and update.go, with the serializer of k8s.io/apimachinery/pkg/runtime/serializer/json):

* a value of the wrong JSON type fails the request with a 400 BadRequest, whatever the field validation:
  ``Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go
  struct field DeploymentSpec.spec.replicas of type int32`` (handlers/rest.go transformDecodeError);
* fields the Go types always have appear (a struct value as its zero value, a field without omitempty as
  null: :mod:`app.vap.defaulting.typed` lists those reproduced);
* a field the kind does not know is dropped, and a key the body gives twice keeps its last value; what the
  apiserver says of them depends on the request's ``fieldValidation`` (CreateOptions/UpdateOptions):
  ``Strict`` (what kubectl sends by default) fails the request with ``... cannot be handled as a
  Deployment: strict decoding error: unknown field "spec.x"``, ``Warn`` answers with a warning for each
  (``unknown field "spec.x"``), ``Ignore`` says nothing (:func:`strict_findings` says how repeated keys are
  worded and ordered);
* then the scheme's defaults are applied (:mod:`app.vap.defaulting`), or for a custom resource the
  ``default`` values of its CustomResourceDefinition's schema (:mod:`app.vap.defaulting.structural`); its
  unknown fields are pruned like a built-in kind's.

The old object of an UPDATE or DELETE is the stored object: it was decoded and defaulted when it was
stored, so it is decoded and defaulted here too, with nothing to refuse.

When the request pane says ``asStored: false`` none of this happens: the policies see the objects as
pasted.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from . import defaulting, fast
from .changes import REMOVE, Change, Path
from .defaulting import structural, typed
from .documents import Document
from .schemas import KindSchema, SchemaSet
from .schemas.validate import Finding, check_object, render_path

STRICT = "Strict"
WARN = "Warn"
IGNORE = "Ignore"
DECODING = "decoding"


@dataclass(frozen=True, slots=True)
class Decoded:
    """An object as the apiserver decoded and defaulted it."""

    value: Any
    unknown: tuple[Path, ...] = ()  # the unknown fields dropped
    error: str | None = None  # the decoder's error (a value of the wrong type): the request fails
    changes: tuple[Change, ...] = ()


def kind_schema(obj: Any, schemas: SchemaSet) -> KindSchema | None:
    """The schema of an object's own apiVersion and kind, None when unknown."""
    if not isinstance(obj, Mapping):
        return None
    api_version, kind = str(obj.get("apiVersion") or ""), str(obj.get("kind") or "")
    if not api_version or not kind or api_version.count("/") > 1:
        return None
    group, _, version = api_version.rpartition("/")
    return schemas.kind(group, version, kind)


def object_findings(obj: Any, schemas: SchemaSet) -> tuple[Finding, ...]:
    """What checking an object against its kind's schema finds (:func:`check_object`), worked out once per
    object and schemas while the fast paths keep it: the pasted object is checked for the warnings kubectl would
    give and decoded, by the same walk."""
    key = schemas.key
    found = _FINDINGS.get(obj, key)
    if found is None:
        try:
            found = tuple(check_object(obj, schemas))
        except RecursionError:  # nested deeper than any Kubernetes object
            found = ()
        _FINDINGS.put(obj, found, key)
    return found


_FINDINGS: fast.ByIdentity[tuple[Finding, ...]] = fast.ByIdentity("decoding.findings", 32)


def unknown_fields(obj: Any, schemas: SchemaSet) -> list[Path]:
    """The paths of the fields of an object that its kind does not know."""
    return [f.path for f in object_findings(obj, schemas) if f.message.startswith("unknown field ")]


@dataclass(frozen=True, slots=True)
class Strict:
    """A field strict decoding reports: one the kind does not know, or one the text gives twice."""

    path: Path  # where it is in the document
    message: str  # the apiserver's words for it, each a warning under Warn
    yaml: bool = False  # a key the YAML decoder found twice: under Strict, one error names them all

    @property
    def field(self) -> str:
        return render_path(self.path)


def stored_findings(doc: Document, schemas: SchemaSet) -> tuple[tuple[Path, str] | None, list[Strict]]:
    """What decoding a stored document finds: its first decoding error (path and the apiserver's message),
    and what strict decoding reports of it (:func:`strict_findings`)."""
    schema = kind_schema(doc.value, schemas)
    if schema is None:
        return None, []
    findings = object_findings(doc.value, schemas)
    errors = [(f.path, f.message) for f in findings if "cannot be handled as a" in f.message]
    unknown = [f.path for f in findings if f.message.startswith("unknown field ")]
    return (errors[0] if errors else None), strict_findings(schema, unknown, doc)


def strict_findings(schema: KindSchema, unknown: Sequence[Path], source: Document | None) -> list[Strict]:
    """What strict decoding reports of an object whose unknown fields are ``unknown``, read from the
    document ``source`` (its keys given twice), in the apiserver's order.

    The document is the request's body as written (k8s.io/apimachinery serializer/json ``unmarshal``):
    a YAML body is checked for keys given twice first (sigs.k8s.io/yaml ``YAMLToJSONStrict``: ``line 5:
    key "name" already set in map``, the line counted in the document), then decoded from the JSON its
    YAML converts to, whose keys are sorted, so the unknown fields come in that order. A JSON body is
    decoded as written (sigs.k8s.io/json ``UnmarshalStrict``): unknown and repeated fields (``duplicate
    field "spec.paused"``) in the order the text gives them, a repeated field inside an unknown one not
    reported; for a custom resource every repeated field comes first, then the fields its schema prunes.
    """
    duplicates = source.duplicates if source is not None else ()
    if source is None or not source.json:
        found = [Strict(d.path, f"line {d.line - source.first_line + 1}: key {_go_value(d.key)} already set in map",
                        yaml=True) for d in duplicates] if source is not None else []
        ordered = unknown if schema.custom else sorted(unknown, key=_json_order)
        return found + [Strict(path, f"unknown field {_quoted(render_path(path))}") for path in ordered]
    unknown_set = set(unknown)
    repeated = [(d.line, d.column, Strict(d.path, f"duplicate field {_quoted(render_path(d.path))}"))
                for d in duplicates
                if schema.custom or not any(d.path[:n] in unknown_set for n in range(1, len(d.path) + 1))]
    dropped = [Strict(path, f"unknown field {_quoted(render_path(path))}") for path in unknown]
    if schema.custom:
        return [strict for _, _, strict in repeated] + dropped
    placed = [(*_place(source, path), strict) for path, strict in zip(unknown, dropped, strict=True)]
    return [strict for _, _, strict in sorted([*placed, *repeated], key=lambda item: (item[0], item[1]))]


def _place(doc: Document, path: Path) -> tuple[int, int]:
    line, column = doc.locate(path)
    return line or 0, column or 0


def _json_order(path: Path) -> tuple[tuple[int, Any], ...]:
    """A field's place in JSON written from Go maps: keys sorted (as bytes: by code point), items in order."""
    return tuple((0, part) if isinstance(part, int) else (1, part) for part in path)


def _quoted(text: str) -> str:
    """A string as Go's ``strconv.Quote`` writes it, for the texts kube-apiserver uses."""
    return json.dumps(text, ensure_ascii=False)


def _go_value(key: Any) -> str:
    """A YAML key as Go's ``%#v`` writes the value go-yaml decoded it to."""
    if isinstance(key, str):
        return _quoted(key)
    if isinstance(key, bool):
        return "true" if key else "false"
    if key is None:
        return "<nil>"
    return str(key)


def strict_error(obj: Mapping[str, Any], schema: KindSchema, found: Sequence[Strict]) -> str:
    """The apiserver's error for an object strict decoding reports fields of, under Strict field validation
    (runtime.NewStrictDecodingError: each error, ``, `` between them; the YAML decoder's one error lists
    its lines)."""
    errors: list[str] = []
    lines = [strict.message for strict in found if strict.yaml]
    if lines:
        errors.append("yaml: unmarshal errors:\n  " + "\n  ".join(lines))
    errors.extend(strict.message for strict in found if not strict.yaml)
    return f'{schema.kind} in version "{schema.version}" cannot be handled as a {schema.kind}: ' \
           f"strict decoding error: {', '.join(errors)}"


def decode(obj: Any, schemas: SchemaSet, version: tuple[int, int]) -> Decoded:
    """An object as the apiserver decodes and defaults it (the same Decoded for the same object, version and
    schemas while the fast paths keep it). Objects of a kind without a schema are taken as they are."""
    key = (version, schemas.key)
    found = _DECODED.get(obj, key)
    if found is not None:
        return found
    decoded = _decode(obj, schemas, version)
    _DECODED.put(obj, decoded, key)
    return decoded


_DECODED: fast.ByIdentity[Decoded] = fast.ByIdentity("decoding.objects", 32)


def _decode(obj: Any, schemas: SchemaSet, version: tuple[int, int]) -> Decoded:
    schema = kind_schema(obj, schemas)
    if schema is None or not isinstance(obj, dict):
        return Decoded(obj)
    findings = object_findings(obj, schemas)
    errors = [f.message for f in findings if "cannot be handled as a" in f.message]
    if errors:
        return Decoded(obj, error=errors[0])
    unknown = [f.path for f in findings if f.message.startswith("unknown field ")]
    value: Any = obj
    made: list[Change] = []
    if unknown:
        value = _without(obj, unknown)
        made = [Change(DECODING, path, REMOVE, _at(obj, path)) for path in unknown]
    if schema.custom:
        value, defaulted = structural.apply(value, schema.root)
    else:
        value, added = defaulting.apply(value, schema, schemas, version, registry=typed.REGISTRY, stage=DECODING)
        made.extend(added)
        value, canonical = typed.canonical_quantities(value, schema.root, schemas)
        made.extend(canonical)
        # (the typed decoding's copy, with the containers canonical_quantities made new: the walk's own)
        value, defaulted = defaulting.apply(value, schema, schemas, version, owned=True)
    made.extend(defaulted)
    return Decoded(value, tuple(unknown), None, tuple(made))


def _at(value: Any, path: Path) -> Any:
    for part in path:
        value = value[part]
    return value


def _without(obj: dict[str, Any], paths: list[Path]) -> dict[str, Any]:
    """A copy of ``obj`` without the fields at ``paths`` (only the containers on their way are copied)."""
    out = dict(obj)
    for path in paths:
        parent: Any = out
        for part in path[:-1]:
            child = parent[part]
            child = dict(child) if isinstance(child, dict) else list(child)
            parent[part] = child
            parent = child
        parent.pop(path[-1], None)
    return out
