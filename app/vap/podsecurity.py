"""The Pod Security Standards as the PodSecurity admission plugin evaluates them (k8s.io/pod-security-admission).

Restates, in the playground's own words:

* api/helpers.go, api/constants.go: the Namespace labels ``pod-security.kubernetes.io/<mode>[-version]`` for the
  modes enforce, audit and warn; the levels privileged, baseline and restricted; the versions ``latest`` and
  ``v1.<minor>``; how a Namespace's labels resolve to a policy (:func:`policy_to_evaluate`), invalid values
  included (an invalid enforce level is restricted, an invalid audit or warn level privileged, an invalid version
  latest, and each is a field error);
* policy/check_*.go: every check of the baseline and restricted levels with its reason and detail texts, the
  policy versions each revision applies from (:data:`CHECKS`);
* policy/registry.go: which checks a level and version runs, in which order (baseline checks by ID, then the
  restricted ones; a restricted check may stand in for a baseline one), ``latest`` being the newest version;
* policy/checks.go: how the failed checks are joined into one text (``<reason> (<detail>)``, by ``, ``);
* admission/admission.go: what a Pod, a workload's pod template or a Namespace request gets
  (:func:`evaluate_pod`, :func:`is_significant_pod_update`, :func:`pod_template`).

The kube-apiserver of a given minor version holds the checks written up to it: a policy version newer than the
server is evaluated as the server's own (its ``latest``). Objects are the JSON of the request's object, decoded
and defaulted; nothing here reads anything else.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from .cel.library.goquote import go_quote

LABEL_PREFIX = "pod-security.kubernetes.io/"
MODES = ("enforce", "audit", "warn")
PRIVILEGED, BASELINE, RESTRICTED = "privileged", "baseline", "restricted"
LEVELS = (PRIVILEGED, BASELINE, RESTRICTED)
# the audit annotations' keys (api/constants.go), as the plugin adds them to the request's audit event
ENFORCE_POLICY_ANNOTATION = LABEL_PREFIX + "enforce-policy"
AUDIT_VIOLATIONS_ANNOTATION = LABEL_PREFIX + "audit-violations"
ERROR_ANNOTATION = LABEL_PREFIX + "error"

_VERSION = re.compile(r"^v1\.([0-9]|[1-9][0-9]*)$")
_LEVEL_ERROR = "must be one of privileged, baseline, restricted"
_VERSION_ERROR = 'must be "latest" or "v1.x"'

Version = tuple[int, int] | None  # (1, minor), or None for latest


# --------------------------------------------------------------------------------------------
# Levels, versions and the policy of a Namespace


@dataclass(frozen=True)
class LevelVersion:
    level: str
    version: Version = None

    def __str__(self) -> str:
        version = "latest" if self.version is None else f"v{self.version[0]}.{self.version[1]}"
        return f"{self.level}:{version}"


@dataclass(frozen=True)
class Policy:
    enforce: LevelVersion
    audit: LevelVersion
    warn: LevelVersion

    @property
    def fully_privileged(self) -> bool:
        return PRIVILEGED == self.enforce.level == self.audit.level == self.warn.level


@dataclass(frozen=True)
class LabelError:
    """A field.Invalid of a pod-security label: ``metadata.labels[<label>]: Invalid value: "<value>": <detail>``."""

    label: str
    value: str
    detail: str

    @property
    def field(self) -> str:
        return f"metadata.labels[{self.label}]"

    @property
    def body(self) -> str:
        return f"Invalid value: {go_quote(self.value)}: {self.detail}"

    def __str__(self) -> str:
        return f"{self.field}: {self.body}"


# The cluster default when no AdmissionConfiguration gives one: privileged:latest for every mode.
DEFAULT_POLICY = Policy(LevelVersion(PRIVILEGED), LevelVersion(PRIVILEGED), LevelVersion(PRIVILEGED))


def has_labels(labels: Mapping[str, Any]) -> bool:
    """Whether any of the six pod-security labels is set (when none is, the policy is the default)."""
    return any(f"{LABEL_PREFIX}{mode}{tail}" in labels for mode in MODES for tail in ("", "-version"))


def _rank(level: str) -> int:
    return LEVELS.index(level) if level in LEVELS else -1


def policy_to_evaluate(labels: Mapping[str, Any], defaults: Policy = DEFAULT_POLICY
                       ) -> tuple[Policy, tuple[LabelError, ...]]:
    """The policy of a Namespace with these labels, and the errors of its invalid pod-security labels
    (api.PolicyToEvaluate). A policy is always returned: the failed labels fall back as the apiserver does."""
    if not labels or not has_labels(labels):
        return defaults, ()
    errors: list[LabelError] = []
    modes = {"enforce": defaults.enforce, "audit": defaults.audit, "warn": defaults.warn}
    valid_enforce_level = False
    for mode in MODES:
        level, version = modes[mode].level, modes[mode].version
        key = LABEL_PREFIX + mode
        if key in labels:
            text = str(labels[key])
            if text in LEVELS:
                level = text
                valid_enforce_level = valid_enforce_level or mode == "enforce"
            else:
                errors.append(LabelError(key, text, _LEVEL_ERROR))
                level = RESTRICTED if mode == "enforce" else PRIVILEGED  # enforce fails closed, the others open
        if key + "-version" in labels:
            text = str(labels[key + "-version"])
            version = parse_version(text)
            if version is None and text != "latest":
                errors.append(LabelError(key + "-version", text, _VERSION_ERROR))
        modes[mode] = LevelVersion(level, version)
    warn, enforce = modes["warn"], modes["enforce"]
    # warn follows an enforce level set more strictly than warn when no warn label says otherwise
    if LABEL_PREFIX + "warn" not in labels and valid_enforce_level and _rank(enforce.level) > _rank(warn.level):
        version = warn.version if LABEL_PREFIX + "warn-version" in labels else enforce.version
        modes["warn"] = LevelVersion(enforce.level, version)
    return Policy(modes["enforce"], modes["audit"], modes["warn"]), tuple(errors)


def parse_version(text: str) -> Version:
    """``v1.<minor>`` as (1, minor); None for ``latest`` and for anything invalid (which counts as latest)."""
    match = _VERSION.match(text)
    return (1, int(match[1])) if match else None


def errors_text(errors: tuple[LabelError, ...]) -> str:
    """An aggregate error's text: the one error, or several bracketed and comma-separated."""
    texts = list(dict.fromkeys(str(e) for e in errors))
    return texts[0] if len(texts) == 1 else "[" + ", ".join(texts) + "]"


# --------------------------------------------------------------------------------------------
# Reading the pod spec (JSON)


def _map(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def containers(spec: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The init containers, the containers, then the ephemeral containers (policy/visitor.go)."""
    return [c for key in ("initContainers", "containers", "ephemeralContainers")
            for c in _list(spec.get(key)) if isinstance(c, Mapping)]


def _name(container: Mapping[str, Any]) -> str:
    return str(container.get("name") or "")


def _context(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return _map(obj.get("securityContext"))


def _join_quote(items: list[str]) -> str:
    """policy/helpers.go joinQuote: each item in double quotes (not escaped), joined by ", "."""
    return '"' + '", "'.join(items) + '"' if items else ""


def _plural(singular: str, plural: str, count: int) -> str:
    return singular if count == 1 else plural


def _containers_text(names: list[str]) -> str:
    return f"{_plural('container', 'containers', len(names))} {_join_quote(names)}"


def _is_windows(spec: Mapping[str, Any]) -> bool:
    return _map(spec.get("os")).get("name") == "windows"


def _user_namespaced(spec: Mapping[str, Any]) -> bool:
    """policy/helpers.go relaxPolicyForUserNamespacePod: the pod sets hostUsers false."""
    return spec.get("hostUsers") is False


Result = tuple[str, str] | None  # (reason, detail) of a failed check; None when it passes
CheckFn = Callable[[Mapping[str, Any], Mapping[str, Any]], Result]


# --------------------------------------------------------------------------------------------
# The checks (policy/check_*.go), each taking the pod's metadata and spec


def _allow_privilege_escalation(meta: Mapping[str, Any], spec: Mapping[str, Any]) -> Result:
    bad = [_name(c) for c in containers(spec) if _context(c).get("allowPrivilegeEscalation") is not False]
    if bad:
        return ("allowPrivilegeEscalation != false",
                f"{_containers_text(bad)} must set securityContext.allowPrivilegeEscalation=false")
    return None


_APPARMOR_ANNOTATION_PREFIX = "container.apparmor.security.beta.kubernetes.io/"


def _bad_apparmor_annotations(meta: Mapping[str, Any]) -> list[str]:
    def allowed(value: str) -> bool:
        return value in ("", "runtime/default") or value.startswith("localhost/")

    return sorted(f"{k}={go_quote(str(v))}" for k, v in _map(meta.get("annotations")).items()
                  if str(k).startswith(_APPARMOR_ANNOTATION_PREFIX) and not allowed(str(v)))


def _apparmor_annotations_only(meta: Mapping[str, Any], spec: Mapping[str, Any]) -> Result:
    """The check of the servers before 1.30, which had no appArmorProfile fields."""
    bad = _bad_apparmor_annotations(meta)
    if bad:
        return _plural("forbidden AppArmor profile", "forbidden AppArmor profiles", len(bad)), ", ".join(bad)
    return None


def _apparmor_profile(meta: Mapping[str, Any], spec: Mapping[str, Any]) -> Result:
    setters: list[str] = []
    values: set[str] = set()

    def bad_type(context: Mapping[str, Any]) -> bool:
        profile = context.get("appArmorProfile")
        if not isinstance(profile, Mapping) or profile.get("type") in ("RuntimeDefault", "Localhost"):
            return False
        values.add(str(profile.get("type") or ""))
        return True

    if bad_type(_context(spec)):
        setters.append("pod")
    bad = [_name(c) for c in containers(spec) if bad_type(_context(c))]
    if bad:
        setters.append(_containers_text(bad))
    listed = sorted(values)
    annotations = _bad_apparmor_annotations(meta)
    if annotations:
        listed += annotations
        setters.append(_plural("annotation", "annotations", len(annotations)))
    if setters:
        return (_plural("forbidden AppArmor profile", "forbidden AppArmor profiles", len(listed)),
                f"{' and '.join(setters)} must not set AppArmor profile type to {_join_quote(listed)}")
    return None


_DEFAULT_CAPABILITIES = frozenset({
    "AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD", "NET_BIND_SERVICE", "SETFCAP",
    "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT",
})


def _capabilities(container: Mapping[str, Any]) -> Mapping[str, Any] | None:
    value = _context(container).get("capabilities")
    return value if isinstance(value, Mapping) else None


def _capabilities_baseline(meta: Mapping[str, Any], spec: Mapping[str, Any]) -> Result:
    bad: list[str] = []
    added: set[str] = set()
    for c in containers(spec):
        extra = {str(a) for a in _list(_map(_capabilities(c)).get("add"))} - _DEFAULT_CAPABILITIES
        if extra:
            bad.append(_name(c))
            added |= extra
    if bad:
        return ("non-default capabilities",
                f"{_containers_text(bad)} must not include {_join_quote(sorted(added))} in "
                "securityContext.capabilities.add")
    return None


def _capabilities_restricted(meta: Mapping[str, Any], spec: Mapping[str, Any]) -> Result:
    missing_drop: list[str] = []
    adding: list[str] = []
    added: set[str] = set()
    for c in containers(spec):
        capabilities = _capabilities(c)
        if capabilities is None:
            missing_drop.append(_name(c))
            continue
        if "ALL" not in [str(d) for d in _list(capabilities.get("drop"))]:
            missing_drop.append(_name(c))
        extra = {str(a) for a in _list(capabilities.get("add")) if a != "NET_BIND_SERVICE"}
        if extra:
            adding.append(_name(c))
            added |= extra
    details = []
    if missing_drop:
        details.append(f'{_containers_text(missing_drop)} must set securityContext.capabilities.drop=["ALL"]')
    if adding:
        details.append(f"{_containers_text(adding)} must not include {_join_quote(sorted(added))} in "
                       "securityContext.capabilities.add")
    return ("unrestricted capabilities", "; ".join(details)) if details else None


def _host_namespaces(meta: Mapping[str, Any], spec: Mapping[str, Any]) -> Result:
    shared = [f"{key}=true" for key in ("hostNetwork", "hostPID", "hostIPC") if spec.get(key) is True]
    return ("host namespaces", ", ".join(shared)) if shared else None


def _volumes(spec: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [v for v in _list(spec.get("volumes")) if isinstance(v, Mapping)]


def _host_path_volumes(meta: Mapping[str, Any], spec: Mapping[str, Any]) -> Result:
    bad = [str(v.get("name") or "") for v in _volumes(spec) if v.get("hostPath") is not None]
    if bad:
        return "hostPath volumes", f"{_plural('volume', 'volumes', len(bad))} {_join_quote(bad)}"
    return None


def _host_ports(meta: Mapping[str, Any], spec: Mapping[str, Any]) -> Result:
    bad: list[str] = []
    ports: set[str] = set()
    for c in containers(spec):
        used = {str(p.get("hostPort")) for p in _list(c.get("ports"))
                if isinstance(p, Mapping) and p.get("hostPort") not in (None, 0)}
        if used:
            bad.append(_name(c))
            ports |= used
    if bad:
        return ("hostPort", f"{_containers_text(bad)} {_plural('uses', 'use', len(bad))} "
                            f"{_plural('hostPort', 'hostPorts', len(ports))} {', '.join(sorted(ports))}")
    return None


def _handler_hosts(handler: Any) -> list[str]:
    handler = _map(handler)
    return [str(_map(handler.get(key)).get("host")) for key in ("httpGet", "tcpSocket")
            if _map(handler.get(key)).get("host")]


def _host_probes_and_lifecycle(meta: Mapping[str, Any], spec: Mapping[str, Any]) -> Result:
    bad: set[str] = set()
    hosts: set[str] = set()
    for c in containers(spec):
        lifecycle = _map(c.get("lifecycle"))
        found = [h for handler in (c.get("livenessProbe"), c.get("readinessProbe"), c.get("startupProbe"),
                                   lifecycle.get("postStart"), lifecycle.get("preStop"))
                 for h in _handler_hosts(handler)]
        if found:
            bad.add(_name(c))
            hosts.update(found)
    if bad:
        return ("probe or lifecycle host",
                f"{_containers_text(sorted(bad))} {_plural('uses', 'use', len(bad))} "
                f"{_plural('probe or lifecycle host', 'probe or lifecycle hosts', len(hosts))} "
                f"{_join_quote(sorted(hosts))}")
    return None


def _privileged(meta: Mapping[str, Any], spec: Mapping[str, Any]) -> Result:
    bad = [_name(c) for c in containers(spec) if _context(c).get("privileged") is True]
    if bad:
        return "privileged", f"{_containers_text(bad)} must not set securityContext.privileged=true"
    return None


def _proc_mount(meta: Mapping[str, Any], spec: Mapping[str, Any]) -> Result:
    bad: list[str] = []
    types: set[str] = set()
    for c in containers(spec):
        value = _context(c).get("procMount")
        if value is not None and value != "Default":
            bad.append(_name(c))
            types.add(str(value))
    if bad:
        return ("procMount", f"{_containers_text(bad)} must not set securityContext.procMount to "
                             f"{_join_quote(sorted(types))}")
    return None


def _relaxed_for_user_namespaces(check: CheckFn) -> CheckFn:
    """The 1.35 revisions of procMount (baseline), runAsNonRoot and runAsUser: a pod with hostUsers false
    passes."""
    def relaxed(meta: Mapping[str, Any], spec: Mapping[str, Any]) -> Result:
        return None if _user_namespaced(spec) else check(meta, spec)

    return relaxed


def _windows_exempt(check: CheckFn) -> CheckFn:
    """The 1.25 revisions of the restricted checks a Windows pod (spec.os.name windows) is exempt from."""
    def exempt(meta: Mapping[str, Any], spec: Mapping[str, Any]) -> Result:
        return None if _is_windows(spec) else check(meta, spec)

    return exempt


_ALLOWED_VOLUME_SOURCES = ("configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "persistentVolumeClaim",
                           "projected", "secret")
# the restricted sources named in the detail, in the order the check looks for them; any other is "unknown"
_NAMED_VOLUME_SOURCES = (
    "hostPath", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "nfs", "iscsi", "glusterfs", "rbd",
    "flexVolume", "cinder", "cephfs", "flocker", "fc", "azureFile", "vsphereVolume", "quobyte", "azureDisk",
    "photonPersistentDisk", "portworxVolume", "scaleIO", "storageos",
)


def _restricted_volumes(allowed: tuple[str, ...]) -> CheckFn:
    def check(meta: Mapping[str, Any], spec: Mapping[str, Any]) -> Result:
        bad: list[str] = []
        types: set[str] = set()
        for volume in _volumes(spec):
            if any(volume.get(key) is not None for key in allowed):
                continue
            bad.append(str(volume.get("name") or ""))
            types.add(next((key for key in _NAMED_VOLUME_SOURCES if volume.get(key) is not None), "unknown"))
        if bad:
            return ("restricted volume types",
                    f"{_plural('volume', 'volumes', len(bad))} {_join_quote(bad)} {_plural('uses', 'use', len(bad))} "
                    f"{_plural('restricted volume type', 'restricted volume types', len(types))} "
                    f"{_join_quote(sorted(types))}")
        return None

    return check


def _run_as_non_root(meta: Mapping[str, Any], spec: Mapping[str, Any]) -> Result:
    setters: list[str] = []
    pod_value = _context(spec).get("runAsNonRoot")
    if pod_value is False:
        setters.append("pod")
    explicit: list[str] = []
    implicit: list[str] = []
    for c in containers(spec):
        value = _context(c).get("runAsNonRoot")
        if value is not None:
            if value is False:
                explicit.append(_name(c))
        elif pod_value is not True:
            implicit.append(_name(c))
    if explicit:
        setters.append(_containers_text(explicit))
    if setters:
        return "runAsNonRoot != true", f"{' and '.join(setters)} must not set securityContext.runAsNonRoot=false"
    if implicit:
        return ("runAsNonRoot != true",
                f"pod or {_containers_text(implicit)} must set securityContext.runAsNonRoot=true")
    return None


def _is_zero(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value == 0


def _run_as_user(meta: Mapping[str, Any], spec: Mapping[str, Any]) -> Result:
    setters = ["pod"] if _is_zero(_context(spec).get("runAsUser")) else []
    bad = [_name(c) for c in containers(spec) if _is_zero(_context(c).get("runAsUser"))]
    if bad:
        setters.append(_containers_text(bad))
    return ("runAsUser=0", f"{' and '.join(setters)} must not set runAsUser=0") if setters else None


def _selinux_options(allowed_types: frozenset[str]) -> CheckFn:
    def check(meta: Mapping[str, Any], spec: Mapping[str, Any]) -> Result:
        types: set[str] = set()
        user = role = False

        def valid(context: Mapping[str, Any]) -> bool:
            nonlocal user, role
            options = context.get("seLinuxOptions")
            if not isinstance(options, Mapping):
                return True
            ok = True
            if str(options.get("type") or "") not in allowed_types:
                ok = False
                types.add(str(options.get("type") or ""))
            if options.get("user"):
                ok, user = False, True
            if options.get("role"):
                ok, role = False, True
            return ok

        setters = [] if valid(_context(spec)) else ["pod"]
        bad = [_name(c) for c in containers(spec) if not valid(_context(c))]
        if bad:
            setters.append(_containers_text(bad))
        if not setters:
            return None
        data = []
        if types:
            data.append(f"{_plural('type', 'types', len(types))} {_join_quote(sorted(types))}")
        if user:
            data.append("user may not be set")
        if role:
            data.append("role may not be set")
        return ("seLinuxOptions",
                f"{' and '.join(setters)} set forbidden securityContext.seLinuxOptions: {'; '.join(data)}")

    return check


_SECCOMP_POD_ANNOTATION = "seccomp.security.alpha.kubernetes.io/pod"
_SECCOMP_CONTAINER_ANNOTATION_PREFIX = "container.seccomp.security.alpha.kubernetes.io/"


def _seccomp_annotations(meta: Mapping[str, Any], spec: Mapping[str, Any]) -> Result:
    """The policy versions before 1.19 read the seccomp annotations."""
    annotations = _map(meta.get("annotations"))

    def valid(value: Any) -> bool:
        text = str(value)
        return text in ("runtime/default", "docker/default") or text.startswith("localhost/")

    keys = [_SECCOMP_POD_ANNOTATION, *(_SECCOMP_CONTAINER_ANNOTATION_PREFIX + _name(c) for c in containers(spec))]
    bad = sorted({f"{k}={go_quote(str(annotations[k]))}" for k in keys
                  if k in annotations and not valid(annotations[k])})
    if bad:
        return "seccompProfile", f"forbidden {_plural('annotation', 'annotations', len(bad))} {', '.join(bad)}"
    return None


def _seccomp_type(context: Mapping[str, Any]) -> str | None:
    """The seccompProfile's type, "" when the profile names none; None without a profile."""
    profile = context.get("seccompProfile")
    return str(profile.get("type") or "") if isinstance(profile, Mapping) else None


def _seccomp(restricted: bool) -> CheckFn:
    def check(meta: Mapping[str, Any], spec: Mapping[str, Any]) -> Result:
        setters: list[str] = []
        values: set[str] = set()
        pod_type = _seccomp_type(_context(spec))
        pod_set = pod_type in ("RuntimeDefault", "Localhost")
        if pod_type is not None and not pod_set:
            setters.append("pod")
            values.add(pod_type)
        explicit: list[str] = []
        implicit: list[str] = []
        for c in containers(spec):
            kind = _seccomp_type(_context(c))
            if kind is None:
                if not pod_set:
                    implicit.append(_name(c))
            elif kind not in ("RuntimeDefault", "Localhost"):
                explicit.append(_name(c))
                values.add(kind)
        if explicit:
            setters.append(_containers_text(explicit))
        if setters:
            return ("seccompProfile", f"{' and '.join(setters)} must not set securityContext.seccompProfile.type to "
                                      f"{_join_quote(sorted(values))}")
        if restricted and implicit:
            return ("seccompProfile", f'pod or {_containers_text(implicit)} must set '
                                      'securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"')
        return None

    return check


_SAFE_SYSCTLS: tuple[tuple[tuple[int, int], tuple[str, ...]], ...] = (
    ((1, 0), ("kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range", "net.ipv4.tcp_syncookies",
              "net.ipv4.ping_group_range", "net.ipv4.ip_unprivileged_port_start")),
    ((1, 27), ("net.ipv4.ip_local_reserved_ports",)),
    ((1, 29), ("net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout", "net.ipv4.tcp_keepalive_intvl",
               "net.ipv4.tcp_keepalive_probes")),
    ((1, 32), ("net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem")),
    ((1, 37), ("net.ipv4.tcp_slow_start_after_idle", "net.ipv4.tcp_notsent_lowat")),
)


def _sysctls(allowed: frozenset[str]) -> CheckFn:
    def check(meta: Mapping[str, Any], spec: Mapping[str, Any]) -> Result:
        bad = [str(s.get("name") or "") for s in _list(_context(spec).get("sysctls"))
               if isinstance(s, Mapping) and str(s.get("name") or "") not in allowed]
        return ("forbidden sysctls", ", ".join(bad)) if bad else None

    return check


def _windows_host_process(meta: Mapping[str, Any], spec: Mapping[str, Any]) -> Result:
    def host_process(context: Mapping[str, Any]) -> bool:
        return _map(context.get("windowsOptions")).get("hostProcess") is True

    setters = ["pod"] if host_process(_context(spec)) else []
    bad = [_name(c) for c in containers(spec) if host_process(_context(c))]
    if bad:
        setters.append(_containers_text(bad))
    if setters:
        return ("hostProcess",
                f"{' and '.join(setters)} must not set securityContext.windowsOptions.hostProcess=true")
    return None


# --------------------------------------------------------------------------------------------
# The registry (policy/registry.go)


@dataclass(frozen=True)
class Check:
    """A check: its ID, its level, and its revisions by the first policy version each applies to (with the
    baseline checks a restricted revision stands in for)."""

    id: str
    level: str
    versions: tuple[tuple[tuple[int, int], CheckFn], ...]
    overrides: tuple[str, ...] = ()
    since_server: tuple[int, int] = (1, 0)  # the first kube-apiserver holding the check


def checks_for_server(server: tuple[int, int]) -> tuple[Check, ...]:
    """The checks of a kube-apiserver of this minor version (newer revisions left out), some of which read
    the objects of that server's API (AppArmor fields from 1.30, image volumes allowed from 1.33)."""
    return _checks(server)


@lru_cache(maxsize=16)
def _checks(server: tuple[int, int]) -> tuple[Check, ...]:
    apparmor = _apparmor_profile if server >= (1, 30) else _apparmor_annotations_only
    volumes = _ALLOWED_VOLUME_SOURCES + (("image",) if server >= (1, 33) else ())
    sysctls: list[tuple[tuple[int, int], CheckFn]] = []
    safe: frozenset[str] = frozenset()
    for since, names in _SAFE_SYSCTLS:
        safe = safe | frozenset(names)
        sysctls.append((since, _sysctls(safe)))
    all_checks = (
        Check("allowPrivilegeEscalation", RESTRICTED,
              (((1, 8), _allow_privilege_escalation), ((1, 25), _windows_exempt(_allow_privilege_escalation)))),
        Check("appArmorProfile", BASELINE, (((1, 0), apparmor),)),
        Check("capabilities_baseline", BASELINE, (((1, 0), _capabilities_baseline),)),
        Check("capabilities_restricted", RESTRICTED,
              (((1, 22), _capabilities_restricted), ((1, 25), _windows_exempt(_capabilities_restricted))),
              overrides=("capabilities_baseline",)),
        Check("hostNamespaces", BASELINE, (((1, 0), _host_namespaces),)),
        Check("hostPathVolumes", BASELINE, (((1, 0), _host_path_volumes),)),
        Check("hostPorts", BASELINE, (((1, 0), _host_ports),)),
        Check("hostProbesAndHostLifecycle", BASELINE, (((1, 34), _host_probes_and_lifecycle),)),
        Check("privileged", BASELINE, (((1, 0), _privileged),)),
        Check("procMount", BASELINE, (((1, 0), _proc_mount), ((1, 35), _relaxed_for_user_namespaces(_proc_mount)))),
        Check("procMount_restricted", RESTRICTED, (((1, 35), _proc_mount),), overrides=("procMount",)),
        Check("restrictedVolumes", RESTRICTED, (((1, 0), _restricted_volumes(volumes)),),
              overrides=("hostPathVolumes",)),
        Check("runAsNonRoot", RESTRICTED,
              (((1, 0), _run_as_non_root), ((1, 35), _relaxed_for_user_namespaces(_run_as_non_root)))),
        Check("runAsUser", RESTRICTED,
              (((1, 23), _run_as_user), ((1, 35), _relaxed_for_user_namespaces(_run_as_user)))),
        Check("seLinuxOptions", BASELINE,
              (((1, 0), _selinux_options(frozenset({"", "container_t", "container_init_t", "container_kvm_t"}))),
               ((1, 31), _selinux_options(frozenset({"", "container_t", "container_init_t", "container_kvm_t",
                                                     "container_engine_t"}))))),
        Check("seccompProfile_baseline", BASELINE, (((1, 0), _seccomp_annotations), ((1, 19), _seccomp(False)))),
        Check("seccompProfile_restricted", RESTRICTED,
              (((1, 19), _seccomp(True)), ((1, 25), _windows_exempt(_seccomp(True)))),
              overrides=("seccompProfile_baseline",)),
        Check("sysctls", BASELINE, tuple(sysctls)),
        Check("windowsHostProcess", BASELINE, (((1, 0), _windows_host_process),)),
    )
    kept = []
    for check in all_checks:
        versions = tuple((since, fn) for since, fn in check.versions if since <= server)
        if versions:
            kept.append(Check(check.id, check.level, versions, check.overrides, versions[0][0]))
    return tuple(kept)


@lru_cache(maxsize=256)
def checks_to_run(level: str, version: Version, server: tuple[int, int]) -> tuple[tuple[str, CheckFn], ...]:
    """The checks a level and version runs on a server, in the order of their results: the baseline ones by ID,
    then the restricted ones by ID. ``latest``, and any version newer than the server's checks, is the
    newest version those checks know."""
    if level == PRIVILEGED:
        return ()
    checks = _checks(server)
    newest = max(since for check in checks for since, _ in check.versions)
    at = newest if version is None or version > newest else version

    def revision(check: Check) -> CheckFn | None:
        applying = [fn for since, fn in check.versions if since <= at]
        return applying[-1] if applying else None

    running = {c.id: (c, fn) for c in checks if (fn := revision(c)) is not None
               and (c.level == BASELINE or level == RESTRICTED)}
    overridden = {o for c, _ in running.values() if c.level == RESTRICTED for o in c.overrides}
    ordered = sorted(i for i, (c, _) in running.items() if c.level == BASELINE and i not in overridden)
    ordered += sorted(i for i, (c, _) in running.items() if c.level == RESTRICTED)
    return tuple((i, running[i][1]) for i in ordered)


def check_pod(level_version: LevelVersion, meta: Mapping[str, Any], spec: Mapping[str, Any],
              server: tuple[int, int]) -> list[tuple[str, str]]:
    """The (reason, detail) of every check of the level and version the pod fails, in the registry's order."""
    failed = []
    for _, check in checks_to_run(level_version.level, level_version.version, server):
        result = check(meta, spec)
        if result is not None:
            failed.append(result)
    return failed


def forbidden_detail(failed: list[tuple[str, str]]) -> str:
    """policy/checks.go ForbiddenDetail: ``<reason> (<detail>)`` (the bare reason without a detail), by ", "."""
    return ", ".join(f"{reason} ({detail})" if detail else reason for reason, detail in failed)


# --------------------------------------------------------------------------------------------
# What the plugin does with a request (admission/admission.go)


@dataclass(frozen=True)
class Evaluation:
    """The plugin's answer: a refusal's text (after ``<resource> "<name>" is forbidden: ``), the warnings and
    the audit annotations (with their ``pod-security.kubernetes.io/`` prefix)."""

    denied: str | None = None
    warnings: tuple[str, ...] = ()
    audit_annotations: Mapping[str, str] = field(default_factory=dict)


def evaluate_pod(policy: Policy, errors: tuple[LabelError, ...], meta: Mapping[str, Any], spec: Mapping[str, Any],
                 server: tuple[int, int], enforce: bool) -> Evaluation:
    """Admission.EvaluatePod: the enforce level (for a Pod only), then audit, then warn unless refused."""
    annotations: dict[str, str] = {}
    if errors:
        annotations[ERROR_ANNOTATION] = f"Failed to parse policy: {errors_text(errors)}"
    results: dict[LevelVersion, list[tuple[str, str]]] = {}

    def failed(lv: LevelVersion) -> list[tuple[str, str]]:
        if lv not in results:
            results[lv] = check_pod(lv, meta, spec, server)
        return results[lv]

    denied = None
    if enforce:
        annotations[ENFORCE_POLICY_ANNOTATION] = str(policy.enforce)
        if failed(policy.enforce):
            denied = f"violates PodSecurity {go_quote(str(policy.enforce))}: {forbidden_detail(failed(policy.enforce))}"
    if failed(policy.audit):
        annotations[AUDIT_VIOLATIONS_ANNOTATION] = (f"would violate PodSecurity {go_quote(str(policy.audit))}: "
                                                    f"{forbidden_detail(failed(policy.audit))}")
    warnings: tuple[str, ...] = ()
    if denied is None and failed(policy.warn):
        warnings = (f"would violate PodSecurity {go_quote(str(policy.warn))}: {forbidden_detail(failed(policy.warn))}",)
    return Evaluation(denied, warnings, annotations)


def _images(spec: Mapping[str, Any], key: str) -> list[Any]:
    return [_map(c).get("image") for c in _list(spec.get(key))]


def is_significant_pod_update(pod: Mapping[str, Any], old: Mapping[str, Any]) -> bool:
    """isSignificantPodUpdate: an update is evaluated only when it changes the number of containers or init
    containers, an image of one, or adds an ephemeral container or changes one's image."""
    spec, old_spec = _map(pod.get("spec")), _map(old.get("spec"))
    for key in ("containers", "initContainers"):
        if len(_list(spec.get(key))) != len(_list(old_spec.get(key))):
            return True
    if _images(spec, "containers") != _images(old_spec, "containers"):
        return True
    if _images(spec, "initContainers") != _images(old_spec, "initContainers"):
        return True
    old_ephemeral = {_name(_map(c)): _map(c).get("image") for c in reversed(_list(old_spec.get("ephemeralContainers")))}
    for c in _list(spec.get("ephemeralContainers")):
        name = _name(_map(c))
        if name not in old_ephemeral or old_ephemeral[name] != _map(c).get("image"):
            return True
    return False


# The workload resources whose pod template the plugin checks (admission.go defaultPodSpecResources), and
# the path of the template in each.
POD_TEMPLATE_PATHS: Mapping[tuple[str, str], tuple[str, ...]] = {
    ("", "replicationcontrollers"): ("spec", "template"),
    ("", "podtemplates"): ("template",),
    ("apps", "replicasets"): ("spec", "template"),
    ("apps", "deployments"): ("spec", "template"),
    ("apps", "statefulsets"): ("spec", "template"),
    ("apps", "daemonsets"): ("spec", "template"),
    ("batch", "jobs"): ("spec", "template"),
    ("batch", "cronjobs"): ("spec", "jobTemplate", "spec", "template"),
}
IGNORED_POD_SUBRESOURCES = frozenset({"exec", "attach", "binding", "eviction", "log", "portforward", "proxy",
                                      "status"})


def pod_template(obj: Mapping[str, Any], path: tuple[str, ...]) -> Mapping[str, Any] | None:
    """The pod template of a workload object; None when it has none (a ReplicationController may not)."""
    value: Any = obj
    for key in path:
        value = _map(value).get(key)
    return value if isinstance(value, Mapping) else None
