"""The Korean hint never doubles a particle: a start that ends in one ('Anna는') is not given
another ('Anna는과'); a start that ends in a noun takes its own ('2번 줄과')."""

from __future__ import annotations

import random
import re

from assistant import i18n
from assistant.referee import Referee
from assistant.table.expect import hint_parts

REVEAL = ["new game anna ben cem", "anna starts", "row 1 giraffe", "row 2 bear bear",
          "row 3 mole mole mole", "row 4 goat goat goat goat", "anna swaps 1 dog",
          "ben swaps 1 cat", "cem swaps 1 pig", "anna knocks", "ben passes", "cem passes"]
#: A particle followed at once by another (은/는/이/가 then 과/와).
DOUBLED = re.compile(r"(은|는|이|가)(과|와)\b")


def _hints(lines: list[str], language: str) -> list[str]:
    referee = Referee(rng=random.Random(0), confirm_new_game=False)
    for line in lines:
        assert referee.handle(line).ok, line
    i18n.set_language(language)
    try:
        return hint_parts(referee.game)
    finally:
        i18n.set_language("en")


def test_the_korean_reveal_hint_has_one_particle() -> None:
    hint = _hints(REVEAL, "ko")[0]
    assert hint == "위의 표, 또는 'anna는' 카드 10장", hint
    assert not DOUBLED.search(hint)


def test_the_korean_row_hint_keeps_its_particle() -> None:
    assert _hints(REVEAL[:3], "ko")[0] == "2번 줄과 동물 2장"


def test_english_and_german_reveal_hints_are_unchanged() -> None:
    assert _hints(REVEAL, "en")[0] == "the grid above, or 'anna has' and the 10 cards"
    assert "anna hat" in _hints(REVEAL, "de")[0]
