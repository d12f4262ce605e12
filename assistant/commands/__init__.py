"""The command language: its intents (``intents``), grammar as data (``grammar``; German and
Korean in ``language``'s records), the parser, canonical forms and the renderer (``render``)."""

from assistant.commands.intents import Intent, IntentName
from assistant.commands.language import LANGUAGE_BY_CODE, Language, languages
from assistant.commands.parser import (
    Command,
    ParseError,
    canonical,
    command_for,
    name_problem,
    names_to_come,
    new_game_command,
    parse,
)
from assistant.commands.render import say

__all__ = ["LANGUAGE_BY_CODE", "Command", "Intent", "IntentName", "Language", "ParseError", "canonical",
           "command_for", "languages", "name_problem", "names_to_come",
           "new_game_command", "parse", "say"]
