"""The standard streams as ``replay`` and ``chat`` read them: whether one is a terminal (a
person typing) or a file or program, and when input that is no terminal is given up."""

from __future__ import annotations

from typing import IO, Any

#: A replayed file, or a chat's input that is no terminal, is given up after this many refused
#: lines (in a row, for chat): a file of a million refusals took 12 minutes to print them.
MAX_REFUSED_LINES = 100


def is_terminal(stream: IO[Any]) -> bool:
    """Whether ``stream`` is a terminal; False for a closed stream or one with no ``isatty``."""
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed stream
        return False
