"""Players' names: what a name may be, how two names are compared, and how any text a person
typed is shown back in a sentence without its control characters reaching the terminal.

``Game.new`` checks the players with ``check_players``; the command language reads names with
``valid_name`` and compares words with ``name_key`` (``assistant.commands.text.fold``); every
front end escapes what it echoes with ``escaped`` (``assistant.commands.text.printable``).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from engine.errors import N_, BadSetup, Player
from engine.words import title

MIN_PLAYERS, MAX_PLAYERS = 3, 5
#: The longest player name, in characters.
MAX_NAME = 24

#: The characters never put raw on a terminal, by Unicode category: controls (ESC, BEL, C1),
#: format characters (the bidirectional overrides such as U+202E), surrogates, private use,
#: unassigned code points, and the line and paragraph separators.
UNSHOWN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def escaped(text: str, limit: int | None = None, *, spaces: bool = False) -> str:
    """``text`` safe to put in a sentence on a terminal: each character of
    ``UNSHOWN_CATEGORIES`` written as its Python escape (``\\x1b``, ``\\u202e``), cut to
    ``limit`` characters with ``...`` after it. With ``spaces``, the spaces other than ' ' (a
    no-break space, an ideographic space) are escaped too: a refused name shows why it is not
    one word; echoed input keeps them as the spaces they look like."""
    out = []
    for ch in text[:limit]:
        category = unicodedata.category(ch)
        if category in UNSHOWN_CATEGORIES or (spaces and category == "Zs" and ch != " "):
            out.append(ch.encode("unicode_escape").decode("ascii"))
        else:
            out.append(ch)
    cut = limit is not None and len(text) > limit
    return "".join(out) + ("..." if cut else "")


def name_key(name: str) -> str:
    """The form names are compared in: 'Zoë', 'ZOË' and 'zoë' are one player."""
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", name).casefold())


def valid_name(name: str) -> bool:
    """Letters and combining marks of any script, with single hyphens or apostrophes inside
    (Anne-Marie, O'Brien, प्रिया)."""
    if not name or not _is_letter(name[0]) or not _is_letter(name[-1]):
        return False
    previous_joiner = False
    for ch in name:
        joiner = ch in "-'"
        if not (joiner or _is_letter(ch)) or (joiner and previous_joiner):
            return False
        previous_joiner = joiner
    return True


def _is_letter(ch: str) -> bool:
    return unicodedata.category(ch)[0] in "LM"


def check_players(players: Sequence[str]) -> None:
    """Refuse (``BadSetup``) a table of players that cannot play: too few or too many, a name
    that is not one, too long, or the same name twice in any case or as shown."""
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise BadSetup(N_("Life is Life is played by 3 to 5 players; you named {n}."), n=len(players))
    seen: set[str] = set()
    for p in players:
        if not valid_name(p):
            raise BadSetup(N_("A player's name is one word of letters (a hyphen or an apostrophe "
                              "may join its parts); '{name}' is not."), name=escaped(p, spaces=True))
        if len(p) > MAX_NAME:
            raise BadSetup(N_("A player's name is at most {most} letters; {player} has {n}."),
                           most=MAX_NAME, player=Player(p), n=len(p))
        # Compared as typed and as shown: 'istanbul' and 'ıstanbul' (dotless i) are two names
        # typed, but both are shown 'Istanbul'.
        keys = {name_key(p), name_key(title(p))}
        if keys & seen:
            raise BadSetup(N_("Two players are called {player}: give each a different name."), player=Player(p))
        seen |= keys
