"""Audio inputs for SpeechRecognition: WAV files at real-time pace, and the microphone via arecord.

Used by the listener (``assistant.voice.listener``) and the voice benchmark. Both are
``speech_recognition.AudioSource``s (``SAMPLE_RATE``, ``SAMPLE_WIDTH``, ``CHUNK``, ``stream``
with ``read``), so ``Recognizer.listen`` and ``listen_in_background`` work on them unchanged.
PyAudio (SpeechRecognition's own ``Microphone``) has no Linux wheel, hence ``ArecordSource``.

Both can be *deafened* (``deaf = True``) while the referee speaks: audio keeps flowing at the
same pace but reads as silence, so the referee never hears itself.
"""

from __future__ import annotations

import shutil
import subprocess
import threading
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from assistant.commands.files import InputRefused
from assistant.voice.recognizer import speech_recognition
from assistant.voice.recording import (
    MAX_AUDIO_SECONDS,
    SAMPLE_RATE,
    SAMPLE_WIDTH,
    AudioRefused,
    open_recording,
)

# Loading this module loads SpeechRecognition, on purpose: its Recognizer asserts
# ``isinstance(source, AudioSource)``, so the sources below must subclass that class, which
# must exist when they are defined. Nothing else happens at import. The cost is paid only by
# those who listen: the listener imports this module inside the function that opens a source,
# so start-up and the headless commands never load it (tests/test_import_hygiene.py).
sr = speech_recognition()

#: SpeechRecognition's ``AudioSource``: ``Recognizer.listen`` asserts that its input is one. The
#: library ships no types (to a type checker it is Any, which a class may not subclass under
#: ``--strict``), so the type checker sees a plain base class.
if TYPE_CHECKING:
    _SpeechRecognitionSource = object
else:
    _SpeechRecognitionSource = sr.AudioSource

CHUNK = 512  # frames per read: 32 ms at 16 kHz (end-of-speech is detected in whole chunks)


class AudioUnavailable(RuntimeError):
    """No audio input; the message is one line for the status bar."""


class _PacedStream:
    """Reads from a byte buffer no faster than real time (when ``realtime``)."""

    def __init__(self, source: WavSource) -> None:
        self.source = source
        self.position = 0

    def read(self, frames: int) -> bytes:
        source = self.source
        data = source.data
        if source.closed or self.position >= len(data):
            return b""
        size = frames * SAMPLE_WIDTH
        chunk = bytes(data[self.position : self.position + size])
        self.position += len(chunk)
        if source.realtime:
            if source.started_at is None:
                source.started_at = time.monotonic()
            due = source.started_at + self.position / (SAMPLE_RATE * SAMPLE_WIDTH)
            delay = due - time.monotonic()
            if delay > 0:
                source.wake.wait(delay)
        if source.deaf:
            return bytes(len(chunk))
        return chunk


class WavSource(_SpeechRecognitionSource):
    """WAV files played in as if spoken into a microphone, one after another.

    Files may have any sample rate and be mono or stereo. ``gap`` seconds of silence separate
    them (so each is its own utterance) and ``trailing_silence`` follows the last; then the
    stream ends. ``started_at`` is the monotonic time the first chunk was read.
    """

    def __init__(
        self,
        files: Sequence[str],
        *,
        gap: float = 0.8,
        leading_silence: float = 0.3,
        trailing_silence: float = 1.0,
        realtime: bool = True,
    ) -> None:
        self.files = tuple(files)
        self.gap = gap
        self.leading_silence = leading_silence
        self.trailing_silence = trailing_silence
        self.realtime = realtime
        self.SAMPLE_RATE = SAMPLE_RATE
        self.SAMPLE_WIDTH = SAMPLE_WIDTH
        self.CHUNK = CHUNK
        self.stream: _PacedStream | None = None
        #: The files' audio at 16 kHz mono 16-bit, with the silences around them.
        self.data: bytes | bytearray = b""
        #: (first byte, end byte) of each file in ``data``.
        self.spans: list[tuple[int, int]] = []
        self.started_at: float | None = None
        self.deaf = False
        self.closed = False
        self.wake = threading.Event()  # set by close() to cut a paced wait short

    def load(self) -> None:
        """Read and convert the files (raises ``AudioUnavailable`` naming a bad file). Every
        header is checked, and the files' length together bounded, before any is decoded; then
        each is decoded a block at a time into one buffer (no copy of a whole file at its own
        rate, nor of the whole input)."""
        recordings = []
        total = 0.0
        for path in self.files:
            try:
                recording = open_recording(path)
            except InputRefused as err:
                raise AudioUnavailable(str(err)) from None
            except AudioRefused as err:
                raise AudioUnavailable(f"cannot read audio input {path}: {err}") from None
            recordings.append(recording)
            total += recording.seconds or 0.0
            if total > MAX_AUDIO_SECONDS:
                raise AudioUnavailable(_too_long(path))
        data = bytearray(_silence(self.leading_silence))
        most = len(data) + _bytes_of(MAX_AUDIO_SECONDS + self.gap * len(recordings))
        self.spans = []
        for i, recording in enumerate(recordings):
            if i:
                data += _silence(self.gap)
            at = len(data)
            try:
                for block in recording.blocks():
                    data += block
                    if len(data) > most:  # FLAC files that did not say their length
                        raise AudioUnavailable(_too_long(recording.path))
            except AudioRefused as err:
                raise AudioUnavailable(f"cannot read audio input {recording.path}: {err}") from None
            self.spans.append((at, len(data)))
        data += _silence(self.trailing_silence)
        self.data = data

    def __enter__(self) -> WavSource:
        if not self.data:
            self.load()
        self.closed = False
        self.stream = _PacedStream(self)
        return self

    def __exit__(self, *exc: object) -> None:
        self.stream = None

    def close(self) -> None:
        self.closed = True
        self.wake.set()

    @property
    def ended(self) -> bool:
        """Whether all of the files have been played in."""
        return self.stream is not None and self.stream.position >= len(self.data)


class _ArecordStream:
    def __init__(self, process: subprocess.Popen[bytes], source: ArecordSource) -> None:
        self.process = process
        self.source = source

    def read(self, frames: int) -> bytes:
        stdout = self.process.stdout
        if stdout is None:
            return b""
        data = stdout.read(frames * SAMPLE_WIDTH)
        if self.source.deaf:
            return bytes(len(data))
        return data


class ArecordSource(_SpeechRecognitionSource):
    """The default microphone through ALSA's ``arecord`` (16 kHz mono, 16-bit)."""

    def __init__(self, device: str | None = None) -> None:
        self.device = device
        self.SAMPLE_RATE = SAMPLE_RATE
        self.SAMPLE_WIDTH = SAMPLE_WIDTH
        self.CHUNK = CHUNK
        self.stream: _ArecordStream | None = None
        self.process: subprocess.Popen[bytes] | None = None
        self.deaf = False

    def __enter__(self) -> ArecordSource:
        exe = shutil.which("arecord")
        if exe is None:
            raise AudioUnavailable("no microphone: arecord (alsa-utils) is not installed")
        command = [exe, "-q", "-t", "raw", "-f", "S16_LE", "-r", str(SAMPLE_RATE), "-c", "1"]
        if self.device:
            command += ["-D", self.device]
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE)
        assert process.stdout is not None
        first = process.stdout.read(CHUNK * SAMPLE_WIDTH)
        if not first:
            err = process.stderr.read().decode(errors="replace") if process.stderr else ""
            process.wait()
            for pipe in (process.stdout, process.stderr):
                if pipe is not None:
                    pipe.close()
            lines = [line for line in err.splitlines() if line.strip()]
            detail = lines[-1].split(": ", 2)[-1] if lines else f"exit status {process.returncode}"
            raise AudioUnavailable(f"no microphone ({detail.strip()[:100]})")
        self.process = process
        self.stream = _ArecordStream(process, self)
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        process = self.process
        self.process = None
        self.stream = None
        if process is not None:
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=2)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
            for pipe in (process.stdout, process.stderr):
                if pipe is not None:
                    pipe.close()


def _bytes_of(seconds: float) -> int:
    return int(seconds * SAMPLE_RATE) * SAMPLE_WIDTH


def _silence(seconds: float) -> bytes:
    return bytes(_bytes_of(seconds))


def _too_long(path: str) -> str:
    minutes = MAX_AUDIO_SECONDS // 60
    return f"the audio input runs over {minutes} minutes at {path}: play in at most {minutes} minutes in all"
