"""The game's own questions about what is legal now (``Game.may_knock``, ``Game.expected``,
``Game.check_hand``, ``Game.overflowing``) agree with what ``Game.apply`` accepts, in random states
reached by seeded random play (``engine.simulate``) under every set of house rules."""

from __future__ import annotations

import random
from collections import Counter
from functools import cache

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.actions import (
    Action,
    DeclareHand,
    Knock,
    NewGame,
    Pass,
    SetRow,
    SetStarter,
    Swap,
)
from engine.deck import ANIMALS, COPIES, HAND_SIZE, Animal, Cards
from engine.errors import BadCards, BadHand, RuleError
from engine.game import Game, Phase
from engine.rules import HouseRules
from engine.simulate import simulate_game
from tests.engine.tables import QUICK, new_game, public, set_rows

RULES = (HouseRules(), HouseRules(knock_requires_swap=False), HouseRules(take_first=True))
SEEDS = 60


@cache
def states(seed: int) -> tuple[Game, ...]:
    """Every state of one seeded random game, from its start to its winner."""
    actions = simulate_game(random.Random(seed), rules=RULES[seed % len(RULES)])
    first = actions[0]
    assert isinstance(first, NewGame)
    game, _ = Game.new(first, RULES[seed % len(RULES)])
    seen = [game.copy()]
    for action in actions[1:]:
        game.apply(action)
        seen.append(game.copy())
    return tuple(seen)


@cache
def reveal_states(seed: int) -> tuple[Game, ...]:
    return tuple(g for g in states(seed) if g.phase is Phase.REVEAL)


def accepted(game: Game, action: Action) -> bool:
    try:
        game.check(action)
    except RuleError:
        return False
    return True


a_state = st.builds(lambda seed, i: states(seed)[i % len(states(seed))],
                    st.integers(0, SEEDS - 1), st.integers(0, 10**6))


@settings(max_examples=300, deadline=None)
@given(a_state)
def test_may_knock_agrees_with_apply(game: Game) -> None:
    for name in (*game.players, *(p.upper() for p in game.players), "zed"):
        assert game.may_knock(name) == accepted(game, Knock(name)), (name, public(game))


@settings(max_examples=300, deadline=None)
@given(a_state)
def test_expected_names_what_apply_accepts(game: Game) -> None:
    expected = game.expected()
    match game.phase:
        case Phase.TURNS if game.starter is not None:
            (turn,) = expected.players
            assert (Knock in expected.actions) == game.may_knock(turn)
            assert Swap in expected.actions and Pass not in expected.actions
            assert not accepted(game, Pass(turn))
        case Phase.FINAL_TURNS:
            assert expected.actions == (Swap, Pass)
            assert expected.players == (game.turn,)
            assert accepted(game, Pass(expected.players[0]))
        case Phase.ROWS:
            assert expected.actions == (SetRow,) and expected.rows == game.missing_rows()
        case Phase.REVEAL:
            assert expected.actions == (DeclareHand,)
            assert set(expected.players) == set(game.alive) - set(game.declared)
        case Phase.GAME_OVER:
            assert expected.actions == (NewGame,)
            assert not any(accepted(game, Knock(p)) for p in game.players)
    # Nobody but the expected player may take a turn.
    for p in game.players:
        if p not in expected.players:
            assert not accepted(game, Pass(p)) and not game.may_knock(p)


def the_hand(game: Game, player: str, honest: bool, animals: list[Animal]) -> Cards:
    """A hand to declare: random cards, or (``honest``) the known cards filled up at random."""
    if not honest:
        return Cards(animals)
    known = game.known[player]
    return known + Cards(animals[: max(0, HAND_SIZE - len(known))])


@settings(max_examples=400, deadline=None)
@given(st.integers(0, SEEDS - 1), st.integers(0, 10**6), st.booleans(),
       st.lists(st.sampled_from(ANIMALS), max_size=12))
def test_check_hand_agrees_with_apply(seed: int, i: int, honest: bool,
                                      animals: list[Animal]) -> None:
    reveals = reveal_states(seed)
    if not reveals:
        return
    game = reveals[i % len(reveals)]
    player = game.alive[i % len(game.alive)]
    hand = the_hand(game, player, honest, animals)
    check = game.check_hand(player, hand)
    total = Counter(hand)
    for cards in (*game.rows, *(game.declared.get(p, game.known[p]) for p in game.alive
                                if p != player)):
        total.update(cards or ())
    assert set(check.overflow) == {a for a in ANIMALS if total[a] > COPIES[a]}
    assert check.missing == Cards({a: n - hand.count(a) for a, n in game.known[player].counts().items()})
    try:
        game.check(DeclareHand(player, hand))
    except BadHand:
        assert check.size != HAND_SIZE or check.missing
    except BadCards:
        assert check.size == HAND_SIZE and not check.missing and check.overflow
    else:
        assert check.ok


@settings(max_examples=300, deadline=None)
@given(a_state, st.lists(st.sampled_from(ANIMALS), max_size=12))
def test_overflowing_counts_rows_and_hands(game: Game, animals: list[Animal]) -> None:
    # A reachable state never holds more of an animal than the deck ...
    assert game.overflowing(game.known.values()) == {}
    # ... and with cards added, exactly the animals counted above their copies overflow.
    extra = Cards(animals)
    total = Counter(extra)
    for cards in (*game.rows, *game.known.values()):
        total.update(cards or ())
    over = {a: total[a] for a in ANIMALS if total[a] > COPIES[a]}
    assert game.overflowing([*game.known.values(), extra]) == over


def test_knock_before_a_first_swap() -> None:
    """The knock rule by hand: refused before one's first swap, allowed after it, and at once
    with the house rule off; with nobody named to start, a start player is what is expected."""
    game = new_game()
    set_rows(game)
    assert not game.may_knock("alice") and game.expected().actions == (Swap,)
    assert not game.may_knock("bob")  # not bob's turn
    game.apply(Swap("alice", 1, Cards.of("dog")))
    game.apply(Swap("bob", 1, Cards.of("cat")))
    game.apply(Swap("carol", 1, Cards.of("pig")))
    assert game.may_knock("alice") and game.expected().actions == (Swap, Knock)
    quick = new_game(rules=QUICK)
    set_rows(quick)
    assert quick.may_knock("Alice") and quick.expected().actions == (Swap, Knock)
    nobody, _ = Game.new(NewGame(("alice", "bob", "carol")))
    set_rows(nobody)
    assert nobody.phase is Phase.TURNS and not nobody.may_knock("alice")
    assert nobody.expected().actions == (SetStarter,)
    assert nobody.expected().players == ("alice", "bob", "carol")
