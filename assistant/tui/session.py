"""The table's stored session: the referee the game store opened, and what the table reads of the
store beside it (when the game began, its log before a restart, the recent groups, the folder).

Kept apart from ``LifeguardApp`` so the app only composes: it asks ``open_table_session`` for a
session at start and closes it at the end; the store's reads here run on the desk's thread
(``duration_min``) or before the event loop starts (the rest, in the app's constructor).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assistant.config import Settings
from assistant.i18n import _
from assistant.referee import Referee
from engine.rules import HouseRules

if TYPE_CHECKING:
    from assistant.store.db import GameRow, StoredEntry


@dataclass
class TableSession:
    """What the app needs of a session: the referee, where it is stored, what to say first."""

    referee: Referee
    data_label: str
    resumed: bool = False
    greeting: tuple[str, ...] = ()
    #: The store's session (``assistant.store.session.Session``): closed when the app ends, which
    #: releases the store's lock; every command was committed already.
    stored: Any = None

    def _stored_game(self) -> tuple[GameRow, tuple[StoredEntry, ...]] | None:
        """The current stored game's row and its accepted entries (undone ones left out); None
        without a store or a game, or when the store cannot be read: what the table shows of
        it (a duration, the log before a restart) is not worth a crash."""
        from assistant.store.current import in_play

        stored = self.stored
        game_id = getattr(stored, "game_id", None)
        if stored is None or game_id is None:
            return None
        try:
            return in_play(stored.store, game_id)
        except Exception:
            return None

    def started_at(self) -> float | None:
        """When the current stored game began (seconds since the epoch), if the store knows."""
        game = self._stored_game()
        return datetime.fromisoformat(game[0].started).timestamp() if game else None

    def duration_min(self) -> int | None:
        """The stored game's duration as ``lifeguard history`` gives it (None without a store).
        Reads the store: call it on the desk's thread."""
        from assistant.store.records import minutes_between

        game = self._stored_game()
        if game is None:
            return None
        row, entries = game
        return minutes_between(row.started, row.ended or (entries[-1].at if entries else row.started))

    def stored_log(self) -> list[tuple[str, list[str]]]:
        """The current game's accepted commands and what was said to each, oldest first, from
        the store (a command joined to the one before, like the start player drawn by lot,
        adds its words to that one). Empty when there is no store or nothing stored."""
        from assistant.store.current import said_again

        game = self._stored_game()
        entries = game[1] if game else ()
        # Said again in this table's language, one line a sentence as the live table said them
        # (the store keeps them joined: a round's results were one 190-character paragraph
        # after a restart); a log that cannot be replayed shows what is stored.
        sentences = said_again(*game) if game else None
        log: list[tuple[str, list[str]]] = []
        for i, entry in enumerate(entries):
            said = sentences[i] if sentences is not None else [entry.said] if entry.said else []
            if entry.joined and log:
                log[-1][1].extend(said)
            else:
                log.append((entry.command, said))
        return log

    def recent(self, limit: int = 20) -> tuple[list[tuple[str, ...]], HouseRules | None]:
        """The groups of the latest games (newest first, each group once) and the house rules
        the latest game was played with, for the setup screen."""
        store = getattr(self.stored, "store", None)
        if store is None:
            return [], None
        try:
            rows = store.games(newest_first=True)[:limit]
            rules = rows[0].house_rules() if rows else None
        except Exception:  # an offer on the setup screen is not worth a crash
            return [], None
        groups: list[tuple[str, ...]] = []
        for row in rows:
            if row.players not in groups:
                groups.append(tuple(row.players))
        return groups, rules

    def folder(self) -> Path | None:
        """The folder of the store's file (where the table keeps its view), if there is one."""
        path = getattr(getattr(self.stored, "store", None), "path", None)
        return Path(path).parent if path is not None else None

    def close(self) -> None:
        if self.stored is not None:
            self.stored.close()


class StartError(Exception):
    """The table cannot start (e.g. the store cannot be used); the message is for a person."""


def open_table_session(settings: Settings, data_dir: str | Path | None = None,
                       rng: random.Random | None = None) -> TableSession:
    """The stored session of the game store (``assistant.store.session``)."""
    from assistant.store import StoreError
    from assistant.store.session import open_session

    try:
        session = open_session(settings, data_dir=data_dir, rng=rng, confirm_new_game=True)
    except StoreError as err:
        raise StartError(str(err)) from None
    path = getattr(session.store, "path", None)
    return TableSession(
        session.referee,
        str(path) if path is not None else _("the game store"),
        bool(session.resumed),
        tuple(session.greeting or ()),
        session,
    )
