"""Reading the store's own log quickly: ``stored_command`` for ``rebuild`` and ``import``.

A stored command is the canonical form the referee wrote (``Intent.canonical``). Replaying a
game from its log was almost all parsing (the parser tries every template of the language: about
0.25 ms a command, 22 s for a 90,000-command game), so a stored line is first read word by word
against the canonical templates themselves, and the command found is taken only when its
canonical form is the very same text; anything else (a command file written by hand, a log
edited by another tool) goes to the parser as before. Nothing here knows a command's wording:
the templates, ``Command.canonical`` and ``canonical`` are the one source of it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache

from assistant.commands import Command, canonical, parse
from assistant.commands.intents import INTENTS, IntentName
from engine.actions import SuddenDeath
from engine.deck import ANIMALS, HAND_SIZE, ROW_SIZES, SUDDEN_DEATH_ANIMALS, Animal, Cards

Parser = Callable[[str, tuple[str, ...] | None], Command]

#: The templates read word by word: the game commands of a game under way (a new game, whose
#: names the parser checks, is always parsed).
_TEMPLATES: tuple[tuple[IntentName, tuple[str, ...]], ...] = tuple(
    (i.name, tuple(i.canonical.split(" "))) for i in INTENTS if i.game_action and i.name != "new_game"
)
_ANIMALS = {a.value: a for a in ANIMALS}
_ROWS = {str(k): k for k in ROW_SIZES}
#: The counts a card list may give one animal: as the parser, one to a whole hand (it refuses
#: '11 giraffe' itself, so such a line goes to it).
_COUNTS = {str(n): n for n in range(1, HAND_SIZE + 1)}


@cache
def _sudden_death_words() -> dict[str, Animal]:
    """How the canonical form names each sudden-death animal ('cats', 'mice' ...)."""
    return {canonical(SuddenDeath("x", a)).split(" ")[-1]: a for a in SUDDEN_DEATH_ANIMALS}


def stored_command(text: str, players: tuple[str, ...] | None, parse_command: Parser = parse) -> Command:
    """The command a stored line means: read as canonical text when it is exactly that, else
    by ``parse_command``. The same ``Command`` as ``parse(text, players)`` gives."""
    if players is not None:
        command = _decoded(text, players)
        if command is not None:
            return command
    return parse_command(text, players)


def _decoded(text: str, players: Sequence[str]) -> Command | None:
    words = text.split(" ")
    for intent, template in _TEMPLATES:
        command = _command(intent, template, words, players)
        if command is not None:
            return command if command.canonical == text else None
    return None


def _command(intent: IntentName, template: tuple[str, ...], words: list[str],
             players: Sequence[str]) -> Command | None:
    """The command of ``intent`` that ``words`` read against ``template`` are, its slots typed
    as ``Command`` keeps them; None when they do not fit."""
    player: str | None = None
    row: int | None = None
    animal: Animal | None = None
    for i, part in enumerate(template):
        if part == "{cards}":  # always the last part: the rest of the words
            cards = _cards(words[i:])
            return Command(intent, player, (), row, cards, animal) if cards is not None else None
        if i >= len(words):
            return None
        word = words[i]
        if part == "{player}":
            if word not in players:
                return None
            player = word
        elif part == "{row}":
            if word not in _ROWS:
                return None
            row = _ROWS[word]
        elif part == "{sd_animal}":
            if word not in _sudden_death_words():
                return None
            animal = _sudden_death_words()[word]
        elif part != word:
            return None
    return Command(intent, player, (), row, Cards(), animal) if len(words) == len(template) else None


def _cards(words: list[str]) -> Cards | None:
    """Animals named one by one or as 'count animal' pairs (the round trip checks which)."""
    counts: dict[Animal, int] = {}
    count = 1
    for word in words:
        if word in _ANIMALS:
            animal = _ANIMALS[word]
            counts[animal] = counts.get(animal, 0) + count
            count = 1
        elif word in _COUNTS and count == 1:
            count = _COUNTS[word]
        else:
            return None
    return Cards(counts) if counts and count == 1 else None
