"""The session lock: one referee session per store at a time, an exclusive ``flock`` on a file
beside the store (``lifeguard.sqlite3.lock``) holding the holder's process id. Taken by
``GameStore.open(lock=True)``, released by ``GameStore.close``.
"""

from __future__ import annotations

import contextlib
import errno
import os
from pathlib import Path

from assistant.i18n import N_, _, format
from assistant.store.errors import StoreError, StoreErrorKind, explain
from assistant.store.files import OPEN_FLAGS, not_a_file


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
        fd = os.open(where, os.O_RDWR | os.O_CREAT | OPEN_FLAGS, 0o644)
        info = os.fstat(fd)
        kind = not_a_file(info) or (N_("a second name of another file (a hard link)")
                                     if info.st_nlink > 1 else None)
        if kind is not None:
            os.close(fd)
    except IsADirectoryError:
        kind = N_("a folder")
    except OSError as err:
        if err.errno != errno.ELOOP:
            raise explain(err, path, "lock") from None
        kind = N_("a symbolic link")
    if kind is not None:
        raise StoreError(format(
            _("The lock file {lock} is {kind}, not a file of its own, so the game store {path} cannot be "
              "locked; nothing was written, and the store itself is fine. Remove or rename {lock} and "
              "try again."), lock=where, kind=_(kind), path=path), StoreErrorKind.LOCKED, path)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        try:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
        except OSError:
            holder = ""
        os.close(fd)
        message = (_("The game store {path} is in use by another Lifeguard (process {process}). Carry on "
                     "there, or close it first; to play a separate game at the same time, set "
                     "LIFEGUARD_DATA_DIR to another folder.") if holder.isdigit() else
                   _("The game store {path} is in use by another Lifeguard. Carry on there, or close it "
                     "first; to play a separate game at the same time, set LIFEGUARD_DATA_DIR to another "
                     "folder."))
        raise StoreError(format(message, path=path, process=holder), StoreErrorKind.LOCKED, path) from None
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
