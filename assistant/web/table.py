"""The game store as the web page sees it: the current game's state, and what each commit changed.

``TableWatch`` is a reader of the store (WAL lets it read while the table or ``chat`` holds the
writer's lock). ``poll`` is meant to be called every ~100 ms: when no other connection committed
since the last call it costs one ``stat`` of the file (a store moved aside or replaced is
followed: the file at the path is read, never an old one kept open) and one
``PRAGMA data_version``; after a commit it reads the current
game (the unfinished one, else the newest, as ``lifeguard status`` does) in one read transaction,
replays it through the engine (``store.current``, the one load-and-replay) and returns one
``Change`` per accepted command, undo or redo, also when several commits fell between two polls.
``table`` is the table model of what was read (``assistant.table.TableState``) and ``state``
its JSON, ``/state.json``. No web library is imported here.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from assistant import i18n
from assistant.commands import Command, parse
from assistant.i18n import _
from assistant.store.current import RECENT, commands_started_between, said_of
from assistant.store.current import table_state as stored_table_state
from assistant.store.db import (
    DB_NAME,
    GameRow,
    GameStore,
    StoredEntry,
    StoreError,
    StoreErrorKind,
    explain,
)
from assistant.store.db import data_dir as default_data_dir
from assistant.table import TableState, last_turn_taken, points_table
from assistant.table.state import JSON

__all__ = ["RECENT", "Change", "Seen", "TableWatch", "changes_between",
           "commands_started_between", "last_turn_taken", "no_game_state", "parse_once", "points_table", "said_of",
           "table_model", "table_state"]

@dataclass(frozen=True)
class Seen:
    """The current game as one read transaction saw it."""

    row: GameRow
    #: Undone entries included; a rewritten entry has a new ``at``, so it compares unequal.
    lines: tuple[StoredEntry, ...]


@dataclass(frozen=True)
class Change:
    """One accepted command, undo or redo, as the events tell it."""

    kind: str  # "new_game", "command", "undo" or "redo"
    game: int
    command: str  # the canonical command (for an undo: the command taken back)
    said: str  # what the referee announced for it ("" for undo)

    def to_json(self) -> JSON:
        return {"kind": self.kind, "game": self.game, "command": self.command, "said": self.said}


def no_game_state() -> JSON:
    """What ``lifeguard status --json`` says with no game, plus the page's extra keys."""
    return TableState.of(None).to_json()


class TableWatch:
    """Follows the current game of the store in ``directory`` (default: the usual data folder)."""

    def __init__(self, directory: str | Path | None = None) -> None:
        self.folder = Path(directory) if directory is not None else default_data_dir()
        self.path = self.folder / DB_NAME
        self.store: GameStore | None = None
        self.seen: Seen | None = None
        #: The table model of what was seen, and its JSON (``/state.json``), made once per commit.
        self.table = TableState.of(None)
        self.state: JSON = self.table.to_json()
        self._data_version: int | None = None
        self.looked = False
        #: The open store's file as (device, inode), to notice another file at the path.
        self.identity: tuple[int, int] | None = None

    def open(self) -> bool:
        """Open the store if it is there (a missing store is no error: no game yet). Raises
        ``StoreError`` for a store that cannot be read (damaged, foreign, newer) and for a path
        the system refuses (a name too long, a folder that may not be entered)."""
        if self.store is not None:
            return True
        identity = self.file_identity()
        if identity is None:
            return False
        try:
            self.store = GameStore.open(self.folder, create=False)
        except StoreError as err:
            if err.kind == StoreErrorKind.MISSING:
                return False
            raise
        if self.file_identity() != identity:  # replaced while being opened: look again next time
            self.close()
            return False
        self.identity = identity
        return True

    def close(self) -> None:
        if self.store is not None:
            self.store.close()
            self.store = None
        self.identity = None

    def file_identity(self) -> tuple[int, int] | None:
        """The file at the store's path as (device, inode); None when there is none."""
        try:
            info = os.stat(self.path)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as err:
            raise explain(err, self.path, "read") from None
        return info.st_dev, info.st_ino

    def follow_path(self) -> bool:
        """Whether the open store is no longer the file at its path (moved aside, replaced or
        deleted: an open SQLite connection keeps reading the old file for ever). If so it is
        closed and what was seen in it forgotten; the next ``open`` takes the file at the path."""
        if self.store is None or self.file_identity() == self.identity:
            return False
        self.close()
        self._data_version = None
        self.seen = None
        self.table = TableState.of(None)
        self.state = self.table.to_json()
        return True

    def poll(self) -> list[Change]:
        """What was committed since the last poll; ``state`` is brought up to date. The first
        poll only looks (a game under way when the server starts is no change). A store
        replaced at its path is followed: its game comes as new."""
        first, self.looked = not self.looked, True
        self.follow_path()
        if not self.open():
            return []
        assert self.store is not None
        conn = self.store.conn
        try:
            version = conn.execute("PRAGMA data_version").fetchone()[0]
            if version == self._data_version:
                return []
            seen = self._read(conn)
        except sqlite3.Error as err:
            raise StoreError(i18n.format(_("Cannot read the game store {path}: {reason}."),
                                         path=self.path, reason=err),
                             StoreErrorKind.IO, self.path) from None
        self._data_version = version
        before, self.seen = self.seen, seen
        if seen == before:
            return []  # a commit that changed nothing shown (e.g. another game's row)
        self.table = table_model(seen, self.path)
        self.state = self.table.to_json()
        return [] if first else changes_between(before, seen)

    def _read(self, conn: sqlite3.Connection) -> Seen | None:
        """The current game and its entries, both from one snapshot of the file."""
        store = self.store
        assert store is not None
        conn.execute("BEGIN")
        try:
            row = store.current_game() or store.latest_game()
            return Seen(row, tuple(store.entries(row.id))) if row is not None else None
        finally:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("COMMIT")


# ---------------------------------------------------------------------------- what changed
def changes_between(before: Seen | None, after: Seen | None) -> list[Change]:
    """The commands, undos and redos that lead from ``before`` to ``after`` (None: no game).

    Undone entries stay in the
    store until a new command replaces them, so a redo is a cursor moving over unchanged
    entries, and a new command after an undo is an entry rewritten (a new ``at``)."""
    if after is None:
        return []
    if before is None or before.row.id != after.row.id:
        return _new_game(after)
    game = after.row.id
    old, new = before.lines, after.lines
    c0, c1 = before.row.cursor, after.row.cursor
    same = 0
    while same < min(len(old), len(new)) and old[same] == new[same]:
        same += 1
    out: list[Change] = []
    if same >= max(c0, c1):  # nothing in play was rewritten: only the cursor moved
        return _cursor_moved(game, old, new, c0, c1)
    if c0 > same:  # taken back first, then replaced
        out += [Change("undo", game, old[i].command, "")
                for i in reversed(commands_started_between(old, same, c0))]
    out += [Change("new_game" if i == 0 else "command", game, new[i].command, said_of(new, i))
            for i in commands_started_between(new, same, c1)]
    return out


def _new_game(after: Seen) -> list[Change]:
    """A game new since the last poll, with the commands already played in it (an imported
    game is one change: its commands were not played here)."""
    game = after.row.id
    end = after.row.cursor if after.row.source == "played" else min(1, after.row.cursor)
    return [Change("new_game" if i == 0 else "command", game, after.lines[i].command,
                   said_of(after.lines, i)) for i in commands_started_between(after.lines, 0, end)]


def _cursor_moved(game: int, old: Sequence[StoredEntry], new: Sequence[StoredEntry],
                  c0: int, c1: int) -> list[Change]:
    """Undos (the cursor moved back) or redos (forward) over entries that did not change."""
    if c1 < c0:
        return [Change("undo", game, old[i].command, "")
                for i in reversed(commands_started_between(old, c1, c0))]
    return [Change("redo", game, new[i].command, said_of(new, i))
            for i in commands_started_between(new, c0, c1)]


# ---------------------------------------------------------------------------- the state
def table_model(seen: Seen | None, path: Path) -> TableState:
    """The table model of what was seen: the game, its id, the last announcements (newest
    first) and the score sheet; a game the engine cannot replay gets an ``error`` sentence."""
    if seen is None:
        return TableState.of(None)
    return stored_table_state(seen.row, seen.lines, path, parse_command=parse_once)


def table_state(seen: Seen | None, path: Path) -> JSON:
    """``lifeguard status --json`` for the game plus the page's keys (``TableState.to_json``)."""
    return table_model(seen, path).to_json()


@functools.lru_cache(maxsize=4096)
def parse_once(text: str, players: tuple[str, ...] | None) -> Command:
    """``parse``, remembered: the game is replayed after every commit, and parsing is most of
    a replay's time (a ``Command`` is immutable, so sharing one is safe)."""
    return parse(text, players)
