"""The command language as data: the one place that says what people may type or say.

Both the typed parser (``assistant.commands.parser``) and the speech grammar
(``assistant.voice.jsgf``) are built from these tables, so typed and spoken commands cannot
drift apart. Each intent's templates, canonical form and example are kept on its record
(``assistant.commands.intents``); the tables here are read from the records.

Template syntax (a small subset of hassil's):
    ``word``          a literal word
    ``(a|b c)``       one of the alternatives (each may be several words)
    ``[a|b]``         optional: one of the alternatives, or nothing
    ``{slot}``        a slot, filled from the slot tables below

Slots:
    ``{player}``      one player's name (the current players, passed in at parse time)
    ``{names}``       3 to 5 new player names (only in ``new game``); always last
    ``{row}``         a row number 1..4, as a digit or a word
    ``{cards}``       a list of animals: ``pig pig cat``, ``two pigs and a cat``; always last
    ``{sd_animal}``   cats, rabbits (hares) or pigs, for a sudden-death claim
"""

from __future__ import annotations

from assistant.commands.intents import BY_NAME, HELP_ORDER, INTENTS
from assistant.commands.templates import Sentence, parse_template, words
from engine.deck import ANIMALS, SUDDEN_DEATH_ANIMALS, Animal
from engine.words import plural_word

#: Intent name -> sentence templates, tried in this order (first match wins): the records'.
#: These tables are keyed by ``IntentName``s, typed ``str`` so that a plain name finds its row.
TEMPLATES: dict[str, tuple[str, ...]] = {i.name: i.templates for i in INTENTS}

#: The templates parsed once (``assistant.commands.templates``): what every reader walks.
TREES: dict[str, tuple[Sentence, ...]] = {
    intent: tuple(parse_template(t) for t in templates) for intent, templates in TEMPLATES.items()
}

#: Canonical form of each intent: ``str.format`` with the canonical slot values.
CANONICAL: dict[str, str] = {i.name: i.canonical for i in INTENTS}

#: One example per intent for help texts and "did you mean" suggestions; ``{p}`` is a player.
EXAMPLES: dict[str, str] = {name: BY_NAME[name].example for name in HELP_ORDER}

#: Number words (and ``a``/``an`` for one); digits are read as numbers too.
NUMBERS: dict[str, int] = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
}

#: Words for ``{row}``: the numbers 1 to 4 (not ``a``/``an``).
ROW_WORDS: dict[str, int] = {w: n for w, n in NUMBERS.items() if n <= 4 and w not in ("a", "an")}

_SYNONYMS: dict[str, Animal] = {"hare": Animal.RABBIT, "hares": Animal.RABBIT}


#: Every word for an animal: singular, plural and synonyms (``hare``).
ANIMAL_WORDS: dict[str, Animal] = {
    **{a.value: a for a in ANIMALS},
    **{plural_word(a): a for a in ANIMALS},
    **_SYNONYMS,
}

#: Words typed but not listened for: to PocketSphinx "a hare" and "bear" are nearly the same
#: sound, and with "hare" in the speech grammar a spoken "bear" was often heard as a rabbit.
#: People speaking say "rabbit" (the English edition's name); typing "hare" still works.
UNSPOKEN_WORDS: frozenset[str] = frozenset(_SYNONYMS)

#: Words for ``{sd_animal}``.
SUDDEN_DEATH_WORDS: dict[str, Animal] = {
    w: a for w, a in ANIMAL_WORDS.items() if a in SUDDEN_DEATH_ANIMALS
}

#: Words that may separate items of a list.
LIST_SEPARATORS: frozenset[str] = frozenset({"and", "plus", "with"})

#: Words of the language itself, which cannot be player names.
RESERVED_WORDS: frozenset[str] = frozenset()  # filled in below


def _template_words() -> set[str]:
    return {w for trees in TREES.values() for tree in trees for w in words(tree)}


RESERVED_WORDS = frozenset(_template_words() | set(NUMBERS) | set(ANIMAL_WORDS) | LIST_SEPARATORS)
