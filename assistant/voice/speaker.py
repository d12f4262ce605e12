"""Speech out: the referee's announcements, spoken on one owned thread, never blocking the caller.

Used by the Textual app and ``lifeguard listen``. pyttsx3's espeak driver must be created and
driven on a single thread, speaks only one of several queued ``say()`` calls, plays through
``aplay`` with its errors going straight to the terminal, and prints "Audio saved to ..." after
``save_to_file``. And espeak-ng is one library per process: initialised once, with one synthesis
callback, which a second engine takes over and a dying engine sets to nothing (its next file is
then silently never written), and now and then writes a WAV with no audio in it (synthesised
again: ``_synthesize``). So: one synthesiser thread per process owns the only engine, for
the life of the process; each speaker has a thread and a queue of its own, has each announcement
synthesised to a WAV file (``save_to_file``, with the driver's print silenced) and plays it with
a player process of our own whose output goes to /dev/null. ``stop`` kills the player and
empties the queue. With a full-duplex device (``duplex``, ``assistant.voice.duplex``) the WAV is
played through that device instead, on the clock the microphone records on, so its echo can be
cancelled; ``stop`` then cuts it off at the next 10 ms frame.

States (``on_state`` is called from the speaker thread on every change):
    "on"           ready, idle
    "speaking"     an announcement is playing
    "muted"        announcements are dropped
    "unavailable"  no espeak-ng or no audio device; ``reason`` says which, ``say`` does nothing
"""

from __future__ import annotations

import os
import queue
import re
import shutil
import subprocess
import tempfile
import threading
import time
import wave
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from assistant.config import VoiceSettings
from assistant.i18n import current_language
from assistant.voice.protocols import SpeechEngine

if TYPE_CHECKING:
    from assistant.voice.duplex import DuplexAudio

#: The speaker's states (see the module docstring).
SpeakerState = Literal["on", "speaking", "muted", "unavailable"]

#: The default player: ALSA's aplay, quiet. ``{file}`` is replaced by the WAV to play.
DEFAULT_PLAYER: tuple[str, ...] = ("aplay", "-q", "{file}")

#: espeak-ng's voice for each language a table can be played in (``espeak-ng --voices=de``).
LANGUAGE_VOICES: dict[str, str] = {"en": "en", "de": "de", "ko": "ko"}
#: ``[voice] voice`` values that follow the table's language: the shipped default ("en", which
#: every copied settings file holds) and none at all. Any other voice ("en-us", "de+m3") is kept.
FOLLOW_LANGUAGE = frozenset({"", "en"})


def voice_for(voice: str, language: str) -> str:
    """The espeak-ng voice to speak with: ``voice`` as configured, unless it is the default,
    which follows the table's ``language`` (German is said with "de", Korean with "ko")."""
    if voice.strip() in FOLLOW_LANGUAGE:
        return LANGUAGE_VOICES.get(language, voice.strip() or "en")
    return voice.strip()


#: Longest wait for one announcement's synthesis (a few hundred ms normally) before giving up.
SYNTHESIS_TIMEOUT = 30.0

class _Stop:
    """The last item of a speaker's queue: its thread ends."""


_STOP = _Stop()
#: What a speaker's queue holds: (generation, text) to speak, an event to set once everything
#: before it is done (``wait_idle``), or ``_STOP``.
_Item = tuple[int, str] | threading.Event | _Stop


class _Synthesizer:
    """The process's one pyttsx3 espeak engine, created and driven on one daemon thread.

    Kept for the life of the process: pyttsx3 caches engines only while they live, and an
    engine's end unregisters espeak-ng's synthesis callback for every engine after it.
    """

    def __init__(self) -> None:
        self._requests: queue.Queue[
            tuple[str | None, str, VoiceSettings | None, Future[str | None]]] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        #: The voice the engine last spoke with, as espeak-ng identifies it ("gmw/de", "ko").
        self.voice: str | None = None

    def start(self) -> str | None:
        """Start the engine if need be: None when it runs, else a one-line reason."""
        return self._ask(None, "", None)

    def synthesize(self, text: str, path: str, settings: VoiceSettings) -> str | None:
        """Write ``text`` spoken to the WAV ``path``: None when done, else a one-line reason."""
        return self._ask(text, path, settings)

    def _ask(self, text: str | None, path: str, settings: VoiceSettings | None) -> str | None:
        """Hand a request to the engine's thread and wait for its answer (on a speaker's thread)."""
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="lifeguard-synthesizer",
                                                daemon=True)
                self._thread.start()
        done: Future[str | None] = Future()
        self._requests.put((text, path, settings, done))
        try:
            return done.result(SYNTHESIS_TIMEOUT)
        except FutureTimeout:
            return f"speech off: synthesis took over {SYNTHESIS_TIMEOUT:.0f} s"

    def _run(self) -> None:
        engine, failure = _start_engine()
        while True:
            text, path, settings, done = self._requests.get()
            if engine is None or text is None or settings is None:
                done.set_result(failure)
                continue
            failure = _synthesize(engine, text, path, settings)
            self.voice = _engine_voice(engine)
            done.set_result(failure)


def _start_engine() -> tuple[SpeechEngine | None, str | None]:
    try:
        import pyttsx3
        import pyttsx3.drivers.espeak as espeak_driver

        # pyttsx3's espeak driver (2.99, drivers/espeak.py, on EVENT_MSG_TERMINATED) calls
        # print("Audio saved to ...") after every file it saves; pyttsx3 offers no switch for it
        # (init's ``debug`` does not govern it, nor does logging). That line would land on the
        # table's terminal. contextlib.redirect_stdout is no fix: it swaps sys.stdout for the
        # whole process while the table draws on another thread. So the name ``print`` is
        # shadowed in that one module of pyttsx3's and nowhere else.
        espeak_driver.print = lambda *args, **kwargs: None
        return pyttsx3.init("espeak"), None
    except Exception as err:  # noqa: BLE001 - any failure of the back end means no speech
        return None, f"speech off: the speech engine failed to start ({_one_line(err)})"


def _engine_voice(engine: SpeechEngine) -> str | None:
    """The voice ``engine`` speaks with, as espeak-ng identifies it, if the engine tells."""
    get = getattr(engine, "getProperty", None)
    try:
        voice = get("voice") if get is not None else None
    except Exception:  # noqa: BLE001 - only reported, never needed to speak
        return None
    return voice if isinstance(voice, str) else None


#: Syntheses of one announcement before giving up on it (see ``_synthesize``).
SYNTHESIS_ATTEMPTS = 3


def _synthesize(engine: SpeechEngine, text: str, path: str, settings: VoiceSettings) -> str | None:
    """Write ``text`` spoken to ``path``: None when done, else a one-line reason. pyttsx3's
    espeak driver now and then writes a WAV with no audio in it (it runs espeak-ng
    asynchronously; the cause inside it was not found): speaking "status", "help", "undo" with
    a fresh speaker each time, 16 runs of 60 had an empty "help", never spoken; with a second
    synthesis of an empty file, 10 of 180 files were made twice and every run was whole."""
    try:
        engine.setProperty("rate", settings.rate)
        engine.setProperty("volume", settings.volume)
        try:
            # Chosen at each synthesis: the table's language is set before anything is said.
            engine.setProperty("voice", voice_for(settings.voice, current_language()))
        except Exception:  # noqa: BLE001 - an unknown voice keeps the default one
            pass
    except Exception as err:  # noqa: BLE001
        return f"speech off: synthesis failed ({_one_line(err)})"
    for attempt in range(SYNTHESIS_ATTEMPTS):  # the engine keeps its properties between syntheses
        try:
            engine.save_to_file(text, path)
            engine.runAndWait()
        except Exception as err:  # noqa: BLE001
            return f"speech off: synthesis failed ({_one_line(err)})"
        if _frames(path) > 0:
            return None
        # No file at all happens too, on the first synthesis right after the engine started
        # (with nothing between them: a full-duplex device needs no probe with aplay); 0.1 s
        # later the same synthesis writes it.
        time.sleep(0.1 * (attempt + 1))
    return "speech off: synthesis wrote no audio"


def _frames(path: str) -> int:
    """The audio frames in a WAV file (0 when it is no WAV)."""
    try:
        with wave.open(path, "rb") as wav:
            return wav.getnframes()
    except (OSError, EOFError, wave.Error):
        return 0


_SYNTHESIZER = _Synthesizer()


class Speaker:
    """Speaks announcements in order on its own thread.

    ``player``: the command that plays one WAV (``{file}`` is replaced), default aplay.
    ``wav_dir``: also keep each utterance's WAV there, numbered in order (tests, demos).
    ``duplex``: play through this full-duplex device instead of the player.
    """

    def __init__(
        self,
        settings: VoiceSettings,
        on_state: Callable[[SpeakerState, str | None], None] | None = None,
        *,
        player: Sequence[str] | None = None,
        wav_dir: str | os.PathLike[str] | None = None,
        duplex: DuplexAudio | None = None,
    ) -> None:
        self.duplex = duplex
        self.settings = settings
        self.on_state = on_state
        self.player = tuple(player or DEFAULT_PLAYER)
        self.wav_dir = Path(wav_dir) if wav_dir is not None else None
        self.state: SpeakerState = "on"
        self.reason: str | None = None
        #: The espeak-ng voice of the last announcement ("gmw/de", "ko"): the table's language's
        #: unless ``[voice] voice`` names another (``voice_for``); None before the first.
        self.voice: str | None = None
        self._muted = not settings.speak
        self._queue: queue.Queue[_Item] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._process_lock = threading.Lock()
        self._generation = 0  # bumped by stop(): queued items of older generations are dropped
        self._count = 0
        self._ready = threading.Event()
        self._closed = False
        if self._muted:
            self.state = "muted"

    # ------------------------------------------------------------------ public interface
    def start(self) -> None:
        """Start the speech thread (engine set-up happens there, so this returns at once)."""
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name="lifeguard-speaker", daemon=True)
        self._thread.start()

    def say(self, text: str) -> None:
        """Queue ``text``; returns at once. Spoken in order; dropped while muted or unavailable."""
        text = " ".join(text.split())
        if not text or self._closed or self.state == "unavailable" or self._muted:
            return
        self._queue.put((self._generation, text))

    def stop(self) -> None:
        """Interrupt what is being said and forget what is queued."""
        with self._process_lock:  # a player starting right now sees the new generation
            self._generation += 1
        self._drain()
        self._kill_player()

    def mute(self) -> None:
        self._muted = True
        self.stop()
        if self.state != "unavailable":
            self._set_state("muted")

    def unmute(self) -> None:
        self._muted = False
        if self.state == "muted":
            self._set_state("on")

    def toggle_mute(self) -> bool:
        """Mute or unmute; returns True when now muted."""
        if self._muted:
            self.unmute()
        else:
            self.mute()
        return self._muted

    def close(self) -> None:
        self._closed = True
        self.stop()
        self._queue.put(_STOP)
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)

    def wait_idle(self, timeout: float = 10.0) -> bool:
        """Block until everything queued has been spoken (for tests and ``listen``)."""
        self._ready.wait(timeout)
        done = threading.Event()
        self._queue.put(done)
        return done.wait(timeout)

    # ------------------------------------------------------------------ the speech thread
    def _run(self) -> None:
        workdir = tempfile.mkdtemp(prefix="lifeguard-speech-")
        try:
            reason = self._set_up(workdir)
            if reason is not None:
                self._set_state("unavailable", reason)
                self._drain()
            elif not self._muted:
                self._set_state("on")
            self._ready.set()
            while True:
                item = self._queue.get()
                if isinstance(item, _Stop):
                    break
                if isinstance(item, threading.Event):
                    item.set()
                    continue
                if reason is not None:
                    continue
                generation, text = item
                if generation != self._generation or self._muted:
                    continue
                self._speak(text, workdir, generation)
        finally:
            self._ready.set()
            shutil.rmtree(workdir, ignore_errors=True)

    def _set_up(self, workdir: str) -> str | None:
        """None when the engine and a player work, else a one-line reason."""
        if shutil.which("espeak-ng") is None and shutil.which("espeak") is None:
            return "speech off: espeak-ng is not installed"
        failure = _SYNTHESIZER.start()
        if failure is not None:
            return failure
        # Is there a device to play on? Play a short silence and see.
        probe = Path(workdir) / "probe.wav"
        with wave.open(str(probe), "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(22050)
            w.writeframes(bytes(441 * 2))
        _, reason = self._play(probe, probe=True)
        return reason

    def _speak(self, text: str, workdir: str, generation: int) -> None:
        self._count += 1
        path = Path(workdir) / f"say{self._count:05d}.wav"
        failure = _SYNTHESIZER.synthesize(text, str(path), self.settings)
        self.voice = _SYNTHESIZER.voice
        if failure is not None:
            self._set_state("unavailable", failure)
            self._drain()
            return
        if generation != self._generation or self._muted:
            path.unlink(missing_ok=True)
            return
        if self.wav_dir is not None:
            self.wav_dir.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, self.wav_dir / f"{self._count:05d}.wav")
        self._set_state("speaking")
        try:
            ok, reason = self._play(path, generation=generation)
            if not ok and generation == self._generation:
                self._set_state("unavailable", reason)
                self._drain()
                return
        finally:
            path.unlink(missing_ok=True)
        if self.state == "speaking":
            self._set_state("muted" if self._muted else "on")

    def _play(self, path: Path, probe: bool = False, generation: int | None = None) -> tuple[bool, str | None]:
        if self.duplex is not None:
            return self._play_duplex(path, probe, generation)
        command = [part.replace("{file}", str(path)) for part in self.player]
        if shutil.which(command[0]) is None:
            return False, f"speech off: no audio player ({command[0]} is not installed)"
        try:
            with self._process_lock:
                if generation is not None and generation != self._generation:
                    return True, None  # stopped before it began
                process = subprocess.Popen(
                    command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                    stderr=subprocess.PIPE,
                )
                if not probe:  # stop() must not kill the device probe (mute right after start)
                    self._process = process
            try:
                _, err = process.communicate(timeout=3 if probe else None)
            except subprocess.TimeoutExpired:
                # Still playing 10 ms of silence after 3 s: a slow device, but a device.
                process.kill()
                process.communicate()
                return True, None
        except OSError as error:
            return False, f"speech off: cannot run {command[0]} ({error.strerror})"
        finally:
            with self._process_lock:
                self._process = None
        if process.returncode == 0 or (process.returncode < 0 and not probe):
            return True, None  # a negative code: stop() killed it on purpose
        detail = _one_line(err.decode(errors="replace")) or f"exit status {process.returncode}"
        return False, f"speech off: no audio device ({command[0]}: {detail})"

    def _play_duplex(self, path: Path, probe: bool, generation: int | None) -> tuple[bool, str | None]:
        duplex = self.duplex
        assert duplex is not None
        if probe:
            return True, None
        pcm = _pcm16k(path)
        with self._process_lock:
            if generation is not None and generation != self._generation:
                return True, None  # stopped before it began
            done = duplex.play(pcm)
        done.wait()
        return True, None

    # ------------------------------------------------------------------ helpers
    def _kill_player(self) -> None:
        if self.duplex is not None:
            self.duplex.stop_playback()
        with self._process_lock:
            process = self._process
        if process is not None and process.poll() is None:
            process.terminate()

    def _drain(self) -> None:
        keep: list[_Item] = []
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                break
            if isinstance(item, _Stop | threading.Event):
                keep.append(item)
        for item in keep:
            self._queue.put(item)

    def _set_state(self, state: SpeakerState, reason: str | None = None) -> None:
        if state == self.state and reason == self.reason:
            return
        self.state = state
        self.reason = reason
        if self.on_state is not None:
            try:
                self.on_state(state, reason)
            except Exception:  # noqa: BLE001 - a broken callback must not kill speech
                pass


def _pcm16k(path: Path) -> bytes:
    """A WAV's audio as the duplex device plays it: 16 kHz mono 16-bit."""
    from assistant.voice.pcm import audioop

    with wave.open(str(path), "rb") as wav:
        rate, width, channels = wav.getframerate(), wav.getsampwidth(), wav.getnchannels()
        data = wav.readframes(wav.getnframes())
    if channels == 2:
        data = audioop.tomono(data, width, 0.5, 0.5)
    if width != 2:
        data = audioop.lin2lin(data, width, 2)
    if rate != 16000:
        data, _ = audioop.ratecv(data, 2, 1, rate, 16000, None)
    return data


def _one_line(value: object) -> str:
    """The last line of an error, without ALSA's "aplay: main:831:" source-position prefix."""
    lines = [line.strip() for line in str(value).splitlines() if line.strip()]
    line = lines[-1] if lines else ""
    return re.sub(r"^[\w-]+: \w+:\d+: ", "", line)[:120]
