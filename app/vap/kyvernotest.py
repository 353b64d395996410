"""Kyverno CLI test files (``kyverno-test.yaml``) and playground suites, where the two overlap.

``kyverno test`` (kyverno/kyverno cmd/cli/kubectl-kyverno, apis/v1alpha1 Test) reads a
``kind: Test`` file naming policy files, resource files, param resources, a values file and a
user info file, and expects per policy and resource a result: pass, fail, skip (or error). For
ValidatingAdmissionPolicies and MutatingAdmissionPolicies that maps onto a suite: each resource
(and operation) is a test case whose ``expect.policies`` holds the results; the values file's
namespaceSelector gives the Namespace of each case, its ``request.operation`` global value the
default operation. A MutatingAdmissionPolicy's result names the resource it expects in
``patchedResources``: that resource becomes the case's ``expect.object``, compared with the
object the apiserver would store, which holds more (uid, defaults ...): as a subset.

Differences the conversion states rather than hides:
- Kyverno CLI evaluates a policy that no binding names as if it were bound without restrictions;
  kube-apiserver never evaluates it. Import adds such a binding (validationActions [Deny] for a
  ValidatingAdmissionPolicy).
- Kyverno CLI sends the resource as both object and oldObject on UPDATE; a suite case may hold
  two different objects, which export leaves out.
- Kyverno CLI counts a resource a policy does not apply to as passing whatever result was
  expected; the suite checks ``skip`` exactly.

Rule: no file system access here; the caller passes a ``read(path) -> str`` function.
"""

from __future__ import annotations

import copy
import posixpath
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml

from . import suite
from .documents import load_pane
from .request import derived_operation

API_VERSION = "cli.kyverno.io/v1alpha1"
TEST_FILE = "kyverno-test.yaml"
ADMISSION_GROUP = "admissionregistration.k8s.io"
POLICY_KIND = "ValidatingAdmissionPolicy"
BINDING_KIND = "ValidatingAdmissionPolicyBinding"
MUTATING_POLICY_KIND = "MutatingAdmissionPolicy"
MUTATING_BINDING_KIND = "MutatingAdmissionPolicyBinding"
_BINDING_OF = {POLICY_KIND: BINDING_KIND, MUTATING_POLICY_KIND: MUTATING_BINDING_KIND}
RESULTS = ("pass", "fail", "skip", "error")
# Fields of a Kyverno Test that have no meaning for a ValidatingAdmissionPolicy.
_NOT_FOR_VAPS = ("jsonPayload", "jsonPayloads", "httpPayloads", "envoyPayloads", "targetResources", "exceptions",
                 "context", "clusterResources", "apiCallResponses", "globalContextEntries")
_TEST_FIELDS = ("apiVersion", "kind", "metadata", "name", "policies", "resources", "paramResources", "variables",
                "userinfo", "results", "values", *_NOT_FOR_VAPS)
_RESULT_FIELDS = ("policy", "rule", "result", "kind", "resources", "resourceSpecs", "operation",
                  "isValidatingAdmissionPolicy", "isMutatingAdmissionPolicy", "isValidatingPolicy",
                  "isDeletingPolicy", "isImageValidatingPolicy", "isGeneratingPolicy", "isMutatingPolicy",
                  "patchedResources", "generatedResource", "cloneSourceResource", "failOnMissingResources",
                  "generatedResources")
_NAME_LABEL = "kubernetes.io/metadata.name"
_ADDED_BINDING = ("# Added on import: Kyverno CLI evaluates an admission policy that no binding names as if\n"
                  "# it were bound everywhere; kube-apiserver needs a binding.\n")


class KyvernoTestError(ValueError):
    """A Kyverno test that cannot be read; the message names the file (and line when known)."""


@dataclass
class Imported:
    """One Kyverno test as a playground suite (a scenario with testCases)."""

    name: str
    path: str
    scenario: dict[str, Any]
    notes: list[str] = field(default_factory=list)
    # what Kyverno CLI itself reports as failing (a resource named by a result but not in the files)
    errors: list[str] = field(default_factory=list)


@dataclass
class Exported:
    """A suite as the files of a Kyverno test directory, and what could not be carried over."""

    files: dict[str, str]
    notes: list[str] = field(default_factory=list)
    cases: int = 0


# --- reading ----------------------------------------------------------------------------------------

def _documents(text: str, where: str) -> list[Any]:
    docs, problems = load_pane("policy", text)
    if problems:
        p = problems[0]
        raise KyvernoTestError(f"{where}: {p.message}")
    return [d.value for d in docs]


def _strings(value: Any, where: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise KyvernoTestError(f"{where} must be a list of file paths")
    return list(dict.fromkeys(value))


def _is(doc: Any, kind: str) -> bool:
    return (isinstance(doc, Mapping) and doc.get("kind") == kind
            and str(doc.get("apiVersion", "")).startswith(ADMISSION_GROUP + "/"))


def _name(doc: Mapping[str, Any]) -> str:
    meta = doc.get("metadata")
    return str(meta.get("name") or "") if isinstance(meta, Mapping) else ""


def _namespace(doc: Mapping[str, Any]) -> str:
    meta = doc.get("metadata")
    return str(meta.get("namespace") or "") if isinstance(meta, Mapping) else ""


def _dump_docs(docs: list[Any]) -> str:
    return "---\n".join(suite.dump_yaml(d) for d in docs)


def import_tests(path: str, read: Callable[[str], str]) -> list[Imported]:
    """Read a kyverno-test.yaml (every Test document in it) and return each as a suite.

    Raises KyvernoTestError naming the file when the test cannot be read.
    """
    text = read(path)
    try:
        documents = [d for d in yaml.safe_load_all(text) if d is not None]
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f" line {mark.line + 1}" if mark is not None else ""
        raise KyvernoTestError(f"{path}{line}: not YAML: {getattr(exc, 'problem', None) or exc}") from None
    if not documents:
        raise KyvernoTestError(f"{path}: the file is empty")
    return [_import_one(path, i, doc, read) for i, doc in enumerate(documents)]


def _import_one(path: str, index: int, test: Any, read: Callable[[str], str]) -> Imported:
    where = path if index == 0 else f"{path} (document {index + 1})"
    if not isinstance(test, Mapping):
        raise KyvernoTestError(f"{where}: a Kyverno test is a mapping with policies, resources and results")
    if test.get("kind") not in (None, "Test") or not str(test.get("apiVersion") or API_VERSION).startswith(
            "cli.kyverno.io/"):
        raise KyvernoTestError(f"{where}: not a Kyverno CLI test (apiVersion {API_VERSION}, kind Test)")
    unknown = [k for k in test if k not in _TEST_FIELDS]
    if unknown:
        raise KyvernoTestError(f"{where}: unknown field {unknown[0]!r} in a Kyverno test")
    meta = test.get("metadata") if isinstance(test.get("metadata"), Mapping) else {}
    name = str(meta.get("name") or test.get("name") or posixpath.basename(posixpath.dirname(path)) or "kyverno-test")
    base = posixpath.dirname(path)
    out = Imported(name=name, path=path, scenario={})

    def load(rel: str, what: str) -> str:
        if "://" in rel:
            raise KyvernoTestError(f"{where}: {what} {rel!r} is remote; download it next to the test first")
        full = posixpath.normpath(posixpath.join(base, rel))
        try:
            return read(full)
        except OSError as exc:
            raise KyvernoTestError(f"{where}: {what} {rel!r} cannot be read: {exc.strerror or exc}") from None

    for key in _NOT_FOR_VAPS:
        if test.get(key):
            out.notes.append(f"{key} is not used with ValidatingAdmissionPolicies: left out")

    policies: list[dict[str, Any]] = []
    bindings: list[dict[str, Any]] = []
    other_policies: set[str] = set()
    for rel in _strings(test.get("policies"), f"{where}: policies"):
        for doc in _documents(load(rel, "policy file"), f"{where}: {rel}"):
            if _is(doc, POLICY_KIND) or _is(doc, MUTATING_POLICY_KIND):
                policies.append(doc)
            elif _is(doc, BINDING_KIND) or _is(doc, MUTATING_BINDING_KIND):
                bindings.append(doc)
            elif isinstance(doc, Mapping):
                other_policies.add(_name(doc))
                out.notes.append(f"{rel}: {doc.get('kind')} {_name(doc)!r} is not a ValidatingAdmissionPolicy "
                                 "or MutatingAdmissionPolicy: left out with its results")
    if not policies:
        raise KyvernoTestError(f"{where}: no ValidatingAdmissionPolicy or MutatingAdmissionPolicy in the policy "
                               "files")
    bound = {(str(b.get("kind")), str((b.get("spec") or {}).get("policyName"))) for b in bindings}
    added: list[dict[str, Any]] = []
    for policy in policies:
        binding_kind = _BINDING_OF[str(policy.get("kind"))]
        if (binding_kind, _name(policy)) not in bound:
            spec: dict[str, Any] = {"policyName": _name(policy)}
            if binding_kind == BINDING_KIND:
                spec["validationActions"] = ["Deny"]
            added.append({
                # a MutatingAdmissionPolicyBinding in the policy's own version, which the cluster serves with it
                "apiVersion": "admissionregistration.k8s.io/v1" if binding_kind == BINDING_KIND
                else str(policy.get("apiVersion")),
                "kind": binding_kind, "metadata": {"name": f"{_name(policy)}-binding"}, "spec": spec,
            })
            out.notes.append(f"policy {_name(policy)!r} has no binding: added {_name(policy)}-binding"
                             + (" (validationActions [Deny])" if binding_kind == BINDING_KIND else "")
                             + ", as Kyverno CLI evaluates an unbound policy")

    resources: list[dict[str, Any]] = []
    for rel in _strings(test.get("resources"), f"{where}: resources"):
        resources.extend(d for d in _documents(load(rel, "resource file"), f"{where}: {rel}")
                         if isinstance(d, Mapping))
    params: list[Any] = []
    for rel in _strings(test.get("paramResources"), f"{where}: paramResources"):
        params.extend(_documents(load(rel, "param resource file"), f"{where}: {rel}"))

    values: dict[str, Any] = {}
    if test.get("variables"):
        docs = _documents(load(str(test["variables"]), "values file"), f"{where}: {test['variables']}")
        if docs and isinstance(docs[0], Mapping):
            values.update(docs[0])
    if isinstance(test.get("values"), Mapping):
        values.update(test["values"])
    labels: dict[str, dict[str, str]] = {}
    for entry in values.get("namespaceSelector") or []:
        if isinstance(entry, Mapping) and entry.get("name"):
            labels[str(entry["name"])] = {str(k): str(v) for k, v in (entry.get("labels") or {}).items()}
    full_namespaces = {_name(ns): ns for ns in values.get("namespaces") or [] if isinstance(ns, Mapping)}
    global_values = values.get("globalValues") if isinstance(values.get("globalValues"), Mapping) else {}
    default_operation = str(global_values.get("request.operation") or "CREATE")
    if values.get("policies"):
        out.notes.append("the values file's per-policy values are Kyverno policy variables: left out")

    request: dict[str, Any] = {}
    if test.get("userinfo"):
        docs = _documents(load(str(test["userinfo"]), "user info file"), f"{where}: {test['userinfo']}")
        info = docs[0] if docs and isinstance(docs[0], Mapping) else {}
        if isinstance(info.get("userInfo"), Mapping):
            request["userInfo"] = copy.deepcopy(dict(info["userInfo"]))
        if info.get("roles") or info.get("clusterRoles"):
            out.notes.append("the user info's roles and clusterRoles are Kyverno variables: left out")

    policy_names = {_name(p) for p in policies}
    mutating_names = {_name(p) for p in policies if _is(p, MUTATING_POLICY_KIND)}
    cases: list[dict[str, Any]] = []
    by_key: dict[tuple[Any, ...], dict[str, Any]] = {}
    results = test.get("results") or []
    if not isinstance(results, list):
        raise KyvernoTestError(f"{where}: results must be a list")
    for i, result in enumerate(results):
        if not isinstance(result, Mapping):
            raise KyvernoTestError(f"{where}: results[{i}] must be a mapping")
        unknown = [k for k in result if k not in _RESULT_FIELDS]
        if unknown:
            raise KyvernoTestError(f"{where}: results[{i}]: unknown field {unknown[0]!r}")
        policy = str(result.get("policy") or "").rpartition("/")[2]
        if policy not in policy_names:
            if policy not in other_policies:
                out.errors.append(f"results[{i}]: policy {policy!r} is not in the policy files")
            continue
        expected = result.get("result")
        if expected not in RESULTS:
            out.notes.append(f"results[{i}]: result {expected!r} does not apply to an admission policy "
                             f"(it can be {', '.join(RESULTS)}): left out")
            continue
        patched: list[Any] = []
        if policy in mutating_names:
            if expected == "fail":
                out.notes.append(f"results[{i}]: a MutatingAdmissionPolicy's result is pass, skip or error here "
                                 "(a patched resource that differs fails the case): result fail left out")
                continue
            if result.get("patchedResources"):
                rel = str(result["patchedResources"])
                patched = _documents(load(rel, "patched resource file"), f"{where}: {rel}")
        operation = str(result.get("operation") or default_operation)
        if operation not in ("CREATE", "UPDATE", "DELETE"):
            out.notes.append(f"results[{i}]: operation {operation!r} is not simulated by Kyverno CLI: left out")
            continue
        kind = str(result.get("kind") or "").rpartition("/")[2]
        for resource in _select(result, kind, resources, i, out):
            key = (str(resource.get("apiVersion")), str(resource.get("kind")), _namespace(resource),
                   _name(resource), operation)
            expected_object = _patched(resource, patched, i, out) if patched else None
            case = by_key.get(key)
            if case is not None and (case["expect"]["policies"].get(policy, expected) != expected or (
                    expected_object is not None and case["expect"].get("object", expected_object) != expected_object)):
                key = (*key, i)
                case = None
            if case is None:
                case = _case(resource, operation, labels, full_namespaces)
                by_key[key] = case
                cases.append(case)
            case["expect"]["policies"][policy] = expected
            if expected_object is not None:
                case["expect"]["object"] = expected_object
    if not cases:
        out.notes.append("no result of this test is about a ValidatingAdmissionPolicy or MutatingAdmissionPolicy: "
                         "the suite has no test case")
    scenario: dict[str, Any] = {"policy": _dump_docs(policies)}
    if bindings or added:
        scenario["binding"] = _dump_docs(bindings) if bindings else ""
        if added:
            scenario["binding"] += ("---\n" if bindings else "") + _ADDED_BINDING + _dump_docs(added)
    if params:
        scenario["params"] = _dump_docs(params)
    if request:
        scenario["request"] = suite.dump_yaml(request)
    scenario["testCases"] = cases
    out.scenario = scenario
    return out


def _select(result: Mapping[str, Any], kind: str, resources: list[dict[str, Any]], index: int,
            out: Imported) -> list[dict[str, Any]]:
    """The resources a result is about: by name or namespace/name, by resourceSpecs, or every one of its kind."""
    of_kind = [r for r in resources if not kind or r.get("kind") == kind]
    names = [str(n) for n in result.get("resources") or []]
    specs = [s for s in result.get("resourceSpecs") or [] if isinstance(s, Mapping)]
    if not names and not specs:
        return of_kind
    chosen: list[dict[str, Any]] = []
    for name in names:
        namespace, _, plain = name.rpartition("/")
        found = [r for r in of_kind if _name(r) == plain and (not namespace or _namespace(r) == namespace)]
        if not found:
            out.errors.append(f"results[{index}]: resource {name!r} of kind {kind!r} is not in the resource files "
                              "(Kyverno CLI reports it as not found)")
        chosen.extend(r for r in found if r not in chosen)
    for spec in specs:
        api_version = "/".join(p for p in (spec.get("group"), spec.get("version")) if p)
        found = [r for r in resources
                 if r.get("kind") == spec.get("kind") and _name(r) == spec.get("name")
                 and _namespace(r) == str(spec.get("namespace") or "")
                 and (not api_version or r.get("apiVersion") == api_version)]
        if not found:
            out.errors.append(f"results[{index}]: resource {spec.get('kind')} {spec.get('name')!r} is not in the "
                              "resource files (Kyverno CLI reports it as not found)")
        chosen.extend(r for r in found if r not in chosen)
    return chosen


def _patched(resource: Mapping[str, Any], patched: list[Any], index: int, out: Imported) -> dict[str, Any] | None:
    """The patched resource a result expects for one resource: the one of its kind, name and namespace."""
    for doc in patched:
        if isinstance(doc, Mapping) and doc.get("kind") == resource.get("kind") and _name(doc) == _name(resource) \
                and _namespace(doc) in ("", _namespace(resource)):
            return copy.deepcopy(dict(doc))
    out.errors.append(f"results[{index}]: the patched resources have no {resource.get('kind')} {_name(resource)!r}")
    return None


def _case(resource: dict[str, Any], operation: str, labels: Mapping[str, dict[str, str]],
          namespaces: Mapping[str, Any]) -> dict[str, Any]:
    namespace = _namespace(resource)
    title = f"{resource.get('kind')} {namespace + '/' if namespace else ''}{_name(resource)}"
    case: dict[str, Any] = {"name": title if operation == "CREATE" else f"{title} ({operation})",
                            "operation": operation}
    if operation in ("CREATE", "UPDATE"):
        case["object"] = copy.deepcopy(resource)
    if operation in ("UPDATE", "DELETE"):
        case["oldObject"] = copy.deepcopy(resource)
    if namespace and resource.get("kind") != "Namespace":
        if namespace in namespaces:
            case["namespace"] = copy.deepcopy(namespaces[namespace])
        else:
            case["namespace"] = {
                "apiVersion": "v1", "kind": "Namespace",
                "metadata": {"name": namespace, "labels": {**labels.get(namespace, {}), _NAME_LABEL: namespace}},
            }
    case["expect"] = {"policies": {}}
    return case


# --- writing ----------------------------------------------------------------------------------------

def _pane_docs(value: Any) -> list[Any]:
    docs, problems = load_pane("policy", value)
    if problems:
        raise KyvernoTestError(f"a pane cannot be read: {problems[0].message}")
    return [d.value for d in docs]


def export_test(scenario: Mapping[str, Any], name: str = "playground-suite") -> Exported:
    """Write a suite as a Kyverno test directory: kyverno-test.yaml and the files it names.

    Cases Kyverno CLI cannot express are left out, each with a note saying why.
    """
    cases, problems = suite.parse_cases(scenario.get("testCases"))
    if problems:
        raise KyvernoTestError("the test cases cannot be read: " + problems[0]["message"])
    policy_docs = _pane_docs(scenario.get("policy")) + _pane_docs(scenario.get("binding"))
    policies = [d for d in policy_docs if _is(d, POLICY_KIND)]
    bindings = [d for d in policy_docs if _is(d, BINDING_KIND)]
    if not policies:
        raise KyvernoTestError("there is no ValidatingAdmissionPolicy in the policy and binding panes")
    out = Exported(files={})
    bound = {str((b.get("spec") or {}).get("policyName")) for b in bindings}
    for p in policies:
        if _name(p) not in bound:
            out.notes.append(f"policy {_name(p)!r} has no binding: Kyverno CLI evaluates it as if bound everywhere, "
                             "kube-apiserver never evaluates it")
    mutating = [d for d in policy_docs if _is(d, MUTATING_POLICY_KIND) or _is(d, MUTATING_BINDING_KIND)]
    mutating_names = {_name(d) for d in mutating if _is(d, MUTATING_POLICY_KIND)}
    if mutating_names:
        out.notes.append("the MutatingAdmissionPolicies are written with the policies, but their results are left "
                         "out: Kyverno CLI compares a whole patched resource, and a suite's expect.object is a part "
                         "of the admitted object")
    params = [d for d in policy_docs if not _is(d, POLICY_KIND) and not _is(d, BINDING_KIND) and d not in mutating]
    params += _pane_docs(scenario.get("params"))
    base_request = suite._request_base(scenario.get("request"))
    if base_request is None:
        raise KyvernoTestError("the Request pane cannot be read")
    user = base_request.pop("userInfo", None)
    if base_request:
        out.notes.append("the Request pane's " + ", ".join(sorted(base_request)) + " cannot be expressed in a "
                         "Kyverno test: left out")
    scenario_params = scenario.get("params")
    resources: dict[tuple[str, str, str, str], Any] = {}
    namespaces: dict[str, dict[str, str]] = {}
    grouped: dict[tuple[str, str, str, str], list[str]] = {}
    for case in cases:
        label = f"test case {case.index + 1} ({case.name})"
        reason = _exportable(case, scenario_params, user, policies, mutating_names)
        if reason:
            out.notes.append(f"{label} left out: {reason}")
            continue
        obj = case.panes.get("object")
        old = case.panes.get("oldObject")
        operation = case.request.get("operation") or derived_operation(obj is not None, old is not None)
        try:
            resource = _single(obj if operation != "DELETE" else (old if old is not None else obj))
            if operation == "UPDATE" and _single(old) != resource:
                raise KyvernoTestError("Kyverno CLI sends the resource as both object and oldObject on UPDATE, "
                                       "and this case's old object differs")
            ns_docs = _pane_docs(case.panes.get("namespace", scenario.get("namespace")))
        except KyvernoTestError as exc:
            out.notes.append(f"{label} left out: {exc}")
            continue
        key = (str(resource.get("apiVersion")), str(resource.get("kind")), _namespace(resource), _name(resource))
        if key in resources and resources[key] != resource:
            out.notes.append(f"{label} left out: another case has a different {key[1]} named {key[3]!r}, and "
                             "Kyverno CLI finds resources by name")
            continue
        clash = _namespace_clash(ns_docs, namespaces)
        if clash:
            out.notes.append(f"{label} left out: {clash}")
            continue
        expected = {k: v for k, v in case.expect.policies.items() if k not in mutating_names}
        if not expected and len(case.expect.policies) > len(expected):
            out.notes.append(f"{label} left out: it expects only results of MutatingAdmissionPolicies")
            continue
        if not expected:
            if len(policies) != 1 or case.expect.allowed is None:
                out.notes.append(f"{label} left out: say the result per policy with expect.policies "
                                 "(Kyverno CLI checks each policy, not the request's decision)")
                continue
            # A denial or a warning comes from a failed validation of the only policy.
            failed = case.expect.allowed is False or bool(case.expect.warning)
            expected = {_name(policies[0]): "fail" if failed else "pass"}
        e = case.expect
        if e.message is not None or isinstance(e.warning, str) or e.audit_annotations or e.code or e.reason \
                or e.object is not None:
            out.notes.append(f"{label}: only its per-policy results are carried over (Kyverno CLI does not "
                             "check messages, warnings, audit annotations or a part of the admitted object)")
        resources[key] = resource
        for ns in ns_docs:
            if isinstance(ns, Mapping) and ns.get("kind") == "Namespace":
                meta = ns.get("metadata") or {}
                namespaces[_name(ns)] = {str(k): str(v) for k, v in (meta.get("labels") or {}).items()}
        shown = f"{key[2]}/{key[3]}" if key[2] else key[3]
        for policy, result in expected.items():
            grouped.setdefault((policy, key[1], result, operation), []).append(shown)
        out.cases += 1
    results = []
    for (policy, kind, result, operation), names in grouped.items():
        entry: dict[str, Any] = {"isValidatingAdmissionPolicy": True, "kind": kind, "policy": policy,
                                 "resources": list(dict.fromkeys(names)), "result": result}
        if operation != "CREATE":
            entry["operation"] = operation
        results.append(entry)
    test: dict[str, Any] = {"apiVersion": API_VERSION, "kind": "Test", "metadata": {"name": name},
                            "policies": ["policies.yaml"], "resources": ["resources.yaml"]}
    out.files["policies.yaml"] = _dump_docs(policies + bindings + mutating)
    out.files["resources.yaml"] = _dump_docs(list(resources.values()))
    if params:
        test["paramResources"] = ["params.yaml"]
        out.files["params.yaml"] = _dump_docs(params)
    if namespaces:
        test["variables"] = "values.yaml"
        out.files["values.yaml"] = suite.dump_yaml({
            "apiVersion": API_VERSION, "kind": "Values", "metadata": {"name": "values"},
            "namespaceSelector": [{"name": n, "labels": {k: v for k, v in labels.items() if k != _NAME_LABEL}}
                                  for n, labels in namespaces.items()],
        })
    if user:
        test["userinfo"] = "userinfo.yaml"
        out.files["userinfo.yaml"] = suite.dump_yaml({"apiVersion": API_VERSION, "kind": "UserInfo",
                                                      "metadata": {"name": "userinfo"}, "userInfo": user})
    test["results"] = results
    out.files[TEST_FILE] = suite.dump_yaml(test)
    return out


def _exportable(case: suite.TestCase, scenario_params: Any, user: Any, policies: list[Any],
                mutating_names: set[str]) -> str:
    if case.problems:
        return "the case is not valid: " + case.problems[0]["message"]
    extra = sorted(k for k in case.request if k not in ("operation", "userInfo"))
    if extra:
        return "Kyverno CLI cannot set the request's " + ", ".join(extra)
    if case.request.get("operation") == "CONNECT":
        return "Kyverno CLI simulates CREATE, UPDATE and DELETE only"
    if "userInfo" in case.request and case.request["userInfo"] != user:
        return "a Kyverno test has one user info for every resource, and this case has its own"
    if "params" in case.panes and case.panes["params"] != scenario_params:
        return "a Kyverno test has one set of param resources, and this case has its own"
    names = {_name(p) for p in policies} | mutating_names
    missing = [n for n in case.expect.policies if n not in names]
    if missing:
        return f"no policy named {missing[0]!r}"
    return ""


def _single(value: Any) -> dict[str, Any]:
    docs = _pane_docs(value)
    if len(docs) != 1 or not isinstance(docs[0], Mapping):
        raise KyvernoTestError("the object must be one Kubernetes object")
    return dict(docs[0])


def _namespace_clash(docs: list[Any], known: Mapping[str, dict[str, str]]) -> str:
    for ns in docs:
        if isinstance(ns, Mapping) and ns.get("kind") == "Namespace":
            meta = ns.get("metadata") or {}
            labels = {str(k): str(v) for k, v in (meta.get("labels") or {}).items()}
            if _name(ns) in known and known[_name(ns)] != labels:
                return f"namespace {_name(ns)!r} has other labels in another case, and a Kyverno test has one set"
    return ""
