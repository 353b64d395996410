"""The tag every YAML node of a pane is given: the loaders' own resolver (app/vap/documents.py) answers as
PyYAML's resolver does, asked the same question for every node of every pane text the repository holds and
of scalars YAML 1.1 reads as something other than a string."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
import yaml

from app import examples
from app.vap import documents, limits

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# scalars YAML 1.1 reads as booleans, nulls, numbers, merge and value keys, or that look like them
TRICKY = ["yes", "Yes", "YES", "No", "no", "on", "OFF", "y", "n", "true", "False", "~", "null", "Null", "NULL",
          "nULL", "", "0x1F", "-0x1_F", "0b101", "0o17", "0777", "1_000", "+12", "-0", "1:20", "190:20:30", "1:61",
          "1.5", "1e3", "1.0e+3", ".5", "._", ".", "-", "+", ".inf", "-.Inf", "+.INF", ".nan", ".NaN",
          "2001-12-14", "2001-12-14t21:59:43.10-05:00", "=", "<<", "<<<", "==", "~~", "yes please", "0x", "12abc"]
SCALAR_FORMS = ["{}", "'{}'", '"{}"', "!!str {}", "! {}", "!!int {}", "!foo {}", "|\n  {}\n", ">-\n  {}\n"]


def _pane_texts(value: Any) -> Iterator[str]:
    """The multi-line strings of a fixture: the pane texts a table test or an example gives."""
    if isinstance(value, str):
        if "\n" in value:
            yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _pane_texts(item)
    elif isinstance(value, list):
        for item in value:
            yield from _pane_texts(item)


def _corpus() -> list[str]:
    texts: list[str] = []
    for folder in ("tests", "app"):
        for directory, _, names in os.walk(os.path.join(ROOT, folder)):
            for name in sorted(names):
                if name.endswith((".yaml", ".yml", ".json")):
                    with open(os.path.join(directory, name), encoding="utf-8") as f:
                        text = f.read()
                    texts.append(text)
                    try:
                        texts.extend(_pane_texts(list(yaml.safe_load_all(text))))
                    except yaml.YAMLError:
                        pass
    for example in examples.all_examples():
        texts.extend(v for v in example.form().values() if isinstance(v, str))
    for scalar in TRICKY:
        for form in SCALAR_FORMS:
            written = form.format(scalar)
            texts += [written, f"key: {written}\n", f"- {written}\n", f"[{written}, [{written}]]\n"]
        texts += [f"{scalar}: value\n", f"{{{scalar}: {scalar}}}\n", f"? {scalar}\n: {scalar}\n"]
    texts += ["!!seq [a]\n", "! [a]\n", "!!map {a: 1}\n", "! {a: 1}\n", "!foo [a]\n", "a: &x 1\nb: *x\n",
              "base: &b {x: 1}\nuse:\n  <<: *b\n  =: 2\n", "--- a\n--- !!str b\n...\n---\n"]
    return list(dict.fromkeys(texts))


CORPUS = _corpus()
UNBOUNDED = limits.Limits(max_documents=10**9, max_depth=10**9, max_nodes=10**9, max_aliases=10**9,
                          max_string_length=10**9)


def _loaders() -> list[type]:
    loaders: list[type] = [documents._Loader]
    if documents._CParser is not None:
        loaders += [documents._FastLoader, documents._ComposedLoader]
    return loaders


def _checking(loader: type, asked: list[tuple[Any, ...]]) -> type:
    """The loader, its resolver's every answer compared with the answer of PyYAML's own resolver."""

    class Checking(loader):  # type: ignore[misc,valid-type]
        def resolve(self, kind: type[yaml.Node], value: Any, implicit: Any) -> Any:
            tag = super().resolve(kind, value, implicit)
            # (a scalar tagged "!" alone, which a Python composer marks: a string, as go-yaml reads it)
            expected = "tag:yaml.org,2002:str" if self._bare_tag else yaml.resolver.Resolver.resolve(
                self, kind, value, implicit)
            asked.append((kind, value, implicit, tag, expected))
            return tag

    return Checking


@pytest.mark.parametrize("loader", _loaders(), ids=lambda loader: loader.__name__)
def test_every_node_gets_the_tag_pyyaml_s_resolver_gives_it(loader):
    assert not loader.yaml_path_resolvers  # (the loaders' resolver keeps no state along the path to a node)
    asked: list[tuple[Any, ...]] = []
    checking = _checking(loader, asked)
    for text in CORPUS:
        try:
            composer = checking(text, limits.Usage(UNBOUNDED))
        except yaml.YAMLError:  # (a character YAML does not allow, found before parsing)
            continue
        try:
            while composer.check_node():
                composer.get_node()
        except yaml.YAMLError:
            pass  # the nodes composed before the error were compared
        finally:
            composer.dispose()
    different = [(kind.__name__, value, implicit, tag, expected)
                 for kind, value, implicit, tag, expected in asked if tag != expected]
    assert different == []
    answers = {(kind, value, implicit): tag for kind, value, implicit, tag, _ in asked}
    assert len(asked) > 50_000
    # not every tag the same: the corpus reaches each implicit resolver, strings and collections
    assert {tag for tag in answers.values()} >= {
        f"tag:yaml.org,2002:{name}" for name in ("str", "int", "float", "bool", "null", "merge", "value", "seq", "map")}
    assert answers[(yaml.ScalarNode, "2001-12-14", (True, False))] == "tag:yaml.org,2002:str"  # dates stay text
    assert answers[(yaml.ScalarNode, "12", (True, False))] == "tag:yaml.org,2002:int"  # `12`, and `! 12` composed in C


class _PyYAML(yaml.SafeLoader):
    """PyYAML's safe loader with the loaders' implicit resolvers (no timestamps)."""

    yaml_implicit_resolvers = documents._IMPLICIT_RESOLVERS


def _pyyaml(loader: type) -> type:
    """PyYAML's own loader reading the text as the loader does: with libyaml's parser when the loader uses it
    (the two parsers differ on a few texts: libyaml reads `! ` as an empty string, PyYAML's parser as null)."""
    if documents._CParser is not None and issubclass(loader, documents._CParser):

        class PyYAMLWithLibyaml(yaml.CSafeLoader):  # type: ignore[misc,name-defined]
            yaml_implicit_resolvers = documents._IMPLICIT_RESOLVERS

        return PyYAMLWithLibyaml
    return _PyYAML


def _tags(node: yaml.Node | None) -> list[Any]:
    if isinstance(node, yaml.MappingNode):
        return [node.tag, [(_tags(key), _tags(value)) for key, value in node.value]]
    if isinstance(node, yaml.SequenceNode):
        return [node.tag, [_tags(item) for item in node.value]]
    return [node.tag, node.value] if node is not None else [None]


@pytest.mark.parametrize("loader", _loaders()[1:], ids=lambda loader: loader.__name__)
def test_documents_composed_on_libyaml_are_tagged_as_pyyaml_tags_them(loader):
    """Every node the loaders reading with libyaml compose has the tag PyYAML's own loader on libyaml gives it
    (composed in C, the composer's calls to the resolver are not seen)."""
    pyyaml = _pyyaml(loader)
    for text in CORPUS:
        if loader is documents._FastLoader and documents._BARE_TAG.search(text):
            continue  # a scalar tagged "!" is a string there, where PyYAML resolves it (the tests below)
        try:
            expected = [_tags(node) for node in yaml.compose_all(text, Loader=pyyaml)]
        except yaml.YAMLError:
            continue
        composer = loader(text, limits.Usage(UNBOUNDED))
        try:
            got = []
            while composer.check_node():
                got.append(_tags(composer.get_node()))
        finally:
            composer.dispose()
        assert got == expected, text


@pytest.mark.parametrize("padding", [0, documents._COMPOSED_IN_C])
def test_a_scalar_tagged_with_a_bare_exclamation_mark_is_the_string_it_holds(padding):
    # go-yaml resolves no tag but the core schema's and "": a scalar tagged "!" keeps its text, quoted or plain
    # (PyYAML resolves it as an untagged plain scalar: 12 an integer, "yes\n" a boolean it has no value for).
    # A small pane is composed in C, a large one in Python: both read it so.
    text = ('a: ! "yes\\n"\nb: ! "12\\n"\nc: ! 12\nd: [! true, true, ! ~]\ne: {k: ! 1.5}\nf: "hi!"\ng: 7\n'
            + "# " + "x" * padding + "\n")
    docs, problems = documents.load_pane("object", text)
    assert problems == []
    assert docs[0].value == {"a": "yes\n", "b": "12\n", "c": "12", "d": ["true", True, "~"], "e": {"k": "1.5"},
                             "f": "hi!", "g": 7}


def test_the_python_loader_reads_a_bare_tag_as_the_fast_ones_do():
    text = 'a: ! 12\nb: [! null, 3]\n'
    for loader in _loaders()[:2]:
        assert yaml.load(text, Loader=lambda s, loader=loader: loader(s)) == {"a": "12", "b": ["null", 3]}, loader


@pytest.mark.parametrize("padding", [0, documents._COMPOSED_IN_C])
def test_a_key_read_as_a_boolean_is_written_as_kubectl_writes_it_and_a_null_key_is_refused(padding):
    # sigs.k8s.io/yaml turns a boolean key into "true" or "false" and refuses a null one ("unsupported map key")
    text = "yes: 1\noff: 2\n0x10: 3\n" + "# " + "x" * padding + "\n"
    docs, problems = documents.load_pane("object", text)
    assert problems == [] and docs[0].value == {"true": 1, "false": 2, "16": 3}
    docs, problems = documents.load_pane("object", "a: 1\nb:\n  ~: 2\n" + "# " + "x" * padding + "\n")
    assert docs == [] and [(p.line, p.column, p.message) for p in problems] == [
        (3, 3, "invalid YAML or JSON: line 3, column 3: a mapping key must not be null")]


def test_a_whole_float_of_a_yaml_document_is_the_integer_the_apiserver_gets_and_a_json_documents_stays_a_float():
    # go-yaml reads 3.0 as a float64, which turned into JSON (by kubectl, or by the apiserver for a YAML body) is
    # written 3 and read back as an integer; one of 1e21 and over is written with an exponent and stays a float.
    # A JSON body's 3.0 is decoded as written.
    docs, problems = documents.load_pane(
        "object", "a: 3.0\nb: 1.5\nc: -0.0\nd: 1.0e+25\ne: !!float 7\nf: [2.0, 2.5]\n3.0: key\n")
    assert problems == []
    assert docs[0].value == {"a": 3, "b": 1.5, "c": 0, "d": 1e25, "e": 7, "f": [2, 2.5], "3": "key"}
    assert [type(docs[0].value[k]) for k in "abcde"] == [int, float, int, float, int]
    docs, _ = documents.load_pane("object", '{"a": 3.0, "b": 2}\n')
    assert docs[0].value == {"a": 3.0, "b": 2} and type(docs[0].value["a"]) is float


def test_a_replica_count_written_as_a_whole_float_is_admitted_as_an_integer():
    from app.vap import evaluate

    body = {"policy": ("apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\n"
                       "metadata: {name: p}\nspec:\n  matchConstraints:\n    resourceRules:\n"
                       "    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}\n"
                       "  validations:\n  - expression: type(object.spec.replicas) == int\n"),
            "binding": "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\n"
                       "metadata: {name: p}\nspec: {policyName: p, validationActions: [Deny]}\n",
            "object": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: default}\nspec:\n"
                      "  replicas: 3.0\n  selector: {matchLabels: {app: a}}\n  template:\n"
                      "    metadata: {labels: {app: a}}\n    spec: {containers: [{name: c, image: i}]}\n"}
    answer = evaluate(body)
    assert answer["allowed"] is True and answer["object"]["spec"]["replicas"] == 3
