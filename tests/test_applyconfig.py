"""The ApplyConfiguration mutation of MutatingAdmissionPolicy (app.vap.mutating.applyconfig).

Restates kubernetes/kubernetes staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch/smd_test.go
(TestApplyConfiguration: each expression's Object value is written out here as the ObjectValue it evaluates to), the
type-name cases of the dispatcher tests (dispatcher_test.go, "apply configuration with invalid type name"), and the
merge triplets of sigs.k8s.io/structured-merge-diff typed/merge_test.go ("struct grab bag", "associative list"), with
their smd schemas written as the CRD schemas that convert to them.
"""

from __future__ import annotations

import collections
import copy
import functools
from collections.abc import Mapping
from typing import Any

import pytest

from app.vap.mutating.applyconfig import (
    _ASSOCIATIVE,
    _ATOMIC,
    _EMPTY,
    _NONE,
    _STRING,
    ApplyConfigError,
    ObjectValue,
    _deduce,
    _Error,
    _find_atomics,
    _is_list,
    _is_map,
    _item_element,
    _item_identity,
    _leaf,
    _merge,
    _prefixed,
    _root,
    _scalar_errors,
    _valid,
    _validate,
    apply_configuration,
    check_type_names,
    merge_apply_configuration,
)
from app.vap.schemas import schema_set

O = ObjectValue  # noqa: E741 - reads like the CEL constructor
SCHEMAS = schema_set("1.34")
DEPLOYMENT = SCHEMAS.kind("apps", "v1", "Deployment")


def deployment(spec: dict | None = None, **meta: Any) -> dict:
    obj: dict[str, Any] = {"apiVersion": "apps/v1", "kind": "Deployment", "spec": spec or {}}
    if meta:
        obj["metadata"] = meta
    return obj


def pod_spec(**fields: Any) -> dict:
    return {"template": {"spec": fields}}


def obj(**spec: Any) -> ObjectValue:
    return O("Object", {"spec": O("Object.spec", spec)})


def template_spec(**fields: Any) -> ObjectValue:
    return obj(template=O("Object.spec.template", {"spec": O("Object.spec.template.spec", fields)}))


def apply(live: dict, result: Any) -> dict:
    before = copy.deepcopy(live)
    out = apply_configuration(live, result, DEPLOYMENT, SCHEMAS)
    assert live == before  # the input is never modified
    return out


# ---------------------------------------------------------------------------------------------
# smd_test.go TestApplyConfiguration

def test_add_to_list_type_map() -> None:
    result = template_spec(volumes=[O("Object.spec.template.spec.volumes", {"name": "y"})])
    assert apply(deployment(pod_spec(volumes=[{"name": "x"}])), result) == \
        deployment(pod_spec(volumes=[{"name": "x"}, {"name": "y"}]))


def test_update_list_type_map_entry() -> None:
    volume = O("Object.spec.template.spec.volumes",
               {"name": "y", "hostPath": O("Object.spec.template.spec.volumes.hostPath", {"path": "a"})})
    got = apply(deployment(pod_spec(volumes=[{"name": "x"}, {"name": "y"}])), template_spec(volumes=[volume]))
    assert got == deployment(pod_spec(volumes=[{"name": "x"}, {"name": "y", "hostPath": {"path": "a"}}]))


def test_with_conditionals_and_old_object() -> None:
    # "apply configuration with conditionals" / "with old object": the expression computed replicas 3
    assert apply(deployment({"replicas": 2}), obj(replicas=3)) == deployment({"replicas": 3})
    assert apply(deployment({"replicas": 1}), obj(replicas=3)) == deployment({"replicas": 3})


def test_complex_apply_configuration_initialization() -> None:
    container = O("Object.spec.template.spec.containers", {
        "name": "nginx", "image": "nginx:1.14.2",
        "ports": [O("Object.spec.template.spec.containers.ports", {"containerPort": 80})],
        "resources": O("Object.spec.template.spec.containers.resources", {"limits": {"cpu": "128M"}}),
    })
    result = obj(replicas=1, template=O("Object.spec.template", {
        "metadata": O("Object.spec.template.metadata", {"labels": {"app": "nginx"}}),
        "spec": O("Object.spec.template.spec", {"containers": [container]}),
    }))
    assert apply(deployment(), result) == deployment({"replicas": 1, "template": {
        "metadata": {"labels": {"app": "nginx"}},
        "spec": {"containers": [{"name": "nginx", "image": "nginx:1.14.2", "ports": [{"containerPort": 80}],
                                 "resources": {"limits": {"cpu": "128M"}}}]},
    }})


ERROR_CASES = [
    ("apply configuration with change to atomic",
     obj(selector=O("Object.spec.selector", {"matchLabels": {"l": "v"}})),
     "error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.selector"),
    ("apply configuration with invalid type name",
     O("Object", {"spec": O("Object.specx", {"replicas": 1})}),
     'type mismatch: unexpected type name "Object.specx", expected "Object.spec", which matches field name path '
     "from root Object type"),
    ("apply configuration with invalid field name",
     obj(replicasx=1),
     "error applying patch: failed to convert patch object to typed object: .spec.replicasx: field not declared in "
     "schema"),
    # the compiler refuses a string ("must evaluate to Object but got string"); at run time the apiserver says:
    ("apply configuration with invalid return type", "I'm a teapot!",
     "unsupported return type from ApplyConfiguration expression: string"),
]


@pytest.mark.parametrize(("name", "result", "message"), ERROR_CASES, ids=[c[0] for c in ERROR_CASES])
def test_errors(name: str, result: Any, message: str) -> None:
    with pytest.raises(ApplyConfigError) as e:
        apply(deployment({"replicas": 1}), result)
    assert str(e.value) == message


# ---------------------------------------------------------------------------------------------
# beyond smd_test.go: what the merge does to common mutations, and the other errors

def test_sidecar_is_merged_by_name_and_nothing_is_deleted() -> None:
    live = deployment(pod_spec(containers=[{"name": "app", "image": "app:1", "ports": [
        {"containerPort": 80, "protocol": "TCP"}]}]), name="web", labels={"a": "1"})
    result = O("Object", {
        "metadata": O("Object.metadata", {"labels": {"b": "2"}}),
        "spec": O("Object.spec", {"template": O("Object.spec.template", {"spec": O("Object.spec.template.spec", {
            "initContainers": [O("Object.spec.template.spec.initContainers",
                                 {"name": "mesh-proxy", "image": "mesh-proxy/v1.0.0", "restartPolicy": "Always"})],
            # the port's protocol key defaults to TCP, so this is the live port, not a second one
            "containers": [O("Object.spec.template.spec.containers", {"name": "app", "ports": [
                O("Object.spec.template.spec.containers.ports", {"containerPort": 80, "name": "http"})]})],
        })})}),
    })
    assert apply(live, result) == deployment(pod_spec(
        containers=[{"name": "app", "image": "app:1",
                     "ports": [{"containerPort": 80, "protocol": "TCP", "name": "http"}]}],
        initContainers=[{"name": "mesh-proxy", "image": "mesh-proxy/v1.0.0", "restartPolicy": "Always"}],
    ), name="web", labels={"a": "1", "b": "2"})


def test_apiversion_and_kind_come_from_the_object() -> None:
    result = O("Object", {"kind": "Pod", "spec": O("Object.spec", {"replicas": 2})})
    assert apply(deployment(), result) == deployment({"replicas": 2})


def test_atomic_lists_and_several_atomics() -> None:
    result = template_spec(
        tolerations=[O("Object.spec.template.spec.tolerations", {"key": "k"})],
        containers=[O("Object.spec.template.spec.containers", {"name": "a", "args": ["x"]})],
    )
    with pytest.raises(ApplyConfigError) as e:
        apply(deployment(), result)
    assert str(e.value) == ("error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or "
                            "structs: .spec.template.spec.containers[0].args, .spec.template.spec.tolerations")


def test_validation_errors_of_the_apply_configuration() -> None:
    def error(result: Any, live: dict | None = None) -> str:
        with pytest.raises(ApplyConfigError) as e:
            apply(live or deployment(), result)
        return str(e.value)

    prefix = "error applying patch: failed to convert patch object to typed object: "
    assert error(obj(replicas="3")) == prefix + ".spec.replicas: expected numeric (int or float), got string"
    assert error(obj(paused=1)) == prefix + ".spec.paused: expected boolean, got &{1}"
    assert error(obj(revisionHistoryLimit=[1])) == prefix + \
        ".spec.revisionHistoryLimit: expected numeric (int or float), got []interface {}"
    containers = [O("Object.spec.template.spec.containers", {"name": "a"}),
                  O("Object.spec.template.spec.containers", {"name": "a"})]
    assert error(template_spec(containers=containers)) == prefix + \
        '.spec.template.spec.containers: duplicate entries for key [name="a"]'
    assert error(template_spec(containers=[O("Object.spec.template.spec.containers", {"image": "x"})])) == prefix + \
        '.spec.template.spec.containers: element 0: associative list with keys has an element that omits all key ' \
        'fields ["name"] (and doesn\'t have default values for any key fields)'
    assert error(O("Object", {"spec": O("Object.spec", {"x": 1}), "status": O("Object.status", {"y": 1})})) == \
        prefix + "errors:\n  .spec.x: field not declared in schema\n  .status.y: field not declared in schema"
    live = deployment(pod_spec(containers=[{"name": "a"}, {"name": "a"}]))
    assert error(obj(replicas=1), live) == ("error applying patch: failed to convert original object to typed "
                                            'object: .spec.template.spec.containers: duplicate entries for key '
                                            '[name="a"]')


def test_unknown_kind_is_unavailable() -> None:
    with pytest.raises(ApplyConfigError) as e:
        apply_configuration({"apiVersion": "example.com/v1", "kind": "Thing"}, O("Object"), None, SCHEMAS)
    assert e.value.code == 503
    assert str(e.value).startswith("Resource kind example.com/v1, Kind=Thing not found.")


def test_type_names() -> None:
    # dynamic.ObjectVal's check: nested names follow the field path; lists and maps are transparent
    good = O("Object", {"spec": O("Object.spec", {"template": O("Object.spec.template", {}),
                                                  "list": [O("Object.spec.list", {})],
                                                  "map": {"k": O("Object.spec.map", {})}})})
    assert check_type_names(good) is None
    bad = O("Object", {"spec": O("Object.spec", {"a": [O("Object.spec.b", {})], "c": O("Object.c", {})})})
    assert check_type_names(bad) == (
        'type mismatch: unexpected type name "Object.spec.b", expected "Object.spec.a", which matches field name path '
        'from root Object type\nunexpected type name "Object.c", expected "Object.spec.c", which matches field name '
        "path from root Object type")


# ---------------------------------------------------------------------------------------------
# custom resources: the CRD's schema decides

def crd(properties: dict, **root: Any) -> dict:
    schema = {"type": "object", "properties": properties, **root}
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "spec": {"group": "example.com", "names": {"kind": "Thing", "plural": "things"}, "scope": "Namespaced",
                     "versions": [{"name": "v1", "served": True, "storage": True,
                                   "schema": {"openAPIV3Schema": schema}}]}}


def thing(**fields: Any) -> dict:
    return {"apiVersion": "example.com/v1", "kind": "Thing", **fields}


def test_custom_resource_preserving_unknown_fields() -> None:
    schemas = schema_set("1.34", [crd({"spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}})])
    kind = schemas.kind("example.com", "v1", "Thing")
    live = thing(spec={"a": {"b": 1}})
    got = apply_configuration(live, O("Object", {"spec": O("Object.spec", {"a": {"c": 2}, "d": "x"})}), kind, schemas)
    assert got == thing(spec={"a": {"b": 1, "c": 2}, "d": "x"})
    # a list among unknown fields is atomic, but the atomic check only looks at declared fields: it is replaced
    got = apply_configuration(thing(spec={"l": [1, 2]}), O("Object", {"spec": O("Object.spec", {"l": [3]})}),
                              kind, schemas)
    assert got == thing(spec={"l": [3]})


# smd typed/merge_test.go, "struct grab bag" and "associative list" (their lhs may hold duplicates)
GRAB_BAG = crd({
    "numeric": {"type": "number"}, "string": {"type": "string"}, "bool": {"type": "boolean"},
    "setStr": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
    "setBool": {"type": "array", "items": {"type": "boolean"}, "x-kubernetes-list-type": "set"},
    "setNumeric": {"type": "array", "items": {"type": "number"}, "x-kubernetes-list-type": "set"},
})
ASSOCIATIVE = crd({
    "list": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["key", "id"],
             "items": {"type": "object", "properties": {
                 "key": {"type": "string"}, "id": {"type": "number"},
                 "value": {"type": "object", "additionalProperties": {"type": "string"}},
                 "bv": {"type": "boolean"}, "nv": {"type": "number"}}}},
    "atomicList": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "atomic"},
})


def merge(definition: dict, lhs: dict, rhs: dict) -> Any:
    schemas = schema_set("1.34", [definition])
    root = _root(schemas, schemas.kind("example.com", "v1", "Thing"))
    out, errors = _merge(lhs, rhs, root)
    assert not errors
    return {} if out is _NONE else out


S = "setStr"
GRAB_BAG_TRIPLETS = [
    ({"numeric": 1}, {"numeric": 3.14159}, {"numeric": 3.14159}),
    ({"numeric": 3.14159}, {"numeric": 1}, {"numeric": 1}),
    ({"string": "aoeu"}, {"bool": True}, {"string": "aoeu", "bool": True}),
    ({S: ["a", "b", "c"]}, {S: ["a", "b"]}, {S: ["a", "b", "c"]}),
    ({S: ["a", "b"]}, {S: ["a", "b", "c"]}, {S: ["a", "b", "c"]}),
    ({S: ["a", "b", "c"]}, {S: []}, {S: ["a", "b", "c"]}),
    ({S: []}, {S: ["a", "b", "c"]}, {S: ["a", "b", "c"]}),
    ({S: ["a", "b"]}, {S: ["b", "a"]}, {S: ["b", "a"]}),
    ({S: ["a", "b", "c"]}, {S: ["d", "e", "f"]}, {S: ["a", "b", "c", "d", "e", "f"]}),
    ({S: ["a", "b", "c"]}, {S: ["c", "d", "e", "f"]}, {S: ["a", "b", "c", "d", "e", "f"]}),
    ({S: ["a", "b", "c", "g", "f"]}, {S: ["c", "d", "e", "f"]}, {S: ["a", "b", "c", "g", "d", "e", "f"]}),
    ({S: ["a", "b", "c"]}, {S: ["d", "e", "f", "x", "y", "z"]}, {S: ["a", "b", "c", "d", "e", "f", "x", "y", "z"]}),
    ({S: ["c", "d", "e", "f"]}, {S: ["a", "c", "e"]}, {S: ["a", "c", "d", "e", "f"]}),
    ({S: ["a", "b", "c", "x", "y", "z"]}, {S: ["d", "e", "f"]}, {S: ["a", "b", "c", "x", "y", "z", "d", "e", "f"]}),
    ({S: ["a", "b", "c", "x", "y", "z"]}, {S: ["d", "e", "f", "x", "y", "z"]},
     {S: ["a", "b", "c", "d", "e", "f", "x", "y", "z"]}),
    ({S: ["c", "a", "g", "f"]}, {S: ["c", "f", "a", "g"]}, {S: ["c", "f", "a", "g"]}),
    ({S: ["a", "b", "c", "d"]}, {S: ["d", "e", "f", "a"]}, {S: ["b", "c", "d", "e", "f", "a"]}),
    ({S: list("cdefghij")}, {S: ["2", "h", "3", "e", "4", "k", "l"]},
     {S: ["c", "d", "f", "g", "2", "h", "i", "j", "3", "e", "4", "k", "l"]}),
    ({S: list("abcdefghij")}, {S: ["1", "b", "2", "h", "3", "e", "4", "k", "l"]},
     {S: ["a", "1", "b", "c", "d", "f", "g", "2", "h", "i", "j", "3", "e", "4", "k", "l"]}),
    ({S: ["a", "b", "b"]}, {S: ["c"]}, {S: ["a", "b", "b", "c"]}),
    ({S: ["a", "b", "b"]}, {S: ["b"]}, {S: ["a", "b"]}),
    ({S: ["a", "b", "b"]}, {S: ["a"]}, {S: ["a", "b", "b"]}),
    ({S: list("abcdec")}, {S: ["1", "b", "2", "e", "d"]}, {S: ["a", "1", "b", "c", "2", "e", "c", "d"]}),
    ({S: list("abcdec")}, {S: ["1", "b", "2", "c", "e", "d"]}, {S: ["a", "1", "b", "2", "c", "e", "d"]}),
    ({S: ["a", "a", "b", "b"]}, {S: ["b", "c", "d"]}, {S: ["a", "a", "b", "c", "d"]}),
    ({S: ["a", "a", "b", "b"]}, {S: []}, {S: ["a", "a", "b", "b"]}),
    ({"setBool": [True]}, {"setBool": [False]}, {"setBool": [True, False]}),
    ({"setNumeric": [1, 2, 3.14159]}, {"setNumeric": [1, 2, 3]}, {"setNumeric": [1, 2, 3.14159, 3]}),
    ({S: ["c", "a", "g", "f", "c", "a"]}, {S: ["c", "f", "a", "g"]}, {S: ["c", "f", "a", "g"]}),
    ({"setNumeric": [1, 2, 3.14159, 1, 2]}, {"setNumeric": [1, 2, 3]}, {"setNumeric": [1, 2, 3.14159, 3]}),
    ({"setBool": [True, False, True]}, {"setBool": [False]}, {"setBool": [True, False, True]}),
    ({"setBool": [True, False, True]}, {"setBool": [True]}, {"setBool": [True, False]}),
]


@pytest.mark.parametrize(("lhs", "rhs", "out"), GRAB_BAG_TRIPLETS)
def test_struct_grab_bag(lhs: dict, rhs: dict, out: dict) -> None:
    assert merge(GRAB_BAG, lhs, rhs) == out


def item(key: str, id_: int, **more: Any) -> dict:
    return {"key": key, "id": id_, **more}


ASSOCIATIVE_TRIPLETS = [
    ({"list": [item("a", 1, value={"a": "a"})]}, {"list": [item("a", 1, value={"a": "a"})]},
     {"list": [item("a", 1, value={"a": "a"})]}),
    ({"list": [item("a", 1, value={"a": "a"})]}, {"list": [item("a", 2, value={"a": "a"})]},
     {"list": [item("a", 1, value={"a": "a"}), item("a", 2, value={"a": "a"})]}),
    ({"list": [item("a", 1), item("b", 1)]}, {"list": [item("a", 1), item("a", 2)]},
     {"list": [item("a", 1), item("b", 1), item("a", 2)]}),
    ({"list": [item("b", 2)]}, {"list": [item("a", 1), item("b", 2), item("c", 3)]},
     {"list": [item("a", 1), item("b", 2), item("c", 3)]}),
    ({"list": [item("a", 1), item("b", 2), item("c", 3)]}, {"list": [item("c", 3), item("b", 2)]},
     {"list": [item("a", 1), item("c", 3), item("b", 2)]}),
    ({"list": [item("a", 1), item("b", 2), item("c", 3)]}, {"list": [item("c", 3), item("a", 1)]},
     {"list": [item("b", 2), item("c", 3), item("a", 1)]}),
    ({"atomicList": ["a", "a", "a"]}, {"atomicList": None}, {"atomicList": None}),
    ({"atomicList": ["a", "b", "c"]}, {"atomicList": []}, {"atomicList": []}),
    ({"atomicList": ["a", "a", "a"]}, {"atomicList": ["a", "a"]}, {"atomicList": ["a", "a"]}),
    ({"list": [item("a", 1, bv=True), item("b", 2), item("a", 1, bv=False, nv=2)]},
     {"list": [item("a", 1, nv=3), item("c", 3), item("b", 2)]},
     {"list": [item("a", 1, nv=3), item("c", 3), item("b", 2)]}),
    ({"list": [item("a", 1, nv=1), item("a", 1, nv=2)]}, {"list": []},
     {"list": [item("a", 1, nv=1), item("a", 1, nv=2)]}),
    ({"list": [item("a", 1, nv=1), item("a", 1, nv=2)]}, {}, {"list": [item("a", 1, nv=1), item("a", 1, nv=2)]}),
]


@pytest.mark.parametrize(("lhs", "rhs", "out"), ASSOCIATIVE_TRIPLETS)
def test_associative_list(lhs: dict, rhs: dict, out: dict) -> None:
    assert merge(ASSOCIATIVE, lhs, rhs) == out


def test_public_merge_refuses_what_the_apiserver_refuses() -> None:
    schemas = schema_set("1.34", [ASSOCIATIVE])
    kind = schemas.kind("example.com", "v1", "Thing")
    assert merge_apply_configuration(thing(list=[item("a", 1, nv=1)]), {"list": [item("a", 1, bv=True)]},
                                     kind, schemas) == thing(list=[item("a", 1, nv=1, bv=True)])
    with pytest.raises(ApplyConfigError) as e:
        merge_apply_configuration(thing(), {"atomicList": ["a"]}, kind, schemas)
    assert str(e.value) == "invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .atomicList"


# ---------------------------------------------------------------------------------------------
# the quick test that a value is valid agrees with the walk that words its errors


def _valid_variants() -> list[dict]:
    container = {"name": "app", "image": "nginx", "ports": [{"containerPort": 80, "protocol": "TCP"}],
                 "env": [{"name": "A", "value": "1"}], "resources": {"limits": {"cpu": "1"}}}
    base = deployment(pod_spec(containers=[container], volumes=[{"name": "v", "emptyDir": {}}]), name="web",
                      labels={"app": "web"})
    variants = [base]

    def variant(change: Any) -> None:
        value = copy.deepcopy(base)
        change(value)
        variants.append(value)

    spec = lambda v: v["spec"]["template"]["spec"]  # noqa: E731
    variant(lambda v: v["spec"].update(replicas="three"))  # a string for an integer
    variant(lambda v: v["spec"].update(paused=1))  # a number for a boolean
    variant(lambda v: v["metadata"].update(labelz={"a": "b"}))  # a field the schema does not declare
    variant(lambda v: v["metadata"].update(labels=["a"]))  # a list for a map
    variant(lambda v: spec(v).update(containers={"name": "x"}))  # a map for a list
    variant(lambda v: spec(v)["containers"].append({"name": "app", "image": "other"}))  # a key given twice
    variant(lambda v: spec(v)["containers"].append(None))  # a null element of a keyed list
    variant(lambda v: spec(v)["containers"].append("app"))  # a scalar element of a keyed list
    variant(lambda v: spec(v)["containers"].append({"image": "no-name"}))  # no key field
    variant(lambda v: spec(v)["containers"][0]["ports"].append({"containerPort": 80, "protocol": "TCP"}))
    variant(lambda v: spec(v)["containers"][0].update(args=[1, "x"]))  # a number in a list of strings
    variant(lambda v: spec(v)["containers"][0].update(args=None, command=[]))
    variant(lambda v: spec(v)["containers"][0]["resources"]["limits"].update(memory={"x": 1}))
    variant(lambda v: v["metadata"].update(finalizers=["a", "a"]))  # a set given an element twice
    variant(lambda v: v["metadata"].update(finalizers=["a", None]))
    variant(lambda v: spec(v).update(nodeSelector={"a": None}))
    return variants


def _former_valid(value: Any, ref: Any) -> bool:
    """applyconfig._valid as it was before the types' plans (c955b80), for comparison."""
    atom = ref._atom or ref.atom
    scalar, of_list, of_map = atom.scalar, atom.list, atom.map
    if (scalar is not None) + (of_list is not None) + (of_map is not None) > 1:
        atom = _deduce(atom, value)
        scalar, of_list, of_map = atom.scalar, atom.list, atom.map
    if of_map is not None:
        if value is None:
            return True
        if not _is_map(value):
            return False
        fields, element = of_map.fields, of_map.element
        for key, item in value.items():
            child = fields.get(key) or element
            if child is None:
                return False
            if item.__class__ is str:
                child_atom = child._atom or child.atom
                if child_atom.scalar == _STRING and child_atom.list is None and child_atom.map is None:
                    continue
            if not _former_valid(item, child):
                return False
        return True
    if scalar is not None:
        return value is None or not _scalar_errors(scalar, value)
    if of_list is not None:
        if value is None:
            return True
        if not _is_list(value):
            return False
        element = of_list.element
        if of_list.relationship != _ASSOCIATIVE:
            return all(_former_valid(item, element) for item in value)
        seen: set[Any] = set()
        for item in value:
            try:
                identity = _item_identity(of_list, item)
            except ValueError:
                return False
            if identity in seen or not _former_valid(item, element):
                return False
            seen.add(identity)
        return True
    return False


def _quick(test: Any, value: Any, root: Any) -> bool | None:
    try:
        return test(value, root)
    except Exception:  # (any failure)
        return None


def _agree(value: Any, root: Any) -> bool:
    """Assert that _valid, the former _valid and _validate agree on a value; whether it is valid. Where the walk
    fails (an exception, e.g. a number too large for a float in a key), _valid answers False (and _errors leaves the
    value to the walk); the former one may also fail."""
    try:
        errors = _validate(value, root)
    except Exception:  # (any failure)
        assert _valid(value, root) is False, value
        assert not _quick(_former_valid, value, root), value
        return False
    assert _valid(value, root) is (not errors), (value, errors)
    assert _former_valid(value, root) is (not errors), (value, errors)
    return not errors


def test_the_quick_validity_test_agrees_with_the_walk_that_words_the_errors() -> None:
    root = _root(SCHEMAS, DEPLOYMENT)
    outcomes = [_agree(value, root) for value in _valid_variants()]
    assert outcomes.count(True) >= 2 and outcomes.count(False) >= 10  # both answers are met


# A CRD with every kind of type the merge schema knows, and an object of it that is valid.
EVERY_TYPE = crd({
    "str": {"type": "string"}, "bytes": {"type": "string", "format": "byte"},
    "when": {"type": "string", "format": "date-time"}, "int": {"type": "integer"}, "num": {"type": "number"},
    "bool": {"type": "boolean"}, "intOrString": {"x-kubernetes-int-or-string": True}, "any": {},
    "labels": {"type": "object", "additionalProperties": {"type": "string"}},
    "counts": {"type": "object", "additionalProperties": {"type": "integer"}},
    "nested": {"type": "object", "additionalProperties": {"type": "object", "properties": {
        "a": {"type": "string"}, "b": {"type": "array", "items": {"type": "integer"}}}}},
    "strict": {"type": "object", "properties": {"x": {"type": "string"}}, "additionalProperties": False},
    "both": {"type": "object", "properties": {"x": {"type": "integer"}}, "additionalProperties": {"type": "string"}},
    "atomicMap": {"type": "object", "x-kubernetes-map-type": "atomic", "properties": {"x": {"type": "string"}}},
    "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": True, "properties": {
        "typed": {"type": "integer"}}},
    "empty": {"type": "object"},
    "setStr": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
    "setInt": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "integer"}},
    "setNum": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "number"}},
    "setBool": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "boolean"}},
    "setAny": {"type": "array", "x-kubernetes-list-type": "set", "items": {"x-kubernetes-int-or-string": True}},
    "lists": {"type": "array", "items": {"type": "array", "items": {"type": "string"}}},
    "untypedItems": {"type": "array"},
    "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["port", "protocol"],
              "items": {"type": "object", "properties": {
                  "port": {"type": "integer"}, "protocol": {"type": "string", "default": "TCP"},
                  "name": {"type": "string"}}}},
    "byId": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["id"],
             "items": {"type": "object", "properties": {"id": {"x-kubernetes-int-or-string": True},
                                                         "v": {"type": "number"}}}},
    "groups": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
               "items": {"type": "object", "properties": {
                   "name": {"type": "string"},
                   "members": {"type": "array", "x-kubernetes-list-type": "map",
                               "x-kubernetes-list-map-keys": ["first", "last"],
                               "items": {"type": "object", "properties": {
                                   "first": {"type": "string"}, "last": {"type": "string"},
                                   "tags": {"type": "array", "x-kubernetes-list-type": "set",
                                            "items": {"type": "string"}}}}}}}},
})
EVERY_VALUE = thing(
    metadata={"name": "t", "labels": {"a": "b"}}, str="s", bytes="aGk=", when="2024-01-01T00:00:00Z", int=1, num=1.5,
    bool=True, intOrString="50%", any={"x": [1, {"y": None}]}, labels={"a": "b", "c": ""}, counts={"a": 1},
    nested={"k": {"a": "x", "b": [1, 2]}}, strict={"x": "y"}, both={"x": 1, "y": "z"}, atomicMap={"x": "y"},
    free={"typed": 1, "other": {"deep": [1, "a", None]}}, empty={"a": {"b": [1]}}, setStr=["a", "b"],
    setInt=[1, 2], setNum=[1, 2.5], setBool=[True, False], setAny=["a", 1], lists=[["a"], ["a"]],
    untypedItems=[1, "a", {"b": 2}, [3]],
    ports=[{"port": 80}, {"port": 80, "protocol": "UDP"}, {"port": 443, "protocol": "TCP", "name": "https"}],
    byId=[{"id": 1}, {"id": "1"}, {"id": 2.5, "v": 1}],
    groups=[{"name": "g", "members": [{"first": "a", "last": "b", "tags": ["x"]}, {"first": "a"}, {"last": "b"}]},
            {"name": "h", "members": []}],
)

class _Text(str):
    pass


class _Number(int):
    pass


class _Fields(Mapping):
    """A mapping that is no dict."""

    def __init__(self, **fields: Any) -> None:
        self.fields = fields

    def __getitem__(self, key: str) -> Any:
        return self.fields[key]

    def __iter__(self) -> Any:
        return iter(self.fields)

    def __len__(self) -> int:
        return len(self.fields)


# fields of EVERY_VALUE changed, and whether the object stays valid
EVERY_TYPE_CHANGES: list[tuple[dict, bool]] = [
    ({"int": True}, False), ({"int": 1.5}, True), ({"int": _Number(3)}, True), ({"num": 1}, True),
    ({"bool": 1}, False), ({"bool": 0.0}, False), ({"str": 1}, False), ({"str": _Text("t")}, True),
    ({"bytes": 1}, False), ({"when": 1}, True), ({"intOrString": 1.5}, True), ({"intOrString": []}, False),
    ({"intOrString": None}, True), ({"any": {1, 2}}, False), ({"any": b"x"}, False), ({"any": object()}, False),
    ({"labels": {"a": 1}}, False), ({"counts": {"a": "1"}}, False), ({"counts": {"a": True}}, False),
    ({"counts": {"a": 1.5}}, True), ({"nested": {"k": {"a": 1}}}, False), ({"nested": {"k": {"c": 1}}}, False),
    ({"nested": {"k": None}}, True), ({"strict": {"y": "z"}}, False), ({"both": {"x": "1"}}, False),
    ({"both": {"y": 1}}, False), ({"both": {"y": "1"}}, True), ({"atomicMap": {"y": 1}}, False),
    ({"free": {"typed": "x"}}, False), ({"free": {"anything": {"goes": [1, {"x": None}]}}}, True),
    ({"lists": [["a", 1]]}, False), ({"lists": [None]}, True), ({"untypedItems": [{1, 2}]}, False),
    # sets: elements equal as smd compares them (numbers as floats, booleans apart), no nulls, maps or lists
    ({"setInt": [2**53, 2**53 + 1]}, False), ({"setInt": [1, _Number(1)]}, False), ({"setInt": [1, 2.0]}, True),
    ({"setAny": [1, 1.0]}, False), ({"setAny": [1, "1", True]}, True), ({"setAny": [10**400]}, False),
    ({"setStr": ["a", None]}, False), ({"setStr": [["a"]]}, False), ({"setStr": [{"a": "b"}]}, False),
    ({"setStr": ["a", _Text("a")]}, False), ({"setBool": [True, True]}, False), ({"setNum": [1.5, 1.5]}, False),
    # keyed lists: a missing key takes its default, or is left out of the identity
    ({"ports": [{"port": 2**53}, {"port": 2**53 + 1}]}, False), ({"ports": [{"port": 80}, {"port": 80.0}]}, False),
    ({"ports": [{"port": 80}, {"port": 80, "protocol": "TCP"}]}, False),
    ({"ports": [{"port": 80, "protocol": None}, {"port": 80}]}, True),
    ({"ports": [{"protocol": "TCP"}, {"protocol": "TCP"}]}, False),
    ({"ports": [{"protocol": "TCP"}, {"port": 1}]}, True),
    ({"ports": [{"name": "x"}, {"name": "y"}]}, False), ({"ports": [{"port": True}]}, False),
    ({"ports": [{"port": 1, "protocol": _Text("TCP")}, {"port": 1}]}, False),
    ({"byId": [{"id": 1}, {"id": "1"}, {"id": True}]}, True), ({"byId": [{"id": 1}, {"id": 1.0}]}, False),
    ({"byId": [{"v": 1}]}, False), ({"byId": [{"id": 2**53}, {"id": 2**53 + 1}]}, False),
    ({"byId": [{"id": 10**400}]}, False), ({"byId": [{"id": None}, {"id": None}]}, False),
    ({"byId": [{"id": [1]}]}, False), ({"byId": ({"id": 1},)}, True),
    ({"groups": [{"name": "g", "members": [{"first": "a"}, {"first": "a"}]}]}, False),
    ({"groups": [{"name": "g", "members": [{"first": "a"}, {"first": "a", "last": "b"}]}]}, True),
    ({"groups": [{"name": "g", "members": [{"first": "a", "tags": ["x", "x"]}]}]}, False),
    ({"groups": [{"name": "g"}, {"name": "g"}]}, False), ({"groups": [None]}, False), ({"groups": ["g"]}, False),
    ({"groups": [{"name": "g", "members": [None]}]}, False), ({"groups": [_Fields(name="g")]}, True),
    ({"groups": [collections.OrderedDict(name="g"), {"name": "g"}]}, False),
    ({"metadata": {"name": 1}}, False), ({"metadata": _Fields(name="t")}, True), ({"zzUnknown": 1}, False),
]


# values put in place of others, and dicts, lists and their items changed, by the random mutations below (with a few
# that JSON has not: subclasses, other mappings and collections)
_REPLACEMENTS: list[Any] = [
    None, "", "s", "1", "TCP", 0, 1, -1, 80, 2**53, 2**53 + 1, 10**400, 1.0, 1.5, 80.0, float("nan"), True, False,
    [], {}, ["a"], ["a", "a"], [1], [1, 1.0], [2**53, 2**53 + 1], [None], [[]], [{}], {"a": "b"}, {"a": 1},
    {"a": None}, {"name": "x"}, [{"name": "x"}], [{"name": "x"}, {"name": "x"}], [{"name": 1}, {"name": 1.0}],
    [{"name": True}, {"name": 1}], [{"name": "x"}, {"name": _Text("x")}], [{"port": 2**53}, {"port": 2**53 + 1}],
    [{"id": 2**53}, {"id": 2**53 + 1}], [{"port": 1, "protocol": "TCP"}, {"port": _Number(1)}],
    ("a",), {"zzUnknown": 1}, {"metadata": {"name": 1}}, _Text("t"), _Number(3), {1, 2}, b"x",
    collections.OrderedDict(a="b"), _Fields(a=1), _Fields(name="x", zzUnknown=_Fields()), {"a": {"b": {1}}},
]


def _paths(value: Any, path: tuple = ()) -> list[tuple]:
    found = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found += _paths(item, (*path, i))
    return found


def _mutate(value: Any, rng: Any) -> Any:
    """A copy of a value with one random change somewhere in it."""
    value = copy.deepcopy(value)
    path = rng.choice(_paths(value))
    parent, target = None, value
    for step in path:
        parent, target = target, target[step]
    choice = rng.random()
    if isinstance(target, list) and target and choice < 0.5:
        i = rng.randrange(len(target))
        item = copy.deepcopy(target[i])
        if isinstance(item, dict) and item and rng.random() < 0.6:
            key = rng.choice(sorted(item))
            if rng.random() < 0.4:
                del item[key]  # a key field missing (its default, if any, stands in)
            else:
                item[key] = rng.choice([None, 1, 1.0, True, "1", item[key], str(item[key])])
        elif rng.random() < 0.3:
            item = rng.choice(_REPLACEMENTS)
        target.insert(rng.randrange(len(target) + 1), item)  # an item again, or changed
        return value
    if isinstance(target, dict) and choice < 0.3:
        if target and rng.random() < 0.5:
            del target[rng.choice(sorted(target))]
        else:
            target[rng.choice(["zzUnknown", "name", "x", "typed", "other"])] = copy.deepcopy(
                rng.choice(_REPLACEMENTS))
        return value
    replacement = copy.deepcopy(rng.choice(_REPLACEMENTS))
    if isinstance(target, bool | int | float) and abs(target) < 1e300 and rng.random() < 0.5:
        # the same number as another type: bool, int, float, string
        replacement = rng.choice([float(target), int(target) if target == target else 0, bool(target), str(target)])
    if parent is None:
        return replacement
    parent[path[-1]] = replacement
    return value


@functools.cache
def _corpus() -> list[dict]:
    """Every object of a built-in kind the repository's tests, examples and exercises hold (in their files, and in
    their texts holding YAML), as Kubernetes decodes it (dates stay strings)."""
    import json
    from pathlib import Path

    import yaml

    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    loader = type("Loader", (base,), {"yaml_implicit_resolvers": {
        k: [(tag, rx) for tag, rx in v if tag != "tag:yaml.org,2002:timestamp"]
        for k, v in base.yaml_implicit_resolvers.items()}})
    found: dict[str, dict] = {}

    def visit(value: Any, depth: int) -> None:
        if isinstance(value, dict):
            api, kind = value.get("apiVersion"), value.get("kind")
            if isinstance(api, str) and isinstance(kind, str) and SCHEMAS.kind(
                    api.rpartition("/")[0], api.rpartition("/")[2], kind) is not None:
                found.setdefault(json.dumps(value, sort_keys=True, default=str), value)
            for item in value.values():
                visit(item, depth)
        elif isinstance(value, list):
            for item in value:
                visit(item, depth)
        elif isinstance(value, str) and "apiVersion" in value and depth < 3:
            try:
                documents = list(yaml.load_all(value, Loader=loader))  # (a safe loader)
            except yaml.YAMLError:
                return
            for document in documents:
                visit(document, depth + 1)

    root = Path(__file__).parent.parent
    for path in sorted([*root.glob("tests/**/*.yaml"), *root.glob("app/**/*.yaml")]):
        try:
            documents = list(yaml.load_all(path.read_text(), Loader=loader))  # (a safe loader)
        except yaml.YAMLError:
            continue
        for document in documents:
            visit(document, 0)
    return list(found.values())


def test_the_quick_validity_test_agrees_on_every_type_and_on_random_changes() -> None:
    import random

    schemas = schema_set("1.34", [EVERY_TYPE])
    root = _root(schemas, schemas.kind("example.com", "v1", "Thing"))
    assert _agree(EVERY_VALUE, root)
    for change, valid in EVERY_TYPE_CHANGES:
        assert _agree({**EVERY_VALUE, **change}, root) is valid, change
    rng = random.Random(20240601)
    outcomes = []
    for _ in range(3000):
        value = EVERY_VALUE
        for _ in range(rng.choice([1, 1, 2, 3])):
            value = _mutate(value, rng)
        outcomes.append(_agree(value, root))
    assert outcomes.count(True) >= 300 and outcomes.count(False) >= 1000


def test_the_quick_validity_test_agrees_on_the_repository_s_objects_changed_at_random() -> None:
    import random

    corpus = _corpus()
    assert len(corpus) >= 300
    rng = random.Random(7)
    outcomes = []
    for obj_ in corpus:
        api = obj_["apiVersion"]
        root = _root(SCHEMAS, SCHEMAS.kind(api.rpartition("/")[0], api.rpartition("/")[2], obj_["kind"]))
        outcomes.append(_agree(obj_, root))
        for _ in range(3):
            outcomes.append(_agree(_mutate(obj_, rng), root))
    assert outcomes.count(True) >= 300 and outcomes.count(False) >= 300


def test_a_valid_object_s_untouched_parts_merge_to_themselves() -> None:
    # A live object found valid keeps the parts a configuration does not touch as they are, instead of an equal copy
    # walked field by field: the merged object is the same either way.
    root = _root(SCHEMAS, DEPLOYMENT)
    live = _valid_variants()[0]
    patches = [
        {"metadata": {"labels": {"team": "a"}}},
        {"spec": {"template": {"spec": {"containers": [{"name": "app", "image": "nginx:2"},
                                                         {"name": "sidecar", "image": "proxy"}]}}}},
        {"spec": {"replicas": 3, "template": {"spec": {"volumes": [{"name": "w", "emptyDir": {}}]}}}},
        {"spec": {"template": {"spec": {"containers": [{"name": "app", "env": [{"name": "B", "value": "2"}]}]}}}},
    ]
    for patch in patches:
        quick, errors = _merge(copy.deepcopy(live), patch, root, True)
        walked, walked_errors = _merge(copy.deepcopy(live), patch, root, False)
        assert quick == walked and errors == walked_errors == []
        assert quick["spec"]["template"]["spec"]["containers"][0]["name"] == "app"
    untouched = live["spec"]["template"]["spec"]["volumes"]
    assert _merge(live, patches[0], root, True)[0]["spec"]["template"]["spec"]["volumes"] is untouched


# ---------------------------------------------------------------------------------------------
# merging and finding atomics give what they gave before they were made quicker: copies of the former code (c955b80)

def _former_find_atomics(value: Any, ref: Any, path: str) -> list[str]:
    atom = ref.atom
    found: list[str] = []
    if _is_map(value) and atom.map is not None:
        if atom.map.relationship == _ATOMIC:
            found.append(path)
        for key in sorted(value, key=str):
            child = atom.map.fields.get(key)
            if child is not None:
                found += _former_find_atomics(value[key], child, f"{path}.{key}")
    if _is_list(value) and atom.list is not None:
        if atom.list.relationship == _ATOMIC:
            found.append(path)
        for i, item in enumerate(value):
            found += _former_find_atomics(item, atom.list.element, f"{path}[{i}]")
    return found


def _former_merge(lhs: Any, rhs: Any, ref: Any, valid: bool = False) -> tuple[Any, list[_Error]]:
    if rhs is _NONE and valid:
        return lhs, []
    atom = ref.atom
    left, right = _deduce(atom, lhs), _deduce(atom, rhs)
    if rhs is _NONE:
        return _former_merge_atom(left, lhs, rhs, ref, valid)
    if lhs is _NONE or (left.scalar == right.scalar and left.list is right.list and left.map is right.map):
        return _former_merge_atom(right, lhs, rhs, ref, valid)
    _, errors = _former_merge_atom(left, lhs, rhs, ref, valid)
    out, more = _former_merge_atom(right, lhs, rhs, ref, valid)
    return out, errors + more


def _former_merge_atom(atom: Any, lhs: Any, rhs: Any, ref: Any, valid: bool) -> tuple[Any, list[_Error]]:
    if atom.map is not None:
        return _former_merge_map(atom.map, lhs, rhs, valid)
    if atom.scalar is not None:
        left = _scalar_errors(atom.scalar, None if lhs is _NONE else lhs, "lhs: ")
        right = _scalar_errors(atom.scalar, None if rhs is _NONE else rhs, "rhs: ")
        if left and right:
            return _NONE, left + right
        return _leaf(lhs, rhs), []
    if atom.list is not None:
        return _former_merge_list(atom.list, lhs, rhs, valid)
    name = f"named type: {ref.name}" if ref.name else "inlined"
    return _NONE, [_Error("", f"schema error: invalid atom: {name}")]


def _former_merge_map(m: Any, lhs: Any, rhs: Any, valid: bool) -> tuple[Any, list[_Error]]:
    left = lhs if _is_map(lhs) else None
    right = rhs if _is_map(rhs) else None
    if m.relationship == _ATOMIC or (not left and not right):
        return _leaf(lhs, rhs), []
    out: dict[str, Any] = {}
    errors: list[_Error] = []
    keys = list(left or {}) + [k for k in (right or {}) if k not in (left or {})]
    for key in keys:
        child = m.fields.get(key) or m.element or _EMPTY
        merged, errs = _former_merge((left or {}).get(key, _NONE), (right or {}).get(key, _NONE), child, valid)
        errors += _prefixed(errs, "." + key)
        if merged is not _NONE:
            out[key] = merged
    return (out if out else _NONE), errors


def _former_index(lst: Any, items: list[Any], allow_duplicates: bool) -> tuple[list[Any], dict[Any, Any],
                                                                            list[_Error]]:
    elements: list[Any] = []
    observed: dict[Any, Any] = {}
    errors: list[_Error] = []
    for i, item in enumerate(items):
        try:
            element = _item_element(lst, item)
        except ValueError as e:
            errors.append(_Error("", f"element {i}: {e}"))
            continue
        if element.identity in observed:
            if not allow_duplicates:
                errors.append(_Error("", f"duplicate entries for key {element.text}"))
                continue
            observed[element.identity] = _NONE  # duplicated items are not merged
        else:
            observed[element.identity] = item
        elements.append(element)
    return elements, observed, errors


def _former_merge_list(lst: Any, lhs: Any, rhs: Any, valid: bool) -> tuple[Any, list[_Error]]:
    left = list(lhs) if _is_list(lhs) else None
    right = list(rhs) if _is_list(rhs) else None
    if lst.relationship == _ATOMIC or (not left and not right):
        return _leaf(lhs, rhs), []
    right_elements, right_seen, errors = _former_index(lst, right or [], False)
    left_elements, left_seen, left_errors = _former_index(lst, left or [], True)
    errors += left_errors
    if errors:
        return _NONE, errors
    shared = [e for e in right_elements if e.identity in left_seen]
    next_shared = shared.pop(0) if shared else None
    merged_right: set[Any] = set()
    out: list[Any] = []

    def take(lchild: Any, rchild: Any) -> None:
        merged, _ = _former_merge(lchild, rchild, lst.element, valid)  # smd drops the errors of single items
        if merged is not _NONE:
            out.append(merged)

    li = ri = 0
    while li < len(left_elements) or ri < len(right_elements):
        if li < len(left_elements) and ri < len(right_elements):
            element = left_elements[li]
            if element.identity == right_elements[ri].identity:
                merged_right.add(element.identity)
                take(left_seen[element.identity], right_seen[element.identity])
                li += 1
                ri += 1
                next_shared = shared.pop(0) if shared else None
                continue
            if (element.identity in right_seen and next_shared is not None
                    and next_shared.identity != element.identity):
                li += 1
                continue
        if li < len(left_elements):
            element = left_elements[li]
            if element.identity not in right_seen:
                take((left or [])[li], _NONE)  # indexing errors abort, so positions coincide
                li += 1
                continue
            if element.identity in merged_right:
                li += 1
        if ri < len(right_elements):
            element = right_elements[ri]
            merged_right.add(element.identity)
            take(left_seen.get(element.identity, _NONE), right_seen[element.identity])
            ri += 1
            if next_shared is not None and next_shared.identity == element.identity:
                next_shared = shared.pop(0) if shared else None
    return (out if out else _NONE), []


def _outcome(function: Any, *args: Any) -> Any:
    """What a call gives: its value (errors as path and message), or the exception it raises."""
    try:
        value = function(*args)
    except Exception as e:  # (any failure)
        return "raises", type(e).__name__, str(e)
    if isinstance(value, tuple):
        return value[0], [(e.path, e.message) for e in value[1]]
    return value


def _shuffled(value: Any, rng: Any) -> Any:
    """A copy of a value with its lists at random reordered, cut down or given items again."""
    if isinstance(value, dict):
        return {k: _shuffled(v, rng) for k, v in value.items()}
    if not isinstance(value, list):
        return value
    items = [_shuffled(v, rng) for v in value]
    choice = rng.random()
    if choice < 0.3:
        rng.shuffle(items)
    elif choice < 0.5 and items:
        del items[rng.randrange(len(items))]
    elif choice < 0.6 and items:
        items.insert(rng.randrange(len(items) + 1), copy.deepcopy(rng.choice(items)))
    return items


def _sparse(value: Any, rng: Any) -> Any:
    """A configuration that sets one random place of a value (maps and lists on the way to it holding only it)."""
    if isinstance(value, dict) and value and rng.random() < 0.8:
        key = rng.choice(sorted(value))
        return {key: _sparse(value[key], rng)}
    if isinstance(value, list) and value and rng.random() < 0.8:
        return [_sparse(rng.choice(value), rng)]
    return _mutate(value, rng) if rng.random() < 0.3 else copy.deepcopy(value)


def _configurations(value: Any, rng: Any) -> list[Any]:
    return [_sparse(value, rng), _sparse(value, rng), _shuffled(value, rng), _mutate(_shuffled(value, rng), rng),
            _mutate(value, rng)]


def _merges_agree(lhs: Any, root: Any, rng: Any) -> int:
    """Compare merging and finding atomics with the former code for configurations made from a value; how many
    merges gave no errors."""
    clean = 0
    valid = _valid(lhs, root)
    for rhs in _configurations(lhs, rng):
        assert _outcome(_find_atomics, rhs, root, "") == _outcome(_former_find_atomics, rhs, root, ""), rhs
        for flag in {False, valid}:
            got = _outcome(_merge, lhs, rhs, root, flag)
            assert got == _outcome(_former_merge, lhs, rhs, root, flag), (lhs, rhs, flag)
            clean += isinstance(got, tuple) and got[1] == [] and got[0] != "raises"
    return clean


def test_merging_agrees_with_the_former_code_on_every_type() -> None:
    import random

    schemas = schema_set("1.34", [EVERY_TYPE])
    root = _root(schemas, schemas.kind("example.com", "v1", "Thing"))
    rng = random.Random(11)
    values = [EVERY_VALUE, *({**EVERY_VALUE, **change} for change, _ in EVERY_TYPE_CHANGES)]
    values += [_mutate(EVERY_VALUE, rng) for _ in range(300)]
    assert sum(_merges_agree(value, root, rng) for value in values) >= 1000


def test_merging_agrees_with_the_former_code_on_the_repository_s_objects() -> None:
    import random

    rng = random.Random(12)
    clean = 0
    for obj_ in _corpus():
        api = obj_["apiVersion"]
        root = _root(SCHEMAS, SCHEMAS.kind(api.rpartition("/")[0], api.rpartition("/")[2], obj_["kind"]))
        clean += _merges_agree(obj_, root, rng)
    assert clean >= 1000
