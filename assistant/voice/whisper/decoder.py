"""Whisper's decoder step in ONNX Runtime (float32): the one step the beam search runs.

Used by ``assistant.voice.whisper.model.WhisperModel``. onnxruntime and onnx are dependencies;
where either cannot be loaded, or the session cannot be built, ``onnx_decoder`` raises
``OnnxUnavailable`` (a ``ModelUnavailable``: Whisper is unavailable, and the listener says so in
one sentence and listens with PocketSphinx). Until 2026-12 a NumPy step ran instead; it is now
only the tests' reference (``tests/voice/whisper_reference.py``).

The graph of one step (any batch, any number of new tokens; the prompt and the beam's steps alike)
is written with ``onnx.helper`` from already loaded ``DecoderWeights``: the weights as the model
file stores them (``stored_layers``, ``table``: float16 views of the mapped ``model.bin`` in the
packaged model), its layer norms (eps 1e-5), exact GELU (Erf) and its output
head. The weights are not copied into the graph: ORT gets them as external initializers that point
at those arrays, so the graph is a few kilobytes and nothing is written to disk. Each linear is a
Gemm (transB) over the stored weight through a Cast (and the queries' scale, a Mul); ORT folds
these constants, packs the float32 result for its products (about 113 MB: the price of the faster
products, the output head most of it) and drops the folded copy. So no float32 copy of the head
(80 MB) or the layers (33 MB) is kept beside ORT's, and once the session is built the file's pages
go back (``ModelFile.forget_pages``): resident after loading the model 343 -> 272 MB (with the
encoder loaded after the decoder), every log-probability bit for bit the same (MatMul with a
folded Transpose kept the folded copy beside the packed one). The token lookup
(``DecoderWeights.embed``) and the encoder's keys and values (``DecoderWeights.cross_cache``) stay
NumPy's: a lookup in the graph made ORT's optimiser keep an 80 MB transposed copy of the
embedding table.

Measured against the NumPy step it replaced, on the voice corpus: log-probabilities within 1e-4
over the whole vocabulary and no recogniser decision changed (880 files); a 10-row step in 13-16
ms against 24-34 ms on 2 busy cores. ORT's threads do not spin (``allow_spinning`` 0): spinning
threads, like BLAS's, cost far more than they give on 2 cores that other work also uses. A step
is bound by reading the output head's 80 MB (a 1-row step took 12 ms, a 10-row one 19-20): with
2 threads sharing it, 8.5-9.3 and 11.8-13.2 ms on an idle machine. ``WhisperModel`` gives it
its own threads (2 by default, as the encoder's); on 1, as before 2026-12-02, 400 files of the
voice benchmark's test split took 298 / 792 ms each (median / p95), on 2 221 / 559 ms.
``tests/voice/test_whisper.py`` checks the log-probabilities and the decisions against the
reference's (a plain NumPy step).
"""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from assistant.voice.whisper.modelfile import ModelUnavailable, load_error
from assistant.voice.whisper.weights import DecoderWeights, StoredLinear

_OPSET = 17
#: ONNX Runtime's environment variable that turns its telemetry off entirely (read once, at import).
TELEMETRY_OPT_OUT = "ORT_DISABLE_TELEMETRY"


class StepState(Protocol):
    """What the beam search reads of a decoder's state after some tokens (``OrtState``, and the
    tests' reference's)."""

    @property
    def length(self) -> int: ...

    @property
    def log_probs(self) -> np.ndarray | None: ...

    def select(self, rows: list[int]) -> Any: ...


class StepDecoder(Protocol):
    """A decoder the beam search can drive one step at a time (``OrtDecoder``, and the tests'
    reference); a state is only ever given back to the decoder that made it."""

    def cross_cache(self, encoded: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]: ...

    def start(self, tokens: list[int], cross: list[tuple[np.ndarray, np.ndarray]]) -> StepState: ...

    def step(self, state: Any, tokens: np.ndarray) -> StepState: ...


#: Each decoder layer's keys and values over the encoded audio (``DecoderWeights.cross_cache``).
Cross = list[tuple[np.ndarray, np.ndarray]]


def causal_mask(count: int, offset: int) -> np.ndarray:
    """Added to the attention scores of ``count`` new tokens after ``offset`` cached ones: each
    new token sees the cached ones and those before it, not those after."""
    return np.triu(np.full((count, offset + count), -np.inf, dtype=np.float32), k=offset + 1)


@dataclass
class _Graph:
    """One step's graph (a serialised ModelProto without weights) and the weights it names."""

    proto: bytes
    weights: dict[str, np.ndarray]


class _Builder:
    """Writes the step's graph node by node; weights become initializers without data."""

    def __init__(self, helper: Any, tensor_proto: Any) -> None:
        self.h = helper
        self.tp = tensor_proto
        self.nodes: list[Any] = []
        self.initializers: list[Any] = []
        self.weights: dict[str, np.ndarray] = {}
        self.count = 0

    def weight(self, name: str, array: np.ndarray) -> str:
        """A float32 (or float16) weight given to ORT from NumPy's own array (no copy in the
        graph)."""
        if array.dtype not in (np.float32, np.float16) or not array.flags.c_contiguous:
            raise ValueError(f"{name} must be contiguous float32 or float16")
        self.weights[name] = array
        data_type = self.tp.FLOAT if array.dtype == np.float32 else self.tp.FLOAT16
        tensor = self.tp(name=name, data_type=data_type, dims=array.shape)
        tensor.data_location = self.tp.EXTERNAL
        entry = tensor.external_data.add()
        entry.key, entry.value = "location", "given-by-the-session-options"
        self.initializers.append(tensor)
        return name

    def constant(self, name: str, values: list[int] | float) -> str:
        if isinstance(values, float):
            self.initializers.append(self.h.make_tensor(name, self.tp.FLOAT, [], [values]))
        else:
            self.initializers.append(self.h.make_tensor(name, self.tp.INT64, [len(values)], values))
        return name

    def node(self, op: str, inputs: list[str], outputs: list[str] | None = None, **attrs: Any) -> str:
        self.count += 1
        outs = outputs or [f"t{self.count}"]
        self.nodes.append(self.h.make_node(op, inputs, outs, name=f"{op}_{self.count}", **attrs))
        return outs[0]

    def float32(self, name: str, array: np.ndarray) -> str:
        """A stored weight as float32: a float16 one through a Cast that ORT folds."""
        weight = self.weight(name, array)
        return weight if array.dtype == np.float32 else self.node("Cast", [weight], to=self.tp.FLOAT)

    def linear(self, x: str, linear: StoredLinear, name: str) -> str:
        """x @ weight.T + bias, the scale on the first outputs. The weight stays as stored (out,
        in) for a Gemm with transB; the cast and the scale are on constants, so ORT folds them
        and packs the result for the product."""
        weight = self.float32(name + ".w", linear.weight)
        bias = self.float32(name + ".b", linear.bias)
        if linear.scaled:
            factors = np.ones(linear.bias.shape, dtype=np.float32)
            factors[: linear.scaled] = linear.scale
            weight = self.node("Mul", [weight, self.weight(name + ".rows", factors[:, None].copy())])
            bias = self.node("Mul", [bias, self.weight(name + ".scale", factors)])
        return self.node("Gemm", [x, weight, bias], transB=1)

    def norm(self, x: str, weights: tuple[np.ndarray, np.ndarray], name: str) -> str:
        return self.node("LayerNormalization", [x, self.weight(name + ".g", weights[0]),
                                                self.weight(name + ".b", weights[1])],
                         axis=-1, epsilon=1e-5)


def build_graph(decoder: DecoderWeights) -> _Graph:
    """The step's graph. Inputs: the embedded tokens (batch, time, width), an additive mask (time, past + time), each layer's past keys and values (batch, heads, past,
    head width) and its cross keys (heads, head width, frames) and values (heads, frames, head
    width), as ``DecoderWeights.cross_cache`` lays them out. Outputs: the log-probabilities of the token
    after each row's last one (batch, vocabulary) and each layer's keys and values so far."""
    from onnx import TensorProto, helper

    b = _Builder(helper, TensorProto)
    heads, head_width, width = decoder.heads, decoder.head_width, decoder.width
    value = helper.make_tensor_value_info
    inputs = [value("embedded", TensorProto.FLOAT, ["B", "T", width]),
              value("mask", TensorProto.FLOAT, ["T", "PT"])]
    outputs = [value("log_probs", TensorProto.FLOAT, ["B", decoder.vocab])]
    for i in range(decoder.depth):
        inputs += [value(f"past_k{i}", TensorProto.FLOAT, ["B", heads, "P", head_width]),
                   value(f"past_v{i}", TensorProto.FLOAT, ["B", heads, "P", head_width]),
                   value(f"cross_k{i}", TensorProto.FLOAT, [heads, head_width, "F"]),
                   value(f"cross_v{i}", TensorProto.FLOAT, [heads, "F", head_width])]
        outputs += [value(f"present_k{i}", TensorProto.FLOAT, ["B", heads, "PT", head_width]),
                    value(f"present_v{i}", TensorProto.FLOAT, ["B", heads, "PT", head_width])]

    shape_bt = b.node("Slice", [b.node("Shape", ["embedded"]), b.constant("zero", [0]), b.constant("two", [2])])
    x = b.node("Reshape", ["embedded", b.constant("rows_width", [-1, width])])  # (batch * time, width)
    shape_bt3hd = b.node("Concat", [shape_bt, b.constant("three_heads_width", [3, heads, head_width])], axis=0)
    rows_hd = b.constant("rows_heads_width", [-1, heads, head_width])
    first = b.constant("first", [0])
    for i, layer in enumerate(decoder.stored_layers):
        p = f"layer{i}."
        qkv = b.linear(b.norm(x, layer.self_norm, p + "self_norm"), layer.self_qkv, p + "self_qkv")
        qkv = b.node("Transpose", [b.node("Reshape", [qkv, shape_bt3hd])], perm=[2, 0, 3, 1, 4])
        q, k, v = (p + "q", p + "k", p + "v")
        b.node("Split", [qkv], [q, k, v], axis=0)
        q, k, v = (b.node("Squeeze", [t, first]) for t in (q, k, v))  # each (batch, heads, time, hw)
        keys = b.node("Concat", [f"past_k{i}", k], [f"present_k{i}"], axis=2)
        values = b.node("Concat", [f"past_v{i}", v], [f"present_v{i}"], axis=2)
        scores = b.node("Add", [b.node("MatMul", [q, b.node("Transpose", [keys], perm=[0, 1, 3, 2])]), "mask"])
        attended = b.node("MatMul", [b.node("Softmax", [scores], axis=-1), values])
        attended = b.node("Reshape", [b.node("Transpose", [attended], perm=[0, 2, 1, 3]), b.constant(p + "flat", [-1, width])])
        x = b.node("Add", [x, b.linear(attended, layer.self_out, p + "self_out")])

        q = b.linear(b.norm(x, layer.cross_norm, p + "cross_norm"), layer.cross_q, p + "cross_q")
        q = b.node("Transpose", [b.node("Reshape", [q, rows_hd])], perm=[1, 0, 2])  # (heads, rows, hw)
        weights = b.node("Softmax", [b.node("MatMul", [q, f"cross_k{i}"])], axis=-1)
        attended = b.node("Transpose", [b.node("MatMul", [weights, f"cross_v{i}"])], perm=[1, 0, 2])
        attended = b.node("Reshape", [attended, b.constant(p + "flat2", [-1, width])])
        x = b.node("Add", [x, b.linear(attended, layer.cross_out, p + "cross_out")])

        hidden = b.linear(b.norm(x, layer.ffn_norm, p + "ffn_norm"), layer.ffn_in, p + "ffn_in")
        erf = b.node("Erf", [b.node("Div", [hidden, b.constant(p + "sqrt2", float(np.sqrt(2.0)))])])
        gelu = b.node("Mul", [b.node("Mul", [hidden, b.node("Add", [erf, b.constant(p + "one", 1.0)])]),
                              b.constant(p + "half", 0.5)])
        x = b.node("Add", [x, b.linear(gelu, layer.ffn_out, p + "ffn_out")])

    shape_btw = b.node("Concat", [shape_bt, b.constant("width", [width])], axis=0)
    last = b.node("Slice", [b.node("Reshape", [x, shape_btw]), b.constant("last", [-1]),
                            b.constant("end", [2**62]), b.constant("time_axis", [1])])
    last = b.node("Reshape", [last, b.constant("batch_width", [-1, width])])
    # The head reads the embedding table as stored (vocabulary, width), through a Cast that ORT
    # folds into a float32 copy of its own, packs for the product, and drops.
    table = b.float32("table", decoder.table)
    logits = b.node("Gemm", [b.norm(last, decoder.final_norm, "final_norm"), table], transB=1)
    b.node("LogSoftmax", [logits], ["log_probs"], axis=-1)
    graph = helper.make_graph(b.nodes, "whisper_decoder_step", inputs, outputs, b.initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", _OPSET)])
    model.ir_version = 8
    return _Graph(model.SerializeToString(), b.weights)


@dataclass
class OrtState:
    """The decoder after some tokens: each layer's keys and values of a batch of hypotheses, as
    ORT returned them, and a step's log-probabilities (``scores``, of the batch these rows come
    from) with the rows that are this state's (``rows``; None: all). Arrays are never written
    after they are made, so a state stays valid after it is stepped or selected from."""

    cross: list[tuple[np.ndarray, np.ndarray]]
    cache: list[tuple[np.ndarray, np.ndarray]] | None
    length: int
    scores: np.ndarray | None = None
    rows: np.ndarray | None = None

    @property
    def log_probs(self) -> np.ndarray | None:
        """(batch, vocab): the log-probabilities of each row's next token."""
        if self.scores is None or self.rows is None:
            return self.scores
        selected: np.ndarray = self.scores[self.rows]
        return selected

    def select(self, rows: list[int]) -> OrtState:
        """The states of the given batch rows (a beam's survivors, repeated as needed)."""
        index = np.asarray(rows, dtype=np.intp)
        cache = None if self.cache is None else [(k[index], v[index]) for k, v in self.cache]
        return OrtState(self.cross, cache, self.length, self.scores,
                        index if self.rows is None else self.rows[index])


class OrtDecoder:
    """The decoder (``cross_cache``, ``start``, ``step``) with the step in ORT over
    ``weights``."""

    def __init__(self, weights: DecoderWeights, session: Any, initializers: dict[str, np.ndarray]) -> None:
        self.weights = weights
        self.session = session
        self._initializers = initializers  # ORT's initializers point into these: they must outlive it
        self.depth = weights.depth
        self._outputs = ["log_probs"] + [f"present_{kv}{i}" for i in range(weights.depth) for kv in "kv"]

    def cross_cache(self, encoded: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
        return self.weights.cross_cache(encoded)

    def start(self, tokens: list[int], cross: list[tuple[np.ndarray, np.ndarray]]) -> OrtState:
        """Run the prompt; returns the state after it (batch 1) and its last log-probabilities."""
        return self.step(OrtState(cross, None, 0), np.array([tokens], dtype=np.int64))

    def step(self, state: OrtState, tokens: np.ndarray) -> OrtState:
        """Feed ``tokens`` (batch, time) after ``state``; the new state holds the log-probabilities
        of the token after each batch row's last one (``state.log_probs``, (batch, vocab))."""
        weights = self.weights
        tokens = np.ascontiguousarray(tokens, dtype=np.int64)
        batch, count = tokens.shape
        offset = state.length
        if offset + count > weights.max_positions:
            raise ValueError("the command is longer than Whisper's decoder can hold")
        if state.cache is not None and state.cache[0][0].shape[0] != batch:
            raise ValueError(f"{batch} tokens for a batch of {state.cache[0][0].shape[0]}")
        feeds: dict[str, np.ndarray] = {
            "embedded": weights.embed(tokens, offset),
            "mask": causal_mask(count, offset)}
        empty = np.zeros((batch, weights.heads, 0, weights.head_width), dtype=np.float32)
        for i, (cross_k, cross_v) in enumerate(state.cross):
            keys, values = (empty, empty) if state.cache is None else state.cache[i]
            feeds[f"past_k{i}"], feeds[f"past_v{i}"] = keys, values
            feeds[f"cross_k{i}"], feeds[f"cross_v{i}"] = cross_k, cross_v
        out = self.session.run(self._outputs, feeds)
        cache = [(out[1 + 2 * i], out[2 + 2 * i]) for i in range(self.depth)]
        return OrtState(state.cross, cache, offset + count, out[0])


class OnnxUnavailable(ModelUnavailable):
    """ONNX Runtime cannot run Whisper's decoder here (one sentence): Whisper is unavailable."""


def onnx_decoder(decoder: DecoderWeights, threads: int = 1) -> OrtDecoder:
    """The decoder's step in ONNX Runtime over ``decoder``'s weights, on ``threads`` threads
    that sleep between steps. Raises ``OnnxUnavailable`` when onnxruntime or onnx is not
    installed or the session cannot be built. ORT's log says nothing below errors: the table is
    full-screen."""
    # ORT 1.32's Linux wheel sends usage events to Microsoft and keeps a device ID and an event
    # cache in ~/.cache/Microsoft; where that cannot be written it prints a warning onto the
    # table at import. A referee at a table sends nothing anywhere: the opt-out must be set
    # before the import (ORT latches it).
    os.environ.setdefault(TELEMETRY_OPT_OUT, "1")
    ort = _library("onnxruntime")
    _library("onnx")  # ``build_graph`` writes the graph with it
    graph = build_graph(decoder)
    ort.set_default_logger_severity(3)
    options = ort.SessionOptions()
    options.log_severity_level = 3
    options.intra_op_num_threads = max(1, threads)
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    # ORT's own arena keeps the largest step's buffers for good (it grows by powers of two):
    # without it they go back to malloc, and the listener's trim returns them. Over 200 test
    # files: resident after them 414 -> 379 MB, every decision the same; a decoding 2 to 5%
    # slower (150 files decoded by both sessions in one process, in turns).
    options.enable_cpu_mem_arena = False
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.add_session_config_entry("session.inter_op.allow_spinning", "0")
    names = list(graph.weights)
    options.add_external_initializers(names, [ort.OrtValue.ortvalue_from_numpy(graph.weights[n]) for n in names])
    try:
        session = ort.InferenceSession(graph.proto, options, providers=["CPUExecutionProvider"])
    except Exception as err:  # noqa: BLE001 - ORT's exceptions (Fail, InvalidGraph, ...) derive from Exception only
        raise OnnxUnavailable(f"ONNX Runtime cannot run Whisper's decoder ({type(err).__name__})") from None
    return OrtDecoder(decoder, session, graph.weights)


def _library(name: str) -> Any:
    """The module ``name`` (onnxruntime or onnx), or ``OnnxUnavailable`` saying in one sentence
    why it cannot be loaded."""
    try:
        return importlib.import_module(name)
    except ImportError:
        raise OnnxUnavailable(f"Whisper's decoder needs {name}, which is not installed") from None
    except Exception as err:  # noqa: BLE001 - a broken install raises what its extension raises
        raise OnnxUnavailable(f"Whisper's decoder needs {name}, which cannot be loaded "
                              f"({load_error(err)})") from None
