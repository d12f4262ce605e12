"""The table as one frozen, typed value: what every front end shows of a game.

``TableState.of(game, ...)`` is built once per applied command from the engine's ``Game`` (and,
for a stored game, the store's row: its id, status and start, and its last announcements); the
phone page's ``/state.json`` and its events are ``to_json()``; the table's score sheet and
hint, the speech grammar's weights and ``lifeguard stats`` read the same facts
(``assistant.table.expect``, ``assistant.table.sheet``). Nothing here reads a file or a device.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from assistant.i18n import N_, _, animal_name
from assistant.table.expect import (
    expecting,
    first_words,
    hint_parts,
    intent_weights,
    table_examples,
)
from assistant.table.sheet import SheetRound, score_sheet
from engine.deck import COPIES, Animal, Cards
from engine.game import Game, Phase, places
from engine.rules import HouseRules

#: A JSON object, as ``json.dumps`` takes it.
JSON = dict[str, Any]

#: The phone page's line when the store holds no game at all (English, as the catalog's key:
#: shown through ``_``).
NO_GAME_YET = N_("No game yet: start one at the table.")


@dataclass(frozen=True, slots=True)
class PlayerState:
    """One player as the table shows them (public knowledge only)."""

    name: str
    lives: int
    out: bool
    #: The cards known to be in the hand: taken from the rows and not put down again.
    known: tuple[Animal, ...]
    swapped: bool
    knocked: bool
    #: The hand declared at the reveal, else None.
    declared: tuple[Animal, ...] | None
    #: Whether it is this player's turn.
    turn: bool


@dataclass(frozen=True, slots=True)
class Place:
    name: str
    place: int


@dataclass(frozen=True, slots=True)
class StoredGame:
    """What the store says of the game shown: its id, status and start time."""

    id: int
    status: str
    started: str


@dataclass(frozen=True, slots=True)
class Announcement:
    """An accepted command and what the referee said to it."""

    command: str
    said: str


@dataclass(frozen=True, slots=True)
class TableState:
    """The whole table at one moment. ``phase`` None: no game (none started, or every command
    of the stored game undone)."""

    players: tuple[PlayerState, ...]
    winners: tuple[str, ...]
    round: int
    phase: Phase | None
    starter: str | None
    turn: str | None
    knocker: str | None
    rows: tuple[tuple[Animal, ...] | None, ...]
    out_order: tuple[str, ...]
    #: Finishing places, best first: once the game is over, else empty.
    places: tuple[Place, ...]
    rules: HouseRules | None
    #: After a knock: the players who have had their last turn, in seating order.
    last_turn_taken: tuple[str, ...]
    sheet: tuple[SheetRound, ...]
    #: What the referee waits for next, as a sentence.
    expecting: str
    #: The command line's hint, the part that matters first.
    hint: tuple[str, ...]
    #: The words a command may start with now, the likeliest first.
    first_words: tuple[str, ...]
    #: Per intent, how likely it is now (0: not now), for the speech grammar.
    weights: tuple[tuple[str, float], ...]
    #: Per intent, an example command with the table's own names.
    examples: tuple[tuple[str, str], ...]
    stored: StoredGame | None = None
    #: The last announcements, newest first.
    announcements: tuple[Announcement, ...] = ()
    #: Why the stored game cannot be shown (a damaged game), else None.
    error: str | None = None

    @classmethod
    def of(cls, game: Game | None, stored: StoredGame | None = None,
           announcements: tuple[Announcement, ...] = (), question: str | None = None) -> TableState:
        """The table for ``game``; ``question``: a question waiting for yes or no."""
        players = game.players if game is not None else ()
        empty = cls(players=(), winners=(), round=0, phase=None, starter=None, turn=None,
                    knocker=None, rows=(), out_order=(), places=(), rules=None,
                    last_turn_taken=(), sheet=(),
                    expecting=expecting(game),
                    hint=tuple(hint_parts(game, question)),
                    first_words=tuple(first_words(game)),
                    weights=tuple(intent_weights(players, game).items()),
                    examples=examples(game),
                    stored=stored,
                    announcements=announcements)
        if game is None:
            return empty
        return replace(
            empty,
            players=tuple(_player(game, p) for p in players),
            winners=game.winners,
            round=game.round,
            phase=game.phase,
            starter=game.starter,
            turn=game.turn,
            knocker=game.knocker,
            rows=tuple(_cards(r) for r in game.rows),
            out_order=tuple(game.out_order),
            places=tuple(Place(p, n) for p, n in places(game)) if game.is_over else (),
            rules=game.rules,
            last_turn_taken=last_turn_taken(game),
            sheet=score_sheet(game),
        )

    @classmethod
    def unreadable(cls, stored: StoredGame, error: str) -> TableState:
        """A stored game that cannot be replayed: ``error`` says why."""
        return replace(cls.of(None, stored=stored), error=error)

    def weight(self, intent: str) -> float:
        return dict(self.weights).get(intent, 0.0)

    # ------------------------------------------------------------------ JSON
    def to_json(self) -> JSON:
        """``lifeguard status --json`` plus the phone page's keys: the stored game, the last
        announcements, the score sheet, the points per animal, the last turns taken
        (``/state.json`` and each of its events; ``assistant/web/page/table.js`` reads it)."""
        if self.error is not None:
            return {**_nostatus_json(), "game": self._stored_json(), "error": self.error}
        if self.stored is None and self.phase is None:
            return _nostatus_json()
        data = self.status_json()
        data.update({"game": self._stored_json(),
                     "announcements": [{"command": a.command, "said": a.said}
                                       for a in self.announcements],
                     "sheet": [_round_json(r) for r in self.sheet],
                     "points": points_table(),
                     "last_turn_taken": list(self.last_turn_taken)})
        return data

    def status_json(self) -> JSON:
        """The game's public state as plain data, players in seating order, and the sentence
        of what is expected: ``status --json`` and ``replay --json`` (``Referee.state``). The
        one place that says what of a game is shown (the engine's ``Game.snapshot`` said it
        too, for the tests only; they read this now)."""
        if self.phase is None:
            return {"players": [], "winners": [], "round": 0, "phase": "no_game"}
        return {
            "players": [_player_json(p) for p in self.players],
            "winners": list(self.winners),
            "round": self.round,
            "phase": self.phase.value,
            "starter": self.starter,
            "turn": self.turn,
            "knocker": self.knocker,
            "rows": [[a.value for a in row] if row is not None else None for row in self.rows],
            "out_order": list(self.out_order),
            "places": [{"name": p.name, "place": p.place} for p in self.places],
            "rules": {name: getattr(self.rules, name) for name in HouseRules.field_names()},
            "expecting": self.expecting,
        }

    def _stored_json(self) -> JSON | None:
        s = self.stored
        return {"id": s.id, "status": s.status, "started": s.started} if s is not None else None


def _nostatus_json() -> JSON:
    return {"players": [], "winners": [], "round": 0, "phase": "no_game",
            "expecting": _(NO_GAME_YET), "game": None, "announcements": [], "sheet": [],
            "points": points_table(), "last_turn_taken": []}


def _cards(cards: Cards | None) -> tuple[Animal, ...] | None:
    return tuple(cards) if cards is not None else None


def _player(game: Game, p: str) -> PlayerState:
    declared = game.declared.get(p)
    return PlayerState(name=p, lives=game.lives[p], out=game.lives[p] == 0,
                       known=tuple(game.known[p]), swapped=p in game.swapped,
                       knocked=p == game.knocker,
                       declared=tuple(declared) if declared is not None else None,
                       turn=p == game.turn)


def _player_json(p: PlayerState) -> JSON:
    return {"name": p.name, "lives": p.lives, "out": p.out, "known": [a.value for a in p.known],
            "swapped": p.swapped, "knocked": p.knocked,
            "declared": [a.value for a in p.declared] if p.declared is not None else None}


def _round_json(r: SheetRound) -> JSON:
    sudden = r.sudden_death
    return {
        "round": r.round,
        "sudden_death": {"player": sudden[0], "animal": sudden[1].value,
                         "animals": animal_name(sudden[1].value, 2)} if sudden else None,
        "players": [{"name": line.name, "points": line.points, "lost": line.lost,
                     "lives": line.lives} for line in r.lines],
    }


def points_table() -> dict[str, int]:
    """Each animal's points (its copies in the deck), for the page's cards."""
    return {animal.value: n for animal, n in COPIES.items()}


def last_turn_taken(game: Game | None) -> tuple[str, ...]:
    """After a knock: the players who have had their last turn (swapped or passed), in seating
    order; empty at any other time."""
    if game is None or game.phase is not Phase.FINAL_TURNS:
        return ()
    return tuple(p for p in game.players if p != game.knocker and game.lives[p] > 0
                 and p not in game.final_turns_left)


def help_examples(players: Sequence[str]) -> list[str]:
    """Help's list of commands: each intent's example in help's order, naming the first player
    (else 'alice'): ``help`` typed or said, and the table's help screen."""
    p = players[0] if players else "alice"
    return [text.format(p=p) for text in table_examples().values()]


def examples(game: Game | None) -> tuple[tuple[str, str], ...]:
    """Per intent, its example command naming the player whose turn it is (else the first
    player still in, else 'alice')."""
    alive = game.alive if game is not None else ()
    p = (game.turn if game is not None else None) or (alive[0] if alive else "alice")
    return tuple((intent, text.format(p=p)) for intent, text in table_examples().items())
