"""Entry point of the core: an API request body in, the API response out."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def evaluate(payload: Mapping[str, Any]) -> dict[str, Any]:
    """Evaluate one scenario (the JSON API body) and return the JSON API response."""
    raise NotImplementedError("the evaluation pipeline is being written")
