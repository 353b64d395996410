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


# TestValidateCustomResource (apiextensions-apiserver pkg/apiserver/validation/validation_test.go): the schema's
# errors and the rules' errors of an object, as a set of texts. (Its null cases are left out: in the request path
# the decoder drops a null the schema does not allow before validation sees it.)
_INT_OR_STRING = {"type": "object", "properties": {"field": {"x-kubernetes-int-or-string": True}}}
_OBJECT_FIELD = {"type": "object", "properties": {"field": {"type": "object", "nullable": True}}}
_LIST_MAP = {"type": "object", "properties": {"field": {
    "type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k1", "k2"],
    "items": {"type": "object", "properties": {
        "k1": {"type": "string"}, "k2": {"type": "string"},
        "v1": {"type": "number", "x-kubernetes-validations": [{"rule": "self >= oldSelf"}]}}}}}}


@pytest.mark.parametrize(("schema", "obj", "old", "expected"), [
    (_OBJECT_FIELD, {"field": "foo"}, None, {'field: Invalid value: "string": field in body must be of type object: '
                                             '"string"'}),
    (_OBJECT_FIELD, {"field": 42}, None, {'field: Invalid value: "integer": field in body must be of type object: '
                                          '"integer"'}),
    (_OBJECT_FIELD, {"field": 1.2}, None, {'field: Invalid value: "number": field in body must be of type object: '
                                           '"number"'}),
    (_OBJECT_FIELD, {"field": []}, None, {'field: Invalid value: "array": field in body must be of type object: '
                                          '"array"'}),
    (_OBJECT_FIELD, {"field": None}, None, set()),
    (_INT_OR_STRING, {"field": 42}, None, set()),
    (_INT_OR_STRING, {"field": "foo"}, None, set()),
    (_INT_OR_STRING, {"field": True}, None, {'field: Invalid value: "boolean": field in body must be of type '
                                             'integer,string: "boolean"'}),
    (_INT_OR_STRING, {"field": {}}, None, {'field: Invalid value: "object": field in body must be of type '
                                           'integer,string: "object"'}),
    ({"type": "object", "required": ["field"], "properties": {
        "field": {"type": "object", "required": ["nested"], "properties": {"nested": {}}}}},
     {"test": "a"}, None, {"field: Required value"}),
    ({"type": "object", "required": ["field"], "properties": {
        "field": {"type": "object", "required": ["nested"], "properties": {"nested": {}}}}},
     {"field": {}}, None, {"field.nested: Required value"}),
    ({"type": "object", "properties": {"field": {
        "type": "object", "required": ["nestedint", "nestedstring"],
        "properties": {"nestedint": {"type": "integer", "enum": [1, 2]},
                       "nestedstring": {"type": "string", "enum": ["a", "b"]}}}}},
     {"field": {"nestedint": "x", "nestedstring": True}}, None,
     {'field.nestedint: Invalid value: "string": field.nestedint in body must be of type integer: "string"',
      'field.nestedint: Unsupported value: "x": supported values: "1", "2"',
      'field.nestedstring: Invalid value: "boolean": field.nestedstring in body must be of type string: "boolean"',
      'field.nestedstring: Unsupported value: true: supported values: "a", "b"'}),
    ({"type": "object", "properties": {"field": {"type": "string",
                                                 "x-kubernetes-validations": [{"rule": "self == oldSelf"}]}}},
     {"field": "y"}, {"field": "x"}, {'field: Invalid value: "string": failed rule: self == oldSelf'}),
    (_LIST_MAP, {"field": [{"k1": "a", "k2": "b", "v1": 1.2}]}, {"field": [{"k1": "a", "k2": "b", "v1": 1.0}]}, set()),
    (_LIST_MAP, {"field": [{"k1": "a", "k2": "b", "v1": 0.9}]}, {"field": [{"k1": "a", "k2": "b", "v1": 1.0}]},
     {'field[0].v1: Invalid value: "number": failed rule: self >= oldSelf'}),
    ({"type": "object", "properties": {"field": {"type": "array", "items": {"type": "object", "properties": {
        "x": {"type": "string", "x-kubernetes-validations": [{"rule": "self == 'x'"}]}}}}}},
     {"field": [{"x": "y"}]}, None, {"field[0].x: Invalid value: \"string\": failed rule: self == 'x'"}),
    ({"type": "object", "properties": {"fieldX": {"type": "object", "maxProperties": 2}}},
     {"fieldX": {"a": True, "b": True, "c": True}}, None, {"fieldX: Too many: 3: must have at most 2 items"}),
    ({"type": "object", "properties": {"fieldX": {"type": "array", "maxItems": 2}}},
     {"fieldX": ["a", "b", "c"]}, None, {"fieldX: Too many: 3: must have at most 2 items"}),
    ({"type": "object", "properties": {"fieldX": {"type": "string", "maxLength": 2}}},
     {"fieldX": "abc"}, None, {"fieldX: Too long: may not be more than 2 bytes"}),
])
def test_validate_custom_resource(schema, obj, old, expected):
    found = crd_validation.validate(obj, old, schema, (1, 34))
    assert {e.message for e in found.errors} == expected


def test_cost_budget_errors_are_not_ratcheted():
    """TestRatcheting 'cost budget errors are not ratcheted': out of budget, the rule is an error, not a warning."""
    schema = {"type": "string", "minLength": 5,
              "x-kubernetes-validations": [{"rule": 'self == "baz"', "message": "gotta be baz"}]}
    done = crd_validation.evaluate_rules("unchanged", "unchanged", schema, (1, 34), path="root", budget=1)
    assert [e.message for e in done.errors] == [f'root: Invalid value: "string": {crd_validation.OUT_OF_BUDGET}']
    assert done.warnings == []


@pytest.mark.parametrize(("message_expression", "detail"), [
    # evalMessageExpression (schema/cel/validation.go): its trimmed string is the detail ...
    ("'  replicas is ' + string(self.replicas) + '  '", "replicas is 7"),
    # ... unless it fails, is empty or spans lines: then the rule's message is
    ("string(self.missing)", "too many replicas"),
    ("''", "too many replicas"),
    ("'first\\nsecond'", "too many replicas"),
])
def test_message_expression_and_its_fallbacks(message_expression, detail):
    schema = {"type": "object", "properties": {"replicas": {"type": "integer"}}, "x-kubernetes-validations": [
        {"rule": "self.replicas < 5", "message": "too many replicas", "messageExpression": message_expression}]}
    errors, _ = _rules(schema, {"replicas": 7})
    assert errors == [f'root: Invalid value: "object": {detail}']


@pytest.mark.parametrize(("reason", "expected"), [
    # fieldErrorForReason (schema/cel/validation.go): the reason chooses the error's type
    ("FieldValueForbidden", "root.replicas: Forbidden: too many"),
    ("FieldValueRequired", "root.replicas: Required value: too many"),
    ("FieldValueDuplicate", 'root.replicas: Duplicate value: "object"'),
    ("FieldValueInvalid", 'root.replicas: Invalid value: "object": too many'),
    (None, 'root.replicas: Invalid value: "object": too many'),
])
def test_reason_and_field_path(reason, expected):
    rule = {"rule": "self.replicas < 5", "message": "too many", "fieldPath": ".replicas"}
    if reason:
        rule["reason"] = reason
    schema = {"type": "object", "properties": {"replicas": {"type": "integer"}}, "x-kubernetes-validations": [rule]}
    errors, _ = _rules(schema, {"replicas": 7})
    assert errors == [expected]


_ANY_OF = {"type": "object", "properties": {"field": {"nullable": True, "x-kubernetes-int-or-string": True,
                                                      "anyOf": [{"type": "integer"}, {"type": "string"}]}}}
_ALL_OF = {"type": "object", "properties": {"field": {"nullable": True, "x-kubernetes-int-or-string": True,
                                                      "allOf": [{"anyOf": [{"type": "integer"}, {"type": "string"}]}]}}}
_ONE_OF = {"type": "object", "properties": {"spec": {"type": "object", "properties": {
    "a": {"type": "string"}, "b": {"type": "string"}}, "oneOf": [{"required": ["a"]}, {"required": ["b"]}]}}}


@pytest.mark.parametrize(("schema", "obj", "expected"), [
    # TestValidateCustomResource "nullable, x-kubernetes-int-or-string and user-provided anyOf" and "... allOf"
    (_ANY_OF, {"field": 42}, set()),
    (_ANY_OF, {"field": True}, {'<nil>: Invalid value: "": "field" must validate at least one schema (anyOf)',
                                'field: Invalid value: "boolean": field in body must be of type integer,string: '
                                '"boolean"',
                                'field: Invalid value: "boolean": field in body must be of type integer: "boolean"'}),
    (_ALL_OF, {"field": 1.2}, {'<nil>: Invalid value: "": "field" must validate all the schemas (allOf). None '
                               'validated',
                               '<nil>: Invalid value: "": "field" must validate at least one schema (anyOf)',
                               'field: Invalid value: "number": field in body must be of type integer,string: '
                               '"number"',
                               'field: Invalid value: "number": field in body must be of type integer: "number"'}),
    # kube-openapi's schemaPropsValidator: oneOf with two alternatives valid, and with none
    (_ONE_OF, {"spec": {"a": "x"}}, set()),
    (_ONE_OF, {"spec": {"a": "x", "b": "y"}},
     {'<nil>: Invalid value: "": "spec" must validate one and only one schema (oneOf). Found 2 valid alternatives'}),
    (_ONE_OF, {"spec": {}},
     {'<nil>: Invalid value: "": "spec" must validate one and only one schema (oneOf). Found none valid',
      "spec.a: Required value"}),
])
def test_composite_schemas(schema, obj, expected):
    found = crd_validation.validate(obj, None, schema, (1, 34))
    assert {e.message for e in found.errors} == expected


@pytest.mark.parametrize(("items", "expected"), [
    # kube-openapi's uniqueItems (slice_validator.go, DuplicateItems), found in linear time
    ([1, 2, 1], ['l: Invalid value: "": l in body shouldn\'t contain duplicates']),
    ([1, True, "1", [1], {"a": 1}], []),
    ([{"a": 1}, {"a": 1}], ['l: Invalid value: "": l in body shouldn\'t contain duplicates']),
    (list(range(20000)), []),
])
def test_unique_items(items, expected):
    schema = {"type": "object", "properties": {"l": {"type": "array", "uniqueItems": True}}}
    assert [e.message for e in crd_validation.validate({"l": items}, None, schema, (1, 34)).errors] == expected


@pytest.mark.parametrize(("pattern", "value", "expected"), [
    # TestValidateCustomResource "invalid regex": the pattern with Go's parse error
    ("+", "foo", ["field: Invalid value: \"foo\": field in body should match '+, but pattern is invalid: error "
                  "parsing regexp: missing argument to repetition operator: `+`'"]),
    # Go's regexp is unanchored, and linear (RE2): a pattern that backtracks badly elsewhere answers at once
    ("o", "foo", []),
    ("^(a+)+$", "a" * 5000 + "b", ["field: Invalid value: \"" + "a" * 5000 + "b\": field in body should match "
                                   "'^(a+)+$'"]),
])
def test_pattern(pattern, value, expected):
    schema = {"type": "object", "properties": {"field": {"type": "string", "pattern": pattern}}}
    assert [e.message for e in crd_validation.validate({"field": value}, None, schema, (1, 34)).errors] == expected


_EMBEDDED = {"type": "object", "properties": {"template": {
    "type": "object", "x-kubernetes-embedded-resource": True, "x-kubernetes-preserve-unknown-fields": True}}}


@pytest.mark.parametrize(("template", "expected"), [
    # validateEmbeddedResource (apiextensions-apiserver pkg/apiserver/schema/objectmeta/validation.go)
    ({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}, []),
    ({"metadata": {}}, ["template.apiVersion: Required value", "template.kind: Required value"]),
    ({"apiVersion": "", "kind": 5}, ['template.apiVersion: Invalid value: "": must not be empty',
                                     "template.kind: Invalid value: 5: must be a string"]),
    ({"apiVersion": "a/b/c", "kind": "Pod_x"},
     ['template.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c',
      'template.kind: Invalid value: "Pod_x": may have mixed case, but should otherwise match: a DNS-1035 label '
      "must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with "
      "an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is "
      "'[a-z]([-a-z0-9]*[a-z0-9])?')"]),
    ({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a/b"}},
     ["template.metadata.name: Invalid value: \"a/b\": may not contain '/'"]),
])
def test_embedded_resources(template, expected):
    found = crd_validation.validate({"template": template}, None, _EMBEDDED, (1, 34))
    assert [e.message for e in found.errors] == expected


@pytest.mark.parametrize(("rule", "expected"), [
    # TestValidationExpressions "integers" errors: the evaluation error, then the rule
    ("self.val1 + 1 == 0", 'root: Invalid value: "object": integer overflow evaluating rule: self.val1 + 1 == 0'),
    ("1 / 0 == 1 / 0", 'root: Invalid value: "object": division by zero evaluating rule: 1 / 0 == 1 / 0'),
    # a field the value lacks
    ("self.missing == 1", 'root: Invalid value: "object": no such key: missing evaluating rule: self.missing == 1'),
])
def test_rule_evaluation_errors(rule, expected):
    schema = {"type": "object", "properties": {"val1": {"type": "integer"}},
              "x-kubernetes-validations": [{"rule": rule}]}
    errors, _ = _rules(schema, {"val1": 2**63 - 1})
    assert errors == [expected]
