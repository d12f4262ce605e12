"""Audio of one utterance -> a checked command, or a reason it is not one.

Used by the listener (``assistant.voice.listener``), ``lifeguard hear`` and the voice benchmark.
One persistent ``pocketsphinx.Decoder`` (loading it costs ~0.1 s; SpeechRecognition's
``recognize_sphinx`` rebuilds it on every call and breaks on a second grammar call), holding:

* one JSGF search per context (``jsgf.build_grammar``), cached, so a turn change costs a few ms;
* an all-phone search, the *filler model*: an unconstrained phone loop. An utterance is decoded
  with both; a command's acoustic score comes close to the phone loop's, while table talk forced
  into the grammar scores far worse per frame. That gap is the confidence measure;
* generated pronunciations for player names missing from the dictionary (``pronounce``).

Each hypothesis is then parsed by the typed parser (``assistant.commands.parse``) and checked
against what the grammar cannot count (a hand holds 10 cards). Only then is it a command.

Audio preparation: speech is resampled to 16 kHz mono and gets a faint noise floor (about 30 dB
below the speech). Synthetic and very clean recordings have stretches of exact digital silence
that the acoustic model, trained on real rooms, mistakes for speech sounds; the benchmark measured
exact recognition of espeak-ng commands rising from ~55% to ~90% with this alone.
"""

from __future__ import annotations

import array
import math
import random
import threading
import time
import warnings
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

from assistant.commands import Command, ParseError, parse
from assistant.voice.jsgf import SpeechGrammar, build_grammar
from engine.deck import HAND_SIZE
from engine.game import Game

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    import audioop  # the same module SpeechRecognition uses (audioop-lts on Python 3.13+)

SAMPLE_RATE = 16000
SAMPLE_WIDTH = 2
FRAMES_PER_SECOND = 100

#: Confidence below which a hypothesis is rejected (0..1). Tuned by ``bench/voice_run.py`` on the
#: tuning voices only; see the module docstring for what the number measures.
DEFAULT_MIN_CONFIDENCE = 0.5
#: Per-frame score gap (grammar vs phone loop, in log units of the decoder) at which the
#: confidence is 0.5; the confidence falls off as a logistic around it.
GAP_MIDPOINT = 36.0
GAP_SCALE = 4.0

_LOG_BASE = math.log(1.0001)  # PocketSphinx's log base: scores are in units of log(1.0001)
_DECODER_OPTIONS = {
    "lm": None,
    "loglevel": "FATAL",
    "dither": True,
    "bestpath": False,  # lattice rescoring hurt exact accuracy on small grammars (54% -> 65%)
    "topn": 4,
}


class RecognizerUnavailable(RuntimeError):
    """PocketSphinx or its model is missing; the message is one line for the status bar."""


@dataclass(frozen=True)
class Decoded:
    """What one utterance was: a command, or words that are not one (``reason`` says why)."""

    text: str
    command: Command | None
    confidence: float
    reason: str | None
    seconds: float  # decoding time
    audio_seconds: float


def confidence_from_gap(gap: float) -> float:
    return 1.0 / (1.0 + math.exp(max(-50.0, min(50.0, (gap - GAP_MIDPOINT) / GAP_SCALE))))


class CommandRecognizer:
    """A persistent decoder for spoken commands.

    Two decoders share the work: one runs the current grammar, the other the phone loop (the
    filler model). Audio can be fed while it arrives (``start``/``feed``/``finish``, what the
    listener does, so little is left to do when the speaker stops) or all at once (``decode``).
    One utterance at a time; ``set_context`` between utterances.
    """

    def __init__(
        self,
        players: Sequence[str] = (),
        game: Game | None = None,
        min_confidence: float = DEFAULT_MIN_CONFIDENCE,
        noise_floor: bool = True,
    ) -> None:
        try:
            import pocketsphinx
        except ImportError as err:  # pragma: no cover - a dependency
            raise RecognizerUnavailable(f"speech recognition unavailable: {err}") from None
        try:
            self._decoder = pocketsphinx.Decoder(**_DECODER_OPTIONS)
            self._filler = pocketsphinx.Decoder(**_DECODER_OPTIONS)
            self._filler.add_allphone_file(
                "filler", pocketsphinx.get_model_path("en-us/en-us-phone.lm.bin")
            )
            self._filler.activate_search("filler")
        except (RuntimeError, ValueError, OSError) as err:
            raise RecognizerUnavailable(f"speech model could not be loaded: {err}") from None
        self.min_confidence = min_confidence
        self.noise_floor = noise_floor
        self._lock = threading.RLock()
        self._searches: OrderedDict[str, str] = OrderedDict()
        self._known_words: set[str] = set()
        self._players: tuple[str, ...] = ()
        self._grammar: SpeechGrammar | None = None
        self._search: str | None = None
        self._active: str | None = None
        self._noise = _noise_table()
        self._utterance: _Utterance | None = None
        self._serial = 0
        self.set_context(players, game)

    # ------------------------------------------------------------------ context
    @property
    def players(self) -> tuple[str, ...]:
        return self._players

    @property
    def grammar(self) -> SpeechGrammar | None:
        return self._grammar

    def set_context(self, players: Sequence[str], game: Game | None = None) -> None:
        """Listen for what makes sense for ``players`` in the state of ``game``."""
        players = tuple(p.lower() for p in players)
        grammar = build_grammar(players, game)
        with self._lock:
            self._players = players
            self._grammar = grammar
            self._add_missing_words(grammar.words)
            name = self._searches.get(grammar.jsgf)
            if name is None:
                self._serial += 1
                name = f"grammar{self._serial}"
                self._decoder.add_jsgf_string(name, grammar.jsgf)
                self._searches[grammar.jsgf] = name
                if len(self._searches) > 12:  # a handful of phases x turns; drop the oldest
                    _, old = self._searches.popitem(last=False)
                    if old != self._active:
                        self._decoder.remove_search(old)
            else:
                self._searches.move_to_end(grammar.jsgf)
            self._search = name

    def _add_missing_words(self, words: frozenset[str]) -> None:
        from assistant.voice.pronounce import pronounce

        missing = [w for w in sorted(words) if w not in self._known_words]
        for word in missing:
            if self._decoder.lookup_word(word) is None:
                self._decoder.add_word(word, pronounce(word), True)
            self._known_words.add(word)

    # ------------------------------------------------------------------ decoding
    def decode_audio(self, audio: object) -> Decoded:
        """Decode a SpeechRecognition ``AudioData`` (any rate and width) at once."""
        raw = audio.get_raw_data(convert_rate=SAMPLE_RATE, convert_width=SAMPLE_WIDTH)  # type: ignore[attr-defined]
        return self.decode(raw)

    def decode(self, raw: bytes) -> Decoded:
        """Decode 16 kHz mono 16-bit audio holding (at most) one command."""
        self.start()
        self.feed(raw, full=True)
        return self.finish()

    def start(self) -> None:
        """Begin an utterance with the current context."""
        with self._lock:
            if self._search is not None and self._active != self._search:
                self._decoder.activate_search(self._search)
                self._active = self._search
            self._utterance = _Utterance(self._players, time.perf_counter())
            self._decoder.start_utt()
            self._filler.start_utt()

    def feed(self, raw: bytes, full: bool = False) -> None:
        """More audio of the utterance (16 kHz mono 16-bit); ``full``: this is all of it."""
        utterance = self._utterance
        if utterance is None or not raw:
            return
        started = time.perf_counter()
        raw = self._prepare(raw)
        with self._lock:
            self._decoder.process_raw(raw, full_utt=full)
            self._filler.process_raw(raw, full_utt=full)
        utterance.samples += len(raw) // SAMPLE_WIDTH
        utterance.busy += time.perf_counter() - started

    def finish(self) -> Decoded:
        """End the utterance: the command heard, or why there is none."""
        utterance = self._utterance
        self._utterance = None
        if utterance is None:
            return Decoded("", None, 0.0, "nothing was heard", 0.0, 0.0)
        started = time.perf_counter()
        with self._lock:
            self._decoder.end_utt()
            self._filler.end_utt()
            text = _hypothesis(self._decoder)
            gap = _speech_gap(self._decoder, self._filler) if text else 0.0
        audio_seconds = utterance.samples / SAMPLE_RATE

        def result(command: Command | None, confidence: float, reason: str | None) -> Decoded:
            busy = utterance.busy + time.perf_counter() - started
            return Decoded(text, command, confidence, reason, busy, audio_seconds)

        if audio_seconds < 0.1:
            return result(None, 0.0, "too short to be a command")
        if not text:
            return result(None, 0.0, "no command heard")
        confidence = confidence_from_gap(gap)
        if confidence < self.min_confidence:
            return result(None, confidence, f"not sure it was a command (confidence {confidence:.2f})")
        try:
            command = parse(text, utterance.players or None)
        except ParseError as err:
            return result(None, confidence, err.message)
        if command.intent == "hand" and len(command.cards) != HAND_SIZE:
            return result(None, confidence, f"heard {len(command.cards)} cards, but a hand holds {HAND_SIZE}")
        return result(command, confidence, None)

    def _prepare(self, raw: bytes) -> bytes:
        """A faint noise floor under the speech (see the module docstring for why)."""
        if not self.noise_floor:
            return raw
        rms = audioop.rms(raw, SAMPLE_WIDTH)
        level = max(4.0, min(rms * 0.05, 400.0))
        noise = self._noise
        reps = len(raw) // len(noise) + 1
        floor = audioop.mul((noise * reps)[: len(raw)], SAMPLE_WIDTH, level / 1000.0)
        return audioop.add(raw, floor, SAMPLE_WIDTH)


@dataclass
class _Utterance:
    players: tuple[str, ...]
    started: float
    samples: int = 0
    busy: float = 0.0  # seconds spent decoding


def _hypothesis(decoder: object) -> str:
    hyp = decoder.hyp()  # type: ignore[attr-defined]
    return hyp.hypstr.strip() if hyp is not None else ""


def _segments(decoder: object) -> list[tuple[str, int, int, float]]:
    """(word, first frame, last frame, acoustic log-score) of the best path.

    The Python API hands scores out as probabilities (logmath.exp of the decoder's scaled
    integer scores, in units of log(1.0001)); the logs are taken back to compare two searches.
    """
    return [
        (seg.word, seg.start_frame, seg.end_frame, math.log(max(seg.ascore, 1e-300)) / _LOG_BASE)
        for seg in (decoder.seg() or [])  # type: ignore[attr-defined]
    ]


def _speech_gap(grammar: object, filler: object) -> float:
    """How much worse, per frame of *speech*, the grammar's words fit than free phones do.

    Silence and noise segments are left out: averaged over the whole utterance, the padding
    around a command diluted the gap (on the tune split, rejecting 90% of table talk kept 33% of
    the correct commands that way, against 53% with the speech frames only).
    """
    phones = _segments(filler)
    if not phones:
        return 0.0
    per_frame = [0.0] * (max(end for _, _, end, _ in phones) + 1)
    for _, start, end, score in phones:
        for t in range(start, end + 1):
            per_frame[t] = score / (end - start + 1)
    gap, frames = 0.0, 0
    for word, start, end, score in _segments(grammar):
        if word.startswith(("<", "[", "+")) or word == "(NULL)":
            continue
        gap += sum(per_frame[start : end + 1]) - score
        frames += end - start + 1
    return gap / frames if frames else 0.0


def _noise_table() -> bytes:
    """Two seconds of fixed Gaussian noise with an RMS of 1000 (scaled down when used)."""
    rng = random.Random(20161)
    samples = array.array("h", (max(-32000, min(32000, int(rng.gauss(0.0, 1000.0)))) for _ in range(SAMPLE_RATE * 2)))
    return samples.tobytes()


def speech_recognition() -> object:
    """The SpeechRecognition module, imported without its deprecation noise (aifc, audioop)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        import speech_recognition as sr
    return sr


def read_wav(path: str) -> object:
    """A WAV/AIFF/FLAC file (any rate, mono or stereo) as SpeechRecognition ``AudioData``."""
    sr = speech_recognition()
    with sr.AudioFile(path) as source:  # type: ignore[attr-defined]
        return sr.Recognizer().record(source)  # type: ignore[attr-defined]
