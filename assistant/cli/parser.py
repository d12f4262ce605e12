"""``lifeguard``'s command line: every subcommand and option is declared here (``build_parser``).

Each subcommand group runs in its own module of this package: ``replay``, ``chat`` (also what
``lifeguard`` with no subcommand opens), ``games`` (``status``, ``history``, ``stats``,
``export``, ``import``: the game store read and loaded), ``voice`` (``hear``, ``listen``) and
``serve``. Those import their heavy libraries only when run, so ``lifeguard replay`` and
``--help`` start fast and never import textual or an audio library.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from assistant import __version__
from assistant.cli.chat import CHAT_EPILOG, CHAT_GREETING_SHAPE, cmd_chat, cmd_table
from assistant.cli.replay import cmd_replay
from assistant.commands.text import printable
from assistant.config import ENGINES
from assistant.i18n import LANGUAGES, _, format


class _Parser(argparse.ArgumentParser):
    """argparse's parser, except that help and usage that cannot be written (``--help >
    /dev/full``) raise as any other output does (argparse drops the error, and the status was 0);
    ``main`` (``assistant.cli.entry``) says why."""

    def _print_message(self, message: str, file: Any = None) -> None:
        if message:
            (file or sys.stderr).write(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="lifeguard",
        description=_("A table-side referee for the card game Life is Life. With no COMMAND, "
                    "lifeguard opens the table: the full-screen referee in this terminal (where "
                    "there is no terminal, the chat). A COMMAND does one thing without the table."),
    )
    parser.add_argument("--version", action="version", version=f"lifeguard {__version__}")
    _add_lang(parser, None)
    parser.add_argument("--config", metavar="FILE", help=_("settings file (TOML)"))
    parser.add_argument("--seed", type=int, default=None, help=_("seed for drawing lots"))
    parser.add_argument(
        "--audio-input", nargs="+", metavar="FILE", default=None,
        help=_("WAV files to play in as if spoken into the microphone"),
    )
    # What chat reads, for the table's fallback to chat when there is no terminal.
    parser.set_defaults(func=cmd_table, jsonl=False, no_store=False, move_aside_bad_store=False,
                        set_aside_damaged_game=False)
    sub: argparse._SubParsersAction[Any] = parser.add_subparsers(title=_("commands"), metavar="COMMAND")

    replay = sub.add_parser("replay", help=_("run a file of commands and print the announcements"))
    replay.add_argument("file", metavar="FILE", help=_("command file, one command per line ('-' for stdin)"))
    replay.add_argument("--json", action="store_true", help=_("print only the final state as JSON"))
    # SUPPRESS: without it the subcommand's default would overwrite 'lifeguard --seed N replay'.
    replay.add_argument("--seed", type=int, default=argparse.SUPPRESS,
                        help=_("seed for drawing lots (default 0)"))
    replay.set_defaults(func=cmd_replay)

    chat = sub.add_parser("chat", help=_("the referee as a line-by-line conversation"),
                          epilog=format(_(CHAT_EPILOG), shape=CHAT_GREETING_SHAPE), formatter_class=argparse.RawDescriptionHelpFormatter)
    chat.add_argument("--jsonl", action="store_true", help=_("answer each line with one JSON object"))
    chat.add_argument(
        "--move-aside-bad-store", action="store_true",
        help=_("if the game store is damaged or not a store, rename it (it is kept) and start a new one"),
    )
    chat.add_argument(
        "--set-aside-damaged-game", action="store_true",
        help=_("if the unfinished game is damaged, mark it abandoned (it is kept) and go on"),
    )
    chat.add_argument("--no-store", action="store_true",
                      help=_("play without saving (nothing is written)"))
    chat.set_defaults(func=cmd_chat)

    _add_store_commands(sub)
    _add_voice_commands(sub)
    _add_web_commands(sub)
    for command in sub.choices.values():
        # SUPPRESS: 'lifeguard --lang de status' keeps the language given before the command.
        _add_lang(command, argparse.SUPPRESS)
    # argparse writes the subcommand as required ('COMMAND ...'); without one the table opens.
    usage = parser.format_usage().removeprefix("usage: ").rstrip("\n")
    parser.usage = usage.replace("COMMAND ...", "[COMMAND ...]")
    return parser


def _add_lang(parser: argparse.ArgumentParser, default: object) -> None:
    """``--lang``: the language of this run, over the settings' ``[table] language``. It is read
    before this parser is built (``assistant.cli.entry``), so that the help is in it too."""
    parser.add_argument(
        "--lang", choices=tuple(LANGUAGES), default=default,
        help=format(_("the language everything is shown and said in: {languages} (default: the "
                      "settings' [table] language, en)"),
                    languages=", ".join(f"{code} ({name})" for code, name in LANGUAGES.items())),
    )


def _add_store_commands(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """status, history, stats, export, import: the game store read and loaded."""
    from assistant.cli import games

    status = subparsers.add_parser("status", help=_("where the current game stands"))
    status.add_argument("--json", action="store_true", help=_("the state as JSON (as replay --json)"))
    status.set_defaults(func=games.cmd_status)

    hist = subparsers.add_parser("history", help=_("the games played, newest first"))
    hist.add_argument("--json", action="store_true", help=_("as a JSON list"))
    hist.set_defaults(func=games.cmd_history)

    st = subparsers.add_parser("stats", help=_("per player: games, wins, places, sudden deaths, lives lost"))
    st.add_argument("--json", action="store_true", help=_("as a JSON list"))
    st.set_defaults(func=games.cmd_stats)

    exp = subparsers.add_parser(
        "export", help=_("one game as a command file, JSON or a BG Stats import file"),
        description=_("Export a game (default: the current game, else the newest). 'text' is the "
        "command file that 'lifeguard replay' reads; 'json' the full record with undone entries; "
        "'bgstats' the JSON the BG Stats app imports (finished games only); 'bgstats-link' "
        "the BG Stats app's 'create play' link, the play filled in for you to confirm."),
    )
    exp.add_argument("game", nargs="?", type=int, metavar="GAME", help=_("game number (see history)"))
    exp.add_argument("--format", choices=("text", "json", "bgstats", "bgstats-link"),
                     default="text")
    exp.add_argument("--me", metavar="NAME",
                     help=_("bgstats: the player who is the BG Stats app's user (its userInfo)"))
    exp.add_argument("-o", "--output", metavar="FILE",
                     help=_("write to FILE instead of stdout (an existing FILE only with --force)"))
    exp.add_argument("--force", action="store_true", help=_("replace FILE if it exists"))
    exp.set_defaults(func=games.cmd_export)

    imp = subparsers.add_parser(
        "import", help=_("load a command file as a finished or unfinished game"),
        description=_("Every line is checked first; a file with refused lines is rejected as a "
        "whole, naming each refused line. An unfinished game becomes the current game. The "
        "game keeps the times in the file's '# started' and '# last command' comments (as "
        "'lifeguard export' writes them; a time without a zone is this machine's), else it is "
        "dated now. A game already in the store (the same players, commands and start time) is "
        "refused, so that the statistics never count it twice; --again imports it anyway."),
    )
    imp.add_argument("file", metavar="FILE", help=_("command file, one command per line"))
    imp.add_argument("--abandon-current", action="store_true",
                     help=_("if a game is unfinished, keep it in the history as abandoned"))
    imp.add_argument("--again", action="store_true",
                     help=_("import a game the store already holds as one more game"))
    imp.set_defaults(func=games.cmd_import)


def _add_voice_commands(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """hear, listen: spoken commands from the command line."""
    from assistant.cli import voice

    hear = subparsers.add_parser("hear", help=_("decode WAV files of spoken commands"))
    hear.add_argument("files", nargs="+", metavar="FILE.wav",
                      help=_("WAV, AIFF or FLAC files (any rate, mono or stereo, up to an hour; one over "
                           "25 s is cut at its pauses and each utterance heard)"))
    hear.add_argument("--players", nargs="+", metavar="NAME", help=_("the players (default: the current game's)"))
    hear.add_argument("--json", action="store_true",
                      help=_('print one JSON list of {"file", "command"} (and "at", seconds, in a long file)'))
    hear.add_argument("--verbose", action="store_true", help=_("say on stderr why a file is not a command"))
    hear.add_argument("--engine", choices=ENGINES, help=_("the recogniser (default: the settings', whisper)"))
    hear.set_defaults(func=_players_checked(voice.cmd_hear))

    listen = subparsers.add_parser("listen", help=_("a plain-text voice session (speak commands)"))
    listen.add_argument("--audio-input", dest="listen_audio", nargs="+", metavar="FILE",
                        help=_("WAV files to play in as if spoken; the session ends after them"))
    listen.add_argument("--players", nargs="+", metavar="NAME",
                        help=_("start a new game with these players (default: resume the current game)"))
    listen.add_argument("--continuous", action="store_true", help=_("listen all the time, not push-to-talk"))
    listen.add_argument("--quiet", action="store_true", help=_("do not speak (no speech output)"))
    listen.add_argument("--room", action="store_true",
                        help=_("with --audio-input: the table's speech goes through a simulated laptop "
                             "into the input, its echo cancelled; speaking over it stops it"))
    listen.add_argument("--no-store", action="store_true", help=_("do not save the game (needs --players)"))
    listen.add_argument("--engine", choices=ENGINES, help=_("the recogniser (default: the settings', whisper)"))
    listen.set_defaults(func=voice.cmd_listen)


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
    from assistant.cli import serve

    page = subparsers.add_parser(
        "serve", help=_("the current game as a live, read-only web page for phones"),
        description=_("Serve the current game as a live, read-only web page (phones, a TV)."),
        epilog=_(serve.SERVE_EPILOG), formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    page.add_argument("--port", type=int, default=None, metavar="N",
                      help=_("the port (default: port under [serve] in the settings, 8765; "
                           "0: any free port)"))
    page.add_argument("--lan", action="store_true",
                      help=_("serve on this computer's local network address so phones on the "
                           "same network can open it (default: this computer only)"))
    page.set_defaults(func=serve.cmd_serve)
