"""Kubernetes URL library (k8s.io/apiserver/pkg/cel/library/urls.go), all versions.

``url()`` accepts what Go's ``url.ParseRequestURI`` accepts (absolute URIs and absolute paths); the
getters follow Go's ``net/url`` (``Host``, ``Hostname()``, ``Port()``, ``EscapedPath()``,
``Query()``). This module re-implements the parts of ``net/url`` those need, with its error texts.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ... import fast
from . import types as tp
from ._decl import T, actual_size, function, overload, string_cost
from .errors import LibraryError
from .goquote import go_quote


class URLError(Exception):
    pass


@dataclass
class GoURL:
    scheme: str = ""
    opaque: str = ""
    host: str = ""
    path: str = ""
    raw_path: str = ""
    raw_query: str = ""
    fragment: str = ""
    has_user: bool = False
    extra: dict = field(default_factory=dict)


_HEX = "0123456789abcdefABCDEF"
_PATH, _HOST, _ZONE, _QUERY_COMPONENT, _USER, _FRAGMENT = range(6)


def _should_escape(c: str, mode: int) -> bool:
    if c.isascii() and c.isalnum():
        return False
    if mode in (_HOST, _ZONE):
        if c in "!$&'()*+,;=:[]<>\"":
            return False
    if c in "-_.~":
        return False
    if c in "$&+,/:;=?@":
        if mode == _PATH:
            return c == "?"
        if mode == _USER:
            return c in "@/?:"
        if mode == _QUERY_COMPONENT:
            return True
        if mode == _FRAGMENT:
            return False
    if mode == _FRAGMENT and c in "!()*":
        return False
    return True


def _unescape(s: str, mode: int) -> str:
    n = 0
    i = 0
    data = s.encode("utf-8")
    while i < len(data):
        ch = chr(data[i])
        if ch == "%":
            n += 1
            if i + 2 >= len(data) or chr(data[i + 1]) not in _HEX or chr(data[i + 2]) not in _HEX:
                rest = data[i:]
                if len(rest) > 3:
                    rest = rest[:3]
                raise URLError(f"invalid URL escape {go_quote(rest.decode('utf-8', 'replace'))}")
            if mode == _HOST and int(data[i + 1 : i + 3], 16) < 0x80 and data[i + 1 : i + 3].upper() != b"25":
                raise URLError(f"invalid URL escape {go_quote(data[i : i + 3].decode())}")
            i += 3
        elif ch == "+":
            i += 1
        else:
            if mode in (_HOST, _ZONE) and data[i] < 0x80 and _should_escape(ch, mode):
                raise URLError(f"invalid character {go_quote(ch)} in host name")
            i += 1
    if n == 0 and (mode != _QUERY_COMPONENT or "+" not in s):
        return s
    out = bytearray()
    i = 0
    while i < len(data):
        c = data[i]
        if c == 0x25:
            out.append(int(data[i + 1 : i + 3], 16))
            i += 3
        elif c == 0x2B and mode == _QUERY_COMPONENT:
            out.append(0x20)
            i += 1
        else:
            out.append(c)
            i += 1
    return out.decode("utf-8", "surrogateescape")


def _escape(s: str, mode: int) -> str:
    out = []
    for b in s.encode("utf-8", "surrogateescape"):
        c = chr(b)
        if b < 0x80 and not _should_escape(c, mode):
            out.append(c)
        elif c == " " and mode == _QUERY_COMPONENT:
            out.append("+")
        else:
            out.append(f"%{b:02X}")
    return "".join(out)


def _valid_encoded(s: str, mode: int) -> bool:
    for c in s:
        if c in "!$&'()*+,;=:@[]":
            continue
        if c == "%":
            continue
        if _should_escape(c, mode):
            return False
    return True


def _valid_optional_port(port: str) -> bool:
    if port == "":
        return True
    if port[0] != ":":
        return False
    return all(c in "0123456789" for c in port[1:])


def _parse_host(host: str) -> str:
    if host.startswith("["):
        i = host.rfind("]")
        if i < 0:
            raise URLError("missing ']' in host")
        colon_port = host[i + 1 :]
        if not _valid_optional_port(colon_port):
            raise URLError(f"invalid port {go_quote(colon_port)} after host")
        zone = host[:i].find("%25")
        if zone >= 0:
            return _unescape(host[:zone], _HOST) + _unescape(host[zone:i], _ZONE) + _unescape(host[i:], _HOST)
    else:
        i = host.rfind(":")
        if i != -1:
            colon_port = host[i:]
            if not _valid_optional_port(colon_port):
                raise URLError(f"invalid port {go_quote(colon_port)} after host")
    return _unescape(host, _HOST)


def _valid_userinfo(s: str) -> bool:
    for c in s:
        if c.isascii() and c.isalnum():
            continue
        if c in "-._:~!$&'()*+,;=%@":
            continue
        return False
    return True


def _parse(raw: str, via_request: bool) -> GoURL:
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in raw):
        raise URLError("net/url: invalid control character in URL")
    if raw == "" and via_request:
        raise URLError("empty url")
    u = GoURL()
    if raw == "*":
        u.path = "*"
        return u
    scheme, rest = "", raw
    for i, c in enumerate(raw):
        if c.isascii() and c.isalpha():
            continue
        if c.isascii() and (c.isdigit() or c in "+-."):
            if i == 0:
                break
            continue
        if c == ":":
            if i == 0:
                raise URLError("missing protocol scheme")
            scheme, rest = raw[:i], raw[i + 1 :]
        break
    u.scheme = scheme.lower()
    if rest.endswith("?") and rest.count("?") == 1:
        u.extra["force_query"] = True
        rest = rest[:-1]
    else:
        rest, _, u.raw_query = rest.partition("?")
    if not rest.startswith("/"):
        if u.scheme:
            u.opaque = rest
            return u
        if via_request:
            raise URLError("invalid URI for request")
        segment = rest.split("/", 1)[0]
        if ":" in segment:
            raise URLError("first path segment in URL cannot contain colon")
    if (u.scheme or not via_request and not rest.startswith("///")) and rest.startswith("//"):
        authority, slash, tail = rest[2:].partition("/")
        rest = slash + tail
        at = authority.rfind("@")
        if at < 0:
            u.host = _parse_host(authority)
        else:
            userinfo = authority[:at]
            u.host = _parse_host(authority[at + 1 :])
            if not _valid_userinfo(userinfo):
                raise URLError("net/url: invalid userinfo")
            u.has_user = True
    path = _unescape(rest, _PATH)
    u.path = path
    escaped = _escape(path, _PATH)
    u.raw_path = "" if rest == escaped else rest
    return u


@fast.memo(1024)
def parse_request_uri(raw: str) -> GoURL:
    try:
        return _parse(raw, True)
    except URLError as exc:
        raise URLError(f"parse {go_quote(raw)}: {exc}") from None


@fast.memo(1024)
def parse_url(raw: str) -> GoURL:
    u_text, sep, frag = raw.partition("#")
    try:
        u = _parse(u_text, False)
        if sep:
            u.fragment = _unescape(frag, _FRAGMENT)
    except URLError as exc:
        raise URLError(f"parse {go_quote(raw)}: {exc}") from None
    return u


def _split_host_port(host_port: str) -> tuple[str, str]:
    host, port = host_port, ""
    colon = host_port.rfind(":")
    if colon != -1 and _valid_optional_port(host_port[colon:]):
        host, port = host_port[:colon], host_port[colon + 1 :]
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    return host, port


def escaped_path(u: GoURL) -> str:
    if u.raw_path and _valid_encoded(u.raw_path, _PATH):
        try:
            if _unescape(u.raw_path, _PATH) == u.path:
                return u.raw_path
        except URLError:
            pass
    if u.path == "*":
        return "*"
    return _escape(u.path, _PATH)


def parse_query(query: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    while query:
        key, _, query = query.partition("&")
        if ";" in key or key == "":
            continue
        key, _, value = key.partition("=")
        try:
            k = _unescape(key, _QUERY_COMPONENT)
            v = _unescape(value, _QUERY_COMPONENT)
        except URLError:
            continue
        out.setdefault(k, []).append(v)
    return out


# ------------------------------------------------------------------------------------------------


def _url(s: str) -> object:
    try:
        parse_request_uri(s)
        parse_url(s)
    except URLError as exc:
        raise LibraryError(f"URL parse error during conversion from string: {exc}") from None
    return tp.new(tp.URL, url=s)


def _is_url(s: str) -> bool:
    try:
        parse_request_uri(s)
    except URLError:
        return False
    return True


def _u(msg: object) -> GoURL:
    return parse_url(tp.get(msg, "url"))


def _str_cost(s: str, result: object = None) -> int:
    return string_cost(actual_size(s))


def decls(version: tuple[int, int]) -> list:
    U = tp.T(tp.URL)
    return [
        function("url", overload("string_to_url", U, [T.STRING], _url, cost=_str_cost)),
        function("isURL", overload("is_url_string", T.BOOL, [T.STRING], _is_url, cost=_str_cost)),
        function("getScheme", overload("url_get_scheme", T.STRING, [U], lambda m: _u(m).scheme, member=True, cost=1)),
        function("getHost", overload("url_get_host", T.STRING, [U], lambda m: _u(m).host, member=True, cost=1)),
        function(
            "getHostname",
            overload("url_get_hostname", T.STRING, [U], lambda m: _split_host_port(_u(m).host)[0], member=True, cost=1),
        ),
        function(
            "getPort",
            overload("url_get_port", T.STRING, [U], lambda m: _split_host_port(_u(m).host)[1], member=True, cost=1),
        ),
        function(
            "getEscapedPath",
            overload("url_get_escaped_path", T.STRING, [U], lambda m: escaped_path(_u(m)), member=True, cost=1),
        ),
        function(
            "getQuery",
            overload(
                "url_get_query",
                T.Map(T.STRING, T.List(T.STRING)),
                [U],
                lambda m: parse_query(_u(m).raw_query),
                member=True,
                cost=1,
            ),
        ),
    ]
