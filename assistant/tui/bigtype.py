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


def _pieces(text: str) -> list[tuple[str, str, str]]:
    """``text`` as the three rows of each glyph, a run of characters without one as a single
    piece in normal type on the middle row (its cells measured, not its letters)."""
    pieces: list[tuple[str, str, str]] = []
    run = ""
    for character in text.upper():  # ß -> SS
        rows = glyph(character)
        if rows is None:
            run += character
            continue
        if run:
            pieces.append(_plain_piece(run))
            run = ""
        pieces.append(rows)
    if run:
        pieces.append(_plain_piece(run))
    return pieces


def _plain_piece(run: str) -> tuple[str, str, str]:
    blank = " " * cell_len(run)
    return (blank, run, blank)


def big(text: str, style: str = "bold") -> list[Text]:
    """``text`` in big type: three lines (a blank cell between glyphs)."""
    pieces = _pieces(text)
    return [Text(" ".join(p[row] for p in pieces), style=style) for row in range(3)]


def big_width(text: str) -> int:
    """The cells ``text`` takes in big type."""
    pieces = _pieces(text)
    return max(0, sum(cell_len(p[1]) for p in pieces) + len(pieces) - 1)


def big_cut(text: str, width: int) -> str:
    """The longest start of ``text`` (at least its first character) that takes at most
    ``width`` cells in big type."""
    end = len(text)
    while end > 1 and big_width(text[:end]) > width:
        end -= 1
    return text[:end]
