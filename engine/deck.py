"""The deck: the one table of the ten animals and their copies, used everywhere.

An animal's point value is its number of copies. ``Cards`` is an immutable multiset of animals
that always lists its cards in deck order, so two equal hands compare and print the same.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from enum import StrEnum


class Animal(StrEnum):
    GIRAFFE = "giraffe"
    BEAR = "bear"
    MOLE = "mole"
    GOAT = "goat"
    SHEEP = "sheep"
    DOG = "dog"
    RABBIT = "rabbit"
    PIG = "pig"
    CAT = "cat"
    MOUSE = "mouse"

    @property
    def copies(self) -> int:
        return COPIES[self]

    @property
    def points(self) -> int:
        return COPIES[self]

    def __str__(self) -> str:
        return self.value


#: The deck in deck order (highest value first); an animal's copies are its points.
COPIES: Mapping[Animal, int] = {
    Animal.GIRAFFE: 9,
    Animal.BEAR: 8,
    Animal.MOLE: 7,
    Animal.GOAT: 7,
    Animal.SHEEP: 6,
    Animal.DOG: 6,
    Animal.RABBIT: 5,
    Animal.PIG: 5,
    Animal.CAT: 4,
    Animal.MOUSE: 3,
}
ANIMALS: tuple[Animal, ...] = tuple(COPIES)
DECK_SIZE = sum(COPIES.values())
HAND_SIZE = 10
ROW_SIZES = (1, 2, 3, 4)
#: The animals whose every copy in one hand ends the round at once.
SUDDEN_DEATH_ANIMALS: tuple[Animal, ...] = (Animal.CAT, Animal.RABBIT, Animal.PIG)


class Cards:
    """An immutable multiset of animals, listed in deck order."""

    __slots__ = ("_counts",)

    def __init__(self, animals: Iterable[Animal] | Mapping[Animal, int] = ()) -> None:
        counts = animals if isinstance(animals, dict | Mapping) else Counter(animals)
        self._counts: dict[Animal, int] = {
            a: counts[a] for a in ANIMALS if counts.get(a, 0) > 0
        }

    @classmethod
    def of(cls, *animals: Animal | str) -> Cards:
        return cls(Animal(a) for a in animals)

    def count(self, animal: Animal) -> int:
        return self._counts.get(animal, 0)

    def counts(self) -> dict[Animal, int]:
        return dict(self._counts)

    def __iter__(self) -> Iterator[Animal]:
        for animal, n in self._counts.items():
            for _ in range(n):
                yield animal

    def __len__(self) -> int:
        return sum(self._counts.values())

    def __bool__(self) -> bool:
        return bool(self._counts)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Cards) and self._counts == other._counts

    def __hash__(self) -> int:
        return hash(tuple(self._counts.items()))

    def __add__(self, other: Cards) -> Cards:
        # Plain dicts, not Counter: the engine adds hands on every check (see bench/).
        merged = dict(self._counts)
        for a, n in other._counts.items():
            merged[a] = merged.get(a, 0) + n
        return Cards(merged)

    def __sub__(self, other: Cards) -> Cards:
        """Multiset difference; cards of ``other`` missing here are ignored."""
        return Cards({a: n - other._counts.get(a, 0) for a, n in self._counts.items()})

    def __and__(self, other: Cards) -> Cards:
        return Cards({a: min(n, other.count(a)) for a, n in self._counts.items()})

    def contains(self, other: Cards) -> bool:
        return all(self.count(a) >= n for a, n in other._counts.items())

    def missing_from(self, other: Cards) -> Cards:
        """The cards of ``other`` that this multiset lacks."""
        return other - self

    def __repr__(self) -> str:
        return f"Cards({' '.join(a.value for a in self)})"
