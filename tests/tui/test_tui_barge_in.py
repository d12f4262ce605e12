"""The table's voice bridge with a full-duplex device: never deaf while it speaks when the echo is
cancelled; without a canceller, deaf while speaking as before, and the status line says so;
push-to-talk silences the table at once."""

from __future__ import annotations

import time

from assistant.config import VoiceSettings
from assistant.tui.voice import VoiceBridge
from assistant.voice.duplex import DEAF_WHILE_SPEAKING, SimulatedDuplex
from assistant.voice.echo import make_canceller
from assistant.voice.listener import ListenContext, Listener
from assistant.voice.speaker import Speaker


def bridge_with(canceller: object | None) -> tuple[VoiceBridge, Listener, list]:
    posted: list = []
    bridge = VoiceBridge(VoiceSettings(listen="continuous"), posted.append, ListenContext)
    bridge.duplex = SimulatedDuplex(bytes(16000 * 2 * 20), None, canceller,  # type: ignore[arg-type]
                                    canceller_reason=None if canceller else "SpeexDSP is not installed")
    listener = Listener(VoiceSettings(listen="continuous"), ListenContext, lambda event: None)
    bridge.listener = listener  # made, not started: pausing it is what is watched
    return bridge, listener, posted


def test_with_a_canceller_the_listener_stays_open_while_the_table_speaks() -> None:
    bridge, listener, posted = bridge_with(make_canceller("speex"))
    assert not bridge.deaf_while_speaking
    bridge._speaker_state("speaking", None)
    assert listener._paused is False
    assert bridge._with_duplex(None) is None


def test_without_a_canceller_the_table_is_deaf_while_speaking_and_says_so() -> None:
    bridge, listener, posted = bridge_with(None)
    assert bridge.deaf_while_speaking
    bridge._speaker_state("speaking", None)
    assert listener._paused is True
    bridge._speaker_state("on", None)
    assert listener._paused is False
    assert bridge._with_duplex("listening with PocketSphinx") == (
        f"listening with PocketSphinx; {DEAF_WHILE_SPEAKING}")
    assert bridge._with_duplex(None) == "no echo canceller: deaf while speaking"


def test_push_to_talk_stops_the_announcement_at_once() -> None:
    bridge, listener, posted = bridge_with(make_canceller("speex"))
    duplex = bridge.duplex
    assert duplex is not None
    speaker = Speaker(VoiceSettings(), duplex=duplex)
    bridge.speaker = speaker
    speaker.start()
    duplex.start()
    try:
        speaker.say("Row three: giraffe, mole and cat. Bob has three lives, Carol has two.")
        deadline = time.monotonic() + 20
        while not duplex.playing and time.monotonic() < deadline:
            time.sleep(0.02)
        assert duplex.playing
        assert bridge.push_to_talk()
        assert not duplex.playing  # the next frame played is silence
        assert speaker.wait_idle(5)
        assert speaker.state == "on"
    finally:
        speaker.close()
        duplex.close()
