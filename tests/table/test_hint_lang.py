"""The command line's hint quotes commands as they are typed at the table: in its language."""

from __future__ import annotations

import random

import pytest

from assistant import i18n
from assistant.commands import parse
from assistant.config import Settings
from assistant.referee import Referee
from assistant.table.expect import expected_start, hint_parts

ENGLISH_COMMAND_WORDS = {"swaps", "knocks", "passes", "has", "row", "new", "game", "yes", "no", "starts"}


@pytest.fixture
def table(request: pytest.FixtureRequest):
    i18n.set_language(request.param)
    yield Referee(Settings().rules, random.Random(1), confirm_new_game=False)
    i18n.set_language("en")


def _words(parts: list[str]) -> set[str]:
    return {w.strip("'.,:").lower() for part in parts for w in part.split()}


@pytest.mark.parametrize("table", ["de", "ko"], indirect=True)
def test_hints_through_a_round_quote_the_tables_own_commands(table: Referee) -> None:
    hints = [hint_parts(None), hint_parts(None, question="new game")]
    table.handle("new game anna ben cem")
    hints.append(hint_parts(table.game))
    for k, cards in ((1, "giraffe"), (2, "bear dog"), (3, "cat cat mouse"), (4, "pig pig sheep goat")):
        assert table.handle(f"row {k} {cards}").ok
        hints.append(hint_parts(table.game))
    for _ in range(4):
        turn = table.game.turn
        assert any(table.handle(f"{turn} swaps 1 {animal}").ok for animal in ("dog", "cat", "pig"))
        hints.append(hint_parts(table.game))
    assert table.handle(f"{table.game.turn} knocks").ok
    hints.append(hint_parts(table.game))
    for parts in hints:
        assert not _words(parts) & ENGLISH_COMMAND_WORDS, parts


@pytest.mark.parametrize("table", ["de", "ko"], indirect=True)
def test_what_tab_types_is_a_start_the_table_reads(table: Referee) -> None:
    table.handle("new game anna ben cem")
    start = expected_start(table.game)  # the first row, in the table's words
    line = start + {"de": "Giraffe", "ko": "기린"}[i18n.current_language()]
    assert parse(line, ("anna", "ben", "cem"), language=i18n.current_language()).canonical == "row 1 giraffe"
