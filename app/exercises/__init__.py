"""Workshop exercises: a task, the panes to start from, hidden checks, and a solution.

Rule: this module is pure (no Flask); it only reads the YAML files beside it. A file named
``NN-some-name.yaml`` is the exercise ``some-name``; NN orders the course. Each file holds::

    title: Your first validation
    summary: one line for the list of exercises
    task: |
      What to do, in paragraphs; `code` in backticks.
    panes: {policy: ..., binding: ..., object: ...}     # what the page starts with
    checks: [...]        # test cases (app.vap.suite format), never sent to the browser
    solution: {policy: ...}                             # panes that solve it, for the tests

The checks are the hidden test cases of the exercise: the page only says how many pass and
which by name, never their objects.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ..examples import DEFAULT_REQUEST, PANES
from ..vap import suite

_DIR = Path(__file__).parent
_FILE_NAME = re.compile(r"^(?P<number>\d+)-(?P<name>[a-z0-9][a-z0-9-]*)\.yaml$")
_FIELDS = {"title", "summary", "task", "panes", "checks", "solution", "kubernetesVersion"}


class ExerciseError(ValueError):
    """An exercise file that does not have the expected shape."""


@dataclass(frozen=True)
class Exercise:
    """One exercise of the course."""

    number: int
    name: str
    title: str
    summary: str
    task: str
    panes: dict[str, str]
    checks: tuple[suite.TestCase, ...]
    solution: dict[str, str]
    kubernetes_version: str = ""

    def form(self) -> dict[str, str]:
        """Return the form fields the exercise starts with."""
        values = {pane: self.panes.get(pane, "") for pane in PANES}
        values["kubernetesVersion"] = self.kubernetes_version
        values["operation"] = ""
        return values

    def solved_form(self) -> dict[str, str]:
        """Return the form fields with the solution's panes in place."""
        return {**self.form(), **self.solution}

    def check(self, scenario: dict[str, Any]) -> suite.SuiteResult:
        """Run the hidden checks against a scenario (the panes as the page sends them)."""
        return suite.run_suite(scenario, list(self.checks))


def _panes(data: Any, where: str) -> dict[str, str]:
    if data is None:
        return {}
    if not isinstance(data, dict) or set(data) - set(PANES):
        raise ExerciseError(f"{where} must be a mapping of {', '.join(PANES)}")
    for pane, text in data.items():
        if not isinstance(text, str):
            raise ExerciseError(f"{where}.{pane} must be text")
    return dict(data)


def _parse(number: int, name: str, text: str) -> Exercise:
    data = yaml.safe_load(text)
    if not isinstance(data, dict):
        raise ExerciseError(f"{name}: the file must hold a mapping")
    unknown = set(data) - _FIELDS
    if unknown:
        raise ExerciseError(f"{name}: unknown keys {sorted(unknown)}")
    for key in ("title", "summary", "task"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise ExerciseError(f"{name}: {key} is required text")
    panes = _panes(data.get("panes"), f"{name}: panes")
    if not panes.get("request", "").strip():
        panes["request"] = DEFAULT_REQUEST
    checks, problems = suite.parse_cases(data.get("checks"))
    problems += [p for c in checks for p in c.problems]
    if problems:
        raise ExerciseError(f"{name}: checks: {problems[0]['message']}")
    if not checks:
        raise ExerciseError(f"{name}: an exercise needs checks")
    solution = _panes(data.get("solution"), f"{name}: solution")
    if not solution:
        raise ExerciseError(f"{name}: an exercise ships its solution")
    return Exercise(
        number=number, name=name, title=data["title"].strip(), summary=" ".join(data["summary"].split()),
        task=data["task"].strip(), panes=panes, checks=tuple(checks), solution=solution,
        kubernetes_version=str(data.get("kubernetesVersion") or ""),
    )


@functools.cache
def all_exercises() -> tuple[Exercise, ...]:
    """Load every exercise file, in course order."""
    exercises = []
    for path in sorted(_DIR.glob("*.yaml")):
        match = _FILE_NAME.match(path.name)
        if match is None:
            raise ExerciseError(f"{path.name}: exercise files are named NN-lowercase-words.yaml")
        exercises.append(_parse(int(match["number"]), match["name"], path.read_text(encoding="utf-8")))
    return tuple(exercises)


def get(name: str) -> Exercise | None:
    """Return the exercise called ``name``, or None."""
    return next((e for e in all_exercises() if e.name == name), None)
