"""Barge-in in a simulated room: issue 34's echo benchmark (``make bench-voice``).

Run: ``.venv/bin/python bench/room_echo.py [--trials 30] [--seed 0]``; to study (b): ``--skip-a``
(same trials, faster), ``--only 6,9`` (those trials alone), ``--save DIR`` (each trial's audio),
``--plain-overlap`` (the speech over an announcement heard without residual echo suppression).

A 4 x 5 x 2.5 m room (pyroomacoustics, image sources; RT60 drawn from 0.3-0.5 s), a laptop on a
table with its speaker and microphone 10-20 cm apart, players 0.8-2 m away. The referee's
announcements are the ``said`` sentences of a seeded 3-player game (engine.simulate), spoken by
espeak-ng and played through a small speaker (no bass, soft clipping) into the room; the players'
commands are that game's lines spoken by flite (slt) and convolved with their own path to the
microphone, 0-10 dB under the referee's voice there. Everything runs through the table's own
``SimulatedDuplex`` (SpeexDSP cancelling, ``SpeechOnset`` stopping the announcement) on its
10 ms clock, as fast as it computes; Whisper decodes what the listener would hear.

Printed:
(a) a whole game's announcements, nobody speaking: barge-ins (announcements stopped) and
    commands taken (what the listener heard, cut at pauses and decoded; target 0);
(b) players speaking 0.3-3 s into an announcement (the device has spoken the announcement
    before, so its canceller has converged): commands heard exactly, against the same commands
    heard with no announcement playing (target >= 90% of it); time from the speech's onset to
    the announcement's stop (target <= 300 ms); announcements not stopped;
(c) ERLE after convergence (from the game's 10th second on), over the echo alone.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
import wave
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from assistant.referee import Referee  # noqa: E402
from assistant.voice import duplex  # noqa: E402
from assistant.voice.duplex import PREROLL_SECONDS, SimulatedDuplex  # noqa: E402
from assistant.voice.echo import FRAME, EchoCanceller, erle_db, make_canceller  # noqa: E402
from assistant.voice.room import EchoPath  # noqa: E402
from engine.actions import NewGame  # noqa: E402
from engine.simulate import simulate_game  # noqa: E402

RATE = 16000
ROOM = [4.0, 5.0, 2.5]


def canceller() -> EchoCanceller:
    return make_canceller("speex")
#: Levels under which the listener's stream counts as quiet when cutting it into utterances.
QUIET_DBFS = -50.0


def speak(text: str, tmp: Path, engine: str = "espeak") -> np.ndarray:
    raw, out = tmp / "raw.wav", tmp / "out.wav"
    if engine == "espeak":
        subprocess.run(["espeak-ng", "-v", "en-us", "-w", str(raw), text], check=True, capture_output=True)
    else:
        subprocess.run(["flite", "-voice", "slt", "-t", text, "-o", str(raw)], check=True, capture_output=True)
    subprocess.run(["sox", str(raw), "-r", str(RATE), "-c", "1", "-b", "16", str(out)], check=True)
    with wave.open(str(out)) as w:
        return np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").copy()


def voiced_rms(x: np.ndarray) -> float:
    x = np.asarray(x, dtype=np.float64)
    voiced = x[np.abs(x) > 0.05 * max(np.abs(x).max(), 1e-9)]
    return float(np.sqrt(np.mean(voiced ** 2))) if len(voiced) else 0.0


def room(rng: random.Random) -> tuple[float, np.ndarray, np.ndarray, float]:
    """(RT60, the speaker's path to the microphone, a player's path, the player's distance)."""
    import pyroomacoustics as pra  # type: ignore[import-untyped]

    rt60 = rng.uniform(0.3, 0.5)
    absorption, order = pra.inverse_sabine(rt60, ROOM)
    shoebox = pra.ShoeBox(ROOM, fs=RATE, materials=pra.Material(absorption), max_order=min(order, 12))
    laptop = np.array([rng.uniform(1.5, 2.5), rng.uniform(2.0, 3.0), 0.8])
    apart = rng.uniform(0.10, 0.20)
    mic = laptop + np.array([apart, 0.0, 0.1])
    distance = rng.uniform(0.8, 2.0)
    angle = rng.uniform(0, 2 * np.pi)
    player = mic + np.array([distance * np.cos(angle), distance * np.sin(angle), 0.4])
    player = np.clip(player, 0.2, np.array(ROOM) - 0.2)
    shoebox.add_source(laptop.tolist())
    shoebox.add_source(player.tolist())
    shoebox.add_microphone(mic.tolist())
    shoebox.compute_rir()
    echo, voice = (np.asarray(shoebox.rir[0][i], dtype=np.float64) for i in (0, 1))
    # The direct path's delay: pyroomacoustics centres its fractional-delay filters (40 taps).
    return rt60, echo / np.abs(echo).max(), voice / np.abs(voice).max(), float(np.linalg.norm(player - mic))


def game_lines(seed: int) -> tuple[tuple[str, ...], list[tuple[list[str], str, list[str]]]]:
    """The players, and per command after the first two: (history before it, its canonical
    text, what the referee said after it)."""
    from assistant.commands import canonical

    actions = simulate_game(random.Random(seed), players=3)
    history = [canonical(a) for a in actions]
    referee = Referee(confirm_new_game=False)
    out = []
    for i, line in enumerate(history):
        reply = referee.handle(line)
        if i >= 2:
            out.append((history[:i], line, reply.said))
    first = actions[0]
    assert isinstance(first, NewGame)
    return tuple(first.players), out


def recogniser_for(players: tuple[str, ...], history: list[str], recognizer: object) -> None:
    referee = Referee(confirm_new_game=False)
    for line in history:
        referee.handle(line)
    recognizer.set_context(players, referee.game)  # type: ignore[attr-defined]


def utterances(heard: np.ndarray) -> list[tuple[int, int]]:
    """Stretches of the listener's stream louder than ``QUIET_DBFS`` (50 ms blocks), joined over
    pauses under 0.6 s, each at least 0.15 s long."""
    block = 800
    level = 10 ** (QUIET_DBFS / 20) * 32768
    loud = [float(np.sqrt(np.mean(heard[i:i + block].astype(np.float64) ** 2))) > level
            for i in range(0, len(heard) - block + 1, block)]
    spans: list[list[int]] = []
    for i, on in enumerate(loud):
        if on:
            if spans and i - spans[-1][1] <= 12:
                spans[-1][1] = i + 1
            else:
                spans.append([i, i + 1])
    return [(a * block, b * block) for a, b in spans if b - a >= 3]


def part_a(announcements: list[np.ndarray], players: tuple[str, ...], recognizer: object,
           rng: random.Random) -> tuple[int, int, int, float]:
    """(announcements, barge-ins, commands taken, ERLE after 10 s)."""
    _, echo_path, _, _ = room(rng)
    recognizer.set_context(players, None)  # type: ignore[attr-defined]
    gap = RATE  # a second between announcements
    total = sum(len(a) + gap for a in announcements) + gap
    echoes: list[np.ndarray] = []
    cleaned: list[np.ndarray] = []
    path = EchoPath(echo_path, gain=0.5)

    def keep_echo(played: np.ndarray) -> np.ndarray:
        echo: np.ndarray = path(played)
        echoes.append(echo * 32768)
        return echo

    device = SimulatedDuplex(bytes(total * 2), keep_echo, canceller(), realtime=False)
    device.tap = lambda capture, played, clean: cleaned.append(np.frombuffer(clean, dtype="<i2"))
    queue = list(announcements)
    wait = gap
    while device.tick():
        if not device.playing:
            wait -= FRAME
            if wait <= 0 and queue:
                device.play(queue.pop(0).tobytes())
                wait = gap
    heard = np.frombuffer(device.read(len(bytes(total * 2)) * 2), dtype="<i2")
    taken = 0
    for start, end in utterances(heard):
        decoded = recognizer.decode(heard[max(0, start - 4000):end + 4000].tobytes())  # type: ignore[attr-defined]
        if decoded.command is not None:
            taken += 1
            print(f"    (a) taken: {decoded.text!r} at {start / RATE:.1f} s")
    echo = np.concatenate(echoes)
    clean = np.concatenate(cleaned).astype(np.float64)
    n = min(len(echo), len(clean))
    playing = np.abs(echo[:n]) > 0  # the echo alone: nobody speaks in (a)
    after = np.zeros(n, dtype=bool)
    after[10 * RATE:] = True
    erle = erle_db(echo[:n][playing & after], clean[:n][playing & after])
    return len(announcements), len(device.onsets), taken, erle


def part_b(trials: int, lines: list[tuple[list[str], str, list[str]]], announcements: list[np.ndarray],
           players: tuple[str, ...], recognizer: object, rng: random.Random, tmp: Path,
           save: Path | None = None, only: frozenset[int] = frozenset()) -> None:
    exact_alone = exact_over = not_stopped = 0
    delays: list[float] = []
    long_ones = [a for a in announcements if len(a) > 3.6 * RATE]
    done = 0
    while done < trials:
        history, command, _ = rng.choice(lines)
        if command.startswith(("new game", "yes", "no")):
            continue
        done += 1
        rt60, echo_path, voice_path, distance = room(rng)
        warm, announcement = rng.choice(long_ones), rng.choice(long_ones)
        text = command  # the canonical form, as a player may say it
        voice = np.convolve(speak(text, tmp, "flite").astype(np.float64), voice_path)
        under = rng.uniform(0, 10)
        path = EchoPath(echo_path, gain=0.5)
        echo_level = voiced_rms(EchoPath(echo_path, gain=0.5)(announcement) * 32768)
        voice *= echo_level / voiced_rms(voice) * 10 ** (-under / 20)
        onset_in = rng.uniform(0.3, 3.0)
        if only and done not in only:
            continue  # drawn all the same: the trials after it stay the same
        start = len(warm) + RATE + int(onset_in * RATE)
        speech_onset = start + int(np.nonzero(np.abs(voice) > 0.05 * np.abs(voice).max())[0][0])
        mic = np.zeros(start + len(voice) + 2 * RATE)
        mic[start:start + len(voice)] += voice
        mic_pcm = np.clip(mic, -32768, 32767).astype("<i2")
        recogniser_for(players, history, recognizer)
        alone = recognizer.decode(mic_pcm[start - RATE // 2:].tobytes())  # type: ignore[attr-defined]
        exact_alone += alone.command is not None and alone.command.canonical == command
        device, heard = play_over(mic_pcm, path, warm, announcement)
        if not device.onsets:
            not_stopped += 1
            got = "(not stopped)"
        else:
            stop = device.onsets[0]
            delays.append(stop - speech_onset / RATE)
            # The listener's stream runs PREROLL_SECONDS behind the clock after a barge-in.
            at = int((stop - PREROLL_SECONDS) * RATE)
            over = recognizer.decode(heard[max(0, at - RATE // 2):].tobytes())  # type: ignore[attr-defined]
            right = over.command is not None and over.command.canonical == command
            exact_over += right
            got = over.text
            if save is not None:  # what the listener heard, and the voice alone at the microphone
                np.savez(save / f"trial{done:02d}.npz", heard=heard[max(0, at - RATE // 2):],
                         voice=mic_pcm[max(0, at - RATE // 2):], onset=speech_onset - max(0, at - RATE // 2),
                         start=max(0, at - RATE // 2), stop=stop, command=command, got=got,
                         alone=alone.text, under=under, history=np.array(history))
        print(f"    (b) {command!r}: RT60 {rt60:.2f} s, player {distance:.1f} m, {under:.1f} dB under, "
              f"{onset_in:.1f} s in: stop {(delays[-1] * 1000 if device.onsets else float('nan')):.0f} ms, "
              f"heard {got!r} (alone: {alone.text!r})")
    report_b(len(only) or trials, exact_over, exact_alone, delays, not_stopped)


def play_over(mic_pcm: np.ndarray, path: EchoPath, warm: np.ndarray,
              announcement: np.ndarray) -> tuple[SimulatedDuplex, np.ndarray]:
    """The device after playing ``warm`` (its canceller converges), a second's pause, then
    ``announcement`` over the microphone's ``mic_pcm``; and what its listener heard."""
    device = SimulatedDuplex(mic_pcm.tobytes(), path, canceller(), realtime=False)
    device.play(warm.tobytes())
    while device.playing:
        device.tick()
    for _ in range(RATE // FRAME):
        device.tick()
    device.play(announcement.tobytes())
    device.run()
    return device, np.frombuffer(device.read(len(mic_pcm) * 4), dtype="<i2")


def report_b(trials: int, exact_over: int, exact_alone: int, delays: list[float], not_stopped: int) -> None:
    print(f"(b) heard exactly over an announcement: {exact_over}/{trials}; with no announcement: "
          f"{exact_alone}/{trials} (ratio {exact_over / max(exact_alone, 1):.0%}; target >= 90%)")
    if delays:
        d = np.array(delays) * 1000
        print(f"    onset to stop: median {np.median(d):.0f} ms, p90 {np.percentile(d, 90):.0f} ms, "
              f"max {d.max():.0f} ms, within 300 ms {np.mean(d <= 300):.0%} (target <= 300 ms); "
              f"not stopped {not_stopped}/{trials}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--trials", type=int, default=30)
    parser.add_argument("--announcements", type=int, default=0, help="(a): only the first N (0: all)")
    parser.add_argument("--skip-a", action="store_true",
                        help="leave (a) and (c) out (their room is still drawn: (b)'s trials stay the same)")
    parser.add_argument("--save", type=Path, help="a directory to save each (b) trial's audio in (.npz)")
    parser.add_argument("--only", default="", help="(b): only these trials, e.g. 6,9,10 (counted from 1)")
    parser.add_argument("--plain-overlap", action="store_true",
                        help="the speech over an announcement heard as cancelled, its residual echo not "
                             "suppressed (as before session 17)")
    args = parser.parse_args(argv)
    duplex.OVERLAP_SUPPRESSION = not args.plain_overlap
    # What the listener hears is read at the end of each simulation, not as it comes: keep all of
    # it (the device keeps 30 s; a trial after the game's long first announcement runs 31-33 s,
    # and its stream came back without its first seconds, cut in the wrong place).
    duplex.BUFFER_SECONDS = 3600.0
    from assistant.voice.recognizer import make_recognizer

    began = time.monotonic()
    rng = random.Random(args.seed)
    players, lines = game_lines(args.seed)
    recognizer, _ = make_recognizer("whisper", players)
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        said = [" ".join(s) for _, _, s in lines if s]
        if args.announcements:
            said = said[: args.announcements]
        announcements = [speak(text, tmp) for text in said]
        seconds = sum(len(a) for a in announcements) / RATE
        print(f"game seed {args.seed}: {len(announcements)} announcements, {seconds:.0f} s of espeak-ng")
        if args.skip_a:
            room(rng)
        else:
            count, barged, taken, erle = part_a(announcements, players, recognizer, rng)
            print(f"(a) {count} announcements with nobody speaking: {barged} stopped, {taken} commands taken "
                  f"(target 0)")
            print(f"(c) ERLE after convergence (from 10 s on, echo alone): {erle:.1f} dB")
        if args.save is not None:
            args.save.mkdir(parents=True, exist_ok=True)
        only = frozenset(int(n) for n in args.only.split(",") if n.strip())
        part_b(args.trials, lines, announcements, players, recognizer, rng, tmp, args.save, only)
    print(f"({time.monotonic() - began:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
