"""The score sheet: per round ended, each player's points, lives lost and lives left.

Computed from the game's round results (``Game.rounds``): the lives before a round are the
lives its results left after the round before, and before the first round the lives a game
starts with (``engine.game.START_LIVES``, the engine's one statement of it). The table's score
sheet, the phone page's and ``lifeguard stats`` read this; none counts lives itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.deck import Animal
from engine.game import START_LIVES, Game


@dataclass(frozen=True, slots=True)
class SheetLine:
    """One player's line in one round."""

    name: str
    #: The round's points; None in a sudden death (nobody scores).
    points: int | None
    #: Lives actually lost (never more than the player had).
    lost: int
    #: The lives the round's result took (``RoundEnded.losses``: may exceed ``lost`` for a
    #: player going out with fewer lives left).
    penalty: int
    #: Lives left after the round.
    lives: int
    #: Out of the game in this round.
    out: bool


@dataclass(frozen=True, slots=True)
class SheetRound:
    """One round ended; players already out before it have no line."""

    round: int
    #: The claimant and animal of a sudden death, else None.
    sudden_death: tuple[str, Animal] | None
    lines: tuple[SheetLine, ...]

    def line(self, player: str) -> SheetLine | None:
        """``player``'s line, or None for a player out before this round."""
        return next((line for line in self.lines if line.name == player), None)


def lives_before_first_round(game: Game) -> dict[str, int]:
    """The lives every player starts the game with."""
    return dict.fromkeys(game.players, START_LIVES)


def score_sheet(game: Game | None) -> tuple[SheetRound, ...]:
    """Every round ended in ``game``, oldest first (empty without a game)."""
    if game is None:
        return ()
    lives = lives_before_first_round(game)
    sheet: list[SheetRound] = []
    for ended in game.rounds:
        lines: list[SheetLine] = []
        for p in game.players:
            if p not in ended.losses:  # out before this round
                continue
            lines.append(SheetLine(
                name=p, points=ended.points.get(p), lost=lives[p] - ended.lives[p],
                penalty=ended.losses[p], lives=ended.lives[p], out=p in ended.out))
            lives[p] = ended.lives[p]
        sheet.append(SheetRound(ended.round, ended.sudden_death, tuple(lines)))
    return tuple(sheet)
