"""The table starts and takes commands with no audio device and no espeak-ng: voice loads in the
background, says calmly why it is unavailable, and never stands in the way."""

from __future__ import annotations

from pathlib import Path

import pytest

from assistant.config import Settings, VoiceSettings
from assistant.tui.screens import TableScreen

from .conftest import play


@pytest.mark.slow
async def test_starts_and_accepts_a_command_without_audio_or_espeak(
    make_app, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))  # no espeak-ng, no aplay, nothing
    monkeypatch.setenv("AUDIODEV", "/nonexistent")
    monkeypatch.setenv("ALSA_CONFIG_PATH", str(tmp_path / "no-alsa.conf"))
    (tmp_path / "no-alsa.conf").write_text("# no sound cards here\n")
    missing_wav = str(tmp_path / "missing.wav")
    settings = Settings(voice=VoiceSettings(speak=True, listen="push_to_talk"))
    app = make_app(settings, voice=True, audio_input=[missing_wav])
    async with app.run_test() as pilot:
        await pilot.press("escape")
        # the table takes commands while the voice may still be loading
        await play(pilot, ["new game alice bob carol", "row 1 giraffe"])
        assert app.view.game.rows[0] is not None
        status = app.status_line
        for _ in range(600):  # voice loads in the background: wait for it (a safety limit only)
            await app.workers.wait_for_complete()
            await pilot.pause(0.05)
            if "loading" not in (status.mic[0], status.speech[0]):
                break
        mic, mic_reason = status.mic
        speech, speech_reason = status.speech
        assert mic != "loading" and speech != "loading"
        for state, reason in ((mic, mic_reason), (speech, speech_reason)):
            if state == "unavailable":
                assert reason, "an unavailable device says why"
        # pressing the voice keys never crashes; the table still works afterwards
        await pilot.press("f5", "f6", "f6")
        await play(pilot, ["row 2 bear dog"])
        assert app.view.game.rows[1] is not None
        assert isinstance(app.screen, TableScreen)
        assert "mic: " in status.text() and "speech: " in status.text()
