"""Near-miss table talk (issue 38, item 3): a command said first and more words after it
("alice knocks over the drink", "who is next to the window") is talk, by Whisper's free
transcription (``MAX_OTHER_WORDS``, ``MIN_BEGINS_ALIKE``), and so is a command naming no cards
whose free transcription names an animal ("what can i say i love mice") or goes on for more
than two words, a loop counted once ("what can i say i love it"); the command alone is still
heard. Real espeak-ng audio, the real model."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from assistant.referee import Referee
from assistant.voice.recognizer import TALK_REASON, read_wav
from assistant.voice.whisper import WhisperRecognizer
from assistant.voice.whisper.recognizer import (
    _begins_like,
    _misheard,
    _names_other_animals,
    _said_once,
)

from .conftest import needs_espeak

Synth = Callable[..., Path]
PLAYERS = ("alice", "bob", "carol")
#: Alice's turn, when she may knock.
TURNS = ["new game alice bob carol", "alice starts", "row 1 pig", "row 2 bear dog", "row 3 giraffe mole cat",
         "row 4 sheep sheep goat mouse", "alice swaps 1 cat", "bob swaps 2 dog dog", "carol swaps 1 pig"]


pytestmark = pytest.mark.usefixtures("one_blas_thread")


def test_begins_alike_compares_the_first_words() -> None:
    assert _begins_like(["alice", "knocks"], ["alice", "knock", "over", "the", "drink"]) > 0.8
    assert _begins_like(["alice", "knocks"], ["bump", "pass", "right", "ray"]) < 0.5
    assert _begins_like(["row", "2"], ["row", "two", "looks", "good"]) == 1.0  # numbers spelt alike


@needs_espeak
@pytest.mark.parametrize(("said", "command"), [
    ("alice knocks", "alice knocks"),
    ("alice knocks over the drink", None),
    ("who is next", "status"),
    ("who is next to the window", None),
])
def test_a_command_with_more_words_after_it_is_talk(synth: Synth, recognizer: WhisperRecognizer,
                                                    said: str, command: str | None) -> None:
    recognizer.set_context(PLAYERS, Referee.resume(TURNS).game)
    decoded = recognizer.decode_audio(read_wav(str(synth(said, voice="en+m3"))))
    assert (decoded.command.canonical if decoded.command else None) == command, (decoded.text, decoded.reason)
    if command is None:
        assert decoded.reason == TALK_REASON


def test_an_animal_the_command_does_not_name() -> None:
    assert _names_other_animals(["what", "can", "i", "say"], ["what", "can", "i", "say", "i", "love", "mice"])
    assert not _names_other_animals(["what", "can", "i", "say"], ["what", "can", "i", "say"])
    assert not _names_other_animals(["sudden", "death", "pigs"], ["sudden", "death", "pigs"])
    # The command's own animal written in another form is no other animal: espeak-ng's "bob has
    # all rabbits" was written freely "bob the fall rabbit" (an AMD EPYC machine's numbers), and
    # the sudden death was talk.
    assert not _names_other_animals(["bob", "has", "all", "rabbits"], ["bob", "the", "fall", "rabbit"])
    assert _names_other_animals(["bob", "has", "all", "rabbits"], ["bob", "has", "all", "rabbits", "and", "a", "pig"])


def test_the_commands_own_animal_in_another_form_is_not_another_word(recognizer: WhisperRecognizer) -> None:
    """The listener's cut of espeak-ng's "bob has all rabbits" was written freely "bob the whole
    rabbit ...": three other words with "rabbit" among them, and the sudden death was talk."""
    words = ["bob", "has", "all", "rabbits"]
    assert recognizer._free_doubt(words, ["bob", "the", "whole", "rabbit"], True, False) is None
    assert recognizer._free_doubt(words, ["bob", "the", "whole", "pig", "farm"], True, False) == TALK_REASON


@needs_espeak
@pytest.mark.parametrize(("said", "command"), [
    ("what can i say", "help"),
    ("what can i say i love mice", None),  # "help" without _names_other_animals (2 other words only)
])
def test_a_command_naming_no_cards_with_an_animal_after_it_is_talk(
        synth: Synth, recognizer: WhisperRecognizer, said: str, command: str | None) -> None:
    recognizer.set_context(PLAYERS, Referee.resume(TURNS).game)
    decoded = recognizer.decode_audio(read_wav(str(synth(said, voice="en-us"))))
    assert (decoded.command.canonical if decoded.command else None) == command, (decoded.text, decoded.reason)
    if command is None:
        assert decoded.reason == TALK_REASON


def test_a_loop_is_counted_once() -> None:
    assert _said_once(["no", "no", "no", "no"]) == ["no"]
    assert _said_once(["bob", "doc", "bob", "doc", "bob"]) == ["bob", "doc"]
    assert _said_once(["redo", "redo", "redo", "red"]) == ["redo"]  # the last word cut short
    assert _said_once(["what", "can", "i", "say", "i", "love", "it"]) == ["what", "can", "i", "say", "i", "love", "it"]


@needs_espeak
@pytest.mark.parametrize(("said", "command"), [
    ("what can i say", "help"),
    ("what can i say i love it", None),  # "help" without the words beyond it (2 new words, 3 more)
])
def test_a_command_with_three_more_words_is_talk(synth: Synth, recognizer: WhisperRecognizer,
                                                 said: str, command: str | None) -> None:
    recognizer.set_context(PLAYERS, Referee.resume(TURNS).game)
    decoded = recognizer.decode_audio(read_wav(str(synth(said, voice="en+m1", speed=175))))
    assert (decoded.command.canonical if decoded.command else None) == command, (decoded.text, decoded.reason)
    if command is None:
        assert decoded.reason == TALK_REASON


def test_a_command_word_misheard_in_its_place_is_no_other_word(recognizer: WhisperRecognizer) -> None:
    """Issue 40: en+f2's "bob knocks" over room noise, as the listener cut it in a whole game by
    voice (line 52 of the espeak-ng 4-player game, bench/NOTES.md, session 18), was written
    freely "Bob, no, I can't." (and at the 0.3 s verdict "... Bob, no, I"): "no" stands where
    "knock" is said and is alike it, the command's word misheard, so two other words, not three:
    the knock is kept. Another word in the command's place, or alike a word elsewhere, still
    counts: "pass the bread" is no misheard "bob passes"; and so does the command's word
    inflected ("passes" where the grammar wrote "pass": flite's "heidi passes the crisps"), and
    a word less alike ("now" for "knock": flite's "frank knocks over the drink" over chatter)."""
    assert _misheard(["bob", "knock"], ["bob", "no", "i", "can't"]) == {"no"}
    assert recognizer._free_doubt(["bob", "knock"], ["bob", "no", "i", "can't"], True, False) is None
    assert recognizer._free_doubt(["bob", "knock"], ["bob", "no", "i", "can't", "bob", "no", "i"], True, False) is None
    assert recognizer._free_doubt(["bob", "passes"], ["pass", "the", "bread"], True, False) == TALK_REASON
    assert recognizer._free_doubt(["heidi", "pass"], ["heidi", "passes", "the", "crisps"], True, False) == TALK_REASON
    assert recognizer._free_doubt(["frank", "knock"], ["frank", "now", "it's", "over"], True, False) == TALK_REASON
    assert recognizer._free_doubt(["alice", "knocks"], ["alice", "knocks", "over", "the", "drink"], True, False) \
        == TALK_REASON
    assert recognizer._free_doubt(["alice", "knocks"], ["alice", "knox", "over", "the", "drink"], True, False) \
        == TALK_REASON


@needs_espeak
def test_a_knock_over_room_noise_is_kept(synth: Synth, recognizer: WhisperRecognizer, tmp_path: Path) -> None:
    """The whole games' en+f2 seat (140 words a minute, pitch 60, its peak at -8 dBFS) saying
    "bob knocks" over pink room noise 20 dB below it, with the 0.3 s after it the listener reads
    a phrase with: a knock, not talk."""
    import subprocess
    import wave

    import numpy as np

    turns = [*TURNS, "alice swaps 1 dog"]  # Bob's turn
    noise = tmp_path / "pink.wav"
    subprocess.run(["sox", "-R", "-n", "-r", "16000", "-b", "16", "-c", "1", str(noise), "synth", "4",
                    "pinknoise"], check=True)
    speech = tmp_path / "knock16.wav"
    subprocess.run(["sox", str(synth("bob knocks", voice="en+f2", speed=140, pitch=60)), "-r", "16000", str(speech)],
                   check=True)
    with wave.open(str(speech)) as w:
        voice = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(np.float64)
    with wave.open(str(noise)) as w:
        room = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(np.float64)
    voice *= 32767 * 10 ** (-8 / 20) / np.abs(voice).max()
    loud = np.nonzero(np.abs(voice) > 0.05 * np.abs(voice).max())[0]
    voice = voice[loud[0]:loud[-1]]
    level = np.sqrt(np.mean(voice[np.abs(voice) > 0.05 * np.abs(voice).max()] ** 2))
    lead, tail = 1600, 4800  # 0.1 s before, 0.3 s after
    room = room[: lead + len(voice) + tail] * level * 10 ** (-20 / 20) / np.sqrt(np.mean(room ** 2))
    room[lead:lead + len(voice)] += voice
    recognizer.set_context(PLAYERS, Referee.resume(turns).game)
    decoded = recognizer.decode(np.clip(room, -32768, 32767).astype("<i2").tobytes())
    assert decoded.command is not None and decoded.command.canonical == "bob knocks", (decoded.text, decoded.reason)
