"""Typed decoding's zero values (app/vap/defaulting/typed.py): the fields the Go types of k8s.io/api always
serialise, filled before the scheme's defaults as kube-apiserver decodes before it defaults."""

from __future__ import annotations

from typing import Any

import pytest

from app.vap import decoding
from app.vap.cel.library import SUPPORTED_VERSIONS, version_tuple
from app.vap.defaulting.typed import ZERO_VALUES
from app.vap.schemas import schema_set


@pytest.mark.parametrize("version", SUPPORTED_VERSIONS)
def test_every_zero_value_names_a_field_of_its_definition(version: str) -> None:
    """Each row names a definition of the version's bundled OpenAPI schemas and one of its properties."""
    schemas = schema_set(version)
    missing = [(definition, field) for definition, field, _, _ in ZERO_VALUES
               if field not in ((schemas.definition(definition) or {}).get("properties") or {})]
    assert missing == []


def _decoded(obj: dict[str, Any], version: str = "1.33") -> decoding.Decoded:
    return decoding.decode(obj, schema_set(version), version_tuple(version))


ROLE = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": "r", "namespace": "d"}}
BINDING = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
           "metadata": {"name": "b", "namespace": "d"}, "roleRef": {"apiGroup": "rbac.authorization.k8s.io",
                                                                   "kind": "Role", "name": "r"}}
PDB = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "p", "namespace": "d"},
       "spec": {"minAvailable": 1}}
CLAIM = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "c", "namespace": "d"},
         "spec": {"accessModes": ["ReadWriteOnce"]}}


@pytest.mark.parametrize(("name", "obj", "path", "value", "op"), [
    # k8s.io/api rbac/v1 Role.Rules: json:"rules" (no omitempty), a nil slice serialises as null
    ("a Role without rules", ROLE, ("rules",), None, "add"),
    # Role.Rules given as null stays null: nothing changes
    ("a Role with rules null", {**ROLE, "rules": None}, ("rules",), None, None),
    # rbac/v1 RoleBinding.Subjects is omitempty: a binding without subjects stays without them
    ("a RoleBinding without subjects", BINDING, ("subjects",), "absent", None),
    # policy/v1 PodDisruptionBudget.Status is a struct value; its counters have no omitempty
    ("a PDB's status", PDB, ("status",),
     {"currentHealthy": 0, "desiredHealthy": 0, "disruptionsAllowed": 0, "expectedPods": 0}, "add"),
    # core/v1 PersistentVolumeClaimSpec.Resources is a VolumeResourceRequirements struct value
    ("a claim's resources", CLAIM, ("spec", "resources"), {}, "add"),
    # core/v1 Container.Resources given as null: the struct's zero value replaces the null
    ("a container's null resources",
     {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "d"},
      "spec": {"containers": [{"name": "c", "image": "i:1", "resources": None}]}},
     ("spec", "containers", 0, "resources"), {}, "replace"),
])
def test_zero_values(name: str, obj: dict[str, Any], path: tuple[Any, ...], value: Any, op: str | None) -> None:
    decoded = _decoded(obj)
    found: Any = decoded.value
    for part in path:
        found = found.get(part, "absent") if isinstance(found, dict) else found[part]
    assert found == value, name
    ops = [change.op for change in decoded.changes if change.path == path and change.stage.startswith("decoding:")]
    assert ops == ([op] if op else []), name


def test_decoding_comes_before_defaulting() -> None:
    """DeploymentSpec.Strategy is a struct value (decoding gives {}), which SetDefaults_Deployment then fills:
    the changes say so in that order."""
    deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "w", "namespace": "d"},
                  "spec": {"selector": {"matchLabels": {"a": "b"}},
                           "template": {"metadata": {"labels": {"a": "b"}},
                                        "spec": {"containers": [{"name": "c", "image": "i:1"}]}}}}
    decoded = _decoded(deployment)
    stages = [change.stage for change in decoded.changes if change.path[:2] == ("spec", "strategy")]
    assert stages[0] == "decoding: DeploymentSpec.strategy is a struct value"
    assert stages[1:] and all(stage.startswith("defaulting: ") for stage in stages[1:])
    assert decoded.value["spec"]["strategy"] == {"type": "RollingUpdate",
                                                 "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}}
    assert decoded.value["status"] == {}
    assert "status" not in deployment and "strategy" not in deployment["spec"], "the pasted object is left as it is"


def test_a_sketch_without_a_pod_spec_stays_without_one() -> None:
    """The structs on the way to a pod spec are not made up: a Deployment written without a template keeps
    none (the playground validates objects only in part, and such a sketch would fail for want of containers)."""
    decoded = _decoded({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "w", "namespace": "d"},
                        "spec": {"replicas": 2}})
    assert "template" not in decoded.value["spec"]
    assert decoded.value["spec"]["selector"] is None
