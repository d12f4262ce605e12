"""Refusals that offer commands, and sentences that quote yes, no, undo or new game, write
them as the table's language types them (render.offered); English is unchanged."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from assistant import i18n
from assistant.commands.render import offered
from assistant.referee import Referee

SETUP = ["new game anna ben cem", "anna starts", "row 1 giraffe", "row 2 bear bear",
         "row 3 mole mole mole", "row 4 goat goat goat goat", "anna swaps 1 dog",
         "ben swaps 1 cat", "cem swaps 1 pig", "anna knocks"]


@pytest.fixture
def table() -> Iterator[Referee]:
    referee = Referee(rng=random.Random(0))
    for line in SETUP:
        assert referee.handle(line).ok, line
    yield referee
    i18n.set_language("en")


def _answer(referee: Referee, line: str, language: str) -> str:
    i18n.set_language(language)
    try:
        reply = referee.handle(line)
    finally:
        i18n.set_language("en")
    return reply.error or " ".join(reply.said)


@pytest.mark.parametrize(("language", "said"), [
    ("en", "It's Ben's turn, not Cem's: expected 'ben swaps' or 'ben passes'."),
    ("de", "Ben ist dran, nicht Cem: erwartet wird 'ben tauscht' oder 'ben passt'."),
    ("ko", "Cem의 차례가 아니라 Ben의 차례입니다. 가능한 명령: 'ben이 … 교환해요' 또는 'ben이 패스해요'."),
])
def test_offered_commands_are_in_the_table_language(table: Referee, language: str, said: str) -> None:
    assert _answer(table, "cem passes", language) == said


@pytest.mark.parametrize(("language", "words"), [
    ("en", ("'yes'", "'no'", "'undo'")),
    ("de", ("Sagt 'ja'", "oder 'nein'", "sagt 'rückgängig'")),
    ("ko", ("'네'(", "'아니요'라고", "'취소'라고")),
])
def test_quoted_command_words_are_in_the_table_language(table: Referee, language: str,
                                                        words: tuple[str, str, str]) -> None:
    question = _answer(table, "new game dora eli fay", language)
    assert words[0] in question and words[1] in question
    assert "new game" in table.history()[0] and _answer(table, "no", language)  # the question dropped
    assert words[2] in _answer(table, "no", language)
    assert "anna knocks" in table.history()  # stored as before


def test_no_game_offers_the_new_game_words() -> None:
    referee = Referee(rng=random.Random(0))
    assert "'new game alice bob carol'" in _answer(referee, "anna knocks", "en")
    assert "'neues Spiel mit alice, bob und carol'" in _answer(referee, "anna knocks", "de")
    assert "'새 게임 alice, bob, carol'" in _answer(referee, "anna knocks", "ko")


def test_offered_leaves_english_and_unknown_text_as_it_is() -> None:
    assert offered("ben swaps", "en") == "ben swaps"
    assert offered("ben has", "de") == "ben hat"
    assert offered("ben has", "ko") == "ben은 … 있어요"
    assert offered("something else", "de") == "something else"
