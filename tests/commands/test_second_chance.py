"""A second chance without repeating (issue 38, item 2), with a real referee on a real store.

'no' to a heard command's read-back offers the recogniser's next reading ("Or: ...?", once per
utterance, then "Say it again."); a repeat heard as the refused reading is taken as its best
reading that was not refused. The heard commands here carry the readings the recogniser gives
(``Command.readings``); ``tests/voice/test_second_chance_audio.py`` makes them from real audio.
"""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

from assistant import i18n
from assistant.commands import Command, parse
from assistant.config import Settings
from assistant.referee import Referee, Reply, spoken
from assistant.store import GameStore, open_session
from assistant.store.session import Session

ROWS = ["row 1 giraffe", "row 2 bear bear", "row 3 mole mole mole", "row 4 goat goat goat goat"]
OPENING = ["new game alice bob carol", "alice starts", *ROWS, "alice swaps 1 pig"]
#: Bob's turn after OPENING: these are legal.
SWAP = "bob swaps 2 cat cat"


def reading(ref: Referee, text: str, *others: str) -> Command:
    """``text`` as the recogniser would hand it over, with ``others`` as its next readings."""
    players = ref.players or None
    return replace(parse(text, players), readings=tuple(parse(o, players) for o in others))


def heard(ref: Referee, text: str, *others: str) -> Reply:
    return ref.execute(reading(ref, text, *others), heard=True)


def stored(data: Path) -> list[str]:
    with GameStore.open(data, create=False) as store:
        row = store.latest_game()
        assert row is not None
        return [e.command for e in store.entries(row.id)[: row.cursor] if not e.joined]


def played(data: Path, *lines: str) -> Session:
    session = open_session(Settings(), data, rng=random.Random(7))
    for line in lines:
        assert session.referee.handle(line).ok, line
    return session


def test_no_to_a_heard_swap_offers_the_next_reading_and_yes_applies_it(tmp_path: Path) -> None:
    with played(tmp_path, *OPENING) as session:
        ref = session.referee
        applied = heard(ref, "bob swaps 2 dog cat", SWAP, "bob swaps 2 cat mouse")
        assert applied.ok and ref.history()[-1] == "bob swaps 2 dog cat"
        offer = ref.handle("no")
        assert offer.ok and offer.question
        assert offer.said == ["Taken back: bob swaps 2 dog cat.", "Or: Bob swaps 2: cat and cat?"]
        assert ref.question == SWAP and ref.history()[-1] == "alice swaps 1 pig"
        assert stored(tmp_path)[-1] == "alice swaps 1 pig"
        yes = ref.handle("yes")
        assert yes.ok and yes.confirmed and ref.history()[-1] == SWAP
    assert stored(tmp_path)[-1] == SWAP


def test_no_to_the_offer_says_say_it_again_and_the_repeat_is_not_the_refused_reading(tmp_path: Path) -> None:
    with played(tmp_path, *OPENING) as session:
        ref = session.referee
        heard(ref, "bob swaps 2 dog cat", "bob swaps 2 cat mouse", SWAP)
        assert ref.handle("no").said[1] == "Or: Bob swaps 2: cat and mouse?"
        again = ref.handle("no")
        assert again.ok and not again.question and ref.question is None
        assert again.said == ["Fine, bob swaps 2 cat mouse was not applied.", "Say it again."]
        # The repeat is heard as the first refused reading again: its best other reading is taken.
        repeat = heard(ref, "bob swaps 2 dog cat", "bob swaps 2 cat mouse", SWAP)
        assert repeat.ok and repeat.command == SWAP and ref.history()[-1] == SWAP
        # That one can be refused too, and offers nothing refused before.
        taken = ref.handle("no")
        assert taken.said == ["Taken back: bob swaps 2 cat cat.", "Bob's turn: swap."]
        assert not taken.question
    assert stored(tmp_path)[-1] == "alice swaps 1 pig"


HANDS = [*OPENING, "bob swaps 1 cat", "carol swaps 1 dog", "alice knocks", "bob passes", "carol passes"]


def test_a_heard_hand_refused_offers_its_next_reading_the_game_would_take(tmp_path: Path) -> None:
    with played(tmp_path, *HANDS) as session:
        ref = session.referee
        # Five goats would make 9 in the game (the deck holds 7): that reading is not offered.
        asked = heard(ref, "alice has 3 giraffe 2 bear 5 dog", "alice has 3 giraffe 2 bear 5 goat",
                      "alice has 3 giraffe 2 bear 5 sheep")
        assert asked.question and ref.question == "alice has 3 giraffe 2 bear 5 dog"
        offer = ref.handle("no")
        assert offer.said == ["Fine, alice has 3 giraffe 2 bear 5 dog was not applied.",
                              "Or: Alice has 3 giraffes, 2 bears and 5 sheep?"]
        assert ref.handle("yes").ok
    assert stored(tmp_path)[-1] == "alice has 3 giraffe 2 bear 5 sheep"


def test_a_repeat_with_no_other_reading_is_taken_as_heard() -> None:
    """A person may say "no" and then change their mind: with nothing else to hear it as, the
    repeat is the command again (read back, and 'no' takes it back again)."""
    ref = Referee(rng=random.Random(0))
    for line in OPENING:
        assert ref.handle(line).ok
    heard(ref, "bob swaps 2 dog cat")
    assert ref.handle("no").said == ["Taken back: bob swaps 2 dog cat.", "Bob's turn: swap."]
    assert heard(ref, "bob swaps 2 dog cat").ok and ref.history()[-1] == "bob swaps 2 dog cat"


def test_typed_the_refused_command_is_taken() -> None:
    ref = Referee(rng=random.Random(0))
    for line in OPENING:
        assert ref.handle(line).ok
    heard(ref, "bob swaps 2 dog cat")
    assert ref.handle("no").ok
    assert ref.handle("bob swaps 2 dog cat").ok and ref.history()[-1] == "bob swaps 2 dog cat"


def test_the_refused_reading_is_judged_against_the_next_heard_command_only() -> None:
    ref = Referee(rng=random.Random(0))
    for line in OPENING:
        assert ref.handle(line).ok
    heard(ref, "bob swaps 2 dog cat", SWAP)
    assert ref.handle("no").said[1] == "Or: Bob swaps 2: cat and cat?"
    # The offer is not answered: the player says another command, heard right; it is taken.
    assert heard(ref, "bob swaps 2 cat mouse").command == "bob swaps 2 cat mouse"
    assert heard(ref, "carol swaps 2 pig pig").ok
    assert heard(ref, "alice swaps 2 giraffe bear").ok
    # "bob swaps 2 dog cat" was refused three commands ago: now it is heard, and taken.
    assert heard(ref, "bob swaps 2 dog cat", "bob knocks").command == "bob swaps 2 dog cat"


def test_typed_commands_have_no_second_chance() -> None:
    ref = Referee(rng=random.Random(0))
    for line in OPENING:
        assert ref.handle(line).ok
    assert ref.handle("new game dave erin frank").question
    refused = ref.handle("no")
    assert refused.said[0] == "Fine, the new game was not started." and not refused.question
    assert ref.handle(SWAP).ok
    assert not ref.handle("no").ok  # a typed command is not taken back by no


def test_the_offer_in_german_and_korean() -> None:
    for code, expected in (("de", "Oder: Bob tauscht Reihe 2: Katze und Katze?"), ("ko", "아니면: ")):
        ref = Referee(rng=random.Random(0))
        for line in OPENING:
            assert ref.handle(line).ok
        i18n.set_language(code)
        try:
            heard(ref, "bob swaps 2 dog cat", SWAP)
            offer = ref.execute(parse("no"), heard=True)
            assert offer.question and offer.said[1].startswith(expected), offer.said
            assert ref.execute(parse("no"), heard=True).said[1] != "Say it again."
        finally:
            i18n.set_language("en")


def test_brief_speech_says_the_offer_and_say_it_again() -> None:
    ref = Referee(rng=random.Random(0))
    for line in OPENING:
        assert ref.handle(line).ok
    heard(ref, "bob swaps 2 dog cat", SWAP)
    offer = ref.execute(parse("no"), heard=True)
    assert spoken(offer, True, "brief") == ["Taken back: bob swaps 2 dog cat.", "Or: Bob swaps 2: cat and cat?"]
    again = ref.execute(parse("no"), heard=True)
    assert spoken(again, True, "brief") == ["Fine, bob swaps 2 cat cat was not applied.", "Say it again."]
    assert spoken(again, True, "full") == ["Fine, bob swaps 2 cat cat was not applied.", "Say it again."]


def test_the_readings_refused_are_known_to_the_listener_until_the_next_command(tmp_path: Path) -> None:
    """``Referee.refused``: what the listener's context (and the table's view, which the full-screen
    table's listener reads) tells the recogniser, so that it hears a repeat with the utterance
    refused; nothing once another command was taken."""
    from assistant.tui.desk import TableView
    from assistant.voice.listener import ListenContext

    with played(tmp_path, *OPENING) as session:
        ref = session.referee
        assert ref.refused == frozenset()
        assert heard(ref, "bob swaps 2 dog cat", SWAP).ok
        assert ref.refused == frozenset()  # nothing refused yet
        assert ref.handle("no").question  # "Or: bob swaps 2 cat cat?"
        assert ref.refused == {"bob swaps 2 dog cat"}
        assert ref.handle("no").ok  # "Say it again."
        both = {"bob swaps 2 dog cat", SWAP}
        assert ref.refused == both
        assert ListenContext.from_referee(ref).refused == both and TableView.of(ref).refused == both
        assert heard(ref, "bob swaps 2 cat mouse").ok
        assert ref.refused == frozenset() and ListenContext.from_referee(ref).refused == frozenset()
