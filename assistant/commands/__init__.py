"""The command language: grammar as data (``grammar``), the parser and canonical forms."""

from assistant.commands.parser import (
    Command,
    ParseError,
    canonical,
    command_for,
    name_problem,
    new_game_command,
    parse,
)

__all__ = ["Command", "ParseError", "canonical", "command_for", "name_problem", "new_game_command", "parse"]
