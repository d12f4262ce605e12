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
heard back into that form with the typed parser, as English's speech does: one reader for typed
and spoken commands.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from assistant.commands import Command, IntentName, ParseError, parse
from assistant.commands.language import languages
from assistant.commands.text import fold
from assistant.i18n import LANGUAGES, _, format
from assistant.voice.whisper.grammar import ENGLISH_SPEECH, SpokenLanguage, SpokenWords
from engine.deck import ANIMALS, SUDDEN_DEATH_ANIMALS

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
        return read_command(text.split(), code, players or ())

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
def read_command(words: Sequence[str], code: str, players: Sequence[str]) -> Command:
    """The canonical command that ``words`` (as the grammar reads them: ``TokenGrammar.words_of``)
    say in language ``code``: the typed parser's reading of them, held to the grammar's own rule
    that a row or a swap names as many cards as the row holds; ``ParseError`` when they say no
    command."""
    command = parse(" ".join(words), tuple(players) or None, language=code)
    if command.intent in (IntentName.ROW, IntentName.SWAP) and command.row is not None \
            and len(list(command.cards)) != command.row:
        raise ParseError(f"not a command: {' '.join(words)} (row {command.row} holds {command.row} cards)")
    return command
