"""Builders of hostile scenarios, shared by the hostile-input catalogue, the isolation tests and the load test."""

from __future__ import annotations

import json
from typing import Any

ADMISSION = "admissionregistration.k8s.io/v1"
CONFIGMAP_RULES = [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["configmaps"]}]


def configmap(name: str = "o", namespace: str = "default", **fields: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": namespace}, **fields}


def policy(*, name: str = "hostile", validations: list[dict[str, Any]] | None = None,
           variables: list[dict[str, Any]] | None = None, params: bool = False, **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"matchConstraints": {"resourceRules": CONFIGMAP_RULES},
                            "validations": validations or [{"expression": "true"}], **spec}
    if variables:
        body["variables"] = variables
    if params:
        body["paramKind"] = {"apiVersion": "v1", "kind": "ConfigMap"}
    return {"apiVersion": ADMISSION, "kind": "ValidatingAdmissionPolicy", "metadata": {"name": name}, "spec": body}


def binding(*, name: str = "hostile", policy_name: str = "hostile", actions: tuple[str, ...] = ("Deny",),
            params: bool = False) -> dict[str, Any]:
    spec: dict[str, Any] = {"policyName": policy_name, "validationActions": list(actions)}
    if params:
        spec["paramRef"] = {"selector": {}, "namespace": "default", "parameterNotFoundAction": "Deny"}
    return {"apiVersion": ADMISSION, "kind": "ValidatingAdmissionPolicyBinding", "metadata": {"name": name},
            "spec": spec}


def scenario(pol: dict[str, Any], bind: dict[str, Any] | None = None, obj: dict[str, Any] | None = None,
             **panes: Any) -> dict[str, Any]:
    """An API body: the panes as YAML-compatible JSON text."""
    body = {"policy": json.dumps(pol), "binding": json.dumps(bind or binding()),
            "object": json.dumps(obj or configmap())}
    body.update(panes)
    return body


def _list(n: int) -> str:
    return "[" + ",".join(str(i) for i in range(n)) + "]"


def slow() -> dict[str, Any]:
    """Seconds of CEL on any machine (some 8 s here, above every time bound the tests and the load test
    set): 450 params (the document bound is 500), each running eight 9,900-iteration comprehensions."""
    expression = f"{_list(99)}.all(a, {_list(99)}.all(b, a + b >= 0))"
    params = {"apiVersion": "v1", "kind": "List", "items": [configmap(f"p{i}") for i in range(450)]}
    return scenario(policy(validations=[{"expression": expression}] * 8, params=True), binding(params=True),
                    params=json.dumps(params))


def string_doubling(times: int = 40) -> dict[str, Any]:
    """A 1 kB string doubled by each variable: 2^40 kB unless something stops it."""
    variables = [{"name": "v0", "expression": repr("x" * 1000)}]
    variables += [{"name": f"v{i}", "expression": f"variables.v{i - 1} + variables.v{i - 1}"} for i in range(1, times)]
    return scenario(policy(variables=variables, validations=[{"expression": f"size(variables.v{times - 1}) > 0"}]))


def list_doubling(times: int = 40) -> dict[str, Any]:
    variables = [{"name": "l0", "expression": _list(10)}]
    variables += [{"name": f"l{i}", "expression": f"variables.l{i - 1} + variables.l{i - 1}"} for i in range(1, times)]
    return scenario(policy(variables=variables, validations=[{"expression": f"size(variables.l{times - 1}) > 0"}]))


def nested_maps(depth: int = 6) -> dict[str, Any]:
    """Each variable maps every element of the previous list to that whole list: 90^depth elements."""
    variables = [{"name": "l0", "expression": _list(90)}]
    variables += [{"name": f"l{i}", "expression": f"variables.l{i - 1}.map(x, variables.l{i - 1})"}
                  for i in range(1, depth)]
    return scenario(policy(variables=variables, validations=[{"expression": f"size(variables.l{depth - 1}) > 0"}]))


def exponential_comprehension() -> dict[str, Any]:
    """Four nested comprehensions over 100 elements: 10^8 iterations unless something stops it."""
    expression = f"{_list(100)}.all(a, {_list(100)}.all(b, {_list(100)}.all(c, {_list(100)}.all(d, a+b+c+d >= 0))))"
    return scenario(policy(validations=[{"expression": expression}]))


def billion_laughs(levels: int = 9) -> str:
    lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for i in range(1, levels):
        lines.append(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]")
    return "\n".join(lines) + "\n"
