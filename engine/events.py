"""What happened, as data: the game returns these from every accepted action and the assistant
turns them into the sentences it shows and speaks."""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.deck import Animal, Cards
from engine.rules import HouseRules


@dataclass(frozen=True)
class GameStarted:
    players: tuple[str, ...]
    rules: HouseRules


@dataclass(frozen=True)
class RoundStarted:
    round: int
    starter: str | None


@dataclass(frozen=True)
class StarterSet:
    player: str
    by_lot: bool


@dataclass(frozen=True)
class RowSet:
    row: int
    cards: Cards
    missing_rows: tuple[int, ...]


@dataclass(frozen=True)
class TurnsBegin:
    player: str | None


@dataclass(frozen=True)
class Swapped:
    player: str
    row: int
    taken: Cards
    put_down: Cards
    next_player: str | None
    #: Played under the house rule "take the row first, then put down".
    take_first: bool = False


@dataclass(frozen=True)
class Knocked:
    player: str
    next_player: str | None
    #: The players who get one more turn, in order.
    last_turns: tuple[str, ...] = ()


@dataclass(frozen=True)
class Passed:
    player: str
    next_player: str | None


@dataclass(frozen=True)
class RevealBegins:
    players: tuple[str, ...]


@dataclass(frozen=True)
class HandDeclared:
    player: str
    cards: Cards
    waiting_for: tuple[str, ...]


@dataclass(frozen=True)
class Majority:
    animal: Animal
    #: The player who scores it, or None for a tie or a single card with two players alive.
    winner: str | None
    count: int
    tied: tuple[str, ...] = ()


@dataclass(frozen=True)
class RoundEnded:
    round: int
    #: The claimant and animal of a sudden death, else None.
    sudden_death: tuple[str, Animal] | None
    majorities: tuple[Majority, ...]
    points: dict[str, int]
    losses: dict[str, int]
    lives: dict[str, int]
    out: tuple[str, ...]


@dataclass(frozen=True)
class GameWon:
    winners: tuple[str, ...]
    #: "last_alive", or the house rule that decided when everyone left went out together.
    how: str = "last_alive"
    out_order: tuple[str, ...] = field(default_factory=tuple)


Event = (
    GameStarted
    | RoundStarted
    | StarterSet
    | RowSet
    | TurnsBegin
    | Swapped
    | Knocked
    | Passed
    | RevealBegins
    | HandDeclared
    | RoundEnded
    | GameWon
)
