"""The voice code's boundaries as types: what an audio source, a decoder and a speech engine offer.

The listener (``assistant.voice.listener``), ``lifeguard hear`` and ``lifeguard listen``
(``assistant.cli.voice``) and the speaker (``assistant.voice.speaker``) are written against
these, not against one implementation: ``WavSource`` and ``ArecordSource`` are audio sources
(``assistant.voice.audio``), ``CommandRecognizer`` (PocketSphinx) and ``WhisperRecognizer`` are
decoders, pyttsx3's engine is the speech engine. Structural (``typing.Protocol``): nothing
subclasses them, a type checker compares the shapes. Importing this module imports nothing heavy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from assistant.voice.recognizer import Decoded
    from engine.game import Game


class AudioStream(Protocol):
    """Where an audio source's bytes come from (16-bit samples)."""

    def read(self, frames: int, /) -> bytes: ...


class AudioSource(Protocol):
    """An input SpeechRecognition's ``Recognizer.listen`` reads (its ``AudioSource`` shape), that
    can be deafened while the referee speaks (the audio runs on, as silence)."""

    SAMPLE_RATE: int
    SAMPLE_WIDTH: int
    CHUNK: int
    #: Set while the source is entered (``with source:``), else None.
    stream: AudioStream | None
    deaf: bool

    def close(self) -> None: ...


class AudioData(Protocol):
    """A recording as SpeechRecognition's ``AudioData`` gives it."""

    def get_raw_data(self, convert_rate: int | None = None,
                     convert_width: int | None = None) -> bytes: ...


class SpeechDecoder(Protocol):
    """A speech recogniser for commands (``recognizer.make_recognizer`` makes one).

    One utterance at a time: ``set_context`` between utterances; then ``start``, ``feed`` while the
    audio arrives, ``finish``. Or a whole recording at once with ``decode`` / ``decode_audio``.
    """

    #: "pocketsphinx" or "whisper".
    engine: str

    def set_context(self, players: Sequence[str], game: Game | None = None, question: bool = False,
                    refused: frozenset[str] = frozenset()) -> None:
        """What to listen for: ``players`` in the state of ``game``; ``question``: a read-back
        waits for yes or no; ``refused``: the readings "no" just refused (``Referee.refused``)."""

    def start(self) -> None: ...

    def feed(self, raw: bytes, full: bool = False) -> None: ...

    def finish(self) -> Decoded: ...

    def decode(self, raw: bytes) -> Decoded: ...

    def decode_audio(self, audio: AudioData) -> Decoded: ...


class SpeechEngine(Protocol):
    """The sound device's voice: pyttsx3's engine as the speaker drives it (one thread only)."""

    def setProperty(self, name: str, value: object) -> None: ...  # pyttsx3 names it so

    def save_to_file(self, text: str, filename: str) -> None: ...

    def runAndWait(self) -> None: ...
