"""The store's files on disk: where they live (``data_dir``), what is refused before SQLite
touches them (``check_file``: links, FIFOs, hard links, files that are not SQLite), and moving a
bad store aside. Called by ``GameStore.open`` and the lock (``assistant.store.locking``) before
any file is opened, and by ``lifeguard chat --move-aside-bad-store``.
"""

from __future__ import annotations

import os
import stat
from datetime import UTC, datetime
from pathlib import Path

from assistant.i18n import N_, _, format
from assistant.store.errors import StoreError, StoreErrorKind, explain

DB_NAME = "lifeguard.sqlite3"
SQLITE_HEADER = b"SQLite format 3\x00"

#: The files SQLite keeps beside the store: the write-ahead log, its index and the rollback
#: journal. SQLite opens them by name, following links, and truncates or rewrites them.
SIDE_FILES = ("-wal", "-shm", "-journal")
#: How every file of the store is opened: never through a symbolic link (a link planted in
#: the data folder must not make Lifeguard write another file), never waiting on a FIFO.
OPEN_FLAGS = os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)


def data_dir() -> Path:
    """Where the store lives: ``$LIFEGUARD_DATA_DIR``, else the user's data directory."""
    env = os.environ.get("LIFEGUARD_DATA_DIR")
    if env:
        try:
            return Path(env).expanduser()
        except RuntimeError:  # '~someone/...' for a user this machine does not know
            raise StoreError(format(_("LIFEGUARD_DATA_DIR is {value}, whose home folder is not known here: "
                                      "set it to a folder you can write."), value=repr(env)),
                             StoreErrorKind.READONLY) from None
    from platformdirs import user_data_dir

    return Path(user_data_dir("lifeguard", appauthor=False))


def exists(path: Path) -> bool:
    """Whether ``path`` exists; a path the system will not look at (a name too long, a folder
    that may not be entered) is a ``StoreError`` saying so, not an ``OSError``."""
    try:
        return path.exists()
    except OSError as err:
        raise StoreError(format(_("Cannot use the game store {path} ({why}): set LIFEGUARD_DATA_DIR to a "
                                  "folder you can write."), path=path, why=err.strerror or err),
                         StoreErrorKind.READONLY, path) from None


def not_a_file(info: os.stat_result) -> str | None:
    """What a file that is not a plain regular file is, in English words marked for the catalogs
    (translated with ``_`` where a sentence says it; None: a regular file)."""
    mode = info.st_mode
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISLNK(mode):
        return N_("a symbolic link")
    if stat.S_ISDIR(mode):
        return N_("a folder")
    if stat.S_ISFIFO(mode):
        return N_("a pipe (FIFO)")
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return N_("a device")
    return N_("not a regular file")


def look_at(path: Path, owner: Path) -> os.stat_result | None:
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
    info = look_at(path, path)
    kind = not_a_file(info) if info is not None else None
    if kind is not None:
        message = (_("The game store {path} is {kind}, not a file; nothing was read or changed. Lifeguard "
                     "does not follow links for its files: set LIFEGUARD_DATA_DIR to the folder the store "
                     "is in. Move it away, or set LIFEGUARD_DATA_DIR to another folder.")
                   if kind == "a symbolic link" else
                   _("The game store {path} is {kind}, not a file; nothing was read or changed. Move it "
                     "away, or set LIFEGUARD_DATA_DIR to another folder."))
        raise StoreError(format(message, path=path, kind=_(kind)), StoreErrorKind.FOREIGN, path)
    if info is not None and info.st_nlink > 1:
        # SQLite would write the other file through this name (and keep its -wal and -shm
        # beside this one, where another program using that file does not look for them).
        raise StoreError(format(
            _("The game store {path} is a second name of another file (a hard link): SQLite would write "
              "through it, so nothing was read or changed. Put a copy of its own there (cp), or run "
              "'lifeguard chat --move-aside-bad-store' to rename it and start a new store."), path=path),
            StoreErrorKind.FOREIGN, path)
    for suffix in SIDE_FILES:
        side = path.with_name(path.name + suffix)
        info = look_at(side, path)
        if info is None:
            continue
        kind = not_a_file(info) or ("a second name of another file (a hard link)"
                                     if info.st_nlink > 1 else None)
        if kind is not None:
            raise StoreError(format(
                _("{side}, a file SQLite keeps beside the game store {path}, is {kind}: SQLite would "
                  "write through it, so nothing was read or changed. Move it away, or run 'lifeguard "
                  "chat --move-aside-bad-store' to rename the store with it and start a new store."),
                side=side, path=path, kind=_(kind)), StoreErrorKind.FOREIGN, path)
    check_header(path)


def check_header(path: Path) -> None:
    """Refuse a file that is not SQLite before sqlite3 touches it (it could be anything)."""
    try:
        fd = os.open(path, os.O_RDONLY | OPEN_FLAGS)
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
        raise StoreError(format(
            _("{path} is not a Lifeguard game store (it is not an SQLite database); nothing in it was "
              "changed. Move it away, or run 'lifeguard chat --move-aside-bad-store' to rename it and "
              "start a new store."), path=path), StoreErrorKind.FOREIGN, path)


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
