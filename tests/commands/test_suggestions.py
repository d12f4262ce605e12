"""What a refused line suggests: a suggestion that Tab or Enter takes is the very line typed with
its misspelt words corrected (its cards, names and row kept); the closest command's made-up
example is only shown ("e.g. ..."), never offered to take."""

from __future__ import annotations

import io
import json
import random

import pytest

from assistant.cli import run_chat
from assistant.commands import ParseError, parse
from assistant.referee import Referee
from engine.deck import Cards

PLAYERS = ("alice", "bob", "carol")

#: Round 1 of Alice, Bob and Carol, Carol to start; Carol has put down cat and mouse for row 2.
ROUND_ONE = [
    "new game alice bob carol",
    "carol starts",
    "row 1 bear",
    "row 2 pig dog",
    "row 3 pig pig cat",
    "row 4 goat goat mole mole",
    "carol swaps 2 cat mouse",
]


def refusal(text: str, players: tuple[str, ...] | None = PLAYERS) -> ParseError:
    with pytest.raises(ParseError) as refused:
        parse(text, players)
    return refused.value


@pytest.mark.parametrize(
    ("typed", "players", "suggestion"),
    [
        # the misspelt verb corrected, the row and the cards as typed (not 'bear dog')
        ("alice swop 2 pig sheep", PLAYERS, "alice swaps 2 pig sheep"),
        # the names typed kept (not 'alice bob carol'), with or without a game
        ("ew game ann ben cy", PLAYERS, "new game ann ben cy"),
        ("ew game Ann Ben Cy", None, "new game Ann Ben Cy"),
        # a misspelt animal: the whole line, the word corrected
        ("row 2 baer dog", PLAYERS, "row 2 bear dog"),
        ("row 2 baer dgo", PLAYERS, "row 2 bear dog"),
        ("alice has 3 giraffe 2 baer 5 dgo", PLAYERS, "alice has 3 giraffe 2 bear 5 dog"),
        ("alice swaps row 2 and puts down two pigss", PLAYERS, "alice swaps row 2 and puts down two pigs"),
        ("alice has all pgs", PLAYERS, "alice has all pigs"),
        # a misspelt player, alone or with a misspelt verb
        ("alcie knocks", PLAYERS, "alice knocks"),
        ("alcie swop 2 pig sheep", PLAYERS, "alice swaps 2 pig sheep"),
        ("Alcie knocks", ("Alice", "Bob", "Carol"), "Alice knocks"),
    ],
)
def test_a_suggestion_is_the_line_typed_with_only_its_misspelt_words_corrected(
    typed: str, players: tuple[str, ...] | None, suggestion: str
) -> None:
    refused = refusal(typed, players)
    assert refused.suggestion == suggestion
    assert f"Did you mean '{suggestion}'?" in refused.message
    parse(suggestion, players)  # a suggestion is always a command


def test_the_suggestion_keeps_the_cards_row_and_player_that_were_understood() -> None:
    suggested = parse(refusal("alice swop 2 pig sheep").suggestion or "", PLAYERS)
    assert (suggested.intent, suggested.player, suggested.row) == ("swap", "alice", 2)
    assert suggested.cards == Cards.of("pig", "sheep")
    assert parse(refusal("ew game ann ben cy").suggestion or "", PLAYERS).names == ("ann", "ben", "cy")


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("row 2 baer dog", "I don't know the animal 'baer'. Did you mean 'row 2 bear dog'?"),
        ("row 2 baer dgo", "I don't know the animals 'baer' and 'dgo'. Did you mean 'row 2 bear dog'?"),
        ("alcie knocks", "There is no player 'alcie'. Did you mean 'alice knocks'?"),
        ("alice swop 2 pig sheep",
         "I didn't understand 'alice swop 2 pig sheep'. Did you mean 'alice swaps 2 pig sheep'?"),
    ],
)
def test_the_refusal_names_the_misspelt_words_and_the_whole_corrected_line(typed: str, message: str) -> None:
    assert refusal(typed).message == message


@pytest.mark.parametrize(
    ("typed", "example"),
    [
        ("alice swaps", "alice swaps 2 bear dog"),  # no row, no cards: nothing to correct
        ("florp the pig", "row 3 pig pig cat"),
        ("alice knocks now", "alice knocks"),
    ],
)
def test_a_made_up_example_is_shown_but_never_offered_to_take(typed: str, example: str) -> None:
    refused = refusal(typed)
    assert refused.suggestion is None
    assert f"e.g. '{example}'" in refused.message
    assert "Did you mean" not in refused.message


def test_the_referee_offers_the_corrected_line_and_changes_nothing_until_it_is_taken() -> None:
    referee = Referee(rng=random.Random(0), confirm_new_game=False)
    for line in ROUND_ONE:
        assert referee.handle(line).ok, line
    before = json.dumps(referee.state(), sort_keys=True)
    reply = referee.handle("alice swop 2 pig sheep")
    assert not reply.ok and reply.suggestion == "alice swaps 2 pig sheep"
    assert json.dumps(referee.state(), sort_keys=True) == before
    taken = referee.handle(reply.suggestion)
    assert taken.ok and taken.command == "alice swaps 2 sheep pig"
    assert referee.game is not None and referee.game.rows[1] == Cards.of("pig", "sheep")
    # a made-up example is no suggestion in the reply (nor in its JSON)
    example = referee.handle("bob swaps").to_json()
    assert example["ok"] is False and "suggestion" not in example and "e.g. 'bob swaps 2 bear dog'" in example["error"]


def test_chat_shows_the_corrected_line_and_the_example() -> None:
    lines = [*ROUND_ONE, "alice swop 2 pig sheep", "row 2 baer dog", "alice swaps"]
    out = io.StringIO()
    run_chat(Referee(rng=random.Random(0), confirm_new_game=False), False,
             io.BytesIO("\n".join(lines).encode() + b"\n"), out)  # type: ignore[arg-type]
    refusals = [line for line in out.getvalue().splitlines() if line.startswith("! ")]
    assert refusals == [
        "! I didn't understand 'alice swop 2 pig sheep'. Did you mean 'alice swaps 2 pig sheep'?",
        "! I don't know the animal 'baer'. Did you mean 'row 2 bear dog'?",
        "! I didn't understand 'alice swaps'. The closest command is of the form e.g. "
        "'alice swaps 2 bear dog'; say 'help' for all commands.",
    ]


@pytest.mark.parametrize(
    ("typed", "players", "meant"),
    [
        # as near as each other, different commands: two or ten pigs? Bob or Rob?
        ("bob has 3 dog teo pig 5 cat", PLAYERS, ["bob has 3 dog ten pig 5 cat", "bob has 3 dog two pig 5 cat"]),
        ("gob swaps 1 pig", ("bob", "rob", "carol"), ["bob swaps 1 pig", "rob swaps 1 pig"]),
        ("bob swaps 4 mole goat sheep mose", PLAYERS,
         ["bob swaps 4 mole goat sheep mouse", "bob swaps 4 mole goat sheep mole"]),
        # within a slip of the nearest: 'bare' is one slip from 'hare', two from 'bear' (meant)
        ("bob swaps 2 bare dog", PLAYERS, ["bob swaps 2 hare dog", "bob swaps 2 bear dog"]),
        ("alice has thre giraffe 3 bear 4 dog", PLAYERS,
         ["alice has three giraffe 3 bear 4 dog", "alice has hare giraffe 3 bear 4 dog"]),
    ],
)
def test_corrections_that_mean_different_commands_are_named_and_none_is_taken(
        typed: str, players: tuple[str, ...], meant: list[str]) -> None:
    refused = refusal(typed, players)
    assert refused.suggestion is None  # the table must not pick for the person
    asked = refused.message.split("Did you mean ", 1)[1].removesuffix("?")
    assert sorted(asked.split(" or ")) == sorted(f"'{m}'" for m in meant)
