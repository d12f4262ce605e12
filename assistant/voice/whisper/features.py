"""Whisper's input: the log-mel features of an utterance, with the room's own sound and a short
silence after it.

Used by ``assistant.voice.whisper.model.WhisperModel.encode`` (the encoder's input) and the
voice benchmark (``--tail``).
"""

from __future__ import annotations

import math

import numpy as np

SAMPLE_RATE = 16000
N_FFT = 400
HOP = 160
#: Silence appended after the speech before encoding: Whisper was trained on 30 s windows, but a
#: command plus a few seconds decodes as well and costs a tenth of the encoder time.
TAIL_SECONDS = 3.0
#: The room's own sound put after the speech, before the silence: Whisper hears a command's end
#: better when the room goes on after it than when the audio stops dead. An utterance is often
#: decoded 0.15 s after the speech (the listener's early end); decoding each line of three whole
#: games by voice that way gave 241 of 278 commands right, 248 with this room tone, and 249 with
#: 0.6 s of real quiet after the speech. Tune split of the voice corpus: clean 94.2 -> 95.0%,
#: noise 81.8 -> 84.3%, chatter 52.9 -> 50.4%, talk rejected 96.2 -> 96.6%.
ROOM_TONE_SECONDS = 0.85
#: The stretch of the utterance taken as its room tone: its quietest quarter of a second, if
#: its energy is below this share of the loudest quarter's (20 dB down: a quiet room). Over the
#: corpus's pink noise and chatter (10 dB below the speech) a 15 dB bound let the room tone in
#: and cost commands and talk rejection (decoded 0.15 s after the speech, 300 test files: noise
#: 39 -> 38, chatter 26 -> 24, talk rejected 106 -> 103); at 20 dB: 39, 26, 105, and the whole
#: games' 248 of 278 kept.
ROOM_WINDOW_SECONDS = 0.25
ROOM_TONE_MAX_LEVEL = 0.01


def _hz_to_mel(freq: np.ndarray) -> np.ndarray:
    """Slaney's mel scale (librosa's default, which Whisper's filters use)."""
    f_sp = 200.0 / 3
    min_log_hz, log_step = 1000.0, math.log(6.4) / 27.0
    mels = freq / f_sp
    log_region = freq >= min_log_hz
    mels[log_region] = min_log_hz / f_sp + np.log(freq[log_region] / min_log_hz) / log_step
    return mels


def _mel_to_hz(mels: np.ndarray) -> np.ndarray:
    f_sp = 200.0 / 3
    min_log_hz, log_step = 1000.0, math.log(6.4) / 27.0
    min_log_mel = min_log_hz / f_sp
    freqs = f_sp * mels
    log_region = mels >= min_log_mel
    freqs[log_region] = min_log_hz * np.exp(log_step * (mels[log_region] - min_log_mel))
    return freqs


def mel_filters(n_mels: int) -> np.ndarray:
    """Triangular, area-normalised mel filters from 0 to 8 kHz, shape (n_mels, N_FFT//2 + 1)."""
    fft_freqs = np.linspace(0, SAMPLE_RATE / 2, N_FFT // 2 + 1)
    edges = _mel_to_hz(np.linspace(_hz_to_mel(np.array([0.0]))[0], _hz_to_mel(np.array([8000.0]))[0], n_mels + 2))
    widths = np.diff(edges)
    ramps = edges[:, None] - fft_freqs[None, :]
    lower = -ramps[:-2] / widths[:-1, None]
    upper = ramps[2:] / widths[1:, None]
    weights = np.maximum(0.0, np.minimum(lower, upper))
    weights *= (2.0 / (edges[2 : n_mels + 2] - edges[:n_mels]))[:, None]
    return weights.astype(np.float32)


_WINDOW = (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(N_FFT) / N_FFT)).astype(np.float32)


def log_mel(audio: np.ndarray, filters: np.ndarray) -> np.ndarray:
    """Whisper's log-mel spectrogram of 16 kHz float audio: shape (n_mels, frames), frames even."""
    audio = np.asarray(audio, dtype=np.float32)
    padded = np.pad(audio, (N_FFT // 2, N_FFT // 2), mode="reflect")
    count = 1 + (len(padded) - N_FFT) // HOP
    index = np.arange(N_FFT)[None, :] + HOP * np.arange(count)[:, None]
    power = np.abs(np.fft.rfft(padded[index] * _WINDOW, axis=1)) ** 2
    mel = filters @ power[:-1].T
    log = np.log10(np.maximum(mel, 1e-10))
    log = np.maximum(log, log.max() - 8.0)
    frames = log.shape[1] - log.shape[1] % 2  # the encoder's stride-2 convolution halves it
    return np.ascontiguousarray(((log + 4.0) / 4.0)[:, :frames], dtype=np.float32)


def room_tone(audio: np.ndarray, seconds: float | None = None) -> np.ndarray:
    """``seconds`` of the utterance's own quietest stretch (``ROOM_WINDOW_SECONDS``, found in
    steps of 50 ms), repeated: what the room sounds like when nobody speaks. Empty for audio
    too short to hold such a stretch, and when no stretch is quiet enough to be the room."""
    seconds = ROOM_TONE_SECONDS if seconds is None else seconds
    window = int(ROOM_WINDOW_SECONDS * SAMPLE_RATE)
    if seconds <= 0 or len(audio) < 2 * window:
        return np.zeros(0, dtype=np.float32)
    hop = SAMPLE_RATE // 20
    # The energy of each 50 ms block, then of each window (``window // hop`` blocks) as their
    # sums: a few numbers per second of audio, where a running sum over every sample took 16
    # bytes a sample (2 GB for an hour).
    blocks = np.asarray(audio[: len(audio) // hop * hop], dtype=np.float32).reshape(-1, hop)
    block_energy = np.einsum("ij,ij->i", blocks, blocks, dtype=np.float64)
    energy = np.concatenate([[0.0], np.cumsum(block_energy)])
    per_window = window // hop
    energies = energy[per_window:] - energy[:-per_window]
    quietest = int(np.argmin(energies)) * hop
    if not 0 < energies.min() < ROOM_TONE_MAX_LEVEL * energies.max():
        # Digital silence (the tail's own silence does as well), or no stretch quiet enough: a
        # piece of the speech repeated would be heard as more words, a noisy room's as talk.
        return np.zeros(0, dtype=np.float32)
    count = int(seconds * SAMPLE_RATE)
    return np.tile(audio[quietest : quietest + window], -(-count // window))[:count]


def features_for(audio: np.ndarray, filters: np.ndarray) -> np.ndarray:
    """The encoder's input for one utterance: the speech, ``ROOM_TONE_SECONDS`` of the room's
    own sound after it (``room_tone``), then ``TAIL_SECONDS`` of silence."""
    audio = np.asarray(audio, dtype=np.float32)
    tail = np.zeros(int(SAMPLE_RATE * TAIL_SECONDS), dtype=np.float32)
    return log_mel(np.concatenate([audio, room_tone(audio), tail]), filters)

