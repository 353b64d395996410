"""Expression-level explanation (app/vap/explain.py): the operand values a user sees under a false or failed
validation, matchCondition or auditAnnotation, and that the verdict never changes."""

from __future__ import annotations

from typing import Any

import pytest

from app.vap import compiler, explain, validator
from app.vap.cel import library
from app.vap.fast import kept as kept_values

DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "default", "labels": {"team": "a", "tier": "web"}},
    "spec": {
        "replicas": 4,
        "template": {"spec": {"containers": [
            {"name": "a", "image": "r/a:1"},
            {"name": "b", "image": "nginx:1"},
            {"name": "c", "image": "r/c:1"},
        ]}},
    },
}
PARAMS = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "limits"}, "maxReplicas": 3,
          "allowed": ["r/"]}
REQUEST = {"operation": "CREATE", "userInfo": {"username": "alice"}, "namespace": "default", "name": "web"}

C = "object.spec.template.spec.containers"
ELEMENT_B = '{"image": "nginx:1", "name": "b"}'


def _lines(entries: list[dict[str, Any]]) -> list[str]:
    """Each line as the page shows it: ``expression = value`` (or ``expression: error``), the macro element it
    was evaluated for, and its note."""
    out = []
    for e in entries:
        text = f"{e['expression']} = {e['value']}" if e["error"] is None else f"{e['expression']}: {e['error']}"
        if e["element"]:
            text += f" for {e['element']['path']} ({e['element']['variable']} = {e['element']['value']})"
        if e["note"]:
            text += f" ({e['note']})"
        out.append(text)
    return out


def _validate(spec: dict[str, Any], obj: Any = None, params: Any = None) -> validator.ValidateResult:
    if params is not None:
        spec = {**spec, "paramKind": {"apiVersion": "v1", "kind": "ConfigMap"}}
    compiled = compiler.compile_policy("p", spec, library.DEFAULT_VERSION)
    inv = validator.Invocation(object=DEPLOYMENT if obj is None else obj, old_object=None, request=REQUEST,
                               request_original_resource={"group": "apps", "version": "v1", "resource": "deployments"},
                               params=params, namespace_object=None, namespace_full=None)
    return validator.validate(compiled, inv, "Fail")


def _explained(expression: str, obj: Any = None, variables: tuple[tuple[str, str], ...] = ()) -> list[str]:
    spec: dict[str, Any] = {"validations": [{"expression": expression}]}
    if variables:
        spec["variables"] = [{"name": n, "expression": e} for n, e in variables]
    result = _validate(spec, obj, PARAMS)
    (record,) = result.validations
    assert record["outcome"] != "pass", record
    return _lines(record.get("explanation", []))


CASES = [
    # comparisons: both sides
    ("object.spec.replicas <= params.maxReplicas", (),
     ["object.spec.replicas = 4", "params.maxReplicas = 3"]),
    ("object.metadata.name == 'api'", (), ['object.metadata.name = "web"']),
    ("size(object.metadata.labels) > 5", (), ["size(object.metadata.labels) = 2"]),
    # && : each side, then the false one explained
    ("object.metadata.name == 'web' && object.spec.replicas < params.maxReplicas", (),
     ["object.metadata.name == 'web' = true", "object.spec.replicas < params.maxReplicas = false",
      "object.spec.replicas = 4", "params.maxReplicas = 3"]),
    # || : every side is false, each explained
    ("object.spec.replicas < 2 || object.metadata.name.startsWith('x')", (),
     ["object.spec.replicas < 2 = false", "object.metadata.name.startsWith('x') = false",
      "object.spec.replicas = 4", "object.metadata.name = \"web\""]),
    # ! : what it negates
    ("!(object.metadata.labels.team == 'a')", (),
     ["object.metadata.labels.team == 'a' = true", 'object.metadata.labels.team = "a"']),
    # in
    ("object.metadata.labels.tier in ['db', 'cache']", (), ['object.metadata.labels.tier = "web"']),
    ("'r/' in object.metadata.labels", (), ['object.metadata.labels = {"team": "a", "tier": "web"}']),
    # macros: the element that decides
    (f"{C}.all(c, c.image.startsWith('r/'))", (),
     [f"c.image.startsWith('r/') = false for {C}[1] (c = {ELEMENT_B})",
      f'c.image = "nginx:1" for {C}[1] (c = {ELEMENT_B})']),
    (f"{C}.exists(c, c.name == 'z')", (),
     [f"c.name == 'z' = false (false for each of the 3 elements of {C})"]),
    (f"{C}.exists_one(c, c.image.startsWith('r/'))", (),
     [f"c.image.startsWith('r/') = true for {C}[2] (c = {{\"image\": \"r/c:1\", \"name\": \"c\"}}) "
      f"(exists_one() wants exactly one element; it is true for {C}[0] too)",
      f'c.image = "r/c:1" for {C}[2] (c = {{"image": "r/c:1", "name": "c"}})']),
    ("object.spec.template.spec.volumes.exists(v, v.name == 'x')", (),
     ["object.spec.template.spec.volumes: no such key: volumes"]),
    # string literals holding operators are not split
    ("object.metadata.name == 'a && b || c <= d'", (), ['object.metadata.name = "web"']),
    ("object.metadata.name + ' == ' == 'x == y' // a comment: && ||", (),
     ["object.metadata.name + ' == ' = \"web == \""]),
    # variables.x operands, evaluated through the policy's variables
    ("variables.count <= variables.limit", (("count", "object.spec.replicas"), ("limit", "params.maxReplicas")),
     ["variables.count = 4", "variables.limit = 3"]),
    # a variable that decides: its own expression explained
    ("variables.small", (("small", "object.spec.replicas < params.maxReplicas"),),
     ["variables.small = false (its expression: object.spec.replicas < params.maxReplicas)",
      "object.spec.replicas = 4", "params.maxReplicas = 3"]),
    ("object.metadata.name == 'web' && variables.small", (("small", "object.spec.replicas < 2"),),
     ["object.metadata.name == 'web' = true",
      "variables.small = false (its expression: object.spec.replicas < 2)", "object.spec.replicas = 4"]),
    # numbers of each type as CEL writes them
    ("uint(object.spec.replicas) < 2u", (), ["uint(object.spec.replicas) = 4u"]),
    ("double(object.spec.replicas) < 2.0", (), ["double(object.spec.replicas) = 4.0"]),
    # a conditional: the condition, then the branch taken
    ("object.metadata.name == 'web' ? object.spec.replicas < 2 : true", (),
     ["object.metadata.name == 'web' = true", "object.spec.replicas = 4"]),
]


@pytest.mark.parametrize(("expression", "variables", "expected"), CASES, ids=[c[0] for c in CASES])
def test_the_operands_a_user_sees(expression, variables, expected):
    assert _explained(expression, variables=variables) == expected


def test_all_over_a_map_names_the_key_that_is_false():
    lines = _explained("object.metadata.labels.all(k, k.startsWith('te'))")
    assert lines == ['k.startsWith(\'te\') = false for object.metadata.labels key "tier" (k = "tier")']


def test_an_erroring_operand_shows_its_error_and_the_error_is_explained():
    lines = _explained("object.spec.paused == false && object.spec.replicas > 1")
    assert lines == ["object.spec.paused == false: no such key: paused", "object.spec.replicas > 1 = true",
                     "object.spec.paused: no such key: paused"]


def test_all_whose_predicate_fails_for_an_element_names_that_element():
    obj = {**DEPLOYMENT, "spec": {"template": {"spec": {"containers": [{"name": "a", "image": "r/a"}, {"name": "b"}]}}}}
    lines = _explained(f"{C}.all(c, c.image.startsWith('r/'))", obj)
    assert lines == [f"c.image.startsWith('r/'): no such key: image for {C}[1] (c = {{\"name\": \"b\"}})",
                     f"c.image: no such key: image for {C}[1] (c = {{\"name\": \"b\"}})"]


def test_all_that_is_false_after_an_element_that_fails_names_the_false_one():
    obj = {**DEPLOYMENT, "spec": {"template": {"spec": {"containers": [{"name": "a"}, {"name": "b", "image": "x"}]}}}}
    lines = _explained(f"{C}.all(c, c.image.startsWith('r/'))", obj)
    assert lines[0] == f"c.image.startsWith('r/') = false for {C}[1] (c = {{\"image\": \"x\", \"name\": \"b\"}})"


def test_exists_on_an_empty_list_says_so():
    obj = {**DEPLOYMENT, "spec": {"template": {"spec": {"containers": []}}}}
    assert _explained(f"{C}.exists(c, c.name == 'a')", obj) == [f"{C} = [] (no elements: exists() is false)"]


def test_a_huge_value_is_cut_with_the_marker():
    obj = {**DEPLOYMENT, "metadata": {"name": "x" * 5000}}
    (line,) = _explained("object.metadata.name == 'y'", obj)
    head, _, tail = line.partition(" = ")
    assert head == "object.metadata.name"
    assert tail == '"' + "x" * (explain.VALUE_BYTES - 1) + "… truncated (5002 bytes) …"


def test_a_passing_validation_has_no_explanation():
    result = _validate({"validations": [{"expression": "object.spec.replicas > 1"}]})
    assert "explanation" not in result.validations[0]


def test_the_explanation_changes_no_verdict_nor_the_variables_evaluated():
    spec = {"variables": [{"name": "unused", "expression": "object.spec.replicas * 2"}],
            "validations": [{"expression": "object.spec.replicas < 2 || variables.unused < 2"},
                            {"expression": "object.metadata.name == 'web'"}]}
    result = _validate(spec)
    assert [d.evaluation for d in result.decisions] == ["deny", "admit"]
    # the variable was evaluated by the validation itself; the explanation re-evaluates it on its own values
    assert [v["evaluated"] for v in result.variables] == [True]
    assert _lines(result.validations[0]["explanation"]) == [
        "object.spec.replicas < 2 = false", "variables.unused < 2 = false", "object.spec.replicas = 4",
        "variables.unused = 8"]


def test_a_false_match_condition_is_explained():
    spec = {"matchConditions": [{"name": "big", "expression": "object.spec.replicas > 10"}],
            "validations": [{"expression": "false"}]}
    result = _validate(spec)
    assert result.matched is False
    assert _lines(result.match_conditions[0]["explanation"]) == ["object.spec.replicas = 4"]


def test_a_failing_audit_annotation_is_explained():
    spec = {"validations": [{"expression": "true"}],
            "auditAnnotations": [{"key": "k", "valueExpression": "object.spec.paused ? 'paused' : 'running'"}]}
    (annotation,) = _validate(spec).audit_annotations
    assert annotation.action == "error"
    assert _lines(annotation.to_json()["explanation"]) == ["object.spec.paused: no such key: paused"]


def test_a_macro_element_is_shown_whole_though_the_policy_reads_one_field():
    # the policy reads only .image of each container; the element is shown as the request has it
    (line, _) = _explained(f"{C}.all(c, c.image.startsWith('r/'))")
    assert '"name": "b"' in line


@pytest.mark.parametrize(("text", "kind", "parts"), [
    ("a && (b || c) && d", "and", ("a", "b || c", "d")),
    ("a || b && c", "or", ("a", "b && c")),
    ("a == b == c", "relation", ("a == b", "c")),
    ("x in ['&&', '||']", "relation", ("x", "['&&', '||']")),
    ("'a || b' == x // c && d", "relation", ("'a || b'", "x")),
    ("r'\\d || x' == y", "relation", ("r'\\d || x'", "y")),
    ("r'\\' || x", "or", ("r'\\'", "x")),
    ("a ? b : c ? d : e", "ternary", ("a", "b", "c ? d : e")),
    ("object.?spec.orValue(1) > 2", "relation", ("object.?spec.orValue(1)", "2")),
    ("!has(object.spec)", "not", ("has(object.spec)",)),
    ("a != b", "relation", ("a", "b")),
    ("(((a < b)))", "relation", ("a", "b")),
    ("x.exists(e, e > 1 && e < 3)", "macro", ("x", "e", "e > 1 && e < 3")),
    ("x.filter(e, e > 1).all(e, e < 3)", "macro", ("x.filter(e, e > 1)", "e", "e < 3")),
    ("x.name.startsWith('a')", "call", ("x.name", "'a'")),
    ("size(x) + 1", "leaf", ()),
    ("-x.size()", "leaf", ()),
    ("index", "leaf", ()),
    ('"""a\n&& b""" == x', "relation", ('"""a\n&& b"""', "x")),
])
def test_the_top_level_is_split_outside_strings_brackets_and_comments(text, kind, parts):
    node = explain.structure(text)
    assert (node.kind, node.parts) == (kind, parts)


@pytest.mark.parametrize(("value", "text"), [
    (None, "null"), (True, "true"), (3, "3"), (1.5, "1.5"), ("a\"b", '"a\\"b"'), ([1, "x"], '[1, "x"]'),
    ({"a": [True]}, '{"a": [true]}'),
])
def test_values_read_as_cel_literals(value, text):
    assert explain.notation(value) == text


def test_the_page_shows_the_operand_values_under_a_failed_validation(client):
    from app import examples

    form = examples.get("image-registries").form()
    html = client.post("/evaluate", data=form, headers={"HX-Request": "true"}).get_data(as_text=True)
    row = html[html.index("object.spec.containers.all(c, c.image.startsWith("):]
    operands = row[row.index("data-explanation"):row.index("</ul>")]
    assert ("<code>c.image.startsWith(&#39;registry.example.com/&#39;)</code> = "
            '<code class="operand-value">false</code>') in operands
    assert "for <code>object.spec.containers[1]</code> (<code>c</code> = " in operands
    assert "&#34;name&#34;: &#34;shell&#34;" in operands
    assert ('<code>c.image</code> = <code class="operand-value">&#34;docker.io/library/busybox:1.36&#34;</code>'
            in operands)


def test_unchanged_documents_are_explained_once_and_alike(monkeypatch):
    from app.vap import fast
    from app.vap.evaluate import evaluate
    from tests.conftest import fixture_path

    made = []
    original = explain.explain
    monkeypatch.setattr(explain, "explain", lambda *args, **kw: made.append(1) or original(*args, **kw))
    body = {pane: open(fixture_path("replica-limit", f"{pane}.yaml")).read()
            for pane in ("policy", "binding", "params", "namespace", "object")}
    fast.clear()
    answers = [evaluate(body)["policies"][0]["bindings"][0]["evaluations"][0]["validations"][0]["explanation"]
               for _ in range(10)]
    assert answers == [answers[0]] * 10
    assert _lines(answers[0]) == ["object.spec.replicas = 5", "params.maxReplicas = 3"]
    # (kept for the same policy and documents, with a request and Namespace equal to the last ones)
    assert len(made) == 1


def test_a_kyverno_cel_rule_is_explained_too():
    from app import examples
    from app.vap.evaluate import evaluate

    response = evaluate(dict(examples.get("kyverno-enforce").panes))
    failed = [v for p in response["kyverno"] for rule in p["rules"] for ev in rule.get("evaluations") or []
              for v in ev["validations"] if v["outcome"] == "fail"]
    lines = failed[0]["explanation"]
    assert [(e["expression"], e["value"]) for e in lines] == [
        ("c.image.contains(':') && !c.image.endsWith(':latest')", "false"),
        ("c.image.contains(':')", "true"), ("!c.image.endsWith(':latest')", "false"),
        ("c.image.endsWith(':latest')", "true"), ("c.image", '"nginx:latest"')]
    assert {e["element"]["path"] for e in lines} == {"object.spec.template.spec.containers[0]"}
    assert lines[0]["element"]["value"].startswith('{"image": "nginx:latest", ')


def test_explaining_adds_no_authorizer_check():
    from app import examples
    from app.vap.evaluate import evaluate

    response = evaluate(dict(examples.get("admin-bypass-denied").panes))
    evaluation = response["policies"][0]["bindings"][0]["evaluations"][0]
    # the decision asked once (variables.clusterAdmin); the explanation evaluated it again, unrecorded
    assert [(c["verb"], c["resource"]) for c in evaluation["authorizerChecks"]] == [("delete", "nodes")]
    lines = _lines(evaluation["validations"][0]["explanation"])
    assert lines[0] == ("variables.clusterAdmin = false (its expression: "
                        "authorizer.group('').resource('nodes').check('delete').allowed())")


def test_a_long_receiver_is_not_looked_at_one_by_one():
    obj = {**DEPLOYMENT, "spec": {"template": {"spec": {"containers": [{"name": str(i)} for i in range(600)]}}}}
    (line,) = _explained(f"{C}.all(c, c.name.size() < 3)", obj)
    assert line.startswith(f"{C} = [") and line.endswith("(600 elements: more than 500, not looked at one by one)")


def test_an_explanation_stops_at_its_cost_budget(monkeypatch):
    kept_values.clear()  # (not one kept from another test's evaluation of the same documents)
    monkeypatch.setattr(validator, "EXPLANATION_COST_FLOOR", 0)
    monkeypatch.setattr(validator, "EXPLANATION_COST_FACTOR", 0)
    lines = _explained("object.spec.replicas <= params.maxReplicas")
    assert lines == ["object.spec.replicas = 4", ": not evaluated: the explanation ran out of its cost budget"]


def test_an_explanation_stops_at_its_time(monkeypatch):
    kept_values.clear()
    monkeypatch.setattr(validator, "_allowance", lambda begun, now: explain.Allowance(-1.0))
    assert _explained("object.spec.replicas <= params.maxReplicas") == [
        ": not evaluated: the explanation ran out of its time"]


def test_an_authorizer_policy_s_explanation_is_kept_and_adds_no_check_on_the_next_evaluation():
    from app import examples
    from app.vap.evaluate import evaluate

    kept_values.clear()
    panes = dict(examples.get("admin-bypass-denied").panes)
    for _ in range(3):
        evaluation = evaluate(panes)["policies"][0]["bindings"][0]["evaluations"][0]
        assert len(evaluation["authorizerChecks"]) == 1
        assert _lines(evaluation["validations"][0]["explanation"])[0] == (
            "variables.clusterAdmin = false (its expression: "
            "authorizer.group('').resource('nodes').check('delete').allowed())")


def test_the_page_shows_why_a_match_condition_is_false(client):
    from app import examples

    form = examples.get("replica-limit").form()
    form["policy"] = form["policy"].replace("  validations:", "  matchConditions:\n  - name: big-only\n"
                                            "    expression: object.spec.replicas > 10\n  validations:")
    html = client.post("/evaluate", data=form, headers={"HX-Request": "true"}).get_data(as_text=True)
    table = html[html.index("<caption>matchConditions</caption>"):]
    table = table[:table.index("</table>")]
    assert '<th scope="col">Why</th>' in table
    assert '<li><code>object.spec.replicas</code> = <code class="operand-value">5</code></li>' in table


def test_an_explanation_kept_for_one_request_is_not_shown_for_another():
    """Explanations are kept for unchanged documents; a request that differs (another user) is explained anew,
    even when everything else is the very same pasted text."""
    from app.vap.evaluate import evaluate

    policy = ("apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata: {name: p}\n"
              "spec:\n  matchConstraints: {resourceRules: [{apiGroups: [''], apiVersions: [v1], operations: ['*'],"
              " resources: [configmaps]}]}\n  validations:\n"
              "  - expression: \"request.userInfo.username == 'admin' || object.data.x == 'y'\"\n---\n"
              "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\n"
              "metadata: {name: p}\nspec: {policyName: p, validationActions: [Deny]}\n")
    obj = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: default}\ndata: {x: n}\n"
    kept_values.clear()
    seen = []
    for user in ("alice", "alice", "bob", "bob", "alice"):
        response = evaluate({"policy": policy, "object": obj, "request": f"userInfo: {{username: {user}}}\n"})
        lines = _lines(response["policies"][0]["bindings"][0]["evaluations"][0]["validations"][0]["explanation"])
        seen.append(next(line for line in lines if line.startswith('request.userInfo.username = "')))
    assert seen == [f'request.userInfo.username = "{u}"' for u in ("alice", "alice", "bob", "bob", "alice")]
