"""Speech in: listen for spoken commands, on one owned thread, and report what was heard.

Used by the Textual app and ``lifeguard listen``. The listener thread opens the audio input
(the microphone through ``arecord``, or WAV files played in at real-time pace), loads the
recogniser in the background (the caller never waits for it), and then, per utterance:

1. waits for speech with SpeechRecognition's ``Recognizer.listen`` (energy threshold, pause
   detection) in streaming mode;
2. asks ``context()`` what the referee knows (players, game) and narrows the grammar to it. With
   ``settle=True`` (the table, ``lifeguard listen``) it first waits until the front end has
   applied (or refused) the command heard before, reported by ``settled()``: the next command
   must be heard against the game it will change, not the one before (a swap spoken right after
   the last row was otherwise decoded with the rows' grammar). Audio arriving meanwhile is kept.
   A recording played in waits for as long as the front end takes; a live input at most
   ``SETTLE_TIMEOUT_SECONDS`` (``Listener._await_settled``);
3. feeds the audio to the recogniser (PocketSphinx decodes *while* the player speaks, so that
   little is left when they stop; Whisper decodes what was said so far at a short pause, and a
   command that nothing can follow and that names no cards ends the utterance there:
   ``EarlyEnd``). Where an utterance ends, what is decoded and what is taken depend on the
   audio and the game alone, never on how fast the machine decodes;
4. when the recogniser says the command is unfinished (the speaker paused mid-list, "bob swaps
   row three ... pig pig cat"), listens on for up to ``CONTINUE_SECONDS``: speech that follows
   is decoded together with it, and if that is no command either, on its own. A command that
   names cards waits ``LATE_CARDS_SECONDS`` more for speech before it is reported: a last card
   said after a longer pause is its rest (the decoder completes a count with a card nobody said); speech
   that is no rest of it is heard next, against the game that command made;
5. reports ``Heard`` (a command the typed parser accepts) or ``Rejected`` (speech that was not a
   command, with the reason) through ``on_event``, from the listener thread. A fault inside the
   recogniser on one phrase is reported as ``Rejected`` (``HEARING_FAILED``: say it again), and
   listening goes on; ``MAX_FAILED_UTTERANCES`` in a row stop it, with the reason.

The energy threshold that tells speech from quiet follows the input's noise (``NoiseTracker``).

Modes: "push_to_talk" (default: one utterance per ``push_to_talk()``), "continuous", "off".
``pause()`` / ``resume()`` deafen the input while the referee speaks, so it never hears itself.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import math
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Protocol

from assistant.commands import Command
from assistant.config import LISTEN_MODES, VoiceSettings
from assistant.voice.pcm import audioop
from engine.deck import Animal
from engine.game import Game

if TYPE_CHECKING:
    from assistant.referee import Referee
    from assistant.voice.protocols import AudioData, AudioSource, AudioStream, SpeechDecoder
    from assistant.voice.recognizer import Decoded


#: Seconds of quiet that end an utterance. It is added to every answer's delay, but people
#: listing cards pause between them: espeak-ng's own pauses inside a line are at most 0.16 s,
#: people reading cards off their hand pause 0.25 to 0.5 s (bench/voice_game.py), and at 0.2 s
#: a whole game by voice lost a line in two to cards cut apart. A longer pause mid-command is
#: bridged by ``CONTINUE_SECONDS`` when the recogniser says the command is unfinished.
PAUSE_SECONDS = 0.6
#: The room kept before a phrase's first loud chunk (SpeechRecognition's ``non_speaking_duration``:
#: three 32 ms chunks before it). Each line of the usual six games by voice decoded alone in the
#: right state with 1 / 3 / 5 / 9 chunks of the room before its first loud one: 533 / 543 / 541 /
#: 536 of 556 exact, awaited "yes" 102 / 106 / 104 / 102 of 106 (bench/NOTES.md, session 23).
#: The loop kept up to 0.3 s, less when it had begun to listen just before (a wait ended, a
#: timeout): what it heard depended on where it had stopped reading (``NoiseTracker.give_back``).
LEAD_IN_SECONDS = 0.1
#: Quiet after which the utterance so far is decoded: a command that cannot go on and names no
#: cards (a knock, "yes", a sudden death) is then taken without waiting out ``PAUSE_SECONDS``,
#: once ``CHECK_SECONDS`` more of quiet follow (``EarlyEnd``).
EARLY_PAUSE_SECONDS = 0.15
#: Quiet after a short pause that tells the speaker has stopped rather than paused between
#: words (a fixed length of audio: the decision must not depend on how long decoding took).
CHECK_SECONDS = 0.15
#: Quiet after which the utterance so far is decoded to stand for it if it then ends: as much
#: after the last word as the recogniser alone is given (bench/voice_game.py: 0.3 s).
VERDICT_PAUSE_SECONDS = 0.3
#: How far the audio read may lag the clock before a short pause in it is decoded only once
#: needed (``Behind``): a few chunks of jitter.
BEHIND_SECONDS = 0.1
#: The same for the cut that stands for a phrase: it lags by the short pause's decoding, and is
#: needed unless speech follows within the 0.3 s before the phrase ends.
VERDICT_BEHIND_SECONDS = 0.3
#: How long the listener waits for the rest of an unfinished command.
CONTINUE_SECONDS = 2.0
#: How long the listener waits for more cards after a card command: a speaker pausing longer
#: than ``PAUSE_SECONDS`` before the last card ended the phrase there, and the decoder completed
#: the count with a card nobody said ("alice swaps row three, bear, dog [0.75 s] goat" was "Alice,
#: swap, 4, 3, bear, dog.", then "goat" talk: issue 40, bench/NOTES.md sessions 21 and 22).
#: Nothing in the reading tells such a command from one said whole: neither the decoder's wish
#: to stop (issue 34) nor Whisper's free transcription, which wrote espeak-ng's "alice swaps row
#: three bear dog" as "alice slap slow free mayor and arg". Pauses before a last card of up to
#: ``PAUSE_SECONDS`` + this are bridged; a card command that nothing follows is taken this much
#: later.
LATE_CARDS_SECONDS = 0.5
#: Different words other than cards that the rest of an unfinished command, written freely by
#: Whisper, may hold ("and", "for", "puts down"); more is talk (``Listener._joined``).
MAX_REST_OTHER_WORDS = 2
#: The longest rest (its audio, its lead-in included) whose free transcription is not
#: trusted to call it talk, and is trusted to tell a player's name the decoder made up: a card
#: or two ("and one dog" was 1.4 s). The next player's swap taken for the rest of a hand was
#: 2.5 s and 3.3 s (``Listener._joined``).
SHORT_REST_SECONDS = 1.5
#: The most tokens of a rest's free transcription written (a rest is a few words).
FREE_WORDS_LIMIT = 24
#: How alike (``difflib`` ratio of the letters) a word written freely must be to a word of a
#: command taken early to be that word misheard ("knox" for "knock", "classes" for "passes"):
#: the recogniser's bar for a misheard word (``whisper.recognizer.MIN_WORD_ALIKE``).
MIN_EARLY_WORD_ALIKE = 0.55
#: How long a live input waits for the front end to settle the command heard before (a
#: recording played in waits for as long as it takes: ``Listener._await_settled``).
SETTLE_TIMEOUT_SECONDS = 10.0
#: Longest utterance; a hand declaration of ten cards takes about six seconds.
PHRASE_LIMIT_SECONDS = 12.0
#: Utterances in a row whose hearing failed (an error inside the recogniser) before listening
#: stops: one failure is reported as a phrase to say again and listening goes on.
MAX_FAILED_UTTERANCES = 3
#: What a phrase whose hearing failed is reported as (said aloud by the table).
HEARING_FAILED = "something went wrong hearing that; please say it again"
#: The reason of the listener's last state ("off") once a WAV input has been played in and heard
#: to its end: the event after every other of the input's (``Listener.input_ended``).
INPUT_ENDED = "audio input ended"
#: How long a push-to-talk press waits for speech to start.
PUSH_TIMEOUT_SECONDS = 6.0


@dataclass(frozen=True)
class ListenContext:
    """What the referee knows, to narrow what is listened for."""

    players: tuple[str, ...]
    game: Game | None
    #: A heard command is read back and waits for yes or no (``Referee.question``).
    question: bool = False
    #: The readings of a heard command "no" just refused (``Referee.refused``): the next
    #: utterance may be their repeat, heard together with the one refused.
    refused: frozenset[str] = frozenset()

    @classmethod
    def from_referee(cls, referee: Referee) -> ListenContext:
        game = referee.game
        return cls(players=tuple(referee.players), game=game.copy() if game is not None else None,
                   question=referee.question is not None, refused=referee.refused)


#: Where in the input lies the audio a reading was made from: (first byte, end byte) of each
#: unbroken run of it (``Listener.on_cut``).
Spans = tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class Heard:
    """A recognised command."""

    command: Command
    text: str
    confidence: float
    #: The audio it was heard from (``Spans``; empty for an input that does not count).
    cut: Spans = field(default=(), compare=False, repr=False)


@dataclass(frozen=True)
class Rejected:
    """Speech that was not a command."""

    text: str
    reason: str
    #: The audio it was heard from (``Spans``; empty for an input that does not count).
    cut: Spans = field(default=(), compare=False, repr=False)

    @property
    def addressed(self) -> bool:
        """Whether it seems meant for the referee, so the table says why aloud (talk and the
        room are only written down: ``recognizer.UNADDRESSED_REASONS``)."""
        from assistant.voice.recognizer import addressed

        return addressed(self.reason)


@dataclass(frozen=True)
class ListenerState:
    state: str  # "off" | "listening" | "hearing" | "unavailable"
    reason: str | None


#: The lowest energy threshold: below it, even a quiet room would count as speech.
MIN_ENERGY_THRESHOLD = 150.0
#: Speech must be this many times louder (RMS) than the input's noise floor.
NOISE_MARGIN = 2.0


class NoiseTracker:
    """Wraps an audio source's stream and follows its noise floor: the RMS of the quieter chunks
    (the 20th percentile) over the last few seconds, whether or not someone speaks. The listener
    sets the energy threshold from it before each utterance, so a noisy room does not count as
    speech and a quiet player over a quiet room is not cut into pieces."""

    WINDOW_CHUNKS = 150  # about 5 s of 32 ms chunks

    def __init__(self, stream: AudioStream, sample_width: int = 2) -> None:
        self._stream = stream
        self._width = sample_width
        self._levels: deque[float] = deque(maxlen=self.WINDOW_CHUNKS)
        self._early: list[bytes] = []
        #: The last chunks handed on, for ``give_back``.
        self._recent: deque[bytes] = deque(maxlen=32)

    def read(self, frames: int) -> bytes:
        if self._early:  # heard while calibrating, or given back: handed on, not lost
            data, self._early = self._early[0], self._early[1:]
        else:
            data = self._stream.read(frames)
            if data:
                self._levels.append(float(audioop.rms(data, self._width)))
        if data:
            self._recent.append(data)
        return data

    def give_back(self, seconds: float, quieter_than: float) -> float:
        """Hand the last ``seconds`` of audio read on again, to be read next, and say how many
        seconds that was: the quiet read before a phrase is its lead-in (``LEAD_IN_SECONDS``).
        Only the quiet (chunks under ``quieter_than``): speech read last was the phrase
        before's. Without it a phrase's lead-in was what the listener had read since it
        last began to listen, by where a wait or the phrase before had stopped reading: a "yes"
        said 0.2 s after the wait for late cards was heard as talk (issue 40)."""
        given: list[bytes] = []
        size, wanted = 0, seconds * 16000 * self._width
        while self._recent and size < wanted:
            if audioop.rms(self._recent[-1], self._width) >= quieter_than:
                break
            given.append(self._recent.pop())
            size += len(given[-1])
        self._early = [*reversed(given), *self._early]
        self._recent.clear()
        return size / (16000 * self._width)

    def __getattr__(self, name: str) -> object:
        return getattr(self._stream, name)

    @property
    def delivered(self) -> int | None:
        """How far into the input (bytes) the audio handed on so far reaches; None for an input
        that does not count its position (a microphone's)."""
        position = getattr(self._stream, "position", None)
        if not isinstance(position, int):
            return None
        return position - sum(len(early) for early in self._early)

    @property
    def floor(self) -> float | None:
        levels = sorted(level for level in self._levels if level > 0)  # digital silence is no room
        if len(levels) < 8:
            return None
        return levels[len(levels) // 5]

    def calibrate(self, seconds: float = 0.5, chunk: int = 512) -> None:
        """Listen to the room before the first utterance (a threshold set from too little of it
        let room noise count as speech: one phrase ran on over three commands). The audio read
        is kept and read again: a command may begin in it."""
        early = []
        for _ in range(int(seconds * 16000 / chunk)):
            data = self.read(chunk)
            if not data:
                break
            early.append(data)
        self._early = early + self._early
        self._recent.clear()  # to be read again already: not to be given back too

    def threshold(self, current: float) -> float:
        floor = self.floor
        if floor is None:
            return current
        return max(MIN_ENERGY_THRESHOLD, floor * NOISE_MARGIN)


class SpeechListener(Protocol):
    """SpeechRecognition's ``Recognizer`` as the listener drives it: its settings for telling
    speech from quiet and its ``listen``. The library ships no types (its module is Any to a
    type checker); this is the part of its shape the listener relies on."""

    pause_threshold: float
    non_speaking_duration: float
    phrase_threshold: float
    dynamic_energy_threshold: bool
    energy_threshold: float

    def adjust_for_ambient_noise(self, source: AudioSource, duration: float = 1) -> None: ...

    def listen(self, source: AudioSource, timeout: float | None = None,
               phrase_time_limit: float | None = None, *,
               stream: bool = False) -> Generator[AudioData, None, None]:
        """With ``stream=True``: the phrase's audio a chunk at a time, as it is heard."""
        ...


def new_speech_listener() -> SpeechListener:
    """A SpeechRecognition ``Recognizer``, typed as the listener uses it."""
    from assistant.voice.recognizer import speech_recognition

    recognizer: SpeechListener = speech_recognition().Recognizer()
    return recognizer


def tune_recognizer(recognizer: SpeechListener, source: AudioSource | None = None) -> None:
    """SpeechRecognition's settings for commands (see ``PAUSE_SECONDS``).

    The energy threshold is measured once on the input's first quarter second, then fixed:
    SpeechRecognition's dynamic threshold also adapts *during* a phrase, towards 1.5 times the
    speech's own energy, so the quieter end of a longer command ("... and dog") fell below it
    and was cut off (a two-command file then lost half of its second command).
    """
    recognizer.pause_threshold = PAUSE_SECONDS
    recognizer.non_speaking_duration = LEAD_IN_SECONDS
    recognizer.phrase_threshold = 0.15
    recognizer.dynamic_energy_threshold = False
    if source is not None:
        recognizer.adjust_for_ambient_noise(source, duration=0.25)
    recognizer.energy_threshold = max(recognizer.energy_threshold, MIN_ENERGY_THRESHOLD)


class EarlyEnd:
    """Ends a phrase at a short pause when what was said so far is a whole command that cannot
    go on, instead of waiting out ``PAUSE_SECONDS`` of quiet (most of a command's delay), and
    decodes the phrase once, at ``VERDICT_PAUSE_SECONDS`` of quiet, for its end.

    Every decision is a function of the audio alone, never of how fast it is decoded (issue
    40): a quiet stretch is decoded at ``EARLY_PAUSE_SECONDS`` of it (the phrase up to there),
    and a command that cannot go on and names no cards (``_takes_early``) ends the phrase once
    ``CHECK_SECONDS`` more of quiet follow; speech in them means the speaker went on. It is
    decoded again at ``VERDICT_PAUSE_SECONDS`` (the phrase up to there): whatever it is (a
    command, talk, an unfinished command), it stands for the phrase if the phrase ends with no
    more speech (``finish``), as the recogniser alone is given 0.3 s after a line. (It used to
    stand only when it was a command, anything else being decoded again whole, 0.64 s after the
    last word: the reading the loop took then had other margins than the one alone, and whole
    games by voice lost lines to that: flite's awb "yes", alone "yes", was talk whole; a
    festival hand, alone a hand, was unfinished whole; bench/NOTES.md, session 17.) The decoding that
    stands for a phrase had 0.15 s after its last word before, and a weak last word ran on
    below the threshold into that: flite's awb voice saying "alice swapped row one for bear"
    was taken as "alice swaps 1 giraffe", the first animal of the prompt making up the card
    the decoder heard too little of; the recogniser alone hears a line with 0.3 s around it.

    What the clock decides is only *when* a decoding runs: at once (``hear``'s ``lag``, how far
    the listener is behind the audio, is small and the command before has settled), or, when
    the listener is behind, only once its outcome is needed (its check window heard quiet, or
    the phrase ended), so that a backlog of pauses already over is never decoded. Either way
    the same audio is decoded and the same decisions come out."""

    def __init__(self, threshold: float, players: Sequence[str] = ()) -> None:
        self.threshold = threshold
        #: Named in the phrase, for the typed parser (``_begins_cards``): the listener sets them
        #: after each decoding to the players of the game it was decoded against.
        self.players = players
        self.result: Decoded | None = None  # what ended the phrase early
        #: The chunks of the phrase that the decoding standing for it was given (``result``'s,
        #: or ``finish``'s), None while none stands.
        self.cut: int | None = None
        # A chunk of speech was heard (the phrase's first chunk, SpeechRecognition's quiet
        # lead-in joined with the first loud one, may read as quiet).
        self._spoke = False
        self._chunks = 0  # chunks of the phrase heard
        self._quiet = 0.0  # seconds of quiet at the end of the phrase
        # This quiet stretch's two cuts: (chunks, their decoding or None while not yet decoded).
        self._short: tuple[int, Decoded | None] | None = None
        #: Whisper's free transcription of the short cut, for a command that may be taken early.
        self._free: list[str] | None = None
        self._long: tuple[int, Decoded | None] | None = None
        self._checked = False  # the short cut's check window was heard quiet
        #: A command that would have been taken early but for its free transcription: it stands
        #: for the phrase if the phrase ends with no more speech (``finish``).
        self._held: tuple[int, Decoded] | None = None

    def hear(self, chunk: bytes, lag: float, decode: Callable[[int], Decoded],
             written: Callable[[int], list[str] | None] = lambda n: None) -> bool:
        """Take one more chunk (16-bit); True when the phrase ends here with ``result``.
        ``decode(n)`` decodes the phrase's first ``n`` chunks, ``written(n)`` writes them freely
        (Whisper's free transcription's words, None when the recogniser writes none); ``lag``:
        seconds the listener is behind the audio (``math.inf``: decode nothing before it is
        needed)."""
        self._chunks += 1
        if audioop.rms(chunk, 2) > self.threshold:
            self._quiet, self._short, self._long, self._checked = 0.0, None, None, False
            self._free, self._held = None, None
            self._spoke = True
            return False
        if not self._spoke:
            return False
        self._quiet += len(chunk) / (2 * 16000)
        if self._short is None and self._quiet >= EARLY_PAUSE_SECONDS:
            self._short = (self._chunks, decode(self._chunks) if lag <= BEHIND_SECONDS else None)
            self._free = self._written_if_early(self._short, written)
        if self._short is not None and not self._checked \
                and self._quiet >= EARLY_PAUSE_SECONDS + CHECK_SECONDS:
            self._checked = True
            cut, decoded = self._short
            if decoded is None:
                decoded = decode(cut)
                self._free = self._written_if_early((cut, decoded), written)
            if self._takes(cut, decoded):
                return True
        if self._long is None and self._quiet >= VERDICT_PAUSE_SECONDS:
            self._long = (self._chunks, decode(self._chunks) if lag <= VERDICT_BEHIND_SECONDS else None)
        return False

    def _takes(self, cut: int, decoded: Decoded) -> bool:
        """Whether the short cut's reading ends the phrase here (``_takes_early``). One that
        only its free transcription holds back is kept: the phrase waits for its end, and if no
        more speech came, it stands for the phrase (``finish``). The free transcription only
        tells whether to wait for the speaker, never what was said: read again 0.3 s later, an
        espeak-ng "alice knock" written "alice arc" was talk, and a whole game was lost at its
        line 10 (bench/NOTES.md, session 19)."""
        if not _takes_early(decoded, None):
            return False
        if _takes_early(decoded, self._free, self.players):
            self.result, self.cut = decoded, cut
            return True
        self._held = (cut, decoded)
        return False

    @staticmethod
    def _written_if_early(short: tuple[int, Decoded | None],
                          written: Callable[[int], list[str] | None]) -> list[str] | None:
        """The short cut's free transcription when its reading may be taken early (a command
        that cannot go on and names no cards); None otherwise or not yet decoded. Written at the
        short cut, with its decoding, so that a knock is not answered later for it."""
        cut, decoded = short
        if decoded is None or not _takes_early(decoded, None):
            return None
        return written(cut)

    def finish(self, decode: Callable[[int], Decoded]) -> Decoded | None:
        """The decoding that stands for the whole phrase, which ended with no more speech: the
        phrase heard at ``VERDICT_PAUSE_SECONDS`` of its final quiet, whatever it was, or the
        command held back at its final short pause (``_takes``); None (decode the phrase whole)
        when it ended before that much quiet (the input ran out)."""
        if self._held is not None:
            self.cut, held = self._held
            return held
        if self._long is None:
            return None
        cut, decoded = self._long
        if decoded is None:
            decoded = decode(cut)
            self._long = (cut, decoded)
        self.cut = cut
        return decoded


class Behind:
    """Whether the listener reads audio that had been waiting while a decoding ran: the phrase
    has been read for longer than its audio lasts. A pause found in such audio may be over,
    and decoding it at once made the phrase's last decoding wait for it (a card list with
    pauses was decoded three times, its command taken 2.6 s after its end). Decides only when
    ``EarlyEnd`` decodes, never what it decides."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._began: float | None = None
        self._heard = 0.0

    def __call__(self, chunk: bytes) -> float:
        """Seconds the listener is behind the audio, this chunk read."""
        now = self._clock()
        if self._began is None:
            self._began = now
            return 0.0
        self._heard += len(chunk) / (2 * 16000)
        return now - self._began - self._heard


def _takes_early(decoded: Decoded, free: Sequence[str] | None, players: Sequence[str] = ()) -> bool:
    """Whether a decoded phrase may end at a short pause: a command that nothing can follow and
    that names no cards. People pause between cards (0.25 to 0.5 s), and the decoder may make up
    the last card at such a pause to complete the count: in a whole game by voice, "bob swaps the
    row four for bear bear sheep [pause] dog" was taken as "... bear bear sheep sheep". A list of
    cards waits out ``PAUSE_SECONDS``. So does a command whose phrase so far Whisper writes freely
    (``free``; None: nothing written) with more different words than the command's, or as the
    start of a command that names cards (``_begins_cards``): a hand begun "bob has [pause]
    giraffe [pause] ..." was read at its first pause as "Bob, pass." (as long as "bob passes"
    said, as many words), taken early, and the rest of the hand became talk; written freely it is
    "bob has", and at its next pause "don't ask you have" (bench/NOTES.md, session 18). Nor is a
    command taken early whose own words, the player's name aside, are none of them written
    freely, or alike (``_says_its_words``): the same hand's "bob has", over room noise in a
    whole game, read "Bob, knock." and was written "bob alice", as many words and the name
    agreeing, and the hand was lost (session 19). Held back, the phrase waits for its end:
    speech going on is read with it; if none came, the command stands (``EarlyEnd._takes``),
    answered 0.3 s later (a knock written "bob not", "alice arc")."""
    command = decoded.command
    if command is None or not decoded.closed or command.cards:
        return False
    if free is None:
        return True
    said = _words_of(decoded.text)
    return len(set(free)) <= len(set(said)) and not _begins_cards(free, players) \
        and _says_its_words(said, free, players)


def _says_its_words(said: Sequence[str], free: Sequence[str], players: Sequence[str]) -> bool:
    """Whether a free transcription holds one of a command's words other than the players'
    names, or a word alike it (``_alike``). A name agreeing says nothing of what followed it:
    every command begins with one."""
    names = {name.lower() for name in players}
    own = [word for word in said if word not in names]
    written = [word for word in free if word not in names]
    return not own or any(_alike(word, other) for word in own for other in written)


def _alike(word: str, other: str) -> bool:
    """The same word, inflected ("pass", "passes") or misheard ("knox" for "knock",
    ``MIN_EARLY_WORD_ALIKE``)."""
    from difflib import SequenceMatcher

    if word == other or (min(len(word), len(other)) >= 3 and (word.startswith(other) or other.startswith(word))):
        return True
    return SequenceMatcher(None, word, other).ratio() >= MIN_EARLY_WORD_ALIKE


def _words_of(text: str) -> list[str]:
    """The lower-case words of a decoding's text ("Bob, knock." -> bob, knock)."""
    return "".join(c if c.isalnum() or c in "'-" else " " for c in text.lower()).split()


def _begins_cards(free: Sequence[str], players: Sequence[str]) -> bool:
    """Whether words written freely begin a command that names cards: with a card after them
    the typed parser reads a command naming cards ("bob has" + "bear": a hand)."""
    from assistant.commands import ParseError, parse

    try:
        return bool(parse(" ".join([*free, "bear"]), players or None).cards)
    except ParseError:
        return False


def _continues(begun: Command | None, whole: Command) -> bool:
    """Whether ``whole`` (an unfinished command heard together with what followed it) is that
    command finished: the same player, move and row. Talk after "bob swaps row three pig pig"
    was otherwise forced into a command of its own making: "Bob, swap, 4, 3, pig, pig."."""
    if begun is None:
        return True  # nothing to compare with (PocketSphinx, or words that were no command yet)
    return (begun.intent, begun.player, begun.row) == (whole.intent, whole.player, whole.row)


def _joins(first: Decoded, rest: Decoded, whole: Decoded, players: Sequence[str] = (),
           free: Sequence[str] | None = None) -> bool:
    """Whether an unfinished command (``first``) and the speech after it (``rest``, heard
    alone: no command) are one command, ``whole`` (the two heard together): ``whole`` is
    ``first`` finished (or still unfinished) with the same player, move and row, the rest alone
    does not begin a command of its own, and the two heard together are likelier than the rest
    alone (mean log-probability per token). Else the rest is heard alone. In whole games by voice
    gone astray, a swap heard as the start of someone's hand was joined to the next player's
    command (heard alone as the start of another command) and became a hand of ten dogs: the
    next player's line was lost to what neither had said; and the next player's line, heard
    alone as a doubtful command of that player's ("Bob has 2 dogs, cat, ...": not sure), was
    swallowed by the unfinished command of another (bench/NOTES.md, session 17). ``free``: the
    rest written freely, which tells a player's name the decoder made up (``_rest_read_as``)."""
    from assistant.voice.recognizer import INCOMPLETE_REASON

    reading = _rest_read_as(rest, players, free)
    if reading is not None and rest.begun is not None and _begins_its_own(rest.begun) \
            and not _continues(first.begun, rest.begun):
        return False
    if _someone_else(first.begun, reading):
        return False
    if whole.reason == INCOMPLETE_REASON:
        return whole.begun is None or _continues(first.begun, whole.begun)
    return whole.command is not None and _continues(first.begun, whole.command) \
        and whole.confidence >= rest.confidence


def _read_back_if_joined(whole: Decoded) -> Decoded:
    """A command heard with the rest its speaker said after a pause (``_joins``) that the
    recogniser still calls unfinished, as the command it completed, to be read back
    (``Command.unsure``), when it passes the recogniser's other tests (``Decoded.begun_sound``):
    Whisper's free transcription, which tells a made-up end, stops at the pause or runs words
    together ("row two is a mole [0.4 s] goat" written "road to miss emerald code": five words
    for six), and the line was lost though read right (issue 40's last-pause seats; its
    tester's files, over digital silence, more often). Else as it was."""
    from assistant.voice.recognizer import INCOMPLETE_REASON

    begun = whole.begun
    if whole.reason != INCOMPLETE_REASON or begun is None or not begun.is_game_action or not whole.begun_sound:
        return whole
    return _completed_unsure(whole)


def _completed_unsure(whole: Decoded) -> Decoded:
    """An unfinished decoding as the command the recogniser completed (``Decoded.begun``), to be
    read back (``Command.unsure``): its end may be made up."""
    assert whole.begun is not None
    return replace(whole, command=replace(whole.begun, unsure=True), reason=None)


def _left_unfinished(decoded: Decoded, joined_to: bool, cut: Spans) -> Heard | Rejected:
    """An unfinished command that no rest follows, as reported: read back when it was heard
    with the rest said after a pause (``joined_to``) and is sound (``_read_back_if_joined``),
    else rejected as unfinished. (What followed may be the next player's command: "row two is
    a mole [pause] goat" heard with its rest, then "row one pig", was lost as unfinished.)"""
    from assistant.voice.recognizer import INCOMPLETE_REASON

    read_back = _read_back_if_joined(decoded) if joined_to else decoded
    if read_back.command is not None:
        return Heard(read_back.command, read_back.text, read_back.confidence, cut)
    return Rejected(decoded.text, decoded.reason or INCOMPLETE_REASON, cut)


def _begins_its_own(begun: Command | None) -> bool:
    """Whether speech heard alone as the unfinished command ``begun`` begins a command of its
    own: a player's, or a game action's. Not one of nobody's that the decoder, made to read a
    lone late card as a command, began and could not finish: "cat" after a pause read as "What
    can I say?" (help), "mouse" as "Who, is, next." (status), with confidence under 0.05; the two
    heard together were the command said, and the loop lost it (issue 40's last-pause seats)."""
    return begun is not None and (begun.is_game_action or begun.player is not None)


def _may_lack_late_cards(decoded: Decoded) -> bool:
    """Whether a decoded phrase is a command naming cards, whose last cards the speaker may not
    have said yet (``LATE_CARDS_SECONDS``)."""
    return decoded.command is not None and bool(decoded.command.cards)


def _adds_late_cards(first: Decoded, rest: Decoded, whole: Decoded, players: Sequence[str] = (),
                     free: Sequence[str] | None = None, written: frozenset[Animal] = frozenset()) -> bool:
    """Whether a card command that may lack its late cards (``first``) and the speech after it
    (``rest``, heard alone: no command of a player's) are one command, ``whole`` (the two heard
    together): another command of the same player and move, likelier than the rest alone and
    than the command alone (a festival "yes" said just after a hand, no command before the hand
    was applied, was heard with it as another hand), the rest beginning no command and naming no
    other player. Not the same row: the decoder may have made up the row to complete the count
    ("alice swaps row three, bear, dog" was "Alice, swap, 4, 3, bear, dog.": row 4, three bears
    and a dog). Not the same command: the rest added
    nothing, and may be what the read-back waits for ("yes"). The two heard together may read as
    unfinished, the decoder wishing to stop at the pause between them and Whisper's free
    transcription stopping there (``whisper.WhisperRecognizer._invented``): its command as the
    decoder completed it (``Decoded.begun``) is theirs, as complete as the command heard first.
    ``free``: the rest written freely (``_rest_read_as``), and the animals it names
    (``written``).

    Less likely than the command alone, but likelier than the rest alone, when every card the
    two add is an animal the rest is written freely as (read back, ``_with_late_cards``):
    "row three has giraffe dog [0.7 s] one rabbit", the first part read "Row 3, 2, giraffe,
    dog." (0.47), the rest "What can I say?" alone and written freely "one rabbit", the two
    together the row said (0.44), was lost (issue 40's last-pause seats, the 3-player game's
    line 53, session 25)."""
    command, together, reading = first.command, _finished(whole), _rest_read_as(rest, players, free)
    if command is None or together is None or (reading is not None and _begins_its_own(rest.begun)) \
            or _someone_else(command, reading):
        return False
    likelier = whole.confidence >= first.confidence or _adds_written(command, together, written)
    return (together.intent, together.player) == (command.intent, command.player) \
        and together.canonical != command.canonical \
        and whole.confidence >= rest.confidence and likelier


def _adds_written(command: Command, together: Command, written: frozenset[Animal]) -> bool:
    """Whether ``together`` holds cards ``command`` does not, each an animal ``written``."""
    added = Counter(together.cards) - Counter(command.cards)
    return bool(added) and set(added) <= written


def _with_late_cards(whole: Decoded, first: Decoded) -> Decoded:
    """A card command heard with its late cards (``_adds_late_cards``) as the command to report:
    the one the recogniser completed, read back (``Command.unsure``) when it called the two
    heard together unfinished (their end may be made up), or when they are less likely than the
    command heard first (``first``; joined as the rest is written freely)."""
    # _adds_late_cards joins only what reads as a command: a command, or one begun.
    if whole.command is None:
        return replace(_completed_unsure(whole), closed=True)
    if whole.confidence < first.confidence:
        return replace(whole, command=replace(whole.command, unsure=True), closed=True)
    return replace(whole, closed=True)


def _finished(decoded: Decoded) -> Command | None:
    """A decoding's command, or the command an unfinished one began as the decoder completed it."""
    from assistant.voice.recognizer import INCOMPLETE_REASON

    if decoded.command is not None:
        return decoded.command
    return decoded.begun if decoded.reason == INCOMPLETE_REASON else None


def _talk(free: Sequence[str] | None, cards: frozenset[str]) -> bool:
    """Whether a free transcription is talk rather than the rest of a command: more than
    ``MAX_REST_OTHER_WORDS`` different words of it are no ``cards`` words (None: nothing
    written, no evidence). Different words: free transcription loops on a short rest ("cat"
    after "bob swaps row three pig pig" was written "Cut. Cut. Cut. ...")."""
    return free is not None and len(set(free) - cards) > MAX_REST_OTHER_WORDS


def _read_as(decoded: Decoded, players: Sequence[str]) -> Command | None:
    """What a decoding reads as, taken or not: its command, the unfinished command it began,
    or its words read by the typed parser (a command doubted as talk still names its player)."""
    from assistant.commands import ParseError, parse

    if decoded.command is not None or decoded.begun is not None:
        return decoded.command or decoded.begun
    try:
        return parse(decoded.text, players or None)
    except ParseError:
        return None


def _rest_read_as(rest: Decoded, players: Sequence[str], free: Sequence[str] | None) -> Command | None:
    """What speech after a command reads as alone (``_read_as``); None when it names a player
    whom Whisper's free transcription of it (``free``) does not write, nor a word alike
    (``_alike``): the decoder, made to read a lone late card as a command, began it with a name
    from its prompt. "pig" after a pause was read "Frank, Took, three, pig, pig, pig." (written
    freely "big big big ..."), "one cat" as "Bob, has one cat, one cat, ..." ("one cat one
    cat"), and the rest was refused as another player's (issue 40's last-pause seats)."""
    reading = _read_as(rest, players)
    if reading is None or reading.player is None or free is None:
        return reading
    return reading if any(_alike(reading.player.lower(), word) for word in free) else None


def _someone_else(begun: Command | None, reading: Command | None) -> bool:
    """Whether ``reading`` is about another player than the unfinished command ``begun``."""
    return begun is not None and reading is not None and None not in (begun.player, reading.player) \
        and begun.player != reading.player


@lru_cache(maxsize=1)
def _libc() -> ctypes.CDLL | None:
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    except OSError:
        return None


def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or None on a C library without it."""
    return getattr(_libc(), "malloc_trim", None)


#: glibc's ``mallopt`` parameter for the size from which an allocation is its own mapping.
_M_MMAP_THRESHOLD = -3
#: Allocations from this size on are mappings of their own, unmapped when freed.
LARGE_ALLOCATION_BYTES = 4 << 20


def return_large_buffers() -> None:
    """Make glibc map every allocation of ``LARGE_ALLOCATION_BYTES`` or more on its own, so that
    it goes back to the system when freed. By default glibc raises that bound to the largest
    block freed so far (up to 32 MB) and serves such blocks from its heap afterwards, where they
    stay resident between decodings. The 100 lines of a 4-player game decoded in one process
    (with ``release_freed_memory`` after each): resident at the end 360 -> 339 MB, highest 425 ->
    403 MB, the same time (bench/NOTES.md, session 12). Process-wide; called before the
    recogniser loads."""
    mallopt = getattr(_libc(), "mallopt", None)
    if mallopt is not None:
        mallopt(_M_MMAP_THRESHOLD, LARGE_ALLOCATION_BYTES)


def release_freed_memory() -> None:
    """Give the memory freed by a decoding back to the system. glibc keeps freed heap for reuse,
    and a decoding's buffers (beams, the encoder's output, the free transcription) are freed in
    pieces it could not return: over a whole game's 278 utterances, decoded in one process, the
    resident size grew to 532 MB, 488 MB with this after each (about 2 ms;
    bench/NOTES.md)."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


def _stream_of(source: AudioSource) -> AudioStream:
    """The stream of an entered source (closing it from another thread leaves none)."""
    stream = source.stream
    if stream is None:
        raise RuntimeError("the audio input was closed")
    return stream


def _cut_of(chunks: list[bytes], ends: list[int | None], cut: int | None) -> Spans:
    """Where a phrase's first ``cut`` chunks (None: all) lie in the input (``ends``: how far
    into it each chunk reaches); empty for an input that does not count its position."""
    spans: list[tuple[int, int]] = []
    for chunk, end in zip(chunks[:cut], ends[:cut], strict=True):
        if end is None:
            return ()
        start = end - len(chunk)
        if spans and spans[-1][1] == start:
            spans[-1] = (spans[-1][0], end)
        else:
            spans.append((start, end))
    return tuple(spans)


def _give_lead_in(recognizer: SpeechListener, source: AudioSource) -> float:
    """Hand the quiet read last on again as the next phrase's lead-in (``NoiseTracker.give_back``);
    the seconds given."""
    stream = source.stream
    if not isinstance(stream, NoiseTracker):
        return 0.0
    return stream.give_back(recognizer.non_speaking_duration, recognizer.energy_threshold)


def _input_ended(source: object) -> bool:
    """Whether a WAV input has been played in completely (a microphone never ends)."""
    return bool(getattr(source, "ended", False))


class Listener:
    """Listens on its own thread; see the module docstring."""

    def __init__(
        self,
        settings: VoiceSettings,
        context: Callable[[], ListenContext],
        on_event: Callable[[Heard | Rejected | ListenerState], None],
        audio_input: Sequence[str] | None = None,
        settle: bool = False,
        source: AudioSource | None = None,
        realtime: bool = True,
    ) -> None:
        self.settings = settings
        #: The input to hear instead of the microphone or ``audio_input``'s files (the cleaned
        #: capture of a full-duplex device, ``assistant.voice.duplex``).
        self._given_source = source
        #: WAV input played at real-time pace (as spoken); False: as fast as it is heard, which
        #: gives the same commands (the loop decides on the audio alone), only sooner.
        self.realtime = realtime
        #: Wait for ``settled()`` after each ``Heard`` before hearing the next command.
        self.settle = settle
        self._settled = threading.Event()
        self._settled.set()
        #: Why the recogniser in use is not the one asked for (Whisper fell back), or None.
        self._engine_note: str | None = None
        self.context = context
        self.on_event = on_event
        files = audio_input if audio_input is not None else settings.audio_input
        self.audio_input: tuple[str, ...] = tuple(files or ())
        self.mode = settings.listen if settings.listen in LISTEN_MODES else "push_to_talk"
        self.state = "off"
        self.reason: str | None = None
        self.recognizer: SpeechDecoder | None = None  # the recogniser (make_recognizer), once loaded
        self._source: AudioSource | None = None
        self._thread: threading.Thread | None = None
        self._wake = threading.Event()
        self._push = threading.Event()
        self._closed = threading.Event()
        self._paused = False
        self._input_ended = False
        #: The players of the context the recogniser was last set to hear against (``_begin``).
        self._heard_against: tuple[str, ...] = ()
        #: Told, for each command or rejection reported, where in the input lies the audio its
        #: reading was made from (``Spans``, the event's ``cut``): what bench/voice_game.py gives
        #: the recogniser alone, to measure what the loop's own logic (early ends, joining, the
        #: context it asks for) changes. A phrase that became nothing (the room, a WAV input's
        #: last quiet) is not told: no line's reading was made from it. None: nobody is told.
        self.on_cut: Callable[[Spans], None] | None = None
        #: Where the last phrase cut lies in the input (``_phrase``).
        self._last_cut: Spans = ()
        #: The last phrase's audio that its standing decoding was given (``_phrase``).
        self._last_audio: list[bytes] = []
        #: A phrase heard after a command that was not its rest, heard next as an utterance of its
        #: own: all its audio, the audio read as it (its cut), where that lies, and its reading
        #: when it stands (None: read again once the command before has settled, ``_late_cards``;
        #: an unfinished command of its own after talk, ``_with_the_rest``).
        self._carried: tuple[list[bytes], list[bytes], Spans, Decoded | None] | None = None

    # ------------------------------------------------------------------ public interface
    @property
    def note(self) -> str | None:
        """What to know of the hearing, or None: why the recogniser in use is not the one asked
        for (Whisper fell back), and which players PocketSphinx cannot listen for (no
        pronunciation of a name, in the context it hears against)."""
        return "; ".join(n for n in (self._engine_note, getattr(self.recognizer, "note", None)) if n) or None

    def start(self) -> None:
        """Start the listener thread; the decoder loads there, in the background."""
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name="lifeguard-listener", daemon=True)
        self._thread.start()

    def push_to_talk(self) -> None:
        """Listen for one utterance (push-to-talk mode; in continuous mode it does nothing)."""
        self._push.set()
        self._wake.set()

    def settled(self) -> None:
        """The front end has applied (or refused, or asked about) the last ``Heard`` command:
        the next utterance may be heard against the game as it is now."""
        self._settled.set()

    def pause(self) -> None:
        """Stop hearing (the referee is speaking); audio in the meantime is ignored."""
        self._paused = True
        if self._source is not None:
            self._source.deaf = True

    def resume(self) -> None:
        self._paused = False
        if self._source is not None:
            self._source.deaf = False
        self._wake.set()

    def close(self) -> None:
        self._closed.set()
        self._wake.set()
        source = self._source
        if source is not None and hasattr(source, "close"):
            source.close()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)

    @property
    def input_ended(self) -> bool:
        """True once WAV audio input has been played in completely."""
        return self._input_ended

    # ------------------------------------------------------------------ the listener thread
    def _run(self) -> None:
        try:
            self._run_inner()
        except Exception as err:  # noqa: BLE001 - never die silently: say why hearing stopped
            self._set_state("unavailable", f"listening stopped: {type(err).__name__}: {err}"[:120])

    def _run_inner(self) -> None:
        from assistant.i18n import current_language
        from assistant.voice.audio import ArecordSource, AudioUnavailable, WavSource
        from assistant.voice.recognizer import RecognizerUnavailable, make_recognizer

        return_large_buffers()
        try:
            # The table's language: where voice input is not offered in it, the sentence why
            # becomes the microphone's state (typing and speech out go on).
            self.recognizer, self._engine_note = make_recognizer(
                self.settings.engine, model=self.settings.whisper_model, language=current_language())
        except RecognizerUnavailable as err:
            self._set_state("unavailable", str(err))
            return
        source: Any = (self._given_source if self._given_source is not None
                       else WavSource(self.audio_input, realtime=self.realtime) if self.audio_input
                       else ArecordSource())
        source.deaf = self._paused
        self._source = source
        try:
            source.__enter__()
        except AudioUnavailable as err:
            self._set_state("unavailable", str(err))
            return
        try:
            self._loop(source)
        finally:
            source.__exit__(None, None, None)
            if isinstance(source, ArecordSource):
                source.close()

    def _loop(self, source: AudioSource) -> None:
        recognizer, noise = self._prepare(source)
        is_file = bool(self.audio_input)
        failures = 0
        self._set_state("off" if self.mode != "continuous" else "listening", self.note)
        while not self._closed.is_set():
            mode = self.mode
            wanted = mode == "continuous" or (mode == "push_to_talk" and self._push.is_set()) \
                or (mode != "off" and self._carried is not None)
            if not wanted or self._paused:
                self._idle(source, is_file)
                continue
            self._push.clear()
            self._set_state("listening", self.note)
            recognizer.energy_threshold = noise.threshold(recognizer.energy_threshold)
            timeout = PUSH_TIMEOUT_SECONDS if mode == "push_to_talk" else 1.0
            events, failures = self._hear_once(recognizer, source, timeout, failures)
            for event in events:
                if not self._closed.is_set():
                    self._emit(event)
            if events:
                release_freed_memory()  # once the command is out: not on its way
            if is_file and self._heard_to_the_end(source):
                self._input_ended = True
                self._set_state("off", INPUT_ENDED)
                self._wake.wait()
                self._wake.clear()

    def _heard_to_the_end(self, source: AudioSource) -> bool:
        """Whether a WAV input has been played in and every phrase of it heard: a phrase carried
        over (``_carried``) is heard first, the input's last words (session 25's tester: "oh wait"
        at the end of a file, read as an unfinished command of its own, was never heard)."""
        return _input_ended(source) and self._carried is None

    @staticmethod
    def _prepare(source: AudioSource) -> tuple[SpeechListener, NoiseTracker]:
        """SpeechRecognition's recogniser tuned for commands, and the noise floor followed on
        the (entered) source's stream, measured on the room first."""
        recognizer = new_speech_listener()
        tune_recognizer(recognizer, source)
        noise = NoiseTracker(_stream_of(source))
        source.stream = noise
        noise.calibrate(chunk=source.CHUNK)
        return recognizer, noise

    def _idle(self, source: AudioSource, is_file: bool) -> None:
        """Not listening now (idle, or paused while the referee speaks): wait for a file's next
        push, or let a stream's audio run on."""
        self._set_state("off")
        if is_file and not self._paused:
            self._wake.wait(0.5)  # push-to-talk: a file waits for the next press
            self._wake.clear()
        elif not _stream_of(source).read(source.CHUNK):
            # Audio runs on (deafened while paused, dropped while idle) like a
            # microphone's; a file that ends meanwhile has ended.
            self._input_ended = True
            self._set_state("off", INPUT_ENDED)
            self._wake.wait()

    def _hear_once(self, recognizer: SpeechListener, source: AudioSource, timeout: float,
                   failures: int) -> tuple[list[Heard | Rejected], int]:
        """One utterance's events, and the hearing failures in a row after it."""
        try:
            return self._one_utterance(recognizer, source, timeout), 0
        except Exception:
            # A fault inside the recogniser on one phrase must not end listening for the
            # game: the phrase is said again. Faults in a row (a broken input) end it,
            # with the reason (``_run``).
            if failures + 1 >= MAX_FAILED_UTTERANCES:
                raise
            return [Rejected("", HEARING_FAILED)], failures + 1

    def _one_utterance(self, recognizer: SpeechListener, source: AudioSource,
                       timeout: float) -> list[Heard | Rejected]:
        """What one utterance became: usually one event; two when a command the recogniser
        took for unfinished was followed by a command of its own (reported as the unfinished
        part, rejected, then that command)."""
        if self._carried is not None:
            # Said while the command before waited for its late cards: heard now, against the
            # game that command made.
            spoken, self._last_audio, self._last_cut, reading = self._carried
            self._carried = None
            phrase: tuple[list[bytes], Decoded | None] | None = (spoken, reading)
        else:
            phrase = self._phrase(recognizer, source, timeout)
        if phrase is None:
            return []
        spoken, decoded = phrase
        if decoded is None:
            decoded = self._decode(self._last_audio)
        events, decoded, spoken, cut = self._with_the_rest(recognizer, source, spoken, decoded, self._last_cut)
        if decoded is None:
            return events  # what follows is heard next, as an utterance of its own
        if _may_lack_late_cards(decoded) and not self._closed.is_set() and not _input_ended(source):
            decoded, cut = self._late_cards(recognizer, source, spoken, decoded, cut)
        if self._paused:
            return []  # the referee started speaking meanwhile: do not trust what was heard
        last = self._event_for(decoded, source, cut)
        return [*events, last] if last is not None else events

    def _with_the_rest(self, recognizer: SpeechListener, source: AudioSource, spoken: list[bytes],
                       decoded: Decoded, cut: Spans,
                       ) -> tuple[list[Heard | Rejected], Decoded | None, list[bytes], Spans]:
        """An unfinished command together with what the speaker says next, and what to report
        before it (the unfinished part, when what follows is a whole command of its own), with
        all the audio the reading to report was read from (``spoken``: the quiet that ended it
        too, ``_joined``) and where in the input its cut lies (``cut``, ``Spans``). No reading
        to report (None) when what followed is an unfinished command of its own, carried over to
        be heard with its own rest: it was heard here with the breaths left to the command
        before it, and in a game gone astray, where three players' lines in a row were read as
        unfinished, the third was left without its last card (issue 40's last-pause seats, the
        5-player game's line 67, session 25)."""
        from assistant.voice.recognizer import INCOMPLETE_REASON

        before: list[Heard | Rejected] = []
        joined_to = False  # ``decoded`` is the command heard with the rest said after a pause
        for _ in range(3):  # a hand may be spoken in a few breaths
            if decoded.reason != INCOMPLETE_REASON or self._closed.is_set() or _input_ended(source):
                break
            # The speaker paused mid-command. If they go on at once, the two parts are heard as
            # one; if that is no command either, the rest alone. (Joining after any rejection
            # merged one player's misheard command with the next player's: whole games by voice
            # lost both.)
            rest = self._rest_phrase(recognizer, source, CONTINUE_SECONDS)
            if rest is None:
                break
            rest_audio, rest_cut = self._last_audio, self._last_cut
            alone = rest[1] or self._decode(rest_audio)
            unfinished = _left_unfinished(decoded, joined_to, cut)
            if alone.command is not None and alone.command.is_game_action:
                # A whole command by itself: the next player's, not the rest of this one (a
                # complete command taken for unfinished, joined with the next, swallowed it).
                return [*before, unfinished], alone, rest[0], rest_cut
            if self._event_for(alone, source, rest_cut) is None:
                # Only the room followed (a WAV input's last quiet is handed over as a phrase):
                # the unfinished command stands, and is said, rather than the quiet after it.
                break
            joined = self._joined(spoken, decoded, rest_audio, alone)
            if joined is not None:
                spoken, decoded, cut, joined_to = [*spoken, *rest[0]], joined, (*cut, *rest_cut), True
            elif alone.command is not None:
                # A command of no player's ("no", "undo") that is not the rest either. (Heard as
                # one, a late card was taken for it: "mole" heard alone as "No.", whole games by
                # voice with a pause before the last card, issue 40.)
                return [*before, unfinished], alone, rest[0], rest_cut
            else:
                # Talk followed: both are reported, the unfinished command first (it was lost
                # here, now and then, in the table's tests: the player was never told).
                before.append(unfinished)
                if alone.reason == INCOMPLETE_REASON:
                    # Read again against the game a command read back makes (its question).
                    reading = alone if isinstance(unfinished, Rejected) else None
                    self._carried = (rest[0], rest_audio, rest_cut, reading)
                    return before, None, [], ()
                spoken, decoded, cut, joined_to = rest[0], alone, rest_cut, False
        return before, _read_back_if_joined(decoded) if joined_to else decoded, spoken, cut

    def _late_cards(self, recognizer: SpeechListener, source: AudioSource, spoken: list[bytes],
                    decoded: Decoded, cut: Spans) -> tuple[Decoded, Spans]:
        """A card command with its late cards, when the speaker goes on within
        ``LATE_CARDS_SECONDS`` with what is the rest of it (``_joined``, ``_adds_late_cards``);
        else the command as heard. Speech that follows and is not its rest is carried over and
        heard once this command has settled: heard now, it would be heard against the game
        before it (the next player's swap against this player's turn)."""
        rest = self._rest_phrase(recognizer, source, LATE_CARDS_SECONDS)
        if rest is None:
            return decoded, cut
        rest_audio, rest_cut = self._last_audio, self._last_cut
        alone = rest[1] or self._decode(rest_audio)
        # A command heard alone ("yes", "undo", the next player's knock) is carried over: a "yes"
        # 0.7 s after a hand was heard with it as that hand again, and lost.
        if alone.command is None:
            if self._event_for(alone, source, rest_cut) is None:
                return decoded, cut  # only the room followed
            joined = self._joined(spoken, decoded, rest_audio, alone, late=True)
            if joined is not None:
                return _with_late_cards(joined, decoded), (*cut, *rest_cut)
        lead = self._lead_in(recognizer, source, spoken, rest[0][0])
        if lead and rest_cut:
            rest_cut = ((rest_cut[0][0] - len(lead), rest_cut[0][1]), *rest_cut[1:])
        led = [lead] if lead else []
        self._carried = ([*led, *rest[0]], [*led, *rest_audio], rest_cut, None)
        return decoded, cut

    @staticmethod
    def _lead_in(recognizer: SpeechListener, source: AudioSource, before: list[bytes], first: bytes) -> bytes:
        """The quiet at the end of ``before`` that a phrase read right after it (``first``, its
        first chunk: SpeechRecognition's lead-in and the first speech) lacks of a whole lead-in
        (``LEAD_IN_SECONDS``): a line said just after a card command, within the wait for its
        late cards, began as soon as the wait did (the espeak-ng 5-player game, session 22)."""
        step = source.CHUNK * 2 * 16000 // source.SAMPLE_RATE  # a chunk, as the listener keeps audio
        missing = int(recognizer.non_speaking_duration * 16000) * 2 - (len(first) - step)
        audio = b"".join(before)
        size = 0
        while size + step <= min(missing, len(audio)) \
                and audioop.rms(audio[len(audio) - size - step:len(audio) - size], 2) < recognizer.energy_threshold:
            size += step
        return audio[len(audio) - size:] if size else b""

    def _rest_phrase(self, recognizer: SpeechListener, source: AudioSource,
                     timeout: float) -> tuple[list[bytes], Decoded | None] | None:
        """The phrase that begins within ``timeout`` after a command, as the rest of it. The rest
        may be one short word ("goat"): SpeechRecognition's shortest phrase is waived, as it
        listens on for another after a shorter one, counting it into the time to wait for speech,
        and the word was lost (an espeak-ng "goat" 0.75 s after "alice swaps row three bear dog")."""
        shortest, recognizer.phrase_threshold = recognizer.phrase_threshold, 0.0
        try:
            return self._phrase(recognizer, source, timeout, lead_in=False)
        finally:
            recognizer.phrase_threshold = shortest

    def _joined(self, spoken: list[bytes], decoded: Decoded, rest: list[bytes],
                alone: Decoded, late: bool = False) -> Decoded | None:
        """An unfinished command (``decoded``, read from a phrase of which ``spoken`` is all the
        audio) and the speech after it (``rest``, the audio read as it, heard ``alone`` as no
        command) heard as one, when they are one (``_joins``); None when the rest is not its
        continuation. The two are heard as they were said: the phrase with the quiet that ended
        it, then the rest with the quiet before it (``LEAD_IN_SECONDS``): a pause of up to about
        0.7 s is heard whole, as the recogniser alone hears the line, a longer one as 0.7 s.
        (They used to be joined with 0.3 s of digital silence between them: at the last-pause
        seats of bench/voice_game.py the loop then lost 27 lines against 14, session 22.)

        A rest that begins no command of its own and that Whisper writes freely with more than
        ``MAX_REST_OTHER_WORDS`` different words that are no cards is talk, whatever the two
        read as together: a whole game by voice gone astray heard the next player's swap ("bob
        swapped row two puts down giraffe goat", alone talk: "What can I say?") as the rest of
        Erin's hand, "erin has 1 bear 9 dog" (bench/NOTES.md, session 18). The rest of a command
        is cards ("pig pig [pause] cat"), with a word or two between them ("and", "for"). ``late``: ``decoded`` is a command that may lack its late
        cards (``_late_cards``), joined as ``_adds_late_cards`` says.

        Not so a rest of up to ``SHORT_REST_SECONDS``: Whisper writes a lone word as it likes
        ("rabbit" as "and the love with it", "cat" as "i'm cut i'm cut"), and the line was lost
        (issue 40's last-pause seats). It is joined when the command is likelier with it than
        without it; talk forced into cards makes it less likely. So is a rest written with no
        animal: "ha ha" ("pah-pah"), "sorry", "oh wait" after "alice swaps row three bear dog"
        were joined as a card nobody said, each less likely than the command alone (session
        23's tester: 0.26 against 0.29, 0.34 against 0.50; the rests joined right rose, 0.37
        to 0.74, 0.49 to 0.70).

        Only a short rest's free transcription can tell a player's name the decoder made up
        (``_rest_read_as``): a late card is a word or two. The next player's whole swap after a
        hand cut short, 3.3 s, written freely "mark swap the road to and leave one goat" (for
        "bob swap the row two and leaves one goat"), was joined to Judy's swap and lost (the
        last-pause seats' 4-player game, line 9)."""
        free = self._written_freely(rest)
        talk = alone.begun is None and _talk(free, self._card_words())
        short = sum(map(len, rest)) <= SHORT_REST_SECONDS * 32000
        if talk and not short:
            return None
        whole = self._decode([*spoken, *rest])
        animals = self._animals_in(free or ())
        if (talk or (free is not None and not animals)) and whole.confidence <= decoded.confidence:
            return None  # talk, or a rest written with no animal
        players, free = self._players(), free if short else None
        if late:
            joins = _adds_late_cards(decoded, alone, whole, players, free, animals if short else frozenset())
        else:
            joins = _joins(decoded, alone, whole, players, free)
        return whole if joins else None

    def _animals_in(self, words: Sequence[str]) -> frozenset[Animal]:
        """The animals ``words`` name, in the recogniser's language (none: a recogniser that has
        no words of its own, PocketSphinx)."""
        tables = getattr(getattr(self.recognizer, "language", None), "words", None)
        if tables is None:
            return frozenset()
        animals = {**tables.one, **tables.many}
        return frozenset(animals[word] for word in words if word in animals)

    def _written_freely(self, chunks: list[bytes]) -> list[str] | None:
        """The words of Whisper's free transcription of ``chunks`` (``written_freely``, with the
        players named in its prompt); None for a recogniser that writes none (PocketSphinx)."""
        written = getattr(self.recognizer, "written_freely", None)
        return written(b"".join(chunks), FREE_WORDS_LIMIT) if written is not None else None

    def _card_words(self) -> frozenset[str]:
        """The words of the recogniser's language that say cards: counts (and how Whisper
        writes them), animals, the words between cards."""
        tables = getattr(getattr(self.recognizer, "language", None), "words", None)
        if tables is None:
            return frozenset()
        written = {form for forms in tables.written.values() for form in forms}
        return frozenset({*tables.counts, *written, *tables.one, *tables.many, *tables.sudden_death,
                          *tables.separators, *tables.counters, *tables.counts_after})

    @staticmethod
    def _event_for(decoded: Decoded, source: AudioSource, cut: Spans = ()) -> Heard | Rejected | None:
        """What to report of a decoded utterance (heard from ``cut``); None for what nobody
        would call speech."""
        if decoded.command is not None:
            return Heard(decoded.command, decoded.text, decoded.confidence, cut)
        if not decoded.text:
            return None  # a click, a cough, the room
        if decoded.audio_seconds < 0.3 and _input_ended(source):
            # SpeechRecognition hands over its last fraction of a second of quiet as a phrase
            # when a WAV input runs out: nobody said anything.
            return None
        return Rejected(decoded.text, decoded.reason or "not a command", cut)

    def _phrase(self, recognizer: SpeechListener, source: AudioSource, timeout: float,
                lead_in: bool = True) -> tuple[list[bytes], Decoded | None] | None:
        """One phrase's audio (16 kHz mono 16-bit chunks), or None when nobody spoke.

        PocketSphinx decodes the chunks as they arrive once the last command has settled (so
        that little is left to do when the speaker stops) and its result comes with the audio.
        Whisper decodes the phrase so far at each short pause (``EarlyEnd``): a command that
        cannot go on and names no cards ends the phrase there, and a command heard at its final
        pause comes with the audio (``EarlyEnd.finish``). Otherwise the result is None and the
        audio is decoded whole.

        ``lead_in``: the quiet read last is read again as the phrase's lead-in
        (``NoiseTracker.give_back``). Not for the rest of a command, whose audio is joined to the
        phrase before it, quiet and all (``_joined``)."""
        from assistant.voice.recognizer import speech_recognition

        sr = speech_recognition()
        engine = self.recognizer
        assert engine is not None
        streaming = getattr(engine, "engine", "") == "pocketsphinx"
        early = None if streaming else EarlyEnd(recognizer.energy_threshold)
        behind = Behind()
        chunks: list[bytes] = []
        ends: list[int | None] = []  # how far into the input each chunk reaches

        def decode(n: int) -> Decoded:
            decoded = self._decode(chunks[:n])
            if early is not None:
                early.players = self._players()  # of the game it was decoded against
            return decoded

        fed = 0
        self._last_cut, self._last_audio = (), []
        given = _give_lead_in(recognizer, source) if lead_in else 0.0
        phrase = recognizer.listen(
            source, timeout=timeout + given, phrase_time_limit=PHRASE_LIMIT_SECONDS, stream=True)
        try:
            for chunk in phrase:
                if not chunks:
                    self._set_state("hearing", self.note)
                chunks.append(chunk.get_raw_data(convert_rate=16000, convert_width=2))
                ends.append(getattr(source.stream, "delivered", None))
                if streaming and self._settled.is_set():
                    fed = self._feed(chunks, fed)
                if early is not None and early.hear(chunks[-1], self._lag(behind, chunks[-1]), decode,
                                                    lambda n: self._written_freely(chunks[:n])):
                    self._last_cut = _cut_of(chunks, ends, early.cut)
                    self._last_audio = chunks[:early.cut]
                    return chunks, early.result
                if self._closed.is_set():
                    break
        except sr.WaitTimeoutError:
            # A noise too short to be a phrase was streamed, then nothing followed.
            if fed:
                engine.finish()
            return None
        finally:
            phrase.close()
        ended = self._phrase_end(chunks, fed, early, decode)
        if ended is not None:
            standing = early.cut if early is not None else None
            self._last_cut = _cut_of(chunks, ends, standing)
            self._last_audio = chunks[:standing]
        return ended

    def _feed(self, chunks: list[bytes], fed: int) -> int:
        """PocketSphinx decodes while the player speaks: the chunks not fed yet (the utterance
        begun with the first), and how many are fed now."""
        engine = self.recognizer
        assert engine is not None
        if fed == 0:
            self._begin()
        for piece in chunks[fed:]:
            engine.feed(piece)
        return len(chunks)

    def _phrase_end(self, chunks: list[bytes], fed: int, early: EarlyEnd | None,
                    decode: Callable[[int], Decoded]) -> tuple[list[bytes], Decoded | None] | None:
        """``_phrase``'s result once the phrase has ended with no early decision."""
        if not chunks:
            return None
        if fed:
            engine = self.recognizer
            assert engine is not None
            for piece in chunks[fed:]:
                engine.feed(piece)
            return chunks, engine.finish()
        return chunks, early.finish(decode) if early is not None and not self._closed.is_set() else None

    def _lag(self, behind: Behind, chunk: bytes) -> float:
        """How far the listener is behind the audio, for ``EarlyEnd``: infinite (decode only
        what is needed) while the command before has not settled, and for unpaced audio
        (decoding at once saves time only on audio that arrives as spoken)."""
        lag = behind(chunk)
        return lag if self._settled.is_set() and self.realtime else math.inf

    def _players(self) -> tuple[str, ...]:
        """The players of the game the last decoding was heard against (``_begin``, once the
        command before had settled). Not asked of the front end here: asked before the command
        before has settled, it told the players before a new game heard, or not, as fast as the
        front end was."""
        return self._heard_against

    def _begin(self) -> None:
        """Start an utterance against the game as it is once the last command has settled
        (``_await_settled``)."""
        self._await_settled()
        engine = self.recognizer
        assert engine is not None
        try:
            context = self.context()
        except Exception:  # noqa: BLE001 - the app mid-change: keep listening with the last context
            context = None
        if context is not None:
            engine.set_context(context.players, context.game, context.question, context.refused)
            self._heard_against = context.players
        engine.start()

    def _await_settled(self) -> None:
        """Wait until the front end has settled the last heard command (``settled``).

        A recording played in (``audio_input``, the listener's own WAV input) waits for as long
        as it takes, or until the listener is closed: its audio waits too, so what is heard is
        a function of the audio and the game alone, never of how fast the front end answers
        (issue 40). A live input (the microphone, a full-duplex device's capture) gives up after
        ``SETTLE_TIMEOUT_SECONDS`` and hears against whatever the front end shows then: a front
        end that never answers must not deafen the table, and the speech is as late as it is."""
        if not self.settle:
            return
        if self.audio_input and self._given_source is None:
            while not self._settled.wait(0.5) and not self._closed.is_set():
                pass
        elif not self._settled.wait(SETTLE_TIMEOUT_SECONDS):
            self._settled.set()  # the front end never answered: hear with what it shows now

    def _decode(self, chunks: list[bytes]) -> Decoded:
        """The whole utterance decoded against the settled context."""
        engine = self.recognizer
        assert engine is not None
        self._begin()
        engine.feed(b"".join(chunks), full=True)
        return engine.finish()

    # ------------------------------------------------------------------ helpers
    def _emit(self, event: Heard | Rejected | ListenerState) -> None:
        if isinstance(event, Heard) and self.settle:
            self._settled.clear()
        if self.on_cut is not None and isinstance(event, Heard | Rejected) and event.cut:
            self.on_cut(event.cut)
        try:
            self.on_event(event)
        except Exception:  # noqa: BLE001 - a broken callback must not stop listening
            pass

    def _set_state(self, state: str, reason: str | None = None) -> None:
        if state == self.state and reason == self.reason:
            return
        self.state = state
        self.reason = reason
        self._emit(ListenerState(state, reason))
