"""Typed refusals. The message is a sentence for the people at the table: it says what is wrong
and what would be accepted. A refused action never changes the game."""

from __future__ import annotations


class RuleError(Exception):
    """An action the rules do not allow now. ``str(error)`` is meant to be shown and spoken."""

    code = "rule"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class WrongPhase(RuleError):
    code = "phase"


class NotYourTurn(RuleError):
    code = "turn"


class UnknownPlayer(RuleError):
    code = "player"


class BadRow(RuleError):
    code = "row"


class BadCards(RuleError):
    code = "cards"


class BadHand(RuleError):
    code = "hand"


class BadClaim(RuleError):
    code = "claim"


class BadSetup(RuleError):
    code = "setup"
