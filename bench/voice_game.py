"""Whole games by voice: issue 14's measure of the listening loop (``make bench-voice``).

Run: ``.venv/bin/python bench/voice_game.py [--engine both|pocketsphinx|whisper] [--players 3 4 5]``

Each game is a seeded simulated game (``engine.simulate``), by default the shortest of seeds 0-39
for 3, 4 and 5 players (278 spoken lines in all). Its first line, ``new game ...`` (with the start
player drawn by lot), is typed; every other action is spoken, phrased at random from the command
templates as in ``bench/voice_corpus.py``, by the seat of the player it is about (rows by a seat
drawn at random), and each spoken hand and sudden death is followed by the same seat saying "yes"
(a spoken hand, sudden death or new game is read back and waits for "yes"). Each seat has its own
espeak-ng voice, rate and level (peaks from -2 to -8 dBFS); two seats pause 0.3-0.5 s between the
cards of a list (espeak-ng's own pauses inside a line are at most about 0.15 s: measured and
printed). Quiet room noise (pink noise 20 dB below the quiet seats' speech) runs under the whole
stream, and each line is followed by 1.3-1.7 s of it, the wait for the referee's read-back.

The whole game is one WAV file played into the same ``Listener`` the table uses (continuous mode,
its recogniser built from ``VoiceSettings.engine``), at real-time pace: the listener's WAV input
cannot be played faster. As ``lifeguard listen`` does (``_listen_session``), each heard command is
applied with ``Referee.execute(command, heard=True)`` on the main thread, and the listener (``settle=True``) is told
``settled()`` then, so it hears the next command against the game that command will change.

Printed per engine: lines applied exactly as intended (heard as the one command said, and the
game where it should be after it; once a game has gone astray, later lines are rarely right, so
the lines heard exactly, whatever the game then did with them, are counted too), games ending right (the referee's history equal to the
simulated game's), the first slip of each game (line, expected, got), and the line-by-line
recognition given the right state (each line's audio, with its noise, decoded alone after
``set_context(players, game before that line)``), with the lines that decoding alone got right
but the listening loop did not hear exactly. A line's utterances are the ones the listener
reported while the stream was between that line's start and the next line's start (read from the
input's position when it reports), so a command heard together with the next line's words counts
for the later line.

Each game is played with each seat set of ``--voices``: espeak-ng's voices (``SEATS``) and the
test-only voices of flite and festival (``HELD_OUT_SEATS``, issue 40). Per game and voice, the
lines **lost by the loop**: the loop's command differs from the recogniser's own reading of that
line's audio exactly as the listener cut it in the run (``Listener.on_cut``: the audio its
reading of each phrase was made from, by its own threshold and chunks; ``as_listener_cut``), in
the game state the loop heard it against, and is not the command said. Printed beside it: the
same against ``loop_span``'s estimate of that cut (its lead-in before and 0.3 s after the
speech the listener's rule finds) and against ``MARGIN`` around the synthesiser's file, whose own quiet the
listener cannot know (a line the loop heard exactly where the recogniser alone did not is counted
apart, as gained), beside the lines applied exactly with nobody correcting. ``--fast`` plays the audio in as fast as the
listener hears it: its decisions depend on the audio alone, so the commands are those of a
real-time run (``--dump`` writes them, to compare), only sooner.

With ``--corrects``, the table puts the game right whenever it went astray, as a table hearing
the read-back would (by typing): before each line is heard, a referee that is not where the game should
be is set there before the line is heard, and the times it was needed are counted. Each line is then heard against the
right game, so one slip does not take every later line with it, and the lines lost by the
listening loop (right alone, not heard exactly) are the loop's own.

Runtime: the audio lasts about 20 minutes for the three default games, so about 21 minutes per
engine and seat set (plus half a minute of synthesis); ``--players 3`` alone takes about 5 minutes.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import math
import queue
import random
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from voice_corpus import RATE, espeak, festival, flite, phrase_groups, pink_noise, write_wav
from voice_engines import (
    ENGINES,
    EngineUnavailable,
    engine_of,
    recognizer_for,
)

from assistant.commands import Command, canonical, parse
from assistant.referee import QUESTIONED_WHEN_HEARD, Referee
from assistant.voice.listener import LEAD_IN_SECONDS
from assistant.voice.pcm import audioop
from assistant.voice.recognizer import RecognizerUnavailable
from engine.actions import DeclareHand, NewGame, SetRow, SuddenDeath
from engine.simulate import simulate_game

if TYPE_CHECKING:
    from assistant.config import Engine
    from assistant.voice.listener import Heard, ListenContext, ListenerState, Rejected, Spans
    from assistant.voice.protocols import SpeechDecoder

ROOT = Path(__file__).resolve().parents[1]
BYTES_PER_SECOND = RATE * 2

#: One seat per player, in seating order: espeak-ng voice, rate (words a minute), pitch, the
#: speech's peak level (dBFS), and the pause between the cards of a list (seconds; 0: espeak-ng's
#: own). Voices of the test split, never tuned on.
SEATS = [
    ("en-gb-x-rp", 160, 50, -2.0, 0.0),
    ("en+f2", 140, 60, -8.0, 0.4),
    ("en-us+m7", 175, 40, -4.0, 0.0),
    ("en+m1", 150, 45, -8.0, 0.0),
    ("en-us+f4", 185, 65, -3.0, 0.35),
]
#: The same table with the test-only voices of other synthesisers (issue 40): synthesiser, voice,
#: duration stretch (1.0: its own pace), the peak level (dBFS). They speak at their own rhythm
#: (flite's awb leaves about 0.1 s between words), with no added pauses.
HELD_OUT_SEATS = [
    ("flite", "awb", 1.0, -2.0),
    ("festival", "kal_diphone", 1.1, -8.0),
    ("flite", "rms", 1.0, -4.0),
    ("festival", "ked_diphone", 1.0, -8.0),
    ("flite", "slt", 1.15, -3.0),
]
#: The seat sets a game can be played with (``--voices``): "last-pause" is espeak-ng's seats,
#: each pausing ``LAST_PAUSE`` before the last card of a list, longer than the listener's
#: ``PAUSE_SECONDS`` (the session 21 tester's files: a row's count completed with a card nobody
#: said, the last card then heard as talk).
VOICE_SETS = ("espeak", "held-out", "last-pause")
#: The pause before the last card of a list at the "last-pause" seats (seconds, drawn).
LAST_PAUSE = (0.65, 0.85)
#: Room noise: this far below the quiet seats' speech (RMS).
NOISE_BELOW_DB = 20.0
#: Quiet after each line (the read-back's time), drawn from this range; and before the first.
GAP = (1.3, 1.7)
LEAD_IN = 1.0
#: Audio kept either side of a line when it is decoded alone.
MARGIN = 0.3


@dataclass
class Line:
    """One spoken line of a game."""

    number: int  # in the game, the typed first line being 1
    text: str  # what is said
    expected: str  # its canonical command
    seat: int
    confirms: bool  # a hand or sudden death: read back, then "yes" follows
    before: list[str]  # the game's history (canonical) before this line
    after: list[str]  # ... and after it, as intended
    ssml: str = ""  # the text with pauses between cards, for seats that pause
    start: int = 0  # byte offsets of the speech in the game's stream
    end: int = 0


@dataclass
class GameAudio:
    players: tuple[str, ...]
    seed: int
    voices: str  # "espeak" (SEATS) or "held-out" (HELD_OUT_SEATS)
    typed: list[str]  # the typed first line and the start player it drew
    lines: list[Line]
    history: list[str]  # the whole game, canonical
    wav: str = ""
    raw: bytes = b""
    espeak_pauses: list[float] = field(default_factory=list)


# --------------------------------------------------------------------------- the games
def choose_seed(players: int, seeds: range) -> int:
    """The seed of the shortest simulated game for ``players`` among ``seeds``."""
    return min(seeds, key=lambda s: (len(simulate_game(random.Random(s), players=players)), s))


def by_espeak(voices: str) -> bool:
    """Whether a seat set speaks with espeak-ng's voices (``SEATS``)."""
    return voices != "held-out"


def seat_voice(game: GameAudio, seat: int) -> str:
    """The name of the voice at ``seat``."""
    if by_espeak(game.voices):
        return SEATS[seat][0]
    return f"{HELD_OUT_SEATS[seat][0]} {HELD_OUT_SEATS[seat][1]}"


def seat_level(game: GameAudio, seat: int) -> float:
    return SEATS[seat][3] if by_espeak(game.voices) else HELD_OUT_SEATS[seat][3]


def script(players: int, seed: int, voices: str = "espeak") -> GameAudio:
    """The lines of one game, as they will be said."""
    actions = simulate_game(random.Random(seed), players=players)
    history = [canonical(a) for a in actions]
    first = actions[0]
    assert isinstance(first, NewGame)
    names = tuple(first.players)
    rng = random.Random(seed * 7919 + players)
    lines: list[Line] = []
    number = 1
    for i, action in enumerate(actions[2:], start=2):
        number += 1
        player = getattr(action, "player", None)
        seat = names.index(player) if player in names else rng.randrange(len(names))
        if isinstance(action, SetRow):
            seat = rng.randrange(len(names))
        groups = phrase_groups(history[i], names, rng)
        confirms = isinstance(action, DeclareHand | SuddenDeath)
        line = Line(number, " ".join(" ".join(g) for g in groups), history[i], seat, confirms,
                    history[:i], history[: i + 1])
        pause = SEATS[seat][4] if voices == "espeak" else 0.0
        if voices == "last-pause" and len(groups) > 2 and not isinstance(action, SuddenDeath):
            # Everything at the voice's own pace, then a pause before the last card (group).
            wait = int(1000 * rng.uniform(*LAST_PAUSE))
            line.ssml = ("<speak>" + " ".join(" ".join(g) for g in groups[:-1])
                         + f' <break time="{wait}ms"/> ' + " ".join(groups[-1]) + "</speak>")
        elif pause and len(groups) > 2:
            # A pause between every two groups of words (each card or run of equal cards is
            # its own group), drawn around the seat's own.
            parts = [" ".join(groups[0])]
            for g in groups[1:]:
                parts.append(f'<break time="{int(1000 * rng.uniform(pause - 0.1, pause + 0.1))}ms"/>')
                parts.append(" ".join(g))
            line.ssml = "<speak>" + " ".join(parts) + "</speak>"
        lines.append(line)
        if confirms:
            number += 1
            lines.append(Line(number, "yes", "yes", seat, False, history[: i + 1], history[: i + 1]))
    return GameAudio(names, seed, voices, history[:2], lines, history)


def level(raw: bytes, peak_dbfs: float) -> bytes:
    peak = audioop.max(raw, 2) or 1
    return audioop.mul(raw, 2, 32767 * 10 ** (peak_dbfs / 20) / peak)


def longest_pause(raw: bytes) -> float:
    """The longest quiet stretch inside the speech (10 ms frames under 2% of the loudest)."""
    step = RATE // 100 * 2
    levels = [audioop.rms(raw[i : i + step], 2) for i in range(0, len(raw), step)]
    loud = max(levels) * 0.02
    spoken = [i for i, lv in enumerate(levels) if lv > loud]
    if not spoken:
        return 0.0
    best = run = 0
    for lv in levels[spoken[0] : spoken[-1] + 1]:
        run = run + 1 if lv <= loud else 0
        best = max(best, run)
    return best / 100


def synthesise(game: GameAudio, pool: ThreadPoolExecutor) -> list[bytes]:
    """Every line of ``game`` said by its seat's voice (festival's lines in one run)."""

    def say(line: Line) -> bytes:
        if by_espeak(game.voices):
            voice, rate, pitch, _, _ = SEATS[line.seat]
            return espeak(line.ssml or line.text, voice, rate, pitch, ssml=bool(line.ssml))
        synth, voice, stretch, _ = HELD_OUT_SEATS[line.seat]
        assert synth == "flite"
        return flite(line.text, voice, stretch)

    by_festival = [i for i, line in enumerate(game.lines)
                   if not by_espeak(game.voices) and HELD_OUT_SEATS[line.seat][0] == "festival"]
    spoken = dict(zip(by_festival, festival([(game.lines[i].text, HELD_OUT_SEATS[game.lines[i].seat][1],
                                                HELD_OUT_SEATS[game.lines[i].seat][2]) for i in by_festival]),
                      strict=True))
    others = [line for i, line in enumerate(game.lines) if i not in spoken]
    spoken.update(zip((i for i in range(len(game.lines)) if i not in spoken), pool.map(say, others), strict=True))
    return [spoken[i] for i in range(len(game.lines))]


def render(game: GameAudio, out: Path, pink: bytes, pool: ThreadPoolExecutor) -> None:
    """Synthesise every line and lay the game's stream out, noise under all of it."""
    speech = synthesise(game, pool)
    game.espeak_pauses = [longest_pause(s) for s, line in zip(speech, game.lines, strict=True)
                          if not line.ssml and len(line.text.split()) > 3]
    speech = [level(s, seat_level(game, line.seat)) for s, line in zip(speech, game.lines, strict=True)]
    rng = random.Random(game.seed)
    parts = [bytes(int(LEAD_IN * RATE) * 2)]
    at = len(parts[0])
    for s, line in zip(speech, game.lines, strict=True):
        line.start, line.end = at, at + len(s)
        gap = bytes(int(rng.uniform(*GAP) * RATE) * 2)
        parts += [s, gap]
        at += len(s) + len(gap)
    stream = b"".join(parts)
    quietest = min(seat_level(game, seat) for seat in range(len(game.players)))
    quiet = [audioop.rms(s, 2) for s, line in zip(speech, game.lines, strict=True)
             if seat_level(game, line.seat) <= quietest]
    target = sum(quiet) / len(quiet) / 10 ** (NOISE_BELOW_DB / 20)
    start = rng.randrange(len(pink) // 2) * 2
    noise = (pink[start:] + pink * (len(stream) // len(pink) + 2))[: len(stream)]
    noise = audioop.mul(noise, 2, target / (audioop.rms(noise, 2) or 1))
    game.raw = audioop.add(stream, noise, 2)
    name = f"game_{len(game.players)}p_seed{game.seed}" + ("" if game.voices == "espeak" else f"_{game.voices}")
    path = out / f"{name}.wav"
    write_wav(path, game.raw)
    game.wav = str(path)
    (out / f"{name}.json").write_text(json.dumps(
        [dataclasses.asdict(line) for line in game.lines], indent=1))


# --------------------------------------------------------------------------- playing a game in
@dataclass
class Outcome:
    """What the listening loop did with one game."""

    heard: dict[int, list[str]]  # line index -> what each utterance attributed to it became
    after: dict[int, list[str]]  # line index -> the referee's history after its last event
    questions: dict[int, bool]
    history: list[str]
    engine: str | None
    problem: str | None
    wall: float
    corrections: list[int] = field(default_factory=list)  # lines before which the table put the game right
    #: line index -> the context the listener heard that line against (the first it asked for
    #: while the stream was in the line), and the referee after each event (line index, context)
    contexts: dict[int, ListenContext] = field(default_factory=dict)
    states: list[tuple[int, ListenContext]] = field(default_factory=list)
    #: Each command or rejection the listener reported, in order: the spans of the game's audio
    #: (bytes) that its reading was made from (``Listener.on_cut``; a phrase that became
    #: nothing, such as the input's last quiet, is in none).
    cuts: list[Spans] = field(default_factory=list)
    #: line index -> how the table answered a read-back of a command the recogniser was unsure
    #: of (``Command.unsure``), which the script does not answer: "yes" when it is the line's
    #: command, else "no" (typed, as a player hearing it would say)
    read_backs: dict[int, str] = field(default_factory=dict)


def expected_referee(game: GameAudio, index: int) -> Referee:
    """The referee as it should be when line ``index`` begins: its ``before``, and for a "yes",
    the hand or sudden death before it waiting for that yes."""
    line = game.lines[index]
    if line.expected != "yes" or index == 0:
        return Referee.resume(line.before, [False, True])
    asked = game.lines[index - 1]
    referee = Referee.resume(asked.before, [False, True])
    referee.execute(parse(asked.expected, game.players), heard=True)
    return referee


def on_course(referee: Referee, game: GameAudio, index: int) -> bool:
    """Whether the referee is where it should be as line ``index`` begins, or once it has been
    heard right (the table may ask for a context again before the next line starts: a line put
    right then was undone, and as the last line nothing came after it to put the game right)."""
    line = game.lines[index]
    history, asking = referee.history(), referee.question is not None
    if line.expected == "yes" and index > 0:
        begun = history == game.lines[index - 1].before and asking
    else:
        begun = history == line.before and not asking
    if line.confirms:  # a hand or sudden death heard right waits for its "yes"
        return begun or (history == line.before and asking)
    return begun or (history == line.after and not asking)


def line_at(game: GameAudio, position: int) -> int:
    """The last line whose start the stream had passed at ``position`` (-1: before line 2)."""
    return max((i for i, line in enumerate(game.lines) if line.start < position), default=-1)


def play(game: GameAudio, engine: str, model: str = "", correct: bool = False, fast: bool = False) -> Outcome:
    """Play ``game``'s stream into a ``Listener`` and apply what it hears, as ``lifeguard
    listen`` does (heard -> read back -> ``referee.execute``).

    With ``correct``, the table puts right what went wrong, as a table hearing the read-back
    would (by typing): before each line is heard, a referee that is not where the game should be
    is set there (counted in ``Outcome.corrections``). With ``fast``, the stream is played in as
    fast as the listener hears it (its decisions depend on the audio alone: the same commands)."""
    from assistant.config import VoiceSettings
    from assistant.voice.listener import Heard, ListenContext, Listener, ListenerState, Rejected

    referee = Referee.resume(game.typed, [False, True])
    events: queue.Queue[tuple[int, Heard | Rejected | ListenerState]] = queue.Queue()
    corrections: list[int] = []
    contexts: dict[int, ListenContext] = {}
    states: list[tuple[int, ListenContext]] = [(-1, ListenContext.from_referee(referee))]

    def position_now() -> int:
        """The stream's read position (bytes into the game's audio)."""
        source: Any = listener._source
        stream = getattr(source, "stream", None)
        return int(stream.position - source.spans[0][0]) if stream is not None and source.spans else 0

    def on_event(event: Heard | Rejected | ListenerState) -> None:
        # Where the audio the event was heard from ends (its cut), else the stream's read
        # position when the listener reports: where the utterance ended (plus the pause that
        # ended it). Not the read position for all: a command waiting for its late cards is
        # reported once the speech after it is read, which may be the next line's.
        events.put((heard_up_to(listener._source, event) or position_now(), event))

    settings = dataclasses.replace(VoiceSettings(listen="continuous"), engine=cast("Engine", engine), whisper_model=model)

    def context() -> ListenContext:
        """What the listener hears the next utterance against (asked once the command before
        has been applied). With ``correct``, the table first puts right a game gone astray: the
        utterance that just ended belongs to the last line whose start the stream has passed."""
        nonlocal referee
        with lock:
            now = line_at(game, position_now())
            if correct:
                if now >= 0 and now not in corrections and not on_course(referee, game, now):
                    referee = expected_referee(game, now)
                    corrections.append(now)
            heard_against = ListenContext.from_referee(referee)
            contexts.setdefault(now, heard_against)
            return heard_against

    lock = threading.Lock()
    listener = Listener(settings, context, on_event, audio_input=[game.wav], settle=True, realtime=not fast)
    cuts: list[Spans] = []
    listener.on_cut = cuts.append  # offsets into the input: into the game's audio when the listener stops
    heard: dict[int, list[str]] = {}
    after: dict[int, list[str]] = {}
    questions: dict[int, bool] = {}
    read_backs: dict[int, str] = {}
    problem = None
    started = time.monotonic()
    # A safety limit, not a timing: unpaced on a busy machine the listener may take longer than
    # the audio lasts (at load 18 a 5-player game's 8.9 min ran out of a limit of 10.9 min).
    deadline = started + len(game.raw) / BYTES_PER_SECOND * (3 if fast else 1) + 120
    listener.start()
    try:
        while time.monotonic() < deadline:
            try:
                position, event = events.get(timeout=0.5)
            except queue.Empty:
                if listener.input_ended:
                    break
                continue
            if isinstance(event, ListenerState):
                if event.state == "unavailable":
                    problem = event.reason
                    break
                continue
            index = line_at(game, position)
            if isinstance(event, Heard):
                with lock:
                    got = apply_heard(referee, game, index, event, questions, read_backs)
                listener.settled()  # the next command is heard against the game as it is now
            elif isinstance(event, Rejected):
                got = f"[not a command: {event.reason}" + (f"; heard '{event.text}']" if event.text else "]")
            else:
                continue
            heard.setdefault(index, []).append(got)
            after[index] = referee.history()
            states.append((index, ListenContext.from_referee(referee)))
        else:
            problem = "the game's audio did not end in time"
    finally:
        used = engine_of(listener.recognizer) if listener.recognizer is not None else None
        if getattr(listener, "note", None):
            problem = listener.note
        listener.close()
    return Outcome(heard, after, questions, referee.history(), used, problem, time.monotonic() - started,
                   corrections, contexts, states, in_game(listener._source, cuts), read_backs)


def apply_heard(referee: Referee, game: GameAudio, index: int, event: Heard, questions: dict[int, bool],
                read_backs: dict[int, str]) -> str:
    """Apply a command heard in line ``index`` as ``lifeguard listen`` does, answering a
    read-back the script does not (``read_back_answer``); what became of it."""
    reply = referee.execute(event.command, heard=True)
    answer = read_back_answer(game, index, event.command, reply)
    if answer is not None:
        referee.handle(answer)
        read_backs[index] = answer
    if getattr(reply, "question", False):
        questions[index] = True
    return applied(event.command.canonical, reply)


def read_back_answer(game: GameAudio, index: int, command: Command, reply: Any) -> str | None:
    """How the table answers the read-back of a command the recogniser was unsure of, which the
    script does not answer (a hand's or a sudden death's "yes" is said): "yes" when it is the
    command of the line it was heard in, else "no". None when nothing was asked so."""
    if not getattr(reply, "question", False) or not command.unsure or command.intent in QUESTIONED_WHEN_HEARD:
        return None
    return "yes" if index >= 0 and command.canonical == game.lines[index].expected else "no"


def applied(canonical: str, reply: Any) -> str:
    """What became of a heard command: itself, and why the referee refused it."""
    return canonical + ("" if reply.ok or canonical == "yes" else f" (refused: {reply.error})")


def heard_up_to(source: Any, event: object) -> int | None:
    """Where the audio an event was heard from ends in the game's audio (its cut's end), or None
    when it tells none."""
    cut = getattr(event, "cut", ())
    if not cut or source is None or not source.spans:
        return None
    return int(cut[-1][1] - source.spans[0][0])


def in_game(source: Any, cuts: list[Spans]) -> list[Spans]:
    """The listener's cuts (offsets into its input) as offsets into the game's audio."""
    offset = source.spans[0][0] if source is not None and source.spans else 0
    return [tuple((start - offset, end - offset) for start, end in spans) for spans in cuts]


def commands_in(got: list[str]) -> list[str]:
    """The commands heard, without the rejections reported beside them (the unfinished half of
    a command, or what the listener heard of the room: they do not undo a command)."""
    return [g for g in got if not g.startswith("[")]


def heard_exactly(got: list[str], line: Line) -> bool:
    """Heard as the one command said (applied or refused: the game may be elsewhere by then)."""
    return [g.split(" (refused: ")[0] for g in commands_in(got)] == [line.expected]


def judge(game: GameAudio, outcome: Outcome) -> list[tuple[Line, bool, str]]:
    """Each line: applied exactly as intended?, and what became of it."""
    judged = []
    history = list(game.typed)
    for i, line in enumerate(game.lines):
        got = outcome.heard.get(i, [])
        history = outcome.after.get(i, history)
        if line.confirms:
            # Applied at once, or asked about (then "yes" applies it).
            right_state = history == line.after or (history == line.before and outcome.questions.get(i, False))
        else:
            right_state = history == line.after
        commands = commands_in(got)
        exact = commands == [line.expected] and right_state
        summary = " + ".join(got) if got else "(nothing)"
        if commands == [line.expected] and not right_state:
            summary += " (the game was elsewhere)"
        judged.append((line, exact, summary))
    return judged


def as_loop_heard(game: GameAudio, outcome: Outcome, recognizer: SpeechDecoder) -> list[str | None]:
    """Each line's audio decoded by itself (``MARGIN`` either side) in the game state the loop
    heard it against (the context it asked for in that line; a line it never decoded: the
    referee after the last event before it): the recogniser's own reading, None for none."""
    readings: list[str | None] = []
    margin = int(MARGIN * RATE) * 2
    for i, line in enumerate(game.lines):
        context = outcome.contexts.get(i)
        if context is None:
            context = [c for at, c in outcome.states if at < i][-1]
        recognizer.set_context(context.players, context.game, question=context.question)
        decoded = recognizer.decode(game.raw[max(0, line.start - margin) : line.end + margin])
        readings.append(decoded.command.canonical if decoded.command is not None else None)
    return readings


#: The listener's chunk (bytes): 32 ms; its energy threshold: twice the room's level (the 20th
#: percentile of the last 150 chunks, ``NoiseTracker``), at least 150.
CHUNK_BYTES = 1024
#: Chunks SpeechRecognition keeps before the first loud one (``listener.LEAD_IN_SECONDS``: 3),
#: and the quiet chunks after the last loud one at which the listener's reading of a phrase is
#: made (``listener.VERDICT_PAUSE_SECONDS``: 0.3 s, reached at the 10th chunk).
LEAD_CHUNKS, TAIL_CHUNKS = math.ceil(LEAD_IN_SECONDS * RATE / (CHUNK_BYTES // 2)) - 1, 10


def loop_span(game: GameAudio, line: Line) -> tuple[int, int]:
    """Where the line's audio is cut when the listener's own rule finds its speech: from its
    lead-in before the first chunk above the energy threshold to 0.3 s of quiet after the last (the
    chunk grid from the stream's start, the threshold from the room before the line). The
    synthesiser's file has quiet of its own either side of the speech (festival's about 0.3 s,
    flite's 0.1-0.2 s), which ``MARGIN`` adds to; nothing at a table marks where a file began."""
    from assistant.voice.audio import WavSource

    c = CHUNK_BYTES
    # The listener reads the game's file after the WAV input's leading silence: its chunks
    # begin at this offset into the game's audio.
    grid = -int(WavSource([]).leading_silence * RATE) * 2 % c
    first = max(0, (line.start - 150 * c - grid) // c * c + grid)
    levels = sorted(audioop.rms(game.raw[k : k + c], 2) for k in range(first, max(first + c, line.start - c), c))
    threshold = max(150.0, levels[len(levels) // 5] * 2)
    k = max(grid, (line.start - int(0.5 * RATE) * 2 - grid) // c * c + grid)
    while k < line.end and audioop.rms(game.raw[k : k + c], 2) <= threshold:
        k += c
    onset = last = k
    quiet = 0
    while quiet < int(math.ceil(0.6 / 0.032)) + 1 and k + c < len(game.raw):
        k += c
        if audioop.rms(game.raw[k : k + c], 2) > threshold:
            quiet, last = 0, k
        else:
            quiet += 1
    return max(0, onset - LEAD_CHUNKS * c), min(len(game.raw), last + (TAIL_CHUNKS + 1) * c)


def as_loop_cuts(game: GameAudio, outcome: Outcome, recognizer: SpeechDecoder) -> list[str | None]:
    """``as_loop_heard`` with the line cut where the listener's own rule finds its speech
    (``loop_span``) instead of ``MARGIN`` around the synthesiser's file."""
    readings: list[str | None] = []
    for i, line in enumerate(game.lines):
        context = outcome.contexts.get(i)
        if context is None:
            context = [c for at, c in outcome.states if at < i][-1]
        recognizer.set_context(context.players, context.game, question=context.question)
        start, end = loop_span(game, line)
        decoded = recognizer.decode(game.raw[start:end])
        readings.append(decoded.command.canonical if decoded.command is not None else None)
    return readings


def listener_cuts(game: GameAudio, outcome: Outcome) -> dict[int, list[tuple[int, int]]]:
    """Each line's audio as the listener itself cut it in the run: the spans of the phrases it
    cut whose reading's audio ends in the line (as its events are counted for the line whose
    start the stream had passed when they were reported)."""
    by_line: dict[int, list[tuple[int, int]]] = {}
    for spans in outcome.cuts:
        if spans:
            by_line.setdefault(line_at(game, spans[-1][1]), []).extend(spans)
    return by_line


def as_listener_cut(game: GameAudio, outcome: Outcome, recognizer: SpeechDecoder) -> list[str | None]:
    """``as_loop_cuts`` with the line's audio exactly as the listener cut it in the run
    (``listener_cuts``: its own threshold and chunks; a line it cut into several phrases, from
    the first's start to the last's end) instead of ``loop_span``'s estimate of that cut. None
    for a line it cut nothing of, or whose reading is no command."""
    cuts = listener_cuts(game, outcome)
    readings: list[str | None] = []
    for i, _line in enumerate(game.lines):
        spans = cuts.get(i)
        if not spans:
            readings.append(None)
            continue
        context = outcome.contexts.get(i)
        if context is None:
            context = [c for at, c in outcome.states if at < i][-1]
        recognizer.set_context(context.players, context.game, question=context.question)
        decoded = recognizer.decode(game.raw[spans[0][0] : spans[-1][1]])
        readings.append(decoded.command.canonical if decoded.command is not None else None)
    return readings


def lost_by_the_loop(got: list[str], reading: str | None) -> bool:
    """Whether the loop's commands for a line differ from the recogniser's reading of its audio
    in the same game state (refused or applied alike)."""
    return [g.split(" (refused: ")[0] for g in commands_in(got)] != ([reading] if reading else [])


def alone(game: GameAudio, recognizer: SpeechDecoder) -> list[bool]:
    """Each line's audio decoded by itself, with the game state right before it (and, after a
    line that is read back, its question waiting for yes or no)."""
    right = []
    margin = int(MARGIN * RATE) * 2
    for i, line in enumerate(game.lines):
        referee = Referee.resume(line.before, [False, True])
        recognizer.set_context(game.players, referee.game, question=i > 0 and game.lines[i - 1].confirms)
        decoded = recognizer.decode(game.raw[max(0, line.start - margin) : line.end + margin])
        right.append(decoded.command is not None and decoded.command.canonical == line.expected)
    return right


@dataclass
class Figures:
    """One game's figures, line by line (``game_figures``)."""

    judged: list[tuple[Line, bool, str]]  # (line, applied exactly, what became of it)
    heard: list[bool]  # heard exactly (applied or refused)
    right_alone: list[bool]  # decoded alone with the intended game state, right
    #: The recogniser's reading of each line alone in the state the loop heard it against, of
    #: the audio the listener itself cut in the run, of ``loop_span``'s estimate of that cut,
    #: and with ``MARGIN`` around the synthesiser's file.
    real: list[str | None]
    estimated: list[str | None]
    in_file: list[str | None]
    #: Lost by the loop against each reading: its commands differ from the reading, and are not
    #: the command said (a line heard exactly where the reading is not counts as gained).
    lost_real: list[bool]
    lost_estimated: list[bool]
    lost_file: list[bool]

    def lost_right(self) -> list[bool]:
        """Lost by the loop against the listener's own cut, which the recogniser alone read as
        the command said: the issue's own kind of loss (a line the recogniser alone hears right).
        The other lines lost the recogniser alone hears wrong too (a wrong command where the loop
        says "not sure", say)."""
        return [lost and reading == line.expected
                for lost, reading, (line, _, _) in zip(self.lost_real, self.real, self.judged, strict=True)]

    def lost_applied(self, outcome: Outcome) -> list[bool]:
        """Lost by the loop against the listener's own cut, the loop applying a command not said
        (not refused by the game, nor answered "no" when read back): the loop changed the game
        where the recogniser alone read otherwise. The other lost lines left the game as it was
        (a command refused, or none)."""
        return [lost and outcome.read_backs.get(i) != "no"
                and any(" (refused: " not in got for got in commands_in(outcome.heard.get(i, [])))
                for i, lost in enumerate(self.lost_real)]

    def gained(self, readings: list[str | None], outcome: Outcome) -> list[bool]:
        return [lost_by_the_loop(outcome.heard.get(i, []), r) and h
                for i, (r, h) in enumerate(zip(readings, self.heard, strict=True))]


def losses(game: GameAudio, outcome: Outcome, readings: list[str | None]) -> list[bool]:
    """The lines the loop lost against ``readings``: its commands differ from the reading alone
    and are not the command said."""
    return [lost_by_the_loop(outcome.heard.get(i, []), r) and not heard_exactly(outcome.heard.get(i, []), line)
            for i, (r, line) in enumerate(zip(readings, game.lines, strict=True))]


def game_figures(game: GameAudio, outcome: Outcome, recognizer: SpeechDecoder) -> Figures:
    """What the loop did with ``game`` against what the recogniser alone reads in each line."""
    real = as_listener_cut(game, outcome, recognizer)
    estimated = as_loop_cuts(game, outcome, recognizer)
    in_file = as_loop_heard(game, outcome, recognizer)
    return Figures(judge(game, outcome),
                   [heard_exactly(outcome.heard.get(i, []), line) for i, line in enumerate(game.lines)],
                   alone(game, recognizer), real, estimated, in_file,
                   losses(game, outcome, real), losses(game, outcome, estimated), losses(game, outcome, in_file))


def print_lost(game: GameAudio, outcome: Outcome, figures: Figures) -> None:
    """The lines the loop heard otherwise than the recogniser alone: against the reading of the
    listener's own cut (lost, or gained), against its estimate and the file's margins."""
    f = figures
    gained = f.gained(f.real, outcome)
    for i, line in enumerate(game.lines):
        loop = " + ".join(outcome.heard.get(i, [])) or "(nothing)"
        if f.lost_real[i] or gained[i] or f.lost_estimated[i] or f.lost_file[i]:
            what = "lost by the loop" if f.lost_real[i] else "gained by the loop" if gained[i] \
                else "lost against the estimated cut or the file's margins only"
            print(f"  {what} at line {line.number} ({seat_voice(game, line.seat)}): said '{line.text}', "
                  f"the recogniser alone with the listener's cut: {f.real[i] or '(no command)'} (the estimated "
                  f"cut: {f.estimated[i] or '(no command)'}, the file's margins: {f.in_file[i] or '(no command)'}), "
                  f"the loop: {loop}; the listener's cuts (s from the line's start): {phrase_cuts(game, outcome, i)}")


def phrase_cuts(game: GameAudio, outcome: Outcome, i: int) -> str:
    """The phrases the listener cut whose reading's audio ends in line ``i``, each as its spans
    in seconds from the line's start (a phrase taken early ends before the line does)."""
    start = game.lines[i].start
    phrases = [spans for spans in outcome.cuts if spans and line_at(game, spans[-1][1]) == i]
    return " | ".join(", ".join(f"{(a - start) / BYTES_PER_SECOND:.2f}-{(b - start) / BYTES_PER_SECOND:.2f}"
                                for a, b in spans) for spans in phrases) or "none"


def print_summary(game: GameAudio, outcome: Outcome, f: Figures, engine: str, args: argparse.Namespace) -> None:
    """One game's figures."""
    exact = sum(ok for _, ok, _ in f.judged)
    lines = len(f.judged)
    lost = sum(a and not h for a, h in zip(f.right_alone, f.heard, strict=True))
    note = "" if outcome.engine in (None, engine) else f" [the listener used {outcome.engine}!]"
    if outcome.problem:
        note += f" [{outcome.problem}]"
    print(f"{len(game.players)} players (seed {game.seed}, {game.voices} voices): {exact}/{lines} lines applied exactly "
          f"({exact / lines:.0%}), {sum(f.heard)} heard exactly; game ended right: "
          f"{'yes' if outcome.history == game.history else 'no'}; decoded alone with the right state: "
          f"{sum(f.right_alone)}/{lines}; right alone but not heard exactly in the loop: {lost}; {outcome.wall:.0f} s{note}"
          + (f"; the table put the game right {len(outcome.corrections)} times" if args.corrects else "")
          + f"; read back as unsure: {len(outcome.read_backs)} (the line's command: "
            f"{sum(a == 'yes' for a in outcome.read_backs.values())})")
    print(f"  lost by the loop (its command differs from the recogniser's reading of the line in the same game "
          f"state, and it is not the command said): {sum(f.lost_real)} against the audio the listener cut in the run "
          f"({sum(f.lost_right())} of them read right by the recogniser alone, {sum(f.lost_applied(outcome))} "
          f"applying a command not said; gained: "
          f"{sum(f.gained(f.real, outcome))}); {sum(f.lost_estimated)} against the estimated cut "
          f"(gained: {sum(f.gained(f.estimated, outcome))}); {sum(f.lost_file)} against {MARGIN} s around the "
          f"synthesiser's file; the readings alone of the listener's cut and its estimate differ on "
          f"{sum(a != b for a, b in zip(f.real, f.estimated, strict=True))} lines, of the estimate and the file's "
          f"margins on {sum(a != b for a, b in zip(f.estimated, f.in_file, strict=True))}")


def print_game(game: GameAudio, outcome: Outcome, f: Figures, engine: str, args: argparse.Namespace) -> None:
    """One game's figures, per voice, its lost lines and its first slips."""
    print_summary(game, outcome, f, engine, args)
    print("  by voice (lines / applied exactly / lost by the loop against its cut): " + ", ".join(
        f"{seat_voice(game, seat)} {sum(line.seat == seat for line in game.lines)} / "
        f"{sum(ok for line, ok, _ in f.judged if line.seat == seat)} / "
        f"{sum(lo for lo, line in zip(f.lost_real, game.lines, strict=True) if line.seat == seat)}"
        for seat in sorted({line.seat for line in game.lines})))
    print_lost(game, outcome, f)
    if outcome.heard.get(-1):
        print(f"  heard before line 2 began: {' + '.join(outcome.heard[-1])}")
    for line, _, got in [(line, ok, got) for line, ok, got in f.judged if not ok][: args.slips]:
        print(f"  slip at line {line.number} (seat {line.seat + 1}): expected '{line.expected}' "
              f"(said '{line.text}'), got {got}")
    # The listening loop's own losses (issue 14: it must lose nothing that decoding each
    # command alone gets right), every one of them.
    for (line, _, got), right_alone, heard in zip(f.judged, f.right_alone, f.heard, strict=True):
        if right_alone and not heard:
            print(f"  lost in the loop at line {line.number} (seat {line.seat + 1}): expected "
                  f"'{line.expected}' (said '{line.text}'), got {got}")


def fingerprint(raw: bytes) -> str:
    """A game's audio in ten hex digits (SHA-1), printed: runs to compare must have heard the
    same audio (two runs sharing ``--out`` once read each other's noise half written)."""
    return hashlib.sha1(raw).hexdigest()[:10]


def make_games(args: argparse.Namespace, out: Path, started: float) -> list[GameAudio]:
    """The games to play, rendered, with what was made printed."""
    pink = pink_noise(60, out)
    games = [script(n, choose_seed(n, range(args.seeds)), voices) for voices in args.voices for n in args.players]
    with ThreadPoolExecutor(2) as pool:
        for game in games:
            render(game, out, pink, pool)
    total = sum(len(g.lines) for g in games)
    audio = sum(len(g.raw) for g in games) / BYTES_PER_SECOND
    pauses = sorted(p for g in games for p in g.espeak_pauses)
    print(f"{len(games)} games ({', '.join(f'{len(g.players)} players seed {g.seed} {g.voices}: {len(g.lines)} lines, audio {fingerprint(g.raw)}' for g in games)}), "
          f"{total} spoken lines, {audio / 60:.1f} min of audio, made in {time.monotonic() - started:.0f} s")
    if pauses:
        print(f"the voices' own longest pause inside a line (lines of 4+ words, no added pauses): "
              f"median {pauses[len(pauses) // 2] * 1000:.0f} ms, max {pauses[-1] * 1000:.0f} ms"
              + ("; espeak-ng seats " + ", ".join(f"{i + 1}" for i, s in enumerate(SEATS) if s[4])
                 + " pause 0.25-0.5 s between cards" if "espeak" in args.voices else ""))
    return games


def run_engine(engine: str, games: list[GameAudio], args: argparse.Namespace) -> None:
    """Play every game into the listener with ``engine`` and print the figures."""
    try:
        recognizer = cast("SpeechDecoder", recognizer_for(engine, model=args.model))
    except (EngineUnavailable, RecognizerUnavailable) as err:
        print(f"{engine}: {err}")
        return
    print(f"--- {engine}")
    totals: dict[str, int] = dict.fromkeys(
        ("exact", "heard", "ends", "alone", "lost", "real", "real right", "real applied", "estimated", "file",
         "corrections", "read back", "read back right"), 0)
    dumped = {}
    for game in games:
        outcome = play(game, engine, args.model, correct=args.corrects, fast=args.fast)
        f = game_figures(game, outcome, recognizer)
        dumped[f"{len(game.players)}p {game.voices}"] = [outcome.heard.get(i, []) for i in range(len(game.lines))]
        if args.dump:
            Path(args.dump).write_text(json.dumps(dumped, indent=1))
        print_game(game, outcome, f, engine, args)
        for key, value in (("exact", sum(ok for _, ok, _ in f.judged)), ("heard", sum(f.heard)),
                           ("ends", outcome.history == game.history), ("alone", sum(f.right_alone)),
                           ("lost", sum(a and not h for a, h in zip(f.right_alone, f.heard, strict=True))),
                           ("real", sum(f.lost_real)), ("real right", sum(f.lost_right())),
                           ("real applied", sum(f.lost_applied(outcome))),
                           ("estimated", sum(f.lost_estimated)),
                           ("file", sum(f.lost_file)), ("corrections", len(outcome.corrections)),
                           ("read back", len(outcome.read_backs)),
                           ("read back right", sum(a == "yes" for a in outcome.read_backs.values()))):
            totals[key] += int(value)
    total = sum(len(g.lines) for g in games)
    t = totals
    print(f"{engine}: {t['exact']}/{total} lines applied exactly ({t['exact'] / total:.1%}), "
          f"{t['heard']}/{total} heard exactly (applied or refused), {t['ends']}/{len(games)} games ended right, "
          f"{t['alone']}/{total} ({t['alone'] / total:.1%}) decoded alone with the right state, {t['lost']} right "
          f"alone but not heard exactly in the loop"
          + (f"; the table put the game right {t['corrections']} times" if args.corrects else "")
          + f"; lost by the loop: {t['real']} against the audio the listener cut, {t['real right']} of them read "
            f"right by the recogniser alone, {t['real applied']} applying a command not said ({t['estimated']} against the "
            f"estimated cut, {t['file']} against the file's margins); read back as unsure: {t['read back']} "
            f"({t['read back right']} the line's command, answered yes)")


# --------------------------------------------------------------------------- main
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", choices=(*ENGINES, "both"), default="both")
    parser.add_argument("--players", type=int, nargs="+", default=[3, 4, 5], choices=(3, 4, 5),
                        help="one game for each of these player counts")
    parser.add_argument("--seeds", type=int, default=40,
                        help="each game is the shortest simulated game among seeds 0..N-1")
    parser.add_argument("--out", default=str(ROOT / "bench" / "out" / "voice_game"))
    parser.add_argument("--model", default="", metavar="DIR",
                        help="a CTranslate2 Whisper model folder (default: the packaged tiny.en)")
    parser.add_argument("--slips", type=int, default=1, help="print this many slips per game")
    parser.add_argument("--voices", nargs="+", choices=VOICE_SETS, default=list(VOICE_SETS),
                        help="play each game with these seat sets: espeak-ng's voices, and/or flite's and "
                             "festival's (test-only voices)")
    parser.add_argument("--fast", action="store_true",
                        help="play the audio in as fast as the listener hears it, not at real-time pace (the "
                             "listener decides on the audio alone, so the commands are the same; no timing)")
    parser.add_argument("--dump", metavar="FILE", help="write what the loop heard on each line (JSON), to compare runs")
    parser.add_argument("--corrects", action="store_true",
                        help="the table puts the game right before each line is heard, when it went astray (as a "
                             "table hearing the read-back would): each line is then heard against the right game")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    games = make_games(args, out, started)
    for engine in list(ENGINES) if args.engine == "both" else [args.engine]:
        run_engine(engine, games, args)
    print(f"total {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
