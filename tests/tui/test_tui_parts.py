"""The table's smaller parts: completion, the shipped rules, import hygiene, themes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from assistant.config import Settings
from assistant.tui.reveal import hand_command, last_round_hands
from assistant.tui.screens import RULES_FILE
from assistant.tui.widgets import StatusLine, hearts, suggest
from engine.actions import DeclareHand, Knock, SetRow
from engine.deck import Animal, Cards

from .conftest import play

PLAYERS = ("alice", "bob", "carol")


@pytest.mark.parametrize(
    ("typed", "completed"),
    [
        ("al", "alice"),
        ("ca", "carol"),
        ("ne", "new"),
        ("new g", "new game"),
        ("un", "undo"),
        ("ro", "row"),
        ("alice sw", "alice swaps"),
        ("bob kn", "bob knocks"),
        ("carol pa", "carol passes"),
        ("alice swaps 2 be", "alice swaps 2 bear"),
        ("row 3 gi", "row 3 giraffe"),
        ("alice has 3 mo", "alice has 3 mole"),
        ("alice has 2 mi", "alice has 2 mice"),
    ],
)
def test_completion(typed: str, completed: str) -> None:
    assert suggest(typed, PLAYERS) == completed


@pytest.mark.parametrize("typed", ["", "alice ", "zzz", "alice swaps 2 bear"])
def test_no_completion(typed: str) -> None:
    assert suggest(typed, PLAYERS) is None


def test_shipped_rules_equal_the_shared_rules() -> None:
    shared = Path(__file__).resolve().parents[3] / "shared" / "RULES.md"
    if not shared.exists():
        pytest.skip("no shared/RULES.md beside this checkout")
    assert RULES_FILE.read_text(encoding="utf-8") == shared.read_text(encoding="utf-8")


def test_replay_and_headless_modules_never_import_textual() -> None:
    code = (
        "import sys\n"
        "import assistant.cli, assistant.referee, assistant.announce, engine.game\n"
        "assistant.cli.build_parser()\n"
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
    status.set_mic("unavailable", "no microphone")
    status.set_speech("muted")
    assert status.text() == (
        "mic: unavailable · speech: muted · data: /data/lifeguard.sqlite3 · mic: no microphone"
    )


@pytest.mark.parametrize("theme", ["textual-light", "nord", "gruvbox"])
async def test_table_follows_textual_themes(make_app, theme: str) -> None:
    app = make_app(Settings())
    async with app.run_test() as pilot:
        app.theme = theme
        await pilot.press("escape")
        await play(pilot, ["new game alice bob carol", "row 1 giraffe"])
        assert app.theme == theme
        assert app.referee.game.rows[0] == Cards.of("giraffe")


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
