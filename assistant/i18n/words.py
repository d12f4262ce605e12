"""Cards, counts and lists as a sentence says them in the table's language.

The translated counterparts of ``engine.words`` (which stays English: the engine's own texts and
the canonical commands): ``listed(["a", "b", "c"])`` is "a, b and c" / "a, b und c" / "a, b, c";
``counted(Animal.BEAR, 2)`` is "2 bears" / "2 Bären" / "곰 2장"; ``describe(cards)`` lists a
hand's counts. Announcements, refusals, the table and the phone page build on these.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from assistant.i18n import _, animal_name, format, npgettext, pgettext
from engine.deck import Animal, Cards
from engine.words import title


def listed(words: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c`` in the table's language (at least one word)."""
    if len(words) == 1:
        return words[0]
    # Translators: joins the last item of a list to the others ("bear, dog and cat").
    return format(_("{others} and {last}"), others=pgettext("list", ", ").join(words[:-1]), last=words[-1])


def counted(animal: Animal, n: int, held: bool = False) -> str:
    """``n`` cards of ``animal``: "a bear", "2 bears"; "ein Bär", "2 Bären"; "곰 1장", "곰 2장".
    ``held``: as the object of "has" ("Cem hat einen Bären": German's accusative)."""
    forms = _held_forms(n) if held else _counted_forms(n)
    return format(forms[animal.value], n=n, animal=animal_name(animal.value, n))


def _counted_forms(n: int) -> dict[str, str]:
    # One entry an animal, as German needs the article's gender ("ein Bär", "eine Maus").
    return {
        "giraffe": npgettext("counted", "a giraffe", "{n} giraffes", n),
        "bear": npgettext("counted", "a bear", "{n} bears", n),
        "mole": npgettext("counted", "a mole", "{n} moles", n),
        "goat": npgettext("counted", "a goat", "{n} goats", n),
        "sheep": npgettext("counted", "a sheep", "{n} sheep", n),
        "dog": npgettext("counted", "a dog", "{n} dogs", n),
        "rabbit": npgettext("counted", "a rabbit", "{n} rabbits", n),
        "pig": npgettext("counted", "a pig", "{n} pigs", n),
        "cat": npgettext("counted", "a cat", "{n} cats", n),
        "mouse": npgettext("counted", "a mouse", "{n} mice", n),
    }


def _held_forms(n: int) -> dict[str, str]:
    # The cards a player has, the object of "has": German's accusative ("Cem hat einen Bären";
    # "Cem hat: ein Bär" dodged it with a colon).
    return {
        "giraffe": npgettext("held", "a giraffe", "{n} giraffes", n),
        "bear": npgettext("held", "a bear", "{n} bears", n),
        "mole": npgettext("held", "a mole", "{n} moles", n),
        "goat": npgettext("held", "a goat", "{n} goats", n),
        "sheep": npgettext("held", "a sheep", "{n} sheep", n),
        "dog": npgettext("held", "a dog", "{n} dogs", n),
        "rabbit": npgettext("held", "a rabbit", "{n} rabbits", n),
        "pig": npgettext("held", "a pig", "{n} pigs", n),
        "cat": npgettext("held", "a cat", "{n} cats", n),
        "mouse": npgettext("held", "a mouse", "{n} mice", n),
    }


def describe(cards: Cards, held: bool = False) -> str:
    """A set of cards by counts ("2 bears and a dog"); "nothing" when empty. ``held``: as the
    object of "has" (``counted``)."""
    parts = [counted(animal, n, held) for animal, n in cards.counts().items()]
    return listed(parts) if parts else _("nothing")


def names(players: Iterable[str]) -> str:
    """Players' names listed as they are shown ("Alice, Bob and Carol")."""
    return listed([title(p) for p in players])
