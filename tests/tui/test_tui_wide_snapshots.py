"""Snapshots with Korean names (issue 39, item 6) at 80x24 and 120x40 (large print from 100
columns): the table with the known cards, the hand grid, a round's results, the score sheet and
game over. Hangul takes two cells a syllable; every column must still line up and no name be cut
where there is room for it.

The same five-player game as ``game_five.txt``, the names Korean (``test_tui_wide.renamed``).
Update after an intended change with ``pytest tests/tui/test_tui_wide_snapshots.py --snapshot-update``
and look at the SVGs before committing them.
"""

from __future__ import annotations

import pytest

from .conftest import settle, submit_all
from .test_tui_wide import KOREAN, MIXED, renamed

SIZES = [(80, 24), (120, 40)]
size_ids = pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")


@size_ids
def test_korean_table_with_known_cards(snap_compare, make_app, size) -> None:
    async def run_before(pilot) -> None:
        await pilot.press("escape")
        await submit_all(pilot, renamed(KOREAN)[:30])  # round 2, 정예준's turn
        await pilot.press("f8")
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=size, run_before=run_before)


@size_ids
def test_mixed_names_table(snap_compare, make_app, size) -> None:
    """Latin and Hangul names at one table, and a name mixing both (Jae-민)."""
    async def run_before(pilot) -> None:
        await pilot.press("escape")
        await submit_all(pilot, renamed(MIXED)[:30])
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=size, run_before=run_before)


@size_ids
def test_korean_hand_grid(snap_compare, make_app, size) -> None:
    async def run_before(pilot) -> None:
        await pilot.press("escape")
        await submit_all(pilot, renamed(KOREAN)[:20])  # two hands declared
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=size, run_before=run_before)


@size_ids
def test_korean_results(snap_compare, make_app, size) -> None:
    async def run_before(pilot) -> None:
        await pilot.press("escape")
        await submit_all(pilot, renamed(KOREAN)[:21])  # round 1 scored
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=size, run_before=run_before)


@size_ids
def test_korean_score_sheet(snap_compare, make_app, size) -> None:
    async def run_before(pilot) -> None:
        await pilot.press("escape")
        await submit_all(pilot, renamed(KOREAN)[:-1])
        await pilot.press("f3")
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=size, run_before=run_before)


@size_ids
def test_korean_game_over(snap_compare, make_app, size) -> None:
    async def run_before(pilot) -> None:
        await pilot.press("escape")
        await submit_all(pilot, renamed(KOREAN))
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=size, run_before=run_before)
