"""Kubernetes authorizer library (k8s.io/apiserver/pkg/cel/library/authz.go), from 1.27, with the
selector functions of 1.31.

The values (``authorizer``, ``authorizer.requestResource`` and everything derived from them) are
messages holding a JSON state: who asks, and the check built so far. ``check()`` hands the finished
attributes to a backend callable; until the playground simulates RBAC, the default backend answers
"no opinion" with a reason saying so (``allowed()`` is then false, as with a real "no opinion").
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Mapping
from typing import Any

from . import types as tp
from ._decl import T, function, overload
from .errors import LibraryError
from .format import is_dns1123_label, is_dns1123_subdomain

# decision, reason, error text (None: no error). decision is "allow", "deny" or "no opinion".
AuthorizeResult = tuple[str, str, str | None]
Backend = Callable[[dict[str, Any]], AuthorizeResult]

NO_RULES_REASON = (
    "the playground does not simulate authorization yet: every authorizer check answers "
    '"no opinion" (allowed() is false)'
)


def deny_all_backend(attributes: dict[str, Any]) -> AuthorizeResult:
    return "no opinion", NO_RULES_REASON, None


_backends: dict[str, Backend] = {"default": deny_all_backend}
_backends_lock = threading.Lock()
_MAX_BACKENDS = 256


def register_backend(backend: Backend) -> str:
    key = f"b{id(backend):x}"
    with _backends_lock:
        if len(_backends) > _MAX_BACKENDS:
            for k in list(_backends)[1 : len(_backends) // 2]:
                _backends.pop(k, None)
        _backends[key] = backend
    return key


def _state(msg: object) -> dict[str, Any]:
    return json.loads(tp.get(msg, "state"))


def _new(kind: str, state: dict[str, Any]) -> object:
    return tp.new(kind, state=json.dumps(state, sort_keys=True, separators=(",", ":")))


def authorizer_value(
    request_attrs: Mapping[str, Any] | None = None,
    user_info: Mapping[str, Any] | None = None,
    backend: Backend | None = None,
) -> object:
    """The value of ``authorizer`` for a request made by ``user_info`` (username, uid, groups, extra)."""
    key = "default" if backend is None else register_backend(backend)
    user = dict(user_info or {})
    return _new(tp.AUTHORIZER, {"user": user, "backend": key})


def request_resource_value(
    request_attrs: Mapping[str, Any] | None,
    user_info: Mapping[str, Any] | None = None,
    backend: Backend | None = None,
) -> object:
    """The value of ``authorizer.requestResource``: a ResourceCheck for the request's own resource.

    request_attrs: the AdmissionRequest JSON (``resource``: {group, version, resource},
    ``subResource``, ``namespace``, ``name``); the original request resource should be passed.
    """
    attrs = dict(request_attrs or {})
    resource = attrs.get("resource") or {}
    base = _state(authorizer_value(request_attrs, user_info, backend))
    base.update(
        group=resource.get("group", ""),
        resource=resource.get("resource", ""),
        subresource=attrs.get("subResource", "") or "",
        namespace=attrs.get("namespace", "") or "",
        name=attrs.get("name", "") or "",
    )
    return _new(tp.RESOURCE_CHECK, base)


def authorizer_activation(
    request_attrs: Mapping[str, Any] | None,
    user_info: Mapping[str, Any] | None,
    backend: Backend | None = None,
) -> dict[str, object]:
    """Activation entries for ``authorizer`` and ``authorizer.requestResource``."""
    return {
        "authorizer": authorizer_value(request_attrs, user_info, backend),
        "authorizer.requestResource": request_resource_value(request_attrs, user_info, backend),
    }


# ------------------------------------------------------------------------------------------------


def _path(a: object, path: str) -> object:
    if not path.strip():
        raise LibraryError("path must not be empty")
    s = _state(a)
    s["path"] = path
    return _new(tp.PATH_CHECK, s)


def _group(a: object, group: str) -> object:
    s = _state(a)
    s["group"] = group
    return _new(tp.GROUP_CHECK, s)


def _service_account(a: object, namespace: str, name: str) -> object:
    if is_dns1123_subdomain(name):
        raise LibraryError("Invalid service account name")
    if is_dns1123_label(namespace):
        raise LibraryError("Invalid service account namespace")
    s = _state(a)
    s["user"] = {
        "username": f"system:serviceaccount:{namespace}:{name}",
        "groups": ["system:serviceaccounts", f"system:serviceaccounts:{namespace}"],
    }
    return _new(tp.AUTHORIZER, s)


def _resource(g: object, resource: str) -> object:
    if not resource.strip():
        raise LibraryError("resource must not be empty")
    s = _state(g)
    s["resource"] = resource
    return _new(tp.RESOURCE_CHECK, s)


def _setter(field: str) -> Callable[[object, str], object]:
    def set_field(r: object, value: str) -> object:
        s = _state(r)
        s[field] = value
        return _new(tp.RESOURCE_CHECK, s)

    return set_field


_SELECTOR_OK = re.compile(r"^\s*[^,]+(,[^,]+)*\s*$")


def _check(c: object, verb: str) -> object:
    s = _state(c)
    attrs: dict[str, Any] = {"user": s.get("user", {}), "verb": verb}
    if "path" in s:
        attrs["path"] = s["path"]
        attrs["resourceRequest"] = False
    else:
        attrs.update(
            resourceRequest=True,
            apiGroup=s.get("group", ""),
            apiVersion="*",
            resource=s.get("resource", ""),
            subresource=s.get("subresource", ""),
            namespace=s.get("namespace", ""),
            name=s.get("name", ""),
        )
        for sel in ("fieldSelector", "labelSelector"):
            if s.get(sel):
                attrs[sel] = s[sel]
    backend = _backends.get(s.get("backend", "default"), deny_all_backend)
    decision, reason, error = backend(attrs)
    return _new(tp.DECISION, {"decision": decision, "reason": reason, "error": error or ""})


def _selector_cost(r: object, selector: str, result: object = None) -> int:
    # baseSelectorCost + parse cost + per-requirement cost (cost.go selectorCostEstimate)
    import math

    n = len(selector)
    parse = math.ceil(n * 0.1)
    requirements = math.ceil(n * 0.5)
    return 10 + parse + requirements * (10 + 40)


def decls(version: tuple[int, int]) -> list:
    A, P, G, R, D = (
        tp.T(tp.AUTHORIZER),
        tp.T(tp.PATH_CHECK),
        tp.T(tp.GROUP_CHECK),
        tp.T(tp.RESOURCE_CHECK),
        tp.T(tp.DECISION),
    )
    out = [
        function("path", overload("authorizer_path", P, [A, T.STRING], _path, member=True, cost=1)),
        function("group", overload("authorizer_group", G, [A, T.STRING], _group, member=True, cost=1)),
        function(
            "serviceAccount",
            overload("authorizer_serviceaccount", A, [A, T.STRING, T.STRING], _service_account, member=True, cost=1),
        ),
        function("resource", overload("groupcheck_resource", R, [G, T.STRING], _resource, member=True, cost=1)),
        function(
            "subresource",
            overload("resourcecheck_subresource", R, [R, T.STRING], _setter("subresource"), member=True, cost=1),
        ),
        function(
            "namespace",
            overload("resourcecheck_namespace", R, [R, T.STRING], _setter("namespace"), member=True, cost=1),
        ),
        function("name", overload("resourcecheck_name", R, [R, T.STRING], _setter("name"), member=True, cost=1)),
        function(
            "check",
            overload("pathcheck_check", D, [P, T.STRING], _check, member=True, cost=350000),
            # same run-time signature as pathcheck_check (two messages): one implementation serves both
            overload("resourcecheck_check", D, [R, T.STRING], member=True),
        ),
        function(
            "errored",
            overload("decision_errored", T.BOOL, [D], lambda d: bool(_state(d)["error"]), member=True, cost=1),
        ),
        function("error", overload("decision_error", T.STRING, [D], lambda d: _state(d)["error"], member=True, cost=1)),
        function(
            "allowed",
            overload("decision_allowed", T.BOOL, [D], lambda d: _state(d)["decision"] == "allow", member=True, cost=1),
        ),
        function(
            "reason", overload("decision_reason", T.STRING, [D], lambda d: _state(d)["reason"], member=True, cost=1)
        ),
    ]
    if version >= (1, 31):
        out += [
            function(
                "fieldSelector",
                overload(
                    "authorizer_fieldselector",
                    R,
                    [R, T.STRING],
                    _setter("fieldSelector"),
                    member=True,
                    cost=_selector_cost,
                ),
            ),
            function(
                "labelSelector",
                overload(
                    "authorizer_labelselector",
                    R,
                    [R, T.STRING],
                    _setter("labelSelector"),
                    member=True,
                    cost=_selector_cost,
                ),
            ),
        ]
    return out


def variables(version: tuple[int, int]) -> dict[str, Any]:
    return {"authorizer": tp.T(tp.AUTHORIZER), "authorizer.requestResource": tp.T(tp.RESOURCE_CHECK)}
