"""Snapshots of the table's screens in German and Korean whose every word is the table's own
(issue 39): the setup screen, and in German the game-over screen (winner, places, score sheet,
the last round's results). Screens that show the referee's sentences or the command line's hint
(translated elsewhere) are left to their owners' snapshots.

Deterministic as ``test_tui_snapshots``; update after an intended change with
``pytest tests/tui/test_tui_lang_snapshots.py --snapshot-update``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from textual.pilot import Pilot

from assistant import i18n
from assistant.tui.app import LifeguardApp

from .conftest import game_lines, in_language, settle, submit_all

SIZES = [(80, 24), (120, 40)]


@pytest.fixture
def speaking() -> Iterator[Callable[[str], None]]:
    """The table's language for one test, English again after it."""

    def choose(code: str) -> None:
        i18n.set_language(code)

    try:
        yield choose
    finally:
        i18n.set_language("en")


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("code", ["de", "ko"])
def test_setup_screen_in_the_tables_language(snap_compare: Callable[..., bool],
        make_app: Callable[[], LifeguardApp], speaking: Callable[[str], None], code: str,
        size: tuple[int, int]) -> None:
    speaking(code)

    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=size, run_before=run_before)


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_game_over_screen_in_german(snap_compare: Callable[..., bool], make_app: Callable[[], LifeguardApp],
        speaking: Callable[[str], None], size: tuple[int, int]) -> None:
    speaking("de")

    async def run_before(pilot: Pilot[Any]) -> None:
        await pilot.press("escape")
        await submit_all(pilot, in_language(game_lines(), "de"))
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=size, run_before=run_before)
