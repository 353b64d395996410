"""Runtime-built protobuf message types that carry the Kubernetes library values.

The engine only knows custom values as protobuf messages, so each Kubernetes CEL type
(``kubernetes.Quantity``, ``net.IP`` ...) is a message whose fields hold a canonical form of the
value. Equality in the engine is message equality, therefore every field must be canonical: two
values that Kubernetes considers equal must produce identical messages (Quantity is the exception:
its equality is rewritten, see :mod:`.transform`).

The field names start with ``__`` and are rejected by :mod:`.checks` when an expression selects
them, so they never become part of the visible CEL surface.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from cel_expr_python import cel
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory, wrappers_pb2  # noqa: F401

_STRING = descriptor_pb2.FieldDescriptorProto.TYPE_STRING
_INT64 = descriptor_pb2.FieldDescriptorProto.TYPE_INT64
_BOOL = descriptor_pb2.FieldDescriptorProto.TYPE_BOOL
_BYTES = descriptor_pb2.FieldDescriptorProto.TYPE_BYTES
_REPEATED = descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED
_OPTIONAL = descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL

# message full name -> [(field name, type, label)]
MESSAGES: dict[str, list[tuple[str, int, int]]] = {
    # value: the exact decimal value, normalised ("<unscaled>e<exponent>", no trailing zeros in unscaled);
    # rep: apimachinery's representation ("i:<value>:<scale>" int64Amount, "d:<unscaled>:<exponent>" inf.Dec);
    # pointer: an add()/sub() result (a *Quantity in cel-go). Equality of quantities is rewritten into a
    # numeric comparison (see quantity and transform), so these fields need not be canonical.
    "kubernetes.Quantity": [
        ("__value", _STRING, _OPTIONAL),
        ("__rep", _STRING, _OPTIONAL),
        ("__pointer", _BOOL, _OPTIONAL),
    ],
    # the URL text as given (equality in Kubernetes compares the parsed URL; same text, same URL)
    "kubernetes.URL": [("__url", _STRING, _OPTIONAL)],
    # 4 or 16 address bytes
    "net.IP": [("__addr", _BYTES, _OPTIONAL)],
    "net.CIDR": [("__addr", _BYTES, _OPTIONAL), ("__bits", _INT64, _OPTIONAL)],
    # major, minor, patch and the pre-release identifiers (build metadata does not take part in equality)
    "kubernetes.Semver": [
        ("__major", _INT64, _OPTIONAL),
        ("__minor", _INT64, _OPTIONAL),
        ("__patch", _INT64, _OPTIONAL),
        ("__pre", _STRING, _REPEATED),
    ],
    "kubernetes.NamedFormat": [("__name", _STRING, _OPTIONAL)],
    # authorizer values: a JSON document describing the check so far
    "kubernetes.authorization.Authorizer": [("__state", _STRING, _OPTIONAL)],
    "kubernetes.authorization.PathCheck": [("__state", _STRING, _OPTIONAL)],
    "kubernetes.authorization.GroupCheck": [("__state", _STRING, _OPTIONAL)],
    "kubernetes.authorization.ResourceCheck": [("__state", _STRING, _OPTIONAL)],
    "kubernetes.authorization.Decision": [("__state", _STRING, _OPTIONAL)],
    # never instantiated: a parameter type that no expression can produce, used to give an
    # implementation to functions whose checked signatures are declared separately
    "kubernetes.internal.Never": [],
}

HIDDEN_PREFIX = "__"


def _file_protos() -> list[descriptor_pb2.FileDescriptorProto]:
    by_package: dict[str, descriptor_pb2.FileDescriptorProto] = {}
    for full_name, fields in MESSAGES.items():
        package, _, name = full_name.rpartition(".")
        fdp = by_package.get(package)
        if fdp is None:
            fdp = descriptor_pb2.FileDescriptorProto(
                name=f"admission_playground/{package.replace('.', '_')}.proto", package=package, syntax="proto3"
            )
            by_package[package] = fdp
        msg = fdp.message_type.add(name=name)
        for number, (field_name, field_type, label) in enumerate(fields, start=1):
            msg.field.add(name=field_name, number=number, type=field_type, label=label)
    return list(by_package.values())


@lru_cache(maxsize=1)
def pool() -> Any:
    """The descriptor pool with the library's message types (and the well-known types)."""
    p = descriptor_pool.Default()
    for fdp in _file_protos():
        try:
            p.FindFileByName(fdp.name)
        except KeyError:
            p.Add(fdp)
    return p


# Looked up by the names of the library's own message types only (a fixed, small set).
_TYPE_CACHE_SIZE = 64


@lru_cache(maxsize=_TYPE_CACHE_SIZE)
def message_class(full_name: str) -> Any:
    return message_factory.GetMessageClass(pool().FindMessageTypeByName(full_name))


def new(full_name: str, **fields: Any) -> Any:
    cls = message_class(full_name)
    msg = cls()
    for key, value in fields.items():
        attr = HIDDEN_PREFIX + key
        if isinstance(value, list | tuple):
            getattr(msg, attr).extend(value)
        else:
            setattr(msg, attr, value)
    return msg


def get(msg: Any, key: str) -> Any:
    return getattr(msg, HIDDEN_PREFIX + key)


def type_name(msg: Any) -> str | None:
    desc = getattr(msg, "DESCRIPTOR", None)
    return desc.full_name if desc is not None else None


@lru_cache(maxsize=_TYPE_CACHE_SIZE)
def T(full_name: str) -> Any:  # noqa: N802 - reads like a type constructor
    """The engine type of a library message."""
    pool()
    return cel.Type(full_name)


def uint_value(value: int) -> Any:
    """A value the engine turns into a CEL uint when a function declared to return dyn returns it."""
    return wrappers_pb2.UInt64Value(value=value)


NEVER = "kubernetes.internal.Never"
QUANTITY = "kubernetes.Quantity"
URL = "kubernetes.URL"
IP = "net.IP"
CIDR = "net.CIDR"
SEMVER = "kubernetes.Semver"
FORMAT = "kubernetes.NamedFormat"
AUTHORIZER = "kubernetes.authorization.Authorizer"
PATH_CHECK = "kubernetes.authorization.PathCheck"
GROUP_CHECK = "kubernetes.authorization.GroupCheck"
RESOURCE_CHECK = "kubernetes.authorization.ResourceCheck"
DECISION = "kubernetes.authorization.Decision"
LIBRARY_TYPES = tuple(name for name in MESSAGES if name != NEVER)
