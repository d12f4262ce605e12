"""The engine's refusals in the table's language.

A ``RuleError`` carries its sentence as an English template with typed fields
(``engine.errors.Phrase``); ``refusal(error)`` looks the template up in the table's catalog and
fills in the fields as that language says them: cards through ``i18n.words.describe``, counted
animals through ``counted``, names through ``title`` and ``names``, animals through
``animal_name``. In English it is ``str(error)``, exactly the engine's sentence. Every front end
that shows or says a refusal asks this (the referee's replies, the table, the phone page, voice).
"""

from __future__ import annotations

from collections.abc import Callable

from assistant.i18n import SOURCE_LANGUAGE, _, animal_name, current_language, format, pgettext
from assistant.i18n.words import counted, describe, listed, names
from engine.deck import Cards
from engine.errors import AnimalWord, Commands, Counted, Phrase, Player, Players, RowList, RuleError
from engine.words import title

#: Writes an offered canonical command ('bob swaps') as the table types it: the command
#: language sits above this module, so its callers pass ``assistant.commands.render.offered``.
Offered = Callable[[str], str]


def _as_is(command: str) -> str:
    return command


def refusal(error: RuleError, offered: Offered = _as_is) -> str:
    """``error``'s sentence in the table's language (the commands it offers written by ``offered``)."""
    if current_language() == SOURCE_LANGUAGE:
        return error.message
    return said(error.phrase, offered)


def said(phrase: Phrase, offered: Offered = _as_is) -> str:
    """``phrase`` (a refusal or a part of one) in the table's language."""
    if not phrase.fields:
        return _(phrase.template)
    return format(_(phrase.template), **{name: _field(value, offered) for name, value in phrase.fields.items()})


def _field(value: object, offered: Offered) -> object:
    """A refusal's field as the table's language says it (numbers and plain text as they are)."""
    match value:
        case Phrase():
            return said(value, offered)
        case Cards():
            return describe(value)
        case Player():
            return title(value.name)
        case Players():
            return names(value.names)
        case Counted():
            text = counted(value.animal, value.n)
            return text[:1].upper() + text[1:] if value.capital else text
        case AnimalWord():
            return animal_name(value.animal.value, value.n)
        case RowList():
            return listed([format(_("row {k}"), k=k) for k in value.rows])
        case Commands():
            # Translators: offers commands as alternatives ("'bob swaps' or 'bob knocks'").
            return pgettext("alternatives", " or ").join(f"'{offered(command)}'" for command in value.commands)
    return value
