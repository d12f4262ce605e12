"""The command palette's entries (Ctrl+P): the referee's commands and the table's keys, then
'Type: ...' entries that put the start of a command on the command line.

``LifeguardApp.get_system_commands`` asks these two generators (between them Textual's own
theme and quit); they live here so the app only composes. What each entry does is an action the
app already has (its key's action), so the palette and the keys never drift apart.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from typing import TYPE_CHECKING

from textual.app import SystemCommand

from assistant.tui.screens import TableScreen

if TYPE_CHECKING:  # the app imports this module
    from assistant.tui.app import LifeguardApp


def table_commands(app: LifeguardApp) -> Iterator[SystemCommand]:
    """The referee's commands and the table's keys, by name, each with a line of help."""
    actions: dict[str, tuple[str, Callable[[], object]]] = {
        "Undo": ("Take back the last command", app.action_undo),
        "Redo": ("Apply the undone command again", app.action_redo),
        "Repeat": ("Say the last announcement again", app.action_repeat),
        "Status": ("Where the game stands", partial(app.submit, "status")),
        "Score sheet": ("Points and lives round by round", app.action_score_sheet),
        "Known cards": ("Show or hide the cards known to be in each hand", app.action_toggle_known),
        "Large print": ("Bigger rows, cards, hearts and turn, to read from afar",
                        app.action_large_print),
        "Talk": ("Push to talk: say one command", app.action_push_to_talk),
        "Mute": ("Mute or unmute the spoken announcements", app.action_mute),
        "Rules": ("The rules of Life is Life", app.action_rules),
        "Keys and commands": ("The keys and the command language", app.action_help),
        "New game": ("Players, house rules and voice", app.open_setup),
        "Phones": ("Serve the table to phones: a read-only page, its link as a QR code",
                   app.action_serve),
    }
    for name, (help_text, callback) in actions.items():
        yield SystemCommand(name, help_text, callback)


def typing_commands(app: LifeguardApp, starts: dict[str, tuple[str, str]]) -> Iterator[SystemCommand]:
    """'Type: ...' for each of ``starts`` (intent -> the command's start, what to add after it),
    found by typing only (not listed when the palette opens)."""
    for intent, (text, help_text) in starts.items():
        yield SystemCommand(f"Type: {text}", f"{help_text} ({intent})", partial(prefill, app, text),
                            discover=False)


def prefill(app: LifeguardApp, text: str) -> None:
    """Back to the table, ``text`` on its command line to be finished."""
    while not isinstance(app.screen, TableScreen):
        app.pop_screen()
    app.table.prefill(text)
