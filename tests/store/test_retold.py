"""What the store keeps is language-neutral, and a stored game is shown in the language of
whoever reads it: the commands are canonical English, what was said of each is kept in English
(``referee.stored_words``) and told again from its events in another language (``retold``)."""

from __future__ import annotations

import random
import threading
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


def _play(data: Path, lines: list[str], language: str) -> list[str]:
    i18n.set_language(language)
    shown: list[str] = []
    with open_session(Settings(), data, rng=random.Random(7)) as session:
        for line in lines:
            reply = session.referee.handle(line)
            assert reply.ok, (line, reply.error)
            shown.extend(reply.said)
    return shown


def _stored(data: Path):
    with GameStore.open(data, create=False) as store:
        row = store.latest_game()
        assert row is not None
        return row, store.entries(row.id)


@pytest.mark.parametrize("language", ["de", "ko"])
def test_a_table_in_another_language_stores_what_an_english_table_stores(
        tmp_path: Path, language: str, english_after: None) -> None:
    lines = game_lines(3)[:40]
    (tmp_path / "en").mkdir()
    (tmp_path / language).mkdir()
    _play(tmp_path / "en", lines, "en")
    shown = _play(tmp_path / language, lines, language)
    english, other = _stored(tmp_path / "en")[1], _stored(tmp_path / language)[1]
    assert [(e.command, e.said) for e in other] == [(e.command, e.said) for e in english]
    assert "Row 1" in " ".join(e.said for e in other)
    assert {"de": "Reihe 1", "ko": "1번 줄"}[language] in " ".join(shown)  # the table spoke its own


def test_a_game_played_in_german_reads_in_german_korean_and_english(
        data: Path, english_after: None) -> None:
    _play(data, game_lines(3)[:40], "de")
    row, entries = _stored(data)
    i18n.set_language("de")
    german = " ".join(e.said for e in retold(row, entries))
    assert "Reihe" in german and "Row" not in german
    i18n.set_language("ko")
    korean = " ".join(a.said for a in announcements(row, entries))
    assert "Reihe" not in korean and "줄" in korean
    i18n.set_language("en")
    assert retold(row, entries) == tuple(entries)  # English: what is stored


def test_the_stored_english_is_this_threads_only(english_after: None) -> None:
    """Writing the store in English never switches the table's screen, drawn on another thread."""
    i18n.set_language("de")
    inside = threading.Event()
    leave = threading.Event()
    seen: list[str] = []

    def store_writer() -> None:
        with i18n.language("en"):
            seen.append(i18n.animal_name("bear"))
            inside.set()
            leave.wait(5)

    writer = threading.Thread(target=store_writer)
    writer.start()
    inside.wait(5)
    seen.append(i18n.animal_name("bear"))  # the screen's thread meanwhile
    leave.set()
    writer.join()
    assert seen == ["bear", "Bär"]
