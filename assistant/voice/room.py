"""A simulated table: what a laptop's microphone hears of its own small speaker.

Used by the simulated full-duplex device (``assistant.voice.duplex.SimulatedDuplex``, behind
``lifeguard listen --room``), the echo tests and the echo benchmarks. The path from the
played samples to the microphone is a small speaker (soft clipping when driven hard, no bass),
then a room's impulse response: a direct path a few centimetres long, early reflections and an
exponentially decaying diffuse tail for a given RT60. ``EchoPath`` applies it block by block, on
the clock of the capture, as a real room would.
"""

from __future__ import annotations

from typing import Any

import numpy as np

SAMPLE_RATE = 16000


def room_response(rt60: float = 0.4, distance: float = 0.15, *, seed: int = 0,
                  sample_rate: int = SAMPLE_RATE) -> Any:
    """An impulse response from a laptop's speaker to its microphone ``distance`` metres away in a
    room whose reverberation time is ``rt60`` seconds (float array, direct path's gain 1)."""
    rng = np.random.default_rng(seed)
    length = int(rt60 * sample_rate)
    response = np.zeros(length)
    direct = int(distance / 343.0 * sample_rate)
    response[direct] = 1.0
    # Early reflections: the table, the screen, the walls (1-15 ms later, weaker).
    for _ in range(8):
        at = direct + int(rng.uniform(0.001, 0.015) * sample_rate)
        response[at] += rng.uniform(-0.25, 0.25)
    # The diffuse tail: noise decaying by 60 dB over rt60, from 5 ms on, 20 dB under the direct path.
    t = np.arange(length) / sample_rate
    start = direct + int(0.005 * sample_rate)
    tail = rng.normal(0, 1, length) * 10 ** (-3 * t / rt60) * 0.1
    tail[:start] = 0
    return response + tail


def small_speaker(samples: Any, drive: float = 1.6) -> Any:
    """A laptop speaker's amplifier: soft clipping (tanh) of ``samples``, floats in [-1, 1]. Its
    missing bass is ``NO_BASS``, folded into the echo path's response."""
    return np.tanh(drive * np.asarray(samples, dtype=np.float64)) / np.tanh(drive)


def _no_bass(taps: int = 63, cutoff: float = 300.0) -> Any:
    """A linear-phase FIR high-pass near ``cutoff`` Hz (windowed sinc): a small driver's response."""
    n = np.arange(taps) - (taps - 1) / 2
    low = 2 * cutoff / SAMPLE_RATE * np.sinc(2 * cutoff / SAMPLE_RATE * n) * np.hamming(taps)
    high = -low
    high[(taps - 1) // 2] += 1.0
    return high


NO_BASS = _no_bass()


class EchoPath:
    """Played blocks in, their echo at the microphone out, block by block (the tail carries over):
    a small speaker (soft clipping, no bass) and then ``response``.

    ``gain``: the echo's level at the microphone relative to what was played.
    """

    def __init__(self, response: Any, gain: float = 1.0, *, distortion: bool = True) -> None:
        response = np.asarray(response, dtype=np.float64) * gain
        self.distortion = distortion
        self.response = np.convolve(response, NO_BASS) if distortion else response
        self._tail = np.zeros(len(self.response) - 1)

    def __call__(self, played: Any) -> Any:
        """The echo (floats, full scale 1) of ``played`` (int16 samples or floats in [-1, 1])."""
        block = np.asarray(played)
        block = block.astype(np.float64) / 32768.0 if block.dtype == np.int16 else block.astype(np.float64)
        if self.distortion:
            block = small_speaker(block)
        out = np.convolve(block, self.response)
        out[: len(self._tail)] += self._tail
        n = len(block)
        self._tail = out[n:].copy() if n else self._tail
        return out[:n]
