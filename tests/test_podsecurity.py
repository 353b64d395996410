"""The Pod Security Standards checks and policy resolution (app/vap/podsecurity.py), table cases restating the
tests of k8s.io/pod-security-admission: policy/check_*_test.go (each check's reason and detail), api/helpers_test.go
(TestPolicyToEvaluate, TestParseVersion), policy/registry_test.go (which checks a level and version runs) and
admission/admission_test.go (the update rule)."""

from __future__ import annotations

from typing import Any

import pytest

from app.vap import podsecurity as ps

LATEST = (1, 37)


def _run(check_id: str, pod: dict[str, Any], policy_version: tuple[int, int] = LATEST,
         server: tuple[int, int] = LATEST) -> ps.Result:
    """One check's revision for a policy version, on a server of a minor version."""
    for check in ps.checks_for_server(server):
        if check.id == check_id:
            revisions = [fn for since, fn in check.versions if since <= policy_version]
            return revisions[-1](pod.get("metadata") or {}, pod.get("spec") or {})
    raise AssertionError(f"no check {check_id} on server {server}")


def _containers(*specs: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"name": name, **spec} for name, spec in zip("abcdefghij", specs, strict=False)]


def _sc(**context: Any) -> dict[str, Any]:
    return {"securityContext": context}


CHECK_CASES = [
    # (upstream test, check, pod, reason, detail)
    ("TestAllowPrivilegeEscalation_1_8 multiple containers", "allowPrivilegeEscalation",
     {"spec": {"containers": _containers({}, _sc(), _sc(allowPrivilegeEscalation=False),
                                          _sc(allowPrivilegeEscalation=True))}},
     "allowPrivilegeEscalation != false",
     'containers "a", "b", "d" must set securityContext.allowPrivilegeEscalation=false'),
    ("TestAppArmorProfile unconfined pod", "appArmorProfile",
     {"spec": {"securityContext": {"appArmorProfile": {"type": "Unconfined"}}, "containers": [{"name": "a"}]}},
     "forbidden AppArmor profile", 'pod must not set AppArmor profile type to "Unconfined"'),
    ("TestAppArmorProfile unconfined init container", "appArmorProfile",
     {"spec": {"securityContext": {"appArmorProfile": {"type": "RuntimeDefault"}},
               "initContainers": [{"name": "bar", **_sc(appArmorProfile={"type": "Unconfined"})}],
               "containers": [{"name": "foo"}]}},
     "forbidden AppArmor profile", 'container "bar" must not set AppArmor profile type to "Unconfined"'),
    ("TestAppArmorProfile multiple containers", "appArmorProfile",
     {"metadata": {"annotations": {
         "container.apparmor.security.beta.kubernetes.io/": "bogus",
         "container.apparmor.security.beta.kubernetes.io/a": "",
         "container.apparmor.security.beta.kubernetes.io/b": "runtime/default",
         "container.apparmor.security.beta.kubernetes.io/c": "localhost/",
         "container.apparmor.security.beta.kubernetes.io/d": "localhost/foo",
         "container.apparmor.security.beta.kubernetes.io/e": "unconfined",
         "container.apparmor.security.beta.kubernetes.io/f": "unknown"}}, "spec": {}},
     "forbidden AppArmor profiles",
     'annotations must not set AppArmor profile type to '
     '"container.apparmor.security.beta.kubernetes.io/="bogus"", '
     '"container.apparmor.security.beta.kubernetes.io/e="unconfined"", '
     '"container.apparmor.security.beta.kubernetes.io/f="unknown""'),
    ("TestCapabilitiesBaseline multiple containers", "capabilities_baseline",
     {"spec": {"containers": _containers(_sc(capabilities={"add": ["FOO", "BAR"]}),
                                          _sc(capabilities={"add": ["BAR", "BAZ"]}),
                                          _sc(capabilities={"add": ["CHOWN", "KILL"]}))}},
     "non-default capabilities",
     'containers "a", "b" must not include "BAR", "BAZ", "FOO" in securityContext.capabilities.add'),
    ("TestCapabilitiesRestricted_1_25 multiple containers", "capabilities_restricted",
     {"spec": {"containers": _containers(
         _sc(capabilities={"add": ["FOO", "BAR"]}), _sc(capabilities={"add": ["BAR", "BAZ"]}),
         _sc(capabilities={"add": ["NET_BIND_SERVICE", "CHOWN"], "drop": ["ALL", "FOO"]}))}},
     "unrestricted capabilities",
     'containers "a", "b" must set securityContext.capabilities.drop=["ALL"]; containers "a", "b", "c" must not '
     'include "BAR", "BAZ", "CHOWN", "FOO" in securityContext.capabilities.add'),
    ("TestCapabilitiesRestricted_1_25 linux pod, reject if security context is not set", "capabilities_restricted",
     {"spec": {"os": {"name": "linux"}, "containers": [{"name": "a"}]}},
     "unrestricted capabilities", 'container "a" must set securityContext.capabilities.drop=["ALL"]'),
    ("TestHostNamespaces all", "hostNamespaces",
     {"spec": {"hostNetwork": True, "hostPID": True, "hostIPC": True}},
     "host namespaces", "hostNetwork=true, hostPID=true, hostIPC=true"),
    ("TestHostPathVolumes", "hostPathVolumes",
     {"spec": {"volumes": [{"name": "a", "emptyDir": {}}, {"name": "b", "hostPath": {"path": "/"}},
                           {"name": "c", "hostPath": {"path": "/x"}}]}},
     "hostPath volumes", 'volumes "b", "c"'),
    ("TestHostPort one container, one host port", "hostPorts",
     {"spec": {"containers": _containers({"ports": [{"hostPort": 0}]},
                                          {"ports": [{"hostPort": 0}, {"hostPort": 20}]})}},
     "hostPort", 'container "b" uses hostPort 20'),
    ("TestHostPort multiple containers, multiple host port", "hostPorts",
     {"spec": {"containers": _containers({"ports": [{"hostPort": 0}]},
                                          {"ports": [{"hostPort": 0}, {"hostPort": 10}, {"hostPort": 20}]},
                                          {"ports": [{"hostPort": 0}, {"hostPort": 10}, {"hostPort": 30}]})}},
     "hostPort", 'containers "b", "c" use hostPorts 10, 20, 30'),
    ("TestHostProbesAndHostLifecycle multiple containers with multiple invalid hosts", "hostProbesAndHostLifecycle",
     {"spec": {"containers": [
         {"name": "valid"},
         {"name": "invalid1", "livenessProbe": {"httpGet": {"host": "a.com", "port": 80}}},
         {"name": "invalid2", "lifecycle": {"preStop": {"tcpSocket": {"host": "b.com", "port": 80}}},
          "startupProbe": {"httpGet": {"host": "a.com", "port": 80}}}]}},
     "probe or lifecycle host", 'containers "invalid1", "invalid2" use probe or lifecycle hosts "a.com", "b.com"'),
    ("TestHostProbesAndHostLifecycle invalid host in initcontainer", "hostProbesAndHostLifecycle",
     {"spec": {"initContainers": [{"name": "init", "readinessProbe": {"tcpSocket": {"host": "invalid.init.host",
                                                                                   "port": 80}}}]}},
     "probe or lifecycle host", 'container "init" uses probe or lifecycle host "invalid.init.host"'),
    ("TestPrivileged", "privileged",
     {"spec": {"containers": _containers(_sc(privileged=False), _sc(privileged=True), _sc(privileged=True))}},
     "privileged", 'containers "b", "c" must not set securityContext.privileged=true'),
    ("TestProcMount", "procMount",
     {"spec": {"containers": _containers(_sc(procMount="Default"), _sc(procMount="Unmasked"),
                                          _sc(procMount="other"))}},
     "procMount", 'containers "b", "c" must not set securityContext.procMount to "Unmasked", "other"'),
    ("TestRestrictedVolumes host path volumes (a subset)", "restrictedVolumes",
     {"spec": {"volumes": [{"name": "a1", "emptyDir": {}}, {"name": "a9", "image": {"reference": "x"}},
                           {"name": "b1", "hostPath": {}}, {"name": "b5", "nfs": {}}, {"name": "c1"}]}},
     "restricted volume types", 'volumes "b1", "b5", "c1" use restricted volume types "hostPath", "nfs", "unknown"'),
    ("TestRunAsNonRoot no explicit runAsNonRoot", "runAsNonRoot",
     {"spec": {"containers": [{"name": "a"}]}},
     "runAsNonRoot != true", 'pod or container "a" must set securityContext.runAsNonRoot=true'),
    ("TestRunAsNonRoot pod runAsNonRoot=false", "runAsNonRoot",
     {"spec": {"securityContext": {"runAsNonRoot": False}, "containers": [{"name": "a"}]}},
     "runAsNonRoot != true", "pod must not set securityContext.runAsNonRoot=false"),
    ("TestRunAsNonRoot containers runAsNonRoot=false", "runAsNonRoot",
     {"spec": {"securityContext": {"runAsNonRoot": True},
               "containers": _containers({}, _sc(), _sc(runAsNonRoot=False), _sc(runAsNonRoot=False))}},
     "runAsNonRoot != true", 'containers "c", "d" must not set securityContext.runAsNonRoot=false'),
    ("TestRunAsNonRoot pod nil, container fallthrough", "runAsNonRoot",
     {"spec": {"containers": _containers({}, _sc(), _sc(runAsNonRoot=True))}},
     "runAsNonRoot != true", 'pod or containers "a", "b" must set securityContext.runAsNonRoot=true'),
    ("TestRunAsUser pod runAsUser=0", "runAsUser",
     {"spec": {"securityContext": {"runAsUser": 0}, "containers": [{"name": "a"}]}},
     "runAsUser=0", "pod must not set runAsUser=0"),
    ("TestRunAsUser containers runAsUser=0", "runAsUser",
     {"spec": {"securityContext": {"runAsUser": 1000},
               "containers": _containers({}, _sc(runAsUser=1), _sc(runAsUser=0), _sc(runAsUser=0))}},
     "runAsUser=0", 'containers "c", "d" must not set runAsUser=0'),
    ("TestSELinuxOptions invalid pod and containers", "seLinuxOptions",
     {"spec": {"securityContext": {"seLinuxOptions": {"type": "foo", "user": "bar", "role": "baz"}},
               "containers": _containers(
                   _sc(seLinuxOptions={"type": "container_t"}), _sc(seLinuxOptions={"type": "container_init_t"}),
                   _sc(seLinuxOptions={"type": "container_kvm_t"}),
                   _sc(seLinuxOptions={"type": "container_engine_t"}), _sc(seLinuxOptions={"type": "bar"}),
                   _sc(seLinuxOptions={"user": "bar"}), _sc(seLinuxOptions={"role": "baz"}))}},
     "seLinuxOptions", 'pod and containers "e", "f", "g" set forbidden securityContext.seLinuxOptions: types "bar", '
                       '"foo"; user may not be set; role may not be set'),
    ("TestSELinuxOptions bad role", "seLinuxOptions",
     {"spec": {"securityContext": {"seLinuxOptions": {"role": "bad"}}}},
     "seLinuxOptions", "pod set forbidden securityContext.seLinuxOptions: role may not be set"),
    ("TestSeccompProfileBaseline_1_19 containers seccomp invalid", "seccompProfile_baseline",
     {"spec": {"securityContext": {"seccompProfile": {"type": "Unconfined"}},
               "containers": _containers({}, _sc(seccompProfile={"type": "RuntimeDefault"}),
                                         _sc(seccompProfile={"type": "Unconfined"}))}},
     "seccompProfile", 'pod and container "c" must not set securityContext.seccompProfile.type to "Unconfined"'),
    ("TestSeccompProfileRestricted_1_25 pod nil, container fallthrough", "seccompProfile_restricted",
     {"spec": {"containers": _containers({}, _sc(), _sc(seccompProfile={"type": "RuntimeDefault"}))}},
     "seccompProfile",
     'pod or containers "a", "b" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"'),
    ("TestSeccompProfileRestricted_1_25 containers seccomp invalid", "seccompProfile_restricted",
     {"spec": {"securityContext": {"seccompProfile": {"type": "RuntimeDefault"}},
               "containers": _containers({}, _sc(), _sc(seccompProfile={"type": "Unconfined"}),
                                         _sc(seccompProfile={"type": "Unconfined"}))}},
     "seccompProfile", 'containers "c", "d" must not set securityContext.seccompProfile.type to "Unconfined"'),
    ("TestSysctls forbidden sysctls", "sysctls",
     {"spec": {"securityContext": {"sysctls": [{"name": "a"}, {"name": "b"}]}}},
     "forbidden sysctls", "a, b"),
    ("TestWindowsHostProcess host process", "windowsHostProcess",
     {"spec": {"securityContext": {"windowsOptions": {"hostProcess": True}},
               "containers": _containers({}, _sc(), _sc(windowsOptions={}), _sc(windowsOptions={"hostProcess": False}),
                                         _sc(windowsOptions={"hostProcess": True}),
                                         _sc(windowsOptions={"hostProcess": True}))}},
     "hostProcess", 'pod and containers "e", "f" must not set securityContext.windowsOptions.hostProcess=true'),
]


@pytest.mark.parametrize(("upstream", "check_id", "pod", "reason", "detail"), CHECK_CASES,
                         ids=[case[0] for case in CHECK_CASES])
def test_check_reason_and_detail(upstream: str, check_id: str, pod: dict[str, Any], reason: str, detail: str) -> None:
    assert _run(check_id, pod) == (reason, detail)


PASSING_CASES = [
    # (upstream test, check, pod, policy version, server)
    ("TestCapabilitiesRestricted_1_25 windows pod, admit without checking capabilities", "capabilities_restricted",
     {"spec": {"os": {"name": "windows"}, "containers": [{"name": "a"}]}}, LATEST, LATEST),
    ("TestAllowPrivilegeEscalation_1_25 windows pod", "allowPrivilegeEscalation",
     {"spec": {"os": {"name": "windows"}, "containers": [{"name": "a"}]}}, LATEST, LATEST),
    ("TestSeccompProfileRestricted_1_25 no explicit seccomp, windows Pod", "seccompProfile_restricted",
     {"spec": {"os": {"name": "windows"}, "containers": [{"name": "a"}]}}, LATEST, LATEST),
    ("TestRunAsNonRoot host users false allowed", "runAsNonRoot",
     {"spec": {"hostUsers": False, "containers": [{"name": "a"}]}}, (1, 35), LATEST),
    ("TestRunAsUser host users false allowed", "runAsUser",
     {"spec": {"hostUsers": False, "securityContext": {"runAsUser": 0}}}, (1, 35), LATEST),
    ("TestProcMount (1.35 baseline) hostUsers false allows Unmasked", "procMount",
     {"spec": {"hostUsers": False, "containers": _containers(_sc(procMount="Unmasked"))}}, (1, 35), LATEST),
    ("TestSysctls_1_37 new supported sysctls", "sysctls",
     {"spec": {"securityContext": {"sysctls": [{"name": "net.ipv4.tcp_notsent_lowat"}]}}}, (1, 37), LATEST),
    ("TestSELinuxOptions (1.31) container_engine_t", "seLinuxOptions",
     {"spec": {"containers": _containers(_sc(seLinuxOptions={"type": "container_engine_t"}))}}, (1, 31), LATEST),
]


@pytest.mark.parametrize(("upstream", "check_id", "pod", "version", "server"), PASSING_CASES,
                         ids=[case[0] for case in PASSING_CASES])
def test_check_passes(upstream: str, check_id: str, pod: dict[str, Any], version: tuple[int, int],
                      server: tuple[int, int]) -> None:
    assert _run(check_id, pod, version, server) is None


VERSIONED_CASES = [
    # (upstream test, check, pod, policy version, server, result)
    ("TestRunAsNonRoot host users false, before 1.35", "runAsNonRoot",
     {"spec": {"hostUsers": False, "containers": [{"name": "a"}]}}, (1, 34), LATEST,
     ("runAsNonRoot != true", 'pod or container "a" must set securityContext.runAsNonRoot=true')),
    ("TestSysctls new supported sysctls not supported: net.ipv4.tcp_rmem", "sysctls",
     {"spec": {"securityContext": {"sysctls": [{"name": "net.ipv4.tcp_rmem"}]}}}, (1, 31), LATEST,
     ("forbidden sysctls", "net.ipv4.tcp_rmem")),
    ("TestSysctls_1_32 tcp_rmem allowed", "sysctls",
     {"spec": {"securityContext": {"sysctls": [{"name": "net.ipv4.tcp_rmem"}]}}}, (1, 32), LATEST, None),
    ("TestSELinuxOptions container_engine_t before 1.31", "seLinuxOptions",
     {"spec": {"containers": _containers(_sc(seLinuxOptions={"type": "container_engine_t"}))}}, (1, 30), LATEST,
     ("seLinuxOptions", 'container "a" set forbidden securityContext.seLinuxOptions: type "container_engine_t"')),
    ("TestSeccompProfileBaseline_1_0 (annotations before 1.19)", "seccompProfile_baseline",
     {"metadata": {"annotations": {"seccomp.security.alpha.kubernetes.io/pod": "unconfined",
                                   "container.seccomp.security.alpha.kubernetes.io/a": "localhost/x",
                                   "container.seccomp.security.alpha.kubernetes.io/b": "bogus"}},
      "spec": {"containers": _containers({}, {})}}, (1, 18), LATEST,
     ("seccompProfile", 'forbidden annotations container.seccomp.security.alpha.kubernetes.io/b="bogus", '
                        'seccomp.security.alpha.kubernetes.io/pod="unconfined"')),
    ("TestAppArmorProfile on a 1.29 server (annotations only)", "appArmorProfile",
     {"metadata": {"annotations": {"container.apparmor.security.beta.kubernetes.io/a": "unconfined"}},
      "spec": {"securityContext": {"appArmorProfile": {"type": "Unconfined"}}}}, (1, 29), (1, 29),
     ("forbidden AppArmor profile", 'container.apparmor.security.beta.kubernetes.io/a="unconfined"')),
    ("TestRestrictedVolumes image volume on a 1.32 server", "restrictedVolumes",
     {"spec": {"volumes": [{"name": "a9", "image": {"reference": "x"}}]}}, (1, 32), (1, 32),
     ("restricted volume types", 'volume "a9" uses restricted volume type "unknown"')),
]


@pytest.mark.parametrize(("upstream", "check_id", "pod", "version", "server", "result"), VERSIONED_CASES,
                         ids=[case[0] for case in VERSIONED_CASES])
def test_check_by_version(upstream: str, check_id: str, pod: dict[str, Any], version: tuple[int, int],
                          server: tuple[int, int], result: ps.Result) -> None:
    assert _run(check_id, pod, version, server) == result


def _labels(**modes: str) -> dict[str, str]:
    return {ps.LABEL_PREFIX + key.replace("_", "-"): value for key, value in modes.items()}


P = ps.LevelVersion(ps.PRIVILEGED)
POLICY_CASES = [
    # TestPolicyToEvaluate (api/helpers_test.go): (desc, labels, enforce, warn, audit, errors)
    ("simple enforce", _labels(enforce="baseline"), "baseline:latest", "baseline:latest", P, 0),
    ("simple warn", _labels(warn="restricted"), P, "restricted:latest", P, 0),
    ("simple audit", _labels(audit="baseline"), P, P, "baseline:latest", 0),
    ("enforce & warn", _labels(enforce="baseline", warn="restricted"), "baseline:latest", "restricted:latest", P, 0),
    ("enforce version", _labels(enforce="baseline", enforce_version="v1.22"), "baseline:v1.22", "baseline:v1.22", P,
     0),
    ("enforce version & warn-version", _labels(enforce="baseline", enforce_version="v1.22", warn_version="latest"),
     "baseline:v1.22", "baseline:latest", P, 0),
    ("enforce & warn-version", _labels(enforce="baseline", warn_version="v1.23"), "baseline:latest",
     "baseline:v1.23", P, 0),
    ("fully specd", _labels(enforce="baseline", enforce_version="v1.20", warn="restricted", warn_version="v1.21",
                            audit="restricted", audit_version="v1.22"),
     "baseline:v1.20", "restricted:v1.21", "restricted:v1.22", 0),
    ("enforce no warn", _labels(enforce="baseline", warn="privileged"), "baseline:latest", P, P, 0),
    ("enforce warn error", _labels(enforce="baseline", warn="foo"), "baseline:latest", P, P, 1),
    ("enforce error", _labels(enforce="foo"), "restricted:latest", P, P, 1),
    ("bad version is latest", _labels(enforce="baseline", enforce_version="1.25"), "baseline:latest",
     "baseline:latest", P, 1),
]


@pytest.mark.parametrize(("desc", "labels", "enforce", "warn", "audit", "errors"), POLICY_CASES,
                         ids=[case[0] for case in POLICY_CASES])
def test_policy_to_evaluate(desc: str, labels: dict[str, str], enforce: Any, warn: Any, audit: Any,
                            errors: int) -> None:
    policy, found = ps.policy_to_evaluate(labels)
    assert (str(policy.enforce), str(policy.warn), str(policy.audit)) == (str(enforce), str(warn), str(audit))
    assert len(found) == errors


def test_label_errors_read_as_field_errors() -> None:
    """TestParseVersion / ParseLevel error texts, as metadata.labels field errors."""
    _, errors = ps.policy_to_evaluate(_labels(enforce="foo", audit_version="1.2"))
    assert [str(e) for e in errors] == [
        'metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "foo": must be one of privileged, '
        'baseline, restricted',
        'metadata.labels[pod-security.kubernetes.io/audit-version]: Invalid value: "1.2": must be "latest" or "v1.x"',
    ]
    assert ps.errors_text(errors).startswith("[metadata.labels[pod-security.kubernetes.io/enforce]")


@pytest.mark.parametrize(("text", "version"), [("latest", None), ("v1.0", (1, 0)), ("v1.25", (1, 25)),
                                               ("v1.01", None), ("v2.1", None), ("1.25", None), ("v1.", None)])
def test_parse_version(text: str, version: ps.Version) -> None:
    """TestParseVersion: only "latest" and v1.<minor> without a leading zero."""
    assert ps.parse_version(text) == version


REGISTRY_CASES = [
    # (what, level, version, server, check IDs in order)
    ("baseline latest", ps.BASELINE, None, (1, 37),
     ["appArmorProfile", "capabilities_baseline", "hostNamespaces", "hostPathVolumes", "hostPorts",
      "hostProbesAndHostLifecycle", "privileged", "procMount", "seLinuxOptions", "seccompProfile_baseline", "sysctls",
      "windowsHostProcess"]),
    ("restricted latest: the overridden baseline checks give way", ps.RESTRICTED, None, (1, 37),
     ["appArmorProfile", "hostNamespaces", "hostPorts", "hostProbesAndHostLifecycle", "privileged", "seLinuxOptions",
      "sysctls", "windowsHostProcess", "allowPrivilegeEscalation", "capabilities_restricted", "procMount_restricted",
      "restrictedVolumes", "runAsNonRoot", "runAsUser", "seccompProfile_restricted"]),
    ("restricted v1.21: no capabilities_restricted or runAsUser yet", ps.RESTRICTED, (1, 21), (1, 37),
     ["appArmorProfile", "capabilities_baseline", "hostNamespaces", "hostPorts", "privileged", "procMount",
      "seLinuxOptions", "sysctls", "windowsHostProcess", "allowPrivilegeEscalation", "restrictedVolumes",
      "runAsNonRoot", "seccompProfile_restricted"]),
    ("baseline latest on a 1.33 server: no probe host check", ps.BASELINE, None, (1, 33),
     ["appArmorProfile", "capabilities_baseline", "hostNamespaces", "hostPathVolumes", "hostPorts", "privileged",
      "procMount", "seLinuxOptions", "seccompProfile_baseline", "sysctls", "windowsHostProcess"]),
    ("privileged runs nothing", ps.PRIVILEGED, None, (1, 37), []),
]


@pytest.mark.parametrize(("what", "level", "version", "server", "ids"), REGISTRY_CASES,
                         ids=[case[0] for case in REGISTRY_CASES])
def test_checks_to_run(what: str, level: str, version: ps.Version, server: tuple[int, int], ids: list[str]) -> None:
    """policy/registry.go populate: baseline IDs sorted, then restricted IDs sorted, overrides removed."""
    assert [i for i, _ in ps.checks_to_run(level, version, server)] == ids


def test_forbidden_detail_joins_reasons_and_details() -> None:
    """TestAggregateCheckResults / ForbiddenDetail: ``<reason> (<detail>)``, a bare reason without detail."""
    assert ps.forbidden_detail([("host ports", "8080, 9090"), ("privileged containers", ""),
                                ("non-default capabilities", "NET_RAW")]) == \
        "host ports (8080, 9090), privileged containers, non-default capabilities (NET_RAW)"


def _pod(*containers: dict[str, Any], ephemeral: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": list(containers)}
    if ephemeral is not None:
        spec["ephemeralContainers"] = ephemeral
    return {"kind": "Pod", "metadata": {"name": "p"}, "spec": spec}


UPDATE_CASES = [
    # isSignificantPodUpdate (admission/admission_test.go TestValidatePodWithUpdates restated)
    ("same images, other fields changed", _pod({"name": "a", "image": "x", "securityContext": {"privileged": True}}),
     _pod({"name": "a", "image": "x"}), False),
    ("image changed", _pod({"name": "a", "image": "y"}), _pod({"name": "a", "image": "x"}), True),
    ("container added", _pod({"name": "a", "image": "x"}, {"name": "b", "image": "x"}),
     _pod({"name": "a", "image": "x"}), True),
    ("ephemeral container added", _pod({"name": "a", "image": "x"}, ephemeral=[{"name": "dbg", "image": "busybox"}]),
     _pod({"name": "a", "image": "x"}), True),
    ("ephemeral container unchanged", _pod({"name": "a", "image": "x"}, ephemeral=[{"name": "dbg", "image": "b"}]),
     _pod({"name": "a", "image": "x"}, ephemeral=[{"name": "dbg", "image": "b"}]), False),
]


@pytest.mark.parametrize(("what", "pod", "old", "significant"), UPDATE_CASES, ids=[c[0] for c in UPDATE_CASES])
def test_is_significant_pod_update(what: str, pod: dict[str, Any], old: dict[str, Any], significant: bool) -> None:
    assert ps.is_significant_pod_update(pod, old) is significant


def test_evaluate_pod_enforce_audit_warn() -> None:
    """EvaluatePod: enforce refuses (no warning then), audit annotates; without enforce the warning is given."""
    policy, _ = ps.policy_to_evaluate(_labels(enforce="baseline", audit="restricted", warn="restricted"))
    spec = {"hostNetwork": True, "containers": [{"name": "a"}]}
    refused = ps.evaluate_pod(policy, (), {}, spec, LATEST, enforce=True)
    assert refused.denied == 'violates PodSecurity "baseline:latest": host namespaces (hostNetwork=true)'
    assert refused.warnings == ()
    assert refused.audit_annotations[ps.ENFORCE_POLICY_ANNOTATION] == "baseline:latest"
    assert refused.audit_annotations[ps.AUDIT_VIOLATIONS_ANNOTATION].startswith(
        'would violate PodSecurity "restricted:latest": host namespaces (hostNetwork=true), allowPrivilegeEscalation')
    template = ps.evaluate_pod(policy, (), {}, spec, LATEST, enforce=False)
    assert template.denied is None and ps.ENFORCE_POLICY_ANNOTATION not in template.audit_annotations
    assert template.warnings[0].startswith('would violate PodSecurity "restricted:latest": host namespaces')
