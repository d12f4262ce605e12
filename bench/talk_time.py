"""How long the referee talks against the players: issue 34's talk time (``make bench-voice``).

Run: ``.venv/bin/python bench/talk_time.py [--players 3 4 5] [--seeds 0 1 ...] [--config FILE]``

The games are ``bench/voice_game.py``'s: for each player count, the shortest simulated game of
seeds 0-39 (``--seeds`` takes other seeds instead), its lines phrased as the players say them.
Each game is played twice through the real referee, as the table plays it:

- typed: every canonical command line typed (``Referee.handle``), the first player drawn by lot
  as the simulated game drew it;
- spoken: the new game typed, every other line heard (``Referee.execute(heard=True)``), a heard
  hand or sudden death followed by a heard "yes", as ``voice_game`` says them.

For each answer, what the table would say aloud under each ``[voice] speech`` setting
(``referee.spoken``, joined into one utterance as the table hands it to its speaker) is
synthesised with ``espeak-ng -w`` at the configured voice and rate (``[voice] voice`` / ``rate``,
default "en" at 165 words a minute) and timed from its first sound to its last (the silence
espeak-ng ends each file with left out); so are the players' lines:
the typed game's canonical command lines, the spoken game's phrased lines (with "yes").
Printed per game and in all: seconds the referee talks, seconds the players talk, and the
ratio, for each setting and input; and the referee's mean seconds per answer by command, for
the spoken games. Targets (issue 34) for brief: at most 1.0x the players when spoken, at most
0.25x when typed. Synthesis is cached by text; about a minute on 2 cores.
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import wave
from collections import defaultdict
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from voice_game import choose_seed, script

from assistant.commands import parse
from assistant.config import SPEECH_SETTINGS, VoiceSettings, load_settings
from assistant.referee import Referee, Reply, spoken
from assistant.voice.pcm import audioop

TARGETS = {("brief", "spoken"): 1.0, ("brief", "typed"): 0.25}


@dataclass
class Played:
    """One game played one way: the players' lines and the referee's answers."""

    players_said: list[str]
    answers: list[tuple[str, Reply, bool]]  # (the command's intent as said, reply, heard)


@dataclass
class Talk:
    """Seconds of speech, by who spoke and how."""

    players: float = 0.0
    referee: dict[str, float] = field(default_factory=dict)  # setting -> seconds


class _Lot(random.Random):
    """Draws the start player the simulated game drew."""

    def __init__(self, starter: str) -> None:
        super().__init__(0)
        self.starter = starter

    def choice(self, seq):  # type: ignore[override]
        return self.starter


def play_typed(history: Sequence[str], lot: str) -> Played:
    referee = Referee(rng=_Lot(lot.split()[0]), confirm_new_game=False)
    answers = []
    lines = [history[0], *history[2:]]  # the lot is the referee's own draw
    for line in lines:
        reply = referee.handle(line)
        assert reply.ok, (line, reply.error)
        answers.append((reply.intent or "", reply, False))
    assert referee.history() == list(history), "the typed game went astray"
    return Played(lines, answers)


def play_spoken(history: Sequence[str], lines: Iterable) -> Played:
    referee = Referee(rng=_Lot(history[1].split()[0]), confirm_new_game=False)
    first = referee.handle(history[0])
    said = [history[0]]
    answers = [(first.intent or "", first, False)]
    for line in lines:
        command = parse(line.expected, referee.players)
        reply = referee.execute(command, heard=True)
        assert reply.ok, (line.expected, reply.error)
        answers.append((command.intent, reply, True))
        said.append(line.text)
    assert referee.history() == list(history), "the spoken game went astray"
    return Played(said, answers)


class Synthesiser:
    """Seconds of espeak-ng saying a text at the configured voice and rate, cached by text."""

    def __init__(self, voice: VoiceSettings, folder: Path) -> None:
        self.voice, self.folder = voice, folder
        self.seconds: dict[str, float] = {"": 0.0}

    def measure(self, texts: Iterable[str], jobs: int) -> None:
        todo = sorted({t for t in texts if t not in self.seconds})
        with ThreadPoolExecutor(jobs) as pool:
            for text, seconds in zip(todo, pool.map(self._synthesise, enumerate(todo)), strict=True):
                self.seconds[text] = seconds

    def _synthesise(self, item: tuple[int, str]) -> float:
        number, text = item
        path = self.folder / f"{number:06d}.wav"
        subprocess.run(["espeak-ng", "-v", self.voice.voice, "-s", str(self.voice.rate), "-w", str(path),
                        "--stdin"], input=text.encode(), check=True, capture_output=True)
        with wave.open(str(path)) as wav:
            rate, raw = wav.getframerate(), wav.readframes(wav.getnframes())
        path.unlink()
        return speaking(raw, rate)


def speaking(raw: bytes, rate: int) -> float:
    """Seconds from the first to the last sound of 16-bit mono ``raw`` (10 ms frames above 2%
    of the loudest): espeak-ng ends every file with about 0.35 s of silence, on both sides."""
    step = rate // 100 * 2
    levels = [audioop.rms(raw[i : i + step], 2) for i in range(0, len(raw), step)]
    loud = max(levels, default=0) * 0.02
    sounding = [i for i, level in enumerate(levels) if level > loud]
    return (sounding[-1] + 1 - sounding[0]) / 100 if sounding else 0.0


def aloud(reply: Reply, heard: bool, speech: str) -> str:
    """The one utterance the table hands its speaker for ``reply`` (``LifeguardApp.speak``)."""
    return " ".join(spoken(reply, heard, speech)).strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, nargs="+", default=[3, 4, 5])
    parser.add_argument("--seeds", type=int, nargs="+", default=None,
                        help="these seeds for each player count (default: voice_game's shortest of 0-39)")
    parser.add_argument("--config", help="settings file (its [voice] voice and rate)")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    voice = load_settings(args.config).voice if args.config else VoiceSettings()

    games = []
    for players in args.players:
        for seed in args.seeds or [choose_seed(players, range(40))]:
            audio = script(players, seed)
            games.append((f"{players}p seed {seed}", play_typed(audio.history, audio.typed[1]),
                          play_spoken(audio.history, audio.lines)))

    with tempfile.TemporaryDirectory(prefix="lifeguard-talk-") as tmp:
        synth = Synthesiser(voice, Path(tmp))
        texts = []
        for _, typed, heard in games:
            for played in (typed, heard):
                texts += played.players_said
                texts += [aloud(r, h, s) for _, r, h in played.answers for s in SPEECH_SETTINGS]
        synth.measure(texts, args.jobs)

    print(f"talk time: espeak-ng voice {voice.voice!r} at {voice.rate} words a minute; "
          "referee / players in seconds, and their ratio")
    totals: dict[str, Talk] = defaultdict(Talk)
    per_intent: dict[tuple[str, str], list[float]] = defaultdict(list)
    for name, typed, heard in games:
        for how, played in (("typed", typed), ("spoken", heard)):
            talk = Talk(sum(synth.seconds[t] for t in played.players_said))
            for speech in SPEECH_SETTINGS:
                talk.referee[speech] = sum(synth.seconds[aloud(r, h, speech)] for _, r, h in played.answers)
                if how == "spoken":
                    for intent, reply, h in played.answers[1:]:
                        per_intent[(speech, intent)].append(synth.seconds[aloud(reply, h, speech)])
            total = totals[how]
            total.players += talk.players
            for speech, seconds in talk.referee.items():
                total.referee[speech] = total.referee.get(speech, 0.0) + seconds
            print(f"  {name:<12} {how:<6} {len(played.players_said):>3} lines, players {talk.players:6.1f} s | "
                  + " | ".join(f"{s} {talk.referee[s]:6.1f} s {talk.referee[s] / talk.players:4.2f}x"
                               for s in SPEECH_SETTINGS))
    print("all games:")
    for how, total in totals.items():
        for speech in SPEECH_SETTINGS:
            ratio = total.referee[speech] / total.players
            target = TARGETS.get((speech, how))
            verdict = "" if target is None else f"  (target <= {target:.2f}x: {'met' if ratio <= target else 'NOT met'})"
            print(f"  {how:<6} {speech:<7} referee {total.referee[speech]:7.1f} s, players "
                  f"{total.players:6.1f} s: {ratio:.2f}x{verdict}")
    print("spoken games, the referee's mean seconds per answer (full / brief / results):")
    intents = sorted({intent for _, intent in per_intent})
    for intent in intents:
        means = [statistics.mean(per_intent[(s, intent)]) for s in ("full", "brief", "results")]
        print(f"  {intent:<13} x{len(per_intent[('full', intent)]):<3} " + " / ".join(f"{m:5.2f}" for m in means))
    return 0


if __name__ == "__main__":
    sys.exit(main())
