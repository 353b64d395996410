"""Kyverno's auto-generated rules for Pod controllers (pkg/autogen/v1).

A rule written for Pods also guards the controllers that create Pods: for a Deployment (DaemonSet, Job,
StatefulSet, ReplicaSet, ReplicationController) Kyverno evaluates ``autogen-<rule>``, for a CronJob
``autogen-cronjob-<rule>``, with the kinds replaced and ``object.spec``/``object.metadata`` rewritten to
the Pod template inside the controller.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any

from .match import kind_of_entry

ANNOTATION = "pod-policies.kyverno.io/autogen-controllers"
POD_CONTROLLERS = ("DaemonSet", "Deployment", "Job", "StatefulSet", "ReplicaSet", "ReplicationController", "CronJob")
_GVK = {"DaemonSet": "apps/v1/DaemonSet", "Deployment": "apps/v1/Deployment", "Job": "batch/v1/Job",
        "StatefulSet": "apps/v1/StatefulSet", "ReplicaSet": "apps/v1/ReplicaSet",
        "ReplicationController": "v1/ReplicationController", "CronJob": "batch/v1/CronJob", "Pod": "v1/Pod"}
_POD_CEL = (("object.spec", "object.spec.template.spec"), ("oldObject.spec", "oldObject.spec.template.spec"),
            ("object.metadata", "object.spec.template.metadata"),
            ("oldObject.metadata", "oldObject.spec.template.metadata"))
_CRONJOB_CEL = (("object.spec", "object.spec.jobTemplate.spec.template.spec"),
                ("oldObject.spec", "oldObject.spec.jobTemplate.spec.template.spec"),
                ("object.metadata", "object.spec.jobTemplate.spec.template.metadata"),
                ("oldObject.metadata", "oldObject.spec.jobTemplate.spec.template.metadata"))
_POD = (("request.object.spec", "request.object.spec.template.spec"),
        ("request.oldObject.spec", "request.oldObject.spec.template.spec"),
        ("request.object.metadata", "request.object.spec.template.metadata"),
        ("request.oldObject.metadata", "request.oldObject.spec.template.metadata"))
_CRONJOB = (("request.object.spec", "request.object.spec.jobTemplate.spec.template.spec"),
            ("request.oldObject.spec", "request.oldObject.spec.jobTemplate.spec.template.spec"),
            ("request.object.metadata", "request.object.spec.jobTemplate.spec.template.metadata"),
            ("request.oldObject.metadata", "request.oldObject.spec.jobTemplate.spec.template.metadata"))
_CONTROLLER_LIST = ("DaemonSet", "Deployment", "Job", "StatefulSet", "ReplicaSet", "ReplicationController")


def _contains_kind(kinds: list[str], kind: str) -> bool:
    return any(kind_of_entry(k) == kind for k in kinds)


def _descriptions(rule: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """Every resource description of the rule's match and exclude blocks."""
    out: list[Mapping[str, Any]] = []
    for key in ("match", "exclude"):
        block = rule.get(key)
        if not isinstance(block, Mapping):
            continue
        for item in [block, *(block.get("any") or []), *(block.get("all") or [])]:
            if isinstance(item, Mapping):
                res = item.get("resources")
                out.append(res if isinstance(res, Mapping) else {})
    return out


def _kinds(block: Any) -> list[str]:
    """ResourceFilters' GetKinds: the kinds of the block and of its any/all entries."""
    if not isinstance(block, Mapping):
        return []
    out: list[str] = []
    for item in [block, *(block.get("any") or []), *(block.get("all") or [])]:
        if isinstance(item, Mapping) and isinstance(item.get("resources"), Mapping):
            out += [str(k) for k in item["resources"].get("kinds") or []]
    return out


def can_autogen(spec: Mapping[str, Any]) -> bool:
    """CanAutoGen: no name, names, selector or annotations, no Pod mixed with other kinds, and a Pod kind somewhere."""
    needed = False
    for rule in spec.get("rules") or []:
        if not isinstance(rule, Mapping):
            continue
        if rule.get("generate"):
            return False
        mutate = rule.get("mutate")
        if isinstance(mutate, Mapping) and (mutate.get("patchesJson6902") or any(
                isinstance(f, Mapping) and f.get("patchesJson6902") for f in mutate.get("foreach") or [])):
            return False
        for description in _descriptions(rule):
            kinds = [str(k) for k in description.get("kinds") or []]
            if (description.get("name") or description.get("names") or description.get("selector") is not None
                    or description.get("annotations") is not None
                    or (len(kinds) > 1 and _contains_kind(kinds, "Pod"))):
                return False
            needed = needed or any(k in ("Pod", *POD_CONTROLLERS) for k in kinds)
    return needed


def _replace_kinds(block: dict[str, Any], kinds: list[str], only_with_pod: bool) -> None:
    """Replace the kinds of the any (else all) entries: those naming Pod, or every one."""
    gvks = [_GVK.get(k, k) for k in kinds]
    for entry in block.get("any") or block.get("all") or []:
        if not isinstance(entry, dict):
            continue
        resources = entry.setdefault("resources", {})
        if not only_with_pod or _contains_kind([str(k) for k in resources.get("kinds") or []], "Pod"):
            resources["kinds"] = gvks


def _generate(rule: Mapping[str, Any], name: str, kinds: list[str], all_entries: bool) -> dict[str, Any]:
    out = copy.deepcopy(dict(rule))
    out["name"] = name[:63]
    match = out.get("match") if isinstance(out.get("match"), dict) else {}
    out["match"] = match
    if match.get("any") or match.get("all"):
        _replace_kinds(match, kinds, only_with_pod=not all_entries)
    else:
        match.setdefault("resources", {})["kinds"] = [_GVK.get(k, k) for k in kinds]
    exclude = out.get("exclude")
    if isinstance(exclude, dict):
        if exclude.get("any") or exclude.get("all"):
            _replace_kinds(exclude, kinds, only_with_pod=not all_entries)
        elif isinstance(exclude.get("resources"), dict) and exclude["resources"].get("kinds"):
            exclude["resources"]["kinds"] = [_GVK.get(k, k) for k in kinds]
    return out


def _rewrite(rule: dict[str, Any], cronjob: bool) -> dict[str, Any]:
    """convertRule: the rule's JSON with each replacement applied everywhere, in order (CEL rules: object.*)."""
    validate = rule.get("validate")
    cel = isinstance(validate, Mapping) and validate.get("cel") is not None
    replacements = (_CRONJOB_CEL if cel else _CRONJOB) if cronjob else (_POD_CEL if cel else _POD)
    text = json.dumps(rule)
    for old, new in replacements:
        text = text.replace(old, new)
    result: dict[str, Any] = json.loads(text)
    return result


def _controllers_rule(rule: Mapping[str, Any], controllers: str) -> dict[str, Any] | None:
    """generateRuleForControllers, before the CEL rewrite."""
    name = str(rule.get("name") or "")
    if name.startswith("autogen-") or not controllers:
        return None
    match_kinds = _kinds(rule.get("match"))
    exclude_kinds = _kinds(rule.get("exclude"))
    if not _contains_kind(match_kinds, "Pod") or (exclude_kinds and not _contains_kind(exclude_kinds, "Pod")):
        return None
    if controllers == "all":
        chosen = list(_CONTROLLER_LIST)
    elif controllers != "none":
        valid = [c for c in sorted(controllers.split(",")) if c in _CONTROLLER_LIST]
        chosen = valid if valid else sorted(controllers.split(","))
    else:
        chosen = ["none"]
    chosen = sorted(chosen)
    return _generate(rule, f"autogen-{name}", chosen, all_entries=False)


def compute_rules(policy: Mapping[str, Any], kind: str) -> list[dict[str, Any]]:
    """ComputeRules(policy, kind): the rules Kyverno evaluates for a request on ``kind``."""
    spec = policy.get("spec") if isinstance(policy.get("spec"), Mapping) else {}
    rules = [dict(r) for r in spec.get("rules") or [] if isinstance(r, Mapping)]
    if not can_autogen(spec):
        return rules
    meta = policy.get("metadata") if isinstance(policy.get("metadata"), Mapping) else {}
    annotations = meta.get("annotations") if isinstance(meta.get("annotations"), Mapping) else {}
    actual = set(str(annotations[ANNOTATION]).split(",")) if ANNOTATION in annotations else set(POD_CONTROLLERS)
    if kind not in actual or kind == "none":
        return rules
    generated: list[dict[str, Any]] = []
    for rule in rules:
        if not _is_cel_or_supported(rule):
            continue
        non_cron = ",".join(c for c in sorted(kind.split(",")) if c != "CronJob")
        gen = _controllers_rule(rule, non_cron)
        if gen is not None:
            generated.append(_rewrite(gen, cronjob=False))
        if "CronJob" in kind or "all" in kind:
            base = _controllers_rule(rule, kind)
            if base is not None:
                cron = _generate(base, f"autogen-cronjob-{rule.get('name')}", ["CronJob"], all_entries=True)
                generated.append(_rewrite(cron, cronjob=True))
    if not generated:
        return rules
    return [r for r in rules if not str(r.get("name") or "").startswith("autogen-")] + generated


def _is_cel_or_supported(rule: Mapping[str, Any]) -> bool:
    """generateRule yields a rule only for the rule types it knows (validate, mutate patches, verifyImages)."""
    return bool(rule.get("validate") or rule.get("mutate") or rule.get("verifyImages"))
