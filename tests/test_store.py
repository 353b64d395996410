"""The scenario store on SQLite and on a real PostgreSQL server: ids, immutability, migrations, crashes.

The PostgreSQL tests start a throwaway server with scripts/postgres (Debian's package, installed when
missing) on a free port of 127.0.0.1, one database per test. They are skipped only when the server
cannot be installed on this machine.
"""

from __future__ import annotations

import itertools
import json
import os
import sqlite3
import threading
import time

import pytest

from app import store
from app.store import backends, scenario


@pytest.fixture
def db(store_config):
    opened = store.open_store(store_config["DATA_DIR"], store_config["DATABASE_URL"] or None)
    yield opened
    opened.close()


def _reopen(db: store.Store) -> store.Store:
    if isinstance(db, store.SQLiteStore):
        return store.SQLiteStore(os.path.dirname(db.path))
    return store.PostgresStore(db.url)


def _raw(db: store.Store, sql: str, params: tuple = ()):
    def work(conn):
        cursor = conn.execute(db._sql(sql), params)
        return [tuple(row) for row in cursor.fetchall()] if cursor.description else None
    return db._run(work)


POLICY = "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata:\n  name: p\n"


# --- ids and immutability, on both stores --------------------------------------------------------------

def test_same_scenario_same_id_and_only_the_first_put_is_new(db):
    first = store.share(db, {"policy": POLICY, "kubernetesVersion": "1.34"})
    again = store.share(db, {"kubernetesVersion": "1.34", "policy": POLICY})
    assert first == (first[0], True) and again == (first[0], False)
    assert store.is_valid_id(first[0]) and len(first[0]) == scenario.ID_LENGTH
    assert db.count() == 1


def test_a_scenario_reads_back_exactly(db):
    body = {"policy": POLICY, "binding": "  indented\n\n\n", "object": {"a": [1, 2.5, None, True], "é": "😀"},
            "oldObject": "tab\tand trailing  \nno end", "namespace": "", "request": "operation: UPDATE\n",
            "kubernetesVersion": "1.31", "testCases": [{"name": "t", "expect": {"allowed": False}}]}
    scenario_id, _ = store.share(db, body)
    expected = {k: v for k, v in body.items() if v != ""}
    assert db.get(scenario_id) == expected
    assert _reopen(db).get(scenario_id) == expected


def test_empty_panes_and_line_ends_do_not_change_the_id(db):
    plain, _ = store.share(db, {"policy": "a: 1\nb: 2\n"})
    assert store.share(db, {"policy": "a: 1\r\nb: 2\r\n", "binding": "", "params": None}) == (plain, False)
    other, created = store.share(db, {"policy": "a: 1\nb: 3\n"})
    assert other != plain and created


def test_a_colliding_id_is_never_overwritten_the_newcomer_gets_a_longer_one(db):
    _, body = store.prepare({"policy": POLICY})
    short, longer = list(scenario.candidate_ids(scenario.digest(body)))[:2]
    squatter = json.dumps({"policy": "someone else"}, separators=(",", ":"))
    _raw(db, "INSERT INTO scenarios (id, sha256, body, created_at) VALUES (?, ?, ?, ?)",
         (short, scenario.digest(squatter.encode()), squatter, "2000-01-01T00:00:00+00:00"))
    assert db.put(body) == (longer, True)
    assert db.put(body) == (longer, False)
    assert db.get(short) == {"policy": "someone else"}
    assert db.get(longer) == {"policy": POLICY}


def test_a_tampered_row_is_reported_not_served(db):
    scenario_id, _ = store.share(db, {"policy": POLICY})
    _raw(db, "UPDATE scenarios SET body = ? WHERE id = ?", ('{"policy":"changed"}', scenario_id))
    with pytest.raises(store.CorruptScenario):
        db.get(scenario_id)


@pytest.mark.parametrize("scenario_id", ["", "short", "ABCDEFGHIJKL", "abcdefghijk1", "a" * 53, "../../etc/pass"])
def test_malformed_ids_are_not_found(db, scenario_id):
    assert db.get(scenario_id) is None


def test_an_unknown_id_is_not_found(db):
    assert db.get("a" * 12) is None


def test_over_the_limit_nothing_is_stored(db):
    with pytest.raises(store.ScenarioTooLarge, match="limited to 1000 bytes"):
        store.share(db, {"policy": "x" * 1000}, limit=1000)
    assert db.count() == 0
    assert store.share(db, {"policy": "x" * 900}, limit=1000)[1] is True


def test_writers_racing_on_one_scenario_get_one_id_and_one_row(db):
    results: list[tuple[str, bool]] = []

    def write() -> None:
        results.append(store.share(db, {"policy": POLICY}))

    threads = [threading.Thread(target=write) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({i for i, _ in results}) == 1
    assert sum(created for _, created in results) == 1
    assert db.count() == 1


# --- schema and migrations -----------------------------------------------------------------------------

def test_a_new_store_is_at_the_newest_schema_and_reopening_changes_nothing(db):
    latest = max(v for v, _ in store.MIGRATIONS)
    assert db.schema_version() == latest
    scenario_id, _ = store.share(db, {"policy": POLICY})
    again = _reopen(db)
    assert again.schema_version() == latest and again.get(scenario_id) == {"policy": POLICY}
    assert _raw(db, "SELECT COUNT(*) FROM schema_version") == [(1,)]


def test_an_older_schema_migrates_forward_keeping_its_scenarios(db, monkeypatch):
    scenario_id, _ = store.share(db, {"policy": POLICY})
    latest = max(v for v, _ in store.MIGRATIONS)
    monkeypatch.setattr(backends, "MIGRATIONS", [*store.MIGRATIONS,
                                                 (latest + 1, ("CREATE TABLE later_step (note TEXT)",))])
    migrated = _reopen(db)
    assert migrated.schema_version() == latest + 1
    assert _raw(db, "SELECT COUNT(*) FROM later_step") == [(0,)]
    assert migrated.get(scenario_id) == {"policy": POLICY}


def test_a_schema_newer_than_the_code_is_refused(db):
    _raw(db, "UPDATE schema_version SET version = ?", (99,))
    with pytest.raises(store.SchemaTooNew, match="version 99"):
        _reopen(db)


def test_instances_starting_together_migrate_once(store_config):
    opened: list[store.Store] = []
    errors: list[BaseException] = []

    def start() -> None:
        try:
            opened.append(store.open_store(store_config["DATA_DIR"], store_config["DATABASE_URL"] or None))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=start) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == [] and len(opened) == 6
    assert _raw(opened[0], "SELECT version FROM schema_version") == [(max(v for v, _ in store.MIGRATIONS),)]


def test_sqlite_creates_its_data_dir_in_wal_mode(tmp_path):
    data_dir = tmp_path / "a" / "b"
    opened = store.open_store(str(data_dir))
    assert os.path.isfile(data_dir / backends.SQLITE_FILE)
    with sqlite3.connect(data_dir / backends.SQLITE_FILE) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    assert opened.schema_version() >= 1


def test_sqlite_waits_for_another_instance_holding_a_new_file(tmp_path):
    # Switching a file to WAL while another connection writes to it fails at once in SQLite, whatever the busy
    # timeout: an instance starting while another creates the file must wait for it rather than give up.
    path = tmp_path / backends.SQLITE_FILE
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("CREATE TABLE held (a INTEGER)")
    holder.execute("BEGIN IMMEDIATE")
    holder.execute("INSERT INTO held VALUES (1)")
    outcome: list[object] = []
    starting = threading.Thread(target=lambda: outcome.append(_opened_or_error(str(tmp_path))))
    starting.start()
    time.sleep(0.3)
    holder.execute("COMMIT")
    holder.close()
    starting.join()
    assert isinstance(outcome[0], backends.SQLiteStore), outcome
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)


def _opened_or_error(data_dir: str) -> object:
    try:
        return store.open_store(data_dir)
    except store.StoreUnavailable as exc:
        return exc


def test_database_url_must_name_postgresql(tmp_path):
    with pytest.raises(ValueError, match="postgresql://"):
        store.open_store(str(tmp_path), "mysql://localhost/db")


# --- the scenario format ------------------------------------------------------------------------------

@pytest.mark.parametrize("payload, message", [
    ([], "must be a JSON object"),
    ({"policy": 3}, "field 'policy' must be YAML or JSON text"),
    ({"policy": "a", "kubernetesVersion": 1.3}, "'kubernetesVersion' must be a string"),
    ({"policy": "a", "testCases": {}}, "'testCases' must be a list"),
    ({"policy": "a", "operation": "CREATE"}, "unknown field 'operation'"),
    ({"policy": "", "object": None}, "nothing to share"),
    ({"policy": "\ud800"}, "not valid Unicode"),
])
def test_what_is_not_a_scenario_is_refused_naming_the_field(payload, message):
    with pytest.raises(store.ScenarioError, match=message):
        store.prepare(payload)


# --- the scenario file --------------------------------------------------------------------------------

TRICKY_TEXTS = [
    POLICY,
    "no final newline",
    "two final newlines\n\n",
    "\n",
    "\n\nleading empty lines\n",
    "  first line indented\nsecond\n",
    "   \n",
    "---\n...\n# comment\n- list: [x]\n",
    "tab\tin line and trailing spaces   \n\ttab-indented\n",
    "unicode é 😀 \u00a0\n",
    "control \x01 character\n",
    "line\u2028separator\n",
    "\ufeffbyte order mark\n",
]


@pytest.mark.parametrize("text", TRICKY_TEXTS)
def test_a_scenario_file_round_trips_any_pane_text(text):
    scenario_value = store.normalize({"policy": text, "object": text, "kubernetesVersion": "1.34"})
    rendered = store.render_yaml(scenario_value, shared_id="abcdefghijkl")
    assert store.parse_yaml(rendered) == scenario_value
    assert store.parse_yaml(rendered.encode("utf-8")) == scenario_value


def test_a_scenario_file_shows_panes_as_block_scalars():
    rendered = store.render_yaml(store.normalize({"policy": POLICY, "object": {"kind": "Pod", "n": [1]},
                                                  "kubernetesVersion": "1.30",
                                                  "testCases": [{"name": "first"}]}))
    lines = rendered.splitlines()
    assert "apiVersion: playground.admission/v1" in lines and "kind: Scenario" in lines
    assert 'kubernetesVersion: "1.30"' in lines
    assert "policy: |" in lines and "  kind: ValidatingAdmissionPolicy" in lines
    assert "object:" in lines and "  kind: Pod" in lines
    assert "testCases:" in lines


def test_an_unquoted_version_keeps_its_text():
    parsed = store.parse_yaml("apiVersion: playground.admission/v1\nkind: Scenario\nkubernetesVersion: 1.30\n"
                              "policy: |\n  x: 1\n")
    assert parsed == {"kubernetesVersion": "1.30", "policy": "x: 1\n"}


HEAD = "apiVersion: playground.admission/v1\nkind: Scenario\n"


@pytest.mark.parametrize("text, message", [
    ("", "the file is empty"),
    ("policy: |\n  x\n", "line 1: apiVersion: playground.admission/v1 is missing"),
    ("apiVersion: v1\nkind: Pod\n", "line 1: apiVersion must be playground.admission/v1, not 'v1'"),
    ("apiVersion: playground.admission/v1\nkind: List\n", "line 2: kind must be Scenario"),
    (HEAD + "policy: |\n  a: 1\nobject: [\n", "line 6, column 1: .*expected the node content"),
    (HEAD + "policy: |\n  a\n b\n", "line 5, column 2: "),
    (HEAD + "polcy: x\n", "line 3: unknown field 'polcy'"),
    (HEAD + "policy: a\npolicy: b\n", "line 4: field 'policy' is given twice"),
    (HEAD + "policy: 3\n", "line 3: policy must be text"),
    (HEAD + "policy: x\ntestCases: {}\n", "line 4: testCases must be a list"),
    (HEAD + "object: &o {a: 1}\noldObject: *o\n", "aliases"),
    (HEAD + "policy: x\n---\npolicy: y\n", "line 5: a scenario file holds one YAML document"),
    (HEAD + "policy: !!binary aGk=\n", "line 3: this value is not plain text"),
    (HEAD + "policy: |\n  a \x07 b\n", "line 4: .*U\\+0007"),
    ("- a\n- b\n", "line 1: a scenario file is a mapping"),
    (HEAD, "nothing to share"),
])
def test_a_broken_scenario_file_is_refused_naming_the_line(text, message):
    with pytest.raises(store.ScenarioFileError, match=message):
        store.parse_yaml(text)


def test_a_file_that_is_not_utf8_is_refused_naming_the_line():
    with pytest.raises(store.ScenarioFileError, match="line 3: the file is not UTF-8"):
        store.parse_yaml(HEAD.encode() + b"policy: \xff\n")


# --- a PostgreSQL crash while shares are written ------------------------------------------------------

def test_every_answered_link_survives_a_killed_postgres(pg_server):
    url = pg_server.new_database()
    answered: dict[str, dict] = {}
    failures: list[str] = []
    phase = {"name": "before"}
    succeeded: dict[str, int] = {"before": 0, "down": 0, "after": 0}
    stop = threading.Event()

    def writer(number: int) -> None:
        db = store.PostgresStore(url, connect_timeout=2)
        for count in itertools.count():
            if stop.is_set():
                break
            payload = {"policy": f"writer {number} scenario {count}\n", "object": {"n": count}}
            try:
                scenario_id, _ = store.share(db, payload)
            except store.StoreUnavailable as exc:
                failures.append(str(exc))
                time.sleep(0.02)
                continue
            answered[scenario_id] = payload
            succeeded[phase["name"]] += 1
        db.close()

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    def wait_for(name: str, count: int) -> None:
        deadline = time.monotonic() + 15
        while succeeded[name] < count and time.monotonic() < deadline:
            time.sleep(0.05)

    try:
        wait_for("before", 50)
        phase["name"] = "down"
        pg_server.kill()
        time.sleep(0.5)
        pg_server.start()
        phase["name"] = "after"
        wait_for("after", 50)
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=30)
    assert succeeded["before"] > 0 and succeeded["after"] > 0, succeeded
    assert failures, "the writers never noticed the crash"
    reader = store.PostgresStore(url)
    assert reader.count() >= len(answered)
    for scenario_id, payload in answered.items():
        assert reader.get(scenario_id) == payload
    reader.close()
