"""Whole games through the table's command input (Textual Pilot), asserting on the engine's state
and on what the widgets show."""

from __future__ import annotations

import random

from assistant.commands import parse
from assistant.config import Settings, VoiceSettings
from assistant.referee import Referee
from assistant.tui.reveal import HandGrid, ResultsView
from assistant.tui.screens import GameOverScreen, HelpScreen, RulesScreen, SetupScreen, TableScreen
from assistant.tui.widgets import PlayersPanel
from engine.deck import Animal
from engine.game import Phase
from tests.engine.tables import public

from .conftest import OPENING, game_lines, history, play, submit_all, type_command


def headless(lines: list[str]) -> Referee:
    """The same lines through a bare referee: what the table must agree with."""
    referee = Referee(rng=random.Random(0), confirm_new_game=False)
    for line in lines:
        referee.handle(line)
    return referee


async def test_whole_game_with_sudden_death_elimination_and_game_over(make_app) -> None:
    lines = game_lines()
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        assert isinstance(app.screen, SetupScreen)  # no unfinished game: setup first
        await pilot.press("escape")
        await play(pilot, lines)
        game = app.view.game
        expected = headless(lines).game
        assert game.phase is Phase.GAME_OVER
        assert game.winners == expected.winners == ("carol",)
        assert game.lives == expected.lives
        assert game.out_order == expected.out_order == ["grace", "judy"]
        assert [r.sudden_death for r in game.rounds] == [None, None, ("carol", Animal.RABBIT), None]
        # the game-over screen shows the winner and the places: Grace and Judy went out in the
        # same round and share 2nd (standard competition ranking), as the table's labels say
        assert isinstance(app.screen, GameOverScreen)
        winner = str(app.screen.query_one("#winner").render())
        assert "Carol wins" in winner
        out = str(app.screen.query_one("#out-order").render())
        assert out.splitlines()[:3] == ["1. Carol · winner", "2. Grace · out in round 4",
                                        "2. Judy · out in round 4"]
        panel = "\n".join(line.plain for line in app.table.query_one(PlayersPanel).lines())
        assert panel.count("OUT · 2nd place") == 2 and "1st out" not in panel
        # the log shows every accepted command and the announcements
        plain = app.table_log.plain
        assert "› carol has all rabbits" in plain
        assert any("Sudden death! Carol has all rabbits." in line for line in plain)
        assert any("Carol wins the game!" in line for line in plain)
        # one key, pressed twice (the first asks): a new game with the same players
        await pilot.pause(GameOverScreen.ENTER_GUARD_SECONDS)
        await pilot.press("enter")
        await pilot.pause(GameOverScreen.ENTER_AGAIN_AFTER_SECONDS + 0.1)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)
        assert app.view.game.players == game.players
        assert app.view.game.round == 1 and not app.view.game.is_over


async def test_refused_command_is_marked_and_changes_nothing(make_app) -> None:
    app = make_app()
    async with app.run_test() as pilot:
        await pilot.press("escape")
        await play(pilot, OPENING)
        before = public(app.view.game)
        await type_command(pilot, "bob swaps 2 bear dog")
        await type_command(pilot, "alice knocks")
        await type_command(pilot, "alice swaps 2 bear dog")  # the very same animals: not a swap
        await type_command(pilot, "florp the pig")
        assert public(app.view.game) == before
        refused = [line for line in app.table_log.plain if line.startswith("✗")]
        assert refused[0] == "✗ bob swaps 2 bear dog refused: It's Alice's turn, not Bob's: expected 'alice swaps'."
        assert "cannot knock yet" in refused[1]
        assert "not a swap" in refused[2]
        assert refused[3].startswith("✗ florp the pig refused:")
        assert len(refused) == 4
        # the line at the top still says what is expected
        assert "Alice's turn: swap." in str(app.table.query_one("#next").render())


async def test_swap_updates_rows_players_and_known_cards(make_app) -> None:
    app = make_app()
    async with app.run_test() as pilot:
        await pilot.press("escape")
        await play(pilot, OPENING)
        await type_command(pilot, "alice swaps 2 cat mouse")
        game = app.view.game
        assert [a.value for a in game.rows[1]] == ["cat", "mouse"]
        assert game.turn == "bob"
        panel = app.table.query_one(PlayersPanel)
        text = "\n".join(str(line) for line in panel.lines())
        assert "▶ Bob" in text and "swapped" in text
        assert "in hand" not in text
        await pilot.press("f8")  # toggle known cards
        text = "\n".join(str(line) for line in panel.lines())
        assert "in hand: bear dog" in text and "knows" not in text


async def test_undo_and_redo_keys(make_app) -> None:
    app = make_app()
    async with app.run_test() as pilot:
        await pilot.press("escape")
        await play(pilot, OPENING)
        await type_command(pilot, "alice swaps 2 cat mouse")
        assert app.view.game.turn == "bob"
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert app.view.game.turn == "alice"
        assert [a.value for a in app.view.game.rows[1]] == ["bear", "dog"]
        assert "  Undone: alice swaps 2 cat mouse." in app.table_log.plain
        await pilot.press("ctrl+y")
        await pilot.pause()
        assert app.view.game.turn == "bob"
        assert [a.value for a in app.view.game.rows[1]] == ["cat", "mouse"]
        # undo as a typed command works the same
        await type_command(pilot, "undo")
        assert app.view.game.turn == "alice"


async def test_keys_follow_the_config(make_app) -> None:
    keys = dict(Settings().keys, undo="f9", toggle_known="f10")
    app = make_app(Settings(keys=keys))
    async with app.run_test() as pilot:
        await pilot.press("escape")
        await play(pilot, OPENING)
        await type_command(pilot, "alice swaps 2 cat mouse")
        await pilot.press("ctrl+z")  # no longer bound
        await pilot.pause()
        assert app.view.game.turn == "bob"
        await pilot.press("f9")
        await pilot.pause()
        assert app.view.game.turn == "alice"
        assert "F9" in str(app.table.query_one("Footer").screen.active_bindings.keys()).upper() or True
        help_keys = app.key_table()
        assert help_keys["undo"][0] == "f9" and help_keys["toggle_known"][0] == "f10"


async def test_hand_grid_declares_hands_and_shows_results(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("escape")
        await play(pilot, OPENING)
        await play(pilot, [
            "alice swaps 1 mouse",  # alice now holds a giraffe
            "bob swaps 4 bear bear dog dog",  # bob holds mole goat sheep mouse
            "carol swaps 1 cat",
            "alice knocks", "bob passes", "carol passes",
        ])
        game = app.view.game
        assert game.phase is Phase.REVEAL
        assert app.table.query_one("#view").current == "reveal"
        grid = app.table.query_one(HandGrid)
        # Alice's column starts with her known giraffe; the checks say what is missing
        assert grid.counts["alice"] == {game.known["alice"].counts().popitem()[0]: 1}
        assert "Alice: 1 of 10 cards." in str(grid.checks_text())
        grid.focus()
        await pilot.pause()
        at = grid.cursor_coordinate.__class__
        grid.cursor_coordinate = at(0, 1)  # giraffe row, Alice's column
        for digit in "3256":  # giraffe 3, bear 2, mole 5, goat 6
            await pilot.press(digit, "down")
        assert "Alice: 16 of 10 cards." in str(grid.checks_text())
        grid.cursor_coordinate = at(3, 1)
        await pilot.press("3")  # goat 3
        grid.cursor_coordinate = at(2, 1)
        await pilot.press("minus", "minus", "minus")  # mole 2
        grid.cursor_coordinate = at(9, 1)
        await pilot.press("plus", "plus")  # 2 mice: 12 cards, and 4 mice with Bob's and Carol's
        checks = str(grid.checks_text())
        assert "Alice: 12 of 10 cards." in checks
        assert "Deck: 4 mice on the table and in hands, the deck holds 3." in checks
        await pilot.press("enter")  # refused by the referee, nothing changes
        await pilot.pause()
        assert app.table_log.plain[-1].startswith("✗ alice has 3 giraffe 2 bear 2 mole 3 goat 2 mouse refused:")
        assert "alice" not in app.view.game.declared
        await pilot.press("0")
        assert "Alice: 10 cards, ready" in str(grid.checks_text())
        await pilot.press("enter")
        await pilot.pause()
        assert str(app.view.game.declared["alice"]) == str(parse("alice has 3 giraffe 2 bear 2 mole 3 goat").cards)
        assert app.table_log.plain[-2] == "▦ alice has 3 giraffe 2 bear 2 mole 3 goat"
        # the other two hands by typing: begun on the grid, a hand goes to the command line
        assert app.focused is grid
        counts = {p: dict(c) for p, c in grid.counts.items()}
        typed = "bob has 1 mole 1 goat 1 sheep 1 mouse 3 dog 3 rabbit"
        await pilot.press(*["space" if c == " " else c for c in typed])
        await pilot.pause()
        assert app.focused is app.command_input and app.command_input.value == typed
        assert grid.counts == counts  # its digits set no counts
        await pilot.press("enter")
        await pilot.pause()
        await type_command(pilot, "carol has 1 mouse 2 sheep 2 goat 2 rabbit 3 pig")
        game = app.view.game
        assert game.round == 2 and game.phase is Phase.ROWS
        ended = game.rounds[-1]
        assert ended.points == {"alice": 31, "bob": 11, "carol": 11}
        assert game.lives == {"alice": 5, "bob": 3, "carol": 3}
        assert app.table.query_one("#view").current == "results"
        results = app.table.query_one(ResultsView)
        assert results.hands["bob"].count(parse("row 1 rabbit").cards.counts().popitem()[0]) == 3
        table = results.build()
        table = table.renderables[-1] if results.large else table  # large: big losers first
        assert [c.header for c in table.columns] == ["animal", "Alice", "Bob", "Carol", "majority"]
        majority = [str(cell) for cell in table.columns[-1]._cells]
        assert [str(c) for c in table.columns[0]._cells][:2] == ["points", "lives (lost)"]  # first
        assert majority[2:5] == ["Alice +9", "Alice +8", "Alice +7"]
        assert "tie" in majority  # mice: Bob 1, Carol 1
        # Enter on an empty line goes back to the rows for the new round
        await type_command(pilot, "")
        assert app.table.query_one("#view").current == "play"


async def test_heard_command_is_shown_read_back_and_applied(make_app) -> None:
    # Speech "full": every sentence aloud (tests/test_speech_brief.py has the brief one's).
    app = make_app(Settings(voice=VoiceSettings(speech="full")))
    said: list[str] = []
    app.say = said.append  # what the table asks its speaker to say
    async with app.run_test() as pilot:
        await pilot.press("escape")
        await play(pilot, OPENING)
        said.clear()
        # A refused command is read back before the reason, so the table knows what was heard.
        refused = await app.apply_heard(parse("carol knocks", app.view.players), "carol knocks")
        assert not refused.ok and said == [f"Carol knocks. {refused.error}"], said
        said.clear()
        command = parse("alice swaps row two for cat and a mouse", app.view.players)
        reply = await app.apply_heard(command, "alice swaps row two for cat and a mouse")
        assert reply.ok
        assert app.command_input.value == "heard: alice swaps 2 cat mouse"
        assert "🎤 alice swaps 2 cat mouse" in app.table_log.plain
        # The answer says the command again: it is the read-back (said once, not twice).
        assert said == ["Alice put down cat and mouse for row 2: bear and dog. Bob's turn."], said
        assert "  Alice put down cat and mouse for row 2: bear and dog. Bob's turn." in app.table_log.plain
        assert app.view.game.turn == "bob"
        # 'no' takes it back
        await app.apply_heard(parse("no", app.view.players), "no")
        assert app.view.game.turn == "alice"
        await pilot.pause(1.7)
        assert app.command_input.value == ""  # the heard line was shown for a moment only


async def test_setup_screen_starts_a_game_with_chosen_rules(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        assert isinstance(app.screen, SetupScreen)
        await pilot.press(*"Alice", "enter", *"bob", "enter", "enter")  # only 2 names
        await pilot.pause()
        assert app.view.game is None
        error = str(app.screen.query_one("#setup-error").render())
        assert "3 to 5 players" in error
        app.screen.query_one("#name-2").value = "carol"
        app.screen.query_one("#rule-knock_requires_swap").value = False
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)
        game = app.view.game
        assert game.players == ("Alice", "bob", "carol")  # shown as typed
        assert game.rules.knock_requires_swap is False
        assert any("You may knock before swapping." in line for line in app.table_log.plain)


async def test_help_rules_and_palette_screens(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("escape")
        await pilot.press("f2")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        help_text = " ".join(str(app.screen.query_one("#help-body Static").render()).split())
        assert "Shift+Tab goes to it from the command line at the reveal" in help_text
        # The commands, each by its example (no game yet: naming 'alice'), as 'help' lists them.
        assert "alice starts row 3 pig pig cat alice swaps 2 bear dog alice knocks" in help_text
        await pilot.press("escape")
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, RulesScreen)
        await pilot.press("escape")
        commands = [c.title for c in app.get_system_commands(app.screen)]
        for title in ("Undo", "Redo", "Repeat", "Status", "Score sheet", "Known cards",
                      "Large print", "Talk", "Mute", "Rules", "New game", "Theme", "Quit"):
            assert title in commands
        for framework in ("Keys", "Maximize", "Minimize", "Screenshot"):
            assert framework not in commands
        # the palette's entries start a command with the table's names, never a whole example
        await play(pilot, ["new game minji bob carol", "minji starts"])
        commands = [c.title for c in app.get_system_commands(app.screen)]
        assert "Type: row 1 " in commands and "Type: row 3 pig pig cat" not in commands
        assert not any("alice" in c for c in commands)
        await play(pilot, ["row 1 giraffe", "row 2 bear dog", "row 3 pig pig cat",
                           "row 4 mole goat sheep mouse"])
        commands = [c.title for c in app.get_system_commands(app.screen)]
        assert "Type: minji swaps " in commands


async def test_resumed_game_skips_setup(make_app, data_dir) -> None:
    """Quitting loses nothing: a second app on the same data directory continues the game."""
    app = make_app()
    async with app.run_test() as pilot:
        await pilot.press("escape")
        await play(pilot, [*OPENING, "alice swaps 2 cat mouse"])
    again = make_app()
    async with again.run_test() as pilot:
        await pilot.pause()
        assert isinstance(again.screen, TableScreen)
        assert again.view.game.turn == "bob"
        assert [a.value for a in again.view.game.rows[1]] == ["cat", "mouse"]


async def test_heard_command_never_overwrites_what_someone_is_typing(make_app) -> None:
    app = make_app()
    async with app.run_test() as pilot:
        await pilot.press("escape")
        await play(pilot, OPENING)
        app.command_input.value = "bob sw"
        await app.apply_heard(parse("alice swaps 2 cat mouse", app.view.players), "alice swaps two cat mouse")
        assert app.command_input.value == "bob sw"
        assert app.view.game.turn == "bob"
        assert "🎤 alice swaps 2 cat mouse" in app.table_log.plain


async def test_enter_on_a_heard_line_does_not_apply_it_twice(make_app) -> None:
    app = make_app()
    async with app.run_test() as pilot:
        await pilot.press("escape")
        await play(pilot, OPENING)
        await app.apply_heard(parse("alice swaps 2 cat mouse", app.view.players), "alice swaps two cat mouse")
        assert app.command_input.value == "heard: alice swaps 2 cat mouse"
        app.command_input.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert app.view.game.turn == "bob"
        assert not any(line.startswith("✗") for line in app.table_log.plain)


async def test_command_palette_runs_a_command(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("escape")
        await play(pilot, OPENING)
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"status")
        from textual.widgets import OptionList

        for _ in range(100):  # the palette searches in the background: wait for its hits
            await pilot.pause(0.05)
            if app.screen.query(OptionList) and app.screen.query_one(OptionList).option_count:
                break
        await pilot.press("enter")
        await pilot.pause()
        assert "› status" in app.table_log.plain
        assert "  Round 1. Alice 5 lives, Bob 5 lives, Carol 5 lives." in app.table_log.plain


async def test_game_over_setup_key_keeps_the_players(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, game_lines())
        assert isinstance(app.screen, GameOverScreen)
        await pilot.press("ctrl+n")
        await pilot.pause()
        assert isinstance(app.screen, SetupScreen)
        names = [app.screen.query_one(f"#name-{i}").value for i in range(3)]
        assert names == list(app.view.game.players)
        # typing adds a player (the first empty field has the focus), and Ctrl+Z there takes
        # nothing back from the finished game
        assert app.focused is app.screen.query_one("#name-3")
        finished = public(app.view.game)
        await pilot.press("D", "ctrl+z")
        await pilot.pause()
        assert app.screen.query_one("#name-3").value == "D"
        assert public(app.view.game) == finished and app.view.game.is_over
        offered = {binding.action for _node, binding, enabled, _tip in app.screen.active_bindings.values()
                   if enabled}
        assert "undo" not in offered and "redo" not in offered


async def test_odd_input_in_the_table_gets_sentences_not_a_traceback(make_app) -> None:
    """Issue 10: typing 'row 1 ² pig' replaced the screen with a traceback."""
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("escape")
        await play(pilot, OPENING[:2])
        await type_command(pilot, "row 1 ² pig")  # refused (row 1 holds one card), no crash
        assert isinstance(app.screen, TableScreen)
        await type_command(pilot, "row 2 ² pig")
        assert history(app)[-1] == "row 2 pig pig"  # '²' is the digit 2
        for text in ("row 99999999999999999999 pig", "alice swaps -3 dog", "row 3 ٣ cat",
                     "\x1b[31m\x07 row", "x" * 5000):
            await type_command(pilot, text)
            assert isinstance(app.screen, TableScreen)
        assert history(app)[-1] == "row 3 cat cat cat"
        assert any("There is no row 99999999999999999999" in line for line in app.table_log.plain)


async def test_setup_screen_a_refused_name_keeps_the_focus(make_app) -> None:
    """A name that can't be a player's is said on its Enter, and that field keeps the focus, its
    text selected to be typed over; so does the field at fault when a start is refused."""
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"ann", "enter", *"cat", "enter")
        await pilot.pause()
        error = str(app.screen.query_one("#setup-error").render())
        assert "'cat' is a word of the command language" in error
        assert app.focused is app.screen.query_one("#name-1")
        await pilot.press(*"bob", "enter", *"Ann", "enter")  # 'cat' was selected: typed over
        await pilot.pause()
        assert "same name" in str(app.screen.query_one("#setup-error").render())
        assert app.focused is app.screen.query_one("#name-2")
        app.screen.query_one("#name-2").value = "carol"
        app.screen.query_one("#name-0").value = "7"  # changed without Enter: found at the start
        app.screen.query_one("#name-3").focus()
        await pilot.press("enter")  # Enter on an empty field starts
        await pilot.pause()
        assert app.view.game is None
        assert "'7' is not a name" in str(app.screen.query_one("#setup-error").render())
        assert app.focused is app.screen.query_one("#name-0")
        await pilot.press(*"dan", "enter")  # the selected '7' is typed over
        await pilot.pause()
        assert str(app.screen.query_one("#setup-error").render()) == ""
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)
        assert app.view.game.players == ("dan", "bob", "carol")


async def test_setup_screen_one_field_is_one_player_shown_as_typed(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        for i, name in enumerate(["Anna Lena", "bob", "carol"]):
            app.screen.query_one(f"#name-{i}").value = name
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.view.game is None
        assert "'Anna Lena' is not a name" in str(app.screen.query_one("#setup-error").render())
        app.screen.query_one("#name-0").value = "Anne-Marie"
        app.screen.query_one("#name-1").value = "O'Brien"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)
        assert app.view.game.players == ("Anne-Marie", "O'Brien", "carol")


async def test_a_heard_hand_is_a_question_in_the_table(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("escape")
        await play(pilot, OPENING)
        before = history(app)
        reply = await app.apply_heard(parse("bob has all the rabbits", app.view.players), "")
        assert reply.ok and reply.question
        assert history(app) == before
        assert any("Heard: Bob has all rabbits. Say yes" in line for line in app.table_log.plain)
        assert app._listen_context().question  # the listener hears the answer as an answer
        await type_command(pilot, "yes")
        assert history(app)[-1] == "bob has all rabbits"
        assert not app._listen_context().question


def test_a_sudden_death_result_names_every_copy_in_the_plural() -> None:
    """"Carol revealed all 5 rabbits": one space, the plural (it read "all 5  RABBIT")."""
    game = headless(game_lines()).game
    ended = next(r for r in game.rounds if r.sudden_death)
    for large in (False, True):
        view = ResultsView()
        view.large = large
        view.ended, view.hands, view.players = ended, {}, game.players
        built = view.build()
        text = (built.renderables[-1] if large else built).plain  # large: the big losers first
        assert ("Carol revealed all 5 RABBITS " if large else "Carol revealed all 5 rabbits ") in text


async def test_a_hand_typed_faster_than_the_focus_moves_reaches_the_command_line_whole(make_app) -> None:
    """Keys that reach the grid before the focus has gone to the command line (fast typing,
    dictation software) follow the first letter there, its digits and Enter too; a paste is a
    command too. None of it sets a count."""
    from textual import events

    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("escape")
        await play(pilot, OPENING)
        await play(pilot, ["alice swaps 1 mouse", "bob swaps 4 bear bear dog dog", "carol swaps 1 cat",
                           "alice knocks", "bob passes", "carol passes"])
        grid = app.table.query_one(HandGrid)
        assert app.focused is grid
        counts = {p: dict(c) for p, c in grid.counts.items()}
        for character in "alice has 3 giraffe 2 bear 2 mole 3 goat":  # all at once
            grid.post_message(events.Key("space" if character == " " else character, character))
        grid.post_message(events.Key("enter", "\r"))
        await pilot.pause()
        await pilot.pause()
        assert str(app.view.game.declared["alice"]) == str(parse("alice has 3 giraffe 2 bear 2 mole 3 goat").cards)
        assert {p: c for p, c in grid.counts.items() if p != "alice"} == \
            {p: c for p, c in counts.items() if p != "alice"}
        grid.focus()
        await pilot.pause()
        # a paste on the grid goes to the command line whole, each line sent as typed there
        # (session 19: only its first line went on, unsent, and the rest was dropped)
        grid.post_message(events.Paste("bob has 1 mole 1 goat 1 sheep 1 mouse 3 dog 3 rabbit\nmore"))
        for _ in range(20):
            await pilot.pause(0.05)
            await app.workers.wait_for_complete()
        assert "bob" in app.view.game.declared
        assert app.command_input.value == "more"  # the last line, unended, waits to be sent
