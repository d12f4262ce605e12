"""Large print read from two metres (issue 36, item 4): the score sheet (F3), the game-over
screen and who is out, at 80x24 (large print by its key, F4) and 200x50 (by the size), with five
long names."""

from __future__ import annotations

import pytest
from rich.table import Table

from assistant.tui.bigtype import big
from assistant.tui.reveal import ResultsView, ScoreSheet
from assistant.tui.screens import GameOverScreen, ScoreSheetScreen
from assistant.tui.widgets import PlayersPanel

from .conftest import OPENING, game_lines, submit_all
from .test_tui_five import FIVE, GAME_FIVE, text_of

SIZES = [(80, 24), (200, 50)]


def in_big(word: str) -> list[str]:
    """``word``'s three lines in big type, as the screen shows them."""
    return [line.plain for line in big(word)]


def shows_big(shown: str, word: str) -> bool:
    """``word`` in big type somewhere in ``shown``, its three lines one under the other."""
    lines = shown.splitlines()
    top, middle, bottom = in_big(word)
    for i, line in enumerate(lines[:-2]):
        at = line.find(top)
        while at >= 0:
            if lines[i + 1][at:at + len(middle)] == middle and lines[i + 2][at:at + len(bottom)] == bottom:
                return True
            at = line.find(top, at + 1)
    return False


async def large_print_at(pilot, size: tuple[int, int]) -> None:
    """Large print on: by its key on a small screen, by the size on a large one."""
    if size[0] < 100:
        await pilot.press("f4")
    assert pilot.app.table.large


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_score_sheet_in_large_print(make_app, size) -> None:
    """F3 had no large print: the same small sheet in a box at 200x50."""
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await pilot.press("escape")
        await large_print_at(pilot, size)
        await submit_all(pilot, game_lines(GAME_FIVE)[:-1])  # five rounds, Christopher's hand next
        await pilot.press("f3")
        await pilot.pause()
        assert isinstance(app.screen, ScoreSheetScreen) and app.screen.has_class("large")
        sheet = app.screen.query_one(ScoreSheet)
        assert isinstance(sheet.sheet, Table) and sheet.sheet.expand
        assert sheet.region.right <= size[0] and sheet.region.width >= size[0] - 10  # the width
        shown = text_of(sheet)
        header = shown.splitlines()[1]
        assert header.split() == list(FIVE)  # whole names
        # the lives left in big type under the rounds: three out, Christopher and Evangeline 1
        big_row = [line for line in shown.splitlines() if any(c in line for c in "┏┃┗╻╹━")]
        if size[1] < 50:
            assert len(big_row) == 3
            assert "LIVES" in big_row[1]
        else:  # 200x50 left the lower half empty: every round in big type too, then the lives
            assert len(big_row) == 3 * 5 + 3
            assert "LIVES" in big_row[-2]
            assert shows_big(shown, "11 5") and shows_big(shown, " 7 OUT")  # round 1, round 5
        assert shows_big(shown, "OUT") and shows_big(shown, "1")
        # every round and the big row on screen: nothing below the fold
        assert not app.screen.query_one("#more").display
        assert sheet.region.bottom <= size[1] - 1
        if size[1] >= 50:  # the rounds in big type, a blank line apart
            body = shown.splitlines()[4:23]
            assert [body[i + 1].split()[0] for i in range(0, 19, 4)] == [
                big(str(n))[1].plain.strip() for n in range(1, 6)]
            assert not any(line.strip() for line in body[3::4])


async def test_the_score_sheet_follows_large_print_switched_while_open(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, game_lines(GAME_FIVE)[:21])  # the first round
        await pilot.press("f3")
        await pilot.pause()
        assert not app.screen.has_class("large")
        assert not shows_big(text_of(app.screen.query_one(ScoreSheet)), "5")
        await pilot.press("f4")
        await pilot.pause()
        assert isinstance(app.screen, ScoreSheetScreen) and app.screen.has_class("large")
        assert shows_big(text_of(app.screen.query_one(ScoreSheet)), "5")  # Evangeline's 5 lives


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_game_over_in_large_print(make_app, size) -> None:
    """The game-over screen had no large version: the winner, the places and the sheet's
    places in big type."""
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await pilot.press("escape")
        lines = game_lines(GAME_FIVE)
        await submit_all(pilot, lines[:-1])
        await large_print_at(pilot, size)
        await submit_all(pilot, lines[-1:])
        await pilot.pause()
        assert isinstance(app.screen, GameOverScreen) and app.screen.has_class("large")
        assert shows_big(text_of(app.screen.query_one("#winner")), "EVANGELINE WINS!")
        places = text_of(app.screen.query_one("#out-order"))
        if size[1] >= 50:  # the places themselves in big type, with room for them
            assert shows_big(places, "1 EVANGELINE") and shows_big(places, "4 BARTHOLOMEW")
            assert "OUT IN ROUND 6" in places
        else:
            assert "1. Evangeline · winner" in places and "2. Christopher · out in round 6" in places
        sheet = app.screen.query_one(ScoreSheet)
        assert sheet.region.right <= size[0]
        shown = text_of(sheet)
        assert shows_big(shown, "1ST") and shows_big(shown, "2ND") and shows_big(shown, "4TH")
        place_row = next(line for line in shown.splitlines() if line.startswith("place"))
        assert place_row.split() == ["place", "4th", "4th", "2nd", "3rd", "1st"]  # and in normal type
        # nothing sideways: only more below, and it says so
        body = app.screen.query_one("#over-body")
        assert body.max_scroll_x == 0
        await pilot.pause(0.2)
        assert app.screen.query_one("#more").display


async def test_who_is_out_shows_in_big_type_at_80x24(make_app) -> None:
    """At 80x24 in large print the four losers of round 4 did not fit in big type, so nothing
    was big: "Anne-Marie is out" was only a line in the log. Who is out is in big type at the
    top (the names cut alike to fit its one line), every row of the results under it."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape")
        await pilot.press("f4")
        for line in game_lines(GAME_FIVE):
            await app.submit(line)
            game = app.view.game
            if game.rounds and game.rounds[-1].out:
                break
        await pilot.pause()
        ended = app.view.game.rounds[-1]
        assert sorted(ended.out) == ["Anne-Marie", "Bartholomew"]
        assert app.table.query_one("#view").current == "results"
        top = text_of(app.table.query_one("#big"))
        assert shows_big(top, "ANNE-MARIE OUT")  # whole names, fewer of them (not "ANN… OUT BAR… OUT")
        results = app.table.query_one(ResultsView)
        visible = text_of(results).splitlines()[: app.table.query_one("#log").region.y - results.region.y]
        lives = next(line for line in visible if line.strip().startswith("lives (lost)"))
        assert lives.count("OUT (-2)") == 2
        assert visible[-1].split()[0] == ended.majorities[-1].animal.value.upper()


async def test_large_print_key_works_on_the_game_over_screen_at_80x24(make_app) -> None:
    """Issue 36: F4 did nothing on the game-over screen (its key was switched off there),
    though the screen has a large version: now it turns it on and off."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, game_lines(GAME_FIVE))
        await pilot.pause()
        assert isinstance(app.screen, GameOverScreen) and not app.screen.has_class("large")
        normal = text_of(app.screen.query_one("#winner"))
        assert not shows_big(normal, "EVANGELINE WINS!")
        await pilot.press("f4")
        await pilot.pause()
        assert isinstance(app.screen, GameOverScreen) and app.screen.has_class("large")
        assert shows_big(text_of(app.screen.query_one("#winner")), "EVANGELINE WINS!")
        assert "SCORE SHEET" in text_of(app.screen.query_one(ScoreSheet))
        await pilot.press("f4")
        await pilot.pause()
        assert not app.screen.has_class("large")
        assert text_of(app.screen.query_one("#winner")) == normal


async def test_known_cards_are_whole_animals_in_large_print_at_80x24(make_app) -> None:
    """Issue 36: large print (F4) with the known cards (F8) at 80x24 cut every animal to three
    letters ("goa she 2x dog") though the whole names had the room."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape", "f4")
        await submit_all(pilot, game_lines(GAME_FIVE)[:30])  # round 2, Evangeline's turn
        await pilot.press("f8")
        await pilot.pause()
        panel = app.table.query_one(PlayersPanel)
        shown = text_of(panel)
        assert "goat sheep 2x dog" in shown and "giraffe mole" in shown  # Dorothea, Christopher
        assert "goa " not in shown and "…" not in shown
        assert panel.region.bottom <= app.table.query_one("#log").region.y


async def test_the_turn_mark_never_pushes_known_cards_off_at_100x30(make_app) -> None:
    """Issue 36: at 100x30 in large print with F8, "B A R T H O L O M E W ◀ TURN" was wider
    than the panel and wrapped, and the last player's known cards fell off its bottom."""
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("escape", "f8")
        await submit_all(pilot, game_lines(GAME_FIVE)[:72])  # round 4, Bartholomew's turn
        await pilot.pause()
        assert app.table.large and app.view.game.turn == "Bartholomew"
        panel = app.table.query_one(PlayersPanel)
        lines = panel.lines()
        assert all(line.cell_len <= panel.content_region.width for line in lines)
        shown = text_of(panel).splitlines()
        assert len(shown) <= panel.budget + 1  # the top padding
        last = [i for i, line in enumerate(shown) if "E V A N G E L I N E" in line]
        assert last and "in hand: bear" in "\n".join(shown[last[0]:])  # Evangeline's cards
        assert panel.region.bottom <= app.table.query_one("#log").region.y


async def test_whose_turn_is_in_big_type_at_80x24(make_app) -> None:
    """Issue 36: large print (F4) at 80x24 only set the top line in capitals: now whose turn
    it is in big type in its three lines, the top line's words on the rule over the log (the
    round and what is expected: nothing lost)."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape", "f4")
        await submit_all(pilot, game_lines(GAME_FIVE)[:30])  # round 2, Evangeline's turn
        await pilot.pause()
        top = app.table.query_one("#big")
        assert top.display and top.region.y == 0 and top.region.height == 3
        assert shows_big(text_of(top), "EVANGELINE'S TURN")
        assert not app.table.query_one("#next").display
        log = app.table.query_one("#log")
        assert "ROUND 2 · TURNS" in str(log.border_title)
        assert log.region.height >= 3  # the rule and two lines of the log
        await pilot.press("f4")  # normal print: the top line back, nothing on the rule
        await pilot.pause()
        assert app.table.query_one("#next").display and not top.display
        assert not log.border_title


async def test_at_100x30_the_losses_and_who_is_out_are_in_big_type(make_app) -> None:
    """Session 18's tester at 100x30: round 1's losses dropped to small type while the big line
    said "ROW 1", and round 5's "DOROTHEA -2" in big type never said she was out. Now the big
    line says the losses whole ("AND 3 MORE", not "+3 MORE", read as points) where the results
    have no big type of their own, and who is out is said OUT, first."""
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("escape")
        lines = iter(game_lines(GAME_FIVE))
        seen: dict[int, str] = {}
        for line in lines:
            await app.submit(line)
            game = app.view.game
            if game.rounds and len(game.rounds) not in seen:
                await pilot.pause()
                assert app.table.query_one("#view").current == "results"
                seen[len(game.rounds)] = text_of(app.table.query_one("#big")) + "\n" + \
                    text_of(app.table.query_one(ResultsView))
                if len(game.rounds) == 5:
                    break
        assert app.table.has_class("large") and not app.table.has_class("big-short")
        first = seen[1]
        assert shows_big(first, "DOROTHEA -2  AND 3 MORE") and not shows_big(first, "ROW 1")
        assert shows_big(seen[5], "DOROTHEA OUT") and not shows_big(seen[5], "DOROTHEA -2")


async def test_below_80x24_large_print_waits_for_room_and_says_why(make_app) -> None:
    """At 70x20 large print (F4) cut the fourth row off the screen: its cards take lines the
    screen does not have. Below 80x24, the smallest screen large print drops nothing on, the
    table stays in normal print (all four rows whole at 72x21) and says why; the choice holds,
    and the table is in large print once the terminal is that big."""
    from assistant.tui.widgets import CardRows

    app = make_app()
    async with app.run_test(size=(72, 21)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, OPENING)
        await pilot.press("f4")
        await pilot.pause()
        assert not app.table.large
        rows = app.table.query_one(CardRows)
        placed = app.table.find_widget(rows)
        assert placed.region.intersection(placed.clip) == placed.region, (placed.region, placed.clip)
        said = "\n".join(strip.text for strip in app.table.query_one("#log").lines)
        assert "80" in said and "24" in said and "72" in said, said
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert app.table.large
