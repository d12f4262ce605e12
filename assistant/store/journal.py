"""The referee's ``Journal`` backed by the store (``StoreJournal``): each accepted command is one
committed transaction before the referee answers. Made by ``open_session``
(``assistant.store.session``); the writes themselves are ``GameStore``'s (``start_game``,
``write_entries``, ``move_cursor``, ``finish_game``), each of which first checks that the game is
still where this journal believes it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from assistant.i18n import _
from assistant.referee import Entry
from assistant.store.errors import StoreError, StoreErrorKind
from assistant.store.rows import GameRow, LogPosition
from engine.rules import HouseRules

if TYPE_CHECKING:
    from assistant.store.db import GameStore

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
            raise StoreError(_("No game is open in the store."), StoreErrorKind.CONFLICT,
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
