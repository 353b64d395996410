"""The explanation parts read in Python (app/vap/fast/parts.py) have the engine's values, and what they cannot
read exactly is left to the engine."""

from __future__ import annotations

from typing import Any

import pytest

from app.vap import cel
from app.vap.fast import parts

OBJECT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web", "labels": {"app": "web", "tier": ""}, "annotations": {}},
    "spec": {
        "replicas": 3,
        "paused": False,
        "ratio": 1.5,
        "selector": None,
        "template": {"spec": {"containers": [
            {"name": "a", "image": "nginx:latest", "resources": {}},
            {"name": "b", "image": "registry.example.com/b:1", "resources": {"limits": {"memory": "1Gi"}},
             "ports": [{"containerPort": 80}]},
        ]}},
        "tags": ["x", "y"],
        "mixed": ["x", 1],
    },
}
PARAMS = {"maxReplicas": 5, "allowed": ["registry.example.com/"]}
ROOTS = {"object": OBJECT, "oldObject": None, "params": PARAMS}
C = "object.spec.template.spec.containers"

READ = [  # each read in Python, to the engine's value
    "object", "object.metadata", "object.metadata.name", "object.spec.replicas", "object.spec.paused",
    "object.spec.ratio", "object.spec.selector", "object.spec.tags", f"{C}", f"{C}[1]", f"{C}[1].image",
    "object.metadata.labels['app']", 'object.metadata.labels["tier"]', "params.maxReplicas", "params.allowed[0]",
    "has(object.spec)", "has(object.spec.strategy)", "has(object.metadata.labels.app)", f"has({C}[0].resources)",
    f"has({C}[0].resources.limits)", "'app' in object.metadata.labels", "'z' in object.spec.tags",
    "'x' in object.spec.tags", "object.metadata.name == 'web'", "object.metadata.name != 'web'",
    "object.spec.replicas == 3", "3 != object.spec.replicas", "object.spec.paused == false",
    "object.spec.selector == null", "object.spec.replicas <= params.maxReplicas", "object.spec.replicas > 3",
    "object.spec.replicas >= 3", "object.spec.replicas < 1", f"{C}[0].image.endsWith(':latest')",
    f"{C}[1].image.startsWith('registry.example.com/')", f"{C}[0].image.contains(':')", "!object.spec.paused",
    f"!{C}[0].image.contains(':')", "has(object.spec) && object.spec.replicas == 3",
    "object.spec.paused || object.spec.replicas > 1", "(object.spec.replicas == 3)", "true", "null", "'text'",
    # CEL's logic: a false side decides &&, a true side ||, whatever the other side is (here: an error)
    f"has({C}[0].resources.limits) && {C}[0].resources.limits.memory == '1Gi'",
    f"{C}[0].resources.limits.memory == '1Gi' && has({C}[0].resources.limits)",
    "object.spec.missing.x == 1 || object.spec.replicas == 3",
]
LEFT = [  # left to the engine: another form, another type, a missing field, an escape
    "object.spec.missing", f"{C}[2]", f"{C}[0].resources.limits.memory", "has(object.spec.tags[0])",
    "object.spec.ratio == 1.5", "object.spec.replicas == 3.0", "object.spec.replicas == '3'",
    "object.spec.paused == 0", "'x' in object.spec.mixed", "size(object.spec.tags)", "object.metadata.name + 'x'",
    "object.spec.ratio > 1", "'a' < 'b'", "object.metadata.name == 'w\\x65b'", "object.metadata.name == r'web'",
    "variables.x", "request.name", "object.?spec", "-1 < object.spec.replicas", "object.spec.replicas == 0x3",
    "object.spec.replicas == 3u", "object.metadata.name.size() == 3", f"{C}[0].image.matches('x')",
    f"{C}[0].resources.limits.memory == '1Gi' && true", "object.spec.missing.x == 1 || false",
    "object.spec.replicas == 3 == true", "object.spec.replicas ? 1 : 2", "object.spec.tags.all(t, t == 'x')",
]


def _engine(text: str, bound: dict[str, Any] | None = None) -> Any:
    if bound:  # the macro variable bound as the explanation binds it: to one element of a path
        ((name, path),) = bound.items()
        text = f"[{path}].map({name}, {text})[0]"
    compiled = cel.compile_expression(text, cel.VARIABLE, cel.Declarations(version="1.36", params=True))
    assert compiled.program is not None, compiled.error
    return cel.attempt(compiled, ROOTS)


@pytest.mark.parametrize("text", READ)
def test_a_plain_part_is_read_in_python_to_the_engine_s_value(text):
    read = parts.read(text, ROOTS, {})
    assert read is not None, text
    value = _engine(text)
    assert not isinstance(value, cel.EvaluationError), value
    assert read[0] == value and type(read[0]) is type(value)
    assert read[1] >= 1  # (charged to the explanation's budget)


@pytest.mark.parametrize("text", LEFT)
def test_what_is_not_plainly_known_is_left_to_the_engine(text):
    assert parts.read(text, ROOTS, {}) is None


@pytest.mark.parametrize(("text", "element"), [
    ("c.image", 0), ("c.image.endsWith(':latest')", 0), ("has(c.resources)", 1), ("has(c.resources.limits)", 0),
    ("has(c.resources) && has(c.resources.limits)", 0), ("'memory' in c.resources.limits", 1),
    ("c.ports[0].containerPort == 80", 1), ("c.name == 'a' || c.name == 'b'", 1),
])
def test_a_macro_variable_bound_to_an_element_is_read_like_the_engine_binds_it(text, element):
    path = f"{C}[{element}]"
    read = parts.read(text, ROOTS, {"c": OBJECT["spec"]["template"]["spec"]["containers"][element]})
    assert read is not None
    assert read[0] == _engine(text, {"c": path})


def test_a_macro_variable_shadows_a_root_as_in_cel():
    assert parts.read("object.name", ROOTS, {"object": {"name": "element"}}) == ("element", 2)
    assert _engine("object.name", {"object": f"{C}[0]"}) == "a"  # (the engine binds it the same way)
    assert parts.read("object.name", ROOTS, {"object": OBJECT["spec"]["template"]["spec"]["containers"][0]})[0] == "a"


def test_an_error_is_left_to_the_engine_for_its_own_text():
    assert parts.read(f"{C}[0].resources.limits", ROOTS, {}) is None
    error = _engine(f"{C}[0].resources.limits")
    assert isinstance(error, cel.EvaluationError) and "no such key: limits" in str(error)
