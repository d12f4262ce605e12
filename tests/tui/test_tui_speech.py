"""What the table hands its speaker under ``speech = "brief"`` (the default): a real ``Speaker``
(real espeak-ng synthesis through pyttsx3, a real player process: a shell command that logs the
WAV it is given, so no audio device is needed) that also records the text it is asked to say.
Typed commands say nothing but the round's result; heard ones (through the listener's message,
``HeardCommand``) their brief read-back; the log keeps every sentence in full."""

from __future__ import annotations

import random
import shutil
import time
from pathlib import Path

import pytest

from assistant import announce
from assistant.commands import parse
from assistant.config import Settings, VoiceSettings
from assistant.referee import Referee
from assistant.tui.voice import HeardCommand
from assistant.voice import speaker as speaker_module
from engine.events import RoundEnded

from .conftest import game_lines, history, play

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed"),
]


class RecordingSpeaker(speaker_module.Speaker):
    """The real speaker, keeping what it was asked to say."""

    texts: list[str] = []

    def say(self, text: str) -> None:
        RecordingSpeaker.texts.append(text)
        super().say(text)


async def wait_for(pilot, done, what: str, limit: float = 60) -> None:
    deadline = time.monotonic() + limit  # a safety limit for a loaded machine, not a timing check
    while not done():
        assert time.monotonic() < deadline, what
        await pilot.pause(0.1)


async def test_the_table_says_only_results_of_typed_commands_and_brief_read_backs_of_heard_ones(
        make_app, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    played = tmp_path / "played.txt"
    player = ["sh", "-c", 'echo "$1" >> "$0"', str(played), "{file}"]
    RecordingSpeaker.texts = []
    monkeypatch.setattr(speaker_module, "Speaker", lambda settings, on_state=None, duplex=None: RecordingSpeaker(
        settings, on_state, player=player, wav_dir=tmp_path / "said", duplex=duplex))
    lines = game_lines()[:15]  # game 152's first round, ending with the third hand
    heard = {4: "row 4 giraffe mole mole pig", 6: "grace swaps 3 sheep dog rabbit"}
    assert all(lines[i] == text for i, text in heard.items())
    app = make_app(Settings(voice=VoiceSettings(listen="off")), voice=True)
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: app.status_line.speech[0] == "on", f"speech: {app.status_line.speech}")
        await pilot.press("escape")
        for i, line in enumerate(lines):
            if i not in heard:
                await play(pilot, [line])
                continue
            before = len(history(app))
            app.post_message(HeardCommand(parse(line, app.view.players), line))
            await wait_for(pilot, lambda before=before: len(history(app)) > before, f"heard {line}")
            await pilot.pause()
        assert history(app)[-13:] == lines[2:]
        await play(pilot, ["repeat"])
        log = app.table_log.plain
        speaker = app.voice.speaker
        assert speaker.wait_idle(60)

    # The round as the referee plays it: its result in brief, and in full for 'repeat'.
    referee = Referee(rng=random.Random(0), confirm_new_game=False)
    replies = [referee.handle(line) for line in lines]
    ended = [e for e in replies[-1].events if isinstance(e, RoundEnded)]
    assert ended
    result = " ".join(announce.brief(ended[0]))
    assert RecordingSpeaker.texts == [
        "Row 4: giraffe mole mole pig.",
        "Grace: sheep dog rabbit for row 3.",
        result,
        " ".join(replies[-1].said),  # 'repeat' says the whole result
    ], RecordingSpeaker.texts
    assert "lose" in result or "out." in result
    # the log keeps every sentence in full, typed or heard
    for reply in replies[2:]:
        for sentence in reply.said:
            assert any(sentence in line for line in log), sentence
    # each text was synthesised and handed to the player
    assert len(list((tmp_path / "said").glob("*.wav"))) == 4
    assert len([line for line in played.read_text().split() if "probe" not in line]) == 4
