"""The tests' reference for Whisper's decoder step: the decoder written plainly in NumPy (float32),
straight from the model file's variables.

The recogniser runs one production step, ONNX Runtime's (``assistant.voice.whisper.decoder``).
``tests/voice/test_whisper.py`` holds it to this one: the reference gives CTranslate2's own greedy
tokens on real speech, ONNX Runtime's log-probabilities are the reference's, and the recogniser
decides the same with either. It reads the weights itself (``read_ct2_variables``), not through
the production ``DecoderWeights``, so that a mistake in the weights' loading shows too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

Array = np.ndarray
#: Each layer's keys and values over the encoded audio.
Cross = list[tuple[np.ndarray, np.ndarray]]


class StraightforwardDecoder:
    """Whisper's decoder written plainly: new arrays at every operation, the key/value cache
    concatenated at every step and copied at every selection, attention's scale applied to the
    queries, one thread. The interface the beam search drives (``cross_cache``, ``start``,
    ``step``; ``StepDecoder``), so that the recogniser can run on it too."""

    def __init__(self, variables: dict[str, np.ndarray]) -> None:
        def get(name: str) -> np.ndarray:
            return np.ascontiguousarray(variables["decoder/" + name], dtype=np.float32)

        def linear(name: str) -> tuple[np.ndarray, np.ndarray]:
            return np.ascontiguousarray(get(name + "/weight").T), get(name + "/bias")

        def norm(name: str) -> tuple[np.ndarray, np.ndarray]:
            return get(name + "/gamma"), get(name + "/beta")

        self.embeddings = get("embeddings/weight")
        self.output = np.ascontiguousarray(self.embeddings.T)
        self.positions = get("position_encodings/encodings")
        self.final_norm = norm("layer_norm")
        self.heads = 6
        self.layers = []
        index = 0
        while f"decoder/layer_{index}/ffn/linear_0/weight" in variables:
            p = f"layer_{index}/"
            self.layers.append({
                "self_norm": norm(p + "self_attention/layer_norm"),
                "self_qkv": linear(p + "self_attention/linear_0"),
                "self_out": linear(p + "self_attention/linear_1"),
                "cross_norm": norm(p + "attention/layer_norm"), "cross_q": linear(p + "attention/linear_0"),
                "cross_kv": linear(p + "attention/linear_1"), "cross_out": linear(p + "attention/linear_2"),
                "ffn_norm": norm(p + "ffn/layer_norm"), "ffn_in": linear(p + "ffn/linear_0"),
                "ffn_out": linear(p + "ffn/linear_1")})
            index += 1
        self.width = self.embeddings.shape[1]
        self.head_width = self.width // self.heads

    @staticmethod
    def layer_norm(x: Array, gamma: Array, beta: Array) -> Array:
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        out: Array = (x - mean) / np.sqrt(var + 1e-5) * gamma + beta
        return out

    @staticmethod
    def gelu(x: Array) -> Array:
        z = x / math.sqrt(2.0)
        sign, a = np.sign(z), np.abs(z)
        t = 1.0 / (1.0 + 0.3275911 * a)
        poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
        out: Array = 0.5 * x * (1.0 + sign * (1.0 - poly * np.exp(-a * a)))
        return out

    @staticmethod
    def softmax(x: Array) -> Array:
        e = np.exp(x - x.max(-1, keepdims=True))
        out: Array = e / e.sum(-1, keepdims=True)
        return out

    def split(self, x: Array) -> Array:
        b, t, _ = x.shape
        out: Array = x.reshape(b, t, self.heads, self.head_width).transpose(0, 2, 1, 3)
        return out

    def cross_cache(self, encoded: Array) -> Cross:
        cache: Cross = []
        for layer in self.layers:
            k, v = np.split(encoded[0] @ layer["cross_kv"][0] + layer["cross_kv"][1], 2, axis=-1)
            frames = k.shape[0]
            cache.append((k.reshape(frames, self.heads, self.head_width).transpose(1, 2, 0),
                          v.reshape(frames, self.heads, self.head_width).transpose(1, 0, 2)))
        return cache

    def start(self, tokens: list[int], cross: Cross) -> PlainState:
        return self.step(PlainState(cross, [None] * len(self.layers), 0), np.array([tokens]))

    def step(self, state: PlainState, tokens: Array) -> PlainState:
        batch, count = tokens.shape
        offset = state.length
        x = self.embeddings[tokens] + self.positions[offset : offset + count]
        # Python floats, not NumPy's float64 scalars: these would make every product float64
        # (NumPy 2's promotion), the output head's 80 MB converted at every step.
        scale = 1.0 / math.sqrt(self.head_width)
        causal = np.triu(np.full((count, offset + count), -np.inf, dtype=np.float32), k=offset + 1)
        caches: list[tuple[Array, Array] | None] = []
        for layer, cache, (cross_k, cross_v) in zip(self.layers, state.self_cache, state.cross, strict=True):
            h = self.layer_norm(x, *layer["self_norm"])
            q, k, v = np.split(h @ layer["self_qkv"][0] + layer["self_qkv"][1], 3, axis=-1)
            q, k, v = self.split(q) * scale, self.split(k), self.split(v)
            if cache is not None:
                k = np.concatenate([cache[0], k], axis=2)
                v = np.concatenate([cache[1], v], axis=2)
            caches.append((k, v))
            scores = q @ k.transpose(0, 1, 3, 2) + causal
            attended = (self.softmax(scores) @ v).transpose(0, 2, 1, 3).reshape(batch, count, self.width)
            x = x + attended @ layer["self_out"][0] + layer["self_out"][1]
            h = self.layer_norm(x, *layer["cross_norm"])
            q = (h @ layer["cross_q"][0] + layer["cross_q"][1]) * scale
            q = q.reshape(batch * count, self.heads, self.head_width).transpose(1, 0, 2)
            attended = (self.softmax(q @ cross_k) @ cross_v).transpose(1, 0, 2).reshape(batch, count, self.width)
            x = x + attended @ layer["cross_out"][0] + layer["cross_out"][1]
            h = self.layer_norm(x, *layer["ffn_norm"])
            x = x + self.gelu(h @ layer["ffn_in"][0] + layer["ffn_in"][1]) @ layer["ffn_out"][0] + layer["ffn_out"][1]
        logits = self.layer_norm(x[:, -1, :], *self.final_norm) @ self.output
        logits -= logits.max(-1, keepdims=True)
        log_probs = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
        return PlainState(state.cross, caches, offset + count, log_probs)


@dataclass
class PlainState:
    """The reference's state after some tokens (``StepState``): each layer's keys and values so
    far (None before the first step) and the next token's log-probabilities."""

    cross: Cross
    self_cache: list[tuple[Array, Array] | None]
    length: int
    log_probs: Array | None = None

    def select(self, rows: list[int]) -> PlainState:
        index = np.asarray(rows)
        caches = [None if c is None else (c[0][index], c[1][index]) for c in self.self_cache]
        assert self.log_probs is not None
        return PlainState(self.cross, caches, self.length, self.log_probs[index])

