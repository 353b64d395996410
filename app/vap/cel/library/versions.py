"""Kubernetes versions and the engine's environment (standard extensions) for each.

Mirrors k8s.io/apiserver/pkg/cel/environment/base.go: each option has the version that introduced
it; a playground emulating server version N evaluates with the environment of N.
"""

from __future__ import annotations

from functools import lru_cache

# Released minor versions (1.37.0 is the newest release; 1.38 is in alpha), oldest first; the default is the newest.
SUPPORTED_VERSIONS: tuple[str, ...] = (
    "1.28", "1.29", "1.30", "1.31", "1.32", "1.33", "1.34", "1.35", "1.36", "1.37",
)
DEFAULT_VERSION = SUPPORTED_VERSIONS[-1]

# Comparison operators are redeclared by the library (cross-type numeric comparisons), and so is
# string() (to add string(IP) and string(CIDR)).
COMPARISON_OPERATORS = ("_<_", "_<=_", "_>_", "_>=_")


@lru_cache(maxsize=64)  # read at every compile and check, nearly always of the same few texts
def version_tuple(version: str | tuple[int, int]) -> tuple[int, int]:
    """Parse "1.34" (or "v1.34", "1.34.2") into (1, 34)."""
    if isinstance(version, tuple):
        return version
    text = str(version).strip().lstrip("v")
    parts = text.split(".")
    if len(parts) < 2 or not parts[0].isdigit() or not parts[1].isdigit():
        raise ValueError(f"not a Kubernetes version: {version!r}")
    return int(parts[0]), int(parts[1])


def normalize_version(version: str | None) -> str:
    """Clamp a requested version to the supported range ("" or None: the default)."""
    if not version:
        return DEFAULT_VERSION
    v = version_tuple(version)
    supported = [version_tuple(s) for s in SUPPORTED_VERSIONS]
    if v < supported[0]:
        return SUPPORTED_VERSIONS[0]
    if v > supported[-1]:
        return SUPPORTED_VERSIONS[-1]
    return f"{v[0]}.{v[1]}"


def environment_yaml(version: str) -> str:
    """The engine's YAML environment config (standard extensions) for a Kubernetes version."""
    v = version_tuple(version)
    lines = [f"name: kubernetes-{v[0]}.{v[1]}", "stdlib:", "  exclude_functions:"]
    for op in (*COMPARISON_OPERATORS, "string"):
        lines.append(f'  - name: "{op}"')
    lines.append("extensions:")
    # optional types, unversioned in base.go, so cel-go's latest at each release: 1.28 ships cel-go 0.16
    # (no optFlatMap: optional v0), 1.29 cel-go 0.17 (v1, optFlatMap), 1.33 cel-go 0.23 (v2: first, last,
    # optional.unwrap, unwrapOpt)
    # (1.27 is the new-expression environment of a 1.28 server: no optional types yet)
    if v >= (1, 28):
        optional = 2 if v >= (1, 33) else 1 if v >= (1, 29) else 0
        lines += ["- name: optional", f"  version: {optional}"]
    # cel-go ext.Strings v0 until 1.28, v2 from 1.29 (format, strings.quote); never v3 (reverse)
    lines += ["- name: strings", f"  version: {2 if v >= (1, 29) else 0}"]
    if v >= (1, 29):
        lines.append("- name: sets")
    if v >= (1, 32):
        lines.append("- name: two-var-comprehensions")
    if v >= (1, 34):
        # cel-go ext.Lists v3 (slice, flatten, sort, sortBy, range, reverse, distinct): the engine's version 2
        lines += ["- name: lists", "  version: 2"]
    return "\n".join(lines) + "\n"
