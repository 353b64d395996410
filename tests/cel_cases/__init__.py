"""Shared helpers of the CEL table tests: the case files of this folder and how a case is run.

A case file is ``{defaults: {...}, cases: [...]}``; each case has ``expr`` and one of ``value``
(expected result), ``error`` (run-time error; the text must contain it) or ``compile_error`` (the
compile error detail must contain it); optional ``vars`` (activation), ``version`` and ``kind``
(variable, validation, messageExpression ...), and ``source`` (where the fact comes from). The facts
come from the Kubernetes library tests (k8s.io/apiserver/pkg/cel/library/*_test.go), the libraries' own
code and doc comments, the environment kube-apiserver builds per version (k8s.io/apiserver/pkg/cel/environment/base.go,
k8s.io/apiserver/pkg/admission/plugin/cel/compile.go) and the CEL specification's conformance data (cel-spec
tests/simple/testdata).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml
from cel_expr_python import cel as engine

from app.vap import cel as c
from app.vap.cel import library

CASES_DIR = Path(__file__).parent

KINDS = {
    "variable": c.VARIABLE,
    "validation": c.VALIDATION,
    "messageExpression": c.MESSAGE_EXPRESSION,
    "matchCondition": c.MATCH_CONDITION,
    "auditAnnotation": c.AUDIT_ANNOTATION,
}


def load_cases(pattern: str = "*.yaml") -> list[dict[str, Any]]:
    """Every case of the files matching ``pattern``, defaults applied, each with an id and its file."""
    out = []
    for path in sorted(CASES_DIR.glob(pattern)):
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        defaults = doc.get("defaults") or {}
        for i, case in enumerate(doc["cases"]):
            merged = {**defaults, **case}
            merged.setdefault("id", f"{path.stem}[{i}]")
            merged["file"] = path.name
            out.append(merged)
    return out


def decode(expected: Any) -> Any:
    if isinstance(expected, dict) and set(expected) == {"bytes"}:
        return bytes(expected["bytes"])
    if isinstance(expected, dict):
        return {k: decode(v) for k, v in expected.items()}
    if isinstance(expected, list):
        return [decode(v) for v in expected]
    return expected


def same(actual: Any, expected: Any) -> bool:
    """CEL-typed comparison of a result with an expected YAML value (bool is not int, int is not double)."""
    if expected == "NaN" and not isinstance(actual, str):
        return isinstance(actual, float) and math.isnan(actual)
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(actual) is type(expected) and actual == expected
    if isinstance(expected, float):
        return isinstance(actual, float) and (actual == expected or (math.isnan(actual) and math.isnan(expected)))
    if isinstance(expected, int):
        return isinstance(actual, int) and actual == expected
    if isinstance(expected, bytes):
        return isinstance(actual, bytes | bytearray) and bytes(actual) == expected
    if isinstance(expected, list):
        return isinstance(actual, list) and len(actual) == len(expected) and all(map(same, actual, expected))
    if isinstance(expected, dict):
        return (
            isinstance(actual, dict)
            and set(map(str, actual)) == set(expected)
            and all(same(actual[k], expected[str(k)]) for k in actual)
        )
    return actual == expected


def activation(case: dict[str, Any]) -> dict[str, Any]:
    data: dict[str, Any] = {"object": None, "oldObject": None, "request": {}, "namespaceObject": None}
    data.update(case.get("vars") or {})
    request = data.get("request") or {}
    data.update(library.authorizer_activation(request, request.get("userInfo") or {}))
    return data


def run_case(case: dict[str, Any]) -> tuple[str, Any]:
    """Return ("value", v), ("error", text) or ("compile_error", text)."""
    version = str(case.get("version", library.DEFAULT_VERSION))
    kind = KINDS[case.get("kind", "variable")]
    params = "params" in (case.get("vars") or {})
    # as the apiserver does: `authorizer` is not declared for messageExpressions
    decls = c.Declarations(version=version, params=params, authorizer=kind != c.MESSAGE_EXPRESSION)
    comp = c.compile_expression(case["expr"], kind, decls)
    if comp.error:
        return "compile_error", comp.error
    try:
        return "value", c.evaluate(comp, activation(case))
    except c.EvaluationError as exc:
        return "error", str(exc)


def check(case: dict[str, Any]) -> str | None:
    """None when the case passes, else a description of the mismatch."""
    outcome, got = run_case(case)
    if "value" in case:
        if outcome == "value" and same(got, decode(case["value"])):
            return None
        return f"expected value {case['value']!r}, got {outcome}: {got!r}"
    if "compile_error" in case:
        if outcome == "compile_error" and case["compile_error"] in got:
            return None
        return f"expected compile error containing {case['compile_error']!r}, got {outcome}: {got!r}"
    if "error" in case:
        if outcome == "error" and case["error"] in got:
            return None
        return f"expected run-time error containing {case['error']!r}, got {outcome}: {got!r}"
    return "case has no expectation"


def iter_failures(cases: list[dict[str, Any]]) -> Iterator[tuple[dict[str, Any], str]]:
    for case in cases:
        problem = check(case)
        if problem:
            yield case, problem


def bare_env(version: str, **variables: Any) -> Any:
    """The library's engine environment without the adapter (no variables rewriting, no extra checks):
    ``object`` and the authorizer declared, plus ``variables`` (name -> engine type)."""
    return engine.NewEnv(
        descriptor_pool=library.descriptor_pool(),
        config=engine.NewEnvConfigFromYaml(library.environment_yaml(version)),
        variables={"object": engine.Type.DYN, **library.authorizer_variables(version), **variables},
        functions=library.function_decls(version),
        extensions=library.extensions(version),
    )


def bare_programs(expr: str, version: str) -> tuple[Any, Any]:
    """(checked program, program to run) of ``expr`` in :func:`bare_env`."""
    env = bare_env(version)
    checked = env.compile(expr)
    return checked, library.rewrite(checked, env.deserialize)
