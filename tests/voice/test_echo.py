"""The echo canceller on real speech: espeak-ng's voice played through a simulated laptop (a small
speaker's distortion, a room's echo) is taken out of the microphone's signal; without a canceller
the device is half-duplex and says so."""

from __future__ import annotations

import subprocess
import wave
from pathlib import Path

import numpy as np
import pytest

from assistant.voice import echo
from assistant.voice.duplex import DEAF_WHILE_SPEAKING, SimulatedDuplex
from assistant.voice.echo import FRAME, erle_db, load_canceller, make_canceller
from assistant.voice.room import EchoPath, room_response

from .conftest import needs_espeak

pytestmark = [needs_espeak]

ANNOUNCEMENT = ("Bob swaps row two: pig and sheep for giraffe and cat. Carol, your turn. "
                "Alice loses one life; Bob has the majority of bears.")


def speech16k(text: str, tmp_path: Path, voice: str = "en-us") -> np.ndarray:
    raw, out = tmp_path / "raw.wav", tmp_path / "16k.wav"
    subprocess.run(["espeak-ng", "-v", voice, "-w", str(raw), text], check=True, capture_output=True)
    subprocess.run(["sox", str(raw), "-r", "16000", "-c", "1", "-b", "16", str(out)], check=True)
    with wave.open(str(out)) as w:
        return np.frombuffer(w.readframes(w.getnframes()), dtype="<i2")


@pytest.mark.parametrize("rt60", [0.3, 0.5])
def test_speex_takes_20_db_of_echo_out_after_convergence(tmp_path: Path, rt60: float) -> None:
    once = (speech16k(ANNOUNCEMENT, tmp_path).astype(np.float64) * 0.7).astype("<i2")
    played = np.concatenate([once, once])  # the first time through, the canceller converges
    echo_signal = EchoPath(room_response(rt60, 0.15, seed=3), gain=0.5)(played) * 32768
    noise = np.random.default_rng(0).normal(0, 3, len(echo_signal))
    mic = np.clip(echo_signal + noise, -32768, 32767).astype("<i2")
    canceller = make_canceller("speex")
    cleaned = np.concatenate([
        np.frombuffer(canceller.process(mic[at:at + FRAME].tobytes(), played[at:at + FRAME].tobytes()),
                      dtype="<i2")
        for at in range(0, len(mic) - FRAME + 1, FRAME)]).astype(np.float64)
    canceller.close()
    after = len(once)
    n = len(cleaned)
    assert erle_db(echo_signal[after:n], cleaned[after:n] - noise[after:n]) >= 20
    # Without cancelling, nothing is taken out: the measure itself can fail.
    assert erle_db(echo_signal[after:n], mic[after:n] - noise[after:n]) < 1


def test_no_canceller_loaded_is_said_and_the_device_is_deaf_while_it_plays(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(echo, "SPEEXDSP_LIBRARIES", [str(tmp_path / "libspeexdsp.so.1")])
    canceller, reason = load_canceller(("speex",))
    assert canceller is None
    assert reason is not None and "SpeexDSP is not installed" in reason
    played = speech16k("Row one: bear, dog.", tmp_path)
    mic = np.zeros(len(played) + 16000, dtype="<i2")
    duplex = SimulatedDuplex(mic.tobytes(), EchoPath(room_response(0.4), gain=0.5), None,
                             canceller_reason=reason, realtime=False)
    assert not duplex.full_duplex and duplex.reason == DEAF_WHILE_SPEAKING
    done = duplex.play(played.tobytes())
    duplex.run()
    assert done.is_set()
    heard = np.frombuffer(duplex.read(len(mic) * 2), dtype="<i2")
    assert len(heard) == len(mic)
    assert not heard[: len(played)].any()  # the echo never reaches the listener
    assert np.abs(heard[len(played) + 8000:]).max() < 200  # and after the announcement, quiet


def test_stop_cuts_playback_at_the_next_frame(tmp_path: Path) -> None:
    played = speech16k(ANNOUNCEMENT, tmp_path)
    mic = np.zeros(3 * 16000, dtype="<i2")
    duplex = SimulatedDuplex(mic.tobytes(), None, make_canceller("speex"), realtime=False)
    done = duplex.play(played.tobytes())
    for _ in range(100):
        duplex.tick()
    assert duplex.playing and not done.is_set()
    duplex.stop_playback()
    assert done.is_set() and not duplex.playing
    assert not any(duplex.next_played())


def test_the_listener_behind_the_clock_catches_up_in_a_pause() -> None:
    """After a barge-in the listener hears the speech from before its onset, so it runs behind
    the clock; quiet frames after a pause are dropped until it has caught up, and speech never."""
    speech = (np.sin(np.arange(16000) * 2 * np.pi * 220 / 16000) * 8000).astype("<i2")
    mic = np.concatenate([speech, np.zeros(2 * 16000, dtype="<i2"), speech])
    duplex = SimulatedDuplex(mic.tobytes(), None, make_canceller("speex"), realtime=False, noise_dbfs=-80)
    duplex.lag = 40  # 0.4 s behind
    duplex.run()
    heard = np.frombuffer(duplex.read(len(mic) * 4), dtype="<i2")
    assert duplex.lag == 0
    assert len(heard) == len(mic) - 40 * FRAME
    loud = np.abs(heard) > 2000
    assert loud[: 16000 - 160].mean() > 0.5 and loud[-16000 + 160:].mean() > 0.5  # speech kept whole
