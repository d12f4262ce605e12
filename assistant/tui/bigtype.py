"""Big type for large print: letters and digits three lines high, drawn with the terminal's own
box-drawing characters (the style of Textual's ``Digits``, which has no letters), so whose turn
it is, the lives and a round's losers can be read from two metres.

``big(text)`` gives three ``rich.text.Text`` lines; ``big_width(text)`` the cells they take. A
letter the font lacks is drawn by its base letter (``Ö`` as ``O``); a character with none
(Hangul, CJK, other scripts) stays in normal type on the middle line, a run of them as one word
(``김민준'S TURN``: the name in bold normal type, the rest big), in the cells it takes there
(two for a Hangul syllable). ``in_font(text)`` says whether all of ``text`` is drawn big.
"""

from __future__ import annotations

import unicodedata

from rich.cells import cell_len
from rich.text import Text

#: Three rows a glyph, three cells a row; a blank cell between glyphs.
FONT: dict[str, tuple[str, str, str]] = {
    "A": ("┏━┓", "┣━┫", "╹ ╹"),
    "B": ("┳━┓", "┣━┫", "┻━┛"),
    "C": ("┏━╸", "┃  ", "┗━╸"),
    "D": ("┳━┓", "┃ ┃", "┻━┛"),
    "E": ("┏━╸", "┣━ ", "┗━╸"),
    "F": ("┏━╸", "┣━ ", "╹  "),
    "G": ("┏━╸", "┃╺┓", "┗━┛"),
    "H": ("╻ ╻", "┣━┫", "╹ ╹"),
    "I": ("╺┳╸", " ┃ ", "╺┻╸"),
    "J": ("  ╻", "  ┃", "┗━┛"),
    "K": ("╻┏╸", "┣┫ ", "╹┗╸"),
    "L": ("╻  ", "┃  ", "┗━╸"),
    "M": ("┏┳┓", "┃┃┃", "╹╹╹"),
    "N": ("┏┓╻", "┃┃┃", "╹┗┛"),
    "O": ("┏━┓", "┃ ┃", "┗━┛"),
    "P": ("┏━┓", "┣━┛", "╹  "),
    "Q": ("┏━┓", "┃ ┃", "┗━╋"),
    "R": ("┏━┓", "┣┳┛", "╹┗╸"),
    "S": ("┏━╸", "┗━┓", "╺━┛"),
    "T": ("╺┳╸", " ┃ ", " ╹ "),
    "U": ("╻ ╻", "┃ ┃", "┗━┛"),
    "V": ("╻ ╻", "┃ ┃", "┗┳┛"),
    "W": ("╻╻╻", "┃┃┃", "┗┻┛"),
    "X": ("╻ ╻", " ╋ ", "╹ ╹"),
    "Y": ("╻ ╻", "┗┳┛", " ╹ "),
    "Z": ("╺━┓", "┏━┛", "┗━╸"),
    "0": ("┏━┓", "┃ ┃", "┗━┛"),
    "1": ("╺┓ ", " ┃ ", "╺┻╸"),
    "2": ("╺━┓", "┏━┛", "┗━╸"),
    "3": ("╺━┓", " ━┫", "╺━┛"),
    "4": ("╻ ╻", "┗━┫", "  ╹"),
    "5": ("┏━╸", "┗━┓", "╺━┛"),
    "6": ("┏━╸", "┣━┓", "┗━┛"),
    "7": ("╺━┓", "  ┃", "  ╹"),
    "8": ("┏━┓", "┣━┫", "┗━┛"),
    "9": ("┏━┓", "┗━┫", "╺━┛"),
    " ": ("   ", "   ", "   "),
    "-": ("   ", "╺━╸", "   "),
    "+": ("   ", "╺╋╸", "   "),
    "'": (" ╻ ", "   ", "   "),
    "!": (" ╻ ", " ┃ ", " ╸ "),
    ":": ("   ", " ╸ ", " ╸ "),
    ".": ("   ", "   ", " ╸ "),
    "·": ("   ", " ╸ ", "   "),
    "?": ("╺━┓", " ┏┛", " ╸ "),
    "♥": ("┏┓┏", "┗╋┛", " ╹ "),
    "…": ("   ", "   ", "╸╸╸"),
    "/": ("  ╻", " ┏┛", "╺┛ "),
}


def glyph(character: str) -> tuple[str, str, str] | None:
    """``character``'s three rows in big type, or None when the font has no glyph for it."""
    upper = character.upper()
    if upper in FONT:
        return FONT[upper]
    base = unicodedata.normalize("NFKD", upper)[:1]  # Ö -> O, Ë -> E
    return FONT.get(base) if base.isascii() else None


def in_font(text: str) -> bool:
    """Every character of ``text`` has a glyph: the whole of it is drawn big."""
    return all(glyph(c) is not None for c in text)


#: Box-drawing pieces by the strokes leaving them: a glyph drawn twice as large (``scale`` 2)
#: carries a stroke through the cell added between two pieces it joins.
RIGHTWARDS = frozenset("┏┗┣┳┻╋━╺")
LEFTWARDS = frozenset("┓┛┫┳┻╋━╸")
DOWNWARDS = frozenset("┏┓┃╻┳┣┫╋")
UPWARDS = frozenset("┗┛┃╹┣┫┻╋")


def _larger(rows: tuple[str, ...]) -> tuple[str, ...]:
    """A glyph's three rows of three cells drawn five by five: a cell after each of the first
    two columns and a row after each of the first two rows, the strokes that join carried
    through them (``┏━┓`` over ``┣━┫`` becomes ``┏━━━┓``, ``┃   ┃``, ``┣━━━┫``)."""
    wide = ["".join(c + ("━" if c in RIGHTWARDS and after in LEFTWARDS else " ")
                    for c, after in zip(row[:2], row[1:], strict=True)) + row[2:] for row in rows]
    out: list[str] = []
    for row, below in zip(wide, [*wide[1:], ""], strict=True):
        out.append(row)
        if below:
            out.append("".join("┃" if c in DOWNWARDS and b in UPWARDS else " "
                               for c, b in zip(row, below, strict=True)))
    return tuple(out)


def _pieces(text: str, scale: int = 1) -> list[tuple[str, ...]]:
    """``text`` as the rows of each glyph (three, or five at ``scale`` 2), a run of characters
    without one as a single piece in normal type on the middle row (its cells measured, not
    its letters)."""
    pieces: list[tuple[str, ...]] = []
    run = ""
    upper = text.upper()  # ß -> SS
    for at, character in enumerate(upper):
        rows = glyph(character)
        if rows is None or (character == " " and run and _plain_next(upper, at + 1)):
            # a space between two runs in normal type is a normal space: the font's three
            # cells and the blank either side set Korean words five cells apart (정예준     차례)
            run += character
            continue
        if run:
            pieces.append(_plain_piece(run, scale))
            run = ""
        pieces.append(_larger(rows) if scale > 1 else rows)
    if run:
        pieces.append(_plain_piece(run, scale))
    return pieces


def _plain_next(text: str, start: int) -> bool:
    """The first character from ``start`` on that is not a space has no glyph."""
    rest = text[start:].lstrip(" ")
    return bool(rest) and glyph(rest[0]) is None


def _plain_piece(run: str, scale: int = 1) -> tuple[str, ...]:
    """A run in normal type on the middle one of the glyphs' rows, blank cells above and below."""
    around = (" " * cell_len(run),) * (rows_of(scale) // 2)
    return (*around, run, *around)


def big(text: str, style: str = "bold", scale: int = 1) -> list[Text]:
    """``text`` in big type: three lines (a blank cell between glyphs); five lines of glyphs
    five cells wide at ``scale`` 2 (large print on a large screen)."""
    pieces = _pieces(text, scale)
    return [Text(" ".join(p[row] for p in pieces), style=style) for row in range(rows_of(scale))]


def rows_of(scale: int = 1) -> int:
    """The lines big type takes at ``scale``."""
    return 5 if scale > 1 else 3


def big_width(text: str, scale: int = 1) -> int:
    """The cells ``text`` takes in big type."""
    pieces = _pieces(text, scale)
    middle = rows_of(scale) // 2
    return max(0, sum(cell_len(p[middle]) for p in pieces) + len(pieces) - 1)


def big_cut(text: str, width: int, scale: int = 1) -> str:
    """The longest start of ``text`` (at least its first character) that takes at most
    ``width`` cells in big type."""
    end = len(text)
    while end > 1 and big_width(text[:end], scale) > width:
        end -= 1
    return text[:end]
