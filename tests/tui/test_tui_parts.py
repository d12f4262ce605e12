"""The table's smaller parts: completion, the shipped rules, import hygiene, themes."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest

from assistant.config import Settings
from assistant.referee import Referee
from assistant.tui.reveal import hand_checks, hand_command, last_round_hands
from assistant.tui.screens import rules_for_players
from assistant.tui.widgets import StatusLine, command_hint, expected_start, hearts, suggest
from engine.actions import DeclareHand, Knock, SetRow
from engine.deck import Animal, Cards
from engine.game import Game
from engine.rules import HouseRules

from .conftest import OPENING, play

PLAYERS = ("alice", "bob", "carol")


def game_after(lines: list[str]) -> Game:
    referee = Referee(rng=random.Random(0), confirm_new_game=False)
    for line in lines:
        assert referee.handle(line).ok, line
    assert referee.game is not None
    return referee.game


#: Alice's turn, nobody has played yet; then Bob's turn after Alice's swap; then the knock.
ALICES_TURN = game_after(OPENING)
BOBS_TURN = game_after([*OPENING, "alice swaps 1 dog"])
ALICE_AGAIN = game_after([*OPENING, "alice swaps 1 dog", "bob swaps 1 cat", "carol swaps 1 dog"])
AFTER_KNOCK = game_after([*OPENING, "alice swaps 1 dog", "bob swaps 1 cat", "carol swaps 1 dog",
                          "alice knocks"])
ROWS = game_after(["new game alice bob carol"])


@pytest.mark.parametrize(
    ("typed", "game", "completed"),
    [
        ("al", ALICES_TURN, "alice"),
        ("ca", ALICES_TURN, "carol"),
        ("ne", ALICES_TURN, "new"),
        ("new g", ALICES_TURN, "new game"),
        ("un", ALICES_TURN, "undo"),
        ("ro", ROWS, "row"),
        ("r", ROWS, "row"),  # the rows are what is expected: before 'redo', 'repeat'
        ("alice sw", ALICES_TURN, "alice swaps"),
        ("alice k", ALICE_AGAIN, "alice knocks"),  # she has swapped this round: she may knock
        ("bob pa", AFTER_KNOCK, "bob passes"),
        ("bob s", AFTER_KNOCK, "bob swaps"),
        ("bob s", ROWS, "bob starts"),  # before the first turn, any living player may start
        ("alice swaps 2 be", ALICES_TURN, "alice swaps 2 bear"),
        ("row 3 gi", ROWS, "row 3 giraffe"),
        ("alice has 3 mo", ALICES_TURN, "alice has 3 mole"),
        ("alice has 2 mi", ALICES_TURN, "alice has 2 mice"),
        ("new g", None, "new game"),
    ],
)
def test_completion_offers_what_the_game_expects_now(typed: str, game: Game | None, completed: str) -> None:
    assert suggest(typed, game) == completed


@pytest.mark.parametrize(
    ("typed", "game"),
    [
        ("", ALICES_TURN), ("alice ", ALICES_TURN), ("zzz", ALICES_TURN),
        ("alice swaps 2 bear", ALICES_TURN),
        ("bob st", BOBS_TURN),  # mid-round: nobody 'starts' any more
        ("bob kn", ALICES_TURN),  # not Bob's turn
        ("alice k", ALICES_TURN),  # a knock only after one's first swap of the round
        ("bob kn", BOBS_TURN),  # the same
        ("alice pa", ALICES_TURN),  # passing only after a knock
        ("dave", ALICES_TURN),  # no such player
    ],
)
def test_no_completion(typed: str, game: Game | None) -> None:
    assert suggest(typed, game) is None


def test_the_grids_checks_are_the_games_answers_in_the_grids_words() -> None:
    """The grid asks the game (``check_hand``, ``overflowing``) and words its answers briefly:
    the count, each known card missing (as many as are known), the deck's limits."""
    reveal = game_after([*OPENING, "alice swaps 1 dog", "bob swaps 1 cat", "carol swaps 1 dog",
                         "alice knocks", "bob passes", "carol passes"])
    assert reveal.known["alice"] == Cards.of("giraffe")  # taken from row 1
    counts = {"alice": {Animal.MOUSE: 4, Animal.BEAR: 5},
              "bob": dict(reveal.known["bob"].counts()) | {Animal.BEAR: 9},
              "carol": dict(reveal.known["carol"].counts())}
    problems = hand_checks(reveal, counts)
    assert problems["alice"] == ["9 of 10 cards", "must hold 1 giraffe (taken from the rows)"]
    assert problems[""] == [
        "15 bears on the table and in hands, the deck holds 8",
        "5 mice on the table and in hands, the deck holds 3",
    ]


def test_hint_and_tab_name_what_is_expected_with_the_tables_names() -> None:
    assert command_hint(ROWS).startswith("row 1 and its 1 animal")
    # a question waiting (a new game under way): its answer, not the rows
    assert command_hint(ROWS, "Start a new game? Say 'yes' or 'no'.").startswith("yes to go ahead, no to drop it")
    assert expected_start(ROWS) == "row 1 "
    assert command_hint(BOBS_TURN).startswith("bob swaps ROW")
    assert "knocks" not in command_hint(BOBS_TURN)  # Bob has not swapped yet
    assert expected_start(BOBS_TURN) == "bob "
    assert command_hint(AFTER_KNOCK).startswith("bob swaps ROW") and "passes" in command_hint(AFTER_KNOCK)
    assert expected_start(None) == "new game "
    for game in (ROWS, BOBS_TURN, AFTER_KNOCK):
        assert "alice swaps 2 bear dog" not in command_hint(game)
        assert len(command_hint(game)) <= 74  # the command line's width at 80 columns


def test_a_long_name_leaves_out_whole_parts_of_the_hint_never_half_of_one() -> None:
    """Issue 36: "Christopher swaps ROW and the cards put down or knocks · Tab types 'Chri" was
    cut at the command line's edge (74 cells at 80 columns)."""
    five = ("anne-marie", "bartholomew", "christopher", "dorothea", "evangeline")
    rows = ["row 1 giraffe", "row 2 bear bear", "row 3 mole mole mole", "row 4 goat goat goat goat"]
    game = game_after([f"new game {' '.join(five)}", "christopher starts", *rows,
                       "christopher swaps 1 mouse", "dorothea swaps 1 cat", "evangeline swaps 1 dog",
                       "anne-marie swaps 1 cat", "bartholomew swaps 1 dog"])
    assert game.turn == "christopher" and game.may_knock("christopher")
    hint = command_hint(game, width=74)
    assert hint == "christopher swaps ROW and the cards put down or knocks"
    assert command_hint(game, width=120).endswith(" · Tab types 'christopher'")
    for width in range(20, 120):
        assert len(command_hint(ROWS, width=width)) <= max(width, len(command_hint(ROWS, width=0)))


def test_the_rules_screen_is_written_for_players_with_this_games_house_rules() -> None:
    text = rules_for_players(HouseRules(take_first=True, lowest_tie_loses=1), ("minji",))
    assert "must make configurable" not in text and "a default that the app" not in text
    assert "minji swaps 2 bear dog" in text
    assert "- A swap takes the row first" in text and "- Tied lowest totals lose 1 life each." in text
    assert "| situation |" not in text  # no table squeezed into a narrow first column
    assert "- giraffe: 9 cards, 9 points" in text


def test_replay_and_headless_modules_never_import_textual() -> None:
    code = (
        "import sys\n"
        "import assistant.cli.parser, assistant.referee, assistant.announce, engine.game\n"
        "assistant.cli.parser.build_parser()\n"
        "assert 'textual' not in sys.modules, 'textual was imported'\n"
        "assert 'pyttsx3' not in sys.modules and 'speech_recognition' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_hand_command_and_last_round_hands() -> None:
    counts = {Animal.GIRAFFE: 3, Animal.BEAR: 2, Animal.DOG: 5}
    assert hand_command("alice", counts) == "alice has 3 giraffe 2 bear 5 dog"
    hand_a, hand_b, old = Cards.of("pig"), Cards.of("cat"), Cards.of("mouse")
    actions = [
        DeclareHand("alice", old), Knock("bob"),
        DeclareHand("alice", hand_a), DeclareHand("bob", hand_b), SetRow(1, Cards.of("dog")),
    ]
    assert last_round_hands(actions) == {"alice": hand_a, "bob": hand_b}


def test_hearts_and_status_line_use_words_and_glyphs_not_only_colour() -> None:
    assert hearts(3).plain == "♥ ♥ ♥ ♡ ♡"
    status = StatusLine("/data/lifeguard.sqlite3")
    status.set_mic("unavailable", "no microphone (audio open error: device busy)")
    status.set_speech("muted")
    assert status.text(200) == ("mic: unavailable (no microphone (audio open error: device busy)) "
                                "· speech: muted · data: /data/lifeguard.sqlite3")
    # narrower: each state once, never cut in the middle
    assert status.text(82) == ("mic: unavailable (no microphone) · speech: muted "
                               "· data: /data/lifeguard.sqlite3")
    assert status.text(75) == "mic: unavailable (no microphone) · speech: muted · data: lifeguard.sqlite3"
    assert status.text(62) == "mic: no microphone · speech: muted · data: lifeguard.sqlite3"
    assert status.text(58) == "mic: no microphone · speech: muted"  # the data file in F2
    for width in (60, 75, 82, 200):
        assert status.text(width).count("mic:") == 1 and len(status.text(width)) <= width


@pytest.mark.parametrize("theme", ["textual-light", "nord", "gruvbox"])
async def test_table_follows_textual_themes(make_app, theme: str) -> None:
    app = make_app(Settings())
    async with app.run_test() as pilot:
        app.theme = theme
        await pilot.press("escape")
        await play(pilot, ["new game alice bob carol", "row 1 giraffe"])
        assert app.theme == theme
        assert app.view.game.rows[0] == Cards.of("giraffe")


def test_run_says_why_when_the_store_is_in_use(data_dir, capsys) -> None:
    """A second table on the same store gets a sentence, not a traceback, and no screen."""
    import argparse

    from assistant.store.session import open_session
    from assistant.tui.app import run

    with open_session(Settings(), data_dir=data_dir):
        code = run(argparse.Namespace(config=None, seed=None, audio_input=None))
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith("lifeguard: ") and "in use by another Lifeguard" in err
    assert "Traceback" not in err


class _Stuck:
    """A device whose every call fails, as a broken microphone's would."""

    def __getattr__(self, name: str):
        def fail(*_args):
            raise OSError(f"{name}: device unavailable")

        return fail


class _Closable:
    closed = False

    def close(self) -> None:
        self.closed = True


def test_a_voice_device_that_fails_is_said_or_logged_never_swallowed(caplog) -> None:
    """A listener that cannot pause while the table speaks is reported as a microphone state
    with the reason; a device that cannot close leaves the others closed and is logged."""
    from assistant.config import VoiceSettings
    from assistant.tui.voice import MicState, SpeechState, VoiceBridge

    posted: list = []
    bridge = VoiceBridge(VoiceSettings(), posted.append, lambda: None)
    bridge.listener = _Stuck()
    bridge._speaker_state("speaking", None)
    assert [type(m) for m in posted] == [MicState, SpeechState]
    assert posted[0].state == "unavailable"
    assert posted[0].reason == "the microphone could not pause while the table speaks: pause: device unavailable"
    speaker = _Closable()
    bridge.speaker = speaker
    with caplog.at_level("WARNING", logger="lifeguard.voice"):
        bridge.close()
    assert speaker.closed and bridge.listener is None
    assert "closing _Stuck failed: close: device unavailable" in caplog.text


async def test_the_table_screen_needs_only_a_view_to_watch_and_says_what_is_typed() -> None:
    """State flows down, events go up: the table screen works in any app that publishes a
    ``view`` (it calls nothing of LifeguardApp's); a typed line comes up as a message, which
    the app answers."""
    from textual.app import App
    from textual.reactive import reactive

    from assistant.tui.desk import TableView
    from assistant.tui.screens import TableScreen
    from assistant.tui.widgets import CardRows

    referee = Referee(rng=random.Random(0), confirm_new_game=False)
    for line in OPENING:
        referee.handle(line)

    class Host(App):
        view: reactive[TableView] = reactive(TableView.empty, always_update=True, init=False)

        def __init__(self) -> None:
            super().__init__()
            self.entered: list[str] = []

        def on_mount(self) -> None:
            self.view = TableView.of(referee)
            self.push_screen(TableScreen("data", self.view))

        def on_table_screen_command_entered(self, message: TableScreen.CommandEntered) -> None:
            self.entered.append(message.text)
            message.answer.set_result(None)  # nothing run: the screen's wait ends

    host = Host()
    async with host.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        table = host.screen
        assert isinstance(table, TableScreen)
        assert table.query_one(CardRows).rows[1] == Cards.of("bear", "dog")
        table.query_one("#command").value = "alice swaps 2 cat mouse"
        await pilot.press("enter")
        await pilot.pause()
        assert host.entered == ["alice swaps 2 cat mouse"]
        assert referee.handle("alice swaps 2 cat mouse").ok
        host.view = TableView.of(referee)  # published: the screen redraws from it
        await pilot.pause()
        assert table.query_one(CardRows).rows[1] == Cards.of("cat", "mouse")
        assert table.query_one("#command").placeholder.startswith("bob swaps ROW")


def test_a_said_line_breaks_at_a_sentences_end_when_that_costs_no_line() -> None:
    """The log's lines (``SaidLine``): a line of two sentences too long for the width breaks
    between them rather than before the last word ("lives." alone at 80x24); when breaking
    at sentence ends would take more lines than at words, it wraps at words as before."""
    from rich.console import Console

    from assistant.tui.widgets import SaidLine, sentences

    def lines(text: str, width: int) -> list[str]:
        console = Console(width=width, file=None, record=False)
        rendered = console.render_lines(SaidLine(text), pad=False)
        return ["".join(segment.text for segment in line).rstrip() for line in rendered]

    losses = "Bartholomew, Christopher and Dorothea lose 1 life each. Evangeline loses 2 lives."
    assert lines(losses, 75) == ["Bartholomew, Christopher and Dorothea lose 1 life each.",
                                 "Evangeline loses 2 lives."]
    assert lines(losses, 100) == [losses]
    # broken at the sentence's end, the second sentence would take two lines: three in all
    assert lines("Aaaa bbbb cc. Dddd eeee ffff ggg hhhh.", 20) == ["Aaaa bbbb cc. Dddd",
                                                                  "eeee ffff ggg hhhh."]
    assert sentences("Round 2. Bob starts. Enter the rows, e.g. row 1 cat.") == \
        ["Round 2.", "Bob starts.", "Enter the rows, e.g. row 1 cat."]
    assert sentences("2라운드입니다. 밥이 시작합니다.") == ["2라운드입니다.", "밥이 시작합니다."]
