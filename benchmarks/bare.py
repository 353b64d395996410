"""The bare CEL engine: cel-expr-python on the same expressions and inputs, with nothing around it.

What "the bare engine's time for a scenario's expressions" is:

* the expressions are the scenario's: every expression of its policies (variables,
  matchConditions, validations, messageExpressions, auditAnnotations) is compiled, and each
  evaluation the playground made (:func:`benchmarks.core.capture`: once per binding and param, the
  messages of failed validations ...) is made again, with the expression's original text;
* the environment is the engine's own ``NewEnv`` with what those expressions need to compile: the
  Kubernetes version's extension configuration and library functions (``quantity()``, ``url()``
  ... are Python functions for both), and the variables ``object``, ``oldObject``, ``request``,
  ``namespaceObject``, ``params``, ``variables`` as ``dyn``, ``authorizer`` with its type;
* each evaluation is ``program.eval(data=...)``, the engine's own evaluation call, with the values
  the playground gave that evaluation, in full (``variables`` as a map of the values the playground
  computed; their own evaluations are in the list);
* **warm**: one round of the evaluations, programs compiled beforehand;
* **cold**: a new environment, ``compile`` of each expression, then the evaluations.

Not on the bare side: reading YAML, API validation, matching, params, the request, the apiserver's
result type and cost checks, error texts, result records. That is the playground's overhead, which
the ratios show.
"""

from __future__ import annotations

import time
from typing import Any

from cel_expr_python import cel

from app.vap.cel import library

ROOTS = ("object", "oldObject", "request", "namespaceObject", "params", "variables")


def new_environment(version: str) -> Any:
    variables: dict[str, Any] = dict.fromkeys(ROOTS, cel.Type.DYN)
    variables.update(library.authorizer_variables(version))
    return cel.NewEnv(
        descriptor_pool=library.descriptor_pool(),
        config=cel.NewEnvConfigFromYaml(library.environment_yaml(version)),
        variables=variables,
        functions=library.function_decls(version),
        extensions=library.extensions(version),
    )


def compile_all(env: Any, expressions: list[str]) -> dict[str, Any]:
    """Compile each expression; one the engine refuses maps to None (never evaluated)."""
    programs: dict[str, Any] = {}
    for expression in expressions:
        try:
            programs[expression] = env.compile(expression)
        except Exception:  # a compile error: the playground reports it, there is nothing to evaluate
            programs[expression] = None
    return programs


class Bare:
    """The bare engine on one scenario's expressions and inputs."""

    def __init__(self, version: str, expressions: list[str], inputs: list[tuple[str, dict[str, Any]]]) -> None:
        self.version = version
        self.expressions = list(dict.fromkeys([*expressions, *(e for e, _ in inputs)]))
        self.inputs = inputs
        self.programs = compile_all(new_environment(version), self.expressions)

    @property
    def refused(self) -> list[str]:
        """Expressions the bare environment cannot compile (a compile error in the scenario, usually)."""
        return [e for e, p in self.programs.items() if p is None]

    def _eval_all(self, programs: dict[str, Any]) -> None:
        for expression, data in self.inputs:
            program = programs[expression]
            if program is not None:
                try:
                    program.eval(data=data)
                except Exception:  # the engine raises some evaluation errors (its own limits, a library
                    pass  # function it cannot bind): it did the evaluation's work all the same

    def warm_once(self) -> float:
        start = time.perf_counter()
        self._eval_all(self.programs)
        return time.perf_counter() - start

    def cold_once(self) -> float:
        start = time.perf_counter()
        programs = compile_all(new_environment(self.version), self.expressions)
        self._eval_all(programs)
        return time.perf_counter() - start
