"""``lifeguard listen`` says aloud what ``[voice] speech`` says (``referee.spoken``) and prints
every sentence: a real ``Speaker`` (espeak-ng, a player that only logs the WAV it is given)
keeping the texts it was asked to say. The session's events are handed in as the listener
reports them (``Heard``, ``Rejected``) and as stdin gives them (``_Typed``), to a real
``Listener`` that is not started (no audio is heard here)."""

from __future__ import annotations

from pathlib import Path

import pytest

from assistant.cli.voice import _ListenSession, _Typed
from assistant.commands import parse
from assistant.config import VoiceSettings
from assistant.referee import Referee
from assistant.voice import speaker as speaker_module
from assistant.voice.listener import Heard, ListenContext, Listener, Rejected
from assistant.voice.recognizer import INCOMPLETE_REASON

from .conftest import needs_espeak

pytestmark = needs_espeak

OPENING = ["new game alice bob carol", "alice starts", "row 1 giraffe", "row 2 bear dog",
           "row 3 pig pig cat"]


class RecordingSpeaker(speaker_module.Speaker):
    """The real speaker, keeping what it was asked to say."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.texts: list[str] = []

    def say(self, text: str) -> None:
        self.texts.append(text)
        super().say(text)


@pytest.mark.parametrize(("speech", "aloud"), [
    ("brief", ["Row 4: mole goat sheep mouse.", "Alice: cat mouse for row 2.", INCOMPLETE_REASON]),
    ("results", []),
    ("full", ["Row 4: mole, goat, sheep and mouse. Rows are set. Alice's turn.",
              "Alice put down cat and mouse for row 2: bear and dog. Bob's turn.",
              INCOMPLETE_REASON]),
])
def test_listen_says_what_the_setting_says_and_prints_everything(
        speech: str, aloud: list[str], tmp_path: Path) -> None:
    referee = Referee(confirm_new_game=False)
    speaker = RecordingSpeaker(VoiceSettings(), player=["sh", "-c", 'echo "$1" >> "$0"',
                                                        str(tmp_path / "played"), "{file}"])
    speaker.start()
    printed: list[str] = []
    # the real listener, not started: the session tells it when a heard command is settled
    listener = Listener(VoiceSettings(), lambda: ListenContext.from_referee(referee), lambda event: None,
                        settle=True)
    session = _ListenSession(referee, speaker, listener, None, printed.append, speech)
    for line in OPENING:
        session.answer(_Typed(line))  # typed: brief says none of it (no round ends)
    session.answer(Heard(parse("row 4 mole goat sheep mouse", referee.players), "row 4 mole goat sheep mouse", 0.9))
    session.answer(Heard(parse("alice swaps 2 cat mouse", referee.players), "alice swaps two cat mouse", 0.9))
    session.answer(Rejected("alice swaps row two for", INCOMPLETE_REASON))  # said: say it again
    session.answer(Rejected("who wants a drink", "that sounded like talk, not a command"))  # printed only
    assert speaker.wait_idle(60)
    speaker.close()
    typed = len(OPENING) if speech == "full" else 0  # full: every typed answer too
    assert len(speaker.texts) == typed + len(aloud) and speaker.texts[typed:] == aloud, speaker.texts
    if typed:
        assert speaker.texts[1] == "Alice starts."
    assert "Row 4: mole, goat, sheep and mouse. Rows are set. Alice's turn." in " ".join(printed)
    assert "Alice put down cat and mouse for row 2: bear and dog. Bob's turn." in printed
    assert referee.history()[-1] == "alice swaps 2 cat mouse"
