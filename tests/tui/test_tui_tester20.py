"""What session 20's tester met playing the table as a new group would (English and German,
80x24 to 200x50), each a test that failed before its fix."""

from __future__ import annotations

from .conftest import game_lines, submit_all
from .test_tui_five import GAME_FIVE, text_of

#: The five long names of ``GAME_FIVE`` and shorter ones, as the tester's group had.
SHORTER = dict(zip(("Anne-Marie", "Bartholomew", "Christopher", "Dorothea", "Evangeline"),
                   ("Alexandra", "Benedikt", "Charlotte", "Dan", "Emilia"), strict=True))


def game_of_shorter_names() -> list[str]:
    lines = game_lines(GAME_FIVE)
    for long, short in SHORTER.items():
        lines = [line.replace(long, short) for line in lines]
    return lines


async def test_large_print_results_keep_names_that_fit_whole_at_80x24(make_app) -> None:
    """At 80x24 in large print the results cut "Alexandra" to "Alexa…" (and "Dan" had eight
    cells): the columns were measured as at least eight cells and the majority a name and four
    wide, and spread evenly. The names go in whole, each column as wide as its cells."""
    from assistant.tui.reveal import ResultsView

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape", "f4")
        await submit_all(pilot, game_of_shorter_names()[:21])  # the first round's results
        await pilot.pause()
        results = app.table.query_one(ResultsView)
        shown = text_of(results)
        assert "…" not in shown, shown
        heading = next(line for line in shown.splitlines() if "Alexandra" in line)
        assert heading.split()[-6:] == ["Alexandra", "Benedikt", "Charlotte", "Dan", "Emilia", "majority"]
        assert "Alexandra +6" in shown and "Benedikt +7" in shown


async def test_large_print_results_show_every_animal_row_at_100x30(make_app) -> None:
    """At 100x30 in large print round 3's four losers took three lines of big type and the
    results showed a single animal row under them (GIRAFFE, a tie): who scored was off the
    screen. The losses go in normal type when big type would push rows off."""
    from assistant.tui.reveal import ResultsView

    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("escape")
        assert app.table.large
        lines = game_of_shorter_names()
        await submit_all(pilot, lines[:lines.index("Dan has 2 giraffe 2 bear 2 goat 2 sheep 1 cat 1 mouse") + 1])
        await pilot.pause()
        ended = app.view.game.rounds[-1]
        assert ended.round == 3 and len(ended.majorities) == 10
        results = app.table.query_one(ResultsView)
        room = app.table.query_one("#log").region.y - results.region.y
        visible = text_of(results).splitlines()[:room]
        assert visible[-1].split()[0] == "MOUSE", visible  # the last animal's row on screen
        said = "\n".join(visible)
        assert "Alexandra -2" in said and "Emilia -1" in said  # the losses, in normal type
