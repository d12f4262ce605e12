"""A declared hand refused for the deck limit says what it counted: the cards known to be in
the hands still to be declared count too, and the refusal names them (a usability test read
"9 bears in the rows and the declared hands" where only 7 were)."""

from __future__ import annotations

import pytest

from assistant.commands import parse
from engine.errors import BadCards
from engine.log import GameLog
from tests.engine.tables import assert_sentence

#: Alice took the giraffe of row 1, Bob the pig Alice put down, Carol the 2 bears of row 2 (no
#: bear left face up); Alice knocked and the hands are revealed.
REVEAL = [
    "new game alice bob carol", "alice starts",
    "row 1 giraffe", "row 2 bear bear", "row 3 mole mole mole", "row 4 goat goat goat goat",
    "alice swaps 1 pig", "bob swaps 1 cat", "carol swaps 2 dog dog",
    "alice knocks", "bob passes", "carol passes",
]


def refusal(lines: list[str], line: str) -> str:
    log = GameLog()
    players = None
    for setup in lines:
        action = parse(setup, players).to_action()
        log.apply(action)
        players = log.game.players if log.game else None
    assert log.game is not None
    with pytest.raises(BadCards) as refused:
        log.apply(parse(line, log.game.players).to_action())
    return refused.value.message


def test_refusal_names_the_known_cards_it_counted() -> None:
    # 2 declared by Alice + 5 in Bob's hand = 7 in the declared hands; Carol's 2 make 9
    message = refusal(REVEAL + ["alice has 1 giraffe 2 bear 6 sheep 1 mouse"],
                      "bob has 1 pig 2 mole 2 dog 5 bear")
    assert message == (
        "That makes 9 bears in the rows, the declared hands and the 2 bears known to be in "
        "Carol's hand, but the deck holds only 8."
    )
    assert_sentence(message)


def test_refusal_names_every_undeclared_holder() -> None:
    # Four players: Carol took 2 bears, Dave 1; Alice's 6 and their 3 known make 9
    lines = [
        "new game alice bob carol dave", "alice starts",
        "row 1 giraffe", "row 2 bear bear", "row 3 mole mole mole", "row 4 bear goat goat goat",
        "alice swaps 1 pig", "bob swaps 1 cat", "carol swaps 2 dog dog",
        "dave swaps 4 sheep sheep sheep sheep",
        "alice knocks", "bob passes", "carol passes", "dave passes",
    ]
    message = refusal(lines, "alice has 1 giraffe 6 bear 3 rabbit")
    assert message == (
        "That makes 9 bears in the rows, the declared hands and the 3 bears known to be in "
        "Carol's and Dave's hands, but the deck holds only 8."
    )
    assert_sentence(message)


def test_refusal_without_known_cards_keeps_its_words() -> None:
    # No bear is known to be in an undeclared hand but Carol's: Carol's own hand is the one counted
    message = refusal(REVEAL, "carol has 9 bear 1 cat")
    assert message == "That makes 9 bears in the rows and the declared hands, but the deck holds only 8."
