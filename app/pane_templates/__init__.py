"""Templates of common objects, inserted into a pane from the page.

Rule: this module is pure (no Flask); it reads the YAML files beside it, one folder per pane
(``object/``, ``policy/``, ``binding/``, ``params/``, ``namespace/``), one template a file named
``NN-name.yaml`` (NN orders the pane's list). Each file is plain Kubernetes YAML as a person would
write it, with the newest apiVersion of its kind; for an older Kubernetes version the template is
given the version of its group that server serves (or, when it serves none, the newest it has that
can be switched on), and a kind that version does not have at all is offered as unavailable. Every
template is evaluated by the tests at every supported version.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..vap.resources import builtin_table

_DIR = Path(__file__).parent
_FILE_NAME = re.compile(r"^\d+-(?P<name>[a-z0-9][a-z0-9-]*)\.yaml$")
PANES = ("policy", "binding", "params", "object", "namespace")
_API_VERSION = re.compile(r"^apiVersion:[ \t]*(?P<value>\S+)[ \t]*$", re.MULTILINE)
_KIND = re.compile(r"^kind:[ \t]*(?P<value>\S+)[ \t]*$", re.MULTILINE)
_SEPARATOR = re.compile(r"^---[ \t]*$", re.MULTILINE)


@dataclass(frozen=True)
class Template:
    """One template file: the pane it is for and its text as written (newest apiVersions)."""

    name: str
    pane: str
    text: str
    kinds: tuple[tuple[str, str], ...]  # (apiVersion, kind) of each document

    @property
    def id(self) -> str:
        """``pane/name``: unique (a name is unique within its pane's folder)."""
        return f"{self.pane}/{self.name}"

    @property
    def title(self) -> str:
        """The kinds it holds: "Deployment", "Role and RoleBinding"."""
        names = [kind for _, kind in self.kinds]
        return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]

    def for_version(self, version: str) -> dict[str, Any]:
        """The template as offered for Kubernetes ``version``: its text with the apiVersions that server has,
        whether it is available, and a note when it is not, or when its API must be switched on."""
        table = builtin_table(version)
        notes: list[str] = []
        available = True
        parts = _SEPARATOR.split(self.text)
        for i, part in enumerate(parts):
            api_version = _API_VERSION.search(part)
            kind = _KIND.search(part)
            if api_version is None or kind is None:
                continue
            group, _, written = api_version["value"].rpartition("/")
            versions = [(info.gvr.version, info.served) for info in table
                        if info.gvr.group == group and info.kind == kind["value"]]
            if not versions:
                if _builtin_group(group):
                    available = False
                    notes.append(f"Kubernetes {version} has no {kind['value']}")
                continue  # (a kind of another project's API, such as Kyverno's, stays as written)
            served = [v for v, on in versions if on]
            chosen = written if written in served else (served or [v for v, _ in versions])[0]
            if not served:
                notes.append(f"{group}/{chosen} {kind['value']} is not served by default in Kubernetes {version} "
                             "(an API server must switch it on)")
            if chosen != written:
                start, end = api_version.span("value")
                parts[i] = part[:start] + (f"{group}/{chosen}" if group else chosen) + part[end:]
        return {"id": self.id, "name": self.name, "pane": self.pane, "title": self.title,
                "text": "---".join(parts) if available else "", "available": available, "note": "; ".join(notes)}


def _builtin_group(group: str) -> bool:
    """Whether an API group is one of Kubernetes' own (the core group, *.k8s.io, or one without a dot)."""
    return not group or group.endswith(".k8s.io") or "." not in group


def _read(pane: str, path: Path) -> Template:
    match = _FILE_NAME.match(path.name)
    if match is None:
        raise ValueError(f"{path}: a template file is named NN-name.yaml")
    text = path.read_text(encoding="utf-8")
    kinds = []
    for part in _SEPARATOR.split(text):
        api_version, kind = _API_VERSION.search(part), _KIND.search(part)
        if api_version is None or kind is None:
            raise ValueError(f"{path}: each document needs apiVersion and kind at the start of a line")
        kinds.append((api_version["value"], kind["value"]))
    return Template(match["name"], pane, text, tuple(kinds))


@functools.cache
def all_templates() -> tuple[Template, ...]:
    """Every template, pane by pane in the page's order, each pane's in file order."""
    return tuple(_read(pane, path) for pane in PANES for path in sorted((_DIR / pane).glob("*.yaml")))


def for_version(version: str) -> list[dict[str, Any]]:
    """The templates as offered for Kubernetes ``version`` (see :meth:`Template.for_version`)."""
    return [t.for_version(version) for t in all_templates()]
