"""Barge-in: a player speaks over the referee's announcement and the announcement stops soon after
the speech's onset; with nobody speaking it plays to its end.

Everything real but the room: espeak-ng speaks the announcement through ``Speaker`` into a
simulated laptop (``SimulatedDuplex``: the speaker's echo added to the microphone on one clock),
SpeexDSP cancels the echo, flite is the player, at real-time pace. (That the listener then hears
the command whole is not tested yet: see bench/NOTES.md, "Barge-in".)
"""

from __future__ import annotations

import subprocess
import time
import wave
from pathlib import Path

import numpy as np
import pytest

from assistant.config import VoiceSettings
from assistant.referee import Referee
from assistant.voice.duplex import SimulatedDuplex
from assistant.voice.echo import make_canceller
from assistant.voice.listener import Heard, ListenContext, Listener, Rejected
from assistant.voice.room import EchoPath, room_response
from assistant.voice.speaker import Speaker

from .conftest import needs_espeak

pytestmark = [needs_espeak, pytest.mark.slow]

ANNOUNCEMENT = ("Row three: giraffe, mole and cat. Row four comes next, with four cards. "
                "Bob has three lives, Carol has two lives, Alice has three; nobody is out yet.")
#: Said first: the canceller converges on it (a table's referee has always said something before).
BEFORE = "Row three: giraffe, mole and cat. Bob has three lives, Carol has two, Alice has three."
#: When the player starts (seconds of the device's clock): about two seconds into ANNOUNCEMENT.
SPEAKS_AT = 8.0


def player_says(text: str, tmp_path: Path) -> tuple[Path, float]:
    """A microphone recording: quiet, then ``text`` in flite's voice, then quiet; and the onset of
    the speech in the device's clock (``WavSource`` puts 0.3 s of silence first)."""
    raw, voice = tmp_path / "flite.wav", tmp_path / "voice.wav"
    subprocess.run(["flite", "-voice", "slt", "-t", text, "-o", str(raw)], check=True, capture_output=True)
    subprocess.run(["sox", str(raw), "-r", "16000", "-c", "1", "-b", "16", str(voice), "vol", "0.5"], check=True)
    with wave.open(str(voice)) as w:
        speech = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2")
    onset = int(np.nonzero(np.abs(speech) > 0.05 * np.abs(speech).max())[0][0])
    mic = np.concatenate([np.zeros(int((SPEAKS_AT - 0.3) * 16000), dtype="<i2"), speech,
                          np.zeros(3 * 16000, dtype="<i2")])
    path = tmp_path / "mic.wav"
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
        w.writeframes(mic.tobytes())
    return path, SPEAKS_AT + onset / 16000


def test_without_a_voice_the_announcement_plays_to_its_end(tmp_path: Path) -> None:
    mic = tmp_path / "quiet.wav"
    with wave.open(str(mic), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
        w.writeframes(bytes(2 * 16000 * 5))
    duplex = SimulatedDuplex([str(mic)], EchoPath(room_response(0.4, 0.15, seed=1), gain=0.5),
                             make_canceller("speex"))
    speaker = Speaker(VoiceSettings(), duplex=duplex)
    duplex.on_onset = speaker.stop
    speaker.start()
    try:
        duplex.start()
        speaker.say(ANNOUNCEMENT)
        deadline = time.monotonic() + 30
        while not duplex.ended and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        speaker.close()
        duplex.close()
    assert duplex.onsets == []
    assert not duplex.playing


def test_speaking_over_an_announcement_stops_it_and_is_heard_and_applied(tmp_path: Path) -> None:
    """The referee has said one thing (its canceller converged on it) and says the next; a player
    says a row over it. The announcement stops soon after the voice's onset, and the table's own
    listener, never deafened, hears the row (Whisper) and it is applied."""
    referee = Referee(confirm_new_game=False)
    for line in ("new game alice bob carol", "alice starts", "row 1 pig", "row 2 bear dog",
                 "row 3 giraffe mole cat"):
        assert referee.handle(line).ok, line
    mic, onset = player_says("row four sheep goat goat mouse", tmp_path)
    duplex = SimulatedDuplex([str(mic)], EchoPath(room_response(0.4, 0.15, seed=1), gain=0.5),
                             make_canceller("speex"))
    speaker = Speaker(VoiceSettings(), duplex=duplex)
    duplex.on_onset = speaker.stop
    states: list[tuple[str, float]] = []
    speaker.on_state = lambda state, reason: states.append((state, duplex.clock))
    replies: list = []
    rejected: list = []

    def on_event(event: object) -> None:
        if isinstance(event, Heard):
            replies.append(referee.execute(event.command, heard=True))
            listener.settled()
        elif isinstance(event, Rejected):
            rejected.append(event)

    listener = Listener(VoiceSettings(listen="continuous"), lambda: ListenContext.from_referee(referee),
                        on_event, settle=True, source=duplex.source())
    speaker.start()
    listener.start()
    try:
        deadline = time.monotonic() + 60
        while listener.state != "listening" and time.monotonic() < deadline:
            time.sleep(0.05)
        speaker.say(BEFORE)
        speaker.say(ANNOUNCEMENT)
        while not replies and not duplex.ended and time.monotonic() < deadline:
            time.sleep(0.1)
        # The last words decoded after the microphone's audio ran out: a wait, not a timing check
        # (5 s was too short for Whisper's decode at load ~13 with the whole suite running).
        end = time.monotonic() + 30
        while not replies and time.monotonic() < end:
            time.sleep(0.1)
    finally:
        listener.close()
        speaker.close()
    # Both announcements began; the second was stopped soon after the voice's onset (the issue's
    # target is 300 ms: bench/room_echo.py measures it), and the referee then fell silent.
    assert [state for state, _ in states].count("speaking") == 2, states
    assert states[-1][0] == "on"
    assert len(duplex.onsets) == 1
    assert onset <= duplex.onsets[0] <= onset + 0.5, (onset, duplex.onsets)
    assert states[-1][1] <= duplex.onsets[0] + 0.05
    assert [r.command for r in replies] == ["row 4 goat goat sheep mouse"], (replies, rejected)
    assert replies[0].ok
    assert referee.game is not None and referee.game.rows[3] is not None


def test_listen_room_plays_the_table_into_the_input_and_still_hears(tmp_path: Path, isolated_env) -> None:
    """``lifeguard listen --room``: the session's opening announcement goes through the simulated
    laptop into the audio input (while the canceller first converges the table is deaf, so the
    player waits it out), and the row said after it is heard and applied."""
    from .test_cli import lifeguard

    raw, padded = tmp_path / "row.wav", tmp_path / "padded.wav"
    subprocess.run(["flite", "-voice", "slt", "-t", "row one pig", "-o", str(raw)], check=True, capture_output=True)
    subprocess.run(["sox", str(raw), "-r", "16000", str(padded), "pad", "6", "0"], check=True)
    done = lifeguard("--seed", "1", "listen", "--no-store", "--players", "alice", "bob", "carol",
                     "--room", "--audio-input", str(padded), env=isolated_env)
    assert done.returncode == 0, done.stderr
    assert "heard: row 1 pig" in done.stdout.splitlines(), done.stdout
    assert "Row 1: pig." in done.stdout
    assert "Traceback" not in done.stderr
