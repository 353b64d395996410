"""ServiceAccount: the service account of a Pod being created, and the API token it mounts.

On the creation of a Pod (not a mirror pod, which it only checks) the plugin
(plugin/pkg/admission/serviceaccount) names the service account ``default`` when the Pod names none;
unless the Pod's ``automountServiceAccountToken`` (else the service account's) is false, it adds a
projected volume ``kube-api-access-<five random characters>`` (a bound service account token that
expires after 3607 seconds, the ``ca.crt`` of the ConfigMap ``kube-root-ca.crt``, the Pod's namespace
from the downward API; mode 420) and mounts it read-only at /var/run/secrets/kubernetes.io/serviceaccount
in every init container and container that has nothing mounted there yet (a volume whose name starts with
``kube-api-access-`` is taken as that volume); and it gives a Pod without image pull secrets those of
its service account. It then runs its checks (:mod:`.service_account_validate`).

The service account is looked up among the ServiceAccounts pasted in the panes; one that is not pasted is
taken to exist with nothing set (no automount preference, no image pull secrets), since the apiserver's
refusal of a missing one can only be known from the cluster. The volume's suffix is random in the
apiserver: the playground derives it from the object, so that the same Pod always gets the same name.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from ..state import RequestState, StageRecord, Stored
from . import _common as c

PLUGIN = "ServiceAccount"
DEFAULT_NAME = "default"
VOLUME_PREFIX = "kube-api-access-"
MOUNT_PATH = "/var/run/secrets/kubernetes.io/serviceaccount"
MIRROR_ANNOTATION = "kubernetes.io/config.mirror"
ENFORCE_ANNOTATION = "kubernetes.io/enforce-mountable-secrets"
TOKEN_EXPIRATION_SECONDS = 3607  # a bound token's lifetime the apiserver only warns past (1 hour and 7 seconds)
PROJECTED_DEFAULT_MODE = 420  # 0644
# apimachinery's simple name generator: characters without vowels and lookalikes
_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"

_RESULTS = c.Results("admission.plugins.service_account")


def acts_on(state: RequestState) -> bool:
    return c.acts_on(state.attrs, "", "pods")


def admit(state: RequestState, stored: Stored) -> StageRecord:
    """What the plugin's Admit does with the request."""
    if not acts_on(state):
        return c.nothing(PLUGIN)
    name = account_name(state.attrs.object) or DEFAULT_NAME
    account = find_account(stored, state.attrs.namespace, name)
    return _RESULTS.get(state, c.freeze(account), lambda: _admit(state, stored, account))


not_reached = c.not_reached_for(PLUGIN)


def account_name(pod: Any) -> str:
    """The Pod's service account name (serviceAccountName, else the deprecated serviceAccount it replaces)."""
    spec = c.spec(pod)
    return str(spec.get("serviceAccountName") or spec.get("serviceAccount") or "")


def find_account(stored: Stored, namespace: str, name: str) -> dict[str, Any] | None:
    """The pasted ServiceAccount of that namespace and name, None when none is pasted."""
    for account in c.pasted(stored, ("v1",), "ServiceAccount"):
        if c.name_of(account) == name and c.namespace_of(account) == namespace:
            return account
    return None


def _admit(state: RequestState, stored: Stored, account: dict[str, Any] | None) -> StageRecord:
    attrs = state.attrs
    pod = attrs.object
    if MIRROR_ANNOTATION in c.annotations(pod):
        status = mirror_refusal(attrs, pod)
        if status is not None:
            return c.refused(PLUGIN, status)
        return c.nothing(PLUGIN, "a mirror pod (kubernetes.io/config.mirror): the plugin leaves it as it is")
    out, spec = c.with_spec(pod)
    words: list[str] = []
    name = account_name(out)
    if not name:
        # the v1 form shows the name in the deprecated serviceAccount field too (the conversion copies it)
        name = spec["serviceAccountName"] = spec["serviceAccount"] = DEFAULT_NAME
        words.append("the Pod names no service account: it runs as 'default'")
    if account is None:
        exists = ("every namespace has one" if name == DEFAULT_NAME
                  else "it is taken to exist (the apiserver refuses the Pod when it does not)")
        words.append(f"ServiceAccount {attrs.namespace}/{name} is not pasted: {exists}; it is taken to have no "
                     "automountServiceAccountToken and no imagePullSecrets (paste it to use its own)")
    account = account or {}
    if should_automount(account, spec):
        mounted = _mount_token(out, spec)
        if mounted:
            words.append(mounted)
    elif spec.get("automountServiceAccountToken") is False:
        words.append("automountServiceAccountToken is false in the Pod: no API token is mounted")
    else:
        words.append(f"ServiceAccount {name} says automountServiceAccountToken: false: no API token is mounted")
    if not spec.get("imagePullSecrets"):
        secrets = account.get("imagePullSecrets")
        if isinstance(secrets, list) and secrets:
            spec["imagePullSecrets"] = [{"name": (s.get("name") if isinstance(s, dict) else None) or ""}
                                        for s in secrets]
            words.append(f"the Pod has no imagePullSecrets: it gets those of ServiceAccount {name}")
    status = check(attrs, out, account if account else None)
    if status is not None:
        return c.refused(PLUGIN, status)
    if not words:
        return c.nothing(PLUGIN)
    return c.changed(PLUGIN, state, out, *words)


def should_automount(account: dict[str, Any], spec: dict[str, Any]) -> bool:
    """The Pod's preference, else the service account's, else true."""
    own = spec.get("automountServiceAccountToken")
    if isinstance(own, bool):
        return own
    theirs = account.get("automountServiceAccountToken")
    if isinstance(theirs, bool):
        return theirs
    return True


def token_volume(name: str) -> dict[str, Any]:
    """The projected volume of the service account's API token, as the plugin builds it."""
    return {
        "name": name,
        "projected": {
            "sources": [
                {"serviceAccountToken": {"expirationSeconds": TOKEN_EXPIRATION_SECONDS, "path": "token"}},
                {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
                {"downwardAPI": {"items": [
                    {"path": "namespace", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}},
                ]}},
            ],
            "defaultMode": PROJECTED_DEFAULT_MODE,
        },
    }


def generated_suffix(pod: Any) -> str:
    """Five characters of the name generator's alphabet, derived from the object (random in the apiserver)."""
    digest = hashlib.sha256(json.dumps(pod, sort_keys=True, default=str).encode()).digest()
    return "".join(_ALPHABET[b % len(_ALPHABET)] for b in digest[:5])


def _mount_token(out: dict[str, Any], spec: dict[str, Any]) -> str | None:
    """Mount the token volume in every container that has nothing at the token's path; add the volume when
    one needs it and the Pod has none. Returns what was done, None when nothing was."""
    volumes = spec.get("volumes") if isinstance(spec.get("volumes"), list) else []
    existing = next((v["name"] for v in volumes
                     if isinstance(v, dict) and str(v.get("name") or "").startswith(VOLUME_PREFIX)), None)
    volume_name = existing or VOLUME_PREFIX + generated_suffix(out)
    mount = {"name": volume_name, "readOnly": True, "mountPath": MOUNT_PATH}
    mounted_in: list[str] = []
    for field in ("initContainers", "containers"):
        containers = spec.get(field)
        if not isinstance(containers, list):
            continue
        new_list = list(containers)
        for index, container in enumerate(containers):
            if not isinstance(container, dict):
                continue
            mounts = container.get("volumeMounts") if isinstance(container.get("volumeMounts"), list) else []
            if any(isinstance(m, dict) and m.get("mountPath") == MOUNT_PATH for m in mounts):
                continue
            new_list[index] = {**container, "volumeMounts": [*mounts, dict(mount)]}
            mounted_in.append(f"{field}[{index}]")
        if new_list != containers:
            spec[field] = new_list
    if not mounted_in:
        return None
    words = f"the API token is mounted read-only at {MOUNT_PATH} in {', '.join(mounted_in)}"
    if existing is None:
        spec["volumes"] = [*volumes, token_volume(volume_name)]
        words += (f", from the projected volume {volume_name} it adds (the apiserver generates the suffix at "
                  "random; the playground derives it from the object)")
    else:
        words += f", from the Pod's volume {existing}"
    return words


def parse_bool(value: Any) -> bool:
    """strconv.ParseBool; anything else is false."""
    return str(value) in ("1", "t", "T", "TRUE", "true", "True")


def check(attrs: Any, pod: Any, account: dict[str, Any] | None) -> dict[str, Any] | None:
    """The plugin's Validate on a Pod being created: the status of its refusal, None when it passes.
    ``account`` is the pasted ServiceAccount (None: not pasted, taken to exist with nothing set)."""
    if MIRROR_ANNOTATION in c.annotations(pod):
        return mirror_refusal(attrs, pod)
    name = account_name(pod)
    if not name:
        return c.forbidden(attrs, f"no service account specified for pod {attrs.namespace}/{c.name_of(pod)}")
    if account is not None and parse_bool(c.annotations(account).get(ENFORCE_ANNOTATION)):
        message = _secret_references(account, pod)
        if message is not None:
            return c.forbidden(attrs, message)
    return None


def mirror_refusal(attrs: Any, pod: Any) -> dict[str, Any] | None:
    """What a mirror pod may not reference: a service account, a secret, a service account token."""
    spec = c.spec(pod)
    if account_name(pod):
        return c.forbidden(attrs, "a mirror pod may not reference service accounts")
    if any(True for _ in secret_names(spec)):
        return c.forbidden(attrs, "a mirror pod may not reference secrets")
    for volume in _dicts(spec.get("volumes")):
        projected = volume.get("projected")
        if isinstance(projected, dict):
            if any(isinstance(s, dict) and s.get("serviceAccountToken") is not None
                   for s in _dicts(projected.get("sources"))):
                return c.forbidden(attrs, "a mirror pod may not use ServiceAccountToken volume projections")
    return None


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


_SECRET_REF_VOLUMES = ("cephfs", "cinder", "flexVolume", "rbd", "storageos", "iscsi", "scaleIO")


def secret_names(spec: Any) -> Any:
    """Every Secret a Pod spec references (pod util VisitPodSecretNames, all containers)."""
    for ref in _dicts(spec.get("imagePullSecrets")):
        yield str(ref.get("name") or "")
    for field in ("initContainers", "containers", "ephemeralContainers"):
        for container in _dicts(spec.get(field)):
            for env in _dicts(container.get("env")):
                source = env.get("valueFrom")
                if isinstance(source, dict) and isinstance(source.get("secretKeyRef"), dict):
                    yield str(source["secretKeyRef"].get("name") or "")
            for env_from in _dicts(container.get("envFrom")):
                if isinstance(env_from.get("secretRef"), dict):
                    yield str(env_from["secretRef"].get("name") or "")
    for volume in _dicts(spec.get("volumes")):
        if isinstance(volume.get("secret"), dict):
            yield str(volume["secret"].get("secretName") or "")
        if isinstance(volume.get("azureFile"), dict):
            yield str(volume["azureFile"].get("secretName") or "")
        if isinstance(volume.get("csi"), dict) and isinstance(volume["csi"].get("nodePublishSecretRef"), dict):
            yield str(volume["csi"]["nodePublishSecretRef"].get("name") or "")
        for kind in _SECRET_REF_VOLUMES:
            source = volume.get(kind)
            if isinstance(source, dict) and isinstance(source.get("secretRef"), dict):
                yield str(source["secretRef"].get("name") or "")
        projected = volume.get("projected")
        if isinstance(projected, dict):
            for item in _dicts(projected.get("sources")):
                if isinstance(item.get("secret"), dict):
                    yield str(item["secret"].get("name") or "")


def _secret_references(account: dict[str, Any], pod: Any) -> str | None:
    """The plugin's limitSecretReferences: the first Secret the Pod references that the service account does
    not list (kubernetes.io/enforce-mountable-secrets)."""
    spec = c.spec(pod)
    sa = c.name_of(account)
    mountable = {str(s.get("name") or "") for s in _dicts(account.get("secrets"))}
    for volume in _dicts(spec.get("volumes")):
        if isinstance(volume.get("secret"), dict):
            secret = str(volume["secret"].get("secretName") or "")
            if secret not in mountable:
                return (f'volume with secret.secretName="{secret}" is not allowed because service account {sa} '
                        "does not reference that secret")
    for field, label in (("initContainers", "init container"), ("containers", "container")):
        for container in _dicts(spec.get(field)):
            for env in _dicts(container.get("env")):
                source = env.get("valueFrom")
                if isinstance(source, dict) and isinstance(source.get("secretKeyRef"), dict):
                    secret = str(source["secretKeyRef"].get("name") or "")
                    if secret not in mountable:
                        return (f"{label} {container.get('name') or ''} with envVar {env.get('name') or ''} "
                                f'referencing secret.secretName="{secret}" is not allowed because service account '
                                f"{sa} does not reference that secret")
            for env_from in _dicts(container.get("envFrom")):
                if isinstance(env_from.get("secretRef"), dict):
                    secret = str(env_from["secretRef"].get("name") or "")
                    if secret not in mountable:
                        return (f"{label} {container.get('name') or ''} with envFrom referencing "
                                f'secret.secretName="{secret}" is not allowed because service account {sa} does '
                                "not reference that secret")
    pull = {str(s.get("name") or "") for s in _dicts(account.get("imagePullSecrets"))}
    for index, ref in enumerate(_dicts(spec.get("imagePullSecrets"))):
        secret = str(ref.get("name") or "")
        if secret not in pull:
            return (f'imagePullSecrets[{index}].name="{secret}" is not allowed because service account {sa} does '
                    "not reference that imagePullSecret")
    return None
