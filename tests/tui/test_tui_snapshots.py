"""Snapshots of the screens (setup, table, hand grid, results, score sheet, game over) at 80x24,
120x40 and 200x50 (large print from 100 columns).

Deterministic: a fixed seed, a fixed clock, the data file shown as ``$LIFEGUARD_DATA_DIR/...``,
no voice. Update after an intended change with ``pytest tests/tui --snapshot-update``.
"""

from __future__ import annotations

import pytest

from .conftest import game_lines, play, settle, submit_all

SIZES = [(80, 24), (120, 40), (200, 50)]

OPENING = [
    "new game alice bob carol dave",
    "bob starts",
    "row 1 giraffe",
    "row 2 bear dog",
    "row 3 pig pig cat",
    "row 4 mole goat sheep mouse",
]
MID_GAME = [
    *OPENING,
    "bob swaps 2 cat mouse",
    "carol swaps 4 rabbit rabbit pig giraffe",
    "dave swaps 1 dog",
    "alice swaps 3 bear bear bear",
]
REVEAL = [
    *MID_GAME,
    "bob knocks",
    "carol passes",
    "dave swaps 2 sheep sheep",
    "alice passes",
    "bob has 3 giraffe 2 bear 1 dog 2 cat 1 mouse 1 goat",
]


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_setup_screen(snap_compare, make_app, size) -> None:
    async def run_before(pilot) -> None:
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=size, run_before=run_before)


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_table_screen_mid_game(snap_compare, make_app, size) -> None:
    async def run_before(pilot) -> None:
        await pilot.press("escape")
        await play(pilot, MID_GAME)
        await pilot.press("f8")  # show the known cards too
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=size, run_before=run_before)


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_end_of_round_hand_grid(snap_compare, make_app, size) -> None:
    async def run_before(pilot) -> None:
        await pilot.press("escape")
        await submit_all(pilot, REVEAL)  # the grid keeps the focus the reveal gave it
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=size, run_before=run_before)


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_end_of_round_results(snap_compare, make_app, size) -> None:
    async def run_before(pilot) -> None:
        await pilot.press("escape")
        lines = game_lines()
        hands = [i for i, line in enumerate(lines) if " has " in line]
        await submit_all(pilot, lines[: hands[2] + 1])  # through the first round's third hand
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=size, run_before=run_before)


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_game_over_screen(snap_compare, make_app, size) -> None:
    async def run_before(pilot) -> None:
        await pilot.press("escape")
        await submit_all(pilot, game_lines())
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=size, run_before=run_before)


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_score_sheet(snap_compare, make_app, size) -> None:
    async def run_before(pilot) -> None:
        await pilot.press("escape")
        lines = game_lines()
        await submit_all(pilot, lines[:-1])  # three rounds and a sudden death, before the end
        await pilot.press("f3")
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=size, run_before=run_before)
