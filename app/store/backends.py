"""Where shared scenarios live: SQLite in a data directory, or PostgreSQL.

Both stores keep one table of immutable rows keyed by content-addressed id, written with
insert-if-absent, and a one-row ``schema_version`` table that ``migrate`` moves forward.
Connections are opened per operation (SQLite) or borrowed from a small per-process pool
(PostgreSQL), so gunicorn workers, threads and several instances can share one database.
"""

from __future__ import annotations

import errno
import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any, TypeVar

from .scenario import candidate_ids, digest, is_valid_id

T = TypeVar("T")

# Forward migrations: (version, statements). Never edit a released step; append a new one.
# "?" is the parameter marker; the PostgreSQL store rewrites it.
MIGRATIONS: list[tuple[int, Sequence[str]]] = [
    (1, (
        "CREATE TABLE scenarios ("
        " id TEXT PRIMARY KEY,"
        " sha256 TEXT NOT NULL,"
        " body TEXT NOT NULL,"
        " created_at TEXT NOT NULL)",
    )),
]

SQLITE_FILE = "playground.sqlite3"
# Any constant: serializes migrations across instances starting at the same time.
_PG_MIGRATION_LOCK = 0x5CE7A210


class StoreUnavailable(RuntimeError):
    """The database cannot be reached or is busy (HTTP 503); nothing was answered."""


class StoreFull(StoreUnavailable):
    """The disk under the database is full (HTTP 507): nothing was stored."""


# SQLite's words for SQLITE_FULL; PostgreSQL's SQLSTATE class 53 "insufficient resources": disk_full.
_SQLITE_FULL = "database or disk is full"
_PG_DISK_FULL = "53100"


class SchemaTooNew(RuntimeError):
    """The database was migrated by a newer version of the playground."""


class CorruptScenario(RuntimeError):
    """A stored row whose body no longer matches its sha256."""


class Store:
    """What both stores share: put, get, migrate; subclasses supply ``_run`` and the SQL dialect."""

    dialect = ""
    begin = "BEGIN"

    def _run(self, work: Callable[[Any], T]) -> T:
        raise NotImplementedError

    def _sql(self, query: str) -> str:
        return query

    def _lock(self, conn: Any) -> None:
        """Take the migration lock inside the open transaction (PostgreSQL only)."""

    def put(self, body: bytes) -> tuple[str, bool]:
        """Store a canonical scenario body unless present; return its id and whether it was new.

        The id is the shortest candidate that is free or already holds this body; a row is
        never updated, so an id, once answered, names the same body forever.
        """
        sha = digest(body)
        text = body.decode("utf-8")
        insert = self._sql("INSERT INTO scenarios (id, sha256, body, created_at) VALUES (?, ?, ?, ?)"
                           " ON CONFLICT (id) DO NOTHING")
        select = self._sql("SELECT sha256 FROM scenarios WHERE id = ?")
        now = datetime.now(UTC).isoformat(timespec="seconds")
        for candidate in candidate_ids(sha):
            def work(conn: Any, candidate: str = candidate) -> tuple[bool, str | None]:
                created = conn.execute(insert, (candidate, sha, text, now)).rowcount == 1
                row = conn.execute(select, (candidate,)).fetchone()
                return created, row[0] if row else None
            created, stored = self._run(work)
            if stored == sha:
                return candidate, created
        raise CorruptScenario(f"every id of sha256 {sha} holds other content")

    def find(self, body: bytes) -> str | None:
        """Return the id under which this canonical body is stored, or None when it is not."""
        sha = digest(body)
        select = self._sql("SELECT sha256 FROM scenarios WHERE id = ?")
        for candidate in candidate_ids(sha):
            row = self._run(lambda conn, candidate=candidate: conn.execute(select, (candidate,)).fetchone())
            if row is None:
                return None
            if row[0] == sha:
                return candidate
        return None

    def total_bytes(self) -> int:
        """Return the size of every stored scenario's body, in characters of canonical JSON."""
        query = "SELECT COALESCE(SUM(LENGTH(body)), 0) FROM scenarios"
        return int(self._run(lambda conn: conn.execute(query).fetchone()[0]))

    def get(self, scenario_id: str) -> dict[str, Any] | None:
        """Return the stored scenario, or None when the id is malformed or unknown."""
        if not is_valid_id(scenario_id):
            return None
        select = self._sql("SELECT sha256, body FROM scenarios WHERE id = ?")
        row = self._run(lambda conn: conn.execute(select, (scenario_id,)).fetchone())
        if row is None:
            return None
        sha, body = row
        if digest(body.encode("utf-8")) != sha:
            raise CorruptScenario(f"the stored body of {scenario_id} does not match its sha256")
        return json.loads(body)

    def count(self) -> int:
        """Return how many scenarios are stored."""
        return self._run(lambda conn: conn.execute("SELECT COUNT(*) FROM scenarios").fetchone()[0])

    def schema_version(self) -> int:
        """Return the schema version the database is at."""
        row = self._run(lambda conn: conn.execute("SELECT version FROM schema_version").fetchone())
        return row[0] if row else 0

    def migrate(self) -> int:
        """Bring the schema forward to the newest migration, once, whoever else starts; return the version."""
        latest = max(version for version, _ in MIGRATIONS)

        def work(conn: Any) -> int:
            conn.execute(self.begin)
            try:
                self._lock(conn)
                conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
                row = conn.execute("SELECT version FROM schema_version").fetchone()
                if row is None:
                    conn.execute("INSERT INTO schema_version (version) VALUES (0)")
                current = row[0] if row else 0
                if current > latest:
                    raise SchemaTooNew(f"the database schema is at version {current}, newer than this "
                                       f"playground knows ({latest}); upgrade the playground")
                for version, statements in sorted(MIGRATIONS):
                    if version > current:
                        for statement in statements:
                            conn.execute(statement)
                conn.execute(self._sql("UPDATE schema_version SET version = ?"), (max(current, latest),))
                conn.execute("COMMIT")
            except BaseException:
                try:
                    conn.execute("ROLLBACK")
                except Exception:  # the connection is gone: the server rolls back for us
                    pass
                raise
            return max(current, latest)

        return self._run(work)

    def close(self) -> None:
        """Release pooled connections."""


class SQLiteStore(Store):
    """A SQLite file in the data directory, in WAL mode; a connection per operation."""

    dialect = "sqlite"
    begin = "BEGIN IMMEDIATE"

    def __init__(self, data_dir: str, *, timeout: float = 30.0) -> None:
        os.makedirs(data_dir, exist_ok=True)
        self.path = os.path.join(data_dir, SQLITE_FILE)
        self.timeout = timeout
        self._use_wal()
        self.migrate()

    def _use_wal(self) -> None:
        """Put the file in WAL mode (it stays so). SQLite answers "locked" at once, without waiting out the busy
        timeout, when another connection holds the file while the mode changes: instances starting together on a
        new file retry until the timeout."""
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                self._run(lambda conn: conn.execute("PRAGMA journal_mode=WAL").fetchone())
                return
            except StoreUnavailable as exc:
                locked = isinstance(exc.__cause__, sqlite3.OperationalError) and "locked" in str(exc.__cause__)
                if not locked or time.monotonic() >= deadline:
                    raise
            time.sleep(0.01)

    def _run(self, work: Callable[[sqlite3.Connection], T]) -> T:
        try:
            conn = sqlite3.connect(self.path, timeout=self.timeout, isolation_level=None)
        except sqlite3.OperationalError as exc:
            raise StoreUnavailable(f"cannot open {self.path}: {exc}") from exc
        try:
            conn.execute("PRAGMA synchronous=FULL")
            return work(conn)
        except sqlite3.OperationalError as exc:
            if _SQLITE_FULL in str(exc) or getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL:
                raise StoreFull(f"SQLite at {self.path}: the disk is full ({exc})") from exc
            raise StoreUnavailable(f"SQLite at {self.path}: {exc}") from exc
        except OSError as exc:
            if exc.errno == errno.ENOSPC:
                raise StoreFull(f"SQLite at {self.path}: the disk is full ({exc})") from exc
            raise
        finally:
            conn.close()

    def __repr__(self) -> str:
        return f"SQLiteStore({self.path!r})"


class PostgresStore(Store):
    """A PostgreSQL database named by a URL; connections pooled per process, retried once when stale."""

    dialect = "postgresql"

    def __init__(self, url: str, *, connect_timeout: int = 5, max_idle: int = 4) -> None:
        import psycopg

        self._psycopg = psycopg
        self.url = url
        self.connect_timeout = connect_timeout
        self.max_idle = max_idle
        self._idle: list[Any] = []
        self._inherited: list[Any] = []
        self._pid = os.getpid()
        self._mutex = threading.Lock()
        self.migrate()

    def _sql(self, query: str) -> str:
        return query.replace("?", "%s")

    def _lock(self, conn: Any) -> None:
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_PG_MIGRATION_LOCK,))

    def _checkout(self) -> tuple[Any, bool]:
        with self._mutex:
            if self._pid != os.getpid():
                # A forked worker must not use, nor close, its parent's sockets: keep them unused.
                self._inherited.extend(self._idle)
                self._idle = []
                self._pid = os.getpid()
            if self._idle:
                return self._idle.pop(), True
        conn = self._psycopg.connect(self.url, autocommit=True, connect_timeout=self.connect_timeout)
        return conn, False

    def _checkin(self, conn: Any) -> None:
        with self._mutex:
            if self._pid == os.getpid() and len(self._idle) < self.max_idle and not conn.closed:
                self._idle.append(conn)
                return
        conn.close()

    def _run(self, work: Callable[[Any], T]) -> T:
        errors = (self._psycopg.OperationalError, self._psycopg.InterfaceError)
        while True:
            try:
                conn, pooled = self._checkout()
            except errors as exc:
                raise StoreUnavailable(f"cannot connect to PostgreSQL: {exc}") from exc
            try:
                result = work(conn)
            except errors as exc:
                conn.close()
                if getattr(exc, "sqlstate", None) == _PG_DISK_FULL:
                    raise StoreFull(f"PostgreSQL: the disk is full ({exc})") from exc
                if pooled:  # a connection the server dropped while idle: try a fresh one
                    continue
                raise StoreUnavailable(f"PostgreSQL: {exc}") from exc
            except BaseException:
                conn.close()
                raise
            self._checkin(conn)
            return result

    def close(self) -> None:
        with self._mutex:
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()

    def __repr__(self) -> str:
        return "PostgresStore(<DATABASE_URL>)"


def open_store(data_dir: str, database_url: str | None = None) -> Store:
    """Open (creating and migrating as needed) the store the configuration names."""
    if database_url:
        if database_url.split(":", 1)[0] in ("postgres", "postgresql"):
            return PostgresStore(database_url)
        raise ValueError("DATABASE_URL must be a postgresql:// URL; leave it unset for SQLite in DATA_DIR")
    return SQLiteStore(data_dir)
