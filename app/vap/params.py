"""Collecting the param objects a binding evaluates its policy with.

Mirrors k8s.io/apiserver/pkg/admission/plugin/policy/generic/policy_dispatcher.go (CollectParams).
The "cluster" here is what the user pasted: every object that is not a policy or binding.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .matching import SelectorError, describe_selector, selector_matches
from .request import Attributes


class ParamError(Exception):
    """A binding whose params cannot be collected (a configuration error)."""


@dataclass
class ParamsOutcome:
    """The params to evaluate with: [None] (no params), several objects, or [] (nothing to do)."""

    params: list[Any]
    explanation: list[str] = field(default_factory=list)


def _meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    meta = obj.get("metadata")
    return meta if isinstance(meta, Mapping) else {}


def param_kind_matches(obj: Any, group: str, kind: str) -> bool:
    """Say whether a pasted object is of the paramKind (any version of its group)."""
    if not isinstance(obj, Mapping):
        return False
    api_version = str(obj.get("apiVersion", ""))
    obj_group = api_version.rpartition("/")[0] if "/" in api_version else ""
    return obj.get("kind") == kind and obj_group == group


def collect_params(
    *,
    param_kind: Mapping[str, Any] | None,
    param_namespaced: bool,
    param_ref: Mapping[str, Any] | None,
    attrs: Attributes,
    objects: Sequence[Any],
) -> ParamsOutcome:
    """Return the params of one binding, or raise ParamError with the apiserver's text."""
    if param_kind is None:
        return ParamsOutcome([None], ["the policy has no paramKind: expressions run once, without params"])
    if param_ref is None:
        return ParamsOutcome(
            [None], ["the binding has no paramRef: expressions run once with params set to null"]
        )
    api_version = str(param_kind.get("apiVersion", ""))
    group = api_version.rpartition("/")[0] if "/" in api_version else ""
    kind = str(param_kind.get("kind", ""))
    ref_namespace = str(param_ref.get("namespace") or "")
    if param_namespaced:
        namespace = ref_namespace or attrs.namespace
        if not namespace:
            raise ParamError(
                "cannot use namespaced paramRef in policy binding that matches cluster-scoped resources"
            )
        where = f"namespace {namespace!r}"
    else:
        if ref_namespace:
            raise ParamError("paramRef.namespace must not be provided for a cluster-scoped `paramKind`")
        namespace = ""
        where = "the cluster"
    candidates = [
        o for o in objects
        if param_kind_matches(o, group, kind)
        and (not param_namespaced or str(_meta(o).get("namespace") or "default") == namespace)
    ]
    why: list[str] = []
    name = param_ref.get("name")
    if name:
        found = [o for o in candidates if _meta(o).get("name") == name]
        found = found[:1]
        why.append(
            f"paramRef.name {name!r}: {kind} {name!r} "
            + ("found" if found else "not found")
            + f" in {where}"
        )
    else:
        selector = param_ref.get("selector") or {}
        try:
            found = [
                o for o in candidates
                if selector_matches(selector, {str(k): str(v) for k, v in (_meta(o).get("labels") or {}).items()})
            ]
        except SelectorError as exc:
            raise ParamError(str(exc)) from exc
        found.sort(key=lambda o: (str(_meta(o).get("namespace") or ""), str(_meta(o).get("name") or "")))
        shown = describe_selector(selector) or "everything"
        names = ", ".join(repr(_meta(o).get("name")) for o in found) or "none"
        why.append(f"paramRef.selector {shown} in {where} selects {len(found)} {kind}: {names}")
    if not found:
        action = param_ref.get("parameterNotFoundAction")
        if action == "Deny":
            raise ParamError("no params found for policy binding with `Deny` parameterNotFoundAction")
        why.append("no params found and parameterNotFoundAction is Allow: the binding does nothing")
        return ParamsOutcome([], why)
    filled = []
    for obj in found:
        if "apiVersion" not in obj or "kind" not in obj:
            obj = {**obj, "apiVersion": api_version, "kind": kind}
        filled.append(obj)
    return ParamsOutcome(filled, why)
