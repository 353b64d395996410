"""The page's view of the MutatingAdmissionPolicy records of a response (docs/api.md, ``mutatingPolicies`` and
``patch``): why each policy, binding or invocation did nothing, what each mutation changed, and the pasted object
beside the admitted one, field by field.

Nothing here decides anything: the records, the patch and the changes are the core's (app/vap/mutating/policy.py,
app/vap/changes.py); this module only arranges them for templates/_mutating.html.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .result_view import OLD_NEW_ROWS, _leaves, _line
from .vap.changes import ADD, REMOVE, Path, render_path

STAGE = "MutatingAdmissionPolicy "  # how the changes a policy made name their stage: "... <policy>/<binding>"
_ABSENT = object()
_UNKNOWN = object()  # a value the pasted object had, which no change recorded
_MANAGED_FIELDS = ("metadata", "managedFields")  # one row: the apiserver's bookkeeping, not fields of the kind


def view(response: Mapping[str, Any]) -> dict[str, Any] | None:
    """What the page's "Mutating admission policies" section shows; None when no such policy was pasted."""
    records = [p for p in response.get("mutatingPolicies") or [] if isinstance(p, Mapping)]
    refused = [{"kind": str(r.get("kind")), "name": str(r.get("name") or "")} for r in response.get("rejected") or []
               if isinstance(r, Mapping) and str(r.get("kind", "")).startswith("MutatingAdmissionPolicy")]
    if not records and not refused:
        return None
    policies = [_policy(p) for p in records]
    patch = [op for op in response.get("patch") or [] if isinstance(op, Mapping)]
    changed_by = [f"{p['name']}/{b['name']}" for p in policies for b in p["bindings"] if b["changeCount"]]
    return {
        "policies": policies,
        "refused": refused,
        "changedBy": changed_by,
        "patch": patch,
        "patchText": json.dumps(patch, indent=2, ensure_ascii=False, default=str),
        "compare": pasted_and_admitted(response) if patch else None,
        "rounds": max((e["round"] for p in policies for b in p["bindings"] for e in b["evaluations"]), default=0),
    }


def _capitalized(text: str) -> str:
    return text[:1].upper() + text[1:]


def _policy(record: Mapping[str, Any]) -> dict[str, Any]:
    explanation = [str(x) for x in record.get("explanation") or []]
    bindings = [_binding(b) for b in record.get("bindings") or [] if isinstance(b, Mapping)]
    reason = ""
    if not bindings:  # the core's last word on it says why it did nothing
        reason = _capitalized(explanation[-1]) if explanation else "Not evaluated."
        explanation = explanation[:-1]
    return {"name": str(record.get("name") or ""), "matched": bool(record.get("matched")),
            "explanation": explanation, "reason": reason, "errors": list(record.get("errors") or []),
            "bindings": bindings, "changeCount": sum(b["changeCount"] for b in bindings)}


def _binding(record: Mapping[str, Any]) -> dict[str, Any]:
    explanation = [str(x) for x in record.get("explanation") or []]
    evaluations = [_evaluation(e) for e in record.get("evaluations") or [] if isinstance(e, Mapping)]
    reason = ""
    if not evaluations and not record.get("errors"):  # as for a policy: the last word is the reason
        reason = _capitalized(explanation[-1]) if explanation else "Not evaluated."
        explanation = explanation[:-1]
    return {"name": str(record.get("name") or ""), "matched": bool(record.get("matched")),
            "explanation": explanation, "reason": reason, "errors": list(record.get("errors") or []),
            "evaluations": evaluations, "changeCount": sum(e["changeCount"] for e in evaluations)}


def _evaluation(record: Mapping[str, Any]) -> dict[str, Any]:
    mutations = [_mutation(m) for m in record.get("mutations") or [] if isinstance(m, Mapping)]
    param = record.get("param") if isinstance(record.get("param"), Mapping) else None
    explanation = _capitalized(str(record["explanation"])) if record.get("explanation") else ""
    return {**record, "param": param, "round": int(record.get("round") or 1), "mutations": mutations,
            "explanation": explanation,
            "errors": list(record.get("errors") or []), "changeCount": sum(m["policyChanges"] for m in mutations)}


def _mutation(record: Mapping[str, Any]) -> dict[str, Any]:
    changes = [c for c in record.get("changes") or [] if isinstance(c, Mapping)]
    own = sum(str(c.get("stage", "")).startswith(STAGE) for c in changes)
    if record.get("error") is not None:
        outcome = "error"
    elif record.get("testFailed"):
        outcome = "test failed"
    elif own:
        outcome = "changed"
    else:
        outcome = "no change"
    explanation = _capitalized(str(record["explanation"])) if record.get("explanation") else ""
    after = record.get("object")
    return {**record, "changes": changes, "policyChanges": own, "outcome": outcome, "explanation": explanation,
            "resultText": json.dumps(record.get("result"), indent=2, ensure_ascii=False, default=str),
            "objectText": json.dumps(after, indent=2, ensure_ascii=False, default=str) if "object" in record else None}


# --- the pasted and the admitted object, side by side --------------------------------------------------------------


def pasted_and_admitted(response: Mapping[str, Any]) -> dict[str, Any]:
    """The fields the response's ``patch`` changes, each with its value as pasted and as admitted and the stages
    that changed it (from ``changes``), and the fields that stayed as they were; each value as one line of JSON."""
    final = response.get("object")
    changes = [c for c in response.get("changes") or [] if isinstance(c, Mapping)]
    rows: list[dict[str, Any]] = []
    touched: set[Path] = set()
    for op in response.get("patch") or []:
        if not isinstance(op, Mapping) or not isinstance(op.get("path"), str):
            continue
        path = _pointer_path(op["path"], final)
        touched.add(path)
        kind = str(op.get("op"))
        if kind == ADD:
            added = op.get("value")
            for leaf, value in [(path, added)] if path == _MANAGED_FIELDS else _leaves(added, path):
                rows.append(_row(ADD, leaf, _ABSENT, value, changes))
        else:
            before = _pasted(path, changes)
            rows.append(_row(kind, path, _UNKNOWN if before is _ABSENT else before,
                             _ABSENT if kind == REMOVE else op.get("value"), changes))
    same = [{"path": render_path(leaf), "value": _line(value)} for leaf, value in _leaves(final, ())
            if not any(leaf[:n] in touched for n in range(len(leaf) + 1))]
    return {"changed": rows[:OLD_NEW_ROWS], "changedMore": max(0, len(rows) - OLD_NEW_ROWS),
            "changedCount": len(rows), "unchanged": same[:OLD_NEW_ROWS],
            "unchangedMore": max(0, len(same) - OLD_NEW_ROWS), "unchangedCount": len(same)}


def _pointer_path(pointer: str, obj: Any) -> Path:
    """An RFC 6901 pointer as a field path, its list indexes as numbers where ``obj`` holds a list."""
    out: list[str | int] = []
    node = obj
    for raw in pointer.split("/")[1:]:
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, list) and token.isdigit():
            out.append(int(token))
            node = node[int(token)] if int(token) < len(node) else None
        else:
            out.append(token)
            node = node.get(token) if isinstance(node, dict) else None
    return tuple(out)


def _inside(value: Any, rest: Path) -> Any:
    """The value at ``rest`` inside ``value``; _ABSENT when there is none."""
    for part in rest:
        if isinstance(value, dict) and isinstance(part, str) and part in value:
            value = value[part]
        elif isinstance(value, list) and isinstance(part, int) and part < len(value):
            value = value[part]
        else:
            return _ABSENT
    return value


def _rendered_prefixes(path: Path) -> dict[str, int]:
    return {render_path(path[:n]): n for n in range(len(path) + 1)}


def _pasted(path: Path, changes: list[Mapping[str, Any]]) -> Any:
    """The value the pasted object had at ``path``: what the first change at it (or around it) found there."""
    prefixes = _rendered_prefixes(path)
    for change in changes:
        n = prefixes.get(str(change.get("path")))
        if n is None:
            continue
        if change.get("op") == ADD:
            return _ABSENT
        return _inside(change.get("before"), path[n:])
    return _ABSENT


def _row(op: str, path: Path, before: Any, after: Any, changes: list[Mapping[str, Any]]) -> dict[str, Any]:
    """One field: its values (None when absent or unknown) and the stages whose change changed it."""
    prefixes = _rendered_prefixes(path)
    stages: list[str] = []
    for change in changes:
        n = prefixes.get(str(change.get("path")))
        if n is None:
            continue
        was = _ABSENT if change.get("op") == ADD else _inside(change.get("before"), path[n:])
        now = _ABSENT if change.get("op") == REMOVE else _inside(change.get("after"), path[n:])
        if (was is _ABSENT) != (now is _ABSENT) or (was is not _ABSENT and was != now):  # it changed the field
            stage = str(change.get("stage") or "")
            if stage and stage not in stages:
                stages.append(stage)
    return {"op": op, "path": render_path(path) or "(the object)", "before": _shown(before), "after": _shown(after),
            "beforeKnown": before is not _UNKNOWN, "stages": stages}


def _shown(value: Any) -> str | None:
    return None if value is _ABSENT or value is _UNKNOWN else _line(value)
