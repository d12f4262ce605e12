"""A table that needs no manual: typing always lands where the cursor is, a refused line can be
corrected or its suggestion taken, the footer matches the focused widget, the score sheet and
large print have their keys. Keys are pressed as a person would; the tests poll ``app.view``
(the table the desk returned), never ``app.referee``, while commands may still be running."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from assistant.tui.reveal import HandGrid, ResultsView, ScoreSheet
from assistant.tui.screens import GameOverScreen, ScoreSheetScreen, TableScreen
from assistant.tui.widgets import CardRows, CommandInput, PlayersPanel, TableLog
from engine.deck import Animal, Cards
from engine.game import Phase

from .conftest import OPENING, game_lines, history, submit_all

#: Alice, Bob and Carol swap once, Alice knocks, the others pass: the reveal.
TO_REVEAL = [
    *OPENING,
    "alice swaps 1 dog",
    "bob swaps 1 cat",
    "carol swaps 1 dog",
    "alice knocks",
    "bob passes",
    "carol passes",
]


async def keys(pilot, text: str) -> None:
    """Type ``text`` key by key into whatever has the focus."""
    for character in text:
        await pilot.press("space" if character == " " else character)


def active_actions(app) -> set[str]:
    """The actions the footer offers now (the focused widget's and the screen's)."""
    return {binding.action for _key, (_node, binding, enabled, _tip) in
            app.screen.active_bindings.items() if enabled and binding.show}


async def test_typing_lands_in_the_command_line_from_start_to_game_over(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape")  # from the setup screen to the table
        assert isinstance(app.focused, CommandInput)
        await keys(pilot, "new game alice bob carol")
        await pilot.press("enter")
        await pilot.pause()
        assert app.view.players == ("alice", "bob", "carol")
        # Tab on the empty line types what is expected now and keeps the focus
        await pilot.press("tab")
        assert isinstance(app.focused, CommandInput) and app.command_input.value == "row 1 "
        await keys(pilot, "giraffe")
        await pilot.press("enter")
        await pilot.pause()
        assert app.view.game.rows[0] == Cards.of("giraffe")
        await pilot.press("tab", "tab", "tab")  # never to the log
        assert isinstance(app.focused, CommandInput)
        assert not app.table.query_one(TableLog).can_focus


async def test_the_grid_has_the_focus_at_the_reveal_then_the_command_line(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, TO_REVEAL)
        assert app.view.game.phase is Phase.REVEAL
        grid = app.table.query_one(HandGrid)
        assert app.focused is grid
        assert "declare" in active_actions(app)  # the footer offers the grid's Enter
        # digits go into the grid, not into the command line
        await pilot.press("3")
        assert grid.counts["alice"][Animal.GIRAFFE] == 3
        assert app.command_input.value == ""
        # Shift+Tab goes to the command line, where the footer no longer offers 'declare'
        await pilot.press("shift+tab")
        assert isinstance(app.focused, CommandInput)
        assert "declare" not in active_actions(app)
        await pilot.press("shift+tab")
        assert app.focused is grid
        await submit_all(pilot, ["alice has 3 giraffe 2 bear 5 rabbit", "bob has 1 dog 4 goat 5 sheep",
                                 "carol has 1 cat 4 mole 5 giraffe"])
        game = app.view.game
        assert game.round == 2 and game.phase is Phase.ROWS
        # the results are on show and typing goes to the command line: no Esc needed first
        assert app.table.query_one("#view").current == "results"
        assert isinstance(app.focused, CommandInput)
        await keys(pilot, "row 1 giraffe")
        await pilot.press("enter")
        await pilot.pause()
        assert app.view.game.rows[0] == Cards.of("giraffe")
        assert app.table.query_one("#view").current == "play"


async def test_after_game_over_a_new_game_types_into_the_command_line(make_app, monkeypatch) -> None:
    # A guard long enough that a loaded machine (the suite beside other work) cannot outlast
    # it between the screen's first frame and the Enter pressed "at once" below.
    monkeypatch.setattr(GameOverScreen, "ENTER_GUARD_SECONDS", 3.0)
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, game_lines())
        assert isinstance(app.screen, GameOverScreen)
        finished = app.view.game
        await pilot.press("enter")  # the last hand's Enter pressed again: nothing starts yet
        await pilot.pause()
        assert isinstance(app.screen, GameOverScreen) and app.view.game is finished
        await pilot.pause(GameOverScreen.ENTER_GUARD_SECONDS)
        await pilot.press("enter")  # asks first
        await pilot.pause(GameOverScreen.ENTER_AGAIN_AFTER_SECONDS + 0.1)
        await pilot.press("enter")  # new game, same players
        await pilot.pause()
        assert isinstance(app.screen, TableScreen) and app.view.game.round == 1
        assert isinstance(app.focused, CommandInput)
        assert "declare" not in active_actions(app)
        await keys(pilot, "row 1 giraffe")
        await pilot.press("enter")
        await pilot.pause()
        assert app.view.game.rows[0] == Cards.of("giraffe")


async def test_typing_on_the_game_over_screen_goes_to_the_command_line(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, game_lines())
        assert isinstance(app.screen, GameOverScreen)
        await keys(pilot, "undo")
        assert isinstance(app.screen, TableScreen)
        assert app.command_input.value == "undo" and isinstance(app.focused, CommandInput)
        await pilot.press("enter")
        await pilot.pause()
        assert not app.view.game.is_over  # the last hand is taken back


async def test_a_refused_line_stays_and_its_suggestion_is_taken_with_enter_or_tab(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, OPENING)
        field = app.command_input
        await keys(pilot, "alise swaps 2 cat mouse")
        await pilot.press("enter")
        await pilot.pause()
        assert field.value == "alise swaps 2 cat mouse"  # stays, to be edited
        assert app.table_log.plain[-2].endswith("Did you mean 'alice swaps 2 cat mouse'?")
        assert app.table_log.plain[-1] == "  Tab or Enter takes it."
        await pilot.press("enter")  # takes the suggestion
        await pilot.pause()
        assert app.view.game.rows[1] == Cards.of("cat", "mouse")
        assert app.table_log.plain[-2] == "› alice swaps 2 cat mouse"
        assert field.value == ""
        # 'bob passes' would be refused (no knock yet), so it is not offered: the refusal says
        # why (issue 36), and the line stays, selected: typing replaces it
        await keys(pilot, "bob pases")
        await pilot.press("enter")
        await pilot.pause()
        assert field.value == "bob pases" and "only after a knock" in app.table_log.plain[-1]
        assert "Did you mean" not in app.table_log.plain[-1]
        # Tab puts the suggestion in the line, to be checked before Enter
        await keys(pilot, "bbo swaps 2 bear dog")
        await pilot.press("enter")
        await pilot.pause()
        assert field.value == "bbo swaps 2 bear dog"
        await pilot.press("tab")
        assert field.value == "bob swaps 2 bear dog"
        await pilot.press("enter")
        await pilot.pause()
        assert app.view.game.rows[1] == Cards.of("bear", "dog")
        # a refusal without a suggestion also stays, to be corrected: End, then type
        await keys(pilot, "carol swaps 2 bear")
        await pilot.press("enter")
        await pilot.pause()
        assert field.value == "carol swaps 2 bear"
        assert app.table_log.plain[-1].startswith("✗ carol swaps 2 bear refused:")
        await pilot.press("end")
        await keys(pilot, " cat")
        await pilot.press("enter")
        await pilot.pause()
        assert app.view.game.rows[1] == Cards.of("bear", "cat")


async def test_the_new_game_question_is_a_question_not_a_refusal(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, OPENING)
        await keys(pilot, "new game ann ben cid")
        await pilot.press("enter")
        await pilot.pause()
        last = app.table_log.plain[-1]
        assert last.startswith("? new game ann ben cid: A game is under way")
        assert not any(line.startswith("✗ new game") for line in app.table_log.plain)
        assert app.command_input.value == ""  # the answer is 'yes' or 'no', typed fresh
        await keys(pilot, "yes")
        await pilot.press("enter")
        await pilot.pause()
        assert app.view.players == ("ann", "ben", "cid")


async def test_the_hint_names_the_table_and_what_is_expected(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, ["new game minji bob carol", "bob starts", "row 1 giraffe"])
        field = app.command_input
        assert field.placeholder.startswith("row 2 and its 2 animals")
        await submit_all(pilot, ["row 2 bear dog", "row 3 pig pig cat", "row 4 mole goat sheep mouse",
                                 "bob swaps 1 dog"])
        assert field.placeholder.startswith("carol swaps ROW")
        assert "alice" not in field.placeholder
        await keys(pilot, "minji s")
        await pilot.pause()
        assert field._suggestion in ("", "minji s")  # not 'minji starts' mid-round, not her turn


async def test_score_sheet_key_and_game_over_sheet(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("escape")
        lines = game_lines()
        await submit_all(pilot, lines[:40])
        game = app.view.game
        await pilot.press("f3")
        await pilot.pause()
        assert isinstance(app.screen, ScoreSheetScreen)
        sheet = app.screen.query_one(ScoreSheet)
        assert sheet.region.height >= 3 + len(game.rounds) and sheet.region.width >= 40  # on show
        text = _plain(sheet.sheet)
        for ended in game.rounds:
            assert any(line.lstrip().startswith(str(ended.round)) for line in text.splitlines())
        await pilot.press("escape")
        assert isinstance(app.screen, TableScreen)
        await submit_all(pilot, lines[40:])
        assert isinstance(app.screen, GameOverScreen)
        console_text = _plain(app.screen.query_one(ScoreSheet).sheet)
        assert "3 SD" in console_text  # the sudden death of round 3 is marked
        assert "SD: sudden death in round 3: Carol revealed all rabbits" in console_text
        place_line = next(line for line in console_text.splitlines() if line.startswith("place"))
        assert place_line.split() == ["place", "2nd", "1st", "2nd"]
        # per round: points and lives left with the lives lost, e.g. round 1
        first = next(line for line in console_text.splitlines() if line.strip().startswith("1 "))
        ended = app.view.game.rounds[0]
        for p in app.view.game.players:
            assert str(ended.points[p]) in first
            lost = ended.losses[p]
            assert (f"{ended.lives[p]} (-{lost})" if lost else str(ended.lives[p])) in first


def _plain(renderable, width: int = 120) -> str:
    """A Rich renderable as the text a terminal of ``width`` columns shows."""
    console = Console(width=width, record=True, color_system=None, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


async def test_large_print_from_100_columns_and_its_key(make_app, data_dir) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, OPENING)
        table = app.table
        rows = table.query_one(CardRows)
        assert not table.large and rows.card_width == 9
        await pilot.press("f4")
        await pilot.pause()
        assert table.large and table.has_class("large")
        await pilot.press("f4")
        assert not table.large
        assert app.view_state.large_print is None  # back to following the size
    app = make_app()
    async with app.run_test(size=(200, 50)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, OPENING)
        table = app.table
        rows = table.query_one(CardRows)
        assert table.large and rows.card_width >= 16 and rows.card_height() >= 4
        # the rows and the players use the width: no more than a quarter of it left empty
        players = table.query_one(PlayersPanel)
        assert rows.region.width + players.region.width >= 150
        text = "\n".join(line.plain for line in players.lines())
        assert "A L I C E" in text and "5 lives" in text and "◀ TURN" in text
        await pilot.press("f4")
        await pilot.pause()
        assert not table.large and 9 < rows.card_width < 16  # wider than at 80, not as large print
        assert app.view_state.large_print is False  # kept for the next run
        state_file = data_dir / "table-view.json"
        await wait_for(pilot, lambda: '"large_print": false' in (
            state_file.read_text() if state_file.exists() else ""))
    again = make_app()
    async with again.run_test(size=(200, 50)) as pilot:
        await pilot.pause()
        assert not again.table.large


async def wait_for(pilot, condition, limit: float = 10.0) -> None:
    """Poll until ``condition()`` holds (a safety limit, not a timing check)."""
    import time

    deadline = time.monotonic() + limit
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        await pilot.pause(0.05)


async def test_resume_shows_the_log_f8_and_the_grid_drafts_as_they_were(make_app, data_dir) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, TO_REVEAL)
        await pilot.press("f8")  # known cards on
        await pilot.press("3", "down", "2")  # Alice: 3 giraffes, 2 bears, not declared
        grid = app.table.query_one(HandGrid)
        assert grid.counts["alice"][Animal.BEAR] == 2
        await wait_for(pilot, lambda: (data_dir / "table-view.json").exists()
                       and '"bear": 2' in (data_dir / "table-view.json").read_text())
    again = make_app()
    async with again.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(again.screen, TableScreen)
        plain = again.table_log.plain
        # the log as it was: every command with what was said, then the greeting
        assert "› alice swaps 1 dog" in plain and "  Alice put down dog for row 1: giraffe. Bob's turn." in plain
        assert plain.index("› alice knocks") < plain.index("› carol passes")
        assert any(line.startswith("  Resuming the game of Alice, Bob and Carol") for line in plain)
        assert again.table.show_known
        grid = again.table.query_one(HandGrid)
        assert grid.counts["alice"][Animal.GIRAFFE] == 3 and grid.counts["alice"][Animal.BEAR] == 2
        assert again.focused is grid
        await submit_all(pilot, ["alice has 3 giraffe 2 bear 5 rabbit", "bob has 1 dog 4 goat 5 sheep",
                                 "carol has 1 cat 4 mole 5 giraffe"])
        assert again.view.game.round == 2
    # the next round starts from the known cards, not from last round's drafts
    third = make_app()
    async with third.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await submit_all(pilot, ["row 1 giraffe", "row 2 bear dog", "row 3 pig pig cat",
                                 "row 4 mole goat sheep mouse", "bob swaps 1 dog", "carol swaps 1 cat",
                                 "alice swaps 1 dog", "bob knocks", "carol passes", "alice passes"])
        assert third.view.game.phase is Phase.REVEAL
        assert third.table.query_one(HandGrid).counts["alice"] == {Animal.CAT: 1}


async def test_setup_offers_the_last_group_in_one_key_and_its_house_rules(make_app, data_dir) -> None:
    from assistant.tui.screens import SetupScreen

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, ["new game minji bob carol", "new game ann ben cid", "yes"])
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)  # ann ben cid unfinished: resumed
        app.open_setup()
        await pilot.pause()
        assert isinstance(app.screen, SetupScreen)
        assert app.screen.recent[:3] == ["ann", "ben", "cid"] and "minji" in app.screen.recent
        await pilot.press(*"mi")
        await pilot.pause()
        assert app.focused is app.screen.query_one("#name-3")  # the first empty name
        assert app.focused._suggestion == "minji"  # offered from recent games
        await pilot.press("ctrl+g")  # the same group: in one key
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)
        assert app.view.players == ("ann", "ben", "cid")


async def test_a_game_started_from_the_setup_form_over_an_unfinished_one_is_asked_first(make_app) -> None:
    """Issue 36: ctrl+g / ctrl+s on the setup form abandoned the game under way at once, with no
    way back; 'new game ...' typed asks. The form asks the same question, on the table."""
    from assistant.tui.screens import SetupScreen

    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, OPENING)
        played = history(app)
        app.open_setup()
        await pilot.pause()
        assert isinstance(app.screen, SetupScreen)
        await pilot.press("ctrl+g")  # the same group, a new game
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)
        assert any("A game is under way" in line for line in app.table_log.plain)
        assert history(app) == played  # nothing abandoned yet
        await submit_all(pilot, ["no"])
        assert history(app) == played  # 'no' keeps the game
        app.open_setup()
        await pilot.pause()
        await pilot.press("ctrl+g")
        await pilot.pause()
        await submit_all(pilot, ["yes"])
        assert history(app) != played and len(history(app)) < len(played)  # 'yes': a new one
        assert app.view.players == tuple(played[0].split()[2:]) or app.view.game.round == 1


async def test_setup_remembers_the_last_games_house_rules(make_app, data_dir) -> None:
    from assistant.tui.screens import SetupScreen
    from engine.rules import HouseRules

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, SetupScreen)
        await app.start_game(["ann", "ben", "cid"], HouseRules(take_first=True), False)
        await submit_all(pilot, ["ann has all cats", "ann has all pigs", "ann has all cats",
                                 "ann has all rabbits", "ann has all cats"])  # a finished game
        assert app.view.game.is_over
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, SetupScreen)  # nothing unfinished
        assert app.screen.query_one("#rule-take_first").value is True
        assert "Ann, Ben and Cid" in str(app.screen.query_one("#same-group").render())
        assert app.screen.query_one("#name-0").value == ""  # offered, not imposed
        await pilot.press("ctrl+g")
        await pilot.pause()
        assert app.view.players == ("ann", "ben", "cid") and app.view.game.rules.take_first


async def test_game_over_says_the_same_duration_as_history(make_app, data_dir) -> None:
    import json
    import sqlite3
    import subprocess
    import sys
    from datetime import datetime, timedelta
    from pathlib import Path

    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("escape")
        lines = game_lines()
        await submit_all(pilot, lines[:1])
        # the game began 170 seconds ago, as far as the store knows (the app's clock is fixed)
        with sqlite3.connect(data_dir / "lifeguard.sqlite3") as conn:
            (started,) = conn.execute("SELECT started FROM games ORDER BY id DESC").fetchone()
            earlier = (datetime.fromisoformat(started) - timedelta(seconds=170)).isoformat()
            conn.execute("UPDATE games SET started = ? WHERE started = ?", (earlier, started))
        await submit_all(pilot, lines[1:])
        assert isinstance(app.screen, GameOverScreen)
        shown = str(app.screen.query_one("#out-order").render())
    lifeguard = Path(sys.executable).with_name("lifeguard")
    history = json.loads(subprocess.run([str(lifeguard), "history", "--json"], capture_output=True,
                                        text=True, check=True).stdout)
    assert history[0]["duration_min"] == 3
    assert "duration: 3 min" in shown


def footer_words(app) -> list[str]:
    """What the footer on screen shows now: its keys' descriptions, left to right."""
    from textual.widgets import Footer
    from textual.widgets._footer import FooterKey

    footer = app.screen.query_one(Footer)
    return [key.description for key in sorted(footer.query(FooterKey), key=lambda k: k.region.x)]


async def test_the_footer_on_screen_matches_the_focused_widget_at_the_reveal(make_app) -> None:
    """The footer the players see (its key widgets, not only the bindings behind them): the
    grid's Enter while the grid has the focus, the results' Esc while they are shown, neither
    on the command line; and every key fits in 80 columns."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, TO_REVEAL)
        await wait_for(pilot, lambda: "Declare" in footer_words(app))
        assert isinstance(app.focused, HandGrid)
        assert footer_words(app)[:2] == ["Declare", "Talk"] and "Rows" not in footer_words(app)
        await pilot.press("shift+tab")
        assert isinstance(app.focused, CommandInput)
        await wait_for(pilot, lambda: "Declare" not in footer_words(app))
        assert footer_words(app)[0] == "Talk"
        await pilot.press("shift+tab")
        assert isinstance(app.focused, HandGrid)
        await wait_for(pilot, lambda: footer_words(app)[:1] == ["Declare"])
        await submit_all(pilot, ["alice has 3 giraffe 2 bear 5 rabbit", "bob has 1 dog 4 goat 5 sheep",
                                 "carol has 1 cat 4 mole 5 giraffe"])
        assert app.table.query_one("#view").current == "results"
        await wait_for(pilot, lambda: footer_words(app)[:1] == ["Rows"])
        assert "Declare" not in footer_words(app) and isinstance(app.focused, CommandInput)
        from textual.widgets._footer import FooterKey

        assert all(key.region.right <= 80 for key in app.screen.query(FooterKey))
        await pilot.press("escape")  # back to the rows: the footer no longer offers it
        await wait_for(pilot, lambda: footer_words(app)[:1] == ["Talk"])


async def test_the_footer_composes_its_keys_again_only_when_they_change(make_app) -> None:
    """The screen's bindings refreshed with the same keys (a focus change, ``refresh_bindings``)
    leave the footer's key widgets as they are (Textual's footer removed and mounted them all
    anew each time: 9 times as the table opened); keys that change are shown (the reveal's
    Declare as the grid takes the focus)."""
    from textual.widgets._footer import FooterKey

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, OPENING)
        shown, words = list(app.screen.query(FooterKey)), footer_words(app)
        for _ in range(2):
            app.screen.refresh_bindings()
            await pilot.pause()
        assert list(app.screen.query(FooterKey)) == shown and footer_words(app) == words
        await submit_all(pilot, TO_REVEAL[len(OPENING):])
        await wait_for(pilot, lambda: "Declare" in footer_words(app))
        assert footer_words(app)[:2] == ["Declare", "Talk"]


async def test_typing_in_the_command_line_lays_the_screen_out_no_more(make_app, monkeypatch) -> None:
    """Each key typed in the command line laid the whole table out again (Textual's input
    keeps its text's width in a layout reactive): 9 ms of CPU a key. Now no key does, and a
    line longer than the field still scrolls as it is typed, its end in view."""
    from textual.screen import Screen

    layouts: list[str] = []
    refresh_layout = Screen._refresh_layout

    def counted(screen, *args, **kwargs):
        layouts.append(type(screen).__name__)
        return refresh_layout(screen, *args, **kwargs)

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, OPENING)
        await pilot.pause()
        monkeypatch.setattr(Screen, "_refresh_layout", counted)
        line = "alice swaps 1 dog and then a long line of words typed on and on and on past the end of the field"
        await keys(pilot, line)
        await pilot.pause()
        field = app.command_input
        assert field.value == line
        assert layouts == []
        shown = field.render_line(0).text
        assert field.scroll_offset.x > 0 and shown.rstrip().endswith("past the end of the field")


async def test_score_sheet_at_80x24_shows_every_round_uncut(make_app) -> None:
    """F3 at 80x24: the sheet sits inside the screen and says at its own width what it says
    on a wide terminal (no column squeezed, nothing wrapped or cut); Esc closes it."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, game_lines()[:-1])  # four rounds, one a sudden death
        game = app.view.game
        await pilot.press("f3")
        await pilot.pause()
        assert isinstance(app.screen, ScoreSheetScreen)
        sheet = app.screen.query_one(ScoreSheet)
        assert sheet.region.right <= 80 and sheet.region.width >= 50
        narrow = _plain(sheet.sheet, sheet.content_region.width).splitlines()
        wide = _plain(sheet.sheet, 200).splitlines()
        def table_part(lines: list[str]) -> list[str]:  # the grid, before the notes (which wrap)
            notes = next(i for i, line in enumerate(lines) if line.startswith("SD:"))
            return [line.rstrip() for line in lines[:notes]]

        table_lines = table_part(narrow)
        assert table_lines == table_part(wide)
        assert max(len(line.rstrip()) for line in narrow) <= sheet.content_region.width
        header = " ".join(narrow[:3])
        for p in game.players:
            assert title_of(p) in header
        rounds = [line.split()[0] for line in table_lines[4:] if line.strip()]
        assert rounds == [str(r.round) for r in game.rounds]
        assert "3 SD" in "\n".join(narrow)
        await pilot.press("escape")
        assert isinstance(app.screen, TableScreen)


def title_of(name: str) -> str:
    return name[:1].upper() + name[1:]


async def test_large_print_covers_the_hand_grid_and_the_results(make_app) -> None:
    """From 100 columns the grid and the results grow too: capitals for the names,
    capitals for the animals, wider cells, a blank line under each row when there is room;
    at 80x24 they stay compact. F4 switches them with the rest."""
    app = make_app()
    async with app.run_test(size=(200, 50)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, TO_REVEAL)
        grid = app.table.query_one(HandGrid)
        assert grid.large and grid.roomy and grid.cell_padding == 2
        labels = [str(column.label) for column in grid.columns.values()]
        assert labels == ["ANIMAL", "ALICE", "BOB", "CAROL"]  # spaced, five names did not fit
        assert str(grid.get_row_at(0)[0]).strip() == "GIRAFFE"
        assert grid.region.height >= 2 * 10 + 2  # a blank line under each animal
        compact_width = grid.region.width
        await pilot.press("f4")  # large print off: the same grid, narrower cells
        await pilot.pause()
        assert not grid.large and grid.cell_padding == 1
        assert [str(column.label) for column in grid.columns.values()][1] == "Alice"
        # 50 lines: its rows spaced in normal print too (issue 36: the log took the lines)
        assert grid.region.width < compact_width and grid.roomy and grid.region.height >= 2 * 10 + 2
        await pilot.press("f4")
        await pilot.pause()
        assert grid.large
        await submit_all(pilot, ["alice has 3 giraffe 2 bear 5 rabbit", "bob has 1 dog 4 goat 5 sheep",
                                 "carol has 1 cat 4 mole 5 giraffe"])
        results = app.table.query_one(ResultsView)
        assert app.table.query_one("#view").current == "results"
        assert results.large and results.roomy
        assert results.region.width >= 120  # spread over the width, not 40 columns top-left
        built = results.build()  # the losers in big type, then the table
        assert "lives lost" in built.renderables[0].plain and len(built.renderables) >= 5
        table = built.renderables[-1]
        assert table.expand
        cells = [str(cell).strip() for cell in table.columns[0]._cells]
        # after points and lives, a blank row between rows (Rich's leading drew none: no box)
        assert cells[:5] == ["points", "", "lives (lost)", "", "GIRAFFE"]
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, TO_REVEAL)
        grid = app.table.query_one(HandGrid)
        assert not grid.large and grid.cell_padding == 1
        assert str(grid.get_row_at(0)[0]).strip() == "giraffe"


@pytest.mark.parametrize("take_first", [False, True])
async def test_a_swap_reads_in_the_rules_order_and_take_first_is_a_setup_switch(make_app, take_first) -> None:
    """The log says a swap in the order it is played; the refusal of a hand without a card
    just taken says why; with the setup screen's 'take the row first' switch on, the log says
    it the other way and the card taken may go straight back (known cards worked out to match)."""
    from textual.widgets import Switch

    from assistant.tui.screens import SetupScreen

    swaps = ["ann starts", "row 1 giraffe", "row 2 bear pig", "row 3 pig pig cat",
             "row 4 mole goat sheep mouse", "ann swaps 2 pig mouse", "ben swaps 1 dog",
             "cid swaps 1 cat", "ann knocks", "ben passes", "cid passes"]
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        assert isinstance(app.screen, SetupScreen)
        await keys(pilot, "ann")
        await pilot.press("enter")
        await keys(pilot, "ben")
        await pilot.press("enter")
        await keys(pilot, "cid")
        app.screen.query_one("#rule-take_first", Switch).value = take_first
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, TableScreen) and app.view.game.rules.take_first is take_first
        await submit_all(pilot, swaps)
        plain = app.table_log.plain
        if take_first:
            assert "  Ann took row 2: bear and pig, and put down pig and mouse. Ben's turn." in plain
            assert app.view.game.known["ann"] == Cards.of("bear")
        else:
            assert "  Ann put down pig and mouse for row 2: bear and pig. Ben's turn." in plain
            assert app.view.game.known["ann"] == Cards.of("bear", "pig")
        await submit_all(pilot, ["ann has 1 bear 4 sheep 5 dog"])  # the pig went back
        if take_first:
            assert "ann" in app.view.game.declared
        else:
            assert "ann" not in app.view.game.declared
            assert app.table_log.plain[-1].startswith("✗ ann has 1 bear 4 sheep 5 dog refused:")
            assert "puts down first, then takes the row" in app.table_log.plain[-1]


async def test_the_rules_screen_speaks_to_players_with_this_games_house_rules(make_app) -> None:
    from textual.widgets import MarkdownViewer

    from assistant.tui.screens import RulesScreen

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, ["new game minji bob carol"])
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, RulesScreen)
        source = app.screen.query_one(MarkdownViewer).document.source
        assert "minji swaps 2 bear dog" in source  # an example with a name from the table
        assert "- A swap puts down first, then takes the row." in source
        assert "must make configurable" not in source and "| situation |" not in source
        await pilot.press("escape")
        assert isinstance(app.screen, TableScreen)


async def test_nothing_is_cut_at_80x24(make_app) -> None:
    """The places the first 80x24 game found cut: the setup's placeholders, the known cards,
    the status line with a reason, the grid's hint, the line at the top."""
    from textual.widgets import Input

    from assistant.tui.screens import SetupScreen
    from assistant.tui.widgets import StatusLine

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        assert isinstance(app.screen, SetupScreen)
        for field in app.screen.query(".name").results(Input):
            assert len(field.placeholder) <= field.content_region.width, field.placeholder
        await pilot.press("escape")
        await submit_all(pilot, ["new game alice bob carol dave", "bob starts", "row 1 giraffe",
                                 "row 2 bear dog", "row 3 pig pig cat", "row 4 mole goat sheep mouse",
                                 "bob swaps 2 cat mouse", "carol swaps 4 rabbit rabbit pig giraffe",
                                 "dave swaps 1 dog", "alice swaps 3 bear bear bear"])
        await pilot.press("f8")
        await pilot.pause()
        panel = app.table.query_one(PlayersPanel)
        lines = panel.lines()
        assert all(line.cell_len <= panel.content_region.width for line in lines)
        text = " ".join(line.plain for line in lines)
        for p in app.view.players:
            for animal in app.view.game.known[p].counts():
                assert animal.value in text  # whole names, never 'gir bea'
        status = app.table.query_one(StatusLine)
        status.set_mic("unavailable", "no microphone (audio open error: device unavailable)")
        await pilot.pause()
        shown = status.text(status.content_region.width)
        assert len(shown) <= status.content_region.width and shown.count("mic:") == 1
        await submit_all(pilot, ["bob knocks", "carol passes", "dave passes", "alice passes"])
        field = app.command_input
        assert field.placeholder.startswith("the grid above, or 'alice has' and the 10 cards")
        assert len(field.placeholder) <= field.content_region.width
        top = app.table.query_one("#next")
        assert top.region.width == 80 and top.region.height >= 1
        assert len(str(top.render())) <= top.content_region.width * top.content_region.height


async def test_the_log_uses_its_whole_width_and_wraps_under_the_sentence(make_app) -> None:
    """The log's lines wrap at its own width: a long announcement is one line at 200 columns
    (not wrapped at 78 with the rest of the screen empty) and at 80x24 it wraps inside the
    log, its second line under the sentence's start; no line is wider than the log."""
    said = "  Carol put down giraffe, rabbit, rabbit and pig for row 4: mole, goat, sheep and mouse."
    lines = [*OPENING[:2], "row 1 giraffe", "row 2 bear dog", "row 3 pig pig cat",
             "row 4 mole goat sheep mouse", "alice swaps 2 cat mouse", "bob swaps 1 dog",
             "carol swaps 4 giraffe rabbit rabbit pig"]
    for size in ((200, 50), (80, 24)):
        app = make_app()
        async with app.run_test(size=size) as pilot:
            await pilot.press("escape")
            await submit_all(pilot, lines)
            log = app.table_log
            assert any(line.startswith(said) for line in log.plain)
            width = log.scrollable_content_region.width
            shown = [strip.text.rstrip() for strip in log.lines]
            assert all(len(line) <= width for line in shown)
            at = next(i for i, line in enumerate(shown) if line.startswith("  Carol put down"))
            if size == (200, 50):
                assert shown[at].startswith(said)
            else:
                assert len(shown[at]) > 70 and shown[at + 1].startswith("  ") and shown[at + 1].strip()
                assert " ".join(shown[at:at + 2]).split() == said.split() + ["Alice's", "turn."]


async def test_a_knock_with_two_players_left_says_who_has_the_last_turn(make_app) -> None:
    """Two players left (Cid and Dan went out to sudden deaths): the knock names the one last
    turn, not 'one last turn each'; the table's panel says where the two who went out finished."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, ["new game ann ben cid dan", "ann has all cats", "ann has all pigs",
                                 "ann has all cats", "ann has all rabbits", "ben has all cats",
                                 "row 1 giraffe", "row 2 bear dog", "row 3 pig pig cat",
                                 "row 4 mole goat sheep mouse", "ann swaps 1 dog", "ben swaps 1 cat"])
        assert app.view.game.alive == ("ann", "ben")
        await keys(pilot, "ann knocks")
        await pilot.press("enter")
        await pilot.pause()
        assert app.table_log.plain[-2:] == ["› ann knocks", "  Ann knocks! Ben has one last turn."]
        assert not any("each" in line for line in app.table_log.plain[-2:])
        panel = "\n".join(line.plain for line in app.table.query_one(PlayersPanel).lines())
        assert panel.count("OUT · 3rd place") == 2


async def test_typing_on_the_score_sheet_goes_on_in_the_command_line(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, OPENING)
        await pilot.press("f3")
        await pilot.pause()
        assert isinstance(app.screen, ScoreSheetScreen)
        await keys(pilot, "alice knocks")
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)
        assert app.command_input.value == "alice knocks" and isinstance(app.focused, CommandInput)
        await pilot.press("f3", "q")  # q still closes it
        await pilot.pause()
        assert isinstance(app.screen, TableScreen) and app.command_input.value == "alice knocks"


async def test_the_log_wraps_again_and_keeps_its_newest_lines_in_view(make_app) -> None:
    """RichLog keeps lines as first wrapped: narrowed, the log cut them at its edge, and after
    a change of layout (F8, a smaller terminal) its newest lines were out of view."""
    app = make_app()
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, [*OPENING, "bob swaps " + "giraffe and " * 12])  # a long refusal
        log = app.table_log
        wide = len(log.lines)
        assert all(strip.cell_length <= log.scrollable_content_region.width for strip in log.lines)
        await pilot.resize_terminal(80, 24)

        await pilot.pause()
        await pilot.pause()
        assert len(log.lines) > wide  # wrapped again at the new width
        assert all(strip.cell_length <= log.scrollable_content_region.width for strip in log.lines)
        assert log.scroll_offset.y == log.max_scroll_y  # the newest line in view
        await pilot.press("f8")
        await pilot.pause()
        await pilot.pause()
        assert log.scroll_offset.y == log.max_scroll_y


async def test_the_hint_gives_the_answer_a_question_waits_for(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, OPENING)
        assert app.command_input.placeholder.startswith("alice swaps ROW")
        await submit_all(pilot, ["new game dan eve fay"])  # a game under way: asked first
        assert app.view.question
        assert app.command_input.placeholder.startswith("yes to go ahead, no to drop it")
        await submit_all(pilot, ["no"])
        assert app.command_input.placeholder.startswith("alice swaps ROW")


async def test_large_print_on_a_small_screen_keeps_every_player_in_view(make_app) -> None:
    """F4 at 80x24 with four players: the panel closes up rather than lose the fourth player
    (whose turn it may be) below the screen's edge."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, ["new game alice bob carol dave", "dave starts", "row 1 pig",
                                 "row 2 cat dog", "row 3 bear bear mole", "row 4 goat goat sheep mouse",
                                 "dave swaps 1 cat", "alice swaps 1 dog"])
        await pilot.press("f4")
        await pilot.pause()
        panel = app.table.query_one(PlayersPanel)
        lines = [line.plain for line in panel.lines()]
        assert panel.large and panel.budget is not None and len(lines) <= panel.budget
        for name in ("A L I C E", "B O B", "C A R O L", "D A V E"):
            assert any(name in line for line in lines), (name, lines)
        shown = panel.region.y + len(lines)
        assert shown <= app.table.query_one("#log").region.y  # all above the log


async def test_after_game_over_the_table_and_setup_stay_on_top_and_enter_starts_nothing(make_app) -> None:
    """The game-over screen comes once, when the game ends: it came back after every command
    typed at game over, and after a refused start on the setup screen, and the next Enter
    (meant for the table) started a game with the old players behind it. And what is typed
    there goes whole to the command line: no letter is a key of the screen ("n" once started a
    game with the old group, "s" opened the setup screen)."""
    from assistant.tui.screens import SetupScreen

    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, game_lines())
        game_id = app.view.game_id
        assert isinstance(app.screen, GameOverScreen)
        await keys(pilot, "new game ann ben cy")
        assert isinstance(app.screen, TableScreen) and app.view.game_id == game_id
        assert app.command_input.value == "new game ann ben cy"
        app.command_input.value = ""
        await keys(pilot, "stauts")
        await pilot.press("enter")
        await pilot.pause(GameOverScreen.ENTER_GUARD_SECONDS + 0.2)
        assert isinstance(app.screen, TableScreen)
        await pilot.press("enter")  # takes the offered 'status'
        await pilot.pause()
        assert isinstance(app.screen, TableScreen) and app.view.game.is_over
        assert any(line.startswith("› status") for line in app.table_log.plain[-6:])
        app.open_setup()
        await pilot.pause()
        assert isinstance(app.screen, SetupScreen)
        app.screen.query_one("#name-3").value = "d!ve"
        await pilot.press("ctrl+s")
        await pilot.pause(GameOverScreen.ENTER_GUARD_SECONDS + 0.2)
        assert isinstance(app.screen, SetupScreen)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, SetupScreen) and app.view.game.is_over
        assert app.view.game_id == game_id  # no game was started behind the screens
