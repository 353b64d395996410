"""Table tests for the evaluation core, driven by the YAML files in tests/scenarios/.

Each file is a YAML list of scenarios::

    - name: unique-id
      about: which rule the scenario asserts
      input: {...}     # a POST /api/v1/evaluate body
      expect: {...}    # only the keys present are checked
      pending: ...     # optional: what the playground lacks (a strict expected failure)

The format, the ``expect`` keys and how ``pending`` works are described in tests/scenario_runner.py,
which runs these files and those of tests/admission_scenarios/.

Every scenario is evaluated by the core (``test_scenario``); each file is also sent once through the
JSON API, which must answer what the core answers (``test_api_answers_as_the_core``).

``test_scenario_structure`` checks the files themselves (shape, unique names, readable panes,
and the hand-written strings against the apiserver's formats); it does not need the core.
"""

from __future__ import annotations

import pytest

from tests import scenario_runner as runner
from tests.scenario_runner import go_json, resolve


def test_scenario_structure() -> None:
    """The scenario files load, are well-formed, and their names are unique."""
    assert not runner.PLAIN.errors, "\n".join(runner.PLAIN.errors)
    assert runner.PLAIN.scenarios, f"no scenarios found in {runner.PLAIN_DIR}"
    problems = runner.plain_structure_errors(runner.PLAIN)
    assert not problems, "\n".join(problems)


def test_path_resolution() -> None:
    """The checks' path syntax reaches nested keys and list items."""
    doc = {"policies": [{"bindings": [{"name": "a"}, {"name": "b"}]}]}
    assert resolve(doc, "policies[0].bindings[1].name") == "b"
    assert resolve({"x": [[1, 2]]}, "x[0][1]") == 2


def test_go_json() -> None:
    """go_json reproduces encoding/json's escaping of HTML characters."""
    assert go_json([{"m": "a <= b & c > d", "q": '"'}]) == '[{"m":"a \\u003c= b \\u0026 c \\u003e d","q":"\\""}]'


@pytest.mark.parametrize("scenario", runner.scenario_params(runner.PLAIN.scenarios))
def test_scenario(scenario: runner.Scenario) -> None:
    """Evaluate the scenario's input with the core and compare the response with its expectations."""
    runner.run_scenario(scenario)


@pytest.mark.parametrize("scenarios", runner.file_params(runner.PLAIN))
def test_api_answers_as_the_core(module_client, scenarios: list[runner.Scenario]) -> None:
    """POST /api/v1/evaluate answers each scenario of the file with 200 and the core's response."""
    differences = runner.http_differences(module_client, scenarios)
    assert not differences, "\n".join(differences)
