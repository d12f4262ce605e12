"""Finishing places (standard competition ranking) and the order of a swap: the rules' order
(put down, then take the row) and the house rule ``take_first`` (take the row, then put down),
with the cards known to be in hand worked out to match (RULES.md: What the referee can know)."""

from __future__ import annotations

import pytest

from assistant import announce
from engine.actions import DeclareHand, Knock, Pass, Swap
from engine.errors import BadCards, BadHand
from engine.events import Knocked, Swapped
from engine.game import Game, Phase, known_after_swap, places
from engine.rules import HouseRules
from tests.engine.tables import (
    BASIC,
    FOUR,
    QUICK,
    TWO_ALIVE_BOB_LOSES,
    cards,
    new_game,
    play_round,
    public,
    set_rows,
)

TAKE_FIRST = HouseRules(take_first=True)


# --------------------------------------------------------------------------- places
def _out_in(game: Game, rounds: list[dict[str, str]]) -> None:
    for hands in rounds:
        play_round(game, {p: hands[p] for p in game.alive})


def test_places_share_a_round_and_skip_the_next_place() -> None:
    """Four players; bob and dave go out in the same round: 1, 2, 3, 3 (then 1, 2, 2, 4)."""
    game = new_game(FOUR, QUICK)
    # dave loses 2 each round (lowest); alice and bob lose 1; carol 0.
    hands = {
        "alice": "4 giraffe 6 sheep",
        "bob": "5 bear 5 pig",
        "carol": "4 mole 4 dog 2 cat",
        "dave": "2 dog 1 cat 3 mouse 4 rabbit",
    }
    _out_in(game, [hands] * 3)  # dave: 5 -> 3 -> 1 -> out in round 3
    assert game.out_order == ["dave"]
    assert places(game) == [("dave", 4)]  # everyone still in finishes ahead of him
    assert "places" in public(game) and public(game)["places"] == []  # not over yet


def test_places_winner_first_then_by_round_out_later_is_better() -> None:
    game = new_game(rules=QUICK)
    # carol highest (0), alice middle (-1), bob lowest (-2): bob out in round 3, then alice...
    for _ in range(3):
        play_round(game, BASIC)
    assert game.lives == {"alice": 2, "bob": 0, "carol": 5}
    assert places(game) == [("bob", 3)]
    while not game.is_over:
        play_round(game, {"alice": TWO_ALIVE_BOB_LOSES["bob"], "carol": TWO_ALIVE_BOB_LOSES["alice"]})
    assert game.winners == ("carol",)
    assert places(game) == [("carol", 1), ("alice", 2), ("bob", 3)]
    assert public(game)["places"] == [
        {"name": "carol", "place": 1}, {"name": "alice", "place": 2}, {"name": "bob", "place": 3},
    ]


def test_places_two_out_together_share_second() -> None:
    game = new_game(rules=QUICK)
    # alice and bob tie for the lowest total each round and lose 2 each; carol is highest.
    tied_low = {"alice": "5 pig 5 rabbit", "bob": "4 dog 4 cat 2 giraffe", "carol": "4 giraffe 6 sheep"}
    for _ in range(3):
        play_round(game, tied_low)
    assert game.is_over and game.winners == ("carol",)
    assert places(game) == [("carol", 1), ("alice", 2), ("bob", 2)]


# --------------------------------------------------------------------------- swap order
def test_known_after_swap_in_both_orders() -> None:
    known, taken, put = cards("pig"), cards("bear pig"), cards("pig mouse")
    # Rules' order: her known pig goes down first; the row's bear and pig come in.
    assert known_after_swap(known, taken, put, take_first=False) == cards("bear pig")
    # Take first: bear, pig, pig in hand, then pig and mouse go down: bear and pig remain.
    assert known_after_swap(known, taken, put, take_first=True) == cards("bear pig")
    # Nothing known before: the rules' order keeps the whole row; take-first may give a card back.
    assert known_after_swap(cards(""), taken, put, take_first=False) == cards("bear pig")
    assert known_after_swap(cards(""), taken, put, take_first=True) == cards("bear")


ROWS = {1: "giraffe", 2: "bear pig", 3: "mole mole mole", 4: "goat goat goat goat"}


def _swap_then_reveal(rules: HouseRules) -> Game:
    game = new_game(rules=rules)
    set_rows(game, ROWS)
    events = game.apply(Swap("alice", 2, cards("pig mouse")))
    assert isinstance(events[0], Swapped) and events[0].take_first is rules.take_first
    game.apply(Knock("bob") if not rules.knock_requires_swap else Swap("bob", 1, cards("dog")))
    if game.phase is Phase.TURNS:
        game.apply(Swap("carol", 1, cards("cat")))
        game.apply(Knock("alice"))
        game.apply(Pass("bob"))
        game.apply(Pass("carol"))
    else:
        game.apply(Pass("carol"))
        game.apply(Pass("alice"))
    assert game.phase is Phase.REVEAL
    return game


def test_rules_order_refuses_a_hand_without_the_taken_pig_and_says_why() -> None:
    game = _swap_then_reveal(HouseRules())
    assert game.known["alice"] == cards("bear pig")
    with pytest.raises(BadHand) as refused:
        game.apply(DeclareHand("alice", cards("1 bear 4 sheep 5 dog")))  # no pig
    assert "must hold one" in refused.value.message
    assert "puts down first, then takes the row" in refused.value.message


def test_take_first_accepts_the_hand_that_gave_the_pig_back() -> None:
    game = _swap_then_reveal(TAKE_FIRST)
    assert game.known["alice"] == cards("bear")
    game.apply(DeclareHand("alice", cards("1 bear 4 sheep 5 dog")))
    assert "alice" in game.declared


def test_take_first_lets_a_full_known_hand_put_back_what_it_took() -> None:
    """Ten known cards: in the rules' order nothing else can go down; taking first, the row's own
    cards can."""
    for rules, allowed in ((HouseRules(knock_requires_swap=False), False), (HouseRules(
            knock_requires_swap=False, take_first=True), True)):
        game = new_game(rules=rules)
        game.known["alice"] = cards("5 dog 5 sheep")
        set_rows(game, ROWS)
        if allowed:
            game.apply(Swap("alice", 2, cards("bear dog")))
            assert game.known["alice"] == cards("pig 4 dog 5 sheep")
        else:
            with pytest.raises(BadCards):
                game.apply(Swap("alice", 2, cards("bear dog")))


def test_swap_is_announced_in_the_order_it_is_played() -> None:
    said = announce.sentences(Swapped("ann", 2, cards("bear pig"), cards("pig mouse"), "bob"))
    assert said == ["Ann put down pig and mouse for row 2: bear and pig. Bob's turn."]
    said = announce.sentences(Swapped("ann", 2, cards("bear pig"), cards("pig mouse"), "bob", True))
    assert said == ["Ann took row 2: bear and pig, and put down pig and mouse. Bob's turn."]
    assert "take the row first" not in " ".join(HouseRules().describe())
    assert "A swap takes the row first" in " ".join(TAKE_FIRST.describe())


def test_a_knock_with_two_players_left_names_the_one_last_turn() -> None:
    assert announce.sentences(Knocked("erin", "bob", ("bob",))) == ["Erin knocks! Bob has one last turn."]
    assert announce.sentences(Knocked("erin", "bob", ("bob", "ann"))) == [
        "Erin knocks! One last turn each. Bob's turn."]
