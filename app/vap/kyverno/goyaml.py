"""Encoding a map of maps of strings exactly as Go's gopkg.in/yaml.v3 does with an indent of 2.

Kyverno writes the reasons for blocking a request with yaml.v3 (pkg/webhooks/utils/block.go), so the
denial message depends on its choices: keys sorted by yaml.v3's natural order, each string plain,
single-quoted, double-quoted or as a literal block, as yaml.v3's encoder and emitter (emitterc.go)
decide. Only what that message needs is here: nested mappings of string keys to strings.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping

_INDENT = 2
# Strings yaml.v3 would read back as something else (resolve.go's map), and the YAML 1.1 booleans it quotes.
_RESOLVED = {"", "~", "null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE",
             ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF", ".nan", ".NaN", ".NAN",
             "<<"}
_OLD_BOOLS = {"y", "Y", "yes", "Yes", "YES", "on", "On", "ON", "n", "N", "no", "No", "NO", "off", "Off", "OFF"}
_BASE60 = re.compile(r"[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?")
_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
_INT = re.compile(r"[-+]?(0[xX][0-9a-fA-F]+|0[oO]?[0-7]+|0[bB][01]+|[0-9]+)")
_TIMESTAMP = re.compile(r"\d{4}-\d{1,2}-\d{1,2}([Tt ]\d{1,2}:\d{1,2}:\d{1,2}(\.\d+)?(Z|[-+]\d{1,2}(:\d{2})?)?)?")
_BREAKS = "\r\n\x85\u2028\u2029"


def _resolves_to_non_string(s: str) -> bool:
    """resolve("", s) gives a tag other than !!str, or the value is a YAML 1.1 bool or base-60 float."""
    if s in _RESOLVED or s in _OLD_BOOLS or _BASE60.fullmatch(s):
        return True
    if s[0] not in "+-.0123456789":
        return False
    plain = s.replace("_", "")
    if s[0] != "." and _TIMESTAMP.fullmatch(s):
        return True
    return bool(_INT.fullmatch(plain) or _FLOAT.fullmatch(plain))


def _printable(c: str) -> bool:
    o = ord(c)
    return (c == "\n" or 0x20 <= o <= 0x7E or o == 0x85 or 0xA0 <= o <= 0xD7FF
            or (0xE000 <= o <= 0xFFFD and o != 0xFEFF) or 0x10000 <= o <= 0x10FFFF)


def _analyze(value: str) -> dict[str, bool]:
    """yaml_emitter_analyze_scalar: which styles may show the value."""
    if not value:
        return {"multiline": False, "block_plain": True, "single": True, "block": False}
    # (flow indicators only matter inside flow collections, which this encoder never writes)
    block_ind = line_breaks = special = tabs = False
    leading_space = leading_break = trailing_space = trailing_break = False
    break_space = space_break = previous_space = previous_break = False
    if value.startswith("---") or value.startswith("..."):
        block_ind = True
    preceded_by_ws = True
    n = len(value)
    for i, c in enumerate(value):
        followed_by_ws = i + 1 >= n or value[i + 1] in " \t"
        if i == 0:
            if c in "#,[]{}&*!|>'\"%@`" or (c in "?:-" and followed_by_ws):
                block_ind = True
        elif (c == ":" and followed_by_ws) or (c == "#" and preceded_by_ws):
            block_ind = True
        if c == "\t":
            tabs = True
        elif not _printable(c):
            special = True
        if c == " ":
            leading_space = leading_space or i == 0
            trailing_space = trailing_space or i == n - 1
            break_space = break_space or previous_break
            previous_space, previous_break = True, False
        elif c in _BREAKS:
            line_breaks = True
            leading_break = leading_break or i == 0
            trailing_break = trailing_break or i == n - 1
            space_break = space_break or previous_space
            previous_space, previous_break = False, True
        else:
            previous_space = previous_break = False
        preceded_by_ws = c in " \t" + _BREAKS
    block_plain = single = block = True
    if leading_space or leading_break or trailing_space or trailing_break:
        block_plain = False
    if trailing_space:
        block = False
    if break_space:
        block_plain = single = False
    if space_break or tabs or special:
        block_plain = single = False
    if space_break or special:
        block = False
    if line_breaks or block_ind:
        block_plain = False
    return {"multiline": line_breaks, "block_plain": block_plain, "single": single, "block": block}


_DOUBLE_ESCAPES = {"\0": "0", "\a": "a", "\b": "b", "\t": "t", "\n": "n", "\v": "v", "\f": "f", "\r": "r",
                   "\x1b": "e", '"': '"', "\\": "\\", "\x85": "N", "\xa0": "_", "\u2028": "L", "\u2029": "P"}


def _double_quoted(value: str) -> str:
    out = ['"']
    for c in value:
        o = ord(c)
        if not _printable(c) or c == "\ufeff" or c in _BREAKS or c in '"\\' or c == "\xa0":
            if c in _DOUBLE_ESCAPES:
                out.append("\\" + _DOUBLE_ESCAPES[c])
            elif o <= 0xFF:
                out.append(f"\\x{o:02X}")
            elif o <= 0xFFFF:
                out.append(f"\\u{o:04X}")
            else:
                out.append(f"\\U{o:08X}")
        else:
            out.append(c)
    out.append('"')
    return "".join(out)


def _literal(value: str, indent: int) -> str:
    """A literal block scalar: the header and every line indented (empty lines stay empty)."""
    header = "|"
    if value[:1] in (" ",) or value[:1] in _BREAKS:
        header += str(_INDENT)
    if not value or value[-1] not in _BREAKS:
        header += "-"
    elif len(value) == 1 or value[-2] in _BREAKS:
        header += "+"
    body = value[:-1] if value and value[-1] == "\n" else value
    lines = body.split("\n")
    return header + "\n" + "\n".join((" " * indent + line) if line else "" for line in lines)


def scalar(value: str, *, indent: int, simple_key: bool = False) -> str:
    """Render one string as yaml.v3 would at this indentation (a mapping value, or a key)."""
    can_plain = not _resolves_to_non_string(value)
    if "\n" in value:
        style = "literal"
    elif can_plain:
        style = "plain"
    else:
        style = "double"
    data = _analyze(value)
    if simple_key and data["multiline"]:
        style = "double"
    if style == "plain":
        if not data["block_plain"] or (not value and simple_key):
            style = "single"
    if style == "single" and not data["single"]:
        style = "double"
    if style == "literal" and (not data["block"] or simple_key):
        style = "double"
    if style == "plain":
        return value
    if style == "single":
        return "'" + value.replace("'", "''") + "'"
    if style == "double":
        return _double_quoted(value)
    return _literal(value, indent)


def _natural_less(a: str, b: str) -> bool:
    """yaml.v3's keyList.Less for two strings: letters before digits after a digit run, numbers by value."""
    digits = False
    for i in range(min(len(a), len(b))):
        x, y = a[i], b[i]
        if x == y:
            digits = x.isdigit()
            continue
        xl, yl = x.isalpha(), y.isalpha()
        if xl and yl:
            return x < y
        if xl or yl:
            return xl if digits else yl
        an = bn = 0
        if x == "0" or y == "0":
            j = i - 1
            while j >= 0 and a[j].isdigit():
                if a[j] != "0":
                    an = bn = 1
                    break
                j -= 1
        ai = i
        while ai < len(a) and a[ai].isdigit():
            an = an * 10 + int(a[ai])
            ai += 1
        bi = i
        while bi < len(b) and b[bi].isdigit():
            bn = bn * 10 + int(b[bi])
            bi += 1
        if an != bn:
            return an < bn
        if ai != bi:
            return ai < bi
        return x < y
    return len(a) < len(b)


def _sorted_keys(keys: list[str]) -> list[str]:
    return sorted(keys, key=functools.cmp_to_key(lambda a, b: -1 if _natural_less(a, b) else
                                                 (1 if _natural_less(b, a) else 0)))


def encode(value: Mapping[str, object], *, level: int = 0) -> str:
    """Encode nested string mappings as yaml.v3 does (``Encoder.SetIndent(2)``), ending with a newline."""
    lines: list[str] = []
    pad = " " * (level * _INDENT)
    for key in _sorted_keys([str(k) for k in value]):
        item = value[key]
        shown = scalar(key, indent=0, simple_key=True)
        if isinstance(item, Mapping):
            if not item:
                lines.append(f"{pad}{shown}: {{}}\n")
                continue
            lines.append(f"{pad}{shown}:\n")
            lines.append(encode(item, level=level + 1))
        else:
            lines.append(f"{pad}{shown}: {scalar(str(item), indent=(level + 1) * _INDENT)}\n")
    return "".join(lines)
