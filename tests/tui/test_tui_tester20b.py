"""What session 20's tester met a second time at the table (game over's Enter, results at
80x24, German words), each a test that failed before its fix."""

from __future__ import annotations

import asyncio

import pytest

from .conftest import submit_all
from .test_tui_flow import wait_for
from .test_tui_tester20 import game_of_shorter_names


def arrive_together(app, *keys: str) -> None:
    """``keys`` into the app's queue at once, as a terminal reads a line sent in one write
    (``pilot.press`` waits for each key to be handled)."""
    from textual.events import Key

    for key in keys:
        app.post_message(Key(key, key if len(key) == 1 else None))


async def _at_game_over_asked(pilot, app) -> None:
    from assistant.tui.screens import GameOverScreen

    await pilot.press("escape")
    await submit_all(pilot, game_of_shorter_names())
    assert isinstance(app.screen, GameOverScreen)
    await pilot.pause(GameOverScreen.ENTER_GUARD_SECONDS + 0.1)
    await pilot.press("enter")
    await pilot.pause()
    assert app.screen.query_one("#again").display


async def test_a_command_typed_fast_after_game_overs_question_runs(make_app) -> None:
    """At game over, after "Press Enter again ...", "status" and Enter arriving together hung
    the app for good: the screen closed, the command line held "s", and nothing answered (the
    screen's new game waited for the app, the app for the screen to close)."""
    from assistant.tui.screens import TableScreen

    app = make_app()

    async def play() -> None:
        async with app.run_test(size=(100, 30)) as pilot:
            await _at_game_over_asked(pilot, app)
            await pilot.pause(1.5)
            arrive_together(app, *"status", "enter")
            await wait_for(pilot, lambda: "› status" in app.table_log.plain)
            assert isinstance(app.screen, TableScreen)
            assert app.command_input.value == ""
            assert [line for line in app.table_log.plain if "status" in line][-1:] == ["› status"]
            await pilot.press("f2")  # still answering
            await pilot.pause()

    await asyncio.wait_for(play(), 30)  # a hang fails the test


async def test_a_command_and_its_enter_at_game_over_run(make_app) -> None:
    """At game over (before any Enter) "status" and Enter sent together left "status" unsent
    in the command line: the Enter stayed on the game-over screen. Keys typed on a screen over
    the table reach the command line in order, Enter too (the score sheet's as well)."""
    from assistant.tui.screens import GameOverScreen, TableScreen

    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, game_of_shorter_names())
        assert isinstance(app.screen, GameOverScreen)
        await pilot.pause(GameOverScreen.ENTER_GUARD_SECONDS + 0.1)
        arrive_together(app, *"status", "enter", *"sta")
        await asyncio.wait_for(wait_for(pilot, lambda: "› status" in app.table_log.plain
                                        and app.command_input.value == "sta"), 15)
        assert isinstance(app.screen, TableScreen)
        assert app.command_input.value == "sta"
        assert [line for line in app.table_log.plain if "status" in line][-1:] == ["› status"]
        app.command_input.value = ""
        await pilot.press("f3")  # the score sheet
        assert not isinstance(app.screen, TableScreen), app.screen
        arrive_together(app, *"status", "enter")
        await asyncio.wait_for(wait_for(pilot, lambda: app.table_log.plain.count("› status") == 2), 15)
        assert isinstance(app.screen, TableScreen) and app.command_input.value == ""
        assert [line for line in app.table_log.plain if "status" in line][-2:] == ["› status"] * 2


async def test_letters_typed_with_game_overs_second_enter_follow_the_new_game(make_app) -> None:
    """The second Enter and the start of a command arriving together hung the app as well
    (the screen waited for its new game, the app for the screen to close for the letters).
    The new game starts and the letters wait in the command line; a third Enter asks for no
    other game (the screen is gone)."""
    from assistant.tui.screens import TableScreen

    app = make_app()

    async def play() -> None:
        async with app.run_test(size=(100, 30)) as pilot:
            await _at_game_over_asked(pilot, app)
            finished = app.view.game
            await pilot.pause(0.5)
            arrive_together(app, "enter", *"sta")
            await wait_for(pilot, lambda: app.command_input.value == "sta" and app.view.game is not finished)
            assert isinstance(app.screen, TableScreen)
            assert app.view.game is not finished and app.view.game.round == 1
            assert app.command_input.value == "sta"

    await asyncio.wait_for(play(), 30)  # a hang fails the test


#: The tester's five names (a 4-player table leaves out Annabelle).
TESTERS_FIVE = ("Alexandra", "Annabelle", "Bartholomew", "Christopher", "Evangeline")


def first_round_of(names: tuple[str, ...]) -> list[str]:
    """A simulated game's first round (no sudden death) with ``names``, up to its results."""
    import random
    import re

    from assistant.commands import canonical
    from engine.simulate import simulate_game

    actions = simulate_game(random.Random(1), players=len(names), sudden_death_chance=0.0)
    renamed = dict(zip(actions[0].players, names, strict=True))
    lines = [re.sub(r"[a-z]+", lambda m: renamed.get(m.group(), m.group()), canonical(a)) for a in actions]
    last_hand = max(i for i, line in enumerate(lines[:40]) if " has " in line and i < lines.index(
        next(line for line in lines[2:] if line.startswith("row 1") and lines.index(line) > 5)))
    return lines[:last_hand + 1]


@pytest.mark.parametrize(("names", "large"), [
    (TESTERS_FIVE, True),
    (tuple(n for n in TESTERS_FIVE if n != "Annabelle"), True),
    (tuple(n for n in TESTERS_FIVE if n != "Annabelle"), False),
], ids=["large-5", "large-4", "small-4"])
async def test_results_keep_whole_names_when_they_fit_at_80x24(make_app, names, large) -> None:
    """At 80x24 the results cut every name to six cells ("Round 1  Alexa…  Annab…  Barth…
    Chris…  Evang…  majority"; in small print four names in a line of 56 cells of 80): the
    majority column's "Christopher +7" counted as wide as a heading, and one name too long
    cut all to six. The headings keep the names whole where they fit, the majority column
    gives way first, and names are cut no further than the room asks."""
    from assistant.tui.reveal import ResultsView

    from .test_tui_five import text_of

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape")
        if app.table.large != large:
            await pilot.press("f4")
        assert app.table.large == large
        await submit_all(pilot, first_round_of(names))
        await pilot.pause()
        shown = text_of(app.table.query_one(ResultsView))
        heading = next(line for line in shown.splitlines() if "majority" in line).split()
        assert heading[-len(names) - 1:-1] == list(names), shown


async def test_german_game_over_says_the_german_new_game(make_app) -> None:
    """At a German table the game over's top line read "... 'NEW GAME' FÜR EINE NEUE PARTIE."
    and 'Stand' answered "... 'new game' für eine neue Partie.": the command as the table
    types it is 'neues Spiel'."""
    from assistant import i18n
    from assistant.tui.widgets import TableLog

    from .conftest import in_language, type_command
    from .test_tui_five import text_of

    i18n.set_language("de")
    try:
        app = make_app()
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("escape")
            await submit_all(pilot, in_language(game_of_shorter_names(), "de"))
            await pilot.press("escape")  # the game-over screen, to the table
            await pilot.pause()
            said = str(app.table.query_one(TableLog).border_title) + text_of(app.table.query_one("#next"))
            assert "'NEUES SPIEL' FÜR EINE NEUE PARTIE" in said.upper(), said
            await type_command(pilot, "Stand")
            reply = [line for line in app.table_log.plain if "für eine neue Partie" in line]
            assert reply and "'neues Spiel' für eine neue Partie" in reply[-1], app.table_log.plain[-4:]
    finally:
        i18n.set_language("en")


@pytest.mark.parametrize("code", ["en", "de"])
async def test_yes_at_game_overs_question_starts_the_new_game(make_app, code) -> None:
    """"yes" typed under "Press Enter again for a new game with ..." was refused "Nothing to
    confirm." It starts the new game, as the second Enter does ('ja' at a German table)."""
    from assistant import i18n
    from assistant.commands.render import offered
    from assistant.tui.screens import GameOverScreen, TableScreen

    from .conftest import in_language

    i18n.set_language(code)
    try:
        app = make_app()
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("escape")
            await submit_all(pilot, in_language(game_of_shorter_names(), code))
            finished = app.view.game
            await pilot.pause(GameOverScreen.ENTER_GUARD_SECONDS + 0.1)
            await pilot.press("enter")
            await pilot.pause()
            await pilot.press(*offered("yes", code), "enter")
            await wait_for(pilot, lambda: app.view.game is not finished)
            assert isinstance(app.screen, TableScreen)
            assert app.view.game is not finished and app.view.game.round == 1
            assert not any("refused" in line or "abgelehnt" in line for line in app.table_log.plain[-3:])
    finally:
        i18n.set_language("en")


async def test_yes_at_game_over_without_the_question_starts_nothing(make_app) -> None:
    """'yes' before the game-over screen asked anything starts no game."""
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, game_of_shorter_names())
        await submit_all(pilot, ["yes"])
        assert app.view.game.is_over
        assert "Nothing to confirm" in app.table_log.plain[-1]


def test_german_hand_echo_says_the_held_forms() -> None:
    """The German echo of a hand read "› Cem hat 1 Bär, 3 Schafe und 6 Hunde" under a
    read-back of "Cem hat einen Bären, ...": one card after "hat" is "1 Bären", "1 Hasen";
    the echo still reads back as the same hand."""
    from assistant.commands import parse, say
    from assistant.commands.language import languages

    hand = parse("Cem has 1 bear 3 sheep 6 dog")
    assert say(hand, "de") == "Cem hat 1 Bären, 3 Schafe und 6 Hunde"
    rabbit = parse("Cem has 1 rabbit 1 mouse 2 cat")
    assert say(rabbit, "de") == "Cem hat 1 Hasen, 2 Katzen und 1 Maus"
    for command in (hand, rabbit):
        assert parse(say(command, "de"), language=languages("de")) == command


async def test_sudden_deaths_summary_names_every_player_who_lost(make_app) -> None:
    """"Round 5: lives lost: Bartholomew -1" though Annabelle and Christopher lost their last
    life in that sudden death too (they were only in the big "OUT" lines, at 100x30). The
    summary names everyone who lost a life."""
    from assistant.tui.reveal import ResultsView

    from .test_tui_five import text_of

    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("escape")
        if not app.table.large:
            await pilot.press("f4")
        assert app.table.large
        await submit_all(pilot, [
            "new game " + " ".join(TESTERS_FIVE), "Alexandra starts",
            *(f"{p} has all cats" for p in ("Bartholomew", "Evangeline", "Alexandra", "Alexandra", "Evangeline")),
        ])
        await pilot.pause()
        ended = app.view.game.rounds[-1]
        assert ended.round == 5 and set(ended.out) == {"Annabelle", "Christopher"}, ended
        shown = " ".join(text_of(app.table.query_one(ResultsView)).split())
        summary = next((line for line in shown.split("Round 5")[1:] if "lives lost" in line), shown)
        for player in ("Alexandra", "Annabelle", "Bartholomew", "Christopher"):
            assert f"{player} -1" in summary, shown


async def test_german_sudden_death_has_one_name(make_app) -> None:
    """At a German table the log said "Plötzlicher Tod!" and the score sheet "PE" with the
    legend "PE: plötzliches Ende in Runde 2 ...": one term, "PT" / "plötzlicher Tod"."""
    from assistant import i18n
    from assistant.tui.reveal import ResultsView

    from .conftest import in_language
    from .test_tui_five import text_of

    i18n.set_language("de")
    try:
        app = make_app()
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.press("escape")
            await submit_all(pilot, in_language(["new game Anna Ben Cem", "Anna starts", "Anna has all cats"], "de"))
            await pilot.pause()
            shown = text_of(app.table.query_one(ResultsView))
            assert "plötzlicher Tod" in shown and "Ende" not in shown, shown
            await pilot.press("f3")
            await pilot.pause()
            sheet = text_of(app.screen.query_one("#sheet"))
            assert "PT: plötzlicher Tod in Runde 1" in " ".join(sheet.split()), sheet
            assert "PE" not in sheet.split()
    finally:
        i18n.set_language("en")


async def test_german_help_and_setup_say_their_words_in_german(make_app) -> None:
    """At a German table F2 said "Sprache: nicht verfügbar (no audio device (aplay: ...))"
    ("Sprache" is also "language") and the setup screen "(ctrl+g startet)" and "Spiel starten
    (ctrl+s)" where the game over says "Strg+N". The help says "Sprachausgabe" and the status
    line's translated short reason; the setup's keys are "Strg+…"."""
    from textual.widgets import Button

    from assistant import i18n

    i18n.set_language("de")
    try:
        app = make_app()
        async with app.run_test(size=(120, 40)) as pilot:
            start = app.screen.query_one("#start", Button)
            assert "Strg+S" in str(start.label) and "ctrl" not in str(start.label), start.label
            await pilot.press("escape")
            app.status_line.set_speech("unavailable", "no audio device (aplay: audio open error: No such file)")
            await pilot.press("f2")
            await pilot.pause()
            shown = " ".join(str(app.screen.query_one("#help-body Static").render()).split())
            assert "Sprachausgabe: nicht verfügbar (kein Audiogerät)" in shown, shown
            assert "aplay" not in shown
    finally:
        i18n.set_language("en")


async def test_korean_setup_writes_its_keys_as_the_rest_of_the_table(make_app) -> None:
    """The Korean setup screen said "(ctrl+g로 시작)" and "게임 시작 (ctrl+s)" where the game over
    and the rest of the table say "Ctrl+N"."""
    from textual.widgets import Button

    from assistant import i18n

    i18n.set_language("ko")
    try:
        app = make_app()
        async with app.run_test(size=(120, 40)):
            start = app.screen.query_one("#start", Button)
            assert "Ctrl+S" in str(start.label) and "ctrl" not in str(start.label), start.label
        shown = i18n.format(i18n._("Same players as last time: {players} (ctrl+g starts)"), players="A")
        assert "Ctrl+G" in shown and "ctrl" not in shown, shown
    finally:
        i18n.set_language("en")


async def test_german_game_over_sheet_keeps_its_columns_together_at_120x40(make_app) -> None:
    """Game over's score sheet at 120x40 (German, 4 players) put its columns 27 cells apart,
    spread over the width; the round's results keep theirs about 20 apart."""
    from assistant import i18n
    from assistant.tui.screens import GameOverScreen

    from .conftest import in_language
    from .test_tui_five import text_of

    names = ("Anna", "Ben", "Cem", "Dora")
    i18n.set_language("de")
    try:
        app = make_app()
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.press("escape")
            await submit_all(pilot, in_language([
                "new game " + " ".join(names), "Anna starts",
                *(f"{p} has all cats" for p in ("Anna", "Ben", "Anna", "Anna", "Anna", "Anna"))], "de"))
            await pilot.pause()
            assert isinstance(app.screen, GameOverScreen)
            sheet = text_of(app.screen.query_one("#final-sheet"))
            heading = next(line for line in sheet.splitlines() if all(n in line for n in names))
            starts = [heading.index(n) for n in names]
            gaps = [b - a for a, b in zip(starts, starts[1:], strict=False)]
            assert max(gaps) <= 21, (gaps, sheet)
    finally:
        i18n.set_language("en")
