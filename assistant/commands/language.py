"""One command language's words: everything the parser, the renderer and the speech grammars
read that differs between English, German and Korean, in one frozen record.

``languages("de")`` (or ``LANGUAGE_BY_CODE["de"]``) is the record of a language. English is
built from today's tables (``assistant.commands.grammar``, unchanged); German and Korean are
read once from the data files beside this module, ``languages/de.toml`` and ``languages/ko.toml``
(their header documents every key), with ``tomllib``.

How a reader walks a record (the parser, ``render.say``, the table's completion and the speech
grammars all do it this way):

- ``trees[intent]``: each intent's sentence templates, parsed by ``templates.parse_template``
  into the same ``Sentence`` trees as English (``Word``, ``Slot``, ``Choice``), in the order the
  parser tries them; ``templates[intent]`` the template strings they were parsed from (``<rule>``
  references already written out). Walk them as ``grammar.TREES``: words are casefolded, and a
  slot is filled from the tables below.
- ``{player}``: a player's name; ``{names}``: new players' names; ``{row}``: a digit or a word of
  ``row_words``; ``{cards}``: animals (``animal_words``) with counts (digits or ``numbers``),
  separated by ``list_separators`` and, in Korean, followed by a ``counters`` word (``쥐 두 장``);
  ``{sd_animal}``: a word of ``sudden_death_words``.
- A typed word is first spelt the language's way (``spellings``: ``baer`` is ``bär``). A word
  that is no word of the language is split where it ends in a suffix: ``particles`` are dropped
  (``앨리스가`` is ``앨리스``; ``줄을`` is ``줄``), ``endings`` are kept as a word of their own
  (``노크했어요`` is ``노크 했어요``, ``두장`` is ``두 장``); the stem must then be a word of the
  language, a number or a player's name (a player called ``보가`` stays whole). Templates therefore
  never spell particles, and spell endings as separate words.
- ``say[intent]``: how the renderer writes a canonical command (``render.say``), an
  ``i18n.format`` template whose fields may carry a Korean particle spec (``{player:이/가}``);
  ``animal_forms`` and ``number_names`` give the cards' words.
- ``reserved_words``: every word of the language (no player may be called so).
- ``leave_words``: the words that end a chat (``lifeguard chat``), shown in its greeting.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import MappingProxyType

from assistant.commands import grammar
from assistant.commands.intents import BY_NAME, HELP_ORDER, IntentName
from assistant.commands.templates import Sentence, parse_template, words
from assistant.commands.text import fold
from engine.deck import ANIMALS, SUDDEN_DEATH_ANIMALS, Animal
from engine.words import plural_word

#: The data files of the languages other than English.
DATA_DIR = Path(__file__).resolve().parent / "languages"
#: The codes of the command languages, English first (the language of the stored logs).
CODES: tuple[str, ...] = ("en", "de", "ko")
#: The language every canonical command is written in.
ENGLISH = "en"


@dataclass(frozen=True)
class AnimalForms:
    """How the renderer writes one animal: its singular and plural, and (German) the word for
    'one' that agrees with it (``ein Bär``, ``eine Maus``)."""

    singular: str
    plural: str
    one: str = ""
    #: The singular as a hand's object, where it differs (German's accusative: "Cem hat 1
    #: Bären", the echo said "1 Bär"); empty: the singular.
    held: str = ""


@dataclass(frozen=True, eq=False)
class Language:
    """Every word a command language has (the module docstring says how it is read)."""

    code: str
    #: Intent name -> its sentence templates, tried in this order.
    templates: Mapping[str, tuple[str, ...]]
    #: The templates parsed (what every reader walks).
    trees: Mapping[str, tuple[Sentence, ...]]
    #: Intent name -> an example for help and "did you mean" ("{p}" is a player).
    examples: Mapping[str, str]
    #: Intent name -> how ``render.say`` writes it (``i18n.format`` fields: player, names, row,
    #: cards, sd_animal).
    say: Mapping[str, str]
    #: Count words ('two', 'zwei', 'eine', '두'); digits are numbers too.
    numbers: Mapping[str, int]
    #: Words for ``{row}`` (1 to 4).
    row_words: Mapping[str, int]
    #: Every word for an animal (singular, plural, inflected forms, synonyms).
    animal_words: Mapping[str, Animal]
    #: Words for ``{sd_animal}``.
    sudden_death_words: Mapping[str, Animal]
    #: Words that separate items of a list.
    list_separators: frozenset[str]
    #: Words typed but not listened for (English: 'hare', heard for 'bear').
    unspoken_words: frozenset[str]
    #: First words of a question about the game (pointed to 'status' and 'help').
    question_words: frozenset[str]
    #: Words typed for a number that sounds the same ('for' is 'four'), changed in corrections.
    sounds_like: Mapping[str, str]
    #: Words that may follow a count in a list of cards and mean nothing else (Korean '장').
    counters: frozenset[str] = frozenset()
    #: Words for "all" in a sudden death ('all cats'): said before a hand's cards, they get the
    #: sentence that tells the two apart.
    all_words: frozenset[str] = frozenset({"all"})
    #: Suffixes split off a word and dropped (Korean particles: '가', '를', '와'), longest first.
    particles: tuple[str, ...] = ()
    #: Suffixes split off a word and kept as a word (Korean verb endings, counters), longest first.
    endings: tuple[str, ...] = ()
    #: Other spellings of the language's words -> the word ('baer' -> 'bär').
    spellings: Mapping[str, str] = field(default_factory=dict)
    #: How the renderer writes each animal.
    animal_forms: Mapping[Animal, AnimalForms] = field(default_factory=dict)
    #: How the renderer writes a count (1 -> 'one'); a count missing is written in digits.
    number_names: Mapping[int, str] = field(default_factory=dict)
    #: How the renderer joins a list: the separator between items and before the last.
    comma: str = ", "
    last_separator: str = " and "
    #: How the renderer writes n cards of an animal ({count}, {one}, {singular}, {plural}).
    counted: str = "{count} {plural}"
    counted_one: str = "{one} {singular}"
    #: Korean: a count follows its animal ('쥐 두 장'); else it goes before it ('zwei Bären').
    count_after_animal: bool = False
    #: A hand's counts in digits, never in ``number_names``' words: German writes one card
    #: '1 Bär' ('einen Bären' after 'hat' would need the accusative), and 'zwei Giraffen, 1 Bär'
    #: mixed words and digits in one hand.
    hand_digits: bool = False
    #: The words that end a chat, as shown ('quit', 'beenden', '종료'): the chat's own, not
    #: commands (``assistant.cli.chat``; English's work at every table).
    leave_words: tuple[str, ...] = ("quit", "exit")

    @property
    def reserved_words(self) -> frozenset[str]:
        """Words of the language itself, which cannot be player names."""
        return _reserved(self)

    @property
    def suffixes(self) -> tuple[str, ...]:
        """The particles and endings, longest first (the order a word is split in)."""
        return tuple(sorted({*self.particles, *self.endings}, key=len, reverse=True))

    @property
    def vocabulary(self) -> frozenset[str]:
        """Every word a line of this language is made of (``reserved_words`` and the suffixes)."""
        return self.reserved_words | set(self.particles) | set(self.endings)


@cache
def _reserved(language: Language) -> frozenset[str]:
    template_words = {w for trees in language.trees.values() for tree in trees for w in words(tree)}
    return frozenset(template_words | set(language.numbers) | set(language.row_words)
                     | set(language.animal_words) | language.list_separators | language.counters)


def _english() -> Language:
    return Language(
        code=ENGLISH,
        templates=MappingProxyType(dict(grammar.TEMPLATES)),
        trees=MappingProxyType(dict(grammar.TREES)),
        examples=MappingProxyType(dict(grammar.EXAMPLES)),
        say=MappingProxyType({name: BY_NAME[name].canonical for name in HELP_ORDER}),
        numbers=MappingProxyType(dict(grammar.NUMBERS)),
        row_words=MappingProxyType(dict(grammar.ROW_WORDS)),
        animal_words=MappingProxyType(dict(grammar.ANIMAL_WORDS)),
        sudden_death_words=MappingProxyType(dict(grammar.SUDDEN_DEATH_WORDS)),
        list_separators=grammar.LIST_SEPARATORS,
        unspoken_words=grammar.UNSPOKEN_WORDS,
        question_words=frozenset({"what", "whats", "what's", "who", "whose", "who's", "where",
                                  "which", "how", "when", "why", "is", "are", "can", "do", "does"}),
        sounds_like=MappingProxyType({"for": "four"}),
        animal_forms=MappingProxyType({a: AnimalForms(a.value, plural_word(a)) for a in ANIMALS}),
        number_names=MappingProxyType({n: w for w, n in grammar.NUMBERS.items() if w not in ("a", "an")}),
    )


# ------------------------------------------------------------------------------- data files

class LanguageFileError(ValueError):
    """A language data file that does not say what the loader needs (a developer's mistake)."""


def _folded(words: object, what: str) -> list[str]:
    if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
        raise LanguageFileError(f"{what} must be a list of words")
    return [fold(w) for w in words]


def _numbers(table: object, what: str) -> dict[str, int]:
    if not isinstance(table, dict):
        raise LanguageFileError(f"[{what}] must be a table of words and numbers")
    return {fold(w): int(n) for w, n in table.items()}


def _with_rules(template: str, rules: Mapping[str, str]) -> str:
    """``template`` with each ``<rule>`` written out (rules may use rules)."""
    for _ in range(4):
        for name, text in rules.items():
            template = template.replace(f"<{name}>", text)
    if "<" in template:
        raise LanguageFileError(f"unknown rule in {template!r}")
    return fold(template)


def _templates(data: Mapping[str, object]) -> dict[str, tuple[str, ...]]:
    rules = {str(k): str(v) for k, v in dict(data.get("rules", {})).items()}  # type: ignore[call-overload]
    table = data.get("templates")
    if not isinstance(table, dict) or set(table) != {i.value for i in IntentName}:
        raise LanguageFileError("[templates] must give every intent's templates")
    return {IntentName(name): tuple(_with_rules(t, rules) for t in _folded(ts, name))
            for name, ts in table.items()}


def _animals(data: Mapping[str, object]) -> tuple[dict[str, Animal], dict[Animal, AnimalForms], set[str]]:
    table = data.get("animals")
    if not isinstance(table, dict) or set(table) != {a.value for a in ANIMALS}:
        raise LanguageFileError("[animals] must name every animal")
    by_word: dict[str, Animal] = {}
    forms: dict[Animal, AnimalForms] = {}
    unspoken: set[str] = set()
    for name, entry in table.items():
        animal = Animal(name)
        for word in _folded(entry["words"], f"animals.{name}.words"):
            by_word[word] = animal
        unspoken |= set(_folded(entry.get("unspoken", []), f"animals.{name}.unspoken"))
        forms[animal] = AnimalForms(entry["singular"], entry["plural"], entry.get("one", ""),
                                    entry.get("held", ""))
    return by_word, forms, unspoken


def _spellings(language_words: set[str], pairs: Mapping[str, str]) -> dict[str, str]:
    """Each word written with ``pairs``' letters replaced ('bär' -> 'baer'), back to the word."""
    found: dict[str, str] = {}
    for word in language_words:
        other = word
        for letter, spelt in pairs.items():
            other = other.replace(letter, spelt)
        if other != word and other not in language_words:
            found[other] = word
    return found


def _from_file(code: str) -> Language:
    with (DATA_DIR / f"{code}.toml").open("rb") as file:
        data = tomllib.load(file)
    templates = _templates(data)
    animal_words, forms, unspoken = _animals(data)
    numbers = _numbers(data.get("numbers"), "numbers")
    rows = _numbers(data.get("rows"), "rows")
    separators = frozenset(_folded(data.get("separators", []), "separators"))
    counters = frozenset(_folded(data.get("counters", []), "counters"))
    trees = {name: tuple(parse_template(t) for t in ts) for name, ts in templates.items()}
    template_words = {w for ts in trees.values() for tree in ts for w in words(tree)}
    vocabulary = template_words | set(numbers) | set(rows) | set(animal_words) | separators | counters
    say: dict[str, str] = {IntentName(k): str(v) for k, v in dict(data["say"]).items()}
    examples = {IntentName(k): str(v) for k, v in dict(data["examples"]).items()}
    return Language(
        code=code,
        templates=MappingProxyType(templates),
        trees=MappingProxyType(trees),
        examples=MappingProxyType({name: examples[name] for name in HELP_ORDER}),
        say=MappingProxyType(say),
        numbers=MappingProxyType(numbers),
        row_words=MappingProxyType(rows),
        animal_words=MappingProxyType(animal_words),
        sudden_death_words=MappingProxyType(
            {w: a for w, a in animal_words.items() if a in SUDDEN_DEATH_ANIMALS}),
        list_separators=separators,
        unspoken_words=frozenset(unspoken),
        question_words=frozenset(_folded(data.get("question_words", []), "question_words")),
        sounds_like=MappingProxyType({}),
        counters=counters,
        all_words=frozenset(_folded(data.get("all_words", []), "all_words")),
        particles=tuple(sorted(_folded(data.get("particles", []), "particles"), key=len, reverse=True)),
        endings=tuple(sorted(_folded(data.get("endings", []), "endings"), key=len, reverse=True)),
        spellings=MappingProxyType(_spellings(vocabulary, dict(data.get("spellings", {})))),
        animal_forms=MappingProxyType(forms),
        number_names=MappingProxyType({int(n): str(w) for n, w in dict(data.get("number_names", {})).items()}),
        comma=str(data.get("comma", ", ")),
        last_separator=str(data.get("last_separator", " and ")),
        counted=str(data.get("counted", "{count} {plural}")),
        counted_one=str(data.get("counted_one", "{one} {singular}")),
        count_after_animal=bool(data.get("count_after_animal", False)),
        hand_digits=bool(data.get("hand_digits", False)),
        leave_words=tuple(str(w) for w in data.get("leave_words", ("quit", "exit"))),
    )


@cache
def languages(code: str = ENGLISH) -> Language:
    """The command language ``code`` ("en", "de", "ko"), read once."""
    if code == ENGLISH:
        return _english()
    if code not in CODES:
        raise KeyError(f"there is no command language {code!r}: the languages are {', '.join(CODES)}")
    return _from_file(code)


class _ByCode(Mapping[str, Language]):
    """``LANGUAGE_BY_CODE[code]``: each language's record, read when first asked for."""

    def __getitem__(self, code: str) -> Language:
        return languages(code)

    def __iter__(self) -> Iterator[str]:
        return iter(CODES)

    def __len__(self) -> int:
        return len(CODES)


LANGUAGE_BY_CODE: Mapping[str, Language] = _ByCode()
ENGLISH_LANGUAGE = languages(ENGLISH)
