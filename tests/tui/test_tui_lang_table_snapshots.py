"""Snapshots of the table in German and in Korean (issue 39, item 6) at 80x24 and 120x40: the
table mid-game with the known cards (normal print at both sizes), large print (F4 at 80x24, by
the size at 120x40), the hand grid at the reveal, a round's results, the score sheet (F3) and
game over. The table's words are the language's, the names the language's too: long German ones
(Bartholomäus, with an umlaut) and Korean ones in Hangul (two cells a syllable). Every column
must line up and no name or word be cut where there is room for it.

The same five-player game as ``game_five.txt`` (``test_tui_wide.renamed``), typed in the table's
language (``conftest.in_language``; the log echoes the command understood, in the table's
language, whichever language it was typed in). Update after an intended change
with ``pytest tests/tui/test_tui_lang_table_snapshots.py --snapshot-update`` and look at the
SVGs before committing them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from textual.pilot import Pilot

from assistant import i18n
from assistant.tui.app import LifeguardApp

from .conftest import in_language, settle, submit_all
from .test_tui_wide import KOREAN, renamed

SIZES = [(80, 24), (120, 40)]
#: Long German names, one with an umlaut, for the five players of ``game_five.txt``.
GERMAN = ("Anne-Marie", "Bartholomäus", "Christopher", "Dorothea", "Evangeline")
NAMES = {"de": GERMAN, "ko": KOREAN}

size_ids = pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
code_ids = pytest.mark.parametrize("code", ["de", "ko"])


@pytest.fixture
def speaking() -> Iterator[None]:
    """English again after each test (the language is one process-wide switch)."""
    try:
        yield
    finally:
        i18n.set_language("en")


def game(code: str) -> list[str]:
    """The five-player game with the language's names, typed in the table's language; the
    table set to the language."""
    i18n.set_language(code)
    return in_language(renamed(NAMES[code]), code)


async def large_print(pilot: Pilot[Any], size: tuple[int, int], wanted: bool) -> None:
    """Large print as ``wanted``: by its key (F4) where the size gives the other."""
    await pilot.press("escape")
    if (size[0] >= 100) != wanted:
        await pilot.press("f4")


@pytest.mark.slow
@size_ids
@code_ids
def test_table_with_known_cards(snap_compare: Callable[..., bool], make_app: Callable[[], LifeguardApp],
        speaking: None, code: str, size: tuple[int, int]) -> None:
    lines = game(code)

    async def run_before(pilot: Pilot[Any]) -> None:
        await large_print(pilot, size, wanted=False)
        await submit_all(pilot, lines[:30])  # round 2, the fifth player's turn
        await pilot.press("f8")
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=size, run_before=run_before)


@pytest.mark.slow
@size_ids
@code_ids
def test_large_print_with_known_cards(snap_compare: Callable[..., bool], make_app: Callable[[], LifeguardApp],
        speaking: None, code: str, size: tuple[int, int]) -> None:
    lines = game(code)

    async def run_before(pilot: Pilot[Any]) -> None:
        await large_print(pilot, size, wanted=True)
        await submit_all(pilot, lines[:30])
        await pilot.press("f8")
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=size, run_before=run_before)


@pytest.mark.slow
@size_ids
@code_ids
def test_hand_grid(snap_compare: Callable[..., bool], make_app: Callable[[], LifeguardApp],
        speaking: None, code: str, size: tuple[int, int]) -> None:
    lines = game(code)

    async def run_before(pilot: Pilot[Any]) -> None:
        await pilot.press("escape")
        await submit_all(pilot, lines[:18])  # two hands declared
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=size, run_before=run_before)


@pytest.mark.slow
@size_ids
@code_ids
def test_results(snap_compare: Callable[..., bool], make_app: Callable[[], LifeguardApp],
        speaking: None, code: str, size: tuple[int, int]) -> None:
    lines = game(code)

    async def run_before(pilot: Pilot[Any]) -> None:
        await pilot.press("escape")
        await submit_all(pilot, lines[:21])  # round 1 scored
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=size, run_before=run_before)


@pytest.mark.slow
@size_ids
@code_ids
def test_score_sheet(snap_compare: Callable[..., bool], make_app: Callable[[], LifeguardApp],
        speaking: None, code: str, size: tuple[int, int]) -> None:
    lines = game(code)

    async def run_before(pilot: Pilot[Any]) -> None:
        await pilot.press("escape")
        await submit_all(pilot, lines[:-1])  # five rounds
        await pilot.press("f3")
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=size, run_before=run_before)


@pytest.mark.slow
@size_ids
@code_ids
def test_game_over(snap_compare: Callable[..., bool], make_app: Callable[[], LifeguardApp],
        speaking: None, code: str, size: tuple[int, int]) -> None:
    lines = game(code)

    async def run_before(pilot: Pilot[Any]) -> None:
        await pilot.press("escape")
        await submit_all(pilot, lines)
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=size, run_before=run_before)
