"""The run store: WAL, per-schema versions and migrations, registration, transactions."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from regrapht import store as store_module
from regrapht.store import RunStore, Schema, StoreError, StoreVersionError, register_schema

NOTES_V1 = Schema("notes", ("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL);",))
NOTES_V2 = Schema(
    "notes",
    (
        NOTES_V1.migrations[0],
        "ALTER TABLE notes ADD COLUMN author TEXT NOT NULL DEFAULT 'unknown';\n"
        "CREATE INDEX notes_author ON notes(author);",
    ),
)


def test_new_store_is_wal_and_versioned(tmp_path: Path) -> None:
    with RunStore(tmp_path / "run.sqlite") as store:
        assert store.query_one("PRAGMA journal_mode")[0] == "wal"
        assert store.schemas()["store"] == 1
        assert store.meta("created_at")


def test_migrations_run_once_in_order_and_keep_data(tmp_path: Path) -> None:
    path = tmp_path / "run.sqlite"
    with RunStore(path, schemas=[NOTES_V1]) as store:
        store.execute("INSERT INTO notes(body) VALUES (?)", ("first",))
        assert store.schema_version("notes") == 1
    with RunStore(path, schemas=[NOTES_V2]) as store:
        assert store.schema_version("notes") == 2
        row = store.query_one("SELECT body, author FROM notes")
        assert (row["body"], row["author"]) == ("first", "unknown")
    with RunStore(path, schemas=[NOTES_V2]) as store:  # nothing left to do, nothing redone
        assert store.schema_version("notes") == 2


def test_a_newer_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "run.sqlite"
    RunStore(path, schemas=[NOTES_V2]).close()
    with pytest.raises(StoreVersionError, match="'notes' are at version 2.*only up to version 1"):
        RunStore(path, schemas=[NOTES_V1])


def test_a_failing_migration_changes_nothing(tmp_path: Path) -> None:
    broken = Schema("broken", ("CREATE TABLE ok_table (x INTEGER); CREATE TABLE ok_table (y INTEGER);",))
    path = tmp_path / "run.sqlite"
    with pytest.raises(StoreError, match="migration 1 of 'broken' failed"):
        RunStore(path, schemas=[broken])
    with RunStore(path) as store:
        assert store.schema_version("broken") == 0
        assert store.query_one("SELECT name FROM sqlite_master WHERE name = 'ok_table'") is None


def test_registered_schemas_apply_to_every_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store_module, "_REGISTRY", {})  # keep the probe schema out of other tests' stores
    schema = register_schema(Schema("registered_probe", ("CREATE TABLE registered_probe (x INTEGER);",)))
    assert register_schema(schema) is schema  # idempotent
    with pytest.raises(ValueError, match="already registered"):
        register_schema(Schema("registered_probe", ("CREATE TABLE other (x INTEGER);",)))
    with RunStore(tmp_path / "run.sqlite") as store:
        assert store.schema_version("registered_probe") == 1


def test_transaction_rolls_back_on_error(tmp_path: Path) -> None:
    with RunStore(tmp_path / "run.sqlite", schemas=[NOTES_V1]) as store:
        with pytest.raises(RuntimeError), store.transaction() as conn:
            conn.execute("INSERT INTO notes(body) VALUES ('lost')")
            raise RuntimeError("interrupted")
        assert store.query("SELECT * FROM notes") == []


def test_readers_see_committed_rows_while_a_writer_is_open(tmp_path: Path) -> None:
    path = tmp_path / "run.sqlite"
    with RunStore(path, schemas=[NOTES_V1]) as writer:
        writer.execute("INSERT INTO notes(body) VALUES ('visible')")
        reader = sqlite3.connect(path)
        try:
            assert reader.execute("SELECT body FROM notes").fetchall() == [("visible",)]
        finally:
            reader.close()


def test_schema_names_and_migrations_are_checked() -> None:
    with pytest.raises(ValueError):
        Schema("bad name", ("CREATE TABLE t (x);",))
    with pytest.raises(ValueError):
        Schema("empty", ())


def test_closed_store_says_so(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "run.sqlite")
    store.close()
    store.close()
    with pytest.raises(StoreError, match="is closed"):
        store.query("SELECT 1")
