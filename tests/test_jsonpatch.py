"""The JSONPatch mutation of MutatingAdmissionPolicy (app.vap.mutating.jsonpatch).

Restates kubernetes/kubernetes staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch/
json_patch_test.go (TestJSONPatch: the expressions' JSONPatch values are written out here as the operations they
evaluate to) and the cases of the JSON Patch library the apiserver vendors (evanphx/json-patch, v4 line,
patch_test.go: Cases, MutationTestCases, BadCases, TestCases, TestAdd, EqualityCases), noting where the apiserver's
way of building operations changes the library's answer.
"""

from __future__ import annotations

import copy

import pytest

from app.vap.mutating.applyconfig import ObjectValue
from app.vap.mutating.jsonpatch import (
    JSONPatchError,
    MutationError,
    PatchTestFailed,
    _equal,
    _Node,
    apply_json_patch_mutation,
    apply_patch,
    decode_patched,
    escape_key,
    operation,
    wire_value,
)
from app.vap.schemas import schema_set


def op(kind: str, path: str, value: object = None, *, from_: str = "", has_value: bool | None = None) -> dict:
    """An operation as the apiserver builds it; ``value`` is set unless it is None (pass has_value for null)."""
    if has_value is None:
        has_value = value is not None
    return operation(kind, path, from_, value) if has_value else operation(kind, path, from_)


def deployment(**spec: object) -> dict:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {}, "spec": dict(spec)}


def with_labels(labels: dict) -> dict:
    obj = deployment()
    obj["metadata"]["labels"] = labels
    return obj


def containers(*names: str, **extra: object) -> dict:
    return deployment(template={"spec": {"containers": [{"name": n} for n in names]}}, **extra)


# ---------------------------------------------------------------------------------------------
# json_patch_test.go TestJSONPatch

APISERVER_CASES = [
    ("jsonPatch with false test operation",
     [op("test", "/spec/replicas", 100), op("replace", "/spec/replicas", 3)],
     deployment(replicas=1), deployment(replicas=1)),
    ("jsonPatch with true test operation",
     [op("test", "/spec/replicas", 1), op("replace", "/spec/replicas", 3)],
     deployment(replicas=1), deployment(replicas=3)),
    ("jsonPatch remove to unset field",
     [op("remove", "/spec/replicas")], deployment(replicas=1), deployment()),
    ("jsonPatch remove map entry by key",
     [op("remove", "/metadata/labels/y")], with_labels({"x": "1", "y": "1"}), with_labels({"x": "1"})),
    ("jsonPatch remove element in list",
     [op("remove", "/spec/template/spec/containers/1")], containers("a", "b", "c"), containers("a", "c")),
    ("jsonPatch copy map entry by key",
     [op("copy", "/metadata/labels/y", from_="/metadata/labels/x")],
     with_labels({"x": "1"}), with_labels({"x": "1", "y": "1"})),
    ("jsonPatch copy first element to end of list",
     [op("copy", "/spec/template/spec/containers/-", from_="/spec/template/spec/containers/0")],
     containers("a", "b", "c"), containers("a", "b", "c", "a")),
    ("jsonPatch move map entry by key",
     [op("move", "/metadata/labels/y", from_="/metadata/labels/x")], with_labels({"x": "1"}), with_labels({"y": "1"})),
    ("jsonPatch move first element to end of list",
     [op("move", "/spec/template/spec/containers/-", from_="/spec/template/spec/containers/0")],
     containers("a", "b", "c"), containers("b", "c", "a")),
    ("jsonPatch add map entry by key and value",
     [op("add", "/metadata/labels/x", "2")], with_labels({"y": "1"}), with_labels({"y": "1", "x": "2"})),
    ("jsonPatch add map value to field",
     [op("add", "/metadata/labels", {"y": "2"})], deployment(), with_labels({"y": "2"})),
    ("jsonPatch add map to existing map (a replacement)",
     [op("add", "/metadata/labels", {"y": "2"})], with_labels({"x": "1"}), with_labels({"y": "2"})),
    ("jsonPatch add to start of list",
     [op("add", "/spec/template/spec/containers/0", {"name": "x"})], containers("a"), containers("x", "a")),
    ("jsonPatch add to end of list",
     [op("add", "/spec/template/spec/containers/-", {"name": "x"})], containers("a"), containers("a", "x")),
    ("jsonPatch replace key in map",
     [op("replace", "/metadata/labels/x", "2")], with_labels({"y": "1"}), with_labels({"y": "1", "x": "2"})),
    ("jsonPatch replace map value of unset field (adds it)",
     [op("replace", "/metadata/labels", {"y": "2"})], deployment(), with_labels({"y": "2"})),
    ("jsonPatch replace map value of set field",
     [op("replace", "/metadata/labels", {"y": "2"})], with_labels({"x": "1"}), with_labels({"y": "2"})),
    ("jsonPatch replace first element in list",
     [op("replace", "/spec/template/spec/containers/0", {"name": "x"})], containers("a"), containers("x")),
    ("jsonPatch add map entry by key and value (an Object initializer)",
     [op("add", "/spec", {"selector": {}, "replicas": 10})], deployment(), deployment(selector={}, replicas=10)),
    ("JSONPatch key escaping",
     [op("add", "/metadata/labels", {}), op("add", "/metadata/labels/" + escape_key("k8s.io/x~y"), "true")],
     with_labels({}), with_labels({"k8s.io/x~y": "true"})),
    ("jsonPatch with CEL initializer",
     [op("add", "/spec/template/spec/containers/-", {"name": "x", "ports": [{"containerPort": 8080}]})],
     containers("a"),
     deployment(template={"spec": {"containers": [{"name": "a"}, {"name": "x", "ports": [{"containerPort": 8080}]}]}})),
]


@pytest.mark.parametrize(("name", "ops", "obj", "want"), APISERVER_CASES, ids=[c[0] for c in APISERVER_CASES])
def test_apiserver_json_patch(name: str, ops: list, obj: dict, want: dict) -> None:
    before = copy.deepcopy(obj)
    outcome = apply_json_patch_mutation(obj, ops)
    assert outcome.object == want
    assert obj == before  # the input is never modified


def test_false_test_operation_is_a_no_op_not_an_error() -> None:
    outcome = apply_json_patch_mutation(deployment(replicas=1), [op("test", "/spec/replicas", 100)])
    assert outcome.test_failed == "testing value /spec/replicas failed: test failed"
    assert outcome.object == deployment(replicas=1)


def test_replace_end_of_list_with_dash_not_allowed() -> None:
    # json_patch_test.go "jsonPatch replace end of list with - not allowed"
    with pytest.raises(MutationError) as e:
        apply_json_patch_mutation(containers("a"), [op("replace", "/spec/template/spec/containers/-", {"name": "x"})])
    assert str(e.value) == ("JSON Patch: replace operation does not apply: doc is missing key: "
                            "/spec/template/spec/containers/-: missing value")


def test_add_below_a_missing_parent() -> None:
    # the error of kubernetes/kubernetes issue 129309 (an earlier mutation's empty list had been dropped)
    with pytest.raises(MutationError) as e:
        apply_json_patch_mutation({"spec": {}}, [op("add", "/spec/initContainers/-", {"name": "mesh-proxy"})])
    assert str(e.value) == ('JSON Patch: add operation does not apply: doc is missing path: '
                            '"/spec/initContainers/-": missing value')


def test_invalid_cel_initializer_type() -> None:
    # json_patch_test.go "jsonPatch invalid CEL initializer type"
    value = ObjectValue("Object.spec.template.spec.containers", {
        "name": "x", "ports": [ObjectValue("Object.spec.template.spec.containers.portsZ", {"containerPort": 8080})]})
    with pytest.raises(MutationError) as e:
        operation("add", "/spec/template/spec/containers/-", value=value)
    assert str(e.value) == (
        'type mismatch: unexpected type name "Object.spec.template.spec.containers.portsZ", expected '
        '"Object.spec.template.spec.containers.ports", which matches field name path from root Object type')
    good = ObjectValue("Object.spec", {"selector": ObjectValue("Object.spec.selector", {}), "replicas": 10})
    assert operation("add", "/spec", value=good)["value"] == {"selector": {}, "replicas": 10}


def test_escape_key() -> None:
    # the CEL function jsonpatch.escapeKey (k8s.io/apiserver/pkg/cel/library/jsonpatch.go)
    assert escape_key("k8s.io/x~y") == "k8s.io~1x~0y"
    assert escape_key("k8s.io/my~label") == "k8s.io~1my~0label"  # the library's documented example
    assert escape_key("~1") == "~01"
    assert escape_key("a/b/c") == "a~1b~1c"
    assert escape_key("") == ""


def test_operation_is_built_as_the_apiserver_builds_it() -> None:
    assert operation("add", "/a") == {"op": "add", "path": "/a"}
    assert operation("copy", "/a", "") == {"op": "copy", "path": "/a"}  # an empty from is left out
    assert operation("copy", "/a", "/b") == {"op": "copy", "path": "/a", "from": "/b"}
    assert operation("add", "/a", value=None) == {"op": "add", "path": "/a", "value": None}
    # numbers travel as float64 (protobuf's Value), so a large int loses precision
    assert wire_value(2**53 + 1) == 2**53
    assert wire_value({"a": [1, 1.5, True]}) == {"a": [1, 1.5, True]}
    with pytest.raises(MutationError, match="could not marshal to JSON"):
        wire_value(float("nan"))


# ---------------------------------------------------------------------------------------------
# the library's patch_test.go: Cases (all apply)

LIBRARY_CASES = [
    ({"foo": "bar"}, [op("add", "/baz", "qux")], {"baz": "qux", "foo": "bar"}),
    ({"foo": ["bar", "baz"]}, [op("add", "/foo/1", "qux")], {"foo": ["bar", "qux", "baz"]}),
    ({"foo": ["bar", "baz"]}, [op("add", "/foo/-1", "qux")], {"foo": ["bar", "baz", "qux"]}),
    ({"baz": "qux", "foo": "bar"}, [op("remove", "/baz")], {"foo": "bar"}),
    ({"foo": ["bar", "qux", "baz"]}, [op("remove", "/foo/1")], {"foo": ["bar", "baz"]}),
    ({"baz": "qux", "foo": "bar"}, [op("replace", "/baz", "boo")], {"baz": "boo", "foo": "bar"}),
    ({"foo": {"bar": "baz", "waldo": "fred"}, "qux": {"corge": "grault"}},
     [op("move", "/qux/thud", from_="/foo/waldo")],
     {"foo": {"bar": "baz"}, "qux": {"corge": "grault", "thud": "fred"}}),
    ({"foo": ["all", "grass", "cows", "eat"]}, [op("move", "/foo/3", from_="/foo/1")],
     {"foo": ["all", "cows", "eat", "grass"]}),
    ({"foo": ["all", "grass", "cows", "eat"]}, [op("move", "/foo/2", from_="/foo/1")],
     {"foo": ["all", "cows", "grass", "eat"]}),
    ({"foo": "bar"}, [op("add", "/child", {"grandchild": {}})], {"foo": "bar", "child": {"grandchild": {}}}),
    ({"foo": ["bar"]}, [op("add", "/foo/-", ["abc", "def"])], {"foo": ["bar", ["abc", "def"]]}),
    ({"foo": "bar", "qux": {"baz": 1, "bar": None}}, [op("remove", "/qux/bar")], {"foo": "bar", "qux": {"baz": 1}}),
    ({"foo": "bar"}, [op("add", "/baz", None, has_value=True)], {"baz": None, "foo": "bar"}),
    ({"foo": ["bar"]}, [op("replace", "/foo/0", "baz")], {"foo": ["baz"]}),
    ({"foo": ["bar", "baz"]}, [op("replace", "/foo/0", "bum")], {"foo": ["bum", "baz"]}),
    ({"foo": ["bar", "qux", "baz"]}, [op("replace", "/foo/1", "bum")], {"foo": ["bar", "bum", "baz"]}),
    ([{"foo": ["bar", "qux", "baz"]}], [op("replace", "/0/foo/0", "bum")], [{"foo": ["bum", "qux", "baz"]}]),
    ([{"foo": ["bar", "qux", "baz"], "bar": ["qux", "baz"]}], [op("copy", "/0/bar/0", from_="/0/foo/0")],
     [{"foo": ["bar", "qux", "baz"], "bar": ["bar", "qux", "baz"]}]),
    ([{"foo": ["bar", "qux", "baz"], "bar": ["qux", "baz"]}], [op("copy", "/0/bar", from_="/0/foo/0")],
     [{"foo": ["bar", "qux", "baz"], "bar": "bar"}]),
    ([{"foo": {"bar": ["qux", "baz"]}, "baz": {"qux": "bum"}}], [op("copy", "/0/baz/bar", from_="/0/foo/bar")],
     [{"baz": {"bar": ["qux", "baz"], "qux": "bum"}, "foo": {"bar": ["qux", "baz"]}}]),
    ({"foo": ["bar"]}, [op("copy", "/foo/0", from_="/foo")], {"foo": [["bar"], "bar"]}),
    ({"foo": ["bar", "qux", "baz"]}, [op("remove", "/foo/-2")], {"foo": ["bar", "baz"]}),
    ({"foo": []}, [op("add", "/foo/-1", "qux")], {"foo": ["qux"]}),
    ({"bar": [{"baz": None}]}, [op("replace", "/bar/0/baz", 1)], {"bar": [{"baz": 1}]}),
    ({"bar": [{"baz": 1}]}, [op("replace", "/bar/0/baz", None, has_value=True)], {"bar": [{"baz": None}]}),
    ({"bar": [None]}, [op("replace", "/bar/0", 1)], {"bar": [1]}),
    ({"bar": [1]}, [op("replace", "/bar/0", None, has_value=True)], {"bar": [None]}),
    # the library's test limits what copies may add; the apiserver sets no limit, so the case of BadCases
    # with 49 'A's (over that limit) applies too
    ({"foo": ["A", "A" * 49]}, [op("copy", "/foo/-", from_="/foo/1"), op("copy", "/foo/-", from_="/foo/1")],
     {"foo": ["A", "A" * 49, "A" * 49, "A" * 49]}),
    ({"id": "0", "parentID": "0"},
     [op("test", "", {"id": "0", "parentID": "0"}),
      op("replace", "", {"id": "7", "originalID": "bar", "parentID": "0"})],
     {"id": "7", "originalID": "bar", "parentID": "0"}),
    # MutationTestCases: both change the document
    ({"foo": "bar", "qux": {"baz": 1, "bar": None}}, [op("remove", "/qux/bar")], {"foo": "bar", "qux": {"baz": 1}}),
    ({"foo": "bar", "qux": {"baz": 1, "bar": None}}, [op("replace", "/qux/baz", None, has_value=True)],
     {"foo": "bar", "qux": {"baz": None, "bar": None}}),
]


@pytest.mark.parametrize(("doc", "ops", "want"), LIBRARY_CASES)
def test_library_cases(doc: object, ops: list, want: object) -> None:
    assert apply_patch(doc, ops) == want


# BadCases, with the library's texts
LIBRARY_BAD_CASES = [
    ({"foo": "bar"}, [op("add", "/baz/bat", "qux")],
     'add operation does not apply: doc is missing path: "/baz/bat": missing value'),
    ({"a": {"b": {"d": 1}}}, [op("remove", "/a/b/c")],
     "error in remove for path: '/a/b/c': Unable to remove nonexistent key: c: missing value"),
    ({"a": {"b": {"d": 1}}}, [op("move", "/a/b/e", from_="/a/b/c")],
     "error in move for path: 'c': Unable to remove nonexistent key: c: missing value"),
    ({"a": {"b": [1]}}, [op("remove", "/a/b/1")],
     "error in remove for path: '/a/b/1': Unable to access invalid index: 1: invalid index referenced"),
    ({"a": {"b": [1]}}, [op("move", "/a/b/2", from_="/a/b/1")],
     "error in move for path: '1': Unable to access invalid index: 1: invalid index referenced"),
    ({"foo": "bar"}, [{"op": "add", "pathz": "/baz", "value": "qux"}],
     "add operation failed to decode path: missing value"),
    ({"foo": "bar"}, [op("add", "", "qux")], 'add operation does not apply: doc is missing path: "": missing value'),
    ({"foo": ["bar", "baz"]}, [op("replace", "/foo/2", "bum")],
     "replace operation does not apply: doc is missing key: /foo/2: missing value"),
    ({"foo": ["bar", "baz"]}, [op("add", "/foo/-4", "bum")],
     "error in add for path: '/foo/-4': Unable to access invalid index: -4: invalid index referenced"),
    ({"name": {"foo": "bat", "qux": "bum"}}, [op("replace", "/foo/bar", "baz")],
     "replace operation does not apply: doc is missing path: /foo/bar: missing value"),
    ({"foo": ["bar"]}, [op("add", "/foo/2", "bum")],
     "error in add for path: '/foo/2': Unable to access invalid index: 2: invalid index referenced"),
    ({"foo": []}, [op("remove", "/foo/-")],
     "error in remove for path: '/foo/-': strconv.Atoi: parsing \"-\": invalid syntax"),
    ({"foo": []}, [op("remove", "/foo/-1")],
     "error in remove for path: '/foo/-1': Unable to access invalid index: -1: invalid index referenced"),
    ({"foo": ["bar"]}, [op("remove", "/foo/-2")],
     "error in remove for path: '/foo/-2': Unable to access invalid index: -2: invalid index referenced"),
    ({}, [{"op": None, "path": ""}], "Unexpected kind: unknown"),
    ({}, [{"op": "add", "path": None}], "add operation failed to decode path: missing value"),
    ({}, [{"op": "copy", "from": None}],
     "copy operation failed to decode from: operation, missing from field: missing value"),
    ({"foo": ["bar"]}, [op("copy", "/foo/6666666666", from_="/")],
     "error while adding value during copy: Unable to access invalid index: 6666666666: invalid index referenced"),
    ({"foo": ["bar"]}, [op("copy", "/foo/2", from_="/foo/0")],
     "error while adding value during copy: Unable to access invalid index: 2: invalid index referenced"),
    ({"foo": ["all", "grass", "cows", "eat"]}, [op("move", "/foo/4", from_="/foo/1")],
     "error in move for path: '/foo/4': Unable to access invalid index: 4: invalid index referenced"),
    # beyond the library's table: other texts the apiserver can return
    ({"foo": ["bar"]}, [op("add", "/foo/x", 1)],
     "error in add for path: '/foo/x': value was not a proper array index: 'x': strconv.Atoi: parsing \"x\": "
     "invalid syntax"),
    ({"foo": ["bar"]}, [op("add", "/foo/99999999999999999999", 1)],
     "error in add for path: '/foo/99999999999999999999': value was not a proper array index: "
     "'99999999999999999999': strconv.Atoi: parsing \"99999999999999999999\": value out of range"),
    ({"foo": ["bar"]}, [op("test", "/foo/3", "x")],
     "error in test for path: '/foo/3': Unable to access invalid index: 3: invalid index referenced"),
    ({"foo": 1}, [op("test", "/foo/bar/x", 1)],
     "test operation does not apply: is missing path: /foo/bar/x: missing value"),
    ({"foo": 1}, [op("copy", "/x", from_="/a/b")],
     "copy operation does not apply: doc is missing from path: /a/b: missing value"),
    ({"foo": 1}, [op("copy", "/a/b", from_="/foo")],
     "copy operation does not apply: doc is missing destination path: /a/b: missing value"),
    ({"foo": 1}, [op("move", "/a/b", from_="/foo")],
     "move operation does not apply: doc is missing destination path: /a/b: missing value"),
    ({"foo": 1}, [op("move", "/x", from_="/a/b")],
     "move operation does not apply: doc is missing from path: /a/b: missing value"),
    ({"foo": 1}, [op("remove", "/a/b")], 'remove operation does not apply: doc is missing path: "/a/b": missing value'),
    ({"foo": 1}, [op("replace", "", "x")], "replace operation value must be object or array: %!w(<nil>)"),
    ({"foo": 1}, [op("Add", "/x", 1)], "Unexpected kind: Add"),
    # the apiserver writes op and path with Go's %q, which JSON reads back only for some characters
    ({"foo": 1}, [op("add", "/a\x07", 1)], "add operation failed to decode path: missing value"),
    ({"foo": 1}, [op("replace", "/a\x7f", 1)],
     "replace operation failed to decode path: invalid character 'x' in string escape code"),
    ({"foo": 1}, [op("add\v", "/x", 1)], "Unexpected kind: unknown"),
]


@pytest.mark.parametrize(("doc", "ops", "message"), LIBRARY_BAD_CASES)
def test_library_bad_cases(doc: object, ops: list, message: str) -> None:
    with pytest.raises(JSONPatchError) as e:
        apply_patch(doc, ops)
    assert str(e.value) == message
    assert not isinstance(e.value, PatchTestFailed)


def test_characters_go_quoting_keeps() -> None:
    doc = apply_patch({}, [op("add", "/tab\there", 1), op("add", "/é✓", 2), op("add", "/~1~0", 3)])
    assert doc == {"tab\there": 1, "é✓": 2, "/~": 3}


# ---------------------------------------------------------------------------------------------
# TestCases (the test operation); the apiserver always sends a value when the expression sets one, even null,
# where the library's tests decode "value": null to no value at all: those cases differ, as noted.

TEST_OP_CASES = [
    ({"baz": "qux", "foo": ["a", 2, "c"]}, [op("test", "/baz", "qux"), op("test", "/foo/1", 2)], None),
    ({"baz": "qux"}, [op("test", "/baz", "bar")], "/baz"),
    ({"baz": "qux", "foo": ["a", 2, "c"]}, [op("test", "/baz", "qux"), op("test", "/foo/1", "c")], "/foo/1"),
    ({"baz": "qux"}, [op("test", "/foo", 42)], "/foo"),
    # library: passes (its null is "no value"); apiserver: a null value never matches a missing member
    ({"baz": "qux"}, [op("test", "/foo", None, has_value=True)], "/foo"),
    # library: passes; apiserver: a null member decodes to nothing, which a null value does not match
    ({"foo": None}, [op("test", "/foo", None, has_value=True)], "/foo"),
    # library: fails; apiserver: an empty object or array equals null
    ({"foo": {}}, [op("test", "/foo", None, has_value=True)], None),
    ({"foo": []}, [op("test", "/foo", None, has_value=True)], None),
    ({"baz/foo": "qux"}, [op("test", "/baz~1foo", "qux")], None),
    ({"foo": []}, [op("test", "/foo")], "/foo"),  # no value: only a missing member passes
    ({"baz": []}, [op("test", "/foo")], None),
    # beyond the library's table
    ({"replicas": 1}, [op("test", "/replicas", 1.0)], None),  # the expression's double is the document's integer
    ({"n": 1.5}, [op("test", "/n", 1.5)], None),
    ({"s": "a<b"}, [op("test", "/s", "a<b")], "/s"),  # the document's text escapes '<', the value's does not
    ({"s": "a\nb"}, [op("test", "/s", "a\nb")], None),
    ({"m": {"a": 1, "b": [1, {"c": "d"}]}}, [op("test", "/m", {"b": [1, {"c": "d"}], "a": 1})], None),
    ({"m": {"a": 1}}, [op("test", "/m", {"a": 1, "b": 2})], "/m"),
    ({"l": [1, 2]}, [op("test", "/l", [2, 1])], "/l"),
    ({"l": [1, 2]}, [op("test", "/l/-1", 2)], None),
    ({"b": True}, [op("test", "/b", 1)], "/b"),
    ({"a": 1}, [op("test", "", {"a": 1})], None),
    ({"a": 1}, [op("test", "", {"a": 2})], ""),
]


@pytest.mark.parametrize(("doc", "ops", "failed_path"), TEST_OP_CASES)
def test_test_operation(doc: object, ops: list, failed_path: str | None) -> None:
    if failed_path is not None:
        with pytest.raises(PatchTestFailed) as e:
            apply_patch(doc, ops)
        assert str(e.value) == f"testing value {failed_path} failed: test failed"
    else:
        assert apply_patch(doc, ops) == doc


def test_a_test_after_a_change_sees_the_change() -> None:
    ops = [op("add", "/a", "<"), op("test", "/a", "<"), op("copy", "/b", from_="/a"), op("test", "/b", "<")]
    with pytest.raises(PatchTestFailed, match="testing value /b failed"):  # a copy is re-encoded by Go
        apply_patch({}, ops)
    assert apply_patch({}, ops[:2]) == {"a": "<"}


# TestAdd (negative indices are supported, as the apiserver leaves the library's option)
@pytest.mark.parametrize(("key", "message"), [
    ("0", ""),
    ("1", "Unable to access invalid index: 1: invalid index referenced"),
    ("-1", ""),
    ("-2", "Unable to access invalid index: -2: invalid index referenced"),
])
def test_add_to_empty_array(key: str, message: str) -> None:
    if message:
        with pytest.raises(JSONPatchError) as e:
            apply_patch({"a": []}, [op("add", f"/a/{key}", "v")])
        assert str(e.value) == f"error in add for path: '/a/{key}': {message}"
    else:
        assert apply_patch({"a": []}, [op("add", f"/a/{key}", "v")]) == {"a": ["v"]}


# EqualityCases (both sides as the library reads raw JSON; Equal is symmetric on these)
EQUALITY_CASES = [
    ("ExtraKeyFalse", {"foo": "bar"}, {"foo": "bar", "baz": "qux"}, False),
    ("KeysOutOfOrderTrue", {"baz": "qux", "foo": "bar"}, {"foo": "bar", "baz": "qux"}, True),
    ("ComparingNullFalse", {"foo": None}, {"foo": "bar"}, False),
    ("ComparingNullTrue", {"foo": None}, {"foo": None}, True),
    ("ArrayOutOfOrderFalse", ["foo", "bar", "baz"], ["bar", "baz", "foo"], False),
    ("ArrayTrue", ["foo", "bar", "baz"], ["foo", "bar", "baz"], True),
    ("NonStringTypesTrue", {"int": 6, "bool": True, "float": 7.0, "string": "the_string", "null": None},
     {"int": 6, "bool": True, "float": 7.0, "string": "the_string", "null": None}, True),
    ("NestedNullFalse", {"foo": ["an", "array"], "bar": {"an": "object"}}, {"foo": None, "bar": None}, False),
    ("NullCompareStringFalse", "foo", None, False),
    ("NullCompareIntFalse", 6, None, False),
    ("NullCompareFloatFalse", 6.01, None, False),
    ("NullCompareBoolFalse", False, None, False),
]


@pytest.mark.parametrize(("name", "a", "b", "equal"), EQUALITY_CASES, ids=[c[0] for c in EQUALITY_CASES])
def test_equality(name: str, a: object, b: object, equal: bool) -> None:
    assert _equal(_Node(a, True), _Node(b, True)) is equal
    assert _equal(_Node(b, True), _Node(a, True)) is equal


def test_library_crashes_are_flagged() -> None:
    # adding below a member that an earlier operation set to null: Go assigns into a nil map and panics
    with pytest.raises(JSONPatchError) as e:
        apply_patch({}, [op("add", "/a", None, has_value=True), op("add", "/a/b", 1)])
    assert e.value.panic
    with pytest.raises(JSONPatchError) as e:
        apply_patch({}, [op("replace", "")])
    assert e.value.panic


def test_other_errors_get_the_apiserver_prefix() -> None:
    with pytest.raises(MutationError) as e:
        apply_json_patch_mutation(deployment(), [op("remove", "/spec/replicas")])
    assert str(e.value) == ("JSON Patch: error in remove for path: '/spec/replicas': "
                            "Unable to remove nonexistent key: replicas: missing value")


# ---------------------------------------------------------------------------------------------
# the patched object decoded back into its Go type (json_patch.go's strict decoding)

def test_invalid_cel_initializer_field_is_a_strict_decoding_error() -> None:
    # json_patch_test.go "jsonPatch invalid CEL initializer field"
    ops = [op("add", "/spec/template/spec/containers/-", {"name": "x", "ports": [{"containerPortZ": 8080}]})]
    patched = apply_json_patch_mutation(containers("a"), ops).object
    with pytest.raises(MutationError) as e:
        decode_patched(patched, schema_set("1.34"))
    assert e.value.code == 500
    assert str(e.value) == ('Internal error occurred: strict decoding error: unknown field '
                            '"spec.template.spec.containers[1].ports[0].containerPortZ"')


def test_wrong_type_after_a_patch() -> None:
    patched = apply_json_patch_mutation(deployment(replicas=1), [op("replace", "/spec/replicas", "3")]).object
    with pytest.raises(MutationError) as e:
        decode_patched(patched, schema_set("1.34"))
    assert str(e.value) == ("Internal error occurred: json: cannot unmarshal string into Go struct field "
                            "DeploymentSpec.spec.replicas of type int32")


def test_a_well_typed_result_and_custom_resources_pass() -> None:
    decode_patched(containers("a", "b"), schema_set("1.34"))
    decode_patched({"apiVersion": "example.com/v1", "kind": "Thing", "spec": {"anything": 1}}, schema_set("1.34"))
