"""The repeat of a refused command heard together with the utterance refused (issue 38, item 2),
on real audio: espeak-ng says a swap that Whisper mishears; the table says "no"; the player says
it again, and the recogniser, told by the listener's context which readings were refused, hears
it as the refused command once more: the candidates of both utterances are scored on both audios.
A repeat heard as another command is taken as said. A real referee on a real store."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from assistant.commands import Command
from assistant.referee import Referee
from assistant.voice.listener import ListenContext
from assistant.voice.recognizer import read_wav
from assistant.voice.whisper import WhisperRecognizer

from .conftest import needs_espeak
from .test_second_chance_audio import MEANT, MISHEARD, SAID, last_stored, opened

Synth = Callable[..., Path]

pytestmark = pytest.mark.usefixtures("one_blas_thread")


def hear(recognizer: WhisperRecognizer, referee: Referee, wav: Path) -> Command:
    """``wav`` heard as the listener hears it: with the context it makes from the referee
    (``ListenContext.from_referee``), the readings just refused among it."""
    context = ListenContext.from_referee(referee)
    recognizer.set_context(context.players, context.game, context.question, context.refused)
    decoded = recognizer.decode_audio(read_wav(str(wav)))
    assert decoded.command is not None, (decoded.text, decoded.reason)
    return decoded.command


def misheard_and_refused(recognizer: WhisperRecognizer, referee: Referee, synth: Synth) -> Command:
    """``SAID`` by espeak-ng's en-us, heard as ``MISHEARD``, applied and refused with "no", with
    no other reading to offer ("say it again")."""
    first = hear(recognizer, referee, synth(SAID, voice="en-us", speed=150))
    assert first.canonical == MISHEARD
    assert referee.execute(first, heard=True).ok
    assert not referee.handle("no").question
    return first


@needs_espeak
def test_a_refused_command_said_again_is_heard_with_the_first_utterance(
        synth: Synth, recognizer: WhisperRecognizer, tmp_path: Path) -> None:
    with opened(tmp_path) as session:
        referee = session.referee
        first = misheard_and_refused(recognizer, referee, synth)
        assert MEANT not in [r.canonical for r in first.readings]
        assert recognizer.last_joint == []  # nothing refused when it was heard: heard alone
        assert ListenContext.from_referee(referee).refused == {MISHEARD}
        again = hear(recognizer, referee, synth(SAID, voice="en-gb-x-rp", speed=150))
        # The recogniser itself took the command said, scored on both audios.
        assert again.canonical == MEANT
        joint = {name: (alone, other) for name, alone, other in recognizer.last_joint}
        assert MISHEARD not in joint and all(-3.0 < score < 0.0 for score in joint[MEANT])
        reply = referee.execute(again, heard=True)
        assert reply.ok and reply.command == MEANT and ListenContext.from_referee(referee).refused == frozenset()
    assert last_stored(tmp_path) == MEANT


@needs_espeak
def test_a_repeat_that_is_another_command_is_taken_as_said(
        synth: Synth, recognizer: WhisperRecognizer, tmp_path: Path) -> None:
    with opened(tmp_path) as session:
        referee = session.referee
        misheard_and_refused(recognizer, referee, synth)
        # The player says another swap, a card away from what was said first: taken as said,
        # not weighed against the utterance refused (where the goat and the dog were said).
        other = hear(recognizer, referee, synth("alice swaps row four goat goat dog cat", voice="en+f2", speed=150))
        assert other.canonical == "alice swaps 4 goat goat dog cat" and recognizer.last_joint == []
        reply = referee.execute(other, heard=True)
        assert reply.ok and referee.history()[-1] == "alice swaps 4 goat goat dog cat"
    assert last_stored(tmp_path) == "alice swaps 4 goat goat dog cat"
