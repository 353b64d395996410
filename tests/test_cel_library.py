"""Table tests of the CEL environment: Kubernetes libraries, extensions and core CEL.

The cases live in tests/cel_cases/*.yaml (format and helpers in tests/cel_cases/__init__.py): facts
from the Kubernetes library tests (k8s.io/apiserver/pkg/cel/library/*_test.go), from the libraries' code
and the environment kube-apiserver builds per version (k8s.io/apiserver/pkg/cel/environment/base.go), and
from the CEL specification's conformance data (cel-spec tests/simple/testdata), run through the engine adapter.
"""

from __future__ import annotations

import pytest

from tests.cel_cases import check, load_cases

CASES = load_cases()


def test_enough_cases():
    assert len(CASES) >= 300


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_case(case):
    problem = check(case)
    assert problem is None, f"{case['expr']!r}: {problem}"
