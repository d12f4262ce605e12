"""What the referee can know (RULES.md): the cards known to be in a hand after a swap, the deck's
limits on what the rows and the hands hold together, and what is wrong with a declared hand.
Pure functions of cards; ``Game`` asks them while it validates a swap, a row or a hand, and the
reveal grid shows the same ``HandCheck`` as it is typed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from engine.deck import ANIMALS, COPIES, HAND_SIZE, Animal, Cards
from engine.errors import N_, BadCards, Counted, Phrase


@dataclass(frozen=True)
class HandCheck:
    """What is wrong with a hand a player declares (RULES.md, What the referee can know).

    ``size``: its number of cards (a hand holds exactly ``HAND_SIZE``); ``missing``: the cards
    known to be in it that it lacks; ``overflow``: per animal, how many the rows and all hands
    would hold together, for every animal above its copies in the deck. Nothing wrong: ``ok``.
    """

    size: int
    missing: Cards
    overflow: Mapping[Animal, int]

    @property
    def ok(self) -> bool:
        return self.size == HAND_SIZE and not self.missing and not self.overflow


def known_after_swap(known: Cards, taken: Cards, put_down: Cards, take_first: bool) -> Cards:
    """The cards known to be in a hand after a swap (RULES.md, What the referee can know).

    In the rules' order the cards put down leave the hand first, then the row comes in: the known
    cards put down are gone and the whole row is known. Under the house rule ``take_first`` the
    row comes in first and the cards put down may be any of the hand's, just taken ones too.
    """
    if take_first:
        return (known + taken) - put_down
    return (known - put_down) + taken


def deck_overflow(cards: Iterable[Cards | None]) -> dict[Animal, int]:
    """The animals that ``cards`` (rows and hands; None for a row not set) together hold more
    often than the deck does, with how many they hold, in deck order."""
    total: dict[Animal, int] = {}
    for held in cards:
        if held is not None:
            for animal, n in held.counts().items():
                total[animal] = total.get(animal, 0) + n
    return {a: total[a] for a in ANIMALS if total.get(a, 0) > COPIES[a]}


def refuse_overflow(overflowing: Mapping[Animal, int], what: Phrase) -> None:
    """Refuse (``BadCards``) the first animal in deck order that ``what`` holds more often than
    the deck."""
    for animal, n in overflowing.items():
        raise BadCards(N_("That makes {cards} in {what}, but the deck holds only {copies}."),
                       cards=Counted(animal, n), what=what, copies=COPIES[animal])
