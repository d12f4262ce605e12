"""The intent records (``assistant.commands.intents``): each one's example and canonical form are
commands of that intent, and the tables and sets the rest of Lifeguard reads are the records'."""

from __future__ import annotations

import json
import re

import pytest

from assistant import announce, referee
from assistant.commands import parse
from assistant.commands.grammar import CANONICAL, EXAMPLES, TEMPLATES
from assistant.commands.intents import BY_NAME, GAME_INTENTS, INTENTS, Intent, IntentName, intent
from assistant.commands.parser import Command
from assistant.store import decode
from assistant.table import expect
from assistant.voice import jsgf
from assistant.voice.whisper import recognizer as whisper_recognizer
from engine.deck import Animal, Cards

PLAYERS = ("alice", "bob", "carol")


@pytest.mark.parametrize("record", INTENTS, ids=[i.name.value for i in INTENTS])
def test_each_example_parses_to_its_intent_and_its_canonical_form_round_trips(record: Intent) -> None:
    command = parse(record.example.format(p="bob"), PLAYERS)
    assert command.intent is record.name
    assert command.record is record
    again = parse(command.canonical, PLAYERS)
    assert again == command and again.canonical == command.canonical


@pytest.mark.parametrize("record", INTENTS, ids=[i.name.value for i in INTENTS])
def test_the_canonical_form_writes_exactly_the_slots_the_templates_fill(record: Intent) -> None:
    slots = {frozenset(re.findall(r"\{(\w+)\}", t)) for t in record.templates}
    assert slots == {frozenset(re.findall(r"\{(\w+)\}", record.canonical))}


def test_the_names_are_the_strings_stored_logs_and_json_carry() -> None:
    assert [i.value for i in IntentName] == [
        "new_game", "sudden_death", "starts", "row", "swap", "knock", "pass", "hand",
        "undo", "redo", "no", "yes", "status", "repeat", "help"]
    assert [i.name for i in INTENTS] == list(IntentName)
    command = parse("bob knocks", PLAYERS)
    assert command.intent == "knock" and f"{command.intent}" == "knock"
    assert json.dumps({"intent": command.intent}) == '{"intent": "knock"}'
    assert intent("knock") is BY_NAME[IntentName.KNOCK]
    reply = referee.Referee().handle("help")
    assert reply.intent == "help" and '"intent": "help"' in json.dumps(reply.to_json())


def test_the_tables_and_sets_read_from_the_records_are_what_they_were() -> None:
    """Each set the referee, the announcer and the recognisers use, as it was written by hand
    before the records (a record's fact edited by mistake changes what the table does)."""
    assert GAME_INTENTS == {"new_game", "starts", "row", "swap", "knock", "pass", "hand", "sudden_death"}
    assert referee.QUESTIONED_WHEN_HEARD == {"hand", "sudden_death", "new_game"}
    assert announce.ANSWER_READS_BACK == {"starts", "row", "swap", "knock", "pass", "undo", "redo",
                                          "no", "yes", "status", "repeat", "help"}
    assert expect.META_INTENTS == ("undo", "redo", "no", "yes", "status", "repeat", "help")
    assert jsgf.TURN_INTENTS == {"swap", "knock", "pass"}
    assert whisper_recognizer.ANSWERS == ("no", "yes")
    assert set(whisper_recognizer.PLAYER_INTENTS) == {"starts", "swap", "knock", "pass", "hand",
                                                      "sudden_death", "new_game"}
    assert referee.SAID_IN_FULL == {"repeat"}
    assert {i.name for i in INTENTS if i.keeps_question} == {"yes", "no", "repeat"}
    assert {i.name for i in INTENTS if not i.remembered} == {"repeat", "help"}
    # Players known but no game state (``lifeguard hear --players``): any game command.
    assert expect.intent_weights(PLAYERS, None) == {
        "new_game": 1.0, "sudden_death": 0.3, "starts": 1.0, "row": 1.0, "swap": 1.0, "knock": 1.0,
        "pass": 1.0, "hand": 1.0, "undo": 1.0, "redo": 0.5, "no": 1.0, "yes": 0.5, "status": 0.5,
        "repeat": 0.5, "help": 0.5}
    assert tuple(i.name for i in INTENTS if i.names_cards) == ("row", "swap", "hand")
    assert [name for name, _ in decode._TEMPLATES] == [
        "sudden_death", "starts", "row", "swap", "knock", "pass", "hand"]
    assert list(TEMPLATES) == [i.name for i in INTENTS]
    assert CANONICAL["swap"] == "{player} swaps {row} {cards}"
    assert list(EXAMPLES) == ["new_game", "starts", "row", "swap", "knock", "pass", "hand",
                              "sudden_death", "undo", "redo", "no", "yes", "status", "repeat", "help"]


def test_a_parsed_command_carries_typed_slots() -> None:
    swap = parse("Bob takes row two and puts down bear, dog", PLAYERS)
    assert swap == Command(IntentName.SWAP, player="bob", row=2, cards=Cards.of("bear", "dog"))
    assert isinstance(swap.row, int) and swap.animal is None and swap.names == ()
    new_game = parse("new game Zoë Anne-Marie carl", None)
    assert new_game.names == ("Zoë", "Anne-Marie", "carl") and new_game.player is None
    sudden = parse("carol has all the hares", PLAYERS)
    assert (sudden.player, sudden.animal, sudden.canonical) == ("carol", Animal.RABBIT, "carol has all rabbits")
