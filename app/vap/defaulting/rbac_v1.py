"""Scheme defaults of rbac.authorization.k8s.io/v1: the API group of role references and subjects.

Restates ``pkg/apis/rbac/v1/defaults.go``. A ServiceAccount subject keeps an empty API group (which
the apiserver leaves out of the JSON); User and Group subjects, and the ``roleRef`` of both kinds of
binding, get ``rbac.authorization.k8s.io``. The same in every version offered.
"""

from __future__ import annotations

from typing import Any

from . import Context, defaults
from ._values import empty, struct

_RBAC = "io.k8s.api.rbac.v1."
GROUP = "rbac.authorization.k8s.io"


def _role_ref(obj: dict[str, Any]) -> None:
    ref = struct(obj, "roleRef")
    if ref is not None and empty(ref, "apiGroup"):
        ref["apiGroup"] = GROUP


@defaults(_RBAC + "ClusterRoleBinding", "SetDefaults_ClusterRoleBinding")
def cluster_role_binding(obj: dict[str, Any], context: Context) -> None:
    _role_ref(obj)


@defaults(_RBAC + "RoleBinding", "SetDefaults_RoleBinding")
def role_binding(obj: dict[str, Any], context: Context) -> None:
    _role_ref(obj)


@defaults(_RBAC + "Subject", "SetDefaults_Subject")
def subject(obj: dict[str, Any], context: Context) -> None:
    if empty(obj, "apiGroup") and obj.get("kind") in ("User", "Group"):
        obj["apiGroup"] = GROUP
