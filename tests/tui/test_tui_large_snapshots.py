"""Snapshots of large print with five long names (issue 36, item 4) at 80x24 (large print by its
key, F4) and 200x50 (by the size, the biggest type there): the table with the known cards, the
hand grid, a round's results and the score sheet (F3).

Update after an intended change with ``pytest tests/tui/test_tui_large_snapshots.py
--snapshot-update`` and look at the SVGs before committing them.
"""

from __future__ import annotations

import pytest

from .conftest import game_lines, settle, submit_all
from .test_tui_five import GAME_FIVE

SIZES = [(80, 24), (200, 50)]
size_ids = pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")


async def large_print(pilot, size: tuple[int, int]) -> None:
    await pilot.press("escape")
    if size[0] < 100:
        await pilot.press("f4")


@size_ids
def test_large_table_with_known_cards(snap_compare, make_app, size) -> None:
    async def run_before(pilot) -> None:
        await large_print(pilot, size)
        await submit_all(pilot, game_lines(GAME_FIVE)[:30])  # round 2, Evangeline's turn
        await pilot.press("f8")
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=size, run_before=run_before)


@size_ids
def test_large_hand_grid(snap_compare, make_app, size) -> None:
    async def run_before(pilot) -> None:
        await large_print(pilot, size)
        await submit_all(pilot, game_lines(GAME_FIVE)[:18])  # two hands declared
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=size, run_before=run_before)


@size_ids
def test_large_results(snap_compare, make_app, size) -> None:
    async def run_before(pilot) -> None:
        await large_print(pilot, size)
        await submit_all(pilot, game_lines(GAME_FIVE)[:21])  # round 1 scored
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=size, run_before=run_before)


@size_ids
def test_large_score_sheet(snap_compare, make_app, size) -> None:
    async def run_before(pilot) -> None:
        await large_print(pilot, size)
        await submit_all(pilot, game_lines(GAME_FIVE)[:-1])  # five rounds
        await pilot.press("f3")
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=size, run_before=run_before)
