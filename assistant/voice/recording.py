"""Recordings in files (WAV, AIFF, FLAC) as the recognisers hear them: 16 kHz mono 16-bit PCM,
a block at a time, and a long recording cut into utterances.

Used by ``recognizer.read_wav`` (a whole short file), ``lifeguard hear`` (``utterances``: a
recording of a whole evening is heard command by command) and ``audio.WavSource`` (``listen
--audio-input``, the table). Nothing is decoded before the header has been read and checked by
our own parser: the sample rate, the channels, the sample width and the length the header
gives (bounded by the file's own size) must be ones a recording of speech has, or the file is
refused with a clause (``AudioRefused``) said after its name. A FLAC file is decoded by the
``flac`` program as it is read, never whole into memory; its length is its STREAMINFO's, and
one that does not say is counted as it is decoded. So memory does not grow with the length
of a file, nor with how well it compresses (a 156 KB FLAC said hours at 384 kHz).

The conversion is SpeechRecognition's (``AudioFile`` then ``AudioData.get_raw_data``), done a
block at a time with ``audioop.ratecv``'s state carried over: the same samples, without a copy
of the whole file at its own rate.
"""

from __future__ import annotations

import math
import os
import struct
import subprocess
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import BinaryIO

from assistant.commands.files import MAX_AUDIO, InputRefused, open_input
from assistant.voice.pcm import audioop

SAMPLE_RATE = 16000
SAMPLE_WIDTH = 2

#: The sample rates a recording may have (Hz). Below 4 kHz nothing above 2 kHz survives, where
#: most of what tells consonants apart lies; no recorder writes speech that way (telephony's
#: 8 kHz is the lowest rate in use). 384 kHz is the top rate of studio converters (DXD is 352.8
#: kHz). A rate outside is a damaged or made-up header: 4294967295 Hz overflowed ``audioop``'s
#: C int, and 1 Hz made a 200 KB file gigabytes once brought to 16 kHz.
MIN_SAMPLE_RATE = 4_000
MAX_SAMPLE_RATE = 384_000
#: The longest recording read: an hour (a whole game recorded to be played in fits). A file's
#: size alone does not bound it (a low rate or FLAC packs more seconds into the same bytes).
MAX_AUDIO_SECONDS = 60 * 60
#: The longest utterance heard at once: Whisper hears a window of 30 s, and after the speech
#: come 0.85 s of room tone and 3 s of silence (``whisper.features.features_for``). A command
#: takes under 10 s; a longer recording is cut into utterances (``utterances``).
MAX_UTTERANCE_SECONDS = 25.0
#: Quiet that ends an utterance in a long recording (the listener's pause is 0.6 s).
SPLIT_PAUSE_SECONDS = 0.6
#: Quiet kept before and after the speech of each utterance cut from a long recording.
MARGIN_SECONDS = 0.3
#: Below this RMS (16-bit; about -60 dBFS) a stretch is quiet whatever is around it.
QUIET_RMS = 30
#: The most chunks read before a WAV's ``data`` or an AIFF's ``SSND`` (real files have a handful;
#: 110 MB of empty chunks would take Python half a minute to walk).
MAX_CHUNKS = 1000
#: Seconds of audio in each block given by ``Recording.blocks``.
BLOCK_SECONDS = 1.0


class AudioRefused(ValueError):
    """A file that is no recording to hear; the message is a clause said after its name
    ("its sample rate, 1 Hz, is not between 4000 and 384000 Hz")."""


@dataclass(frozen=True)
class AudioFormat:
    """What a file's header says, checked."""

    kind: str  # "WAV", "AIFF", "FLAC"
    channels: int
    width: int  # bytes per sample
    rate: int
    frames: int | None  # None: a FLAC stream that does not say
    data_at: int = 0  # where the samples begin (WAV, AIFF)
    big_endian: bool = False
    unsigned: bool = False  # 8-bit WAV

    @property
    def seconds(self) -> float | None:
        return None if self.frames is None else self.frames / self.rate


def _lasts(seconds: float) -> str:
    whole = int(seconds)
    return f"{whole // 60} min {whole % 60} s"


def _too_long(seconds: float) -> AudioRefused:
    return AudioRefused(f"it lasts {_lasts(seconds)}, over the {MAX_AUDIO_SECONDS // 60} minutes heard at most")


#: The sample sizes heard (bits): below 8 a sample is no speech (1-bit "audio" is a made-up
#: header), above 32 ``audioop`` cannot convert it.
MIN_BITS, MAX_BITS = 8, 32


def _checked(kind: str, channels: int, bits: int, rate: float) -> None:
    """Refuse what no recording of speech is (in the order a person would look). ``rate`` may be
    NaN, infinite or negative (an AIFF's rate is a float as written)."""
    if not 1 <= channels <= 2:
        raise AudioRefused(f"it has {channels} channels; a recording to hear is mono or stereo")
    if not MIN_BITS <= bits <= MAX_BITS:
        raise AudioRefused(f"its samples are {bits}-bit; {kind} samples of {MIN_BITS} to {MAX_BITS} "
                           "bits are heard")
    if math.isnan(rate):
        raise AudioRefused("its sample rate is not a number (NaN): its header is damaged")
    if math.isinf(rate):
        raise AudioRefused("its sample rate is infinite: its header is damaged")
    if rate < 0:
        raise AudioRefused(f"its sample rate is negative ({rate:.10g} Hz): its header is damaged")
    if rate == 0:
        raise AudioRefused("its sample rate is 0 Hz: its header is damaged")
    if rate > 2**40:
        raise AudioRefused(f"its sample rate is far over {MAX_SAMPLE_RATE} Hz: its header is damaged")
    if not MIN_SAMPLE_RATE <= rate <= MAX_SAMPLE_RATE:
        raise AudioRefused(f"its sample rate, {rate:.10g} Hz, is not between {MIN_SAMPLE_RATE} "
                           f"and {MAX_SAMPLE_RATE} Hz")


# ---------------------------------------------------------------------------- headers
def _chunks(f: BinaryIO, size: int, order: str) -> Iterator[tuple[bytes, int, int]]:
    """The chunks of a RIFF or IFF file after its 12-byte form header: each chunk's id, its
    size as written and where its body begins (``f`` is left there), padded to even sizes, at
    most ``MAX_CHUNKS`` of them (a file of millions of empty chunks is refused, not walked)."""
    pos = 12
    for _ in range(MAX_CHUNKS):
        if pos + 8 > size:
            return
        f.seek(pos)
        chunk, length = struct.unpack(f"{order}4sI", f.read(8))
        yield chunk, length, pos + 8
        pos += 8 + length + (length & 1)
    raise AudioRefused(f"its header has over {MAX_CHUNKS} chunks before its samples")


def _wav(f: BinaryIO, size: int) -> AudioFormat:
    """A RIFF WAVE header: its ``fmt `` chunk, then where its ``data`` chunk's samples lie (a
    chunk's size, as written, may say more than the file holds: the file's size bounds it)."""
    fmt: tuple[int, int, int, int, int] | None = None
    for chunk, length, pos in _chunks(f, size, "<"):
        if chunk == b"fmt ":
            body = f.read(min(length, 40))
            if len(body) < 16:
                raise AudioRefused("its format chunk is cut short")
            tag, channels, rate, _, align, bits = struct.unpack_from("<HHIIHH", body)
            if tag == 0xFFFE and len(body) >= 26:  # WAVE_FORMAT_EXTENSIBLE: the real tag follows
                tag = struct.unpack_from("<H", body, 24)[0]
            fmt = (tag, channels, rate, align, bits)
        elif chunk == b"data":
            if fmt is None:
                raise AudioRefused("its samples come before their format (no fmt chunk first)")
            tag, channels, rate, align, bits = fmt
            if tag != 1:
                kind = {3: "floating-point", 6: "A-law", 7: "mu-law"}.get(tag, f"format {tag}")
                raise AudioRefused(f"its samples are {kind}; WAV files of plain PCM samples are heard")
            _checked("WAV", channels, bits, rate)
            width = align // channels
            if align != width * channels or not bits <= 8 * width <= MAX_BITS:
                raise AudioRefused(f"its block size is damaged ({align}-byte frames cannot hold "
                                   f"{channels} channel{'s' if channels > 1 else ''} of {bits}-bit samples)")
            frames = min(length, size - pos) // align
            return AudioFormat("WAV", channels, width, rate, frames, pos, unsigned=width == 1)
    raise AudioRefused("it holds no samples (no data chunk)" if fmt else "it has no format chunk")


def _extended(raw: bytes) -> float:
    """An 80-bit IEEE extended float (AIFF's sample rate) in Hz: NaN, infinite or negative as
    written (``_checked`` refuses them); absurd exponents give a rate the checks refuse rather
    than an overflow."""
    sign_and_exponent, mantissa = struct.unpack(">HQ", raw)
    exponent = sign_and_exponent & 0x7FFF
    sign = -1.0 if sign_and_exponent & 0x8000 else 1.0
    if exponent == 0x7FFF:  # infinite when the fraction (below the integer bit) is 0, else NaN
        return sign * math.inf if mantissa & ((1 << 63) - 1) == 0 else math.nan
    if exponent == 0 or mantissa == 0:
        return 0.0
    shift = exponent - 16383 - 63
    return sign * (2.0**41 if shift > 40 else math.ldexp(mantissa, shift))


def _aiff(f: BinaryIO, size: int, compressed: bool) -> AudioFormat:
    """An AIFF or AIFF-C header: its ``COMM`` chunk, then its ``SSND`` samples."""
    comm: tuple[int, int, int, float, bool] | None = None
    for chunk, length, pos in _chunks(f, size, ">"):
        if chunk == b"COMM":
            body = f.read(min(length, 26))
            if len(body) < 18 or (compressed and len(body) < 22):
                raise AudioRefused("its COMM chunk is cut short")
            channels, frames, bits = struct.unpack_from(">hIh", body)
            big_endian = True
            if compressed:
                kind = body[18:22]
                if kind in (b"sowt",):
                    big_endian = False
                elif kind not in (b"NONE", b"twos"):
                    raise AudioRefused(f"its samples are compressed ({kind.decode('latin-1')!r}); "
                                       "AIFF files of plain PCM samples are heard")
            comm = (channels, frames, bits, _extended(body[8:18]), big_endian)
        elif chunk == b"SSND":
            if comm is None:
                raise AudioRefused("its samples come before their format (no COMM chunk first)")
            channels, frames, bits, exact_rate, big_endian = comm
            _checked("AIFF", channels, bits, exact_rate)
            width, rate = (bits + 7) // 8, round(exact_rate)
            offset = struct.unpack(">I", f.read(8)[:4].rjust(4, b"\0"))[0]
            begin = pos + 8 + offset
            held = max(0, min(length - 8 - offset, size - begin)) // (width * channels)
            return AudioFormat("AIFF", channels, width, rate, min(frames, held), begin, big_endian)
    raise AudioRefused("it holds no samples (no SSND chunk)" if comm else "it has no COMM chunk")


def _flac(f: BinaryIO) -> AudioFormat:
    """A FLAC stream's STREAMINFO (the first metadata block, always)."""
    head = f.read(4)
    if len(head) < 4 or head[0] & 0x7F != 0 or int.from_bytes(head[1:4], "big") < 34:
        raise AudioRefused("its FLAC header is damaged (no STREAMINFO)")
    info = f.read(34)
    if len(info) < 34:
        raise AudioRefused("its FLAC header is cut short")
    packed = int.from_bytes(info[10:18], "big")
    rate = packed >> 44
    channels = ((packed >> 41) & 0x7) + 1
    bits = ((packed >> 36) & 0x1F) + 1
    total = packed & ((1 << 36) - 1)
    _checked("FLAC", channels, bits, rate)
    return AudioFormat("FLAC", channels, (bits + 7) // 8, rate, total or None)


def read_format(f: BinaryIO, size: int) -> AudioFormat:
    """The checked format of the open file ``f`` of ``size`` bytes; ``AudioRefused`` if it is no
    recording to hear (not WAV, AIFF or FLAC; channels, samples, rate or length out of bounds)."""
    try:
        magic = f.read(12)
        if magic[:4] == b"RIFF" and magic[8:12] == b"WAVE":
            found = _wav(f, size)
        elif magic[:4] == b"FORM" and magic[8:12] in (b"AIFF", b"AIFC"):
            found = _aiff(f, size, magic[8:12] == b"AIFC")
        elif magic[:4] == b"fLaC":
            f.seek(4)
            found = _flac(f)
        else:
            raise AudioRefused("it is not a WAV, AIFF or FLAC file")
    except struct.error:
        raise AudioRefused("its header is cut short") from None
    if found.seconds is not None and found.seconds > MAX_AUDIO_SECONDS:
        raise _too_long(found.seconds)
    return found


# ---------------------------------------------------------------------------- samples
class _Converter:
    """Blocks of a file's frames -> 16 kHz mono 16-bit, as SpeechRecognition converts a whole
    recording (stereo summed, 8-bit WAV made signed, ``ratecv``, ``lin2lin``), its state
    carried from one block to the next."""

    def __init__(self, fmt: AudioFormat) -> None:
        self.fmt = fmt
        self._state: tuple[int, tuple[tuple[int, int], ...]] | None = None  # ratecv's

    def __call__(self, data: bytes) -> bytes:
        fmt, width = self.fmt, self.fmt.width
        if fmt.big_endian:
            data = audioop.byteswap(data, width)
        if fmt.unsigned:
            data = audioop.bias(data, 1, -128)
        if fmt.channels == 2:
            data = audioop.tomono(data, width, 1, 1)
        if fmt.rate != SAMPLE_RATE:
            data, self._state = audioop.ratecv(data, width, 1, fmt.rate, SAMPLE_RATE, self._state)
        if width != SAMPLE_WIDTH:
            data = audioop.lin2lin(data, width, SAMPLE_WIDTH)
        return data


class Recording:
    """A recording file, its header read and checked (``open_recording``); ``blocks`` gives its
    samples as the recognisers hear them."""

    def __init__(self, path: str, fmt: AudioFormat) -> None:
        self.path = path
        self.format = fmt

    @property
    def seconds(self) -> float | None:
        """Its length, as its header gives it (None: a FLAC stream that does not say)."""
        return self.format.seconds

    def blocks(self, seconds: float = BLOCK_SECONDS) -> Iterator[bytes]:
        """Its audio at 16 kHz mono 16-bit, ``seconds`` at a time (the last block shorter). A
        last frame cut short is left out. Raises ``AudioRefused`` when the file cannot be read
        to its end, or a FLAC file that did not say its length runs over the hour."""
        fmt = self.format
        frame = fmt.width * fmt.channels
        count = max(1, int(seconds * fmt.rate))
        convert = _Converter(fmt)
        read = self._flac_frames if fmt.kind == "FLAC" else self._pcm_frames
        try:
            for data in read(count * frame):
                yield convert(data)
        except InputRefused as err:  # it was replaced since its header was read (a FIFO, a bigger file)
            raise AudioRefused(f"it changed while it was read: {str(err).rstrip('.')}") from None
        except OSError as err:
            raise AudioRefused(f"it could not be read to its end ({err.strerror or err})") from None

    def _pcm_frames(self, size: int) -> Iterator[bytes]:
        fmt = self.format
        left = (fmt.frames or 0) * fmt.width * fmt.channels
        with open_input(self.path, "audio file", MAX_AUDIO) as f:
            f.seek(fmt.data_at)
            while left > 0:
                data = f.read(min(size, left))
                data = data[: len(data) - len(data) % (fmt.width * fmt.channels)]
                if not data:
                    return  # the file shrank meanwhile
                left -= len(data)
                yield data

    def _flac_frames(self, size: int) -> Iterator[bytes]:
        """The FLAC file decoded by ``flac`` as raw little-endian samples, read as they come."""
        from assistant.voice.recognizer import speech_recognition

        fmt = self.format
        frame = fmt.width * fmt.channels
        try:
            program = speech_recognition().get_flac_converter()
        except OSError as err:
            raise AudioRefused(f"FLAC cannot be decoded here ({err})") from None
        with open_input(self.path, "audio file", MAX_AUDIO) as f:
            try:
                process = subprocess.Popen(
                    [program, "--decode", "--stdout", "--totally-silent", "--force-raw-format",
                     "--endian=little", "--sign=signed", "-"],
                    stdin=f, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            except OSError as err:
                raise AudioRefused(f"FLAC cannot be decoded here ({err.strerror or err})") from None
        assert process.stdout is not None
        frames = 0
        limit = MAX_AUDIO_SECONDS * fmt.rate
        try:
            pending = b""
            while chunk := process.stdout.read(size):
                data = pending + chunk
                pending = data[len(data) - len(data) % frame:]
                data = data[: len(data) - len(pending)]
                frames += len(data) // frame
                if frames > limit:  # its STREAMINFO did not say how long it is
                    raise AudioRefused(f"it lasts over the {MAX_AUDIO_SECONDS // 60} minutes heard at most")
                yield data
            if process.wait() != 0 and not frames:
                raise AudioRefused("its FLAC data is damaged")
        finally:
            if process.poll() is None:
                process.kill()
            process.wait()
            process.stdout.close()


def open_recording(path: str | os.PathLike[str]) -> Recording:
    """The recording in ``path``, its header checked. Raises ``InputRefused`` (a sentence: no
    such file, a FIFO, over ``MAX_AUDIO`` bytes) or ``AudioRefused`` (a clause, said after the
    file's name)."""
    with open_input(path, "audio file", MAX_AUDIO) as f:
        try:
            fmt = read_format(f, os.fstat(f.fileno()).st_size)
        except OSError as err:
            raise AudioRefused(f"it could not be read ({err.strerror or err})") from None
    return Recording(os.fspath(path), fmt)


# ---------------------------------------------------------------------------- utterances
def utterances(blocks: Iterable[bytes]) -> Iterator[tuple[float, bytes]]:
    """A recording (16 kHz mono 16-bit blocks) as the utterances to hear one by one: (where it
    starts, in seconds; its audio). A recording of at most ``MAX_UTTERANCE_SECONDS`` is one
    utterance, as it is. A longer one is cut at each pause of ``SPLIT_PAUSE_SECONDS``, with
    ``MARGIN_SECONDS`` of the quiet kept on either side; stretches with no speech are left out,
    and speech that runs on without a pause is cut at its quietest moment before the limit. At
    most ``MAX_UTTERANCE_SECONDS`` of audio is held at a time."""
    limit = int(MAX_UTTERANCE_SECONDS * SAMPLE_RATE) * SAMPLE_WIDTH
    source = iter(blocks)
    buffer = bytearray()
    ended = False

    def fill() -> None:
        nonlocal ended
        while not ended and len(buffer) < limit:
            block = next(source, None)
            if block is None:
                ended = True
            else:
                buffer.extend(block)

    fill()
    if ended and len(buffer) <= limit:
        if buffer:
            yield 0.0, bytes(buffer)
        return
    at = 0  # the byte of the recording where ``buffer`` begins
    while buffer:
        window = bytes(buffer[:limit])
        pieces, used = _speech_in(window, final=ended and len(buffer) <= limit)
        for start, end in pieces:
            yield (at + start) / (SAMPLE_RATE * SAMPLE_WIDTH), window[start:end]
        del buffer[:used]
        at += used
        fill()


#: Samples in the frames whose loudness ``_speech_in`` compares (30 ms).
_FRAME = 480


def _speech_in(window: bytes, final: bool) -> tuple[list[tuple[int, int]], int]:
    """The utterances (start byte, end byte) of ``window`` that are whole, and how many of its
    bytes are done with (the rest begins the next window). When ``final`` (the recording ends
    with it), everything is whole. Speech is what stands out of the window's quiet: over its
    tenth-quietest level by 6 dB and by a tenth of the way to its loudest, and over
    ``QUIET_RMS``."""
    size = _FRAME * SAMPLE_WIDTH
    levels = [audioop.rms(window[i : i + size], SAMPLE_WIDTH) for i in range(0, len(window), size)]
    floor = sorted(levels)[len(levels) // 10]
    threshold = max(QUIET_RMS, 2 * floor, floor + (max(levels) - floor) / 10)
    pause = math.ceil(SPLIT_PAUSE_SECONDS * SAMPLE_RATE / _FRAME)
    margin = round(MARGIN_SECONDS * SAMPLE_RATE / _FRAME)
    runs: list[tuple[int, int]] = []  # (first, one past the last) frame of each stretch of speech
    quiet = pause
    for i, level in enumerate(levels):
        if level <= threshold:
            quiet += 1
        elif quiet >= pause:
            runs.append((i, i + 1))
            quiet = 0
        else:
            runs[-1] = (runs[-1][0], i + 1)
            quiet = 0
    frames = len(levels)
    done = frames
    if not final:
        done = frames - pause  # the quiet at the end is the next utterance's lead-in
        if runs and frames - runs[-1][1] < pause:  # the last stretch may go on in the next window
            first, _ = runs.pop()
            if first > margin:
                done = first - margin
            else:  # speech all through the window: cut at its quietest moment late on
                done = min(range(frames * 3 // 5, frames), key=lambda i: levels[i])
                runs.append((first, done))
    pieces = [(max(0, first - margin) * size, min(last + margin, done) * size) for first, last in runs]
    return pieces, min(len(window), done * size)
