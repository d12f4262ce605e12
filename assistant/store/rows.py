"""What a stored row means: the typed rows the store hands out (``GameRow``, ``StoredEntry``,
``LogPosition``) and the checks that turn a row another tool may have written into one.

A value that is not what the schema means never raises: ``game_row`` gives a row with
``damage`` set, named in a sentence and never replayed, so the other games stay usable.
``GameStore`` (``assistant.store.db``) reads through these; ``records`` and ``session`` use the
rows it returns.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from assistant.i18n import _, format
from engine.log import MAX_ACTIONS
from engine.rules import HouseRules

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


def now() -> str:
    """The time as the store writes it: ISO 8601 in UTC, to the millisecond."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


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
        problems.append(_("its players are not a list of names") if what == "players" else
                        _("its winners are not a list of names"))
        return ()
    return tuple(decoded)


def _rules(value: object, problems: list[str]) -> dict[str, Any]:
    """The stored JSON object of house rules; {} with a problem noted when it is not one."""
    try:
        decoded = json.loads(value) if isinstance(value, str | bytes) else None
    except (ValueError, RecursionError):
        decoded = None
    if not isinstance(decoded, dict):
        problems.append(_("its house rules are not readable"))
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
            problems.append(format(_("its start time {value} is not a date") if what == "start time" else
                                   _("its end time {value} is not a date"), value=repr(str(stamp)[:40])))


def game_row(row: sqlite3.Row) -> GameRow:
    """A stored row as a ``GameRow``; a value that is not what the schema means gives a row
    with ``damage`` set (and empty values), never an exception."""
    problems: list[str] = []
    player_names = _names(row["players"], "players", problems)
    winner_names = _names(row["winners"], "winners", problems)
    decoded_rules = _rules(row["rules"], problems)
    _check_stamps(row, problems)
    cursor = row["cursor"]
    if not isinstance(cursor, int) or cursor < 0:
        problems.append(format(_("its cursor {value} is not a position in its log"), value=repr(str(cursor)[:20])))
    try:
        status = GameStatus(row["status"])
    except ValueError:  # only a file written around the schema's CHECK
        problems.append(format(_("its status {value} is not one of {allowed}"),
                               value=repr(str(row["status"])[:20]), allowed=", ".join(GameStatus)))
        status = GameStatus.ABANDONED
    if problems:
        return GameRow(row["id"], (), {}, str(row["started"]), None, status, (), 0,
                       str(row["source"]), "; ".join(problems), tuple(row))
    return GameRow(row["id"], player_names, decoded_rules, row["started"], row["ended"], status,
                   winner_names, cursor, row["source"], None, tuple(row))


GAME_COLUMNS = "id, players, rules, started, ended, status, winners, cursor, source"


def rules_json(rules: HouseRules) -> str:
    return json.dumps({name: getattr(rules, name) for name in HouseRules.field_names()})


def stored_text(value: object) -> str:
    """A stored value meant as text, as text: another tool may have written bytes or a number
    in its place (a BLOB in ``said`` broke the JSON export, the rescue the messages offer)."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return "" if value is None else str(value)
