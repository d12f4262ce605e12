"""The recogniser on real espeak-ng speech: streaming, the confidence pass, context checks."""

from __future__ import annotations

from assistant.voice.recognizer import SAMPLE_RATE, CommandRecognizer, _segments, read_wav

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


def test_a_sessions_first_utterance_is_decoded_when_it_ends_later_ones_as_they_arrive(synth) -> None:
    """The running cepstral mean starts cold: the first utterance waits for its own mean."""
    recognizer = CommandRecognizer(PLAYERS)
    raw = raw16k(synth("bob swaps two pig cat"))
    for decoded_while_arriving in (False, True):
        recognizer.start()
        for i in range(0, len(raw), 1024):
            recognizer.feed(raw[i : i + 1024])
        assert (recognizer._decoder.n_frames() > 10) is decoded_while_arriving
        decoded = recognizer.finish()
        assert decoded.command is not None and decoded.command.canonical == "bob swaps 2 pig cat"


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


def test_a_file_decodes_the_same_whatever_was_decoded_before_it(synth) -> None:
    """``decode`` starts the front end afresh (noise estimate, cepstral mean) and uses no dither."""
    command = raw16k(synth("carol swaps three giraffe bear dog"))
    talk = raw16k(synth("who wants another drink", voice="en+m3", pitch=20))
    first = CommandRecognizer(PLAYERS)
    alone = first.decode(command)
    alone_path = _segments(first._decoder)
    second = CommandRecognizer(PLAYERS)
    for _ in range(3):
        second.decode(talk)
    after_talk = second.decode(command)
    assert (alone.text, alone.reason) == (after_talk.text, after_talk.reason)
    assert alone_path == _segments(second._decoder)  # the same words, frames and scores
    assert alone.command is not None and alone.command.canonical == "carol swaps 3 giraffe bear dog"


# Table talk in the middle of a round. The test tolerates one of the eight taken for a command,
# as stated: the benchmark measures the real rate (about 9 in 10 rejected).
TALK = ["pass me the salt please", "who wants another drink", "did you see the game last night",
        "where did i put my glasses", "i need to go to the bathroom", "shall we order pizza",
        "do you want some crisps", "my phone is ringing"]


def test_table_talk_is_not_taken_for_a_command(synth) -> None:
    from assistant.referee import Referee

    referee = Referee.resume(["new game alice bob carol", "alice starts", "row 1 pig",
                              "row 2 bear dog", "row 3 cat cat mouse", "row 4 goat goat sheep mole"])
    recognizer = CommandRecognizer(PLAYERS, referee.game)
    heard = {text: recognizer.decode(raw16k(synth(text))) for text in TALK}
    commands = {text: d.command.canonical for text, d in heard.items() if d.command is not None}
    assert len(commands) <= 1, commands
    assert all(d.reason for d in heard.values() if d.command is None)
