"""How any text a person gives Lifeguard is read: the one place that normalises it.

Every input path goes through ``normalize`` before anything else looks at the text: the parser
(typed lines, lines of command files and stored commands), the referee, the setup screen's name
fields. ``fold`` is how two words are compared (names are matched casefolded, shown as typed).

The choice: NFC for the text as a whole (an NFD ``Zoë`` becomes the NFC one, so a name typed
in two ways is one name), and NFKC for numbers and full-width forms only, character by character:
superscript ``³``, circled ``③`` and full-width ``３`` become the digits they show, and every
decimal digit of any script (``٣``, ``३``) is written as its ASCII digit. So every number reaches
the parser as ASCII digits that ``int`` reads, and nothing else is a number. NFKC is not applied
to the whole text because it breaks names apart: it writes the Catalan ``Ŀ`` as ``L·``, and
``ﬁ`` as two letters where the person typed one.
Typographic apostrophes become ``'`` so that ``O’Brien`` and ``O'Brien`` are one name.
"""

from __future__ import annotations

import unicodedata

from engine.names import escaped, name_key

#: The longest line read as a command; longer ones are refused before any parsing (a 10 MB
#: line once kept the parser busy for minutes).
MAX_LINE = 1000

_APOSTROPHES = str.maketrans({"\u2019": "'", "\u02bc": "'", "\u2018": "'", "\uff07": "'"})


def normalize(text: str) -> str:
    """The text as Lifeguard reads it: NFC, numbers in ASCII digits, one kind of apostrophe."""
    if text.isascii():
        return text
    text = "".join(_plain(ch) for ch in unicodedata.normalize("NFC", text))
    return text.translate(_APOSTROPHES)


def _plain(ch: str) -> str:
    if "\uff01" <= ch <= "\uff5e" or unicodedata.category(ch)[0] == "N":
        ch = unicodedata.normalize("NFKC", ch)
        return "".join(str(unicodedata.decimal(c)) if c.isdecimal() else c for c in ch)
    return ch


def fold(word: str) -> str:
    """The form two words are compared in: normalised, then casefolded (``Zoë`` = ``ZOË``)."""
    return name_key(normalize(word))


def printable(text: str, limit: int = 80) -> str:
    """``text`` safe to show on a terminal: control characters (ESC, BEL, C1, ...) escaped,
    cut to ``limit`` characters. For echoing what a person typed back in a sentence. The
    engine's ``escaped`` is the one implementation (its refusals escape names with it too)."""
    return escaped(text, limit)
