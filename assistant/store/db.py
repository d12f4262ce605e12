"""The game store: one SQLite file with every game and its log of accepted canonical commands.

The referee writes through ``StoreJournal`` (one committed transaction per accepted command,
before the answer is given); ``lifeguard status/history/stats/export/import`` read and write
through ``GameStore``. Only the standard library's ``sqlite3`` is used, so importing this module
stays cheap for ``lifeguard replay``.

Durability: WAL mode with ``synchronous=FULL``. With WAL, ``NORMAL`` survives a killed process
but may lose the last commits when the power goes (the laptop battery dies): the issue asks for
every answered command to be on disk, so each commit fsyncs the WAL (``bench/store_commit.py``
shows the cost).
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import sqlite3
import stat
import urllib.parse
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

from assistant.commands.text import printable
from assistant.referee import Entry, JournalError
from engine.log import MAX_ACTIONS
from engine.rules import HouseRules

#: The longest message a ``StoreError`` carries (the longest written here is under 600).
MAX_MESSAGE = 2000
SCHEMA_VERSION = 1
DB_NAME = "lifeguard.sqlite3"
SQLITE_HEADER = b"SQLite format 3\x00"
#: The most entries of one game's log that are ever read: a game holds ``MAX_ACTIONS``
#: commands, and the undone ones kept after them are never more than that. A longer log (only
#: another tool writes one) is a damaged game, found by counting before anything is loaded, so
#: memory stays proportional to this bound (a million entries took 485 MB to be refused).
MAX_STORED_ENTRIES = 2 * MAX_ACTIONS
#: The most characters of one game's log (its commands, times and announcements) ever read:
#: a whole game of ``MAX_STORED_ENTRIES`` entries is under 2 million.
MAX_STORED_TEXT = 8_000_000


class GameStatus(StrEnum):
    """A stored game's ``status`` (the schema's CHECK allows exactly these)."""

    UNFINISHED = "unfinished"
    FINISHED = "finished"
    ABANDONED = "abandoned"


class StoreErrorKind(StrEnum):
    """What went wrong, for the callers that act on it (``StoreError.kind``)."""

    MISSING = "missing"  # no store (or no such game) yet
    CORRUPT = "corrupt"  # SQLite says the file is damaged
    FOREIGN = "foreign"  # not a Lifeguard store at all
    NEWER = "newer"  # written by a newer Lifeguard
    READONLY = "readonly"  # cannot be written (or opened) here
    FULL = "full"  # the disk is full
    LOCKED = "locked"  # another Lifeguard holds it
    CONFLICT = "conflict"  # another writer changed the game under this one
    DAMAGED = "damaged"  # one game cannot be used; the others can (``DamagedGame``)
    IO = "io"  # anything else


class StoreError(JournalError):
    """The store cannot be used or written; the message names the file and says what to do.

    The message is made printable (``printable``) here, once for every front end: it may carry
    what a file holds (the tables of another program's database, SQLite's own report of a
    damaged one, a name another tool wrote), and is shown as typed input is."""

    def __init__(self, message: str, kind: StoreErrorKind = StoreErrorKind.IO,
                 path: Path | None = None) -> None:
        message = printable(message, MAX_MESSAGE)
        super().__init__(message)
        self.message = message
        self.kind = kind
        self.path = path

    def __str__(self) -> str:
        return self.message

    @property
    def can_move_aside(self) -> bool:
        """Only a file that is no usable store at all may be moved aside (never a newer one)."""
        return self.kind in (StoreErrorKind.CORRUPT, StoreErrorKind.FOREIGN)


def data_dir() -> Path:
    """Where the store lives: ``$LIFEGUARD_DATA_DIR``, else the user's data directory."""
    env = os.environ.get("LIFEGUARD_DATA_DIR")
    if env:
        try:
            return Path(env).expanduser()
        except RuntimeError:  # '~someone/...' for a user this machine does not know
            raise StoreError(f"LIFEGUARD_DATA_DIR is {env!r}, whose home folder is not known here: "
                             "set it to a folder you can write.", StoreErrorKind.READONLY) from None
    from platformdirs import user_data_dir

    return Path(user_data_dir("lifeguard", appauthor=False))


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


# ---------------------------------------------------------------------------- schema
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


@dataclass(frozen=True)
class GameRow:
    id: int
    players: tuple[str, ...]
    rules: dict[str, Any]  # as stored: HouseRules' fields, checked when the game is rebuilt
    started: str
    ended: str | None
    status: GameStatus
    winners: tuple[str, ...]
    cursor: int
    source: str
    #: What is wrong with the stored row (None when it is sound): such a game is named in a
    #: sentence, never replayed, and the other games stay usable.
    damage: str | None = None
    #: The stored values as they are (for ``export --format json`` of a damaged game).
    raw: tuple[object, ...] = ()

    def house_rules(self) -> HouseRules:
        return HouseRules(**self.rules)


class DamagedGame(StoreError):
    """One game's stored row or log cannot be used; the store and its other games can."""

    def __init__(self, game_id: int, path: Path, what: str, readable: bool = True) -> None:
        # A log too long to be read cannot be exported either: only setting it aside is offered.
        rescue = (f"'lifeguard export {game_id} --format json' writes what is stored in it"
                  if readable else "It is too long to be read or exported")
        super().__init__(
            f"Game {game_id} in {path} is damaged ({what}); the other games are not affected. "
            f"{rescue}, and 'lifeguard chat --set-aside-damaged-game' marks it abandoned so that "
            "play can go on.", StoreErrorKind.DAMAGED, path)
        self.game_id = game_id
        self.readable = readable


@dataclass(frozen=True)
class StoredEntry:
    seq: int
    command: str
    joined: bool
    at: str
    said: str


@dataclass(frozen=True)
class LogPosition:
    """Where a writer believes its game's log stands: how many entries, and the cursor."""

    game_id: int
    count: int
    cursor: int


def _names(value: object, what: str, problems: list[str]) -> tuple[str, ...]:
    """A stored JSON list of names; () with a problem noted when it is not one."""
    try:
        decoded = json.loads(value) if isinstance(value, str | bytes) else None
    except (ValueError, RecursionError):
        decoded = None
    if not isinstance(decoded, list) or not all(isinstance(n, str) for n in decoded):
        problems.append(f"its {what} are not a list of names")
        return ()
    return tuple(decoded)


def _rules(value: object, problems: list[str]) -> dict[str, Any]:
    """The stored JSON object of house rules; {} with a problem noted when it is not one."""
    try:
        decoded = json.loads(value) if isinstance(value, str | bytes) else None
    except (ValueError, RecursionError):
        decoded = None
    if not isinstance(decoded, dict):
        problems.append("its house rules are not readable")
        return {}
    return decoded


def _check_stamps(row: sqlite3.Row, problems: list[str]) -> None:
    """The start time (and the end time, when there is one) must be ISO 8601 dates."""
    for what, stamp in (("start time", row["started"]), ("end time", row["ended"])):
        if stamp is None and what == "end time":
            continue
        try:
            datetime.fromisoformat(stamp)
        except (TypeError, ValueError):
            problems.append(f"its {what} {str(stamp)[:40]!r} is not a date")


def _row_to_game(row: sqlite3.Row) -> GameRow:
    """A stored row as a ``GameRow``; a value that is not what the schema means gives a row
    with ``damage`` set (and empty values), never an exception."""
    problems: list[str] = []
    player_names = _names(row["players"], "players", problems)
    winner_names = _names(row["winners"], "winners", problems)
    decoded_rules = _rules(row["rules"], problems)
    _check_stamps(row, problems)
    cursor = row["cursor"]
    if not isinstance(cursor, int) or cursor < 0:
        problems.append(f"its cursor {str(cursor)[:20]!r} is not a position in its log")
    try:
        status = GameStatus(row["status"])
    except ValueError:  # only a file written around the schema's CHECK
        problems.append(f"its status {str(row['status'])[:20]!r} is not one of "
                        f"{', '.join(GameStatus)}")
        status = GameStatus.ABANDONED
    if problems:
        return GameRow(row["id"], (), {}, str(row["started"]), None, status, (), 0,
                       str(row["source"]), "; ".join(problems), tuple(row))
    return GameRow(row["id"], player_names, decoded_rules, row["started"], row["ended"], status,
                   winner_names, cursor, row["source"], None, tuple(row))


GAME_COLUMNS = "id, players, rules, started, ended, status, winners, cursor, source"


def rules_json(rules: HouseRules) -> str:
    return json.dumps({name: getattr(rules, name) for name in HouseRules.field_names()})


# ---------------------------------------------------------------------------- errors
def explain(err: BaseException, path: Path, doing: str = "use") -> StoreError:
    """Turn an sqlite3/OS error into a sentence for a person: the file and what to do."""
    name = getattr(err, "sqlite_errorname", "") or ""
    text = str(err)
    for matches, kind, sentence in _EXPLAINED:
        if matches(name, text, err):
            reason = getattr(err, "strerror", None) or text
            return StoreError(sentence.format(path=path, text=text, reason=reason), kind, path)
    return StoreError(f"Cannot {doing} the game store {path}: {text}.", StoreErrorKind.IO, path)


#: (does it match (SQLite's error name, the message, the error), kind, the sentence), in order:
#: the first that matches explains the error.
_EXPLAINED: tuple[tuple[Callable[[str, str, BaseException], bool], StoreErrorKind, str], ...] = (
    (lambda name, text, err: name == "SQLITE_FULL" or "disk is full" in text,
     StoreErrorKind.FULL,
     "The disk holding the game store {path} is full, so nothing was saved or changed. "
     "Free some disk space, then say the command again."),
    (lambda name, text, err: (name.startswith("SQLITE_READONLY") or "readonly" in text
                              or getattr(err, "errno", None) in (errno.EROFS, errno.EACCES,
                                                                 errno.EPERM)),
     StoreErrorKind.READONLY,
     "Cannot write the game store {path}: the file or its folder is read-only. Make the "
     "folder writable, or set LIFEGUARD_DATA_DIR to a folder you can write."),
    (lambda name, text, err: name == "SQLITE_NOTADB" or "not a database" in text,
     StoreErrorKind.FOREIGN,
     "{path} is not a Lifeguard game store (it is not an SQLite database); nothing in it "
     "was changed. Move it away, or run 'lifeguard chat --move-aside-bad-store' to rename "
     "it and start a new store."),
    (lambda name, text, err: name.startswith("SQLITE_CORRUPT") or "malformed" in text,
     StoreErrorKind.CORRUPT,
     "The game store {path} is damaged ({text}); nothing in it was changed. Keep a copy, "
     "then run 'lifeguard chat --move-aside-bad-store' to rename it and start a new store."),
    (lambda name, text, err: name.startswith("SQLITE_BUSY") or "locked" in text,
     StoreErrorKind.LOCKED,
     "The game store {path} is busy: another program is writing it. Close the other "
     "lifeguard and try again."),
    (lambda name, text, err: name.startswith("SQLITE_CANTOPEN") or isinstance(err, OSError),
     StoreErrorKind.READONLY,
     "Cannot open the game store {path} ({reason}). Check that its folder exists and is "
     "writable, or set LIFEGUARD_DATA_DIR to a folder you can write."),
)


# ---------------------------------------------------------------------------- the store
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
        if not _exists(path):
            if not create:
                raise StoreError(f"No games yet: there is no game store at {path}.", StoreErrorKind.MISSING, path)
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError as err:
                raise StoreError(
                    f"Cannot create the folder {folder} for the game store ({err.strerror or err}). "
                    "Set LIFEGUARD_DATA_DIR to a folder you can write.", StoreErrorKind.READONLY, path) from None
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
            store._prepare(create)
        except sqlite3.Error as err:
            store.close()
            raise explain(err, path, "open") from None
        except StoreError:
            store.close()
            raise
        return store

    @classmethod
    def _open_readonly(cls, path: Path) -> GameStore:
        if not _exists(path) and not path.is_symlink():
            raise StoreError(f"No games yet: there is no game store at {path}.", StoreErrorKind.MISSING, path)
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
                store._check_readable()
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

    def _schema_version(self) -> int:
        """The store's schema version; one newer than this Lifeguard knows is refused untouched."""
        conn, path = self.conn, self.path
        conn.execute("PRAGMA busy_timeout = 5000")
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"The game store {path} was written by a newer Lifeguard (schema {version}; this "
                f"one knows up to {SCHEMA_VERSION}). It was not changed: use the newer Lifeguard, "
                "or set LIFEGUARD_DATA_DIR to another folder.", StoreErrorKind.NEWER, path)
        return version

    def _check_integrity(self) -> None:
        """SQLite's own check of the file; a damaged store is refused untouched."""
        path = self.path
        problems = [r[0] for r in self.conn.execute("PRAGMA quick_check")]
        if problems != ["ok"]:
            raise StoreError(
                f"The game store {path} is damaged ({'; '.join(' '.join(p.split()) for p in problems[:3])}); "
                "nothing in it was changed. Keep a copy, then run 'lifeguard chat "
                "--move-aside-bad-store' to rename it and start a new store.", StoreErrorKind.CORRUPT, path)

    def _look(self) -> tuple[int, set[str]]:
        """The schema version (``_schema_version``) and the tables, read in one snapshot: a
        store another process is creating is seen before or after, never half way (the version
        from before and the tables from after made a store being created look foreign)."""
        conn = self.conn
        conn.execute("BEGIN")
        try:
            version = self._schema_version()
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        finally:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("COMMIT")
        return version, tables

    def _check_readable(self) -> None:
        """The checks of ``_prepare`` that need no writing."""
        path = self.path
        version, tables = self._look()
        if version == 0 and not tables:
            raise StoreError(f"No games yet in {path}.", StoreErrorKind.MISSING, path)
        if version == 0 or not {"games", "entries"} <= tables:
            raise StoreError(
                f"{path} is not a Lifeguard game store, or it is damaged (its tables are "
                "missing); nothing in it was changed.", StoreErrorKind.FOREIGN, path)
        self._check_integrity()

    def _prepare(self, create: bool) -> None:
        """Validate before anything is written; then WAL, durability and migrations. Without
        ``create``, an empty file (a store another process is creating) is no store yet: it is
        left to its creator, never migrated here."""
        conn, path = self.conn, self.path
        version, tables = self._look()
        if version == 0 and not tables and not create:
            raise StoreError(f"No games yet: there is no game store at {path}.",
                             StoreErrorKind.MISSING, path)
        if version == 0 and tables:
            raise StoreError(
                f"{path} is an SQLite database but not a Lifeguard game store (it has tables "
                f"{', '.join(sorted(tables))}); nothing in it was changed. Move it away, or run "
                "'lifeguard chat --move-aside-bad-store' to rename it and start a new store.",
                StoreErrorKind.FOREIGN, path)
        self._check_integrity()
        if version >= 1 and not {"games", "entries"} <= tables:
            raise StoreError(
                f"The game store {path} is damaged (its tables are missing); nothing in it was "
                "changed. Run 'lifeguard chat --move-aside-bad-store' to rename it and start a "
                "new store.", StoreErrorKind.CORRUPT, path)
        mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
        if mode != "wal":
            conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = FULL")
        conn.execute("PRAGMA foreign_keys = ON")
        for target in range(version, SCHEMA_VERSION):
            with self.transaction():
                if conn.execute("PRAGMA user_version").fetchone()[0] > target:
                    continue  # another writer took it there meanwhile
                for statement in _statements(MIGRATIONS[target]):
                    conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {target + 1}")

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
        return [_row_to_game(r) for r in self._read(f"SELECT {GAME_COLUMNS} FROM games ORDER BY id {order}")]

    def game(self, game_id: int) -> GameRow | None:
        rows = self._read(f"SELECT {GAME_COLUMNS} FROM games WHERE id = ?", (game_id,))
        return _row_to_game(rows[0]) if rows else None

    def current_game(self) -> GameRow | None:
        """The newest unfinished game: the one a referee session resumes."""
        rows = self._read(
            f"SELECT {GAME_COLUMNS} FROM games WHERE status = 'unfinished' ORDER BY id DESC LIMIT 1"
        )
        return _row_to_game(rows[0]) if rows else None

    def latest_game(self) -> GameRow | None:
        rows = self._read(f"SELECT {GAME_COLUMNS} FROM games ORDER BY id DESC LIMIT 1")
        return _row_to_game(rows[0]) if rows else None

    def entries(self, game_id: int) -> list[StoredEntry]:
        """A game's log; ``DamagedGame`` (nothing loaded) when it is longer than a game can be
        (``MAX_STORED_ENTRIES`` entries, ``MAX_STORED_TEXT`` characters): counted first, and
        read no further than the bound even if a writer adds to it meanwhile."""
        count, size = self._read(
            "SELECT count(*), coalesce(sum(coalesce(length(command), 0) + coalesce(length(at), 0) "
            "+ coalesce(length(said), 0)), 0) FROM entries WHERE game_id = ?", (game_id,))[0]
        if count > MAX_STORED_ENTRIES:
            raise DamagedGame(game_id, self.path,
                              f"its log holds {count:,} entries; a game's log holds at most "
                              f"{MAX_STORED_ENTRIES:,}, its {MAX_ACTIONS:,} commands and as many "
                              "undone", readable=False)
        if size > MAX_STORED_TEXT:
            raise DamagedGame(game_id, self.path,
                              f"its log holds {size:,} characters; a whole game holds under "
                              f"{MAX_STORED_TEXT:,}", readable=False)
        rows = self._read(
            "SELECT seq, command, joined, at, said FROM entries WHERE game_id = ? ORDER BY seq "
            "LIMIT ?", (game_id, MAX_STORED_ENTRIES + 1))
        if len(rows) > MAX_STORED_ENTRIES:  # written meanwhile
            raise DamagedGame(game_id, self.path, f"its log holds more than "
                              f"{MAX_STORED_ENTRIES:,} entries", readable=False)
        return [StoredEntry(r["seq"], r["command"], bool(r["joined"]), _text(r["at"]),
                            _text(r["said"])) for r in rows]

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
        return StoreError(
            f"The game in {self.path} was changed by another Lifeguard, so this command "
            "was not saved and nothing changed here. Close this one and start lifeguard again to "
            "carry on from the saved game.", StoreErrorKind.CONFLICT, self.path)


def _statements(script: str) -> list[str]:
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


def _text(value: object) -> str:
    """A stored value meant as text, as text: another tool may have written bytes or a number
    in its place (a BLOB in ``said`` broke the JSON export, the rescue the messages offer)."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return "" if value is None else str(value)


def _exists(path: Path) -> bool:
    """Whether ``path`` exists; a path the system will not look at (a name too long, a folder
    that may not be entered) is a ``StoreError`` saying so, not an ``OSError``."""
    try:
        return path.exists()
    except OSError as err:
        raise StoreError(f"Cannot use the game store {path} ({err.strerror or err}): set "
                         "LIFEGUARD_DATA_DIR to a folder you can write.", StoreErrorKind.READONLY, path) from None


#: The files SQLite keeps beside the store: the write-ahead log, its index and the rollback
#: journal. SQLite opens them by name, following links, and truncates or rewrites them.
SIDE_FILES = ("-wal", "-shm", "-journal")
#: How every file of the store is opened: never through a symbolic link (a link planted in
#: the data folder must not make Lifeguard write another file), never waiting on a FIFO.
_OPEN_FLAGS = os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)


def _not_a_file(info: os.stat_result) -> str | None:
    """What a file that is not a plain regular file is, in words (None: a regular file)."""
    mode = info.st_mode
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def _look_at(path: Path, owner: Path) -> os.stat_result | None:
    """``lstat`` (the name itself, never what a link points to); None when there is none."""
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as err:
        raise explain(err, owner, "read") from None


def check_file(path: Path) -> None:
    """Refuse what is not a regular SQLite file before sqlite3 touches it (it could be anything:
    a FIFO would make every subcommand wait forever), and the files SQLite keeps beside it when
    they are links or other names of another file (SQLite would truncate what they point to)."""
    info = _look_at(path, path)
    kind = _not_a_file(info) if info is not None else None
    if kind is not None:
        follow = (" Lifeguard does not follow links for its files: set LIFEGUARD_DATA_DIR to "
                  "the folder the store is in." if kind == "a symbolic link" else "")
        raise StoreError(
            f"The game store {path} is {kind}, not a file; nothing was read or changed.{follow} "
            "Move it away, or set LIFEGUARD_DATA_DIR to another folder.", StoreErrorKind.FOREIGN, path)
    if info is not None and info.st_nlink > 1:
        # SQLite would write the other file through this name (and keep its -wal and -shm
        # beside this one, where another program using that file does not look for them).
        raise StoreError(
            f"The game store {path} is a second name of another file (a hard link): SQLite "
            "would write through it, so nothing was read or changed. Put a copy of its own "
            "there (cp), or run 'lifeguard chat --move-aside-bad-store' to rename it and start "
            "a new store.", StoreErrorKind.FOREIGN, path)
    for suffix in SIDE_FILES:
        side = path.with_name(path.name + suffix)
        info = _look_at(side, path)
        if info is None:
            continue
        kind = _not_a_file(info) or ("a second name of another file (a hard link)"
                                     if info.st_nlink > 1 else None)
        if kind is not None:
            raise StoreError(
                f"{side}, a file SQLite keeps beside the game store {path}, is {kind}: SQLite "
                "would write through it, so nothing was read or changed. Move it away, or run "
                "'lifeguard chat --move-aside-bad-store' to rename the store with it and start "
                "a new store.", StoreErrorKind.FOREIGN, path)
    check_header(path)


def check_header(path: Path) -> None:
    """Refuse a file that is not SQLite before sqlite3 touches it (it could be anything)."""
    try:
        fd = os.open(path, os.O_RDONLY | _OPEN_FLAGS)
    except FileNotFoundError:
        return
    except OSError as err:
        raise explain(err, path, "read") from None
    try:
        head = os.read(fd, len(SQLITE_HEADER))
    except OSError as err:
        raise explain(err, path, "read") from None
    finally:
        os.close(fd)
    if head and head != SQLITE_HEADER:
        raise StoreError(
            f"{path} is not a Lifeguard game store (it is not an SQLite database); nothing in it "
            "was changed. Move it away, or run 'lifeguard chat --move-aside-bad-store' to rename "
            "it and start a new store.", StoreErrorKind.FOREIGN, path)


# ---------------------------------------------------------------------------- session lock
def lock_path(path: Path) -> Path:
    return path.with_name(path.name + ".lock")


def take_lock(path: Path) -> int:
    """One referee session per store: an exclusive ``flock`` held while the session is open.

    The kernel drops it when the process dies (SIGKILL included), so a crash never leaves a
    stale lock behind.
    """
    import fcntl

    where = lock_path(path)
    kind: str | None = None
    try:
        # Never through a link, and never a second name of another file: the pid written below
        # would overwrite what it points to.
        fd = os.open(where, os.O_RDWR | os.O_CREAT | _OPEN_FLAGS, 0o644)
        info = os.fstat(fd)
        kind = _not_a_file(info) or ("a second name of another file (a hard link)"
                                     if info.st_nlink > 1 else None)
        if kind is not None:
            os.close(fd)
    except IsADirectoryError:
        kind = "a folder"
    except OSError as err:
        if err.errno != errno.ELOOP:
            raise explain(err, path, "lock") from None
        kind = "a symbolic link"
    if kind is not None:
        raise StoreError(
            f"The lock file {where} is {kind}, not a file of its own, so the game store {path} "
            f"cannot be locked; nothing was written, and the store itself is fine. Remove or "
            f"rename {where} and try again.", StoreErrorKind.LOCKED, path)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        try:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
        except OSError:
            holder = ""
        os.close(fd)
        who = f" (process {holder})" if holder.isdigit() else ""
        raise StoreError(
            f"The game store {path} is in use by another Lifeguard{who}. Carry on there, or "
            "close it first; to play a separate game at the same time, set LIFEGUARD_DATA_DIR "
            "to another folder.", StoreErrorKind.LOCKED, path) from None
    except OSError as err:
        os.close(fd)
        raise explain(err, path, "lock") from None
    with contextlib.suppress(OSError):
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
    return fd


def release_lock(fd: int | None) -> None:
    if fd is not None:
        with contextlib.suppress(OSError):
            os.close(fd)


def move_aside(path: Path) -> Path:
    """Rename a bad store (and the files SQLite keeps beside it) out of the way; returns the
    new name."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    target = path.with_name(f"{path.name}.bad-{stamp}")
    n = 1
    while os.path.lexists(target):  # a link there is a name taken too
        n += 1
        target = path.with_name(f"{path.name}.bad-{stamp}-{n}")
    try:
        for suffix in SIDE_FILES:
            side = path.with_name(path.name + suffix)
            if os.path.lexists(side):  # renamed, links too (a rename never follows one)
                side.rename(target.with_name(target.name + suffix))
        path.rename(target)
    except OSError as err:
        raise explain(err, path, "move aside") from None
    return target


# ---------------------------------------------------------------------------- the journal
class StoreJournal:
    """The referee's ``Journal`` backed by the store: every call is one committed transaction.

    It remembers how many entries its game has and where the cursor is; each write first checks
    the file still says so, so a second writer can never interleave commands into this game.
    """

    def __init__(self, store: GameStore, game: GameRow | None = None, count: int = 0) -> None:
        self.store = store
        self.game_id: int | None = game.id if game else None
        self.count = count
        self.cursor = game.cursor if game else 0
        self._pending: tuple[tuple[str, ...], HouseRules] | None = None
        self._unsaved_finish: tuple[str, ...] | None = None

    def new_game(self, players: Sequence[str], rules: HouseRules) -> None:
        # Written together with the game's first entries, in one transaction (see append).
        self._pending = (tuple(players), rules)

    def append(self, entries: Sequence[Entry], cursor_before: int) -> None:
        pending, self._pending = self._pending, None
        if pending is not None:
            game_id = self.store.start_game(pending[0], pending[1], entries, replacing=self.game_id)
            self.game_id, self.count, self.cursor = game_id, len(entries), len(entries)
            self._unsaved_finish = None
            return
        if self.game_id is None:
            raise StoreError("No game is open in the store.", StoreErrorKind.CONFLICT,
                             self.store.path)
        self.store.write_entries(self._position(self.game_id), cursor_before, entries)
        self.count = self.cursor = cursor_before + len(entries)
        self._unsaved_finish = None

    def move_cursor(self, cursor: int) -> None:
        if self.game_id is None:
            return
        self.store.move_cursor(self._position(self.game_id), cursor)
        self.cursor = cursor
        self._unsaved_finish = None

    def finish(self, winners: Sequence[str]) -> None:
        """Mark the game finished. Never raises: the winning command is already saved, and the
        status can be recomputed from the log (``open_session`` repairs it), so a failure here
        must not make the referee take back a command the store holds."""
        self._unsaved_finish = tuple(winners)
        self.flush()

    def flush(self) -> None:
        if self._unsaved_finish is None or self.game_id is None:
            return
        try:
            self.store.finish_game(self._position(self.game_id), self._unsaved_finish)
        except StoreError:
            return
        self._unsaved_finish = None

    def _position(self, game_id: int) -> LogPosition:
        return LogPosition(game_id, self.count, self.cursor)
