"""Shared fixtures: the app, its test client, and the fixture files."""

from __future__ import annotations

import atexit
import itertools
import os
import shutil
import signal
import subprocess
import tempfile

import pytest

from app import create_app

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")

# The table tests' assertions live in this helper module: pytest shows their values as it does a test's.
pytest.register_assert_rewrite("tests.scenario_runner")


@pytest.fixture
def app():
    return create_app({"TESTING": True})


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture(scope="module")
def module_client():
    """One test app's client for a whole test module, for tests that change nothing in the app (the table
    tests of tests/scenarios/ and tests/admission_scenarios/ post to it and read pages)."""
    return create_app({"TESTING": True}).test_client()


def fixture_path(*parts: str) -> str:
    return os.path.join(FIXTURES, *parts)


# --- A throwaway PostgreSQL server (scripts/postgres), shared by the whole run -----------------------

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "scripts", "postgres")


class PostgresServer:
    """One PostgreSQL server for the whole test run, in a temporary folder."""

    def __init__(self) -> None:
        self.tmp = tempfile.mkdtemp(prefix="playground-pg-")
        os.chmod(self.tmp, 0o755)  # the server runs as the postgres user when the tests run as root
        self.base = os.path.join(self.tmp, "pg")
        self._names = itertools.count()
        self.url = self.start()

    def start(self) -> str:
        """Start (or restart, on the same data and port) the server; return its URL."""
        done = subprocess.run([SCRIPT, "start", self.base], capture_output=True, text=True, timeout=600)
        if done.returncode == 3:
            pytest.skip(f"PostgreSQL cannot be installed here: {done.stderr.strip()}")
        if done.returncode != 0:
            pytest.fail(f"scripts/postgres start failed:\n{done.stderr}")
        return done.stdout.strip().splitlines()[-1]

    def new_database(self) -> str:
        """Create an empty database and return its URL."""
        import psycopg

        name = f"test_{os.getpid()}_{next(self._names)}"
        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return self.url.rsplit("/", 1)[0] + "/" + name

    def kill(self) -> None:
        """kill -9 the postmaster, as a crash would."""
        with open(os.path.join(self.base, "data", "postmaster.pid")) as pidfile:
            os.kill(int(pidfile.readline()), signal.SIGKILL)

    def stop(self) -> None:
        subprocess.run([SCRIPT, "stop", self.base], capture_output=True, timeout=120)
        shutil.rmtree(self.tmp, ignore_errors=True)


_server: list[PostgresServer] = []


def postgres_server() -> PostgresServer:
    """Return the run's PostgreSQL server, starting it on first use."""
    pytest.importorskip("psycopg", reason="psycopg is not installed: pip install 'psycopg[binary]'")
    if not _server:
        server = PostgresServer()
        atexit.register(server.stop)
        _server.append(server)
    return _server[0]


@pytest.fixture(scope="session")
def pg_server() -> PostgresServer:
    return postgres_server()


@pytest.fixture(params=["sqlite", "postgresql"])
def store_config(request, tmp_path) -> dict[str, str]:
    """The app configuration of a fresh, empty store of each kind."""
    if request.param == "sqlite":
        return {"DATA_DIR": str(tmp_path / "data" / "nested"), "DATABASE_URL": ""}
    return {"DATA_DIR": str(tmp_path / "unused"), "DATABASE_URL": request.getfixturevalue("pg_server").new_database()}


@pytest.fixture
def activations_made(monkeypatch) -> list:
    """The values the CEL engine is asked to convert into an activation, as evaluations go; kept values
    are not made afresh for the time spent evaluating on them (the bound that frees their memory)."""
    from app.vap import cel
    from app.vap.fast import kept

    made: list = []
    env = cel._activation_env()

    class Counting:
        def Activation(self, data):  # noqa: N802 (the engine's name)
            made.append(data)
            return env.Activation(data)

    monkeypatch.setattr(cel, "_activation_env", lambda: Counting())
    monkeypatch.setattr(kept, "_KEPT_SECONDS", 1.0)
    return made
