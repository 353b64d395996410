"""Kubernetes format library (k8s.io/apiserver/pkg/cel/library/format.go), from 1.31.

``format.named(name)`` returns ``optional(Format)`` and ``Format.validate(s)`` returns
``optional(list(string))``, as in Kubernetes. The engine cannot hand optional values to or from
Python functions, so both are declared with their optional result types in the engine's
configuration (:func:`config_yaml`), type-checked as such, and rewritten after checking into
functions that return a list of zero or one element, indexed with ``[?0]`` (see :mod:`.transform`):
the results are the engine's own optionals.
"""

from __future__ import annotations

import base64
import binascii
import datetime
import re

from . import types as tp
from ._decl import REGEX_STRING_LENGTH_COST_FACTOR, STRING_TRAVERSAL_COST_FACTOR, T, function, overload
from .urls import URLError, parse_request_uri

_DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_SUBDOMAIN_FMT = _DNS1123_LABEL_FMT + "(\\." + _DNS1123_LABEL_FMT + ")*"
_DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?"
_LABEL_KEY_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_VALUE_FMT = "(" + _LABEL_KEY_FMT + ")?"
_DATE_TIME_PATTERN = r"^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$"
_UUID_PATTERN = r"(?i)(^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$)|(^[0-9a-f]{32}$)"

_dns1123_label = re.compile("^" + _DNS1123_LABEL_FMT + "$")
_dns1123_subdomain = re.compile("^" + _DNS1123_SUBDOMAIN_FMT + "$")
_dns1035_label = re.compile("^" + _DNS1035_LABEL_FMT + "$")
_label_key = re.compile("^" + _LABEL_KEY_FMT + "$")
_label_value = re.compile("^" + _LABEL_VALUE_FMT + "$")
_date_time = re.compile(_DATE_TIME_PATTERN)
_uuid = re.compile(_UUID_PATTERN)
_date = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")


def _fullmatch(rx: re.Pattern, s: str) -> bool:
    # Go's $ matches only at the very end (no trailing newline allowance)
    return rx.match(s) is not None and not s.endswith("\n")


def _max_len(n: int) -> str:
    return f"must be no more than {n} characters"


def _regex_error(msg: str, fmt: str, *examples: str) -> str:
    if not examples:
        return msg + " (regex used for validation is '" + fmt + "')"
    msg += " (e.g. "
    for i, ex in enumerate(examples):
        if i > 0:
            msg += " or "
        msg += "'" + ex + "', "
    return msg + "regex used for validation is '" + fmt + "')"


_LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and "
    "end with an alphanumeric character"
)
_SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
    "start and end with an alphanumeric character"
)
_DNS1035_MSG = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
    "character, and end with an alphanumeric character"
)
_LABEL_KEY_MSG = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
)
_LABEL_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
    "start and end with an alphanumeric character"
)


def is_dns1123_label(v: str) -> list[str]:
    errs = []
    if len(v) > 63:
        errs.append(_max_len(63))
    if not _fullmatch(_dns1123_label, v):
        if _fullmatch(_dns1123_subdomain, v):
            errs.append("must not contain dots")
        else:
            errs.append(_regex_error(_LABEL_MSG, _DNS1123_LABEL_FMT, "my-name", "123-abc"))
    return errs


def is_dns1123_subdomain(v: str) -> list[str]:
    errs = []
    if len(v) > 253:
        errs.append(_max_len(253))
    if not _fullmatch(_dns1123_subdomain, v):
        errs.append(_regex_error(_SUBDOMAIN_MSG, _DNS1123_SUBDOMAIN_FMT, "example.com"))
    return errs


def is_dns1035_label(v: str) -> list[str]:
    errs = []
    if len(v) > 63:
        errs.append(_max_len(63))
    if not _fullmatch(_dns1035_label, v):
        errs.append(_regex_error(_DNS1035_MSG, _DNS1035_LABEL_FMT, "my-name", "abc-123"))
    return errs


def is_qualified_name(v: str) -> list[str]:
    errs: list[str] = []
    parts = v.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            errs.extend("prefix part " + m for m in is_dns1123_subdomain(prefix))
    else:
        return [
            "a valid label key "
            + _regex_error(_LABEL_KEY_MSG, _LABEL_KEY_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    if not name:
        errs.append("name part must be non-empty")
    elif len(name) > 63:
        errs.append("name part " + _max_len(63))
    if not _fullmatch(_label_key, name):
        errs.append("name part " + _regex_error(_LABEL_KEY_MSG, _LABEL_KEY_FMT, "MyName", "my.name", "123-abc"))
    return errs


def is_label_value(v: str) -> list[str]:
    errs = []
    if len(v) > 63:
        errs.append(_max_len(63))
    if not _fullmatch(_label_value, v):
        errs.append(_regex_error(_LABEL_VALUE_MSG, _LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return errs


def _mask_trailing_dash(name: str) -> str:
    if len(name) > 1 and name.endswith("-"):
        return name[:-2] + "a"
    return name


def _is_date(s: str) -> bool:
    if not _date.match(s) or s.endswith("\n"):
        return False
    try:
        datetime.date(int(s[0:4]), int(s[5:7]), int(s[8:10]))
    except ValueError:
        return False
    return True


def _is_datetime(s: str) -> bool:
    if len(s) < 4:
        return False
    parts = s.lower().split("t")
    if len(parts) < 2 or not _is_date(parts[0]):
        return False
    m = _date_time.match(parts[1])
    if m is None:
        return False
    return m.group(1) <= "23" and m.group(2) <= "59" and m.group(3) <= "59"


def _is_base64(s: str) -> bool:
    try:
        base64.b64decode(s.replace("\r", "").replace("\n", ""), validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def _uri(s: str) -> list[str]:
    try:
        parse_request_uri(s)
    except URLError as exc:
        return [str(exc)]
    return []


# name -> (validator, max regex size used by the cost model)
FORMATS: dict[str, tuple] = {
    "dns1123Label": (is_dns1123_label, 30),
    "dns1123Subdomain": (is_dns1123_subdomain, 60),
    "dns1035Label": (is_dns1035_label, 30),
    "qualifiedName": (is_qualified_name, 60),
    "dns1123LabelPrefix": (lambda s: is_dns1123_label(_mask_trailing_dash(s)), 30),
    "dns1123SubdomainPrefix": (lambda s: is_dns1123_subdomain(_mask_trailing_dash(s)), 60),
    "dns1035LabelPrefix": (lambda s: is_dns1035_label(_mask_trailing_dash(s)), 30),
    "labelValue": (is_label_value, 40),
    "uri": (_uri, 2083),
    "uuid": (
        lambda s: [] if _uuid.match(s) and not s.endswith("\n") else ["does not match the UUID format"],
        len(_UUID_PATTERN),
    ),
    "byte": (lambda s: [] if _is_base64(s) else ["invalid base64"], 80),
    "date": (lambda s: [] if _is_date(s) else ["invalid date"], len(_DATE_TIME_PATTERN)),
    "datetime": (lambda s: [] if _is_datetime(s) else ["invalid datetime"], len(_DATE_TIME_PATTERN)),
}


def _format(name: str) -> object:
    return tp.new(tp.FORMAT, name=name)


def _named(name: str) -> list:
    """format.named(name), as a list of zero or one Format."""
    return [_format(name)] if name in FORMATS else []


def _validate(fmt: object, s: str) -> list:
    """Format.validate(s), as a list of zero or one list of messages."""
    errs = FORMATS[tp.get(fmt, "name")][0](s)
    return [errs] if errs else []


def _validate_cost(fmt: object, s: str, result: object = None) -> int:
    import math

    size = FORMATS.get(tp.get(fmt, "name"), (None, 1))[1]
    str_cost = int(math.ceil((1.0 + len(s)) * STRING_TRAVERSAL_COST_FACTOR))
    regex_cost = int(math.ceil(size * REGEX_STRING_LENGTH_COST_FACTOR))
    return str_cost * regex_cost


def config_yaml(version: tuple[int, int]) -> str:
    """The checked signatures of ``format.named`` and ``validate`` (optional results), in the engine's
    YAML configuration: the only way to declare optional types to it."""
    if version < (1, 31):
        return ""
    return f"""functions:
- name: format.named
  overloads:
  - id: format-named
    args:
    - type_name: string
    return:
      type_name: optional_type
      params:
      - type_name: {tp.FORMAT}
- name: validate
  overloads:
  - id: format-validate
    target:
      type_name: {tp.FORMAT}
    args:
    - type_name: string
    return:
      type_name: optional_type
      params:
      - type_name: list
        params:
        - type_name: string
"""


def internal_decls(version: tuple[int, int]) -> list:
    """The implementations ``format.named`` and ``validate`` are rewritten into (see transform)."""
    if version < (1, 31):
        return []
    F = tp.T(tp.FORMAT)
    return [
        function(
            "__k8s_format_validate",
            overload("__k8s_format_validate", T.List(T.List(T.STRING)), [F, T.STRING], _validate, member=True,
                     cost=_validate_cost),
        ),
        function("__k8s_format_named", overload("__k8s_format_named", T.List(F), [T.STRING], _named, cost=1)),
    ]


def decls(version: tuple[int, int]) -> list:
    """The Format constructors (``format.named`` and ``validate`` are declared in config_yaml)."""
    if version < (1, 31):
        return []
    F = tp.T(tp.FORMAT)
    out = []
    for name in FORMATS:
        out.append(function(f"format.{name}", overload(f"format-{name}", F, [], lambda n=name: _format(n), cost=1)))
    return out
