"""Cost of expressions: the apiserver's runtime costs (cost_test.go facts) and the per-call limit."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from app.vap.cel import library
from tests.cel_cases import bare_programs

COSTS_FILE = Path(__file__).parent / "cel_cases" / "cost" / "apiserver_runtime_costs.yaml"
CASES = yaml.safe_load(COSTS_FILE.read_text(encoding="utf-8"))
DEFAULTS = CASES["defaults"]


def cost_of(expr: str, data: dict | None = None, version: str = DEFAULTS["version"]) -> library.CostResult:
    # The library's environment without the adapter's extra checks: cost_test.go's environment does
    # not enable HomogeneousAggregateLiterals, and several of its facts use mixed-type literals.
    checked, program = bare_programs(expr, version)
    activation = {"object": None, **(data or {})}
    activation.update(library.authorizer_activation({}, {"username": "alice"}))
    with library.track_cost() as tracker:
        result = program.eval(data=activation)
    if result.type().name() == "ERROR":  # an optional result also reads as ERROR, but has no error text
        with pytest.raises(TypeError):
            result.value()
    return library.expression_cost(checked, activation, tracker)


@pytest.mark.parametrize("case", CASES["cases"], ids=[case["expr"] for case in CASES["cases"]])
def test_runtime_cost_matches_apiserver(case):
    got = cost_of(case["expr"]).total
    if case.get("approx"):
        assert case["cost"] <= got * 1.25 and got <= case["cost"] * 1.25, (got, case["cost"])
    else:
        assert got == case["cost"]


def test_library_part_is_counted_at_run_time():
    result = cost_of("authorizer.path('/healthz').check('get').allowed()")
    assert result.library == 350002  # path 1 + check 350000 + allowed 1
    assert result.total == 350003  # + the `authorizer` identifier


def test_comprehension_cost_scales_with_input():
    small = cost_of("object.items.all(x, x > 0)", {"object": {"items": [1] * 3}}).total
    large = cost_of("object.items.all(x, x > 0)", {"object": {"items": [1] * 300}}).total
    assert large > 50 * small / 3


def test_per_call_limit():
    # || does not short-circuit here (every check answers false), so all three checks run
    expr = " || ".join([f"authorizer.path('/x{i}').check('get').allowed()" for i in range(3)])
    result = cost_of(expr)
    assert result.total > library.PER_CALL_LIMIT
    assert library.cost.exceeds_per_call_limit(result)
    assert library.cost.PER_CALL_LIMIT_MESSAGE == "operation cancelled: actual cost limit exceeded"
    assert not library.cost.exceeds_per_call_limit(cost_of("authorizer.path('/x').check('get').allowed()"))
    # && stops at the first false: only one check runs, as in cel-go
    assert cost_of(expr.replace(" || ", " && ")).total < library.PER_CALL_LIMIT


def test_budget_texts():
    assert library.cost.RUNTIME_CEL_COST_BUDGET == 10_000_000
    assert library.cost.MATCH_CONDITIONS_COST_BUDGET == 2_500_000
    assert library.cost.BUDGET_EXCEEDED_MESSAGE == (
        "validation failed due to running out of cost budget, no further validation rules will be run"
    )


# TestIncludesCost (cost_test.go, Kubernetes 1.37): a traversal of the receiver, as for indexOf
_INCLUDES = [
    ("[1, 2, 3, 4, 5]", "3", 15, False),
    ("[uint(1), uint(2), uint(3), uint(4), uint(5)]", "uint(3)", 21, False),
    ("[1.0, 2.0, 3.0, 4.0, 5.0]", "3.0", 15, False),
    ("[false, true, false, true, false]", "true", 15, False),
    ("['012345678901', '012345678901', '012345678901', '012345678901', '012345678901']", "'x'", 15, False),
    # the bytes() conversions are estimated, not counted (21 here)
    ("[bytes('012345678901'), bytes('012345678901'), bytes('012345678901'), bytes('012345678901'), "
     "bytes('012345678901')]", "bytes('x')", 26, True),
    ("[duration('1s'), duration('2s'), duration('3s'), duration('4s'), duration('5s')]", "duration('3s')", 21, False),
    ("'01234567890123456789012345678901234567890123456789'", "'123'", 5, False),
]


@pytest.mark.parametrize(("receiver", "argument", "cost", "approx"), _INCLUDES)
def test_includes_cost_matches_apiserver(receiver, argument, cost, approx):
    got = cost_of(f"{receiver}.includes({argument})", version="1.37").total
    if approx:
        assert cost <= got * 1.25 and got <= cost * 1.25, (got, cost)
    else:
        assert got == cost


@pytest.mark.parametrize("case", CASES["cases"], ids=[case["expr"] for case in CASES["cases"]])
def test_a_program_said_to_charge_no_library_cost_charges_none(case):
    # evaluation makes no cost tracker active for a policy whose programs call no costed function
    checked, program = bare_programs(case["expr"], DEFAULTS["version"])
    activation = {"object": None, **library.authorizer_activation({}, {"username": "alice"})}
    with library.track_cost() as tracker:
        program.eval(data=activation)
    if tracker.library_cost > 0:
        assert library.counts_library_cost(program), case["expr"]


def test_which_programs_may_charge_a_library_cost():
    def counts(expr: str) -> bool:
        return library.counts_library_cost(bare_programs(expr, DEFAULTS["version"])[1])

    assert not counts("object.spec.replicas > 1 && 'a'.startsWith('a')")
    assert counts("quantity('1Gi').isGreaterThan(quantity('1Mi'))")
    assert counts("format.named('dns1123Label').hasValue()")
    assert counts("authorizer.group('').resource('pods').check('get').allowed()")
    assert counts("[1, 2].sum() == 3")


def test_a_dropped_costed_overload_does_not_lend_its_id_to_a_later_function():
    # Declarations are known by the id of the engine's object; an overload made with a cost and then
    # dropped freed its id, which a later overload could get. That later function was then taken as
    # charging a cost (its programs ran with a tracker and counted a library cost): CI saw
    # `'a'.startsWith('a')` counted so, depending on which tests had run before.
    import gc

    from app.vap.cel.library import _decl

    dropped = set()
    for n in range(200):
        costed = _decl.overload(f"probe_costed_{n}", _decl.T.BOOL, [_decl.T.STRING], lambda s: True,
                                member=True, cost=1)
        dropped.add(id(costed))
        del costed
    gc.collect()
    plain = []
    for n in range(2000):
        made = _decl.overload(f"probe_plain_{n}", _decl.T.BOOL, [_decl.T.STRING], None, member=True)
        plain.append(made)
        if id(made) in dropped:
            _decl.function(f"probePlain{n}", made)
            assert f"probePlain{n}" not in _decl.COSTED_FUNCTIONS
            assert _decl.signature(made)[0] == f"probe_plain_{n}"
    _decl.function("probePlainLast", plain[-1])
    assert "probePlainLast" not in _decl.COSTED_FUNCTIONS
