"""Admission policies loaded from static manifest files (``staticManifestsDir``), as kube-apiserver 1.37 loads them.

Restates k8s.io/apiserver ``pkg/admission/plugin/policy/manifest/loader`` (LoadPolicyManifests: the constraints of
a policy or binding read from a manifest, and the check that every binding names a policy of the same directory),
``pkg/admission/plugin/policy/generic/composite_policy_source.go`` (the static policies come before the ones
created through the API) and k8s.io/kubernetes ``pkg/apis/admissionregistration/validation/static_suffix.go`` (the
reserved name suffix).

The names ending in ``.static.k8s.io`` are reserved for such files from 1.37 (the ManifestBasedAdmissionControlConfig
feature, beta and on by default): the API refuses to create an object with such a name, so a document of the
playground named so is taken as read from the manifests directory. In 1.36 (the feature alpha, off by default) the
API creates it with a warning. Before, the suffix means nothing.

A manifest the loader refuses makes the whole directory fail to load (the apiserver does not start, or keeps the
manifests it had): then no static policy or binding of that kind (validating or mutating) is loaded.
"""

from __future__ import annotations

from collections.abc import Sequence

from .cel.library import version_tuple
from .dispatcher import Loaded

SUFFIX = ".static.k8s.io"
LOADED_SINCE = (1, 37)
WARNED_IN = (1, 36)
SUFFIX_WARNING = (f'metadata.name: names ending with "{SUFFIX}" will be reserved for static manifest-based '
                  "configurations when the ManifestBasedAdmissionControlConfig feature gate is enabled")


def is_static(name: str, version: str) -> bool:
    """Whether an object of this name is read from the static manifests in this Kubernetes version."""
    return name.endswith(SUFFIX) and version_tuple(version) >= LOADED_SINCE


def warned(name: str, version: str) -> bool:
    """Whether the API warns when an object of this name is created (1.36, the feature off)."""
    return name.endswith(SUFFIX) and version_tuple(version) == WARNED_IN


def _policy_error(kind: str, policy: Loaded) -> str | None:
    if policy.spec.get("paramKind") is not None:
        return f'{kind} "{policy.name}": spec.paramKind is not supported for static manifests'
    return None


def _binding_error(binding: Loaded) -> str | None:
    policy_name = str(binding.spec.get("policyName") or "")
    if not policy_name:
        return f'binding "{binding.name}" must reference a policy (spec.policyName)'
    if not policy_name.endswith(SUFFIX):
        return f'binding "{binding.name}": spec.policyName "{policy_name}" must end with "{SUFFIX}"'
    if binding.spec.get("paramRef") is not None:
        return f'binding "{binding.name}": spec.paramRef is not supported for static manifests'
    return None


def load(kind: str, policies: Sequence[Loaded], bindings: Sequence[Loaded]
         ) -> tuple[list[Loaded], list[Loaded], list[tuple[Loaded, str]]]:
    """The static policies and bindings of one kind (``kind``: the policy's kind) as the loader takes them, with
    their ``static`` mark; or none of them and the errors that made the directory fail (each with its object)."""
    errors: list[tuple[Loaded, str]] = []
    for policy in policies:
        if (text := _policy_error(kind, policy)) is not None:
            errors.append((policy, text))
    for binding in bindings:
        if (text := _binding_error(binding)) is not None:
            errors.append((binding, text))
    if not errors:
        names = {p.name for p in policies}
        errors = [(b, f'binding "{b.name}" references policy "{b.spec.get("policyName")}" which does not exist in '
                      "the manifest directory") for b in bindings if b.spec.get("policyName") not in names]
    if errors:
        return [], [], errors
    return [_marked(p) for p in policies], [_marked(b) for b in bindings], []


def _marked(loaded: Loaded) -> Loaded:
    return Loaded(loaded.name, loaded.obj, loaded.memo, static=True)

