"""The store's schema and its migrations, and the checks an opened file passes before anything
is written to it: a Lifeguard store (not another program's database), not from a newer
Lifeguard, not damaged. ``GameStore.open`` calls ``prepare`` (which then migrates) and the
read-only opening calls ``check_readable``.
"""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

from assistant.i18n import _, format
from assistant.store.errors import StoreError, StoreErrorKind

if TYPE_CHECKING:
    from assistant.store.db import GameStore

SCHEMA_VERSION = 1

# Each migration takes the schema from version i to i + 1; never edit one that has shipped.
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE games (
        id       INTEGER PRIMARY KEY,
        players  TEXT NOT NULL,              -- JSON list of names in seating order
        rules    TEXT NOT NULL,              -- JSON object of the house rules played with
        started  TEXT NOT NULL,              -- ISO 8601 UTC
        ended    TEXT,                       -- set when finished or abandoned
        status   TEXT NOT NULL DEFAULT 'unfinished'
                 CHECK (status IN ('unfinished', 'finished', 'abandoned')),
        winners  TEXT NOT NULL DEFAULT '[]', -- JSON list
        cursor   INTEGER NOT NULL DEFAULT 0, -- entries [0, cursor) are the game; the rest undone
        source   TEXT NOT NULL DEFAULT 'played' CHECK (source IN ('played', 'imported'))
    );
    CREATE TABLE entries (
        game_id  INTEGER NOT NULL REFERENCES games(id),
        seq      INTEGER NOT NULL,           -- 0, 1, 2, ... in the order accepted
        command  TEXT NOT NULL,              -- the canonical command
        joined   INTEGER NOT NULL DEFAULT 0, -- undone and redone together with the entry before
        at       TEXT NOT NULL,              -- when it was accepted, ISO 8601 UTC
        said     TEXT NOT NULL DEFAULT '',   -- the announcement made
        PRIMARY KEY (game_id, seq)
    ) WITHOUT ROWID;
    CREATE INDEX games_by_status ON games(status, id);
    """,
)



def prepare(store: GameStore, create: bool) -> None:
    """Validate before anything is written; then WAL, durability and migrations. Without
    ``create``, an empty file (a store another process is creating) is no store yet: it is
    left to its creator, never migrated here."""
    conn, path = store.conn, store.path
    version, tables = _look(conn, path)
    if version == 0 and not tables and not create:
        raise StoreError(format(_("No games yet: there is no game store at {path}."), path=path),
                         StoreErrorKind.MISSING, path)
    if version == 0 and tables:
        raise StoreError(format(
            _("{path} is an SQLite database but not a Lifeguard game store (it has tables {tables}); "
              "nothing in it was changed. Move it away, or run 'lifeguard chat --move-aside-bad-store' "
              "to rename it and start a new store."), path=path, tables=", ".join(sorted(tables))),
            StoreErrorKind.FOREIGN, path)
    _check_integrity(conn, path)
    if version >= 1 and not {"games", "entries"} <= tables:
        raise StoreError(format(
            _("The game store {path} is damaged (its tables are missing); nothing in it was changed. "
              "Run 'lifeguard chat --move-aside-bad-store' to rename it and start a new store."),
            path=path), StoreErrorKind.CORRUPT, path)
    mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
    if mode != "wal":
        conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = FULL")
    conn.execute("PRAGMA foreign_keys = ON")
    _migrate(store, version)


def check_readable(conn: sqlite3.Connection, path: Path) -> None:
    """The checks of ``prepare`` that need no writing."""
    version, tables = _look(conn, path)
    if version == 0 and not tables:
        raise StoreError(format(_("No games yet in {path}."), path=path), StoreErrorKind.MISSING, path)
    if version == 0 or not {"games", "entries"} <= tables:
        raise StoreError(format(
            _("{path} is not a Lifeguard game store, or it is damaged (its tables are missing); nothing "
              "in it was changed."), path=path), StoreErrorKind.FOREIGN, path)
    _check_integrity(conn, path)


def _migrate(store: GameStore, version: int) -> None:
    """Take the schema from ``version`` to ``SCHEMA_VERSION``, one transaction per migration."""
    conn = store.conn
    for target in range(version, SCHEMA_VERSION):
        with store.transaction():
            if conn.execute("PRAGMA user_version").fetchone()[0] > target:
                continue  # another writer took it there meanwhile
            for statement in statements(MIGRATIONS[target]):
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {target + 1}")


def _schema_version(conn: sqlite3.Connection, path: Path) -> int:
    """The store's schema version; one newer than this Lifeguard knows is refused untouched."""
    conn.execute("PRAGMA busy_timeout = 5000")
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    if version > SCHEMA_VERSION:
        raise StoreError(format(
            _("The game store {path} was written by a newer Lifeguard (schema {version}; this one knows "
              "up to {known}). It was not changed: use the newer Lifeguard, or set LIFEGUARD_DATA_DIR "
              "to another folder."), path=path, version=version, known=SCHEMA_VERSION),
            StoreErrorKind.NEWER, path)
    return version


def _check_integrity(conn: sqlite3.Connection, path: Path) -> None:
    """SQLite's own check of the file; a damaged store is refused untouched."""
    problems = [r[0] for r in conn.execute("PRAGMA quick_check")]
    if problems != ["ok"]:
        raise StoreError(format(
            _("The game store {path} is damaged ({text}); nothing in it was changed. Keep a copy, then "
              "run 'lifeguard chat --move-aside-bad-store' to rename it and start a new store."),
            path=path, text="; ".join(" ".join(p.split()) for p in problems[:3])), StoreErrorKind.CORRUPT, path)


def _look(conn: sqlite3.Connection, path: Path) -> tuple[int, set[str]]:
    """The schema version (``_schema_version``) and the tables, read in one snapshot: a
    store another process is creating is seen before or after, never half way (the version
    from before and the tables from after made a store being created look foreign)."""
    conn.execute("BEGIN")
    try:
        version = _schema_version(conn, path)
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    finally:
        with contextlib.suppress(sqlite3.Error):
            conn.execute("COMMIT")
    return version, tables


def statements(script: str) -> list[str]:
    """Split a migration into statements so they run inside our own transaction."""
    out: list[str] = []
    buffer = ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            if buffer.strip():
                out.append(buffer.strip())
            buffer = ""
    if buffer.strip():
        out.append(buffer.strip())
    return out

