"""Real audio for the voice tests: espeak-ng speaks into WAV files (no mocks, no recordings)."""

from __future__ import annotations

import shutil
import subprocess
import wave
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

needs_espeak = pytest.mark.skipif(
    shutil.which("espeak-ng") is None, reason="espeak-ng is installed by 'make setup'"
)


@pytest.fixture
def one_blas_thread() -> Iterator[None]:
    """The decoder's products on one BLAS thread, as ``WhisperRecognizer.finish`` runs them
    (BLAS's own threads wait by spinning: on busy cores the tests that call the decoder
    directly took ten times as long). Modules that decode take it with
    ``pytestmark = pytest.mark.usefixtures("one_blas_thread")``."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        yield


@pytest.fixture(scope="module")
def recognizer():  # noqa: ANN201 (the Whisper model is imported only where it is used)
    """Whisper for a game of alice, bob and carol, loaded once a module."""
    from assistant.voice.whisper import WhisperRecognizer

    return WhisperRecognizer(("alice", "bob", "carol"))


#: What espeak-ng said for each (text, voice, speed, pitch) in this process: it says the same
#: bytes every time, and the same sentences recur across the voice tests.
_SAID: dict[tuple[str, str, int, int], bytes] = {}


@pytest.fixture
def synth(tmp_path: Path) -> Callable[..., Path]:
    """``synth("alice knocks")`` -> a WAV of espeak-ng saying it (22050 Hz mono, as espeak writes),
    a file of the test's own (espeak-ng runs once a process for each sentence and voice)."""
    counter = iter(range(10_000))

    def make(text: str, voice: str = "en-us", speed: int = 160, pitch: int = 50) -> Path:
        path = tmp_path / f"say{next(counter):03d}.wav"
        key = (text, voice, speed, pitch)
        if key in _SAID:
            path.write_bytes(_SAID[key])
            return path
        subprocess.run(
            ["espeak-ng", "-v", voice, "-s", str(speed), "-p", str(pitch), "-w", str(path), text],
            check=True, capture_output=True,
        )
        _SAID[key] = path.read_bytes()
        return path

    return make


def join_wavs(parts: list[Path], out: Path, pause: float) -> Path:
    """One WAV holding ``parts`` one after another with ``pause`` seconds of silence between."""
    frames = []
    params = None
    for part in parts:
        with wave.open(str(part)) as w:
            params = w.getparams()
            frames.append(w.readframes(w.getnframes()))
    assert params is not None
    gap = bytes(int(params.framerate * pause) * params.sampwidth * params.nchannels)
    with wave.open(str(out), "wb") as w:
        w.setparams(params)
        w.writeframes(gap.join(frames))
    return out


def quiet_over_noise(speech: Path, out: Path, peak_dbfs: float = -8.0, below_db: float = 20.0) -> Path:
    """``speech`` at 16 kHz, its peak at ``peak_dbfs``, over steady noise ``below_db`` under the
    speech's own level (RMS of its voiced part) that starts a second before the speech and goes
    on a second after it."""
    resampled = out.with_suffix(".16k.wav")
    subprocess.run(["sox", str(speech), "-r", "16000", "-c", "1", "-b", "16", str(resampled)], check=True)
    with wave.open(str(resampled)) as w:
        voice = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(np.float64)
    voice *= (32767 * 10 ** (peak_dbfs / 20)) / max(np.abs(voice).max(), 1)
    pad = np.zeros(16000)
    signal = np.concatenate([pad, voice, pad])
    voiced = voice[np.abs(voice) > 0.05 * np.abs(voice).max()]
    level = float(np.sqrt(np.mean(voiced ** 2)))
    noise = np.random.default_rng(3).normal(0, level * 10 ** (-below_db / 20), len(signal))
    mixed = np.clip(signal + noise, -32768, 32767).astype("<i2")
    with wave.open(str(out), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
        w.writeframes(mixed.tobytes())
    return out
