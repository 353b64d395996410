"""The admission chain: the stages of kube-apiserver's request path, run in their real order.

A write request goes, in kube-apiserver, through: decoding the body into the kind's object with the scheme's
defaults; the field manager's managedFields; mutating admission (the built-in mutating plugins,
MutatingAdmissionPolicy, then MutatingAdmissionWebhook); the registry's create or update steps (system fields, the
kind's strategy); validating admission (the built-in plugins' checks, ValidatingAdmissionPolicy, then
ValidatingAdmissionWebhook); and the decision (k8s.io/apiserver/pkg/endpoints/handlers/create.go and update.go,
pkg/registry/rest/create.go; the plugin order is pkg/kubeapiserver/options/plugins.go). The playground builds the
request's attributes from the panes (:mod:`app.vap.request`), then runs the stages of ``_MODULES`` in that order,
each a module named after it (the built-in plugins in :mod:`.plugins`). When a MutatingAdmissionPolicy changed the
object, the mutating plugins run a second time after the first round (admission/reinvocation.go): the built-in
ones, then the MutatingAdmissionPolicy invocations asking for it (:mod:`.mutating_policy`); the webhooks are
never called, so their second round changes nothing here.

Each stage takes the request state and returns its record; the first stage that fails the request
ends it, and every later stage is recorded as not reached. The response is built from these records
(:mod:`app.vap.evaluate`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from ..request import Attributes
from . import (
    decode,
    managed_fields,
    mutating_policy,
    mutating_webhook,
    object_validation,
    strategy,
    validating_policy,
    validating_webhook,
)
from .plugins import (
    default_ingress_class,
    default_storage_class,
    default_toleration_seconds,
    limit_ranger,
    limit_ranger_validate,
    namespace_lifecycle,
    pod_security,
    priority,
    priority_validate,
    runtime_class,
    runtime_class_validate,
    service_account,
    service_account_validate,
    storage_object_in_use_protection,
    taint_nodes_by_condition,
)
from .state import RequestState, StageRecord, Stored


class Stage(NamedTuple):
    plugin: str
    admit: Callable[[RequestState, Stored], StageRecord]
    not_reached: Callable[[RequestState, Stored], StageRecord]


# In the order kube-apiserver runs them. A module's ADMISSION_PLUGIN says whether it is an admission plugin
# (the response's admission.stages lists those); decoding and the registry strategy are not.
_MODULES = (
    decode, managed_fields,
    namespace_lifecycle, limit_ranger, service_account, taint_nodes_by_condition, priority, default_toleration_seconds,
    default_storage_class, storage_object_in_use_protection, runtime_class, default_ingress_class,
    mutating_policy, mutating_webhook, strategy,
    object_validation,
    limit_ranger_validate, service_account_validate, pod_security, priority_validate, runtime_class_validate,
    validating_policy, validating_webhook,
)
STAGES = tuple(Stage(m.PLUGIN, m.admit, m.not_reached) for m in _MODULES)
PLUGINS = tuple(m.PLUGIN for m in _MODULES if getattr(m, "ADMISSION_PLUGIN", True))
# listed in admission.stages whatever they did; the other plugins only when they changed or refused the request
ALWAYS_LISTED = (mutating_webhook.PLUGIN, validating_policy.PLUGIN, validating_webhook.PLUGIN)
# run again, in this order, when a MutatingAdmissionPolicy changed the object: the built-in mutating plugins and
# the policies' second round
_BUILT_IN_MUTATING = _MODULES[_MODULES.index(decode) + 2:_MODULES.index(mutating_policy)]
REINVOKED = (*(Stage(m.PLUGIN, m.admit, m.not_reached) for m in _BUILT_IN_MUTATING),
             Stage(mutating_policy.PLUGIN, mutating_policy.reinvoke, mutating_policy.not_reached))


def run(stored: Stored, attrs: Attributes) -> RequestState:
    """Send the decoded request down the chain; return its state with a record of every stage."""
    state = RequestState(attrs)
    for stage in STAGES:
        record = stage.admit(state, stored) if state.ended_by is None else stage.not_reached(state, stored)
        state = state.then(record)
        if stage.plugin == mutating_webhook.PLUGIN and mutating_policy.wants_reinvocation(state):
            for again in REINVOKED:
                if state.ended_by is None:
                    state = state.then(again.admit(state, stored))
    return state
