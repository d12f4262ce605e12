"""Command files (what ``replay`` runs, ``export --format text`` writes and ``import`` loads),
read as bytes and decoded line by line: one line in another encoding is one refused line, not
the end of the file, and a comment may be in any encoding."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

#: Said for a line that is not UTF-8.
NOT_UTF8 = "This line is not UTF-8 text; save the file as UTF-8."


class NotText(ValueError):
    """The file holds a NUL byte: a binary file, not a command file."""


def command_lines(
    stream: Iterable[bytes | str], comments: list[str] | None = None
) -> Iterator[tuple[int, str | None]]:
    """Numbered command lines, without blank lines and ``#`` comments; ``None`` for a line that
    is not UTF-8. Whole-line comments are added to ``comments`` when it is given."""
    for number, line in enumerate(stream, start=1):
        # A text stream (stdin without a buffer) is taken as the bytes it came from.
        raw = line.encode("utf-8", "surrogateescape") if isinstance(line, str) else line
        if b"\0" in raw:
            raise NotText("a NUL byte: not a text file")
        code, hash_sign, comment = raw.partition(b"#")
        try:
            text = code.decode("utf-8-sig" if number == 1 else "utf-8").strip()
        except UnicodeDecodeError:
            yield number, None
            continue
        if text:
            yield number, text
        elif hash_sign and comments is not None:
            comments.append("#" + comment.decode("utf-8", "replace").rstrip("\r\n"))
