"""The deck table and the ``Cards`` multiset the whole engine counts with."""

from __future__ import annotations

from collections import Counter

from engine.deck import ANIMALS, COPIES, DECK_SIZE, Animal, Cards


def test_the_deck_of_rules_md() -> None:
    assert DECK_SIZE == 60
    assert [(a.value, COPIES[a]) for a in ANIMALS] == [
        ("giraffe", 9), ("bear", 8), ("mole", 7), ("goat", 7), ("sheep", 6),
        ("dog", 6), ("rabbit", 5), ("pig", 5), ("cat", 4), ("mouse", 3),
    ]
    assert all(a.points == a.copies == COPIES[a] for a in ANIMALS)


def test_cards_are_a_multiset_in_deck_order() -> None:
    hand = Cards.of("mouse", "pig", "giraffe", "pig")
    assert list(hand) == [Animal.GIRAFFE, Animal.PIG, Animal.PIG, Animal.MOUSE]
    assert hand == Cards({Animal.PIG: 2, Animal.MOUSE: 1, Animal.GIRAFFE: 1})
    assert hand == Cards(Counter({Animal.PIG: 2, Animal.MOUSE: 1, Animal.GIRAFFE: 1, Animal.CAT: 0}))
    assert hash(hand) == hash(Cards.of("pig", "giraffe", "mouse", "pig"))
    assert len(hand) == 4 and hand and not Cards()
    assert repr(hand) == "Cards(giraffe pig pig mouse)"


def test_cards_arithmetic() -> None:
    a, b = Cards.of("pig", "pig", "cat"), Cards.of("pig", "dog")
    assert a + b == Cards.of("dog", "pig", "pig", "pig", "cat")
    assert a - b == Cards.of("pig", "cat")
    assert b - a == Cards.of("dog")
    assert a - a == Cards() and not (a - a)
    assert a & b == Cards.of("pig")
    assert (a + b).contains(a) and not a.contains(b)
    assert a.missing_from(b) == Cards.of("dog")
    # the operands never change
    assert a == Cards.of("pig", "pig", "cat") and b == Cards.of("pig", "dog")
