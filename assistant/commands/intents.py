"""The intents of the command language, one record each: every fact about an intent lives on it.

As hassil keeps an intent's sentences on its ``Intent`` and python-chess a move's facts on the
``Move``, an ``Intent`` holds its name, its sentence templates, its canonical form, its example
and what the table does with it (a game action, asked about when heard, read back by its
answer, an answer to a question, said again by "repeat"). The tables the readers use (``grammar.TEMPLATES``, ``grammar.CANONICAL``,
``grammar.EXAMPLES``, ``parser.GAME_INTENTS``, the referee's, the announcer's and the speech
recognisers' sets) are all derived from these records, so a new intent is one record.

The names are a ``StrEnum``: each is equal to (and hashes, prints and serialises as) the string
the stored logs, ``chat --jsonl`` and ``Reply.intent`` have always carried.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class IntentName(StrEnum):
    NEW_GAME = "new_game"
    SUDDEN_DEATH = "sudden_death"
    STARTS = "starts"
    ROW = "row"
    SWAP = "swap"
    KNOCK = "knock"
    PASS = "pass"
    HAND = "hand"
    UNDO = "undo"
    REDO = "redo"
    NO = "no"
    YES = "yes"
    STATUS = "status"
    REPEAT = "repeat"
    HELP = "help"


@dataclass(frozen=True)
class Intent:
    """One intent of the command language and what the table does with it."""

    name: IntentName
    #: Sentence templates (``grammar`` documents the syntax), tried in this order.
    templates: tuple[str, ...]
    #: The canonical form: ``str.format`` with the canonical slot values (``Command.canonical``).
    canonical: str
    #: An example for help texts and "did you mean" sentences; ``{p}`` is a player.
    example: str
    #: Applied to the game (an ``engine.actions`` action), rather than answered by the referee.
    game_action: bool = False
    #: Heard (not typed), it is only asked about, applied on 'yes': a mishearing would be costly
    #: (a whole hand, the end of a round by sudden death, a new game).
    asked_when_heard: bool = False
    #: Once applied, its answer says the command again ("Row 2: bear and dog.", "Bob knocks!",
    #: "Undone: ...") or is what was asked for ("status", "help"): that answer is its read-back,
    #: and a heard command is not read back before it as well.
    answer_reads_back: bool = False
    #: Said by the player whose turn it is, naming them first (the speech grammar weights it by
    #: the turn).
    turn_move: bool = False
    #: An answer to the question a heard command's read-back asks ("yes", "no"): the speech
    #: recognisers take it while a question waits without holding it to the free transcription.
    answer: bool = False
    #: Said while a question waits, it leaves the question standing instead of dropping it: an
    #: answer to it, or "repeat" (which says it again).
    keeps_question: bool = False
    #: Its answer is said aloud in full whatever the ``[voice] speech`` setting ("repeat": it is
    #: asked for).
    said_in_full: bool = False
    #: Its answer is what "repeat" says again (not "repeat" itself, nor the list of commands).
    remembered: bool = True

    @property
    def names_cards(self) -> bool:
        """Its sentences name cards (a ``{cards}`` slot): rows, swaps and hands."""
        return any("{cards}" in template for template in self.templates)

    @property
    def names_players(self) -> bool:
        """Its sentences name players (a ``{player}`` or ``{names}`` slot): without players
        known, no such command can be heard."""
        return any("{player}" in t or "{names}" in t for t in self.templates)


#: Every intent, in the order the parser tries them (first match wins): a sudden death before a
#: hand ('alice has all cats' is no hand of cards).
INTENTS: tuple[Intent, ...] = (
    Intent(IntentName.NEW_GAME, ("[start] [a] new game [with|for] {names}",),
           "new game {names}", "new game alice bob carol", game_action=True, asked_when_heard=True),
    Intent(IntentName.SUDDEN_DEATH,
           ("{player} (has|holds|shows|reveals) all [the|four|five] {sd_animal}",),
           "{player} has all {sd_animal}", "{p} has all cats", game_action=True,
           asked_when_heard=True),
    Intent(IntentName.STARTS, ("{player} (starts|begins|goes first|is first|plays first)",),
           "{player} starts", "{p} starts", game_action=True, answer_reads_back=True),
    Intent(IntentName.ROW, ("row {row} [is|has|holds|shows|with] {cards}",),
           "row {row} {cards}", "row 3 pig pig cat", game_action=True, answer_reads_back=True),
    Intent(IntentName.SWAP,
           ("{player} (swaps|swap|swapped|takes|took) [row|the row] {row} "
            "[and] [puts down|put down|for|with|gives|leaves] {cards}",),
           "{player} swaps {row} {cards}", "{p} swaps 2 bear dog", game_action=True,
           answer_reads_back=True, turn_move=True),
    Intent(IntentName.KNOCK, ("{player} (knocks|knock|knocked)",),
           "{player} knocks", "{p} knocks", game_action=True, answer_reads_back=True,
           turn_move=True),
    Intent(IntentName.PASS, ("{player} (passes|pass|passed)",),
           "{player} passes", "{p} passes", game_action=True, answer_reads_back=True,
           turn_move=True),
    Intent(IntentName.HAND, ("{player} (has|holds|had|shows|reveals) {cards}",),
           "{player} has {cards}", "{p} has 3 giraffe 2 bear 5 dog", game_action=True,
           asked_when_heard=True),
    Intent(IntentName.UNDO, ("undo [that|last]", "take [that|it] back"), "undo", "undo",
           answer_reads_back=True),
    Intent(IntentName.REDO, ("redo",), "redo", "redo", answer_reads_back=True),
    Intent(IntentName.NO, ("no", "wrong", "cancel"), "no", "no", answer_reads_back=True,
           answer=True, keeps_question=True),
    Intent(IntentName.YES, ("yes", "confirm", "correct"), "yes", "yes", answer_reads_back=True,
           answer=True, keeps_question=True),
    # A question about the game is answered by where it stands (issue 36: 'what now?' was
    # refused with "e.g. 'no'").
    Intent(IntentName.STATUS, ("status", "where are we", "score", "lives", "what now", "what next",
                               "whose turn [is it|now]", "who is next"),
           "status", "status", answer_reads_back=True),
    Intent(IntentName.REPEAT, ("repeat", "say again", "say that again", "again"), "repeat",
           "repeat", answer_reads_back=True, keeps_question=True, said_in_full=True,
           remembered=False),
    Intent(IntentName.HELP, ("help", "commands", "what can i say"), "help", "help",
           answer_reads_back=True, remembered=False),
)

#: Each intent's record by its name.
BY_NAME: dict[IntentName, Intent] = {i.name: i for i in INTENTS}

#: The order help lists the intents in (and "the closest command" is looked for): the game's own
#: order, a sudden death after the hands.
HELP_ORDER: tuple[IntentName, ...] = (
    IntentName.NEW_GAME, IntentName.STARTS, IntentName.ROW, IntentName.SWAP, IntentName.KNOCK,
    IntentName.PASS, IntentName.HAND, IntentName.SUDDEN_DEATH, IntentName.UNDO, IntentName.REDO,
    IntentName.NO, IntentName.YES, IntentName.STATUS, IntentName.REPEAT, IntentName.HELP,
)


def intent(name: str) -> Intent:
    """The record of the intent called ``name`` (an ``IntentName`` or its string)."""
    return BY_NAME[IntentName(name)]


#: The intents applied to the game (the others are answered by the referee).
GAME_INTENTS: frozenset[IntentName] = frozenset(i.name for i in INTENTS if i.game_action)
