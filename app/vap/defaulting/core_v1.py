"""Scheme defaults of the core API group, version v1 (Pods, Services, volumes, ...).

Restates, in Python, the defaulting functions of k8s.io/kubernetes ``pkg/apis/core/v1/defaults.go``
and the declarative ``+default=`` markers of ``k8s.io/api/core/v1`` that ``zz_generated.defaults.go``
applies, each registered for the OpenAPI definition of the Go type it defaults. The walker in
:mod:`app.vap.defaulting` calls them parent first, as the generated ``SetObjectDefaults_<Kind>`` do:
``SetDefaults_Pod`` (requests copied from limits) runs before ``SetDefaults_PodSpec``, which runs
before the functions of the containers, volumes and resource lists inside it.

Values are JSON as kube-apiserver serialises them: an absent field, ``null`` and (for a field that is
not a pointer in Go) the zero value (``""``, ``0``, ``false``) all read as "not set"; a map that
stays empty is not written (Go omits empty maps), a pointer to an empty struct is (``{}``).

Feature gates take each release's default setting (:data:`GATES`). Differences between the releases
the playground offers (1.28 to 1.37) that change a default:

* ``LoadBalancerIPMode`` (beta, on, from 1.30): ``ipMode: VIP`` on load-balancer ingress points.
* ``ImageVolume`` (on from 1.35): the pull policy of an ``image`` volume.
* ``PodLevelResources`` (on from 1.34): pod-level requests (and hugepage limits) from the
  containers'. In 1.37 this moved out of scheme defaulting into the pod registry's create step.
* ``InPlacePodVerticalScaling`` had a resize-policy default in ``SetDefaults_Pod`` up to 1.32, behind
  the gate, which was off by default in those releases (removed in 1.33): it never applies here.
* ``PodLogsQuerySplitStreams`` (alpha, off in every release checked) gates the log-stream default.
* ``DefaultHostNetworkHostPortsInPodTemplates`` (off by default) would also give host ports in pod
  templates, as releases before 1.28 did; with default gates only Pods get them.

Some defaults kept their values but changed form, which shows in the names recorded for them: the iSCSI,
RBD, AzureDisk and ScaleIO volume sources were defaulted by ``SetDefaults_<Type>`` functions up to 1.30
and by ``+default=`` markers from 1.31; ``ReplicationControllerSpec.replicas`` by
``SetDefaults_ReplicationController`` up to 1.35 and by a marker from 1.36. ``FileKeySelector.optional``
(environment variables read from files, a type that exists from 1.34) has a marker of its own.

Quantities are left as written, except where a default computes one (a value rounded up to milli
units, a sum of container requests): that one is written in its canonical form. Canonicalising every
quantity is the serialiser's business, not defaulting's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from .. import fast
from ..cel.library.errors import LibraryError
from ..cel.library.quantity import Dec, parse_quantity
from . import Context, Version, defaults

CORE = "io.k8s.api.core.v1."

# Default settings of the feature gates the defaults read: the first release whose default
# enables the gate (None: off in every release the playground offers, as far as checked).
GATES: dict[str, Version | None] = {
    "LoadBalancerIPMode": (1, 30),
    "ImageVolume": (1, 35),
    "PodLevelResources": (1, 34),
    "PodLogsQuerySplitStreams": None,
    "InPlacePodVerticalScaling": (1, 33),
    "DefaultHostNetworkHostPortsInPodTemplates": None,
}

# The last release whose SetDefaults_Pod gives containers a resize policy (behind InPlacePodVerticalScaling,
# off by default up to then, so it never shows with default gates).
RESIZE_POLICY_DEFAULTS_UNTIL: Version = (1, 32)

# Releases from which fixed defaults moved from SetDefaults_<Type> functions to +default= markers.
VOLUME_MARKERS_SINCE: Version = (1, 31)  # iSCSI, RBD, AzureDisk, ScaleIO volume sources
REPLICAS_MARKER_SINCE: Version = (1, 36)  # ReplicationControllerSpec.replicas

# The last release in which pod-level resources are defaulted by the scheme (in 1.37 the pod
# registry does it when a pod is created, behind PodLevelResourcesFixDefaulting).
POD_LEVEL_DEFAULTS_UNTIL: Version = (1, 36)


def enabled(gate: str, version: Version) -> bool:
    """Whether ``gate`` is on by default in ``version``."""
    since = GATES.get(gate)
    return since is not None and version >= since


# --- small helpers on JSON values -------------------------------------------------------------


def _unset(obj: dict[str, Any], key: str) -> bool:
    """A pointer field: absent or null."""
    return obj.get(key) is None


def _zero(obj: dict[str, Any], key: str) -> bool:
    """A non-pointer field: absent, null, or its zero value (``""``, ``0``, ``false``, empty)."""
    value = obj.get(key)
    return value is None or value == "" or value == 0 or value is False or value == {} or value == []


def _struct(obj: dict[str, Any], key: str) -> dict[str, Any]:
    """A non-pointer struct field to write into: created when absent (as decoding would have)."""
    value = obj.get(key)
    if not isinstance(value, dict):
        value = {}
        obj[key] = value
    return value


def _dict(obj: Any, key: str) -> dict[str, Any] | None:
    value = obj.get(key) if isinstance(obj, dict) else None
    return value if isinstance(value, dict) else None


def _dicts(obj: Any, key: str) -> Iterator[dict[str, Any]]:
    value = obj.get(key) if isinstance(obj, dict) else None
    if isinstance(value, list):
        yield from (item for item in value if isinstance(item, dict))


def _set_default(obj: dict[str, Any], key: str, value: Any) -> None:
    """Set ``key`` when it is not set (non-pointer semantics: the zero value counts as unset)."""
    if _zero(obj, key):
        obj[key] = value


def _set_default_ptr(obj: dict[str, Any], key: str, value: Any) -> None:
    """Set ``key`` when it is absent or null (pointer semantics: a zero value is kept)."""
    if _unset(obj, key):
        obj[key] = value


def _marker(definition: str, field: str, value: Any, *, pointer: bool = False, since: Version | None = None) -> None:
    """Register the declarative ``+default=`` marker of ``<Type>.<field>`` (from release ``since``)."""
    type_name = definition.rsplit(".", 1)[-1]

    def apply_marker(obj: dict[str, Any], context: Context) -> None:
        (_set_default_ptr if pointer else _set_default)(obj, field, value)

    apply_marker.__name__ = f"default_{type_name}_{field}"
    defaults(definition, f"+default marker: {type_name}.{field}", since=since)(apply_marker)


def _fields_function(definition: str, name: str, values: dict[str, Any], *, pointer: bool = False,
                     until: Version | None = None) -> None:
    """Register a ``SetDefaults_<Type>`` that only gives fields fixed values (up to release ``until``)."""

    def set_fields(obj: dict[str, Any], context: Context) -> None:
        for field, value in values.items():
            (_set_default_ptr if pointer else _set_default)(obj, field, value)

    set_fields.__name__ = name
    defaults(definition, name, until=until)(set_fields)


def _fixed_defaults(definition: str, values: dict[str, Any], *, pointer: bool = False,
                    markers_since: Version) -> None:
    """Fixed field defaults that a ``SetDefaults_<Type>`` function gave before ``markers_since``
    and ``+default=`` markers give from then on (same values, other names in the record)."""
    type_name = definition.rsplit(".", 1)[-1]
    until = (markers_since[0], markers_since[1] - 1)
    _fields_function(CORE + definition, f"SetDefaults_{type_name}", values, pointer=pointer, until=until)
    for field, value in values.items():
        _marker(CORE + definition, field, value, pointer=pointer, since=markers_since)


# --- image references (k8s.io/kubernetes/pkg/util/parsers.ParseImageName) ---------------------

_DOMAIN_COMPONENT = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_DOMAIN = rf"(?:{_DOMAIN_COMPONENT}(?:\.{_DOMAIN_COMPONENT})*|\[[a-fA-F0-9:]+\])(?::[0-9]+)?"
_PATH_COMPONENT = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
_REFERENCE = re.compile(
    rf"(?P<name>(?:{_DOMAIN}/)?{_PATH_COMPONENT}(?:/{_PATH_COMPONENT})*)"
    r"(?::(?P<tag>[\w][\w.-]{0,127}))?"
    r"(?:@(?P<algorithm>[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*):(?P<hex>[0-9a-fA-F]{32,}))?"
)
_DIGEST_LENGTHS = {"sha256": 64, "sha384": 96, "sha512": 128}


def image_tag(image: str) -> str:
    """The tag kubelet would pull for ``image``: ``latest`` when it names neither a tag nor a
    digest, ``""`` when it has only a digest or is not a valid reference."""
    if not isinstance(image, str) or not image or re.fullmatch(r"[a-f0-9]{64}", image):
        return ""
    match = _REFERENCE.fullmatch(image)
    if match is None or len(match["name"]) > 255:
        return ""
    if match["algorithm"] is not None:
        if len(match["hex"]) != _DIGEST_LENGTHS.get(match["algorithm"], -1):
            return ""
    if match["tag"] is not None:
        return match["tag"]
    return "" if match["algorithm"] is not None else "latest"


def pull_policy(image: str) -> str:
    """``Always`` for an image at tag ``latest`` (or without tag), ``IfNotPresent`` otherwise."""
    return "Always" if image_tag(image) == "latest" else "IfNotPresent"


# --- quantities -------------------------------------------------------------------------------

DECIMAL_SI = "DecimalSI"
BINARY_SI = "BinarySI"
DECIMAL_EXPONENT = "DecimalExponent"
_DECIMAL_SUFFIXES = {-9: "n", -6: "u", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E"}
_BINARY_SUFFIXES = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"]


def _quantity_text(value: Any) -> str | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return repr(value) if isinstance(value, float) else str(value)
    return value.strip() if isinstance(value, str) else None


def _quantity(value: Any) -> tuple[Dec, str] | None:
    """The exact value and the format of a quantity, or None when it does not parse."""
    text = _quantity_text(value)
    if not text:
        return None
    # (a quantity's text is short: a longer text is read each time, never kept)
    return _kept_parse(text) if len(text) <= QUANTITY_TEXT_KEPT else _parse(text)


QUANTITY_TEXT_KEPT = 64  # the longest text whose reading is kept


def _parse(text: str) -> tuple[Dec, str] | None:
    try:
        dec = parse_quantity(text)
    except (LibraryError, ValueError):
        return None
    suffix = text.lstrip("+-0123456789.")
    if len(suffix) > 1 and suffix[0] in ("e", "E"):
        form = DECIMAL_EXPONENT
    elif suffix.endswith("i"):
        form = BINARY_SI
    else:
        form = DECIMAL_SI
    return dec, form


# a quantity's text read once while the fast paths keep it: every quantity of a pod is read by its defaulting
# functions, by the typed decoding and again after each mutation (the values are never changed)
_kept_parse = fast.memo(512, name="core_v1.quantities")(_parse)


def canonical_quantity(dec: Dec, form: str) -> str:
    """A quantity's canonical text (``resource.Quantity.String``) for an exact value and format."""
    value = dec.normalized()
    if value.u == 0:
        return "0"
    if form == BINARY_SI:
        if value.e < 0 or (value.e == 0 and abs(value.u) < 1024):
            form = DECIMAL_SI
        else:
            amount = value.u * 10**value.e
            power = 0
            while amount % 1024 == 0 and power < len(_BINARY_SUFFIXES) - 1:
                amount //= 1024
                power += 1
            return f"{amount}{_BINARY_SUFFIXES[power]}"
    shift = value.e % 3
    mantissa, exponent = value.u * 10**shift, value.e - shift
    if exponent == 0:
        return str(mantissa)
    if form == DECIMAL_SI and exponent in _DECIMAL_SUFFIXES:
        return f"{mantissa}{_DECIMAL_SUFFIXES[exponent]}"
    return f"{mantissa}e{exponent}"


def _round_up_to_milli(dec: Dec) -> Dec | None:
    """The value rounded up (away from zero) to milli units, or None when it already is."""
    value = dec.normalized()
    if value.e >= -3:
        return None
    quotient, remainder = divmod(abs(value.u), 10 ** (-3 - value.e))
    if remainder:
        quotient += 1
    return Dec(quotient if value.u > 0 else -quotient, -3)


def _round_resource_list(resources: Any) -> None:
    if not isinstance(resources, dict):
        return
    for name, value in list(resources.items()):
        parsed = _quantity(value)
        if parsed is None:
            continue
        rounded = _round_up_to_milli(parsed[0])
        if rounded is not None:
            resources[name] = canonical_quantity(rounded, parsed[1])


def _resource_lists(definition: str, *fields: str) -> None:
    """Register ``SetDefaults_ResourceList`` for the resource lists ``fields`` of ``definition``."""

    def set_defaults_resource_list(obj: dict[str, Any], context: Context) -> None:
        for field in fields:
            _round_resource_list(obj.get(field))

    defaults(CORE + definition, "SetDefaults_ResourceList")(set_defaults_resource_list)


# --- ReplicationController --------------------------------------------------------------------


@defaults(CORE + "ReplicationController", "SetDefaults_ReplicationController")
def set_defaults_replication_controller(obj: dict[str, Any], context: Context) -> None:
    """The selector and the labels default to the pod template's labels."""
    spec = _dict(obj, "spec")
    labels = _dict(_dict(_dict(spec, "template"), "metadata"), "labels")
    if labels is None or spec is None:
        return
    if not spec.get("selector") and labels:
        spec["selector"] = dict(labels)
    metadata = _struct(obj, "metadata")
    if not metadata.get("labels") and labels:
        metadata["labels"] = dict(labels)


@defaults(CORE + "ReplicationController", "SetDefaults_ReplicationController",
          until=(REPLICAS_MARKER_SINCE[0], REPLICAS_MARKER_SINCE[1] - 1))
def set_defaults_replication_controller_replicas(obj: dict[str, Any], context: Context) -> None:
    """Before the replicas marker, the same function also gave one replica."""
    spec = _dict(obj, "spec")
    if spec is not None:
        _set_default_ptr(spec, "replicas", 1)


_marker(CORE + "ReplicationControllerSpec", "replicas", 1, pointer=True, since=REPLICAS_MARKER_SINCE)


# --- Pod and PodSpec --------------------------------------------------------------------------


def _requests_from_limits(container: dict[str, Any]) -> None:
    resources = _dict(container, "resources")
    limits = _dict(resources, "limits")
    if resources is None or limits is None:
        return
    requests = _dict(resources, "requests")
    missing = {name: value for name, value in limits.items() if requests is None or name not in requests}
    if not missing:
        return
    if requests is None:
        requests = {}
        resources["requests"] = requests
    requests.update(missing)


def _host_network_ports(containers: list[dict[str, Any]]) -> None:
    for container in containers:
        for port in _dicts(container, "ports"):
            if _zero(port, "hostPort") and not _zero(port, "containerPort"):
                port["hostPort"] = port["containerPort"]


def _default_resize_policy(container: dict[str, Any]) -> None:
    """A container with requests gets resize policy NotRequired for cpu and memory it requests."""
    requests = _dict(_dict(container, "resources"), "requests")
    if requests is None:
        return
    policies = container.get("resizePolicy") if isinstance(container.get("resizePolicy"), list) else []
    named = {policy.get("resourceName") for policy in policies if isinstance(policy, dict)}
    added = [{"resourceName": name, "restartPolicy": "NotRequired"}
             for name in ("cpu", "memory") if name in requests and name not in named]
    if added:
        container["resizePolicy"] = [*policies, *added]


@defaults(CORE + "Pod", "SetDefaults_Pod")
def set_defaults_pod(obj: dict[str, Any], context: Context) -> None:
    """Requests default to limits (on Pods only, not on pod templates), then pod-level resources,
    service links on, and host ports equal to container ports on the host network."""
    spec = _struct(obj, "spec")
    containers = list(_dicts(spec, "containers"))
    init_containers = list(_dicts(spec, "initContainers"))
    for container in containers + init_containers:
        _requests_from_limits(container)
    if enabled("InPlacePodVerticalScaling", context.version) and context.version <= RESIZE_POLICY_DEFAULTS_UNTIL:
        for container in containers:
            _default_resize_policy(container)
    if enabled("PodLevelResources", context.version) and context.version <= POD_LEVEL_DEFAULTS_UNTIL:
        _default_pod_level_resources(spec, context.version)
    _set_default_ptr(spec, "enableServiceLinks", True)
    if spec.get("hostNetwork") is True:
        _host_network_ports(containers)
        _host_network_ports(init_containers)


@defaults(CORE + "PodSpec", "SetDefaults_PodSpec")
def set_defaults_pod_spec(obj: dict[str, Any], context: Context) -> None:
    """DNS policy, restart policy, an empty pod security context, the grace period, the scheduler."""
    _set_default(obj, "dnsPolicy", "ClusterFirst")
    _set_default(obj, "restartPolicy", "Always")
    _set_default_ptr(obj, "securityContext", {})
    _set_default_ptr(obj, "terminationGracePeriodSeconds", 30)
    _set_default(obj, "schedulerName", "default-scheduler")
    if enabled("DefaultHostNetworkHostPortsInPodTemplates", context.version) and obj.get("hostNetwork") is True:
        _host_network_ports(list(_dicts(obj, "containers")))
        _host_network_ports(list(_dicts(obj, "initContainers")))


_resource_lists("PodSpec", "overhead")


# --- pod-level resources (PodLevelResources) --------------------------------------------------

# A resource list being aggregated: name -> (value, format, text kept when no arithmetic touched it)
_Aggregate = dict[str, tuple[Dec, str, str | None]]


def _parsed_list(resources: Any) -> _Aggregate:
    out: _Aggregate = {}
    if isinstance(resources, dict):
        for name, value in resources.items():
            parsed = _quantity(value)
            if parsed is not None:
                out[name] = (parsed[0], parsed[1], _quantity_text(value))
    return out


def _add(total: _Aggregate, other: _Aggregate) -> None:
    for name, (value, form, text) in other.items():
        if name in total:
            base = total[name]
            total[name] = (_dec_add(base[0], value), base[1], None)
        else:
            total[name] = (value, form, text)


def _maximum(total: _Aggregate, other: _Aggregate) -> None:
    for name, item in other.items():
        if name not in total or item[0].cmp(total[name][0]) > 0:
            total[name] = item


def _dec_add(a: Dec, b: Dec) -> Dec:
    e = min(a.e, b.e)
    return Dec(a.u * 10 ** (a.e - e) + b.u * 10 ** (b.e - e), e)


def _aggregate(spec: dict[str, Any], field: str) -> _Aggregate:
    """The effective requests or limits of the containers: regular and sidecar containers add up,
    each init container counts with the sidecars started before it, and the larger one wins."""
    total: _Aggregate = {}
    for container in _dicts(spec, "containers"):
        _add(total, _parsed_list((_dict(container, "resources") or {}).get(field)))
    sidecars: _Aggregate = {}
    init_peak: _Aggregate = {}
    for container in _dicts(spec, "initContainers"):
        own = _parsed_list((_dict(container, "resources") or {}).get(field))
        if container.get("restartPolicy") == "Always":
            _add(total, own)
            _add(sidecars, own)
            effective = dict(sidecars)
        else:
            effective = {}
            _add(effective, own)
            _add(effective, sidecars)
        _maximum(init_peak, effective)
    _maximum(total, init_peak)
    return total


def _pod_level_supported(name: str) -> bool:
    return name in ("cpu", "memory") or name.startswith("hugepages-")


def _overcommit_allowed(name: str) -> bool:
    native = "/" not in name or "kubernetes.io/" in name
    return native and not name.startswith("hugepages-")


def _text(item: tuple[Dec, str, str | None]) -> str:
    return item[2] if item[2] is not None else canonical_quantity(item[0], item[1])


def _default_pod_level_resources(spec: dict[str, Any], version: Version) -> None:
    """Pod-level hugepage limits from the containers', then pod-level requests from the
    containers' requests (cpu, memory) or from the pod-level limits; only when the pod sets
    pod-level resources at all."""
    resources = _dict(spec, "resources")
    if resources is None:
        return
    # hugepage limits: the containers' total, when the pod sets neither limit nor request for it
    limits = _dict(resources, "limits") or {}
    requests = _dict(resources, "requests") or {}
    if limits or requests:
        added = {}
        for name, item in _aggregate(spec, "limits").items():
            if _pod_level_supported(name) and name.startswith("hugepages-") and name not in requests \
                    and name not in limits:
                added[name] = _text(item)
        if added:
            resources["limits"] = {**limits, **added}
            limits = resources["limits"]
    # requests: the containers' total for overcommittable resources, else the pod-level limit
    if not limits:
        return
    added = {}
    for name, item in _aggregate(spec, "requests").items():
        if name not in requests and _pod_level_supported(name) and _overcommit_allowed(name):
            added[name] = _text(item)
    for name, value in limits.items():
        if name not in requests and name not in added and _pod_level_supported(name):
            added[name] = value
    if added:
        resources["requests"] = {**requests, **added}


# --- containers -------------------------------------------------------------------------------


@defaults(CORE + "Container", "SetDefaults_Container")
def set_defaults_container(obj: dict[str, Any], context: Context) -> None:
    """Pull policy by image tag, the termination message's path and policy."""
    if _zero(obj, "imagePullPolicy"):
        obj["imagePullPolicy"] = pull_policy(obj.get("image") or "")
    _set_default(obj, "terminationMessagePath", "/dev/termination-log")
    _set_default(obj, "terminationMessagePolicy", "File")


@defaults(CORE + "EphemeralContainer", "SetDefaults_EphemeralContainer")
def set_defaults_ephemeral_container(obj: dict[str, Any], context: Context) -> None:
    """An ephemeral container takes the defaults of a container."""
    set_defaults_container(obj, context)


_marker(CORE + "ContainerPort", "protocol", "TCP")
_resource_lists("ResourceRequirements", "limits", "requests")
_resource_lists("VolumeResourceRequirements", "limits", "requests")
_resource_lists("ContainerStatus", "allocatedResources")
_resource_lists("PodStatus", "allocatedResources")


# An env var read from a file (EnvFiles, from 1.34) is required unless it says otherwise.
_marker(CORE + "FileKeySelector", "optional", False, pointer=True)


@defaults(CORE + "ObjectFieldSelector", "SetDefaults_ObjectFieldSelector")
def set_defaults_object_field_selector(obj: dict[str, Any], context: Context) -> None:
    """A field reference reads fields of the v1 object."""
    _set_default(obj, "apiVersion", "v1")


@defaults(CORE + "Probe", "SetDefaults_Probe")
def set_defaults_probe(obj: dict[str, Any], context: Context) -> None:
    """Timeout 1s, period 10s, one success, three failures."""
    _set_default(obj, "timeoutSeconds", 1)
    _set_default(obj, "periodSeconds", 10)
    _set_default(obj, "successThreshold", 1)
    _set_default(obj, "failureThreshold", 3)


@defaults(CORE + "HTTPGetAction", "SetDefaults_HTTPGetAction")
def set_defaults_http_get_action(obj: dict[str, Any], context: Context) -> None:
    """Path ``/`` over plain HTTP."""
    _set_default(obj, "path", "/")
    _set_default(obj, "scheme", "HTTP")


_marker(CORE + "GRPCAction", "service", "", pointer=True)


# --- volumes ----------------------------------------------------------------------------------


@defaults(CORE + "Volume", "SetDefaults_Volume")
def set_defaults_volume(obj: dict[str, Any], context: Context) -> None:
    """A volume that names no source is an emptyDir; an image volume's pull policy goes by tag."""
    if all(value is None for key, value in obj.items() if key != "name"):
        obj["emptyDir"] = {}
    image = _dict(obj, "image")
    if enabled("ImageVolume", context.version) and image is not None and _zero(image, "pullPolicy"):
        image["pullPolicy"] = pull_policy(image.get("reference") or "")


@defaults(CORE + "HostPathVolumeSource", "SetDefaults_HostPathVolumeSource")
def set_defaults_host_path_volume_source(obj: dict[str, Any], context: Context) -> None:
    """No type check unless one is asked for: the type is the empty string."""
    _set_default_ptr(obj, "type", "")


def _default_mode(definition: str, name: str) -> None:
    def set_default_mode(obj: dict[str, Any], context: Context) -> None:
        _set_default_ptr(obj, "defaultMode", 0o644)

    set_default_mode.__name__ = name
    defaults(CORE + definition, name)(set_default_mode)


_default_mode("SecretVolumeSource", "SetDefaults_SecretVolumeSource")
_default_mode("ConfigMapVolumeSource", "SetDefaults_ConfigMapVolumeSource")
_default_mode("DownwardAPIVolumeSource", "SetDefaults_DownwardAPIVolumeSource")
_default_mode("ProjectedVolumeSource", "SetDefaults_ProjectedVolumeSource")


@defaults(CORE + "ServiceAccountTokenProjection", "SetDefaults_ServiceAccountTokenProjection")
def set_defaults_service_account_token_projection(obj: dict[str, Any], context: Context) -> None:
    """A projected token lives an hour."""
    _set_default_ptr(obj, "expirationSeconds", 3600)


for _definition in ("ISCSIVolumeSource", "ISCSIPersistentVolumeSource"):
    _fixed_defaults(_definition, {"iscsiInterface": "default"}, markers_since=VOLUME_MARKERS_SINCE)
for _definition in ("RBDVolumeSource", "RBDPersistentVolumeSource"):
    _fixed_defaults(_definition, {"pool": "rbd", "user": "admin", "keyring": "/etc/ceph/keyring"},
                    markers_since=VOLUME_MARKERS_SINCE)
for _definition in ("ScaleIOVolumeSource", "ScaleIOPersistentVolumeSource"):
    _fixed_defaults(_definition, {"storageMode": "ThinProvisioned", "fsType": "xfs"},
                    markers_since=VOLUME_MARKERS_SINCE)
_fixed_defaults("AzureDiskVolumeSource", {"cachingMode": "ReadWrite", "fsType": "ext4", "readOnly": False,
                                          "kind": "Shared"}, pointer=True, markers_since=VOLUME_MARKERS_SINCE)


# --- persistent volumes and claims ------------------------------------------------------------


@defaults(CORE + "PersistentVolume", "SetDefaults_PersistentVolume")
def set_defaults_persistent_volume(obj: dict[str, Any], context: Context) -> None:
    """Phase Pending, reclaim policy Retain, a filesystem volume."""
    _set_default(_struct(obj, "status"), "phase", "Pending")
    spec = _struct(obj, "spec")
    _set_default(spec, "persistentVolumeReclaimPolicy", "Retain")
    _set_default_ptr(spec, "volumeMode", "Filesystem")


_resource_lists("PersistentVolumeSpec", "capacity")


@defaults(CORE + "PersistentVolumeClaim", "SetDefaults_PersistentVolumeClaim")
def set_defaults_persistent_volume_claim(obj: dict[str, Any], context: Context) -> None:
    """A claim starts Pending."""
    _set_default(_struct(obj, "status"), "phase", "Pending")


@defaults(CORE + "PersistentVolumeClaimSpec", "SetDefaults_PersistentVolumeClaimSpec")
def set_defaults_persistent_volume_claim_spec(obj: dict[str, Any], context: Context) -> None:
    """A claim asks for a filesystem volume (also in ephemeral volumes' claim templates)."""
    _set_default_ptr(obj, "volumeMode", "Filesystem")


_resource_lists("PersistentVolumeClaimStatus", "capacity", "allocatedResources")


# --- Service and Endpoints --------------------------------------------------------------------


def _externally_accessible(spec: dict[str, Any]) -> bool:
    kind = spec.get("type")
    return kind in ("LoadBalancer", "NodePort") or (kind == "ClusterIP" and bool(spec.get("externalIPs")))


def _target_port_unset(port: dict[str, Any]) -> bool:
    value = port.get("targetPort")
    return value is None or value == 0 or value == ""


@defaults(CORE + "Service", "SetDefaults_Service")
def set_defaults_service(obj: dict[str, Any], context: Context) -> None:
    """Session affinity (and its timeout), type ClusterIP, port protocols and target ports, the
    traffic policies, load-balancer node ports and ingress IP modes."""
    spec = _struct(obj, "spec")
    _set_default(spec, "sessionAffinity", "None")
    if spec["sessionAffinity"] == "None":
        spec.pop("sessionAffinityConfig", None)
    elif spec["sessionAffinity"] == "ClientIP":
        client_ip = _dict(_dict(spec, "sessionAffinityConfig"), "clientIP")
        if client_ip is None or client_ip.get("timeoutSeconds") is None:
            spec["sessionAffinityConfig"] = {"clientIP": {"timeoutSeconds": 10800}}
    _set_default(spec, "type", "ClusterIP")
    for port in _dicts(spec, "ports"):
        _set_default(port, "protocol", "TCP")
        if _target_port_unset(port):
            port["targetPort"] = port.get("port") or 0
    if _externally_accessible(spec):
        _set_default(spec, "externalTrafficPolicy", "Cluster")
    if _unset(spec, "internalTrafficPolicy") and spec["type"] in ("NodePort", "LoadBalancer", "ClusterIP"):
        spec["internalTrafficPolicy"] = "Cluster"
    if spec["type"] == "LoadBalancer":
        _set_default_ptr(spec, "allocateLoadBalancerNodePorts", True)
        if enabled("LoadBalancerIPMode", context.version):
            for ingress in _dicts(_dict(_dict(obj, "status"), "loadBalancer"), "ingress"):
                if not _zero(ingress, "ip") and _unset(ingress, "ipMode"):
                    ingress["ipMode"] = "VIP"


_marker(CORE + "ServicePort", "protocol", "TCP")


@defaults(CORE + "Endpoints", "SetDefaults_Endpoints")
def set_defaults_endpoints(obj: dict[str, Any], context: Context) -> None:
    """Endpoint ports speak TCP unless they say otherwise."""
    for subset in _dicts(obj, "subsets"):
        for port in _dicts(subset, "ports"):
            _set_default(port, "protocol", "TCP")


# --- Namespace, Secret, ConfigMap, Node -------------------------------------------------------


@defaults(CORE + "Namespace", "SetDefaults_Namespace")
def set_defaults_namespace(obj: dict[str, Any], context: Context) -> None:
    """A named namespace carries its name in the ``kubernetes.io/metadata.name`` label."""
    metadata = _dict(obj, "metadata")
    name = metadata.get("name") if metadata is not None else None
    if isinstance(name, str) and name and metadata is not None:
        labels = _dict(metadata, "labels")
        if labels is None:
            labels = {}
            metadata["labels"] = labels
        labels["kubernetes.io/metadata.name"] = name


@defaults(CORE + "NamespaceStatus", "SetDefaults_NamespaceStatus")
def set_defaults_namespace_status(obj: dict[str, Any], context: Context) -> None:
    """A namespace is Active."""
    _set_default(obj, "phase", "Active")


@defaults(CORE + "Secret", "SetDefaults_Secret")
def set_defaults_secret(obj: dict[str, Any], context: Context) -> None:
    """A secret without a type is Opaque."""
    _set_default(obj, "type", "Opaque")


@defaults(CORE + "ConfigMap", "SetDefaults_ConfigMap")
def set_defaults_config_map(obj: dict[str, Any], context: Context) -> None:
    """Upstream gives a ConfigMap without data an empty data map, which is not serialised (Go omits
    an empty map): nothing shows in the stored object."""


@defaults(CORE + "NodeStatus", "SetDefaults_NodeStatus")
def set_defaults_node_status(obj: dict[str, Any], context: Context) -> None:
    """Allocatable defaults to the capacity."""
    capacity = _dict(obj, "capacity")
    if _unset(obj, "allocatable") and capacity:
        obj["allocatable"] = dict(capacity)


_resource_lists("NodeStatus", "capacity", "allocatable")


# --- LimitRange, ResourceQuota ----------------------------------------------------------------


@defaults(CORE + "LimitRangeItem", "SetDefaults_LimitRangeItem")
def set_defaults_limit_range_item(obj: dict[str, Any], context: Context) -> None:
    """For containers: the default limit falls back to the max, the default request to the default
    limit, then to the min."""
    if obj.get("type") != "Container":
        return
    default = dict(_dict(obj, "default") or {})
    default_request = dict(_dict(obj, "defaultRequest") or {})
    for name, value in (_dict(obj, "max") or {}).items():
        default.setdefault(name, value)
    for name, value in default.items():
        default_request.setdefault(name, value)
    for name, value in (_dict(obj, "min") or {}).items():
        default_request.setdefault(name, value)
    for field, values in (("default", default), ("defaultRequest", default_request)):
        if values and values != obj.get(field):
            obj[field] = values


_resource_lists("LimitRangeItem", "max", "min", "default", "defaultRequest", "maxLimitRequestRatio")
_resource_lists("ResourceQuotaSpec", "hard")
_resource_lists("ResourceQuotaStatus", "hard", "used")


# --- PodLogOptions (options of the log subresource) -------------------------------------------


@defaults(CORE + "PodLogOptions", "SetDefaults_PodLogOptions")
def set_defaults_pod_log_options(obj: dict[str, Any], context: Context) -> None:
    """With split log streams, the stream asked for is All."""
    if enabled("PodLogsQuerySplitStreams", context.version):
        _set_default_ptr(obj, "stream", "All")


__all__ = ["GATES", "POD_LEVEL_DEFAULTS_UNTIL", "REPLICAS_MARKER_SINCE", "RESIZE_POLICY_DEFAULTS_UNTIL",
           "VOLUME_MARKERS_SINCE", "canonical_quantity", "enabled", "image_tag", "pull_policy"]
