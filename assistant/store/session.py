"""A referee session backed by the store: open (create, migrate) it, resume the unfinished game.

Called by ``lifeguard chat`` and by the Textual app; both get a ``Referee`` whose journal
commits every accepted command before the referee answers.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path

from assistant.config import Settings
from assistant.i18n import _, format
from assistant.referee import Referee
from assistant.store.current import rebuild, replay
from assistant.store.db import (
    DamagedGame,
    GameStore,
    StoreError,
    StoreJournal,
    move_aside,
)

__all__ = ["Session", "open_session", "rebuild"]


@dataclass
class Session:
    referee: Referee  # with the store's journal attached; resumed if a game was unfinished
    store: GameStore  # .path: the SQLite file (shown in the app's status line)
    resumed: bool
    greeting: list[str]  # sentences saying where the resumed game stands (round, turn, lives)
    journal: StoreJournal | None = field(default=None, repr=False)
    moved_aside: Path | None = None  # where a bad store was moved, when asked to

    @property
    def game_id(self) -> int | None:
        return self.journal.game_id if self.journal else None

    def close(self) -> None:
        """Write a pending 'finished' mark if there is one, release the lock, close the file."""
        if self.journal is not None:
            self.journal.flush()
        self.store.close()

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_session(
    settings: Settings,
    data_dir: str | Path | None = None,
    rng: random.Random | None = None,
    confirm_new_game: bool = True,
    move_aside_bad_store: bool = False,
    set_aside_damaged_game: bool = False,
) -> Session:
    """Open (create, migrate) the store and resume the unfinished game, if any. Raises
    StoreError (message for a person: names the file and what to do) when the store cannot be used.

    ``move_aside_bad_store``: when the file is damaged or not a store, rename it (never delete or
    overwrite it) and start a new store; only on the user's explicit request.
    ``set_aside_damaged_game``: when the unfinished game cannot be resumed (``DamagedGame``), mark
    it abandoned (it stays in the store as it is) and go on; only on the user's request.
    """
    moved: Path | None = None
    try:
        store = GameStore.open(data_dir, create=True, lock=True)
    except StoreError as err:
        if not (move_aside_bad_store and err.can_move_aside and err.path is not None):
            raise
        moved = move_aside(err.path)
        store = GameStore.open(data_dir, create=True, lock=True)
    set_aside: list[int] = []
    try:
        while True:
            try:
                session = _resume(store, settings, rng, confirm_new_game)
                break
            except DamagedGame as err:
                if not set_aside_damaged_game:
                    raise
                store.set_abandoned(err.game_id)
                set_aside.append(err.game_id)
    except BaseException:
        store.close()
        raise
    for game_id in set_aside:
        session.greeting.insert(0, format(_("Game {game} is damaged: it was set aside (kept in the store, "
                                            "marked abandoned)."), game=game_id))
    session.moved_aside = moved
    if moved is not None:
        session.greeting.insert(0, format(_("The bad game store was moved to {path}; a new one was started."),
                                          path=moved))
    return session


def _resume(
    store: GameStore, settings: Settings, rng: random.Random | None, confirm_new_game: bool
) -> Session:
    game = store.current_game()
    if game is None:
        journal = StoreJournal(store)
        referee = Referee(settings.rules, rng, journal=journal, confirm_new_game=confirm_new_game)
        return Session(referee, store, False, [], journal)
    entries = store.entries(game.id)
    if not entries:  # cannot happen with this journal; an empty game is nothing to resume
        store.set_abandoned(game.id)
        return _resume(store, settings, rng, confirm_new_game)
    # The one replay with the damage checks (``store.current``), as every front end loads a game.
    referee = replay(game, entries, store.path, rng=rng, confirm_new_game=confirm_new_game)
    journal = StoreJournal(store, game, len(entries))
    referee.journal = journal
    referee.rules = settings.rules  # the next new game uses today's settings
    if referee.game is not None and referee.game.is_over:
        # Killed between saving the winning command and marking the game finished: finish now.
        journal.finish(referee.game.winners)
    return Session(referee, store, True, referee.describe_resume(), journal)
