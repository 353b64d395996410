"""The README and docs/ stay true: the README is a short front door, every link and file name in the docs
points at something in the repository, the limits table says what the code's defaults are, and the benchmark
results in docs/benchmark.md are those of benchmarks/results.json."""

from __future__ import annotations

import glob
import json
import re
from pathlib import Path

import pytest

from benchmarks import report

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
PAGES = [README, *DOCS]

INSTALL_AND_SERVE = "python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/admission-playground serve"
TEST = "scripts/test"


def test_the_readme_is_under_8_kib():
    assert len(README.read_bytes()) < 8192


def test_the_readme_gives_the_two_commands_before_anything_else():
    text = README.read_text()
    blocks = re.findall(r"```sh\n(.*?)```", text, re.S)
    assert [b.strip() for b in blocks[:2]] == [INSTALL_AND_SERVE, TEST]
    first_section = text.index("\n## ")
    assert text.index(INSTALL_AND_SERVE) < text.index("```sh\n" + TEST) < first_section


def test_the_readme_links_every_page_of_the_docs():
    text = README.read_text()
    for page in DOCS:
        assert f"(docs/{page.name})" in text, page.name


def _slug(heading: str) -> str:
    """The anchor GitHub gives a heading."""
    text = re.sub(r"[`*]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
    return {_slug(m) for m in re.findall(r"^#+ (.+)$", text, re.M)}


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_every_link_points_at_a_file_and_heading_of_the_repository(page):
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue  # an address on the web
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        assert linked.exists(), f"{page.name}: {target}"
        assert linked.is_relative_to(ROOT), f"{page.name}: {target} is outside the repository"
        if anchor:
            assert anchor in _anchors(linked), f"{page.name}: no heading #{anchor} in {linked.name}"


REPO_PATH = re.compile(r"`((?:app|tests|scripts|benchmarks|docs|templates|static|\.ci)/[^`\s]*)`")


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_every_file_the_docs_name_exists(page):
    for name in REPO_PATH.findall(page.read_text()):
        name = name.rstrip(".,;:")
        package = ROOT / name.removesuffix(".py") / "__init__.py"  # a module that became a package is still there
        assert glob.glob(str(ROOT / name)) or (name.endswith(".py") and package.exists()), \
            f"{page.name} names {name}, which is not in the repository"


# Documents this project does not hold, which its files must therefore not cite (spelt in pieces, so that
# this file does not cite them either).
OUTSIDE = re.compile("|".join([
    r"semantics" + r"\.md", r"[Ss]emantics" + r" (§|\d)", r"DES" + r"IGN", r"style" + r"\.md", r"\.\./" + r"shared",
    r"cel-" + r"engines",
]))


def _our_files() -> list[Path]:
    files = [README, *DOCS]
    for folder in ("tests", "benchmarks", "scripts", "templates"):
        files += [p for p in (ROOT / folder).rglob("*") if p.is_file() and p.suffix in
                  {".py", ".yaml", ".yml", ".md", ".html", ".sh", ""} and "__pycache__" not in p.parts]
    return sorted(set(files))


def test_nothing_cites_a_document_outside_the_repository():
    found = []
    for path in _our_files():
        try:
            text = path.read_text()
        except UnicodeDecodeError:
            continue
        for n, line in enumerate(text.splitlines(), 1):
            if OUTSIDE.search(line):
                found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not found, "\n".join(found)


def _config_defaults() -> dict[str, object]:
    from app import isolation, ratelimit
    from app.vap.limits import Limits

    return {**Limits().as_config(), **isolation.CONFIG_DEFAULTS, **ratelimit.CONFIG_DEFAULTS}


def _documented_defaults() -> dict[str, str]:
    """`PLAYGROUND_<NAME>` -> its default, from the tables of docs/limits.md (`X_PER_MINUTE` / `_BURST` rows
    give both)."""
    out = {}
    for variables, default in re.findall(r"^\| (`PLAYGROUND_[^|]+) \| ([^|]+) \|", (ROOT / "docs" / "limits.md")
                                         .read_text(), re.M):
        names = re.findall(r"`(_?[A-Z_]+)`", variables)
        values = [v.strip().strip("`") for v in default.split(" / ")]
        full = [names[0]] + [names[0].rsplit("_PER_MINUTE", 1)[0] + n for n in names[1:]]
        out.update(zip((n.removeprefix("PLAYGROUND_") for n in full), values, strict=True))
    return out


def _same(code: object, documented: str) -> bool:
    if isinstance(code, bool):
        return documented == str(code).lower()
    if isinstance(code, (int, float)):
        return float(documented.replace(",", "")) == float(code)
    return documented == str(code)


def test_the_limits_page_documents_every_limit_with_its_default():
    documented = _documented_defaults()
    for name, value in _config_defaults().items():
        assert name in documented, f"docs/limits.md does not document PLAYGROUND_{name}"
        assert _same(value, documented[name]), f"PLAYGROUND_{name}: the code says {value}, the docs {documented[name]}"


def test_the_benchmark_results_are_made_from_the_results_file():
    page = (ROOT / "docs" / "benchmark.md").read_text()
    expected = report.update(page, json.loads((ROOT / "benchmarks" / "results.json").read_text()))
    assert page == expected, "docs/benchmark.md is not what `python -m benchmarks.report` makes: run it"


def test_the_report_check_fails_on_a_stale_page(tmp_path):
    results = json.loads((ROOT / "benchmarks" / "results.json").read_text())
    page = tmp_path / "benchmark.md"
    page.write_text(f"# Benchmark\n\n{report.START}\nan old table\n{report.END}\n\nnotes\n")
    data = tmp_path / "results.json"
    data.write_text(json.dumps(results))
    assert report.main(["--json", str(data), "--docs", str(page), "--check"]) == 1
    assert report.main(["--json", str(data), "--docs", str(page)]) == 0
    assert report.main(["--json", str(data), "--docs", str(page), "--check"]) == 0
    text = page.read_text()
    assert "an old table" not in text and text.endswith(f"{report.END}\n\nnotes\n")
    assert "| replica-limit |" in text
