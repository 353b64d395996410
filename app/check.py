"""`admission-playground check`: every manifest of a repository against the cluster's policies, for CI.

The cluster side (policies, bindings, params, namespaces, CRDs, RBAC, webhook configurations, Kyverno
policies, or a cluster dump as ``kubectl get ... -o yaml`` prints it) is read from files and directories
and becomes one pane text, the same string for every object, so the core reads and compiles it once
(its caches are keyed by the pane text). Each manifest is then evaluated by the core as a CREATE, or as
an UPDATE when ``--old`` holds an object of the same kind, namespace and name.

Every document keeps the file and line where it starts, so that what the core finds (a denial, a
warning, a problem at a line of a pane) is reported at the manifest's own file and line.

Exit codes: 0 every object admitted, 1 an object denied (or warned, with ``--fail-on-warnings``),
2 bad input (a path that cannot be read, a YAML error, a policy the apiserver would refuse, an object
that cannot be evaluated).
"""

from __future__ import annotations

import json
import multiprocessing
import os
import re
import signal
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

import yaml

from .vap import DEFAULT_VERSION, evaluate, limits
from .vap.fast import panes as pane_cache
from .vap.resources import builtin_table

EXIT_OK, EXIT_DENIED, EXIT_BAD_INPUT = 0, 1, 2
EXTENSIONS = (".yaml", ".yml", ".json")
STDIN = "-"
STDIN_NAME = "<stdin>"

ADMITTED, DENIED, ERROR = "admitted", "denied", "error"

# A command-line check reads the user's own files: the bounds that protect the web service from
# what is pasted into it are raised far enough for a whole cluster dump in one pane.
CHECK_LIMITS = limits.Limits(max_documents=1_000_000, max_nodes=200_000_000, max_aliases=1_000_000,
                             max_string_length=64 * 1024 * 1024, max_expressions=1_000_000)

_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_SEPARATOR = re.compile(r"---(?:[ \t].*)?")
_DOCUMENT_END = re.compile(r"\.\.\.[ \t]*(?:#.*)?")


class CheckInputError(Exception):
    """Input the check cannot use: names the file and line (``file:line: message``)."""

    def __init__(self, file: str, line: int | None, message: str) -> None:
        self.file, self.line, self.message = file, line, message
        super().__init__(f"{file}:{line}: {message}" if line else f"{file}: {message}")


@dataclass
class Manifest:
    """One document of an input file: where it starts, its text (or parsed value) and its value."""

    file: str
    line: int  # the line of its file where the object starts: its first line that is not a comment (1-based)
    source: Any  # the document's text as written, or its value (an item of a List)
    value: dict[str, Any]
    start: int = 0  # the line of its file where the document's text starts (its ``---`` line, if any)

    def __post_init__(self) -> None:
        if not self.start:
            self.start = self.line

    @property
    def kind(self) -> str:
        return str(self.value.get("kind") or "")

    @property
    def api_version(self) -> str:
        return str(self.value.get("apiVersion") or "")

    @property
    def metadata(self) -> dict[str, Any]:
        meta = self.value.get("metadata")
        return meta if isinstance(meta, dict) else {}

    @property
    def name(self) -> str:
        return str(self.metadata.get("name") or "")

    @property
    def namespace(self) -> str:
        return str(self.metadata.get("namespace") or "")

    def key(self, default_namespace: str) -> tuple[str, str, str]:
        """kind, namespace (the default one when it names none), name: how --old objects are matched."""
        return self.kind, self.namespace or default_namespace, self.name

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"

    def file_line(self, pane_line: int | None) -> int:
        """The line of the file for a line counted in the document's own text."""
        if pane_line is None or not isinstance(self.source, str):
            return self.line
        return self.start + pane_line - 1


# --- reading -------------------------------------------------------------------------------------------

def files_of(paths: Sequence[str]) -> list[str]:
    """The files the paths name: a file as given, a directory's *.yaml, *.yml and *.json files found
    recursively (sorted, hidden directories skipped), '-' for standard input."""
    found: list[str] = []
    for path in paths:
        if path == STDIN:
            found.append(STDIN)
        elif os.path.isdir(path):
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                found += [os.path.join(root, f) for f in sorted(files) if f.endswith(EXTENSIONS)]
        elif os.path.exists(path):
            found.append(path)
        else:
            raise CheckInputError(path, None, "no such file or directory")
    return found


def read_text(path: str, stdin: TextIO | None = None) -> str:
    """A file's text ('-': standard input); CheckInputError naming the file when it cannot be read."""
    try:
        if path == STDIN:
            return (stdin or sys.stdin).read()
        with open(path, encoding="utf-8") as f:
            return f.read()
    except UnicodeDecodeError as exc:
        raise CheckInputError(display(path), None, f"not UTF-8 text ({exc.reason})") from None
    except OSError as exc:
        raise CheckInputError(display(path), None, exc.strerror or str(exc)) from None


def display(path: str) -> str:
    """The name a file is reported under: relative to the working folder when below it."""
    if path == STDIN:
        return STDIN_NAME
    rel = os.path.relpath(path) if os.path.isabs(path) else os.path.normpath(path)
    return path if rel.startswith("..") else rel


def split_documents(text: str) -> list[tuple[int, str]]:
    """The documents of a YAML stream as (line where it starts, its text), a ``---`` line kept at the
    top of the document it starts, so that a line of a document's text is ``start + line - 1`` of the
    file."""
    documents: list[tuple[int, str]] = []
    current: list[str] = []
    start = 1
    for number, line in enumerate(text.splitlines(keepends=True), 1):
        bare = line.rstrip("\r\n")
        if _SEPARATOR.fullmatch(bare):
            documents.append((start, "".join(current)))
            current, start = [line], number
        elif _DOCUMENT_END.fullmatch(bare):
            documents.append((start, "".join(current)))
            current, start = [], number + 1
        else:
            current.append(line)
    documents.append((start, "".join(current)))
    return [(n, t) for n, t in documents if t.strip()]


def _yaml_error(file: str, start: int, exc: yaml.YAMLError, lines: int) -> CheckInputError:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    context = getattr(exc, "context_mark", None)
    if mark is not None and context is not None and mark.line >= lines:  # found at the end: where it began
        mark = context
    line = start + mark.line if mark is not None else start
    problem = getattr(exc, "problem", None) or str(exc)
    context = getattr(exc, "context", None)
    return CheckInputError(file, line, f"invalid YAML: {context + ', ' if context else ''}{problem}")


def read_documents(path: str, stdin: TextIO | None = None) -> list[Manifest]:
    """The documents of one file, each with its line; lists are left as they are (the core reads a
    ``kind: List`` of the cluster itself). Empty documents are skipped."""
    name = display(path)
    text = read_text(path, stdin)
    out: list[Manifest] = []
    for start, chunk in split_documents(text):
        try:
            value = yaml.load(chunk, Loader=_Loader)
        except yaml.YAMLError as exc:
            if path.endswith(".json"):
                value, chunk = _json_document(name, chunk), None
            else:
                raise _yaml_error(name, start, exc, chunk.count("\n")) from None
        if value is None:
            continue
        if not isinstance(value, dict):
            raise CheckInputError(name, start, f"a document must be a mapping (a Kubernetes object), "
                                  f"not {type(value).__name__}")
        out.append(Manifest(name, start + _first_content_line(chunk), chunk if chunk is not None else value, value,
                            start))
    return out


def _first_content_line(text: str | None) -> int:
    """How many lines of a document's text come before its content (a ``---`` line, comments, blank lines)."""
    for n, line in enumerate((text or "").splitlines()):
        bare = line.strip()
        if bare and not bare.startswith("#") and not _SEPARATOR.fullmatch(bare):
            return n
    return 0


def _json_document(name: str, text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise CheckInputError(name, exc.lineno, f"invalid JSON: {exc.msg}") from None


def is_list(value: dict[str, Any]) -> bool:
    """A ``kind: List`` (or ``...List``) of ``items``, as kubectl prints several objects."""
    return str(value.get("kind") or "").endswith("List") and isinstance(value.get("items"), list)


def expand_lists(documents: Iterable[Manifest]) -> list[Manifest]:
    """Every object of the documents: a list's items become objects of their own, each at its line."""
    out: list[Manifest] = []
    for doc in documents:
        if not is_list(doc.value):
            out.append(doc)
            continue
        lines = _item_lines(doc)
        for i, item in enumerate(doc.value["items"]):
            if item is None:
                continue
            if not isinstance(item, dict):
                raise CheckInputError(doc.file, lines[i] if i < len(lines) else doc.line,
                                      "an item of a List must be a mapping (a Kubernetes object)")
            out.append(Manifest(doc.file, lines[i] if i < len(lines) else doc.line, item, item))
    return out


def _item_lines(doc: Manifest) -> list[int]:
    if not isinstance(doc.source, str):
        return []
    node = yaml.compose(doc.source, Loader=_Loader)
    for key, value in getattr(node, "value", []):
        if getattr(key, "value", None) == "items" and isinstance(value, yaml.SequenceNode):
            return [doc.start + item.start_mark.line for item in value.value]
    return []


def is_kubernetes_object(doc: Manifest) -> bool:
    """A document with an apiVersion and a kind, not kustomize's own configuration: other YAML files of a
    repository (CI workflows, Helm values, kustomization.yaml) are not manifests to check."""
    return bool(doc.api_version and doc.kind) and not doc.api_version.startswith("kustomize.config.k8s.io/")


def read_all(paths: Sequence[str], stdin: TextIO | None = None) -> list[Manifest]:
    """The documents of every file the paths name (lists not expanded)."""
    return [doc for path in files_of(paths) for doc in read_documents(path, stdin)]


# --- the cluster side ------------------------------------------------------------------------------------

@dataclass
class Segment:
    """A document of a pane text built from several files: the pane line its text starts at."""

    pane_line: int
    doc: Manifest


@dataclass
class PaneText:
    """A pane's text made of documents of several files, and where each of them came from."""

    text: str = ""
    segments: list[Segment] = field(default_factory=list)

    @classmethod
    def of(cls, documents: Sequence[Manifest]) -> PaneText:
        parts: list[str] = []
        segments: list[Segment] = []
        line = 1
        for doc in documents:
            text = doc.source if isinstance(doc.source, str) else json.dumps(doc.source, indent=1)
            if parts and not text.startswith("---"):
                parts.append("---\n")
                line += 1
            if not text.endswith("\n"):
                text += "\n"
            segments.append(Segment(line, doc))
            parts.append(text)
            line += text.count("\n")
        return cls("".join(parts), segments)

    def place(self, line: int | None, document: int | None) -> tuple[str, int] | None:
        """The file and line of a line (or, without one, a document index) of the pane."""
        if not self.segments:
            return None
        if line is None:
            if document is not None and 0 <= document < len(self.segments):
                doc = self.segments[document].doc
                return doc.file, doc.line
            return None
        segment = self.segments[0]
        for candidate in self.segments:
            if candidate.pane_line > line:
                break
            segment = candidate
        if not isinstance(segment.doc.source, str):
            return segment.doc.file, segment.doc.line
        return segment.doc.file, segment.doc.start + line - segment.pane_line


# The core routes every document of these panes by kind, whichever pane holds it: the cluster's documents fill
# them in order, each up to what the core's cache of pane texts keeps (a longer text would be read again for
# every object), so that a large cluster dump is still read once.
CLUSTER_PANES = ("policy", "binding", "params", "namespace")
CLUSTER_PANE = CLUSTER_PANES[0]
PANE_BUDGET = max(64 * 1024, pane_cache.PANES.budget // 4 - 64 * 1024)


def _text_size(doc: Manifest) -> int:
    return len(doc.source) if isinstance(doc.source, str) else len(json.dumps(doc.source))


def _fill_panes(documents: Sequence[Manifest]) -> dict[str, PaneText]:
    groups: list[list[Manifest]] = [[]]
    size = 0
    for doc in documents:
        n = _text_size(doc) + 4
        if groups[-1] and size + n > PANE_BUDGET and len(groups) < len(CLUSTER_PANES):
            groups.append([])
            size = 0
        groups[-1].append(doc)
        size += n
    return {pane: PaneText.of(group) for pane, group in zip(CLUSTER_PANES, groups, strict=False) if group}


@dataclass
class Cluster:
    """What the cluster stores, as pane texts built once for every evaluation."""

    panes: dict[str, PaneText]
    policies: int = 0
    bindings: int = 0
    cluster_scoped: set[tuple[str, str]] = field(default_factory=set)  # (group, kind) of CRDs of Cluster scope

    @classmethod
    def of(cls, documents: Sequence[Manifest], manifests: Sequence[Manifest] = ()) -> Cluster:
        objects = expand_lists(documents)
        known = {(d.kind, d.name) for d in objects}
        extra = [m for m in manifests if m.kind in ("Namespace", "CustomResourceDefinition")
                 and (m.kind, m.name) not in known]
        # a list too long for one pane (a whole cluster's dump is one List) is spread over them item by item
        spread = [part for d in documents
                  for part in (expand_lists([d]) if is_list(d.value) and _text_size(d) > PANE_BUDGET else [d])]
        panes = _fill_panes([*spread, *extra])
        crds = [d.value.get("spec") for d in [*objects, *extra] if d.kind == "CustomResourceDefinition"]
        return cls(panes,
                   policies=sum(d.kind == "ValidatingAdmissionPolicy" for d in objects),
                   bindings=sum(d.kind == "ValidatingAdmissionPolicyBinding" for d in objects),
                   cluster_scoped={(str(c.get("group")), str((c.get("names") or {}).get("kind")))
                                   for c in crds if isinstance(c, dict) and c.get("scope") == "Cluster"})


# --- evaluating ------------------------------------------------------------------------------------------

@dataclass
class Options:
    """What every evaluation of a check shares besides the cluster."""

    kubernetes_version: str | None = None
    namespace: str | None = None  # the namespace of manifests that name none (kubectl's -n)
    request: dict[str, Any] | None = None  # request attributes for every object (userInfo, dryRun, ...)
    jobs: int = 1
    whole_responses: bool = True  # False: keep of each response only what the table, JUnit and SARIF show


@dataclass
class Outcome:
    """One object checked: the manifest, the old object it was compared with, the API response."""

    manifest: Manifest
    old: Manifest | None
    response: dict[str, Any]

    @property
    def operation(self) -> str:
        request = self.response.get("request") or {}
        return str(request.get("operation") or ("UPDATE" if self.old is not None else "CREATE"))

    @property
    def object_problems(self) -> list[dict[str, Any]]:
        return [p for p in self.response.get("problems") or [] if p.get("pane") in ("object", "oldObject", "request")]

    @property
    def decision(self) -> str:
        if self.response.get("request") is None or any(p["severity"] == "error" for p in self.object_problems):
            return ERROR
        return ADMITTED if self.response.get("allowed") else DENIED

    @property
    def warnings(self) -> list[str]:
        """The apiserver's warnings, then the object's own (unknown or ill-typed fields)."""
        return list(self.response.get("warnings") or []) + [
            "{}:{}: {}{}".format(*self.place(p), p["path"] + ": " if p.get("path") else "", p["message"])
            for p in self.object_problems if p["severity"] == "warning"]

    @property
    def errors(self) -> list[str]:
        if self.decision != ERROR:
            return []
        found = [p["message"] for p in self.object_problems if p["severity"] == "error"]
        return found or ["the object could not be evaluated"]

    def place(self, problem: dict[str, Any]) -> tuple[str, int]:
        """The file and line of a problem of the object (or old object) pane."""
        doc = self.old if problem.get("pane") == "oldObject" and self.old is not None else self.manifest
        return doc.file, doc.file_line(problem.get("line"))

    @property
    def namespace(self) -> str:
        request = self.response.get("request") or {}
        return str(request.get("namespace") or self.manifest.namespace or "")

    @property
    def name(self) -> str:
        request = self.response.get("request") or {}
        return str(request.get("name") or self.manifest.name or self.manifest.metadata.get("generateName") or "")

    @property
    def object_ref(self) -> str:
        """kubectl's name of the object: ``deployment.apps/web``."""
        group = self.manifest.api_version.rpartition("/")[0] if "/" in self.manifest.api_version else ""
        kind = self.manifest.kind.lower() + (f".{group}" if group else "")
        return f"{kind or '<no kind>'}/{self.name or '<no name>'}"

    @property
    def status(self) -> dict[str, Any]:
        return self.response.get("status") or {}

    @property
    def denied_by(self) -> tuple[str, str]:
        """The policy and binding (or webhook) the apiserver's message names."""
        message = str(self.status.get("message") or "")
        found = _VAP_DENIAL.search(message) or _MAP_DENIAL.match(message)
        if found:
            return found["policy"], found["binding"]
        found = _WEBHOOK_DENIAL.search(message)
        if found:
            return f"webhook {found['webhook']}", ""
        if _POD_SECURITY_DENIAL.search(message):
            return "PodSecurity", ""
        admission = self.response.get("admission") or {}
        return str(admission.get("decidedBy") or ""), ""

    @property
    def message(self) -> str:
        """The denial's message, without the words the POLICY and BINDING columns already say."""
        message = str(self.status.get("message") or "")
        found = _VAP_DENIAL.search(message) or _MAP_DENIAL.match(message)
        if found:
            return message[found.end():]
        return message

    @property
    def mutated_by(self) -> dict[str, int]:
        """The MutatingAdmissionPolicy invocations that changed the object, with their number of changes."""
        return mutated_by(self.response)


_VAP_DENIAL = re.compile(r"ValidatingAdmissionPolicy '(?P<policy>[^']*)' with binding '(?P<binding>[^']*)' "
                         r"denied request: ")
# a MutatingAdmissionPolicy's failure: its own text is the message (no "... is forbidden:" before it)
_MAP_DENIAL = re.compile(r"policy '(?P<policy>[^']*)' with binding '(?P<binding>[^']*)' denied request: ")
# the PodSecurity plugin's refusal (k8s.io/pod-security-admission admission.go EvaluatePod)
_POD_SECURITY_DENIAL = re.compile(r' is forbidden: violates PodSecurity "[a-z]+:[a-z0-9.]+": ')
MUTATING_STAGE = "MutatingAdmissionPolicy "  # the stage of a change a MutatingAdmissionPolicy made: "... p/b"


def mutated_by(response: dict[str, Any]) -> dict[str, int]:
    """``policy/binding`` of each MutatingAdmissionPolicy invocation that changed the object, in the order they
    ran, with the number of changes each made (the response's ``changes``; the defaulting after them not
    counted)."""
    out: dict[str, int] = {}
    for change in response.get("changes") or []:
        stage = str(change.get("stage") or "") if isinstance(change, dict) else ""
        if stage.startswith(MUTATING_STAGE):
            name = stage.removeprefix(MUTATING_STAGE)
            out[name] = out.get(name, 0) + 1
    return out
_WEBHOOK_DENIAL = re.compile(r'admission webhook "(?P<webhook>[^"]*)" denied the request')


class Checker:
    """Evaluates objects against one cluster; every payload carries the same pane strings."""

    def __init__(self, cluster: Cluster, options: Options) -> None:
        self.cluster = cluster
        self.options = options
        self._requests: dict[str | None, str | None] = {}

    def _namespaced(self, manifest: Manifest) -> bool:
        """Whether the manifest's kind lives in a namespace (a kind nobody knows is taken to)."""
        group, _, version = manifest.api_version.rpartition("/")
        if (group, manifest.kind) in self.cluster.cluster_scoped:
            return False
        try:
            table = builtin_table(self.options.kubernetes_version or DEFAULT_VERSION)
        except ValueError:  # a version the core refuses: it says so in every response
            return True
        info = table.by_kind(group, version, manifest.kind)
        return info.namespaced if info is not None else True

    def _request(self, manifest: Manifest) -> str | None:
        namespace = self.options.namespace if not manifest.namespace and self._namespaced(manifest) else None
        if namespace not in self._requests:
            request = dict(self.options.request or {})
            if namespace and "namespace" not in request:
                request["namespace"] = namespace
            self._requests[namespace] = yaml.safe_dump(request, sort_keys=False) if request else None
        return self._requests[namespace]

    def payload(self, manifest: Manifest | None, old: Manifest | None) -> dict[str, Any]:
        payload: dict[str, Any] = {pane: text.text for pane, text in self.cluster.panes.items()}
        if manifest is None:
            return payload
        payload["object"] = manifest.source
        if old is not None:
            payload["oldObject"] = old.source
        request = self._request(manifest)
        if request is not None:
            payload["request"] = request
        if self.options.kubernetes_version:
            payload["kubernetesVersion"] = self.options.kubernetes_version
        return payload

    def evaluate(self, manifest: Manifest | None, old: Manifest | None) -> dict[str, Any]:
        with limits.use(CHECK_LIMITS):
            response = evaluate(self.payload(manifest, old))
        return response if self.options.whole_responses or manifest is None else summary_of(response)


def summary_of(response: dict[str, Any]) -> dict[str, Any]:
    """What an outcome reads of a response: the decision, the warnings, the object's problems, the request's
    names, the changes MutatingAdmissionPolicies made (without their values) (a worker process sends back this
    much rather than the whole response)."""
    request = response.get("request")
    admission = response.get("admission")
    return {
        "allowed": response.get("allowed"),
        "status": response.get("status"),
        "warnings": response.get("warnings"),
        "problems": [p for p in response.get("problems") or [] if p.get("pane") in ("object", "oldObject", "request")],
        "request": None if request is None else {k: request.get(k) for k in ("operation", "namespace", "name")},
        "admission": None if admission is None else {"decidedBy": admission.get("decidedBy")},
        "changes": [{"stage": c["stage"], "path": c.get("path"), "op": c.get("op")}
                    for c in response.get("changes") or [] if str(c.get("stage", "")).startswith(MUTATING_STAGE)],
    }


_WORKER: Checker | None = None


def _ignore_interrupts() -> None:
    """Ctrl+C reaches every process of the group: the parent stops the pool, a worker says nothing."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _evaluate_in_worker(pair: tuple[Manifest, Manifest | None]) -> dict[str, Any]:
    assert _WORKER is not None
    return _WORKER.evaluate(*pair)


def check(manifests: Sequence[Manifest], checker: Checker,
          old: dict[tuple[str, str, str], Manifest] | None = None) -> list[Outcome]:
    """Evaluate every manifest; with ``jobs`` > 1, in forked processes that inherit what the first
    evaluation compiled."""
    global _WORKER
    options = checker.options
    default_ns = options.namespace or "default"
    pairs = [(m, (old or {}).get(m.key(default_ns))) for m in manifests]
    if not pairs:
        return []
    responses = [checker.evaluate(*pairs[0])]  # compiles the policies once, before any fork
    rest = pairs[1:]
    jobs = min(options.jobs, len(pairs) // 100 + 1)  # a process per 100 objects at most: forking costs too
    if jobs > 1 and "fork" in multiprocessing.get_all_start_methods():
        _WORKER = checker
        try:
            with multiprocessing.get_context("fork").Pool(jobs, initializer=_ignore_interrupts) as pool:
                responses += pool.map(_evaluate_in_worker, rest, chunksize=max(1, len(rest) // (jobs * 8)))
        finally:
            _WORKER = None
    else:
        responses += [checker.evaluate(*pair) for pair in rest]
    return [Outcome(m, o, r) for (m, o), r in zip(pairs, responses, strict=True)]


@dataclass
class ClusterProblem:
    """A problem the core found in the cluster's documents, at its file and line."""

    file: str
    line: int | None
    severity: str
    message: str
    path: str | None = None

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.severity}: {self.path + ': ' if self.path else ''}{self.message}"

    def to_json(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "severity": self.severity, "path": self.path,
                "message": self.message}


def cluster_problems(checker: Checker) -> list[ClusterProblem]:
    """The problems of the cluster's panes (the same in every response: read once, from an evaluation
    without an object), placed in their files."""
    seen: set[tuple[Any, ...]] = set()
    out: list[ClusterProblem] = []
    for p in checker.evaluate(None, None).get("problems") or []:
        pane = checker.cluster.panes.get(p.get("pane"))
        if pane is None:
            continue
        file, line = pane.place(p.get("line"), p.get("document")) or ("<cluster>", None)
        key = (file, line, p["severity"], p.get("path"), p["message"])
        if key not in seen:
            seen.add(key)
            out.append(ClusterProblem(file, line, p["severity"], p["message"], p.get("path")))
    return out


@dataclass
class Report:
    """A whole check: the outcomes, the cluster's problems, and what the exit status is."""

    outcomes: list[Outcome]
    problems: list[ClusterProblem]
    fail_on_warnings: bool = False
    notes: list[str] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        return {
            "objects": len(self.outcomes),
            ADMITTED: sum(o.decision == ADMITTED for o in self.outcomes),
            DENIED: sum(o.decision == DENIED for o in self.outcomes),
            ERROR: sum(o.decision == ERROR for o in self.outcomes),
            "warned": sum(o.decision == ADMITTED and bool(o.warnings) for o in self.outcomes),
        }

    def exit_code(self) -> int:
        counts = self.counts()
        if counts[ERROR] or any(p.severity == "error" for p in self.problems):
            return EXIT_BAD_INPUT
        if counts[DENIED] or (self.fail_on_warnings and counts["warned"]):
            return EXIT_DENIED
        return EXIT_OK

    def failed(self, outcome: Outcome) -> bool:
        """The object makes the check fail."""
        return outcome.decision != ADMITTED or (self.fail_on_warnings and bool(outcome.warnings))


def old_objects(documents: Sequence[Manifest], default_namespace: str) -> dict[tuple[str, str, str], Manifest]:
    """The --old objects by kind, namespace and name."""
    return {m.key(default_namespace): m for m in expand_lists(documents) if m.name}


def run(manifest_paths: Sequence[str], policy_paths: Sequence[str], *, old_paths: Sequence[str] = (),
        options: Options | None = None, fail_on_warnings: bool = False, stdin: TextIO | None = None) -> Report:
    """Read everything, evaluate every manifest, and say what was found. CheckInputError on input that
    cannot be read."""
    options = options or Options()
    if sum(list(p).count(STDIN) for p in (manifest_paths, policy_paths, old_paths)) > 1:
        raise CheckInputError(STDIN_NAME, None, "standard input ('-') can be read once only")
    cluster_docs = [d for d in read_all(policy_paths, stdin) if is_kubernetes_object(d)]
    read = expand_lists(read_all(manifest_paths, stdin))
    manifests = [m for m in read if is_kubernetes_object(m)]
    skipped = [m for m in read if not is_kubernetes_object(m)]
    old = old_objects(read_all(old_paths, stdin), options.namespace or "default") if old_paths else None
    cluster = Cluster.of(cluster_docs, manifests)
    checker = Checker(cluster, options)
    problems = cluster_problems(checker)
    outcomes = check(manifests, checker, old)
    notes = []
    if not cluster.policies and not any(d.kind.endswith(("WebhookConfiguration", "Policy")) for d in
                                        expand_lists(cluster_docs)):
        notes.append("no admission policies in the policy inputs: every object is admitted")
    if skipped:
        notes.append(f"{len(skipped)} document{'s' if len(skipped) > 1 else ''} skipped, not Kubernetes objects "
                     "(no apiVersion or kind): " + ", ".join(m.where for m in skipped[:5])
                     + (", ..." if len(skipped) > 5 else ""))
    if not manifests:
        notes.append("no manifests found")
    return Report(outcomes, problems, fail_on_warnings, notes)
