"""Typed refusals. The message is a sentence for the people at the table: it says what is wrong
and what would be accepted. A refused action never changes the game.

A refusal carries its sentence as an English template with named fields (``Phrase``) and the
fields themselves, typed: players' names (``Player``, ``Players``), cards (``Cards``), counted
animals (``Counted``, ``AnimalWord``), numbers, and sub-sentences (``Phrase``). ``str(error)`` is
the English sentence; the assistant renders the same template and fields in the table's language
(``assistant.i18n.refusals``). The templates are marked for the message catalogs with ``N_``,
which the engine defines itself (it imports nothing of the assistant): the catalog extractor
knows the name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from engine.deck import Animal, Cards
from engine.words import describe, listed, plural, title


def N_(message: str) -> str:
    """Marks an English message template for the catalogs; returns it unchanged."""
    return message


@dataclass(frozen=True)
class Player:
    """A player's name in a sentence: shown with a capital first letter."""

    name: str

    def __str__(self) -> str:
        return title(self.name)


@dataclass(frozen=True)
class Players:
    """Players' names in a sentence. In English ``style`` says how they are joined: "comma"
    (``Alice, Bob, Carol``), "and" (``Alice and Bob``) or "possessive" (``Alice's and Bob's``);
    other languages list them as their sentences need."""

    names: tuple[str, ...]
    style: Literal["comma", "and", "possessive"] = "comma"

    def __str__(self) -> str:
        shown = [title(p) for p in self.names]
        if self.style == "possessive":
            return listed([name + "'s" for name in shown])
        return (", " if self.style == "comma" else " and ").join(shown)


@dataclass(frozen=True)
class RowList:
    """Rows named in a sentence: ``row 1 and row 3``."""

    rows: tuple[int, ...]

    def __str__(self) -> str:
        return " and ".join(f"row {k}" for k in self.rows)


@dataclass(frozen=True)
class Commands:
    """Canonical commands offered as alternatives: ``'bob swaps' or 'bob knocks'``."""

    commands: tuple[str, ...]

    def __str__(self) -> str:
        return " or ".join(f"'{command}'" for command in self.commands)


@dataclass(frozen=True)
class Counted:
    """``n`` cards of an animal: "a bear", "2 bears" (``capital``: "A bear")."""

    animal: Animal
    n: int
    capital: bool = False

    def __str__(self) -> str:
        text = f"{'a' if self.n == 1 else self.n} {plural(self.animal, self.n)}"
        return text[:1].upper() + text[1:] if self.capital else text


@dataclass(frozen=True)
class AnimalWord:
    """An animal's name for ``n`` of them, without the count: "bear", "bears"."""

    animal: Animal
    n: int = 1

    def __str__(self) -> str:
        return plural(self.animal, self.n)


class Phrase:
    """An English message template (marked with ``N_``) and its named fields."""

    __slots__ = ("fields", "template")

    def __init__(self, template: str, **fields: object) -> None:
        self.template = template
        self.fields = fields

    def __str__(self) -> str:
        if not self.fields:  # a sentence without fields is the template itself, braces and all
            return self.template
        return self.template.format(**{name: english(value) for name, value in self.fields.items()})

    def __repr__(self) -> str:
        return f"Phrase({self.template!r}, **{self.fields!r})"


#: The field types that say themselves in English by ``str``.
_WORDS = (Player, Players, RowList, Commands, Counted, AnimalWord, Phrase)


def english(value: object) -> object:
    """A field as the English sentence says it (cards by counts, names capitalised); numbers
    and plain text as they are, so that a template may format them (``{most:,}``)."""
    if isinstance(value, Cards):
        return describe(value)
    if isinstance(value, _WORDS):
        return str(value)
    return value


class RuleError(Exception):
    """An action the rules do not allow now. ``str(error)`` is meant to be shown and spoken
    (in English); ``phrase`` is the same sentence as a template and its fields, which the
    assistant says in the table's language."""

    code = "rule"

    def __init__(self, template: str | Phrase, /, **fields: object) -> None:
        phrase = template if isinstance(template, Phrase) else Phrase(template, **fields)
        message = str(phrase)
        super().__init__(message)
        self.message = message
        self.phrase = phrase


class WrongPhase(RuleError):
    code = "phase"


class NotYourTurn(RuleError):
    code = "turn"


class UnknownPlayer(RuleError):
    code = "player"


class BadRow(RuleError):
    code = "row"


class BadCards(RuleError):
    code = "cards"


class BadHand(RuleError):
    code = "hand"


class BadClaim(RuleError):
    code = "claim"


class BadSetup(RuleError):
    code = "setup"
