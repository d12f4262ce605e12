"""Speech in for each language: the words Whisper listens for in German and Korean, the reader
that turns them into the canonical command, and whether voice input is offered at all.

Used by the voice benchmark (``bench/voice_languages.py``), the listener (through
``spoken_language``) and the table's status line (``voice_input_available``). English listens
with tiny.en and the typed parser's own tables (``whisper.grammar.ENGLISH_SPEECH``); German and
Korean with the multilingual Whisper base (``whisper.modelfile.multilingual_model_dir``), its
decoding held to the tables below.

The tables here are the spoken side only, and provisional: the command language's own German
and Korean templates (issue 39, item 3: ``assistant/commands/languages/{de,ko}.toml``) are to
replace them when they land, as the English ones come from ``assistant.commands.grammar``. The
animals' names are the catalogs' (``assistant.i18n``), never written twice. What a command is
stays the canonical English form (``Command``), whatever language it was said in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache

from assistant.commands import Command, IntentName, ParseError
from assistant.commands.parser import expand
from assistant.i18n import LANGUAGES, translations
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
MEASURED: dict[str, Measured] = {}


def voice_input_available(code: str) -> tuple[bool, str]:
    """Whether spoken commands are offered in language ``code``, and why not (a sentence for the
    status line and ``lifeguard hear``; "" when offered). Typing and speech out work in every
    language either way."""
    name = LANGUAGES.get(code, code)
    if code == "en":
        return True, ""
    measured = MEASURED.get(code)
    if code not in _TABLES:
        return False, f"voice in: typing only for {name} (no spoken commands for it)"
    if measured is None:
        return False, f"voice in: typing only for {name} (its recognition is not measured)"
    if measured.clean < SHIPPING_ACCURACY:
        return False, (f"voice in: typing only for {name} (Whisper gets {measured.clean:.0%} of "
                       f"clean commands right, {SHIPPING_ACCURACY:.0%} needed)")
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
@dataclass(frozen=True)
class _Tables:
    """A language's spoken commands, as data: templates (``parser.expand``'s syntax, lower case)
    and its words; the animals' names come from the catalogs."""

    templates: Mapping[str, tuple[str, ...]]
    counts: Mapping[str, int]  # before an animal
    counts_after: Mapping[str, tuple[int, tuple[str, ...]]]  # after it, with written forms
    rows: Mapping[str, tuple[int, tuple[str, ...]]]  # with written forms
    separators: frozenset[str]
    prompt: tuple[str, str, str, str]  # players, cards, moves sentence, no players


_GERMAN = _Tables(
    templates={
        IntentName.STARTS: ("{player} (beginnt|fängt an|ist zuerst)",),
        IntentName.ROW: ("reihe {row} [hat|ist|mit|zeigt] {cards}",),
        IntentName.SWAP: ("{player} (tauscht|nimmt) [reihe|die reihe] {row} [und] [legt|gibt|für|mit] {cards}",),
        IntentName.KNOCK: ("{player} klopft",),
        IntentName.PASS: ("{player} passt",),
        IntentName.HAND: ("{player} (hat|zeigt) {cards}",),
        IntentName.SUDDEN_DEATH: ("{player} hat alle [vier|fünf] {sd_animal}",),
        IntentName.UNDO: ("rückgängig", "nimm das zurück"),
        IntentName.REDO: ("wiederherstellen",),
        IntentName.NO: ("nein", "falsch", "abbrechen"),
        IntentName.YES: ("ja", "richtig", "bestätigen"),
        IntentName.STATUS: ("stand", "wo sind wir", "wer ist dran"),
        IntentName.REPEAT: ("wiederholen", "noch einmal"),
        IntentName.HELP: ("hilfe", "was kann ich sagen"),
    },
    counts={"ein": 1, "eine": 1, "einen": 1, "zwei": 2, "drei": 3, "vier": 4, "fünf": 5, "sechs": 6,
            "sieben": 7, "acht": 8, "neun": 9, "zehn": 10},
    counts_after={},
    rows={"eins": (1, ("1",)), "zwei": (2, ("2",)), "drei": (3, ("3",)), "vier": (4, ("4",))},
    separators=frozenset({"und", "plus", "mit"}),
    prompt=("Spieler", "Karten", " Züge: tauschen, klopfen, passen.", " Befehle."),
)

#: Korean counts a card after it, native numbers with a counter ("돼지 두 마리", "고양이 한 장");
#: rows are Sino-Korean with 번 ("삼번 줄"). Each is one word of the grammar, written by Whisper
#: with or without the space, or with digits ("2마리", "3번").
_NATIVE = ("한", "두", "세", "네", "다섯", "여섯", "일곱", "여덟", "아홉", "열")
_SINO = ("일", "이", "삼", "사")


def _korean_counts() -> dict[str, tuple[int, tuple[str, ...]]]:
    counts: dict[str, tuple[int, tuple[str, ...]]] = {}
    for n, native in enumerate(_NATIVE, start=1):
        for counter in ("마리", "장"):
            counts[native + counter] = (n, (f"{native} {counter}", f"{n}{counter}", f"{n} {counter}"))
    return counts


_KOREAN = _Tables(
    templates={
        IntentName.STARTS: ("{player} (먼저|시작)",),
        IntentName.ROW: ("{row} 줄 {cards}",),
        IntentName.SWAP: ("{player} {row} 줄 (교환|바꿈) {cards}",),
        IntentName.KNOCK: ("{player} 노크",),
        IntentName.PASS: ("{player} 패스",),
        IntentName.HAND: ("{player} 패 {cards}",),
        IntentName.SUDDEN_DEATH: ("{player} {sd_animal} 전부",),
        IntentName.UNDO: ("되돌리기", "실행 취소"),
        IntentName.REDO: ("다시 실행",),
        IntentName.NO: ("아니요", "아니", "틀렸어요"),
        IntentName.YES: ("네", "예", "맞아요"),
        IntentName.STATUS: ("상황", "점수", "누구 차례"),
        IntentName.REPEAT: ("다시 말해 주세요", "반복"),
        IntentName.HELP: ("도움말", "뭐라고 말해요"),
    },
    counts={},
    counts_after=_korean_counts(),
    rows={f"{sino}번": (n, (f"{n}번", f"{sino} 번", f"{n} 번")) for n, sino in enumerate(_SINO, start=1)},
    separators=frozenset({"그리고", "하고"}),
    prompt=("참가자", "카드", " 동작: 교환, 노크, 패스.", " 명령."),
)

_TABLES: dict[str, _Tables] = {"de": _GERMAN, "ko": _KOREAN}


def _animal_names(code: str, n: int) -> dict[str, Animal]:
    """The catalog's name of each animal for ``n`` of them, lower case -> the animal."""
    catalog = translations(code)
    return {catalog.npgettext("animal", a.value, a.value + "s", n).lower(): a for a in ANIMALS}


@cache
def spoken_words(code: str) -> SpokenWords:
    """The spoken tables of language ``code`` (not English: ``ENGLISH_SPEECH``). Raises
    ``KeyError`` for a language with no spoken commands."""
    tables = _TABLES[code]
    one, many = _animal_names(code, 1), _animal_names(code, 2)
    written: dict[str, tuple[str, ...]] = {word: (str(n),) for word, n in tables.counts.items() if n > 1}
    written |= {word: forms for word, (_, forms) in (*tables.rows.items(), *tables.counts_after.items())}
    return SpokenWords(
        templates={str(intent): templates for intent, templates in tables.templates.items()},
        counts=tables.counts,
        rows={word: n for word, (n, _) in tables.rows.items()},
        one=one,
        many=many if many != one else {},
        sudden_death={w: a for w, a in many.items() if a in SUDDEN_DEATH_ANIMALS},
        separators=tables.separators,
        written=written,
        counts_after={word: n for word, (n, _) in tables.counts_after.items()},
        prompt_players=tables.prompt[0],
        prompt_cards=tables.prompt[1],
        prompt_moves=tables.prompt[2],
        prompt_commands=tables.prompt[3],
        prompt_animals=tuple(next(w for w, x in one.items() if x is a).capitalize() for a in ANIMALS),
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
                if slots is not None:
                    return Command(IntentName(intent), **slots)  # type: ignore[arg-type]
    raise ParseError(f"not a command: {' '.join(words)}")


_Slots = dict[str, object]


def _match(pattern: Sequence[tuple[str, ...] | str], words: list[str], tables: SpokenWords,
           players: Mapping[str, str]) -> _Slots | None:
    """The slots of ``words`` read by one expanded template, or None when it does not fit."""
    slots: _Slots = {}
    at = 0
    for element in pattern:
        if isinstance(element, tuple):
            if tuple(words[at:at + len(element)]) != element:
                return None
            at += len(element)
        elif element == "cards":
            cards = read_cards(words[at:], tables)
            if cards is None:
                return None
            slots["cards"], at = cards, len(words)
        elif at < len(words) and (value := _slot(element, words[at], tables, players)) is not None:
            slots[_FIELDS[element]] = value
            at += 1
        else:
            return None
    return slots if at == len(words) else None


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
    """The cards ``words`` name ("zwei schweine und eine katze", "돼지 두마리 고양이"), or None."""
    animals: list[Animal] = []
    pending = 0  # a count said, its animal to come
    last: Animal | None = None  # the animal just said alone (a count after it may follow)
    for word in words:
        if word in tables.separators and animals and not pending:
            last = None
        elif word in tables.counts and not pending:
            pending, last = tables.counts[word], None
        elif (animal := _animal(word, tables, pending)) is not None:
            animals += [animal] * (pending or 1)
            last, pending = (None if pending else animal), 0
        elif word in tables.counts_after and last is not None:
            animals += [last] * (tables.counts_after[word] - 1)
            last = None
        else:
            return None
    return Cards(animals) if animals and not pending else None


def _animal(word: str, tables: SpokenWords, pending: int) -> Animal | None:
    """The animal ``word`` names after a count of ``pending`` (0: none): its plural only after
    a count above one ("zwei schweine"; "zwei schwein" as the canonical form writes it)."""
    return tables.one.get(word) or (tables.many.get(word) if pending > 1 else None)
