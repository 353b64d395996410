"""Scheme defaults of policy/v1: none.

Upstream has no ``defaults.go`` (nor a generated defaulter) for policy/v1: a PodDisruptionBudget is
stored as it was sent (``unhealthyPodEvictionPolicy`` left out means ``IfHealthyBudget`` at
eviction time, but the field is not filled). The module exists so that the group's absence of
defaults is stated, and tested, rather than forgotten.
"""
