"""The actions people take at the table, as plain immutable data.

A game is the sequence of its accepted actions (see ``engine.log``). Player names are stored in
lower case, as the command language writes them.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.deck import Animal, Cards


@dataclass(frozen=True)
class NewGame:
    players: tuple[str, ...]


@dataclass(frozen=True)
class SetStarter:
    """Who starts the current round; allowed while no turn has been played."""

    player: str
    by_lot: bool = False


@dataclass(frozen=True)
class SetRow:
    """The face-up row ``row`` (1..4) holds ``cards``; entered at the start of a round."""

    row: int
    cards: Cards


@dataclass(frozen=True)
class Swap:
    """``player`` takes row ``row`` into hand and puts down ``cards`` in its place."""

    player: str
    row: int
    cards: Cards


@dataclass(frozen=True)
class Knock:
    player: str


@dataclass(frozen=True)
class Pass:
    player: str


@dataclass(frozen=True)
class DeclareHand:
    """The hand ``player`` reveals at the end of a round."""

    player: str
    cards: Cards


@dataclass(frozen=True)
class SuddenDeath:
    """``player`` reveals every copy of ``animal`` (cat, rabbit or pig): the round ends at once."""

    player: str
    animal: Animal


Action = NewGame | SetStarter | SetRow | Swap | Knock | Pass | DeclareHand | SuddenDeath
