"""A simulated table: what a laptop's microphone hears of its own small speaker.

Used by the simulated full-duplex device (``assistant.voice.duplex.SimulatedDuplex``, behind
``lifeguard listen --audio-input``), the echo tests and the echo benchmarks. The path from the
played samples to the microphone is a small speaker (no bass, soft clipping when driven hard),
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
    """A laptop speaker: no bass (first-order high-pass near 300 Hz) and soft clipping (tanh);
    ``samples`` are floats in [-1, 1]."""
    return _Speaker(drive)(np.asarray(samples, dtype=np.float64))


class _Speaker:
    """``small_speaker`` with its filter's state kept from one block to the next."""

    def __init__(self, drive: float = 1.6) -> None:
        self.drive = drive
        self.alpha = 1.0 / (1.0 + 2 * np.pi * 300 / SAMPLE_RATE)
        self._x = self._y = 0.0

    def __call__(self, block: Any) -> Any:
        out = np.empty_like(block)
        alpha, x0, y0 = self.alpha, self._x, self._y
        for i, value in enumerate(block.tolist()):  # one pole, sample by sample; no scipy needed
            y0 = alpha * (y0 + value - x0)
            x0 = value
            out[i] = y0
        self._x, self._y = x0, y0
        return np.tanh(self.drive * out) / np.tanh(self.drive)


class EchoPath:
    """Played blocks in, their echo at the microphone out, block by block (the tail carries over).

    ``gain``: the echo's level at the microphone relative to what was played.
    """

    def __init__(self, response: Any, gain: float = 1.0, *, distortion: bool = True) -> None:
        self.response = np.asarray(response, dtype=np.float64) * gain
        self._speaker = _Speaker() if distortion else None
        self._tail = np.zeros(len(self.response) - 1)

    def __call__(self, played: Any) -> Any:
        """The echo (floats, full scale 1) of ``played`` (int16 samples or floats in [-1, 1])."""
        block = np.asarray(played)
        block = block.astype(np.float64) / 32768.0 if block.dtype == np.int16 else block.astype(np.float64)
        if self._speaker is not None:
            block = self._speaker(block)
        out = np.convolve(block, self.response)
        out[: len(self._tail)] += self._tail
        n = len(block)
        self._tail = out[n:].copy() if n else self._tail
        return out[:n]
