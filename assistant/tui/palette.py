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
from textual.command import CommandPalette
from textual.theme import ThemeProvider

from assistant.i18n import N_, _, format
from assistant.tui.screens import TableScreen

if TYPE_CHECKING:  # the app imports this module
    from assistant.tui.app import LifeguardApp


def table_commands(app: LifeguardApp) -> Iterator[SystemCommand]:
    """The referee's commands and the table's keys, by name, each with a line of help."""
    actions: dict[str, tuple[str, Callable[[], object]]] = {
        _("Undo"): (_("Take back the last command"), app.action_undo),
        _("Redo"): (_("Apply the undone command again"), app.action_redo),
        _("Repeat"): (_("Say the last announcement again"), app.action_repeat),
        _("Status"): (_("Where the game stands"), partial(app.submit, "status")),
        _("Score sheet"): (_("Points and lives round by round"), app.action_score_sheet),
        _("Known cards"): (_("Show or hide the cards known to be in each hand"), app.action_toggle_known),
        _("Large print"): (_("Bigger rows, cards, hearts and turn, to read from afar"),
                           app.action_large_print),
        _("Talk"): (_("Push to talk: say one command"), app.action_push_to_talk),
        _("Mute"): (_("Mute or unmute the spoken announcements"), app.action_mute),
        _("Rules"): (_("The rules of Life is Life"), app.action_rules),
        _("Keys and commands"): (_("The keys and the command language"), app.action_help),
        _("New game"): (_("Players, house rules and voice"), app.open_setup),
        _("Phones"): (_("Serve the table to phones: a read-only page, its link as a QR code"),
                      app.action_serve),
    }
    for name, (help_text, callback) in actions.items():
        yield SystemCommand(name, help_text, callback)


#: Textual's own entries that the palette keeps, for the catalogs.
TEXTUAL_ENTRIES = (N_("Theme"), N_("Change the current theme"), N_("Quit"),
                   N_("Quit the application as soon as possible"))


def searching_commands() -> CommandPalette:
    """The palette (Ctrl+P), its search box in the table's language (Textual's says "Search for
    commands…" at every table)."""
    return CommandPalette(id="--command-palette", placeholder=_("Search for commands…"))


def searching_themes() -> CommandPalette:
    """Textual's theme picker (the palette's Theme), its search box in the table's language."""
    return CommandPalette(providers=[ThemeProvider], placeholder=_("Search for colour themes…"))


def translated(command: SystemCommand) -> SystemCommand:
    """One of Textual's own entries (``TEXTUAL_ENTRIES``) in the table's language."""
    return SystemCommand(_(command.title), _(command.help), command.callback, command.discover)


def typing_commands(app: LifeguardApp, starts: dict[str, tuple[str, str]]) -> Iterator[SystemCommand]:
    """'Type: ...' for each of ``starts`` (intent -> the command's start, what to add after it),
    found by typing only (not listed when the palette opens)."""
    for text, help_text in starts.values():
        yield SystemCommand(format(_("Type: {command}"), command=text), help_text,  # not "(new_game)"
                            partial(prefill, app, text),
                            discover=False)


def prefill(app: LifeguardApp, text: str) -> None:
    """Back to the table, ``text`` on its command line to be finished."""
    while not isinstance(app.screen, TableScreen):
        app.pop_screen()
    app.table.prefill(text)
