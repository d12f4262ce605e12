"""Questions, 'yes' and 'no' (issue 10, items 2 and 3, and the heard-command API for voice).

A question is answered only by the very next command; any other command drops it and says so;
'no' takes back only a pending question or a heard command just applied; a refused command
changes nothing, not even the question or what 'no' would take back.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence

from assistant.commands import parse
from assistant.referee import Entry, Referee
from engine.rules import HouseRules

ROWS = ["row 1 giraffe", "row 2 bear bear", "row 3 mole mole mole", "row 4 goat goat goat goat"]


class RecordingJournal:
    """A journal that remembers every call, to show a question writes nothing."""

    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def new_game(self, players: Sequence[str], rules: HouseRules) -> None:
        self.calls.append(("new_game", tuple(players)))

    def append(self, entries: Sequence[Entry], cursor_before: int) -> None:
        self.calls.append(("append", tuple(e.command for e in entries), cursor_before))

    def move_cursor(self, cursor: int) -> None:
        self.calls.append(("move_cursor", cursor))

    def finish(self, winners: Sequence[str]) -> None:
        self.calls.append(("finish", tuple(winners)))


def referee(*lines: str, journal: RecordingJournal | None = None) -> Referee:
    ref = Referee(rng=random.Random(0), journal=journal)
    for line in lines:
        reply = ref.handle(line)
        assert reply.ok and not reply.question, (line, reply)
    return ref


def state(ref: Referee) -> str:
    return json.dumps([ref.state(), ref.history()], sort_keys=True)


def heard(ref: Referee, text: str):
    return ref.execute(parse(text, ref.players or None), heard=True)


def test_a_stale_yes_does_not_start_a_new_game() -> None:
    ref = referee("new game alice bob carol")
    question = ref.handle("new game dave erin frank")
    assert question.ok and question.question
    reply = ref.handle("row 1 pig")
    assert reply.ok and reply.said[0] == "The question about the new game with Dave, Erin and Frank was dropped; it was not started."
    assert reply.said[1] == "Row 1: pig. Still missing: row 2, 3, 4."
    assert ref.handle("row 2 cat cat").said[0] == "Row 2: cat and cat. Still missing: row 3, 4."
    assert ref.handle("undo").ok
    before = state(ref)
    reply = ref.handle("yes")
    assert not reply.ok and reply.error == "Nothing to confirm."
    assert ref.players == ("alice", "bob", "carol") and state(ref) == before
    assert ref.handle("undo").said[0] == "Undone: row 1 pig."


def test_no_after_a_refused_command_does_not_undo_a_real_move() -> None:
    ref = referee("new game alice bob carol", "alice starts",
                  *ROWS, "alice swaps 1 pig")
    assert ref.handle("bob knocks").ok is False  # bob has not swapped: refused, nothing changes
    assert ref.handle("bob swaps 1 cat").ok
    assert ref.handle("carol swaps 1 dog").ok
    assert ref.handle("alice knocks").ok
    before = state(ref)
    refused = ref.handle("bbo passes")
    assert not refused.ok and "Did you mean 'bob passes'?" in refused.error
    reply = ref.handle("no")
    assert not reply.ok
    assert reply.error == ("There is no question to say no to. To take back 'alice knocks', "
                           "say 'undo'.")
    assert state(ref) == before
    assert ref.handle("undo").said[0] == "Undone: alice knocks."


def test_no_with_nothing_played_is_refused() -> None:
    assert Referee().handle("no").error == ("There is no question to say no to, and nothing "
                                           "to take back.")
    ref = referee("new game alice bob carol")
    assert ref.handle("no").error == ("There is no question to say no to, and nothing to take "
                                      "back.")


def test_a_heard_sudden_death_is_asked_about_and_applied_on_yes_only() -> None:
    journal = RecordingJournal()
    ref = referee("new game alice bob carol", "alice starts", *ROWS, journal=journal)
    before, calls = state(ref), len(journal.calls)
    reply = heard(ref, "bob has all the pigs")
    assert reply.ok and reply.question and reply.intent == "sudden_death"
    assert reply.command == "bob has all pigs"
    assert reply.said == ["Heard: Bob has all pigs. Say yes to apply it, or no."]
    assert reply.to_json()["question"] is True
    assert state(ref) == before and len(journal.calls) == calls  # nothing applied, nothing saved
    assert ref.question == "bob has all pigs"
    applied = ref.handle("yes")
    assert applied.ok and not applied.question
    assert applied.said[:2] == ["Applied.", "Sudden death! Bob has all pigs."]
    assert journal.calls[calls][0] == "append" and journal.calls[calls][1] == ("bob has all pigs",)
    assert ref.question is None


def test_yes_to_a_heard_hand_says_who_is_left_not_the_hand_again() -> None:
    """The question has just read the hand out card by card; the answer to "yes" does not say
    it again (the table does not listen while it speaks), but the game holds it."""
    ref = referee("new game alice bob carol", "alice starts", *ROWS, "alice swaps 1 pig",
                  "bob swaps 1 cat", "carol swaps 1 dog", "alice knocks", "bob passes", "carol passes")
    asked = heard(ref, "alice has three giraffes two bears five dogs")
    assert asked.said == ["Heard: Alice has 3 giraffes, 2 bears and 5 dogs. Say yes to apply it, or no."]
    assert ref.handle("yes").said == ["Applied.", "Waiting for Bob and Carol."]
    assert ref.history()[-1] == "alice has 3 giraffe 2 bear 5 dog"
    typed = ref.handle("bob has pig 2 giraffe 2 bear 5 sheep")  # typed: applied at once, and said
    assert typed.said == ["Bob has 2 giraffes, 2 bears, 5 sheep and a pig. Waiting for Carol."]
    heard(ref, "carol has cat giraffe 3 goat 5 rabbit")
    result = ref.handle("yes").said
    assert result[:2] == ["Applied.", "Carol 16 points: goats, rabbits and cats."], result


def test_no_drops_a_heard_question() -> None:
    ref = referee("new game alice bob carol", "alice starts", *ROWS)
    before = state(ref)
    heard(ref, "bob has all the pigs")
    reply = ref.handle("no")
    assert reply.ok and reply.said[0] == "Fine, bob has all pigs was not applied."
    assert state(ref) == before
    assert ref.handle("yes").error == "Nothing to confirm."


def test_any_other_command_drops_the_question_and_says_so() -> None:
    ref = referee("new game alice bob carol", "alice starts", *ROWS)
    heard(ref, "bob has all the pigs")
    reply = ref.handle("status")
    assert reply.said[0] == "Not applied: bob has all pigs."
    assert ref.handle("yes").error == "Nothing to confirm."
    heard(ref, "bob has all the pigs")
    reply = ref.handle("alice swaps 1 pig")
    assert reply.ok and reply.said[0] == "Not applied: bob has all pigs."
    assert ref.history()[-1] == "alice swaps 1 pig"


def test_a_refused_command_keeps_the_question_and_repeat_says_it_again() -> None:
    ref = referee("new game alice bob carol", "alice starts", *ROWS)
    question = heard(ref, "bob has all the pigs")
    assert not ref.handle("frank passes").ok
    assert not ref.handle("row 9 pig").ok
    assert ref.handle("repeat").said == question.said
    assert ref.handle("yes").said[:2] == ["Applied.", "Sudden death! Bob has all pigs."]


def test_a_heard_command_that_would_be_refused_is_refused_not_asked() -> None:
    ref = referee("new game alice bob carol", "alice starts", *ROWS)
    before = state(ref)
    reply = heard(ref, "bob has 3 giraffe 2 bear 5 dog")  # no hands before the reveal
    assert not reply.ok and not reply.question and reply.error
    assert state(ref) == before
    assert ref.handle("yes").error == "Nothing to confirm."
    assert not heard(Referee(), "bob has all the pigs").ok  # no game yet


def test_a_heard_game_command_is_applied_and_no_takes_exactly_it_back() -> None:
    journal = RecordingJournal()
    ref = referee("new game alice bob carol", "alice starts", *ROWS, "alice swaps 1 pig",
                  journal=journal)
    before = state(ref)
    reply = heard(ref, "bob swaps 2 cat cat")
    assert reply.ok and not reply.question and ref.history()[-1] == "bob swaps 2 cat cat"
    taken = ref.handle("no")
    assert taken.ok and taken.said[0] == "Taken back: bob swaps 2 cat cat."
    assert state(ref) == before and journal.calls[-1][0] == "move_cursor"
    # Only the very next command: a heard command followed by another is not taken back by no.
    heard(ref, "bob swaps 2 cat cat")
    ref.handle("status")
    assert not ref.handle("no").ok
    assert ref.history()[-1] == "bob swaps 2 cat cat"


def test_a_refused_command_keeps_what_no_would_take_back() -> None:
    ref = referee("new game alice bob carol", "alice starts", *ROWS, "alice swaps 1 pig")
    before = state(ref)
    heard(ref, "bob swaps 2 cat cat")
    assert not ref.handle("bbo passes").ok
    assert ref.handle("no").said[0] == "Taken back: bob swaps 2 cat cat."
    assert state(ref) == before


def test_a_heard_new_game_is_a_question_even_without_a_game() -> None:
    ref = Referee(rng=random.Random(0))
    reply = heard(ref, "new game alice bob carol")
    assert reply.ok and reply.question and ref.game is None
    assert reply.said == ["Heard: New game: Alice, Bob and Carol. Say yes to apply it, or no."]
    assert ref.handle("yes").ok and ref.players == ("alice", "bob", "carol")
    reply = heard(ref, "new game dave erin frank")
    assert reply.question and reply.said[-1] == "The current game would stay in the history."
    assert ref.handle("no").said[0] == "Fine, the new game was not started."
    assert ref.players == ("alice", "bob", "carol")


def test_a_new_question_replaces_the_old_one_and_says_so() -> None:
    ref = referee("new game alice bob carol", "alice starts", *ROWS)
    heard(ref, "bob has all the pigs")
    reply = ref.handle("new game dave erin frank")
    assert reply.question and reply.said[0] == "Not applied: bob has all pigs."
    assert ref.handle("yes").ok and ref.players == ("dave", "erin", "frank")


def test_a_typed_new_game_during_a_game_is_a_question_not_an_error() -> None:
    ref = referee("new game alice bob carol", "alice starts")
    reply = ref.handle("new game dave erin frank")
    data = reply.to_json()
    assert data["ok"] is True and data["question"] is True and "error" not in data
    assert "question" not in ref.handle("status").to_json()


def test_a_heard_swap_the_recogniser_completed_is_read_back_and_applied_on_yes() -> None:
    """A swap whose last card the recogniser filled in where the speaker seemed to stop
    (``Command.unsure``: "bob swaps row two cat [pause] dog" read "cat, cat") is asked about,
    not applied; "yes" applies it, "no" leaves the game as it was, and a sure one is applied."""
    from dataclasses import replace

    ref = referee("new game alice bob carol", *ROWS, "alice starts")
    before = state(ref)
    unsure = replace(parse("alice swaps 2 cat cat", ref.players), unsure=True)
    asked = ref.execute(unsure, heard=True)
    assert asked.ok and asked.question and ref.question == "alice swaps 2 cat cat"
    assert asked.said[0].startswith("Heard: ") and asked.said[0].endswith("Say yes to apply it, or no.")
    assert state(ref) == before
    assert ref.handle("yes").ok and ref.history()[-1] == "alice swaps 2 cat cat"
    assert ref.handle("undo").ok and state(ref) == before
    assert ref.execute(unsure, heard=True).question
    assert ref.handle("no").ok and state(ref) == before and ref.question is None
    typed = ref.execute(unsure)  # typed: the person said exactly this
    assert typed.ok and not typed.question and ref.history()[-1] == "alice swaps 2 cat cat"
    assert ref.handle("undo").ok
    sure = ref.execute(parse("alice swaps 2 cat cat", ref.players), heard=True)
    assert sure.ok and not sure.question and ref.history()[-1] == "alice swaps 2 cat cat"
