"""Scheme defaults of node.k8s.io/v1: none.

Upstream has no ``defaults.go`` (nor a generated defaulter) for node.k8s.io/v1: a RuntimeClass is
stored as it was sent. Its ``overhead.podFixed`` and ``scheduling`` have no defaults either.
"""
