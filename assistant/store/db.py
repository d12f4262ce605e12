"""The game store: one SQLite file with every game and its log of accepted canonical commands.

The referee writes through ``StoreJournal`` (one committed transaction per accepted command,
before the answer is given); ``lifeguard status/history/stats/export/import`` read and write
through ``GameStore``. Only the standard library's ``sqlite3`` is used, so importing this module
stays cheap for ``lifeguard replay``.

Durability: WAL mode with ``synchronous=FULL``. With WAL, ``NORMAL`` survives a killed process
but may lose the last commits when the power goes (the laptop battery dies): the issue asks for
every answered command to be on disk, so each commit fsyncs the WAL (``bench/store_commit.py``
shows the cost).

This module is the ``GameStore`` class, which composes the store's other concerns, each in a
module of its own: ``errors`` (what goes wrong, in sentences), ``files`` (the files on disk and
what is refused before SQLite opens them), ``locking`` (one session per store), ``schema`` (the
schema, its migrations and the checks of an opened file), ``rows`` (what a stored row means) and
``journal`` (the referee's log). Their public names are importable from here as before.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import urllib.parse
from collections.abc import Iterator, Sequence
from pathlib import Path

from assistant.i18n import _, format
from assistant.referee import Entry
from assistant.store import schema
from assistant.store.errors import MAX_MESSAGE, DamagedGame, StoreError, StoreErrorKind, explain
from assistant.store.files import (
    DB_NAME,
    SIDE_FILES,
    SQLITE_HEADER,
    check_file,
    check_header,
    data_dir,
    exists,
    move_aside,
)
from assistant.store.journal import StoreJournal
from assistant.store.locking import lock_path, release_lock, take_lock
from assistant.store.rows import (
    GAME_COLUMNS,
    MAX_STORED_ENTRIES,
    MAX_STORED_TEXT,
    GameRow,
    GameStatus,
    LogPosition,
    StoredEntry,
    game_row,
    now,
    rules_json,
    stored_text,
)
from assistant.store.schema import MIGRATIONS, SCHEMA_VERSION
from engine.log import MAX_ACTIONS
from engine.rules import HouseRules

__all__ = [
    "DB_NAME", "GAME_COLUMNS", "MAX_MESSAGE", "MAX_STORED_ENTRIES", "MAX_STORED_TEXT",
    "MIGRATIONS", "SCHEMA_VERSION", "SIDE_FILES", "SQLITE_HEADER", "DamagedGame", "GameRow",
    "GameStatus", "GameStore", "LogPosition", "StoreError", "StoreErrorKind", "StoreJournal",
    "StoredEntry", "check_file", "check_header", "data_dir", "explain", "lock_path",
    "move_aside", "now", "release_lock", "rules_json", "take_lock",
]


class GameStore:
    """An open store file. ``GameStore.open`` validates and migrates; see ``open_store``."""

    def __init__(
        self, path: Path, conn: sqlite3.Connection, lock_fd: int | None = None,
        readonly: bool = False,
    ) -> None:
        self.path = path
        self.conn = conn
        conn.row_factory = sqlite3.Row  # rows are read by column name
        self._lock_fd = lock_fd
        self.readonly = readonly

    # -- opening
    @classmethod
    def open(
        cls, directory: str | os.PathLike[str] | None = None, create: bool = True, lock: bool = False,
        readonly: bool = False,
    ) -> GameStore:
        """Open the store in ``directory`` (default ``data_dir()``), creating it if asked.

        ``lock`` takes the session lock: one referee session per store at a time. ``readonly``
        (for the readers: status, history, stats, export) opens it without writing anything, so
        a store on a read-only disk can still be read. Raises ``StoreError`` (kind ``missing``
        when ``create`` is false and there is no store yet).
        """
        folder = Path(directory) if directory is not None else data_dir()
        path = folder / DB_NAME
        if readonly:
            return cls._open_readonly(path)
        if not exists(path):
            if not create:
                raise StoreError(format(_("No games yet: there is no game store at {path}."), path=path),
                                 StoreErrorKind.MISSING, path)
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError as err:
                raise StoreError(format(
                    _("Cannot create the folder {folder} for the game store ({why}). Set "
                      "LIFEGUARD_DATA_DIR to a folder you can write."), folder=folder, why=err.strerror or err),
                    StoreErrorKind.READONLY, path) from None
        check_file(path)
        lock_fd = take_lock(path) if lock else None
        try:
            # Opened where the session starts, written from where commands run (the table's
            # command desk has a thread of its own); one user at a time, never two at once.
            conn = sqlite3.connect(path, isolation_level=None, timeout=5.0,
                                   check_same_thread=False)
        except sqlite3.Error as err:
            release_lock(lock_fd)
            raise explain(err, path, "open") from None
        store = cls(path, conn, lock_fd)
        try:
            schema.prepare(store, create)
        except sqlite3.Error as err:
            store.close()
            raise explain(err, path, "open") from None
        except StoreError:
            store.close()
            raise
        return store

    @classmethod
    def _open_readonly(cls, path: Path) -> GameStore:
        if not exists(path) and not path.is_symlink():
            raise StoreError(format(_("No games yet: there is no game store at {path}."), path=path),
                             StoreErrorKind.MISSING, path)
        check_file(path)
        uri = "file:" + urllib.parse.quote(str(path.resolve()))
        # mode=ro reads a store others may be writing; on a read-only disk SQLite cannot make
        # the WAL index beside it, and 'immutable' reads the file as it is (nobody can write it).
        for options in ("?mode=ro", "?mode=ro&immutable=1"):
            try:
                conn = sqlite3.connect(uri + options, uri=True, isolation_level=None,
                                       timeout=5.0, check_same_thread=False)
            except sqlite3.Error as err:
                raise explain(err, path, "open") from None
            store = cls(path, conn, None, readonly=True)
            try:
                schema.check_readable(conn, path)
                return store
            except sqlite3.Error as err:
                store.close()
                problem = explain(err, path, "read")
                if problem.kind not in (StoreErrorKind.READONLY, StoreErrorKind.IO) or options.endswith("immutable=1"):
                    raise problem from None
            except StoreError:
                store.close()
                raise
        raise AssertionError("unreachable")  # pragma: no cover

    def close(self) -> None:
        with contextlib.suppress(sqlite3.Error):
            self.conn.close()
        release_lock(self._lock_fd)
        self._lock_fd = None

    def __enter__(self) -> GameStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- transactions
    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction; committed (and fsynced) when the block ends without error."""
        conn = self.conn
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
        except sqlite3.Error as err:
            if conn.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
            raise explain(err, self.path, "write") from None

    # -- reading
    def games(self, newest_first: bool = True) -> list[GameRow]:
        order = "DESC" if newest_first else "ASC"
        return [game_row(r) for r in self._read(f"SELECT {GAME_COLUMNS} FROM games ORDER BY id {order}")]

    def game(self, game_id: int) -> GameRow | None:
        rows = self._read(f"SELECT {GAME_COLUMNS} FROM games WHERE id = ?", (game_id,))
        return game_row(rows[0]) if rows else None

    def current_game(self) -> GameRow | None:
        """The newest unfinished game: the one a referee session resumes."""
        rows = self._read(
            f"SELECT {GAME_COLUMNS} FROM games WHERE status = 'unfinished' ORDER BY id DESC LIMIT 1"
        )
        return game_row(rows[0]) if rows else None

    def latest_game(self) -> GameRow | None:
        rows = self._read(f"SELECT {GAME_COLUMNS} FROM games ORDER BY id DESC LIMIT 1")
        return game_row(rows[0]) if rows else None

    def entries(self, game_id: int) -> list[StoredEntry]:
        """A game's log; ``DamagedGame`` (nothing loaded) when it is longer than a game can be
        (``MAX_STORED_ENTRIES`` entries, ``MAX_STORED_TEXT`` characters): counted first, and
        read no further than the bound even if a writer adds to it meanwhile."""
        count, size = self._read(
            "SELECT count(*), coalesce(sum(coalesce(length(command), 0) + coalesce(length(at), 0) "
            "+ coalesce(length(said), 0)), 0) FROM entries WHERE game_id = ?", (game_id,))[0]
        if count > MAX_STORED_ENTRIES:
            raise DamagedGame(game_id, self.path, format(
                _("its log holds {n:,} entries; a game's log holds at most {most:,}, its {commands:,} "
                  "commands and as many undone"), n=count, most=MAX_STORED_ENTRIES, commands=MAX_ACTIONS),
                readable=False)
        if size > MAX_STORED_TEXT:
            raise DamagedGame(game_id, self.path, format(
                _("its log holds {n:,} characters; a whole game holds under {most:,}"), n=size,
                most=MAX_STORED_TEXT), readable=False)
        rows = self._read(
            "SELECT seq, command, joined, at, said FROM entries WHERE game_id = ? ORDER BY seq "
            "LIMIT ?", (game_id, MAX_STORED_ENTRIES + 1))
        if len(rows) > MAX_STORED_ENTRIES:  # written meanwhile
            raise DamagedGame(game_id, self.path, format(_("its log holds more than {most:,} entries"),
                                                         most=MAX_STORED_ENTRIES), readable=False)
        return [StoredEntry(r["seq"], r["command"], bool(r["joined"]), stored_text(r["at"]),
                            stored_text(r["said"])) for r in rows]

    def _read(self, sql: str, params: tuple[object, ...] = ()) -> list[sqlite3.Row]:
        try:
            return self.conn.execute(sql, params).fetchall()
        except sqlite3.Error as err:
            raise explain(err, self.path, "read") from None

    # -- writing (each call is one transaction)
    def add_game(
        self,
        players: Sequence[str],
        rules: HouseRules,
        entries: Sequence[Entry],
        status: GameStatus = GameStatus.UNFINISHED,
        winners: Sequence[str] = (),
        source: str = "played",
        abandon_unfinished: bool = True,
        times: tuple[str, str] | None = None,
    ) -> int:
        """Insert a whole game (an import); returns its id. ``times`` (its start and its last
        command, as ``now()`` writes them) keeps the times an imported game was played at:
        its first entry and its start at the first, the others (and its end) at the second.
        Without them the game is dated now."""
        with self.transaction() as conn:
            return self._insert_game(conn, players, rules, entries, status, winners, source,
                                     abandon_unfinished, times)

    def _insert_game(
        self, conn: sqlite3.Connection, players: Sequence[str], rules: HouseRules,
        entries: Sequence[Entry], status: GameStatus, winners: Sequence[str], source: str,
        abandon_unfinished: bool, times: tuple[str, str] | None = None,
    ) -> int:
        stamp = now()
        started, last = times or (stamp, stamp)
        if abandon_unfinished and status == GameStatus.UNFINISHED:
            conn.execute(
                "UPDATE games SET status = 'abandoned', ended = ? WHERE status = 'unfinished'",
                (stamp,),
            )
        cur = conn.execute(
            "INSERT INTO games (players, rules, started, ended, status, winners, cursor, source) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (json.dumps(list(players)), rules_json(rules), started,
             last if status != GameStatus.UNFINISHED else None, status, json.dumps(list(winners)),
             len(entries), source),
        )
        game_id = int(cur.lastrowid or 0)
        self._insert_entries(conn, game_id, 0, entries[:1], started)
        self._insert_entries(conn, game_id, 1, entries[1:], last)
        return game_id

    @staticmethod
    def _insert_entries(
        conn: sqlite3.Connection, game_id: int, start: int, entries: Sequence[Entry], stamp: str
    ) -> None:
        conn.executemany(
            "INSERT INTO entries (game_id, seq, command, joined, at, said) VALUES (?, ?, ?, ?, ?, ?)",
            [(game_id, start + i, e.command, int(e.joined), stamp, e.said) for i, e in enumerate(entries)],
        )

    def set_abandoned(self, game_id: int) -> None:
        with self.transaction() as conn:
            conn.execute(
                "UPDATE games SET status = 'abandoned', ended = ? WHERE id = ?", (now(), game_id)
            )

    # -- the referee's log (``StoreJournal``): each call one transaction, which first checks
    # that the game is still as ``at`` says, so a second writer can never interleave commands.
    def start_game(self, players: Sequence[str], rules: HouseRules, entries: Sequence[Entry],
                   replacing: int | None) -> int:
        """A new unfinished game with its first entries; an unfinished game before it is
        abandoned. Refused (``conflict``) when a game other than ``replacing`` is unfinished:
        another writer started it. Returns the new game's id."""
        with self.transaction() as conn:
            unfinished = [r["id"] for r in
                          conn.execute("SELECT id FROM games WHERE status = 'unfinished'")]
            if any(gid != replacing for gid in unfinished):
                raise self.conflict()
            return self._insert_game(conn, players, rules, entries, GameStatus.UNFINISHED, (),
                                     "played", True)

    def write_entries(self, at: LogPosition, start: int, entries: Sequence[Entry]) -> None:
        """Replace the log from ``start`` on (the undone entries there) with ``entries``; the
        cursor moves after them and the game is unfinished again."""
        with self.transaction() as conn:
            self._check_position(conn, at)
            conn.execute("DELETE FROM entries WHERE game_id = ? AND seq >= ?", (at.game_id, start))
            self._insert_entries(conn, at.game_id, start, entries, now())
            conn.execute(
                "UPDATE games SET cursor = ?, status = 'unfinished', ended = NULL, winners = '[]' "
                "WHERE id = ?", (start + len(entries), at.game_id))

    def move_cursor(self, at: LogPosition, cursor: int) -> None:
        """Undo or redo: the entries before ``cursor`` are the game; it is unfinished again."""
        with self.transaction() as conn:
            self._check_position(conn, at)
            conn.execute(
                "UPDATE games SET cursor = ?, status = 'unfinished', ended = NULL, winners = '[]' "
                "WHERE id = ?", (cursor, at.game_id))

    def finish_game(self, at: LogPosition, winners: Sequence[str]) -> None:
        with self.transaction() as conn:
            self._check_position(conn, at)
            conn.execute(
                "UPDATE games SET status = 'finished', ended = ?, winners = ? WHERE id = ?",
                (now(), json.dumps(list(winners)), at.game_id))

    def _check_position(self, conn: sqlite3.Connection, at: LogPosition) -> None:
        row = conn.execute(
            "SELECT status, cursor, (SELECT count(*) FROM entries WHERE game_id = games.id) AS count "
            "FROM games WHERE id = ?", (at.game_id,)).fetchone()
        if (row is None or row["status"] == GameStatus.ABANDONED
                or (row["count"], row["cursor"]) != (at.count, at.cursor)):
            raise self.conflict()

    def conflict(self) -> StoreError:
        """Another writer changed the store under this one."""
        return StoreError(format(
            _("The game in {path} was changed by another Lifeguard, so this command was not saved and "
              "nothing changed here. Close this one and start lifeguard again to carry on from the "
              "saved game."), path=self.path), StoreErrorKind.CONFLICT, self.path)
