"""The animals' card colours: one table for every screen that draws a card.

The Textual table (``assistant/tui/widgets.py``) and the web page of ``lifeguard serve``
(``assistant/web``, which turns it into the page's style sheet) both read it, so a card looks the
same on the laptop and on a phone. Colour never carries meaning alone: every card also shows its
animal's name and points.
"""

from __future__ import annotations

from engine.deck import Animal

#: Each animal's card colour (background, text). Chosen to be told apart at a glance; the
#: name and the points are always printed on the card as well. Every text colour has at least
#: 4.5:1 contrast on its card (WCAG 2.2 AA for text of any size; tests/web/test_a11y.py
#: checks it): white on the goat's green (3.72:1) and the mouse's blue-grey (4.27:1) did not,
#: black does (5.65:1 and 4.92:1).
ANIMAL_COLOURS: dict[Animal, tuple[str, str]] = {
    Animal.GIRAFFE: ("#e0b020", "#000000"),
    Animal.BEAR: ("#7b4a24", "#ffffff"),
    Animal.MOLE: ("#3d3d5c", "#ffffff"),
    Animal.GOAT: ("#6f8f2f", "#000000"),
    Animal.SHEEP: ("#e6e6dc", "#000000"),
    Animal.DOG: ("#d2691e", "#000000"),
    Animal.RABBIT: ("#c9a77c", "#000000"),
    Animal.PIG: ("#f2a0b5", "#000000"),
    Animal.CAT: ("#7e57c2", "#ffffff"),
    Animal.MOUSE: ("#5f7f8f", "#000000"),
}
