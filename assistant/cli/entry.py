"""``main``: the console script ``lifeguard`` (``assistant.cli:main``, and ``python -m
assistant.cli``). It parses the command line (``assistant.cli.parser``) and runs the subcommand,
and turns what no subcommand can help into a sentence and an exit status, never a traceback:
closed standard streams, a full disk or a closed pipe on the output, Ctrl+C, a game store's
folder that cannot be used.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import sys
from collections.abc import Sequence

from assistant.cli.parser import build_parser
from assistant.commands.text import printable


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
