"""Issue 34 item 3: a card command whose count is complete is taken at the short pause
(``listener.VERDICT_PAUSE_SECONDS``), not after ``PAUSE_SECONDS`` of quiet, when Whisper's complete
reading beats the reading of a shorter list (``whisper.recognizer.QUICK_CARDS_MARGIN``); an
unfinished one still waits for the rest.

Real espeak-ng speech and real Whisper, played in at real-time pace through the ``Listener``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from assistant.voice.listener import (
    PAUSE_SECONDS,
    VERDICT_PAUSE_SECONDS,
    Heard,
    ListenContext,
    Listener,
)

from .conftest import needs_espeak
from .test_listen_loop import heard, referee_after, run_listener, say_with_gaps

pytestmark = [needs_espeak, pytest.mark.slow]

ROWS = ("row 1 pig", "row 2 bear dog", "row 3 giraffe mole cat", "row 4 sheep goat goat mouse")


def test_a_complete_card_command_is_taken_at_the_short_pause(synth: Callable[..., Path], tmp_path: Path) -> None:
    """A swap followed by 0.35 s of quiet, then the next player's knock: the swap is taken at the
    short pause with the cards said, and the knock is heard on its own, against the game after the
    swap. (Waiting out 0.6 s would have made the two one phrase.)"""
    gap = 0.35
    assert VERDICT_PAUSE_SECONDS < gap < PAUSE_SECONDS
    referee = referee_after("new game alice bob carol", "alice starts", *ROWS)

    def apply(event: Heard, listener: Listener) -> None:
        referee.execute(event.command, heard=True)
        listener.settled()

    spoken = say_with_gaps(tmp_path / "swap.wav", "alice swaps row two pig and mouse", gap, "bob knocks")
    events = run_listener([spoken], lambda: ListenContext.from_referee(referee), apply)
    assert heard(events) == ["alice swaps 2 pig mouse", "bob knocks"], events


def test_an_unfinished_card_command_waits_for_the_rest(synth: Callable[..., Path], tmp_path: Path) -> None:
    """"bob swaps row two for pig and" [0.35 s] "mouse": at the pause the decoder could complete
    the count with a card of its own; the command taken is the one said."""
    referee = referee_after("new game alice bob carol", "bob starts", *ROWS)
    spoken = say_with_gaps(tmp_path / "unfinished.wav", "bob swaps row two for pig and", 0.35, "mouse")
    events = run_listener([spoken], lambda: ListenContext.from_referee(referee))
    assert heard(events) == ["bob swaps 2 pig mouse"], events
