"""The server's link as a QR code drawn in text, for phones to scan off the terminal.

Two modules per character with half blocks, so the code is square on a terminal's tall cells.
The characters assume dark ink on a light ground: draw them black on white (the table's modal
does; ``ansi`` adds the escape codes for a plain terminal), never in the terminal's own colours,
which may be light on dark and give an inverted code that many phones do not read.
"""

from __future__ import annotations

#: (upper module dark, lower module dark) -> the character that draws the pair.
HALF_BLOCKS = {(False, False): " ", (True, False): "▀", (False, True): "▄", (True, True): "█"}


def qr_lines(text: str, border: int = 2) -> list[str]:
    """``text`` as a QR code (error correction L, raised when it fits), ``border`` light modules
    around it, as lines of half blocks of equal width."""
    import segno

    matrix = [[bool(m) for m in row] for row in segno.make(text, error="l", micro=False).matrix_iter(border=border)]
    if len(matrix) % 2:
        matrix.append([False] * len(matrix[0]))
    return [
        "".join(HALF_BLOCKS[(top, bottom)] for top, bottom in zip(upper, lower, strict=True))
        for upper, lower in zip(matrix[0::2], matrix[1::2], strict=True)
    ]


def ansi(lines: list[str]) -> str:
    """The lines black on white with ANSI escapes, for printing to a terminal."""
    return "\n".join(f"\x1b[30;47m{line}\x1b[0m" for line in lines)
