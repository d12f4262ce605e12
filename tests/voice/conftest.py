"""Real audio for the voice tests: espeak-ng speaks into WAV files (no mocks, no recordings)."""

from __future__ import annotations

import shutil
import subprocess
import wave
from collections.abc import Callable
from pathlib import Path

import pytest

needs_espeak = pytest.mark.skipif(
    shutil.which("espeak-ng") is None, reason="espeak-ng is installed by 'make setup'"
)


@pytest.fixture
def synth(tmp_path: Path) -> Callable[..., Path]:
    """``synth("alice knocks")`` -> a WAV of espeak-ng saying it (22050 Hz mono, as espeak writes)."""
    counter = iter(range(10_000))

    def make(text: str, voice: str = "en-us", speed: int = 160, pitch: int = 50) -> Path:
        path = tmp_path / f"say{next(counter):03d}.wav"
        subprocess.run(
            ["espeak-ng", "-v", voice, "-s", str(speed), "-p", str(pitch), "-w", str(path), text],
            check=True, capture_output=True,
        )
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
