"""The command language against its table (``sentences.tsv``: sentence -> canonical command or
``!`` and part of the error), canonical round trips and "did you mean" suggestions."""

from __future__ import annotations

from pathlib import Path

import pytest

from assistant.commands import Command, ParseError, canonical, command_for, parse
from assistant.commands.grammar import EXAMPLES, RESERVED_WORDS, TEMPLATES
from engine.actions import DeclareHand, Knock, NewGame, Pass, SetRow, SetStarter, SuddenDeath, Swap
from engine.deck import Animal, Cards

PLAYERS = ("alice", "bob", "carol")
TABLE = Path(__file__).with_name("sentences.tsv")


def load_table() -> list[tuple[str, str]]:
    rows = []
    for number, line in enumerate(TABLE.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        sentence, sep, expected = line.partition("\t")
        assert sep, f"sentences.tsv line {number}: no tab"
        rows.append((sentence, expected.strip()))
    return rows


SENTENCES = load_table()


@pytest.mark.parametrize(("sentence", "expected"), SENTENCES, ids=[s or "empty" for s, _ in SENTENCES])
def test_sentence_table(sentence: str, expected: str) -> None:
    if expected.startswith("!"):
        with pytest.raises(ParseError) as refused:
            parse(sentence, PLAYERS)
        assert expected[1:] in refused.value.message
        return
    command = parse(sentence, PLAYERS)
    assert command.canonical == expected
    # The canonical form is itself a command that means the same.
    again = parse(command.canonical, PLAYERS)
    assert again == command and again.canonical == expected


def test_the_table_covers_every_intent_and_variant() -> None:
    parsed = [parse(s, PLAYERS) for s, e in SENTENCES if not e.startswith("!")]
    assert {c.intent for c in parsed} == set(TEMPLATES)
    text = " ".join(s.lower() for s, _ in SENTENCES)
    for variant in (" mice", " sheep", " hare", ",", " and ", " two ", " a ", " an ", "swaps row",
                    "row two is bear and mole", "has all the pigs", "pig pig", "three"):
        assert variant in text, variant
    assert any(s != s.lower() for s, _ in SENTENCES)  # case-insensitivity


def test_the_table_covers_every_animal_word() -> None:
    from assistant.commands.grammar import ANIMAL_WORDS

    words = {w for s, _ in SENTENCES for w in s.lower().replace(",", " ").split()}
    missing = {w for w in ANIMAL_WORDS if w not in words}
    # singular and plural of every animal, and hare/hares, appear somewhere in the table
    assert not missing, missing


@pytest.mark.parametrize(
    ("action", "text"),
    [
        (NewGame(("alice", "bob", "carol")), "new game alice bob carol"),
        (SetStarter("bob", by_lot=True), "bob starts"),
        (SetRow(3, Cards.of("cat", "pig", "pig")), "row 3 pig pig cat"),
        (Swap("alice", 2, Cards.of("dog", "bear")), "alice swaps 2 bear dog"),
        (Knock("carol"), "carol knocks"),
        (Pass("carol"), "carol passes"),
        (DeclareHand("alice", Cards({Animal.DOG: 5, Animal.GIRAFFE: 3, Animal.BEAR: 2})),
         "alice has 3 giraffe 2 bear 5 dog"),
        (SuddenDeath("bob", Animal.RABBIT), "bob has all rabbits"),
        (SuddenDeath("bob", Animal.CAT), "bob has all cats"),
        (SuddenDeath("bob", Animal.PIG), "bob has all pigs"),
    ],
)
def test_canonical_form_of_each_action(action, text: str) -> None:
    assert canonical(action) == text
    assert parse(text, PLAYERS).canonical == text
    assert command_for(action).canonical == text


def test_canonical_forms_are_lowercase_digits_and_deck_order() -> None:
    command = parse("Carol swaps Row Four: a Mouse, TWO cats and a Giraffe", PLAYERS)
    assert command.canonical == "carol swaps 4 giraffe cat cat mouse"
    assert command.canonical == command.canonical.lower()


@pytest.mark.parametrize("intent", sorted(EXAMPLES))
def test_every_help_example_parses_to_its_intent(intent: str) -> None:
    command = parse(EXAMPLES[intent].format(p="alice"), PLAYERS)
    assert command.intent == intent
    assert command.canonical == EXAMPLES[intent].format(p="alice")


@pytest.mark.parametrize(
    ("typed", "suggestion"),
    [
        ("alise knocks", "alice knocks"),
        ("carrol swaps 2 bear dog", "carol swaps 2 bear dog"),
        ("alice knoks", "alice knocks"),
        ("bob pases", "bob passes"),
        ("undoo", "undo"),
        ("redoo", "redo"),
        ("stauts", "status"),
        ("hlep", "help"),
        ("bob hass all cats", "bob has all cats"),
        ("new gmae alice bob carol", "new game alice bob carol"),
    ],
)
def test_misspellings_name_the_closest_command(typed: str, suggestion: str) -> None:
    with pytest.raises(ParseError) as refused:
        parse(typed, PLAYERS)
    assert refused.value.suggestion == suggestion
    assert f"'{suggestion}'" in refused.value.message
    parse(suggestion, PLAYERS)  # a suggestion is always a command


def test_unknown_name_with_a_command_shape_names_the_players() -> None:
    with pytest.raises(ParseError) as refused:
        parse("zed swaps 2 owl", PLAYERS)
    assert refused.value.message == "Zed is not playing: the players are Alice, Bob and Carol."


def test_any_name_before_a_game_but_not_the_language_itself() -> None:
    assert parse("zed knocks").player == "zed"
    assert parse("new game zed yann xavier").names == ("zed", "yann", "xavier")
    with pytest.raises(ParseError):
        parse("new game pig dog cat")
    for word in ("row", "undo", "pig", "mice", "two", "and"):
        assert word in RESERVED_WORDS


def test_command_is_a_plain_value() -> None:
    command = parse("row 2 bear mole", PLAYERS)
    assert command == Command("row", row=2, cards=Cards.of("bear", "mole"))
    assert command.is_game_action and not parse("status", PLAYERS).is_game_action
    with pytest.raises(ValueError):
        parse("status", PLAYERS).to_action()
