"""The language a person reads and hears: one switch, gettext catalogs, English as the source.

Every sentence a person reads or hears is written in English in the code, wrapped in ``_`` (or
``ngettext`` / ``pgettext`` / ``npgettext`` where it counts or needs a context), and looked up
here in the table's language. The catalogs are gettext's standard ``.po`` files under
``assistant/locale/<lang>/LC_MESSAGES/lifeguard.po``, compiled to ``.mo`` by Babel (``make``
does it; ``python -m assistant.i18n --missing de`` lists what is not translated yet).

The language is one process-wide switch (``set_language``), set once from ``[table] language``
or ``--lang`` before anything is shown: a table speaks one language. What is stored stays
language-neutral (the canonical English commands), so a game reads back in whatever language
opens it. ``N_`` marks a message for extraction where the text is translated later (a constant
at module level): look it up with ``_`` when it is shown, never at import time.
"""

from __future__ import annotations

import gettext
import string
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from pathlib import Path

from assistant.i18n.particles import PAIRS, attach

#: The languages a table can be played in: code -> the language's own name.
LANGUAGES: dict[str, str] = {"en": "English", "de": "Deutsch", "ko": "한국어"}
#: The language of the code's own messages (the catalogs translate from it).
SOURCE_LANGUAGE = "en"
DOMAIN = "lifeguard"
LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"

_current = SOURCE_LANGUAGE
#: A language for the current thread (context) only: ``language(code)``.
_override: ContextVar[str | None] = ContextVar("lifeguard_language", default=None)


class LanguageUnavailable(ValueError):
    """A language that is not one of ``LANGUAGES``, or whose catalog is not compiled."""


def set_language(code: str) -> None:
    """Make ``code`` the language of everything shown and said from now on."""
    global _current
    translations(code)  # refuse an unknown or uncompiled language before switching
    _current = code


def current_language() -> str:
    """The language of what is shown and said now: the table's, unless this thread is inside
    ``language(code)``."""
    return _override.get() or _current


@contextmanager
def language(code: str) -> Iterator[None]:
    """Messages in ``code`` for this thread (context) only, the table's language untouched for
    the others: what the store keeps is written in English while the screen, drawn on another
    thread, goes on in the table's language."""
    translations(code)
    token = _override.set(code)
    try:
        yield
    finally:
        _override.reset(token)


@cache
def translations(code: str) -> gettext.NullTranslations:
    """The compiled catalog of ``code`` (English: the messages as written)."""
    if code not in LANGUAGES:
        known = ", ".join(f"{c} ({name})" for c, name in LANGUAGES.items())
        raise LanguageUnavailable(f"There is no language {code!r}: the languages are {known}.")
    if code == SOURCE_LANGUAGE:
        return gettext.NullTranslations()
    try:
        return gettext.translation(DOMAIN, LOCALE_DIR, languages=[code])
    except OSError as error:
        raise LanguageUnavailable(
            f"The {LANGUAGES[code]} messages are not compiled: run `make setup` "
            f"(it compiles {LOCALE_DIR / code / 'LC_MESSAGES' / (DOMAIN + '.po')})."
        ) from error


def _(message: str) -> str:
    """``message`` in the table's language."""
    return translations(current_language()).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of a counted message for ``n`` in the table's language (its plural rules)."""
    return translations(current_language()).ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """``message`` in the table's language, told apart from the same English by ``context``."""
    return translations(current_language()).pgettext(context, message)


def npgettext(context: str, singular: str, plural: str, n: int) -> str:
    return translations(current_language()).npgettext(context, singular, plural, n)


def N_(message: str) -> str:
    """Marks ``message`` for the catalogs without translating it (translate it when shown)."""
    return message



def animal_name(animal: str, n: int = 1) -> str:
    """An animal's name for ``n`` of them in the table's language (``bear``/``bears``,
    ``Bär``/``Bären``, ``곰``): ``animal`` is the engine's canonical English word."""
    return _animal_names(n)[animal]


def _animal_names(n: int) -> dict[str, str]:
    # Written out call by call so that the extractor finds each name with its plural.
    return {
        "giraffe": npgettext("animal", "giraffe", "giraffes", n),
        "bear": npgettext("animal", "bear", "bears", n),
        "mole": npgettext("animal", "mole", "moles", n),
        "goat": npgettext("animal", "goat", "goats", n),
        "sheep": npgettext("animal", "sheep", "sheep", n),
        "dog": npgettext("animal", "dog", "dogs", n),
        "rabbit": npgettext("animal", "rabbit", "rabbits", n),
        "pig": npgettext("animal", "pig", "pigs", n),
        "cat": npgettext("animal", "cat", "cats", n),
        "mouse": npgettext("animal", "mouse", "mice", n),
    }


class _Formatter(string.Formatter):
    """``str.format`` that also reads a Korean particle pair as a field's spec (``{p:이/가}``)."""

    def format_field(self, value: object, format_spec: str) -> str:
        if format_spec in PAIRS:
            return attach(str(value), format_spec)
        return str(super().format_field(value, format_spec))


_FORMATTER = _Formatter()


def format(template: str, /, **fields: object) -> str:  # noqa: A001 - read as i18n.format
    """``template.format(**fields)`` where ``template`` is a translated message: a Korean
    translation may attach particles to a field (``{player:이/가} 노크했습니다``)."""
    return _FORMATTER.format(template, **fields)
