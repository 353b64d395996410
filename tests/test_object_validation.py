"""Table tests of the metadata checks of the kind's own validation (app/vap/registry/builtin_validation.py),
restating k8s.io/apimachinery/pkg/api/validation/objectmeta_test.go with its exact strings (its field path is
``field``)."""

from __future__ import annotations

import pytest

from app.vap import validation
from app.vap.registry import builtin_validation as bv
from app.vap.registry import crd_validation

NOW, LATER = "1970-01-01T00:16:40Z", "1970-01-01T00:33:20Z"


@pytest.mark.parametrize(("old", "new", "expected"), [
    # TestValidateObjectMetaUpdatePreventsDeletionFieldMutation
    ({}, {}, []),
    ({"deletionTimestamp": NOW, "deletionGracePeriodSeconds": 30},
     {"deletionTimestamp": NOW, "deletionGracePeriodSeconds": 30}, []),
    ({}, {"deletionTimestamp": NOW}, [f'field.deletionTimestamp: Invalid value: "{NOW}": field is immutable']),
    ({"deletionTimestamp": NOW}, {}, ["field.deletionTimestamp: Invalid value: null: field is immutable"]),
    ({"deletionTimestamp": NOW}, {"deletionTimestamp": LATER},
     [f'field.deletionTimestamp: Invalid value: "{LATER}": field is immutable']),
    ({}, {"deletionGracePeriodSeconds": 30},
     ["field.deletionGracePeriodSeconds: Invalid value: 30: field is immutable"]),
    ({"deletionGracePeriodSeconds": 30}, {},
     ["field.deletionGracePeriodSeconds: Invalid value: null: field is immutable"]),
    ({"deletionGracePeriodSeconds": 30}, {"deletionGracePeriodSeconds": 40},
     ["field.deletionGracePeriodSeconds: Invalid value: 40: field is immutable"]),
    # TestObjectMetaGenerationUpdate
    ({"generation": 5}, {"generation": 4}, ["field.generation: Invalid value: 4: must not be decremented"]),
    ({"generation": 1}, {"generation": 2}, []),
    ({"generation": 5}, {"generation": 5}, []),
])
def test_object_meta_update(old, new, expected):
    base = {"name": "test", "resourceVersion": "1"}
    errors = bv.object_meta_update({**base, **new}, {**base, **old}, "field")
    assert [e.message for e in errors] == expected


@pytest.mark.parametrize(("old", "new", "expected"), [
    # TestValidateFinalizersUpdate
    ({"deletionTimestamp": NOW, "finalizers": ["x/a"]}, {"deletionTimestamp": NOW, "finalizers": ["x/a", "y/b"]},
     'field.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new '
     'finalizers []string{"y/b"}'),
    ({"deletionTimestamp": NOW, "finalizers": ["x/a"]}, {"deletionTimestamp": NOW, "finalizers": ["x/b"]},
     'found new finalizers []string{"x/b"}'),
    ({"deletionTimestamp": NOW, "finalizers": ["x/a", "y/b"]}, {"deletionTimestamp": NOW, "finalizers": ["x/a"]}, ""),
    ({"finalizers": ["x/a"]}, {"finalizers": ["x/a", "y/b"]}, ""),
])
def test_finalizers_update(old, new, expected):
    base = {"name": "test", "resourceVersion": "1"}
    errors = bv.object_meta_update({**base, **new}, {**base, **old}, "field")
    if not expected:
        assert errors == []
    else:
        assert len(errors) == 1 and expected in errors[0].message


def _ref(kind: str, uid: str, controller: bool | None = None) -> dict:
    ref = {"apiVersion": "customresourceVersion", "kind": kind, "name": "name", "uid": uid}
    return ref if controller is None else {**ref, "controller": controller}


@pytest.mark.parametrize(("refs", "expected"), [
    # TestValidateObjectMetaOwnerReferences
    ([_ref("customresourceKind", "1")], ""),
    ([_ref("customresourceKind", "1", False), _ref("customresourceKind", "2", True),
      _ref("customresourceKind", "3", False), _ref("customresourceKind", "4")], ""),
    ([_ref("customresourceKind1", "1", False), _ref("customresourceKind2", "2", True),
      _ref("customresourceKind3", "3", True), _ref("customresourceKind4", "4")],
     'Only one reference can have Controller set to true. Found "true" in references for customresourceKind2/name '
     "and customresourceKind3/name"),
])
def test_owner_references(refs, expected):
    errors = bv.object_meta({"name": "test", "namespace": "test", "ownerReferences": refs}, True,
                            validation.name_is_dns_subdomain, "field")
    assert (expected in errors[0].message) if expected else errors == []


@pytest.mark.parametrize(("md", "expected"), [
    # TestValidateObjectMetaTrimsTrailingDash: a generateName may end with a dash
    ({"name": "test", "generateName": "foo-"}, []),
    # TestValidateFinalizersPreventConflictingFinalizers
    ({"name": "test", "finalizers": ["orphan", "foregroundDeletion"]},
     ['field.finalizers: Invalid value: ["orphan","foregroundDeletion"]: finalizer orphan and foregroundDeletion '
      "cannot be both set"]),
    # the name is required unless generated
    ({}, ["field.name: Required value: name or generateName is required"]),
])
def test_object_meta_create(md, expected):
    assert [e.message for e in bv.object_meta(md, False, validation.name_is_dns_subdomain, "field")] == expected


@pytest.mark.parametrize(("annotations", "detail"), [
    # TestValidateAnnotations' name error cases and its total size cases
    ({"nospecialchars^=@": "bar"}, "name part must consist of alphanumeric characters"),
    ({"cantendwithadash-": "bar"}, "name part must consist of alphanumeric characters"),
    ({"only/one/slash": "bar"}, "with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"),
    ({"a" * 254: "bar"}, "name part must be no more than 63"),
    ({"a": "b" * bv.TOTAL_ANNOTATION_SIZE}, "Too long: may not be more than 262144 bytes"),
    ({"a": "b" * (bv.TOTAL_ANNOTATION_SIZE // 2), "c": "d" * (bv.TOTAL_ANNOTATION_SIZE // 2)},
     "Too long: may not be more than 262144 bytes"),
])
def test_annotations(annotations, detail):
    errors = bv.object_meta({"name": "test", "annotations": annotations}, False, validation.name_is_dns_subdomain,
                            "field")
    assert len(errors) == 1 and detail in errors[0].message


def test_annotations_within_the_limit_pass():
    """TestValidateAnnotations' success cases of the size limit."""
    half = bv.TOTAL_ANNOTATION_SIZE // 2 - 1
    for given in ({"a": "b" * (bv.TOTAL_ANNOTATION_SIZE - 1)}, {"a": "b" * half, "c": "d" * half},
                  {"UpperCase123": "bar"}, {"1.2.3.4/5678": "bar"}):
        assert bv.object_meta({"name": "test", "annotations": given}, False,
                              validation.name_is_dns_subdomain, "field") == []


# --------------------------------------------------------------------------------------------
# x-kubernetes-validations (app/vap/registry/crd_validation.py), restating apiextensions-apiserver's
# pkg/apiserver/schema/cel/validation_test.go from the path "root"


def _rules(schema: dict, new, old=None, version=(1, 34)):
    done = crd_validation.evaluate_rules(new, old, schema, version, path="root")
    return [e.message for e in done.errors], done.warnings


def _string_rule(rule: str, message: str = "gotta be baz") -> dict:
    return {"type": "string", "x-kubernetes-validations": [{"rule": rule, "message": message}]}


@pytest.mark.parametrize(("schema", "old", "new", "errors", "warnings"), [
    # TestRatcheting "normal CEL expression"
    ({"type": "object", "properties": {"foo": _string_rule('self == "bar"')}}, {"foo": "baz"}, {"foo": "baz"},
     [], ['root.foo: Invalid value: "string": gotta be baz']),
    # "normal CEL expression thats a descendent of an atomic array whose parent is totally unchanged"
    ({"type": "array", "x-kubernetes-list-type": "atomic",
      "items": {"type": "object", "properties": {"bar": _string_rule('self == "baz"')}}},
     [{"bar": "bar"}], [{"bar": "bar"}], [], ['root[0].bar: Invalid value: "string": gotta be baz']),
    # "normal CEL expression thats a descendent of a set and one of its siblings has changed"
    ({"type": "object", "properties": {
        "stringField": {"type": "string"},
        "setArray": {"type": "array", "x-kubernetes-list-type": "set", "items": {
            "type": "number",
            "x-kubernetes-validations": [{"rule": "int(self) % 2 == 1", "message": "gotta be odd"}]}}}},
     {"stringField": "foo", "setArray": [1, 3, 2]}, {"stringField": "changed but ratcheted", "setArray": [1, 3, 2]},
     [], ['root.setArray[2]: Invalid value: "number": gotta be odd']),
    # "descendent of a map list whose siblings have changed"
    ({"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["key"],
      "items": {"type": "object", "properties": {"key": {"type": "string"}, "value": _string_rule('self == "baz"')}}},
     [{"key": "foo", "value": "notbaz"}, {"key": "bar", "value": "notbaz"}],
     [{"key": "foo", "value": "baz"}, {"key": "bar", "value": "notbaz"}],
     [], ['root[1].value: Invalid value: "string": gotta be baz']),
    # "we can't ratchet a normal CEL expression from an uncorrelatable part of the schema whose parent nodes has
    # changed"
    ({"type": "array", "x-kubernetes-list-type": "atomic",
      "items": {"type": "object", "properties": {"bar": _string_rule('self == "baz"')}}},
     [{"bar": "bar"}], [{"bar": "bar"}, {"bar": "baz"}], ['root[0].bar: Invalid value: "string": gotta be baz'], []),
    # "transition rules never ratchet for correlatable schemas"
    ({"type": "object", "properties": {"foo": _string_rule('oldSelf != "bar" && self == "baz"')}},
     {"foo": "bar"}, {"foo": "bar"}, ['root.foo: Invalid value: "string": gotta be baz'], []),
    # "changing field path does not change ratcheting logic"
    ({"type": "object", "properties": {"bar": {"type": "string"}, "foo": {"type": "string"}},
      "x-kubernetes-validations": [{"rule": 'self.foo == "baz"', "message": "gotta be baz", "fieldPath": ".foo"}]},
     {"foo": "bar"}, {"foo": "bar", "bar": "invalid"}, ['root.foo: Invalid value: "object": gotta be baz'], []),
    # "typemeta fields are not ratcheted"
    ({"type": "object", "properties": {
        "apiVersion": {"type": "string", "x-kubernetes-validations": [{"rule": 'self == "v1"'}]},
        "kind": {"type": "string", "x-kubernetes-validations": [{"rule": 'self == "Pod"'}]}}},
     {"apiVersion": "v2", "kind": "Baz"}, {"apiVersion": "v2", "kind": "Baz"},
     ['root.apiVersion: Invalid value: "string": failed rule: self == "v1"',
      'root.kind: Invalid value: "string": failed rule: self == "Pod"'], []),
])
def test_ratcheting(schema, old, new, errors, warnings):
    assert _rules(schema, new, old) == (errors, warnings)


def _optional(rule: str, schema: dict) -> dict:
    return {**schema, "x-kubernetes-validations": [{"rule": rule, "optionalOldSelf": True}]}


_FOO = {"type": "object", "properties": {"foo": {"type": "string"}}}
_MIN = "self >= 10 || (oldSelf.hasValue() && oldSelf.value() <= self)"


@pytest.mark.parametrize(("rule", "schema", "new", "old", "fails"), [
    # TestOptionalOldSelf
    ("self.foo == 'not bar' || !oldSelf.hasValue()", _FOO, {"foo": "bar"}, None, False),
    ("self.foo == 'valid' || !oldSelf.hasValue()", _FOO, {"foo": "invalid"}, {"foo": "bar"}, True),
    ("self.foo == 'valid' || (oldSelf.hasValue() && oldSelf.value().foo != 'valid')", _FOO,
     {"foo": "invalid again"}, {"foo": "invalid"}, False),
    ("self.foo == 'valid' || (oldSelf.hasValue() && oldSelf.value().foo != 'valid')", _FOO,
     {"foo": "invalid"}, {"foo": "valid"}, True),
    (_MIN, {"type": "integer"}, 10, None, False),
    (_MIN, {"type": "integer"}, 9, None, True),
    (_MIN, {"type": "integer"}, 10, 5, False),
    (_MIN, {"type": "integer"}, 9, 5, False),
    (_MIN, {"type": "integer"}, 5, 5, False),
    (_MIN, {"type": "integer"}, 4, 5, True),
])
def test_optional_old_self(rule, schema, new, old, fails):
    errors, _ = _rules(_optional(rule, schema), new, old)
    assert (len(errors) == 1 and "failed rule" in errors[0]) if fails else errors == []


@pytest.mark.parametrize(("field_path", "expected"), [
    # TestValidateFieldPath's valid paths (relative to the rule's value)
    (".a", "a"),
    ("['\\'foo\\'bar']", "'foo'bar"),
    (".a['bbb.c']", "a.bbb.c"),
    (".foo.subAdd", "foo[subAdd]"),
    (".foo['subAdd']", "foo[subAdd]"),
    (".a['foo\\'s']", "a.foo's"),
    (".list", "list"),
    # and invalid ones, which a CRD cannot hold (no path is added)
    (".c", ""), ("a", ""), (".a.foo", ""), (".list['a']", ""),
])
def test_rule_field_path(field_path, expected):
    schema = {"type": "object", "properties": {
        "foo": {"type": "object", "additionalProperties": {"type": "object",
                                                           "properties": {"subAdd": {"type": "number"}}}},
        "'foo'bar": {"type": "number"},
        "a": {"type": "object", "properties": {"foo's": {"type": "number"}, "bbb.c": {"type": "object"},
                                               "bbb": {"type": "object"}}},
        "list": {"type": "array", "items": {"type": "object", "properties": {"a": {"type": "number"}}}},
    }}
    assert crd_validation.normalized_field_path(field_path, schema) == expected
