"""Property-based fuzzing of the loader and the API: whatever arrives, the answer is a clean one.

The loader never raises and reports every problem at a pane; the API answers 200 with a response
or 400 with {"error": ...}, never 500; the page answers every form. A few thousand inputs in all,
bounded to seconds (derandomized in CI, so a run there is repeatable).
"""

from __future__ import annotations

import json
import math
import os

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app import isolation
from app.vap.documents import PANES, Document, Problem, load_pane
from app.vap.limits import clean_text

FUZZ = settings(deadline=None, derandomize=bool(os.environ.get("CI")), database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

scalars = st.one_of(st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
                    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=20))
json_values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)), max_leaves=10)

# Pieces of YAML syntax, to build texts that get past the scanner more often than random text.
_TOKENS = ["apiVersion: v1", "kind: ConfigMap", "kind: List", "items:", "metadata:", "  name: x", "- ", "-", ":", "---",
           "...", "&a ", "*a", "&b [1, 2]", "*b", "<<: *a", "!!str ", "!!binary ", "!!python/name:os.system ", "!foo ",
           "[", "]", "{", "}", ",", '"', "'", "|", ">", "#", "%YAML 1.1", "? ", "\t", "\n", "  ", "\\u00", "\x00",
           "\ud800", "é", "2024-01-01", "0x1F", "1e999", ".nan", "~", "null", "yes", "kind: ValidatingAdmissionPolicy",
           "apiVersion: admissionregistration.k8s.io/v1", "spec:", "  validations:", "  - expression: 'true'"]
yaml_like = st.lists(st.sampled_from(_TOKENS) | st.text(max_size=5), max_size=40).map("".join)


def _dump(value: object) -> str:
    try:
        return yaml.safe_dump(value, allow_unicode=True)
    except (yaml.YAMLError, ValueError):
        return json.dumps(value)


mutated = st.tuples(json_values.map(_dump), st.integers(0, 200), st.text(max_size=5)).map(
    lambda t: t[0][: t[1]] + t[2] + t[0][t[1]:])
pane_texts = st.one_of(st.text(max_size=200), yaml_like, json_values.map(_dump), mutated)


def _check_loaded(pane: str, docs: list, problems: list) -> None:
    assert all(isinstance(d, Document) and d.pane == pane for d in docs)
    for p in problems:
        assert isinstance(p, Problem) and p.pane == pane and p.severity in ("error", "warning")
        assert isinstance(p.message, str) and p.message
        assert p.line is None or p.line >= 1
    json.dumps([d.value for d in docs], default=str)  # what was built is JSON-like data


@settings(FUZZ, max_examples=1500)
@given(pane=st.sampled_from(PANES), text=pane_texts)
def test_the_loader_reads_any_text_without_raising(pane, text):
    docs, problems = load_pane(pane, text)
    _check_loaded(pane, docs, problems)


@settings(FUZZ, max_examples=300)
@given(pane=st.sampled_from(PANES), value=json_values)
def test_the_loader_reads_any_parsed_json_value_without_raising(pane, value):
    if not isinstance(value, (dict, list, str)) and value is not None:
        return  # the API refuses other pane types before the loader (400)
    docs, problems = load_pane(pane, value)
    _check_loaded(pane, docs, problems)



pane_values = st.one_of(pane_texts, json_values)
bodies = st.one_of(
    st.fixed_dictionaries({}, optional={name: pane_values for name in (*PANES, "kubernetesVersion")}),
    json_values,
)


def _answered(resp) -> dict:
    assert resp.status_code in (200, 400), resp.get_data(as_text=True)[:1000]
    data = resp.get_json()
    if resp.status_code == 400:
        assert isinstance(data["error"], str) and data["error"]
    else:
        assert isinstance(data["allowed"], bool) and isinstance(data["problems"], list)
        assert all(p["pane"] and p["message"] for p in data["problems"])
    return data


@settings(FUZZ, max_examples=700)
@given(body=bodies)
def test_the_api_answers_any_json_body_with_200_or_400(module_client, body):
    _answered(module_client.post("/api/v1/evaluate", data=json.dumps(body), content_type="application/json"))


@settings(FUZZ, max_examples=200)
@given(data=st.binary(max_size=200))
def test_the_api_answers_any_bytes_with_200_or_400(module_client, data):
    _answered(module_client.post("/api/v1/evaluate", data=data, content_type="application/json"))


@settings(FUZZ, max_examples=200)
@given(form=st.dictionaries(st.sampled_from([*PANES, "kubernetesVersion", "operation", "other"]),
                            st.one_of(pane_texts, st.sampled_from(["CREATE", "UPDATE", "1.30", "v9.99"])), max_size=8))
def test_the_page_answers_any_form(module_client, form):
    form = {k: clean_text(v) for k, v in form.items()}  # a browser cannot send lone surrogates
    resp = module_client.post("/evaluate", data=form, headers={"HX-Request": "true"})
    assert resp.status_code == 200
    assert resp.get_data(as_text=True).lstrip().startswith('<section id="result"')


@pytest.fixture(scope="module")
def pool():
    return isolation.pool_for(isolation.Settings(timeout=5, memory_mb=128, workers=2, spare=1))


def _same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


@settings(FUZZ, max_examples=100)
@given(body=st.fixed_dictionaries({"policy": pane_values}, optional={"object": pane_values, "params": pane_values}))
def test_a_worker_answers_as_the_core_for_any_body(pool, body):
    from app import vap

    try:
        expected = vap.evaluate(body)
    except ValueError:
        with pytest.raises(ValueError):
            pool.evaluate(body)
        return
    assert _same(pool.evaluate(body), json.loads(json.dumps(expected, default=str)))
