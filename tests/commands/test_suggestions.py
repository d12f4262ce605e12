"""What a refused line suggests: a suggestion that Tab or Enter takes is the very line typed with
its misspelt words corrected (its cards, names and row kept); the closest command's made-up
example is only shown ("e.g. ..."), never offered to take."""

from __future__ import annotations

import io
import json
import random

import pytest

from assistant.cli.chat import run_chat
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
        # after Carol's swap the corrected row would be refused: no offer, but why (issue 36)
        "! I don't know the animal 'baer'. 'row 2 bear dog' would not be accepted now either. "
        "The rows are set once a round starts; row 2 changes only by a swap.",
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


# --------------------------------------------------------------------------- issue 36, item 12

#: Round 1 of Alice, Bob and Carol, Alice to start, the rows entered and Alice's swap: Bob's turn.
BOBS_TURN = [
    "new game alice bob carol",
    "alice starts",
    "row 1 giraffe",
    "row 2 bear bear",
    "row 3 mole mole mole",
    "row 4 goat goat goat goat",
    "alice swaps 1 pig",
]


def referee_after(lines: list[str]) -> Referee:
    referee = Referee(rng=random.Random(0), confirm_new_game=False)
    for line in lines:
        assert referee.handle(line).ok, line
    return referee


def test_a_correction_the_game_would_refuse_is_not_offered_and_the_refusal_says_why() -> None:
    referee = referee_after(BOBS_TURN)
    before = json.dumps(referee.state(), sort_keys=True)
    reply = referee.handle("carl passes")  # 'carol passes' on Bob's turn would be refused
    assert not reply.ok and reply.suggestion is None
    assert reply.error == ("There is no player 'carl'. 'carol passes' would not be accepted now either. "
                           "It's Bob's turn, not Carol's: expected 'bob swaps'.")
    assert "Did you mean" not in reply.error
    # a correction the game accepts is still offered, and taking it is accepted
    reply = referee.handle("bbo swaps 2 pig pig")
    assert reply.suggestion == "bob swaps 2 pig pig"
    assert json.dumps(referee.state(), sort_keys=True) == before
    assert referee.handle(reply.suggestion).ok


def test_of_two_corrections_only_the_one_the_game_accepts_is_offered() -> None:
    # 'gob' is Bob or Rob; on Bob's turn only Bob's swap would be accepted
    referee = referee_after(["new game alice bob rob", *BOBS_TURN[1:]])
    reply = referee.handle("gob swaps 2 pig pig")
    assert reply.suggestion == "bob swaps 2 pig pig"
    assert reply.error == "There is no player 'gob'. Did you mean 'bob swaps 2 pig pig'?"


def test_an_unknown_player_does_not_hide_the_lines_other_typos() -> None:
    assert refusal("xavier swop 2 pigg sheep").message == (
        "Xavier is not playing: the players are Alice, Bob and Carol. "
        "Also check 'swop' (swaps?) and 'pigg' (pig?).")
    assert refusal("dave knocks").message == "Dave is not playing: the players are Alice, Bob and Carol."


@pytest.mark.parametrize(
    ("typed", "suggestion"),
    [
        ("alice has for pigs", "alice has four pigs"),
        ("alice has all for cats", "alice has all four cats"),
        ("alice has 3 giraffe 2 bear for dog 1 cat", "alice has 3 giraffe 2 bear four dog 1 cat"),
    ],
)
def test_for_where_a_number_is_wanted_is_corrected_to_four(typed: str, suggestion: str) -> None:
    refused = refusal(typed)
    assert refused.suggestion == suggestion
    assert refused.message == f"'for' is not a number here. Did you mean '{suggestion}'?"


def test_for_as_a_word_of_the_grammar_stays_for() -> None:
    assert parse("alice swaps row 2 for bear dog", PLAYERS).canonical == "alice swaps 2 bear dog"
    assert parse("new game for ann ben cy", None).names == ("ann", "ben", "cy")


@pytest.mark.parametrize("typed", ["what now?", "whose turn?", "what next", "Whose turn is it?",
                                   "who is next?", "what now"])
def test_a_question_about_the_game_is_answered_by_status(typed: str) -> None:
    assert parse(typed, PLAYERS).intent == "status"
    assert referee_after(BOBS_TURN).handle(typed).ok


@pytest.mark.parametrize("typed", ["how do I swap?", "what is this", "who won?"])
def test_another_question_is_pointed_to_status_and_help_never_to_no(typed: str) -> None:
    refused = refusal(typed)
    assert refused.suggestion is None
    assert "Say 'status' for where the game stands and whose turn it is, or 'help' for all commands." \
        in refused.message
    assert "'no'" not in refused.message


@pytest.mark.parametrize(
    ("typed", "players", "canonical"),
    [
        ("anne marie swaps 3 pig pig cat", ("Anne-Marie", "Bob", "Carol"), "Anne-Marie swaps 3 pig pig cat"),
        ("Anne Marie knocks", ("Anne-Marie", "Bob", "Carol"), "Anne-Marie knocks"),
        ("o brien passes", ("O'Brien", "Bob", "Carol"), "O'Brien passes"),
        ("bob has all pigs", ("Anne-Marie", "Bob", "Carol"), "Bob has all pigs"),
    ],
)
def test_a_name_split_by_a_space_is_the_name(typed: str, players: tuple[str, ...], canonical: str) -> None:
    assert parse(typed, players).canonical == canonical


def test_a_new_game_of_two_words_that_make_a_players_name_keeps_them_two_players() -> None:
    assert parse("new game anne marie bob", ("Anne-Marie", "Bob", "Carol")).names == ("anne", "marie", "bob")


def test_a_split_name_with_a_typo_elsewhere_is_corrected_as_the_name() -> None:
    refused = refusal("anne marie swop 3 pig pig cat", ("Anne-Marie", "Bob", "Carol"))
    assert refused.suggestion == "Anne-Marie swaps 3 pig pig cat"
