"""Scheme defaults of certificates.k8s.io/v1: the PodCertificateRequest's maximum lifetime.

CertificateSigningRequest has no defaults in this version. A PodCertificateRequest (in the schemas of
v1 from 1.37) without ``maxExpirationSeconds`` gets 86400 (24 hours), a declarative ``+default``
marker of the API type.
"""

from __future__ import annotations

from typing import Any

from . import Context, defaults
from ._values import unset

DEFAULT_MAX_EXPIRATION_SECONDS = 86400  # one day


@defaults("io.k8s.api.certificates.v1.PodCertificateRequestSpec",
          "+default marker: PodCertificateRequestSpec.maxExpirationSeconds")
def max_expiration(spec: dict[str, Any], context: Context) -> None:
    if unset(spec, "maxExpirationSeconds"):
        spec["maxExpirationSeconds"] = DEFAULT_MAX_EXPIRATION_SECONDS
