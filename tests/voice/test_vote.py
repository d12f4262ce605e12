"""The vote over time shifts (issue 38 item 1, ``assistant.voice.whisper.vote``): an unsure
reading decoded again with its first milliseconds dropped, the decision most readings agree on
taken. Real espeak-ng audio, the real model: what the readings are is Whisper's own."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from assistant.referee import Referee
from assistant.voice.recognizer import Decoded, read_wav
from assistant.voice.whisper import WhisperRecognizer
from assistant.voice.whisper.vote import TUNED, Vote, shifted, tally, unsure, voted

from .conftest import needs_espeak

Synth = Callable[..., Path]
PLAYERS = ("alice", "bob", "carol")
#: Alice's turn, when she may knock.
TURNS = ["new game alice bob carol", "alice starts", "row 1 pig", "row 2 bear dog", "row 3 giraffe mole cat",
         "row 4 sheep sheep goat mouse", "alice swaps 1 cat", "bob swaps 2 dog dog", "carol swaps 1 pig"]
#: A vote held for every reading (every mean log-probability per token is under infinity).
ALWAYS = Vote(bar=float("inf"))

pytestmark = pytest.mark.usefixtures("one_blas_thread")


@pytest.fixture
def turns(recognizer: WhisperRecognizer) -> Iterator[WhisperRecognizer]:
    """The module's recogniser in Alice's turn, its vote taken off again afterwards."""
    recognizer.set_context(PLAYERS, Referee.resume(TURNS).game)
    try:
        yield recognizer
    finally:
        recognizer.vote = None


def _raw(path: Path) -> bytes:
    data: bytes = read_wav(str(path)).get_raw_data(convert_rate=16000, convert_width=2)
    return data


def test_a_shift_drops_the_first_milliseconds() -> None:
    raw = bytes(range(200)) * 4  # 400 samples
    assert shifted(raw, 5.0) == raw[160:]  # 80 samples at 16 kHz
    assert shifted(raw, 12.5) == raw[400:]
    assert shifted(raw + b"\x01", 0.0) == raw  # an odd last byte is no sample


@needs_espeak
def test_readings_that_agree_give_the_first_its_time_summed(synth: Synth, turns: WhisperRecognizer) -> None:
    raw = _raw(synth("alice swaps two bear and dog", voice="en-us"))
    alone = turns.decode(raw)
    assert alone.command is not None and alone.command.canonical == "alice swaps 2 bear dog", alone
    turns.vote = ALWAYS
    readings: list[Decoded] = []
    heard = turns._heard

    def each_reading(shifted: bytes) -> Decoded:
        readings.append(heard(shifted))
        return readings[-1]

    turns._heard = each_reading  # type: ignore[method-assign]  # counts the readings' time
    decoded = turns.decode(raw)
    assert decoded.command is not None and decoded.command.canonical == alone.command.canonical
    # Every reading's time, not the first's alone (compared with the readings' own times, not
    # with another decoding's: on a loaded machine one decoding may take longer than three).
    assert len(readings) > 1
    assert decoded.seconds == pytest.approx(sum(r.seconds for r in readings))
    assert turns._last is not None and turns._last.canonical == "alice swaps 2 bear dog"


@needs_espeak
def test_talk_stays_talk_under_the_vote(synth: Synth, turns: WhisperRecognizer) -> None:
    turns.vote = TUNED
    decoded = turns.decode(_raw(synth("that is not fair at all", voice="en+m3")))
    assert decoded.command is None and decoded.reason is not None
    assert unsure(decoded, TUNED.bar)  # a rejection is always voted on


@needs_espeak
def test_the_majority_overrules_the_first_reading(synth: Synth, turns: WhisperRecognizer) -> None:
    """Whisper's real readings of a command and of talk: two readings of talk against one of the
    command leave the command unheard, and the other way round; a tie keeps the first reading."""
    command_raw = _raw(synth("alice swaps two bear and dog", voice="en-us"))
    talk_raw = _raw(synth("that is not fair at all", voice="en+m3"))
    command = turns.decode(command_raw)
    talk = turns.decode(talk_raw)
    assert command.command is not None and talk.command is None
    assert tally([command, talk, talk]) == 1
    assert tally([talk, command, command]) == 1
    assert tally([command, talk]) == 0
    assert tally([talk, command]) == 0
    # Through ``voted``: the first reading (the command, held to a vote) against two "shifted"
    # readings that are the talk's audio: the talk's decision is taken, with all three times.
    again: list[Decoded] = []

    def decode(_: bytes) -> Decoded:
        again.append(turns.decode(talk_raw))
        return again[-1]

    index, decoded = voted(command_raw, command, ALWAYS, decode)
    assert index == 1 and decoded.command is None and len(again) == 2
    assert decoded.seconds == pytest.approx(command.seconds + sum(r.seconds for r in again))


def test_a_sure_reading_is_not_voted_on() -> None:
    from assistant.commands import parse

    sure = Decoded("Alice knocks.", parse("alice knocks", list(PLAYERS)), 0.5, None, 0.1, 1.0)

    def never(_: bytes) -> Decoded:
        pytest.fail("decoded again")

    assert voted(b"\0\0" * 16000, sure, TUNED, never) == (0, sure)  # log 0.5 = -0.69 > -1.5
    assert unsure(sure, -0.5)
