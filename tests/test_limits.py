"""The loader's bounds: each names itself, its configuration name and value, and where it was hit."""

from __future__ import annotations

import json

import pytest

from app import create_app
from app.vap import evaluate, limits
from app.vap.documents import load_pane

POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: p
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["configmaps"]
  validations:
{validations}
"""


def _problem(pane, text, **bounds):
    with limits.use(limits.Limits(**bounds)):
        docs, problems = load_pane(pane, text)
    assert len(problems) == 1, problems
    return problems[0]


def test_alias_expansion_bomb_is_refused_by_the_value_bound():
    laughs = ["a: &a [x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 8):
        prev, name = chr(96 + i), chr(97 + i)
        laughs.append(f"{name}: &{name} [{', '.join(['*' + prev] * 9)}]")
    problem = _problem("params", "\n".join(laughs), max_nodes=10_000)
    assert problem.severity == "error" and problem.pane == "params" and problem.document == 0
    assert "too many values" in problem.message and "(limit: PLAYGROUND_MAX_NODES = 10000)" in problem.message
    assert problem.line is not None


def test_alias_uses_are_counted():
    text = "base: &b {k: v}\n" + "\n".join(f"x{i}: *b" for i in range(6))
    problem = _problem("object", text, max_aliases=5)
    assert "(limit: PLAYGROUND_MAX_ALIASES = 5)" in problem.message
    assert problem.line == 7  # the sixth use, on the seventh line


def test_a_few_aliases_and_merge_keys_are_fine():
    text = "defaults: &d {a: 1}\nitem:\n  <<: *d\n  b: 2\n"
    docs, problems = load_pane("object", text)
    assert problems == [] and docs[0].value["item"] == {"a": 1, "b": 2}


def test_recursive_alias_stops_at_the_depth_bound():
    problem = _problem("params", "a: &a [*a]")
    assert "nested too deeply" in problem.message and "PLAYGROUND_MAX_DEPTH = 100" in problem.message


DEEP_BLOCK = "".join(f"{'  ' * i}k{i}:\n" for i in range(150)) + "  " * 150 + "v"


@pytest.mark.parametrize("text", ["[" * 3000 + "]" * 3000, DEEP_BLOCK], ids=["flow", "block"])
def test_deep_nesting_is_refused_at_its_line(text):
    problem = _problem("object", text, max_depth=40)
    assert "(limit: PLAYGROUND_MAX_DEPTH = 40)" in problem.message
    assert problem.line is not None and problem.column is not None


def test_parsed_json_values_are_bounded_too():
    value: list = []
    for _ in range(60):
        value = [value]
    with limits.use(limits.Limits(max_depth=50)):
        docs, problems = load_pane("params", {"kind": "ConfigMap", "data": value})
    assert docs == [] and "PLAYGROUND_MAX_DEPTH = 50" in problems[0].message


def test_documents_per_pane():
    text = "\n---\n".join(f"kind: ConfigMap\nmetadata: {{name: c{i}}}" for i in range(12))
    problem = _problem("params", text, max_documents=10)
    assert "too many documents" in problem.message and "PLAYGROUND_MAX_DOCUMENTS = 10" in problem.message
    assert problem.document == 10 and problem.line == 30  # the eleventh document starts at its ---


def test_list_items_count_as_documents():
    items = [{"kind": "ConfigMap", "metadata": {"name": f"c{i}"}} for i in range(12)]
    problem = _problem("params", json.dumps({"kind": "List", "items": items}), max_documents=10)
    assert "PLAYGROUND_MAX_DOCUMENTS = 10" in problem.message


def test_long_strings():
    problem = _problem("object", "data:\n  big: " + "x" * 2000, max_string_length=1000)
    assert "2,000 characters" in problem.message and "PLAYGROUND_MAX_STRING_LENGTH = 1000" in problem.message
    assert (problem.line, problem.column) == (2, 8)


def test_the_value_budget_is_shared_by_the_whole_scenario():
    half = "kind: ConfigMap\ndata: [" + ", ".join("1" for _ in range(600)) + "]"
    with limits.use(limits.Limits(max_nodes=1000)):
        response = evaluate({"policy": "", "params": half, "object": half})
    assert [p["pane"] for p in response["problems"]] == ["object"]  # params fit, object went over
    assert "PLAYGROUND_MAX_NODES = 1000" in response["problems"][0]["message"]


def _validations(count: int, expression: str = "true") -> str:
    return "\n".join(f"  - expression: {json.dumps(expression)}" for _ in range(count))


def test_number_of_expressions():
    with limits.use(limits.Limits(max_expressions=5)):
        response = evaluate({"policy": POLICY.format(validations=_validations(6))})
    problem = response["problems"][0]
    assert problem["pane"] == "policy" and problem["path"] == "spec.validations[5].expression"
    assert problem["line"] == 18 and "PLAYGROUND_MAX_EXPRESSIONS = 5" in problem["message"]
    assert response["policies"] == []  # nothing was evaluated


def test_a_lower_expression_length_bound_refuses_before_compiling():
    with limits.use(limits.Limits(max_expression_length=50)):
        response = evaluate({"policy": POLICY.format(validations=_validations(1, "1 == 1" + " && true" * 10))})
    problem = response["problems"][0]
    assert problem["path"] == "spec.validations[0].expression"
    assert "86 characters" in problem["message"] and "PLAYGROUND_MAX_EXPRESSION_LENGTH = 50" in problem["message"]


def test_over_the_cel_parser_limit_the_engine_answers_at_the_field():
    expression = "1 == 1" + " && true" * 12_500  # 100,006 code points
    response = evaluate({"policy": POLICY.format(validations=_validations(1, expression))})
    problem = response["problems"][0]
    assert problem["path"] == "spec.validations[0].expression"
    assert "limit: 100000" in problem["message"] or "limit 100000" in problem["message"]


def test_lone_surrogates_become_replacement_characters():
    docs, problems = load_pane("params", {"metadata": {"name": "a\ud800b"}, "pair": "\ud83d\ude00"})
    assert problems == [] and docs[0].value["metadata"]["name"] == "a\ufffdb"
    docs, problems = load_pane("params", 'name: "a\\ud800b"')
    assert problems == [] and docs[0].value["name"] == "a\ufffdb"


def test_control_characters_are_a_problem_at_their_line():
    docs, problems = load_pane("object", "a: b\nc: \x00")
    assert docs == [] and (problems[0].line, problems[0].column) == (2, 4)
    assert "U+0000 is not allowed" in problems[0].message


@pytest.mark.parametrize("escape", ["\\U00110000", "\\Ua0004AF30"])
def test_an_escape_code_beyond_unicode_is_a_yaml_problem_at_its_place(escape):
    text = f'kind: ConfigMap\ndata:\n  a: "x{escape}"\n'
    docs, problems = load_pane("object", text)
    assert docs == [] and (problems[0].line, problems[0].column) == (3, 10)  # its hex digits
    assert problems[0].message.endswith("while parsing a quoted scalar, found invalid Unicode character escape code")
    result = evaluate({"object": text})  # the whole evaluation answers, naming the pane and the line
    assert (result["problems"][0]["pane"], result["problems"][0]["line"]) == ("object", 3)


def test_limits_are_configurable_through_the_app(monkeypatch):
    monkeypatch.setenv("PLAYGROUND_MAX_DEPTH", "7")
    monkeypatch.setenv("PLAYGROUND_EVALUATION_ISOLATION", "inline")
    monkeypatch.setenv("PLAYGROUND_RATE_LIMIT_ENABLED", "false")
    app = create_app()
    assert app.config["MAX_DEPTH"] == 7
    body = {"policy": "", "object": "a: {b: {c: {d: {e: {f: {g: {h: 1}}}}}}}"}
    problem = app.test_client().post("/api/v1/evaluate", json=body).get_json()["problems"][0]
    assert "(limit: PLAYGROUND_MAX_DEPTH = 7)" in problem["message"]


@pytest.mark.parametrize("composed", [False, True])
@pytest.mark.parametrize("before", [(0, 0), (5, 0), (0, 5), (5, 5), (4, 5), (5, 4)])
@pytest.mark.parametrize("depth, text", [(1, None), (4, None), (1, "x" * 6), (4, "x" * 6), (1, "x")])
def test_counting_a_value_in_one_call_checks_what_the_separate_counts_check(composed, before, depth, text):
    """Usage.value: Usage.compose (a node composed in C), Usage.node, Usage.depth and Usage.string in that order."""
    small = limits.Limits(max_nodes=5, max_depth=3, max_string_length=5)

    def outcome(count):
        usage = limits.Usage(small)
        usage.composed, usage.nodes = before
        try:
            count(usage)
            error = None
        except limits.LimitExceeded as exc:
            error = (str(exc), exc.line, exc.column)
        return usage.counts(), usage.exceeded, error

    def separately(usage):
        if composed:
            usage.compose(2, 3)
        usage.node(2, 3)
        usage.depth(depth, 2, 3)
        if text is not None:
            usage.string(text, 2, 3)

    assert outcome(lambda usage: usage.value(2, 3, depth, text, composed)) == outcome(separately)
