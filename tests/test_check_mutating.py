"""`admission-playground check` with MutatingAdmissionPolicies: the table names the policies that changed an object,
and a policy's failure fills the POLICY and BINDING columns as a validating policy's denial does."""

from __future__ import annotations

import json
from pathlib import Path

from tests import scenario_runner as runner
from tests.test_check import _in_process, _write

SCENARIOS = {s.name: s.data["input"] for s in runner.ADMISSION.scenarios if s.stem == "mutating-policies"}
SIDECAR = SCENARIOS["sidecar-injected-and-defaulted-then-seen-by-a-validating-policy"]
BROKEN = SCENARIOS["runtime-error-under-fail-denies"]


def _cluster(root: Path) -> None:
    """The sidecar policy (without the validating policy refusing it) for Pods, the failing one for ConfigMaps."""
    sidecar = SIDECAR["policy"].split("---\napiVersion: admissionregistration.k8s.io/v1\n"
                                      "kind: ValidatingAdmissionPolicy\n")[0]
    _write(root / "policies" / "sidecar.yaml", sidecar)
    _write(root / "policies" / "broken.yaml", BROKEN["policy"])
    _write(root / "manifests" / "app.yaml", SIDECAR["object"] + "---\n" + BROKEN["object"])


def test_the_table_names_the_policies_that_changed_an_object(tmp_path, capsys, monkeypatch):
    _cluster(tmp_path)
    code, out, err = _in_process(capsys, monkeypatch, tmp_path, "manifests", "-p", "policies")
    assert code == 1, err
    lines = out.splitlines()
    pod = next(i for i, line in enumerate(lines) if line.startswith("manifests/app.yaml:1 "))
    assert lines[pod].split()[4] == "admitted"
    assert lines[pod + 1] == "    Mutated by MutatingAdmissionPolicy sidecar/sidecar: 1 change"
    config_map = next(line for line in lines if "configmap/c" in line)
    cells = config_map.split()
    assert cells[4:8] == ["denied", "403", "broken", "broken"]
    assert "denied request" not in config_map  # said by the POLICY and BINDING columns
    assert config_map.endswith("expression '[JSONPatch{op: \"add\", path: \"/data/x\", value: object.data.missing}]' "
                               "resulted in error: no such key: missing")
    assert lines[-1] == "2 objects: 1 admitted, 1 denied"


def test_json_output_has_the_whole_response_with_the_patch(tmp_path, capsys, monkeypatch):
    """The table reads a summary of each response (what a worker process sends back); -o json has it whole."""
    _cluster(tmp_path)
    code, out, _ = _in_process(capsys, monkeypatch, tmp_path, "manifests", "-p", "policies", "-o", "json")
    pod = json.loads(out)["results"][0]["response"]
    sidecar = pod["object"]["spec"]["initContainers"]
    assert {"op": "add", "path": "/spec/initContainers", "value": sidecar} in pod["patch"]
    assert sidecar[0]["imagePullPolicy"] == "IfNotPresent"  # defaulted after the mutation
    policies = {p["name"]: p for p in pod["mutatingPolicies"]}
    assert policies["sidecar"]["bindings"][0]["evaluations"][0]["mutations"][0]["patchType"] == "ApplyConfiguration"
    assert policies["broken"]["bindings"] == []  # its rules name ConfigMaps only
