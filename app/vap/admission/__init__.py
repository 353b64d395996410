"""The admission chain (:mod:`.chain`): every admission plugin the playground reproduces, one module
each, in kube-apiserver's order, over the values of :mod:`.state`."""

from __future__ import annotations

from .chain import ALWAYS_LISTED, PLUGINS, STAGES, run
from .state import RequestState, StageRecord, Stored

__all__ = ["ALWAYS_LISTED", "PLUGINS", "STAGES", "RequestState", "StageRecord", "Stored", "run"]
