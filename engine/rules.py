"""The house rules of RULES.md as a typed, immutable settings object.

The published rules are silent on these situations; each default is the one RULES.md names, and
every field can be changed in the config file (``config/lifeguard.toml``).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Literal

LowestTie = Literal[2, 1]
AllEqual = Literal["nobody", "everyone_loses_1"]
AllOut = Literal["most_points", "shared", "most_lives_before"]
NextStart = Literal["clockwise", "most_lives_lost"]


@dataclass(frozen=True)
class HouseRules:
    #: Lives lost by each of several players tied for the lowest total (2 by default, or 1).
    lowest_tie_loses: LowestTie = 2
    #: When every player has the same total: "nobody" loses a life, or "everyone_loses_1".
    all_equal: AllEqual = "nobody"
    #: When every remaining player is out after the same round: the one(s) with "most_points"
    #: that round win (still tied: a shared win), a "shared" win, or "most_lives_before" the round.
    all_out: AllOut = "most_points"
    #: Next round's start player: "clockwise" from the last start player, or the living player
    #: who lost "most_lives_lost" last round (ties: the first of them clockwise).
    next_start: NextStart = "clockwise"
    #: A player may knock only after having swapped at least once this round.
    knock_requires_swap: bool = True
    #: With 2 players alive, a majority needs at least 2 cards.
    two_alive_majority_two: bool = True
    #: A swap takes the row into hand first, then puts down cards from the whole hand (which may
    #: include cards just taken). Off by default: the rules' order puts down first, then takes.
    take_first: bool = False

    #: The allowed values of each choice field, used to validate config files and to build
    #: the switches of the setup screen.
    CHOICES = {
        "lowest_tie_loses": (2, 1),
        "all_equal": ("nobody", "everyone_loses_1"),
        "all_out": ("most_points", "shared", "most_lives_before"),
        "next_start": ("clockwise", "most_lives_lost"),
        "knock_requires_swap": (True, False),
        "two_alive_majority_two": (True, False),
        "take_first": (False, True),
    }

    def __post_init__(self) -> None:
        for name, allowed in self.CHOICES.items():
            value = getattr(self, name)
            if value not in allowed or type(value) is not type(allowed[0]):
                raise ValueError(
                    f"house rule {name} must be one of {', '.join(map(repr, allowed))}, not {value!r}"
                )

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))

    def describe(self) -> list[str]:
        """One sentence per house rule, announced at game start."""
        return [
            "Tied highest totals lose no life.",
            f"Tied lowest totals lose {self.lowest_tie_loses} "
            f"{'lives' if self.lowest_tie_loses != 1 else 'life'} each.",
            "If every total is the same, "
            + ("nobody loses a life." if self.all_equal == "nobody" else "everyone loses 1 life."),
            {
                "most_points": "If everyone left goes out together, most points that round wins.",
                "shared": "If everyone left goes out together, they share the win.",
                "most_lives_before": "If everyone left goes out together, most lives before that round wins.",
            }[self.all_out],
            "The next round starts with "
            + (
                "the next player clockwise."
                if self.next_start == "clockwise"
                else "the player who lost most lives."
            ),
            "You may knock only after your first swap."
            if self.knock_requires_swap
            else "You may knock before swapping.",
            "With two players left, a majority needs two cards."
            if self.two_alive_majority_two
            else "With two players left, one card can be a majority.",
            "A swap takes the row first, then puts down: a card just taken may go straight back."
            if self.take_first
            else "A swap puts down first, then takes the row.",
        ]
