"""Version selection, error translation, compile-time checks and engine limits of the CEL library."""

from __future__ import annotations

import pytest

from app.vap import cel as c
from app.vap.cel import library
from app.vap.cel.library import errors, versions
from tests.cel_cases import bare_env


def compile_(expr: str, version: str = "1.34", kind: str = c.VARIABLE) -> c.Compiled:
    return c.compile_expression(expr, kind, c.Declarations(version=version))


# --- versions -------------------------------------------------------------------------------------


def test_supported_versions_and_default():
    assert library.SUPPORTED_VERSIONS[0] == "1.28"
    assert library.DEFAULT_VERSION == library.SUPPORTED_VERSIONS[-1]
    assert library.version_tuple("1.34") == (1, 34)
    assert library.version_tuple("v1.30.2") == (1, 30)
    with pytest.raises(ValueError):
        library.version_tuple("latest")
    assert library.normalize_version(None) == library.DEFAULT_VERSION
    assert library.normalize_version("1.20") == "1.28"
    assert library.normalize_version("1.99") == library.DEFAULT_VERSION


@pytest.mark.parametrize("version", library.SUPPORTED_VERSIONS)
def test_every_version_builds_and_evaluates(version):
    comp = compile_("[1, 2].sum() == 3 && 'a'.find('a') == 'a' && isURL('/x')", version)
    assert comp.error is None
    assert c.evaluate(comp, {"object": None}) is True


@pytest.mark.parametrize(
    ("expr", "introduced"),
    [
        ("quantity('1').isInteger()", "1.28"),
        ("'%d'.format([1]) == '1'", "1.29"),
        ("sets.contains([1], [1])", "1.29"),
        ("isIP('1.2.3.4')", "1.30"),
        ("isCIDR('1.2.3.0/24')", "1.30"),
        ("format.named('uuid').hasValue()", "1.31"),
        ("[1].all(i, v, v > 0)", "1.32"),
        ("isSemver('1.0.0')", "1.33"),
        ("[1].first().hasValue()", "1.33"),
        ("[2, 1].sort() == [1, 2]", "1.34"),
        ("[1, 2].includes(2)", "1.37"),
    ],
)
def test_library_availability_follows_the_version(expr, introduced):
    v = library.version_tuple(introduced)
    for version in library.SUPPORTED_VERSIONS:
        comp = compile_(expr, version)
        if library.version_tuple(version) >= v:
            assert comp.error is None, (version, comp.error)
            assert c.evaluate(comp, {"object": None}) is True
        else:
            assert comp.error is not None and comp.error.startswith("compilation failed: ERROR: <input>:1:"), version


def test_environment_yaml_per_version():
    old, new = versions.environment_yaml("1.28"), versions.environment_yaml("1.34")
    assert "name: strings\n  version: 0" in old and "sets" not in old
    assert "name: strings\n  version: 2" in new and "- name: sets" in new and "- name: lists" in new
    for text in (old, new):
        assert "math" not in text and "encoders" not in text and "bindings" not in text


def test_undeclared_function_error_text():
    comp = compile_("isSemver('1.0.0')", "1.32")
    assert comp.error == (
        "compilation failed: ERROR: <input>:1:9: undeclared reference to 'isSemver' (in container '')\n"
        " | isSemver('1.0.0')\n"
        " | ........^"
    )


# --- compile-time checks ---------------------------------------------------------------------------


def test_issue_positions_are_in_the_original_text():
    comp = compile_("object.a == 1 &&\n  [1,\n   'b'].size() == 2")
    assert [(i.line, i.column) for i in comp.issues] == [(3, 4)]
    assert comp.issues[0].message == "expected type 'int' but found 'string'"


def test_literal_validators_from_1_29():
    assert compile_("duration('1x') > duration('0s')", "1.29").issues[0].message == "invalid duration argument"
    assert compile_("duration('1x') > duration('0s')", "1.28").error is None
    assert compile_("timestamp('x') > timestamp(0)", "1.34").issues[0].message == "invalid timestamp argument"
    assert compile_("'a'.matches('(')", "1.34").issues[0].message == "invalid matches argument"


def test_internal_fields_of_library_values_are_hidden():
    comp = compile_("ip('1.2.3.4').__addr == b''")
    assert "undefined field '__addr'" in comp.error
    comp = compile_("kubernetes.Quantity{} == quantity('1')")
    assert "undeclared reference to 'kubernetes.Quantity'" in comp.error


def test_check_expression_on_a_bare_program():
    program = bare_env("1.34").compile("{'a': 1, 'b': 'x'}")
    issues = library.check_expression(program, "{'a': 1, 'b': 'x'}", "1.34")
    assert [(i.line, i.column, i.message) for i in issues] == [(1, 15, "expected type 'int' but found 'string'")]


# --- run-time error texts --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("engine_text", "apiserver_text"),
    [
        ('NOT_FOUND: Key not found in map : "nodeName"', "no such key: nodeName"),
        ("UNKNOWN: Index error: index=5 size=2", "index out of bounds: 5"),
        ("INVALID_ARGUMENT: divide by zero", "division by zero"),
        ("INVALID_ARGUMENT: modulus by zero", "modulus by zero"),
        ("OUT_OF_RANGE: integer overflow", "integer overflow"),
        ("OUT_OF_RANGE: unsigned integer overflow", "unsigned integer overflow"),
        ("OUT_OF_RANGE: double out of int64 range", "integer overflow"),
        ("UNKNOWN: No matching overloads found : _+_(int64, string)", "no such overload"),
        ("FAILED_PRECONDITION: optional.none() dereference", "optional.none() dereference"),
        ("INVALID_ARGUMENT: invalid regular expression: missing ]: [", "error parsing regexp: missing closing ]: `[`"),
        (
            "INVALID_ARGUMENT: Type conversion error from 'string' to 'bool'",
            "type conversion error from 'string' to 'bool'",
        ),
        ("INVALID_ARGUMENT: malformed UTF-8 bytes", "invalid UTF-8 in bytes, cannot convert to string"),
    ],
)
def test_runtime_error_translation(engine_text, apiserver_text):
    assert library.translate_runtime_error(engine_text) == apiserver_text


def test_library_error_texts_pass_through_unchanged():
    text = str(errors.LibraryError("cannot convert value to integer"))
    assert library.translate_runtime_error("OUT_OF_RANGE: " + text) == "cannot convert value to integer"


def test_engine_limits_are_reported_as_such():
    comp = compile_("object.items.all(x, x >= 0)")
    with pytest.raises(c.EvaluationError) as info:
        c.evaluate(comp, {"object": {"items": list(range(10_001))}})
    text = str(info.value)
    assert text.startswith("iteration budget exceeded: the playground's CEL engine (cel-cpp) allows 9,999")
    assert "kube-apiserver has no such limit" in text
    assert info.value.engine_limit and library.is_engine_limit(text)
    assert c.evaluate(comp, {"object": {"items": list(range(9_999))}}) is True

    # nested deeper than the engine can compile: no compile error (the apiserver accepts it), an
    # engine-limit error when it is evaluated
    deep = " + ".join(["1"] * 40) + " == 40"
    comp = compile_(deep)
    assert comp.error is None and comp.issues == () and comp.engine_limit
    with pytest.raises(c.EvaluationError) as info:
        c.evaluate(comp, {"object": None})
    assert str(info.value) == (
        "the playground's CEL engine (cel-cpp) cannot evaluate this expression: it is nested deeper than the 32 "
        "levels the engine parses and plans (e.g. a chain of 33 '+'); kube-apiserver has no such limit and would "
        "evaluate it"
    )
    assert info.value.engine_limit
    assert not compile_("1 + ").engine_limit  # a real syntax error is not
    assert compile_("1 + ").error is not None


def test_ordinary_errors_are_not_engine_limits():
    comp = compile_("object.items[3] == 1")
    with pytest.raises(c.EvaluationError) as info:
        c.evaluate(comp, {"object": {"items": []}})
    assert str(info.value) == "index out of bounds: 3" and not info.value.engine_limit


def test_names_of_the_playgrounds_rewriting_are_undeclared():
    for name in ("__k8s_equals", "__playground_variable_x"):
        comp = compile_(f"[{name}(1, 2)].size() == 1")
        column = len(f"[{name}(")
        assert comp.error.startswith(
            f"compilation failed: ERROR: <input>:1:{column}: undeclared reference to '{name}' (in container '')"
        )


# --- positions after the variables rewriting ---------------------------------------------------------


def compile_with_variables(expr: str, variables: dict[str, str], version: str = "1.34") -> c.Compiled:
    decls = c.Declarations(version=version, variables=tuple(variables.items()))
    return c.compile_expression(expr, c.VALIDATION, decls)


@pytest.mark.parametrize(
    ("expr", "variables", "expected"),
    [
        # a homogeneous-literal error (the apiserver's extra checks) after two rewritten references
        ("variables.a + variables.b + [1, 'x'].size() > 0", {"a": "INT", "b": "INT"},
         [(1, 33, "expected type 'int' but found 'string'")]),
        # a checker error after a reference holding optionals (its rewriting is longer)
        ("variables.o.orValue(1) == 1 && variables.s + 1 == 2", {"o": "optional_type<INT>", "s": "STRING"},
         [(1, 44, "found no matching overload for '_+_' applied to '(string, int)'")]),
        # on the next line, after a reference on the first
        ("variables.a == 1 &&\n  [1, 'x'].size() == 2", {"a": "INT"},
         [(2, 7, "expected type 'int' but found 'string'")]),
        # an error about the reference itself points at its '.', as cel-go reports a selection
        ("1 == 1 && variables.s.size() == variables.n.foo", {"s": "STRING", "n": "INT"},
         [(1, 44, "type 'int' does not support field selection")]),
        ("variables.nope == 1", {"a": "INT"}, [(1, 10, "undefined field 'nope'")]),
    ],
)
def test_issue_positions_after_the_variables_rewrite(expr, variables, expected):
    comp = compile_with_variables(expr, variables)
    assert [(i.line, i.column, i.message) for i in comp.issues] == expected
    line, column, _ = expected[0]
    caret = comp.error.split("\n")[2]
    assert caret == " | " + "." * (column - 1) + "^"
    assert comp.error.split("\n")[1] == " | " + expr.split("\n")[line - 1]


def test_expressions_reading_variables_of_common_types_share_one_environment():
    c._checking_environment.cache_clear()
    assert compile_with_variables("variables.n + 1 > 0", {"n": "INT"}).error is None
    assert compile_with_variables("variables.s.startsWith('a') && variables.l.size() > 0",
                                  {"s": "STRING", "l": "LIST<DYN>"}).error is None
    assert compile_with_variables("variables.m[0] == 1 && variables.b", {"m": "LIST<DYN>", "b": "BOOL"},
                                  ).error is None
    assert compile_with_variables("variables.labels['app'] == 'web'", {"labels": "MAP<STRING, STRING>"}).error is None
    # and with expressions that reference no variable
    assert compile_with_variables("object.spec.replicas > 1", {"n": "INT"}).error is None
    assert c._checking_environment.cache_info().currsize == 1  # one for all five
    # each variable keeps its type
    wrong = compile_with_variables("variables.s + 1 == 2 || variables.l[0] + 1 > 0",
                                   {"s": "STRING", "l": "LIST<STRING>"})
    assert [i.message for i in wrong.issues] == ["found no matching overload for '_+_' applied to '(string, int)'",
                                                 "found no matching overload for '_+_' applied to '(string, int)'"]
    # a variable of an object type has a function of its own, in an environment of its own
    assert compile_with_variables("variables.u.username == 'a'", {"u": "kubernetes.UserInfo"}).error is None
    assert c._checking_environment.cache_info().currsize == 2


def test_authorizer_values_and_backend():
    values = library.authorizer_activation(
        {"resource": {"group": "apps", "version": "v1", "resource": "deployments"}, "namespace": "ns", "name": "web"},
        {"username": "alice", "groups": ["dev"]},
    )
    assert set(values) == {"authorizer", "authorizer.requestResource"}
    seen = []

    def allow_deployments(attrs):
        seen.append(attrs)
        return ("allow", "test rule", None) if attrs.get("resource") == "deployments" else ("no opinion", "", None)

    values = library.authorizer_activation(
        {"resource": {"group": "apps", "version": "v1", "resource": "deployments"}, "namespace": "ns", "name": "web"},
        {"username": "alice"},
        backend=allow_deployments,
    )
    comp = compile_(
        "authorizer.requestResource.check('update').allowed()"
        " && !authorizer.group('').resource('pods').check('get').allowed()"
    )
    assert c.evaluate(comp, {"object": None, **values}) is True
    assert seen[0] == {
        "user": {"username": "alice"},
        "verb": "update",
        "resourceRequest": True,
        "apiGroup": "apps",
        "apiVersion": "*",
        "resource": "deployments",
        "subresource": "",
        "namespace": "ns",
        "name": "web",
    }


def test_render_value():
    comp = compile_(
        "[dyn(quantity('1.5')), dyn(ip('::1')), dyn(cidr('10.0.0.0/8')), dyn(semver('1.2.3-rc.1')), dyn(url('/x')),"
        " dyn(format.uuid()), dyn(quantity('1500m').add(1)), dyn(quantity('-2e-3')), dyn(quantity('1Ki'))]"
    )
    rendered = [library.render_value(v) for v in c.evaluate(comp, {"object": None})]
    assert rendered == [
        "quantity('1.5')", "ip('::1')", "cidr('10.0.0.0/8')", "semver('1.2.3-rc.1')", "url('/x')", "format.uuid()",
        "quantity('2.5')", "quantity('-0.002')", "quantity('1024')",
    ]  # fmt: skip
    comp = compile_(
        "{'t': dyn(timestamp('2020-01-02T03:04:05.5Z')), 'd': dyn(duration('-1m30.25s')), 'b': dyn(b'a\\x00\"'),"
        " 'n': dyn(0.0/0.0), 'i': dyn(-1.0/0.0), 'ty': dyn(type(1)), 'l': dyn([{'k': quantity('1')}])}"
    )
    assert library.render_value(c.evaluate(comp, {"object": None})) == {
        "t": "2020-01-02T03:04:05.5Z", "d": "-90.25s", "b": 'b"a\\x00\\""', "n": "NaN", "i": "-Inf",
        "ty": "int", "l": [{"k": "quantity('1')"}],
    }  # fmt: skip


@pytest.mark.parametrize(
    ("expr", "shown"),
    [
        ("object.?spec.replicas", {"optional.of": 3}),
        ("object.?spec.paused", "optional.none()"),
        ("format.named('uuid')", {"optional.of": "format.uuid()"}),
        ("format.dns1123Label().validate('ok')", "optional.none()"),
        ("[optional.of(quantity('1')), optional.none()]", [{"optional.of": "quantity('1')"}, "optional.none()"]),
        ("optional.of(optional.of(ip('::1')))", {"optional.of": {"optional.of": "ip('::1')"}}),
    ],
)
def test_display_value_of_variables_holding_optionals(expr, shown):
    comp = compile_(expr)
    assert comp.error is None
    assert c.display_value(comp, c.evaluate(comp, {"object": {"spec": {"replicas": 3}}})) == shown


def test_benchmark_prints_times_and_cost_for_every_expression(capsys):
    from benchmarks import cel as bench

    assert bench.main(["--repeat", "1"]) == 0
    rows = capsys.readouterr().out.splitlines()[3:]
    assert [row[:18].strip() for row in rows] == [name for name, _, _ in bench.EXPRESSIONS]
    assert all(row.rstrip().endswith("True") for row in rows), rows


# --- caches ---------------------------------------------------------------------------------------


def test_compiling_many_distinct_expressions_keeps_the_caches_bounded():
    import gc

    gc.collect()
    before = sum(1 for o in gc.get_objects() if isinstance(o, c.Compiled))  # held by other tests' caches
    decls = c.Declarations(version="1.34")
    for i in range(c.COMPILE_CACHE_SIZE + 50):
        c.compile_expression(f"object.metadata.name == 'n{i}'", c.VALIDATION, decls)
    assert c.compile_expression.cache_info().currsize == c.COMPILE_CACHE_SIZE
    gc.collect()
    alive = sum(1 for o in gc.get_objects() if isinstance(o, c.Compiled))
    # the compiled expressions and the checks they reuse (API validation's cache), each bounded; nothing
    # else keeps compiled expressions (or their programs)
    assert c._check.cache_info().currsize <= c.COMPILE_CACHE_SIZE
    assert alive - before <= 2 * c.COMPILE_CACHE_SIZE + 50
    for cached in (c._checking_environment, c._runtime_environment):
        assert cached.cache_parameters()["maxsize"] == c.ENVIRONMENT_CACHE_SIZE
        assert cached.cache_info().currsize <= c.ENVIRONMENT_CACHE_SIZE


def test_versions_compare_by_what_they_declare():
    # 1.37 adds list.includes() (lists v1); 1.36 and 1.35 declare the same; 1.34 adds the lists extension
    assert library.declaration_changes("1.36", "1.37") == {"includes"}
    assert library.declaration_changes("1.35", "1.36") == frozenset()
    assert library.declaration_changes("1.33", "1.34") is None


def test_a_check_in_the_previous_version_is_the_previous_versions_check():
    decls = c.Declarations(version="1.36")
    # checked in 1.37's environment when it names nothing 1.37 declares differently: the same result
    assert c.check_expression("[1, 2].exists(x, x == 2)", c.VALIDATION, decls).error is None
    # includes() is 1.37's: refused in 1.36 whatever else is declared
    refused = c.check_expression("[1, 2].includes(2)", c.VALIDATION, decls)
    assert "undeclared reference to 'includes'" in refused.error
    # params and authorizer are declared only where the apiserver declares them
    assert "undeclared reference to 'params'" in c.check_expression("params.x == 1", c.VALIDATION, decls).error
    message = c.Declarations(version="1.36", authorizer=False)
    text = "authorizer.path('/x').check('get').reason()"
    assert "undeclared reference to 'authorizer'" in c.check_expression(text, c.MESSAGE_EXPRESSION, message).error


def test_programs_run_where_they_were_checked():
    # a first evaluation builds one environment fewer: the checking one runs them
    decls = c.Declarations(version="1.34", variables=(("n", "INT"),))
    before = c._runtime_environment.cache_info()
    plain = c.compile_expression("variables.n + size(object.metadata.name) > 3", c.VALIDATION, decls)
    # request is typed where checked: such a program reads its JSON value from an activation there
    typed = c.compile_expression("request.operation == 'CREATE' && has(object.metadata)", c.VALIDATION,
                                 c.Declarations(version="1.34"))
    after = c._runtime_environment.cache_info()
    assert after.hits + after.misses == before.hits + before.misses  # no run-time environment asked for
    assert c.evaluate(plain, {"object": {"metadata": {"name": "web"}}}, _scope({"n": 1})) is True
    assert typed.typed_roots and not plain.typed_roots
    assert c.evaluate(typed, {"object": {"metadata": {}}, "request": {"operation": "CREATE"}}) is True
    assert c.evaluate(typed, c.Activation({"object": {"metadata": {}}, "request": {"operation": "DELETE"}})) is False
    with pytest.raises(c.EvaluationError, match="no such key: operation"):  # (no false operand to absorb it)
        c.evaluate(typed, {"object": {"metadata": {}}, "request": {}})
    assert c._runs_where_checked("object.x == 1", decls)
    assert c._runs_where_checked("request.name == 'x'", decls)
    # a variable of a type the engine hands over only as its own: where every root is dyn
    assert not c._runs_where_checked("variables.q", c.Declarations(variables=(("q", "kubernetes.Quantity"),)))


def _scope(values: dict) -> c.VariableScope:
    scope = c.VariableScope({}, {})
    scope._cache.update({k: library.to_engine(v) for k, v in values.items()})
    return scope
