"""Scoring a round and ranking a game (RULES.md, Scoring and Lives): the majorities and points
of the declared hands, the lives they cost, who wins when everyone left goes out at once, and
the finishing places. Pure functions of their arguments; ``Game`` calls them when a round ends,
and the score sheets and records read ``places``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from engine.deck import ANIMALS, COPIES, Cards
from engine.events import Majority
from engine.rules import HouseRules

if TYPE_CHECKING:
    from engine.game import Game


def score_hands(
    declared: Mapping[str, Cards], alive: Sequence[str], rules: HouseRules
) -> tuple[dict[str, int], tuple[Majority, ...]]:
    """The points of each living player and the majority of each animal, in deck order.

    A single holder of the most cards of an animal scores its copies in the deck; a tie scores
    nothing. With two players left and the house rule ``two_alive_majority_two``, a majority
    needs at least two cards."""
    majorities = []
    points = {p: 0 for p in alive}
    need = 2 if (len(alive) == 2 and rules.two_alive_majority_two) else 1
    for animal in ANIMALS:
        counts = {p: declared[p].count(animal) for p in alive}
        best = max(counts.values())
        if best == 0:
            continue
        holders = tuple(p for p in alive if counts[p] == best)
        if len(holders) > 1:
            majorities.append(Majority(animal, None, best, holders))
        elif best < need:
            majorities.append(Majority(animal, None, best, ()))
        else:
            points[holders[0]] += COPIES[animal]
            majorities.append(Majority(animal, holders[0], best))
    return points, tuple(majorities)


def life_losses(points: dict[str, int], rules: HouseRules) -> dict[str, int]:
    """Lives each living player loses for the round's totals (RULES.md, Lives, and house rules)."""
    totals = set(points.values())
    if len(totals) == 1:
        loss = 0 if rules.all_equal == "nobody" else 1
        return {p: loss for p in points}
    high, low = max(totals), min(totals)
    if len(points) == 2:
        return {p: 0 if v == high else 2 for p, v in points.items()}
    lowest = [p for p, v in points.items() if v == low]
    low_loss = 2 if len(lowest) == 1 else rules.lowest_tie_loses
    return {p: 0 if v == high else low_loss if v == low else 1 for p, v in points.items()}


def all_out_winners(
    players: tuple[str, ...], points: Mapping[str, int], lives_before: Mapping[str, int],
    rules: HouseRules,
) -> tuple[str, ...]:
    """Who wins when ``players``, the last ones alive, all go out in the same round (house rule
    ``all_out``): all of them, those with the most points that round, or the most lives before."""
    if rules.all_out == "shared":
        return players
    score = points if rules.all_out == "most_points" else lives_before
    best = max(score.get(p, 0) for p in players)
    return tuple(p for p in players if score.get(p, 0) == best)


def places(game: Game) -> list[tuple[str, int]]:
    """Finishing places, best first, by standard competition ranking (1, 2, 2, 4).

    Winners are 1st; then players by the round they went out, later is better; players out in
    the same round share a place. While the game goes on, only the players who are out have a
    place (which no later round can change: everyone still in finishes ahead of them).
    """
    out_round: dict[str, int] = {}
    for ended in game.rounds:
        for p in ended.out:
            out_round.setdefault(p, ended.round)
    winners = set(game.winners)
    ranked: list[tuple[str, int]] = []
    for p in game.players:
        if p in winners:
            ranked.append((p, 1))
        elif p in out_round:
            mine = out_round[p]
            better = sum(1 for q in game.players
                         if q != p and (q in winners or out_round.get(q, 10**9) > mine))
            ranked.append((p, better + 1))
    order = {p: i for i, p in enumerate(game.out_order)}
    return sorted(ranked, key=lambda item: (item[1], order.get(item[0], -1)))
