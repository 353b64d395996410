"""CEL results through the JSON API: library values and optionals in variables, engine limits flagged,
compile errors pointed at the right character of the policy pane."""

from __future__ import annotations

import json

import pytest

BINDING = """apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: b}
spec: {policyName: p, validationActions: [Deny]}
"""
OBJECT = """apiVersion: v1
kind: ConfigMap
metadata: {name: c, namespace: default}
data: {a: "1", size: 1500m}
"""


def policy(validations: list[str], variables: list[tuple[str, str]] = ()) -> str:
    lines = [
        "apiVersion: admissionregistration.k8s.io/v1",
        "kind: ValidatingAdmissionPolicy",
        "metadata: {name: p}",
        "spec:",
        "  matchConstraints:",
        "    resourceRules: [{apiGroups: [''], apiVersions: [v1], operations: ['*'], resources: [configmaps]}]",
    ]
    if variables:
        lines.append("  variables:")
        for name, expression in variables:
            lines += [f"  - name: {name}", f"    expression: {json.dumps(expression)}"]
    lines.append("  validations:")
    lines += [f"  - expression: {json.dumps(v)}" for v in validations]
    return "\n".join(lines) + "\n"


def evaluate(client, validations, variables=(), obj=OBJECT, version=None):
    body = {"policy": policy(validations, variables), "binding": BINDING, "object": obj}
    if version:
        body["kubernetesVersion"] = version
    resp = client.post("/api/v1/evaluate", json=body)
    assert resp.status_code == 200
    return resp.get_json()


def evaluation(data):
    return data["policies"][0]["bindings"][0]["evaluations"][0]


def test_library_values_and_optionals_in_variables_show_in_the_result(client):
    variables = [
        ("size", "quantity(object.data.size)"),
        ("addr", "ip('10.0.0.1')"),
        ("net", "cidr('10.0.0.0/8')"),
        ("link", "url('https://example.com/a?b=c')"),
        ("a", "object.?data.a"),
        ("missing", "object.?data.nope"),
        ("fmt", "format.named('dns1123Label')"),
        ("problems", "format.dns1123Label().validate('Not_A_Label')"),
        ("when", "timestamp('2024-05-06T07:08:09Z')"),
        ("total", "[1u, 2u].sum()"),
    ]
    validations = ["has(variables.size) && " + " && ".join(f"type(variables.{n}) != null_type" for n, _ in variables)]
    data = evaluate(client, validations, variables)
    assert data["problems"] == [] and data["allowed"] is True
    shown = {v["name"]: v["value"] for v in evaluation(data)["variables"]}
    assert shown == {
        "size": "quantity('1.5')",
        "addr": "ip('10.0.0.1')",
        "net": "cidr('10.0.0.0/8')",
        "link": "url('https://example.com/a?b=c')",
        "a": {"optional.of": "1"},
        "missing": "optional.none()",
        "fmt": {"optional.of": "format.dns1123Label()"},
        "problems": {"optional.of": [
            "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start "
            "and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
        ]},
        "when": "2024-05-06T07:08:09Z",
        "total": 3,
    }


@pytest.mark.parametrize(
    "validation",
    [
        "variables.a.orValue('') == '1'",
        "variables.a.hasValue() && variables.a.value() == '1'",
        "variables.missing.orValue('x') == 'x' && !variables.missing.hasValue()",
        "variables.missing.or(variables.a).value() == '1'",
        "variables.a.optMap(v, v + '!').value() == '1!'",
        "variables.a.optFlatMap(v, optional.of(int(v))).value() == 1",
        "variables.nested.value()[0].value() == '1' && !variables.nested.value()[1].hasValue()",
        "variables.list.filter(o, o.hasValue()).size() == 1",
        "variables.fmt.orValue(format.uuid()) == format.dns1123Label()",
        "variables.fmt.value().validate('ok-name').orValue([]).size() == 0",
        "variables.fmt.value().validate('Not OK').orValue([]).size() == 1",
        "variables.size.isInteger() == false && variables.size.compareTo(quantity('1500m')) == 0",
        "has(variables.a) && has(variables.missing) && has( variables . size )",
    ],
)
def test_optional_values_pass_through_composited_variables(client, validation):
    variables = [
        ("a", "object.?data.a"),
        ("missing", "object.?data.nope"),
        ("nested", "object.?data.a.optMap(x, [optional.of(x), optional.none()])"),
        ("list", "[object.?data.a, object.?data.nope]"),
        ("fmt", "format.named('dns1123Label')"),
        ("size", "quantity(object.data.size)"),
    ]
    data = evaluate(client, [validation], variables)
    assert data["problems"] == []
    result = evaluation(data)["validations"][0]
    assert (result["outcome"], result["error"]) == ("pass", None)


def test_time_values_deep_in_a_variable_reach_the_expressions_reading_it(client):
    # the variable's value goes back to the engine: a timestamp or duration in a list inside a map, after
    # plain values, must come back as one, and the plain parts as they were
    variables = [("v", "{'plain': dyn([dyn('a'), dyn(1), dyn({'k': [true]})]),"
                       " 'times': dyn([dyn('x'), dyn(timestamp('2024-01-01T00:00:00Z'))]),"
                       " 'wait': dyn({'for': duration('90s')})}"), ("n", "{1: [0.0 / 0.0]}")]
    validations = [
        "variables.v.times[1] + variables.v.wait['for'] == timestamp('2024-01-01T00:01:30Z')",
        "variables.v.plain[2].k[0] && variables.v.plain[0] == 'a' && variables.v.times[0] == 'x'",
        "variables.n[1].size() == 1",
    ]
    data = evaluate(client, validations, variables)
    assert data["problems"] == []
    result = evaluation(data)
    assert [(v["outcome"], v["error"]) for v in result["validations"]] == [("pass", None)] * 3
    assert [v["value"] for v in result["variables"]] == [
        {"plain": ["a", 1, {"k": [True]}], "times": ["x", "2024-01-01T00:00:00Z"], "wait": {"for": "90s"}},
        {"1": ["NaN"]},
    ]


def test_has_on_a_variable_evaluates_it(client):
    # pkg/cel/lazy MapValue.Find resolves the field: has() is true, or the variable's error
    data = evaluate(client, ["has(variables.bad)"], [("bad", "1 / 0 == 1")])
    result = evaluation(data)["validations"][0]
    assert result["error"] == (
        "expression 'has(variables.bad)' resulted in error: composited variable \"bad\" fails to evaluate: "
        "division by zero"
    )


def test_an_optional_variable_keeps_its_type_for_the_checker(client):
    data = evaluate(client, ["variables.a + '!' == '1!'"], [("a", "object.?data.a")])
    problem = data["problems"][0]
    assert problem["path"] == "spec.validations[0].expression"
    assert "found no matching overload for '_+_' applied to '(optional_type(dyn), string)'" in problem["message"]


def test_engine_limits_are_flagged_in_the_result(client):
    obj = OBJECT + "binaryData: {}\n"
    data = evaluate(
        client,
        ["lists.range(10001).all(i, i >= 0)", "[1, 2].all(i, i > 0)"],
        [("big", "lists.range(20000).exists(i, i < 0)"), ("small", "lists.range(3).size()")],
        obj=obj,
    )
    ev = evaluation(data)
    first, second = ev["validations"]
    assert first["outcome"] == "error" and first["engineLimit"] is True
    assert "kube-apiserver has no such limit" in first["error"]
    assert second["outcome"] == "pass" and second["engineLimit"] is False
    assert [v["engineLimit"] for v in ev["variables"]] == [False, False]  # not evaluated: nothing referenced them

    # the same, twice over, for an expression too long for its error's record to be remembered
    long = "lists.range(10001).all(i, i >= 0) || '" + "x" * 3000 + "' == ''"
    for _ in range(2):
        (first,) = evaluation(evaluate(client, [long], obj=obj))["validations"]
        assert first["outcome"] == "error" and first["engineLimit"] is True
        assert first["error"].startswith(f"expression '{long}' resulted in error: iteration budget exceeded")

    data = evaluate(client, ["!variables.big"], [("big", "lists.range(20000).exists(i, i < 0)")])
    ev = evaluation(data)
    assert ev["variables"][0]["engineLimit"] is True and ev["validations"][0]["engineLimit"] is True
    assert ev["variables"][0]["error"].startswith('composited variable "big" fails to evaluate: iteration budget')


def test_an_expression_nested_deeper_than_the_engine_can_compile_is_stored_and_flagged(client):
    # 40 chained '+' is beyond the engine's nesting depth of 32, not beyond kube-apiserver's: the policy
    # is stored (no problem, not rejected) and the expression is reported as an engine limit when evaluated
    deep = " + ".join(["1"] * 40) + " == 40"
    data = evaluate(client, [deep, "object.data.a == '1'"], [("sum", " + ".join(["1"] * 40))])
    assert [p for p in data["problems"] if p["severity"] == "error"] == []
    assert data["rejected"] == []
    record = data["policies"][0]
    assert record["matched"] is True and not record.get("missing")
    first, second = evaluation(data)["validations"]
    assert first["engineLimit"] is True and first["outcome"] == "error"
    assert first["error"] == (
        f"expression '{deep}' resulted in error: the playground's CEL engine (cel-cpp) cannot evaluate this "
        "expression: it is nested deeper than the 32 levels the engine parses and plans (e.g. a chain of 33 '+'); "
        "kube-apiserver has no such limit and would evaluate it"
    )
    assert second["outcome"] == "pass" and second["engineLimit"] is False

    data = evaluate(client, ["variables.sum == 40"], [("sum", " + ".join(["1"] * 40))])
    assert data["rejected"] == []
    ev = evaluation(data)
    assert ev["variables"][0]["engineLimit"] is True and ev["validations"][0]["engineLimit"] is True
    assert ev["variables"][0]["error"].startswith(
        'composited variable "sum" fails to evaluate: the playground\'s CEL engine (cel-cpp) cannot evaluate'
    )


def test_a_map_of_optionals_in_a_variable_is_an_engine_limit(client):
    data = evaluate(client, ["variables.m.size() == 1"], [("m", "{'k': object.?data.a}")])
    ev = evaluation(data)
    assert ev["variables"][0]["engineLimit"] is True
    assert "the playground's CEL engine cannot convert this value" in ev["variables"][0]["error"]


def test_compile_errors_after_a_variable_point_at_the_right_character(client):
    validation = "variables.a.orValue('') == '1' && [1, 'x'].size() == 2"
    data = evaluate(client, [validation], [("a", "object.?data.a")])
    problem = data["problems"][0]
    text = policy([validation], [("a", "object.?data.a")]).split("\n")
    # the pane line holds the expression as a JSON string; the problem's column points at 'x'
    line = text[problem["line"] - 1]
    assert line[problem["column"] - 1 : problem["column"] + 2] == "'x'"
    assert "expected type 'int' but found 'string'" in problem["message"]


def test_optflatmap_follows_the_version(client):
    validation = "object.?data.a.optFlatMap(v, optional.of(v)).hasValue()"
    assert evaluate(client, [validation], version="1.30")["allowed"] is True
    # a 1.29 server checks new expressions with 1.28's libraries: cel-go 0.16 had no optFlatMap
    data = evaluate(client, [validation], version="1.29")
    assert "undeclared reference to 'optFlatMap'" in data["problems"][0]["message"]


def test_the_same_scenario_gets_the_same_answer_byte_for_byte(client):
    # a shared link shows what its author saw: nothing in the answer depends on when or how often it is asked
    body = {"policy": policy(["object.data.a == '1'", "object.data.b == 'x'"], [("a", "object.data.a")]),
            "binding": BINDING, "object": OBJECT}
    answers = [client.post("/api/v1/evaluate", json=body).get_data() for _ in range(4)]
    assert b'"validations"' in answers[0]
    assert len(set(answers)) == 1
