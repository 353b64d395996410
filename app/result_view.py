"""The page's view of a response: what the result region shows besides the core's answer, laid out from it.

The reasons a policy did nothing, what was refused, configuration that can never act, a YAML error moved to its
quote, an UPDATE's old and new object side by side, kubectl's text and the banner's word. No Flask: the evaluation
workers lay out a result here and render it (:mod:`app.rendering`), and the server does the same when it evaluates
inline. Nothing here changes the decision.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

import yaml

from . import forms
from .vap import decision
from .vap.changes import ADD, REMOVE, Path, differences, render_path


def layout(values: Mapping[str, str], response: dict[str, Any]) -> dict[str, Any]:
    """What the result partial shows for a response to these form values."""
    problems = [{**p, "paneLabel": forms.PANE_LABELS.get(p.get("pane"), p.get("pane") or "")}
                for p in placed_problems(values, list(response.get("problems") or []))]
    return {
        **explained(values, response),
        "unavailable": False,
        "response": response,
        "decision": decision_of(response),
        "kubectl": kubectl_text(response),
        "problems": problems,
        "request": response.get("request") if isinstance(response.get("request"), dict) else None,
        "oldNew": old_and_new(response),
    }


def kubectl_text(response: dict[str, Any]) -> str:
    """Return what kubectl would print for this response (the warnings and the denial)."""
    if isinstance(response.get("kubectl"), str):  # a response that says it itself
        return response["kubectl"]
    return decision.kubectl_output(response)


def decision_of(response: dict[str, Any]) -> str:
    """Name the banner: allowed, warned (allowed with warnings) or denied."""
    if not response.get("allowed"):
        return "denied"
    return "warned" if response.get("warnings") else "allowed"


# --- the page's view of a response: reasons, refusals and inert configuration ------------------------------------

_REFUSABLE = {"ValidatingAdmissionPolicy": ("policy", "policies"),
              "ValidatingAdmissionPolicyBinding": ("binding", "bindings")}
_POLICY_NAME = re.compile(r"^\s*policyName\s*:\s*[\"']?([^\"'#\s]+)", re.MULTILINE)
_BINDING_NAMED = re.compile(r"binding ('[^']*'|\"[^\"]*\") names policy")
_DOCUMENT_SEPARATOR = re.compile(r"^---[ \t]*(?:#.*)?$", re.MULTILINE)
_QUOTED_SCAN_LIMIT = 300_000  # characters of a pane scanned again to place a YAML error at its quote


def explained(values: Mapping[str, str], response: dict[str, Any]) -> dict[str, Any]:
    """What the page says about a response beyond what the core reports: each policy's reason for doing
    nothing, what was refused, and configuration that can never act. Nothing here changes the decision."""
    policies = [dict(p) for p in response.get("policies") or [] if isinstance(p, Mapping)]
    rejected = [r for r in response.get("rejected") or [] if isinstance(r, Mapping)]
    refused_bindings = {str(r.get("name")): _refused_binding_target(values, r)
                        for r in rejected if r.get("kind") == "ValidatingAdmissionPolicyBinding"}
    missing = {p["name"]: p for p in policies if p.get("missing")}
    refused_names = {str(r.get("name")) for r in rejected if r.get("kind") == "ValidatingAdmissionPolicy"}
    diagnostics: list[str] = []
    for p in policies:
        p["reason"] = _policy_reason(p, refused_names, refused_bindings, missing)
        p["refused"] = p["name"] in refused_names
        if p.get("missing") and p["name"] not in refused_names:
            diagnostics.extend(p.get("explanation") or [])
        elif not p.get("missing") and p["reason"].startswith("No binding names"):
            diagnostics.append(f"policy {p['name']!r} has no binding: it is never evaluated")
        if p["reason"] and len(p.get("explanation") or []) == 1 and not p.get("bindings"):
            p["explanation"] = []  # the reason says it again, with what the core could not know
        for b in p.get("bindings") or []:
            text = " ".join([*(b.get("explanation") or []), *(b.get("configurationErrors") or [])])
            if b.get("matched") and not b.get("evaluations") and "no params found" in text:
                diagnostics.append(f"binding {b.get('name')!r}: its paramRef finds no params "
                                   f"({_param_outcome(text)})")
    diagnostics.extend(f"MutatingAdmissionPolicy {m.get('name')!r} has no binding: it is never evaluated"
                       for m in response.get("mutatingPolicies") or [] if isinstance(m, Mapping)
                       and not m.get("bindings") and "no binding names this policy, so it is never evaluated"
                       in (m.get("explanation") or []))
    diagnostics.extend(_operation_diagnostics(values, response))
    counts: dict[str, int] = {}
    for r in rejected:
        counts[str(r.get("kind"))] = counts.get(str(r.get("kind")), 0) + 1
    refused = [f"{n} {_REFUSABLE[k][0] if n == 1 else _REFUSABLE[k][1]}" if k in _REFUSABLE
               else f"{n} {k}{'' if n == 1 else ' objects'}" for k, n in counts.items()]
    unread = sorted({str(p.get("pane")) for p in response.get("problems") or []
                     if isinstance(p, Mapping) and str(p.get("message", "")).startswith("invalid YAML")})
    return {"policies": policies, "diagnostics": diagnostics, "refused": refused,
            "refusedCount": len(rejected), "unread": [forms.PANE_LABELS.get(p, p) for p in unread]}


def _policy_reason(policy: Mapping[str, Any], refused_names: set[str], refused_bindings: Mapping[str, str | None],
                   missing: Mapping[str, Any]) -> str:
    """One sentence: why this policy does nothing for the request (empty when it was evaluated)."""
    name = policy["name"]
    explanation = [str(x) for x in policy.get("explanation") or []]
    if policy.get("bindings"):
        return ""
    if name in refused_names:
        return "Refused by API validation: the apiserver would not store this policy, so it is never evaluated."
    if policy.get("missing"):
        found = _BINDING_NAMED.match(" ".join(explanation))
        return (f"Binding {found.group(1) if found else ''} names this policy, but there is no policy of that name "
                "in the panes: the binding is ignored.").replace("Binding  names", "A binding names")
    if any("matchConstraints" in line and "not in" in line for line in explanation):
        return "The request is not in the policy's matchConstraints, so its bindings are not evaluated."
    if any(line.startswith("no binding names") for line in explanation):
        reason = "No binding names this policy, so it is never evaluated."
        refused_here = [b for b, target in refused_bindings.items() if target == name]
        if refused_here:
            reason += (" Binding " + ", ".join(repr(b) for b in refused_here) + " names it but would be refused"
                       " by API validation.")
        for other, record in missing.items():
            if other in refused_names:
                continue
            found = _BINDING_NAMED.match(" ".join(record.get("explanation") or []))
            reason += (f" Binding {found.group(1)} names {other!r} instead: a misspelling?" if found
                       else f" A binding names {other!r} instead: a misspelling?")
        return reason
    return explanation[-1][:1].upper() + explanation[-1][1:] if explanation else ""


def _refused_binding_target(values: Mapping[str, str], rejected: Mapping[str, Any]) -> str | None:
    """The policyName of a refused binding, read from its document's text (the core does not load it)."""
    text = values.get(str(rejected.get("pane") or ""), "")
    index = rejected.get("document")
    if not isinstance(text, str) or not isinstance(index, int):
        return None
    parts = _DOCUMENT_SEPARATOR.split(text[:_QUOTED_SCAN_LIMIT])
    if text.lstrip().startswith("---") and parts and not parts[0].strip():
        parts = parts[1:]
    found = _POLICY_NAME.search(parts[index]) if 0 <= index < len(parts) else None
    return found.group(1) if found else None


def _param_outcome(text: str) -> str:
    if "is Allow" in text or "Allow:" in text:
        return "parameterNotFoundAction Allow: the binding does nothing"
    return "parameterNotFoundAction Deny: every matching request is denied"


def _operation_diagnostics(values: Mapping[str, str], response: Mapping[str, Any]) -> list[str]:
    """An UPDATE without the stored object, or a DELETE whose old object was taken from the Object pane."""
    req = response.get("request") if isinstance(response.get("request"), Mapping) else {}
    operation = req.get("operation")
    has_old_pane = bool((values.get("oldObject") or "").strip())
    if operation == "UPDATE" and response.get("oldObject") is None:
        return ["UPDATE without an old object: oldObject is null in every expression; paste the stored object "
                "in the Old object pane"]
    if operation == "DELETE":
        if response.get("oldObject") is None:
            return ["DELETE without an old object: oldObject is null in every expression; paste the object being "
                    "deleted in the Old object pane"]
        if not has_old_pane:
            return ["DELETE: the Old object pane is empty, so the Object pane's object is taken as the object being "
                    "deleted (oldObject); object is null"]
    return []


def placed_problems(values: Mapping[str, str], problems: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Move a YAML error caused by an unclosed quote to the quote: the parser reports the first token after
    the place where the quoted text finally ended, often lines later."""
    out = []
    for p in problems:
        text = values.get(p.get("pane") or "")
        if (isinstance(text, str) and p.get("line") and str(p.get("message", "")).startswith("invalid YAML")
                and len(text) <= _QUOTED_SCAN_LIMIT):
            quote = _runaway_quote(text, int(p["line"]), int(p.get("column") or 1))
            if quote is not None:
                line, column, char = quote
                p = {**p, "line": line, "column": column,
                     "message": f"{p['message']} (the quote {char} opened at line {line}, column {column} is not "
                                "closed on its line: the text runs on to the next quote)",
                     "reportedAt": [p["line"], p.get("column")]}
        out.append(p)
    return out


def _runaway_quote(text: str, line: int, column: int) -> tuple[int, int, str] | None:
    """The start of the quoted scalar, spanning lines, that ends just before the given error position."""
    last = None
    try:
        for token in yaml.scan(text):
            end = token.end_mark
            if (end.line + 1, end.column + 1) > (line, column):
                break
            last = token
    except yaml.YAMLError:
        pass
    if (isinstance(last, yaml.ScalarToken) and last.style in ("'", '"')
            and last.start_mark.line != last.end_mark.line):
        return last.start_mark.line + 1, last.start_mark.column + 1, last.style
    return None


# --- an UPDATE's old and new object, side by side -------------------------------------------------------------------

OLD_NEW_ROWS = 400  # rows shown of each list (changed, unchanged); the rest are counted


def old_and_new(response: Mapping[str, Any]) -> dict[str, Any] | None:
    """For an UPDATE with both objects: the differences from ``oldObject`` to ``object`` field by field (an added or
    removed mapping or list as its leaves), and the fields that stayed the same, each value as one line of JSON."""
    old, new = response.get("oldObject"), response.get("object")
    req = response.get("request") if isinstance(response.get("request"), Mapping) else {}
    if req.get("operation") != "UPDATE" or not isinstance(old, dict) or not isinstance(new, dict):
        return None
    changed: list[dict[str, str]] = []
    changed_paths: set[Path] = set()
    for op, path, before, after in differences(old, new):
        changed_paths.add(path)
        if op in (ADD, REMOVE):
            for leaf, value in _leaves(after if op == ADD else before, path):
                shown = _line(value)
                changed.append({"op": op, "path": render_path(leaf) or "(the object)",
                                "before": "" if op == ADD else shown, "after": "" if op == REMOVE else shown})
        else:
            changed.append({"op": op, "path": render_path(path) or "(the object)",
                            "before": _line(before), "after": _line(after)})
    unchanged = [{"path": render_path(leaf), "value": _line(value)} for leaf, value in _leaves(new, ())
                 if not any(leaf[:n] in changed_paths for n in range(len(leaf) + 1))]
    return {"changed": changed[:OLD_NEW_ROWS], "changedMore": max(0, len(changed) - OLD_NEW_ROWS),
            "changedCount": len(changed), "unchanged": unchanged[:OLD_NEW_ROWS],
            "unchangedMore": max(0, len(unchanged) - OLD_NEW_ROWS), "unchangedCount": len(unchanged)}


def _leaves(value: Any, path: Path) -> Iterator[tuple[Path, Any]]:
    """The scalars (and empty mappings and lists) of a value, with their paths, in document order."""
    if isinstance(value, dict) and value:
        for key, item in value.items():
            yield from _leaves(item, (*path, key))
    elif isinstance(value, list) and value:
        for index, item in enumerate(value):
            yield from _leaves(item, (*path, index))
    else:
        yield path, value


def _line(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)
