"""``history`` and ``stats`` line their columns up in terminal cells (a Hangul name or heading
is twice as wide as it is long), measured here with rich's own cell widths; Korean writes
'2라운드' and '0분' without a space; English is as before."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from rich.cells import cell_len

from assistant import i18n
from assistant.store.records import history_text, stats_text

GAMES: list[dict[str, Any]] = [
    {"id": 1, "date": "2026-12-01T10:00:00+00:00", "players": ["김민준", "이서연", "박지호"],
     "winners": ["김민준"], "rounds": 2, "duration_min": 0, "status": "finished"},
    {"id": 2, "date": "2026-12-01T10:00:00+00:00", "players": ["anna", "ben", "cem"], "winners": [],
     "rounds": 12, "duration_min": 15, "status": "unfinished"},
]
PLAYERS: list[dict[str, Any]] = [
    {"player": "김민준", "games": 1, "wins": 1, "average_place": 1.0, "sudden_deaths": 0,
     "lives_lost_per_round": 0.5},
    {"player": "anna", "games": 12, "wins": 10, "average_place": 2.25, "sudden_deaths": 3,
     "lives_lost_per_round": 1.0},
]


@pytest.fixture
def language(request: pytest.FixtureRequest) -> Iterator[str]:
    i18n.set_language(request.param)
    yield request.param
    i18n.set_language("en")


def _column(line: str, word: str) -> int:
    """The terminal column where ``word`` starts in ``line``."""
    return cell_len(line[: line.index(word)])


def _ends(line: str) -> list[int]:
    """The terminal column after each run of non-spaces (the right edges of the columns)."""
    ends, at = [], 0
    for i, c in enumerate(line):
        at += cell_len(c)
        if c != " " and (i + 1 == len(line) or line[i + 1] == " "):
            ends.append(at)
    return ends


@pytest.mark.parametrize(("language", "rounds", "minutes"), [
    ("en", ("2 rounds", "12 rounds"), ("0 min", "15 min")),
    ("de", ("2 Runden", "12 Runden"), ("0 Min.", "15 Min.")),
    ("ko", ("2라운드", "12라운드"), ("0분", "15분")),
], indirect=["language"])
def test_history_columns_line_up_in_cells(language: str, rounds: tuple[str, str],
                                          minutes: tuple[str, str]) -> None:
    hangul, latin = history_text(GAMES)
    assert _column(hangul, rounds[0]) == _column(latin, rounds[1]) + 1  # the counts right-aligned
    assert _column(hangul, minutes[0]) == _column(latin, minutes[1]) + 1
    assert _column(hangul, "#1") == _column(latin, "#2")
    status = {"en": ("finished", "unfinished"), "de": ("beendet", "unfertig"), "ko": ("끝남", "진행 중")}
    assert _column(hangul, status[language][0]) == _column(latin, status[language][1])


def test_english_history_is_as_before() -> None:
    hangul, latin = history_text(GAMES)
    assert hangul.endswith("  2 rounds     0 min  finished   winner: 김민준")
    assert latin.endswith("Anna, Ben, Cem                   12 rounds    15 min  unfinished winner: -")


@pytest.mark.parametrize("language", ["en", "de", "ko"], indirect=True)
def test_stats_headings_and_rows_line_up_in_cells(language: str) -> None:
    heading, hangul, latin = stats_text(PLAYERS)
    edges = _ends(hangul)[-5:]  # the five number columns' right edges
    assert edges == _ends(latin)[-5:]
    assert set(edges) <= set(_ends(heading))  # each heading ends where its column ends
    assert cell_len(hangul) == cell_len(latin) == cell_len(heading)
