"""Hypothesis in German and Korean: any text, and lines of the language's own words (with
particles and endings glued on), never raise out of ``parse`` but ``ParseError`` with one
sentence; a suggestion offered is a command of that language; what parses writes a canonical
form that parses back in English."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assistant.commands import ParseError, parse
from assistant.commands.language import languages

PLAYERS = {"de": ("alice", "Jörg", "Zoë"), "ko": ("앨리스", "밥", "보가", "alice")}
SETTINGS = settings(max_examples=int(os.environ.get("LIFEGUARD_FUZZ_EXAMPLES", "150")), deadline=None,
                    derandomize="LIFEGUARD_FUZZ_EXAMPLES" not in os.environ,
                    suppress_health_check=[HealthCheck.too_slow])


def _vocabulary(code: str) -> list[str]:
    language = languages(code)
    extra = {"dave", "alise", "0", "1", "3", "4", "11", ",", "!", "?"}
    return sorted(language.reserved_words | set(PLAYERS[code]) | extra)


def _words(code: str) -> st.SearchStrategy[str]:
    word = st.sampled_from(_vocabulary(code))
    if code != "ko":
        return word
    suffix = st.sampled_from(["", "", "", *languages(code).suffixes])
    return st.builds(lambda w, s: w + s, word, suffix)


def _check(text: str, code: str) -> None:
    for players in (PLAYERS[code], None):
        try:
            command = parse(text, players, language=code)
        except ParseError as err:
            assert err.message and "\n" not in err.message
            if err.suggestion is not None:
                parse(err.suggestion, players, language=code)  # a suggestion is a command
            continue
        if all(n <= 10 for n in command.cards.counts().values()):
            assert parse(command.canonical, players).canonical == command.canonical


@SETTINGS
@given(st.text(max_size=60))
def test_any_text_in_german_or_korean_is_a_command_or_a_sentence(text: str) -> None:
    _check(text, "de")
    _check(text, "ko")


@SETTINGS
@given(st.lists(_words("de"), max_size=10))
def test_german_words_in_any_order(words: list[str]) -> None:
    _check(" ".join(words), "de")


@SETTINGS
@given(st.lists(_words("ko"), max_size=10))
def test_korean_words_with_particles_in_any_order(words: list[str]) -> None:
    _check(" ".join(words), "ko")
