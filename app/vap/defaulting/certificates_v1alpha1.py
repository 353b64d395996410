"""Scheme defaults of certificates.k8s.io/v1alpha1: the PodCertificateRequest's maximum lifetime.

CertificateSigningRequest has no defaults in this version. A PodCertificateRequest (in the schemas of
v1alpha1 from 1.34) without ``maxExpirationSeconds`` gets 86400 (24 hours), a declarative ``+default``
marker of the API type.
"""

from __future__ import annotations

from . import defaults
from .certificates_v1 import max_expiration

defaults("io.k8s.api.certificates.v1alpha1.PodCertificateRequestSpec",
         "+default marker: PodCertificateRequestSpec.maxExpirationSeconds")(max_expiration)
