"""Whisper's decoder weights as the model file stores them, the token lookup and the encoder's
keys and values: what the decoder's step (``decoder``, ONNX Runtime) is built from and fed with.

Used by ``assistant.voice.whisper.model.WhisperModel`` and ``decoder.onnx_decoder``. The weights
are views of the mapped ``model.bin`` (``modelfile.ModelFile``; float16 in the packaged model):
ONNX Runtime packs its own float32 copies from them, so no float32 copy of the layers (33 MB) or
the output head (80 MB) is made here. The token lookup (``DecoderWeights.embed``) and the
encoder's keys and values (``DecoderWeights.cross_cache``) stay NumPy's: a lookup in the graph
made ORT's optimiser keep an 80 MB transposed copy of the embedding table.
``tests/voice/whisper_reference.py`` is a plain NumPy step over the same file, the reference the
tests hold ONNX Runtime's log-probabilities and the recogniser's decisions to.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import TypeVar

import numpy as np

from assistant.voice.whisper.modelfile import ModelUnavailable

_T = TypeVar("_T")

#: A layer norm's (gamma, beta), float32 copies (small).
Norm = tuple[np.ndarray, np.ndarray]


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

    self_norm: Norm
    self_qkv: StoredLinear
    self_out: StoredLinear
    cross_norm: Norm
    cross_q: StoredLinear
    cross_kv: StoredLinear
    cross_out: StoredLinear
    ffn_norm: Norm
    ffn_in: StoredLinear
    ffn_out: StoredLinear


class _Variables:
    """The decoder's variables of a model file, each refused with a sentence when it is missing
    or not what the decoder can run."""

    def __init__(self, variables: dict[str, np.ndarray]) -> None:
        self.variables = variables

    def stored(self, name: str) -> np.ndarray:
        try:
            return self.variables["decoder/" + name]
        except KeyError:
            raise ModelUnavailable(f"the Whisper model has no decoder/{name}") from None

    def float32(self, name: str) -> np.ndarray:
        """A float32 copy of our own of the variable."""
        return np.array(self.stored(name), dtype=np.float32)

    def norm(self, name: str) -> Norm:
        return self.float32(name + "/gamma"), self.float32(name + "/beta")

    def linear(self, name: str, width: int, scale: float = 1.0) -> StoredLinear:
        weight, bias = self.stored(name + "/weight"), self.stored(name + "/bias")
        if weight.dtype not in (np.float16, np.float32) or weight.ndim != 2:
            raise ModelUnavailable(f"the Whisper model's decoder/{name} is not float16 or float32"
                                   " (an int8 model needs its float16 original)")
        return StoredLinear(weight, bias, scale, width if scale != 1.0 else 0)

    def layer(self, index: int, width: int, scale: float) -> StoredLayer:
        p = f"layer_{index}/"
        return StoredLayer(
            self.norm(p + "self_attention/layer_norm"),
            self.linear(p + "self_attention/linear_0", width, scale),
            self.linear(p + "self_attention/linear_1", width), self.norm(p + "attention/layer_norm"),
            self.linear(p + "attention/linear_0", width, scale),
            self.linear(p + "attention/linear_1", width), self.linear(p + "attention/linear_2", width),
            self.norm(p + "ffn/layer_norm"), self.linear(p + "ffn/linear_0", width),
            self.linear(p + "ffn/linear_1", width))

    def layer_count(self) -> int:
        index = 0
        while f"decoder/layer_{index}/ffn/linear_0/weight" in self.variables:
            index += 1
        return index


class DecoderWeights:
    """Whisper's text decoder as stored (``stored_layers``, ``table``, ``positions``,
    ``final_norm``) and its shape, with the NumPy parts of a step: the token lookup (``embed``)
    and the encoder's keys and values (``cross_cache``, shared with a helper thread of its own:
    BLAS's own threads wait by spinning, and on 2 cores that other work also uses they made the
    small products 2 to 5 times slower; a helper that sleeps between jobs costs nothing when the
    other core is busy). Run it under one BLAS thread (``threadpool_limits(1,
    user_api="blas")``), as ``WhisperRecognizer.finish`` does."""

    def __init__(self, variables: dict[str, np.ndarray], threads: int = 2) -> None:
        found = _Variables(variables)
        # The embedding table as the model stores it (vocabulary, width; float16 in the packaged
        # model: 40 MB, each value exactly a float32's), a view of the model's file: the token
        # lookup reads its rows, and ONNX Runtime's output head packs its own copy from it.
        self.table = found.stored("embeddings/weight")
        if self.table.dtype not in (np.float16, np.float32) or self.table.ndim != 2:
            raise ModelUnavailable("the Whisper model's embeddings are not a float16 or float32 table")
        self.positions = found.float32("position_encodings/encodings")
        self.final_norm = found.norm("layer_norm")
        self.heads = int(variables.get("decoder/num_heads", np.array(6)))
        self.vocab, self.width = self.table.shape
        self.head_width = self.width // self.heads
        self.max_positions = self.positions.shape[0]
        # Attention's 1/sqrt(head width) goes into the query weights: for Whisper's 64-wide
        # heads it is 1/8, a power of two, so every product is bit for bit the scaled one.
        scale = 1.0 / math.sqrt(self.head_width)
        #: The layers as stored: ONNX Runtime's step is built from these.
        self.stored_layers = [found.layer(i, self.width, scale) for i in range(found.layer_count())]
        if not self.stored_layers:
            raise ModelUnavailable("the Whisper model has no decoder layers")
        self.depth = len(self.stored_layers)
        # The encoder's keys and values are NumPy's (5 MB of float32).
        self._cross_kv = [layer.cross_kv.float32() for layer in self.stored_layers]
        self._helper = (ThreadPoolExecutor(max_workers=1, thread_name_prefix="whisper-decoder")
                        if threads > 1 and (os.cpu_count() or 1) > 1 else None)

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
        one product per head: keys (heads, head width, frames), values (heads, frames, head
        width). Layers shared with the helper."""
        frames = np.ascontiguousarray(encoded[0], dtype=np.float32)

        def layer_cache(cross_kv: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
            k, v = np.split(frames @ cross_kv[0] + cross_kv[1], 2, axis=-1)
            count = k.shape[0]
            keys = np.ascontiguousarray(k.reshape(count, self.heads, self.head_width).transpose(1, 2, 0))
            values = np.ascontiguousarray(v.reshape(count, self.heads, self.head_width).transpose(1, 0, 2))
            return keys, values

        return self._shared([partial(layer_cache, kv) for kv in self._cross_kv])

    def embed(self, tokens: np.ndarray, offset: int) -> np.ndarray:
        """The decoder's input (batch, time, width): each token's embedding (a row of the
        table, in float32) plus its position's, the first at ``offset``."""
        embedded: np.ndarray = self.table[tokens].astype(np.float32) + self.positions[offset : offset + tokens.shape[1]]
        return embedded
