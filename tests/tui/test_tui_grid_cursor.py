"""The hand grid at the reveal, as a person at the table uses it: the cursor follows the players
still to declare (a usability test typed Ann's count into Ben's column), a digit on a declared
hand says why it changes nothing, and the checks beside the grid are read whole, not cut off at
the screen's edge."""

from __future__ import annotations

import pytest
from textual.coordinate import Coordinate
from textual.geometry import Region

from assistant.config import Settings
from assistant.tui.reveal import HandGrid
from engine.deck import ANIMALS, Animal
from engine.game import Phase
from engine.rules import HouseRules

from .conftest import play, submit_all, type_command

#: Five players; the start player may knock at once, so a round is rows, a knock and passes.
QUICK = Settings(rules=HouseRules(knock_requires_swap=False))
PLAYERS = ("ann", "ben", "cy", "dee", "eve")
ROWS = ["row 1 giraffe", "row 2 bear bear", "row 3 mole mole mole", "row 4 goat goat goat goat"]
#: With those rows face up, five hands that hold the rest of the deck (nobody swapped).
HANDS = {
    "ann": "8 giraffe 2 mouse",
    "ben": "5 pig 5 rabbit",
    "cy": "6 bear 4 cat",
    "dee": "4 mole 6 dog",
    "eve": "3 goat 6 sheep 1 mouse",
}


def to_reveal(starter: str) -> list[str]:
    """The rows, ``starter`` knocks and everyone else passes, in turn order."""
    i = PLAYERS.index(starter)
    others = PLAYERS[i + 1:] + PLAYERS[:i]
    return [*ROWS, f"{starter} knocks", *[f"{p} passes" for p in others]]


def under_cursor(grid: HandGrid) -> tuple[str, Animal]:
    row, column = grid.cursor_coordinate
    return grid.players[column - 1], ANIMALS[row]


async def test_the_cursor_follows_the_players_still_to_declare(make_app) -> None:
    app = make_app(QUICK)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("escape")
        await play(pilot, [f"new game {' '.join(PLAYERS)}", "ann starts", *to_reveal("ann")])
        assert app.view.game.phase is Phase.REVEAL
        grid = app.table.query_one(HandGrid)
        assert app.focused is grid
        assert under_cursor(grid) == ("ann", Animal.GIRAFFE)
        # Ann's hand on the grid: 8 giraffes, down to the mice, 2 mice, Enter
        await pilot.press("8", *["down"] * 9, "2", "enter")
        await pilot.pause()
        assert "ann" in app.view.game.declared
        # on to Ben, on his first row (issue 36: it stayed on the mice)
        assert under_cursor(grid) == ("ben", Animal.GIRAFFE)
        await pilot.press(*["down"] * 6, "5", "down", "5", "enter")  # Ben: 5 rabbits, 5 pigs
        await pilot.pause()
        assert dict(app.view.game.declared["ben"].counts()) == {Animal.RABBIT: 5, Animal.PIG: 5}
        assert under_cursor(grid) == ("cy", Animal.GIRAFFE)
        # A digit on Ben's declared hand changes nothing, and says why
        await pilot.press("left", "4")
        await pilot.pause()
        assert grid.counts["ben"] == {Animal.RABBIT: 5, Animal.PIG: 5}
        warnings = [n.message for n in app._notifications]
        assert any("Ben has declared already" in m and "Cy, Dee and Eve" in m for m in warnings), warnings
        # A hand typed in the command line moves the cursor on too
        await type_command(pilot, f"cy has {HANDS['cy']}")
        assert under_cursor(grid) == ("dee", Animal.GIRAFFE)
        await type_command(pilot, f"dee has {HANDS['dee']}")
        assert under_cursor(grid) == ("eve", Animal.GIRAFFE)
        await type_command(pilot, f"eve has {HANDS['eve']}")
        game = app.view.game
        assert game.round == 2 and game.phase is Phase.ROWS and game.alive == PLAYERS
        # The next reveal starts on the first player it waits for, on the first row
        await play(pilot, to_reveal(game.turn or "ben"))
        assert app.view.game.phase is Phase.REVEAL
        assert app.view.game.waiting_to_declare()[0] == "ann"
        assert under_cursor(grid) == ("ann", Animal.GIRAFFE)
        grid.focus()
        await pilot.press("3")  # the tester's key: Ann's count, nobody else's
        assert grid.counts["ann"] == {Animal.GIRAFFE: 3}
        assert all(not grid.counts[p] for p in PLAYERS[1:])


@pytest.mark.parametrize("size", [(80, 24), (100, 30)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("players", [3, 4, 5])
async def test_the_checks_are_read_whole_beside_the_grid(make_app, size, players) -> None:
    app = make_app(QUICK)
    async with app.run_test(size=size) as pilot:
        await pilot.press("escape")
        group = PLAYERS[:players]
        await submit_all(pilot, [f"new game {' '.join(group)}", "ann starts", *ROWS, "ann knocks",
                                 *[f"{p} passes" for p in group[1:]]])
        grid = app.table.query_one(HandGrid)
        grid.focus()
        await pilot.pause()
        # Ann ready, 4 mice in Ann's and Ben's columns: a ready line and a deck line
        grid.cursor_coordinate = Coordinate(0, 1)
        await pilot.press("8", *["down"] * 9, "2", "right", "2")
        await pilot.pause()
        checks = app.table.query_one("#checks")
        region = checks.region
        assert region.right <= app.table.query_one("#main").content_region.right
        shown = " ".join(strip.text for strip in checks.render_lines(Region(0, 0, region.width,
                                                                             region.height)))
        shown = " ".join(shown.split())
        # beside the grid, a line per player; under a grid too wide for them, the player under
        # the cursor (Ben) in full and the others in short
        stacked = app.table.query_one("#reveal").has_class("stacked")
        ready = "Ann ready ·" if stacked else "Ann: 10 cards, ready: Enter declares."
        for line in (ready, "Deck: 4 mice on the table and in hands, the deck holds 3."):
            assert line in shown
        if stacked:
            assert "Ben: 2 of 10 cards." in shown
            assert checks.region.y >= grid.region.bottom  # under the grid
        else:
            assert checks.region.width >= 24


@pytest.mark.parametrize("players", [3, 5])
async def test_large_print_spreads_the_grid_over_three_fifths_of_a_wide_screen(make_app, players) -> None:
    """Issue 36: at 200x50 in large print the grid took a quarter of the width, its columns as
    narrow as at 100 columns; the players' columns now widen evenly, the checks beside them."""
    app = make_app(QUICK)
    async with app.run_test(size=(200, 50)) as pilot:
        await pilot.press("escape")
        group = PLAYERS[:players]
        await submit_all(pilot, [f"new game {' '.join(group)}", "ann starts", *ROWS, "ann knocks",
                                 *[f"{p} passes" for p in group[1:]]])
        await pilot.pause()
        grid = app.table.query_one(HandGrid)
        assert grid.large
        room = app.size.width - 2
        assert grid.region.width >= room * 3 // 5 - 2
        widths = [grid.columns[p].get_render_width(grid) for p in group]  # type: ignore[index]
        assert max(widths) - min(widths) <= 1
        assert min(widths) >= 16  # "10/10 ok" and its padding was the natural width: 12
        checks = app.table.query_one("#checks")
        assert checks.region.x >= grid.region.right and checks.region.width >= 24
    narrow = make_app(QUICK)
    async with narrow.run_test(size=(80, 24)) as pilot:  # small print: as wide as its cells
        await pilot.press("escape")
        await submit_all(pilot, ["new game ann ben cy", "ann starts", *ROWS, "ann knocks",
                                 "ben passes", "cy passes"])
        await pilot.pause()
        assert narrow.table.query_one(HandGrid).spread is None
