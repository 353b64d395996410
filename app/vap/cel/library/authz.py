"""Kubernetes authorizer library (k8s.io/apiserver/pkg/cel/library/authz.go), from 1.27, with the
selector functions of 1.31.

The values (``authorizer``, ``authorizer.requestResource`` and everything derived from them) are
messages holding a JSON state: who asks, and the check built so far. ``check()`` hands the finished
``authorizer.Attributes`` (as a dict) to a backend callable, which answers ``(decision, reason,
error)`` and optionally a fourth item, a dict of details shown with the check (what granted it).
Every check made through the values of one :func:`authorizer_activation` given a backend is recorded
in its ``checks`` list; the activation keeps the backend alive (keep it, not only a copy of its
entries, while evaluating). With no backend every check answers "no opinion" with a reason saying
so (``allowed()`` is then false, as with a real "no opinion").

The selector functions follow the AuthorizeWithSelectors feature gate at its default in each version
(kube_features.go: alpha and off in 1.31, beta and on in 1.32, GA in 1.34, removed in 1.37 with the
functions always there). pkg/cel/environment declares them (base.go, from 1.31) in the environment a
stored expression is evaluated in whatever the gate, and in the one a new expression is validated in
only with the gate on: a 1.31 server validates new expressions with its 1.30 environment, so a policy
using them is refused there, and a 1.32 server, whose gate is on, accepts them in its 1.31 environment.
What the gate changes at run time is ``check()``: with it off (1.31) no selector reaches the authorizer
(authz.go Authorize), which the recorded check says.
"""

from __future__ import annotations

import collections
import contextlib
import itertools
import json
import threading
import weakref
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from . import types as tp
from ._decl import T, function, overload
from .errors import LibraryError
from .format import is_dns1123_label, is_dns1123_subdomain

# decision, reason, error text (None: no error)[, details]. decision is "allow", "deny" or "no opinion".
AuthorizeResult = tuple[Any, ...]
Backend = Callable[[dict[str, Any]], AuthorizeResult]

NO_RULES_REASON = (
    "the playground simulates no authorizer here: every authorizer check answers "
    '"no opinion" (allowed() is false)'
)


# Checks listed per evaluation (a comprehension can make thousands before the cost limit stops it).
MAX_RECORDED_CHECKS = 100


def deny_all_backend(attributes: dict[str, Any]) -> AuthorizeResult:
    return "no opinion", NO_RULES_REASON, None


class _Session:
    """A backend and the checks made through it."""

    __slots__ = ("backend", "checks", "omitted", "__weakref__")

    def __init__(self, backend: Backend) -> None:
        self.backend = backend
        self.checks: list[dict[str, Any]] = []
        self.omitted = 0


# key -> session. Sessions are held by the activations using them (and a few recent ones here, for
# callers that keep only the CEL values), so a finished evaluation's backend goes away by itself.
_sessions: weakref.WeakValueDictionary[str, _Session] = weakref.WeakValueDictionary()
_recent: collections.deque[_Session] = collections.deque(maxlen=256)
_keys = itertools.count()
_lock = threading.Lock()
_DEFAULT = _Session(deny_all_backend)
_sessions["default"] = _DEFAULT


def _register(session: _Session, *, keep: bool) -> str:
    with _lock:
        key = f"s{next(_keys)}"
        _sessions[key] = session
        if keep:
            _recent.append(session)
    return key


def register_backend(backend: Backend) -> str:
    """Register a backend (kept while it is among the last 256 registered); return the key the CEL values carry."""
    return _register(_Session(backend), keep=True)


class AuthorizerActivation(dict):
    """The activation entries ``authorizer`` and ``authorizer.requestResource``; keeps their backend alive
    and lists, in ``checks``, every check made through them (attributes, decision, reason, details)."""

    def __init__(self, entries: Mapping[str, object], session: _Session) -> None:
        super().__init__(entries)
        self.session = session

    @property
    def checks(self) -> list[dict[str, Any]]:
        """The checks made, in order; past MAX_RECORDED_CHECKS a last entry ``{"omitted": n}`` counts the rest."""
        if self.session.omitted:
            return [*self.session.checks, {"omitted": self.session.omitted}]
        return self.session.checks


@contextlib.contextmanager
def unrecorded(authorizer: object) -> Iterator[list[tuple[dict[str, Any], tuple[Any, ...]]]]:
    """Checks made through ``authorizer`` (an :class:`AuthorizerActivation`; anything else: nothing to do) inside
    the block are answered but not listed: an explanation evaluating parts of an expression again adds no check.
    Yields the list of what was asked: (attributes, answer) pairs, as :func:`answers_alike` takes them."""
    asked: list[tuple[dict[str, Any], tuple[Any, ...]]] = []
    session = authorizer.session if isinstance(authorizer, AuthorizerActivation) else None
    if session is None:
        yield asked
        return
    made, omitted, backend = len(session.checks), session.omitted, session.backend

    def asking(attributes: dict[str, Any]) -> Any:
        answer = tuple(backend(attributes))
        asked.append((dict(attributes), answer))
        return answer

    session.backend = asking
    try:
        yield asked
    finally:
        session.backend = backend
        del session.checks[made:]
        session.omitted = omitted


def answers_alike(authorizer: object, asked: list[tuple[dict[str, Any], tuple[Any, ...]]]) -> bool:
    """Whether ``authorizer`` answers each check in ``asked`` as it was answered then: as one of the checks it
    listed (the decision's) says, else asked again, unrecorded."""
    if not asked:
        return True
    session = authorizer.session if isinstance(authorizer, AuthorizerActivation) else None
    if session is None:
        return False
    for attributes, answer in asked:
        if _answer_record(attributes, answer) in session.checks:
            continue
        if tuple(session.backend(dict(attributes))) != answer:
            return False
    return True


def _answer_record(attributes: dict[str, Any], answer: tuple[Any, ...]) -> dict[str, Any]:
    details = answer[3] if len(answer) > 3 and isinstance(answer[3], Mapping) else {}
    return _record(attributes, answer[0], str(answer[1] or ""), answer[2], details)


def _state(msg: object) -> dict[str, Any]:
    return json.loads(tp.get(msg, "state"))


def _new(kind: str, state: dict[str, Any]) -> object:
    return tp.new(kind, state=json.dumps(state, sort_keys=True, separators=(",", ":")))


def _user(user_info: Mapping[str, Any] | None) -> dict[str, Any]:
    return {k: v for k, v in dict(user_info or {}).items() if k in ("username", "uid", "groups", "extra")}


def _authorizer_state(user_info: Mapping[str, Any] | None, key: str) -> dict[str, Any]:
    return {"user": _user(user_info), "backend": key}


def _request_resource_state(request_attrs: Mapping[str, Any] | None, base: dict[str, Any]) -> dict[str, Any]:
    attrs = dict(request_attrs or {})
    resource = attrs.get("resource") or {}
    return {
        **base,
        "group": resource.get("group", "") or "",
        "resource": resource.get("resource", "") or "",
        "subresource": attrs.get("subResource", "") or "",
        "namespace": attrs.get("namespace", "") or "",
        "name": attrs.get("name", "") or "",
    }


def authorizer_value(
    request_attrs: Mapping[str, Any] | None = None,
    user_info: Mapping[str, Any] | None = None,
    backend: Backend | None = None,
) -> object:
    """The value of ``authorizer`` for a request made by ``user_info`` (username, uid, groups, extra)."""
    key = "default" if backend is None else register_backend(backend)
    return _new(tp.AUTHORIZER, _authorizer_state(user_info, key))


def request_resource_value(
    request_attrs: Mapping[str, Any] | None,
    user_info: Mapping[str, Any] | None = None,
    backend: Backend | None = None,
) -> object:
    """The value of ``authorizer.requestResource``: a ResourceCheck for the request's own resource.

    request_attrs: the AdmissionRequest JSON (``resource``: {group, version, resource},
    ``subResource``, ``namespace``, ``name``); the original request resource should be passed.
    """
    key = "default" if backend is None else register_backend(backend)
    return _new(tp.RESOURCE_CHECK, _request_resource_state(request_attrs, _authorizer_state(user_info, key)))


def authorizer_activation(
    request_attrs: Mapping[str, Any] | None,
    user_info: Mapping[str, Any] | None,
    backend: Backend | None = None,
) -> AuthorizerActivation:
    """Activation entries for ``authorizer`` and ``authorizer.requestResource`` (NewAuthorizerVal and
    NewResourceAuthorizerVal), sharing one backend whose checks the result records.

    request_attrs: the AdmissionRequest JSON with the *original* request resource (the apiserver
    builds ``authorizer.requestResource`` from the admission attributes, not the matched resource).
    """
    if backend is None:  # the shared answer-nothing backend; no checks are recorded for it
        session, key = _Session(deny_all_backend), "default"
    else:
        session = _Session(backend)
        key = _register(session, keep=False)  # the activation keeps it alive
    base = _authorizer_state(user_info, key)
    entries = {
        "authorizer": _new(tp.AUTHORIZER, base),
        "authorizer.requestResource": _new(tp.RESOURCE_CHECK, _request_resource_state(request_attrs, base)),
    }
    return AuthorizerActivation(entries, session)


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


# Why a 1.31 check carries no selector (shown with the check).
SELECTORS_IGNORED = (
    "not passed to the authorizer: the AuthorizeWithSelectors feature gate is alpha and off by default in "
    "Kubernetes 1.31 (on by default from 1.32)"
)


def _check_without_selectors(c: object, verb: str) -> object:
    return _check(c, verb, selectors=False)


def _check(c: object, verb: str, selectors: bool = True) -> object:
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
            if s.get(sel) and selectors:
                attrs[sel] = s[sel]
    session = _sessions.get(s.get("backend", "default"))
    if session is None:
        raise LibraryError("internal error: the authorizer of this evaluation is no longer available")
    answer = tuple(session.backend(dict(attrs)))
    decision, reason, error = answer[0], str(answer[1] or ""), answer[2]
    details = answer[3] if len(answer) > 3 and isinstance(answer[3], Mapping) else {}
    if session is not _DEFAULT:  # the shared default records nothing
        if len(session.checks) < MAX_RECORDED_CHECKS:
            record = _record(attrs, decision, reason, error, details)
            ignored = {sel: s[sel] for sel in ("fieldSelector", "labelSelector") if s.get(sel) and not selectors}
            if ignored:
                record.update(ignored, selectorsIgnored=SELECTORS_IGNORED)
            session.checks.append(record)
        else:
            session.omitted += 1
    return _new(tp.DECISION, {"decision": decision, "reason": reason, "error": str(error or "")})


def _record(
    attrs: dict[str, Any], decision: str, reason: str, error: Any, details: Mapping[str, Any]
) -> dict[str, Any]:
    """What the results show of one check: the attributes checked and the answer."""
    record = {k: v for k, v in attrs.items() if k not in ("fieldSelector", "labelSelector")}
    for name, parse in (("fieldSelector", parse_field_selector), ("labelSelector", parse_label_selector)):
        if name in attrs:
            record[name] = attrs[name]
            problem = parse(attrs[name])
            if problem is not None:  # the apiserver passes no requirements on, and the parse error
                record[name + "Error"] = problem
    record.update(decision=decision, allowed=decision == "allow", reason=reason, error=str(error or ""))
    record.update(details)
    return record


# ------------------------------------------------------------------------------------------------
# Selector parsing (k8s.io/apimachinery pkg/fields/selector.go and pkg/labels/selector.go), for the
# parse errors the authorizer attributes carry. Only syntax is checked here.


def _split_terms(selector: str) -> list[str]:
    terms, start, escaped = [], 0, False
    for i, ch in enumerate(selector):
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == ",":
            terms.append(selector[start:i])
            start = i + 1
    terms.append(selector[start:])
    return terms


def parse_field_selector(selector: str) -> str | None:
    """The error fields.ParseSelector gives, or None."""
    for part in sorted(_split_terms(selector)) if selector else []:
        if not part:
            continue
        at = next(((i, op) for i in range(len(part)) for op in ("!=", "==", "=") if part.startswith(op, i)), None)
        if at is None:
            return f"invalid selector: '{selector}'; can't understand '{part}'"
        value = part[at[0] + len(at[1]):]
        escaped = False
        for ch in value:
            if escaped:
                if ch not in "\\,=":
                    return f"invalid field selector: invalid escape sequence: \\{ch}"
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch in ",=":
                return f"invalid field selector: unescaped character in value: {ord(ch)}"
        if escaped:
            return "invalid field selector: invalid escape sequence: \\"
    return None


_LABEL_SPECIAL = "=!(),><"
_LABEL_TOKENS = {")": "close", ",": "comma", "!": "not", "==": "op", "=": "op", ">": "op", "<": "op",
                 "!=": "op", "in": "in", "notin": "notin", "(": "open"}
_LABEL_OPERATORS = "in, notin, =, ==, !=, gt, lt"


def _label_tokens(text: str) -> list[tuple[str, str]]:
    tokens: list[tuple[str, str]] = []
    i = 0
    while True:
        while i < len(text) and text[i] in " \t\r\n":
            i += 1
        if i >= len(text):
            tokens.append(("end", ""))
            return tokens
        if text[i] in _LABEL_SPECIAL:
            j, best = i, None
            while j < len(text) and text[j] in _LABEL_SPECIAL:
                if text[i : j + 1] in _LABEL_TOKENS:
                    best = j + 1
                elif best is not None:
                    break
                j += 1
            if best is None:
                tokens.append(("error", f"error expected: keyword found '{text[i:j]}'"))
                i = j
            else:
                tokens.append((_LABEL_TOKENS[text[i:best]], text[i:best]))
                i = best
            continue
        j = i
        while j < len(text) and text[j] not in _LABEL_SPECIAL and text[j] not in " \t\r\n":
            j += 1
        word = text[i:j]
        tokens.append((_LABEL_TOKENS[word] if word in ("in", "notin") else "id", word))
        i = j


def parse_label_selector(selector: str) -> str | None:
    """The error labels.ParseToRequirements gives for the selector's syntax, or None."""
    tokens = _label_tokens(selector)
    pos = 0

    def take(values: bool = True) -> tuple[str, str]:
        nonlocal pos
        kind, lit = tokens[pos]
        pos += 1
        return ("id" if values and kind in ("in", "notin") else kind), lit

    def peek() -> tuple[str, str]:
        kind, lit = tokens[pos]
        return ("id" if kind in ("in", "notin") else kind), lit

    def requirement() -> str | None:
        kind, lit = take()
        if kind == "not":
            kind, lit = take()
            if kind != "id":
                return f"found '{lit}', expected: identifier"
            return None
        if kind != "id":
            return f"found '{lit}', expected: identifier"
        if peek()[0] in ("end", "comma"):
            return None
        kind, lit = take(values=False)
        if kind in ("in", "notin"):
            kind, lit = take()
            if kind != "open":
                return f"found '{lit}' expected: '('"
            if peek()[0] not in ("id", "comma", "close"):
                return f"found '{peek()[1]}', expected: ',', ')' or identifier"
            while True:
                kind, lit = take()
                if kind == "close":
                    return None
                if kind not in ("id", "comma"):
                    return f"found '{lit}', expected: ',', or identifier"
                if kind == "id" and peek()[0] not in ("comma", "close"):
                    return f"found '{peek()[1]}', expected: ',' or ')'"
        if kind != "op":
            return f"found '{lit}', expected: {_LABEL_OPERATORS}"
        if peek()[0] in ("end", "comma"):
            return None
        kind, lit = take()
        return None if kind == "id" else f"found '{lit}', expected: identifier"

    while True:
        kind, lit = peek()
        if kind == "end":
            return None
        if kind not in ("id", "not"):
            return f"found '{lit}', expected: !, identifier, or 'end of string'"
        problem = requirement()
        if problem is not None:
            return f"unable to parse requirement: {problem}"
        kind, lit = take()
        if kind == "end":
            return None
        if kind != "comma":
            return f"found '{lit}', expected: ',' or 'end of string'"
        if peek()[0] not in ("id", "not"):
            return f"found '{peek()[1]}', expected: identifier after ','"


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
            overload("pathcheck_check", D, [P, T.STRING], _check if version >= (1, 32) else _check_without_selectors,
                     member=True, cost=350000),
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
