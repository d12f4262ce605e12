"""Spoken commands with Whisper, its decoding restricted to the command grammar.

The package's modules, from the audio to the command:
- ``features``: the log-mel features of an utterance, with the room's own sound after it;
- ``modelfile``: the model's files (where the packaged model is, its checks, ``model.bin`` read
  in place, the encoder-only copy CTranslate2 loads);
- ``weights``: the decoder's weights as stored, the token lookup and the encoder's keys and values;
- ``decoder``: the decoder's step in ONNX Runtime (the one production step);
- ``model``: ``WhisperModel``, the encoder, decoder and tokenizer loaded once per process;
- ``grammar``: ``WordGrammar`` and ``TokenGrammar``, the commands possible now in Whisper's tokens,
  built from a language's ``SpokenWords`` (``SpokenLanguage``: English's, or German's and
  Korean's from ``assistant.voice.languages``, heard by the multilingual Whisper base);
- ``recognizer``: ``WhisperRecognizer``, the beam search held to the grammar and what it takes
  for talk (see its docstring).
Used through ``assistant.voice.recognizer.make_recognizer``; the names below are the package's.
"""

from assistant.voice.whisper.decoder import (
    TELEMETRY_OPT_OUT,
    OnnxUnavailable,
    OrtDecoder,
    StepDecoder,
    StepState,
    onnx_decoder,
)
from assistant.voice.whisper.features import features_for, log_mel, mel_filters, room_tone
from assistant.voice.whisper.grammar import (
    ENGLISH_SPEECH,
    SpokenLanguage,
    SpokenWords,
    TokenGrammar,
    WordGrammar,
)
from assistant.voice.whisper.model import WhisperModel
from assistant.voice.whisper.modelfile import (
    MULTILINGUAL_MODEL_SHA256,
    PACKAGED_MODEL_SHA256,
    ModelFile,
    ModelUnavailable,
    check_model_dir,
    encoder_cache_dir,
    encoder_only_dir,
    encoder_only_model_bin,
    load_encoder,
    multilingual_model_dir,
    packaged_model_dir,
    read_ct2_variables,
)
from assistant.voice.whisper.recognizer import CARD_INTENTS, SearchResult, WhisperRecognizer
from assistant.voice.whisper.weights import DecoderWeights

__all__ = [
    "CARD_INTENTS",
    "ENGLISH_SPEECH",
    "MULTILINGUAL_MODEL_SHA256",
    "PACKAGED_MODEL_SHA256",
    "TELEMETRY_OPT_OUT",
    "DecoderWeights",
    "ModelFile",
    "ModelUnavailable",
    "OnnxUnavailable",
    "OrtDecoder",
    "SearchResult",
    "SpokenLanguage",
    "SpokenWords",
    "StepDecoder",
    "StepState",
    "TokenGrammar",
    "WhisperModel",
    "WhisperRecognizer",
    "WordGrammar",
    "check_model_dir",
    "encoder_cache_dir",
    "encoder_only_dir",
    "encoder_only_model_bin",
    "features_for",
    "load_encoder",
    "log_mel",
    "mel_filters",
    "multilingual_model_dir",
    "onnx_decoder",
    "packaged_model_dir",
    "read_ct2_variables",
    "room_tone",
]
