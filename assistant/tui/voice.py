"""Voice inside the app: the speaker and the listener, loaded in the background and reporting by
messages.

The devices (``assistant.voice.speaker.Speaker``, ``assistant.voice.listener.Listener``) own their
threads; their callbacks arrive on those threads and are forwarded with ``post_message``, which
Textual makes thread-safe, so speaking or listening never blocks the screen. Loading them imports
pyttsx3 and speech_recognition, which takes a while: ``VoiceBridge.load`` runs in a thread worker
while the table is already interactive. A thread does not help a library whose import holds the
GIL for long (a C++ extension starting up: no other Python thread runs meanwhile, the event loop
included): those are imported before the app's loop starts (``preload_gil_bound``). Any failure is a state ("unavailable") with a reason, never
a crash: the table works without voice.

``TableVoice`` is the app's one owner of all this: it makes the bridge at mount, loads it in a
worker, keeps the setup screen's voice switch and answers the talk and mute keys, so the app only
says when (and keeps the messages' handlers, which Textual delivers to it).
"""

from __future__ import annotations

import importlib
import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from textual.app import App
from textual.message import Message

from assistant.commands import Command
from assistant.config import VoiceSettings
from assistant.i18n import N_, _, format
from assistant.referee import Reply, spoken
from assistant.tui.desk import TableView
from assistant.tui.widgets import StatusLine, state_word

if TYPE_CHECKING:  # the devices load in a worker (their imports are slow)
    from assistant.voice.duplex import DuplexAudio
    from assistant.voice.listener import ListenContext, Listener
    from assistant.voice.speaker import Speaker

log = logging.getLogger("lifeguard.voice")

#: The listener's libraries whose import holds the GIL for long, in a worker thread too: onnx
#: (its ml_dtypes extension: 0.6-0.9 s, measured with a 5 ms ticker on 2 busy cores; the table's
#: event loop stood still 0.9 s while the voice loaded) and onnxruntime (0.2 s). Whisper's
#: decoder builds its ONNX Runtime session with them (``assistant.voice.whisper.decoder``).
GIL_BOUND_IMPORTS = ("onnx", "onnxruntime")


def preload_gil_bound(settings: VoiceSettings, audio_input: list[str] | None = None) -> float:
    """Import ``GIL_BOUND_IMPORTS`` now, before the app's event loop runs, when the listener will
    need them (it listens, with Whisper); the seconds it took. A missing library is the
    listener's business (it falls back, and says so): nothing is raised here."""
    if settings.engine != "whisper" or (settings.listen == "off" and not audio_input):
        return 0.0
    started = time.perf_counter()
    # onnxruntime latches its telemetry switch at import: the opt-out the decoder sets first.
    from assistant.voice.whisper.decoder import TELEMETRY_OPT_OUT

    os.environ.setdefault(TELEMETRY_OPT_OUT, "1")
    for name in GIL_BOUND_IMPORTS:
        try:
            importlib.import_module(name)
        except Exception as err:  # noqa: BLE001 - broken or missing: the listener says it later
            log.info("%s not preloaded: %s", name, _short(err))
    return time.perf_counter() - started


@dataclass
class SpeechState(Message):
    state: str
    reason: str | None = None


@dataclass
class MicState(Message):
    state: str
    reason: str | None = None


@dataclass
class HeardCommand(Message):
    command: Command
    text: str
    confidence: float | None = None


@dataclass
class RejectedSpeech(Message):
    text: str
    reason: str
    #: Meant for the referee (an unfinished command, a failed hearing): said aloud, not only
    #: written in the log (``Rejected.addressed``).
    addressed: bool = True


class _StartsAndCloses(Protocol):
    def start(self) -> None: ...
    def close(self) -> None: ...


_Device = TypeVar("_Device", bound=_StartsAndCloses)


class VoiceBridge:
    """Owns the speaker and listener for the app; every method is safe when voice is missing."""

    def __init__(
        self,
        settings: VoiceSettings,
        post: Callable[[Message], object],
        context: Callable[[], ListenContext],
        audio_input: list[str] | None = None,
    ) -> None:
        self.settings = settings
        self.post = post
        self.context = context
        self.audio_input = list(audio_input or settings.audio_input) or None
        self.speaker: Speaker | None = None
        self.listener: Listener | None = None
        #: The sound card as one full-duplex stream (barge-in), when there is one.
        self.duplex: DuplexAudio | None = None
        self._closed = threading.Event()
        self._lock = threading.Lock()
        #: False when voice is switched off on the setup screen: the listener stays deaf.
        self.listening_wanted = True

    # ------------------------------------------------------------------ loading (worker thread)
    def load(self) -> None:
        """Create and start the devices; runs in a thread worker (the imports are slow)."""
        self._open_duplex()
        self._load_speaker()
        self._load_listener()

    def _open_duplex(self) -> None:
        """Play and record through one full-duplex stream on a sound card (PortAudio), the echo
        cancelled, so the table hears a player who speaks over it (``assistant.voice.duplex``).
        Without a sound card, or with WAV files as input, the devices work as before (aplay and
        arecord, or the files, deaf while the table speaks)."""
        if self.audio_input or self.settings.listen == "off":
            return
        try:
            from assistant.voice.duplex import open_duplex
        except Exception as err:  # numpy or the voice package broken: the old way
            log.warning("no full-duplex audio: %s", _short(err))
            return
        self.duplex, why = open_duplex(on_onset=self._barge_in)
        if why:
            log.info("%s", why)

    def _barge_in(self) -> None:
        """A person spoke over the table (the duplex device's thread): it stops talking."""
        if self.speaker is not None:
            self.speaker.stop()

    @property
    def deaf_while_speaking(self) -> bool:
        """Whether the listener must be paused while the table speaks (no echo canceller)."""
        return self.duplex is None or not self.duplex.full_duplex

    def _load_speaker(self) -> None:
        # Made even when speech is switched off in the settings: it starts muted, and the mute
        # key can turn it on during the game.
        try:
            from assistant.voice.speaker import Speaker
        except Exception as err:  # the voice package is missing or broken: no speech
            self.post(SpeechState("unavailable", format(_("speech could not load: {error}"), error=_short(err))))
            return
        speaker = self._adopt(SpeechState, lambda: Speaker(self.settings, on_state=self._speaker_state,
                                                           duplex=self.duplex),
                              self._keep_speaker)
        if speaker is not None:
            self.post(SpeechState(speaker.state, reason_text(getattr(speaker, "reason", None))))

    def _load_listener(self) -> None:
        if self.settings.listen == "off" and not self.audio_input:
            self.post(MicState("off", _("listening is switched off in the settings")))
            return
        try:
            from assistant.voice.listener import Heard, Listener, ListenerState, Rejected
        except Exception as err:
            self.post(MicState("unavailable", format(_("listening could not load: {error}"), error=_short(err))))
            return

        def on_event(event: object) -> None:
            if isinstance(event, Heard):
                self.post(HeardCommand(event.command, event.text, getattr(event, "confidence", None)))
            elif isinstance(event, Rejected):
                self.post(RejectedSpeech(event.text, event.reason, event.addressed))
            elif isinstance(event, ListenerState):
                self.post(MicState(event.state, reason_text(self._with_duplex(event.reason))))

        settings = self.settings
        if self.audio_input:
            # Files played in run on by themselves, as if people were talking at the table.
            settings = replace(settings, audio_input=tuple(self.audio_input), listen="continuous")
        source = self.duplex.source() if self.duplex is not None else None
        listener = self._adopt(MicState, lambda: Listener(
            settings, self.context, on_event, audio_input=self.audio_input, settle=True, source=source),
            self._keep_listener)
        if listener is not None:
            self.post(MicState(listener.state, reason_text(self._with_duplex(getattr(listener, "reason", None)))))

    def _with_duplex(self, reason: str | None) -> str | None:
        """The listener's reason, and that the table is deaf while it speaks when a sound card
        is there but no echo canceller could be loaded."""
        duplex_reason = self.duplex.reason if self.duplex is not None else None
        return "; ".join(r for r in (reason, duplex_reason) if r) or None

    def _keep_speaker(self, speaker: Speaker) -> None:
        self.speaker = speaker

    def _keep_listener(self, listener: Listener) -> None:
        self.listener = listener

    def _adopt(self, state: type[SpeechState] | type[MicState], make: Callable[[], _Device],
               keep: Callable[[_Device], None]) -> _Device | None:
        """Make and start a device and ``keep`` it; None (said) when it fails or the app closed
        meanwhile (then the device is closed at once)."""
        try:
            device = make()
            device.start()
        except Exception as err:  # a device that cannot start is "unavailable", not a crash
            self.post(state("unavailable", _short(err)))
            return None
        with self._lock:
            if self._closed.is_set():
                device.close()
                return None
            keep(device)
        return device

    def _speaker_state(self, state: str, reason: str | None) -> None:
        # While the speaker speaks, the listener must not hear it, unless the echo is cancelled
        # (the duplex device then keeps the table's own voice from the listener).
        listener = self.listener
        if listener is not None:
            pause = (state == "speaking" and self.deaf_while_speaking) or not self.listening_wanted
            try:
                listener.pause() if pause else listener.resume()
            except Exception as err:  # a listener that cannot pause: said, never a crash
                why = (_("the microphone could not pause while the table speaks: {error}") if pause
                       else _("the microphone could not resume: {error}"))
                self.post(MicState("unavailable", format(why, error=_short(err))))
        self.post(SpeechState(state, reason_text(reason)))

    # ------------------------------------------------------------------ used by the app
    def say(self, text: str) -> None:
        if self.speaker is not None and text:
            self.speaker.say(text)

    def stop_speaking(self) -> None:
        if self.speaker is not None:
            self.speaker.stop()

    def toggle_mute(self) -> bool | None:
        """Muted after the call, or None when there is no speaker."""
        if self.speaker is None:
            return None
        return bool(self.speaker.toggle_mute())

    def set_voice(self, on: bool) -> None:
        """Voice on or off as a whole (the setup screen's switch): speech and listening."""
        self.listening_wanted = on
        if self.speaker is not None:
            if on:
                self.speaker.unmute()
            else:
                self.speaker.mute()
        if self.listener is not None:
            if on:
                self.listener.resume()
            else:
                self.listener.pause()

    def settled(self) -> None:
        """The app has applied (or refused) the last heard command; see ``Listener.settled``."""
        if self.listener is not None:
            self.listener.settled()

    def push_to_talk(self) -> bool:
        """Start one utterance, the table silenced at once; False when there is no listener."""
        if self.listener is None:
            return False
        self.stop_speaking()
        self.listener.push_to_talk()
        return True

    def close(self) -> None:
        self._closed.set()
        with self._lock:
            devices = [self.listener, self.speaker, self.duplex]
            self.listener = self.speaker = self.duplex = None
        for device in devices:
            if device is not None:
                try:
                    device.close()
                except Exception as err:  # the others are still closed; the app is ending,
                    # so there is no screen left to say it on: the log keeps it.
                    log.warning("closing %s failed: %s", type(device).__name__, _short(err))


#: Push to talk while voice is switched off for this game on the setup screen.
VOICE_OFF_TALK = N_("Voice is off for this game, so the table is not listening. To turn it on, start "
                     "a new game (ctrl+p, New game) with Voice switched on.")


class TableVoice:
    """The table's voice as the app uses it: the bridge (None without voice, or before mount),
    the status line's microphone and speech, the setup screen's switch. Why an object of its own:
    the voice is one device with one life cycle (made at mount, loaded in a worker, closed at the
    end), and what the app asks of it (say this, talk, mute, settled) is a sentence each."""

    def __init__(self, app: App[Any], settings: VoiceSettings, audio_input: list[str], enabled: bool,
                 status: Callable[[], StatusLine], view: Callable[[], TableView]) -> None:
        self.app = app
        self.settings = settings
        self.audio_input = audio_input
        #: Voice wanted at all (``voice=False``: the tests, no devices opened).
        self.enabled = enabled
        #: The table's status line and its view, as they are when asked.
        self.status = status
        self.view = view
        if enabled:  # here, before the event loop runs: these imports stall every thread
            preload_gil_bound(settings, audio_input)
        #: The voice switch as last set on the setup screen (None: not yet).
        self.chosen: bool | None = None
        self.bridge: VoiceBridge | None = None

    def start(self) -> None:
        """At mount: the bridge made, and loaded a moment later in a thread worker, so the heavy
        imports do not hold up the table's first frame."""
        status = self.status()
        if not self.enabled:
            status.set_mic("off")
            status.set_speech("off")
            return
        status.set_mic("loading")
        status.set_speech("loading")
        bridge = self.bridge = VoiceBridge(self.settings, self.app.post_message, self.listen_context,
                                           self.audio_input)
        self.app.set_timer(0.1, lambda: self._load(bridge))

    def _load(self, bridge: VoiceBridge) -> None:
        self.app.run_worker(bridge.load, thread=True, exclusive=True, group="voice")

    def listen_context(self) -> ListenContext:
        """What the listener (on its own thread, once an utterance) may listen for: made from
        the table's view, a copy nothing changes, never from the live game that the desk's
        thread is changing."""
        from assistant.voice.listener import ListenContext

        view = self.view()
        return ListenContext(players=view.players, game=view.game, question=view.question is not None,
                             refused=view.refused)

    def words(self, reply: Reply, heard: bool) -> str:
        """What to say of ``reply`` as the ``[voice] speech`` setting says (the one choice of
        what is spoken: ``spoken``), ``heard`` or typed."""
        return " ".join(spoken(reply, heard, self.settings.speech)).strip()

    def say(self, text: str) -> None:
        if self.bridge is not None and text:
            self.bridge.say(text)

    @property
    def on_by_default(self) -> bool:
        """The setup screen's voice switch: as last chosen there, else as the settings say."""
        if self.chosen is not None:
            return self.chosen
        return self.enabled and self.settings.speak

    def set_voice(self, on: bool) -> None:
        """The setup screen's switch: voice on or off for the game it starts."""
        self.chosen = on
        self.status().set_switched_off(not on)
        if self.bridge is not None:
            self.bridge.set_voice(on)

    def settled(self) -> None:
        """The last heard command is applied (or refused): the listener may hear the next."""
        if self.bridge is not None:
            self.bridge.settled()

    def push_to_talk(self) -> None:
        """The talk key: one utterance, or a sentence saying why the table cannot listen."""
        status = self.status()
        if status.switched_off:  # the setup screen's choice, not the device's state
            self.app.notify(_(VOICE_OFF_TALK), severity="warning")
            return
        mic, reason = status.mic
        if mic in ("unavailable", "loading") or self.bridge is None or not self.bridge.push_to_talk():
            said = (format(_("The microphone is {state}: {reason}."), state=state_word(mic), reason=reason)
                    if reason else format(_("The microphone is {state}."), state=state_word(mic)))
            self.app.notify(said, severity="warning")

    def toggle_mute(self) -> None:
        """The mute key: speech muted or unmuted, or a sentence saying why it cannot be."""
        speech, reason = self.status().speech
        muted = None
        if speech not in ("unavailable", "loading") and self.bridge is not None:
            muted = self.bridge.toggle_mute()
        if muted is None:
            said = (format(_("Speech is {state}: {reason}."), state=state_word(speech), reason=reason)
                    if reason else format(_("Speech is {state}."), state=state_word(speech)))
            self.app.notify(said, severity="warning")

    def close(self) -> None:
        if self.bridge is not None:
            self.bridge.close()


def reason_text(reason: str | None) -> str | None:
    """A device's reason without the "speech off:" its own label already says."""
    if not reason:
        return reason
    for prefix in ("speech off: ", "listening off: "):
        if reason.startswith(prefix):
            return reason[len(prefix):]
    return reason


def _short(err: BaseException) -> str:
    text = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
    return text[:120]
