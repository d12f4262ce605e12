"""``main``: the console script ``lifeguard`` (``assistant.cli:main``, and ``python -m
assistant.cli``). It parses the command line (``assistant.cli.parser``) and runs the subcommand,
and turns what no subcommand can help into a sentence and an exit status, never a traceback:
closed standard streams, a full disk or a closed pipe on the output, Ctrl+C, a game store's
folder that cannot be used.

The language is switched once, before anything is shown (the help too): ``--lang`` when the
command line gives it, else the settings' ``[table] language`` (``_start_language``).
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import os
import signal
import sys
from collections.abc import Sequence

from assistant.cli.parser import build_parser
from assistant.commands.text import printable
from assistant.i18n import LanguageUnavailable, _, current_language, format, set_language


def main(argv: Sequence[str] | None = None) -> int:
    for stream in (sys.stdout, sys.stderr):  # (None when closed: nothing to reconfigure)
        # A terminal or pipe that cannot show every letter (PYTHONIOENCODING=ascii) gets
        # escapes for the names it cannot show, not a UnicodeEncodeError.
        with contextlib.suppress(AttributeError, ValueError):
            stream.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]
    # Each line out as it is printed: a full disk (> /dev/full) or a closed pipe is found at
    # the line that could not be written, not at exit, and ``serve``'s address is not kept
    # in a buffer while it serves.
    with contextlib.suppress(AttributeError, ValueError):
        sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    # The language first, so that every sentence below is said in it (reading the settings
    # opens and closes a file: nothing is written while the output may be closed).
    arguments = list(sys.argv[1:] if argv is None else argv)
    if not _start_language(arguments):
        return 2
    if sys.stdout is None:
        # Started with its output closed ('>&-'): whatever it said would be lost, and a file it
        # opened (the store) could take the output's place and be written to by a child process.
        _say_on_stderr(_("lifeguard: its standard output is closed, so nothing was done; give it "
                         "somewhere to write (> /dev/null to discard what it says)."))
        return 2
    if sys.stdin is None:  # started with its input closed ('<&-'): nothing to read
        sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 - for the process's life
    from assistant.store import StoreError

    try:
        args = _parsed(arguments)
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
        _say_on_stderr(format(_("lifeguard: cannot write its output ({why}); stopped."),
                              why=err.strerror or err))
        return 1


def _parsed(arguments: Sequence[str]) -> argparse.Namespace:
    """The command line parsed; --help, --version and a usage error are said, and flushed here."""
    try:
        args = build_parser().parse_args(arguments)
    except SystemExit:
        sys.stdout.flush()
        raise
    if args.lang is not None and args.lang != current_language():
        set_language(args.lang)  # '--la de': argparse's abbreviation of --lang
    return args


def _start_language(arguments: Sequence[str]) -> bool:
    """Switch to the language of this run: ``--lang`` when given, else the settings' (a bad
    settings file is left to the command, which says what is wrong with it). A language that is
    unknown or not compiled is said on stderr, and False returned."""
    code = _option(arguments, "--lang")
    if code is None:
        from assistant.config import ConfigError, load_settings

        try:
            code = load_settings(_option(arguments, "--config")).language
        except ConfigError:
            code = "en"
    try:
        set_language(code)
    except LanguageUnavailable as err:
        _say_on_stderr(f"lifeguard: {printable(str(err), 500)}")
        return False
    return True


def _option(arguments: Sequence[str], name: str) -> str | None:
    """The value given to option ``name`` (``--lang de`` or ``--lang=de``; the last one wins),
    read before the parser is built; None when it is not given."""
    value = None
    for i, argument in enumerate(arguments):
        if argument == "--":
            break
        if argument == name and i + 1 < len(arguments):
            value = arguments[i + 1]
        elif argument.startswith(name + "="):
            value = argument.removeprefix(name + "=")
    return value


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
