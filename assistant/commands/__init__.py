"""The command language: its intents (``intents``), grammar as data (``grammar``), the parser and
canonical forms."""

from assistant.commands.intents import Intent, IntentName
from assistant.commands.parser import (
    Command,
    ParseError,
    canonical,
    command_for,
    name_problem,
    new_game_command,
    parse,
)

__all__ = ["Command", "Intent", "IntentName", "ParseError", "canonical", "command_for", "name_problem",
           "new_game_command", "parse"]
