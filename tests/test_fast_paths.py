"""The core's speed-ups change nothing a user can see.

Each fast path (the pane cache, objects shared instead of copied, one engine
activation per group of expressions, kept for the next evaluation of the same documents, inputs cut
down to what the expressions read, remembered cost estimates) is checked against the plain way on
every scenario of tests/scenarios, the gallery and the benchmark, and on expressions chosen to probe its edges.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import copy
import datetime
import importlib
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest
import yaml

from app import examples
from app.forms import payload_from
from app.vap import cel, compiler, documents, fast, limits, reach
from app.vap.cel import library
from app.vap.cel.library.errors import LibraryError
from app.vap.cel.library.quantity import parse_quantity
from app.vap.fast import cost as cost_cache
from app.vap.fast import kept as keeping
from app.vap.fast import panes
from app.vap.schemas import validate as schema_validate
from benchmarks import scenarios as bench_scenarios

evaluate_module = importlib.import_module("app.vap.evaluate")
SCENARIO_DIR = Path(__file__).parent / "scenarios"


def _corpus() -> list[tuple[str, dict[str, Any]]]:
    bodies = []
    for path in sorted(SCENARIO_DIR.glob("*.yaml")):
        for scenario in yaml.safe_load(path.read_text(encoding="utf-8")) or []:
            if isinstance(scenario, dict) and isinstance(scenario.get("input"), dict):
                bodies.append((f"{path.stem}:{scenario.get('name')}", scenario["input"]))
    for name in ("mutating-policies", "static-manifests"):  # (MutatingAdmissionPolicies)
        path = Path(__file__).parent / "admission_scenarios" / f"{name}.yaml"
        bodies += [(f"{name}:{scenario['name']}", scenario["input"])
                   for scenario in yaml.safe_load(path.read_text(encoding="utf-8"))]
    bodies += [(f"gallery:{e.name}", payload_from(e.form())) for e in examples.all_examples()]
    bodies += [(f"benchmark:{s.name}", s.payload) for s in bench_scenarios.all_scenarios(quick=True)]
    return bodies


CORPUS = _corpus()



@pytest.fixture
def plain_core():
    """Turn the speed seam's switch off (see app.vap.fast) for the rest of the test: no pane cache, full
    inputs, one conversion per evaluation (none kept for the next), the cost estimator walking every time,
    every environment declaring the whole library, programs naming request or namespaceObject run where
    every root is dyn."""
    with contextlib.ExitStack() as stack:
        yield lambda: stack.enter_context(fast.plain())


def test_every_scenario_evaluates_the_same_with_and_without_the_fast_paths(plain_core):
    fast.clear()
    answers = {}
    for name, body in CORPUS:
        first = evaluate_module.evaluate(copy.deepcopy(body))
        for _ in range(3):  # from the caches; then generated pruners and cost observers, and programs
            # naming request moved where every root is dyn
            again = evaluate_module.evaluate(copy.deepcopy(body))
            assert again == first, name
        answers[name] = first
    plain_core()
    for name, body in CORPUS:
        assert evaluate_module.evaluate(copy.deepcopy(body)) == answers[name], name


def test_with_the_switch_off_nothing_is_kept_between_evaluations(plain_core):
    from app.vap import dispatcher, request

    plain_core()
    body = _kept_body({"expression": "object.metadata.name == 'o'"})
    for _ in range(5):
        evaluate_module.evaluate(copy.deepcopy(body))
    assert not panes.PANES._entries and not keeping.kept_here() and not cost_cache._ENTRIES
    assert len(request._COPIES) == 0 and len(dispatcher._VERSIONED) == 0
    compiled = compiler.compile_policy("p", {"validations": [{"expression": "object.spec.replicas < 3"}]},
                                        library.DEFAULT_VERSION)
    assert compiled.pruners == compiler._WHOLE


def test_every_cache_kept_between_evaluations_is_registered_with_the_seam():
    names = set(fast.registered())
    assert {"documents.panes", "request.copies", "dispatcher.versioned", "validator.kept", "cost.estimates",
            "typecheck.results", "decltypes.input_types", "astproto.programs",
            "app.vap.cel.compile_expression", "app.vap.compiler._compile_policy"} <= names


def test_evaluating_leaves_the_cached_documents_untouched():
    fast.clear()
    for _, body in CORPUS:
        evaluate_module.evaluate(body)
    for key, (docs, _, _) in list(panes.PANES._entries.items()):
        pane, source = key
        fresh, _ = documents._load_text(pane, source, limits.Usage())
        assert [d.value for d in docs] == [d.value for d in fresh], key


# --------------------------------------------------------------------------------------------
# YAML


def _pane_texts() -> list[str]:
    texts = []
    for _, body in CORPUS:
        texts += [v for v in body.values() if isinstance(v, str) and v.strip()]
    return list(dict.fromkeys(texts))


def _shape(docs: list[documents.Document]) -> list[Any]:
    # libyaml marks an empty (null) scalar where the next token starts; its position is never shown
    return [(d.index, d.value, d.positions, {k: v for k, v in d.values.items() if _at(d.value, k) is not None})
            for d in docs if d.value is not None]


def _at(value: Any, path: tuple) -> Any:
    for part in path:
        try:
            value = value[part]
        except (KeyError, IndexError, TypeError):
            return None
    return value


def test_a_cached_pane_counts_against_the_scenario_bounds_as_reading_it_does():
    fast.clear()
    text = "a: [1, 2, 3]\nb: {c: d}\n"
    read = limits.Usage()
    documents.load_pane("object", text, read)
    again = limits.Usage()
    docs, problems = documents.load_pane("object", text, again)
    assert not problems and [d.value for d in docs] == [{"a": [1, 2, 3], "b": {"c": "d"}}]
    assert again.counts() == read.counts()


def test_a_cached_pane_that_would_go_over_a_bound_is_read_again_for_the_problem_and_its_place():
    fast.clear()
    text = "\n".join(f"k{i}: v{i}" for i in range(40)) + "\n"
    documents.load_pane("object", text, limits.Usage())  # cached, within the bounds on its own
    with limits.use(limits.Limits(max_nodes=100)):
        usage = limits.Usage()
        documents.load_pane("params", text, usage)
        _, problems = documents.load_pane("object", text, usage)
    assert len(problems) == 1 and "too many values" in problems[0].message
    assert problems[0].pane == "object" and problems[0].line is not None


@pytest.mark.parametrize("text", [
    "a: [1, 2\nb: 3\n",
    "apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n   bad: indent\n",
    "a: 'unterminated\n",
    "- a\nb: c\n",
    "a: 1\n---\nb: [\n",
])
def test_a_pane_with_an_error_is_never_cached_and_reports_it_each_time(text):
    panes.PANES.clear()
    first = documents.load_pane("object", text)
    second = documents.load_pane("object", text)
    assert first[1] and first[1] == second[1]
    assert not panes.PANES._entries


# --------------------------------------------------------------------------------------------
# Inputs cut down to what the expressions read

OBJECT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web", "tier": "frontend"},
                 "annotations": {"example.com/owner": "team@example.com"}},
    "spec": {
        "replicas": 3,
        "paused": None,
        "selector": {"matchLabels": {"app": "web"}},
        "template": {"spec": {"containers": [
            {"name": "web", "image": "registry.example.com/web:1.0", "ports": [{"containerPort": 8080}]},
            {"name": "proxy", "image": "docker.io/envoy:1.2", "securityContext": {"privileged": True}},
        ]}},
    },
    "status": {"replicas": 3, "conditions": [{"type": "Available", "status": "True"}]},
}
OLD = copy.deepcopy(OBJECT) | {"spec": {**OBJECT["spec"], "replicas": 2}}
PARAMS = {"data": {"max": "5", "prefix": "registry.example.com/"}, "metadata": {"name": "limits"}}
NAMESPACE = {"metadata": {"name": "default", "labels": {"env": "prod"}}, "spec": {"finalizers": ["kubernetes"]}}

PROBES = [
    "object.spec.replicas <= 5",
    "has(object.spec.replicas)",
    "has(object.spec.missing)",
    "has(object.spec)",
    "has(object.spec.paused)",
    "object.spec.paused == null",
    "object.spec != null && object.spec.replicas > 1",
    "object == oldObject",
    "object.spec == oldObject.spec",
    "object.metadata.labels == {'app': 'web', 'tier': 'frontend'}",
    "size(object.metadata) == 4",
    "object.metadata.size()",
    "object.spec.size()",
    "'app' in object.metadata.labels",
    "'nope' in object.metadata.labels",
    "'spec' in object",
    "'web' in object.spec.template.spec.containers.map(c, c.name)",
    "object.metadata.labels['app'] == 'web'",
    "object.metadata.labels['missing'] == 'web'",
    "object['spec']['replicas']",
    "object.spec.template.spec.containers[0].image",
    "object.spec.template.spec.containers[5].image",
    "object.spec.template.spec.containers.all(c, c.image.startsWith(params.data.prefix))",
    "object.spec.template.spec.containers.exists(c, has(c.securityContext) && c.securityContext.privileged)",
    "object.metadata.labels.all(k, k.startsWith('a') || k == 'tier')",
    "object.metadata.labels.map(k, object.metadata.labels[k]).join(',')",
    "object.?spec.?replicas.orValue(1)",
    "object.?spec.?nothing.orValue(1)",
    "object.metadata.?labels['app'].orValue('')",
    "object.?status.?conditions.orValue([]).size()",
    "string(object.spec.replicas) + '/' + string(oldObject.spec.replicas)",
    "dyn(object).kind",
    "object.kind == 'Pod' ? dyn(object).spec.containers.size() : dyn(object).spec.template.spec.containers.size()",
    "has(dyn(object).spec.nothing) || dyn(object.metadata).labels['app'] == 'web'",
    "dyn(dyn(object).metadata)",
    "type(object.spec) == map",
    "[object.spec].map(s, s.replicas + 1)[0]",
    "[object.spec.replicas, oldObject.spec.replicas].max() == 3",
    "[1, 2].all(object, object > 0) && object.kind == 'Deployment'",
    "object.spec.replicas.foo",
    "object.nothing.deeper",
    "object.metadata.name.size() + params.data.prefix.size()",
    "int(params.data.max) >= object.spec.replicas",
    "params.metadata.name",
    "namespaceObject.metadata.labels.env == 'prod'",
    "has(namespaceObject.spec) && namespaceObject.spec.finalizers.size() == 1",
    "namespaceObject",
    "object.status",
    "oldObject.status.conditions.exists(c, c.type == 'Available')",
    "object.spec.selector.matchLabels.all(k, object.metadata.labels[k] == object.spec.selector.matchLabels[k])",
    "object.metadata.annotations['example.com/owner'].contains('@')",
    "object.spec.template.spec.containers.map(c, c.ports).size()",
    "object.spec.template.spec.containers.filter(c, c.name == 'web')[0].ports[0].containerPort",
    # comprehensions over lists: each element pruned to what the loop reads of it
    "object.spec.template.spec.containers.all(c, c.ports.all(p, p.containerPort > 1000))",
    "object.spec.template.spec.containers.all(i, c, i < 5 && c.name != '')",
    "object.spec.template.spec.containers.exists_one(c, c.image.startsWith('docker.io/'))",
    "object.spec.template.spec.containers.map(c, c.securityContext).size()",
    "object.spec.template.spec.containers.map(c, has(c.ports) ? c.ports.size() : 0)",
    "object.spec.template.spec.containers.filter(c, has(c.securityContext)).map(c, c.name)",
    "object.spec.template.spec.containers.map(c, c.name + ':' + c.image).join(',')",
    "object.spec.template.spec.containers.exists(c, c.securityContext.privileged)",
    "object.spec.template.spec.containers.all(c, c == object.spec.template.spec.containers[0])",
    "object.spec.template.spec.containers.exists(c, c.nothing == 1)",
    "size(object.spec.template.spec.containers) == 2 && size(object.status.conditions) > 0",
    "object.spec.template.spec.containers.map(c, c)[1].name",
    "object.status.conditions.all(c, c.status == 'True') && object.metadata.labels.all(k, v, v != '')",
    "dyn(object).spec.template.spec.containers.all(c, dyn(c).image != '')",
    "[object.spec.template.spec.containers].all(cs, cs.all(c, c.name != ''))",
    "object.spec.template.spec.containers.all(object, object.name != '')",
    "object.spec.template.spec.containers.sortBy(c, c.name)[0].image",
    "object.spec.template.spec.containers.map(c, c.ports) == [[{'containerPort': 8080}], []]",
]


def _outcome(compiled: cel.Compiled, data: dict[str, Any]) -> tuple[Any, ...]:
    with library.track_cost() as tracker:
        try:
            result: Any = ("value", cel.evaluate(compiled, data))
        except cel.EvaluationError as exc:
            result = ("error", str(exc))
    return result, library.expression_cost(compiled.program, data, tracker).total


@pytest.mark.parametrize("expression", PROBES)
def test_a_pruned_input_gives_the_same_result_error_and_cost(expression):
    decls = cel.Declarations(version=library.DEFAULT_VERSION, params=True, variables=())
    compiled = cel.compile_expression(expression, cel.VARIABLE, decls)
    assert compiled.program is not None, compiled.error
    seen = reach.of_programs([compiled.program], (*reach.PRUNED_ROOTS, "request"), elements=True)
    full = {"object": OBJECT, "oldObject": OLD, "params": PARAMS, "namespaceObject": NAMESPACE, "request": {}}
    pruned = {name: seen.prune(name, value) if name in reach.PRUNED_ROOTS else value for name, value in full.items()}
    assert _outcome(compiled, pruned) == _outcome(compiled, full)


REQUEST = {"operation": "CREATE", "name": "web", "namespace": "default", "dryRun": False,
           "kind": {"group": "apps", "version": "v1", "kind": "Deployment"},
           "resource": {"group": "apps", "version": "v1", "resource": "deployments"},
           "userInfo": {"username": "alice", "groups": ["dev", "system:authenticated"], "extra": {"x": ["y"]}},
           "options": {"kind": "CreateOptions"}}
REQUEST_PROBES = [
    "request.userInfo.username.startsWith('system:')",
    "request.operation == 'CREATE' && !request.dryRun",
    "has(request.userInfo.groups) && request.userInfo.groups.exists(g, g == 'dev')",
    "request.name.size() > 2 && request.namespace.endsWith('ult')",
    "namespaceObject.metadata.labels.env == 'prod'",
    "has(namespaceObject.spec) && namespaceObject.spec.finalizers.size() == 1",
    "request.userInfo.extra['x'][0] == 'y'",
    "request.userInfo.uid == ''",
    "request.kind.kind == 'Deployment' ? object.spec.replicas > 1 : true",
    "request.resource.resource in ['deployments', 'pods']",
    "dyn(request.userInfo).username == 'alice'",
    "request.userInfo.username == dyn('alice') && dyn(request.dryRun) == false",
    "request.options.kind.lowerAscii()",
    "[request.name, namespaceObject.metadata.name].map(n, n.upperAscii())",
    "string(request.userInfo.groups.size()) + request.userInfo.username",
    "request.subResource == ''",
    "has(request.subResource) || has(request.userInfo.uid)",
    "request.?subResource.orValue('none') + ':' + request.?userInfo.?username.orValue('')",
    "request.options != null && request.userInfo != null",
    "request.userInfo.groups + ['x'] == ['dev', 'system:authenticated', 'x']",
    "has(namespaceObject.metadata) && namespaceObject.metadata.?labels[?'env'].orValue('') == 'prod'",
    "request.dryRun == true || request.userInfo.extra.size() == 1",
    "type(request.userInfo.groups) == list && type(request.name) == string",
    "request.userInfo.groups.filter(g, g.startsWith('system:')).size() == 1",
    "request.name + namespaceObject.metadata.name",
    # declared a timestamp, given as the JSON string it is
    "namespaceObject.metadata.creationTimestamp < timestamp('2030-01-01T00:00:00Z')",
    "string(namespaceObject.metadata.creationTimestamp) + namespaceObject.metadata.UID",
]
# what request and namespaceObject may hold: as given, fields missing, a cluster-scoped request (no Namespace)
REQUEST_DATA = [
    {"object": OBJECT, "oldObject": OLD, "params": PARAMS, "namespaceObject": NAMESPACE, "request": REQUEST},
    {"object": OBJECT, "oldObject": None, "params": None,
     "namespaceObject": {"metadata": {"name": "x", "uid": "u", "creationTimestamp": "2024-01-01T00:00:00Z"}},
     "request": {"operation": "UPDATE", "name": "w", "userInfo": {"username": "system:serviceaccount:a:b"}}},
    {"object": OBJECT, "oldObject": None, "params": None, "namespaceObject": None,
     "request": {**REQUEST, "subResource": "scale", "dryRun": True, "options": None}},
]


def _outcomes(compiled: cel.Compiled) -> list[tuple[Any, ...]]:
    return [_outcome(compiled, data) for data in REQUEST_DATA]


@pytest.mark.parametrize("expression", REQUEST_PROBES)
def test_a_program_naming_request_runs_where_it_was_checked_alike(expression, monkeypatch):
    # a program naming request or namespaceObject runs where it was checked, where they have the
    # apiserver's declared types, with their values in an activation: the same result, error and cost as
    # where every root is dyn, and no run-time environment to build
    decls = cel.Declarations(version=library.DEFAULT_VERSION, params=True, variables=())
    cel._runtime_environment.cache_clear()
    cel.compile_expression.cache_clear()
    compiled = cel.compile_expression(expression, cel.VARIABLE, decls)
    assert compiled.program is not None, compiled.error
    if compiled.typed_roots:
        assert cel._runtime_environment.cache_info().currsize == 0
    typed = _outcomes(compiled)
    # evaluated a few times with its data as given, it moves where every root is dyn, and runs alike there
    assert compiled.typed_roots is None
    moved = _outcomes(compiled)
    cel.compile_expression.cache_clear()
    monkeypatch.setattr(cel, "_typed_root_program", lambda *args: None)
    where_dyn = cel.compile_expression(expression, cel.VARIABLE, decls)
    assert where_dyn.typed_roots is None
    assert typed == moved == _outcomes(where_dyn)


def test_programs_naming_request_run_where_they_were_checked():
    decls = cel.Declarations(version=library.DEFAULT_VERSION, params=True, variables=())
    cel.compile_expression.cache_clear()
    cel._runtime_environment.cache_clear()
    compiled = [cel.compile_expression(expression, cel.VARIABLE, decls) for expression in REQUEST_PROBES]
    assert all(c.typed_roots for c in compiled)  # guarded presence tests on namespaceObject included
    assert cel._runtime_environment.cache_info().currsize == 0
    shared = cel.Activation({"request": REQUEST, "namespaceObject": NAMESPACE})
    for _ in range(5):  # values shared in an activation: where it was checked is as quick, it stays there
        cel.evaluate(compiled[0], shared)
    assert compiled[0].typed_roots is not None
    for _ in range(2):
        cel.evaluate(compiled[0], {"request": REQUEST})
    assert compiled[0].typed_roots is not None
    cel.evaluate(compiled[0], {"request": REQUEST})  # the third time with data as given, it moves
    assert compiled[0].typed_roots is None
    assert cel._runtime_environment.cache_info().currsize == 1


@pytest.mark.parametrize("expression", REQUEST_PROBES)
def test_a_program_naming_request_runs_alike_without_the_library(expression, monkeypatch):
    # a program naming request or namespaceObject that the checking environment cannot run runs where
    # every root is dyn: in an environment without the library's functions when it calls none (and
    # their rewriting adds none)
    monkeypatch.setattr(cel, "_typed_root_program", lambda *args: None)
    decls = cel.Declarations(version=library.DEFAULT_VERSION, params=True, variables=())
    data = {"object": OBJECT, "oldObject": OLD, "params": PARAMS, "namespaceObject": NAMESPACE, "request": REQUEST}
    built: list[bool] = []
    build = cel._build_environment

    def noting(declarations, typed):
        if not typed:
            built.append(declarations.library)
        return build(declarations, typed=typed)

    monkeypatch.setattr(cel, "_build_environment", noting)
    cel._runtime_environment.cache_clear()
    cel.compile_expression.cache_clear()
    compiled = cel.compile_expression(expression, cel.VARIABLE, decls)
    assert compiled.program is not None, compiled.error
    lean = _outcome(compiled, data)
    cel.compile_expression.cache_clear()
    monkeypatch.setattr(cel.library, "calls_library", lambda *args: True)
    full = cel.compile_expression(expression, cel.VARIABLE, decls)
    assert built[-1] is True  # the environment with the library
    assert _outcome(full, data) == lean


def test_most_programs_naming_request_run_without_the_library(monkeypatch):
    monkeypatch.setattr(cel, "_typed_root_program", lambda *args: None)  # (where every root is dyn)
    decls = cel.Declarations(version=library.DEFAULT_VERSION, params=True, variables=())
    cel._runtime_environment.cache_clear()
    cel.compile_expression.cache_clear()
    for expression in REQUEST_PROBES:
        cel.compile_expression(expression, cel.VARIABLE, decls)
    # one environment without the library for most, one with it for the few its rewriting changes
    assert cel._runtime_environment.cache_info().currsize == 2


BASIC_PROBES = [
    "object.spec.replicas < 2.5 && object.spec.replicas >= 1u && string(object.spec.replicas) == '3'",
    "object.metadata.name > 'a' && b'a' < b'b' && duration('1m') > duration('1s')",
    "string(object.metadata.creationTimestamp) + string(1.5) + string(true)",
    "object.status.conditions.all(c, c.lastTransitionTime < '2025')",
    "object.spec.replicas < 'x'",
    # rewritten by the library (Go's formatting of a duration): run where the whole library is declared
    "string(duration('1500ms')) == '1.5s' && string(duration('-90s')) == '-1m30s'",
]


@pytest.mark.parametrize("expression", BASIC_PROBES)
def test_a_policy_calling_only_the_library_comparisons_and_string_runs_alike_with_those_alone(expression):
    data = {"object": OBJECT, "oldObject": OLD, "params": PARAMS, "namespaceObject": NAMESPACE, "request": REQUEST}
    outcomes = []
    for level in (cel.BASIC, True):
        decls = cel.Declarations(version=library.DEFAULT_VERSION, params=True, variables=(), library=level)
        cel.compile_expression.cache_clear()
        compiled = cel.compile_expression(expression, cel.VALIDATION, decls)
        outcomes.append((compiled.error, _outcome(compiled, data) if compiled.program is not None else None))
    assert outcomes[0] == outcomes[1]


def test_a_policy_s_expressions_share_the_environment_of_its_library_level(monkeypatch):
    assert compiler.library_level({"validations": [{"expression": "object.spec.replicas < 3"},
                                                    {"expression": "string(1) == '1'", "messageExpression": "'x'"}],
                                    "variables": [{"name": "a", "expression": "object.metadata.name"}]}) == cel.BASIC
    for spec in ({"validations": [{"expression": "object.spec.replicas < 3"},
                                  {"expression": "quantity(object.x).isInteger()"}]},
                 {"matchConditions": [{"name": "m", "expression": "int(object.x) > 1"}]},
                 {"auditAnnotations": [{"key": "k", "valueExpression": "format.named('uuid').hasValue() ? '' : ''"}]},
                 {"validations": [{"expression": "object.x == 1", "messageExpression": "object.y.indexOf ('a')"}]}):
        assert compiler.library_level(spec) is True, spec
    built: list[Any] = []
    build = cel._build_environment

    def noting(declarations, typed):
        built.append(declarations.library)
        return build(declarations, typed=typed)

    monkeypatch.setattr(cel, "_build_environment", noting)
    fast.clear()
    compiled = compiler.compile_policy("p", {"validations": [{"expression": "object.spec.replicas < 3"},
                                                              {"expression": "string(duration('1s')) == '1s'"}]},
                                        library.DEFAULT_VERSION)
    assert [c.error for c in compiled.expressions] == [None, None]
    # the second is rewritten by the library (Go's formatting of a duration): compiled again where all of it
    # is declared; the first runs where only the comparisons and string() are
    assert built == [cel.BASIC, True]
    data = {"object": {"spec": {"replicas": 2}}}
    assert [cel.evaluate(c, data) for c in compiled.expressions] == [True, True]
    fast.clear()


def test_pruning_leaves_out_what_no_expression_reads():
    decls = cel.Declarations(version=library.DEFAULT_VERSION, params=True, variables=())
    programs = [cel.compile_expression(e, cel.VALIDATION, decls).program
                for e in ("has(object.metadata.labels) && 'app' in object.metadata.labels",
                          "object.spec.replicas <= int(params.data.max)")]
    seen = reach.of_programs(programs, reach.PRUNED_ROOTS, elements=True)
    assert seen.prune("object", OBJECT) == {"metadata": {"labels": {"app": "web"}}, "spec": {"replicas": 3}}
    assert seen.prune("params", PARAMS) == {"data": {"max": "5"}}
    assert seen.prune("oldObject", None) is None
    assert seen.prune("namespaceObject", NAMESPACE) == {}
    # of the elements of a list a loop ranges over, what the loop reads
    loop = cel.compile_expression("object.spec.template.spec.containers.all(c, !has(c.securityContext))",
                                  cel.VALIDATION, decls).program
    seen = reach.of_programs([loop], reach.PRUNED_ROOTS, elements=True)
    containers = [{}, {"securityContext": {}}]
    assert seen.prune("object", OBJECT) == {"spec": {"template": {"spec": {"containers": containers}}}}


# --------------------------------------------------------------------------------------------
# Remembered cost estimates

COST_PROBES = [
    "object.spec.template.spec.containers.all(c, c.image.startsWith('registry.example.com/'))",
    "'images: ' + object.spec.template.spec.containers.map(c, c.image).join(', ')",
    "object.metadata.name + '-' + params.data.prefix",
    "object.metadata.labels.exists(k, k.contains('a'))",
    "params.data.prefix in object.spec.template.spec.containers.map(c, c.image)",
    "object.metadata.name.matches('^[a-z]+$')",
    "sets.contains(object.spec.template.spec.containers.map(c, c.name), ['web'])",
]


def _variants() -> list[dict[str, Any]]:
    out = []
    containers = OBJECT["spec"]["template"]["spec"]["containers"]
    for n in (0, 1, 2, 7):
        obj = copy.deepcopy(OBJECT)
        obj["spec"]["template"]["spec"]["containers"] = [
            {**containers[i % 2], "image": containers[i % 2]["image"] + "x" * i} for i in range(n)]
        out.append(obj)
    renamed = copy.deepcopy(OBJECT)
    renamed["metadata"]["name"] = "a-much-longer-name"
    renamed["metadata"]["labels"] = {"zz": "1"}
    out.append(renamed)
    bare = copy.deepcopy(OBJECT)
    del bare["spec"]["template"]
    del bare["metadata"]["labels"]
    out.append(bare)
    return out


@pytest.mark.parametrize("expression", COST_PROBES)
def test_a_remembered_cost_is_the_estimators_cost(expression):
    cost_cache.clear()
    decls = cel.Declarations(version=library.DEFAULT_VERSION, params=True, variables=())
    compiled = cel.compile_expression(expression, cel.VARIABLE, decls)
    assert compiled.program is not None, compiled.error
    for _ in range(2):  # the second round comes from the cache
        for obj in _variants():
            for params in (PARAMS, {"data": {"prefix": "x"}}):
                data = {"object": obj, "params": params}
                with library.track_cost() as tracker:
                    try:
                        cel.evaluate(compiled, data)
                    except cel.EvaluationError:
                        pass
                expected = library.expression_cost(compiled.program, data, tracker).core
                assert cost_cache.core_cost(compiled.program, data) == expected


class _Text(str):
    """A string of a class of its own, which the cost walk could tell from a plain one."""


def test_generated_cost_observers_see_what_the_loop_sees():
    reads = [(-1, "get", "object"), (0, "get", "spec"), (1, "len", None), (1, "in", "replicas"),
             (1, "item", "containers"), (4, "elem", 0), (4, "elem", 3), (4, "item", (0, 2, None)),
             (1, "key", 0), (1, "key", 9), (5, "get", "image"), (0, "item", "missing"), (11, "get", "x"),
             (1, "get", "it's \"quoted\"\n"), (1, "in", 7), (1, "get", None)]
    inputs = [
        {"object": {"spec": {"replicas": 3, "containers": [{"image": "a"}, {"image": 1}]}}},
        {"object": {"spec": {"containers": "not a list"}}},
        {"object": {"spec": ["a", "list"]}},
        {"object": {"spec": 5}},
        {"object": None},
        {},
        {"object": {"spec": {"containers": [[1], None, 2, 3]}, "missing": {"x": 1}}},
        # scalars of every JSON class, and of a subclass, are told apart as the loop tells them
        {"object": {"spec": {"replicas": True, "containers": [{"image": 1.0}, {"image": None}],
                             "it's \"quoted\"\n": _Text("a"), 7: False, None: b"x"}}},
        {"object": {"spec": {"replicas": 1, "containers": [{"image": 1}, {"image": False}],
                             "it's \"quoted\"\n": "a"}}},
    ]
    observe = cost_cache.observer(reads)
    for data in inputs:
        try:
            expected = cost_cache._observe(data, reads)
        except TypeError:  # len() of a number: the estimate fails the same way, and the cost is unknown
            with pytest.raises(TypeError):
                observe(data)
            continue
        assert observe(data) == expected, data


def test_generated_pruners_cut_what_the_walk_cuts():
    seen = reach.Reach()
    seen.add("object", ["metadata", "labels", "team"], {})
    seen.add("object", ["metadata", "name"], reach.WHOLE)
    seen.add("object", ["spec", "it's \"quoted\"\n", "x"], reach.WHOLE)
    seen.add("object", ["spec", "containers"], reach.WHOLE)
    seen.add("object", ["spec", "template", "spec", "containers", reach.ELEMENT, "image"], reach.WHOLE)
    seen.add("object", ["spec", "template", "spec", "containers", reach.ELEMENT, "securityContext"], {})
    seen.add("object", ["status", "conditions", reach.ELEMENT], {})
    trie = seen.roots["object"]
    values = [OBJECT, {"metadata": "not a map"}, {"metadata": {"labels": None}},
              {"spec": {"it's \"quoted\"\n": {"x": 1}}}, {"status": {"conditions": {"a": {"b": 1}}}},
              {"spec": {"template": {"spec": {"containers": [1, None, {"image": "x", "name": "y"}]}}}},
              {"metadata": {"labels": {"team": {"deep": 1}, "other": 2}}}, [], "text", None, {}]
    generated = reach._generated_pruner(trie)
    for value in values:
        assert generated(value) == reach.prune(value, trie) if isinstance(value, dict) else generated(value) == value
    # the walk serves the first calls, generated code the later ones: the same values throughout
    assert [seen.prune("object", OBJECT) for _ in range(5)] == [reach.prune(OBJECT, trie)] * 5


def test_a_program_s_shape_is_what_a_walk_of_every_node_finds():
    from app.vap.cel.library import astproto
    from app.vap.mutating import policy as mutating_policy

    decls = cel.Declarations(version=library.DEFAULT_VERSION, params=True)
    texts = ["object.spec.containers.all(c, c.image.startsWith('r/') && has(c.securityContext))",
             "[1, 2].exists(x, x > 1) ? {'a': [object.x]} : {'b': []}", "[object.a]", "params.data.?x.orValue('y')",
             "quantity('1Gi').isGreaterThan(quantity(object.spec.limit))", "'%s'.format([1]).size() > 0",
             "object.spec.containers.filter(c, c.name != '')[0].image == 'x'"]
    programs = [cel.compile_expression(text, cel.VARIABLE, decls).checked_program for text in texts]
    for example in examples.all_examples():
        for doc in yaml.safe_load_all(example.form().get("policy") or ""):
            if isinstance(doc, dict) and doc.get("kind") == "MutatingAdmissionPolicy":
                compiled = mutating_policy.compile_policy(doc["metadata"]["name"], doc["spec"],
                                                          library.DEFAULT_VERSION)
                programs += [c.checked_program for c in compiled.expressions if c.checked_program is not None]
    assert None not in programs and len(programs) > 12
    for program in programs:
        nodes = list(astproto.walk(astproto.checked_expr(program).expr))
        kinds = [n.WhichOneof("expr_kind") for n in nodes]
        functions = {n.call_expr.function for n, k in zip(nodes, kinds, strict=True) if k == "call_expr"}
        hidden = any(n.select_expr.field.startswith(astproto.HIDDEN_PREFIX)
                     for n, k in zip(nodes, kinds, strict=True) if k == "select_expr")
        literals = any(k == "struct_expr" or (k == "list_expr" and len(n.list_expr.elements) > 1)
                       for n, k in zip(nodes, kinds, strict=True))
        assert astproto.shape(program) == astproto.Shape(frozenset(functions), literals, hidden)


YAML_TEXTS = [
    "a: 1\nb: [x, 'y', \"z\"]\nc: {d: null, e: true, f: 1.5, g: 0x1F, h: 2024-01-01, i: !!binary aGk=}\n",
    "base: &b {x: 1, y: [1, 2]}\nuse: *b\nmerged:\n  <<: *b\n  y: 3\n",
    "---\nkind: A\n---\n---\nkind: B\nlist:\n- &i item\n- *i\n",
    "key: |\n  multi\n  line\n'quoted key': >-\n  folded\n  text\n? complex\n: value\n",
    "yes: no\non: off\nn: ~\n'': ''\n",  # (a null key is refused: tests/test_yaml_tags.py)
    "- 1\n- - 2\n  - [3, {four: 4}]\n",
]


@pytest.mark.parametrize("text", YAML_TEXTS)
def test_panes_composed_in_c_read_as_the_python_composer_reads_them(text):
    composed_usage, python_usage = limits.Usage(), limits.Usage()
    composed = documents._read("object", documents._ComposedLoader(text, composed_usage), composed_usage,
                               report=False, composed=True)
    python = documents._read("object", documents._FastLoader(text, python_usage), python_usage, report=False)
    assert [(d.index, d.value, d.positions, d.values) for d in composed[0]] == [
        (d.index, d.value, d.positions, d.values) for d in python[0]]
    assert composed[1] == python[1] == []
    assert composed_usage.counts() == python_usage.counts()


def test_a_bound_exceeded_in_a_small_pane_is_placed_as_the_python_composer_places_it():
    text = "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: [*b]\n"
    small = limits.Limits(max_nodes=60, max_aliases=5)
    docs, problems = documents.load_pane("object", text, limits.Usage(small))
    assert len(problems) == 1 and problems[0].line == 2  # the sixth alias, where the Python composer met it
    assert "too many YAML aliases" in problems[0].message


def test_a_cached_objects_field_warnings_come_from_its_first_reading(monkeypatch):
    from app.vap import decoding

    payload = payload_from(examples.get("required-labels").form())
    payload["object"] = payload["object"].replace("metadata:", "metadata:\n  labelz: {a: b}", 1)
    first = [p for p in evaluate_module.evaluate(payload)["problems"] if "labelz" in p["message"]]
    assert first, "the unknown field is reported"
    walks = []
    monkeypatch.setattr(decoding, "check_object", lambda *a: walks.append(a) or [])
    second = [p for p in evaluate_module.evaluate(payload)["problems"] if "labelz" in p["message"]]
    assert second == first and walks == []  # the same warning, the object not walked again


# --------------------------------------------------------------------------------------------
# Values kept for the next evaluation of the same documents


def _kept_body(validation: dict[str, Any], **panes: Any) -> dict[str, Any]:
    import json

    from tests import hostile_inputs as h

    rules = [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["*"], "resources": ["configmaps"]}]
    pol = h.policy(validations=[validation], matchConstraints={"resourceRules": rules})
    body = h.scenario(pol)
    body.update({k: v if isinstance(v, str) else json.dumps(v) for k, v in panes.items()})
    return body


def _messages(body: dict[str, Any]) -> list[str]:
    result = evaluate_module.evaluate(body)
    assert not [p for p in result["problems"] if p["severity"] == "error"], result["problems"]
    return [d["message"] for p in result["policies"] for b in p["bindings"] for e in b["evaluations"]
            for d in e["decisions"] if d["action"] == "deny"]


def test_an_unchanged_scenario_converts_its_values_once(activations_made):
    made = activations_made
    fast.clear()
    body = _kept_body({"expression": "object.metadata.name != 'o'",
                       "messageExpression": "string(object.metadata.name)"})
    for _ in range(4):  # (values are kept from a policy's fourth evaluation on, see below)
        _messages(body)
    made.clear()
    assert [_messages(body) for _ in range(5)] == [["o"]] * 5
    assert made == []


def test_a_request_differing_only_in_a_number_s_type_is_converted_again():
    fast.clear()
    seconds = "request.options.gracePeriodSeconds"
    body = _kept_body({"expression": "false", "messageExpression":
                       f"type({seconds}) == int ? 'int' : type({seconds}) == double ? 'double' : 'bool'"})
    assert _messages({**body, "request": "options: {gracePeriodSeconds: 1}"}) == ["int"]
    assert _messages({**body, "request": "options: {gracePeriodSeconds: 1.5}"}) == ["double"]
    assert _messages({**body, "request": "options: {gracePeriodSeconds: true}"}) == ["bool"]


def test_a_namespace_differing_only_in_a_number_s_type_is_converted_again():
    fast.clear()
    generation = "namespaceObject.metadata.generation"
    body = _kept_body({"expression": "false", "messageExpression":
                       f"type({generation}) == int ? 'int' : type({generation}) == double ? 'double' : 'bool'"})
    # (a JSON document: its 1.0 stays a double, where YAML's is the integer the apiserver gets through JSON)
    namespace = '{{"apiVersion": "v1", "kind": "Namespace", "metadata": {{"name": "default", "generation": {}}}}}\n'
    assert [_messages({**body, "namespace": namespace.format(g)}) for g in ("1", "1.0", "1")] == [
        ["int"], ["double"], ["int"]]


def test_the_same_object_in_another_request_namespace_is_seen_there():
    fast.clear()
    body = _kept_body({"expression": "false", "messageExpression": "string(object.metadata.namespace)"},
                      object="apiVersion: v1\nkind: ConfigMap\nmetadata: {name: o}\n")
    assert [_messages({**body, "request": f"namespace: {ns}"}) for ns in ("one", "two", "one")] == [
        ["one"], ["two"], ["one"]]


def test_a_policy_evaluated_from_several_threads_at_once_answers_alike():
    from concurrent.futures import ThreadPoolExecutor

    fast.clear()
    body = payload_from(examples.get("delete-protection").form())
    expected = evaluate_module.evaluate(body)
    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(lambda _: evaluate_module.evaluate(body), range(160)))
    assert all(answer == expected for answer in answers)


def _activations_kept() -> int:
    return sum(kept.activation is not None for kept in keeping.kept_here().values())


def test_values_are_kept_from_the_second_evaluation_of_the_same_documents(monkeypatch):
    # a first evaluation (the cold one) pays nothing for keeping, nor does one of documents not seen just before
    # (an edited object, which would never reuse them); a policy's values are kept once its pruners are made
    # (its third evaluation), on the second evaluation of the same documents
    monkeypatch.setattr(keeping, "_KEPT_SECONDS", 1.0)  # (made afresh after that long evaluating on them)
    fast.clear()
    body = _kept_body({"expression": "object.metadata.name == 'o'"})
    kept = []
    for _ in range(5):
        evaluate_module.evaluate(body)
        kept.append(_activations_kept())
    assert kept == [0, 0, 0, 1, 1]
    edited = []
    for name in ("p", "q", "p", "p"):
        evaluate_module.evaluate({**body, "object": f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {name}}}\n"})
        edited.append(_activations_kept())
    assert edited == [0, 0, 0, 1]


def test_values_an_evaluation_worked_hard_on_are_not_kept():
    # the engine allocates what it evaluates in the activation's memory: a costly evaluation's is freed.
    # (99 x 99 iterations take milliseconds on any machine, well over the 0.25 ms allowed)
    fast.clear()
    numbers = "[" + ",".join(map(str, range(99))) + "]"
    body = _kept_body({"expression": f"{numbers}.all(a, {numbers}.all(b, a + b >= 0))"})
    for _ in range(6):
        evaluate_module.evaluate(body)
        assert _activations_kept() == 0


def test_a_thread_never_finds_the_values_another_thread_kept(monkeypatch):
    # an engine activation belongs to the thread that made it; a new thread may get the identifier of one
    # that ended, never its kept values
    import threading

    monkeypatch.setattr(keeping, "_KEPT_SECONDS", 1.0)
    fast.clear()
    body = _kept_body({"expression": "object.metadata.name == 'o'"})
    seen: list[tuple[int, int, int]] = []

    def run() -> None:
        before = len(keeping.kept_here())
        for _ in range(5):
            evaluate_module.evaluate(body)
        seen.append((threading.get_ident(), before, _activations_kept()))

    for _ in range(3):  # one after the other: the identifiers are usually reused
        thread = threading.Thread(target=run)
        thread.start()
        thread.join()
    assert [(before, kept) for _, before, kept in seen] == [(0, 1)] * 3


# --------------------------------------------------------------------------------------------
# A MutatingAdmissionPolicy's values, kept for the next evaluation of the same documents

_MUTATING = """apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {{name: m}}
spec:
  matchConstraints:
    resourceRules: [{{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}}]
  matchConditions: [{{name: c, expression: "{condition}"}}]
  reinvocationPolicy: Never
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >-
        Object{{metadata: Object.metadata{{labels: {{"seen": {label}}}}}}}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {{name: m}}
spec: {{policyName: m}}
"""


def _mutating_body(label: str, condition: str = "true") -> dict[str, Any]:
    return {"policy": _MUTATING.format(label=label, condition=condition),
            "object": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: o, namespace: default}\n"}


def _seen(body: dict[str, Any]) -> str | None:
    result = evaluate_module.evaluate(body)
    assert not [p for p in result["problems"] if p["severity"] == "error"], result["problems"]
    return result["object"]["metadata"].get("labels", {}).get("seen")


def _mutating_values_kept() -> int:
    return sum(kept.activation is not None for kept in keeping.here("values").values())


def test_a_mutating_policy_s_values_are_kept_from_the_second_evaluation_of_the_same_documents(monkeypatch):
    monkeypatch.setattr(keeping, "_KEPT_SECONDS", 1.0)
    fast.clear()
    body = _mutating_body("object.metadata.name + '/' + request.operation",
                          condition="object.metadata.name != ''")
    kept = []
    for _ in range(4):
        assert _seen(body) == "o/CREATE"
        kept.append(_mutating_values_kept())
    assert kept == [0, 2, 2, 2]  # the matchConditions' values and the mutation's
    edited = []  # another object: its values are made afresh
    for name in ("p", "q", "q"):
        other = {**body, "object": f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {name}, namespace: default}}\n"}
        assert _seen(other) == f"{name}/CREATE"
        edited.append(_mutating_values_kept())
    assert edited == [0, 0, 2]


def test_a_mutating_policy_sees_a_request_differing_only_in_a_number_s_type():
    fast.clear()
    seconds = "request.options.gracePeriodSeconds"
    body = _mutating_body(f"type({seconds}) == int ? 'int' : type({seconds}) == double ? 'double' : 'bool'")
    given = ["1", "1", "1.5", "1.5", "true", "1"]
    assert [_seen({**body, "request": f"options: {{gracePeriodSeconds: {g}}}"}) for g in given] == [
        "int", "int", "double", "double", "bool", "int"]


def test_a_mutating_policy_sees_the_namespace_of_each_request():
    fast.clear()
    body = _mutating_body("namespaceObject.metadata.labels.team")
    namespace = "apiVersion: v1\nkind: Namespace\nmetadata: {{name: default, labels: {{team: {}}}}}\n"
    teams = ["a", "a", "b", "b", "a"]
    assert [_seen({**body, "namespace": namespace.format(t)}) for t in teams] == teams


def test_a_mutating_policy_is_given_only_the_inputs_its_expressions_name(monkeypatch):
    from app.vap.mutating import policy as mutating_policy

    given = []
    run = mutating_policy._run

    def recording(compiled, data, scope, tracker):
        given.append(sorted((data.data if isinstance(data, cel.Activation) else data).keys()))
        return run(compiled, data, scope, tracker)

    monkeypatch.setattr(mutating_policy, "_run", recording)
    fast.clear()
    assert _seen(_mutating_body("oldObject == null ? 'new' : 'old'", condition="request.operation == 'CREATE'")) \
        == "new"
    assert given == [["oldObject", "request"]] * 2  # the matchCondition's and the mutation's


def test_a_mutating_policy_s_values_over_the_size_bound_are_not_kept_nor_measured_again(monkeypatch):
    fast.clear()
    measured = []
    small = keeping._small
    monkeypatch.setattr(keeping, "_small", lambda value, room: measured.append(room) or small(value, room))
    data = "\n".join(f"  k{i}: v{i}" for i in range(3000))
    body = {**_mutating_body("string(size(object.data))"),
            "object": f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: o, namespace: default}}\ndata:\n{data}\n"}
    assert [_seen(body) for _ in range(4)] == ["3000"] * 4
    # measured once, on the second evaluation: the matchConditions' values and the mutation's
    assert _mutating_values_kept() == 0 and measured.count(keeping._KEPT_SIZE) == 2


def test_a_text_whose_program_the_compile_checks_would_read_is_never_passed_over():
    # The extra compile-time checks skip a text holding no literal bracket, no hidden selection and no checked
    # call without reading its program; that test must hold for every text whose program they would read.
    from app.vap.cel.library import astproto, checks
    from tests.cel_cases import load_cases

    texts = [case["expr"] for case in load_cases() if isinstance(case.get("expr"), str)]
    texts += ["[1, 2].all(x, x > 0)", "{'a': 1}.size() == 1", "object.x.transformMap(k, v, v + 1)",
              "object.spec.matches('^a')", "duration('1s') > duration(object.t)", "object . __x__ == 1",
              "object.spec.containers.map(c, c.name).indexOf('a') >= 0", "'abc'.find('b') == 'b'"]
    decls = cel.Declarations(version=library.DEFAULT_VERSION, params=True)
    read = 0
    for text in texts:
        compiled = cel.compile_expression(text, cel.VARIABLE, decls)
        if compiled.checked_program is None:
            continue
        shape = astproto.shape(compiled.checked_program)
        if shape is None or shape.literals or shape.hidden_selects or not shape.functions.isdisjoint(
                checks._CHECKED_CALLS):
            read += 1
            assert checks._MAY_HOLD_ISSUES.search(text), text
    assert read > 100


def _pasted_objects() -> list[tuple[str, Any]]:
    found = []
    bodies = list(CORPUS)
    for path in sorted((Path(__file__).parent / "admission_scenarios").glob("*.yaml")):
        bodies += [(f"{path.stem}:{s['name']}", s["input"]) for s in yaml.safe_load(path.read_text(encoding="utf-8"))
                   if isinstance(s, dict) and isinstance(s.get("input"), dict)]
    for name, body in bodies:
        for pane in ("object", "oldObject", "params"):
            text = body.get(pane)
            if isinstance(text, str):
                try:
                    docs = list(yaml.safe_load_all(text))
                except yaml.YAMLError:
                    continue
                found += [(f"{name}:{pane}", doc) for doc in docs if isinstance(doc, dict)]
    return found


def _assert_same_both_ways(named: list[tuple[str, Any]], answer: Any) -> None:
    """Each (name, item)'s answer with the fast paths on (everything cleared first) is its answer with them off."""
    fast.clear()
    quick = [answer(item) for _, item in named]
    with fast.plain():
        plain = [answer(item) for _, item in named]
    for (name, _), a, b in zip(named, quick, plain, strict=True):
        assert a == b, name


def test_every_pasted_object_decodes_the_same_with_and_without_the_fast_paths():
    # decoding passes over the parts of a schema where no defaulting function, zero value or quantity can be met,
    # and writes each quantity once: the object, its changes and its errors are the same as with every node walked
    from app.vap import decoding
    from app.vap.schemas import schema_set

    objects = _pasted_objects()
    assert len(objects) > 300
    for version in ("1.30", "1.36"):
        schemas = schema_set(version)
        key = tuple(int(part) for part in version.split("."))

        def decoded(obj: Any) -> Any:
            d = decoding._decode(copy.deepcopy(obj), schemas, key)  # noqa: B023
            return d.value, d.unknown, d.error, [c.to_json() for c in d.changes]

        _assert_same_both_ways(objects, decoded)


def test_a_number_of_another_type_is_a_difference_inside_equal_values():
    from app.vap.changes import differences

    assert differences({"a": {"b": [1, True]}}, {"a": {"b": [1.0, 1]}}) == [
        ("replace", ("a", "b", 0), 1, 1.0), ("replace", ("a", "b", 1), True, 1)]


def test_a_long_text_is_read_each_time_and_never_kept():
    # Readings kept by text (a quantity's, a property name's escape) keep short texts only: a scenario's long strings
    # (up to 256 KB each) would otherwise stay in memory after it.
    from app.vap.defaulting import core_v1, typed
    from app.vap.schemas import decltypes

    fast.clear()
    long = "1" + "0" * 200
    assert core_v1._quantity(long) is not None and core_v1._quantity("250m") is not None
    assert core_v1._kept_parse.cache_info().currsize == 1
    kept_names = decltypes._escaped.cache_info().currsize
    assert decltypes.escape("a-" * 100) == "a__dash__" * 100
    assert decltypes._escaped.cache_info().currsize == kept_names
    pod = {"apiVersion": "v1", "kind": "Pod", "spec": {"containers": [
        {"name": "c", "resources": {"limits": {"cpu": "x" + long, "memory": "1024Mi"}}}]}}
    from app.vap.schemas import schema_set

    schemas = schema_set("1.36")
    out, _ = typed.canonical_quantities(pod, schemas.kind("", "v1", "Pod").root, schemas)
    assert out["spec"]["containers"][0]["resources"]["limits"] == {"cpu": "x" + long, "memory": "1Gi"}
    assert core_v1._kept_parse.cache_info().currsize == 2  # ("250m" above, and the memory's text only)


# --------------------------------------------------------------------------------------------
# the field manager: a create's managedFields made in one walk


_WIDGETS_CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {"group": "example.com", "names": {"kind": "Widget", "plural": "widgets"}, "scope": "Namespaced",
             "versions": [{"name": "v1", "served": True, "storage": True, "subresources": {"status": {}},
                           "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                               "spec": {"type": "object", "properties": {
                                   "size": {"type": "integer"},
                                   "ports": {"type": "array", "x-kubernetes-list-type": "map",
                                             "x-kubernetes-list-map-keys": ["port", "protocol"],
                                             "items": {"type": "object", "properties": {
                                                 "port": {"type": "integer"}, "protocol": {"type": "string"},
                                                 "name": {"type": "string"}}}},
                                   "tags": {"type": "array", "x-kubernetes-list-type": "set",
                                            "items": {"type": "string"}},
                                   "weights": {"type": "array", "x-kubernetes-list-type": "set",
                                               "items": {"type": "number"}},
                                   "selector": {"type": "object", "x-kubernetes-map-type": "atomic",
                                                "additionalProperties": {"type": "string"}},
                                   "settings": {"type": "object", "additionalProperties": {"type": "string"}},
                                   "rules": {"type": "array", "x-kubernetes-list-type": "atomic",
                                             "items": {"type": "object"}},
                                   "owners": {"type": "array", "x-kubernetes-list-type": "map",
                                              "x-kubernetes-list-map-keys": ["name"],
                                              "items": {"type": "object",
                                                        "x-kubernetes-preserve-unknown-fields": True}},
                                   "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}},
                               "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}}}]},
}

_CONTAINER = {"name": "app", "image": "nginx:1.25", "ports": [{"containerPort": 80, "protocol": "TCP"},
                                                             {"containerPort": 443, "name": "https"}],
              "env": [{"name": "MODE", "value": "é\"x\\y\u2028"}, {"name": "EMPTY"}],
              "resources": {"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {}}, "args": ["a", "b"]}

_FIELD_MANAGER_OBJECTS: list[dict[str, Any]] = [
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default", "labels": {"app": "p"},
                                                    "finalizers": ["a/b", "c", "a/b"],
                                                    "ownerReferences": [{"apiVersion": "v1", "kind": "Node",
                                                                         "name": "n", "uid": "u-1"}]},
     "spec": {"containers": [_CONTAINER, {**_CONTAINER, "image": "other"}, {"name": "side", "image": "s"}],
              "initContainers": [{"name": "init", "image": "i", "restartPolicy": "Always"}],
              "volumes": [{"name": "v", "emptyDir": {}}, {"name": "v", "configMap": {"name": "c"}}],
              "tolerations": [{"key": "k", "operator": "Exists"}], "nodeSelector": {"disk": "ssd"},
              "hostAliases": [{"ip": "10.0.0.1", "hostnames": ["a"]}]},
     "status": {"phase": "Running"}},
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "labels": None, "annotations": {}},
     "spec": {"containers": None, "volumes": [], "nodeSelector": None}},
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": None},
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [
        {"name": "c", "image": "x", "ports": [{"containerPort": 80}, {"containerPort": 80, "protocol": "TCP"},
                                              {"containerPort": 80, "protocol": "UDP"}]},
        {"name": "c", "image": "y"}, "not-a-container", None]}},
    {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d", "namespace": "default"},
     "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "d"}}, "strategy": None,
              "template": {"metadata": {"labels": {"app": "d"}, "creationTimestamp": None},
                           "spec": {"containers": [_CONTAINER]}}},
     "status": {"replicas": 2}},
    {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
     "spec": {"selector": {"matchLabels": {"app": "d"}}, "template": {}}},
    {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"},
     "spec": {"selector": {"app": "s"}, "ports": [{"port": 80, "targetPort": 8080}, {"port": 80, "protocol": "UDP"},
                                                  {"port": 443, "targetPort": "https", "name": "https"}],
              "type": "NodePort", "ipFamilies": ["IPv4"]}},
    {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "cj"},
     "spec": {"schedule": "*/5 * * * *", "jobTemplate": {"spec": {"template": {"spec": {
         "restartPolicy": "OnFailure", "containers": [{"name": "job", "image": "busybox", "command": ["date"]}]}}}}}},
    {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"a": "1", "b": ""},
     "binaryData": None, "immutable": False},
    {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}},
    {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}, "spec": {"podCIDRs": ["10.0.0.0/24",
                                                                                      "10.0.0.0/24"]}},
    {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": "r"},
     "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]},
    {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "r"}, "rules": None},
    {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w", "namespace": "default",
                                                                   "labels": {"a": "b"}},
     "spec": {"size": 3, "ports": [{"port": 80, "protocol": "TCP"}, {"port": 80}, {"port": 80, "protocol": "TCP",
                                                                                  "name": "again"}],
              "tags": ["b", "a", "b", "ü"], "weights": [1, 1.0, 2.5, True], "selector": {"x": "y"},
              "settings": {"k": "v", "e": None}, "rules": [{"a": 1}],
              "owners": [{"name": "x", "extra": {"deep": [1, {"k": None}]}}, {"name": None}, {"other": 1}],
              "free": {"a": {"b": {"c": []}}, "n": None}},
     "status": {"ready": True}},
    {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}},
    {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {}, "status": None},
    {"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g"}, "spec": {"a": [1, 2]}},
]

_GIVEN_MANAGED_FIELDS = [
    [{"manager": "someone", "operation": "Update", "apiVersion": "v1", "time": "2025-01-01T00:00:00Z",
      "fieldsType": "FieldsV1", "fieldsV1": {"f:metadata": {"f:labels": {".": {}, "f:x": {}}}}}],
    [], "not a list", [1, "x"],
]


def _field_manager_bodies() -> list[tuple[str, dict[str, Any]]]:
    """Request bodies reaching the field manager: every scenario and pasted object of the corpora, and creates and
    updates of the objects above (with a CRD, their own managedFields, the status subresource, a named manager)."""
    bodies = list(CORPUS)
    for path in sorted((Path(__file__).parent / "admission_scenarios").glob("*.yaml")):
        bodies += [(f"{path.stem}:{s['name']}", s["input"]) for s in yaml.safe_load(path.read_text(encoding="utf-8"))
                   if isinstance(s, dict) and isinstance(s.get("input"), dict)]
    bodies += [(f"alone:{name}", {"object": yaml.safe_dump(obj)}) for name, obj in _pasted_objects()]
    crd = yaml.safe_dump(_WIDGETS_CRD)
    for index, obj in enumerate(_FIELD_MANAGER_OBJECTS):
        text = yaml.safe_dump(obj)
        plural = obj["kind"].lower() + "s"
        group, _, version = obj["apiVersion"].rpartition("/")
        resource = {"group": group, "version": version, "resource": plural}
        old = copy.deepcopy(obj)
        old.setdefault("metadata", {})["labels"] = {"before": "x"}
        if isinstance(old.get("spec"), dict):
            old["spec"] = {k: v for k, v in list(old["spec"].items())[1:]}
        olds = [old, {**old, "metadata": {**old["metadata"], "managedFields": _GIVEN_MANAGED_FIELDS[0]}}]
        for version_text in ("1.30", "1.36"):
            base = {"policy": crd, "kubernetesVersion": version_text}
            bodies.append((f"create:{index}:{version_text}", {**base, "object": text}))
            bodies.append((f"create-named:{index}:{version_text}", {**base, "object": text, "request": yaml.safe_dump(
                {"options": {"kind": "CreateOptions", "apiVersion": "meta.k8s.io/v1", "fieldManager": "me"}})}))
            bodies.append((f"create-status:{index}:{version_text}", {**base, "object": text, "request": yaml.safe_dump(
                {"subResource": "status", "resource": resource})}))
            for given, managed in enumerate(_GIVEN_MANAGED_FIELDS):
                with_given = {**obj, "metadata": {**obj["metadata"], "managedFields": managed}}
                bodies.append((f"create-given:{index}:{given}:{version_text}",
                               {**base, "object": yaml.safe_dump(with_given)}))
            for which, before in enumerate(olds):
                bodies.append((f"update:{index}:{which}:{version_text}",
                               {**base, "object": text, "oldObject": yaml.safe_dump(before)}))
                bodies.append((f"update-status:{index}:{which}:{version_text}",
                               {**base, "object": text, "oldObject": yaml.safe_dump(before),
                                "request": yaml.safe_dump({"subResource": "status", "resource": resource})}))
    return bodies


def _stage_answer(args: tuple[Any, ...]) -> Any:
    from app.vap.admission import managed_fields

    try:
        record = managed_fields._admit(*args)
    except Exception as exc:  # the same failure either way
        return ("raised", type(exc).__name__, str(exc))
    attrs = record.attrs
    # repr: the order of every mapping counts too
    return (repr(record.outcome), repr(record.explanation), repr(attrs.object if attrs else None),
            repr(attrs.old_object if attrs else None), repr([c.to_json() for c in record.changes]), record.changes)


def test_the_field_manager_answers_the_same_with_and_without_the_fast_paths(monkeypatch):
    from app.vap.admission import managed_fields

    calls: list[tuple[str, tuple[Any, ...]]] = []
    original = managed_fields._admit
    name = ""

    def recording(*args: Any) -> Any:
        calls.append((name, args))
        return original(*args)

    monkeypatch.setattr(managed_fields, "_admit", recording)
    fast.clear()
    for name, body in _field_manager_bodies():  # noqa: B007 (read by recording)
        evaluate_module.evaluate(copy.deepcopy(body))
    monkeypatch.setattr(managed_fields, "_admit", original)
    creates = [args for _, args in calls if args[0].attrs.operation == "CREATE"]
    assert len(calls) > 1000 and len(creates) > 700
    assert any(args[0].attrs.subresource == "status" for args in creates)
    assert any(args[1].schemas.kind("example.com", "v1", "Widget") is not None for args in creates)
    _assert_same_both_ways(calls, _stage_answer)


def test_a_create_s_fields_are_made_in_one_walk_only_while_the_fast_paths_are_on(monkeypatch):
    from app.vap.registry import fieldsets

    made = []
    original = fieldsets.created_fields
    monkeypatch.setattr(fieldsets, "created_fields", lambda *args, **kw: made.append(1) or original(*args, **kw))
    body = {"object": yaml.safe_dump(_FIELD_MANAGER_OBJECTS[0])}
    first = evaluate_module.evaluate(copy.deepcopy(body))
    assert made
    made.clear()
    with fast.plain():
        assert evaluate_module.evaluate(copy.deepcopy(body)) == first
    assert not made


def _fields_both_ways(zero: Any, new: Any, root: Any, schemas: Any, reset: tuple[str, ...], keep: bool) -> Any:
    from app.vap.registry import fieldsets

    def answer(make: Any) -> Any:
        try:
            return ("made", repr(make()))
        except Exception as exc:
            return ("raised", type(exc).__name__, str(exc))

    def plain() -> Any:
        added, modified, removed = fieldsets.compare(zero, new, root, schemas)
        managers = fieldsets.update({}, ("m", "Update", "v1", ""), added, modified, removed,
                                    [(element,) for element in reset], "t")
        return fieldsets.encode(managers)[0]["fieldsV1"] if managers else None

    def walked() -> Any:
        return fieldsets.created_fields(zero, new, root, schemas, set(reset), keep=keep)

    return answer(walked), answer(plain)


def test_a_create_s_fields_made_in_one_walk_are_those_of_the_path_sets():
    # values no pane reads as they are here (keys that are not strings, timestamps, tuples, other mappings) and
    # schemas of every shape: the tree, or the failure, is the same
    import datetime
    from collections import OrderedDict
    from types import MappingProxyType

    from app.vap.registry import fieldsets
    from app.vap.schemas import schema_set

    schemas = schema_set("1.36", [_WIDGETS_CRD])
    odd_values = [None, True, 1, 1.5, float("nan"), "x", "\ud800", [], {}, [1, "a"], {"a": 1}, (1, 2),
                  datetime.date(2024, 1, 2), datetime.datetime(2024, 1, 2, 3, 4, 5), OrderedDict(a=1),
                  OrderedDict(), MappingProxyType({"a": 1}), {1: "one"}, {None: 1}, {"a": {2: "b"}},
                  [{"ü": "é", "a\"b": 1}, {"ü": "y", "n": True}, {"ü": "y", "n": -0.0}, {"n": 2**70}]]
    pods = [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "labels": value}, "spec": {"containers": [
        {"name": value, "image": value, "ports": [{"containerPort": value, "protocol": value}]}],
        "nodeSelector": value, "tolerations": value, "volumes": value}, "status": value} for value in odd_values]
    pods += [{"apiVersion": "v1", "kind": "Pod", "metadata": value} for value in odd_values]
    pods += [{"apiVersion": "v1", "kind": "Pod", "spec": value} for value in odd_values]
    pods += [{"apiVersion": value, "kind": value, "metadata": {"name": value, "uid": value, "generateName": value},
              "spec": {}} for value in odd_values]
    widgets = [{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {
        "ports": [{"port": value, "protocol": value}, {"port": 1}], "tags": [value, value, "a"], "weights": value,
        "selector": value, "settings": {"k": value}, "owners": [{"name": value}, value], "free": value,
        value if isinstance(value, str) else "odd": value}} for value in odd_values]
    odd_schemas = [{}, {"type": "object"}, {"x-kubernetes-map-type": "atomic"}, {"type": "array"},
                   {"properties": {"spec": {"allOf": [{"$ref": "io.k8s.api.core.v1.PodSpec"}]}}},
                   {"properties": {"spec": {"allOf": 3}}}, {"properties": {"spec": {"allOf": {"a": 1}}}},
                   {"properties": {"spec": {"type": "array", "x-kubernetes-list-type": "map",
                                            "x-kubernetes-list-map-keys": "name", "items": {"allOf": 3}}}},
                   {"properties": {"spec": {"type": "array", "x-kubernetes-list-type": "set", "items": {"allOf": 3}}}},
                   {"properties": 3, "additionalProperties": {"$ref": "nowhere"}},
                   {"properties": {"spec": {"type": "array", "x-kubernetes-list-type": ["map"],
                                            "x-kubernetes-list-map-keys": ["a", "a", 1]}}},
                   {"properties": {"spec": {"type": "array", "x-kubernetes-list-type": "map",
                                            "x-kubernetes-list-map-keys": ["n", "ü", "a\"b", "n"]}}}]
    compared = 0
    for obj in pods + widgets:
        widget = obj["kind"] == "Widget"
        schema = schemas.kind("example.com" if widget else "", "v1", "Widget" if widget else "Pod")
        zero = fieldsets.zero_object(schema, schemas)
        new = fieldsets.with_zero(obj, zero)
        for reset in ((), ("f:status",), ("f:spec",)):
            quick, walk = _fields_both_ways(zero, new, schema.root, schemas, reset, not schema.custom)
            assert quick == walk, (obj, reset)
            compared += 1
        for root in odd_schemas:
            for value in odd_values:
                changed = {**obj, "spec": value}
                quick, walk = _fields_both_ways({}, changed, root, schemas, ("f:status",), False)
                assert quick == walk, (changed, root)
                quick, walk = _fields_both_ways({}, changed, root, None, (), False)
                assert quick == walk, (changed, root)
                compared += 2
    assert compared > 5000


# --------------------------------------------------------------------------------------------
# Checking an object against its kind's schema


class _ReferenceCheck(schema_validate._Walker):
    """The walk of :func:`check_object` as written before it planned each schema node once: each node followed to
    its definition and read at every value met there. Its findings are what the plans must find."""

    def walk_node(self, value: Any, node: Any, path: tuple) -> None:
        if value is None:
            return
        ref = node.get("$ref") if isinstance(node, Mapping) else None
        node = self.schemas.resolve(node)
        if not node:
            return
        if node.get("x-kubernetes-int-or-string"):
            if not isinstance(value, str) and (isinstance(value, bool) or not isinstance(value, int)):
                self.type_error(value, path, "integer or string")
            return
        kind = node.get("type")
        if kind is None:
            one_of = node.get("oneOf")
            if ref == schema_validate._QUANTITY_DEF or (isinstance(one_of, list) and {"type": "number"} in one_of):
                self.quantity_text(value, path)
            return
        if kind == "object":
            self.object_node(value, node, path)
        elif kind == "array":
            if not isinstance(value, list):
                self.type_error(value, path, "array")
                return
            items = node.get("items")
            if isinstance(items, Mapping):
                for i, item in enumerate(value):
                    self.walk_node(item, items, (*path, i))
        else:
            self.scalar_node(value, node, kind, path)

    def object_node(self, value: Any, node: Any, path: tuple) -> None:
        if not isinstance(value, Mapping):
            self.type_error(value, path, "object")
            return
        properties = node.get("properties")
        if not isinstance(properties, Mapping):
            properties = {}
        extra = node.get("additionalProperties")
        preserve = bool(node.get("x-kubernetes-preserve-unknown-fields"))
        if not properties and extra is None:
            return
        for key, child in value.items():
            if key in properties:
                self.walk_node(child, properties[key], (*path, key))
            elif isinstance(extra, Mapping):
                self.walk_node(child, extra, (*path, key))
            elif extra is True or preserve:
                continue
            else:
                where = schema_validate.render_path((*path, key))
                self.findings.append(schema_validate.Finding((*path, key), f'unknown field "{where}"'))

    def scalar_node(self, value: Any, node: Any, kind: Any, path: tuple) -> None:
        if kind == "string":
            if not isinstance(value, str):
                self.type_error(value, path, "string")
            elif node.get("format") == "byte":
                try:
                    base64.b64decode(value, validate=True)
                except (binascii.Error, ValueError):
                    self.decode_error(path, f"illegal base64 data at input byte "
                                            f"{schema_validate._base64_error_at(value)}")
            elif node.get("format") == "date-time" and not schema_validate._RFC3339.match(value):
                self.decode_error(path, f'parsing time "{value}" as "2006-01-02T15:04:05Z07:00": '
                                        "not an RFC 3339 time")
        elif kind == "boolean":
            if not isinstance(value, bool):
                self.type_error(value, path, "boolean")
        elif kind == "integer":
            if isinstance(value, bool) or not isinstance(value, int | float):
                self.type_error(value, path, "integer")
            elif isinstance(value, float) and not value.is_integer():
                self.type_error(value, path, "integer", literal=True)
            else:
                low, high = (-(2**31), 2**31 - 1) if node.get("format") == "int32" else (-(2**63), 2**63 - 1)
                if not low <= int(value) <= high:
                    self.type_error(value, path, "integer", literal=True)
        elif kind == "number":
            if isinstance(value, bool) or not isinstance(value, int | float):
                self.type_error(value, path, "number")

    def quantity_text(self, value: Any, path: tuple) -> None:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return
        text = value.strip() if isinstance(value, str) else str(value).lower()
        try:
            parse_quantity(text)
        except LibraryError as exc:
            self.decode_error(path, exc.text)


def _reference_findings(obj: Any, schemas: Any) -> list[Any]:
    if not isinstance(obj, Mapping):
        return []
    api_version, kind = str(obj.get("apiVersion") or ""), str(obj.get("kind") or "")
    if not api_version or not kind or api_version.count("/") > 1:
        return []
    group, _, version = api_version.rpartition("/")
    schema = schemas.kind(group, version, kind)
    if schema is None:
        return []
    walker = _ReferenceCheck(schemas, schema)
    walker.walk_node(obj, schema.root, ())
    return walker.findings


def _findings_three_ways(checks: list[tuple[str, Any, Any]]) -> int:
    """Check each (name, object, schemas) with the plans kept (twice: made, then found), with the fast paths off,
    and as the reference does; the same findings (paths, messages, order) each way. The number of findings."""
    fast.clear()
    made = [schema_validate.check_object(obj, schemas) for _, obj, schemas in checks]
    kept = [schema_validate.check_object(obj, schemas) for _, obj, schemas in checks]
    with fast.plain():
        plain = [schema_validate.check_object(obj, schemas) for _, obj, schemas in checks]
    found = 0
    for (name, obj, schemas), a, b, c in zip(checks, made, kept, plain, strict=True):
        reference = _reference_findings(obj, schemas)
        assert a == reference and b == reference and c == reference, (name, obj)
        found += len(reference)
    return found


def test_every_pasted_and_mutated_object_is_checked_against_its_schema_as_the_reference_does(monkeypatch):
    # every object checked in evaluations of the corpora: pasted policies, bindings, params, namespaces, objects and
    # CRDs, and objects as mutations left them, with the schema sets (versions, pasted CRDs) they were checked with
    from app.vap import decoding

    bodies = list(CORPUS)
    for path in sorted((Path(__file__).parent / "admission_scenarios").glob("*.yaml")):
        bodies += [(f"{path.stem}:{s['name']}", s["input"]) for s in yaml.safe_load(path.read_text(encoding="utf-8"))
                   if isinstance(s, dict) and isinstance(s.get("input"), dict)]
    checks: list[tuple[str, Any, Any]] = []
    original = decoding.check_object
    name = ""

    def recording(obj: Any, schemas: Any) -> Any:
        checks.append((name, obj, schemas))
        return original(obj, schemas)

    monkeypatch.setattr(decoding, "check_object", recording)
    fast.clear()
    for name, body in bodies:  # noqa: B007 (read by recording)
        evaluate_module.evaluate(copy.deepcopy(body))
    monkeypatch.setattr(decoding, "check_object", original)
    assert len(checks) > 1500
    assert len({schemas.key for _, _, schemas in checks}) > 10  # versions, and sets with pasted CRDs
    assert any(schemas.kind(*_group_version(obj), obj.get("kind")) is not None
               and schemas.kind(*_group_version(obj), obj.get("kind")).custom for _, obj, schemas in checks)
    assert _findings_three_ways(checks) > 20


def _group_version(obj: Any) -> tuple[str, str]:
    group, _, version = str(obj.get("apiVersion") or "").rpartition("/")
    return group, version


_GIZMOS_CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "gizmos.example.com"},
    "spec": {"group": "example.com", "names": {"kind": "Gizmo", "plural": "gizmos"}, "scope": "Namespaced",
             "versions": [{"name": "v1", "served": True, "storage": True,
                           "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                               "spec": {"type": "object", "properties": {
                                   "port": {"x-kubernetes-int-or-string": True},
                                   "count": {"type": "integer", "format": "int32"},
                                   "big": {"type": "integer", "format": "int64"},
                                   "ratio": {"type": "number"},
                                   "on": {"type": "boolean"},
                                   "blob": {"type": "string", "format": "byte"},
                                   "at": {"type": "string", "format": "date-time"},
                                   "anything": {},
                                   "matrix": {"type": "array",
                                              "items": {"type": "array", "items": {"type": "integer"}}},
                                   "open": {"type": "object", "x-kubernetes-preserve-unknown-fields": True,
                                            "properties": {"n": {"type": "integer"}, "deep": {
                                                "type": "object", "properties": {"s": {"type": "string"}}}}},
                                   "closed": {"type": "object", "additionalProperties": False,
                                              "properties": {"a": {"type": "string"}}},
                                   "loose": {"type": "object", "additionalProperties": True},
                                   "byName": {"type": "object", "additionalProperties": {
                                       "type": "object", "properties": {"v": {"type": "integer"}}}},
                                   "template": {"$ref": "io.k8s.api.core.v1.PodTemplateSpec"},
                                   "amount": {"$ref": "io.k8s.apimachinery.pkg.api.resource.Quantity"},
                                   "nowhere": {"$ref": "io.example.Nowhere", "type": "string"},
                                   "twice": {"type": ["string", "null"]},
                                   "either": {"oneOf": [{"type": "number"}, {"type": "string"}]},
                                   "notAMapping": 3,
                                   "items": {"type": "array", "items": 3}}},
                               "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}}}]},
}

_SCHEMA_CHECK_OBJECTS: list[dict[str, Any]] = [
    *_FIELD_MANAGER_OBJECTS,
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "creationTimestamp": "2024-01-02T03:04:05Z",
                                                    "deletionGracePeriodSeconds": 30},
     "spec": {"terminationGracePeriodSeconds": 30, "activeDeadlineSeconds": 5, "hostNetwork": False,
              "securityContext": {"runAsUser": 1000, "runAsNonRoot": True, "sysctls": [{"name": "a", "value": "1"}]},
              "containers": [{"name": "c", "image": "i", "command": ["sh", "-c"],
                              "resources": {"limits": {"cpu": "500m", "memory": "128Mi"}, "requests": {"cpu": 0.5}},
                              "readinessProbe": {"httpGet": {"port": "http", "path": "/"}, "periodSeconds": 10},
                              "livenessProbe": {"tcpSocket": {"port": 8080}},
                              "securityContext": {"privileged": False, "capabilities": {"drop": ["ALL"]}}}],
              "overhead": {"cpu": "250m"}}},
    {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "data": {"a": "aGVsbG8=", "b": ""},
     "stringData": {"c": "x"}, "type": "Opaque", "immutable": True},
    {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "c"},
     "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}},
    {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
     "spec": {"backoffLimit": 3, "activeDeadlineSeconds": 60, "template": {"spec": {
         "containers": [{"name": "c", "image": "i"}], "restartPolicy": "Never"}}},
     "status": {"startTime": "2024-01-02T03:04:05Z", "succeeded": 1}},
    {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
     "metadata": {"name": "v"}, "spec": {"failurePolicy": "Fail", "matchConstraints": {"resourceRules": [
         {"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["pods"]}]},
         "validations": [{"expression": "true", "message": "m"}], "paramKind": {"apiVersion": "v1", "kind": "X"}}},
    _GIZMOS_CRD,
    {"apiVersion": "example.com/v1", "kind": "Gizmo", "metadata": {"name": "g", "labels": {"a": "b"}},
     "spec": {"port": 8080, "count": 3, "big": 2**40, "ratio": 0.5, "on": True, "blob": "aGVsbG8=",
              "at": "2024-01-02T03:04:05+01:00", "anything": {"x": [1]}, "matrix": [[1, 2], [3]],
              "open": {"n": 1, "deep": {"s": "x", "more": 1}, "other": {"a": 1}}, "closed": {"a": "x"},
              "loose": {"q": 1}, "byName": {"one": {"v": 1}}, "template": {"metadata": {"labels": {"a": "b"}},
                                                                           "spec": {"containers": [{"name": "c"}]}},
              "amount": "1Gi", "nowhere": "x", "twice": "x", "either": 1, "notAMapping": 1, "items": [1]},
     "status": {"anything": [1, {"a": None}]}},
]

_ODD_VALUES: list[Any] = [
    "x", "", 0, 1, -1, 2.0, 1.5, 1e40, -1e40, 2**31 - 1, 2**31, -(2**31) - 1, 2**63, -(2**63) - 1,
    True, False, None, float("nan"), float("inf"), [], [1, "a", None], [{"zz": 1}], {}, {"zz": {"deeper": [1]}},
    {"name": 1, "image": ["x"]}, "!!bad base64", "aGVsbG8", "aGVsbG8=", "aGVs bG8=", "2024-01-02T03:04:05Z",
    "2024-13-01", "2024-01-02 03:04:05", "1Gi", " 2Gi ", "1.5.5", "1e3", "0x10", "-1m", "+1", ".5", "1E",
    "9" * 30, "1.123456789012345678901", "12Ki", "3Mi", "nope", ("a",), MappingProxyType({"name": "x"}),
    datetime.datetime(2024, 1, 2, 3, 4, 5), datetime.date(2024, 1, 2),
]


def _object_paths(value: Any, path: tuple = ()) -> list[tuple]:
    found = []
    members = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in members:
        found.append((*path, key))
        found += _object_paths(child, (*path, key))
    return found


def _replaced(value: Any, path: tuple, new: Any) -> Any:
    """A copy of ``value`` with ``new`` at ``path`` (only the containers on the way copied)."""
    if not path:
        return new
    out = dict(value) if isinstance(value, dict) else list(value)
    out[path[0]] = _replaced(value[path[0]], path[1:], new)
    return out


def test_objects_with_odd_values_anywhere_are_checked_against_their_schemas_as_the_reference_does():
    # every field of objects of many kinds (and of custom resources with pasted CRDs: int-or-string,
    # preserve-unknown-fields, formats, references to built-in definitions) given values of every type, strings
    # that are no base64, no RFC 3339 time or no quantity, numbers out of range or not whole, nulls, other
    # mappings and sequences; and unknown fields at every depth
    from app.vap.schemas import schema_set

    checks: list[tuple[str, Any, Any]] = []
    for half, version in enumerate(("1.30", "1.36")):
        schemas = schema_set(version, [_WIDGETS_CRD, _GIZMOS_CRD])
        for index, obj in enumerate(_SCHEMA_CHECK_OBJECTS):
            checks.append((f"{version}:{index}", obj, schemas))
            for number, path in enumerate(_object_paths(obj)):
                for odd in _ODD_VALUES[(number + half) % 2::2]:  # (each field given each value in one version)
                    checks.append((f"{version}:{index}:{path}={odd!r}", _replaced(obj, path, odd), schemas))
            for path in [(), *_object_paths(obj)]:
                at = obj
                for part in path:
                    at = at[part]
                if isinstance(at, dict):
                    for key, value in (("zz", 1), ("zz", None), ("zz", {"a": [1]}), (7, "x")):
                        checks.append((f"{version}:{index}:{path}+{key}", _replaced(obj, path, {**at, key: value}),
                                       schemas))
    assert len(checks) > 30_000
    assert _findings_three_ways(checks) > 20_000


def test_the_quantities_the_check_passes_without_parsing_are_those_parse_quantity_takes():
    digits = ["0", "00", "1", "09", "5" * 18, "123456789012345678"]
    fractions = ["", ".0", ".5", "." + "9" * 18]
    suffixes = ["", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"]
    for whole in digits:
        for fraction in fractions:
            for suffix in suffixes:
                text = whole + fraction + suffix
                assert schema_validate._PLAIN_QUANTITY.match(text), text
                parse_quantity(text)  # takes it without fail
    for text in ["", "1" * 19, "1." + "1" * 19, "1.", ".5", "1K", "1Ki ", "+1", "-1", "1e3", "1mi", "1\n",
                 "١"]:
        assert not schema_validate._PLAIN_QUANTITY.match(text), text


def test_plans_are_kept_only_for_built_in_schemas_and_only_while_the_fast_paths_are_on():
    from app.vap.schemas import schema_set

    schemas = schema_set("1.36", [_GIZMOS_CRD])
    gizmo = _SCHEMA_CHECK_OBJECTS[-1]
    pod = _FIELD_MANAGER_OBJECTS[0]
    schema_validate._PLANS.clear()
    with fast.plain():
        schema_validate.check_object(pod, schemas)
        schema_validate.check_object(gizmo, schemas)
    assert not schema_validate._PLANS
    schema_validate.check_object(gizmo, schemas)
    kept = schema_validate._PLANS["1.36"]
    crd_nodes = {id(node) for node in _nodes(schemas.kind("example.com", "v1", "Gizmo").root)}
    assert kept and not any(isinstance(key, int) and key in crd_nodes for key in kept)
    assert all(isinstance(key, int) or schemas.definition(key) is not None for key in kept)
    schema_validate.check_object(pod, schemas)
    assert len(kept) > 20


def _nodes(value: Any) -> list[Any]:
    found = [value] if isinstance(value, dict) else []
    members = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    for child in members:
        found += _nodes(child)
    return found
