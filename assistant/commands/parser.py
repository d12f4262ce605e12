"""Typed (and transcribed) text -> a ``Command`` with one canonical form.

``parse(text, players=..., language=...)`` is a pure function over a command language's tables
(``language.Language``: English's are ``grammar``'s, German's and Korean's their data files):
templates are expanded once into token patterns, then matched left to right. A line in German or
Korean is read in that language first, then as English (canonical English always works). Anything not understood raises
``ParseError`` with a short sentence. Its ``suggestion`` (what Tab or Enter takes at the table) is
only ever the line typed with its misspelt words corrected; when there is none, the sentence
shows the closest command as an example ("e.g. ...") and there is no suggestion.
"""

from __future__ import annotations

import difflib
import itertools
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache

from assistant.commands.intents import GAME_INTENTS as GAME_INTENTS
from assistant.commands.intents import INTENTS, Intent, IntentName
from assistant.commands.intents import intent as intent_record
from assistant.commands.language import ENGLISH_LANGUAGE, Language, languages
from assistant.commands.templates import Element, Sentence, parse_template
from assistant.commands.templates import expand as expand_tree
from assistant.commands.text import MAX_LINE, fold, normalize, printable
from assistant.i18n import _, ngettext, pgettext
from assistant.i18n import animal_name as _animal_name
from assistant.i18n import format as _format
from assistant.i18n.particles import PAIRS, attach
from assistant.i18n.words import listed
from assistant.i18n.words import names as player_names
from engine.actions import (
    Action,
    DeclareHand,
    Knock,
    NewGame,
    Pass,
    SetRow,
    SetStarter,
    SuddenDeath,
    Swap,
)
from engine.deck import ANIMALS, Animal, Cards
from engine.game import MAX_NAME, MAX_PLAYERS, MIN_PLAYERS, valid_name
from engine.words import title

TAIL_SLOTS = frozenset({"names", "cards"})


class ParseError(ValueError):
    """Text that is not a command; the message says what was expected."""

    def __init__(self, message: str, suggestion: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.suggestion = suggestion


#: The empty hand every parse's slots start from: ``Cards`` is immutable, so one is shared
#: (building a new one for each template tried was a seventh of the test suite's CPU).
NO_CARDS = Cards()


@dataclass(frozen=True)
class Command:
    """A parsed command: its intent and its slots, each typed (the ones its sentence has no
    slot for keep their defaults)."""

    intent: IntentName
    player: str | None = None
    names: tuple[str, ...] = ()
    row: int | None = None
    cards: Cards = NO_CARDS
    animal: Animal | None = None
    #: A heard command's other readings of the same utterance, the recogniser's next best first
    #: (game actions the game would take, each a different command): what "no" to its read-back
    #: offers instead, and what a repeat is taken as when it is heard as the refused one
    #: (``Referee``). None for a typed command; never part of what the command is (not compared).
    readings: tuple[Command, ...] = field(default=(), compare=False, repr=False)
    #: A heard command whose end the recogniser filled in where the speaker seemed to stop
    #: (``WhisperRecognizer``): read back and applied on "yes", as a heard hand is (``Referee``).
    #: At a pause before the last card the decoder repeats the card before it ("row 4 mole sheep
    #: dog [pause] pig" read "mole, sheep, dog, dog"): 21 of 29 such commands in bench/voice_game.py's
    #: games were wrong. Never part of what the command is (not compared).
    unsure: bool = field(default=False, compare=False, repr=False)

    @property
    def record(self) -> Intent:
        """Everything about its intent (``intents.Intent``)."""
        return intent_record(self.intent)

    @property
    def is_game_action(self) -> bool:
        return self.record.game_action

    @property
    def canonical(self) -> str:
        return self.record.canonical.format(
            player=self.player,
            names=" ".join(self.names),
            row=self.row,
            cards=self._canonical_cards(),
            sd_animal=_plural(self.animal) if self.animal else "",
        )

    def _canonical_cards(self) -> str:
        if self.intent == IntentName.HAND:
            return " ".join(f"{n} {a.value}" for a, n in self.cards.counts().items())
        return " ".join(a.value for a in self.cards)

    def to_action(self) -> Action:
        match self.intent:
            case IntentName.NEW_GAME:
                return NewGame(self.names)
            case IntentName.STARTS:
                return SetStarter(self._player())
            case IntentName.ROW:
                return SetRow(self._row(), self.cards)
            case IntentName.SWAP:
                return Swap(self._player(), self._row(), self.cards)
            case IntentName.KNOCK:
                return Knock(self._player())
            case IntentName.PASS:
                return Pass(self._player())
            case IntentName.HAND:
                return DeclareHand(self._player(), self.cards)
            case IntentName.SUDDEN_DEATH:
                assert self.animal is not None
                return SuddenDeath(self._player(), self.animal)
        raise ValueError(f"{self.intent} is not a game action")

    def _player(self) -> str:
        assert self.player is not None
        return self.player

    def _row(self) -> int:
        assert self.row is not None
        return self.row


def command_for(action: Action) -> Command:
    """The command whose canonical form writes ``action`` (for logs and exports)."""
    match action:
        case NewGame(players=players):
            return Command(IntentName.NEW_GAME, names=tuple(players))
        case SetStarter(player=p):
            return Command(IntentName.STARTS, player=p)
        case SetRow(row=k, cards=cards):
            return Command(IntentName.ROW, row=k, cards=cards)
        case Swap(player=p, row=k, cards=cards):
            return Command(IntentName.SWAP, player=p, row=k, cards=cards)
        case Knock(player=p):
            return Command(IntentName.KNOCK, player=p)
        case Pass(player=p):
            return Command(IntentName.PASS, player=p)
        case DeclareHand(player=p, cards=cards):
            return Command(IntentName.HAND, player=p, cards=cards)
        case SuddenDeath(player=p, animal=a):
            return Command(IntentName.SUDDEN_DEATH, player=p, animal=a)
    raise TypeError(f"not an action: {action!r}")


def canonical(action: Action) -> str:
    return command_for(action).canonical


def _plural(animal: Animal) -> str:
    return {Animal.MOUSE: "mice", Animal.SHEEP: "sheep"}.get(animal, animal.value + "s")


# --------------------------------------------------------------------------- templates

@cache
def expand(template: str) -> tuple[tuple[Element, ...], ...]:
    """All word patterns of a template (see ``templates.expand``)."""
    return expand_tree(parse_template(template))


@cache
def _patterns(tree: Sentence) -> tuple[tuple[Element, ...], ...]:
    return expand_tree(tree)


@cache
def _literal_words(pattern: tuple[Element, ...]) -> frozenset[str]:
    return frozenset(word for element in pattern if isinstance(element, tuple) for word in element)


#: What ``parse`` and its helpers take for a language: its record or its code.
LanguageLike = Language | str


def _language(language: LanguageLike) -> Language:
    return languages(language) if isinstance(language, str) else language


# --------------------------------------------------------------------------- tokens


class Token(str):
    """A word of a command: compared casefolded (the str value), remembered as typed
    (``typed``), so that a new player's name is kept as the person wrote it."""

    typed: str
    #: What stood between the word before and this one, as typed ("" for the first word).
    gap: str
    #: A particle typed glued to the word and dropped from it (Korean '앨리스가': '가').
    tail: str

    def __new__(cls, typed: str, gap: str = "", tail: str = "", word: str | None = None) -> Token:
        token = super().__new__(cls, fold(typed) if word is None else word)
        token.typed = typed
        token.gap = gap
        token.tail = tail
        return token


# Words are runs of letters and combining marks of any script (Jörg, Zoë and प्रिया stay one
# word), joined by single hyphens or apostrophes (Anne-Marie, O'Brien); numbers are ASCII digit
# runs (``normalize`` wrote every digit so), with a sign or a decimal part kept so that '-3' and
# '2.5' are refused as typed rather than read as 3 and 2, 5; a number glued to a word is a word
# of its own ('row2', 'bear1': never dropped). Anything else separates words, and a new player's
# name must not be two words glued by it ('anne_marie', ``_glued_name``).
_WORD_OR_NUMBER = re.compile(r"(?<![0-9.])[-+]?[0-9]+(?:\.[0-9]+)?(?![0-9])|[^\W\d_]")
#: A word that is a number: digits, perhaps with a sign or a decimal part.
_NUMBER = re.compile(r"[-+]?[0-9]+(?:\.[0-9]+)?")
#: What ``number`` gives for a number that is no count or row (signed, decimal, huge): out of
#: every range, so the slot refuses it, quoting the number as typed.
_NOT_A_COUNT = -1


def tokenize(text: str) -> list[str]:
    """The words of ``text`` (normalised first), casefolded; each remembers its typed form."""
    text = normalize(text)
    tokens: list[str] = []
    pos, end = 0, len(text)
    while True:
        found = _WORD_OR_NUMBER.search(text, pos)
        if found is None:
            return tokens
        gap = text[pos : found.start()] if tokens else ""
        if not _is_letter(found.group()[0]):  # a number
            tokens.append(Token(found.group(), gap))
            pos = found.end()
            continue
        start = stop = found.start()
        while stop < end:
            if _is_letter(text[stop]):
                stop += 1
            elif text[stop] in "-'" and stop + 1 < end and _is_letter(text[stop + 1]) \
                    and stop > start:
                stop += 1
            else:
                break
        tokens.append(Token(text[start:stop], gap))
        pos = stop


def _is_letter(ch: str) -> bool:
    return unicodedata.category(ch)[0] in "LM"


def language_words(
    tokens: list[str], language: Language, players: Mapping[str, str] | None = None
) -> list[str]:
    """``tokens`` as words of ``language``: other spellings of its words written its way
    ('baer' is 'bär'), and a word that is none of its words (nor a player's name, nor a number)
    split where it ends in a particle (dropped: '앨리스가' is '앨리스') or an ending (kept as a
    word: '노크했어요' is '노크 했어요'), when the stem then is one."""
    if not language.spellings and not language.particles and not language.endings:
        return tokens
    words: list[str] = []
    for token in tokens:
        words.extend(_split_word(_spelt(token, language, players), language, players))
    return words


def _spelt(token: str, language: Language, players: Mapping[str, str] | None) -> str:
    word = language.spellings.get(token)
    if word is None or (players is not None and token in players):
        return token
    return Token(_raw(token), getattr(token, "gap", " "), word=word)


def _known(word: str, language: Language, players: Mapping[str, str] | None) -> bool:
    return (word in language.reserved_words or is_number(word)
            or (players is not None and word in players))


def _split_word(
    token: str, language: Language, players: Mapping[str, str] | None, depth: int = 0
) -> list[str]:
    """One typed word as the words of the language it is made of (itself if none): split
    where the stem and what it is made of are words of the language (or numbers, or players'
    names); else, once, a word the language does not know before a particle of the right form
    ('호랑이와' is '호랑이': the animal a refusal names)."""
    if _known(token, language, players) or depth > 2:
        return [token]
    for suffix in language.suffixes:
        stem = _stem(token, suffix)
        if stem is None:
            continue
        parts = _split_word(stem, language, players, depth + 1)
        if all(_known(p, language, players) for p in parts):
            return _with_suffix(parts, token, suffix, language)
    for particle in language.particles if depth == 0 else ():
        stem = _stem(token, particle)
        if stem is not None and _new_name(stem, particle, language):
            return _with_suffix([stem], token, particle, language)
    return [token]


def _stem(token: str, suffix: str) -> Token | None:
    """``token`` without ``suffix`` (as typed), or None if it does not end in it."""
    typed = _raw(token)
    if not token.endswith(suffix) or len(token) == len(suffix):
        return None
    stem = Token(typed[: len(typed) - len(suffix)], getattr(token, "gap", " "))
    return stem if stem == token[: len(token) - len(suffix)] else None  # casefolding kept lengths


def _with_suffix(parts: list[str], token: str, suffix: str, language: Language) -> list[str]:
    """The words of a stem and its suffix: an ending a word of its own, a particle dropped (kept
    as the last word's ``tail``, so that a corrected line is written with it)."""
    typed = _raw(token)
    suffix_typed = typed[len(typed) - len(suffix):]
    if suffix in language.endings and suffix not in language.particles:
        return [*parts, Token(suffix_typed, "")]
    last = parts[-1]
    return [*parts[:-1], Token(_raw(last), getattr(last, "gap", ""), tail=suffix_typed, word=str(last))]


def _new_name(stem: str, particle: str, language: Language) -> bool:
    """A word the language does not know followed by a particle of the right form for its last
    sound ('앨리스가', '밥이', '호랑이와'): read as the word (a new player's name, a misspelt
    word to correct or name in a refusal)."""
    if particle not in language.particles or not stem:
        return False
    return any(particle in pair.split("/") and attach(stem, pair) == stem + particle for pair in PAIRS)


def is_number(word: str) -> bool:
    return _NUMBER.fullmatch(word) is not None


def number(word: str, language: Language = ENGLISH_LANGUAGE) -> int | None:
    """The number a word means (a digit run or a number word), ``_NOT_A_COUNT`` for a number
    that can be no count or row ('-3', '2.5', twenty digits), None for other words."""
    if is_number(word):
        return int(word) if word.isdigit() and len(word) <= 6 else _NOT_A_COUNT
    return language.numbers.get(word)


class _SlotError(Exception):
    def __init__(self, message: str) -> None:
        self.message = message


def parse_cards(tokens: Sequence[str], language: Language = ENGLISH_LANGUAGE) -> Cards:
    """``pig pig cat``, ``two pigs and a cat``, ``3 giraffe, 2 bears`` -> Cards; in Korean a
    count may follow its animal (``쥐 두 장``, ``쥐 2장``), and a counter after a count is
    skipped: '개' right after a number counts ('토끼 두 개' is two rabbits), elsewhere it is
    the dog ('개 두 개' is two dogs)."""
    counts: dict[Animal, int] = {}
    pending: tuple[int, str] | None = None  # a count said before its animal
    last: Animal | None = None  # the animal just named, its count not said yet (Korean)
    counted = False  # the word before was a number (a counter word may follow)
    for tok in tokens:
        after_count, counted = counted, False
        if tok in language.counters and (after_count or tok not in language.animal_words):
            continue
        if tok in language.list_separators:
            _no_pending(pending)
            last = None
            continue
        n = number(tok, language)
        if n is not None:
            _check_count(n, tok, pending)
            counted = True
            if last is not None and language.count_after_animal:
                counts[last] += n - 1
                last = None
            else:
                pending = (n, _typed(tok))
            continue
        animal = _animal_word(tok, language)
        counts[animal] = counts.get(animal, 0) + (pending[0] if pending else 1)
        last, pending = (animal if pending is None else None), None
    _no_pending(pending)
    if not counts:
        raise _SlotError(_("Name the cards, e.g. 'bear dog' or 'two pigs and a cat'."))
    return Cards(counts)


def _no_pending(pending: tuple[int, str] | None) -> None:
    if pending is not None:
        raise _SlotError(_format(_("'{number}' of what? Name an animal after each number."),
                                 number=pending[1]))


def _check_count(n: int, tok: str, pending: tuple[int, str] | None) -> None:
    if pending is not None:
        raise _SlotError(_format(_("Two numbers in a row ({first} {second}): name an animal "
                                   "after each number."), first=pending[1], second=_typed(tok)))
    if not 1 <= n <= 10:
        raise _SlotError(_format(_("{number} cards of one animal? Counts go from 1 to 10."),
                                 number=_typed(tok)))


def _animal_word(tok: str, language: Language = ENGLISH_LANGUAGE) -> Animal:
    """The animal a word of a card list names, or ``_SlotError`` saying what it is not."""
    animal = language.animal_words.get(tok)
    if animal is not None:
        return animal
    if tok in language.all_words:
        raise _SlotError(_(
            "Sudden death is 'all cats', 'all rabbits' or 'all pigs'; a hand is counted "
            "cards, e.g. '3 giraffe 2 bear 5 dog'."
        ))
    close = difflib.get_close_matches(tok, list(language.animal_words), n=1, cutoff=0.6)
    hint = _format(_(" Did you mean {word}?"), word=_shown(close[0], language)) if close else ""
    return _unknown_animal(tok, hint)


def _shown(word: str, language: Language) -> str:
    """An animal word as the language writes it ('bär' is 'Bär')."""
    forms = language.animal_forms[language.animal_words[word]]
    return next((form for form in (forms.singular, forms.plural) if fold(form) == word), word)


def _unknown_animal(tok: str, hint: str) -> Animal:
    raise _SlotError(_format(_("I don't know the animal '{word}'.{hint} The animals are {animals}."),
                             word=_typed(tok), hint=hint,
                             animals=pgettext("list", ", ").join(_animal_name(a.value) for a in ANIMALS)))


def _raw(token: str) -> str:
    """A word as the person typed it."""
    return getattr(token, "typed", token)


def _typed(token: str) -> str:
    """A word as the person typed it, for sentences that quote it (a number of a thousand
    digits is cut)."""
    return printable(_raw(token), 24)


def _parse_names(tokens: Sequence[str], language: Language = ENGLISH_LANGUAGE) -> tuple[str, ...]:
    glued = _glued_name(tokens)
    if glued is not None:
        raise _SlotError(name_problem(glued, language=language)
                         or _format(_("'{name}' is not a name."), name=printable(glued, 30)))
    return check_names([_name_without_particle(t, language) for t in tokens
                        if t not in language.list_separators], language)


def _name_without_particle(token: str, language: Language) -> str:
    """A new player's name as typed, without a particle that joins it to the next one in the
    right form for its last sound ('앨리스와 밥과 캐럴': 앨리스, 밥)."""
    typed = _raw(token) + getattr(token, "tail", "")
    for particle in _NAME_PARTICLES if "와" in language.particles else ():
        stem = typed[: -len(particle)]
        if typed.endswith(particle) and stem and \
                (particle == "하고" or _new_name(stem, particle, language)):
            return stem
    return typed


#: Particles that join new players' names ('앨리스와 밥과 캐럴로'), longest first.
_NAME_PARTICLES = ("이랑", "하고", "으로", "와", "과", "랑", "로")


def _glued_name(tokens: Sequence[str]) -> str | None:
    """A name typed as words glued by what is no separator ('anne_marie', 'jo/ann', 'bob1'),
    or None. Read as separate words they were separate players: a game of three began from
    "new game anne_marie carol". Spaces and list marks (, ; &) separate names."""
    glued: list[str] = []
    for token in tokens:
        gap = getattr(token, "gap", " ")
        if glued and not any(ch.isspace() or ch in ",;&" for ch in gap):
            glued.append(gap + _raw(token))
        elif len(glued) > 1:
            break
        else:
            glued = [_raw(token)]
    return "".join(glued) if len(glued) > 1 else None


def new_game_command(names: Sequence[str]) -> Command:
    """The new game of these players, one name each (the setup screen's fields): 'Anna Lena'
    in one field is refused, not made two players. Raises ``ParseError``."""
    try:
        return Command(IntentName.NEW_GAME, names=check_names(names))
    except _SlotError as err:
        raise ParseError(err.message) from None


def names_to_come(text: str, language: LanguageLike = ENGLISH_LANGUAGE) -> bool:
    """``text`` is a new game's words without a name yet ('new game', 'start a new game',
    'neues Spiel', '새 게임'), in the table's language or English: the table opens its setup
    for it, where the names are typed one by one (``parse`` refuses it: 3 to 5 names)."""
    return new_game_names(text, language) == ()


def new_game_names(text: str, language: LanguageLike = ENGLISH_LANGUAGE) -> tuple[str, ...] | None:
    """The words of ``text`` that are not a new game's command words, as typed, when it is a new
    game's words in the table's language or English: 'neues Spiel mit Anna Ben' gives
    ('Anna', 'Ben'), 'start a new game ann bob' ('ann', 'bob'), '새 게임' () ; None when ``text``
    is not a new game (no command words, or not these). The command words are the language's
    own, from its new game templates (one rule for every language): the setup screen's name box
    keeps the names of a new game typed into it, and ``names_to_come`` is the case of none."""
    tokens = tokenize(text)
    readings = [_language(language)]
    readings += [ENGLISH_LANGUAGE] if readings[0] is not ENGLISH_LANGUAGE else []
    for reading in readings:
        words = _without_polite_words(language_words(tokens, reading, None), reading)
        cut = max((_new_game_cut(pattern, words)
                   for tree in reading.trees[IntentName.NEW_GAME] for pattern in _patterns(tree)),
                  key=lambda found: -1 if found is None else found[0] + found[1], default=None)
        if cut is not None:
            return tuple(_raw(word) for word in words[cut[0]:len(words) - cut[1]])
    return None


#: Words a polite new game is asked with, before or after it ('new game please', 'bitte ein
#: neues Spiel', '새 게임 시작해 주세요'), by language code: not names. English is read at every
#: table, so its words are dropped at every table too.
POLITE_WORDS: Mapping[str, frozenset[str]] = {
    "en": frozenset({"please", "pls", "plz"}),
    "de": frozenset({"bitte"}),
    "ko": frozenset({"주세요", "줘", "줘요", "좀"}),
}


def without_polite_words(text: str, language: LanguageLike = ENGLISH_LANGUAGE) -> str:
    """A new game's line as typed without the polite words at its start and end ('new game
    ann bob cy please' is 'new game ann bob cy': 'please' is not a fourth player); any other
    line as it is."""
    if new_game_names(text, language) is None:
        return text
    tokens = tokenize(text)
    kept = _without_polite_words(tokens, _language(language))
    if len(kept) == len(tokens) or not kept:
        return text
    return "".join([_raw(kept[0]), *(getattr(t, "gap", " ") + _raw(t) for t in kept[1:])])


def _without_polite_words(words: list[str], language: Language) -> list[str]:
    """``words`` without the polite words at their start and end ('please new game please')."""
    polite = POLITE_WORDS.get(language.code, frozenset()) | POLITE_WORDS["en"]
    start, end = 0, len(words)
    while start < end and words[start] in polite:
        start += 1
    while end > start and words[end - 1] in polite:
        end -= 1
    return words[start:end]


def _new_game_cut(pattern: tuple[Element, ...], words: list[str]) -> tuple[int, int] | None:
    """How many of ``words`` a new game pattern's command words take before its names slot and
    after it, when ``words`` begin and end with them; None when they do not (or ``pattern`` has
    no names slot)."""
    if "names" not in pattern:
        return None
    slot = pattern.index("names")
    before = [word for element in pattern[:slot] if isinstance(element, tuple) for word in element]
    after = [word for element in pattern[slot + 1:] if isinstance(element, tuple) for word in element]
    if len(before) + len(after) > len(words) or not before + after:
        return None
    if words[:len(before)] != before or words[len(words) - len(after):] != after:
        return None
    return len(before), len(after)


def check_names(names: Sequence[str], language: Language = ENGLISH_LANGUAGE) -> tuple[str, ...]:
    """New players' names as typed (normalised), or ``_SlotError`` saying what is wrong with them.

    Also the setup screen's check, where each field is one name (so 'Anna Lena' is refused
    there rather than made two players)."""
    names = tuple(normalize(n).strip() for n in names)
    for name in names:
        problem = name_problem(name, language=language)
        if problem is not None:
            raise _SlotError(problem)
    if not MIN_PLAYERS <= len(names) <= MAX_PLAYERS:
        raise _SlotError(_format(
            _("Name 3 to 5 players in seating order, e.g. 'new game alice bob carol'; you named {n}."),
            n=len(names)))
    for i, name in enumerate(names):
        if fold(name) in {fold(n) for n in names[:i]}:
            raise _SlotError(_same_name(name))
    return names


def _same_name(name: str) -> str:
    """Why a player's name is refused when an earlier one folds to it: the name, so that the
    table knows which one ('Zoë' and 'ZOË' are one name)."""
    return _format(_("Two players have the same name, '{name}': give each a different name."),
                   name=printable(name, 30))


def name_problem(
    name: str, earlier: Sequence[str] = (), language: Language = ENGLISH_LANGUAGE
) -> str | None:
    """What is wrong with one new player's name, in a sentence, or None; ``earlier``: the names
    before it, which it must not repeat. The setup screen asks as each name is entered, so that
    the field at fault keeps the focus."""
    name = normalize(name).strip()
    if fold(name) in {fold(normalize(n).strip()) for n in earlier}:
        return _same_name(name)
    if is_number(name):
        return _format(_("'{name}' is not a name: player names are words."), name=name)
    if fold(name) in language.reserved_words or fold(name) in ENGLISH_LANGUAGE.reserved_words:
        return _format(_("'{name}' is a word of the command language and can't be a player's name: "
                         "pick another name."), name=name)
    if not valid_name(name):
        return _format(_("'{name}' is not a name: a name is one word of letters, in any alphabet, "
                         "whose parts a hyphen or an apostrophe may join (Anne-Marie, O'Brien)."),
                       name=printable(name, 30))
    if len(name) > MAX_NAME:
        return _format(_("'{name}...' is too long: a name has at most {most} letters."),
                       name=name[:MAX_NAME], most=MAX_NAME)
    return None


# --------------------------------------------------------------------------- matching

@dataclass
class _Slots:
    """The slot values a pattern has matched so far, each typed as ``Command`` keeps it."""

    player: str | None = None
    names: tuple[str, ...] = ()
    row: int | None = None
    cards: Cards = NO_CARDS
    animal: Animal | None = None

    def command(self, intent: IntentName) -> Command:
        return Command(intent, self.player, self.names, self.row, self.cards, self.animal)


#: What one pattern's match gives: its slots (None if it does not match), how many words it
#: got through, and the sentence of a slot that is the right kind of word but wrong.
_Matched = tuple["_Slots | None", int, "str | None"]


def _match(
    pattern: tuple[Element, ...],
    tokens: list[str],
    players: Mapping[str, str] | None,
    language: Language = ENGLISH_LANGUAGE,
    slots: _Slots | None = None,
) -> _Matched:
    """Match one pattern; returns (slots or None, tokens consumed, slot error)."""
    slots = slots if slots is not None else _Slots()
    i = 0
    for index, element in enumerate(pattern):
        if isinstance(element, tuple):
            words = element
            if tokens[i : i + len(words)] != list(words):
                return None, i, None
            i += len(words)
            continue
        slot = element
        if slot in TAIL_SLOTS:
            return _match_tail(pattern[index:], tokens, i, players, language, slots)
        if i >= len(tokens):
            return None, i, None
        try:
            filled = _word_slot(slot, tokens[i], players, slots, language)
        except _SlotError as err:
            return None, i + 1, err.message
        if not filled:
            return None, i, None
        i += 1
    if i != len(tokens):
        return None, i, None
    return slots, i, None


def _match_tail(
    pattern: tuple[Element, ...], tokens: list[str], i: int, players: Mapping[str, str] | None,
    language: Language, slots: _Slots,
) -> _Matched:
    """Match a slot that takes a run of words (the cards, a new game's names) at ``pattern[0]``
    from ``tokens[i]``: the rest of the line, or (Korean, where the verb comes last) the words
    up to where the rest of the pattern matches the rest of the line."""
    slot, rest = str(pattern[0]), pattern[1:]
    if not rest:
        try:
            _tail_slot(slot, tokens[i:], slots, language)
        except _SlotError as err:
            return None, i + 1, err.message
        return slots, len(tokens), None
    for end in range(len(tokens) - 1, i, -1):
        after, _, _ = _match(rest, tokens[end:], players, language, replace(slots))
        if after is None:
            continue
        try:
            _tail_slot(slot, tokens[i:end], after, language)
        except _SlotError as err:
            return None, i + 1, err.message
        return after, len(tokens), None
    return None, i, None


def _tail_slot(slot: str, rest: Sequence[str], slots: _Slots, language: Language = ENGLISH_LANGUAGE) -> None:
    """Fill a slot that takes a run of words (the cards, a new game's names), or
    ``_SlotError`` saying what is wrong with it."""
    if slot == "cards":
        slots.cards = parse_cards(rest, language)
    else:
        slots.names = _parse_names(rest, language)


def _word_slot(
    slot: str, tok: str, players: Mapping[str, str] | None, slots: _Slots,
    language: Language = ENGLISH_LANGUAGE,
) -> bool:
    """Fill a one-word slot with ``tok``: False if ``tok`` cannot fill it (the template does not
    match), ``_SlotError`` if it is the right kind of word but wrong (``row 7``)."""
    match slot:
        case "player":
            slots.player = _player_slot(tok, players, language)
            return slots.player is not None
        case "row":
            slots.row = _row_slot(tok, language)
            return slots.row is not None
        case "sd_animal":
            slots.animal = _sudden_death_slot(tok, language)
            return slots.animal is not None
    raise AssertionError(f"unknown slot {slot}")  # pragma: no cover - grammar and parser disagree


def _player_slot(tok: str, players: Mapping[str, str] | None, language: Language = ENGLISH_LANGUAGE) -> str | None:
    """The player ``tok`` names (as the game has the name); any word not of the language when
    the players are not known."""
    if players is not None:
        return players.get(tok)
    return None if tok in language.reserved_words or is_number(tok) else _raw(tok)


def _row_slot(tok: str, language: Language = ENGLISH_LANGUAGE) -> int | None:
    n = number(tok) if is_number(tok) else language.row_words.get(tok)
    if n is not None and not 1 <= n <= 4:
        raise _SlotError(_format(_("There is no row {row}: the rows are 1, 2, 3 and 4."), row=_typed(tok)))
    return n


def _sudden_death_slot(tok: str, language: Language = ENGLISH_LANGUAGE) -> Animal | None:
    animal = language.sudden_death_words.get(tok)
    if animal is None and tok in language.animal_words:
        raise _SlotError(_format(_("Sudden death needs all cats, all rabbits or all pigs, "
                                   "not all {animals}."),
                                 animals=_animal_name(language.animal_words[tok].value, 2)))
    return animal


#: Why a command would be refused now (a sentence), or None if it would be accepted: how the
#: referee tests a correction against the game before offering it (``parse``'s ``refusal``).
Refusal = Callable[[Command], "str | None"]


def parse(
    text: str, players: Iterable[str] | None = None, refusal: Refusal | None = None,
    language: LanguageLike = ENGLISH_LANGUAGE,
) -> Command:
    """Parse one command. ``players``: the current players' names (any word if None); a name is
    recognised in any case and the command carries it as the game has it.

    ``refusal``: given, a correction of a misspelt line is offered only if it would be accepted
    (``carl passes`` on Bob's turn is not answered with 'carol passes', which would be refused:
    the refusal says why instead).

    ``language``: the table's command language (a ``Language`` or its code). A line is read in
    it first, then as English: the canonical English commands (the stored logs) always work.
    What is refused is refused in the table's words."""
    if len(text) > MAX_LINE:
        raise ParseError(_format(_("That line is longer than {limit:,} characters: type one command "
                                   "a line."), limit=MAX_LINE))
    reading = _language(language)
    known = {fold(p): p for p in players} if players is not None else None
    try:
        return _parse(text, known, refusal, reading)
    except ParseError as refused:
        if reading is ENGLISH_LANGUAGE:
            raise
        return _as_english(text, known, refusal, reading, refused)


def _as_english(
    text: str, known: Mapping[str, str] | None, refusal: Refusal | None, language: Language,
    refused: ParseError,
) -> Command:
    """A line the table's language does not read, read as English: the command it spells, or
    English's refusal when more of its words are English ones ('alice swaps 2 bare' at a German
    table is offered 'bear') or only English offers a correction, else the table language's
    ``refused``."""
    tokens = tokenize(text)
    command = _exactly(tokens, known, ENGLISH_LANGUAGE)
    if command is not None:
        return command
    english = sum(t in ENGLISH_LANGUAGE.reserved_words for t in tokens)
    more_english = english > sum(t in language.vocabulary for t in language_words(tokens, language, known))
    if not more_english and refused.suggestion is not None:
        raise refused
    try:
        return _parse(text, known, refusal, ENGLISH_LANGUAGE)
    except ParseError as as_english:
        if more_english or as_english.suggestion is not None:
            raise as_english from None
    raise refused


def _parse(
    text: str, known: Mapping[str, str] | None, refusal: Refusal | None, language: Language
) -> Command:
    """``parse`` in one language."""
    tokens = language_words(tokenize(text), language, known)
    if not tokens:
        raise ParseError(_("Say a command, or 'help' to hear them."))
    command, error = _recognize(tokens, known, language)
    if command is not None:
        return command
    joined = _join_split_names(tokens, known)
    if joined != tokens:  # 'anne marie swaps 3 ...' is Anne-Marie's swap
        command, joined_error = _recognize(joined, known, language)
        if command is not None:
            return command
        tokens, error = joined, joined_error or error
    if language is not ENGLISH_LANGUAGE:  # the canonical English line, before searching for typos
        english = _exactly(tokenize(text), known, ENGLISH_LANGUAGE)
        if english is not None:  # what ``parse`` returns for it (``_as_english``), sooner
            return english
    correction = _correction(tokens, known, language)
    if correction is not None:
        raise _did_you_mean(tokens, *correction, known, refusal, language)
    if error is not None:
        raise ParseError(error)
    raise _not_understood(tokens, known, question="?" in text, language=language)


def _exactly(tokens: list[str], known: Mapping[str, str] | None, language: Language) -> Command | None:
    """The command ``tokens`` spell exactly in ``language`` (no corrections), or None."""
    if not tokens:
        return None
    command, _error = _recognize(tokens, known, language)
    if command is None:
        command, _error = _recognize(_join_split_names(tokens, known), known, language)
    return command


def _join_split_names(tokens: list[str], players: Mapping[str, str] | None) -> list[str]:
    """``tokens`` with a player's name typed as two words joined again: 'anne marie' (or
    'o brien', 'anne - marie') is Anne-Marie, 'o brien' O'Brien, 'jean luc' Jeanluc."""
    if not players:
        return tokens
    joined: list[str] = []
    i = 0
    while i < len(tokens):
        if i + 1 < len(tokens):
            for mark in ("-", "'", ""):
                name = fold(_raw(tokens[i]) + mark + _raw(tokens[i + 1]))
                if name in players:
                    joined.append(Token(players[name], getattr(tokens[i], "gap", ""),
                                        getattr(tokens[i + 1], "tail", "")))
                    i += 2
                    break
            else:
                joined.append(tokens[i])
                i += 1
            continue
        joined.append(tokens[i])
        i += 1
    return joined


def _recognize(
    tokens: list[str], players: Mapping[str, str] | None, language: Language = ENGLISH_LANGUAGE
) -> tuple[Command | None, str | None]:
    """The command the tokens spell, else the error of the template that matched furthest."""
    best_error: tuple[int, str] | None = None
    # Another language's patterns are many (Korean endings multiply them): only those whose
    # words are all in the line are tried. English tries every one, as it always has.
    present = set(tokens) if language is not ENGLISH_LANGUAGE else None
    for record in INTENTS:
        for tree in language.trees[record.name]:
            for pattern in _patterns(tree):
                if present is not None and not _literal_words(pattern) <= present:
                    continue
                slots, depth, error = _match(pattern, tokens, players, language)
                if slots is not None:
                    return slots.command(record.name), None
                if error and (best_error is None or depth > best_error[0]):
                    best_error = (depth, error)
    return None, best_error[1] if best_error else None


#: A line is corrected only if it has at most this many words the language does not know (more is
#: another sentence, not a typo), and at most ``_MAX_FIXES`` of them are changed.
_MAX_UNKNOWN = 8
_MAX_FIXES = 2


def _correction(
    tokens: list[str], players: Mapping[str, str] | None, language: Language = ENGLISH_LANGUAGE
) -> tuple[list[str], dict[int, str]] | None:
    """The lines the typed one may have meant, its misspelt words corrected so that it is a
    command (the nearest first; more than one when another is within a slip of it and means a
    different command), and the words changed in the first (place -> the word put there); None if there
    is no such line.

    Only words the language does not know (nor a player's name, nor a number) are changed,
    each to a known word or a player's name spelt alike, the fewest changes first, then the
    fewest slips ('thre' is 'three', not 'hare'); every other word stays as typed, in its place
    (the row, the cards and their order, the names of a new game). This is what Tab or Enter may
    take when it is the only one; a made-up example never is.

    No word becomes 'and', 'plus', 'with', 'a' or 'an': that would drop it from a list or
    count the next one, not correct it ('new game ann ben cid dan eve fay' is six players, not
    'and' and five)."""
    vocabulary = sorted(language.reserved_words - language.list_separators - _articles(language)
                        | set(players or ()))
    unknown = [i for i, tok in enumerate(tokens) if _may_be_misspelt(tok, players, language)]
    if not unknown or len(unknown) > _MAX_UNKNOWN:
        return None
    options = {i: _options(tokens[i], vocabulary, language) for i in unknown}
    fixable = [i for i, words in options.items() if words]
    for count in range(1, _MAX_FIXES + 1):
        found = _corrected_lines(tokens, players, options, itertools.combinations(fixable, count),
                                 language)
        if found:
            return _nearest(tokens, found)
    return None


def _articles(language: Language) -> set[str]:
    """Words for one that are no row ('a', 'an', 'ein', 'eine'): a correction never puts one in."""
    return {w for w, n in language.numbers.items() if n == 1 and w not in language.row_words}


#: A line ``_correction`` found: (slips, rank, its canonical form, its words), where the rank
#: is (canonical words, -slips, likeness of spelling), the higher the likelier.
_Found = tuple[int, tuple[int, int, float], str, list[str]]


def _may_be_misspelt(tok: str, players: Mapping[str, str] | None, language: Language = ENGLISH_LANGUAGE) -> bool:
    """A word the language does not know (nor a player's name, nor a number), or one typed for a
    number that sounds the same."""
    known = is_number(tok) or tok in language.reserved_words or (players is not None and tok in players)
    return not known or tok in language.sounds_like


def _options(tok: str, vocabulary: Sequence[str], language: Language = ENGLISH_LANGUAGE) -> list[str]:
    """The words a misspelt ``tok`` may stand for, the likeliest first."""
    return [language.sounds_like[tok]] if tok in language.sounds_like else _spelt_alike(tok, vocabulary)


def _corrected_lines(
    tokens: list[str], players: Mapping[str, str] | None, options: Mapping[int, list[str]],
    place_sets: Iterable[tuple[int, ...]], language: Language = ENGLISH_LANGUAGE,
) -> list[_Found]:
    """Every line that is a command with the words at one of ``place_sets`` changed to one of
    their ``options``, in the order tried."""
    found: list[_Found] = []
    for places in place_sets:
        for words in itertools.product(*(options[i] for i in places)):
            changes = dict(zip(places, words, strict=True))
            trial = _changed(tokens, changes, players)
            command, _error = _recognize(trial, players, language)
            if command is not None:
                found.append(_ranked(tokens, changes, command, trial, language))
    return found


def _changed(tokens: list[str], changes: Mapping[int, str], players: Mapping[str, str] | None) -> list[str]:
    """``tokens`` with the words at ``changes``' places changed (a player's name written as the
    game has it), each keeping the gap typed before it."""
    changed: list[str] = []
    for i, tok in enumerate(tokens):
        if i not in changes:
            changed.append(tok)
            continue
        word = players[changes[i]] if players and changes[i] in players else changes[i]
        changed.append(Token(word, getattr(tok, "gap", " "), _retailed(word, getattr(tok, "tail", ""))))
    return changed


def _retailed(word: str, tail: str) -> str:
    """A particle typed after a misspelt word in the form the corrected ``word`` takes
    ('곰와' corrected is '곰과')."""
    pair = next((pair for pair in PAIRS if tail in pair.split("/")), None)
    return attach(word, pair)[len(word):] if pair is not None and tail else tail


def _ranked(
    tokens: list[str], changes: Mapping[int, str], command: Command, trial: list[str],
    language: Language = ENGLISH_LANGUAGE,
) -> _Found:
    """A corrected line with its slips and its rank: of one meaning, the canonical word first
    ('swop' is 'swaps', not 'swap'), then the nearest, then the likeliest spelling."""
    usual = set(tokenize(command.canonical if language is ENGLISH_LANGUAGE else _said(command, language)))
    slips = sum(_distance(tokens[i], word) for i, word in changes.items())
    rank = (sum(_meaning(word, language) in usual for word in changes.values()), -slips,
            sum(difflib.SequenceMatcher(None, tokens[i], word).ratio() for i, word in changes.items()))
    return slips, rank, command.canonical, trial


def _said(command: Command, language: Language) -> str:
    """``command`` as a person of ``language`` would type it (``render.say``)."""
    from assistant.commands.render import say  # the renderer reads this module's Command

    return say(command, language)


def _line(trial: Sequence[str]) -> str:
    """A line of words as typed, each with the gap before it and its particle (a line break
    typed in a gap written as a space: a suggestion is one line)."""
    line = "".join(getattr(t, "gap", " ") + _raw(t) + getattr(t, "tail", "") for t in trial)
    return " ".join(line.splitlines()).strip()


def _nearest(tokens: list[str], found: list[_Found]) -> tuple[list[str], dict[int, str]]:
    """The lines within one slip of the nearest (the nearest first), the likeliest of each
    meaning, and the words changed in the first (``_correction``)."""
    # Every meaning within one slip of the nearest: 'bare' is one slip from 'hare' and
    # two from 'bear', which it meant.
    fewest = min(f[0] for f in found)
    near = sorted((f for f in found if f[0] <= fewest + 1), key=lambda f: f[0])  # nearest first
    best_of: dict[str, tuple[tuple[int, int, float], list[str]]] = {}  # canonical -> its line
    for _slips, rank, meaning, trial in near:
        if meaning not in best_of or rank > best_of[meaning][0]:
            best_of[meaning] = (rank, trial)
    lines = [_line(trial) for _rank, trial in best_of.values()]
    first = next(iter(best_of.values()))[1]
    changed = {i: first[i] for i in range(len(tokens)) if first[i] != tokens[i]}
    return lines, changed


def _spelt_alike(word: str, vocabulary: Sequence[str], most: int = 4) -> list[str]:
    """The words of ``vocabulary`` that ``word`` may be a typo of, the nearest first: one slip
    (a letter wrong, missing, extra, or two swapped) in a word of up to 3 letters, two in a
    longer one ('swop' -> 'swaps', 'dgo' -> 'dog'; not 'plese' -> 'moles')."""
    limit = 1 if len(word) <= 3 else 2
    near = [(d, w) for w in vocabulary if (d := _distance(word, w, limit)) <= limit]
    return [w for _, w in sorted(near)[:most]]


def _distance(a: str, b: str, limit: int = 2) -> int:
    """The number of slips (a letter changed, added, dropped, or two neighbours swapped)
    between ``a`` and ``b``; anything above ``limit`` is ``limit + 1``."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    before: list[int] = []
    row = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            current[j] = min(row[j] + 1, current[j - 1] + 1, row[j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], before[j - 2] + 1)
        if min(current) > limit:
            return limit + 1
        before, row = row, current
    return min(row[-1], limit + 1)


def _meaning(word: str, language: Language = ENGLISH_LANGUAGE) -> str:
    """The word as a canonical form writes it: an animal by its name, any other word as is."""
    animal = language.animal_words.get(word)
    if animal is None:
        return word
    return animal.value if language is ENGLISH_LANGUAGE else fold(language.animal_forms[animal].singular)


def _did_you_mean(
    tokens: list[str], guesses: list[str], changed: dict[int, str], players: Mapping[str, str] | None,
    refusal: Refusal | None = None, language: Language = ENGLISH_LANGUAGE,
) -> ParseError:
    """The refusal of a line with misspelt words, naming them, with the corrected line as the
    suggestion (Tab or Enter takes it at the table). When two corrections are about as near and
    mean different commands ('teo pigs': two or ten? 'gob' among Bob and Rob; 'bare': hare or
    bear), both are named and neither is taken: the table must not pick for the person."""
    problem = _misspelt(tokens, changed, players, language)
    if refusal is not None:
        # Offer only what would be accepted now; if the nearest would not be, say why instead.
        reasons = {g: _refusal_of(g, players, refusal, language) for g in guesses}
        accepted = [g for g in guesses if reasons[g] is None]
        if not accepted:
            return ParseError(_format(_("{problem} '{line}' would not be accepted now either. {reason}"),
                                      problem=problem, line=guesses[0], reason=reasons[guesses[0]]))
        guesses = accepted
    if len(guesses) > 1:
        either = pgettext("alternatives", " or ").join(f"'{g}'" for g in guesses[:3])
        return ParseError(_format(_("{problem} Did you mean {lines}?"), problem=problem, lines=either))
    return ParseError(_format(_("{problem} Did you mean '{line}'?"), problem=problem, line=guesses[0]),
                      suggestion=guesses[0])


def _misspelt(
    tokens: list[str], changed: dict[int, str], players: Mapping[str, str] | None,
    language: Language = ENGLISH_LANGUAGE,
) -> str:
    """What is wrong with a line whose words at ``changed`` were misspelt: no such player, no
    number, no such animal, or (a mix of them) the line not understood."""
    quoted = listed([f"'{_typed(tokens[i])}'" for i in sorted(changed)])
    if players and all(word in players for word in changed.values()):
        return _format(_("There is no player {name}."), name=quoted)
    if all(tokens[i] in language.sounds_like for i in changed):
        return _format(_("{word} is not a number here."), word=quoted)
    if all(word in language.animal_words for word in changed.values()):
        return _format(ngettext("I don't know the animal {words}.", "I don't know the animals {words}.",
                                len(changed)), words=quoted)
    return _format(_("I didn't understand '{line}'."), line=_echo(tokens, language))


def _echo(tokens: Sequence[str], language: Language) -> str:
    """A line not understood, quoted in its refusal: its words (English), or as typed (another
    language, whose words may have been split: '앨리스가' stays as typed)."""
    return (" ".join(tokens) if language is ENGLISH_LANGUAGE else printable(_line(tokens), 60))[:60]


def _refusal_of(
    line: str, players: Mapping[str, str] | None, refusal: Refusal, language: Language = ENGLISH_LANGUAGE
) -> str | None:
    """Why the corrected ``line`` would be refused now, or None."""
    try:
        command = parse(line, players.values() if players else None, language=language)
    except ParseError:  # pragma: no cover - a correction is a command (the fuzz tests hunt this)
        return None
    return refusal(command)


def _not_understood(
    tokens: list[str], players: Mapping[str, str] | None, question: bool = False,
    language: Language = ENGLISH_LANGUAGE,
) -> ParseError:
    """A line with no faithful correction: an unknown player (and the line's other typos),
    else the closest command as an example of the form only. It has no suggestion: its row,
    cards and names are made up, and taking it would apply what nobody said. A question
    ('what now?') is pointed to 'status' and 'help'."""
    line = _echo(tokens, language)
    if players and tokens[0] not in players and tokens[0] not in language.reserved_words:
        not_playing = _not_playing(tokens, players, language)
        if not_playing is not None:
            return not_playing
    if question or _asks(tokens, language):
        return ParseError(_format(_(
            "I didn't understand '{line}'. Say 'status' for where the game stands and whose turn "
            "it is, or 'help' for all commands."), line=line))
    player = players.get(tokens[0], next(iter(players.values()))) if players else "alice"
    examples = [ex.format(p=player) for ex in language.examples.values()]
    example = max(examples, key=lambda ex: _closeness(tokens, ex))
    return ParseError(_format(_(
        "I didn't understand '{line}'. The closest command is of the form e.g. '{example}'; say "
        "'help' for all commands."), line=line, example=example))


def _asks(tokens: Sequence[str], language: Language) -> bool:
    """Whether a line not understood is a question: its first word a question word; in another
    language than English, any word ('이거 누가 섞었어': a question word stands where it may)."""
    if language is ENGLISH_LANGUAGE:
        return tokens[0] in language.question_words
    return any(t in language.question_words or fold(_raw(t) + getattr(t, "tail", "")) in language.question_words
               for t in tokens)


def _not_playing(
    tokens: list[str], players: Mapping[str, str], language: Language = ENGLISH_LANGUAGE
) -> ParseError | None:
    """The refusal of a line whose first word is no player's name when the rest is a command
    (naming its other typos too, so that one retyping mends all), else None."""
    names = list(players.values())
    rest = tokens[1:]
    if not rest:
        return None
    not_playing = _format(_("{name} is not playing: the players are {players}."),
                          name=title(_typed(tokens[0])), players=player_names(names))
    # A slot refused counts as a command only with a word of the language after the name: in
    # Korean a hand needs no verb, so any talk ('이거 누가 섞었어?') reads as cards refused.
    command, slot_error = _recognize([Token(names[0]), *rest], players, language)
    if command is not None or (slot_error and any(t in language.reserved_words for t in rest)):
        return ParseError(not_playing)
    corrected = _correction([Token(names[0]), *rest], players, language)
    if corrected is None:
        return None
    # The name is not the only slip: name the others too, so that one retyping mends all.
    _lines, changed = corrected
    typos = [_format(_("'{word}' ({fix}?)"), word=_typed(rest[i - 1]), fix=_raw(word))
             for i, word in sorted(changed.items()) if i > 0]
    if not typos:
        return None
    return ParseError(_format(_("{not_playing} Also check {typos}."), not_playing=not_playing,
                              typos=listed(typos)))


def _closeness(tokens: Sequence[str], example: str) -> tuple[int, float]:
    """Words shared with ``example`` (allowing typos) first, then the likeness of the letters,
    so that 'alice swaps' is closest to 'alice swaps 2 bear dog', not to 'alice starts'."""
    words = example.split()
    shared = sum(
        1 for tok in tokens if tok in words or difflib.get_close_matches(tok, words, n=1, cutoff=0.75)
    )
    return shared, difflib.SequenceMatcher(None, " ".join(tokens), example).ratio()
