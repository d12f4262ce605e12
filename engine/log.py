"""The game as a sequence of accepted actions: replay rebuilds any state, undo and redo move a
cursor over it. Undone actions stay until a new action replaces them."""

from __future__ import annotations

from collections.abc import Iterable

from engine.actions import Action, NewGame
from engine.errors import RuleError, WrongPhase
from engine.events import Event
from engine.game import Game
from engine.rules import HouseRules


class GameLog:
    """Accepted actions ``[0, cursor)`` make the current game; ``[cursor, end)`` can be redone.

    The first action is always ``NewGame``. Each entry may be marked as following the one before
    (``joined``), so that one undo takes back a group, such as a new game and its drawn start player.
    """

    def __init__(self, rules: HouseRules | None = None) -> None:
        self.rules = rules or HouseRules()
        self.actions: list[Action] = []
        self.joined: list[bool] = []
        self.cursor = 0
        self.game: Game | None = None

    @classmethod
    def replay(
        cls, actions: Iterable[Action], rules: HouseRules | None = None, joined: Iterable[bool] = ()
    ) -> GameLog:
        log = cls(rules)
        flags = list(joined)
        for i, action in enumerate(actions):
            log.apply(action, joined=flags[i] if i < len(flags) else False)
        return log

    def apply(self, action: Action, joined: bool = False) -> list[Event]:
        """Apply ``action`` to the current game; on success it becomes the newest entry."""
        if isinstance(action, NewGame):
            game, events = Game.new(action, self.rules)
        else:
            if self.game is None:
                raise WrongPhase("No game yet: start one with 'new game' and 3 to 5 names.")
            events = self.game.apply(action)
            game = self.game
        del self.actions[self.cursor :]
        del self.joined[self.cursor :]
        self.actions.append(action)
        self.joined.append(joined and bool(self.actions[:-1]))
        self.cursor = len(self.actions)
        self.game = game
        return events

    @property
    def can_undo(self) -> bool:
        return self.cursor > 0

    @property
    def can_redo(self) -> bool:
        return self.cursor < len(self.actions)

    def undo(self) -> list[Action]:
        """Take back the newest action (with the entries joined to it); returns what was undone."""
        if not self.can_undo:
            raise RuleError("Nothing to undo.")
        end = self.cursor
        start = end - 1
        while start > 0 and self.joined[start]:
            start -= 1
        self.rewind(start)
        return self.actions[start:end]

    def redo(self) -> tuple[list[Action], list[Event]]:
        """Apply again what was undone last; returns the actions and their events."""
        if not self.can_redo:
            raise RuleError("Nothing to redo.")
        end = self.cursor + 1
        while end < len(self.actions) and self.joined[end]:
            end += 1
        redone = self.actions[self.cursor : end]
        events: list[Event] = []
        for action in redone:
            events.extend(self._step(action))
            self.cursor += 1
        return redone, events

    def _step(self, action: Action) -> list[Event]:
        if isinstance(action, NewGame):
            self.game, events = Game.new(action, self.rules)
            return events
        assert self.game is not None
        return self.game.apply(action)

    def rewind(self, cursor: int) -> None:
        """Rebuild the game from the first ``cursor`` actions; later ones stay to be redone."""
        self.game = None
        self.cursor = 0
        for action in self.actions[:cursor]:
            self._step(action)
            self.cursor += 1

    @property
    def current(self) -> list[Action]:
        return self.actions[: self.cursor]
