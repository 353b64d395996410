"""Defaulting and API validation of ValidatingAdmissionPolicy(Binding) objects, as kube-apiserver does it.

Mirrors k8s.io/kubernetes pkg/apis/admissionregistration/{v1,v1beta1,v1alpha1}/defaults.go and
pkg/apis/admissionregistration/validation/validation.go, with apimachinery's format checks
(pkg/util/validation, pkg/api/validate/content) and error rendering (pkg/util/validation/field).
Objects are plain dicts as parsed from YAML/JSON. Messages follow Kubernetes 1.35+ (apimachinery
0.35+: label keys and values say "bytes"; composite values are rendered as JSON) unless
``messages_for(version)`` selects an older server's texts: up to 1.34 lengths say "characters" and a
label key with several slashes is "a qualified name", up to 1.33 composite values are printed with
Go's %#v (``[]string{"*/*", "a"}``).

CEL is not compiled here: pass ``compile_check`` to ``validate_policy`` to have compile errors
placed where the apiserver reports them, or append them afterwards with ``invalid()``.
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from .changes import tree_copy

__all__ = [
    "CompileCheck", "ExpressionSite", "FieldError", "aggregate_message", "default_binding", "default_policy",
    "duplicate", "forbidden", "internal_error", "invalid", "not_supported", "required", "too_long",
    "too_many", "validate_binding", "validate_policy", "messages_for",
]


@dataclass(frozen=True)
class _Texts:
    json_values: bool  # apimachinery >= 0.34: composite bad values as JSON, before: Go %#v
    content_bytes: bool  # apimachinery >= 0.35: label key/value lengths in "bytes", before: "characters"


_LATEST = _Texts(json_values=True, content_bytes=True)
_TEXTS: contextvars.ContextVar[_Texts | None] = contextvars.ContextVar("validation_texts", default=None)


def _texts() -> _Texts:
    return _TEXTS.get() or _LATEST


@contextlib.contextmanager
def messages_for(version: tuple[int, int]) -> Iterator[None]:
    """Render validation messages as the apiserver of ``version`` (major, minor) does, within the block."""
    token = _TEXTS.set(_Texts(json_values=version >= (1, 34), content_bytes=version >= (1, 35)))
    try:
        yield
    finally:
        _TEXTS.reset(token)


class _GoValue:
    """A composite bad value with its Go type, for the %#v rendering of apimachinery before 0.34."""

    def __init__(self, go_type: str, value: list[Any], fields: tuple[tuple[str, str], ...] = ()) -> None:
        self.go_type = go_type  # e.g. "[]string", "[]admissionregistration.ValidationAction"
        self.value = value
        self.fields = fields  # for a slice of structs: (Go field name, key in each item)

    def go_syntax(self) -> str:
        if self.fields:
            element = self.go_type[2:]
            items = [
                element + "{" + ", ".join(f"{go}:{_go_quote(str(item.get(key, '')))}" for go, key in self.fields) + "}"
                for item in self.value
            ]
        else:
            items = [_go_quote(str(v)) for v in self.value]
        return self.go_type + "{" + ", ".join(items) + "}"

    def json_value(self) -> Any:
        if self.fields:
            return [{go: str(item.get(key, "")) for go, key in self.fields} for item in self.value]
        return self.value

# ---------------------------------------------------------------------------------------------
# field.Error and its rendering


@dataclass(frozen=True)
class FieldError:
    """One apimachinery field.Error, already rendered."""

    type: str  # apimachinery ErrorType name, e.g. "FieldValueInvalid"
    field: str  # e.g. "spec.validations[0].expression"
    detail: str
    message: str  # "<field>: <body>", exactly as Error() renders it

    def body(self) -> str:
        """The text after "<field>: " (the message of a Status cause)."""
        return self.message[len(self.field) + 2 :]


class _Named(str):
    """A Go named string type (e.g. FailurePolicyType): field.Error renders it through JSON, not %q."""


class RenderedValue(str):
    """A bad value already written as field.Error prints it (a Go struct's JSON, in its fields' order)."""


# ErrorType names and their texts; the first group never shows the bad value.
_NO_VALUE = {"FieldValueRequired": "Required value", "FieldValueForbidden": "Forbidden",
             "FieldValueTooLong": "Too long", "FieldValueTooShort": "Too short",
             "InternalError": "Internal error"}
_WITH_VALUE = {"FieldValueInvalid": "Invalid value", "FieldValueTypeInvalid": "Invalid value",
               "FieldValueNotSupported": "Unsupported value", "FieldValueNotFound": "Not found",
               "FieldValueDuplicate": "Duplicate value", "FieldValueTooMany": "Too many",
               "FieldValueTooFew": "Too few"}


def _error(type_: str, field: str, value: Any, detail: str) -> FieldError:
    if type_ in _NO_VALUE:
        body = _NO_VALUE[type_]
    else:
        body = f"{_WITH_VALUE[type_]}: {_render_value(value)}"
    if detail:
        body += f": {detail}"
    return FieldError(type=type_, field=field, detail=detail, message=f"{field}: {body}")


def invalid(field: str, value: object, detail: str) -> FieldError:
    """field.Invalid: ``<field>: Invalid value: <value>: <detail>``."""
    return _error("FieldValueInvalid", field, value, detail)


def required(field: str, detail: str = "") -> FieldError:
    """field.Required: ``<field>: Required value[: <detail>]``."""
    return _error("FieldValueRequired", field, "", detail)


def forbidden(field: str, detail: str) -> FieldError:
    """field.Forbidden: ``<field>: Forbidden: <detail>``."""
    return _error("FieldValueForbidden", field, "", detail)


def duplicate(field: str, value: object) -> FieldError:
    """field.Duplicate: ``<field>: Duplicate value: <value>``."""
    return _error("FieldValueDuplicate", field, value, "")


def not_supported(field: str, value: object, supported: list[str]) -> FieldError:
    """field.NotSupported; ``supported`` is listed in the given order (callers sort, as Go's sets do)."""
    detail = "supported values: " + ", ".join(_go_quote(v) for v in supported) if supported else ""
    return _error("FieldValueNotSupported", field, value, detail)


def too_many(field: str, actual: int, maximum: int) -> FieldError:
    """field.TooMany: ``<field>: Too many: <n>: must have at most <max> items``."""
    return _error("FieldValueTooMany", field, actual,
                  f"must have at most {maximum} {_plural(maximum, 'item')}")


def too_long(field: str, maximum: int) -> FieldError:
    """field.TooLong (the value is never shown): ``<field>: Too long: may not be more than <n> bytes``."""
    return _error("FieldValueTooLong", field, "",
                  f"may not be more than {maximum} {_plural(maximum, 'byte')}")


def _plural(n: int, noun: str) -> str:
    return noun if n == 1 else noun + "s"


def internal_error(field: str, detail: str) -> FieldError:
    """field.InternalError: ``<field>: Internal error: <detail>``."""
    return _error("InternalError", field, None, detail)


def aggregate_message(kind: str, name: str, errors: list[FieldError]) -> str:
    """The 422 Status message of apierrors.NewInvalid (duplicates removed, several errors bracketed)."""
    head = f"{kind}.admissionregistration.k8s.io {_go_quote(name)} is invalid"
    messages = list(dict.fromkeys(e.message for e in errors))
    if not messages:
        return head
    if len(messages) == 1:
        return f"{head}: {messages[0]}"
    return f"{head}: [{', '.join(messages)}]"


def _render_value(value: Any) -> str:
    """ErrorBody's value: Go %v for bools and numbers, %q for plain strings, JSON for everything else."""
    if isinstance(value, _GoValue):
        return _go_json(value.json_value()) if _texts().json_values else value.go_syntax()
    if isinstance(value, RenderedValue):
        return str(value)
    if isinstance(value, _Named):
        if not _texts().json_values:
            return _go_quote(str(value))
        return _go_json(str(value))
    if isinstance(value, str):
        return _go_quote(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _go_float(value, json=False)
    try:
        return _go_json(value)
    except RecursionError:  # absurdly nested input; Go would print something, never crash
        return "<value omitted>"


_GO_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v"}


def _go_string(s: str) -> str:
    """What Go holds after decoding: lone surrogates (invalid UTF-16 in JSON) become U+FFFD."""
    return re.sub("[\ud800-\udfff]", "\ufffd", s)


def _go_quote(s: str) -> str:
    """strconv.Quote / %q."""
    out = ['"']
    for ch in _go_string(s):
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch in _GO_ESCAPES:
            out.append(_GO_ESCAPES[ch])
        elif ch.isprintable():  # Go's unicode.IsPrint: L, M, N, P, S and the ASCII space
            out.append(ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\x{ord(ch):02x}")
        elif ord(ch) < 0x10000:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(f"\\U{ord(ch):08x}")
    out.append('"')
    return "".join(out)


_JSON_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f",
                 "<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def _go_json(value: Any) -> str:
    """encoding/json.Marshal: compact, map keys sorted, HTML characters escaped."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _go_float(value, json=True)
    if isinstance(value, str):
        chars = (_JSON_ESCAPES.get(c) or (f"\\u{ord(c):04x}" if c < " " else c) for c in _go_string(value))
        return '"' + "".join(chars) + '"'
    if isinstance(value, dict):
        items = sorted(((str(k), v) for k, v in value.items()), key=lambda kv: kv[0])
        return "{" + ",".join(f"{_go_json(k)}:{_go_json(v)}" for k, v in items) + "}"
    if isinstance(value, list | tuple):
        return "[" + ",".join(_go_json(v) for v in value) + "]"
    return _go_json(str(value))


def _go_float(f: float, *, json: bool) -> str:
    """Go's %v (json=False) or encoding/json (json=True) rendering of a float64."""
    if math.isnan(f):
        return "NaN"
    if math.isinf(f):
        return "+Inf" if f > 0 else "-Inf"
    if f == 0:
        return "-0" if math.copysign(1, f) < 0 else "0"
    sign, digit_tuple, exponent = Decimal(repr(f)).as_tuple()
    digits = "".join(map(str, digit_tuple)).rstrip("0")
    point = len(digit_tuple) + int(exponent)  # position of the decimal point after the first digit
    exp10 = point - 1
    use_e = (abs(f) < 1e-6 or abs(f) >= 1e21) if json else (exp10 < -4 or exp10 >= 6)
    if use_e:
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        width = 1 if json and exp10 < 0 else 2
        text = f"{mantissa}e{'-' if exp10 < 0 else '+'}{abs(exp10):0{width}d}"
    elif point <= 0:
        text = "0." + "0" * -point + digits
    elif point >= len(digits):
        text = digits + "0" * (point - len(digits))
    else:
        text = digits[:point] + "." + digits[point:]
    return ("-" if sign else "") + text


# ---------------------------------------------------------------------------------------------
# apimachinery format checks (each returns a list of messages)

_DNS1123_LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_SUBDOMAIN = _DNS1123_LABEL + "(\\." + _DNS1123_LABEL + ")*"
_DNS1035_LABEL = "[a-z]([-a-z0-9]*[a-z0-9])?"
_LABEL_KEY = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_VALUE = "(" + _LABEL_KEY + ")?"
_START_END = "and must start and end with an alphanumeric character"
_LABEL_KEY_MSG = f"must consist of alphanumeric characters, '-', '_' or '.', {_START_END}"
_SUBDOMAIN_MSG = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
                  "'-' or '.', " + _START_END)
_DNS1035_MSG = ("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
                "alphabetic character, and end with an alphanumeric character")
_LABEL_VALUE_MSG = ("a valid label must be an empty string or consist of alphanumeric characters, "
                    "'-', '_' or '.', " + _START_END)
_CEL_IDENT = re.compile("[_a-zA-Z][_a-zA-Z0-9]*")
_CEL_RESERVED = frozenset("true false null in as break const continue else for function if import let loop "
                          "package namespace return var void while".split())
# unicode.IsSpace, which strings.TrimSpace uses (Python's str.strip also strips \x1c-\x1f).
_GO_SPACE = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" \
            "\u2028\u2029\u202f\u205f\u3000"


GO_SPACE = _GO_SPACE  # (public: what strings.TrimSpace trims)


def _trim(s: str) -> str:
    return s.strip(_GO_SPACE)


def _nbytes(s: str) -> int:
    return len(s.encode("utf-8", "surrogatepass"))


def _matches(pattern: str, value: str) -> bool:
    return re.fullmatch(pattern, value) is not None


def _regex_error(msg: str, fmt: str, *examples: str) -> str:
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    shown = " or ".join(f"'{e}', " for e in examples)  # the doubled space is apimachinery's
    return f"{msg} (e.g. {shown}regex used for validation is '{fmt}')"


def _content_unit() -> str:
    """The unit apimachinery's label key and value checks give lengths in."""
    return "bytes" if _texts().content_bytes else "characters"


def _max_len(n: int, unit: str) -> str:
    return f"must be no more than {n} {unit}"


def _dns1123_subdomain(value: str, unit: str = "characters") -> list[str]:
    """IsDNS1123Subdomain (util/validation says "characters", validate/content says "bytes")."""
    errs = [_max_len(253, unit)] if _nbytes(value) > 253 else []
    if not _matches(_DNS1123_SUBDOMAIN, value):
        errs.append(_regex_error(_SUBDOMAIN_MSG, _DNS1123_SUBDOMAIN, "example.com"))
    return errs


def _dns1035_label(value: str) -> list[str]:
    errs = [_max_len(63, "characters")] if _nbytes(value) > 63 else []
    if not _matches(_DNS1035_LABEL, value):
        errs.append(_regex_error(_DNS1035_MSG, _DNS1035_LABEL, "my-name", "abc-123"))
    return errs


def _qualified_name(value: str) -> list[str]:
    """IsQualifiedName (content.IsLabelKey)."""
    errs: list[str] = []
    parts = value.split("/")
    if len(parts) > 2:
        shape = _regex_error(_LABEL_KEY_MSG, _LABEL_KEY, "MyName", "my.name", "123-abc")
        what = "a valid label key" if _texts().content_bytes else "a qualified name"
        return [f"{what} {shape} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"]
    name = parts[-1]
    if len(parts) == 2:
        if not parts[0]:
            errs.append("prefix part must be non-empty")
        else:
            errs += ["prefix part " + m for m in _dns1123_subdomain(parts[0], _content_unit())]
    if not name:
        errs.append("name part must be non-empty")
    elif _nbytes(name) > 63:
        errs.append("name part " + _max_len(63, _content_unit()))
    if not _matches(_LABEL_KEY, name):
        errs.append("name part " + _regex_error(_LABEL_KEY_MSG, _LABEL_KEY, "MyName", "my.name", "123-abc"))
    return errs


def _label_value(value: str) -> list[str]:
    errs = [_max_len(63, _content_unit())] if _nbytes(value) > 63 else []
    if not _matches(_LABEL_VALUE, value):
        errs.append(_regex_error(_LABEL_VALUE_MSG, _LABEL_VALUE, "MyValue", "my_value", "12345"))
    return errs


def _path_segment_name(value: str) -> list[str]:
    if value in (".", ".."):
        return [f"may not be '{value}'"]
    return [f"may not contain '{c}'" for c in "/%" if c in value]


def _mask_trailing_dash(name: str, prefix: bool) -> str:
    if prefix and len(name) > 1 and name.endswith("-"):
        return name[:-2] + "a"  # maskTrailingDash, which also drops the character before the dash
    return name


def _name_is_dns_subdomain(name: str, prefix: bool) -> list[str]:
    return _dns1123_subdomain(_mask_trailing_dash(name, prefix))


_DNS1123_LABEL_MSG = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
                      + _START_END)


def _dns1123_label(value: str) -> list[str]:
    """IsDNS1123Label: a valid subdomain that is not a label can only have dots in it."""
    errs = [_max_len(63, "characters")] if _nbytes(value) > 63 else []
    if not _matches(_DNS1123_LABEL, value):
        if _matches(_DNS1123_SUBDOMAIN, value):
            errs.append("must not contain dots")
        else:
            errs.append(_regex_error(_DNS1123_LABEL_MSG, _DNS1123_LABEL, "my-name", "123-abc"))
    return errs


# The name functions of apimachinery's api/validation (ValidateNameFunc: the name, and whether it is a
# generateName prefix), used by each kind's metadata validation.


def name_is_dns_subdomain(name: str, prefix: bool) -> list[str]:
    """NameIsDNSSubdomain."""
    return _name_is_dns_subdomain(name, prefix)


def name_is_dns_label(name: str, prefix: bool) -> list[str]:
    """NameIsDNSLabel (also ValidateNamespaceName)."""
    return _dns1123_label(_mask_trailing_dash(name, prefix))


def name_is_dns1035_label(name: str, prefix: bool) -> list[str]:
    """NameIsDNS1035Label."""
    return _dns1035_label(_mask_trailing_dash(name, prefix))


def path_segment_name(name: str, prefix: bool) -> list[str]:
    """path.ValidatePathSegmentName (a prefix may end in anything but may not contain '/' or '%')."""
    if prefix:
        return [f"may not contain '{c}'" for c in "/%" if c in name]
    return _path_segment_name(name)


def dns1123_label(value: str) -> list[str]:
    """IsDNS1123Label's messages."""
    return _dns1123_label(value)


def qualified_name(value: str) -> list[str]:
    """IsQualifiedName's messages."""
    return _qualified_name(value)


def validate_labels(labels: dict, path: str) -> list[FieldError]:
    """metav1validation.ValidateLabels."""
    return _validate_labels(labels, path)


# ---------------------------------------------------------------------------------------------
# JSON types: what the apiserver's decoder would reject before validation runs

_STR, _STRMAP = "string", "strmap"
_SELECTOR = {"matchLabels": _STRMAP, "matchExpressions": [{"key": _STR, "operator": _STR, "values": [_STR]}]}
_RULE = {k: [_STR] for k in ("resourceNames", "operations", "apiGroups", "apiVersions", "resources")}
_RULE["scope"] = _STR
_MATCH_RESOURCES = {"namespaceSelector": _SELECTOR, "objectSelector": _SELECTOR, "matchPolicy": _STR,
                    "resourceRules": [_RULE], "excludeResourceRules": [_RULE]}
_METADATA = {"name": _STR, "generateName": _STR, "namespace": _STR, "labels": _STRMAP, "annotations": _STRMAP,
             "finalizers": [_STR]}
_NAMED_EXPRESSION = {"name": _STR, "expression": _STR}
_POLICY_SCHEMA = {"apiVersion": _STR, "kind": _STR, "metadata": _METADATA, "spec": {
    "failurePolicy": _STR, "paramKind": {"apiVersion": _STR, "kind": _STR},
    "matchConstraints": _MATCH_RESOURCES,
    "matchConditions": [_NAMED_EXPRESSION], "variables": [_NAMED_EXPRESSION],
    "validations": [{"expression": _STR, "message": _STR, "messageExpression": _STR, "reason": _STR}],
    "auditAnnotations": [{"key": _STR, "valueExpression": _STR}]}}
_BINDING_SCHEMA = {"apiVersion": _STR, "kind": _STR, "metadata": _METADATA, "spec": {
    "policyName": _STR, "validationActions": [_STR], "matchResources": _MATCH_RESOURCES,
    "paramRef": {"name": _STR, "namespace": _STR, "selector": _SELECTOR, "parameterNotFoundAction": _STR}}}


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return {str: "string", list: "list", dict: "object"}.get(type(value), type(value).__name__)


def _decode_errors(obj: Any, schema: dict) -> list[FieldError]:
    """What the apiserver's decoder would reject before validation runs."""
    if obj is None:
        return [invalid("<nil>", None, "must be an object (got null)")]
    return _check_types(obj, schema, "")


def _check_types(value: Any, schema: Any, path: str) -> list[FieldError]:
    """Report values of the wrong JSON type (null counts as absent, as in Go)."""
    if value is None:
        return []
    if schema == _STR:
        expected, ok = "a string", isinstance(value, str)
    elif schema == _STRMAP or isinstance(schema, dict):
        expected, ok = "an object", isinstance(value, dict)
    else:
        expected, ok = "a list", isinstance(value, list)
    if not ok:
        return [invalid(path or "<nil>", value, f"must be {expected} (got {_json_type(value)})")]
    errs: list[FieldError] = []
    if schema == _STRMAP:
        for k, v in value.items():
            errs += _check_types(v, _STR, f"{path}[{k}]")
    elif isinstance(schema, dict):
        for key, sub in schema.items():
            errs += _check_types(value.get(key), sub, f"{path}.{key}" if path else key)
    elif isinstance(schema, list):
        for i, item in enumerate(value):
            errs += _check_types(item, schema[0], f"{path}[{i}]")
    return errs


# Accessors with Go's zero values for absent or null fields (types already checked).
def _obj(d: dict, key: str) -> dict:
    return d.get(key) or {}


def _strmap(d: dict, key: str) -> dict[str, str]:
    return {str(k): v or "" for k, v in (d.get(key) or {}).items()}


def _str(d: dict, key: str) -> str:
    return d.get(key) or ""


def _strs(d: dict, key: str) -> list[str]:
    return [s or "" for s in d.get(key) or []]


def _objs(d: dict, key: str) -> list[dict]:
    return [o or {} for o in d.get(key) or []]


# ---------------------------------------------------------------------------------------------
# Defaulting (pkg/apis/admissionregistration/v1/defaults.go)


def default_policy(obj: dict) -> dict:
    """A defaulted deep copy of a policy: failurePolicy Fail, matchConstraints defaults, rule scopes "*"."""
    out = tree_copy(obj)
    if not isinstance(out, dict):
        return out
    if out.get("spec") is None:
        out["spec"] = {}
    spec = out["spec"]
    if isinstance(spec, dict):
        if spec.get("failurePolicy") is None:
            spec["failurePolicy"] = "Fail"
        _default_match_resources(spec.get("matchConstraints"))
    return out


def default_binding(obj: dict) -> dict:
    """A defaulted deep copy of a binding: matchResources defaults (only when present); v1alpha1 paramRef."""
    out = tree_copy(obj)
    spec = out.get("spec") if isinstance(out, dict) else None
    if not isinstance(spec, dict):
        return out
    _default_match_resources(spec.get("matchResources"))
    param_ref = spec.get("paramRef")
    if str(out.get("apiVersion")).endswith("/v1alpha1") and isinstance(param_ref, dict):
        if param_ref.get("parameterNotFoundAction") is None:
            param_ref["parameterNotFoundAction"] = "Deny"
    return out


def _default_match_resources(mr: Any) -> None:
    if not isinstance(mr, dict):
        return
    if mr.get("matchPolicy") is None:
        mr["matchPolicy"] = "Equivalent"
    for key in ("namespaceSelector", "objectSelector"):
        if mr.get(key) is None:
            mr[key] = {}
    for key in ("resourceRules", "excludeResourceRules"):
        rules = mr.get(key)
        for i, rule in enumerate(rules if isinstance(rules, list) else []):
            if rule is None:
                rules[i] = rule = {}
            if isinstance(rule, dict) and rule.get("scope") is None:
                rule["scope"] = "*"


# ---------------------------------------------------------------------------------------------
# Validation shared by policies and bindings


def _validate_object_meta(meta: dict, path: str) -> tuple[list[FieldError], str]:
    """ValidateObjectMeta for a cluster-scoped DNS-subdomain-named object; also returns the name in use."""
    errs: list[FieldError] = []
    name, generate_name = _str(meta, "name"), _str(meta, "generateName")
    if generate_name:
        msgs = _name_is_dns_subdomain(generate_name, True)
        errs += [invalid(f"{path}.generateName", generate_name, m) for m in msgs]
        if not name:  # BeforeCreate appends 5 random characters from [bcdfghjklmnpqrstvwxz2456789]
            name = generate_name[:58] + "xxxxx"
    if not name:
        errs.append(required(f"{path}.name", "name or generateName is required"))
    else:
        errs += [invalid(f"{path}.name", name, m) for m in _name_is_dns_subdomain(name, False)]
    errs += _validate_labels(_strmap(meta, "labels"), f"{path}.labels")
    annotations = _strmap(meta, "annotations")
    for key in sorted(annotations):
        errs += [invalid(f"{path}.annotations", key, m) for m in _qualified_name(key.lower())]
    if sum(_nbytes(k) + _nbytes(v) for k, v in annotations.items()) > 256 * 1024:
        errs.append(too_long(f"{path}.annotations", 256 * 1024))
    finalizers = _strs(meta, "finalizers")
    for finalizer in finalizers:
        errs += [invalid(f"{path}.finalizers", finalizer, m) for m in _qualified_name(finalizer)]
    if "orphan" in finalizers and "foregroundDeletion" in finalizers:
        detail = "finalizer orphan and foregroundDeletion cannot be both set"
        errs.append(invalid(f"{path}.finalizers", _GoValue("[]string", finalizers), detail))
    return errs, name


def _validate_labels(labels: dict, path: str) -> list[FieldError]:
    """metav1validation.ValidateLabels (Go iterates the map in random order; keys are sorted here)."""
    errs: list[FieldError] = []
    for key in sorted(labels):
        errs += [invalid(path, key, m) for m in _qualified_name(key)]
        errs += [invalid(path, labels[key], m) for m in _label_value(labels[key])]
    return errs


def _validate_selector(selector: dict, path: str) -> list[FieldError]:
    """ValidateLabelSelector with strict options (invalid label values and unknown operators rejected)."""
    errs = _validate_labels(_strmap(selector, "matchLabels"), f"{path}.matchLabels")
    for i, req in enumerate(_objs(selector, "matchExpressions")):
        at = f"{path}.matchExpressions[{i}]"
        operator, values = _str(req, "operator"), _strs(req, "values")
        if operator in ("In", "NotIn"):
            if not values:
                errs.append(required(f"{at}.values", "must be specified when `operator` is 'In' or 'NotIn'"))
        elif operator in ("Exists", "DoesNotExist"):
            if values:
                detail = "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
                errs.append(forbidden(f"{at}.values", detail))
        else:
            errs.append(invalid(f"{at}.operator", _Named(operator), "not a valid selector operator"))
        key = _str(req, "key")
        errs += [invalid(f"{at}.key", key, m) for m in _qualified_name(key)]
        for j, value in enumerate(values):
            errs += [invalid(f"{at}.values[{j}]", value, m) for m in _label_value(value)]
    return errs


def _validate_match_resources(mr: dict, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    match_policy = mr.get("matchPolicy")
    if match_policy is None:
        errs.append(required(f"{path}.matchPolicy"))
    elif match_policy not in ("Equivalent", "Exact"):
        errs.append(not_supported(f"{path}.matchPolicy", _Named(match_policy), ["Equivalent", "Exact"]))
    for key in ("namespaceSelector", "objectSelector"):
        selector = mr.get(key)
        at = f"{path}.{key}"
        errs += [required(at)] if selector is None else _validate_selector(selector, at)
    for key in ("resourceRules", "excludeResourceRules"):
        for i, rule in enumerate(_objs(mr, key)):
            errs += _validate_named_rule(rule, f"{path}.{key}[{i}]")
    return errs


_OPERATIONS = ["*", "CONNECT", "CREATE", "DELETE", "UPDATE"]
_SCOPES = ["*", "Cluster", "Namespaced"]
_WILDCARD = "if '*' is present, must not specify "


def _validate_named_rule(rule: dict, path: str) -> list[FieldError]:
    """validateNamedRuleWithOperations: resourceNames, then operations, then the rule itself."""
    errs: list[FieldError] = []
    seen: set[str] = set()
    for i, name in enumerate(_strs(rule, "resourceNames")):
        errs += [invalid(f"{path}.resourceNames[{i}]", name, m) for m in _path_segment_name(name)]
        if name in seen:
            errs.append(duplicate(f"{path}.resourceNames[{i}]", name))
        seen.add(name)
    operations = _strs(rule, "operations")
    if not operations:
        errs.append(required(f"{path}.operations"))
    if len(operations) > 1 and "*" in operations:
        errs.append(invalid(f"{path}.operations", _GoValue("[]admissionregistration.OperationType", operations),
                            _WILDCARD + "other operations"))
    for i, op in enumerate(operations):
        if op not in _OPERATIONS:
            errs.append(not_supported(f"{path}.operations[{i}]", _Named(op), _OPERATIONS))
    groups, versions = _strs(rule, "apiGroups"), _strs(rule, "apiVersions")
    if not groups:
        errs.append(required(f"{path}.apiGroups"))
    if len(groups) > 1 and "*" in groups:
        errs.append(invalid(f"{path}.apiGroups", _GoValue("[]string", groups), _WILDCARD + "other API groups"))
    if not versions:
        errs.append(required(f"{path}.apiVersions"))
    if len(versions) > 1 and "*" in versions:
        errs.append(invalid(f"{path}.apiVersions", _GoValue("[]string", versions), _WILDCARD + "other API versions"))
    errs += [required(f"{path}.apiVersions[{i}]") for i, v in enumerate(versions) if not v]
    errs += _validate_resources(_strs(rule, "resources"), f"{path}.resources")
    scope = rule.get("scope")
    if scope is not None and scope not in _SCOPES:
        errs.append(not_supported(f"{path}.scope", _Named(scope), _SCOPES))
    return errs


def _validate_resources(resources: list[str], path: str) -> list[FieldError]:
    """validateResources, including its order dependence (only entries after a wildcard are flagged)."""
    errs = [required(path)] if not resources else []
    wildcard_subresource: set[str] = set()  # x for "x/*"
    wildcard_resource: set[str] = set()  # y for "*/y"
    single_wildcard = double_wildcard = plain_resource = False
    for i, entry in enumerate(resources):
        if not entry:
            errs.append(required(f"{path}[{i}]"))
            continue
        double_wildcard |= entry == "*/*"
        single_wildcard |= entry == "*"
        if "/" not in entry:
            plain_resource = entry != "*"  # upstream keeps only the last such entry's verdict
            continue
        res, sub = entry.split("/", 1)
        if res in wildcard_subresource:
            errs.append(invalid(f"{path}[{i}]", entry, f"if '{res}/*' is present, must not specify {entry}"))
        if sub in wildcard_resource:
            errs.append(invalid(f"{path}[{i}]", entry, f"if '*/{sub}' is present, must not specify {entry}"))
        if sub == "*":
            wildcard_subresource.add(res)
        if res == "*":
            wildcard_resource.add(sub)
    if len(resources) > 1 and double_wildcard:
        errs.append(invalid(path, _GoValue("[]string", resources),
                            "if '*/*' is present, must not specify other resources"))
    if single_wildcard and plain_resource:
        errs.append(invalid(path, _GoValue("[]string", resources), _WILDCARD + "other resources without subresources"))
    return errs


# ---------------------------------------------------------------------------------------------
# ValidatingAdmissionPolicy


@dataclass(frozen=True)
class ExpressionSite:
    """One CEL expression the apiserver compiles while validating a policy, in the order it does so."""

    kind: str  # "matchCondition", "variable", "validation", "messageExpression" or "auditAnnotation"
    field: str  # e.g. "spec.validations[0].expression"
    expression: str  # the text the apiserver compiles (trimmed for matchConditions and valueExpressions)
    value: str  # the text an Invalid error shows
    name: str = ""  # the variable's name (kind "variable")
    has_params: bool = False
    has_authorizer: bool = True


CompileCheck = Callable[[ExpressionSite], "FieldError | None"]
_REASONS = ["Forbidden", "Invalid", "RequestEntityTooLarge"]


def validate_policy(obj: dict, compile_check: CompileCheck | None = None) -> list[FieldError]:
    """Validate a defaulted ValidatingAdmissionPolicy as kube-apiserver does on create, in its order.

    CEL is compiled only through ``compile_check``, called once per non-blank expression in the
    apiserver's order (matchConditions, variables, each validation's expression and messageExpression,
    auditAnnotations); without it, compile errors are left to the caller. If any field has the wrong
    JSON type, only those errors are returned (the apiserver would reject the body while decoding it).
    """
    if errs := _decode_errors(obj, _POLICY_SCHEMA):
        return errs
    errs, name = _validate_object_meta(_obj(obj, "metadata"), "metadata")
    return errs + _validate_policy_spec(_obj(obj, "spec"), name, compile_check)


def policy_spec_head(spec: dict) -> tuple[list[FieldError], bool, Any]:
    """What both kinds of admission policy validate first, in the apiserver's order: failurePolicy, paramKind and
    matchConstraints. Returns the errors, whether the policy has params, and its matchConstraints (None when
    absent)."""
    errs: list[FieldError] = []
    failure_policy = spec.get("failurePolicy")
    if failure_policy is None:
        errs.append(required("spec.failurePolicy"))
    elif failure_policy not in ("Fail", "Ignore"):
        errs.append(not_supported("spec.failurePolicy", _Named(failure_policy), ["Fail", "Ignore"]))
    has_params = spec.get("paramKind") is not None
    if has_params:
        errs += _validate_param_kind(spec["paramKind"], "spec.paramKind")
    constraints = spec.get("matchConstraints")
    if constraints is None:
        errs.append(required("spec.matchConstraints"))
    else:
        errs += _validate_match_resources(constraints, "spec.matchConstraints")
        if not _objs(constraints, "resourceRules"):
            errs.append(required("spec.matchConstraints.resourceRules"))
    return errs, has_params, constraints


def _validate_policy_spec(spec: dict, name: str, check: CompileCheck | None) -> list[FieldError]:
    errs, has_params, _ = policy_spec_head(spec)
    conditions = _objs(spec, "matchConditions")
    errs += _validate_match_conditions(conditions, "spec.matchConditions", has_params, check)
    for i, variable in enumerate(_objs(spec, "variables")):
        errs += _validate_variable(variable, f"spec.variables[{i}]", has_params, check)
    validations, annotations = _objs(spec, "validations"), _objs(spec, "auditAnnotations")
    if not validations and not annotations:
        detail = "validations or auditAnnotations must contain at least one item"
        return errs + [required("spec.validations", detail), required("spec.auditAnnotations", detail)]
    for i, validation in enumerate(validations):
        errs += _validate_validation(validation, f"spec.validations[{i}]", has_params, check)
    if len(annotations) > 20:  # the value is Go's internal []AuditAnnotation, which has no json tags
        shown = _GoValue("[]admissionregistration.AuditAnnotation", annotations,
                         (("Key", "key"), ("ValueExpression", "valueExpression")))
        errs.append(invalid("spec.auditAnnotations", shown, "must not have more than 20 auditAnnotations"))
    keys: set[str] = set()
    for i, annotation in enumerate(annotations):
        errs += _validate_audit_annotation(annotation, f"spec.auditAnnotations[{i}]", name, has_params, check)
        key = _str(annotation, "key")
        if key in keys:
            errs.append(duplicate(f"spec.auditAnnotations[{i}].key", key))
        keys.add(key)
    return errs


def _compile(check: CompileCheck | None, site: ExpressionSite) -> list[FieldError]:
    problem = check(site) if check is not None else None
    return [problem] if problem is not None else []


def _validate_param_kind(param_kind: dict, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    api_version, kind = _str(param_kind, "apiVersion"), _str(param_kind, "kind")
    if not api_version:
        errs.append(required(f"{path}.apiVersion"))
    elif api_version.count("/") > 1:
        detail = f"unexpected GroupVersion string: {api_version}"
        errs.append(invalid(f"{path}.apiVersion", api_version, detail))
    else:
        group, _, version = api_version.rpartition("/") if api_version != "/" else ("", "", "")
        if group and (msgs := _dns1123_subdomain(group)):
            errs.append(invalid(f"{path}.apiVersion", group, ",".join(msgs)))
        if not version:
            errs.append(invalid(f"{path}.apiVersion", api_version, "version must be specified"))
        elif msgs := _dns1035_label(version):
            errs.append(invalid(f"{path}.apiVersion", version, ",".join(msgs)))
    if not kind:
        errs.append(required(f"{path}.kind"))
    elif msgs := _dns1035_label(kind.lower()):
        detail = "may have mixed case, but should otherwise match: " + ",".join(msgs)
        errs.append(invalid(f"{path}.kind", kind, detail))
    return errs


def _validate_match_conditions(conditions: list[dict], path: str, has_params: bool,
                               check: CompileCheck | None) -> list[FieldError]:
    errs = [too_many(path, len(conditions), 64)] if len(conditions) > 64 else []
    names: set[str] = set()
    for i, condition in enumerate(conditions):
        at = f"{path}[{i}]"
        expression, name = _trim(_str(condition, "expression")), _str(condition, "name")
        if not expression:
            errs.append(required(f"{at}.expression"))
        else:
            field = f"{at}.expression"
            site = ExpressionSite("matchCondition", field, expression, expression, "", has_params)
            errs += _compile(check, site)
        if not name:
            errs.append(required(f"{at}.name"))
        else:
            errs += [invalid(f"{at}.name", name, m) for m in _qualified_name(name)]
            if name in names:
                errs.append(duplicate(f"{at}.name", name))
            names.add(name)
    return errs


def _validate_variable(variable: dict, path: str, has_params: bool,
                       check: CompileCheck | None) -> list[FieldError]:
    errs: list[FieldError] = []
    name, expression = _str(variable, "name"), _str(variable, "expression")
    if not _trim(name):
        errs.append(required(f"{path}.name", "name is not specified"))
    elif not _CEL_IDENT.fullmatch(name) or name in _CEL_RESERVED:
        errs.append(invalid(f"{path}.name", name, "name is not a valid CEL identifier"))
    if not _trim(expression):
        errs.append(required(f"{path}.expression", "expression is not specified"))
    else:
        site = ExpressionSite("variable", f"{path}.expression", expression, expression, name, has_params)
        errs += _compile(check, site)
    return errs


def _validate_validation(validation: dict, path: str, has_params: bool,
                         check: CompileCheck | None) -> list[FieldError]:
    errs: list[FieldError] = []
    expression, message = _str(validation, "expression"), _str(validation, "message")
    message_expression = _str(validation, "messageExpression")
    if not _trim(expression):
        errs.append(required(f"{path}.expression", "expression is not specified"))
    else:
        errs += _compile(check, ExpressionSite("validation", f"{path}.expression", expression, expression,
                                               has_params=has_params))
    field = f"{path}.messageExpression"
    if message_expression and not _trim(message_expression):
        errs.append(invalid(field, message_expression, "must be non-empty if specified"))
    elif _trim(message_expression):  # compiled untrimmed, so that error columns match the field
        site = ExpressionSite("messageExpression", field, message_expression, message_expression, "",
                              has_params, has_authorizer=False)
        errs += _compile(check, site)
    if message and not _trim(message):
        errs.append(invalid(f"{path}.message", message, "message must be non-empty if specified"))
    elif re.search("[\n\r]", _trim(message)):
        errs.append(invalid(f"{path}.message", message, "message must not contain line breaks"))
    reason = validation.get("reason")
    if reason is not None and reason not in _REASONS:
        errs.append(not_supported(f"{path}.reason", _Named(reason), _REASONS))
    return errs


def _validate_audit_annotation(annotation: dict, path: str, policy_name: str, has_params: bool,
                               check: CompileCheck | None) -> list[FieldError]:
    key, value_expression = _str(annotation, "key"), _str(annotation, "valueExpression")
    if policy_name:
        full_key = f"{policy_name}/{key}"
        errs = [invalid(f"{path}.key", full_key, m) for m in _qualified_name(full_key)]
    else:
        errs = [invalid(f"{path}.key", key, "requires metadata.name be non-empty")]
    trimmed = _trim(value_expression)
    if not trimmed:
        errs.append(required(f"{path}.valueExpression", "valueExpression is not specified"))
    elif _nbytes(trimmed) > 5 * 1024:
        errs.append(required(f"{path}.valueExpression", "must not exceed 5120 bytes in length"))
    else:
        errs += _compile(check, ExpressionSite("auditAnnotation", f"{path}.valueExpression", trimmed,
                                               value_expression, has_params=has_params))
    return errs


# ---------------------------------------------------------------------------------------------
# ValidatingAdmissionPolicyBinding

_ACTIONS = ["Audit", "Deny", "Warn"]
_DENY_AND_WARN = ("must not contain both Deny and Warn (repeating the same validation failure information "
                  "in the API response and headers serves no purpose)")


def validate_binding(obj: dict) -> list[FieldError]:
    """Validate a defaulted ValidatingAdmissionPolicyBinding as kube-apiserver does, in its order.

    If any field has the wrong JSON type, only those errors are returned.
    """
    if errs := _decode_errors(obj, _BINDING_SCHEMA):
        return errs
    errs, spec = binding_head(obj)
    if spec.get("matchResources") is not None:  # the misspelt path is the apiserver's
        errs += _validate_match_resources(spec["matchResources"], "spec.matchResouces")
    return errs + _validate_validation_actions(_strs(spec, "validationActions"), "spec.validationActions")


def binding_head(obj: dict) -> tuple[list[FieldError], dict]:
    """What both kinds of admission policy binding validate first, in the apiserver's order: metadata,
    policyName and paramRef. Returns the errors and the binding's spec."""
    errs, _ = _validate_object_meta(_obj(obj, "metadata"), "metadata")
    spec = _obj(obj, "spec")
    policy_name = _str(spec, "policyName")
    if not policy_name:
        errs.append(required("spec.policyName"))
    else:
        errs += [invalid("spec.policyName", policy_name, m) for m in _name_is_dns_subdomain(policy_name, False)]
    if spec.get("paramRef") is not None:
        errs += _validate_param_ref(spec["paramRef"], "spec.paramRef")
    return errs, spec


def _validate_param_ref(ref: dict, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    name, selector = _str(ref, "name"), ref.get("selector")
    exclusive = "name and selector are mutually exclusive"
    if name:
        errs += [invalid(f"{path}.name", name, m) for m in _path_segment_name(name)]
        if selector is not None:
            errs.append(forbidden(f"{path}.name", exclusive))
    if selector is not None:
        errs += _validate_selector(selector, f"{path}.selector")
        if name:
            errs.append(forbidden(f"{path}.selector", exclusive))
    if not name and selector is None:
        errs.append(required(path, "one of name or selector must be specified"))
    action = _str(ref, "parameterNotFoundAction")
    if not action:
        errs.append(required(f"{path}.parameterNotFoundAction"))
    elif action not in ("Deny", "Allow"):  # listed unsorted, as upstream does
        errs.append(not_supported(f"{path}.parameterNotFoundAction", _Named(action), ["Deny", "Allow"]))
    return errs


def _validate_validation_actions(actions: list[str], path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    seen: set[str] = set()
    for i, action in enumerate(actions):
        if action not in _ACTIONS:
            errs.append(not_supported(f"{path}[{i}]", _Named(action), _ACTIONS))
        if action in seen:
            errs.append(duplicate(f"{path}[{i}]", _Named(action)))
        seen.add(action)
    if "Deny" in seen and "Warn" in seen:
        errs.append(invalid(path, _GoValue("[]admissionregistration.ValidationAction", actions), _DENY_AND_WARN))
    if not seen:
        errs.append(required(path, "at least one validation action is required"))
    return errs
