"""Undo, redo and taking back quote the command in the table's language (render.say), while
the store and the log keep the canonical English command; English is unchanged."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from assistant import i18n
from assistant.referee import Referee

SETUP = ["new game anna ben cem", "anna starts", "row 1 giraffe", "row 2 bear bear",
         "row 3 mole mole mole", "row 4 goat goat goat goat", "anna swaps 1 dog",
         "ben swaps 1 cat", "cem swaps 1 pig", "anna knocks"]


@pytest.fixture
def table() -> Iterator[Referee]:
    referee = Referee(rng=random.Random(0), confirm_new_game=False)
    for line in SETUP:
        assert referee.handle(line).ok, line
    yield referee
    i18n.set_language("en")


def _said(referee: Referee, line: str, language: str) -> list[str]:
    i18n.set_language(language)
    try:
        reply = referee.handle(line)
    finally:
        i18n.set_language("en")
    assert reply.ok, reply
    return reply.said


@pytest.mark.parametrize(("language", "undone", "redone"), [
    ("en", "Undone: anna knocks.", "Redone: anna knocks."),
    ("de", "Rückgängig gemacht: anna klopft.", "Wiederhergestellt: anna klopft."),
    ("ko", "되돌림: anna가 노크해요.", "다시 함: anna가 노크해요."),
])
def test_undo_and_redo_quote_the_command_in_the_table_language(
        table: Referee, language: str, undone: str, redone: str) -> None:
    before = table.history()
    assert _said(table, "undo", language)[0] == undone
    assert table.history() == before[:-1]  # the stored log keeps the canonical English commands
    assert _said(table, "redo", language)[0] == redone
    assert table.history() == before
    assert "anna knocks" in before
