"""A second chance without repeating (issue 38, item 2) on real audio: espeak-ng says a swap that
Whisper hears wrong first and right as its next reading; 'no' offers that reading, and a repeat
heard as the refused command is taken as its next reading. A real referee on a real store."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest

from assistant.commands import Command
from assistant.config import Settings
from assistant.referee import Referee
from assistant.store import GameStore, open_session
from assistant.store.session import Session
from assistant.voice.recognizer import read_wav
from assistant.voice.whisper import WhisperRecognizer

from .conftest import needs_espeak

Synth = Callable[..., Path]
PLAYERS = ("alice", "bob", "carol")
OPENING = ["new game alice bob carol", "alice starts", "row 1 pig", "row 2 bear dog",
           "row 3 giraffe mole cat", "row 4 sheep sheep goat mouse"]
SAID = "alice swaps row four goat goat dog dog"
MEANT = "alice swaps 4 goat goat dog dog"
#: What Whisper (tiny.en) hears first for SAID in these voices (a goat heard as a dog).
MISHEARD = "alice swaps 4 goat dog dog dog"


pytestmark = pytest.mark.usefixtures("one_blas_thread")


def hear(recognizer: WhisperRecognizer, referee: Referee, wav: Path) -> Command:
    """``wav`` heard as the listener hears it: against the game and question the referee has now."""
    recognizer.set_context(referee.players, referee.game, question=referee.question is not None)
    decoded = recognizer.decode_audio(read_wav(str(wav)))
    assert decoded.command is not None, (decoded.text, decoded.reason)
    return decoded.command


def last_stored(data: Path) -> str:
    with GameStore.open(data, create=False) as store:
        row = store.latest_game()
        assert row is not None
        return [e.command for e in store.entries(row.id)[: row.cursor] if not e.joined][-1]


def opened(data: Path) -> Session:
    session = open_session(Settings(), data, rng=random.Random(7))
    for line in OPENING:
        assert session.referee.handle(line).ok, line
    return session


@needs_espeak
def test_no_offers_the_next_reading_and_yes_applies_it(synth: Synth, recognizer: WhisperRecognizer,
                                                      tmp_path: Path) -> None:
    with opened(tmp_path) as session:
        referee = session.referee
        command = hear(recognizer, referee, synth(SAID, voice="en+m3", speed=150))
        assert command.canonical == MISHEARD and command.readings[0].canonical == MEANT
        assert referee.execute(command, heard=True).ok and referee.history()[-1] == MISHEARD
        offer = referee.handle("no")
        assert offer.question and offer.said == [f"Taken back: {MISHEARD}.",
                                                 "Or: Alice swaps 4: goat, goat, dog and dog?"]
        assert referee.handle("yes").ok
    assert last_stored(tmp_path) == MEANT


@needs_espeak
def test_a_repeat_heard_as_the_refused_command_is_taken_as_its_next_reading(
        synth: Synth, recognizer: WhisperRecognizer, tmp_path: Path) -> None:
    with opened(tmp_path) as session:
        referee = session.referee
        first = hear(recognizer, referee, synth(SAID, voice="en-us", speed=150))
        assert first.canonical == MISHEARD and MEANT not in [r.canonical for r in first.readings]
        assert referee.execute(first, heard=True).ok
        taken_back = referee.handle("no")
        assert taken_back.said[0] == f"Taken back: {MISHEARD}." and not taken_back.question
        # Said again (another voice): heard first as the refused command again.
        again = hear(recognizer, referee, synth(SAID, voice="en-gb-x-rp", speed=150))
        assert again.canonical == MISHEARD
        reply = referee.execute(again, heard=True)
        assert reply.ok and reply.command == MEANT and referee.history()[-1] == MEANT
    assert last_stored(tmp_path) == MEANT
