"""Every word the phone page shows, in the table's language: one catalog for the page and its script.

The server (``assistant.web.server``) fills the page's own words into ``page/index.html``
(``{{key}}``: escaped) and puts ``page_messages()`` into it as a JSON data block that
``page/table.js`` reads for everything it draws (headlines, marks, the round's result, the score
sheet, the connection's state). The words are written here in English with ``_``, so the catalogs
(``assistant/locale``) and the test that fails on a missing translation cover the page like every
other front end; ``table.js`` holds no sentence of its own.

A counted message is sent as its two forms, ``{"one": ..., "other": ...}`` (``ngettext`` for 1 and
for 2): English, German and Korean each tell only 1 apart from every other number. A message's
fields are ``{name}``; a Korean translation may attach a particle with ``{name:이/가}``, which the
script attaches as ``assistant.i18n.particles`` does. Animals are named by ``animal_name``.
What the state carries (names, canonical commands, animals) stays language-neutral.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from typing import Any

from assistant.i18n import (
    SOURCE_LANGUAGE,
    _,
    animal_name,
    current_language,
    ngettext,
    pgettext,
)
from engine.deck import ANIMALS

#: A message for the page: its text, or its forms for one and for more.
Message = str | dict[str, str]


def counted(form: Callable[[int], str]) -> dict[str, str]:
    """A counted message's forms for 1 and for any other number: ``form`` is the ``ngettext``
    call (written out where it is used, so that the extractor finds the message)."""
    return {"one": form(1), "other": form(2)}


def page_messages() -> dict[str, Any]:
    """The page's words in the table's language (``table.js``'s ``T``), keyed by what they say."""
    return {
        "lang": current_language(),
        # The commands in the state are the canonical English ones: a table playing in another
        # language types its own, so the page shows them only where they are the table's words.
        "show_commands": current_language() == SOURCE_LANGUAGE,
        "animals": {a.value: {"one": animal_name(a.value, 1), "other": animal_name(a.value, 2)}
                    for a in ANIMALS},
        **static_messages(),
        **header_messages(),
        **player_messages(),
        **result_messages(),
        **sheet_messages(),
        **link_messages(),
    }


def static_messages() -> dict[str, Message]:
    """The words written in ``index.html`` itself (filled in by the server)."""
    return {
        "title": _("Lifeguard: the table"),
        "connecting_title": _("Connecting to the table…"),
        "places_title": _("Final places"),
        "result_title": _("Round result"),
        "players_title": _("Players"),
        "rows_title": _("The four rows"),
        "said_title": _("Last announcements"),
        "sheet_title": _("Score sheet"),
        "needs_script": _("This page needs JavaScript to follow the game."),
        "read_only": _("read only"),
    }


def header_messages() -> dict[str, Message]:
    """The top of the page: the round and its phase, whose turn it is, the game's number."""
    return {
        "phase_rows": _("entering the rows"),
        "phase_turns": pgettext("phase", "turns"),
        "phase_final_turns": _("final turns"),
        "phase_reveal": pgettext("phase", "reveal"),
        "phase_game_over": pgettext("phase", "game over"),
        "round_phase": _("Round {round} · {phase}"),
        "no_game": _("No game yet"),
        "lay_out": _("Lay out the rows"),
        "turn": _("{player}’s turn"),
        "who_starts": _("Who starts?"),
        "last_turn": _("{player}’s last turn"),
        "show_hands": _("Show your hands"),
        "wins": counted(lambda n: ngettext("{names} wins!", "{names} win!", n)),
        "game_over_after": counted(lambda n: ngettext("Game over after {n} round.", "Game over after {n} rounds.", n)),
        "waiting_starter": _("Waiting for the start player."),
        "game": _("Game {id}"),
        "and": _("{others} and {last}"),
        "list_separator": pgettext("list", ", "),
        "nothing_yet": _("Nothing yet."),
        "taken_back": _("Taken back: {command}."),
        "taken_back_plain": _("A command was taken back."),
    }


def player_messages() -> dict[str, Message]:
    """The players' cards (lives, marks) and the rows of cards."""
    return {
        "lives": counted(lambda n: ngettext("{n} life", "{n} lives", n)),
        "mark_winner": pgettext("mark", "winner"),
        "mark_out": pgettext("mark", "out"),
        "mark_turn": pgettext("mark", "turn"),
        "mark_starts": pgettext("mark", "starts"),
        "mark_knocked": pgettext("mark", "knocked"),
        "mark_done": pgettext("mark", "done"),
        "mark_shown": pgettext("mark", "shown"),
        "done_heard": _("has had their last turn"),
        "place_1": pgettext("place", "1st"),
        "place_2": pgettext("place", "2nd"),
        "place_3": pgettext("place", "3rd"),
        "place_n": pgettext("place", "{n}th"),
        "not_entered": _("not entered yet"),
        "card_points": counted(lambda n: ngettext("{n} point", "{n} points", n)),
        "row_aria": _("Row {n}"),
        "row_word": pgettext("row label", "row"),
    }


def result_messages() -> dict[str, Message]:
    """The round just ended, a line a player."""
    return {
        "result_round": _("Round {round} result"),
        "sudden_note": _("Sudden death: {player} has all {animals}."),
        "is_out": _("is out"),
        "loses": counted(lambda n: ngettext("loses {n} life", "loses {n} lives", n)),
        "loses_none": _("loses no life"),
        "points": counted(lambda n: ngettext("{n} point", "{n} points", n)),
        "lost_lives": counted(lambda n: ngettext("lost {n} life", "lost {n} lives", n)),
        "lives_left": counted(lambda n: ngettext("{n} life left", "{n} lives left", n)),
    }


def sheet_messages() -> dict[str, Message]:
    """The score sheet: a line a round, a column a player, the places under it."""
    return {
        "sheet_round": pgettext("sheet", "Round"),
        "sheet_place": pgettext("sheet", "Place"),
        "sheet_empty": _("No round has ended yet."),
        "not_in_round": _("not in this round"),
        "pts": _("{n} pts"),
        "lost_none": _("lost no life"),
        "left": _("{n} left"),
        "sheet_out": pgettext("sheet", "out"),
        "sheet_sudden": _("sudden death: {player}, all {animals}"),
        "more_left": _("← {n} more"),
        "more_right": counted(lambda n: ngettext("{n} more player →", "{n} more players →", n)),
    }


def link_messages() -> dict[str, Message]:
    """The connection to the table, at the bottom and, when lost, at the top."""
    return {
        "link_connecting": pgettext("link", "connecting"),
        "link_live": pgettext("link", "live"),
        "link_reconnecting": pgettext("link", "reconnecting…"),
        "link_gone": pgettext("link", "link gone"),
        "not_live": _("not live"),
        "gone": _("This link no longer works: the server was restarted. Scan the new code at "
                  "the table."),
        "lost": _("Connection lost, trying again. This may be out of date."),
    }


_FIELD = re.compile(r"\{\{(\w+)\}\}")


def fill_page(template: str) -> str:
    """``index.html`` with its ``{{key}}`` words in the table's language (escaped for HTML)."""
    words = static_messages() | link_messages()

    def word(match: re.Match[str]) -> str:
        text = words[match.group(1)]
        assert isinstance(text, str), match.group(1)
        return html.escape(text)

    return _FIELD.sub(word, template).replace("{lang}", current_language())


def escape(text: str) -> str:
    """Text for an element's content (quotes kept as they are: no attribute holds it)."""
    return html.escape(text, quote=False)


def no_link_page() -> str:
    """What every address without the link's token answers: how to get the right link (nothing
    about the game, the token or the server), in the table's language."""
    title = escape(_("Scan the code at the table"))
    first = escape(_("This address only works with the link the table shows: scan the QR "
                          "code on the table's screen with your phone's camera, or open the "
                          "link printed beside it."))
    second = escape(_("A link stops working when the table stops serving; then scan the "
                           "new code."))
    head = escape(_("Lifeguard: scan the code at the table"))
    return (
        f'<!doctype html>\n<html lang="{current_language()}">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{head}</title>\n</head>\n<body>\n"
        f"<h1>{title}</h1>\n<p>{first}</p>\n<p>{second}</p>\n</body>\n</html>\n"
    )
