"""Sorting plain Kubernetes manifests into the playground's panes by kind.

What ``kubectl apply -f`` would take (``---`` separated documents, JSON, a ``kind: List`` as
``kubectl get -o yaml`` prints it) is read with the panes' own loader (:mod:`.documents`), and each
document is given to the pane that holds its kind, as the evaluation reads the panes
(:mod:`.evaluate`): admission policies, webhook configurations and Kyverno policies to Policy;
their bindings to Binding; CustomResourceDefinitions, RBAC objects and the objects a policy's
``paramKind`` (and its bindings' ``paramRef``) selects to Params; Namespaces to Namespace; the first
remaining object to Object, which takes one. A kind the selected Kubernetes version does not serve
(nor a CustomResourceDefinition of the file define) is not placed, and says why, with its document
and line. Each document keeps its text as written (comments included); a List's items are written
out as YAML.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml

from . import kyverno, rbac, webhooks
from .documents import Document, load_pane
from .matching import SelectorError, selector_matches
from .params import param_kind_matches
from .resources import ResourceTable, builtin_table

ADMISSION_GROUP = "admissionregistration.k8s.io"
POLICY_KINDS = ("ValidatingAdmissionPolicy", "MutatingAdmissionPolicy")
BINDING_KINDS = ("ValidatingAdmissionPolicyBinding", "MutatingAdmissionPolicyBinding")
# Kyverno's newer policy kinds (policies.kyverno.io), which the playground does not evaluate
KYVERNO_POLICIES_GROUP = "policies.kyverno.io"
CRD_GROUP = "apiextensions.k8s.io"
SCENARIO_GROUP = "playground.admission"  # the playground's own scenario files (app/store/yamlfile.py)

# The panes an import fills, in the page's order.
TARGET_PANES = ("policy", "binding", "params", "object", "namespace")

_SAFE = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_MARKER = re.compile(r"^(---|\.\.\.)(?=[ \t]|$)")


@dataclass
class Placed:
    """Where one document of the file went, or why it went nowhere (``pane`` is None)."""

    document: int  # 1-based, in the file's order
    item: int | None  # 1-based position in a List, else None
    line: int | None
    api_version: str
    kind: str
    name: str
    pane: str | None
    reason: str

    @property
    def where(self) -> str:
        """"document 2, line 14"; "document 1, item 3 of its List, line 20"."""
        item = f", item {self.item} of its List" if self.item is not None else ""
        line = f", line {self.line}" if self.line is not None else ""
        return f"document {self.document}{item}{line}"

    def to_json(self) -> dict[str, Any]:
        return {"document": self.document, "item": self.item, "line": self.line, "apiVersion": self.api_version,
                "kind": self.kind, "name": self.name, "pane": self.pane, "reason": self.reason,
                "where": self.where}


@dataclass
class Placement:
    """The panes' new texts and what went where; ``error``: the file could not be read (nothing placed)."""

    kubernetes_version: str
    panes: dict[str, str] = field(default_factory=dict)
    placed: list[Placed] = field(default_factory=list)
    not_placed: list[Placed] = field(default_factory=list)
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"kubernetesVersion": self.kubernetes_version, "panes": self.panes,
                "placed": [p.to_json() for p in self.placed],
                "notPlaced": [p.to_json() for p in self.not_placed], "error": self.error}


@dataclass
class _Entry:
    doc: Document
    number: int
    item: int | None
    line: int | None
    text: str


def _chunks(text: str) -> list[tuple[int, int, str]]:
    """Split a YAML stream at its document markers: (first line, last line, text) of each part. A ``---`` or
    ``...`` at the start of a line always ends a document in YAML, even inside a block scalar."""
    lines = text.split("\n")
    parts: list[tuple[int, int, str]] = []
    start = 0
    for number, line in enumerate(lines):
        if _MARKER.match(line):
            if number > start:
                parts.append((start + 1, number, "\n".join(lines[start:number])))
            start = number + 1 if line.startswith("...") or line.rstrip() == "---" else number
    if start < len(lines):
        parts.append((start + 1, len(lines), "\n".join(lines[start:])))
    return parts


def _own_text(chunks: list[tuple[int, int, str]], line: int | None) -> str | None:
    """The text of the part of the file holding a document that starts on ``line``."""
    for first, last, text in chunks:
        if line is not None and first <= line <= last:
            lines = text.split("\n")
            if lines and lines[0].rstrip() == "---":
                lines = lines[1:]
            return "\n".join(lines).strip("\n") + "\n"
    return None


def _entries(text: str) -> tuple[list[_Entry], str | None]:
    """Every document of the file, a List's items each on its own, with its number, line and text."""
    docs, problems = load_pane("import", text)
    if problems:
        first = problems[0]
        where = f"document {first.document + 1}" if first.document is not None else "the file"
        return [], f"{where} cannot be read: {first.message}"
    chunks = _chunks(text)
    entries: list[_Entry] = []
    numbers: dict[int, int] = {}
    items: dict[int, int] = {}
    lists: dict[str, bool] = {}
    for doc in docs:
        number = numbers.setdefault(doc.index, len(numbers) + 1)
        line = doc.locate(None)[0]
        own = _own_text(chunks, line)
        if own is not None and own not in lists:
            lists[own] = _is_list(own)
        in_list = own is not None and lists[own]
        if in_list:
            items[doc.index] = items.get(doc.index, 0) + 1
            body = yaml.safe_dump(doc.value, sort_keys=False, allow_unicode=True, default_flow_style=False)
        else:
            body = own if own is not None else yaml.safe_dump(doc.value, sort_keys=False, allow_unicode=True)
        entries.append(_Entry(doc, number, items[doc.index] if in_list else None, line, body))
    return entries, None


def _is_list(own: str) -> bool:
    """Whether a part of the file is a List (its documents are its items), as the loader expands one."""
    try:  # (read whole before, within the bounds)
        whole = yaml.load(own, Loader=_SAFE)  # noqa: S506 - a safe loader
    except yaml.YAMLError:
        return False
    return isinstance(whole, dict) and str(whole.get("kind", "")).endswith("List") \
        and isinstance(whole.get("items"), list)


def _param_kinds(policies: list[Document]) -> dict[str, tuple[str, str]]:
    """paramKind (group, kind) of each policy of the file that has one, by policy name."""
    kinds: dict[str, tuple[str, str]] = {}
    for doc in policies:
        spec = doc.value.get("spec") if isinstance(doc.value, dict) else None
        param_kind = spec.get("paramKind") if isinstance(spec, Mapping) else None
        if isinstance(param_kind, Mapping) and param_kind.get("kind"):
            api_version = str(param_kind.get("apiVersion", ""))
            kinds[doc.name] = (api_version.rpartition("/")[0] if "/" in api_version else "", str(param_kind["kind"]))
    return kinds


def _selected_by(doc: Document, param_refs: list[Mapping[str, Any]]) -> bool:
    """Whether a paramRef of a binding would select this object (any, when no binding has a paramRef)."""
    if not param_refs:
        return True
    meta = doc.value.get("metadata") if isinstance(doc.value.get("metadata"), Mapping) else {}
    for ref in param_refs:
        namespace = str(ref.get("namespace") or "")
        if namespace and str(meta.get("namespace") or "") not in (namespace, ""):
            continue
        if ref.get("name"):
            if str(ref["name"]) == doc.name:
                return True
        elif isinstance(ref.get("selector"), Mapping):
            labels = meta.get("labels") if isinstance(meta.get("labels"), Mapping) else {}
            try:
                if selector_matches(ref["selector"], {str(k): str(v) for k, v in labels.items()}):
                    return True
            except SelectorError:
                return True
    return False


def _known(doc: Document, table: ResourceTable) -> bool:
    """Whether the kind is one the server serves (a resource, or a subresource's kind such as PodExecOptions)."""
    group, _, version = doc.api_version.rpartition("/")
    info = table.by_kind(group, version, doc.kind)
    if info is not None:
        return info.served
    return any(gvk.group == group and gvk.version == version and gvk.kind == doc.kind
               for info in table for gvk in info.subresources.values())


def _unknown_reason(doc: Document, table: ResourceTable, version: str) -> str:
    group, _, api = doc.api_version.rpartition("/")
    others = [info.gvr.version for info in table if info.gvr.group == group and info.kind == doc.kind and info.served]
    if others:
        return (f"{doc.api_version} {doc.kind} is not served by Kubernetes {version} (it serves "
                f"{', '.join(f'{group}/{v}' if group else v for v in others)}); not placed")
    if doc.kind == "Scenario" and group == SCENARIO_GROUP:
        return "a scenario file of this playground: open it with Import… or by dropping it, which fills every pane"
    if group == KYVERNO_POLICIES_GROUP:
        return (f"the playground does not evaluate Kyverno's {doc.kind} ({doc.api_version}), only kyverno.io "
                "ClusterPolicy and Policy; not placed")
    return (f"no kind {doc.kind!r} is registered for version {doc.api_version!r} in Kubernetes {version}, and no "
            "CustomResourceDefinition in the file defines it; not placed")


def _context_documents(context: Mapping[str, str] | None) -> dict[str, list[Document]]:
    """The documents of the panes the page has now (``policy``, ``binding``, ``params``): what the file's params
    and custom resources may refer to. A pane that cannot be read is left out (it may be half typed)."""
    found: dict[str, list[Document]] = {}
    for pane in ("policy", "binding", "params"):
        source = (context or {}).get(pane)
        if isinstance(source, str) and source.strip():
            docs, problems = load_pane(pane, source)
            found[pane] = [] if problems else docs
    return found


def place(text: str, kubernetes_version: str, context: Mapping[str, str] | None = None) -> Placement:
    """Sort the documents of a manifest file into the panes by kind, for Kubernetes ``kubernetes_version``.

    ``context``: the texts of the page's Policy, Binding and Params panes. Their policies' paramKinds and their
    bindings' paramRefs tell params apart when the file has no policy or no binding of its own, and their
    CustomResourceDefinitions make their kinds known."""
    result = Placement(kubernetes_version)
    text = text.replace("\r\n", "\n")
    if not text.strip():
        result.error = "the file is empty"
        return result
    entries, error = _entries(text)
    if error is not None:
        result.error = error
        return result
    if not entries:
        result.error = "the file holds no document"
        return result
    table = builtin_table(kubernetes_version)
    panes = _context_documents(context)
    file_docs = [e.doc for e in entries]
    crds = [d.value for d in file_docs + panes.get("params", [])
            if d.kind == "CustomResourceDefinition" and isinstance(d.value, dict)]
    if crds:
        table = table.with_custom_resources(crds)
    policies = [d for d in file_docs if d.kind in POLICY_KINDS and d.group == ADMISSION_GROUP] or \
        [d for d in panes.get("policy", []) if d.kind in POLICY_KINDS and d.group == ADMISSION_GROUP]
    bindings = [d for d in file_docs if d.kind in BINDING_KINDS and d.group == ADMISSION_GROUP] or \
        [d for d in panes.get("binding", []) if d.kind in BINDING_KINDS and d.group == ADMISSION_GROUP]
    param_kinds = _param_kinds(policies)
    param_refs: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    for binding in bindings:
        spec = binding.value.get("spec") if isinstance(binding.value, dict) else None
        if isinstance(spec, Mapping) and isinstance(spec.get("paramRef"), Mapping):
            found = param_kinds.get(str(spec.get("policyName") or ""))
            if found is not None:
                param_refs.setdefault(found, []).append(spec["paramRef"])

    def params_of(doc: Document) -> str | None:
        """The policy whose params the object is (its paramKind, selected by a paramRef of its bindings)."""
        for name, (group, kind) in param_kinds.items():
            if param_kind_matches(doc.value, group, kind) and _selected_by(doc, param_refs.get((group, kind), [])):
                return name
        return None

    def put(entry: _Entry, pane: str | None, reason: str) -> None:
        doc = entry.doc
        record = Placed(entry.number, entry.item, entry.line, doc.api_version, doc.kind, doc.name, pane, reason)
        (result.placed if pane else result.not_placed).append(record)
        if pane:
            before = result.panes.get(pane, "")
            result.panes[pane] = before + ("---\n" if before else "") + entry.text

    objects: list[_Entry] = []
    for entry in entries:
        doc = entry.doc
        if not isinstance(doc.value, dict):
            put(entry, None, "not a Kubernetes object (a mapping with apiVersion and kind); not placed")
        elif not doc.kind or not doc.api_version:
            missing = " and ".join(f for f, v in (("apiVersion", doc.api_version), ("kind", doc.kind)) if not v)
            put(entry, None, f"it has no {missing}, so its pane cannot be told; not placed")
        elif doc.group == ADMISSION_GROUP and doc.kind in POLICY_KINDS:
            put(entry, "policy", "an admission policy")
        elif doc.group == ADMISSION_GROUP and doc.kind in BINDING_KINDS:
            put(entry, "binding", "a policy binding")
        elif webhooks.is_webhook_doc(doc):
            put(entry, "policy", "a webhook configuration")
        elif kyverno.is_kyverno_doc(doc):
            put(entry, "policy", "a Kyverno policy")
        elif doc.kind == "CustomResourceDefinition" and doc.group == CRD_GROUP:
            put(entry, "params", "a CustomResourceDefinition: the kind it defines is known to the other panes")
        elif rbac.is_rbac_document(doc):
            put(entry, "params", "an RBAC object: it answers the authorizer's checks")
        elif not _known(doc, table):
            put(entry, None, _unknown_reason(doc, table, kubernetes_version))
        elif doc.kind == "Namespace" and doc.api_version == "v1":
            put(entry, "namespace", "a Namespace")
        elif (policy := params_of(doc)) is not None:
            put(entry, "params", f"params of the policy {policy!r} (its paramKind)")
        else:
            objects.append(entry)
    for i, entry in enumerate(objects):
        if i == 0:
            put(entry, "object", "the object of the request")
        else:
            first = result.placed[-1] if result.placed and result.placed[-1].pane == "object" else None
            came_first = f"{first.kind} {first.name!r} ({first.where})" if first else "another object"
            put(entry, None, f"the Object pane takes one object, and {came_first} came first; not placed "
                "(load it into a pane of your choice)")
    result.placed.sort(key=lambda p: (TARGET_PANES.index(p.pane or "object"), p.document, p.item or 0))
    result.not_placed.sort(key=lambda p: (p.document, p.item or 0))
    return result
