"""The built distribution: an installed wheel serves the full playground from outside the checkout.

The test copies the checkout's sources to a temporary folder, builds an sdist there, builds the wheel from the
unpacked sdist (so the sdist must be complete too), installs the wheel into a fresh virtual environment outside
the checkout and runs the installed ``admission-playground serve`` from a folder outside the checkout. Nothing is
downloaded: the build uses this environment's setuptools, and the fresh environment reaches the dependencies
through a ``.pth`` line naming this environment's site-packages (a plain path line: the ``.pth`` files there, the
editable install's finder among them, are not run, so the checkout stays out of reach; the test checks that).
"""

from __future__ import annotations

import http.client
import importlib.metadata
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
import tarfile
import time
import tomllib
import urllib.error
import urllib.request
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from tests.conftest import fixture_path

ROOT = Path(__file__).resolve().parent.parent
# What a build reads: the package, the page's files, the build configuration. Copied if present.
SOURCES = ("app", "templates", "static", "pyproject.toml", "setup.py", "MANIFEST.in", "README.md")
REPLICA = ("policy", "binding", "params", "namespace", "object")
BUILD_TIMEOUT = 120


def _files(top: Path) -> set[str]:
    """The files under top, relative to it, without Python's caches."""
    return {p.relative_to(top).as_posix() for p in top.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"}


def _run(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=BUILD_TIMEOUT)
    assert done.returncode == 0, f"{cmd} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def _clean_env(**extra: str) -> dict[str, str]:
    """The environment without anything that would point Python or the playground elsewhere."""
    drop = ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONUSERBASE", "VIRTUAL_ENV", "DATA_DIR", "DATABASE_URL")
    env = {k: v for k, v in os.environ.items() if k not in drop and not k.startswith("PLAYGROUND_")}
    env.update(PYTHONNOUSERSITE="1", **extra)
    return env


def _require_build_backend() -> None:
    """The build runs this environment's build backend: it must be the one pyproject.toml asks for."""
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]["requires"]
    for requirement in map(Requirement, requires):
        try:
            version = importlib.metadata.version(requirement.name)
        except importlib.metadata.PackageNotFoundError:
            version = None
        assert version is not None and requirement.specifier.contains(version, prereleases=True), (
            f"building needs {requirement} in this environment (the test extra: pip install -e '.[test]'), "
            f"found {version}")


@dataclass
class Built:
    sdist: Path
    wheel: Path
    venv: Path
    site_packages: Path
    workdir: Path


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """Build the sdist and the wheel, install the wheel into a fresh venv; all in a temporary folder."""
    _require_build_backend()
    tmp = tmp_path_factory.mktemp("packaging").resolve()
    assert not tmp.is_relative_to(ROOT)
    src = tmp / "src"
    src.mkdir()
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        elif (ROOT / name).is_file():
            shutil.copy2(ROOT / name, src / name)

    dist = tmp / "dist"
    hook = "import sys; from setuptools import build_meta; print(build_meta.build_sdist(sys.argv[1]))"
    sdist = dist / _run([sys.executable, "-c", hook, str(dist)], cwd=src).strip().splitlines()[-1]
    unpacked = tmp / "unpacked"
    with tarfile.open(sdist) as tar:
        tar.extractall(unpacked, filter="data")
    [sdist_top] = unpacked.iterdir()
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
          "--wheel-dir", str(dist), str(sdist_top)], cwd=tmp)
    [wheel] = dist.glob("*.whl")

    venv = tmp / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], cwd=tmp)
    python = venv / "bin" / "python"
    # Install first, while the fresh venv sees nothing else: pip must not find (and replace) this
    # environment's editable install.
    _run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index",
          "--disable-pip-version-check", str(wheel)], cwd=tmp)
    site_packages = Path(_run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                              cwd=tmp, env=_clean_env()).strip())
    (site_packages / "playground-test-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    workdir = tmp / "work"
    workdir.mkdir()
    return Built(sdist=sdist, wheel=wheel, venv=venv, site_packages=site_packages, workdir=workdir)


def _page_files() -> set[str]:
    return {f"templates/{f}" for f in _files(ROOT / "templates")} | {f"static/{f}" for f in _files(ROOT / "static")}


def _package_data() -> set[str]:
    """The files in app/ that are not Python: what the package reads at run time."""
    return {f"app/{f}" for f in _files(ROOT / "app") if not f.endswith(".py")}


def test_the_sdist_carries_the_page_and_the_package_data(built: Built) -> None:
    with tarfile.open(built.sdist) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    missing = (_page_files() | _package_data() | {"pyproject.toml", "README.md"}) - names
    assert not missing, sorted(missing)


def test_the_wheel_carries_the_templates_static_files_and_package_data(built: Built) -> None:
    with zipfile.ZipFile(built.wheel) as whl:
        names = set(whl.namelist())
    expected = {f"app/{f}" for f in _page_files()} | _package_data()
    assert _page_files() and _package_data()
    missing = expected - names
    assert not missing, sorted(missing)
    # Only the package (and its metadata) is installed: no top-level templates/ or static/ in site-packages.
    assert {n.split("/", 1)[0] for n in names if not n.split("/", 1)[0].endswith(".dist-info")} == {"app"}


def test_the_fresh_venv_imports_the_installed_copy_not_the_checkout(built: Built) -> None:
    probe = (
        "import json, sys, app, importlib.metadata as md\n"
        "print(json.dumps({'file': app.__file__, 'path': sys.path,\n"
        "                  'finders': [type(f).__module__ + '.' + getattr(f, '__name__', type(f).__name__)\n"
        "                              for f in sys.meta_path],\n"
        "                  'dist': str(md.distribution('admission-playground').locate_file(''))}))\n"
    )
    seen = json.loads(_run([str(built.venv / "bin" / "python"), "-c", probe], cwd=built.workdir, env=_clean_env()))
    assert Path(seen["file"]).resolve() == (built.site_packages / "app" / "__init__.py").resolve()
    assert Path(seen["dist"]).resolve() == built.site_packages.resolve()
    assert str(ROOT) not in seen["path"] and str(ROOT / "app") not in seen["path"]
    assert not [f for f in seen["finders"] if "editable" in f.lower()], seen["finders"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Server:
    url: str
    log: Path


@pytest.fixture(scope="module")
def server(built: Built) -> Iterator[Server]:
    """The installed console script's server, started from a folder outside the checkout."""
    port = _free_port()
    log = built.workdir / "server.log"
    # PYTHONVERBOSE makes every process of the server log each module it imports, with its file.
    # HOME: gunicorn keeps its control socket there.
    env = _clean_env(DATA_DIR=str(built.workdir / "data"), HOME=str(built.workdir), PYTHONVERBOSE="1")
    with open(log, "wb") as out:
        proc = subprocess.Popen([str(built.venv / "bin" / "admission-playground"), "serve", "--port", str(port)],
                                cwd=built.workdir, env=env, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 45
        while True:
            assert proc.poll() is None, f"the server exited ({proc.returncode}):\n{log.read_text()[-4000:]}"
            try:
                with urllib.request.urlopen(url + "/", timeout=30):
                    break
            except urllib.error.URLError as exc:
                if not isinstance(exc.reason, ConnectionRefusedError):
                    break  # it answers (an error page or a dropped connection: the tests show which)
            except (ConnectionError, http.client.HTTPException):
                break
            assert time.monotonic() < deadline, f"the server did not listen:\n{log.read_text()[-4000:]}"
            time.sleep(0.2)
        yield Server(url=url, log=log)
    finally:
        _stop(proc)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """Stop the server's process group (gunicorn, its worker, the evaluation workers)."""
    for sig, wait in ((signal.SIGTERM, 20), (signal.SIGKILL, 10)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            pass  # the whole group has exited already
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def _get(url: str) -> tuple[int, str, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=30) as resp:
            return resp.status, resp.headers.get("Content-Type", ""), resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers.get("Content-Type", ""), exc.read()


def test_the_installed_server_serves_the_page_with_its_editor_panes(server: Server) -> None:
    status, ctype, body = _get(server.url + "/")
    assert status == 200 and ctype.startswith("text/html")
    page = body.decode()
    for pane in REPLICA:
        assert f'<textarea id="pane-{pane}" name="{pane}" data-editor="{pane}"' in page
    assert 'id="gallery"' in page and "<li><a href=" in page  # the example gallery, read from the package data


def test_the_installed_server_serves_every_static_file_the_page_links(server: Server) -> None:
    page = _get(server.url + "/")[2].decode()
    linked = set(re.findall(r'(?:href|src)="(/static/[^"?]+)', page))
    assert "/static/style.css" in linked
    assert any(re.fullmatch(r"/static/vendor/htmx-[\d.]+\.js", u) for u in linked), linked
    assert any(u.startswith("/static/vendor/codemirror-") for u in linked), linked
    for path in sorted(linked):
        status, ctype, body = _get(server.url + path)
        assert status == 200, path
        assert body == (ROOT / path.lstrip("/")).read_bytes(), path
        if path.endswith(".css"):
            assert ctype.startswith("text/css"), (path, ctype)
        if path.endswith(".js"):
            assert "javascript" in ctype, (path, ctype)


def test_the_installed_server_renders_its_error_page_and_the_workshop(server: Server) -> None:
    status, ctype, body = _get(server.url + "/workshop/no-such-exercise")
    assert status == 404 and ctype.startswith("text/html")
    assert b"/static/style.css" in body and b"no-such-exercise" in body  # the error page, not werkzeug's bare one
    status, _, body = _get(server.url + "/workshop/")
    assert status == 200 and b"/workshop/" in body  # the exercises, read from the package data


def test_the_installed_server_evaluates(server: Server) -> None:
    payload = {pane: Path(fixture_path("replica-limit", f"{pane}.yaml")).read_text() for pane in REPLICA}
    req = urllib.request.Request(server.url + "/api/v1/evaluate", data=json.dumps(payload).encode(),
                                 headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(req, timeout=60) as resp:
        assert resp.status == 200
        data = json.load(resp)
    assert data["allowed"] is False
    assert data["status"]["code"] == 422
    assert data["problems"] == []


def test_the_server_imported_the_installed_copy(built: Built, server: Server) -> None:
    # Every process of the server (gunicorn, its worker, the evaluation fork server) logged its imports.
    log = server.log.read_text(errors="replace")
    loaded = set(re.findall(r"^# code object from '?([^'\n]+?)'?$", log, flags=re.M))
    installed = str(built.site_packages / "app") + os.sep
    from_installed = sorted(p for p in loaded if p.startswith(installed))
    assert any(re.search(r"/app/(__pycache__/)?__init__\.(cpython-\d+\.pyc|py)$", p) for p in from_installed), loaded
    assert any("/app/vap/" in p for p in from_installed), from_installed
    from_checkout = sorted(p for p in loaded if p.startswith(str(ROOT / "app") + os.sep))
    assert not from_checkout, from_checkout[:10]


def test_the_dockerfile_installs_a_built_wheel_not_the_checkout() -> None:
    text = (ROOT / "Dockerfile").read_text()
    instructions = [line.strip() for line in re.sub(r"\\\n", " ", text).splitlines()
                    if line.strip() and not line.lstrip().startswith("#")]
    assert not [i for i in instructions if re.search(r"pip3? install\b.*(\s-e\b|--editable)", i)], instructions
    froms = [i for i in instructions if i.upper().startswith("FROM ")]
    assert len(froms) >= 2 and re.search(r"\sAS\s+\w+", froms[0], flags=re.I), froms
    assert any(re.search(r"pip3? wheel\b", i) for i in instructions)
    assert any(i.upper().startswith("COPY --FROM=") for i in instructions)
    assert any(re.search(r"pip3? install\b.*\.whl", i) for i in instructions)
    # the server behind its front, as `admission-playground serve` runs it (app/front.py), not gunicorn bare
    assert instructions[-1] == 'CMD ["admission-playground", "serve", "--host", "0.0.0.0", "--port", "8000"]'


def test_the_installed_server_offers_the_pane_templates(server: Server) -> None:
    status, ctype, body = _get(server.url + "/api/v1/templates?kubernetesVersion=1.34")
    assert status == 200 and ctype.startswith("application/json")
    offered = json.loads(body)["templates"]
    # every template file, read from the package data
    assert len(offered) == len(list((ROOT / "app" / "pane_templates").glob("*/*.yaml")))
    assert {"object/deployment", "policy/validatingadmissionpolicy"} <= {t["id"] for t in offered}
