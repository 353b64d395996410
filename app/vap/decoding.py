"""Decoding the request's object as kube-apiserver does, before any admission plugin sees it.

The apiserver decodes the body into the kind's typed object (k8s.io/apiserver/pkg/endpoints/handlers/
create.go and update.go, with the serializer of k8s.io/apimachinery/pkg/runtime/serializer/json):

* a value of the wrong JSON type fails the request with a 400 BadRequest, whatever the field validation:
  ``Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go
  struct field DeploymentSpec.spec.replicas of type int32`` (handlers/rest.go transformDecodeError);
* fields the Go types always have appear (a struct value as its zero value, a field without omitempty as
  null: :mod:`app.vap.defaulting.typed` lists those reproduced);
* a field the kind does not know is dropped; what the apiserver says of it depends on the request's
  ``fieldValidation`` (CreateOptions/UpdateOptions): ``Strict`` (what kubectl sends by default) fails the
  request with ``... cannot be handled as a Deployment: strict decoding error: unknown field "spec.x"``,
  ``Warn`` answers with a warning ``unknown field "spec.x"`` for each, ``Ignore`` says nothing;
* then the scheme's defaults are applied (:mod:`app.vap.defaulting`), or for a custom resource the
  ``default`` values of its CustomResourceDefinition's schema (:mod:`app.vap.defaulting.structural`); its
  unknown fields are pruned like a built-in kind's.

The old object of an UPDATE or DELETE is the stored object: it was decoded and defaulted when it was
stored, so it is decoded and defaulted here too, with nothing to refuse.

When the request pane says ``asStored: false`` none of this happens: the policies see the objects as
pasted.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from . import defaulting, fast
from .changes import REMOVE, Change, Path
from .defaulting import structural, typed
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
    unknown: tuple[str, ...] = ()  # the unknown fields dropped, as paths
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


def _findings(obj: Any, schemas: SchemaSet) -> list[Finding]:
    try:
        return check_object(obj, schemas)
    except RecursionError:  # nested deeper than any Kubernetes object
        return []


def unknown_fields(obj: Any, schemas: SchemaSet) -> list[Path]:
    """The paths of the fields of an object that its kind does not know."""
    return [f.path for f in _findings(obj, schemas) if f.message.startswith("unknown field ")]


def stored_findings(obj: Any, schemas: SchemaSet) -> tuple[tuple[Path, str] | None, list[tuple[Path, str]]]:
    """What decoding a stored object finds: its first decoding error (path and the apiserver's message), and
    its unknown fields (path and rendered path)."""
    if kind_schema(obj, schemas) is None:
        return None, []
    findings = _findings(obj, schemas)
    errors = [(f.path, f.message) for f in findings if "cannot be handled as a" in f.message]
    unknown = [(f.path, render_path(f.path)) for f in findings if f.message.startswith("unknown field ")]
    return (errors[0] if errors else None), unknown


def strict_error(obj: Mapping[str, Any], schema: KindSchema, unknown: list[str]) -> str:
    """The apiserver's error for an object with unknown fields under Strict field validation."""
    fields = ", ".join(f'unknown field "{path}"' for path in unknown)
    return f'{schema.kind} in version "{schema.version}" cannot be handled as a {schema.kind}: ' \
           f"strict decoding error: {fields}"


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
    findings = _findings(obj, schemas)
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
        value, defaulted = defaulting.apply(value, schema, schemas, version)
    made.extend(defaulted)
    return Decoded(value, tuple(render_path(p) for p in unknown), None, tuple(made))


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
