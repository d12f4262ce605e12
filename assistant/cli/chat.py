"""``lifeguard chat``: the referee as a line-by-line conversation, and what ``lifeguard`` with no
subcommand opens (``cmd_table``: the full-screen table at a terminal, else this chat).

Every accepted command is saved in the game store before it is answered and an unfinished game
is resumed (``--no-store``: nothing is written); ``--jsonl`` answers each line with one JSON
object, for programs. Ctrl+C and SIGTERM stop it with one line (``_until_stopped``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import re
import signal
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TextIO

from assistant.cli.streams import MAX_REFUSED_LINES, is_terminal
from assistant.commands.files import TOO_LONG, bounded_lines
from assistant.commands.language import ENGLISH_LANGUAGE, LANGUAGE_BY_CODE, Language
from assistant.commands.text import MAX_LINE, printable
from assistant.config import Settings, settings_or_exit
from assistant.i18n import N_, _, current_language, format, pgettext
from assistant.referee import Referee, Reply
from assistant.table import TableState

if TYPE_CHECKING:
    from assistant.store import Session


CHAT_EPILOG = N_("""\
The game is saved after every accepted command, in lifeguard.sqlite3 in $LIFEGUARD_DATA_DIR
(else the user's data folder); an unfinished game is resumed when chat starts.

With --jsonl: when a game is resumed, the first output line is a greeting object
{shape} (it has no "ok"
key); then one JSON object answers each input line. 'new game ...' while a game is unfinished is
a question ("question": true, nothing changed): send 'yes' as the next line to start the new
game (the unfinished one stays in the history as abandoned), or 'no' to carry on; any other
command drops the question.
""")


#: The greeting object's shape, as CHAT_EPILOG shows it (JSON: not translated).
CHAT_GREETING_SHAPE = '{"greeting": [...], "resumed": true, "game": ID, "store": PATH, "state": {...}}'


#: The last line of 'help' in a chat ({words}: the table language's words that end a chat).
CHAT_LEAVING = N_("To leave the chat: {words} or Ctrl+D.")
#: The words that end a chat at every table (they are the chat's own, not commands); the table
#: language's own end it too (``Language.leave_words``: 'beenden', '종료').
QUIT_WORDS = ("quit", "exit")
#: The first line of a chat ({help}: the table language's word for help).
CHAT_WELCOME = N_("Lifeguard referee. Type '{help}' for commands, Ctrl+D to leave.")


def _table_words() -> Language:
    """The command language of the table (English where the language has none)."""
    return LANGUAGE_BY_CODE.get(current_language(), ENGLISH_LANGUAGE)


def chat_welcome() -> str:
    """The first line of a chat, quoting the table language's word for help."""
    return format(_(CHAT_WELCOME), help=_table_words().say["help"])


def chat_leaving() -> str:
    """The last line of a chat's help: the table language's words that end it."""
    return format(_(CHAT_LEAVING), words=pgettext("list", ", ").join(_table_words().leave_words))


def leaves_chat(line: str) -> bool:
    """Whether a chat's line ends it: 'quit' or 'exit', or a word of the table's language for it
    ('beenden', 'tschüss', 'Ende'; '종료', '끝', '나가기'), in any case."""
    said = line.lower()
    return said in QUIT_WORDS or said in {word.lower() for word in _table_words().leave_words}


#: A chat's input that is no terminal is given up after this many refused lines in all (refused
#: lines between accepted ones: each refusal's suggestion search costs a millisecond or more).
MAX_REFUSED_CHAT_LINES = 1000


def run_chat(referee: Referee, jsonl: bool, stdin: TextIO, stdout: TextIO, greeting: Sequence[str] = (),
             speech: str = "full") -> int:
    """The referee as a conversation: one line in, the answer out (one JSON object with --jsonl,
    with ``spoken`` when the ``speech`` setting says aloud other than ``said``)."""
    if not jsonl:
        for line in greeting or (chat_welcome(),):
            stdout.write(line + "\n")
        stdout.flush()
    lines = _chat_lines(stdin, stdout, jsonl)
    conversation = _Conversation(referee, jsonl, stdout, speech, at_terminal=is_terminal(stdin))
    for raw in lines:
        if conversation.given_up():
            return 1
        if not conversation.answer(raw):
            break
    return 0


def _chat_lines(stdin: TextIO, stdout: TextIO, jsonl: bool) -> Iterator[bytes]:
    """The chat's input lines as bytes, a bounded line at a time: a 10 MB line or /dev/zero
    never fills the memory, and a stray byte that is not UTF-8 is one refused line, not the end
    of the chat. A prompt shows a person at a terminal where to type; never in JSON lines or
    piped input."""
    prompt = "> " if not jsonl and is_terminal(stdin) and is_terminal(stdout) else ""
    if prompt and stdin is sys.stdin and stdout is sys.stdout:
        return _edited_lines(prompt)  # arrow keys edit and recall, as in a shell
    return _prompted(bounded_lines(getattr(stdin, "buffer", stdin)), prompt, stdout)


@dataclass
class _Conversation:
    """The chat's answers to its input lines, one at a time, and what it remembers between
    them: the command a refusal offered, and how many lines were refused."""

    referee: Referee
    jsonl: bool
    stdout: TextIO
    speech: str
    #: Input that is no terminal (a file, a program) stops after MAX_REFUSED_LINES refusals in
    #: a row, or MAX_REFUSED_CHAT_LINES in all: it is not being understood, and each refusal's
    #: suggestion search costs a millisecond or more. A person at a terminal may go on as long
    #: as they like.
    at_terminal: bool
    #: The command a refusal suggested ("Did you mean ...?"): "yes" takes it, as the table's
    #: Enter does.
    offered: str | None = None
    refused_in_a_row: int = 0
    refused: int = 0

    def given_up(self) -> bool:
        """Whether input that is no terminal has been refused too often to go on (said on
        stderr)."""
        if self.at_terminal or (self.refused_in_a_row < MAX_REFUSED_LINES
                                and self.refused < MAX_REFUSED_CHAT_LINES):
            return False
        if self.refused_in_a_row >= MAX_REFUSED_LINES:
            stopped = format(_("lifeguard: chat stopped after {n} refused lines in a row from input that "
                               "is not a terminal; is this a command file?"), n=self.refused_in_a_row)
        else:
            stopped = format(_("lifeguard: chat stopped after {n:,} refused lines from input that is "
                               "not a terminal; is this a command file?"), n=self.refused)
        sys.stderr.write(stopped + "\n")
        return True

    def answer(self, raw: bytes) -> bool:
        """Answer one input line; False when it ends the chat ('quit' or 'exit')."""
        if raw is TOO_LONG:
            self.refuse(format(_("That line is longer than {most:,} characters: type one command a line."),
                               most=MAX_LINE))
            return True
        line = raw.decode("utf-8", "surrogateescape").strip()
        if not line:
            if self.jsonl:
                self.emit(Reply(False, error=_("Empty line: say a command, or 'help'.")))
            return True
        if not self.jsonl and leaves_chat(line):
            return False
        if _UNDECODED.search(line):
            self.refuse(_("That line is not UTF-8 text: type it again."))
            return True
        if self.offered and line.lower() in ("yes", "y"):
            line = self.offered
        reply = self.referee.handle(line)
        self.offered = None if reply.ok or reply.question else reply.suggestion
        self.refused_in_a_row = 0 if reply.ok else self.refused_in_a_row + 1
        self.refused += not reply.ok
        self.emit(reply)
        return True

    def refuse(self, error: str) -> None:
        """A line refused before the referee sees it: said, and counted as refused."""
        self.emit(Reply(False, error=error))
        self.refused_in_a_row, self.refused = self.refused_in_a_row + 1, self.refused + 1

    def emit(self, reply: Reply) -> None:
        if self.jsonl:
            self.stdout.write(json.dumps(reply.to_json(self.speech)) + "\n")
        elif reply.ok:
            # The words that end a chat are its own (the table has keys): its help says them.
            said = [*reply.said, chat_leaving()] if reply.intent == "help" else reply.said
            self.stdout.write("\n".join(said) + "\n")
        else:
            self.stdout.write(f"! {printable(reply.error or '', 1000)}\n")
        self.stdout.flush()


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


def _prompted(lines: Iterable[bytes], prompt: str, stdout: TextIO) -> Iterator[bytes]:
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
    stopped = _("Stopped; the game is saved.") if saved else _("Stopped.")
    try:
        status = chat()
        if saved and is_terminal(sys.stdin):  # Ctrl+D, 'quit': said as Ctrl+C says it
            print(_("The game is saved."), file=sys.stderr)
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
                    "state": TableState.of(session.referee.game).status_json(),
                }) + "\n")
                sys.stdout.flush()
            greeting: list[str] = []
        else:
            # Where the game is kept first, then where it stands: the last lines before the
            # prompt say what happens next.
            # The path as the typed input is shown ($LIFEGUARD_DATA_DIR may hold any byte).
            greeting = [format(_("Game store: {path}"), path=printable(str(session.store.path), 5000)),
                        chat_welcome(),
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
        question = (_("Set the damaged game aside (it is kept, marked abandoned) and go on?")
                    if damaged_game else
                    _("Move the bad file aside (it is kept, renamed) and start a new store?"))
        # Translators: the answers a person may type to a yes/no question at the terminal.
        answer = input(question + " " + _("[y/N]") + " ")
        if answer.strip().lower() not in ("y", "yes", *_("y, yes").split(", ")):
            return None
        return open_session(settings, rng=rng, move_aside_bad_store=not damaged_game,
                            set_aside_damaged_game=damaged_game)


def cmd_table(args: argparse.Namespace) -> int:
    """No subcommand: the full-screen table when a terminal is there, else chat."""
    if sys.stdin.isatty() and sys.stdout.isatty():
        from assistant.tui.app import run

        return run(args)
    return cmd_chat(args)
