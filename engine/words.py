"""The few English words the engine's refusals need: an animal's plural, words listed in a
sentence, a list of counted cards (``2 bears and a dog``), a player's name and a list of names. Pure, and written once: ``assistant.announce`` builds its
sentences on these, and the command language reads the same plurals, so cards read alike in a
refusal, an announcement and a typed command."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from engine.deck import Animal, Cards

_IRREGULAR_PLURALS = {Animal.MOUSE: "mice", Animal.SHEEP: "sheep"}


def plural_word(animal: Animal) -> str:
    """The animal's plural: ``bears``, ``mice``, ``sheep`` (the command language reads it too)."""
    return _IRREGULAR_PLURALS.get(animal, animal.value + "s")


def plural(animal: Animal, n: int) -> str:
    """The animal's name for ``n`` of them: ``bear``/``bears``, ``mouse``/``mice``, ``sheep``."""
    return animal.value if n == 1 else plural_word(animal)


def listed(words: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``: words listed in a sentence (at least one)."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def describe(cards: Cards) -> str:
    """``2 bears and a dog`` style, for messages."""
    parts = [f"{'a' if n == 1 else n} {plural(a, n)}" for a, n in cards.counts().items()]
    return listed(parts) if parts else "nothing"


def title(name: str) -> str:
    """A player's name as it is shown and spoken: as typed, with a capital first letter."""
    return name[:1].upper() + name[1:]


def names(players: Iterable[str]) -> str:
    """``Alice, Bob and Carol``: players named in a sentence (``nobody`` for none)."""
    items = [title(p) for p in players]
    return listed(items) if items else "nobody"
