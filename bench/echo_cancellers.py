"""SpeexDSP's and WebRTC's echo cancellers side by side, on real synthesised speech.

The referee's announcements (espeak-ng) are played through a simulated laptop (a small speaker's
soft clipping and missing bass, a room's impulse response; ``assistant.voice.room``) into the
microphone, with a player's command (flite) mixed in 0, 5 and 10 dB below the echo. Printed per
canceller: ERLE over the echo alone after convergence (from 4 s on), CPU seconds per second of
audio, and whether Whisper hears the command in the cleaned capture as it hears the command
alone. The choice made from these figures is in bench/NOTES.md ("Echo cancelling").

    python bench/echo_cancellers.py [--rt60 0.4]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
import wave
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from assistant.voice.echo import CANCELLERS, FRAME, erle_db, make_canceller  # noqa: E402
from assistant.voice.room import EchoPath, room_response  # noqa: E402

RATE = 16000
ANNOUNCEMENTS = [
    "Round one. Alice, Bob and Carol play. Alice starts. Row one: bear, dog.",
    "Bob swaps row two: pig and sheep for giraffe and cat. Carol, your turn.",
    "Alice loses one life. Bob has the majority of bears. Carol knocks; last turns.",
]
COMMANDS = ["bob knocks", "alice swaps row two bear and dog", "carol passes", "undo"]
PLAYERS = ("alice", "bob", "carol")


def speak(text: str, path: Path, engine: str) -> np.ndarray:
    raw = path.with_suffix(".raw.wav")
    if engine == "espeak":
        subprocess.run(["espeak-ng", "-v", "en-us", "-w", str(raw), text], check=True, capture_output=True)
    else:
        subprocess.run(["flite", "-voice", "slt", "-t", text, "-o", str(raw)], check=True, capture_output=True)
    subprocess.run(["sox", str(raw), "-r", str(RATE), "-c", "1", "-b", "16", str(path)], check=True)
    with wave.open(str(path)) as w:
        return np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(np.float64) / 32768


def rms(x: np.ndarray) -> float:
    voiced = x[np.abs(x) > 0.05 * max(np.abs(x).max(), 1e-9)]
    return float(np.sqrt(np.mean(voiced ** 2))) if len(voiced) else 0.0


def run(name: str, played: np.ndarray, mic: np.ndarray) -> tuple[np.ndarray, float]:
    canceller = make_canceller(name)
    p16 = (np.clip(played, -1, 1) * 32767).astype("<i2")
    m16 = (np.clip(mic, -1, 1) * 32767).astype("<i2")
    out = np.zeros(len(m16), dtype="<i2")
    began = time.process_time()
    for at in range(0, len(m16) - FRAME + 1, FRAME):
        cleaned = canceller.process(m16[at:at + FRAME].tobytes(), p16[at:at + FRAME].tobytes())
        out[at:at + FRAME] = np.frombuffer(cleaned, dtype="<i2")
    cpu = time.process_time() - began
    canceller.close()
    return out.astype(np.float64) / 32768, cpu / (len(m16) / RATE)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rt60", type=float, default=0.4)
    args = parser.parse_args()
    from assistant.voice.recognizer import make_recognizer

    recognizer, _ = make_recognizer("whisper", PLAYERS)
    with tempfile.TemporaryDirectory() as tmp:
        announcement = np.concatenate([speak(t, Path(tmp) / f"a{i}.wav", "espeak") * 0.7
                                       for i, t in enumerate(ANNOUNCEMENTS)])
        commands = [speak(t, Path(tmp) / f"c{i}.wav", "flite") for i, t in enumerate(COMMANDS)]
    seconds = len(announcement) / RATE
    print(f"announcements {seconds:.1f} s (espeak-ng), commands by flite (slt), RT60 {args.rt60} s, "
          f"speaker-mic 15 cm, small-speaker distortion")
    clean_heard = [recognizer.decode((c * 32767).astype("<i2").tobytes()).text for c in commands]
    print("commands heard alone:", clean_heard)
    rng = np.random.default_rng(1)
    results: dict[str, dict[str, list[float]]] = {n: {"erle": [], "cpu": [], "heard": []} for n in CANCELLERS}
    for below in (0, 5, 10):
        for ci, command in enumerate(commands):
            path = EchoPath(room_response(args.rt60, 0.15, seed=ci), gain=0.5)
            echo = path(announcement)
            at = int(4.5 * RATE) + ci * 4000  # after convergence, well inside the announcements
            voice = np.zeros(len(echo))
            end = min(len(echo), at + len(command))
            voice[at:end] = command[: end - at] * (rms(echo) / rms(command) * 10 ** (-below / 20))
            noise = rng.normal(0, 10 ** (-60 / 20), len(echo))
            mic = echo + voice + noise
            span = slice(at - int(0.3 * RATE), end + int(0.5 * RATE))
            for name in CANCELLERS:
                cleaned, cpu = run(name, announcement, mic)
                # ERLE over echo alone after 4 s: the cleaned signal with the command and noise
                # (known here) taken out.
                quiet = np.ones(len(echo), dtype=bool)
                quiet[: 4 * RATE] = False
                quiet[span] = False
                residual = cleaned[quiet] - noise[quiet]
                results[name]["erle"].append(erle_db(echo[quiet], residual))
                results[name]["cpu"].append(cpu)
                heard = recognizer.decode((np.clip(cleaned[span], -1, 1) * 32767).astype("<i2").tobytes()).text
                results[name]["heard"].append(float(heard == clean_heard[ci]))
                if heard != clean_heard[ci]:
                    print(f"  {name} {below} dB below: heard {heard!r} for {clean_heard[ci]!r}")
            raw_heard = recognizer.decode((np.clip(mic[span], -1, 1) * 32767).astype("<i2").tobytes()).text
            print(f"  {below} dB below, no canceller: heard {raw_heard!r} for {clean_heard[ci]!r}")
        for name in CANCELLERS:
            r = results[name]
            n = len(commands)
            print(f"{name:7s} command {below:2d} dB below echo: ERLE {np.mean(r['erle'][-n:]):5.1f} dB "
                  f"(min {min(r['erle'][-n:]):.1f}), CPU {np.mean(r['cpu'][-n:]) * 1000:.1f} ms per s, "
                  f"heard as alone {sum(r['heard'][-n:]):.0f}/{n}")


if __name__ == "__main__":
    main()
