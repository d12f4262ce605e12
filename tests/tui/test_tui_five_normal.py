"""Five players with long names in normal print (issue 36): every panel uses the width it is
given on a wide screen (large print switched off), and the small screen's last rough edges (a
refusal's first line, the reveal's top line, the setup's last group) keep every name and
sentence readable."""

from __future__ import annotations

import pytest

from assistant.tui.screens import SetupScreen

from .test_tui_five import FIVE, text_of


async def test_the_setup_names_the_whole_last_group_at_80x24(make_app) -> None:
    """"Same group as last time: ..." ran past the screen's edge at 80x24 ("... Dorothea an"),
    and so did the recent names: they wrap in the screen's width, every name whole."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await app.pop_screen()
        await app.push_screen(SetupScreen(names=FIVE, recent=list(FIVE)))
        await pilot.pause()
        for wid, end in (("#same-group", "(ctrl+g starts)"), ("#recent", "(→ completes)")):
            label = app.screen.query_one(wid)
            assert label.region.right <= 80
            shown = " ".join(text_of(label).split())
            for name in FIVE:
                assert name in shown, (wid, shown)
            assert shown.endswith(end), shown
        names = app.screen.query_one("#names")
        assert names.region.y >= app.screen.query_one("#same-group").region.bottom


async def test_the_reveal_top_line_names_all_five_at_80x24(make_app) -> None:
    """At the reveal at 80x24 the top line ended "... Dorot… an…": the fifth player, the one
    people may be waiting for, was cut off. Without the round and phase (the grid shows it is
    the reveal) the five fit, cut alike (as little as fits, session 20); the grid's headings
    keep the whole names."""
    from assistant.tui.reveal import HandGrid

    from .conftest import submit_all
    from .test_tui_five import QUICK, TO_REVEAL

    app = make_app(QUICK)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, TO_REVEAL)
        top = text_of(app.table.query_one("#next")).strip()
        assert top == "Reveal hands: waiting for Anne-Ma…, Barthol…, Christo…, Dorothea and Evangel…."
        grid = app.table.query_one(HandGrid)
        assert [str(c.label) for c in grid.columns.values()][1:] == list(FIVE)
        assert grid.region.right <= 80
        # two declared: the names whole, before the round (session 20: "Chris…" kept the round)
        await submit_all(pilot, ["Anne-Marie has 8 giraffe 2 mouse", "Bartholomew has 5 pig 5 rabbit"])
        top = text_of(app.table.query_one("#next")).strip()
        assert top == "Reveal hands: waiting for Christopher, Dorothea and Evangeline."


def log_text(log) -> str:
    """The log's lines on show as one line of words, without its top border and scroll bar."""
    lines = text_of(log).splitlines()[1:]
    return " ".join(" ".join(line.rstrip(" ▁▃▅▇█▔") for line in lines).split())


async def test_a_refused_hand_keeps_its_first_sentence_in_view_at_80x24(make_app) -> None:
    """At the reveal at 80x24 the log has three lines, and a refused hand's refusal took five:
    its first sentence, the reason, scrolled out above them. Now a refusal taller than the log
    is shown from its first line; the next command's announcements end in view as before."""
    from .conftest import game_lines, submit_all
    from .test_tui_five import GAME_FIVE

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, game_lines(GAME_FIVE)[:18])  # two hands declared
        await submit_all(pilot, ["Bartholomew has 2 giraffe 2 bear 2 goat 1 sheep 1 pig 1 dog 1 rabbit"])
        await pilot.pause(0.1)
        log = app.table.query_one("#log")
        assert log.scrollable_content_region.height <= 4
        refusal = app.table_log.plain[-1]
        assert refusal.startswith("✗ Bartholomew has") and " A swap puts down first" in refusal
        shown = log_text(log)
        assert shown.startswith("✗ Bartholomew has 2 giraffe")
        assert "took a mole and a mouse from the rows, so Bartholomew's hand must hold them." in shown
        app.command_input.focus()
        await pilot.press("pagedown")  # the command line's PageDown scrolls the log
        await pilot.pause(0.1)
        shown = log_text(log)
        assert "allows the other order)." in shown  # the rest a PageDown away
        await submit_all(pilot, ["Bartholomew has 2 giraffe 2 bear 1 mole 2 goat 1 sheep 1 pig 1 mouse"])
        await pilot.pause(0.1)
        assert log_text(log).endswith("Waiting for Christopher and Dorothea.")


NORMAL_SIZES = [(200, 50), (160, 48), (120, 40)]
normal_sizes = pytest.mark.parametrize("size", NORMAL_SIZES, ids=lambda s: f"{s[0]}x{s[1]}")


async def normal_print(pilot, lines: list[str], known: bool = False) -> None:
    """The game played to ``lines`` in normal print (F4 switches large print off: these
    screens are large print by their size), F8 for the known cards."""
    from .conftest import submit_all

    await pilot.press("escape")
    await submit_all(pilot, lines)
    await pilot.press("f4", *(["f8"] if known else []))
    await pilot.pause()
    assert not pilot.app.table.has_class("large")


@normal_sizes
async def test_normal_print_players_take_a_line_each_across_the_panel(make_app, size) -> None:
    """Normal print at 200x50 left the right 110 columns beside the board empty: the players
    took two lines each in 40 of the panel's 150 cells. Now a line each, in columns (name,
    hearts, lives in words, marks, known cards), a blank line between, and wider cards."""
    from assistant.tui.widgets import CardRows, PlayersPanel

    from .conftest import game_lines
    from .test_tui_five import GAME_FIVE

    app = make_app()
    async with app.run_test(size=size) as pilot:
        await normal_print(pilot, game_lines(GAME_FIVE)[:30])  # round 2
        panel = app.table.query_one(PlayersPanel)
        game = app.view.game

        def players() -> list[tuple[int, str]]:
            shown = text_of(panel).splitlines()
            return [(i, line) for i, line in enumerate(shown) if "♥" in line or "♡" in line]

        assert len(players()) == 5
        for name, (_, line) in zip(FIVE, players(), strict=True):
            assert name in line and f"{game.lives[name]} lives" in line and "swapped" in line
        assert len({line.index("♥") for _, line in players()}) == 1  # in columns
        at = [i for i, _ in players()]
        assert {b - a for a, b in zip(at, at[1:], strict=False)} == {2}  # a blank line between
        rows = app.table.query_one(CardRows)
        if size[0] == 200:
            assert rows.card_width == 14 and rows.region.width >= 60
            assert panel.region.x + max(len(line.rstrip()) for _, line in players()) > 110
        await pilot.press("f8")  # the known cards beside the marks where they fit whole
        await pilot.pause()
        lines = players()
        assert len(lines) == 5
        if size[0] >= 160:
            assert all("in hand:" in line for _, line in lines)
            right = panel.region.x + max(len(line.rstrip()) for _, line in lines)
            assert (size[0] == 160 or right > 130) and right <= size[0]
        else:  # under the names, in two lines a player, as on a smaller screen
            assert not any("in hand:" in line for _, line in lines)
            assert text_of(panel).count("in hand:") == 5


@normal_sizes
async def test_normal_print_spreads_the_grid_and_the_results(make_app, size) -> None:
    """Normal print at 200x50: the hand grid took 70 columns and the results 110 of 198.
    Now the grid takes half the width (the checks the rest); the results spread (at 120
    columns) but, from 160 (session 18's tester: 29 cells apart at 200), their columns kept
    together, at most ``NORMAL_COLUMN_WIDEST`` cells apart."""
    from assistant.tui.reveal import (
        NORMAL_CENTRED_FROM,
        NORMAL_COLUMN_WIDEST,
        HandGrid,
        ResultsView,
    )

    from .conftest import game_lines, submit_all
    from .test_tui_five import GAME_FIVE

    app = make_app()
    async with app.run_test(size=size) as pilot:
        lines = game_lines(GAME_FIVE)
        await normal_print(pilot, lines[:18])  # two hands declared
        grid = app.table.query_one(HandGrid)
        room = size[0] - 2
        assert grid.region.width >= room // 2 - 3
        checks = app.table.query_one("#checks")
        assert checks.region.x >= grid.region.right and checks.region.right <= size[0]
        headings = [str(c.label) for c in grid.columns.values()][1:]
        assert headings == list(FIVE)
        await submit_all(pilot, lines[18:21])  # the round scored
        await pilot.pause()
        results = app.table.query_one(ResultsView)
        shown = text_of(results).splitlines()
        header = next(line for line in shown if line.strip().startswith("animal"))
        assert header.split()[1:6] == list(FIVE)
        middles = [2 * header.index(name) + len(name) for name in FIVE]  # twice each name's middle
        apart = {(b - a) // 2 for a, b in zip(middles, middles[1:], strict=False)}
        if size[0] >= NORMAL_CENTRED_FROM:
            assert max(apart) <= NORMAL_COLUMN_WIDEST + 2, header  # kept together (29 apart at 200)
        else:
            assert len(header.rstrip()) >= room * 4 // 5  # across the width
        mouse = next(line for line in shown if line.strip().startswith("mouse"))
        assert "Christopher +3" in mouse


#: The log's lines in normal print (its rule not counted) in the rows, the hand grid and the
#: results, by screen: at 200x50 they were 27, 31 and 29 of 50 (160x48: 25, 29, 27), the
#: cards three lines high and the rows packed; 120x40 and 80x24 as they were.
LOG_LINES = {(200, 50): (19, 21, 18), (160, 48): (17, 19, 16), (120, 40): (17, 21, 19),
             (80, 24): (5, 3, 3)}


@pytest.mark.parametrize("size", list(LOG_LINES), ids=lambda s: f"{s[0]}x{s[1]}")
async def test_normal_print_leaves_the_log_its_share_and_gives_the_table_the_rest(make_app, size) -> None:
    """Issue 36's tester: at 200x50 in normal print the log took about 26 of 50 lines, the
    rows and players the rest. On a tall screen the cards grow to five lines and the grid's
    and the results' rows are spaced, until the log keeps ``NORMAL_LOG_LINES``; every row of
    each view stays on screen."""
    from assistant.tui.reveal import HandGrid, ResultsView
    from assistant.tui.widgets import CardRows, TableLog

    from .conftest import submit_all
    from .test_tui_five import HANDS, QUICK, TO_REVEAL

    app = make_app(QUICK)
    async with app.run_test(size=size) as pilot:
        await pilot.press("escape")
        if app.table.large:
            await pilot.press("f4")
        await submit_all(pilot, TO_REVEAL[:6])
        assert not app.table.large
        log = app.table.query_one(TableLog)
        rows = app.table.query_one(CardRows)
        seen = [log.region.height - 1]
        assert rows.region.bottom <= log.region.y
        if size[1] >= 48:
            assert rows.height_per_card == 5
        await submit_all(pilot, TO_REVEAL[6:])
        await pilot.pause()
        grid = app.table.query_one(HandGrid)
        seen.append(log.region.height - 1)
        assert grid.region.bottom <= log.region.y or grid.region.y + 13 <= log.region.y
        assert grid.roomy == (size[1] >= 48)
        await submit_all(pilot, [f"{p} has {HANDS[p]}" for p in FIVE])
        await pilot.pause()
        results = app.table.query_one(ResultsView)
        seen.append(log.region.height - 1)
        shown = text_of(results).splitlines()
        assert (shown[3].strip() == "") == (size[1] >= 48)  # a blank line between rows
        assert tuple(seen) == LOG_LINES[size]


async def test_normal_print_at_200x50_keeps_the_rows_and_players_in_the_middle(make_app) -> None:
    """Session 18's tester: at 200x50 in normal print columns 115 to 200 of the upper part
    were empty, the rows at the left edge. The rows and the players are centred together."""
    from assistant.tui.widgets import CardRows, PlayersPanel

    from .conftest import game_lines
    from .test_tui_five import GAME_FIVE

    app = make_app()
    async with app.run_test(size=(200, 50)) as pilot:
        await normal_print(pilot, game_lines(GAME_FIVE)[:30])  # round 2
        rows, panel = app.table.query_one(CardRows), app.table.query_one(PlayersPanel)
        shown = [line.rstrip() for line in text_of(panel).splitlines()]
        right = panel.region.x + max(len(line) for line in shown)
        assert rows.region.x >= 15 and right >= 140  # were 1 and 115
