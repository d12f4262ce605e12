"""``lifeguard hear`` and ``lifeguard listen``: spoken commands from the command line.

``assistant.cli.parser`` declares them and their options and calls ``cmd_hear`` / ``cmd_listen``.
Everything heavy (pocketsphinx, speech_recognition, pyttsx3, the store) is imported inside the
command functions, so other subcommands start as fast as before.

``hear FILE.wav...``: decode each file as one spoken command; print its canonical form (nothing
where no command was heard), or with ``--json`` one JSON list of ``{"file", "command"}``. A file
over ``recording.MAX_UTTERANCE_SECONDS`` is read a block at a time and cut at its pauses
(``recording.utterances``); each utterance is decoded in turn, and its JSON entry says where it
begins (``"at"``, seconds).

``listen``: a plain-text voice session, the demo without the full-screen app. Heard commands are
printed as ``heard: <canonical>``, read back ("Alice swaps 2: bear and dog."), applied through
``Referee.execute``, and "no" or "undo" (spoken or typed) takes them back. With
``--audio-input FILE...`` the files are played in as if spoken and the session ends after them;
otherwise Enter is push-to-talk (or ``--continuous``), and a typed line is a typed command.
"""

from __future__ import annotations

import argparse
import json
import queue
import random
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from assistant import announce
from assistant.commands import Command
from assistant.config import Settings, settings_or_exit
from assistant.i18n import _, format
from assistant.referee import Referee, Reply, heard_readback, reading_taken, spoken
from assistant.voice.listener import INPUT_ENDED, Heard, ListenerState, Rejected
from assistant.voice.recording import MAX_UTTERANCE_SECONDS

if TYPE_CHECKING:
    from assistant.store import Session
    from assistant.voice.listener import Listener
    from assistant.voice.protocols import SpeechDecoder
    from assistant.voice.recording import Recording
    from assistant.voice.speaker import Speaker


# ---------------------------------------------------------------------------- hear
def cmd_hear(args: argparse.Namespace) -> int:
    settings = settings_or_exit(args)
    referee: Referee | None = None
    if args.players:
        players = tuple(p.lower() for p in args.players)
    else:
        referee, problem = _current_game()
        if referee is None:
            print(format(_("lifeguard hear: {problem} Name the players with --players NAME..."), problem=problem),
                  file=sys.stderr)
            return 2
        players = referee.players
    from assistant.voice.recognizer import RecognizerUnavailable, make_recognizer

    def recognizer() -> SpeechDecoder | None:
        try:
            made, note = make_recognizer(args.engine or settings.voice.engine, players,
                                         referee.game if referee else None, settings.voice.whisper_model)
        except RecognizerUnavailable as err:
            print(f"lifeguard hear: {err}", file=sys.stderr)
            return None
        if note:
            print(f"lifeguard hear: {note}.", file=sys.stderr)
        return made

    return _hear_files(recognizer, args)


def _hear_files(make: Callable[[], SpeechDecoder | None], args: argparse.Namespace) -> int:
    """Each file decoded and its commands printed (or all as JSON): the exit status. A file of
    at most ``MAX_UTTERANCE_SECONDS`` is one utterance; a longer one is cut at its pauses and
    each utterance heard in turn (its JSON entries say where each begins: ``"at"``, seconds).
    The recogniser is made at the first file that is audio (a model takes seconds to load; a
    mistyped file name is answered at once)."""
    from assistant.voice.recording import AudioRefused

    results: list[dict[str, object]] = []
    status = 0
    recognizer: SpeechDecoder | None = None
    for path in args.files:
        recording = _open_recording(path)
        if recording is None:
            status = 2
            continue
        if recognizer is None:
            recognizer = make()
            if recognizer is None:
                return 2
        try:
            _hear_recording(recognizer, path, recording, args, results)
        except AudioRefused as err:
            _refused(path, err)
            status = 2
    if args.json:
        print(json.dumps(results))
    return status


def _hear_recording(recognizer: SpeechDecoder, path: str, recording: Recording,
                    args: argparse.Namespace, results: list[dict[str, object]]) -> None:
    """Each utterance of ``recording`` (the file ``path``) decoded in turn: its command added to
    ``results`` and printed as it is heard (without --json), and with --verbose why an utterance
    is no command. Raises ``AudioRefused`` where the audio cannot be read on; what was heard
    before that is kept."""
    from assistant.voice.recording import utterances

    long = recording.seconds is None or recording.seconds > MAX_UTTERANCE_SECONDS
    for at, audio in utterances(recording.blocks()):
        decoded = recognizer.decode(audio)
        command = decoded.command.canonical if decoded.command else None
        results.append({"file": path, "command": command} | ({"at": round(at, 2)} if long else {}))
        if args.verbose and command is None:
            message = (_("{path} at {at:.1f} s: no command ({reason}; heard {text})") if long else
                       _("{path}: no command ({reason}; heard {text})"))
            print(format(message, path=path, at=at, reason=decoded.reason, text=repr(decoded.text)), file=sys.stderr)
        if not args.json and command is not None:
            print(command)


def _open_recording(path: str) -> Recording | None:
    """The recording in ``path``, its header checked; None, said on stderr, when it is refused
    or no audio file."""
    from assistant.commands.files import InputRefused
    from assistant.commands.text import printable
    from assistant.voice.recording import AudioRefused, open_recording

    try:
        return open_recording(path)
    except InputRefused as err:
        print(f"lifeguard hear: {printable(str(err), 300)}", file=sys.stderr)
    except AudioRefused as err:
        _refused(path, err)
    return None


def _refused(path: str, err: Exception) -> None:
    from assistant.commands.text import printable

    print(format(_("lifeguard hear: {path}: not a recording to hear ({why})."), path=printable(path, 300), why=err),
          file=sys.stderr)


def _current_game() -> tuple[Referee | None, str]:
    """The current game from the store (read-only, ``store.current.load_current``), or why
    there is none. A damaged game is said (the store's sentence); when its row still names
    its players, commands are heard as in a new game of theirs."""
    from assistant.commands.text import printable
    from assistant.store import GameStore, StoreError
    from assistant.store.current import load_current
    from assistant.store.db import DamagedGame
    from assistant.store.records import shown_names

    try:
        with GameStore.open(None, create=False, readonly=True) as store:
            try:
                loaded = load_current(store)
            except DamagedGame as err:
                row = store.current_game()
                referee = _players_only(row.players if row is not None else ())
                if referee.game is None:
                    return None, err.message
                print(format(_("lifeguard hear: {problem} Commands are heard as in a new game of its "
                               "players ({players})."), problem=printable(err.message, 1000),
                             players=shown_names(referee.players)), file=sys.stderr)
                return referee, ""
    except StoreError as err:
        return None, err.message
    if loaded is None:
        return None, _("No game in progress.")
    return loaded.referee, ""


def _players_only(players: Sequence[str]) -> Referee:
    referee = Referee(confirm_new_game=False)
    referee.handle("new game " + " ".join(players))
    return referee


# ---------------------------------------------------------------------------- listen
def cmd_listen(args: argparse.Namespace) -> int:
    settings = settings_or_exit(args)
    files = args.listen_audio or args.audio_input or None
    out = sys.stdout

    def say_line(line: str) -> None:
        out.write(line + "\n")
        out.flush()

    session, referee, problem = _open_referee(args, settings)
    if referee is None:
        print(f"lifeguard listen: {problem}", file=sys.stderr)
        return 2
    try:
        return _listen_session(args, settings, referee, files, say_line)
    finally:
        if session is not None:
            session.close()


def _open_referee(args: argparse.Namespace,
                  settings: Settings) -> tuple[Session | None, Referee | None, str]:
    """The session of the store (None with --no-store) and its referee, with the game of
    --players started; or (None, None, why not)."""
    session: Session | None = None
    if args.no_store:
        referee = Referee(settings.rules, random.Random(args.seed))
    else:
        from assistant.store import StoreError, open_session

        try:
            session = open_session(settings, rng=random.Random(args.seed))
        except StoreError as err:
            return None, None, format(_("{problem} (or use --no-store --players ...)"), problem=err.message)
        referee = session.referee
    problem = _start_game(referee, args.players)
    if problem:
        if session is not None:
            session.close()
        return None, None, problem
    return session, referee, ""


def _start_game(referee: Referee, players: Sequence[str] | None) -> str:
    """Start a new game of ``players`` (yes, even over an unfinished one); without players, a game
    must be in progress. What is wrong, or ""."""
    if not players:
        return "" if referee.game is not None else \
            _("No game in progress: name the players with --players NAME...")
    reply = referee.handle("new game " + " ".join(players))
    if reply.question and reply.intent == "new_game":
        reply = referee.handle("yes")
    return "" if reply.ok else reply.error or _("cannot start the game")


@dataclass(frozen=True)
class _SpeakerState:
    state: str
    reason: str | None


@dataclass(frozen=True)
class _Typed:
    """A line typed on stdin; None: stdin ended."""

    line: str | None


#: What the session waits for: the speaker's and the listener's news, and typed lines.
_Event = _SpeakerState | _Typed | Heard | Rejected | ListenerState


class _ListenSession:
    """``lifeguard listen``'s loop: each event from the speaker, the listener or stdin answered
    on the calling thread, which owns the referee."""

    def __init__(self, referee: Referee, speaker: Speaker, listener: Listener,
                 files: Sequence[str] | None, say_line: Callable[[str], None],
                 speech: str = "full") -> None:
        self.referee = referee
        self.speaker = speaker
        self.listener = listener
        self.files = files
        self.say_line = say_line
        self.speech = speech  # the [voice] speech setting: what is said aloud
        self.noted: str | None = None  # the listener's note last said (each new one once)
        #: The listener is paused while the table speaks (no full-duplex device cancelling
        #: the table's echo: ``--room``).
        self.deaf_while_speaking = True

    def answer_reply(self, reply: Reply, heard: bool) -> None:
        """``reply`` printed in full (a heard command's read-back first) and said aloud as the
        ``speech`` setting says (``spoken``)."""
        readback = heard_readback(reply, heard)
        for line in [*readback, *(reply.said if reply.ok else [f"! {reply.error}"])]:
            self.say_line(line)
        aloud = " ".join(spoken(reply, heard, self.speech)).strip()
        if aloud:
            self.speaker.say(aloud)

    def run(self, events: queue.Queue[_Event]) -> int:
        """Answer events until the input ends, stdin ends or hearing stops: the exit status."""
        while True:
            status = self.answer(events.get())
            if status is not None:
                return status

    def answer(self, event: _Event) -> int | None:
        """Answer one event; the exit status when the session ends with it."""
        match event:
            case _SpeakerState(state, reason):
                self.on_speaker(state, reason)
            case _Typed(line):
                return self.on_typed(line)
            case Heard():
                self.on_heard(event.command)
            case Rejected():
                self.on_rejected(event)
            case ListenerState(state, reason):
                return self.on_listener(state, reason)
        return None

    def on_rejected(self, event: Rejected) -> None:
        """Every rejection is printed (the session's log); one meant for the referee (an
        unfinished command, a failed hearing) is also said, as the table does, while talk is not
        answered aloud."""
        self.say_line(format(_("not a command: {reason} (heard '{text}')") if event.text else
                             _("not a command: {reason}"), reason=event.reason, text=event.text))
        if event.addressed:
            for line in spoken(Reply(False, error=event.reason), True, self.speech):
                self.speaker.say(line)

    def on_speaker(self, state: str, reason: str | None) -> None:
        if state == "speaking" and self.deaf_while_speaking:
            self.listener.pause()
        else:
            self.listener.resume()
        if state == "unavailable":
            self.say_line(format(_("(speech: {reason})"), reason=reason))

    def on_typed(self, line: str | None) -> int | None:
        if line is None:
            return 0  # stdin ended
        if line.strip():
            self.answer_reply(self.referee.handle(line), heard=False)
        else:
            self.listener.push_to_talk()
        return None

    def on_heard(self, command: Command) -> None:
        reply = self.referee.execute(command, heard=True)
        self.say_line(f"heard: {reading_taken(command, reply).canonical}")
        self.answer_reply(reply, heard=True)
        self.listener.settled()  # the next command is heard against the game as it is now

    def on_listener(self, state: str, reason: str | None) -> int | None:
        if state == "unavailable":
            self.say_line(format(_("(listening: {reason})"), reason=reason))
            return 1
        if self.listener.note and self.listener.note != self.noted:
            self.noted = self.listener.note
            self.say_line(f"({self.listener.note})")
        if self.files and state == "off" and reason == INPUT_ENDED:
            # The files have been played in and heard: this state comes after their last event.
            # (Not the listener's flag, read live: on an earlier state still queued, the session
            # ended with the last phrase's event unanswered; session 25's tester lost "oh wait".)
            return 0
        return None


def _listen_session(args: argparse.Namespace, settings: Settings, referee: Referee,
                    files: Sequence[str] | None, say_line: Callable[[str], None]) -> int:
    from assistant.voice.listener import ListenContext, Listener
    from assistant.voice.speaker import Speaker

    events: queue.Queue[_Event] = queue.Queue()
    voice = replace(settings.voice, listen="continuous" if (files or args.continuous) else "push_to_talk",
                    engine=args.engine or settings.voice.engine)
    duplex = None
    if files and getattr(args, "room", False):
        from assistant.voice.duplex import open_duplex

        duplex, why = open_duplex(files, on_onset=lambda: speaker.stop())
        if duplex is None:
            say_line(format(_("(no simulated room: {why})"), why=why))
        elif duplex.reason:
            say_line(f"({duplex.reason}: {duplex.canceller_reason})")
    speaker = Speaker(voice if not args.quiet else replace(voice, speak=False),
                      on_state=lambda state, reason: events.put(_SpeakerState(state, reason)), duplex=duplex)
    listener = Listener(voice, lambda: ListenContext.from_referee(referee), events.put,
                        audio_input=files, settle=True, source=duplex.source() if duplex else None)
    speaker.start()
    listener.start()
    session = _ListenSession(referee, speaker, listener, files, say_line, settings.voice.speech)
    session.deaf_while_speaking = duplex is None or not duplex.full_duplex
    # Where the game stands, as a 'status' asked by voice would say it.
    session.answer_reply(Reply(True, referee.last_said[-2:] if referee.last_said
                               else [announce.expecting(referee.game)], intent="status"), heard=True)
    if not files:
        say_line(_("Press Enter and speak a command (or type one); Ctrl+D to leave."))
        _start_stdin_reader(events)
    try:
        return session.run(events)
    except KeyboardInterrupt:
        return 130
    finally:
        listener.close()
        speaker.wait_idle(timeout=10)
        speaker.close()


def _start_stdin_reader(events: queue.Queue[_Event]) -> None:
    import threading

    def read() -> None:
        for line in sys.stdin:
            events.put(_Typed(line))
        events.put(_Typed(None))

    threading.Thread(target=read, name="lifeguard-stdin", daemon=True).start()
