"""A stored game is shown in the language of whoever reads it: what was said of each command
is told again from its events (the store keeps canonical commands and the table's words)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from assistant import i18n
from assistant.config import Settings
from assistant.store import GameStore, open_session
from assistant.store.current import announcements, retold
from tests.store.conftest import game_lines


@pytest.fixture
def english_after():
    yield
    i18n.set_language("en")


def _play(data: Path, lines: list[str], language: str) -> None:
    i18n.set_language(language)
    with open_session(Settings(), data, rng=random.Random(7)) as session:
        for line in lines:
            reply = session.referee.handle(line)
            assert reply.ok, (line, reply.error)


def _stored(data: Path):
    with GameStore.open(data, create=False) as store:
        row = store.latest_game()
        assert row is not None
        return row, store.entries(row.id)


@pytest.mark.parametrize("language", ["en", "de", "ko"])
def test_told_again_in_the_tables_own_language_is_what_the_table_stored(
        data: Path, language: str, english_after: None) -> None:
    _play(data, game_lines(3)[:40], language)
    row, entries = _stored(data)
    assert [e.said for e in retold(row, entries)] == [e.said for e in entries]
    assert any(e.said for e in entries)


def test_a_game_played_in_german_reads_in_korean(data: Path, english_after: None) -> None:
    lines = game_lines(3)[:40]
    _play(data, lines, "de")
    row, entries = _stored(data)
    german = " ".join(e.said for e in entries)
    assert "Reihe" in german
    i18n.set_language("ko")
    korean = " ".join(a.said for a in announcements(row, entries))
    assert "Reihe" not in korean and "줄" in korean
    # Told again in Korean: the same words a Korean table would have stored for these commands.
    other = data.parent / "korean"
    other.mkdir()
    _play(other, lines, "ko")
    _, korean_entries = _stored(other)
    i18n.set_language("ko")
    assert [e.said for e in retold(row, entries)] == [e.said for e in korean_entries]


def test_an_english_reader_reads_what_is_stored(data: Path, english_after: None) -> None:
    _play(data, game_lines(3)[:10], "de")
    row, entries = _stored(data)
    i18n.set_language("en")
    assert retold(row, entries) == tuple(entries)
