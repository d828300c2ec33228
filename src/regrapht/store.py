"""The run store: one SQLite file per run that holds what the run measured and asked for, so that
every run can resume after an interruption and be replayed without models or GPUs.

This module is generic on purpose. It knows nothing about models, evaluations or graphs: each layer
describes its own tables as a `Schema` (a name and an ordered list of migrations) and either passes
it to `RunStore(...)`, calls `store.apply(schema)`, or registers it once with `register_schema` so
every store opened afterwards has it. Versions are tracked per schema, so layers evolve independently.

SQLite runs in WAL mode so a reader (a report, a replay) never blocks the writer of a live run.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

__all__ = [
    "RunStore",
    "Schema",
    "StoreError",
    "StoreVersionError",
    "register_schema",
    "registered_schemas",
]


class StoreError(Exception):
    """The run store could not be opened or migrated."""


class StoreVersionError(StoreError):
    """The file was written by a newer regrapht whose tables this version does not know."""


@dataclass(frozen=True)
class Schema:
    """Tables owned by one layer. `migrations[i]` is an SQL script that moves the schema from
    version i to version i+1, so the current version is `len(migrations)`. Never edit a migration
    that has shipped: append a new one."""

    name: str
    migrations: tuple[str, ...]

    def __post_init__(self) -> None:
        if not self.name or not self.name.replace("_", "").isalnum():
            raise ValueError(f"schema name must be letters, digits and underscores, got {self.name!r}")
        if not self.migrations:
            raise ValueError(f"schema {self.name!r} needs at least one migration")
        object.__setattr__(self, "migrations", tuple(self.migrations))

    @property
    def version(self) -> int:
        return len(self.migrations)


# The store's own bookkeeping: when and by what the file was made.
_CORE = Schema(
    "store",
    (
        """
        CREATE TABLE store_meta (
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL
        );
        """,
    ),
)

_REGISTRY: dict[str, Schema] = {}
_REGISTRY_LOCK = threading.Lock()


def register_schema(schema: Schema) -> Schema:
    """Make `schema` part of every RunStore opened from now on. Registering the same schema again is
    a no-op; registering a different schema under a taken name is an error."""
    with _REGISTRY_LOCK:
        existing = _REGISTRY.get(schema.name)
        if existing is not None and existing != schema:
            raise ValueError(f"a different schema named {schema.name!r} is already registered")
        _REGISTRY[schema.name] = schema
    return schema


def registered_schemas() -> list[Schema]:
    with _REGISTRY_LOCK:
        return list(_REGISTRY.values())


def _split_statements(script: str) -> list[str]:
    """Split an SQL script into statements, respecting strings and CREATE TRIGGER bodies."""
    statements: list[str] = []
    current = ""
    for piece in script.split(";"):
        current += piece + ";"
        if sqlite3.complete_statement(current):
            if current.strip(" \t\r\n;"):
                statements.append(current.strip())
            current = ""
    if current.strip(" \t\r\n;"):
        raise StoreError(f"incomplete SQL statement in migration: {current.strip()[:200]}")
    return statements


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class RunStore:
    """A SQLite run store. Safe to share between threads of one process (one connection, guarded
    by a lock); several processes may open the same file (SQLite locking, WAL mode)."""

    def __init__(self, path: str | Path, *, schemas: Iterable[Schema] = (), busy_timeout_s: float = 30.0):
        self.path = Path(path)
        if str(path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._conn = sqlite3.connect(
                str(path), timeout=busy_timeout_s, isolation_level=None, check_same_thread=False
            )
        except sqlite3.Error as e:
            raise StoreError(f"cannot open run store {path}: {e}") from e
        self._conn.row_factory = sqlite3.Row
        self._lock = threading.RLock()
        self._closed = False
        with self._lock:
            if str(path) != ":memory:":
                mode = self._conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
                if str(mode).lower() != "wal":
                    raise StoreError(f"run store {path}: SQLite refused WAL mode (got {mode})")
            # NORMAL is durable in WAL mode except for the last transactions on power loss.
            self._conn.execute("PRAGMA synchronous=NORMAL")
            self._conn.execute("PRAGMA foreign_keys=ON")
            self._conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_versions ("
                " name TEXT PRIMARY KEY, version INTEGER NOT NULL, updated_at TEXT NOT NULL)"
            )
        self.apply(_CORE)
        self._conn.execute("INSERT OR IGNORE INTO store_meta(key, value) VALUES ('created_at', ?)", (_now(),))
        for schema in [*registered_schemas(), *schemas]:
            self.apply(schema)

    # -- schema -------------------------------------------------------------------------------------

    def schema_version(self, name: str) -> int:
        """The version of schema `name` in this file; 0 when it was never applied."""
        row = self.query_one("SELECT version FROM schema_versions WHERE name = ?", (name,))
        return int(row["version"]) if row else 0

    def apply(self, schema: Schema) -> None:
        """Bring `schema` up to its latest version, one migration per transaction."""
        with self._lock:
            while True:
                with self.transaction():
                    current = self.schema_version(schema.name)
                    if current > schema.version:
                        raise StoreVersionError(
                            f"run store {self.path}: tables '{schema.name}' are at version {current}, "
                            f"but this regrapht knows only up to version {schema.version}. "
                            "Open it with a newer regrapht."
                        )
                    if current == schema.version:
                        return
                    for statement in _split_statements(schema.migrations[current]):
                        try:
                            self._conn.execute(statement)
                        except sqlite3.Error as e:
                            raise StoreError(
                                f"migration {current + 1} of '{schema.name}' failed: {e}\n{statement}"
                            ) from e
                    self._conn.execute(
                        "INSERT INTO schema_versions(name, version, updated_at) VALUES (?, ?, ?) "
                        "ON CONFLICT(name) DO UPDATE SET version = excluded.version, "
                        "updated_at = excluded.updated_at",
                        (schema.name, current + 1, _now()),
                    )

    def schemas(self) -> dict[str, int]:
        return {r["name"]: int(r["version"]) for r in self.query("SELECT name, version FROM schema_versions")}

    # -- data ---------------------------------------------------------------------------------------

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """A write transaction (BEGIN IMMEDIATE, so two writers never deadlock on upgrade). Nested
        use joins the outer transaction."""
        with self._lock:
            self._check_open()
            if self._conn.in_transaction:
                yield self._conn
                return
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            else:
                self._conn.execute("COMMIT")

    def execute(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> int:
        """Run one statement (in its own transaction unless inside `transaction()`); returns the
        last row id."""
        with self._lock:
            self._check_open()
            cur = self._conn.execute(sql, params)
            return int(cur.lastrowid or 0)

    def query(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[sqlite3.Row]:
        with self._lock:
            self._check_open()
            return self._conn.execute(sql, params).fetchall()

    def query_one(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> sqlite3.Row | None:
        with self._lock:
            self._check_open()
            return self._conn.execute(sql, params).fetchone()

    def meta(self, key: str) -> str | None:
        row = self.query_one("SELECT value FROM store_meta WHERE key = ?", (key,))
        return None if row is None else str(row["value"])

    def set_meta(self, key: str, value: str) -> None:
        self.execute(
            "INSERT INTO store_meta(key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    # -- lifetime -----------------------------------------------------------------------------------

    def _check_open(self) -> None:
        if self._closed:
            raise StoreError(f"run store {self.path} is closed")

    def close(self) -> None:
        with self._lock:
            if not self._closed:
                self._closed = True
                self._conn.close()

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"RunStore({str(self.path)!r})"
