"""The speaker: announcements in order, stop, mute, a missing back end; nothing on the terminal.

Real espeak-ng synthesis (through pyttsx3) and real player processes: the "player" is a small
shell command that logs which file it was given, and the synthesised WAVs are decoded back with
the recogniser to check *what* was said, in which order.
"""

from __future__ import annotations

import os
import subprocess
import threading
import time
import wave
from pathlib import Path

import pytest

from assistant.config import VoiceSettings
from assistant.voice import speaker as speaker_module
from assistant.voice.recognizer import CommandRecognizer, read_wav
from assistant.voice.speaker import Speaker

from .conftest import needs_espeak

pytestmark = needs_espeak


class States:
    """Collects on_state calls and lets a test wait for one."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str | None]] = []
        self.changed = threading.Condition()

    def __call__(self, state: str, reason: str | None) -> None:
        with self.changed:
            self.seen.append((state, reason))
            self.changed.notify_all()

    def wait_for(self, state: str, timeout: float = 15.0) -> bool:
        with self.changed:
            return self.changed.wait_for(lambda: any(s == state for s, _ in self.seen), timeout)


def logging_player(log: Path, then: str = "") -> list[str]:
    """A player command that appends the WAV's name to ``log`` (and then runs ``then``)."""
    script = 'echo "$1" >> "$0"' + (f"; exec {then}" if then else "")
    return ["sh", "-c", script, str(log), "{file}"]


def test_queued_announcements_are_all_spoken_in_order(tmp_path: Path, capfd) -> None:
    log = tmp_path / "played.txt"
    states = States()
    speaker = Speaker(VoiceSettings(rate=150), states, player=logging_player(log),
                      wav_dir=tmp_path / "said")
    speaker.start()
    started = time.monotonic()
    for text in ("status", "help", "undo"):
        speaker.say(text)
    assert time.monotonic() - started < 0.5  # say() only queues
    assert speaker.wait_idle(30)
    speaker.close()
    played = [line for line in log.read_text().split() if "probe" not in line]
    assert len(played) == 3
    wavs = sorted((tmp_path / "said").glob("*.wav"))
    assert len(wavs) == 3
    # What was synthesised, decoded back, in order:
    # No game: only the meta commands; no filler model, a forced choice among them.
    recognizer = CommandRecognizer(garbage_weight=0.0)
    heard = [recognizer.decode_audio(read_wav(str(w))) for w in wavs]
    assert [h.command.canonical if h.command else h.text for h in heard] == [
        "status", "help", "undo"]
    assert ("speaking", None) in states.seen and speaker.state == "on"
    out, err = capfd.readouterr()
    assert out == "" and err == ""


class EmptyFirstEngine:
    """An engine as pyttsx3's espeak driver behaves now and then: its first file holds no audio
    (``empty`` times); later ones are espeak-ng's own."""

    def __init__(self, empty: int) -> None:
        self.empty = empty
        self.runs = 0
        self.pending: tuple[str, str] | None = None

    def setProperty(self, name: str, value: object) -> None:
        pass

    def save_to_file(self, text: str, filename: str) -> None:
        self.pending = (text, filename)

    def runAndWait(self) -> None:
        assert self.pending is not None
        text, filename = self.pending
        self.runs += 1
        if self.runs <= self.empty:
            with wave.open(filename, "wb") as w:
                w.setnchannels(1)
                w.setsampwidth(2)
                w.setframerate(22050)
        else:
            subprocess.run(["espeak-ng", "-w", filename, text], check=True, capture_output=True)


def test_an_announcement_synthesised_empty_is_synthesised_again(tmp_path: Path) -> None:
    path = str(tmp_path / "say.wav")
    engine = EmptyFirstEngine(empty=1)
    assert speaker_module._synthesize(engine, "help", path, VoiceSettings()) is None
    assert engine.runs == 2
    heard = CommandRecognizer(garbage_weight=0.0).decode_audio(read_wav(path))
    assert heard.command is not None and heard.command.canonical == "help"
    never = EmptyFirstEngine(empty=99)
    assert speaker_module._synthesize(never, "help", path, VoiceSettings()) == "speech off: synthesis wrote no audio"
    assert never.runs == speaker_module.SYNTHESIS_ATTEMPTS


def test_stop_interrupts_and_forgets_the_queue(tmp_path: Path, capfd) -> None:
    log = tmp_path / "played.txt"
    states = States()
    speaker = Speaker(VoiceSettings(), states, player=logging_player(log, "sleep 30"))
    speaker.start()
    assert speaker.wait_idle(15)  # the device probe ran (and was cut short)
    for text in ("first announcement", "second announcement", "third announcement"):
        speaker.say(text)
    assert states.wait_for("speaking")
    deadline = time.monotonic() + 15
    while "say" not in (log.read_text() if log.exists() else "") and time.monotonic() < deadline:
        time.sleep(0.02)  # until the first announcement's player is running (for 30 s)
    speaker.stop()
    assert speaker.wait_idle(10)  # returns promptly: the sleeping player was killed
    speaker.close()
    played = [line for line in log.read_text().split() if "probe" not in line]
    assert len(played) == 1
    assert states.seen[-1][0] == "on"
    out, err = capfd.readouterr()
    assert out == "" and err == ""


def test_muted_announcements_are_dropped_until_unmuted(tmp_path: Path, capfd) -> None:
    log = tmp_path / "played.txt"
    states = States()
    speaker = Speaker(VoiceSettings(), states, player=logging_player(log), wav_dir=tmp_path / "said")
    speaker.start()
    assert speaker.toggle_mute() is True and speaker.state == "muted"
    speaker.say("nobody hears this")
    assert speaker.wait_idle(15)
    assert not (tmp_path / "said").exists()
    assert speaker.toggle_mute() is False and speaker.state == "on", speaker.reason
    speaker.say("now you hear me")
    assert speaker.wait_idle(15)
    speaker.close()
    assert len(list((tmp_path / "said").glob("*.wav"))) == 1, (states.seen, log.read_text())
    assert [s for s, _ in states.seen].count("muted") == 1
    out, err = capfd.readouterr()
    assert out == "" and err == ""


def test_speakers_starting_and_ending_together_all_speak(tmp_path: Path, capfd) -> None:
    """espeak-ng is one library per process: two engines at once crashed it, and an ending one
    left the next announcement unwritten. Speakers share the process's one engine."""
    dying = [Speaker(VoiceSettings(), player=["sh", "-c", "exit 1"]) for _ in range(2)]
    talking = [Speaker(VoiceSettings(), player=["true", "{file}"], wav_dir=tmp_path / f"said{i}")
               for i in range(3)]
    for speaker in dying + talking:
        speaker.start()
    for speaker in talking:
        speaker.say("status")
    for speaker in dying:
        assert speaker.wait_idle(15) and speaker.state == "unavailable"
        speaker.close()
    for i, speaker in enumerate(talking):
        speaker.say("undo")
        assert speaker.wait_idle(30)
        assert speaker.state == "on", speaker.reason
        speaker.close()
        assert len(list((tmp_path / f"said{i}").glob("*.wav"))) == 2
    out, err = capfd.readouterr()
    assert out == "" and err == ""


def test_muted_from_the_config_starts_muted(tmp_path: Path) -> None:
    speaker = Speaker(VoiceSettings(speak=False), player=logging_player(tmp_path / "log"))
    speaker.start()
    assert speaker.wait_idle(15)
    assert speaker.state == "muted"
    speaker.close()


@pytest.mark.parametrize(
    ("player", "reason"),
    [
        (["no-such-player-lifeguard", "{file}"], "no audio player"),
        (["sh", "-c", "echo 'cannot open audio device' >&2; exit 1"], "no audio device"),
    ],
)
def test_no_audio_device_degrades_to_a_one_line_notice(player, reason, capfd) -> None:
    states = States()
    speaker = Speaker(VoiceSettings(), states, player=player)
    speaker.start()
    assert states.wait_for("unavailable")
    assert speaker.state == "unavailable" and reason in (speaker.reason or "")
    assert "\n" not in (speaker.reason or "")
    speaker.say("this goes nowhere")  # a no-op, not an error
    speaker.stop()
    assert speaker.toggle_mute() is True
    speaker.close()
    assert states.seen == [("unavailable", speaker.reason)]
    out, err = capfd.readouterr()
    assert out == "" and err == ""


def test_no_espeak_degrades_to_a_notice(tmp_path: Path, monkeypatch, capfd) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    states = States()
    speaker = Speaker(VoiceSettings(), states)
    speaker.start()
    assert states.wait_for("unavailable")
    assert "espeak-ng is not installed" in (speaker.reason or "")
    speaker.close()
    out, err = capfd.readouterr()
    assert out == "" and err == ""


def test_the_default_player_on_this_machine_speaks_or_says_why_not(capfd) -> None:
    """aplay with or without a sound card: either speech works or the notice names the device."""
    states = States()
    speaker = Speaker(VoiceSettings(), states)
    speaker.start()
    assert speaker.wait_idle(15)
    if speaker.state == "unavailable":
        assert speaker.reason and speaker.reason.startswith("speech off:")
    else:
        assert speaker.state == "on"
    speaker.close()
    out, err = capfd.readouterr()
    assert out == "" and err == ""
    assert os.environ.get("PATH")  # (the environment was left alone)
