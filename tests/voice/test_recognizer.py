"""The recogniser on real espeak-ng speech: streaming, the confidence pass, context checks."""

from __future__ import annotations

from assistant.voice.recognizer import SAMPLE_RATE, CommandRecognizer, read_wav

from .conftest import needs_espeak

pytestmark = needs_espeak

PLAYERS = ("alice", "bob", "carol")


def raw16k(path) -> bytes:
    return read_wav(str(path)).get_raw_data(convert_rate=SAMPLE_RATE, convert_width=2)


def test_fed_in_chunks_as_it_arrives_or_all_at_once_the_command_is_the_same(synth) -> None:
    recognizer = CommandRecognizer(PLAYERS)
    raw = raw16k(synth("bob swaps two pig cat"))
    whole = recognizer.decode(raw)
    recognizer.start()
    for i in range(0, len(raw), 1024):
        recognizer.feed(raw[i : i + 1024])
    streamed = recognizer.finish()
    assert whole.command is not None and streamed.command is not None
    assert whole.command.canonical == streamed.command.canonical == "bob swaps 2 pig cat"
    assert abs(streamed.audio_seconds - len(raw) / (2 * SAMPLE_RATE)) < 0.01


def test_the_confidence_pass_scores_a_clear_command(synth) -> None:
    recognizer = CommandRecognizer(PLAYERS, confidence_pass=True)
    decoded = recognizer.decode(raw16k(synth("alice knocks")))
    assert decoded.command is not None and decoded.command.canonical == "alice knocks"
    assert 0.0 < decoded.confidence <= 1.0
    assert recognizer.decode(bytes(800)).reason == "too short to be a command"


def test_a_hand_that_is_not_ten_cards_is_not_a_command(synth) -> None:
    recognizer = CommandRecognizer(PLAYERS, garbage_weight=0.0)
    decoded = recognizer.decode(raw16k(synth("alice has three giraffes two bears")))
    assert decoded.command is None
    assert decoded.text.startswith("alice ")
    assert "a hand holds 10" in (decoded.reason or "")
