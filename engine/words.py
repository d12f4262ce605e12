"""The few English words the engine's refusals need: an animal's plural and a list of counted
cards (``2 bears and a dog``). Pure, and written once: ``assistant.announce`` builds its
sentences on these, and the command language reads the same plurals, so cards read alike in a
refusal, an announcement and a typed command."""

from __future__ import annotations

from engine.deck import Animal, Cards

_IRREGULAR_PLURALS = {Animal.MOUSE: "mice", Animal.SHEEP: "sheep"}


def plural_word(animal: Animal) -> str:
    """The animal's plural: ``bears``, ``mice``, ``sheep`` (the command language reads it too)."""
    return _IRREGULAR_PLURALS.get(animal, animal.value + "s")


def plural(animal: Animal, n: int) -> str:
    """The animal's name for ``n`` of them: ``bear``/``bears``, ``mouse``/``mice``, ``sheep``."""
    return animal.value if n == 1 else plural_word(animal)


def describe(cards: Cards) -> str:
    """``2 bears and a dog`` style, for messages."""
    parts = [f"{'a' if n == 1 else n} {plural(a, n)}" for a, n in cards.counts().items()]
    if not parts:
        return "nothing"
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
