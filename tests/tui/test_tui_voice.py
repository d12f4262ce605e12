"""Voice inside the app with real audio: espeak-ng says a command into a WAV file, the app plays
it in as if spoken (``--audio-input``), the listener hears it on its own thread, and the table
shows what was heard (a command is read back and applied, anything else is said and changes
nothing), while staying interactive. Recognition quality itself is the voice package's tests'
business; applying a heard command is also tested directly in test_tui_game.py."""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

import pytest

from assistant.config import Settings, VoiceSettings
from engine.game import Phase

from .conftest import OPENING, play

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed"),
]


def spoken(text: str, path: Path) -> str:
    subprocess.run(["espeak-ng", "-v", "en-us", "-s", "150", "-w", str(path), text], check=True)
    return str(path)


async def test_a_spoken_command_is_heard_read_back_and_applied(make_app, tmp_path: Path) -> None:
    first = make_app()
    async with first.run_test() as pilot:
        await pilot.press("escape")
        await play(pilot, OPENING)
    wav = spoken("alice swaps two cat and mouse", tmp_path / "swap.wav")
    settings = Settings(voice=VoiceSettings(speak=False))
    app = make_app(settings, voice=True, audio_input=[wav])
    async with app.run_test() as pilot:
        assert app.view.game.turn == "alice"  # the resumed game, table ready at once
        # (what the table shows: the referee's own game changes on the desk's thread first)
        deadline = time.monotonic() + 90  # a safety limit for a loaded machine, not a timing check
        while app.view.game.turn == "alice" and time.monotonic() < deadline:
            if app.status_line.mic == ("off", "audio input ended"):
                await pilot.pause(0.5)  # the last event may still be on its way
                break
            await pilot.pause(0.1)
        log = app.table_log.plain
        heard = [line for line in log if line.startswith("🎤")]
        assert heard, f"nothing from the listener reached the table; mic: {app.status_line.mic}"
        if "🎤 alice swaps 2 cat mouse" in log:
            assert "  Alice put down cat and mouse for row 2: bear and dog. Bob's turn." in log
            assert app.view.game.turn == "bob"
            assert [a.value for a in app.view.game.rows[1]] == ["cat", "mouse"]
        else:  # misheard: said calmly, and nothing changed
            assert app.view.game.turn == "alice"
            assert [a.value for a in app.view.game.rows[1]] == ["bear", "dog"]
        assert app.view.game.phase is Phase.TURNS
        assert app.status_line.speech[0] in ("muted", "unavailable")  # no audio device in CI
        # the table stayed interactive throughout
        await play(pilot, ["status"])
        assert app.table_log.plain[-1].endswith("swap.") or "turn" in app.table_log.plain[-1]


async def test_talk_is_written_down_and_an_unfinished_command_is_said(make_app, tmp_path: Path) -> None:
    """The table answers aloud only what seems meant for it: table talk is written in the log and
    not answered (the table stops listening while it speaks), a command left unfinished is said."""
    from assistant.voice.recognizer import INCOMPLETE_REASON, addressed

    first = make_app()
    async with first.run_test() as pilot:
        await pilot.press("escape")
        await play(pilot, OPENING)
    talk = spoken("who wants a drink", tmp_path / "talk.wav")
    unfinished = spoken("alice swaps row two for", tmp_path / "unfinished.wav")
    app = make_app(Settings(voice=VoiceSettings(speak=False)), voice=True, audio_input=[talk, unfinished])
    said: list[str] = []
    app.say = said.append  # what the table asks its speaker to say (muted here: no audio device)
    async with app.run_test() as pilot:
        deadline = time.monotonic() + 90  # a safety limit for a loaded machine, not a timing check
        while app.status_line.mic != ("off", "audio input ended") and time.monotonic() < deadline:
            await pilot.pause(0.1)
        await pilot.pause(0.5)  # the last event may still be on its way
        rejected = [line.split(": ", 1)[1] for line in app.table_log.plain if line.startswith("🎤 heard")]
        assert len(rejected) == 2, app.table_log.plain
        talk_reason, unfinished_reason = rejected
        assert not addressed(talk_reason) and talk_reason not in said, (talk_reason, said)
        assert unfinished_reason == INCOMPLETE_REASON and said.count(INCOMPLETE_REASON) == 1, said
        assert app.view.game.turn == "alice" and app.view.game.phase is Phase.TURNS  # nothing changed
