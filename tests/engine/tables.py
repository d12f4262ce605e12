"""Hand-made tables and rounds for the engine tests: fixed face-up rows, hands written as
``"3 giraffe 2 bear 5 dog"``, and a helper that plays one whole round through ``Game.apply``."""

from __future__ import annotations

import copy
import json
import re
from typing import Any

from assistant.table import TableState
from engine.actions import DeclareHand, Knock, NewGame, Pass, SetRow, SetStarter
from engine.deck import Animal, Cards
from engine.events import RoundEnded
from engine.game import Game, Phase
from engine.rules import HouseRules

PLAYERS = ("alice", "bob", "carol")

#: Face-up rows that leave every animal free for the hands below (1 giraffe, 2 bears, 3 moles,
#: 4 goats on the table).
ROWS = {1: "giraffe", 2: "bear bear", 3: "mole mole mole", 4: "goat goat goat goat"}

#: Rules under which a start player may knock at once, so a round is knock, pass, pass, reveal.
QUICK = HouseRules(knock_requires_swap=False)

# Hands for three players (RULES.md, Scoring). In the comments: what each one scores.
#: giraffe tied 3-3 (nobody); alice bear 8 + dog 6 = 14; bob pig 5; carol mole 7 (one card
#: alone) + sheep 6 + cat 4 = 17. Losses: carol 0, alice 1, bob 2.
BASIC = {
    "alice": "3 giraffe 2 bear 5 dog",
    "bob": "3 giraffe 2 sheep 5 pig",
    "carol": "1 mole 4 sheep 1 dog 4 cat",
}
#: The BASIC hands moved round so that carol is lowest (-2), bob middle (-1), alice highest.
CAROL_LOSES = {"alice": BASIC["carol"], "bob": BASIC["alice"], "carol": BASIC["bob"]}
#: alice giraffe 9 + sheep 6 = 15, carol bear 8 + mole 7 = 15 (tied highest), bob 12.
TIED_HIGHEST = {
    "alice": "4 giraffe 6 sheep",
    "bob": "5 pig 2 mouse 3 cat",
    "carol": "5 bear 4 mole 1 mouse",
}
#: alice 15; bob pig 5 + rabbit 5 = 10; carol dog 6 + cat 4 = 10 (tied lowest).
TIED_LOWEST = {
    "alice": "4 giraffe 6 sheep",
    "bob": "5 pig 5 rabbit",
    "carol": "4 dog 4 cat 2 giraffe",
}
#: Everyone holds the same: every animal is tied, every total is 0.
ALL_EQUAL = {p: "2 giraffe 2 bear 1 mole 1 goat 2 sheep 2 dog" for p in PLAYERS}
#: Two players alive (carol out): alice holds a single mole nobody else has. With the house
#: rule on it scores nothing: alice 11 (sheep 6 + pig 5) < bob 12; off: alice 18 > bob 12.
TWO_ALIVE = {"alice": "1 mole 4 sheep 5 pig", "bob": "5 rabbit 3 cat 2 mouse"}
#: Two alive, bob clearly lower: alice 9 + 6 = 15, bob 5.
TWO_ALIVE_BOB_LOSES = {"alice": "4 giraffe 6 sheep", "bob": "5 pig 5 rabbit"}

FOUR = ("alice", "bob", "carol", "dave")
#: Four players: carol 17 (highest), alice 15 and bob 13 lose 1, dave 8 loses 2.
FOUR_DAVE_LOSES = {
    "alice": "4 giraffe 6 sheep",
    "bob": "5 bear 5 pig",
    "carol": "4 mole 4 dog 2 cat",
    "dave": "2 dog 1 cat 3 mouse 4 rabbit",
}


def cards(text: str) -> Cards:
    """``"3 giraffe 2 bear"`` or ``"pig pig cat"`` -> Cards."""
    counts: dict[Animal, int] = {}
    for count, name in re.findall(r"(?:(\d+)\s+)?([a-z]+)", text):
        animal = Animal(name)
        counts[animal] = counts.get(animal, 0) + int(count or 1)
    return Cards(counts)


def new_game(
    players: tuple[str, ...] = PLAYERS, rules: HouseRules | None = None, starter: str | None = None
) -> Game:
    game, _ = Game.new(NewGame(players), rules)
    game.apply(SetStarter(starter or players[0]))
    return game


def set_rows(game: Game, rows: dict[int, str] | None = None) -> None:
    for k, text in (rows or ROWS).items():
        game.apply(SetRow(k, cards(text)))


def play_round(game: Game, hands: dict[str, str], rows: dict[int, str] | None = None) -> RoundEnded:
    """One whole round under QUICK-like rules: rows, the start player knocks, everyone else
    passes, the hands are declared; returns the round's ``RoundEnded``."""
    assert game.phase is Phase.ROWS, game.phase
    rounds_before = len(game.rounds)
    set_rows(game, rows)
    game.apply(Knock(game.turn))
    while game.phase is Phase.FINAL_TURNS:
        game.apply(Pass(game.turn))
    assert game.phase is Phase.REVEAL
    for player in game.alive:
        game.apply(DeclareHand(player, cards(hands[player])))
    assert len(game.rounds) == rounds_before + 1
    return game.rounds[-1]


def public(game: Game) -> dict[str, Any]:
    """The game's public state as plain data: the table model's (``lifeguard status --json``),
    the one place that says what of a game is shown."""
    return TableState.of(game).status_json()


def frozen(game: Game) -> str:
    """The whole public state as one comparable string."""
    return json.dumps(copy.deepcopy(public(game)), sort_keys=True)


#: What a sentence for the table looks like: a capital (or a quote) first, an end mark last,
#: and none of Python's inner workings.
_NOT_FOR_PEOPLE = ("Traceback", "Cards(", "Animal.", "None", "<", "{", "}", "Error:")


def assert_sentence(message: str) -> None:
    assert message, "empty message"
    assert message[0].isupper() or message[0].isdigit() or message[0] in "'\"", message
    assert message.rstrip()[-1] in ".!?", message
    assert "\n" not in message, message
    for bad in _NOT_FOR_PEOPLE:
        assert bad not in message, f"{bad!r} in {message!r}"
