"""Text measured in terminal cells, not letters: a Hangul syllable (김) or a CJK character takes
two cells, a combining accent none. Every width the table computes (names cut alike, padding,
centring, what fits a line) goes through these, so a Korean name is neither cut early nor
pushes a column out of line (issue 39, item 6). Any string, any language.

Called by the table's widgets (``assistant.tui.widgets``, ``reveal``, ``screens``, ``bigtype``).
"""

from __future__ import annotations

from rich.cells import cell_len, get_character_cell_size

__all__ = ["cell_len", "centred", "cut", "is_wide", "padded", "spaced"]


def cut(text: str, width: int, end: str = "…") -> str:
    """``text`` in at most ``width`` cells: whole when it fits, else as many characters as fit
    with ``end`` after them (a wide character that would straddle the edge is left out)."""
    if cell_len(text) <= width:
        return text
    room = max(0, width - cell_len(end))
    out, used = [], 0
    for character in text:
        size = get_character_cell_size(character)
        if used + size > room:
            break
        out.append(character)
        used += size
    return "".join(out) + end if width >= cell_len(end) else "".join(out)


def padded(text: str, width: int) -> str:
    """``text`` followed by spaces to ``width`` cells (``f"{text:<8}"`` counts letters)."""
    return text + " " * max(0, width - cell_len(text))


def centred(text: str, width: int) -> str:
    """``text`` centred in ``width`` cells (cut if longer), as ``str.center`` does in letters."""
    text = cut(text, width)
    spare = width - cell_len(text)
    left = spare // 2 + (spare & width & 1)  # str.center's rounding
    return " " * left + text + " " * (spare - left)


def is_wide(text: str) -> bool:
    """Some character of ``text`` takes two cells (Hangul, CJK): such words are not spaced."""
    return cell_len(text) > len(text)


def spaced(word: str) -> str:
    """Large print's letter spacing (``A N N E``) for letters one cell wide; a word of wide
    characters (``김민준``) stays as written: spaced syllables read as separate words."""
    return word if is_wide(word) else " ".join(word)
