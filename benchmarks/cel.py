"""Compile and evaluation time of a fixed set of CEL expressions in the Kubernetes environment.

Run: ``python -m benchmarks.cel [--version 1.34] [--repeat 200]``. For each expression it prints the
median compile time (engine compile + the apiserver's extra AST checks + the library's rewriting of
the checked AST), evaluation time (one ``eval`` with a fresh activation, as the adapter does),
cost-estimate time, and the estimated cost.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from cel_expr_python import cel

from app.vap.cel import library

POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "web-0", "namespace": "default", "labels": {"app": "web", "tier": "frontend"}},
    "spec": {
        "containers": [
            {
                "name": f"c{i}",
                "image": f"registry.example.com/team/app{i}:1.{i}.0",
                "resources": {"limits": {"memory": f"{128 * (i + 1)}Mi", "cpu": "500m"}},
                "ports": [{"containerPort": 8080 + i}],
            }
            for i in range(10)
        ],
        "hostNetwork": False,
    },
}
ITEMS = {"items": list(range(1000))}

EXPRESSIONS: list[tuple[str, str, dict]] = [
    ("simple field", "object.metadata.name.startsWith('web')", {"object": POD}),
    ("has + labels", "has(object.metadata.labels) && object.metadata.labels['app'] == 'web'", {"object": POD}),
    (
        "containers.all",
        "object.spec.containers.all(c, c.image.startsWith('registry.example.com/') && has(c.resources.limits))",
        {"object": POD},
    ),
    (
        "quantity limits",
        "object.spec.containers.all(c, quantity(c.resources.limits.memory).isLessThan(quantity('2Gi')))",
        {"object": POD},
    ),
    ("regex find", "object.spec.containers.map(c, c.image.find('[0-9]+\\\\.[0-9]+')).size() == 10", {"object": POD}),
    ("url getters", "url('https://example.com:8443/a/b?x=1').getPort() == '8443'", {}),
    ("cidr contains", "cidr('10.0.0.0/8').containsIP('10.1.2.3') && ip('::1').isLoopback()", {}),
    ("lists sum/max", "object.items.sum() > 0 && object.items.max() == 999", {"object": ITEMS}),
    ("map/filter 1000", "object.items.map(x, x * 2).filter(x, x % 3 == 0).size() > 0", {"object": ITEMS}),
    ("optional chain", "object.?spec.?hostNetwork.orValue(false) == false", {"object": POD}),
    ("format validate", "!format.dns1123Label().validate(object.metadata.name).hasValue()", {"object": POD}),
    ("format orValue", "format.named('dns1123Label').orValue(format.uuid()).validate('a.b').orValue([]).size() == 1",
     {}),
    ("quantity ==", "object.spec.containers.exists(c, quantity(c.resources.limits.cpu) == quantity('0.5'))",
     {"object": POD}),
    ("semver", "semver('1.2.3').isLessThan(semver('1.10.0'))", {}),
    ("authorizer", "authorizer.group('apps').resource('deployments').check('create').allowed() == false", {}),
]


def _median_us(fn: Callable[[], object], repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1e6


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--version", default=library.DEFAULT_VERSION, choices=library.SUPPORTED_VERSIONS)
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args(argv)

    variables = {"object": cel.Type.DYN, **library.authorizer_variables(args.version)}
    start = time.perf_counter()
    env = cel.NewEnv(
        descriptor_pool=library.descriptor_pool(),
        config=cel.NewEnvConfigFromYaml(library.environment_yaml(args.version)),
        variables=variables,
        functions=library.function_decls(args.version),
        extensions=library.extensions(args.version),
    )
    print(f"Kubernetes {args.version} environment built in {(time.perf_counter() - start) * 1e3:.1f} ms")
    authz = library.authorizer_activation({}, {"username": "bench"})

    header = f"{'expression':<18} {'compile µs':>11} {'eval µs':>10} {'cost µs':>9} {'cost':>9}  result"
    print(header)
    print("-" * len(header))
    for name, expr, data in EXPRESSIONS:
        activation = {**data, **authz}

        def compile_once(expr: str = expr) -> tuple[object, object]:
            checked = env.compile(expr)
            library.check_expression(checked, expr, args.version)
            return checked, library.rewrite(checked, env.deserialize)

        checked, program = compile_once()
        compile_us = _median_us(compile_once, args.repeat)
        eval_us = _median_us(lambda p=program, a=activation: p.eval(data=a), args.repeat)
        with library.track_cost() as tracker:
            result = program.eval(data=activation)
        cost_us = _median_us(lambda p=checked, a=activation: library.expression_cost(p, a, tracker), args.repeat)
        cost = library.expression_cost(checked, activation, tracker).total
        value = result.value() if result.type().name() == "ERROR" else result.plain_value()
        print(f"{name:<18} {compile_us:>11.1f} {eval_us:>10.1f} {cost_us:>9.1f} {cost:>9}  {str(value)[:40]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
