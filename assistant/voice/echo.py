"""Acoustic echo cancelling: the referee's own voice taken out of the microphone's signal.

Used by the full-duplex audio device (``assistant.voice.duplex``) and the echo benchmarks. A
canceller is fed, frame by frame, what the microphone captured and what the speaker played at
the same moment (the *reference*, on the same clock), and returns the capture with the echo of
the reference removed, so the listener can stay open while the referee speaks.

Two back ends, measured against each other in bench/NOTES.md ("Echo cancelling"):

- ``speex``: SpeexDSP's echo canceller (MDF adaptive filter; its preprocessor's residual echo
  suppression optional, off), from Debian's ``libspeexdsp1`` through ctypes (no compiled wrapper needed;
  the C API has not changed since 2008).
- ``webrtc``: WebRTC's audio processing module (AEC3), from PyPI's ``aec-audio-processing``
  (its wheel ships the library).

Both are loaded lazily by ``load_canceller``; when none loads, it returns no canceller and a
reason for the status line, and the table falls back to being deaf while it speaks.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Sequence
from typing import Any, Protocol

#: The audio format cancellers work on: the listener's (16 kHz mono, 16-bit little-endian).
SAMPLE_RATE = 16000
SAMPLE_WIDTH = 2

#: The back ends, best first (bench/NOTES.md, "Echo cancelling").
CANCELLERS: tuple[str, ...] = ("speex", "webrtc")

#: SpeexDSP's echo tail: a room's reverberation worth cancelling (RT60 0.3-0.5 s; the late tail
#: under -30 dB is left to the residual suppressor).
SPEEX_TAIL_SECONDS = 0.25
#: Frame of 10 ms, the unit both back ends want.
FRAME = SAMPLE_RATE // 100

# speex_echo.h / speex_preprocess.h request numbers.
_SPEEX_ECHO_SET_SAMPLING_RATE = 24
_SPEEX_PREPROCESS_SET_DENOISE = 0
_SPEEX_PREPROCESS_SET_AGC = 2
_SPEEX_PREPROCESS_SET_ECHO_STATE = 24


class EchoCanceller(Protocol):
    """Cleans a capture of the echo of what was played."""

    #: Which back end ("speex" or "webrtc").
    name: str
    #: Samples per frame that ``process`` takes.
    frame: int

    def process(self, capture: bytes, played: bytes) -> bytes:
        """One frame of capture and of the reference played at the same time -> cleaned capture."""
        ...

    def close(self) -> None: ...


class CancellerUnavailable(RuntimeError):
    """No canceller could be loaded; the message is one line for the status bar."""


class SpeexCanceller:
    """SpeexDSP's echo canceller (and, with ``suppress``, its residual echo suppressor), on 10 ms
    frames."""

    name = "speex"

    def __init__(self, tail_seconds: float = SPEEX_TAIL_SECONDS, *, suppress: bool = False,
                 denoise: bool = False) -> None:
        lib = _speexdsp()
        self.frame = FRAME
        self._lib = lib
        self._echo = lib.speex_echo_state_init(self.frame, int(tail_seconds * SAMPLE_RATE))
        # The preprocessor's residual echo suppression (``suppress``) is off: it took no echo out
        # that the benchmark could measure (22.3 dB either way) and some of a voice spoken over
        # the echo (bench/NOTES.md, "Barge-in": 27/30 commands heard exactly without it, 26/30 with).
        self._pre = lib.speex_preprocess_state_init(self.frame, SAMPLE_RATE) if suppress else None
        if not self._echo or (suppress and not self._pre):
            raise CancellerUnavailable("SpeexDSP's echo canceller failed to start")
        rate = ctypes.c_int(SAMPLE_RATE)
        lib.speex_echo_ctl(self._echo, _SPEEX_ECHO_SET_SAMPLING_RATE, ctypes.byref(rate))
        if self._pre is not None:
            # Whisper wants the voice as it is: no noise gate, no gain control, only the echo out.
            off = ctypes.c_int(1 if denoise else 0)
            lib.speex_preprocess_ctl(self._pre, _SPEEX_PREPROCESS_SET_DENOISE, ctypes.byref(off))
            agc = ctypes.c_int(0)
            lib.speex_preprocess_ctl(self._pre, _SPEEX_PREPROCESS_SET_AGC, ctypes.byref(agc))
            lib.speex_preprocess_ctl(self._pre, _SPEEX_PREPROCESS_SET_ECHO_STATE, ctypes.c_void_p(self._echo))
        self._out = ctypes.create_string_buffer(self.frame * SAMPLE_WIDTH)

    def process(self, capture: bytes, played: bytes) -> bytes:
        if self._echo is None:
            return capture
        self._lib.speex_echo_cancellation(self._echo, capture, played, self._out)
        if self._pre is not None:
            self._lib.speex_preprocess_run(self._pre, self._out)
        return self._out.raw

    def close(self) -> None:
        if self._echo is not None:
            if self._pre is not None:
                self._lib.speex_preprocess_state_destroy(self._pre)
            self._lib.speex_echo_state_destroy(self._echo)
            self._echo = self._pre = None


class WebRtcCanceller:
    """WebRTC's audio processing module (AEC3 only: no noise suppression, no gain control)."""

    name = "webrtc"

    def __init__(self, delay_ms: int = 0) -> None:
        try:
            from aec_audio_processing import AudioProcessor
        except Exception as err:  # noqa: BLE001 - a missing or broken wheel: no canceller
            raise CancellerUnavailable(
                f"WebRTC's echo canceller is not installed ({_one_line(err)})") from None
        self.frame = FRAME
        self._apm: Any = AudioProcessor(enable_aec=True, enable_ns=False, enable_agc=False,
                                        enable_vad=False)
        self._apm.set_stream_format(SAMPLE_RATE, 1)
        self._apm.set_reverse_stream_format(SAMPLE_RATE, 1)
        self._apm.set_stream_delay(delay_ms)

    def process(self, capture: bytes, played: bytes) -> bytes:
        self._apm.process_reverse_stream(played)
        out: bytes = self._apm.process_stream(capture)
        return out

    def close(self) -> None:
        self._apm = None


def load_canceller(preference: Sequence[str] = CANCELLERS) -> tuple[EchoCanceller | None, str | None]:
    """The first back end of ``preference`` that loads, or None and why none did (one line)."""
    reasons = []
    for name in preference:
        try:
            return make_canceller(name), None
        except CancellerUnavailable as err:
            reasons.append(str(err))
    return None, "; ".join(reasons) or "no echo canceller named"


def make_canceller(name: str) -> EchoCanceller:
    """The canceller ``name`` ("speex" or "webrtc"); raises ``CancellerUnavailable``."""
    if name == "speex":
        return SpeexCanceller()
    if name == "webrtc":
        return WebRtcCanceller()
    raise CancellerUnavailable(f"unknown echo canceller {name!r}: speex or webrtc")


#: Where to look for SpeexDSP; a test points it elsewhere to see the fallback.
SPEEXDSP_LIBRARIES: list[str] = ["libspeexdsp.so.1", "libspeexdsp.so"]


def _speexdsp() -> Any:
    """SpeexDSP's library with its functions typed (raises ``CancellerUnavailable``)."""
    names = list(SPEEXDSP_LIBRARIES)
    lib = None
    for name in names:
        try:
            lib = ctypes.CDLL(name)
            break
        except OSError:
            continue
    if lib is None or not hasattr(lib, "speex_echo_state_init"):
        raise CancellerUnavailable("SpeexDSP is not installed (Debian package libspeexdsp1)")
    pointer, integer = ctypes.c_void_p, ctypes.c_int
    lib.speex_echo_state_init.restype = pointer
    lib.speex_echo_state_init.argtypes = [integer, integer]
    lib.speex_echo_ctl.argtypes = [pointer, integer, pointer]
    lib.speex_echo_cancellation.argtypes = [pointer, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p]
    lib.speex_echo_cancellation.restype = None
    lib.speex_echo_state_destroy.argtypes = [pointer]
    lib.speex_echo_state_destroy.restype = None
    lib.speex_preprocess_state_init.restype = pointer
    lib.speex_preprocess_state_init.argtypes = [integer, integer]
    lib.speex_preprocess_ctl.argtypes = [pointer, integer, pointer]
    lib.speex_preprocess_run.argtypes = [pointer, ctypes.c_char_p]
    lib.speex_preprocess_state_destroy.argtypes = [pointer]
    lib.speex_preprocess_state_destroy.restype = None
    return lib


def erle_db(echo: Sequence[float] | Any, residual: Sequence[float] | Any) -> float:
    """Echo return loss enhancement: how much quieter ``residual`` is than ``echo``, in dB."""
    import numpy as np

    e = np.asarray(echo, dtype=np.float64)
    r = np.asarray(residual, dtype=np.float64)
    return float(10 * np.log10((np.mean(e ** 2) + 1e-9) / (np.mean(r ** 2) + 1e-9)))


def _one_line(value: object) -> str:
    lines = [line.strip() for line in str(value).splitlines() if line.strip()]
    return (lines[-1] if lines else type(value).__name__)[:100]


class ResidualEchoSuppressor:
    """What the canceller leaves of the echo, suppressed band by band: the speaker's distortion
    (a small speaker clips) is no linear echo, so about 20 dB under the echo some of the referee's
    voice is left. While a player speaks over the referee, that is enough to turn a command's
    first word into another ("Row three" heard as "No.": bench/NOTES.md, session 17).

    Frames of cleaned capture and of what was played go in; frames come out one frame late
    (``FRAME``: a short-time spectrum over two frames, half overlapping, rebuilt exactly when no
    gain is applied). Per band it learns, while ``learn`` is on (echo alone), how much of the
    played signal's power the canceller leaves (``leak``, against the played power's recent
    envelope; it rises slowly and falls fast, so that a voice the onset detector has not yet
    found does not count as echo). With ``active`` it takes out ``OVERSUBTRACT`` times the leak
    times that envelope, leaving at least ``FLOOR_DB``. Without ``active`` the output is the
    input, one frame late. A harder setting (4 times, the leak as a mean, and clipping's spread
    over other bands counted) took more echo out and more of the first word with it: worse on
    the room benchmark's second seed (bench/NOTES.md, session 17).
    """

    #: The least gain in a band (dB): a voice under the residual is kept quieter, not removed.
    FLOOR_DB = -20.0
    #: How much more than the estimated residual echo is taken out.
    OVERSUBTRACT = 2.0
    #: How fast the played power's envelope falls per frame (dB): the room's reverberation.
    DECAY_DB = 1.5
    #: How fast the leak is learnt per frame, rising and falling.
    LEARN_UP, LEARN_DOWN = 0.01, 0.1

    def __init__(self) -> None:
        import numpy as np

        self._np = np
        n = 2 * FRAME
        self._window = np.sqrt(0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n) / n))  # periodic sqrt-Hann
        bins = n // 2 + 1
        self._cleaned = np.zeros(n)
        self._played = np.zeros(n)
        self._envelope = np.zeros(bins)
        self.leak = np.full(bins, 1e-2)  # -20 dB: the canceller's usual ERLE, until learnt
        self._overlap = np.zeros(FRAME)
        self._decay = 10 ** (-self.DECAY_DB / 10)

    def process(self, cleaned: bytes, played: bytes, *, learn: bool, active: bool) -> bytes:
        """One frame in, the frame before it out (suppressed when ``active``)."""
        np = self._np
        self._cleaned = np.concatenate([self._cleaned[FRAME:], np.frombuffer(cleaned, dtype="<i2")])
        self._played = np.concatenate([self._played[FRAME:], np.frombuffer(played, dtype="<i2")])
        spectrum = np.fft.rfft(self._cleaned * self._window)
        power = np.abs(spectrum) ** 2
        played_power = np.abs(np.fft.rfft(self._played * self._window)) ** 2
        self._envelope = np.maximum(played_power, self._envelope * self._decay)
        if learn:
            ratio = power / (self._envelope + 1e-3)
            rate = np.where(ratio > self.leak, self.LEARN_UP, self.LEARN_DOWN)
            self.leak += rate * (np.minimum(ratio, 1.0) - self.leak)
        if active:
            residual = self.OVERSUBTRACT * self.leak * self._envelope
            gain = np.sqrt(np.clip(1 - residual / (power + 1e-3), 10 ** (self.FLOOR_DB / 10), 1.0))
            spectrum = spectrum * gain
        frame = np.fft.irfft(spectrum, 2 * FRAME) * self._window
        out = self._overlap + frame[:FRAME]
        self._overlap = frame[FRAME:]
        return bytes(np.clip(np.round(out), -32768, 32767).astype("<i2").tobytes())
