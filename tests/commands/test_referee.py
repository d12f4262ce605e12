"""The referee session as front ends use it: meta commands (undo, redo, status, repeat, help,
yes, no), new-game confirmation, announcements and the JSON shapes of a reply and a state."""

from __future__ import annotations

import json
import random

from assistant.announce import expecting, heard_readback, readback
from assistant.commands import canonical, parse
from assistant.referee import Referee
from engine.simulate import simulate_game

ROWS = ["row 1 giraffe", "row 2 bear bear", "row 3 mole mole mole", "row 4 goat goat goat goat"]


def referee(*lines: str, seed: int = 0) -> Referee:
    ref = Referee(rng=random.Random(seed))
    for line in lines:
        reply = ref.handle(line)
        assert reply.ok, (line, reply.error)
    return ref


def state(ref: Referee) -> str:
    return json.dumps(ref.state(), sort_keys=True)


def test_before_any_game() -> None:
    ref = Referee()
    assert ref.handle("status").said == ["No game yet. Start one with 'new game' and 3 to 5 names."]
    for line, error in [("undo", "Nothing to undo."), ("redo", "Nothing to redo."),
                        ("yes", "Nothing to confirm."), ("row 1 pig", "No game yet")]:
        reply = ref.handle(line)
        assert not reply.ok and reply.error.startswith(error)
    assert ref.handle("help").said[0] == "Commands:"


def test_new_game_announces_players_house_rules_and_the_drawn_start_player() -> None:
    reply = Referee(rng=random.Random(3)).handle("New game Alice, Bob and Carol")
    assert reply.ok and reply.command == "new game Alice Bob Carol" and reply.intent == "new_game"
    assert reply.said[0] == "New game: Alice, Bob and Carol, 5 lives each."
    assert "You may knock only after your first swap." in reply.said
    assert reply.said[-2].startswith("By lot, ") and reply.said[-2].endswith(" starts.")
    assert reply.said[-1] == "Round 1: enter row 1, 2, 3, 4."


def test_a_new_game_during_a_game_needs_a_yes() -> None:
    ref = referee("new game alice bob carol", "alice starts", *ROWS)
    before = state(ref)
    reply = ref.handle("new game dora eve fred")
    assert reply.ok and reply.question and reply.to_json()["question"] is True
    assert "Say 'yes' to start the new game with Dora, Eve and Fred" in reply.said[0]
    assert reply.said[0].endswith("or 'no' to go on with this one.")  # both answers named
    assert state(ref) == before
    assert ref.handle("no").said[0] == "Fine, the new game was not started."
    assert state(ref) == before
    ref.handle("new game dora eve fred")
    assert ref.handle("yes").ok
    assert ref.players == ("dora", "eve", "fred")
    assert ref.history()[0] == "new game dora eve fred"


def test_undo_and_redo_walk_the_log_and_a_new_command_drops_the_undone() -> None:
    ref = referee("new game alice bob carol", "alice starts", *ROWS, "alice swaps 1 pig")
    full = state(ref)
    assert ref.handle("undo").said == ["Undone: alice swaps 1 pig.", "Alice's turn: swap."]
    assert ref.handle("take it back").said[0] == "Undone: row 4 goat goat goat goat."
    assert ref.handle("redo").said[0] == "Redone: row 4 goat goat goat goat."
    assert ref.handle("redo").ok and state(ref) == full
    assert not ref.handle("redo").ok
    ref.handle("undo")
    assert ref.handle("alice swaps 2 pig pig").ok  # a new command replaces what was undone
    reply = ref.handle("redo")
    assert not reply.ok and reply.error == "Nothing to redo."
    assert ref.history()[-1] == "alice swaps 2 pig pig"


def test_undo_stops_at_the_start_of_the_game() -> None:
    ref = referee("new game alice bob carol")
    reply = ref.handle("undo")
    assert not reply.ok and reply.error == "Nothing to undo: the game has just started."
    assert ref.players == ("alice", "bob", "carol")


def test_repeat_says_the_last_announcement_again_and_errors_are_not_repeated() -> None:
    ref = referee("new game alice bob carol", "alice starts", "row 1 giraffe")
    assert ref.handle("row 9 pig").ok is False
    assert ref.handle("repeat").said == ["Row 1: giraffe. Still missing: row 2, 3, 4."]
    assert ref.handle("say that again").said == ["Row 1: giraffe. Still missing: row 2, 3, 4."]


def test_status_and_expecting_follow_the_phases() -> None:
    ref = referee("new game alice bob carol", "alice starts")
    assert ref.handle("status").said == ["Round 1. Alice 5 lives, Bob 5 lives, Carol 5 lives.",
                                         "Round 1: enter row 1, 2, 3, 4."]
    for line in ROWS:
        ref.handle(line)
    assert expecting(ref.game) == "Alice's turn: swap."
    ref.handle("alice swaps 1 pig")
    ref.handle("bob swaps 1 cat")
    ref.handle("carol swaps 1 dog")
    assert expecting(ref.game) == "Alice's turn: swap or knock."
    ref.handle("alice knocks")
    assert expecting(ref.game) == "Bob's last turn: swap or pass."
    ref.handle("bob passes")
    ref.handle("carol passes")
    assert expecting(ref.game) == "Reveal hands: waiting for Alice, Bob and Carol."
    assert ref.state()["expecting"] == expecting(ref.game)


def test_a_round_is_announced_scorer_by_scorer_with_the_animals_they_won() -> None:
    ref = referee("new game alice bob carol", "alice starts", *ROWS,
                  "alice swaps 1 pig", "bob swaps 1 cat", "carol swaps 1 dog",
                  "alice knocks", "bob passes", "carol passes",
                  "alice has 3 giraffe 2 bear 5 dog", "bob has 3 giraffe 2 sheep 4 pig 1 cat")
    reply = ref.handle("carol has 1 giraffe 1 mole 4 sheep 3 cat 1 pig")
    assert reply.ok
    assert reply.said == [
        "Carol has a giraffe, a mole, 4 sheep, a pig and 3 cats.",
        "Carol 17 points: moles, sheep and cats.",
        "Alice 14 points: bears and dogs.",
        "Bob 5 points: pigs.",
        "Tied, nobody scores: giraffes.",
        "Alice loses 1 life. Bob loses 2 lives.",
        "Round 2. Bob starts. Enter the four rows.",
    ]


def test_sudden_death_is_announced() -> None:
    ref = referee("new game alice bob carol", "alice starts", *ROWS)
    reply = ref.handle("bob has all the pigs")
    assert reply.said[:2] == ["Sudden death! Bob has all pigs.", "Alice and Carol lose 1 life each."]


def test_reply_json_shape() -> None:
    ref = referee("new game alice bob carol")
    ok = ref.handle("alice starts").to_json()
    assert ok == {"ok": True, "said": "Alice starts.", "command": "alice starts", "intent": "starts"}
    refused = ref.handle("alise starts").to_json()
    assert refused["ok"] is False and refused["said"] == ""
    assert refused["error"] == "There is no player 'alise'. Did you mean 'alice starts'?"
    assert refused["suggestion"] == "alice starts"


def test_readback_of_heard_commands() -> None:
    assert readback("alice swaps 2 bear dog", "swap") == "Alice swaps 2: bear and dog."
    assert readback("alice swaps 1 pig", "swap") == "Alice swaps 1: pig."
    assert readback("row 3 pig pig cat", "row") == "Row 3: pig, pig and cat."
    assert readback("bob knocks", "knock") == "Bob knocks."
    assert readback("undo", "undo") == "Undo."
    assert readback("new game alice bob carol", "new_game") == "New game: Alice, Bob and Carol."
    # A hand as a person says it, so that its holder hears a wrong card: not "1 bear 2 mole".
    assert (readback("judy has 2 giraffe 1 bear 2 mole 3 goat 1 sheep 1 dog", "hand")
            == "Judy has 2 giraffes, a bear, 2 moles, 3 goats, a sheep and a dog.")
    assert readback("bob has 1 mouse", "hand") == "Bob has a mouse."
    assert readback("bob has all pigs", "sudden_death") == "Bob has all pigs."


def test_an_applied_heard_command_is_read_back_by_its_answer() -> None:
    """Where the read-back is left out (``heard_readback``), the answer says the command again:
    whole simulated games heard command by command."""
    for players, seed in [(3, 0), (4, 1), (5, 2)]:
        lines = [canonical(action) for action in simulate_game(random.Random(seed), players=players)]
        ref = Referee(rng=random.Random(seed))
        assert ref.handle(lines[0]).ok
        for line in lines[1:]:
            command = parse(line, ref.game.players)
            reply = ref.execute(command, heard=True)
            assert reply.ok, (line, reply.error)
            if reply.question:
                assert heard_readback(line, command.intent, True, True) == []
                reply = ref.handle("yes")
                continue
            if heard_readback(line, command.intent, True, False):
                continue
            said = readback(line, command.intent).rstrip(".")  # "Alice swaps 2: cat and mouse"
            if command.intent == "swap":  # "Alice put down cat and mouse for row 2: ..."
                who, cards = said.split(" swaps ")[0], said.split(": ", 1)[1]
                named = [who, f"put down {cards} for row {line.split()[2]}"]
            elif command.intent == "knock" and "passes." in reply.said[0]:
                named = [said.replace("knocks", "passes")]  # a knock after a knock is a pass
            else:  # "Row 3: pig, pig and cat.", "Bob knocks!", "Bob passes.", "Bob starts."
                named = [said]
            assert all(part in reply.said[0] for part in named), (line, reply.said)
    assert heard_readback("carol knocks", "knock", False, False) == ["Carol knocks."]  # refused
