"""Table tests of the metadata checks of the kind's own validation (app/vap/registry/builtin_validation.py),
restating k8s.io/apimachinery/pkg/api/validation/objectmeta_test.go with its exact strings (its field path is
``field``)."""

from __future__ import annotations

import pytest

from app.vap import validation
from app.vap.registry import builtin_validation as bv

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
