"""A simulated physical table: a shuffled deck, random legal play and honest declarations.

Used by tests (invariants over many seeded games), benchmarks and the store's kill tests. Pure
and seeded: the same ``random.Random`` seed gives the same game.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable

from engine.actions import (
    Action,
    DeclareHand,
    Knock,
    NewGame,
    Pass,
    SetRow,
    SetStarter,
    SuddenDeath,
    Swap,
)
from engine.deck import ANIMALS, COPIES, HAND_SIZE, ROW_SIZES, SUDDEN_DEATH_ANIMALS, Animal, Cards
from engine.game import Game, Phase, draw_start_player
from engine.rules import HouseRules

NAMES = ("alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy")


def simulate_game(
    rng: random.Random,
    players: int | None = None,
    rules: HouseRules | None = None,
    knock_chance: float = 0.25,
    sudden_death_chance: float = 0.5,
    max_turns_per_round: int = 40,
) -> list[Action]:
    """Play one whole game at random; returns its actions, ending with a winner."""
    n = players or rng.randint(3, 5)
    names = tuple(rng.sample(NAMES, n))
    game, _ = Game.new(NewGame(names), rules)
    actions: list[Action] = [NewGame(names)]

    def do(action: Action) -> None:
        game.apply(action)
        actions.append(action)

    do(SetStarter(draw_start_player(names, rng), by_lot=True))
    while not game.is_over:
        _play_round(game, do, rng, knock_chance, sudden_death_chance, max_turns_per_round)
    return actions


Do = Callable[[Action], None]
Hands = dict[str, "Counter[Animal]"]
Rows = dict[int, list[Animal]]


def _play_round(
    game: Game, do: Do, rng: random.Random, knock_chance: float, sd_chance: float, max_turns: int
) -> None:
    hands, rows = _deal(game, rng)
    start_round = game.round
    order = list(ROW_SIZES)
    rng.shuffle(order)
    for k in order:
        do(SetRow(k, Cards(rows[k])))
    if _maybe_sudden_death(game, do, rng, hands, sd_chance):
        return
    turns = 0
    while game.phase in (Phase.TURNS, Phase.FINAL_TURNS):
        turns += 1
        if not _play_turn(game, do, rng, hands, rows, knock_chance, overdue=turns > max_turns):
            continue  # hand cannot differ from this row: try again next loop
        if _maybe_sudden_death(game, do, rng, hands, sd_chance):
            return
    if game.round != start_round or game.is_over:
        return
    declarers = list(game.alive)
    rng.shuffle(declarers)
    for p in declarers:
        do(DeclareHand(p, Cards(hands[p])))


def _deal(game: Game, rng: random.Random) -> tuple[Hands, Rows]:
    """Shuffle the whole deck, deal 10 cards to each living player, then the four rows."""
    deck = [a for a in ANIMALS for _ in range(COPIES[a])]
    rng.shuffle(deck)
    hands: Hands = {}
    for i, p in enumerate(game.alive):
        hands[p] = Counter(deck[i * HAND_SIZE : (i + 1) * HAND_SIZE])
    rest = deck[len(game.alive) * HAND_SIZE :]
    rows: Rows = {}
    for k in ROW_SIZES:
        rows[k], rest = rest[:k], rest[k:]
    return hands, rows


def _maybe_sudden_death(
    game: Game, do: Do, rng: random.Random, hands: Hands, sd_chance: float
) -> bool:
    for p in game.alive:
        for animal in SUDDEN_DEATH_ANIMALS:
            if hands[p][animal] == COPIES[animal] and rng.random() < sd_chance:
                do(SuddenDeath(p, animal))
                return True
    return False


def _play_turn(
    game: Game, do: Do, rng: random.Random, hands: Hands, rows: Rows, knock_chance: float,
    overdue: bool,
) -> bool:
    """The turn player knocks, passes or swaps at random; False if the swap drawn was impossible
    (nothing was done)."""
    p = game.turn
    assert p is not None
    if game.phase is Phase.TURNS and game.may_knock(p) and (rng.random() < knock_chance or overdue):
        do(Knock(p))
    elif game.phase is Phase.FINAL_TURNS and rng.random() < 0.4:
        last_turn: list[Action] = [Pass(p), Knock(p)]  # knocking again counts as a pass
        do(rng.choice(last_turn))
    else:
        k = rng.choice(ROW_SIZES)
        row = Counter(rows[k])
        for _ in range(20):
            put = rng.sample(list(hands[p].elements()), k)
            if Counter(put) != row:
                break
        else:
            return False
        do(Swap(p, k, Cards(put)))
        hands[p] -= Counter(put)
        hands[p] += row
        rows[k] = put
    return True
