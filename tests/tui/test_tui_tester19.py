"""What session 18's tester met playing the table as a new group would, each a test that failed
before its fix: the results after a hand taken back and typed again, ..."""

from __future__ import annotations

from .conftest import game_lines, submit_all, type_command
from .test_tui_five import GAME_FIVE


async def test_results_come_back_after_the_rounds_last_hand_is_undone_and_typed_again(make_app) -> None:
    """The results of round 1 shown, dismissed (Esc, to see the rows), the last hand taken back
    (Ctrl+Z) and typed again: the results did not come back (the round stayed dismissed). They
    come back as they did the first time."""
    lines = game_lines(GAME_FIVE)
    last_hand = lines.index("Bartholomew has 2 giraffe 2 bear 1 mole 2 goat 1 sheep 1 pig 1 mouse")
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, lines[:last_hand + 1])
        view = app.table.query_one("#view")
        assert view.current == "results"
        await pilot.press("escape")  # back to the rows
        await pilot.pause()
        assert view.current == "play"
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert view.current == "reveal"
        await type_command(pilot, lines[last_hand])
        assert len(app.view.game.rounds) == 1
        assert view.current == "results"
