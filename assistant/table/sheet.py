"""The score sheet: per round ended, each player's points, lives lost and lives left.

Computed from the game's round results (``Game.rounds``): the lives before a round are the
lives its results left after the round before, and before the first round the lives a game
starts with (``engine.game.START_LIVES``, the engine's one statement of it). The table's score
sheet, the phone page's and ``lifeguard stats`` read this; none counts lives itself. Its words
(``sheet_labels``, ``lives_left``, ``place_word``, ``sudden_death_note``) are the table's
language, said once here for every front end that draws the sheet.
"""

from __future__ import annotations

from dataclasses import dataclass

from assistant.i18n import animal_name, format, pgettext
from engine.deck import Animal
from engine.game import START_LIVES, Game
from engine.words import title


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


# ---------------------------------------------------------------------------- the sheet's words
@dataclass(frozen=True, slots=True)
class SheetLabels:
    """The score sheet's words in the table's language (``sheet_labels()``)."""

    #: The sheet's title: "Score sheet".
    title: str
    #: The rounds' column: "round".
    round: str
    #: A round's points, short: "pts".
    points: str
    #: Lives left: "lives".
    lives: str
    #: Lives lost in a round: "lost".
    lost: str
    #: A player out of the game, in capitals as the sheet marks it: "OUT".
    out: str
    #: The row of finishing places: "place".
    place: str
    #: A sudden death round's mark: "SD".
    sudden_death: str
    #: A majority tied, nobody scores: "tie".
    tie: str
    #: One card with two players left, no majority: "1 card: none".
    no_majority: str
    #: The sheet before any round ended: "No round has been scored yet."
    empty: str


def sheet_labels() -> SheetLabels:
    """The score sheet's words now (the language can change between games)."""
    return SheetLabels(
        title=pgettext("score sheet", "Score sheet"),
        round=pgettext("score sheet", "round"),
        points=pgettext("score sheet", "pts"),
        lives=pgettext("score sheet", "lives"),
        lost=pgettext("score sheet", "lost"),
        out=pgettext("score sheet", "OUT"),
        place=pgettext("score sheet", "place"),
        sudden_death=pgettext("score sheet", "SD"),
        tie=pgettext("score sheet", "tie"),
        no_majority=pgettext("score sheet", "1 card: none"),
        empty=pgettext("score sheet", "No round has been scored yet."),
    )


def lives_left(line: SheetLine) -> str:
    """A line's lives left and, in brackets, the lives the round took: ``3 (-2)``, ``OUT (-1)``."""
    left = sheet_labels().out if line.out else str(line.lives)
    return f"{left} (-{line.penalty})" if line.penalty else left


def place_word(place: int) -> str:
    """A finishing place as the sheet says it: ``1st``, ``4th``; ``1.``; ``1위``."""
    words = {1: pgettext("place", "1st"), 2: pgettext("place", "2nd"), 3: pgettext("place", "3rd")}
    return words.get(place) or format(pgettext("place", "{n}th"), n=place)


def sudden_death_note(ended: SheetRound) -> str | None:
    """The note under the sheet for a sudden death round (else None): who revealed which animal
    and what it cost the others."""
    if ended.sudden_death is None:
        return None
    player, animal = ended.sudden_death
    return format(pgettext("score sheet", "SD: sudden death in round {n}: {player} revealed all "
                                          "{animals}, every other player lost 1 life."),
                  n=ended.round, player=title(player), animals=animal_name(animal.value, 2))
