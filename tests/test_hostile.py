"""A catalogue of hostile inputs: each is answered with a clear error within its bound, and the server
answers a normal evaluation right after.

The app runs as in production (evaluation workers with their time and memory bounds), with a short
time bound so that the inputs stopped by it keep the suite fast. Rate limits are off here; they have
their own tests (tests/test_ratelimit.py).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from app import create_app, examples, warm
from tests import hostile_inputs as h

TIMEOUT = 2.0
MEMORY_MB = 128
MARGIN = 3.0  # what a loaded machine may add to a bound before the answer is back
SCRIPT = "<script>alert(1)</script>"
ESCAPED_SCRIPT = "&lt;script&gt;alert(1)&lt;/script&gt;"
BREAKOUT = '"><img src=x onerror=alert(1)>'
HTMX = '<div hx-get="/" hx-trigger="load">'
PWNED = "/tmp/admission-playground-hostile-test"


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    app = create_app({
        "TESTING": True,
        "EVALUATION_ISOLATION": "process",
        "EVALUATION_TIMEOUT_SECONDS": TIMEOUT,
        "EVALUATION_MEMORY_MB": MEMORY_MB,
        "EVALUATION_SLOW_SECONDS": TIMEOUT,  # no lower priority here: a loaded test machine would starve it
        "RATE_LIMIT_ENABLED": False,
        "DATA_DIR": str(tmp_path_factory.mktemp("data")),
        "DATABASE_URL": "",
    })
    client = app.test_client()
    _healthy(client)  # the workers are up before the first timed case
    return client


@dataclass(frozen=True)
class Case:
    name: str
    send: Callable[[Any], Any]
    check: Callable[[Any], None]


def api(body: Any) -> Callable[[Any], Any]:
    return lambda client: client.post("/api/v1/evaluate", json=body)


def raw(data: bytes | str, content_type: str = "application/json", path: str = "/api/v1/evaluate"):
    return lambda client: client.post(path, data=data, content_type=content_type)


def page(form: dict[str, str], htmx: bool = True) -> Callable[[Any], Any]:
    headers = {"HX-Request": "true"} if htmx else {}
    return lambda client: client.post("/evaluate", data=form, headers=headers)


def problem(*needles: str) -> Callable[[Any], None]:
    """A 200 whose problems name the bound (or the error) in one message, at a pane."""

    def check(resp):
        assert resp.status_code == 200, resp.get_data(as_text=True)[:500]
        problems = resp.get_json()["problems"]
        assert any(all(n in p["message"] for n in needles) and p["pane"] for p in problems), problems

    return check


def error(status: int, *needles: str) -> Callable[[Any], None]:
    """An HTTP error with {"error": ...} naming the bound."""

    def check(resp):
        assert resp.status_code == status, resp.get_data(as_text=True)[:500]
        message = resp.get_json()["error"]
        assert all(n in message for n in needles), message

    return check


def either(*checks: Callable[[Any], None]) -> Callable[[Any], None]:
    def check(resp):
        failures = []
        for one in checks:
            try:
                one(resp)
                return
            except AssertionError as exc:
                failures.append(str(exc))
        raise AssertionError(" / ".join(failures))

    return check


def stopped(resp) -> None:
    """Stopped at the memory bound, or at the time bound on a slow machine: 422 naming the bound."""
    error(422, "(limit: PLAYGROUND_EVALUATION_")(resp)


def evaluated(predicate: Callable[[dict], bool]) -> Callable[[Any], None]:
    def check(resp):
        assert resp.status_code == 200, resp.get_data(as_text=True)[:500]
        assert predicate(resp.get_json()), json.dumps(resp.get_json())[:1000]

    return check


def escaped(raw_text: str, escaped_text: str, status: int = 200) -> Callable[[Any], None]:
    """The page shows the text, escaped: never as markup."""

    def check(resp):
        html = resp.get_data(as_text=True)
        assert resp.status_code == status, html[:500]
        assert raw_text not in html
        assert escaped_text in html

    return check


def _decisions(response: dict) -> list[dict]:
    return [d for p in response["policies"] for b in p["bindings"] for e in b["evaluations"] for d in e["decisions"]]


def _form(**panes: str) -> dict[str, str]:
    values = examples.default().form()
    values.update(panes)
    return values


def _policy_yaml(**overrides: Any) -> str:
    return json.dumps(h.policy(**overrides))


def _deep_json(depth: int) -> Any:
    value: Any = "leaf"
    for _ in range(depth):
        value = [value]
    return value


def _deep_block(depth: int) -> str:
    return "".join(f"{'  ' * i}k{i}:\n" for i in range(depth)) + "  " * depth + "v\n"


def _tagged() -> str:
    return f"kind: ConfigMap\ndata:\n  x: !!python/object/apply:os.system ['touch {PWNED}']\n"


def _no_side_effect(resp) -> None:
    assert resp.status_code == 200  # read as plain YAML: the tag builds nothing and runs nothing
    assert not os.path.exists(PWNED)


_denying_with = {
    "message": lambda text: h.scenario(h.policy(validations=[{"expression": "false", "message": text}])),
    "messageExpression": lambda text: h.scenario(h.policy(validations=[
        {"expression": "false", "messageExpression": json.dumps(text)}])),
}


def _annotating(text: str) -> dict[str, str]:
    pol = h.policy(validations=[{"expression": "false", "message": "m"}],
                   auditAnnotations=[{"key": "k", "valueExpression": json.dumps(text)}])
    return h.scenario(pol, h.binding(actions=("Warn", "Audit")))


CASES = [
    # YAML: bombs, depth, size
    Case("billion laughs", api({"policy": "", "params": h.billion_laughs()}), problem("PLAYGROUND_MAX_NODES")),
    Case("alias uses", api({"policy": "", "object": "a: &a x\n" + "\n".join(f"b{i}: *a" for i in range(150))}),
         problem("PLAYGROUND_MAX_ALIASES")),
    Case("recursive alias", api({"policy": "", "object": "a: &a [*a]"}), problem("PLAYGROUND_MAX_DEPTH")),
    # a scalar tagged "!" is the string it holds, as go-yaml reads it (PyYAML would resolve it as plain, and had no
    # boolean for a quoted "yes\n")
    Case("tagged quoted scalar", api({"policy": "", "object": (
        'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: default}\ndata: {a: ! "yes\\n", b: ! 12}\n')}),
         evaluated(lambda r: r["object"]["data"] == {"a": "yes\n", "b": "12"})),
    # a quantity longer than Python converts to an integer: the playground's own words, not a failure of Python's
    Case("quantity of 5,000 digits", api({"policy": "", "object": (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\nspec:\n  containers:\n"
        "  - {name: c, image: i, resources: {limits: {cpu: '" + "9" * 5000 + "'}}}\n")}),
        problem("a quantity of 5,000 digits: the playground reads quantities of at most")),
    Case("deep flow nesting", api({"policy": "[" * 10_000 + "]" * 10_000}), problem("PLAYGROUND_MAX_DEPTH")),
    Case("deep block nesting", api({"policy": "", "params": _deep_block(300)}), problem("PLAYGROUND_MAX_DEPTH")),
    Case("deep parsed JSON value", api({"policy": "", "object": {"kind": "ConfigMap", "data": _deep_json(500)}}),
         problem("PLAYGROUND_MAX_DEPTH")),
    Case("JSON body deeper than its decoder", raw("[" * 100_000 + "]" * 100_000), error(400, "nested too deeply")),
    Case("many documents", api({"policy": "", "params": "---\nkind: ConfigMap\n" * 510}),
         problem("PLAYGROUND_MAX_DOCUMENTS")),
    Case("kind: List of many items", api({"policy": "", "params": json.dumps(
        {"kind": "List", "items": [h.configmap(f"c{i}") for i in range(510)]})}), problem("PLAYGROUND_MAX_DOCUMENTS")),
    Case("huge string", api({"policy": "", "object": "data:\n  x: " + "y" * 300_000}),
         problem("PLAYGROUND_MAX_STRING_LENGTH")),
    Case("huge key", api({"policy": "", "object": {"data": {"k" * 300_000: "v"}}}),
         problem("PLAYGROUND_MAX_STRING_LENGTH")),
    Case("many values", api({"policy": "", "object": "[" + ",".join("1" for _ in range(60_000)) + "]"}),
         either(problem("PLAYGROUND_MAX_NODES"), stopped)),  # parsing 50,000 values may take the time bound
    Case("python object tag", api({"policy": "", "params": _tagged()}), _no_side_effect),
    Case("python name tag", api({"policy": "", "object": "x: !!python/name:os.system ''"}),
         problem("could not determine a constructor")),
    Case("body over the size limit", raw(json.dumps({"policy": "x" * (3 * 1024 * 1024)})),
         error(413, "larger than the limit of 3145728 bytes")),
    # text and types
    Case("malformed UTF-8 body", raw(b'{"policy": "\xff\xfe\xc3("}'), error(400, "must be JSON")),
    Case("lone surrogates", api({"policy": "", "object": h.configmap("\ud800", data={"\udfff": "\ud83d\ude00"})}),
         evaluated(lambda r: r["object"]["metadata"]["name"] == "\ufffd")),
    Case("control characters", api({"policy": "", "object": "a: b\nc: \x00\x07"}), problem("U+0000 is not allowed")),
    Case("body is a list", api([{"policy": ""}]), error(400, "must be a JSON object")),
    Case("body is null", raw("null"), error(400, "must be JSON")),
    Case("body is a string", api("policy: x"), error(400, "must be a JSON object")),
    Case("pane is a number", api({"policy": 12}), error(400, "'policy'")),
    Case("pane is a boolean", api({"policy": "", "object": True}), error(400, "'object'")),
    Case("version is an object", api({"policy": "", "kubernetesVersion": {"v": 1}}), error(400, "kubernetesVersion")),
    Case("integer beyond int64", api(h.scenario(h.policy(validations=[{"expression": "object.data.n > 0"}]),
                                                obj=h.configmap(data={"n": 10**30}))),
         evaluated(lambda r: not r["allowed"] or r["problems"])),
    # CEL
    Case("expression over the parser limit", api(h.scenario(h.policy(validations=[
        {"expression": "1 == 1" + " && true" * 12_500}]))), problem("limit", "100000")),
    Case("too many expressions", api(h.scenario(h.policy(validations=[{"expression": "true"}] * 1001))),
         problem("PLAYGROUND_MAX_EXPRESSIONS")),
    Case("exponential comprehension", api(h.exponential_comprehension()),
         evaluated(lambda r: any("cost budget" in (d["message"] or "") for d in _decisions(r)))),
    Case("string doubling", api(h.string_doubling()), stopped),
    Case("list doubling", api(h.list_doubling()), stopped),
    Case("nested maps", api(h.nested_maps()), stopped),
    Case("CPU for seconds", api(h.slow()), error(422, "(limit: PLAYGROUND_EVALUATION_TIMEOUT_SECONDS = 2)")),
    Case("regex backtracking pathology", api(h.scenario(h.policy(validations=[
        {"expression": f"'{'a' * 50_000}!'.matches('^(a+)+$')"}]))), evaluated(lambda r: r["allowed"] is False)),
    Case("regex program too large", api(h.scenario(h.policy(validations=[
        {"expression": "'a'.matches('((((a{100}){100}){100}){100})')"}]))), problem("spec.validations[0].expression")),
    Case("deeply nested expression", api(h.scenario(h.policy(validations=[
        {"expression": "(" * 2000 + "true" + ")" * 2000}]))), problem("spec.validations[0].expression")),
    # markup in every pane and in what the result echoes
    *[Case(f"script in the {pane} pane", page(_form(**{pane: f"x: 1\n</textarea>{SCRIPT}"}), htmx=False),
           escaped(f"</textarea>{SCRIPT}", f"&lt;/textarea&gt;{ESCAPED_SCRIPT}"))
      for pane in ("policy", "binding", "params", "object", "oldObject", "namespace", "request")],
    Case("script in a policy name", page(_form(policy=_policy_yaml(name=SCRIPT))), escaped(SCRIPT, ESCAPED_SCRIPT)),
    Case("script in a validation message", page(_denying_with["message"](SCRIPT)), escaped(SCRIPT, ESCAPED_SCRIPT)),
    Case("script from a messageExpression", page(_denying_with["messageExpression"](SCRIPT)),
         escaped(SCRIPT, ESCAPED_SCRIPT)),
    Case("attribute breakout in a binding name", page(_form(binding=json.dumps(h.binding(name=BREAKOUT)))),
         escaped(BREAKOUT, "&#34;&gt;&lt;img src=x onerror=alert(1)&gt;")),
    Case("htmx attributes in an audit annotation and a warning", page(_annotating(HTMX)),
         escaped('<div hx-get="/"', "&lt;div hx-get=&#34;/&#34;")),
    Case("script in the object's name and namespace", page(_form(object=json.dumps(h.configmap(SCRIPT, SCRIPT)))),
         escaped(SCRIPT, ESCAPED_SCRIPT)),
    Case("malformed UTF-8 in the form", raw(b"policy=%FF%FE&object=%C3%28", "application/x-www-form-urlencoded",
                                            "/evaluate"), lambda resp: resp.status_code == 200 or pytest.fail()),
    Case("too many form parts", lambda client: client.post(
        "/evaluate", data={f"f{i}": "x" for i in range(5000)}, content_type="multipart/form-data"),
         lambda resp: resp.status_code == 413 or pytest.fail()),
    # shared scenarios
    Case("billion laughs in a scenario file", raw(
        "apiVersion: playground.admission/v1\nkind: Scenario\nx: " + h.billion_laughs().replace("\n", "\n  "),
        "application/yaml", "/api/v1/scenarios/import"), error(400, "not a scenario file")),
    Case("deep nesting in a scenario file", raw("[" * 50_000 + "]" * 50_000, "application/yaml",
                                                "/api/v1/scenarios/import"),
         either(error(400, "not a scenario file"), stopped)),  # reading it may take the time bound
]


def _healthy(client) -> None:
    example = examples.default()
    resp = client.post("/api/v1/evaluate", json=warm.example_bodies()[0])
    assert resp.status_code == 200 and resp.get_json()["allowed"] is example.expect.allowed


def test_the_catalogue_is_large_enough():
    assert len(CASES) >= 30


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_hostile_input_is_answered_within_its_bound(client, case):
    started = time.monotonic()
    resp = case.send(client)
    assert time.monotonic() - started < TIMEOUT + MARGIN
    case.check(resp)
    _healthy(client)


def test_script_in_a_shared_snapshot_is_escaped(client):
    scenario = {"policy": _policy_yaml(name=SCRIPT), "object": json.dumps(h.configmap(SCRIPT))}
    shared = client.post("/api/v1/scenarios", json=scenario).get_json()
    resp = client.get(shared["url"])
    escaped(SCRIPT, ESCAPED_SCRIPT)(resp)
    _healthy(client)
