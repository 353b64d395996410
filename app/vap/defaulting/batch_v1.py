"""Scheme defaults of batch/v1: Job and CronJob.

Restates ``pkg/apis/batch/v1/defaults.go``. A CronJob's ``jobTemplate`` is not a Job: it gets only
the CronJob's own defaults and those of the types inside it (the pod template's, the pod failure
policy patterns'), never the Job's completions, backoff limit and the like.

Release differences (checked against the feature gates' version tables and the defaulting's history):

* ``podReplacementPolicy`` is filled when the ``JobPodReplacementPolicy`` gate is on: alpha (off)
  in 1.28, beta and on by default from 1.29, GA in 1.34.
* ``manualSelector: false`` is filled from 1.29 (the defaulting was added in that release's cycle).
* The status of a pod failure policy's condition pattern defaults to ``"True"``; older releases did
  this inside ``SetDefaults_Job``, newer ones in a function of the pattern type, which is how it is
  registered here (the same result for a Job).
"""

from __future__ import annotations

from typing import Any

from . import Context, defaults
from ._values import empty, mapping, struct, unset

_BATCH = "io.k8s.api.batch.v1."

_MAX_INT32 = 2147483647


@defaults(_BATCH + "Job", "SetDefaults_Job")
def job(obj: dict[str, Any], context: Context) -> None:
    spec = struct(obj, "spec")
    if spec is None:
        return
    # a non-parallel Job may leave both out: then it runs one pod to completion
    if unset(spec, "completions") and unset(spec, "parallelism"):
        spec["completions"] = 1
        spec["parallelism"] = 1
    if unset(spec, "parallelism"):
        spec["parallelism"] = 1
    if unset(spec, "backoffLimit"):
        # with a per-index limit, the global one is effectively unbounded
        spec["backoffLimit"] = _MAX_INT32 if not unset(spec, "backoffLimitPerIndex") else 6
    template = mapping(spec, "template")
    template_meta = mapping(template, "metadata") if template is not None else None
    template_labels = template_meta.get("labels") if template_meta is not None else None
    # the Job takes its pod template's labels when it has none of its own
    if isinstance(template_labels, dict) and template_labels:
        metadata = struct(obj, "metadata")
        if metadata is not None and empty(metadata, "labels"):
            metadata["labels"] = dict(template_labels)
    if unset(spec, "completionMode"):
        spec["completionMode"] = "NonIndexed"
    if unset(spec, "suspend"):
        spec["suspend"] = False
    if context.version >= (1, 29) and unset(spec, "podReplacementPolicy"):
        spec["podReplacementPolicy"] = "Failed" if not unset(spec, "podFailurePolicy") else "TerminatingOrFailed"
    if context.version >= (1, 29) and unset(spec, "manualSelector"):
        spec["manualSelector"] = False


@defaults(_BATCH + "CronJob", "SetDefaults_CronJob")
def cron_job(obj: dict[str, Any], context: Context) -> None:
    spec = struct(obj, "spec")
    if spec is None:
        return
    if empty(spec, "concurrencyPolicy"):
        spec["concurrencyPolicy"] = "Allow"
    if unset(spec, "suspend"):
        spec["suspend"] = False
    if unset(spec, "successfulJobsHistoryLimit"):
        spec["successfulJobsHistoryLimit"] = 3
    if unset(spec, "failedJobsHistoryLimit"):
        spec["failedJobsHistoryLimit"] = 1


@defaults(_BATCH + "PodFailurePolicyOnPodConditionsPattern", "SetDefaults_PodFailurePolicyOnPodConditionsPattern")
def pod_conditions_pattern(pattern: dict[str, Any], context: Context) -> None:
    if empty(pattern, "status"):
        pattern["status"] = "True"
