"""Where the table's commands run: one at a time, in order, off the UI's event loop.

The referee commits every accepted command to the game store (an fsync'd SQLite write) before
it answers; that disk work must not hold up the screen. So the app hands each command to the
desk's one thread and awaits it, and the screens draw from a ``TableView``: a private copy of
the referee's state taken on that thread after the command, which nothing changes afterwards,
with its table model (``assistant.table.TableState``).
The live referee is only touched on the desk's thread once the app is running.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TypeVar

from assistant.referee import Referee
from assistant.table import TableState
from engine.actions import Action
from engine.game import Game
from engine.rules import HouseRules

T = TypeVar("T")


@dataclass(frozen=True)
class TableView:
    """The referee's state after a command, for drawing: the game is a copy of its own."""

    game: Game | None
    #: The accepted actions of the current game (undone ones left out), oldest first.
    actions: tuple[Action, ...]
    rules: HouseRules
    #: What the app adds before it publishes the view (``LifeguardApp.view``): the stored
    #: game's id (the hand grid's drafts belong to one game's round; None without a store) and,
    #: once the game is over, its duration in minutes (the store's count, else the clock's).
    game_id: int | None = None
    minutes: int | None = None
    #: The heard command read back and waiting for yes or no (``Referee.question``), if any.
    question: str | None = None
    #: The table model of the same moment (``assistant.table``): the score sheet, the hint,
    #: what is expected next, made once per command on the desk's thread.
    table: TableState = field(default_factory=lambda: TableState.of(None))
    #: The readings of a heard command "no" just refused (``Referee.refused``): the listener
    #: hears the next utterance together with the one refused (``ListenContext.refused``).
    refused: frozenset[str] = frozenset()

    @classmethod
    def of(cls, referee: Referee) -> TableView:
        game = referee.game.copy() if referee.game is not None else None
        return cls(game, tuple(referee.log.current), referee.rules, question=referee.question,
                   table=TableState.of(game, question=referee.question), refused=referee.refused)

    @classmethod
    def empty(cls) -> TableView:
        """No game and the default house rules: the view before the first command."""
        return cls(None, (), HouseRules())

    @property
    def players(self) -> tuple[str, ...]:
        return self.game.players if self.game is not None else ()


class CommandDesk:
    """Runs work on the referee in a single thread, first come first served."""

    def __init__(self, referee: Referee) -> None:
        self.referee = referee
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lifeguard-commands")

    async def run(self, work: Callable[[Referee], T]) -> tuple[T, TableView]:
        """``work(referee)`` on the desk's thread, and the table as it left it."""

        def job() -> tuple[T, TableView]:
            result = work(self.referee)
            return result, TableView.of(self.referee)

        return await asyncio.wrap_future(self._thread.submit(job))

    def close(self) -> None:
        """Wait for the commands already handed over (each is committed), then stop."""
        self._thread.shutdown(wait=True)
