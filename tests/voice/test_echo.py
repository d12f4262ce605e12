"""The echo canceller on real speech: espeak-ng's voice played through a simulated laptop (a small
speaker's distortion, a room's echo) is taken out of the microphone's signal; without a canceller
the device is half-duplex and says so."""

from __future__ import annotations

import subprocess
import wave
from pathlib import Path

import numpy as np
import pytest

from assistant.voice import duplex as duplex_module
from assistant.voice import echo
from assistant.voice.duplex import DEAF_WHILE_SPEAKING, PREROLL_SECONDS, SimulatedDuplex
from assistant.voice.echo import (
    FRAME,
    ResidualEchoSuppressor,
    erle_db,
    load_canceller,
    make_canceller,
)
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


def _through(mic: np.ndarray, played: np.ndarray, learn_until: int) -> tuple[np.ndarray, np.ndarray]:
    """``mic`` cancelled by SpeexDSP, and that again through a ``ResidualEchoSuppressor`` (active
    throughout, learning on the first ``learn_until`` samples), its one frame of delay taken off."""
    canceller, suppressor = make_canceller("speex"), ResidualEchoSuppressor()
    cleaned, suppressed = [], []
    for at in range(0, len(mic) - FRAME + 1, FRAME):
        frame = canceller.process(mic[at:at + FRAME].tobytes(), played[at:at + FRAME].tobytes())
        cleaned.append(np.frombuffer(frame, dtype="<i2"))
        suppressed.append(np.frombuffer(suppressor.process(frame, played[at:at + FRAME].tobytes(),
                                                           learn=at < learn_until, active=True), dtype="<i2"))
    canceller.close()
    late = np.concatenate(suppressed).astype(np.float64)[FRAME:]
    return np.concatenate(cleaned).astype(np.float64)[: len(late)], late


def test_the_residual_echo_suppressor_takes_out_what_the_canceller_left_and_keeps_a_voice(tmp_path: Path) -> None:
    """The small speaker's clipping is no linear echo: SpeexDSP leaves some 22-25 dB under the
    echo, which the suppressor takes down by another 2 dB or more (2.9 dB measured); a voice
    spoken over the echo keeps its level within 3 dB (1.1 dB measured), and a voice alone (nothing
    played) passes untouched, a frame late."""
    once = (speech16k(ANNOUNCEMENT, tmp_path).astype(np.float64) * 0.7).astype("<i2")
    played = np.concatenate([once, once])
    echo_signal = EchoPath(room_response(0.5, 0.15, seed=3), gain=0.5)(played) * 32768  # the longer tail
    cleaned, suppressed = _through(np.clip(echo_signal, -32768, 32767).astype("<i2"), played, len(played))
    after, n = len(once), len(suppressed)
    assert erle_db(echo_signal[after:n], suppressed[after:n]) >= erle_db(echo_signal[after:n], cleaned[after:n]) + 2

    voice = speech16k("row three, bear, sheep, dog", tmp_path, "en-gb").astype(np.float64) * 0.3
    at = len(once) + 16000
    spoken = np.zeros(len(played))
    spoken[at:at + len(voice)] = voice
    mic = np.clip(echo_signal + spoken, -32768, 32767).astype("<i2")
    _, suppressed = _through(mic, played, len(once))
    words = slice(at, at + len(voice))
    assert abs(erle_db(spoken[words], suppressed[words])) < 3

    cleaned, suppressed = _through(np.clip(spoken, -32768, 32767).astype("<i2"), np.zeros_like(played), 0)
    assert np.abs(suppressed - cleaned).max() <= 1
    assert np.abs(suppressed[words]).max() > 1000  # the voice is there to be kept


def _barge_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, suppression: bool) -> tuple[np.ndarray, float, int]:
    """An announcement played twice (the canceller converges on the first), a voice 2 s into the
    second: what the listener heard, the barge-in's time and the voice's first sample."""
    monkeypatch.setattr(duplex_module, "OVERLAP_SUPPRESSION", suppression)
    once = (speech16k(ANNOUNCEMENT, tmp_path).astype(np.float64) * 0.7).astype("<i2")
    voice = speech16k("row three, bear, sheep, dog", tmp_path, "en-gb").astype(np.float64) * 0.5
    at = len(once) + 16000 + 2 * 16000
    mic = np.zeros(at + len(voice) + 16000)
    mic[at:at + len(voice)] = voice
    device = SimulatedDuplex(np.clip(mic, -32768, 32767).astype("<i2").tobytes(),
                             EchoPath(room_response(0.4, 0.15, seed=3), gain=0.5), make_canceller("speex"),
                             realtime=False)
    device.play(once.tobytes())
    while device.playing:
        device.tick()
    for _ in range(100):
        device.tick()
    device.play(once.tobytes())
    device.run()
    heard = np.frombuffer(device.read(len(mic) * 4), dtype="<i2").astype(np.float64)
    assert len(device.onsets) == 1
    return heard, device.onsets[0], at + int(np.nonzero(np.abs(voice) > 0.05 * np.abs(voice).max())[0][0])


def test_after_a_barge_in_the_speech_over_the_announcement_is_heard_with_less_residual_echo(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The listener hears the preroll (the speech before the onset was confirmed) with what the
    canceller left of the echo suppressed: before the voice starts that is quieter than without
    the suppressor, the voice itself as loud, and the stream as long (a frame later)."""
    plain, stop, onset = _barge_in(tmp_path, monkeypatch, False)
    suppressed, stop_too, _ = _barge_in(tmp_path, monkeypatch, True)
    assert stop_too == stop and len(suppressed) == len(plain)
    # The listener's stream: silence while the announcement played, then the preroll from
    # PREROLL_SECONDS before the barge-in frame, then the capture as it comes.
    start = int(round(stop * 16000)) - FRAME
    voice_in_stream = start + onset - (start - PREROLL_SECONDS * 16000 - FRAME)
    before = slice(start, int(voice_in_stream) - 800)
    assert before.stop - before.start > 1600  # the stop came a little after the voice's onset
    residual_plain, residual_suppressed = (10 * np.log10(np.mean(x[before] ** 2)) for x in (plain, suppressed))
    assert residual_suppressed < residual_plain - 2, (residual_plain, residual_suppressed)
    announcing = slice(onset - 2 * 16000 + 8000, start - 1600)  # the second announcement, before the stop
    assert not plain[announcing].any() and not suppressed[announcing].any()
    words = slice(int(voice_in_stream) + 1600, int(voice_in_stream) + 16000)
    assert abs(erle_db(plain[words], suppressed[words])) < 2
