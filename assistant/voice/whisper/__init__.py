"""Spoken commands with Whisper, its decoding restricted to the command grammar.

``recognizer`` holds ``WhisperRecognizer``; ``modelfile`` the model's files, features and the
decoder's weights; ``decoder`` the decoder's step in ONNX Runtime.
"""

from assistant.voice.whisper.decoder import TELEMETRY_OPT_OUT, OrtDecoder, onnx_decoder
from assistant.voice.whisper.modelfile import ModelUnavailable, packaged_model_dir
from assistant.voice.whisper.recognizer import (
    TokenGrammar,
    WhisperModel,
    WhisperRecognizer,
    WordGrammar,
)

__all__ = [
    "TELEMETRY_OPT_OUT",
    "ModelUnavailable",
    "OrtDecoder",
    "TokenGrammar",
    "WhisperModel",
    "WhisperRecognizer",
    "WordGrammar",
    "onnx_decoder",
    "packaged_model_dir",
]
