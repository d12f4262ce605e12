"""``lifeguard``: the one console script.

Every subcommand and option is declared here (``build_parser``); the commands of the store, the
voice and the web page run in their own modules (``assistant.store.commands``,
``assistant.voice.commands``, ``assistant.web.commands``), which import their heavy libraries
only when run, so ``lifeguard replay`` starts fast and never imports textual or an audio library.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import json
import os
import random
import re
import signal
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TextIO

from assistant import __version__
from assistant.commands.files import (
    MAX_FILE,
    NOT_UTF8,
    TOO_LONG,
    InputRefused,
    NotText,
    bounded_lines,
    command_lines,
    open_input,
)
from assistant.commands.text import MAX_LINE, printable
from assistant.config import ENGINES, Settings, settings_or_exit
from assistant.referee import Referee, Reply

if TYPE_CHECKING:
    from assistant.store import Session


CHAT_EPILOG = """\
The game is saved after every accepted command, in lifeguard.sqlite3 in $LIFEGUARD_DATA_DIR
(else the user's data folder); an unfinished game is resumed when chat starts.

With --jsonl: when a game is resumed, the first output line is a greeting object
{"greeting": [...], "resumed": true, "game": ID, "store": PATH, "state": {...}} (it has no "ok"
key); then one JSON object answers each input line. 'new game ...' while a game is unfinished is
a question ("question": true, nothing changed): send 'yes' as the next line to start the new
game (the unfinished one stays in the history as abandoned), or 'no' to carry on; any other
command drops the question.
"""


#: The last line of 'help' in a chat.
CHAT_LEAVING = "To leave the chat: quit, exit or Ctrl+D."

# ---------------------------------------------------------------------------- replay
def cmd_replay(args: argparse.Namespace) -> int:
    settings = settings_or_exit(args)
    seed = 0 if args.seed is None else args.seed  # replay is reproducible by default
    referee = Referee(settings.rules, random.Random(seed), confirm_new_game=False)
    try:
        # Bytes, decoded line by line: one line in another encoding is a refused line, not
        # the end of the replay (a text-mode read fails on the whole first 8 KB at once).
        stream = (getattr(sys.stdin, "buffer", sys.stdin) if args.file == "-"
                  else open_input(args.file, "command file"))
    except InputRefused as err:
        print(f"lifeguard: {printable(str(err), 300)}", file=sys.stderr)
        return 2
    refused = 0
    with stream:
        try:
            for number, line in command_lines(stream):
                if refused >= MAX_REFUSED_LINES:
                    print(f"lifeguard: stopped after {refused} refused lines: {_unread(stream, number)} "
                          "not read. Is this a file of commands?", file=sys.stderr)
                    return 1
                reply = referee.handle(line) if line is not None else Reply(False, error=NOT_UTF8)
                if not reply.ok:
                    refused += 1
                    print(f"line {number}: {printable(reply.error or '', 300)}", file=sys.stderr)
                elif not args.json:
                    for sentence in reply.said:
                        print(sentence)
        except NotText:
            print(f"lifeguard: {printable(args.file)} is not a text file.", file=sys.stderr)
            return 2
    if args.json:
        print(json.dumps(referee.state()))
    return 1 if refused else 0


#: A replayed file, or a chat's input that is no terminal, is given up after this many refused
#: lines (in a row, for chat): a file of a million refusals took 12 minutes to print them.
MAX_REFUSED_LINES = 100
#: A chat's input that is no terminal is given up after this many refused lines in all (refused
#: lines between accepted ones: each refusal's suggestion search costs a millisecond or more).
MAX_REFUSED_CHAT_LINES = 1000


def _unread(stream: Any, number: int) -> str:
    """What is left of ``stream`` from line ``number`` (just read) on, as a clause: its lines
    counted, reading at most ``MAX_FILE`` bytes more (an endless input is not read to its end;
    a terminal not at all)."""
    if _is_terminal(stream):
        return f"line {number:,} and the rest of the input were"
    lines, read, last = 1, 0, b"\n"
    while read <= MAX_FILE and (chunk := stream.read(1 << 16)):
        lines += chunk.count(b"\n")
        read += len(chunk)
        last = chunk[-1:]
    if read > MAX_FILE:
        return f"line {number:,} and the rest of the input (over {MAX_FILE:,} bytes) were"
    lines += last != b"\n"
    return (f"line {number:,} was" if lines == 1 else
            f"{lines:,} lines, from line {number:,} on, were")


# ---------------------------------------------------------------------------- chat
def run_chat(referee: Referee, jsonl: bool, stdin: TextIO, stdout: TextIO, greeting: Sequence[str] = (),
             speech: str = "full") -> int:
    """The referee as a conversation: one line in, the answer out (one JSON object with --jsonl,
    with ``spoken`` when the ``speech`` setting says aloud other than ``said``)."""

    def emit(reply: Reply) -> None:
        if jsonl:
            stdout.write(json.dumps(reply.to_json(speech)) + "\n")
        elif reply.ok:
            # 'quit' and 'exit' are the chat's own words (the table has keys): its help says them.
            said = [*reply.said, CHAT_LEAVING] if reply.intent == "help" else reply.said
            stdout.write("\n".join(said) + "\n")
        else:
            stdout.write(f"! {printable(reply.error or '', 1000)}\n")
        stdout.flush()

    if not jsonl:
        for line in greeting or ("Lifeguard referee. Type 'help' for commands, Ctrl+D to leave.",):
            stdout.write(line + "\n")
        stdout.flush()
    # Bytes, a bounded line at a time: a 10 MB line or /dev/zero never fills the memory, and a
    # stray byte that is not UTF-8 is one refused line, not the end of the chat.
    # A prompt shows a person at a terminal where to type; never in JSON lines or piped input.
    prompt = "> " if not jsonl and _is_terminal(stdin) and _is_terminal(stdout) else ""
    if prompt and stdin is sys.stdin and stdout is sys.stdout:
        lines: Iterable = _edited_lines(prompt)  # arrow keys edit and recall, as in a shell
    else:
        lines = _prompted(bounded_lines(getattr(stdin, "buffer", stdin)), prompt, stdout)
    #: The command a refusal suggested ("Did you mean ...?"): "yes" takes it, as the table's Enter does.
    offered: str | None = None
    # Input that is no terminal (a file, a program) stops after MAX_REFUSED_LINES refusals in a
    # row, or MAX_REFUSED_CHAT_LINES in all: it is not being understood, and each refusal's
    # suggestion search costs a millisecond or more. A person at a terminal may go on as long
    # as they like.
    at_terminal = _is_terminal(stdin)
    refused_in_a_row = refused = 0
    for raw in lines:
        if not at_terminal and (refused_in_a_row >= MAX_REFUSED_LINES or refused >= MAX_REFUSED_CHAT_LINES):
            how_many = (f"{refused_in_a_row} refused lines in a row" if refused_in_a_row >= MAX_REFUSED_LINES
                        else f"{refused:,} refused lines")
            sys.stderr.write(f"lifeguard: chat stopped after {how_many} from input that is not a "
                             "terminal; is this a command file?\n")
            return 1
        if raw is TOO_LONG:
            emit(Reply(False, error=f"That line is longer than {MAX_LINE:,} characters: type one "
                                    "command a line."))
            refused_in_a_row, refused = refused_in_a_row + 1, refused + 1
            continue
        line = raw.decode("utf-8", "surrogateescape").strip()
        if not line:
            if jsonl:
                emit(Reply(False, error="Empty line: say a command, or 'help'."))
            continue
        if not jsonl and line.lower() in ("quit", "exit"):
            break
        if _UNDECODED.search(line):
            emit(Reply(False, error="That line is not UTF-8 text: type it again."))
            refused_in_a_row, refused = refused_in_a_row + 1, refused + 1
            continue
        if offered and line.lower() in ("yes", "y"):
            line = offered
        reply = referee.handle(line)
        offered = None if reply.ok or reply.question else reply.suggestion
        refused_in_a_row = 0 if reply.ok else refused_in_a_row + 1
        refused += not reply.ok
        emit(reply)
    return 0


def _edited_lines(prompt: str) -> Iterator[bytes]:
    """Lines typed at a terminal through ``input``, with the standard library's ``readline``
    where it exists: the arrow keys move in the line and recall earlier ones (they printed
    ``^[[A``). Ends at Ctrl+D, on a line of its own."""
    try:
        import readline  # noqa: F401  (importing it is what gives input() line editing)
    except ImportError:
        pass
    while True:
        try:
            text = input(prompt)
        except EOFError:
            print()
            return
        raw = text.encode("utf-8", "surrogateescape")
        yield TOO_LONG if len(raw) > 4 * MAX_LINE else raw + b"\n"


def _prompted(lines: Iterable, prompt: str, stdout: TextIO) -> Iterator:
    """``lines`` with ``prompt`` written before each one is read (and a new line at the end, so
    Ctrl+D leaves the shell's prompt on a line of its own); as they are without a prompt."""
    iterator = iter(lines)
    while True:
        if prompt:
            stdout.write(prompt)
            stdout.flush()
        try:
            raw = next(iterator)
        except StopIteration:
            if prompt:
                stdout.write("\n")
            return
        yield raw


def _is_terminal(stream: TextIO) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed stream
        return False


#: Bytes that were not UTF-8, as ``surrogateescape`` keeps them.
_UNDECODED = re.compile("[\udc80-\udcff]")


class _Terminated(Exception):
    """SIGTERM arrived during a chat."""


def _until_stopped(chat: Callable[[], int], saved: bool) -> int:
    """Run ``chat``; Ctrl+C (SIGINT) and SIGTERM end it with one line and status 130 / 143.
    Every answered command is already in the store, so nothing is lost by stopping."""

    def on_term(signum: int, frame: object) -> None:
        raise _Terminated

    previous = None
    with contextlib.suppress(ValueError):  # not the main thread: leave signals alone
        previous = signal.signal(signal.SIGTERM, on_term)
    stopped = "Stopped; the game is saved." if saved else "Stopped."
    try:
        status = chat()
        if saved and _is_terminal(sys.stdin):  # Ctrl+D, 'quit': said as Ctrl+C says it
            print("The game is saved.", file=sys.stderr)
        return status
    except KeyboardInterrupt:
        print(stopped, file=sys.stderr)
        return 130
    except _Terminated:
        print(stopped, file=sys.stderr)
        return 143
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def cmd_chat(args: argparse.Namespace) -> int:
    """Chat with the game store: every accepted command is saved before it is answered, and an
    unfinished game is resumed (see ``lifeguard chat --help`` for the --jsonl greeting line)."""
    settings = settings_or_exit(args)
    rng = random.Random(args.seed)
    if args.no_store:
        referee = Referee(settings.rules, rng)
        return _until_stopped(lambda: run_chat(referee, args.jsonl, sys.stdin, sys.stdout,
                                               speech=settings.voice.speech), False)
    from assistant.store import StoreError

    try:
        session = _open_chat_session(args, settings, rng)
    except StoreError as err:
        print(f"lifeguard: {printable(str(err), 5000)}", file=sys.stderr)
        return 2
    except EOFError:
        return 2
    if session is None:
        return 2
    with session:
        if args.jsonl:
            if session.resumed or session.moved_aside or session.greeting:
                sys.stdout.write(json.dumps({
                    "greeting": session.greeting,
                    "resumed": session.resumed,
                    "game": session.game_id,
                    "store": str(session.store.path),
                    "state": session.referee.state(),
                }) + "\n")
                sys.stdout.flush()
            greeting: list[str] = []
        else:
            # Where the game is kept first, then where it stands: the last lines before the
            # prompt say what happens next.
            # The path as the typed input is shown ($LIFEGUARD_DATA_DIR may hold any byte).
            greeting = [f"Game store: {printable(str(session.store.path), 5000)}",
                        "Lifeguard referee. Type 'help' for commands, Ctrl+D to leave.",
                        *session.greeting]
        return _until_stopped(
            lambda: run_chat(session.referee, args.jsonl, sys.stdin, sys.stdout, greeting,
                             settings.voice.speech), True)


def _open_chat_session(args: argparse.Namespace, settings: Settings,
                       rng: random.Random) -> Session | None:
    """The store's session for chat. A bad store or a damaged game is set aside when the
    options say so, or when the person at the terminal says yes; None when they say no.
    Raises ``StoreError`` (and ``EOFError`` when the question gets no answer)."""
    from assistant.store import StoreError, StoreErrorKind, open_session

    move_aside, set_aside = args.move_aside_bad_store, args.set_aside_damaged_game
    try:
        return open_session(settings, rng=rng, move_aside_bad_store=move_aside,
                            set_aside_damaged_game=set_aside)
    except StoreError as err:
        damaged_game = err.kind == StoreErrorKind.DAMAGED and not set_aside
        if not (damaged_game or (err.can_move_aside and not move_aside)) \
                or args.jsonl or not sys.stdin.isatty():
            raise
        print(f"lifeguard: {printable(str(err), 5000)}", file=sys.stderr)
        question = ("Set the damaged game aside (it is kept, marked abandoned) and go on? "
                    if damaged_game else
                    "Move the bad file aside (it is kept, renamed) and start a new store? ")
        answer = input(question + "[y/N] ")
        if answer.strip().lower() not in ("y", "yes"):
            return None
        return open_session(settings, rng=rng, move_aside_bad_store=not damaged_game,
                            set_aside_damaged_game=damaged_game)


def cmd_table(args: argparse.Namespace) -> int:
    """No subcommand: the full-screen table when a terminal is there, else chat."""
    if sys.stdin.isatty() and sys.stdout.isatty():
        from assistant.tui.app import run

        return run(args)
    return cmd_chat(args)


# ---------------------------------------------------------------------------- parser
class _Parser(argparse.ArgumentParser):
    """argparse's parser, except that help and usage that cannot be written (``--help >
    /dev/full``) raise as any other output does (argparse drops the error, and the status was 0);
    ``main`` says why."""

    def _print_message(self, message: str, file: Any = None) -> None:
        if message:
            (file or sys.stderr).write(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="lifeguard",
        description="A table-side referee for the card game Life is Life. With no COMMAND, "
                    "lifeguard opens the table: the full-screen referee in this terminal (where "
                    "there is no terminal, the chat). A COMMAND does one thing without the table.",
    )
    parser.add_argument("--version", action="version", version=f"lifeguard {__version__}")
    parser.add_argument("--config", metavar="FILE", help="settings file (TOML)")
    parser.add_argument("--seed", type=int, default=None, help="seed for drawing lots")
    parser.add_argument(
        "--audio-input", nargs="+", metavar="FILE", default=None,
        help="WAV files to play in as if spoken into the microphone",
    )
    # What chat reads, for the table's fallback to chat when there is no terminal.
    parser.set_defaults(func=cmd_table, jsonl=False, no_store=False, move_aside_bad_store=False,
                        set_aside_damaged_game=False)
    sub: argparse._SubParsersAction[Any] = parser.add_subparsers(title="commands", metavar="COMMAND")

    replay = sub.add_parser("replay", help="run a file of commands and print the announcements")
    replay.add_argument("file", metavar="FILE", help="command file, one command per line ('-' for stdin)")
    replay.add_argument("--json", action="store_true", help="print only the final state as JSON")
    # SUPPRESS: without it the subcommand's default would overwrite 'lifeguard --seed N replay'.
    replay.add_argument("--seed", type=int, default=argparse.SUPPRESS,
                        help="seed for drawing lots (default 0)")
    replay.set_defaults(func=cmd_replay)

    chat = sub.add_parser("chat", help="the referee as a line-by-line conversation",
                          epilog=CHAT_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    chat.add_argument("--jsonl", action="store_true", help="answer each line with one JSON object")
    chat.add_argument(
        "--move-aside-bad-store", action="store_true",
        help="if the game store is damaged or not a store, rename it (it is kept) and start a new one",
    )
    chat.add_argument(
        "--set-aside-damaged-game", action="store_true",
        help="if the unfinished game is damaged, mark it abandoned (it is kept) and go on",
    )
    chat.add_argument("--no-store", action="store_true",
                      help="play without saving (nothing is written)")
    chat.set_defaults(func=cmd_chat)

    _add_store_commands(sub)
    _add_voice_commands(sub)
    _add_web_commands(sub)
    # argparse writes the subcommand as required ('COMMAND ...'); without one the table opens.
    usage = parser.format_usage().removeprefix("usage: ").rstrip("\n")
    parser.usage = usage.replace("COMMAND ...", "[COMMAND ...]")
    return parser


SERVE_EPILOG = """\
The page follows whatever game is current in the game store (lifeguard.sqlite3 in
$LIFEGUARD_DATA_DIR, else the user's data folder), also across new games, while the table or
'lifeguard chat' plays it. It is read only: GET requests with the link's token, nothing else.
The token is random and changes every time the server starts.
"""


def _add_store_commands(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """status, history, stats, export, import: the game store read and loaded."""
    from assistant.cli import games as store_commands

    status = subparsers.add_parser("status", help="where the current game stands")
    status.add_argument("--json", action="store_true", help="the state as JSON (as replay --json)")
    status.set_defaults(func=store_commands.cmd_status)

    hist = subparsers.add_parser("history", help="the games played, newest first")
    hist.add_argument("--json", action="store_true", help="as a JSON list")
    hist.set_defaults(func=store_commands.cmd_history)

    st = subparsers.add_parser("stats", help="per player: games, wins, places, sudden deaths, lives lost")
    st.add_argument("--json", action="store_true", help="as a JSON list")
    st.set_defaults(func=store_commands.cmd_stats)

    exp = subparsers.add_parser(
        "export", help="one game as a command file, JSON or a BG Stats import file",
        description="Export a game (default: the current game, else the newest). 'text' is the "
        "command file that 'lifeguard replay' reads; 'json' the full record with undone entries; "
        "'bgstats' the JSON the BG Stats app imports (finished games only); 'bgstats-link' "
        "the BG Stats app's 'create play' link, the play filled in for you to confirm.",
    )
    exp.add_argument("game", nargs="?", type=int, metavar="GAME", help="game number (see history)")
    exp.add_argument("--format", choices=("text", "json", "bgstats", "bgstats-link"),
                     default="text")
    exp.add_argument("--me", metavar="NAME",
                     help="bgstats: the player who is the BG Stats app's user (its userInfo)")
    exp.add_argument("-o", "--output", metavar="FILE",
                     help="write to FILE instead of stdout (an existing FILE only with --force)")
    exp.add_argument("--force", action="store_true", help="replace FILE if it exists")
    exp.set_defaults(func=store_commands.cmd_export)

    imp = subparsers.add_parser(
        "import", help="load a command file as a finished or unfinished game",
        description="Every line is checked first; a file with refused lines is rejected as a "
        "whole, naming each refused line. An unfinished game becomes the current game. The "
        "game keeps the times in the file's '# started' and '# last command' comments (as "
        "'lifeguard export' writes them; a time without a zone is this machine's), else it is "
        "dated now. A game already in the store (the same players, commands and start time) is "
        "refused, so that the statistics never count it twice; --again imports it anyway.",
    )
    imp.add_argument("file", metavar="FILE", help="command file, one command per line")
    imp.add_argument("--abandon-current", action="store_true",
                     help="if a game is unfinished, keep it in the history as abandoned")
    imp.add_argument("--again", action="store_true",
                     help="import a game the store already holds as one more game")
    imp.set_defaults(func=store_commands.cmd_import)

def _add_voice_commands(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """hear, listen: spoken commands from the command line."""
    from assistant.cli import voice as voice_commands

    hear = subparsers.add_parser("hear", help="decode WAV files of spoken commands")
    hear.add_argument("files", nargs="+", metavar="FILE.wav",
                      help="WAV, AIFF or FLAC files (any rate, mono or stereo, up to an hour; one over "
                           "25 s is cut at its pauses and each utterance heard)")
    hear.add_argument("--players", nargs="+", metavar="NAME", help="the players (default: the current game's)")
    hear.add_argument("--json", action="store_true",
                      help='print one JSON list of {"file", "command"} (and "at", seconds, in a long file)')
    hear.add_argument("--verbose", action="store_true", help="say on stderr why a file is not a command")
    hear.add_argument("--engine", choices=ENGINES, help="the recogniser (default: the settings', whisper)")
    hear.set_defaults(func=_players_checked(voice_commands.cmd_hear))

    listen = subparsers.add_parser("listen", help="a plain-text voice session (speak commands)")
    listen.add_argument("--audio-input", dest="listen_audio", nargs="+", metavar="FILE",
                        help="WAV files to play in as if spoken; the session ends after them")
    listen.add_argument("--players", nargs="+", metavar="NAME",
                        help="start a new game with these players (default: resume the current game)")
    listen.add_argument("--continuous", action="store_true", help="listen all the time, not push-to-talk")
    listen.add_argument("--quiet", action="store_true", help="do not speak (no speech output)")
    listen.add_argument("--room", action="store_true",
                        help="with --audio-input: the table's speech goes through a simulated laptop "
                             "into the input, its echo cancelled; speaking over it stops it")
    listen.add_argument("--no-store", action="store_true", help="do not save the game (needs --players)")
    listen.add_argument("--engine", choices=ENGINES, help="the recogniser (default: the settings', whisper)")
    listen.set_defaults(func=voice_commands.cmd_listen)


def _players_checked(command: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """``hear``'s ``command`` run only when its --players are names a new game accepts (as normalised
    there); else the parser's sentence on what is wrong, and status 2. A name that is no name
    ('', '<rule>', 'a;b|c') reached the speech grammar and broke it with a traceback."""
    from assistant.commands import ParseError, new_game_command

    def checked(args: argparse.Namespace) -> int:
        if args.players is not None:
            try:
                args.players = list(new_game_command(args.players).names)
            except ParseError as err:
                print(f"lifeguard hear: {printable(err.message, 300)}", file=sys.stderr)
                return 2
        return command(args)

    return checked


def _add_web_commands(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """serve: the current game as a live, read-only web page."""
    from assistant.cli import serve as web_commands

    serve = subparsers.add_parser(
        "serve", help="the current game as a live, read-only web page for phones",
        description="Serve the current game as a live, read-only web page (phones, a TV).",
        epilog=SERVE_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    serve.add_argument("--port", type=int, default=None, metavar="N",
                       help="the port (default: port under [serve] in the settings, 8765; "
                            "0: any free port)")
    serve.add_argument("--lan", action="store_true",
                       help="serve on this computer's local network address so phones on the "
                            "same network can open it (default: this computer only)")
    serve.set_defaults(func=web_commands.cmd_serve)


def main(argv: Sequence[str] | None = None) -> int:
    if sys.stdout is None:
        # Started with its output closed ('>&-'): whatever it said would be lost, and a file it
        # opened (the store) could take the output's place and be written to by a child process.
        _say_on_stderr("lifeguard: its standard output is closed, so nothing was done; give it "
                       "somewhere to write (> /dev/null to discard what it says).")
        return 2
    for stream in (sys.stdout, sys.stderr):
        # A terminal or pipe that cannot show every letter (PYTHONIOENCODING=ascii) gets
        # escapes for the names it cannot show, not a UnicodeEncodeError.
        with contextlib.suppress(AttributeError, ValueError):
            stream.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]
    # Each line out as it is printed: a full disk (> /dev/full) or a closed pipe is found at
    # the line that could not be written, not at exit, and ``serve``'s address is not kept
    # in a buffer while it serves.
    with contextlib.suppress(AttributeError, ValueError):
        sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    if sys.stdin is None:  # started with its input closed ('<&-'): nothing to read
        sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 - for the process's life
    from assistant.store import StoreError

    try:
        try:
            args = build_parser().parse_args(argv)
        except SystemExit:  # --help, --version, a usage error: said, and flushed here
            sys.stdout.flush()
            raise
        status = int(args.func(args) or 0)
        sys.stdout.flush()  # what is left, now: an error is said here, not at the interpreter's exit
        return status
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (| head): nothing more to say, as cat says nothing; the status
        # a shell gives a process ended by SIGPIPE.
        _discard_stdout()
        return 128 + signal.SIGPIPE
    except StoreError as err:  # the store's folder itself is unusable ($LIFEGUARD_DATA_DIR)
        print(f"lifeguard: {printable(str(err), 5000)}", file=sys.stderr)
        return 2
    except OSError as err:
        if not _output_failed(err):
            raise
        _discard_stdout()
        _say_on_stderr(f"lifeguard: cannot write its output ({err.strerror or err}); stopped.")
        return 1


#: What writing to a full disk, a dead terminal or a closed pipe raises.
_OUTPUT_ERRORS = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO, errno.EPIPE, errno.EBADF}


def _output_failed(err: OSError) -> bool:
    """Whether ``err`` came from writing the standard output (or is one that writing does)."""
    if err.errno in _OUTPUT_ERRORS:
        return True
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        return True
    return False


def _discard_stdout() -> None:
    """Point the standard output at /dev/null: what is still buffered is dropped at exit instead
    of failing again ("Exception ignored ... BrokenPipeError")."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, sys.stdout.fileno())
        finally:
            os.close(devnull)


def _say_on_stderr(line: str) -> None:
    """``line`` on stderr, unless that is closed or failing too (then the status says it)."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        print(line, file=sys.stderr, flush=True)


if __name__ == "__main__":
    sys.exit(main())
