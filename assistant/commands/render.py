"""A canonical command written as a person of a table's language would type it.

``say(command, "de")`` is ``"Alice tauscht Reihe 3 gegen Maus, Hase und Hund"``,
``say(command, "ko")`` ``"앨리스가 3번 줄을 쥐, 토끼, 개와 교환해요"``; English gives the canonical
form itself. The sentence comes from the language's ``say`` template (its data file), its cards
from the language's animal forms and number names, and a Korean particle after a field agrees
with the word it follows (``i18n.format``). Every sentence ``say`` writes parses back to the same
command in that language (the tests check it for every seeded game). Used by the tests and by the
table's examples.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from assistant.commands.intents import BY_NAME, IntentName
from assistant.commands.language import ENGLISH, Language, languages
from assistant.commands.parser import Command
from assistant.i18n import format as i18n_format
from engine.deck import Animal, Cards


def say(command: Command, language: Language | str = ENGLISH) -> str:
    """``command`` as a sentence of ``language`` (a ``Language`` or its code)."""
    lang = languages(language) if isinstance(language, str) else language
    if lang.code == ENGLISH:
        return command.canonical
    return i18n_format(
        lang.say[command.intent],
        player=command.player or "",
        names=joined(list(command.names), lang),
        row=command.row if command.row is not None else "",
        cards=cards_text(command.cards, lang, every_count=command.intent == IntentName.HAND),
        sd_animal=lang.animal_forms[command.animal].plural if command.animal else "",
    )


def counted(animal: Animal, n: int, language: Language, every_count: bool = True) -> str:
    """``n`` cards of ``animal``: 'zwei Bären', 'eine Maus', '곰 두 장'; one card without its count
    unless ``every_count`` (a hand's: 'Maus', '쥐'), which the language may want in digits
    (``Language.hand_digits``: '2 Bären, 1 Maus')."""
    forms = language.animal_forms[animal]
    if n == 1:
        if not every_count:
            return forms.singular
        return language.counted_one.format(one=forms.one, singular=forms.singular,
                                           held=forms.held or forms.singular).strip()
    count = str(n) if every_count and language.hand_digits else language.number_names.get(n, str(n))
    return language.counted.format(count=count, singular=forms.singular, plural=forms.plural)


def cards_text(cards: Cards, language: Language, every_count: bool = False) -> str:
    """A set of cards as a list of the language: 'zwei Schweine und Katze', '돼지 두 장, 고양이'."""
    return joined([counted(a, n, language, every_count) for a, n in cards.counts().items()], language)


def joined(items: Sequence[str], language: Language) -> str:
    """``items`` listed with the language's separators ('a, b und c'; '가, 나, 다')."""
    if len(items) <= 1:
        return "".join(items)
    return language.comma.join(items[:-1]) + language.last_separator + items[-1]


def start(intent: str, language: Language | str = ENGLISH, **given: object) -> str:
    """The start of ``intent``'s sentence in ``language`` with the ``given`` fields filled (a
    player, a row), up to the first field not given: what Tab types and the palette offers
    ('Alice tauscht Reihe ', 'Reihe 2 ', '2번 줄 ', 'neues Spiel mit '); the whole sentence
    when every field is given ('Alice klopft', '앨리스가 노크해요')."""
    lang = languages(language) if isinstance(language, str) else language
    template = lang.say[intent] if lang.code != ENGLISH else BY_NAME[IntentName(intent)].canonical
    cut = len(template)
    for match in _FIELD.finditer(template):
        if match.group(1) not in given:
            cut = match.start()
            break
    return i18n_format(template[:cut], **given)


_FIELD = re.compile(r"\{(\w+)(?::[^}]*)?\}")


#: The intent each English verb after a player's name starts: how an engine refusal's offered
#: command ('bob swaps', ``engine.errors.Commands``) is told apart.
_VERB_INTENTS = {"swaps": "swap", "knocks": "knock", "passes": "pass", "starts": "starts", "has": "hand"}
#: The intents of the fixed words a sentence quotes ('yes', 'new game', 'undo').
_WORD_INTENTS = {"yes": "yes", "no": "no", "help": "help", "undo": "undo", "redo": "redo",
                 "status": "status", "new game": "new_game", "repeat": "repeat"}


def offered(command: str, language: Language | str = ENGLISH) -> str:
    """A command a sentence offers or quotes ('bob swaps', 'bob knocks', 'yes', 'new game'),
    written in ``language`` as it is typed there: 'bob tauscht', 'bob이 노크해요', 'ja',
    'neues Spiel mit'; English (or a text that is none of these) as it is."""
    lang = languages(language) if isinstance(language, str) else language
    if lang.code == ENGLISH:
        return command
    if command in _WORD_INTENTS:
        return start(_WORD_INTENTS[command], lang).strip() or command
    if command.startswith("new game "):
        return say(Command(IntentName.NEW_GAME, names=tuple(command.split()[2:])), lang)
    player, _, verb = command.rpartition(" ")
    intent = _VERB_INTENTS.get(verb)
    if not player or intent is None:
        return command
    return _player_start(intent, player, lang)


def _player_start(intent: str, player: str, language: Language) -> str:
    """A player's command up to its first missing field ('bob tauscht', the row's own word left
    out), and, where the language's verb ends the sentence after the missing fields, that verb
    after an ellipsis ('bob이 … 교환해요'); the whole command when it has no other field."""
    words = start(intent, language, player=player).strip()
    template = language.say[intent]
    if _FIELD.fullmatch(template.split()[0]) and len(_FIELD.findall(template)) == 1:
        return words  # 'bob klopft': nothing missing
    row_word = start("row", language).strip()
    if intent == "swap" and row_word and words.endswith(" " + row_word):
        words = words[: -len(row_word) - 1]
    tail = template[template.rfind("}") + 1:].strip()
    return f"{words} … {tail}" if tail else words
