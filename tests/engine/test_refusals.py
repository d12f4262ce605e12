"""Every refusal of RULES.md's checks, plus turn order, knocking, passing, phases and unknown or
eliminated players. Each case asserts a readable sentence and an unchanged state, through the
engine (``GameLog``) and through the referee session (the path of ``replay`` and ``chat``)."""

from __future__ import annotations

import json
import random

import pytest

from assistant.commands import parse
from assistant.referee import Referee
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
from engine.deck import Animal
from engine.errors import (
    BadCards,
    BadClaim,
    BadHand,
    BadRow,
    NotYourTurn,
    RuleError,
    UnknownPlayer,
    WrongPhase,
)
from engine.game import Game
from engine.log import GameLog
from tests.engine.tables import (
    CAROL_LOSES,
    QUICK,
    assert_sentence,
    cards,
    frozen,
    new_game,
    play_round,
    set_rows,
)

NEW = ["new game alice bob carol", "alice starts"]
ROW_LINES = ["row 1 giraffe", "row 2 bear bear", "row 3 mole mole mole", "row 4 goat goat goat goat"]
#: Rows entered, alice's turn.
BASE = NEW + ROW_LINES
#: alice took the giraffe of row 1 (and put down a pig); bob's turn.
TURN2 = BASE + ["alice swaps 1 pig"]
#: Every one swapped row 1 once, then alice knocked: alice knows a giraffe, bob a pig,
#: carol a cat; row 1 holds a dog; bob's last turn.
KNOCKED = BASE + ["alice swaps 1 pig", "bob swaps 1 cat", "carol swaps 1 dog", "alice knocks"]
#: The turns are over: hands are revealed.
REVEAL = KNOCKED + ["bob passes", "carol passes"]

# (setup lines, refused line, error class, part of the message)
CASES: list[tuple[list[str], str, type[RuleError], str]] = [
    # -- rows: exactly k cards, deck limits, only before the first turn
    (NEW, "row 2 bear", BadRow, "Row 2 holds exactly 2 cards, you named 1."),
    (NEW, "row 1 pig pig", BadRow, "Row 1 holds exactly 1 card, you named 2."),
    (NEW + ["row 1 giraffe", "row 2 giraffe giraffe", "row 3 giraffe giraffe giraffe"],
     "row 4 giraffe giraffe giraffe giraffe", BadCards,
     "That makes 10 giraffes in the rows, but the deck holds only 9."),
    (NEW + ["row 1 mouse", "row 2 mouse mouse"], "row 3 mouse pig pig", BadCards,
     "That makes 4 mice in the rows, but the deck holds only 3."),
    (TURN2, "row 1 cat", WrongPhase, "The rows are set once a round starts"),
    # at the reveal a swap is no way to change a row either: say what is wanted now (issue 36)
    (REVEAL, "row 1 pig", WrongPhase, "The rows are set at a round's start, and this round's turns "
     "are over: reveal the hands now, e.g. 'alice has 3 giraffe 2 bear 5 dog'. Waiting for Alice, Bob, Carol."),
    (TURN2, "carol starts", WrongPhase, "The start player can only change before the first turn"),
    # -- turns in the wrong phase
    (NEW, "alice swaps 1 pig", WrongPhase, "Enter the rows first: row 1 and row 2 and row 3 and row 4 are missing."),
    (NEW + ["row 1 giraffe"], "alice knocks", WrongPhase, "Enter the rows first"),
    (NEW, "alice has 3 giraffe 2 bear 5 dog", WrongPhase, "Hands are revealed at the end of the round"),
    (BASE, "alice has 3 giraffe 2 bear 5 dog", WrongPhase, "Hands are revealed after a knock and the final turns: it's Alice's turn: expected 'alice swaps'."),
    (REVEAL, "bob swaps 1 pig", WrongPhase, "The turns are over: reveal the hands now"),
    (REVEAL, "bob passes", WrongPhase, "The turns are over"),
    (REVEAL, "carol knocks", WrongPhase, "Waiting for Alice, Bob, Carol."),
    # -- turn order, knock, pass, the knocker
    (BASE, "bob swaps 1 pig", NotYourTurn, "It's Alice's turn, not Bob's: expected 'alice swaps'."),
    (TURN2, "alice swaps 2 pig pig", NotYourTurn, "It's Bob's turn, not Alice's: expected 'bob swaps'."),
    (BASE, "alice knocks", BadCards, "Alice cannot knock yet: a player may knock only after their first swap"),
    (TURN2, "bob knocks", BadCards, "Bob cannot knock yet"),
    (BASE, "alice passes", WrongPhase, "Passing is allowed only after a knock: Alice, swap a row or knock."),
    (KNOCKED, "alice swaps 2 pig pig", NotYourTurn, "Alice knocked and does not play again this round; it's Bob's turn: expected 'bob swaps' or 'bob passes'."),
    (KNOCKED, "alice passes", NotYourTurn, "Alice knocked and does not play again"),
    (KNOCKED, "carol passes", NotYourTurn, "It's Bob's turn, not Carol's: expected 'bob swaps' or 'bob passes'."),
    # -- a swap: as many cards as the row holds, not the same animals, within the deck
    (BASE, "alice swaps 2 bear", BadCards,
     "Row 2 holds 2 cards, you put down 1: a swap puts down as many cards as it takes, 2 for row 2."),
    (BASE, "alice swaps 4 pig pig", BadCards, "Row 4 holds 4 cards, you put down 2:"),
    (BASE, "alice swaps 1 pig cat", BadCards, "Row 1 holds 1 card, you put down 2:"),
    (BASE, "alice swaps 1 giraffe", BadCards, "Row 1 already holds a giraffe: putting down the same animals is not a swap."),
    (BASE, "alice swaps 3 mole mole mole", BadCards, "Row 3 already holds 3 moles"),
    (BASE, "alice swaps 2 bear bear", BadCards, "not a swap"),
    (NEW + ["row 1 mouse", "row 2 mouse mouse", "row 3 mole mole mole", "row 4 goat goat goat goat"],
     "alice swaps 4 mouse pig pig pig", BadCards,
     "That makes 4 mice in the rows and the known hands, but the deck holds only 3."),
    # -- declared hands: 10 cards, the known cards, deck limits
    (REVEAL, "alice has 9 giraffe", BadHand, "A hand holds exactly 10 cards; Alice's has 9."),
    # typed without the card taken from the rows: short by that card, which is named
    (REVEAL, "alice has 9 sheep", BadHand,
     "A hand holds exactly 10 cards; Alice's has 9. Alice took a giraffe from the rows: count it in."),
    (REVEAL, "alice has 5 giraffe 6 sheep", BadHand, "A hand holds exactly 10 cards; Alice's has 11."),
    (REVEAL, "alice has 5 sheep 5 dog", BadHand,
     "Alice took a giraffe from the rows, so Alice's hand must hold one."),
    (REVEAL, "bob has 5 sheep 5 dog", BadHand, "Bob took a pig from the rows"),
    (REVEAL, "alice has 1 giraffe 9 mole", BadCards,
     "That makes 12 moles in the rows and the declared hands, but the deck holds only 7."),
    (REVEAL, "alice has 1 giraffe 4 cat 5 sheep", BadCards, "That makes 5 cats"),  # carol took one
    (REVEAL + ["alice has 5 giraffe 5 sheep"], "bob has 1 pig 5 giraffe 4 dog", BadCards,
     "That makes 10 giraffes in the rows and the declared hands, but the deck holds only 9."),
    (REVEAL + ["alice has 5 giraffe 5 sheep"], "carol has 1 cat 2 sheep 7 dog", BadCards, "sheep"),
    # -- sudden death: every copy, none face up, none known elsewhere
    (NEW + ["row 1 pig"], "bob has all pigs", BadClaim,
     "A pig lies face up in row 1, so nobody can hold all 5 pigs."),
    (BASE[:-1] + ["row 4 goat goat cat goat"], "alice has all cats", BadClaim, "A cat lies face up in row 4"),
    (TURN2, "bob has all pigs", BadClaim, "A pig lies face up in row 1"),
    (KNOCKED, "alice has all cats", BadClaim, "Carol is known to hold a cat, so Alice cannot hold all 4."),
    (KNOCKED, "carol has all pigs", BadClaim, "Bob is known to hold a pig, so Carol cannot hold all 5."),
    (REVEAL + ["alice has 1 giraffe 1 rabbit 4 sheep 4 dog"], "bob has all rabbits", BadClaim,
     "Alice is known to hold a rabbit, so Bob cannot hold all 5."),
    (REVEAL + ["alice has 5 giraffe 5 sheep"], "alice has all rabbits", BadClaim,
     "Alice's revealed hand holds no rabbits, not all 5: say 'undo' first if that hand was wrong."),
    (REVEAL + ["carol has 1 cat 3 rabbit 6 sheep"], "carol has all rabbits", BadClaim,
     "Carol's revealed hand holds 3 rabbits, not all 5"),
]


def build_log(lines: list[str]) -> GameLog:
    log = GameLog()
    players = None
    for line in lines:
        action = parse(line, players).to_action()
        log.apply(action)
        if isinstance(action, NewGame):
            players = action.players
    return log


def build_referee(lines: list[str]) -> Referee:
    referee = Referee(rng=random.Random(0), confirm_new_game=False)
    for line in lines:
        reply = referee.handle(line)
        assert reply.ok, (line, reply.error)
    return referee


def case_id(case) -> str:
    return case[1]


@pytest.mark.parametrize(("setup", "line", "error", "message"), CASES, ids=map(case_id, CASES))
def test_engine_refuses_and_changes_nothing(setup, line, error, message) -> None:
    log = build_log(setup)
    game = log.game
    assert game is not None
    before, actions_before = frozen(game), list(log.actions)
    action = parse(line, game.players).to_action()
    with pytest.raises(RuleError) as refused:
        log.apply(action)
    assert type(refused.value) is error
    assert message in refused.value.message
    assert_sentence(refused.value.message)
    assert frozen(log.game) == before
    assert log.actions == actions_before and log.cursor == len(actions_before)
    # ``check`` gives the same answer without applying anything
    with pytest.raises(error):
        log.game.check(action)
    assert frozen(log.game) == before


#: Lines the referee refuses before the engine sees them (the command language).
PARSE_REFUSALS = [
    (BASE, "dave knocks", "Dave is not playing: the players are Alice, Bob and Carol."),
    (BASE, "alise swaps 1 pig", "Did you mean 'alice swaps 1 pig'?"),
    # a correction the game would refuse is not offered: the refusal says why (issue 36)
    (BASE, "alise knocks", "There is no player 'alise'. 'alice knocks' would not be accepted now either. "
     "Alice cannot knock yet"),
    (TURN2, "carl passes", "'carol passes' would not be accepted now either. It's Bob's turn, not Carol's"),
    (BASE, "row 5 pig", "There is no row 5: the rows are 1, 2, 3 and 4."),
    (BASE, "alice swaps 0 pig", "There is no row 0"),
    (BASE, "alice has all bears", "Sudden death needs all cats, all rabbits or all pigs, not all bears."),
    (BASE, "alice has 11 pigs", "Counts go from 1 to 10."),
    (BASE, "alice swaps 1 owl", "I don't know the animal 'owl'."),
    (BASE, "row 1 pigg", "Did you mean 'row 1 pig'?"),
    (BASE, "yes", "Nothing to confirm."),
    (BASE, "redo", "Nothing to redo."),
    (NEW[:1], "undo", "Nothing to undo: the game has just started."),
    (BASE, "", "Say a command"),
    (BASE, "new game alice bob", "Name 3 to 5 players"),
    (BASE, "new game alice bob bob", "Two players have the same name"),
]


@pytest.mark.parametrize(
    ("setup", "line", "message"),
    [(s, line, m) for s, line, _, m in CASES] + PARSE_REFUSALS,
    ids=[c[1] for c in CASES] + [c[1] or "empty" for c in PARSE_REFUSALS],
)
def test_referee_refuses_and_changes_nothing(setup, line, message) -> None:
    referee = build_referee(setup)
    before, history = json.dumps(referee.state(), sort_keys=True), referee.history()
    reply = referee.handle(line)
    assert not reply.ok
    assert reply.error and message in reply.error
    assert_sentence(reply.error)
    assert json.dumps(referee.state(), sort_keys=True) == before
    assert referee.history() == history
    assert "error" in reply.to_json() and reply.to_json()["ok"] is False


# --------------------------------------------------------------------------- engine-only refusals
def base_game() -> Game:
    return build_log(BASE).game  # type: ignore[return-value]


@pytest.mark.parametrize(
    ("action", "error", "message"),
    [
        (SuddenDeath("alice", Animal.BEAR), BadClaim, "Sudden death needs all cats, all rabbits or all pigs, not bears."),
        (Swap("alice", 5, cards("pig")), BadRow, "There is no row 5: the rows are 1, 2, 3 and 4."),
        (Swap("alice", 0, cards("pig")), BadRow, "There is no row 0"),
        (Knock("dave"), UnknownPlayer, "There is no player called Dave: the players are Alice, Bob, Carol."),
        (SetStarter("zed"), UnknownPlayer, "There is no player called Zed"),
        (DeclareHand("dave", cards("10 dog")), WrongPhase, "Hands are revealed after a knock"),
        (SuddenDeath("dave", Animal.CAT), UnknownPlayer, "There is no player called Dave"),
        (NewGame(("x", "y", "z")), WrongPhase, "A game is already under way."),
        (SetRow(5, cards("pig")), BadRow, "There is no row 5"),
    ],
    ids=repr,
)
def test_engine_only_refusals(action: Action, error: type[RuleError], message: str) -> None:
    game = base_game()
    before = frozen(game)
    with pytest.raises(error) as refused:
        game.apply(action)
    assert message in refused.value.message
    assert_sentence(refused.value.message)
    assert frozen(game) == before


def alice_knowing_nine_cards():
    """Alice takes rows 4, 3 and 2 (goats, moles, bears): 9 of her 10 cards are known."""
    game = new_game()
    set_rows(game)
    for k, put in ((4, "dog dog dog dog"), (3, "sheep sheep sheep"), (2, "mouse mouse")):
        game.apply(Swap("alice", k, cards(put)))
        game.apply(Swap("bob", 1, cards("pig" if game.row(1) != cards("pig") else "rabbit")))
        game.apply(Swap("carol", 1, cards("pig" if game.row(1) != cards("pig") else "rabbit")))
    return game


def test_sudden_death_needs_room_in_the_hand_for_every_copy() -> None:
    # alice takes rows 4, 3 and 2 (goats, moles, bears): 9 known cards, no room for 4 cats.
    game = alice_knowing_nine_cards()
    assert len(game.known["alice"]) == 9
    before = frozen(game)
    with pytest.raises(BadClaim) as refused:
        game.apply(SuddenDeath("alice", Animal.CAT))
    assert "that is more than 10 cards" in refused.value.message
    assert_sentence(refused.value.message)
    assert frozen(game) == before


def test_put_down_cards_must_fit_the_unknown_part_of_the_hand() -> None:
    # alice knows 9 cards (see above): she can put down at most 1 card that is not known.
    game = alice_knowing_nine_cards()
    before = frozen(game)
    with pytest.raises(BadCards) as refused:
        game.apply(Swap("alice", 2, cards("cat cat")))
    assert "so at most 1 other card can come from the hand" in refused.value.message
    assert_sentence(refused.value.message)
    assert frozen(game) == before
    game.apply(Swap("alice", 2, cards("goat cat")))  # one known goat and one card from the hand


def eliminated_game() -> Game:
    game = new_game(rules=QUICK)
    for _ in range(3):
        play_round(game, CAROL_LOSES)
    assert game.lives["carol"] == 0
    return game


@pytest.mark.parametrize(
    "action",
    [
        SetStarter("carol"),
        Swap("carol", 1, cards("pig")),
        Knock("carol"),
        Pass("carol"),
        SuddenDeath("carol", Animal.CAT),
    ],
    ids=repr,
)
def test_eliminated_player_is_refused(action: Action) -> None:
    game = eliminated_game()
    set_rows(game)
    before = frozen(game)
    with pytest.raises(UnknownPlayer) as refused:
        game.apply(action)
    assert refused.value.message == "Carol is out of the game."
    assert frozen(game) == before


def test_eliminated_player_cannot_declare() -> None:
    game = eliminated_game()
    set_rows(game)
    game.apply(Knock(game.turn))
    game.apply(Pass(game.turn))
    before = frozen(game)
    with pytest.raises(UnknownPlayer, match="Carol is out of the game."):
        game.apply(DeclareHand("carol", cards("10 dog")))
    assert frozen(game) == before


def test_nothing_after_the_game_is_over() -> None:
    game = eliminated_game()
    play_round(game, {"alice": "4 giraffe 6 sheep", "bob": "5 pig 5 rabbit"})  # bob 2 -> 0
    assert game.is_over
    before = frozen(game)
    for action in (SetRow(1, cards("pig")), Knock("alice"), SuddenDeath("alice", Animal.CAT)):
        with pytest.raises(WrongPhase) as refused:
            game.apply(action)
        assert refused.value.message.startswith("The game is over: Alice won.")
        assert_sentence(refused.value.message)
    assert frozen(game) == before


def test_no_game_yet() -> None:
    log = GameLog()
    with pytest.raises(WrongPhase, match="No game yet"):
        log.apply(Knock("alice"))
    referee = Referee()
    reply = referee.handle("alice knocks")
    assert not reply.ok and reply.error.startswith("No game yet")
    assert referee.state() == {"players": [], "winners": [], "round": 0, "phase": "no_game"}


@pytest.mark.parametrize(
    ("players", "message"),
    [
        (("alice", "bob"), "Life is Life is played by 3 to 5 players; you named 2."),
        (("a", "b", "c", "d", "e", "f"), "you named 6"),
        (("alice", "bob", "alice"), "Two players are called Alice"),
        (("istanbul", "bob", "\u0131stanbul"), "Two players are called Istanbul"),
        (("alice", "bob", "c3po"), "A player's name is one word of letters (a hyphen or an apostrophe may join its parts); 'c3po' is not."),
    ],
)
def test_bad_new_game(players: tuple[str, ...], message: str) -> None:
    with pytest.raises(RuleError) as refused:
        Game.new(NewGame(players))
    assert message in refused.value.message
    assert_sentence(refused.value.message)


def test_starter_after_the_first_turn_keeps_the_starter() -> None:
    game = base_game()
    game.apply(Swap("alice", 1, cards("pig")))
    with pytest.raises(WrongPhase, match="Alice started this round"):
        game.apply(SetStarter("bob"))
    assert game.starter == "alice" and game.turn == "bob"
