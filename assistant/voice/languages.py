"""Speech in for each language: the words Whisper listens for in German and Korean, the reader
that turns them into the canonical command, and whether voice input is offered at all.

Used by the voice benchmark (``bench/voice_languages.py``), the listener (through
``spoken_language``) and the table's status line (``voice_input_available``). English listens
with tiny.en and the typed parser's own tables (``whisper.grammar.ENGLISH_SPEECH``); German and
Korean with the multilingual Whisper base (``whisper.modelfile.multilingual_model_dir``), its
decoding held to the tables below.

The spoken tables are read from the command language's own record (``assistant.commands.language``,
``languages/{de,ko}.toml``), as the English ones come from ``assistant.commands.grammar``: one
source for typed and spoken commands. What a command is stays the canonical English form
(``Command``), whatever language it was said in. ``read_command`` reads the words the grammar
heard back into that form (the typed parser reads a language's lines on the command-language
branch; once it does on main, it can take the reader's place).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache

from assistant.commands import Command, IntentName, ParseError
from assistant.commands.language import languages
from assistant.commands.parser import expand
from assistant.commands.text import fold
from assistant.i18n import LANGUAGES, _, format
from assistant.voice.whisper.grammar import ENGLISH_SPEECH, SpokenLanguage, SpokenWords
from engine.deck import ANIMALS, SUDDEN_DEATH_ANIMALS, Animal, Cards

#: The share of clean commands (held-out voices) a language's recogniser must get exactly right
#: for voice input to be offered in it (issue 39).
SHIPPING_ACCURACY = 0.90


@dataclass(frozen=True)
class Measured:
    """A language's recognition as ``bench/voice_languages.py`` measured it (held-out voices)."""

    clean: float  # exact commands, clean
    noise: float  # exact commands, pink noise at 10 dB SNR
    talk_rejected: float
    when: str  # the date of the measurement (bench/NOTES.md)


#: The figures voice input is offered or withheld on (bench/NOTES.md, "Speech in for German and
#: Korean"). English's are the voice benchmark's (tiny.en, test split).
MEASURED: dict[str, Measured] = {
    "de": Measured(clean=0.425, noise=0.20, talk_rejected=0.958, when="2026-12-03"),
    "ko": Measured(clean=0.133, noise=0.133, talk_rejected=0.85, when="2026-12-03"),
}


def voice_input_available(code: str) -> tuple[bool, str]:
    """Whether spoken commands are offered in language ``code``, and why not (a sentence for the
    status line and ``lifeguard hear``; "" when offered). Typing and speech out work in every
    language either way."""
    name = LANGUAGES.get(code, code)
    if code == "en":
        return True, ""
    measured = MEASURED.get(code)
    if code not in _PROMPTS:
        return False, format(_("voice in: typing only for {language} (no spoken commands for it)"),
                             language=name)
    if measured is None:
        return False, format(_("voice in: typing only for {language} (its recognition is not measured)"),
                             language=name)
    if measured.clean < SHIPPING_ACCURACY:
        return False, format(_("voice in: typing only for {language} (Whisper gets {got} of clean "
                               "commands right, {needed} needed)"), language=name,
                             got=f"{measured.clean:.0%}", needed=f"{SHIPPING_ACCURACY:.0%}")
    return True, ""


def spoken_language(code: str) -> SpokenLanguage:
    """What Whisper listens for in language ``code`` ("en", "de", "ko"): its words and the reader
    of the canonical command. Raises ``KeyError`` for a language with no spoken commands."""
    if code == "en":
        return ENGLISH_SPEECH
    words = spoken_words(code)

    def read(text: str, players: Sequence[str] | None) -> Command:
        return read_command(text.split(), words, players or ())

    return SpokenLanguage(code, words, read)


# --------------------------------------------------------------------------- the tables
#: Languages whose prompt leaves the animals out: Whisper base copied the prompt's list of animals
#: into German card lists (tune split, bench/NOTES.md: 46.7% of clean commands right with them,
#: 53.3% without; talk rejected 95 -> 100%).
_NO_ANIMALS_IN_PROMPT = frozenset({"de"})
#: Whisper's prompt in each language: the players' label, the cards' label, the moves' sentence
#: (in turns) and what is written when no player is known (``SpokenWords.prompt_*``).
_PROMPTS = {
    "de": ("Spieler", "Karten", " Züge: tauschen, klopfen, passen.", " Befehle."),
    "ko": ("참가자", "카드", " 동작: 교환, 노크, 패스.", " 명령."),
}


@cache
def spoken_words(code: str) -> SpokenWords:
    """The spoken tables of language ``code`` (not English: ``ENGLISH_SPEECH``), read from the
    command language's record (``assistant.commands.language``: its templates, numbers, rows,
    animals, separators, counters, particles and endings). Raises ``KeyError`` for a language
    with no spoken commands."""
    language = languages(code)
    prompt = _PROMPTS[code]
    forms = language.animal_forms
    one = {fold(f.singular): a for a, f in forms.items()}
    many = {fold(f.plural): a for a, f in forms.items() if fold(f.plural) != fold(f.singular)}
    numbers = dict(language.numbers)
    written: dict[str, tuple[str, ...]] = {
        word: (str(n),) for word, n in (*numbers.items(), *language.row_words.items()) if n > 1 or word == "eins"}
    after = language.count_after_animal
    return SpokenWords(
        templates={str(intent): templates for intent, templates in language.templates.items()},
        counts={} if after else numbers,
        rows=dict(language.row_words),
        one=one,
        many=many,
        sudden_death={fold(forms[a].plural): a for a in SUDDEN_DEATH_ANIMALS},
        separators=language.list_separators,
        written=written,
        counts_after=numbers if after else {},
        counters=language.counters,
        glued=frozenset(language.endings) | language.counters | {"번"},
        particles=language.particles,
        prompt_players=prompt[0],
        prompt_cards=prompt[1],
        prompt_moves=prompt[2],
        prompt_commands=prompt[3],
        prompt_animals=() if code in _NO_ANIMALS_IN_PROMPT else tuple(forms[a].singular for a in ANIMALS),
    )


# --------------------------------------------------------------------------- the reader
def read_command(words: Sequence[str], tables: SpokenWords, players: Sequence[str]) -> Command:
    """The canonical command that ``words`` (as the grammar reads them: ``TokenGrammar.words_of``)
    say in ``tables``' language; ``ParseError`` when they say none. The first template that
    matches wins, as in the typed parser."""
    folded = [w.lower() for w in words]
    known = {p.lower(): p for p in players}
    for intent, templates in tables.templates.items():
        for template in templates:
            for pattern in expand(template):
                slots = _match(pattern, folded, tables, known)
                if slots is not None and _fits_its_row(slots):
                    return Command(IntentName(intent), **slots)  # type: ignore[arg-type]
    raise ParseError(f"not a command: {' '.join(words)}")


_Slots = dict[str, object]


def _fits_its_row(slots: _Slots) -> bool:
    """Whether the cards of a row or a swap are as many as the row holds (the grammar counts
    them; the reader checks what it is given)."""
    cards, row = slots.get("cards"), slots.get("row")
    return not isinstance(cards, Cards) or not isinstance(row, int) or len(list(cards)) == row


def _match(pattern: Sequence[tuple[str, ...] | str], words: Sequence[str], tables: SpokenWords,
           players: Mapping[str, str], slots: _Slots | None = None) -> _Slots | None:
    """The slots of ``words`` read by one expanded template, or None when it does not fit. The
    cards may stand anywhere (Korean puts the verb after them): the longest list of cards after
    which the rest of the template fits."""
    slots = slots or {}
    if not pattern:
        return slots if not words else None
    element, rest = pattern[0], pattern[1:]
    if isinstance(element, tuple):
        fits = tuple(words[:len(element)]) == element
        return _match(rest, words[len(element):], tables, players, slots) if fits else None
    if element == "cards":
        for end in range(len(words), 0, -1):
            cards = read_cards(words[:end], tables)
            if cards is not None:
                found = _match(rest, words[end:], tables, players, {**slots, "cards": cards})
                if found is not None:
                    return found
        return None
    if words and (value := _slot(element, words[0], tables, players)) is not None:
        return _match(rest, words[1:], tables, players, {**slots, _FIELDS[element]: value})
    return None


_FIELDS = {"player": "player", "row": "row", "sd_animal": "animal"}


def _slot(slot: str, word: str, tables: SpokenWords, players: Mapping[str, str]) -> object | None:
    match slot:
        case "player":
            return players.get(word)
        case "row":
            return tables.rows.get(word)
        case "sd_animal":
            return tables.sudden_death.get(word)
    return None


def read_cards(words: Sequence[str], tables: SpokenWords) -> Cards | None:
    """The cards ``words`` name ("zwei schweine und eine katze", "돼지 두 장 고양이"), or None."""
    reader = _CardReader(tables)
    if all(reader.take(word) for word in words) and reader.animals and not reader.pending:
        return Cards(reader.animals)
    return None


@dataclass
class _CardReader:
    """A list of cards read word by word (``read_cards``)."""

    tables: SpokenWords
    animals: list[Animal] = field(default_factory=list)
    pending: int = 0  # a count said, its animal to come
    last: Animal | None = None  # the animal just said alone (a count after it may follow)
    counted: bool = False  # a count after an animal was just said (a counter word may follow)

    def take(self, word: str) -> bool:
        """Read ``word``; False when it cannot stand here in a list of cards."""
        tables, counted = self.tables, self.counted
        self.counted = False
        if word in tables.counters and counted:
            return True
        if word in tables.separators and self.animals and not self.pending:
            self.last = None
        elif word in tables.counts and not self.pending:
            self.pending, self.last = tables.counts[word], None
        elif (animal := _animal(word, tables, self.pending)) is not None:
            self.animals += [animal] * (self.pending or 1)
            self.last, self.pending = (None if self.pending else animal), 0
        elif word in tables.counts_after and self.last is not None:
            self.animals += [self.last] * (tables.counts_after[word] - 1)
            self.last, self.counted = None, True
        else:
            return False
        return True


def _animal(word: str, tables: SpokenWords, pending: int) -> Animal | None:
    """The animal ``word`` names after a count of ``pending`` (0: none): its plural only after
    a count above one ("zwei schweine"; "zwei schwein" as the canonical form writes it)."""
    return tables.one.get(word) or (tables.many.get(word) if pending > 1 else None)
