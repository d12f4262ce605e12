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
from assistant.voice.duplex import SimulatedDuplex
from assistant.voice.echo import make_canceller
from assistant.voice.room import EchoPath, room_response
from assistant.voice.speaker import Speaker

from .conftest import needs_espeak

pytestmark = [needs_espeak, pytest.mark.slow]

ANNOUNCEMENT = ("Row three: giraffe, mole and cat. Row four comes next, with four cards. "
                "Bob has three lives, Carol has two lives, Alice has three; nobody is out yet.")
#: When the player starts (seconds of the device's clock; the announcement starts about a second
#: in, once synthesised, so this is some four seconds into it, the canceller converged).
SPEAKS_AT = 5.0


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


def test_speaking_over_an_announcement_stops_it(tmp_path: Path) -> None:
    """The speaker plays through the simulated laptop; the player's voice over it stops it soon
    after the voice's onset, once, and the referee is ready to speak again."""
    mic, onset = player_says("row four sheep goat goat mouse", tmp_path)
    duplex = SimulatedDuplex([str(mic)], EchoPath(room_response(0.4, 0.15, seed=1), gain=0.5),
                             make_canceller("speex"))
    speaker = Speaker(VoiceSettings(), duplex=duplex)
    duplex.on_onset = speaker.stop
    states: list[str] = []
    speaker.on_state = lambda state, reason: states.append(f"{state} {reason or ''}".strip())
    speaker.start()
    try:
        duplex.start()
        speaker.say(ANNOUNCEMENT)  # about 9 s of speech, from about 0.5 s on
        deadline = time.monotonic() + 30
        while not duplex.ended and time.monotonic() < deadline:
            time.sleep(0.1)
        assert speaker.wait_idle(5)
    finally:
        speaker.close()
        duplex.close()
    assert states[-2:] == ["speaking", "on"]
    assert len(duplex.onsets) == 1
    # Stopped after the voice began and soon after (the target is 300 ms: bench/room_echo.py).
    assert onset <= duplex.onsets[0] <= onset + 0.5
    heard = np.frombuffer(duplex.read(10 ** 8), dtype="<i2")
    # The listener heard silence while the referee spoke alone, and the voice from its onset on.
    assert not heard[int(2.0 * 16000):int((onset - 0.1) * 16000)].any()
    assert np.abs(heard[int(onset * 16000):int((onset + 1.5) * 16000)]).max() > 3000


def test_without_a_voice_the_announcement_plays_to_its_end(tmp_path: Path) -> None:
    mic = tmp_path / "quiet.wav"
    with wave.open(str(mic), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
        w.writeframes(bytes(2 * 16000 * 11))
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
