"""Load a stored game and replay it: the one way every front end gets the game to show.

``load_current(store)`` is the current game (the unfinished one; with ``finished_too``, else
the newest), replayed through the engine with the damage checks of ``rebuild``: a row or log
that cannot be replayed is a ``DamagedGame`` (a sentence naming the game and the file), never a
traceback. ``load_game`` does the same for a given row, ``replay`` for entries already read (the
phone page reads them in one read transaction), ``in_play`` reads a game's entries in play
without replaying them (the table's clock and log), and ``table_state`` makes the table model
(``assistant.table.TableState``) of what was loaded. Called by ``store.session`` (resume),
``store.records`` (history, stats, exports) and ``web.table`` (the phone page).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assistant import announce
from assistant.commands import ParseError, parse
from assistant.commands.text import printable
from assistant.i18n import SOURCE_LANGUAGE, _, current_language, format
from assistant.referee import Referee
from assistant.store.db import DamagedGame, GameRow, GameStore, StoredEntry, StoreError
from assistant.store.decode import stored_command
from assistant.table import Announcement, StoredGame, TableState
from engine.actions import NewGame, SetStarter
from engine.errors import RuleError
from engine.log import MAX_ACTIONS, GameLog


@dataclass(frozen=True)
class Loaded:
    """A stored game, its log (undone entries included) and its replayed referee."""

    row: GameRow
    entries: tuple[StoredEntry, ...]
    referee: Referee


def load_current(store: GameStore, finished_too: bool = False, **kwargs: Any) -> Loaded | None:
    """The unfinished game (with ``finished_too``: else the newest game) replayed, or None when
    the store holds none. Raises ``DamagedGame`` for a game that cannot be replayed;
    ``kwargs`` go to the ``Referee`` (``rng``, ``confirm_new_game``)."""
    row = store.current_game()
    if row is None and finished_too:
        row = store.latest_game()
    return load_game(store, row, **kwargs) if row is not None else None


def in_play(store: GameStore, game_id: int) -> tuple[GameRow, tuple[StoredEntry, ...]] | None:
    """Game ``game_id``'s row and its entries in play (the undone ones after its cursor left
    out), read and not replayed (the table's clock and its log before a restart); None when
    the store holds no such game."""
    row = store.game(game_id)
    return (row, tuple(store.entries(game_id))[: row.cursor]) if row is not None else None


def load_game(store: GameStore, row: GameRow, **kwargs: Any) -> Loaded:
    """The game of ``row`` replayed (``DamagedGame`` when it cannot be)."""
    entries = tuple(store.entries(row.id))
    return Loaded(row, entries, replay(row, entries, store.path, **kwargs))


def replay(row: GameRow, entries: Sequence[StoredEntry], path: Path, **kwargs: Any) -> Referee:
    """The referee for ``row`` and its ``entries``, read already (see ``rebuild``)."""
    return rebuild(row, [e.command for e in entries], [e.joined for e in entries], path, **kwargs)


def rebuild(
    game: GameRow, commands: list[str], joined: list[bool], path: Path, **kwargs: Any
) -> Referee:
    """The referee for a stored game; a row or log that cannot be replayed is a damaged game
    (``DamagedGame``: a sentence naming the game and the file), not a damaged store."""
    if game.damage is not None:
        raise DamagedGame(game.id, path, game.damage)
    if game.cursor > len(commands):
        raise DamagedGame(game.id, path, format(_("its cursor {cursor} is past the end of its log of {n} "
                                                  "commands"), cursor=game.cursor, n=len(commands)))
    try:
        rules = game.house_rules()
    except (TypeError, ValueError) as err:
        raise DamagedGame(game.id, path, format(_("it has house rules this Lifeguard does not know: {rules}"),
                                                rules=printable(str(err), 100))) from None
    if not all(isinstance(c, str) for c in commands):
        raise DamagedGame(game.id, path, _("its log holds a value that is not a command"))
    if len(commands) > MAX_ACTIONS:  # only another tool writes so many: never replayed
        raise DamagedGame(game.id, path, format(_("its log holds {n:,} commands; a game holds at most "
                                                  "{most:,}"), n=len(commands), most=MAX_ACTIONS))
    # Stored lines are read as the canonical text they are (``stored_command``), the parser
    # given (``lifeguard serve`` remembers what it parsed) only for what is not.
    parser = functools.partial(stored_command, parse_command=kwargs.pop("parse_command", parse))
    try:
        return Referee.resume(commands, joined, game.cursor, rules=rules, parse_command=parser,
                              **kwargs)
    except (RuleError, ParseError, ValueError) as err:
        message = getattr(err, "message", str(err))
        raise DamagedGame(game.id, path, format(_("its log cannot be replayed: {why}"),
                                                why=printable(message, 200))) from None


# ---------------------------------------------------------------------------- the table
#: How many announcements the table model carries (the phone page shows the last five).
RECENT = 10


def commands_started_between(lines: Sequence[StoredEntry], start: int, end: int) -> list[int]:
    """Where each command begins in ``lines[start:end]``: a command is an entry with the
    entries joined to it (a new game and its start player drawn by lot)."""
    return [i for i in range(start, end) if i == 0 or not lines[i].joined]


def said_of(lines: Sequence[StoredEntry], i: int) -> str:
    """The announcement of the command starting at ``i``, with its joined entries'."""
    parts = [lines[i].said]
    j = i + 1
    while j < len(lines) and lines[j].joined:
        parts.append(lines[j].said)
        j += 1
    return " ".join(p for p in parts if p)


def stored_game(row: GameRow) -> StoredGame:
    return StoredGame(row.id, str(row.status), row.started)


def announcements(row: GameRow, lines: Sequence[StoredEntry]) -> tuple[Announcement, ...]:
    """The last ``RECENT`` commands in play and what was said to each, newest first, in the
    reader's language (``retold``)."""
    told = retold(row, lines)
    return tuple(Announcement(told[i].command, said_of(told, i))
                 for i in reversed(commands_started_between(told, 0, row.cursor)))[:RECENT]


def retold(row: GameRow, lines: Sequence[StoredEntry]) -> tuple[StoredEntry, ...]:
    """``lines`` with what was said of each told again in the reader's language, from the
    events its command makes. The store is language-neutral: canonical English commands, and
    what was said of each in English (``referee.stored_words``, whatever the table's language),
    so an English reader reads what is stored and a reader in another language has it told
    again: a game played at a Korean table reads in German to a German reader. Lines that
    cannot be replayed (a damaged log: ``rebuild`` says so) keep what is stored."""
    if current_language() == SOURCE_LANGUAGE:
        return tuple(lines)
    said = said_again(row, lines)
    if said is None:
        return tuple(lines)
    return tuple(dataclasses.replace(line, said=" ".join(each)) for line, each in zip(lines, said, strict=True))


def said_again(row: GameRow, lines: Sequence[StoredEntry]) -> list[list[str]] | None:
    """What was said of each of ``lines``, one item an announcement as the live table said it,
    in the reader's language: the events of each stored command announced again (the store
    keeps an entry's announcements joined into one text); None when the lines cannot be
    replayed (a damaged log)."""
    try:
        log = GameLog(row.house_rules())
        players: tuple[str, ...] | None = None
        said: list[list[str]] = []
        for line in lines:
            action = stored_command(line.command, players).to_action()
            if isinstance(action, NewGame):
                players = tuple(action.players)
            elif isinstance(action, SetStarter) and line.joined:
                action = SetStarter(action.player, by_lot=True)  # drawn by the referee at the start
            said.append(list(announce.announce(log.apply(action, joined=line.joined))))
        return said
    except (ParseError, RuleError, TypeError, ValueError):
        return None


def table_state(row: GameRow, lines: Sequence[StoredEntry], path: Path,
                **kwargs: Any) -> TableState:
    """The table model of a stored game read already; a game that cannot be replayed is one
    whose ``error`` says why."""
    try:
        referee = replay(row, lines, path, confirm_new_game=False, **kwargs)
    except StoreError as err:
        return TableState.unreadable(stored_game(row), str(err))
    return TableState.of(referee.game, stored=stored_game(row),
                         announcements=announcements(row, lines))
