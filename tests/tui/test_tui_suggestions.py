"""A refused line's suggestion at the table, by keys as a person presses them: Tab or Enter takes
only the line typed with its misspelt words corrected (its cards and names kept); a made-up
example is shown, never taken; Tab with nothing to take leaves the refused line selected."""

from __future__ import annotations

import re

from textual.widgets.input import Selection

from assistant.tui.screens import SetupScreen
from engine.deck import Cards
from tests.engine.tables import public

from .conftest import OPENING, history, submit_all

TAKE = "Tab or Enter takes it."


async def keys(pilot, text: str) -> None:
    """Type ``text`` key by key into whatever has the focus."""
    for character in text:
        await pilot.press("space" if character == " " else character)


def offered(app) -> str | None:
    """The line the log's last refusal offers to Tab or Enter, or None."""
    refusal, note = app.table_log.plain[-2:]
    found = re.search(r"Did you mean '(.*)'\?$", refusal)
    return found.group(1) if found and note == f"  {TAKE}" else None


async def enter(pilot, text: str) -> None:
    await keys(pilot, text)
    await pilot.press("enter")
    await pilot.pause()


async def test_enter_takes_the_corrected_line_with_the_cards_typed_not_made_up_ones(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, [*OPENING, "alice swaps 2 cat mouse"])
        field = app.command_input
        before = history(app)
        await enter(pilot, "bob swop 2 pig sheep")
        assert field.value == "bob swop 2 pig sheep" and history(app) == before
        assert offered(app) == "bob swaps 2 pig sheep"
        await pilot.press("enter")  # takes it
        await pilot.pause()
        assert history(app) == [*before, "bob swaps 2 sheep pig"]
        assert app.view.game.rows[1] == Cards.of("pig", "sheep")  # Bob's cards, not 'bear dog'


async def test_a_made_up_example_is_shown_but_enter_does_not_apply_it(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, OPENING)
        field = app.command_input
        before = public(app.view.game)
        await enter(pilot, "alice swaps")
        last = app.table_log.plain[-1]
        assert last.startswith("✗ alice swaps refused:") and "e.g. 'alice swaps 2 bear dog'" in last
        assert not any(TAKE in line for line in app.table_log.plain)
        await pilot.press("enter")  # the refused line again, not the example
        await pilot.pause()
        await pilot.press("tab")
        await pilot.press("enter")
        await pilot.pause()
        assert field.value == "alice swaps"
        assert public(app.view.game) == before  # no 'bear dog' Alice never named


async def test_new_game_typo_keeps_the_names_typed(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        assert isinstance(app.screen, SetupScreen)
        await pilot.press("escape")
        await enter(pilot, "ew game ann ben cy")
        assert offered(app) == "new game ann ben cy"
        await pilot.press("enter")
        await pilot.pause()
        assert app.view.players == ("ann", "ben", "cy")


async def test_tab_takes_a_misspelt_animal_or_player_as_the_whole_corrected_line(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, OPENING[:3])
        field = app.command_input
        await enter(pilot, "row 2 baer dog")
        assert offered(app) == "row 2 bear dog"
        await pilot.press("tab")
        assert field.value == "row 2 bear dog"  # in the line, to be checked before Enter
        await pilot.press("enter")
        await pilot.pause()
        assert app.view.game.rows[1] == Cards.of("bear", "dog")
        await submit_all(pilot, OPENING[4:])
        await enter(pilot, "alcie swaps 1 dog")
        assert offered(app) == "alice swaps 1 dog"
        await pilot.press("enter")
        await pilot.pause()
        assert history(app)[-1] == "alice swaps 1 dog"


async def test_tab_with_nothing_to_take_leaves_the_refused_line_selected(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, OPENING[:3])
        field = app.command_input
        await enter(pilot, "florp the pig")  # refused, with no suggestion to take
        assert field.value == "florp the pig"
        await pilot.press("tab")
        assert field.value == "florp the pig"
        assert field.selection == Selection(0, len("florp the pig"))
        await enter(pilot, "row 2 bear dog")  # replaces the refused line, not added to it
        assert app.view.game.rows[1] == Cards.of("bear", "dog")
        assert history(app)[-1] == "row 2 bear dog"
