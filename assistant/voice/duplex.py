"""Full-duplex audio: the referee plays and the microphone records on one clock, so an echo
canceller can take the referee's own voice out of what the listener hears, and a player who
speaks over an announcement stops it (barge-in).

Used by the speaker (``Speaker(duplex=...)`` plays through ``play`` instead of aplay), the
listener (reads ``source()``, a SpeechRecognition ``AudioSource``), the table's voice bridge,
the echo tests and ``bench/room_echo.py``. Every 10 ms frame (``FRAME``):

1. the next frame of what is being played is sent to the speaker (silence when nothing is);
2. the frame the microphone captured at the same time is cleaned by the canceller, with the
   played frame as its reference (``assistant.voice.echo``);
3. while an announcement plays, ``SpeechOnset`` watches the cleaned capture for a person's voice;
   at its onset the announcement is stopped (``on_onset``, then ``stop_playback``) and the
   listener hears the speech from a little before its onset (``PREROLL_SECONDS``). Until then
   the listener hears silence while the referee speaks: what is left of the echo after
   cancelling is never decoded as a command. What the listener hears of the speech that
   overlapped the announcement (the preroll, and the echo's tail for ``OVERLAP_TAIL_SECONDS``
   after the stop) has what is left of the echo suppressed band by band too
   (``echo.ResidualEchoSuppressor``, whose output is a frame late: from a barge-in to the next
   announcement the listener hears the speech 10 ms later).

Without a canceller (``canceller=None``) the device is half-duplex: deaf while it plays, as the
table was with aplay, and ``reason`` says so for the status line.

Back ends: ``SoundDeviceDuplex`` (PortAudio through ``sounddevice``; a real sound card) and
``SimulatedDuplex`` (the microphone's audio from WAV files at real-time pace, or from samples,
with whatever is played sent through a simulated laptop's echo path, ``assistant.voice.room``,
and added to it on the same clock; tests, benchmarks and ``lifeguard listen --room``). With
``realtime=False`` a simulated device is driven by ``tick``/``run`` as fast as it computes.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from assistant.voice.echo import (
    FRAME,
    SAMPLE_RATE,
    SAMPLE_WIDTH,
    EchoCanceller,
    ResidualEchoSuppressor,
)

#: How long a voice must stand out of the cleaned capture, window after window, before it counts
#: as a person speaking over an announcement (bench/NOTES.md, "Barge-in").
ONSET_SECONDS = 0.08
#: A window is a person's voice when the canceller kept this much more of it (dB) than it keeps
#: of echo alone (it takes about 20 dB out of echo, bench/NOTES.md "Echo cancelling"; a voice
#: 0-10 dB under the echo leaves the cleaned window within about 10 dB of the capture).
VOICE_OVER_ECHO_DB = 6.0
#: The canceller has converged once it takes this much (dB) out of echo alone.
CONVERGED_DB = -10.0
#: Quieter than this (dBFS) is no voice at a table.
QUIETEST_VOICE_DBFS = -55.0
#: The window over which the canceller's effect is judged.
WINDOW_SECONDS = 0.06
#: How fast the baseline follows what the canceller keeps of echo alone (per 10 ms frame).
BASELINE_RATE = 0.02
#: The speech before the onset was confirmed that the listener hears too.
PREROLL_SECONDS = 0.5
#: Whether the speech over an announcement is heard with its residual echo suppressed
#: (bench/NOTES.md, session 17; ``bench/room_echo.py --plain-overlap`` measures without).
OVERLAP_SUPPRESSION = True
#: After a barge-in, how long the residual echo is still suppressed: the echo's reverberant tail
#: and what SpeexDSP's 0.25 s filter still holds of the announcement run out by then.
OVERLAP_TAIL_SECONDS = 0.3
#: Quiet after which quiet frames are dropped while the listener runs behind the clock.
CATCH_UP_QUIET = 0.3
#: How much cleaned capture waits for a reader before the oldest is dropped.
BUFFER_SECONDS = 30.0
#: What the status line says of a device without a canceller.
DEAF_WHILE_SPEAKING = "no echo canceller: deaf while speaking"


def _rms(frame: Any) -> float:
    return float(np.sqrt(np.mean(np.square(frame, dtype=np.float64)))) if len(frame) else 0.0


class SpeechOnset:
    """Finds a person's voice in the cleaned capture while an announcement plays.

    Over a sliding window of ``WINDOW_SECONDS``, ``kept`` is the share of the capture's energy
    that the canceller left (dB). On echo alone it is steady once the canceller has converged
    (``baseline``, learnt from windows that hold no voice); a voice, which the canceller leaves
    alone, raises it. A window is voice when ``kept`` is ``VOICE_OVER_ECHO_DB`` over the
    baseline and the cleaned capture is louder than the echo's expected remains (the recent
    echo's peak less the baseline, with the same margin) and than a quiet voice. A voice that
    holds ``ONSET_SECONDS`` is an onset. Until the canceller has converged (baseline above
    ``CONVERGED_DB``: the first seconds of echo a device ever hears) nothing counts: the
    table is deaf then, as without a canceller.
    """

    def __init__(self, onset_seconds: float = ONSET_SECONDS) -> None:
        self.needed = max(1, round(onset_seconds * SAMPLE_RATE / FRAME))
        self.window = max(1, round(WINDOW_SECONDS * SAMPLE_RATE / FRAME))
        self.baseline = 0.0  # dB the canceller keeps of echo alone; 0 before it converges
        self._captured: deque[float] = deque(maxlen=self.window)
        self._cleaned: deque[float] = deque(maxlen=self.window)
        self._peaks: deque[float] = deque(maxlen=4 * self.window)  # the echo's recent peak
        self.reset()

    def reset(self) -> None:
        """A new announcement: the count of voiced frames starts again (the baseline stays)."""
        self._run = 0

    @property
    def voicing(self) -> bool:
        """Whether the last frame fed was judged a voice (an onset may be under way)."""
        return self._run > 0

    @property
    def converged(self) -> bool:
        return self.baseline < CONVERGED_DB

    def feed(self, captured: Any, cleaned: Any) -> bool:
        """One frame before and after cancelling; True on the frame that confirms an onset."""
        raw, clean = _rms(captured), _rms(cleaned)
        self._captured.append(raw * raw)
        self._cleaned.append(clean * clean)
        self._peaks.append(raw)
        captured_energy, cleaned_energy = sum(self._captured), sum(self._cleaned)
        kept = 10 * np.log10((cleaned_energy + 1e-9) / (captured_energy + 1e-9))
        loud = np.sqrt(captured_energy / len(self._captured)) > 10 ** (QUIETEST_VOICE_DBFS / 20) * 32768
        cleaned_rms = float(np.sqrt(cleaned_energy / len(self._cleaned)))
        remains = max(self._peaks) * 10 ** ((self.baseline + VOICE_OVER_ECHO_DB) / 20)
        voice = (self.converged and kept > self.baseline + VOICE_OVER_ECHO_DB and cleaned_rms > remains
                 and cleaned_rms > 10 ** (QUIETEST_VOICE_DBFS / 20) * 32768)
        if loud and kept < self.baseline + 3:  # echo alone: learn what the canceller keeps of it
            self.baseline += BASELINE_RATE * (kept - self.baseline)
        self._run = self._run + 1 if voice else 0
        return self._run == self.needed


class _CleanedStream:
    """The listener's side: cleaned capture, ``read`` blocking until enough has been captured."""

    def __init__(self, device: DuplexAudio, source: Any) -> None:
        self.device = device
        self.source = source

    def read(self, frames: int) -> bytes:
        data = self.device.read(frames * SAMPLE_WIDTH)
        return bytes(len(data)) if self.source.deaf else data


def duplex_source(device: DuplexAudio) -> Any:
    """The cleaned capture of ``device`` as a SpeechRecognition ``AudioSource`` (its class built
    on first use, like ``assistant.voice.audio``'s sources, so that importing this module stays
    light). ``ended`` once a simulated microphone's audio has run out."""
    from assistant.voice.audio import CHUNK, _SpeechRecognitionSource

    class DuplexSource(_SpeechRecognitionSource):
        def __init__(self, device: DuplexAudio) -> None:
            self.device = device
            self.SAMPLE_RATE = SAMPLE_RATE
            self.SAMPLE_WIDTH = SAMPLE_WIDTH
            self.CHUNK = CHUNK
            self.stream: _CleanedStream | None = None
            self.deaf = False

        def __enter__(self) -> DuplexSource:
            self.device.start()
            self.stream = _CleanedStream(self.device, self)
            return self

        def __exit__(self, *exc: object) -> None:
            self.stream = None

        def close(self) -> None:
            self.device.close()

        @property
        def ended(self) -> bool:
            return self.device.ended

    return DuplexSource(device)


class DuplexAudio:
    """What both back ends share: playing, cancelling, finding onsets, the listener's buffer."""

    def __init__(self, canceller: EchoCanceller | None, canceller_reason: str | None = None,
                 on_onset: Callable[[], None] | None = None) -> None:
        self.canceller = canceller
        #: Why the device is deaf while it speaks (no canceller), else None.
        self.reason = None if canceller is not None else DEAF_WHILE_SPEAKING
        self.canceller_reason = canceller_reason
        self.on_onset = on_onset
        self.onset = SpeechOnset()
        #: Monotonic times (device clock, seconds since start) of each barge-in, and of each stop
        #: of playback that followed (benchmarks).
        self.onsets: list[float] = []
        self.frames = 0  # frames ticked since start: the device's clock
        #: Called with each frame captured, played and cleaned (benchmarks measure ERLE with it).
        self.tap: Callable[[bytes, bytes, bytes], None] | None = None
        self._lock = threading.Condition()
        #: Held while the canceller runs on the clock's thread and while it is closed: its state
        #: is native memory (SpeexDSP), and closing it under a frame being cancelled corrupted
        #: the heap (a test's worker aborted with 'malloc(): unsorted double linked list').
        self._cancelling = threading.Lock()
        self._playing: deque[bytes] = deque()
        self._done: threading.Event | None = None
        self._buffer = bytearray()
        self._preroll: deque[bytes] = deque(maxlen=max(1, round(PREROLL_SECONDS * SAMPLE_RATE / FRAME)))
        self._barged = False
        self._suppressor = ResidualEchoSuppressor() if canceller is not None and OVERLAP_SUPPRESSION else None
        #: Frames the suppressor still takes residual echo out of after a barge-in.
        self._tail_left = 0
        #: From a barge-in to the next announcement the listener hears the suppressor's output.
        self._suppressing = False
        #: Frames the listener's stream runs behind the clock (the speech before each barge-in,
        #: heard late), worked off in the next pause (``_caught_up``).
        self.lag = 0
        self._quiet_run = 0
        self._quiet_floor = 32768.0
        self._closed = False
        self.ended = False

    @property
    def full_duplex(self) -> bool:
        """Whether the listener hears while the referee speaks."""
        return self.canceller is not None

    @property
    def clock(self) -> float:
        """Seconds of audio since the device started."""
        return self.frames * FRAME / SAMPLE_RATE

    # ------------------------------------------------------------------ playing
    def play(self, pcm: bytes) -> threading.Event:
        """Queue 16 kHz mono 16-bit ``pcm`` to play; the event is set when it has been played
        or stopped."""
        done = threading.Event()
        frames = [pcm[i:i + FRAME * SAMPLE_WIDTH] for i in range(0, len(pcm), FRAME * SAMPLE_WIDTH)]
        if frames and len(frames[-1]) < FRAME * SAMPLE_WIDTH:
            frames[-1] += bytes(FRAME * SAMPLE_WIDTH - len(frames[-1]))
        with self._lock:
            self._finish_playing()
            if self._closed or not frames:
                done.set()
                return done
            self._playing.extend(frames)
            self._done = done
            self._barged = False
            self._suppressing = False
            self.onset.reset()
        return done

    def stop_playback(self) -> None:
        """Stop what is playing now (the next frame is silence)."""
        with self._lock:
            self._finish_playing()

    @property
    def playing(self) -> bool:
        return bool(self._playing)

    def _finish_playing(self) -> None:
        self._playing.clear()
        if self._done is not None:
            self._done.set()
            self._done = None

    def next_played(self) -> bytes:
        """The frame to send to the speaker now (the back end's clock calls it)."""
        with self._lock:
            if self._playing:
                frame = self._playing.popleft()
                if not self._playing and self._done is not None:
                    self._done.set()
                    self._done = None
                return frame
        return bytes(FRAME * SAMPLE_WIDTH)

    # ------------------------------------------------------------------ capturing
    def captured(self, capture: bytes, played: bytes) -> None:
        """One frame captured while ``played`` was sent to the speaker (the back end calls it)."""
        self.frames += 1
        was_playing = any(played)
        if self.canceller is not None:
            with self._cancelling:
                cleaned = self.canceller.process(capture, played)
        else:
            cleaned = capture
        if self.tap is not None:
            self.tap(capture, played, cleaned)
        heard = cleaned
        if was_playing or self.playing:
            if self.canceller is None:
                heard = bytes(len(cleaned))  # half-duplex: deaf while speaking
            elif not self._barged:
                onset = self.onset.feed(np.frombuffer(capture, dtype="<i2"), np.frombuffer(cleaned, dtype="<i2"))
                overlapped = self._suppressed(cleaned, played, learn=not self.onset.voicing)
                if onset:
                    self._barge_in()
                    heard = b"".join(self._preroll) + overlapped
                    self.lag += len(self._preroll)
                else:
                    self._preroll.append(overlapped)
                    heard = bytes(len(cleaned))  # not a voice: what is left of the echo
            else:
                heard = self._suppressed(cleaned, played)
        elif self._suppressing:
            heard = self._suppressed(cleaned, played)
        else:
            self._suppressed(cleaned, played)  # the suppressor's frames stay contiguous
        if not (was_playing or self.playing):
            self._preroll.clear()
            if self._caught_up(cleaned):
                return  # a quiet frame dropped: the listener catches up with the clock
        with self._lock:
            self._buffer += heard
            excess = len(self._buffer) - int(BUFFER_SECONDS * SAMPLE_RATE) * SAMPLE_WIDTH
            if excess > 0:
                del self._buffer[:excess]
            self._lock.notify_all()

    def _suppressed(self, cleaned: bytes, played: bytes, *, learn: bool = False) -> bytes:
        """The suppressor's frame (the one before ``cleaned``): residual echo taken out while an
        announcement plays and ``OVERLAP_TAIL_SECONDS`` after a barge-in stopped it; ``learn``:
        the frame is echo alone. ``cleaned`` itself without a suppressor."""
        if self._suppressor is None:
            return cleaned
        playing = any(played)
        if playing:
            self._tail_left = round(OVERLAP_TAIL_SECONDS * SAMPLE_RATE / FRAME)
        elif self._tail_left > 0:
            self._tail_left -= 1
        return self._suppressor.process(cleaned, played, learn=learn and playing,
                                        active=playing or self._tail_left > 0)

    def _caught_up(self, cleaned: bytes) -> bool:
        """Whether to drop this frame to work off ``lag``: a quiet one, after ``CATCH_UP_QUIET``
        of quiet (a pause inside a command is only shortened to that; the listener's end of
        an utterance still comes after its whole pause, just sooner)."""
        level = _rms(np.frombuffer(cleaned, dtype="<i2"))
        self._quiet_floor = min(max(level, 1.0), self._quiet_floor * 1.0035)
        if level > max(self._quiet_floor * 4, 1.0):
            self._quiet_run = 0
            return False
        self._quiet_run += 1
        if self.lag > 0 and self._quiet_run > round(CATCH_UP_QUIET * SAMPLE_RATE / FRAME):
            self.lag -= 1
            return True
        return False

    def _barge_in(self) -> None:
        self._barged = True
        self._suppressing = self._suppressor is not None
        self.onsets.append(self.clock)
        if self.on_onset is not None:
            try:
                self.on_onset()
            except Exception:  # noqa: BLE001 - a broken callback must not stop the audio
                pass
        self.stop_playback()

    def read(self, size: int) -> bytes:
        """Up to ``size`` bytes of what the listener hears; waits for them, b"" once ended."""
        with self._lock:
            while len(self._buffer) < size and not self.ended and not self._closed:
                self._lock.wait(0.5)
            data = bytes(self._buffer[:size])
            del self._buffer[:size]
            return data

    def source(self) -> Any:
        """The listener's ``AudioSource`` on this device."""
        return duplex_source(self)

    # ------------------------------------------------------------------ life
    def start(self) -> None:
        """Start the clock (the back end's thread or stream); idempotent."""

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._finish_playing()
            self._lock.notify_all()
        if self.canceller is not None:
            with self._cancelling:
                self.canceller.close()


class SimulatedDuplex(DuplexAudio):
    """A laptop simulated: the microphone's audio (``mic``: 16 kHz mono int16 samples, or WAV
    files read like ``WavSource``) plus the echo of what is played through ``echo_path``, on one
    clock. ``realtime``: ticks at real-time pace on a thread of its own (``start``); otherwise
    ``run`` drives it."""

    def __init__(self, mic: bytes | Sequence[str], echo_path: Callable[[Any], Any] | None,
                 canceller: EchoCanceller | None, *, canceller_reason: str | None = None,
                 on_onset: Callable[[], None] | None = None, realtime: bool = True,
                 noise_dbfs: float = -70.0) -> None:
        super().__init__(canceller, canceller_reason, on_onset)
        if isinstance(mic, bytes | bytearray):
            self._mic = np.frombuffer(bytes(mic), dtype="<i2")
        else:
            from assistant.voice.audio import WavSource

            wavs = WavSource(list(mic))
            wavs.load()  # raises AudioUnavailable naming a bad file
            self._mic = np.frombuffer(wavs.data, dtype="<i2")
        self.echo_path = echo_path
        self.realtime = realtime
        self._noise = np.random.default_rng(0)
        self._noise_level = 10 ** (noise_dbfs / 20) * 32768
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self.realtime and self._thread is None:
            self._thread = threading.Thread(target=self.run, name="lifeguard-duplex", daemon=True)
            self._thread.start()

    def tick(self) -> bool:
        """One frame; False once the microphone's audio has ended."""
        at = self.frames * FRAME
        if at >= len(self._mic) or self._closed:
            with self._lock:
                self.ended = True
                self._lock.notify_all()
            return False
        played = self.next_played()
        mic = self._mic[at:at + FRAME].astype(np.float64)
        if len(mic) < FRAME:
            mic = np.pad(mic, (0, FRAME - len(mic)))
        if self.echo_path is not None:
            mic = mic + np.asarray(self.echo_path(np.frombuffer(played, dtype="<i2"))) * 32768
        mic = mic + self._noise.normal(0, self._noise_level, FRAME)
        self.captured(np.clip(mic, -32768, 32767).astype("<i2").tobytes(), played)
        return True

    def run(self) -> None:
        """Tick until the microphone's audio ends (at real-time pace when ``realtime``)."""
        began = time.monotonic()
        while self.tick():
            if self.realtime:
                delay = began + self.clock - time.monotonic()
                if delay > 0:
                    time.sleep(delay)

    def close(self) -> None:
        super().close()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=2)


class SoundDeviceDuplex(DuplexAudio):
    """The sound card through PortAudio (``sounddevice``): one stream that plays and records
    16 kHz mono in 10 ms blocks; its callback is the clock."""

    def __init__(self, canceller: EchoCanceller | None, *, canceller_reason: str | None = None,
                 on_onset: Callable[[], None] | None = None, device: str | int | None = None) -> None:
        super().__init__(canceller, canceller_reason, on_onset)
        self.device = device
        self._stream: Any = None

    def start(self) -> None:
        if self._stream is not None:
            return
        import sounddevice

        def callback(indata: Any, outdata: Any, frames: int, _time: Any, _status: Any) -> None:
            played = self.next_played()
            outdata[:] = np.frombuffer(played, dtype="<i2").reshape(-1, 1)
            self.captured(bytes(indata), played)

        self._stream = sounddevice.Stream(samplerate=SAMPLE_RATE, blocksize=FRAME, channels=1,
                                          dtype="int16", callback=callback, device=self.device)
        self._stream.start()

    def close(self) -> None:
        stream, self._stream = self._stream, None
        if stream is not None:
            stream.stop()
            stream.close()
        super().close()


def open_duplex(audio_input: Sequence[str] = (), *, on_onset: Callable[[], None] | None = None,
                canceller: str | None = None) -> tuple[DuplexAudio | None, str | None]:
    """The full-duplex device for the table: simulated over ``audio_input`` files when given,
    else the sound card. None and why when there is no sound card (the table then plays with
    aplay and records with arecord, as before). A device without a canceller is returned too,
    half-duplex, its ``reason`` saying so."""
    from assistant.voice.echo import CANCELLERS, load_canceller

    found, why = load_canceller((canceller,) if canceller else CANCELLERS)
    if audio_input:
        from assistant.voice.room import EchoPath, room_response

        try:
            return SimulatedDuplex(audio_input, EchoPath(room_response(), gain=0.5), found,
                                   canceller_reason=why, on_onset=on_onset), None
        except Exception as err:  # noqa: BLE001 - a bad file: said by the listener's own reading
            return None, str(err)
    try:
        import sounddevice

        sounddevice.check_input_settings(samplerate=SAMPLE_RATE, channels=1, dtype="int16")
        sounddevice.check_output_settings(samplerate=SAMPLE_RATE, channels=1, dtype="int16")
    except Exception as err:  # noqa: BLE001 - no PortAudio, no device: the old way
        return None, f"no full-duplex sound device ({str(err).splitlines()[0][:80] if str(err) else type(err).__name__})"
    return SoundDeviceDuplex(found, canceller_reason=why, on_onset=on_onset), None
