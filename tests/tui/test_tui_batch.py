"""Lines submitted as a batch (``LifeguardApp.submit_lines``, what the table tests play their
games through) publish the table's view once, at the end, and leave the same screen as the same
lines submitted one at a time, as Enter submits them: the log, the rows, the players, the hand
grid, the round's results and the game-over screen, and the same widget focused."""

from __future__ import annotations

from pathlib import Path

from assistant.config import Settings
from assistant.tui.app import LifeguardApp
from assistant.tui.screens import TableScreen

from .conftest import game_lines, settle
from .test_tui_five import GAME_FIVE

#: Where the five-player game is cut: the reveal with two hands declared (the hand grid), the
#: first round's results, the next round's rows, and the game's end (the game-over screen).
CUTS = (18, 21, 30, None)


def app_in(directory: Path) -> LifeguardApp:
    """The table as ``make_app`` builds it, with its own store in ``directory``."""
    directory.mkdir()
    return LifeguardApp(Settings(), data_dir=directory, seed=0, voice=False,
                        clock=lambda: 1_000_000.0, data_label="$LIFEGUARD_DATA_DIR/lifeguard.sqlite")


async def screens_line_by_line(directory: Path, lines: list[str]) -> list[tuple[str, str, str]]:
    """At each cut: the screen drawn, the screen on top and the focused widget, the lines
    submitted one at a time with the app's queue run after each (as Enter does)."""
    app = app_in(directory)
    shown = []
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape")
        done = 0
        for cut in CUTS:
            for line in lines[done:cut]:
                await app.submit(line)
                await pilot.pause()
            done = len(lines) if cut is None else cut
            await settle(pilot)
            shown.append((app.export_screenshot(), type(app.screen).__name__, repr(app.focused)))
    return shown


async def test_a_batch_ends_with_the_screen_the_lines_one_by_one_leave(data_dir: Path) -> None:
    lines = game_lines(GAME_FIVE)
    expected = await screens_line_by_line(data_dir / "one-by-one", lines)
    app = app_in(data_dir / "batch")
    published: list[object] = []
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape")
        table = app.get_screen_by_type(TableScreen)
        drawn = table.show_view

        def show_view() -> None:
            published.append(app.view)
            drawn()

        table.show_view = show_view  # type: ignore[method-assign]
        done = 0
        for cut, screen in zip(CUTS, expected, strict=True):
            published.clear()
            batch = lines[done:cut]
            replies = await app.submit_lines(batch)
            assert all(reply is not None and reply.ok for reply in replies)
            assert published == [app.view]  # drawn once, the last line's table
            done = len(lines) if cut is None else cut
            await settle(pilot)
            assert (app.export_screenshot(), type(app.screen).__name__, repr(app.focused)) == screen
    assert expected[-1][1] == "GameOverScreen" and expected[0][2] != expected[1][2]
