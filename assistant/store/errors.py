"""What can go wrong with the game store, as sentences for a person: ``StoreError`` (with the
``StoreErrorKind`` the callers act on), ``DamagedGame`` for one unusable game, and ``explain``,
which turns an ``sqlite3`` or OS error into one. Raised by every store module; caught by the
front ends, which show the message as it is.
"""

from __future__ import annotations

import errno
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path

from assistant.commands.text import printable
from assistant.i18n import N_, _, format
from assistant.referee import JournalError

#: The longest message a ``StoreError`` carries (the longest written here is under 600).
MAX_MESSAGE = 2000


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


class DamagedGame(StoreError):
    """One game's stored row or log cannot be used; the store and its other games can."""

    def __init__(self, game_id: int, path: Path, what: str, readable: bool = True) -> None:
        # A log too long to be read cannot be exported either: only setting it aside is offered.
        message = (_("Game {game} in {path} is damaged ({what}); the other games are not affected. "
                     "'lifeguard export {game} --format json' writes what is stored in it, and "
                     "'lifeguard chat --set-aside-damaged-game' marks it abandoned so that play can "
                     "go on.") if readable else
                   _("Game {game} in {path} is damaged ({what}); the other games are not affected. "
                     "It is too long to be read or exported, and 'lifeguard chat "
                     "--set-aside-damaged-game' marks it abandoned so that play can go on."))
        super().__init__(format(message, game=game_id, path=path, what=what), StoreErrorKind.DAMAGED, path)
        self.game_id = game_id
        self.readable = readable


def explain(err: BaseException, path: Path, doing: str = "use") -> StoreError:
    """Turn an sqlite3/OS error into a sentence for a person: the file and what to do."""
    name = getattr(err, "sqlite_errorname", "") or ""
    text = str(err)
    for matches, kind, sentence in _EXPLAINED:
        if matches(name, text, err):
            reason = getattr(err, "strerror", None) or text
            return StoreError(format(_(sentence), path=path, text=text, reason=reason), kind, path)
    return StoreError(format(_(_CANNOT.get(doing, _CANNOT["use"])), path=path, text=text),
                      StoreErrorKind.IO, path)


#: ``explain``'s last resort, by what was being done (``doing``) when the error came.
_CANNOT = {
    "use": N_("Cannot use the game store {path}: {text}."),
    "open": N_("Cannot open the game store {path}: {text}."),
    "read": N_("Cannot read the game store {path}: {text}."),
    "write": N_("Cannot write the game store {path}: {text}."),
    "lock": N_("Cannot lock the game store {path}: {text}."),
    "move aside": N_("Cannot move aside the game store {path}: {text}."),
}


#: (does it match (SQLite's error name, the message, the error), kind, the sentence), in order:
#: the first that matches explains the error.
_EXPLAINED: tuple[tuple[Callable[[str, str, BaseException], bool], StoreErrorKind, str], ...] = (
    (lambda name, text, err: name == "SQLITE_FULL" or "disk is full" in text,
     StoreErrorKind.FULL,
     N_("The disk holding the game store {path} is full, so nothing was saved or changed. "
     "Free some disk space, then say the command again.")),
    (lambda name, text, err: (name.startswith("SQLITE_READONLY") or "readonly" in text
                              or getattr(err, "errno", None) in (errno.EROFS, errno.EACCES,
                                                                 errno.EPERM)),
     StoreErrorKind.READONLY,
     N_("Cannot write the game store {path}: the file or its folder is read-only. Make the "
     "folder writable, or set LIFEGUARD_DATA_DIR to a folder you can write.")),
    (lambda name, text, err: name == "SQLITE_NOTADB" or "not a database" in text,
     StoreErrorKind.FOREIGN,
     N_("{path} is not a Lifeguard game store (it is not an SQLite database); nothing in it "
     "was changed. Move it away, or run 'lifeguard chat --move-aside-bad-store' to rename "
     "it and start a new store.")),
    (lambda name, text, err: name.startswith("SQLITE_CORRUPT") or "malformed" in text,
     StoreErrorKind.CORRUPT,
     N_("The game store {path} is damaged ({text}); nothing in it was changed. Keep a copy, "
     "then run 'lifeguard chat --move-aside-bad-store' to rename it and start a new store.")),
    (lambda name, text, err: name.startswith("SQLITE_BUSY") or "locked" in text,
     StoreErrorKind.LOCKED,
     N_("The game store {path} is busy: another program is writing it. Close the other "
     "lifeguard and try again.")),
    (lambda name, text, err: name.startswith("SQLITE_CANTOPEN") or isinstance(err, OSError),
     StoreErrorKind.READONLY,
     N_("Cannot open the game store {path} ({reason}). Check that its folder exists and is "
     "writable, or set LIFEGUARD_DATA_DIR to a folder you can write.")),
)
