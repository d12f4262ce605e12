"""The game as a sequence of accepted actions: replay rebuilds any state, undo and redo move a
cursor over it. Undone actions stay until a new action replaces them.

Undo and redo never replay the whole game: every ``CHECKPOINT`` actions a copy of the game is
kept (in memory), and going back starts from the nearest one, so it replays at most that many
actions however long the game is. A game holds at most ``MAX_ACTIONS`` actions, so that
rebuilding it from its log (resuming, ``status``) stays well under a second too.
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.actions import Action, NewGame
from engine.errors import N_, RuleError, WrongPhase
from engine.events import Event
from engine.game import Game
from engine.rules import HouseRules

#: The most actions one game may hold. A whole game is a few hundred (the longest simulated
#: ones, five players who seldom knock, under 300; 5,000 are hours of play): a game this long
#: is a run of swaps nobody ends, and rebuilding it from the store must stay well under a
#: second (``bench/long_game.py``).
MAX_ACTIONS = 5_000
#: A copy of the game is kept every this many actions: undo replays at most this many.
CHECKPOINT = 100


class GameTooLong(RuleError):
    """The game already holds ``MAX_ACTIONS`` actions: nothing more can be added to it."""

    code = "length"

    def __init__(self) -> None:
        super().__init__(
            N_("This game has reached {most:,} commands, the most one game may hold, so nothing "
               "was changed. 'undo' still works; to play on, start a new game with 'new game' and "
               "the names."), most=MAX_ACTIONS)


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
        #: The game after the first ``n`` actions, for every multiple ``n`` of ``CHECKPOINT`` up
        #: to the cursor (never beyond it: ``rewind`` drops those, so an action that replaces
        #: the ones after the cursor leaves none stale). A checkpoint is never changed (it is
        #: copied to be played on), so logs may share them.
        self._checkpoints: dict[int, Game] = {}

    @classmethod
    def replay(
        cls, actions: Iterable[Action], rules: HouseRules | None = None, joined: Iterable[bool] = ()
    ) -> GameLog:
        log = cls(rules)
        flags = list(joined)
        for i, action in enumerate(actions):
            log.apply(action, joined=flags[i] if i < len(flags) else False)
        return log

    def copy(self) -> GameLog:
        """A log that changes independently of this one (actions are immutable values, and the
        checkpoints are shared: never changed)."""
        other = GameLog(self.rules)
        other.actions, other.joined, other.cursor = list(self.actions), list(self.joined), self.cursor
        other.game = self.game.copy() if self.game is not None else None
        other._checkpoints = dict(self._checkpoints)
        return other

    def __deepcopy__(self, memo: dict[int, object]) -> GameLog:
        return self.copy()

    def apply(self, action: Action, joined: bool = False) -> list[Event]:
        """Apply ``action`` to the current game; on success it becomes the newest entry."""
        if self.cursor >= MAX_ACTIONS:
            raise GameTooLong
        if isinstance(action, NewGame):
            game, events = Game.new(action, self.rules)
        else:
            if self.game is None:
                raise WrongPhase(N_("No game yet: start one with 'new game' and 3 to 5 names."))
            events = self.game.apply(action)
            game = self.game
        del self.actions[self.cursor :]
        del self.joined[self.cursor :]
        self.actions.append(action)
        self.joined.append(joined and bool(self.actions[:-1]))
        self.game = game
        self._advanced()
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
            raise RuleError(N_("Nothing to undo."))
        end = self.cursor
        start = end - 1
        while start > 0 and self.joined[start]:
            start -= 1
        self.rewind(start)
        return self.actions[start:end]

    def redo(self) -> tuple[list[Action], list[Event]]:
        """Apply again what was undone last; returns the actions and their events."""
        if not self.can_redo:
            raise RuleError(N_("Nothing to redo."))
        end = self.cursor + 1
        while end < len(self.actions) and self.joined[end]:
            end += 1
        redone = self.actions[self.cursor : end]
        events: list[Event] = []
        for action in redone:
            events.extend(self._step(action))
        return redone, events

    def _step(self, action: Action) -> list[Event]:
        """Play the action at the cursor again (it was accepted before) and move past it."""
        if isinstance(action, NewGame):
            self.game, events = Game.new(action, self.rules)
        else:
            assert self.game is not None
            events = self.game.apply(action)
        self._advanced()
        return events

    def _advanced(self) -> None:
        """The cursor moves past the action just played; a checkpoint is kept on a multiple."""
        self.cursor += 1
        if self.cursor % CHECKPOINT == 0 and self.game is not None:
            self._checkpoints[self.cursor] = self.game.copy()

    def rewind(self, cursor: int) -> None:
        """The game after the first ``cursor`` actions (later ones stay to be redone): from the
        nearest checkpoint, replaying fewer than ``CHECKPOINT`` actions."""
        for stale in [n for n in self._checkpoints if n > cursor]:
            del self._checkpoints[stale]
        start = cursor - cursor % CHECKPOINT
        while start and start not in self._checkpoints:
            start -= CHECKPOINT
        self.game = self._checkpoints[start].copy() if start else None
        self.cursor = start
        for action in self.actions[start:cursor]:
            self._step(action)

    @property
    def current(self) -> list[Action]:
        return self.actions[: self.cursor]
