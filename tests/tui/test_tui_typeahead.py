"""Typing ahead: keys typed faster than the table answers (as it opens, while a command is
stored) are all taken, in the order typed, on the widget they were typed into.

The keys are posted to the app all at once, without waiting for any of them, which is what a
busy event loop sees when a person types on: before, Enter was run when it had bubbled back up
to the app, after the command line had taken the letters typed after it, so two lines merged
into one refused line ("alice swaps 1 doggbob swaps 1 cat"), and an Enter meant for the command
line declared a hand when the reveal's grid took the focus meanwhile."""

from __future__ import annotations

from textual import events

from assistant.config import Settings
from assistant.tui.reveal import HandGrid
from engine.game import Phase
from engine.rules import HouseRules

from .conftest import OPENING, history, submit_all


def keys_for(text: str) -> list[events.Key]:
    """The key events a terminal sends for ``text``: a newline is Enter, '\b' is Backspace."""
    out = []
    for character in text:
        if character == "\n":
            out.append(events.Key("enter", "\r"))
        elif character == "\b":
            out.append(events.Key("backspace", "\x7f"))
        elif character == " ":
            out.append(events.Key("space", " "))
        else:
            out.append(events.Key(character, character))
    return out


async def type_at_once(pilot, text: str) -> None:
    """Every key of ``text`` posted to the app at once, then wait until all are answered."""
    for key in keys_for(text):
        pilot.app.post_message(key)
    for _ in range(40):
        await pilot.pause(0.05)
        await pilot.app.workers.wait_for_complete()


async def test_lines_typed_at_once_are_each_taken_in_order(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("escape")  # the setup screen
        await submit_all(pilot, OPENING)
        # a typo taken back with Backspace, and three lines with no pause between them
        await type_at_once(pilot, "alice swaps 1 dogg\b\nbob swaps 1 cat\ncarol swaps 1 dog\n")
        assert history(app)[-3:] == ["alice swaps 1 dog", "bob swaps 1 cat", "carol swaps 1 dog"]
        assert not any("refused" in line for line in app.table_log.plain)
        assert app.command_input.value == ""


async def test_a_line_typed_as_the_reveal_begins_is_sent_not_a_hand_declared(make_app) -> None:
    app = make_app(Settings(rules=HouseRules(knock_requires_swap=False)))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, OPENING)
        # the last pass starts the reveal (the grid takes the focus) while 'status' is typed
        await type_at_once(pilot, "alice knocks\nbob passes\ncarol passes\nstatus\n")
        assert app.view.game.phase is Phase.REVEAL
        assert history(app)[-3:] == ["alice knocks", "bob passes", "carol passes"]
        assert app.view.game.declared == {}  # no hand declared by the Enter after 'status'
        assert "› status" in app.table_log.plain
        assert app.focused is app.table.query_one(HandGrid)  # the grid's turn after that line


async def test_an_enter_sent_as_a_newline_while_the_table_opens_sends_the_line(make_app) -> None:
    """Typed before the app has taken the terminal, Enter arrives as a newline (ctrl+j)."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, OPENING)
        for key in [*keys_for("alice swaps 1 dog"), events.Key("ctrl+j", "\n"), *keys_for("status\n")]:
            app.post_message(key)
        await type_at_once(pilot, "")
        assert history(app)[-1] == "alice swaps 1 dog"
        assert "› status" in app.table_log.plain


async def test_the_command_line_has_the_focus_from_the_first_frame(make_app) -> None:
    """Keys typed as the table opens go to the command line, not to the hidden hand grid."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, OPENING)
    resumed = make_app()
    async with resumed.run_test(size=(120, 40)) as pilot:
        assert resumed.focused is resumed.command_input
        await type_at_once(pilot, "alice swaps 1 dog\nbob swaps 1 cat\n")
        assert history(resumed)[-2:] == ["alice swaps 1 dog", "bob swaps 1 cat"]


FIVE = ["Anne-Marie", "Bartholomew", "Christopher", "Dorothea", "Evangeline"]


async def test_names_typed_at_once_on_the_setup_form_each_take_their_field(make_app) -> None:
    """Issue 36: five names typed as the table opened merged ("Anne-MarieBa", "Rtholomew"):
    Enter moved the focus only after the next letters had gone into the old field."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await type_at_once(pilot, "".join(f"{name}\n" for name in FIVE))
        assert app.view.game is not None
        assert list(app.view.game.players) == FIVE


async def test_names_typed_at_once_stop_on_a_refused_name_and_go_on_after_it(make_app) -> None:
    """A refused name keeps the keys typed after it: they type over it, in order."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await type_at_once(pilot, "Ann\nAnn\nBen\nCy\n\n")
        assert app.view.game is not None
        assert list(app.view.game.players) == ["Ann", "Ben", "Cy"]


async def test_a_refused_line_comes_back_only_if_nothing_was_sent_after_it(make_app) -> None:
    """Issue 36: a refused line came back into the command line, selected, after a later line
    had been accepted, so the next Enter would send it again."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, OPENING)
        await type_at_once(pilot, "bob passes\nalice swaps 1 dog\n")
        assert history(app)[-1] == "alice swaps 1 dog"
        assert app.command_input.value == ""  # not 'bob passes' again
        await type_at_once(pilot, "carol passes\n")  # alone, a refused line stays to be edited
        assert app.command_input.value == "carol passes"
