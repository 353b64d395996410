"""Checking the panes as they are typed: every problem an evaluation would report, without evaluating.

What kube-apiserver finds before any admission runs: YAML that cannot be read, documents its decoding
refuses (unknown fields under Strict field validation, values of the wrong type), API validation of
policies, bindings, webhook configurations, Kyverno policies and RBAC objects (CEL compiled as the
apiserver compiles it on create), the policies' type checking, the object panes' unknown and ill-typed
fields, and the request the panes describe. Each problem names its pane, line and column.

The cluster side is read by :func:`evaluate.respond` itself, given the panes without an object or a
request: with nothing to admit it stops after reading, validating and type checking the configuration
(the same code, so the page's marks as you type and its evaluation never disagree). The object panes
and the request are then read as the evaluation reads them (:func:`request.build_attributes`), which
decodes and defaults the object but sends nothing down the admission chain.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from . import limits
from .documents import Problem, load_pane
from .evaluate import STORED_PANES, respond
from .request import build_attributes
from .resources import builtin_table
from .scenario import Scenario
from .schemas import schema_set
from .typecheck import object_problems

REQUEST_PANES = ("object", "oldObject", "request")


def lint(payload: Mapping[str, Any]) -> dict[str, Any]:
    """The problems of a JSON API request body's panes (``{"problems": [...]}``, as the evaluation's
    ``problems``), found without evaluating; InputError when the body is not an API request."""
    scenario = Scenario.from_json(payload)
    return {"problems": [p.to_json() for p in problems(scenario)]}


def problems(scenario: Scenario) -> list[Problem]:
    """The problems of a scenario's panes that an evaluation would report before admitting anything."""
    cluster = respond(replace(scenario, object=None, old_object=None, request=None))
    assert not cluster.evaluated, "a scenario without an object is never evaluated"
    found = [p for p in cluster.problems if p.pane not in REQUEST_PANES or p.path == "kubernetesVersion"]
    usage = limits.Usage()
    docs = {}
    for pane in REQUEST_PANES:
        docs[pane], pane_problems = load_pane(pane, scenario.pane(pane), usage)
        found.extend(pane_problems)
    if any(p.severity == "error" for p in found if p.pane in REQUEST_PANES):
        return found
    version = cluster.kubernetes_version
    crds = [d.value for pane in STORED_PANES for d in load_pane(pane, scenario.pane(pane))[0]
            if d.kind == "CustomResourceDefinition" and isinstance(d.value, dict)]
    table = builtin_table(version)
    schemas = schema_set(version, crds)
    object_doc = docs["object"][0] if docs["object"] else None
    old_object_doc = docs["oldObject"][0] if docs["oldObject"] else None
    for doc in (object_doc, old_object_doc):
        if doc is not None:
            found.extend(object_problems(doc, schemas))
    _, request_problems = build_attributes(
        object_doc=object_doc, old_object_doc=old_object_doc,
        request_doc=docs["request"][0] if docs["request"] else None,
        table=table.with_custom_resources(crds) if crds else table,
    )
    found.extend(request_problems)
    return found
