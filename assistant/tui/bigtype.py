"""Big type for large print: letters and digits three lines high, drawn with the terminal's own
box-drawing characters (the style of Textual's ``Digits``, which has no letters), so whose turn
it is, the lives and a round's losers can be read from two metres.

``big(text)`` gives three ``rich.text.Text`` lines; ``big_width(text)`` the cells they take. A
letter the font lacks is drawn by its base letter (``Ö`` as ``O``), else as ``?``.
"""

from __future__ import annotations

import unicodedata

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


def glyph(character: str) -> tuple[str, str, str]:
    upper = character.upper()
    if upper in FONT:
        return FONT[upper]
    base = unicodedata.normalize("NFKD", upper)[:1]  # Ö -> O, Ë -> E
    return FONT.get(base, FONT["?"])


def big(text: str, style: str = "bold") -> list[Text]:
    """``text`` in big type: three lines (a blank cell between glyphs)."""
    glyphs = [glyph(c) for c in text]
    return [Text(" ".join(g[row] for g in glyphs), style=style) for row in range(3)]


def big_width(text: str) -> int:
    """The cells ``text`` takes in big type."""
    return max(0, 4 * len(text) - 1)
