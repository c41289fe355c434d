"""The SQLite file: connection settings (WAL, busy timeout) and the versioned schema."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from loadertune.errors import LoadertuneError

SCHEMA_VERSION = 1
BUSY_TIMEOUT_S = 30.0

SCHEMA = """
CREATE TABLE IF NOT EXISTS machines (
    key TEXT PRIMARY KEY,
    data TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS datasets (
    key TEXT PRIMARY KEY,
    data TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created_at TEXT NOT NULL,
    kind TEXT NOT NULL,
    status TEXT NOT NULL,
    request_key TEXT NOT NULL,
    machine_key TEXT NOT NULL REFERENCES machines(key),
    dataset_key TEXT NOT NULL REFERENCES datasets(key),
    dataset TEXT NOT NULL,
    spec TEXT,
    batch_size INTEGER NOT NULL,
    request TEXT NOT NULL,
    kwargs TEXT NOT NULL,
    samples_per_s REAL,
    seconds REAL NOT NULL,
    trial_count INTEGER NOT NULL,
    reason TEXT NOT NULL,
    result TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_by_request ON runs(request_key, created_at);
CREATE TABLE IF NOT EXISTS trials (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    idx INTEGER NOT NULL,
    label TEXT NOT NULL,
    num_workers INTEGER NOT NULL,
    prefetch_factor INTEGER,
    pin_memory INTEGER NOT NULL,
    persistent_workers INTEGER NOT NULL,
    status TEXT NOT NULL,
    samples_per_s REAL,
    spread REAL,
    memory_total INTEGER,
    wall_s REAL NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (run_id, idx)
);
"""


class StoreError(LoadertuneError):
    """The history store cannot be used."""


def connect(path: Path) -> sqlite3.Connection:
    """Open (creating if needed) the store at ``path`` with WAL and the current schema."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_S, isolation_level=None)
    except (OSError, sqlite3.Error) as err:
        raise StoreError(f"cannot open the history store {path}: {err}; pass --store PATH "
                         "(or set LOADERTUNE_STORE) to use another file") from err
    try:
        conn.row_factory = sqlite3.Row
        conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("PRAGMA synchronous = NORMAL")
        _migrate(conn, path)
    except sqlite3.DatabaseError as err:
        conn.close()
        raise StoreError(f"{path} is not a usable loadertune history store ({err}); move it "
                         "away or pass --store PATH to use another file") from err
    except BaseException:
        conn.close()
        raise
    return conn


def _migrate(conn: sqlite3.Connection, path: Path) -> None:
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version == SCHEMA_VERSION:
        return
    if version > SCHEMA_VERSION:
        raise StoreError(f"{path} was written by a newer loadertune (schema {version}, this one "
                         f"reads {SCHEMA_VERSION}); upgrade loadertune or pass --store PATH")
    with transaction(conn):
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version == 0:
            for statement in SCHEMA.split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


@contextlib.contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """``BEGIN IMMEDIATE`` … ``COMMIT``: writers queue on the lock instead of failing midway;
    anything raised (Ctrl-C included) rolls back, so the file never holds half a run."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
