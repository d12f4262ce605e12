"""The rules of Life is Life, as pure Python.

No I/O, no UI, no audio, no global randomness: the assistant package feeds actions in and turns
the events that come out into sentences. See ``engine.game.Game`` for the entry point.
"""

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
from engine.deck import ANIMALS, COPIES, DECK_SIZE, Animal, Cards
from engine.errors import RuleError
from engine.game import Game, Phase
from engine.log import GameLog
from engine.rules import HouseRules

__all__ = [
    "ANIMALS",
    "COPIES",
    "DECK_SIZE",
    "Action",
    "Animal",
    "Cards",
    "DeclareHand",
    "Game",
    "GameLog",
    "HouseRules",
    "Knock",
    "NewGame",
    "Pass",
    "Phase",
    "RuleError",
    "SetRow",
    "SetStarter",
    "SuddenDeath",
    "Swap",
]
