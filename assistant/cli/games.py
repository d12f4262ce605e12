"""The game store's subcommands: ``status``, ``history``, ``stats``, ``export``, ``import``.

``assistant.cli.parser`` declares them and their options and calls the ``cmd_*`` functions here;
each reads ``$LIFEGUARD_DATA_DIR`` (else the user's data directory) and turns every
``StoreError`` into one sentence on stderr and exit status 2, never a traceback. (``chat``,
which writes the store, is ``assistant.cli.chat``.)
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from assistant.commands.text import printable
from assistant.config import settings_or_exit
from assistant.i18n import _, format
from assistant.store.db import (
    DamagedGame,
    GameRow,
    GameStore,
    StoreError,
    StoreErrorKind,
    data_dir,
)


def _fail(err: Exception | str) -> int:
    print(f"lifeguard: {printable(str(err), 1000)}", file=sys.stderr)
    return 2


def _open_reader() -> GameStore | None:
    """The store for reading, or None when there is none yet (nothing is created)."""
    try:
        return GameStore.open(data_dir(), create=False, readonly=True)
    except StoreError as err:
        if err.kind == StoreErrorKind.MISSING:
            return None
        raise


def cmd_status(args: argparse.Namespace) -> int:
    from assistant import announce
    from assistant.store import records
    from assistant.store.current import load_current
    from assistant.table import TableState

    try:
        store = _open_reader()
        loaded, path = None, data_dir()
        if store is not None:
            with store:
                loaded = load_current(store, finished_too=True, confirm_new_game=False)
                path = store.path
    except StoreError as err:
        return _fail(err)
    game = loaded.referee.game if loaded is not None else None
    if args.json:
        print(json.dumps(TableState.of(game).status_json()))
        return 0
    if loaded is None:
        print(format(_("No games yet (game store: {path})."), path=printable(str(path), 5000)))
        return 0
    row = loaded.row
    players = [printable(name, records.SHOWN_NAME) for name in row.players]
    print(format(_("Game {game} ({status}) of {players}; game store: {path}"), game=row.id,
                 status=records.shown_status(row.status), players=announce.names(players),
                 path=printable(str(path), 5000)))
    for line in announce.status(game):
        print(line)
    return 0


def cmd_history(args: argparse.Namespace) -> int:
    from assistant.store import records

    return _print_rows(args, records.history, records.history_text)


def cmd_stats(args: argparse.Namespace) -> int:
    from assistant.store import records

    left_out: list[str] = []
    status = _print_rows(args, lambda store: records.stats(store, left_out), records.stats_text)
    for message in left_out:
        print(format(_("lifeguard: {problem} It is left out of the statistics."),
                     problem=printable(message, 1000)), file=sys.stderr)
    return status


def _print_rows(args: argparse.Namespace, build: Callable[[GameStore], list[dict[str, Any]]],
                as_text: Callable[[list[dict[str, Any]]], list[str]]) -> int:
    """Rows computed from the store (none when there is no store yet), as JSON or text."""
    try:
        store = _open_reader()
        rows = []
        if store is not None:
            with store:
                rows = build(store)
    except StoreError as err:
        return _fail(err)
    print(json.dumps(rows) if args.json else "\n".join(as_text(rows)))
    return 0


def _export(store: GameStore, row: GameRow, form: str, me: str | None = None) -> str:
    from assistant.store import records

    try:
        record = records.load(store, row)
    except DamagedGame as err:
        if form != "json":
            raise
        # A damaged game is rescued as it is stored: never refused, never replayed.
        rescue = records.export_stored(store, row)
        rescue["damaged"] = err.message
        return json.dumps(rescue, indent=2) + "\n"
    if form == "text":
        return records.export_text(record)
    if form == "json":
        return json.dumps(records.export_json(record), indent=2) + "\n"
    if form == "bgstats-link":
        return records.bgstats_play_link(record) + "\n"
    return json.dumps(records.export_bgstats(record, me), indent=2) + "\n"


def cmd_export(args: argparse.Namespace) -> int:
    from assistant.store import records

    try:
        store = _open_reader()
        if store is None:
            raise StoreError(format(_("No games yet: there is no game store in {path}."), path=data_dir()),
                             StoreErrorKind.MISSING)
        with store:
            text = _export(store, records.pick_game(store, args.game), args.format,
                           args.me)
    except StoreError as err:
        return _fail(err)
    if args.output:
        try:
            write_file(Path(args.output), text.encode("utf-8"), replace=args.force)
        except FileExistsError:
            return _fail(format(_("{path} exists and was not changed; add --force to replace it."),
                                path=args.output))
        except OSError as err:
            return _fail(format(_("Cannot write {path}: {why}; nothing was changed there."),
                                path=args.output, why=err.strerror or err))
    else:
        sys.stdout.write(text)
    return 0


def write_file(path: Path, data: bytes, replace: bool = False) -> None:
    """Write ``data`` to ``path`` whole or not at all: a temporary file in the same folder,
    fsynced, then renamed over ``path``. So a full disk or a crash leaves the old file as it
    was. Raises ``FileExistsError`` for an existing ``path`` unless ``replace``."""
    import os
    import tempfile

    if path.is_dir():
        raise OSError(21, "it is a folder")
    if not replace and (path.exists() or path.is_symlink()):
        raise FileExistsError(str(path))
    folder = path.parent
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=folder)
    try:
        # mkstemp makes the file for its owner alone (0600); an export is an ordinary file.
        mask = os.umask(0)
        os.umask(mask)
        os.fchmod(fd, 0o666 & ~mask)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if replace:
            os.replace(temporary, path)
        else:
            try:
                os.link(temporary, path)  # fails if the name was taken meanwhile
            except FileExistsError:
                raise
            except OSError:  # a file system without hard links
                if path.exists():
                    raise FileExistsError(str(path)) from None
                os.replace(temporary, path)
            else:
                os.unlink(temporary)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    with contextlib.suppress(OSError):  # the rename itself made durable
        dir_fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


def cmd_import(args: argparse.Namespace) -> int:
    from assistant.store import records

    settings = settings_or_exit(args)
    try:
        # Read and checked first; then the session lock: an unfinished import must not slip
        # under a running chat or table, and a slow input must not hold the lock.
        imported = records.read_import_file(Path(args.file), settings.rules)
        with GameStore.open(data_dir(), create=True, lock=True) as store:
            game_id, imported = records.import_file(
                store, imported, settings.rules, abandon_current=args.abandon_current,
                again=args.again,
            )
    except records.ImportRefused as err:
        print(format(_("lifeguard: {path} was not imported; refused:"), path=printable(args.file)),
              file=sys.stderr)
        for problem in err.problems:
            print(f"  {printable(problem, 500)}", file=sys.stderr)
        return 1
    except StoreError as err:
        return _fail(err)
    message = (_("Imported game {game}: {players}, {n} commands, finished{played}.") if imported.finished
               else _("Imported game {game}: {players}, {n} commands, unfinished (it is now the current "
                      "game){played}."))
    print(format(message, game=game_id, players=records.shown_names(imported.players),
                 n=len(imported.entries), played=records.played_at(imported)))
    return 0
