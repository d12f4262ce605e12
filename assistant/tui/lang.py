"""The full-screen table in its language: the footer's keys, F1's rules and the house rules.

Textual's bindings are class data, written once in English (marked with ``N_``): the screens
that mix in ``TranslatedKeys`` hand the footer each binding with its description looked up in
the table's language, as it is drawn, so a language chosen on the setup screen shows at once.
F1's rules are a Markdown file a language (``how_to_play.md``, ``how_to_play.de.md``, ...); the
house rules in it are the engine's sentences (``HouseRules.describe``, which stays English as the
engine's texts do), each marked here for the catalogs and translated where shown.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from textual.binding import ActiveBinding
from textual.screen import Screen

from assistant.i18n import LANGUAGES, N_, SOURCE_LANGUAGE, _, animal_name, current_language, format
from engine.deck import ANIMALS, COPIES
from engine.rules import HouseRules

RULES_DIR = Path(__file__).resolve().parent

#: Textual's own key in the footer (the command palette's), for the catalogs.
TEXTUAL_WORDS = (N_("palette"),)

#: Every sentence ``HouseRules.describe`` can say, marked for the catalogs (a test checks that
#: every choice's sentence is here, so none is left in English).
HOUSE_RULE_SENTENCES = (
    N_("Tied highest totals lose no life."),
    N_("Tied lowest totals lose 2 lives each."),
    N_("Tied lowest totals lose 1 life each."),
    N_("If every total is the same, nobody loses a life."),
    N_("If every total is the same, everyone loses 1 life."),
    N_("If everyone left goes out together, most points that round wins."),
    N_("If everyone left goes out together, they share the win."),
    N_("If everyone left goes out together, most lives before that round wins."),
    N_("The next round starts with the next player clockwise."),
    N_("The next round starts with the player who lost most lives."),
    N_("You may knock only after your first swap."),
    N_("You may knock before swapping."),
    N_("With two players left, a majority needs two cards."),
    N_("With two players left, one card can be a majority."),
    N_("A swap takes the row first, then puts down: a card just taken may go straight back."),
    N_("A swap puts down first, then takes the row."),
)


class TranslatedKeys(Screen[Any]):
    """A screen whose footer says its keys in the table's language (the descriptions are
    looked up as the footer is drawn; ``refresh_bindings`` redraws it after a change)."""

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        return {key: active._replace(binding=replace(active.binding, description=_(active.binding.description)))
                if active.binding.description else active
                for key, active in super().active_bindings.items()}


def house_rules_said(rules: HouseRules) -> list[str]:
    """The house rules as sentences (``HouseRules.describe``) in the table's language."""
    return [_(sentence) for sentence in rules.describe()]


def rules_path(code: str | None = None) -> Path:
    """F1's rules in ``code`` (the table's language by default): ``how_to_play.<code>.md``,
    English's without the code."""
    code = code or current_language()
    return RULES_DIR / ("how_to_play.md" if code == SOURCE_LANGUAGE else f"how_to_play.{code}.md")


def rules_markdown(rules: HouseRules, players: tuple[str, ...] = ()) -> str:
    """``how_to_play.md`` in the table's language with the deck, an example name from the table
    and the house rules this game is played with."""
    try:
        markdown = rules_path().read_text(encoding="utf-8")
    except OSError:
        return _("# Rules") + "\n\n" + _("The rules file is missing from this installation.")
    deck = "\n".join(
        "- " + format(_("{animal}: {n} cards, {n} points"), animal=animal_name(a.value), n=COPIES[a])
        for a in ANIMALS)
    house = "\n".join(f"- {line}" for line in house_rules_said(rules))
    return markdown.format(deck=deck, house_rules=house, p=players[0] if players else "ann")


def language_options() -> list[tuple[str, str]]:
    """The setup screen's choice of language: each in its own name (``Deutsch``, ``한국어``)."""
    return [(name, code) for code, name in LANGUAGES.items()]
