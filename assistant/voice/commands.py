"""``lifeguard hear`` and ``lifeguard listen``: spoken commands from the command line.

Registered by ``assistant.cli`` through ``register(subparsers)``. Everything heavy (pocketsphinx,
speech_recognition, pyttsx3, the store) is imported inside the command functions, so other
subcommands start as fast as before.

``hear FILE.wav...``: decode each file as one spoken command; print its canonical form (nothing
where no command was heard), or with ``--json`` one JSON list of ``{"file", "command"}``.

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
from collections.abc import Sequence
from dataclasses import replace

from assistant.config import ENGINES, settings_or_exit
from assistant.referee import Referee


def register(subparsers: argparse._SubParsersAction) -> None:
    hear = subparsers.add_parser("hear", help="decode WAV files of spoken commands")
    hear.add_argument("files", nargs="+", metavar="FILE.wav", help="audio files (any rate, mono or stereo)")
    hear.add_argument("--players", nargs="+", metavar="NAME", help="the players (default: the current game's)")
    hear.add_argument("--json", action="store_true", help='print one JSON list of {"file", "command"}')
    hear.add_argument("--verbose", action="store_true", help="say on stderr why a file is not a command")
    hear.add_argument("--engine", choices=ENGINES, help="the recogniser (default: the settings', whisper)")
    hear.set_defaults(func=cmd_hear)

    listen = subparsers.add_parser("listen", help="a plain-text voice session (speak commands)")
    listen.add_argument("--audio-input", dest="listen_audio", nargs="+", metavar="FILE",
                        help="WAV files to play in as if spoken; the session ends after them")
    listen.add_argument("--players", nargs="+", metavar="NAME",
                        help="start a new game with these players (default: resume the current game)")
    listen.add_argument("--continuous", action="store_true", help="listen all the time, not push-to-talk")
    listen.add_argument("--quiet", action="store_true", help="do not speak (no speech output)")
    listen.add_argument("--no-store", action="store_true", help="do not save the game (needs --players)")
    listen.add_argument("--engine", choices=ENGINES, help="the recogniser (default: the settings', whisper)")
    listen.set_defaults(func=cmd_listen)


# ---------------------------------------------------------------------------- hear
def cmd_hear(args: argparse.Namespace) -> int:
    from assistant.commands.files import MAX_AUDIO, InputRefused, open_input
    from assistant.commands.text import printable

    settings = settings_or_exit(args)
    referee: Referee | None = None
    if args.players:
        players = tuple(p.lower() for p in args.players)
    else:
        referee, problem = _current_game()
        if referee is None:
            print(f"lifeguard hear: {problem} Name the players with --players NAME...", file=sys.stderr)
            return 2
        players = referee.players
    from assistant.voice.recognizer import RecognizerUnavailable, make_recognizer, read_wav

    try:
        recognizer, note = make_recognizer(args.engine or settings.voice.engine, players,
                                           referee.game if referee else None, settings.voice.whisper_model)
    except RecognizerUnavailable as err:
        print(f"lifeguard hear: {err}", file=sys.stderr)
        return 2
    if note:
        print(f"lifeguard hear: {note}.", file=sys.stderr)
    results = []
    status = 0
    for path in args.files:
        try:
            open_input(path, "audio file", MAX_AUDIO).close()  # a FIFO or /dev/zero: refused
            audio = read_wav(path)
        except InputRefused as err:
            print(f"lifeguard hear: {printable(str(err), 300)}", file=sys.stderr)
            status = 2
            continue
        except (OSError, ValueError, AssertionError, EOFError, ZeroDivisionError) as err:
            reason = "its sample rate is 0" if isinstance(err, ZeroDivisionError) else err or "unreadable"
            print(f"lifeguard hear: {printable(path)}: not a WAV, AIFF or FLAC file ({reason}).",
                  file=sys.stderr)
            status = 2
            continue
        decoded = recognizer.decode_audio(audio)
        command = decoded.command.canonical if decoded.command else None
        results.append({"file": path, "command": command})
        if args.verbose and command is None:
            print(f"{path}: no command ({decoded.reason}; heard {decoded.text!r})", file=sys.stderr)
        if not args.json and command is not None:
            print(command)
    if args.json:
        print(json.dumps(results))
    return status


def _current_game() -> tuple[Referee | None, str]:
    """The current game from the store (read-only), or why there is none."""
    from assistant.store import GameStore, StoreError

    try:
        with GameStore.open(None, create=False, readonly=True) as store:
            row = store.current_game()
            if row is None:
                return None, "No game in progress."
            entries = store.entries(row.id)
    except StoreError as err:
        return None, str(getattr(err, "message", err))
    try:
        referee = Referee.resume([e.command for e in entries], [e.joined for e in entries], row.cursor)
    except Exception as err:  # noqa: BLE001 - a store this version cannot replay: players still known
        return (None, f"The current game cannot be replayed ({err}).") if not row.players else (
            _players_only(row.players), "")
    return referee, ""


def _players_only(players: Sequence[str]) -> Referee:
    referee = Referee(confirm_new_game=False)
    referee.handle("new game " + " ".join(players))
    return referee


# ---------------------------------------------------------------------------- listen
def cmd_listen(args: argparse.Namespace) -> int:
    settings = settings_or_exit(args)
    files = args.listen_audio or getattr(args, "audio_input", None) or None
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


def _open_referee(args: argparse.Namespace, settings) -> tuple[object | None, Referee | None, str]:
    session = None
    referee: Referee | None = None
    if not args.no_store:
        from assistant.store import StoreError, open_session

        try:
            session = open_session(settings, rng=random.Random(args.seed))
            referee = session.referee
        except StoreError as err:
            return None, None, f"{err.message} (or use --no-store --players ...)"
    if referee is None:
        referee = Referee(settings.rules, random.Random(args.seed))
    if args.players:
        reply = referee.handle("new game " + " ".join(args.players))
        if reply.question and reply.intent == "new_game":
            reply = referee.handle("yes")
        if not reply.ok:
            if session is not None:
                session.close()
            return None, None, reply.error or "cannot start the game"
    elif referee.game is None:
        if session is not None:
            session.close()
        return None, None, "No game in progress: name the players with --players NAME..."
    return session, referee, ""


def _listen_session(args, settings, referee: Referee, files, say_line) -> int:
    from assistant import announce
    from assistant.voice.listener import Heard, ListenContext, Listener, ListenerState, Rejected
    from assistant.voice.speaker import Speaker

    events: queue.Queue = queue.Queue()
    voice = replace(settings.voice, listen="continuous" if (files or args.continuous) else "push_to_talk",
                    engine=args.engine or settings.voice.engine)
    speaker = Speaker(voice if not args.quiet else replace(voice, speak=False),
                      on_state=lambda state, reason: events.put(("speaker", state, reason)))
    listener = Listener(voice, lambda: ListenContext.from_referee(referee), events.put,
                        audio_input=files, settle=True)
    speaker.start()
    listener.start()

    def speak(lines: Sequence[str]) -> None:
        for line in lines:
            say_line(line)
            speaker.say(line)

    speak(referee.last_said[-2:] if referee.last_said else [announce.expecting(referee.game)])
    if not files:
        say_line("Press Enter and speak a command (or type one); Ctrl+D to leave.")
        _start_stdin_reader(events)
    status = 0
    noted = False
    try:
        while True:
            event = events.get()
            if isinstance(event, tuple) and event[0] == "speaker":
                _, state, reason = event
                if state == "speaking":
                    listener.pause()
                else:
                    listener.resume()
                if state == "unavailable":
                    say_line(f"(speech: {reason})")
            elif isinstance(event, tuple) and event[0] == "stdin":
                line = event[1]
                if line is None:
                    break
                if line.strip():
                    reply = referee.handle(line)
                    speak(reply.said if reply.ok else [f"! {reply.error}"])
                else:
                    listener.push_to_talk()
            elif isinstance(event, Heard):
                command = event.command
                say_line(f"heard: {command.canonical}")
                reply = referee.execute(command, heard=True)
                if not reply.question:  # a question reads the command back itself
                    speak([announce.readback(command.canonical, command.intent)])
                speak(reply.said if reply.ok else [f"! {reply.error}"])
                listener.settled()  # the next command is heard against the game as it is now
            elif isinstance(event, Rejected):
                heard = f" (heard '{event.text}')" if event.text else ""
                say_line(f"not a command: {event.reason}{heard}")
            elif isinstance(event, ListenerState):
                if event.state == "unavailable":
                    say_line(f"(listening: {event.reason})")
                    status = 1
                    break
                if listener.note and not noted:
                    noted = True
                    say_line(f"({listener.note})")
                if files and listener.input_ended:
                    break
    except KeyboardInterrupt:
        status = 130
    finally:
        listener.close()
        speaker.wait_idle(timeout=10)
        speaker.close()
    return status


def _start_stdin_reader(events: queue.Queue) -> None:
    import threading

    def read() -> None:
        for line in sys.stdin:
            events.put(("stdin", line))
        events.put(("stdin", None))

    threading.Thread(target=read, name="lifeguard-stdin", daemon=True).start()
