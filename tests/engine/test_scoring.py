"""Scoring, life losses, sudden death, elimination, winners and the next start player, with
hand-made hands (RULES.md: Scoring, Lives, Sudden death and the house rules)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine.actions import DeclareHand, Knock, Pass, SetRow, SuddenDeath, Swap
from engine.deck import Animal
from engine.events import GameWon, RoundEnded
from engine.game import Game, Phase, life_losses
from engine.rules import HouseRules
from tests.engine.tables import (
    ALL_EQUAL,
    BASIC,
    CAROL_LOSES,
    FOUR,
    FOUR_DAVE_LOSES,
    QUICK,
    TIED_HIGHEST,
    TIED_LOWEST,
    TWO_ALIVE,
    TWO_ALIVE_BOB_LOSES,
    cards,
    new_game,
    play_round,
    set_rows,
)

DEFAULT = HouseRules()
LOWEST_TIE_1 = HouseRules(lowest_tie_loses=1)
EVERYONE_1 = HouseRules(all_equal="everyone_loses_1")


# --------------------------------------------------------------------------- life_losses
@pytest.mark.parametrize(
    ("points", "rules", "expected"),
    [
        # one highest, one lowest, one in between
        ({"a": 14, "b": 5, "c": 17}, DEFAULT, {"a": 1, "b": 2, "c": 0}),
        # tied highest lose 0 each
        ({"a": 15, "b": 12, "c": 15}, DEFAULT, {"a": 0, "b": 2, "c": 0}),
        # tied lowest lose 2 each, or 1 each with the house rule
        ({"a": 15, "b": 10, "c": 10}, DEFAULT, {"a": 0, "b": 2, "c": 2}),
        ({"a": 15, "b": 10, "c": 10}, LOWEST_TIE_1, {"a": 0, "b": 1, "c": 1}),
        # a single lowest loses 2 even with the tie rule set to 1
        ({"a": 15, "b": 12, "c": 10}, LOWEST_TIE_1, {"a": 0, "b": 1, "c": 2}),
        # all equal: nobody loses, or everyone loses 1 with the house rule
        ({"a": 7, "b": 7, "c": 7}, DEFAULT, {"a": 0, "b": 0, "c": 0}),
        ({"a": 7, "b": 7, "c": 7}, EVERYONE_1, {"a": 1, "b": 1, "c": 1}),
        ({"a": 0, "b": 0, "c": 0, "d": 0}, DEFAULT, {"a": 0, "b": 0, "c": 0, "d": 0}),
        # two alive: higher 0, lower 2 (the tie rule for the lowest does not apply)
        ({"a": 20, "b": 3}, DEFAULT, {"a": 0, "b": 2}),
        ({"a": 3, "b": 20}, LOWEST_TIE_1, {"a": 2, "b": 0}),
        ({"a": 9, "b": 9}, DEFAULT, {"a": 0, "b": 0}),
        ({"a": 9, "b": 9}, EVERYONE_1, {"a": 1, "b": 1}),
        # four and five players: everyone between highest and lowest loses 1
        ({"a": 20, "b": 10, "c": 10, "d": 0}, DEFAULT, {"a": 0, "b": 1, "c": 1, "d": 2}),
        ({"a": 20, "b": 20, "c": 5, "d": 0, "e": 0}, DEFAULT, {"a": 0, "b": 0, "c": 1, "d": 2, "e": 2}),
        ({"a": 20, "b": 20, "c": 5, "d": 0, "e": 0}, LOWEST_TIE_1, {"a": 0, "b": 0, "c": 1, "d": 1, "e": 1}),
    ],
)
def test_life_losses(points: dict[str, int], rules: HouseRules, expected: dict[str, int]) -> None:
    assert life_losses(points, rules) == expected


# --------------------------------------------------------------------------- whole rounds
def majorities(ended: RoundEnded) -> dict[str, str | None]:
    return {m.animal.value: m.winner for m in ended.majorities}


def test_basic_round_scores_majorities_ties_and_single_cards() -> None:
    game = new_game(rules=QUICK)
    ended = play_round(game, BASIC)
    won = majorities(ended)
    assert won["giraffe"] is None  # 3 against 3: a tie scores nobody
    tie = next(m for m in ended.majorities if m.animal is Animal.GIRAFFE)
    assert set(tie.tied) == {"alice", "bob"} and tie.count == 3
    assert won["mole"] == "carol"  # one card wins when nobody else holds the animal
    assert won == {
        "giraffe": None, "bear": "alice", "mole": "carol", "sheep": "carol",
        "dog": "alice", "pig": "bob", "cat": "carol",
    }
    assert ended.points == {"alice": 14, "bob": 5, "carol": 17}
    assert ended.losses == {"alice": 1, "bob": 2, "carol": 0}
    assert game.lives == {"alice": 4, "bob": 3, "carol": 5}
    assert ended.out == ()
    assert game.round == 2 and game.phase is Phase.ROWS and game.starter == "bob"


@pytest.mark.parametrize(
    ("hands", "rules", "points", "losses"),
    [
        (TIED_HIGHEST, QUICK, {"alice": 15, "bob": 12, "carol": 15}, {"alice": 0, "bob": 2, "carol": 0}),
        (TIED_LOWEST, QUICK, {"alice": 15, "bob": 10, "carol": 10}, {"alice": 0, "bob": 2, "carol": 2}),
        (TIED_LOWEST, replace(QUICK, lowest_tie_loses=1), {"alice": 15, "bob": 10, "carol": 10},
         {"alice": 0, "bob": 1, "carol": 1}),
        (ALL_EQUAL, QUICK, {"alice": 0, "bob": 0, "carol": 0}, {"alice": 0, "bob": 0, "carol": 0}),
        (ALL_EQUAL, replace(QUICK, all_equal="everyone_loses_1"), {"alice": 0, "bob": 0, "carol": 0},
         {"alice": 1, "bob": 1, "carol": 1}),
    ],
    ids=["tied-highest", "tied-lowest", "tied-lowest-rule-1", "all-equal", "all-equal-rule-1"],
)
def test_round_life_losses(hands, rules, points, losses) -> None:
    game = new_game(rules=rules)
    ended = play_round(game, hands)
    assert ended.points == points
    assert ended.losses == losses
    assert game.lives == {p: 5 - losses[p] for p in game.players}


def test_all_equal_hands_tie_every_animal() -> None:
    ended = play_round(new_game(rules=QUICK), ALL_EQUAL)
    assert all(m.winner is None and len(m.tied) == 3 for m in ended.majorities)


def test_one_life_losing_two_ends_at_zero_and_is_out() -> None:
    game = new_game(rules=QUICK)
    play_round(game, CAROL_LOSES)
    play_round(game, CAROL_LOSES)
    assert game.lives["carol"] == 1
    ended = play_round(game, CAROL_LOSES)
    assert ended.losses["carol"] == 2
    assert game.lives == {"alice": 5, "bob": 2, "carol": 0}
    assert ended.out == ("carol",)
    assert game.alive == ("alice", "bob")
    assert game.out_order == ["carol"]
    assert not game.is_over


def two_alive(rules: HouseRules) -> Game:
    """alice 5 lives, bob 2, carol out; round 4 waits for its rows."""
    game = new_game(rules=rules)
    for _ in range(3):
        play_round(game, CAROL_LOSES)
    assert game.alive == ("alice", "bob")
    return game


def test_two_alive_a_single_card_is_no_majority() -> None:
    game = two_alive(QUICK)
    ended = play_round(game, TWO_ALIVE)
    mole = next(m for m in ended.majorities if m.animal is Animal.MOLE)
    assert mole.winner is None and mole.tied == () and mole.count == 1
    assert ended.points == {"alice": 11, "bob": 12}
    assert ended.losses == {"alice": 2, "bob": 0}  # two alive: the lower loses 2
    assert game.lives["alice"] == 3 and game.lives["bob"] == 2


def test_two_alive_single_card_scores_with_the_house_rule_off_and_bob_is_out() -> None:
    game = two_alive(replace(QUICK, two_alive_majority_two=False))
    ended = play_round(game, TWO_ALIVE)
    assert majorities(ended)["mole"] == "alice"
    assert ended.points == {"alice": 18, "bob": 12}
    assert ended.losses == {"alice": 0, "bob": 2}
    assert ended.out == ("bob",)
    assert game.is_over and game.winners == ("alice",)


def test_elimination_and_the_winner() -> None:
    game = two_alive(QUICK)
    play_round(game, TWO_ALIVE)  # alice 3, bob 2
    ended = play_round(game, TWO_ALIVE_BOB_LOSES)
    assert ended.losses == {"alice": 0, "bob": 2}
    assert game.lives == {"alice": 3, "bob": 0, "carol": 0}
    assert game.phase is Phase.GAME_OVER and game.is_over
    assert game.winners == ("alice",)
    assert game.out_order == ["carol", "bob"]
    assert game.turn is None


def test_game_won_event_and_nothing_after_it() -> None:
    game = two_alive(QUICK)
    play_round(game, TWO_ALIVE)
    set_rows(game)
    game.apply(Knock(game.turn))
    game.apply(Pass(game.turn))
    game.apply(DeclareHand("alice", cards(TWO_ALIVE_BOB_LOSES["alice"])))
    events = game.apply(DeclareHand("bob", cards(TWO_ALIVE_BOB_LOSES["bob"])))
    won = [e for e in events if isinstance(e, GameWon)]
    assert won == [GameWon(("alice",), "last_alive", ("carol", "bob"))]


@pytest.mark.parametrize("all_out", ["most_points", "shared", "most_lives_before"])
def test_everyone_out_in_the_same_round(all_out: str) -> None:
    # Under RULES.md the highest total never loses a life unless every total is equal, so the
    # only way for everyone left to go out together is equal totals with "everyone loses 1".
    rules = replace(QUICK, all_equal="everyone_loses_1", all_out=all_out)
    game = new_game(rules=rules)
    for _ in range(4):
        play_round(game, ALL_EQUAL)
    assert game.lives == {"alice": 1, "bob": 1, "carol": 1}
    set_rows(game)
    game.apply(Knock(game.turn))
    while game.phase is Phase.FINAL_TURNS:
        game.apply(Pass(game.turn))
    events = []
    for p in game.alive:
        events += game.apply(DeclareHand(p, cards(ALL_EQUAL[p])))
    assert game.is_over
    assert set(game.winners) == {"alice", "bob", "carol"}
    won = events[-1]
    assert isinstance(won, GameWon) and won.how == all_out
    assert game.lives == {"alice": 0, "bob": 0, "carol": 0}


@pytest.mark.parametrize(
    ("all_out", "expected"),
    [
        ("most_points", ("alice",)),
        ("shared", ("alice", "bob", "carol")),
        ("most_lives_before", ("bob", "carol")),
    ],
)
def test_all_out_house_rule_picks_the_winners(all_out: str, expected: tuple[str, ...]) -> None:
    # The rule itself, with points and lives that differ (see the test above for why a real
    # round cannot produce them).
    game = new_game(rules=HouseRules(all_out=all_out))
    winners = game._all_out_winners(
        ("alice", "bob", "carol"), {"alice": 12, "bob": 7, "carol": 7}, {"alice": 1, "bob": 2, "carol": 2}
    )
    assert winners == expected


def test_most_points_still_tied_is_a_shared_win() -> None:
    game = new_game(rules=HouseRules(all_out="most_points"))
    assert game._all_out_winners(("alice", "bob", "carol"), {"alice": 9, "bob": 9, "carol": 2}, {}) == (
        "alice",
        "bob",
    )


# --------------------------------------------------------------------------- next start player
def test_next_start_clockwise_skips_players_who_are_out() -> None:
    game = new_game(FOUR, rules=QUICK, starter="alice")
    starters = [game.starter]
    for _ in range(3):
        play_round(game, FOUR_DAVE_LOSES)
        starters.append(game.starter)
    # dave goes out at the end of round 3, which carol started: round 4 skips him.
    assert game.lives["dave"] == 0
    assert starters == ["alice", "bob", "carol", "alice"]


def test_next_start_clockwise_from_a_later_seat() -> None:
    game = new_game(FOUR, rules=QUICK, starter="carol")
    play_round(game, FOUR_DAVE_LOSES)
    assert game.starter == "dave"
    play_round(game, FOUR_DAVE_LOSES)
    assert game.starter == "alice"  # round and round the table


def test_next_start_most_lives_lost() -> None:
    game = new_game(FOUR, rules=replace(QUICK, next_start="most_lives_lost"), starter="alice")
    play_round(game, FOUR_DAVE_LOSES)
    assert game.starter == "dave"  # dave lost 2, more than anyone
    play_round(game, FOUR_DAVE_LOSES)
    assert game.starter == "dave"
    play_round(game, FOUR_DAVE_LOSES)
    # dave is out; alice and bob lost 1 each: the first of them clockwise after dave
    assert game.lives["dave"] == 0
    assert game.starter == "alice"


def test_next_start_most_lives_lost_tie_goes_clockwise() -> None:
    rules = replace(QUICK, next_start="most_lives_lost", all_equal="everyone_loses_1")
    game = new_game(rules=rules, starter="bob")
    play_round(game, ALL_EQUAL)
    assert game.starter == "carol"


# --------------------------------------------------------------------------- sudden death
def test_sudden_death_every_other_living_player_loses_one() -> None:
    game = new_game(rules=HouseRules(), starter="bob")
    set_rows(game)
    game.apply(Swap("bob", 1, cards("pig")))
    events = game.apply(SuddenDeath("alice", Animal.CAT))
    ended = events[0]
    assert isinstance(ended, RoundEnded)
    assert ended.sudden_death == ("alice", Animal.CAT)
    assert ended.losses == {"alice": 0, "bob": 1, "carol": 1}
    assert ended.points == {} and ended.majorities == ()
    assert game.lives == {"alice": 5, "bob": 4, "carol": 4}
    assert game.round == 2 and game.phase is Phase.ROWS and game.starter == "carol"


def test_sudden_death_after_a_knock_and_during_the_reveal() -> None:
    game = new_game(rules=QUICK)
    set_rows(game)
    game.apply(Knock("alice"))
    game.apply(SuddenDeath("carol", Animal.PIG))  # out of turn, after a knock
    assert game.lives == {"alice": 4, "bob": 4, "carol": 5}
    set_rows(game)  # round 2, bob starts
    game.apply(Knock("bob"))
    game.apply(Pass("carol"))
    game.apply(Pass("alice"))
    game.apply(DeclareHand("alice", cards("4 giraffe 6 sheep")))
    game.apply(SuddenDeath("bob", Animal.RABBIT))  # while hands are revealed
    assert game.lives == {"alice": 3, "bob": 4, "carol": 4}
    assert game.rounds[-1].sudden_death == ("bob", Animal.RABBIT)


def test_sudden_death_by_a_player_who_revealed_every_copy() -> None:
    game = new_game(rules=QUICK)
    set_rows(game)
    game.apply(Knock("alice"))
    game.apply(Pass("bob"))
    game.apply(Pass("carol"))
    game.apply(DeclareHand("bob", cards("4 cat 6 sheep")))
    game.apply(SuddenDeath("bob", Animal.CAT))
    assert game.lives == {"alice": 4, "bob": 5, "carol": 4}


def test_knocking_again_after_a_knock_is_a_pass() -> None:
    game = new_game(rules=QUICK)
    set_rows(game)
    game.apply(Knock("alice"))
    events = game.apply(Knock("bob"))
    assert type(events[0]).__name__ == "Passed" and game.knocker == "alice"
    assert game.turn == "carol"


def test_sudden_death_before_the_rows_are_complete() -> None:
    game = new_game()
    game.apply(SetRow(1, cards("giraffe")))
    game.apply(SuddenDeath("bob", Animal.PIG))
    assert game.lives == {"alice": 4, "bob": 5, "carol": 4}


def test_sudden_death_can_eliminate_and_win() -> None:
    game = new_game(rules=QUICK)
    for _ in range(4):
        set_rows(game)
        game.apply(SuddenDeath("alice", Animal.CAT))
    assert game.lives == {"alice": 5, "bob": 1, "carol": 1}
    events = game.apply(SuddenDeath("alice", Animal.CAT))
    assert game.is_over and game.winners == ("alice",)
    assert set(events[0].out) == {"bob", "carol"}
