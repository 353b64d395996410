"""The ``JSONPatch`` mutation of a MutatingAdmissionPolicy: RFC 6902 as kube-apiserver applies it.

Restates k8s.io/apiserver ``pkg/admission/plugin/policy/mutating/patch/json_patch.go`` and the JSON
Patch library it vendors (``gopkg.in/evanphx/json-patch.v4``, release 4.13.0, with the library's
global options left at their defaults as the apiserver leaves them: negative array indices allowed,
no limit on what ``copy`` may add). That library is not a plain RFC 6902 implementation, and the
apiserver's answers follow it, so this module does too:

- ``replace`` of a missing object member adds it; ``replace`` of a missing array index or of ``-`` fails;
- ``add`` at index ``-`` appends, a negative index counts from the end (``-1`` on an add is the end);
- a path without a leading ``/`` ignores its first segment; the empty path addresses the whole
  document only for ``replace`` and ``test``;
- ``test`` compares members and items structurally but scalars by their JSON text, so the number a
  CEL expression produced matches the document's integer of the same value, but a string holding
  ``<``, ``>``, ``&``, U+2028 or U+2029 never matches the document's (the document's text escapes
  those, the expression's does not); ``null`` in the document (or a missing member) never equals a
  ``null`` value, while an object or array node equals ``null`` if empty;
- errors are the library's texts, e.g. ``add operation does not apply: doc is missing path:
  "/spec/x/y": missing value``; the apiserver prefixes them with ``JSON Patch: ``.

Release 4.12.0 (vendored by earlier apiservers) differs only where 4.13.0 fixed crashes and silences: there a
``test`` without a value on a missing member crashes, and ``replace`` of the whole document with a scalar is
silently skipped; this module answers as 4.13.0 does (the test passes; ``replace operation value must be object
or array: %!w(<nil>)``).

Operations are plain mappings ``{"op", "path"[, "from"][, "value"]}``, built by :func:`operation`
from a ``JSONPatch`` value as the apiserver builds them (``from`` only when non-empty, ``value`` only
when set, numbers through float64). Documents are plain JSON values; the input is never modified.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from app.vap.decoding import kind_schema, object_findings
from app.vap.mutating.applyconfig import ObjectValue, check_type_names
from app.vap.schemas import SchemaSet
from app.vap.schemas.validate import render_path
from app.vap.validation import _go_float, _go_json, _go_quote

__all__ = [
    "ABSENT", "JSONPatchError", "MutationError", "PatchTestFailed", "apply_json_patch_mutation", "apply_patch",
    "decode_patched", "escape_key", "operation", "wire_value",
]


class _Absent:
    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Any = _Absent()  # a JSONPatch field that was not set


class JSONPatchError(Exception):
    """An error of the patch library; ``str()`` is its text (without the apiserver's prefix)."""

    def __init__(self, message: str, *, panic: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.panic = panic  # the library would have crashed (a Go runtime panic) rather than return an error


class PatchTestFailed(JSONPatchError):
    """A ``test`` operation did not hold (the library's ErrTestFailed)."""


class MutationError(Exception):
    """The error a JSONPatch mutation ends with, in the apiserver's words (``JSON Patch: ...``)."""

    def __init__(self, message: str, *, code: int = 0) -> None:
        super().__init__(message)
        self.message = message
        # 500 when the apiserver answers with an InternalError status itself (the failurePolicy does not apply)
        self.code = code


_MISSING = "missing value"
_INVALID_INDEX = "invalid index referenced"


def escape_key(key: str) -> str:
    """CEL ``jsonpatch.escapeKey``: a map key made safe for a JSON Pointer (``~`` -> ``~0``, ``/`` -> ``~1``)."""
    return key.replace("~", "~0").replace("/", "~1")


def _unescape(token: str) -> str:
    """RFC 6901 decoding of one reference token, in one pass as the library does."""
    return re.sub("~[01]", lambda m: "/" if m.group() == "~1" else "~", token)


# ---------------------------------------------------------------------------------------------
# building operations as the apiserver does


def wire_value(value: Any) -> Any:
    """A JSON value as it reaches the library: numbers pass through float64 (protobuf's Value).

    Raises :class:`MutationError` for a value JSON cannot carry (NaN, infinities, non-string keys).
    """
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int | float):
        f = float(value)
        if math.isnan(f) or math.isinf(f):
            shown = "NaN" if math.isnan(f) else ("+Inf" if f > 0 else "-Inf")
            raise MutationError("JSONPath valueExpression evaluated to a type that could not marshal to JSON: "
                                "json: error calling MarshalJSON for type *structpb.Value: "
                                f"proto: google.protobuf.Value.number_value: invalid {shown} value")
        if f.is_integer() and abs(f) < 2.0**63:
            return int(f)
        return f
    if isinstance(value, Mapping):
        return {str(k): wire_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [wire_value(v) for v in value]
    raise MutationError("JSONPath valueExpression evaluated to a type that could not marshal to JSON: "
                        f"unsupported value {value!r}")


def operation(op: str, path: str, from_: str = "", value: Any = ABSENT) -> dict[str, Any]:
    """One patch operation from the fields of a CEL ``JSONPatch`` value, as the apiserver builds it.

    A value that is itself an ``Object...`` value (:class:`~app.vap.mutating.applyconfig.ObjectValue`) has its
    type names checked against its field paths first (``type mismatch: ...``); one inside a list or map is not.
    """
    out: dict[str, Any] = {"op": op, "path": path}
    if from_:
        out["from"] = from_
    if value is not ABSENT:
        if isinstance(value, ObjectValue) and (problem := check_type_names(value)):
            raise MutationError(problem)
        out["value"] = wire_value(value)
    return out


# ---------------------------------------------------------------------------------------------
# the library's lazily decoded document

_RAW, _DOC, _ARY = 0, 1, 2


class _Node:
    """One value of the document: undecoded (``raw``) until an operation looks inside it."""

    __slots__ = ("ary", "doc", "html", "raw", "which")

    def __init__(self, raw: Any, html: bool) -> None:
        self.raw = raw  # a plain JSON value
        self.html = html  # its text escapes <, >, & (Go's encoder) or not (the expression's value)
        self.doc: _Doc | None = None
        self.ary: _Ary | None = None
        self.which = _RAW


def _wrap(value: Any, html: bool) -> _Node | None:
    return None if value is None else _Node(value, html)  # a JSON null decodes to a nil node


class _Doc:
    """An object; ``items`` is None for Go's nil map (what ``null`` decodes to)."""

    __slots__ = ("items",)

    def __init__(self, items: dict[str, _Node | None] | None) -> None:
        self.items = items

    def get(self, key: str) -> _Node | None:
        return None if self.items is None else self.items.get(key)

    def add(self, key: str, node: _Node | None) -> None:
        if self.items is None:
            raise JSONPatchError("assignment to entry in nil map", panic=True)
        self.items[key] = node

    set = add

    def remove(self, key: str) -> None:
        if self.items is None or key not in self.items:
            raise JSONPatchError(f"Unable to remove nonexistent key: {key}: {_MISSING}")
        del self.items[key]


_ATOI = re.compile("[+-]?[0-9]+")


def _atoi(text: str) -> int:
    if not _ATOI.fullmatch(text):
        raise JSONPatchError(f"strconv.Atoi: parsing {_go_quote(text)}: invalid syntax")
    n = int(text)
    if not -(2**63) <= n < 2**63:
        raise JSONPatchError(f"strconv.Atoi: parsing {_go_quote(text)}: value out of range")
    return n


def _bad_index(idx: int) -> JSONPatchError:
    return JSONPatchError(f"Unable to access invalid index: {idx}: {_INVALID_INDEX}")


class _Ary:
    """An array; ``items`` is None for Go's nil slice."""

    __slots__ = ("items",)

    def __init__(self, items: list[_Node | None] | None) -> None:
        self.items = items

    def _list(self) -> list[_Node | None]:
        return self.items if self.items is not None else []

    def get(self, key: str) -> _Node | None:
        idx, items = _atoi(key), self._list()
        if idx < 0:
            if idx < -len(items):
                raise _bad_index(idx)
            idx += len(items)
        if idx >= len(items):
            raise _bad_index(idx)
        return items[idx]

    def set(self, key: str, node: _Node | None) -> None:  # only after get() accepted the key
        idx, items = _atoi(key), self._list()
        if idx < 0:
            idx += len(items)
        items[idx] = node

    def add(self, key: str, node: _Node | None) -> None:
        items = self._list()
        if key == "-":
            self.items = [*items, node]
            return
        try:
            idx = _atoi(key)
        except JSONPatchError as e:
            raise JSONPatchError(f"value was not a proper array index: '{key}': {e}") from None
        size = len(items) + 1
        if idx >= size:
            raise _bad_index(idx)
        if idx < 0:
            if idx < -size:
                raise _bad_index(idx)
            idx += size
        self.items = [*items[:idx], node, *items[idx:]]

    def remove(self, key: str) -> None:
        idx, items = _atoi(key), self._list()
        if idx >= len(items):
            raise _bad_index(idx)
        if idx < 0:
            if idx < -len(items):
                raise _bad_index(idx)
            idx += len(items)
        self.items = items[:idx] + items[idx + 1 :]


_Container = _Doc | _Ary


def _try_doc(node: _Node) -> bool:
    if isinstance(node.raw, dict):
        node.doc = _Doc({str(k): _wrap(v, node.html) for k, v in node.raw.items()})
    elif node.raw is None:
        node.doc = _Doc(None)
    else:
        return False
    node.which = _DOC
    return True


def _try_ary(node: _Node) -> bool:
    if isinstance(node.raw, list):
        node.ary = _Ary([_wrap(v, node.html) for v in node.raw])
    elif node.raw is None:
        node.ary = _Ary(None)
    else:
        return False
    node.which = _ARY
    return True


def _into_doc(node: _Node) -> _Doc | None:
    if node.which == _DOC or _try_doc(node):
        return node.doc
    return None


def _into_ary(node: _Node) -> _Ary | None:
    if node.which == _ARY or _try_ary(node):
        return node.ary
    return None


def _find(root: _Container, path: str) -> tuple[_Container | None, str]:
    """The container the path's last token is in, and that token decoded (the library's findObject)."""
    tokens = path.split("/")
    if len(tokens) < 2:
        return None, ""
    container: _Container = root
    for token in tokens[1:-1]:
        try:
            child = container.get(_unescape(token))
        except JSONPatchError:
            return None, ""
        if child is None:
            return None, ""
        found = _into_ary(child) if isinstance(child.raw, list) else _into_doc(child)
        if found is None:
            return None, ""
        container = found
    return container, _unescape(tokens[-1])


def _proto_string(s: str) -> str:
    """A string as protobuf's JSON encoder writes it (no HTML escaping)."""
    out = ['"']
    for ch in s:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch in "\b\f\n\r\t":
            out.append({"\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}[ch])
        elif ch < " ":
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _scalar_text(node: _Node) -> str:
    value = node.raw
    if isinstance(value, str):
        return _go_json(value) if node.html else _proto_string(value)
    if isinstance(value, float):
        return _go_float(value, json=True)
    if isinstance(value, bool | int) or value is None:
        return _go_json(value)
    return "\x00container"  # never equal to a scalar's text


def _equal(n: _Node, o: _Node) -> bool:
    """The library's structural equality (first operand: the document's node, second: the value)."""
    if n.which == _RAW and not _try_doc(n) and not _try_ary(n):
        return o.which == _RAW and _scalar_text(n) == _scalar_text(o)
    if n.which == _DOC:
        if o.which == _RAW and not _try_doc(o):
            return False
        if o.which != _DOC:
            return False
        mine = (n.doc.items if n.doc else None) or {}
        theirs = (o.doc.items if o.doc else None) or {}
        if len(mine) != len(theirs):
            return False
        for key, value in mine.items():
            if key not in theirs:
                return False
            other = theirs[key]
            if (value is None) != (other is None):
                return False
            if value is not None and other is not None and not _equal(value, other):
                return False
        return True
    if o.which != _ARY and not _try_ary(o):
        return False
    mine_items = (n.ary.items if n.ary else None) or []
    their_items = (o.ary.items if o.ary else None) or []
    if len(mine_items) != len(their_items):
        return False
    for value, other in zip(mine_items, their_items, strict=True):
        if value is None or other is None:  # Go dereferences the nil node here and crashes
            raise JSONPatchError("invalid memory address or nil pointer dereference", panic=True)
        if not _equal(value, other):
            return False
    return True


def _copy_json(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy_json(v) for v in value]
    return value


def _marshal(node: _Node | None) -> Any:
    if node is None:
        return None
    if node.which == _DOC:
        return _marshal_container(node.doc) if node.doc is not None else None
    if node.which == _ARY:
        return _marshal_container(node.ary) if node.ary is not None else None
    return _copy_json(node.raw)


def _marshal_container(container: _Container) -> Any:
    if container.items is None:
        return None
    if isinstance(container, _Doc):
        return {k: _marshal(v) for k, v in container.items.items()}
    return [_marshal(v) for v in container.items]


# ---------------------------------------------------------------------------------------------
# operations

_JSON_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def _decode_field(op: Mapping[str, Any], name: str) -> tuple[str, str | None]:
    """A string field as the library reads it: the apiserver writes it with Go's %q quoting, which
    JSON cannot always read back (``\\a``, ``\\v``, ``\\x..``, ``\\U........``)."""
    if name not in op or op[name] is None:
        what = "operation missing path field" if name == "path" else f"operation, missing {name} field"
        return "unknown", f"{what}: {_MISSING}"
    quoted = _go_quote(str(op[name]))[1:-1]
    out: list[str] = []
    i = 0
    while i < len(quoted):
        ch = quoted[i]
        if ch != "\\":
            out.append(ch)
            i += 1
            continue
        escape = quoted[i + 1]
        if escape in _JSON_ESCAPES:
            out.append(_JSON_ESCAPES[escape])
            i += 2
        elif escape == "u":
            out.append(chr(int(quoted[i + 2 : i + 6], 16)))
            i += 6
        else:
            return "unknown", f"invalid character '{escape}' in string escape code"
    return "".join(out), None


def _kind(op: Mapping[str, Any]) -> str:
    kind, err = _decode_field(op, "op")
    return "unknown" if err else kind


def _value(op: Mapping[str, Any]) -> _Node | None:
    return _Node(op["value"], False) if "value" in op else None


def _fail(message: str, cause: JSONPatchError | None = None) -> JSONPatchError:
    return JSONPatchError(message, panic=cause.panic if cause else False)


class _Patcher:
    def __init__(self, root: _Container) -> None:
        self.root = root

    def add(self, op: Mapping[str, Any]) -> None:
        path, err = _decode_field(op, "path")
        if err:
            raise _fail(f"add operation failed to decode path: {_MISSING}")
        container, key = _find(self.root, path)
        if container is None:
            raise _fail(f'add operation does not apply: doc is missing path: "{path}": {_MISSING}')
        try:
            container.add(key, _value(op))
        except JSONPatchError as e:
            raise _fail(f"error in add for path: '{path}': {e}", e) from None

    def remove(self, op: Mapping[str, Any]) -> None:
        path, err = _decode_field(op, "path")
        if err:
            raise _fail(f"remove operation failed to decode path: {_MISSING}")
        container, key = _find(self.root, path)
        if container is None:
            raise _fail(f'remove operation does not apply: doc is missing path: "{path}": {_MISSING}')
        try:
            container.remove(key)
        except JSONPatchError as e:
            raise _fail(f"error in remove for path: '{path}': {e}", e) from None

    def replace(self, op: Mapping[str, Any]) -> None:
        path, err = _decode_field(op, "path")
        if err:
            raise _fail(f"replace operation failed to decode path: {err}")
        if path == "":
            node = _value(op)
            if node is None:
                raise JSONPatchError("invalid memory address or nil pointer dereference", panic=True)
            if node.which == _RAW and not _try_doc(node) and not _try_ary(node):
                raise _fail("replace operation value must be object or array: %!w(<nil>)")
            whole = node.doc if node.which == _DOC else node.ary
            assert whole is not None
            self.root = whole
            return
        container, key = _find(self.root, path)
        if container is None:
            raise _fail(f"replace operation does not apply: doc is missing path: {path}: {_MISSING}")
        try:
            container.get(key)
        except JSONPatchError:
            raise _fail(f"replace operation does not apply: doc is missing key: {path}: {_MISSING}") from None
        try:
            container.set(key, _value(op))
        except JSONPatchError as e:
            raise _fail(f"error in remove for path: '{path}': {e}", e) from None  # sic: "remove"

    def move(self, op: Mapping[str, Any]) -> None:
        source, err = _decode_field(op, "from")
        if err:
            raise _fail(f"move operation failed to decode from: {err}")
        container, key = _find(self.root, source)
        if container is None:
            raise _fail(f"move operation does not apply: doc is missing from path: {source}: {_MISSING}")
        try:
            node = container.get(key)
            container.remove(key)
        except JSONPatchError as e:
            raise _fail(f"error in move for path: '{key}': {e}", e) from None
        path, err = _decode_field(op, "path")
        if err:
            raise _fail(f"move operation failed to decode path: {err}")
        container, key = _find(self.root, path)
        if container is None:
            raise _fail(f"move operation does not apply: doc is missing destination path: {path}: {_MISSING}")
        try:
            container.add(key, node)
        except JSONPatchError as e:
            raise _fail(f"error in move for path: '{path}': {e}", e) from None

    def test(self, op: Mapping[str, Any]) -> None:
        path, err = _decode_field(op, "path")
        if err:
            raise _fail(f"test operation failed to decode path: {err}")
        failed = PatchTestFailed(f"testing value {path} failed: test failed")
        expected = _value(op)
        if path == "":
            whole = _Node(None, True)
            if isinstance(self.root, _Doc):
                whole.doc, whole.which = self.root, _DOC
            else:
                whole.ary, whole.which = self.root, _ARY
            if expected is None:
                raise JSONPatchError("invalid memory address or nil pointer dereference", panic=True)
            if _equal(whole, expected):
                return
            raise failed
        container, key = _find(self.root, path)
        if container is None:
            raise _fail(f"test operation does not apply: is missing path: {path}: {_MISSING}")
        try:
            actual = container.get(key)
        except JSONPatchError as e:
            raise _fail(f"error in test for path: '{path}': {e}", e) from None
        if actual is None:
            if expected is None:
                return
            raise failed
        if expected is None:
            raise failed
        if not _equal(actual, expected):
            raise failed

    def copy(self, op: Mapping[str, Any]) -> None:
        source, err = _decode_field(op, "from")
        if err:
            raise _fail(f"copy operation failed to decode from: {err}")
        container, key = _find(self.root, source)
        if container is None:
            raise _fail(f"copy operation does not apply: doc is missing from path: {source}: {_MISSING}")
        try:
            node = container.get(key)
        except JSONPatchError as e:
            raise _fail(f"error in copy for from: '{source}': {e}", e) from None
        path, err = _decode_field(op, "path")
        if err:
            raise _fail(f"copy operation failed to decode path: {_MISSING}")
        container, key = _find(self.root, path)
        if container is None:
            raise _fail(f"copy operation does not apply: doc is missing destination path: {path}: {_MISSING}")
        duplicate = None if node is None else _Node(_marshal(node), True)
        try:
            container.add(key, duplicate)
        except JSONPatchError as e:
            raise _fail(f"error while adding value during copy: {e}", e) from None


def apply_patch(document: Any, operations: Iterable[Mapping[str, Any]]) -> Any:
    """Apply operations in order as the library does; raise :class:`JSONPatchError` at the first failure.

    A failed ``test`` raises :class:`PatchTestFailed`. The result is a new JSON value.
    """
    if isinstance(document, list):
        root: _Container = _Ary([_wrap(v, True) for v in document])
    elif isinstance(document, dict):
        root = _Doc({str(k): _wrap(v, True) for k, v in document.items()})
    else:
        raise JSONPatchError("json: cannot unmarshal into the patch document")
    patcher = _Patcher(root)
    for op in operations:
        kind = _kind(op)
        step = {"add": patcher.add, "remove": patcher.remove, "replace": patcher.replace, "move": patcher.move,
                "test": patcher.test, "copy": patcher.copy}.get(kind)
        if step is None:
            raise JSONPatchError(f"Unexpected kind: {kind}")
        step(op)
    return _marshal_container(patcher.root)


@dataclass(frozen=True)
class JSONPatchOutcome:
    """What one JSONPatch mutation did: the object after it, or the object unchanged after a failed test."""

    object: Any
    test_failed: str = ""  # the failed test's text when the patch was dropped


def apply_json_patch_mutation(obj: Mapping[str, Any], operations: Iterable[Mapping[str, Any]]) -> JSONPatchOutcome:
    """The apiserver's JSONPatch mutation step (json_patch.go): a failed ``test`` leaves the object as it
    was (no error), any other failure raises :class:`MutationError` (``JSON Patch: <library text>``).

    The caller still decodes the result into the kind (unknown fields, types) and defaults it.
    """
    try:
        patched = apply_patch(dict(obj), operations)
    except PatchTestFailed as e:
        return JSONPatchOutcome(_copy_json(dict(obj)), test_failed=str(e))
    except JSONPatchError as e:
        raise MutationError(f"JSON Patch: {e}") from None
    return JSONPatchOutcome(patched)


def decode_patched(obj: Any, schemas: SchemaSet) -> None:
    """The apiserver's strict decoding of a patched built-in object back into its Go type (json_patch.go).

    Raises :class:`MutationError` (code 500, ``Internal error occurred: ...``) for a value of the wrong type
    (``json: cannot unmarshal ...``) or for fields the kind does not have (``strict decoding error: unknown
    field "spec.x"``). Custom resources are decoded as unstructured content: nothing is refused.
    """
    schema = kind_schema(obj, schemas)
    if schema is None or schema.custom:
        return
    findings = object_findings(obj, schemas)  # (kept: the decoding after the mutation reads them again)
    marker = f"cannot be handled as a {schema.kind}: "
    for finding in findings:
        if marker in finding.message:
            detail = finding.message.split(marker, 1)[1]
            raise MutationError(f"Internal error occurred: {detail}", code=500)
    unknown = [f'unknown field "{render_path(f.path)}"' for f in findings if f.message.startswith("unknown field ")]
    if unknown:
        raise MutationError("Internal error occurred: strict decoding error: " + ", ".join(unknown), code=500)
