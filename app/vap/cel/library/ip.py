"""Kubernetes IP and CIDR libraries (k8s.io/apiserver/pkg/cel/library/ip.go, cidr.go), from 1.30.

Addresses are parsed the way Go's ``net/netip`` does (no leading zeros in IPv4 fields, zones parsed
but then rejected by Kubernetes, IPv4-mapped IPv6 rejected), with netip's error texts for IPv4.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from . import types as tp
from ._decl import T, actual_size, function, overload, string_cost
from .errors import LibraryError, NoSuchOverload
from .goquote import go_quote


class AddrError(Exception):
    pass


@dataclass(frozen=True)
class Addr:
    raw: bytes  # 4 or 16 bytes
    zone: str = ""

    @property
    def is4(self) -> bool:
        return len(self.raw) == 4

    @property
    def is4in6(self) -> bool:
        return len(self.raw) == 16 and self.raw[:12] == b"\x00" * 10 + b"\xff\xff"

    def __str__(self) -> str:
        if self.is4:
            return ".".join(str(b) for b in self.raw)
        if self.is4in6:
            text = "::ffff:" + ".".join(str(b) for b in self.raw[12:])
        else:
            text = ipaddress.IPv6Address(self.raw).compressed
        return text + ("%" + self.zone if self.zone else "")


def _addr_error(s: str, msg: str, at: str | None = None) -> AddrError:
    text = f"ParseAddr({go_quote(s)}): {msg}"
    if at:
        text += f" (at {go_quote(at)})"
    return AddrError(text)


def _parse_v4_fields(s: str, whole: str) -> bytes:
    fields = [0, 0, 0, 0]
    val, pos, dig_len = 0, 0, 0
    for i, c in enumerate(s):
        if "0" <= c <= "9":
            if dig_len == 1 and val == 0:
                raise _addr_error(whole, "IPv4 field has octet with leading zero")
            val = val * 10 + int(c)
            dig_len += 1
            if val > 255:
                raise _addr_error(whole, "IPv4 field has value >255")
        elif c == ".":
            if i == 0 or i == len(s) - 1 or s[i - 1] == ".":
                raise _addr_error(whole, "IPv4 field must have at least one digit", s[i:])
            if pos == 3:
                raise _addr_error(whole, "IPv4 address too long")
            fields[pos] = val
            pos += 1
            val, dig_len = 0, 0
        else:
            raise _addr_error(whole, "unexpected character", s[i:])
    if pos < 3:
        raise _addr_error(whole, "IPv4 address too short")
    fields[3] = val
    return bytes(fields)


def _parse_v6(text: str) -> Addr:
    """net/netip parseIPv6, with its error texts."""
    s, zone = text, ""
    if "%" in s:
        s, _, zone = s.partition("%")
        if zone == "":
            raise _addr_error(text, "zone must be a non-empty string")
    ip = bytearray(16)
    ellipsis = -1
    if len(s) >= 2 and s[0] == ":" and s[1] == ":":
        ellipsis = 0
        s = s[2:]
        if not s:
            return Addr(bytes(ip), zone)
    i = 0
    while i < 16:
        off, acc = 0, 0
        while off < len(s):
            c = s[off]
            if c in "0123456789abcdefABCDEF" and c.isascii():
                acc = (acc << 4) + int(c, 16)
            else:
                break
            if off > 3:
                raise _addr_error(text, "each group must have 4 or less digits", s)
            if acc > 0xFFFF:
                raise _addr_error(text, "IPv6 field has value >=2^16", s)
            off += 1
        if off == 0:
            raise _addr_error(text, "each colon-separated field must have at least one digit", s)
        if off < len(s) and s[off] == ".":
            if ellipsis < 0 and i != 12:
                raise _addr_error(text, "embedded IPv4 address must replace the final 2 fields of the address", s)
            if i + 4 > 16:
                raise _addr_error(text, "too many hex fields to fit an embedded IPv4 at the end of the address", s)
            ip[i : i + 4] = _parse_v4_fields(s, text)
            s = ""
            i += 4
            break
        ip[i] = acc >> 8
        ip[i + 1] = acc & 0xFF
        i += 2
        s = s[off:]
        if not s:
            break
        if s[0] != ":":
            raise _addr_error(text, "unexpected character, want colon", s)
        if len(s) == 1:
            raise _addr_error(text, "colon must be followed by more characters", s)
        s = s[1:]
        if s[0] == ":":
            if ellipsis >= 0:
                raise _addr_error(text, "multiple :: in address", s)
            ellipsis = i
            s = s[1:]
            if not s:
                break
    if s:
        raise _addr_error(text, "trailing garbage after address", s)
    if i < 16:
        if ellipsis < 0:
            raise _addr_error(text, "address string too short")
        n = 16 - i
        for j in range(i - 1, ellipsis - 1, -1):
            ip[j + n] = ip[j]
        ip[ellipsis : ellipsis + n] = bytes(n)
    elif ellipsis >= 0:
        raise _addr_error(text, "the :: must expand to at least one field of zeros", s)
    return Addr(bytes(ip), zone)


def parse_addr(s: str) -> Addr:
    """net/netip.ParseAddr."""
    for c in s:
        if c == ".":
            return Addr(_parse_v4_fields(s, s))
        if c == ":":
            return _parse_v6(s)
        if c == "%":
            raise _addr_error(s, "missing IPv6 address")
    raise _addr_error(s, "unable to parse IP")


def parse_ip(s: str) -> Addr:
    """Kubernetes parseIPAddr."""
    try:
        addr = parse_addr(s)
    except AddrError as exc:
        raise LibraryError(f"IP Address {go_quote(s)} parse error during conversion from string: {exc}") from None
    if addr.zone:
        raise LibraryError(f"IP address {go_quote(s)} with zone value is not allowed")
    if addr.is4in6:
        raise LibraryError(f"IPv4-mapped IPv6 address {go_quote(s)} is not allowed")
    return addr


def parse_prefix(s: str) -> tuple[Addr, int]:
    """net/netip.ParsePrefix."""

    def err(msg: str) -> AddrError:
        return AddrError(f"netip.ParsePrefix({go_quote(s)}): {msg}")

    i = s.rfind("/")
    if i < 0:
        raise err("no '/'")
    try:
        addr = parse_addr(s[:i])
    except AddrError as exc:
        raise err(str(exc)) from None
    if not addr.is4 and addr.zone:
        raise err("IPv6 zones cannot be present in a prefix")
    bits_str = s[i + 1 :]
    if len(bits_str) > 1 and not ("1" <= bits_str[0] <= "9"):
        raise err("bad bits after slash: " + go_quote(bits_str))
    if not bits_str or not all("0" <= c <= "9" for c in bits_str):
        raise err("bad bits after slash: " + go_quote(bits_str))
    bits = int(bits_str)
    if bits > (32 if addr.is4 else 128):
        raise err("prefix length out of range")
    return addr, bits


_PREFIX = "network address parse error during conversion from string: "


def parse_cidr(s: str) -> tuple[Addr, int]:
    """Kubernetes parseCIDR (the caller adds the prefix once more, as stringToCIDR does)."""
    try:
        addr, bits = parse_prefix(s)
    except AddrError as exc:
        raise LibraryError(_PREFIX + str(exc)) from None
    if addr.is4in6:
        raise LibraryError(f"IPv4-mapped IPv6 address {go_quote(s)} is not allowed")
    return addr, bits


def _mask(raw: bytes, bits: int) -> bytes:
    n = int.from_bytes(raw, "big")
    total = len(raw) * 8
    mask = ((1 << bits) - 1) << (total - bits) if bits else 0
    return (n & mask).to_bytes(len(raw), "big")


# ------------------------------------------------------------------------------------------------
# values


def make_ip(addr: Addr) -> object:
    return tp.new(tp.IP, addr=addr.raw)


def ip_of(msg: object) -> Addr:
    return Addr(bytes(tp.get(msg, "addr")))


def make_cidr(addr: Addr, bits: int) -> object:
    return tp.new(tp.CIDR, addr=addr.raw, bits=bits)


def cidr_of(msg: object) -> tuple[Addr, int]:
    return Addr(bytes(tp.get(msg, "addr"))), int(tp.get(msg, "bits"))


def _ip(s: str) -> object:
    return make_ip(parse_ip(s))


def _is_ip(s: str) -> bool:
    try:
        parse_ip(s)
    except LibraryError:
        return False
    return True


def _is_canonical(s: str) -> bool:
    return str(parse_ip(s)) == s


def _family(m: object) -> int:
    return 4 if ip_of(m).is4 else 6


def _v4(addr: Addr) -> bytes | None:
    return addr.raw if addr.is4 else None


def _is_unspecified(m: object) -> bool:
    return not any(ip_of(m).raw)


def _is_loopback(m: object) -> bool:
    a = ip_of(m)
    return a.raw[0] == 127 if a.is4 else a.raw == b"\x00" * 15 + b"\x01"


def _is_multicast(a: Addr) -> bool:
    return a.raw[0] & 0xF0 == 0xE0 if a.is4 else a.raw[0] == 0xFF


def _is_link_local_multicast(m: object) -> bool:
    a = ip_of(m)
    if a.is4:
        return a.raw[:3] == b"\xe0\x00\x00"
    return a.raw[0] == 0xFF and a.raw[1] & 0x0F == 0x02


def _is_link_local_unicast_addr(a: Addr) -> bool:
    if a.is4:
        return a.raw[:2] == b"\xa9\xfe"
    return a.raw[0] == 0xFE and a.raw[1] & 0xC0 == 0x80


def _is_global_unicast(m: object) -> bool:
    a = ip_of(m)
    if a.is4 and a.raw == b"\xff\xff\xff\xff":
        return False
    return not (_is_unspecified(m) or _is_loopback(m) or _is_multicast(a) or _is_link_local_unicast_addr(a))


def _cidr(s: str) -> object:
    addr, bits = parse_cidr(s)  # raises with one prefix; add the second like stringToCIDR
    return make_cidr(addr, bits)


def _cidr_checked(s: str) -> object:
    try:
        return _cidr(s)
    except LibraryError as exc:
        if exc.text.startswith(_PREFIX):
            raise LibraryError(_PREFIX + exc.text) from None
        raise LibraryError(_PREFIX + exc.text) from None


def _is_cidr(s: str) -> bool:
    try:
        parse_cidr(s)
    except LibraryError:
        return False
    return True


def _contains(prefix: tuple[Addr, int], addr: Addr) -> bool:
    paddr, bits = prefix
    if len(paddr.raw) != len(addr.raw):
        return False
    return _mask(paddr.raw, bits) == _mask(addr.raw, bits)


def _contains_ip(c: object, other: object) -> bool:
    return _contains(cidr_of(c), ip_of(other))


def _contains_ip_string(c: object, s: str) -> bool:
    try:
        addr = parse_ip(s)
    except LibraryError:
        raise NoSuchOverload() from None
    return _contains(cidr_of(c), addr)


def _contains_cidr_value(a: tuple[Addr, int], b: tuple[Addr, int]) -> bool:
    (pa, ba), (pb, bb) = a, b
    if len(pa.raw) != len(pb.raw):
        return False
    m = min(ba, bb)
    overlaps = _mask(pa.raw, m) == _mask(pb.raw, m)
    return overlaps and ba <= bb


def _contains_cidr(c: object, other: object) -> bool:
    return _contains_cidr_value(cidr_of(c), cidr_of(other))


def _contains_cidr_string(c: object, s: str) -> bool:
    try:
        other = parse_cidr(s)
    except LibraryError:
        raise NoSuchOverload() from None
    return _contains_cidr_value(cidr_of(c), other)


def _masked(c: object) -> object:
    addr, bits = cidr_of(c)
    return make_cidr(Addr(_mask(addr.raw, bits)), bits)


def _cidr_string(c: object) -> str:
    addr, bits = cidr_of(c)
    return f"{addr}/{bits}"


def _str_cost(s: str, result: object = None) -> int:
    return string_cost(actual_size(s))


def _contains_cost(c: object, other: object, result: object = None) -> int:
    cost = string_cost(2)
    if isinstance(other, str):
        cost += string_cost(len(other))
    return cost


def _contains_cidr_cost(c: object, other: object, result: object = None) -> int:
    cost = string_cost(2) + string_cost(1) + 1
    if isinstance(other, str):
        cost += string_cost(len(other))
    return cost


def decls(version: tuple[int, int]) -> list:
    if version < (1, 30):
        return []
    IP, CIDR = tp.T(tp.IP), tp.T(tp.CIDR)
    return [
        function(
            "ip",
            overload("string_to_ip", IP, [T.STRING], _ip, cost=_str_cost),
            overload("cidr_ip", IP, [CIDR], lambda c: make_ip(cidr_of(c)[0]), member=True, cost=1),
        ),
        function("family", overload("ip_family", T.INT, [IP], _family, member=True, cost=1)),
        function(
            "ip.isCanonical",
            overload(
                "ip_is_canonical",
                T.BOOL,
                [T.STRING],
                _is_canonical,
                cost=lambda s, result=None: string_cost(2 * len(s)),
            ),
        ),
        function("isUnspecified", overload("ip_is_unspecified", T.BOOL, [IP], _is_unspecified, member=True, cost=1)),
        function("isLoopback", overload("ip_is_loopback", T.BOOL, [IP], _is_loopback, member=True, cost=1)),
        function(
            "isLinkLocalMulticast",
            overload("ip_is_link_local_multicast", T.BOOL, [IP], _is_link_local_multicast, member=True, cost=1),
        ),
        function(
            "isLinkLocalUnicast",
            overload(
                "ip_is_link_local_unicast",
                T.BOOL,
                [IP],
                lambda m: _is_link_local_unicast_addr(ip_of(m)),
                member=True,
                cost=1,
            ),
        ),
        function(
            "isGlobalUnicast", overload("ip_is_global_unicast", T.BOOL, [IP], _is_global_unicast, member=True, cost=1)
        ),
        function("isIP", overload("is_ip", T.BOOL, [T.STRING], _is_ip, cost=_str_cost)),
        function("cidr", overload("string_to_cidr", CIDR, [T.STRING], _cidr_checked, cost=_str_cost)),
        function(
            "containsIP",
            overload(
                "cidr_contains_ip_string",
                T.BOOL,
                [CIDR, T.STRING],
                _contains_ip_string,
                member=True,
                cost=_contains_cost,
            ),
            overload("cidr_contains_ip_ip", T.BOOL, [CIDR, IP], _contains_ip, member=True, cost=_contains_cost),
        ),
        function(
            "containsCIDR",
            overload(
                "cidr_contains_cidr_string",
                T.BOOL,
                [CIDR, T.STRING],
                _contains_cidr_string,
                member=True,
                cost=_contains_cidr_cost,
            ),
            overload("cidr_contains_cidr", T.BOOL, [CIDR, CIDR], _contains_cidr, member=True, cost=_contains_cidr_cost),
        ),
        function(
            "prefixLength", overload("cidr_prefix_length", T.INT, [CIDR], lambda c: cidr_of(c)[1], member=True, cost=1)
        ),
        function("masked", overload("cidr_masked", CIDR, [CIDR], _masked, member=True, cost=1)),
        function("isCIDR", overload("is_cidr", T.BOOL, [T.STRING], _is_cidr, cost=_str_cost)),
    ]


def string_overloads(version: tuple[int, int]) -> list:
    """string(IP) and string(CIDR), added to the redeclared standard `string` function."""
    if version < (1, 30):
        return []
    IP, CIDR = tp.T(tp.IP), tp.T(tp.CIDR)
    # one implementation for both (the run time sees two message arguments as the same signature)
    return [
        overload("ip_to_string", T.STRING, [IP], _to_string, cost=1),
        overload("cidr_to_string", T.STRING, [CIDR]),
    ]


def _to_string(m: object) -> str:
    if tp.type_name(m) == tp.CIDR:
        return _cidr_string(m)
    return str(ip_of(m))
