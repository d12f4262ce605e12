"""Command files (what ``replay`` runs, ``export --format text`` writes and ``import`` loads),
read as bytes and decoded line by line: one line in another encoding is one refused line, not
the end of the file, and a comment may be in any encoding.

Every input is bounded before it is read: ``open_input`` refuses what is not a regular file
(a FIFO would block, ``/dev/zero`` never ends) and files over ``MAX_FILE`` bytes, and
``bounded_lines`` never holds more than ``MAX_LINE`` characters of one line, so no input can
make Lifeguard wait forever or grow without limit.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable, Iterator
from typing import BinaryIO

from assistant.commands.text import MAX_LINE

#: Said for a line that is not UTF-8.
NOT_UTF8 = "This line is not UTF-8 text; save the file as UTF-8."
#: The largest command or settings file read (a whole evening of games is a few hundred KB).
MAX_FILE = 10 * 1024 * 1024
#: The largest audio file read (``hear``, ``--audio-input``): ten minutes of 16-bit stereo at
#: 44.1 kHz.
MAX_AUDIO = 110 * 1024 * 1024
#: Stands for a line longer than ``MAX_LINE`` (its bytes are skipped, never kept).
TOO_LONG = b"\0too long\0"
#: The text ``command_lines`` gives for a line over ``MAX_LINE`` characters: the parser refuses
#: it at once, saying the line is too long.
TOO_LONG_TEXT = "x" * (MAX_LINE + 1)


class NotText(ValueError):
    """The file holds a NUL byte: a binary file, not a command file."""


class InputRefused(ValueError):
    """A file that is not read at all; the message (a sentence) names it and says why."""


def open_input(path: str | os.PathLike[str], what: str = "file", limit: int = MAX_FILE) -> BinaryIO:
    """``path`` opened for reading, once it is known to be a regular file of at most ``limit``
    bytes. Opened without blocking first, so that a FIFO is refused rather than waited on."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise InputRefused(f"There is no {what} {os.fspath(path)}.") from None
    except OSError as err:
        raise InputRefused(f"Cannot read the {what} {os.fspath(path)}: "
                           f"{err.strerror or err}.") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = ("a folder" if stat.S_ISDIR(info.st_mode) else
                    "a pipe (FIFO)" if stat.S_ISFIFO(info.st_mode) else
                    "a device" if stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode) else
                    "not a regular file")
            raise InputRefused(f"The {what} {os.fspath(path)} is {kind}, not a file: nothing "
                               "was read.")
        if info.st_size > limit:
            raise InputRefused(f"The {what} {os.fspath(path)} is {info.st_size:,} bytes; "
                               f"Lifeguard reads at most {limit:,}.")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_input(path: str | os.PathLike[str], what: str = "file", limit: int = MAX_FILE) -> bytes:
    """The whole of a small input file (see ``open_input``), never more than ``limit`` bytes."""
    with open_input(path, what, limit) as f:
        data = f.read(limit + 1)
    if len(data) > limit:  # it grew while being read
        raise InputRefused(f"The {what} {os.fspath(path)} is over {limit:,} bytes; Lifeguard "
                           f"reads at most {limit:,}.")
    return data


def bounded_lines(stream: BinaryIO | Iterable[bytes | str]) -> Iterator[bytes]:
    """The lines of a stream as bytes, each at most ``MAX_LINE`` characters (4 bytes each at
    most in UTF-8); a longer line is given as ``TOO_LONG`` and the rest of it is skipped
    without being kept. Old Mac line ends (a lone carriage return) end a line too: a file
    written with them was read as one long refused line."""
    for line in _lines_up_to_cap(stream):
        if line is TOO_LONG or b"\r" not in line.rstrip(b"\r\n"):
            yield line
        else:
            yield from (part + b"\n" for part in line.rstrip(b"\r\n").split(b"\r"))


def _lines_up_to_cap(stream: BinaryIO | Iterable[bytes | str]) -> Iterator[bytes]:
    cap = 4 * MAX_LINE + 2
    readline: Callable[[int], bytes | str] | None = getattr(stream, "readline", None)
    if readline is None:  # a list of lines (tests)
        for line in stream:
            raw = _as_bytes(line)
            yield TOO_LONG if len(raw) > cap else raw
        return
    while line := _as_bytes(readline(cap)):
        if len(line) >= cap and not line.endswith(b"\n"):
            _skip_rest_of_line(readline, cap)
            yield TOO_LONG
        else:
            yield line


def _as_bytes(line: bytes | str) -> bytes:
    return line.encode("utf-8", "surrogateescape") if isinstance(line, str) else line


def _skip_rest_of_line(readline: Callable[[int], bytes | str], cap: int) -> None:
    """Read on to the end of an over-long line, a chunk at a time, keeping nothing."""
    while True:
        rest = _as_bytes(readline(cap))
        if b"\0" in rest:
            raise NotText("a NUL byte: not a text file")
        if not rest or rest.endswith(b"\n"):
            return


def command_lines(
    stream: BinaryIO | Iterable[bytes | str], comments: list[str] | None = None
) -> Iterator[tuple[int, str | None]]:
    """Numbered command lines, without blank lines and ``#`` comments; ``None`` for a line that
    is not UTF-8, ``TOO_LONG_TEXT`` for one over ``MAX_LINE`` characters (the parser refuses
    it). Whole-line comments
    are added to ``comments`` when it is given."""
    for number, raw in enumerate(bounded_lines(stream), start=1):
        if raw is TOO_LONG:
            yield number, TOO_LONG_TEXT
            continue
        if b"\0" in raw:
            raise NotText("a NUL byte: not a text file")
        code, hash_sign, comment = raw.partition(b"#")
        try:
            text = code.decode("utf-8-sig" if number == 1 else "utf-8").strip()
        except UnicodeDecodeError:
            yield number, None
            continue
        if len(text) > MAX_LINE:
            yield number, TOO_LONG_TEXT
        elif text:
            yield number, text
        elif hash_sign and comments is not None:
            comments.append("#" + comment.decode("utf-8", "replace").rstrip("\r\n"))
