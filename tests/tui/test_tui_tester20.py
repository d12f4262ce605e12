"""What session 20's tester met playing the table as a new group would (English and German,
80x24 to 200x50), each a test that failed before its fix."""

from __future__ import annotations

from .conftest import game_lines, submit_all
from .test_tui_five import GAME_FIVE, text_of
from .test_tui_flow import wait_for

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


async def test_large_prints_top_line_keeps_whole_names_before_the_round_at_80x24(make_app) -> None:
    """At 80x24 in large print the top line (on the rule over the log) read "REVEAL HANDS:
    WAITING FOR ALEXA…, BENED…, CHARL…, DAN AND EMILIA." though the names fitted whole without
    the round's part: it gave up the names before the round. Whole names first."""
    from assistant.tui.widgets import TableLog

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape", "f4")
        lines = game_of_shorter_names()
        await submit_all(pilot, lines[:lines.index("Alexandra swaps 3 goat goat pig")])
        await pilot.pause()
        said = str(app.table.query_one(TableLog).border_title)
        assert "ALEXANDRA'S LAST TURN" in said, said
        await submit_all(pilot, lines[lines.index("Alexandra swaps 3 goat goat pig"):16])
        await pilot.pause()
        said = str(app.table.query_one(TableLog).border_title)
        assert "WAITING FOR ALEXANDRA, BENEDIKT, CHARLOTTE, DAN AND EMILIA" in said, said


async def test_german_top_line_keeps_a_whole_name_at_80x24(make_app) -> None:
    """At a German table "ANNAB… HAT DEN LETZTEN ZUG: TAUSCHEN ODER PASSEN." (52 cells whole)."""
    from assistant import i18n
    from assistant.tui.widgets import TableLog

    from .conftest import in_language

    i18n.set_language("de")
    try:
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("escape", "f4")
            lines = [line.replace("Alexandra", "Annabelle") for line in game_of_shorter_names()]
            await submit_all(pilot, in_language(lines[:lines.index("Annabelle swaps 3 goat goat pig")], "de"))
            await pilot.pause()
            said = str(app.table.query_one(TableLog).border_title)
            assert "ANNABELLE HAT DEN LETZTEN ZUG" in said, said
    finally:
        i18n.set_language("en")


async def test_enter_at_game_over_asks_before_a_new_game(make_app) -> None:
    """Session 20's tester: Enter at game over, pressed out of habit, started the next game at
    once, and Ctrl+Z could not bring the finished one back. The first Enter asks; a second,
    after a pause (a held key repeats faster), starts it."""
    from assistant.tui.screens import GameOverScreen, TableScreen

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, game_of_shorter_names())
        assert isinstance(app.screen, GameOverScreen)
        finished = app.view.game
        screen = app.screen
        again = screen.query_one("#again")

        def first_enter_and_its_repeat() -> bool:
            # The first Enter and a held key's repeat at once (called one after the other: keys
            # pressed through the pilot may be handled further apart than a repeat on a busy
            # machine), tried until the screen's guard against the last hand's Enter has
            # passed (it counts from the screen's first refresh, late on a busy machine).
            screen.action_new_game()
            screen.action_new_game()
            return bool(again.display)

        await wait_for(pilot, first_enter_and_its_repeat)
        await pilot.pause()
        assert app.screen is screen and app.view.game is finished
        assert again.display and again.region.height >= 1
        assert "Press Enter again, or type yes, for a new game with Alexandra, Benedikt" in text_of(again).replace("\n", " ")
        await pilot.pause(GameOverScreen.ENTER_AGAIN_AFTER_SECONDS + 0.1)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)
        assert app.view.game is not finished and app.view.game.round == 1
        assert app.view.game.players == finished.players


async def test_a_held_enter_handled_late_at_game_over_starts_nothing(make_app) -> None:
    """Game over asks for a second Enter at least ``ENTER_AGAIN_AFTER_SECONDS`` after the first
    (a held key repeats faster). The pause is the keys' own, as they arrived: a held Enter's
    repeat (30 ms after it) handled half a second later on a busy machine counted as a second
    press, and the finished game gave way to a new one that cannot be undone back; two Enters
    pressed half a second apart and handled together are a second press."""
    import time

    from textual.events import Key

    from assistant.tui.screens import GameOverScreen, TableScreen

    def enter(at: float) -> Key:
        key = Key("enter", "\r")
        key.time = at
        return key

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, game_of_shorter_names())
        screen = app.screen
        assert isinstance(screen, GameOverScreen)
        finished = app.view.game
        await wait_for(pilot, lambda: time.monotonic() - screen._shown_at > GameOverScreen.ENTER_GUARD_SECONDS + 0.1)
        first = time.monotonic()
        app.post_message(enter(first))
        await wait_for(pilot, lambda: bool(screen.query_one("#again").display))
        await pilot.pause(GameOverScreen.ENTER_AGAIN_AFTER_SECONDS + 0.1)  # handled late
        app.post_message(enter(first + 0.03))  # ... the held key's repeat
        await pilot.pause()
        assert app.screen is screen and app.view.game is finished
        # A second press, half a second after the first's repeat, handled at once.
        app.post_message(enter(first + 0.03 + GameOverScreen.ENTER_AGAIN_AFTER_SECONDS + 0.1))
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        await wait_for(pilot, lambda: app.view.game is not finished)
        assert app.view.game.round == 1 and app.view.game.players == finished.players


def test_german_hand_read_back_says_the_cards_in_the_accusative() -> None:
    """Session 20's tester at a German table: "Cem hat: ein Bär." (a colon to dodge the case).
    After "hat" the cards are its object: "Cem hat einen Bären, einen Hasen und eine Maus."."""
    from assistant import announce, i18n
    from engine.deck import Animal, Cards

    i18n.set_language("de")
    try:
        said = announce.readback("cem has 1 bear 1 rabbit 1 mole 1 dog 1 mouse 2 pig", "hand")
        assert said == "Cem hat einen Bären, einen Maulwurf, einen Hund, einen Hasen, 2 Schweine und eine Maus."
        from assistant.i18n.words import describe
        assert describe(Cards.of(Animal.BEAR)) == "ein Bär"  # elsewhere as before (nominative)
    finally:
        i18n.set_language("en")
    assert announce.readback("cem has 1 bear 2 pig", "hand") == "Cem has a bear and 2 pigs."


def test_german_echo_of_a_hand_writes_every_count_alike() -> None:
    """The log's echo of a hand at a German table mixed words and digits ("Emilia hat zwei
    Giraffen, 1 Bär"): every count of a hand is in digits, one card in the form "hat" takes
    ("1 Bären", tester20b); it still parses back the same."""
    from assistant.commands import parse, say

    hand = parse("emilia has 2 giraffe 1 bear 3 mole 2 dog 2 cat")
    said = say(hand, "de")
    assert said == "emilia hat 2 Giraffen, 1 Bären, 3 Maulwürfe, 2 Hunde und 2 Katzen"
    assert parse(said, ("emilia",), language="de") == hand
    swap = parse("emilia swaps 3 pig pig cat")
    assert say(swap, "de") == "emilia tauscht Reihe 3 gegen zwei Schweine und Katze"  # as before


def test_a_second_new_game_request_says_it_replaces_the_first_question() -> None:
    """Session 20's tester at a German table asked for a new game twice: the second question
    began "Das neue Spiel wurde nicht begonnen.", which read as a refusal of the new request.
    It says the first question is replaced by the one that follows; a question dropped by
    another command says which new game was not started."""
    import random

    from assistant import i18n
    from assistant.referee import Referee

    for code, replaced, dropped in [
        ("en", "The question about the new game with Dave, Erin and Frank is replaced by this one:",
         "The question about the new game with Dave, Erin and Frank was dropped; it was not started."),
        ("de", "Die Frage nach dem neuen Spiel mit Dave, Erin und Frank ist durch diese ersetzt:",
         "Die Frage nach dem neuen Spiel mit Dave, Erin und Frank ist verworfen; es wurde nicht gestartet."),
    ]:
        i18n.set_language(code)
        try:
            ref = Referee(rng=random.Random(0))
            assert ref.handle("new game alice bob carol").ok
            assert ref.handle("new game dave erin frank").question
            again = ref.handle("new game dave erin gina")
            assert again.question and again.said[0] == replaced, again.said
            assert "Gina" in again.said[1]
            assert ref.handle("new game dave erin frank").question
            other = ref.handle("row 1 pig")
            assert other.ok and other.said[0] == dropped, other.said
        finally:
            i18n.set_language("en")


async def test_the_palettes_search_boxes_speak_the_tables_language(make_app) -> None:
    """At a German table the palette's search box said "Search for commands…", and its theme
    picker "Search for themes…"."""
    from textual.command import CommandInput, CommandPalette

    from assistant import i18n

    for code, commands, themes in [("de", "Befehle suchen…", "Farbschema suchen…"),
                                   ("ko", "명령 검색…", "테마 검색…")]:
        i18n.set_language(code)
        try:
            app = make_app()
            async with app.run_test(size=(100, 30)) as pilot:
                await pilot.press("escape", "ctrl+p")
                await pilot.pause()
                assert isinstance(app.screen, CommandPalette)
                assert app.screen.query_one(CommandInput).placeholder == commands
                await pilot.press("escape")
                await pilot.pause()
                app.action_change_theme()
                await pilot.pause()
                assert isinstance(app.screen, CommandPalette)
                assert app.screen.query_one(CommandInput).placeholder == themes
        finally:
            i18n.set_language("en")


async def test_game_over_keeps_the_results_columns_together_at_120x40(make_app) -> None:
    """At 120x40 (large print by the size) the game-over screen's last results spread its two
    players 33 cells apart over the width. Large print keeps each column at most
    ``LARGE_COLUMN_WIDEST`` cells wide, its gaps too."""
    from assistant.tui.reveal import LARGE_COLUMN_WIDEST, ResultsView
    from assistant.tui.screens import GameOverScreen

    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, game_lines(GAME_FIVE))
        await pilot.pause()
        assert isinstance(app.screen, GameOverScreen) and app.screen.has_class("large")
        shown = text_of(app.screen.query_one(ResultsView)).splitlines()
        header = next(line for line in shown if line.strip().startswith("animal"))
        names = ["Christopher", "Evangeline"]
        assert header.split()[1:3] == names
        middles = [2 * header.index(name) + len(name) for name in names]  # twice each name's middle
        assert (middles[1] - middles[0]) // 2 <= LARGE_COLUMN_WIDEST + 4, header  # 32 before


async def test_lines_typed_fast_over_the_hand_grid_keep_their_order(make_app) -> None:
    """Session 20's tester at the reveal: a hand typed fast, then the next line ("3 dogann
    starts": two lines joined). Reproduced in tmux: the keys typed on the grid went to the
    command line as messages by way of the screen, but once the command line had the focus the
    keys typed after them went to it directly, before them: lines swapped, an Enter landed on
    the wrong line. Here the first keys reach the grid, and those the terminal sends once the
    focus has moved reach the command line, as in a real terminal."""
    import asyncio

    from assistant.config import Settings
    from assistant.tui.reveal import HandGrid
    from engine.game import Phase
    from engine.rules import HouseRules

    from .conftest import OPENING, history
    from .test_tui_input_order import log_lines_with, settle
    from .test_tui_typeahead import keys_for

    app = make_app(Settings(rules=HouseRules(knock_requires_swap=False)))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, [*OPENING, "alice knocks", "bob passes", "carol passes"])
        assert app.view.game.phase is Phase.REVEAL
        grid = app.table.query_one(HandGrid)
        grid.focus()
        await pilot.pause()
        typed = keys_for("alice has 2 mole 3 sheep 3 rabbit 2 pig\nbob has 6 giraffe 3 goat 1 mouse\n"
                         "carol has 1 giraffe 6 bear 3 dog\n")
        for key in typed:  # a key a read, as a terminal sends them while the app is busy
            app.post_message(key)
            await asyncio.sleep(0)
        await settle(pilot)
        assert log_lines_with(app, "› alice has", "› bob has", "› carol has", "✗ ") == [
            "› alice has 2 mole 3 sheep 3 rabbit 2 pig", "› bob has 6 giraffe 3 goat 1 mouse",
            "› carol has 1 giraffe 6 bear 3 dog"]
        assert history(app)[-3:] == ["alice has 2 mole 3 sheep 3 rabbit 2 pig",
                                     "bob has 6 giraffe 3 goat 1 mouse", "carol has 1 giraffe 6 bear 3 dog"]
        assert app.command_input.value == ""


async def test_the_greeting_offers_the_new_game_command_in_the_tables_language(make_app) -> None:
    """The log's first line at a German table offered the English "'new game alice bob
    carol'" ("Lifeguard ist bereit. ... oder tippt 'new game alice bob carol'.")."""
    from assistant import i18n

    i18n.set_language("de")
    try:
        app = make_app()
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("escape")
            await pilot.pause()
            first = next(line for line in app.table_log.plain if "Lifeguard" in line)
            assert "'neues Spiel mit alice, bob und carol'" in first, first
    finally:
        i18n.set_language("en")
