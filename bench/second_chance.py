"""A second chance without repeating (issue 38, item 2): of the commands Whisper mishears, how
many are right on the next reading "no" offers, and how many on a repeated utterance taken
against the refused reading.

Run: ``PYTHONPATH=$PWD:$PWD/bench .venv/bin/python bench/second_chance.py --split test [--limit N]``
(the corpus of ``bench/voice_corpus.py``; ``--limit`` picks files as ``voice_run.py`` does).

Each command file of the split is decoded in its moment of the game, as ``voice_run.py`` does.
A command is *misheard* when the recogniser takes a game action that is not the one said
(a rejection is no mishearing: the table says nothing was taken). For each, a real ``Referee``
(the game resumed from the sample's context) goes through what the table does (a misheard command
the referee refuses itself, counted apart, needs no "no": it goes to the repeat):
1. the heard command is executed as heard, and "no" answers its read-back: the offer ("Or: ...?",
   ``Referee.question``) is right when it is the command said;
2. otherwise (no offer, or a wrong one refused with "no" too) the player says the command again:
   the same words by the same voice, synthesised again at another speed and pitch (espeak-ng) or
   duration stretch (flite, festival), over another stretch of the same noise or chatter, heard in
   the game and question the referee has now, and told the readings refused (``Referee.refused``,
   as ``ListenContext`` tells the listener's recogniser): the recogniser hears the repeat together
   with the utterance refused (``JOINT_MARGIN``); the repeat is right when the referee takes the
   command said (``SecondChance.against_refused``). Printed apart: the repeat's own first
   reading, decoded alone (what the table took before session 18), and, for ``--margins``, how
   many repeats each margin would have got right (from the joint scores the recogniser kept,
   ``WhisperRecognizer.last_joint``), and the repeats' decoding times, together and alone.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import statistics
import sys
import tempfile
import wave
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import voice_corpus
import voice_run
from voice_engines import recognizer_for

from assistant.commands import parse
from assistant.referee import Referee
from assistant.voice.recognizer import read_wav

CONDITIONS = voice_run.CONDITIONS  # the corpus's conditions, the reverberant room included


@dataclass
class Tally:
    """The figures of one condition (or all)."""

    commands: int = 0
    misheard: int = 0
    game_refused: int = 0  # the referee refused the misheard command itself (no "no" was needed)
    offered: int = 0  # "no" offered a next reading
    offer_right: int = 0
    repeats: int = 0  # repeats needed (no offer, or a wrong one)
    repeat_right: int = 0  # the repeat taken against the refused readings is the command said
    repeat_first_right: int = 0  # the repeat's own first reading is
    repeat_right_before: int = 0  # the repeat decoded alone, taken against the refused (session 17)
    right_in_readings: list[int] = field(default_factory=list)  # rank of the command said (1-based)
    joint_seconds: list[float] = field(default_factory=list)  # the repeat decoded with the refused one
    alone_seconds: list[float] = field(default_factory=list)  # the repeat decoded alone
    by_margin: dict[float, int] = field(default_factory=dict)  # repeats right, were JOINT_MARGIN this

    def line(self, label: str) -> str:
        either = self.offer_right + self.repeat_right
        share = f"{either / self.misheard:.0%}" if self.misheard else "-"
        return (f"{label:8} commands {self.commands:4}  misheard {self.misheard:3}  (refused by the game "
                f"{self.game_refused:2})  offered {self.offered:3}  "
                f"next reading right {self.offer_right:3}  repeats {self.repeats:3}  repeat right {self.repeat_right:3} "
                f"(its first reading {self.repeat_first_right:3}, decoded alone {self.repeat_right_before:3})  "
                f"right on either {either}/{self.misheard} ({share})")


class Repeater:
    """The same words said again: another rendering of the sample, over the same condition."""

    def __init__(self, corpus: Path, seed: int) -> None:
        self.rng = random.Random(seed)
        with wave.open(str(corpus / "pink.wav")) as pink:
            self.pink = pink.readframes(pink.getnframes())
        self.chatter = voice_corpus.chatter_track(random.Random(7))  # the corpus's own (seed 7)
        self.folder = Path(tempfile.mkdtemp(prefix="second-chance-"))

    def again(self, item: dict[str, Any]) -> Path:
        sample = {**item, "id": f"again-{item['id']}", "noise_offset": self.rng.random(),
                  "chatter_offset": self.rng.random()}
        if item["synth"] == "espeak":
            sample["speed"] = self.rng.randint(*voice_corpus.SPEEDS[item["split"]])
            sample["pitch"] = self.rng.randint(*voice_corpus.PITCHES[item["split"]])
        else:
            sample["speed"] = round(self.rng.uniform(*voice_corpus.STRETCH), 2)
        speech = voice_corpus.synthesise([sample])[0]
        entries = voice_corpus.write_sample(sample, speech, self.folder, self.pink, self.chatter)
        return Path(next(e["file"] for e in entries if e["condition"] == item["condition"]))


def second_chance(item: dict[str, Any], recognizer: Any, repeater: Repeater, tally: Tally,
                  margins: tuple[float, ...] = ()) -> dict[str, Any]:
    """One misheard command through "no", the offer and a repeat; what happened."""
    referee = Referee.resume(item["context"], rng=random.Random(0), confirm_new_game=False)
    recognizer.set_context(item["players"], referee.game)
    heard = recognizer.decode_audio(read_wav(item["file"])).command
    assert heard is not None
    readings = [r.canonical for r in heard.readings]
    if item["expected"] in readings:
        tally.right_in_readings.append(readings.index(item["expected"]) + 1)
    row: dict[str, Any] = {"id": item["id"], "condition": item["condition"], "expected": item["expected"],
                           "got": heard.canonical, "readings": readings}
    if referee.execute(heard, heard=True).ok:
        referee.execute(parse("no"), heard=True)
    else:  # the table said why not; the player says it again
        tally.game_refused += 1
        row["game_refused"] = True
    row["offer"] = offer = referee.question
    if offer is not None:
        tally.offered += 1
        if offer == item["expected"]:
            tally.offer_right += 1
            return row
        referee.execute(parse("no"), heard=True)  # "Say it again."
    tally.repeats += 1
    repeat(item, recognizer, referee, read_wav(str(repeater.again(item))), tally, margins, row)
    return row


def repeat(item: dict[str, Any], recognizer: Any, referee: Referee, audio: Any, tally: Tally,
           margins: tuple[float, ...], row: dict[str, Any]) -> None:
    """The repeat ``audio`` heard with the utterance refused, as the table takes it now, and
    decoded alone, as the table took it before (each on its own referee)."""
    question = referee.question is not None
    recognizer.set_context(referee.players, referee.game, question=question, refused=referee.refused)
    again = recognizer.decode_audio(audio)
    joint = list(recognizer.last_joint)
    row["refused"], row["joint"] = sorted(referee.refused), joint
    recognizer.set_context(referee.players, referee.game, question=question)
    alone = recognizer.decode_audio(audio)  # after the joint one: it keeps the repeat for its own
    tally.joint_seconds.append(again.seconds)
    tally.alone_seconds.append(alone.seconds)
    row["repeat_first"] = alone.command.canonical if alone.command else None
    row["again"] = again.command.canonical if again.command else again.reason
    if alone.command is not None:
        tally.repeat_first_right += alone.command.canonical == item["expected"]
        before = copy.deepcopy(referee).execute(alone.command, heard=True)  # as the table took it before
        row["repeat_before"] = before.command if before.ok else None
        tally.repeat_right_before += before.ok and before.command == item["expected"]
    if again.command is not None:
        reply = referee.execute(again.command, heard=True)
        row["repeat"] = reply.command if reply.ok else None
        tally.repeat_right += reply.ok and reply.command == item["expected"]
        for margin in margins:
            taken = chosen(joint, margin) or again.command.canonical
            tally.by_margin[margin] = tally.by_margin.get(margin, 0) + (taken == item["expected"])


def chosen(joint: list[tuple[str, float, float]], margin: float) -> str | None:
    """What the recogniser takes of the jointly scored candidates with ``JOINT_MARGIN`` = ``margin``."""
    if not joint:
        return None
    bar = max(alone for _, alone, _ in joint) - margin
    kept = [(alone + other, name) for name, alone, other in joint if alone >= bar]
    return max(kept)[1]


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def report(split: str, files: int, tallies: dict[str, Tally], margins: tuple[float, ...]) -> None:
    """Print each condition's figures, and all of them together."""
    total = Tally()
    for tally in tallies.values():
        for name in ("commands", "misheard", "game_refused", "offered", "offer_right", "repeats", "repeat_right",
                     "repeat_first_right", "repeat_right_before"):
            setattr(total, name, getattr(total, name) + getattr(tally, name))
        total.right_in_readings += tally.right_in_readings
        total.joint_seconds += tally.joint_seconds
        total.alone_seconds += tally.alone_seconds
        for margin, right in tally.by_margin.items():
            total.by_margin[margin] = total.by_margin.get(margin, 0) + right
    print(f"second chance, {split} split ({files} command files; Whisper)")
    for condition, tally in tallies.items():
        print(tally.line(condition))
    print(total.line("all"))
    ranks = total.right_in_readings
    print(f"the command said among the misheard command's readings: {len(ranks)} of {total.misheard}"
          + (f" (rank median {statistics.median(ranks)}, {ranks.count(1)} first)" if ranks else ""))
    print("repeats right by JOINT_MARGIN (from the joint scores): "
          + ", ".join(f"{m:g}: {total.by_margin.get(m, 0)}" for m in margins)
          + f" of {total.repeats} (the offers right {total.offer_right}, misheard {total.misheard})")
    for label, seconds in (("together", total.joint_seconds), ("alone", total.alone_seconds)):
        if seconds:
            print(f"the repeats decoded {label}: median {statistics.median(seconds) * 1000:.0f} ms, "
                  f"p95 {percentile(seconds, 0.95) * 1000:.0f} ms ({len(seconds)})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default=str(voice_run.ROOT / "bench" / "out" / "voice"))
    parser.add_argument("--split", choices=("tune", "test"), default="test")
    parser.add_argument("--limit", type=int, default=None, help="files, picked as voice_run.py picks them")
    parser.add_argument("--seed", type=int, default=38, help="the repeats' speeds, pitches and noise offsets")
    parser.add_argument("--margins", default="0.25,0.5,1,1.5,2,3,100",
                        help="JOINT_MARGIN values to count the repeats right for (comma-separated)")
    parser.add_argument("--save", metavar="FILE", help="write each misheard command's story to FILE (JSON)")
    args = parser.parse_args(argv)
    margins = tuple(float(m) for m in args.margins.split(",") if m)
    corpus = Path(args.corpus)
    manifest = [m for m in json.loads((corpus / "manifest.json").read_text())
                if m["split"] == args.split and not m.get("near_miss")]
    chosen = [m for m in voice_run.select(manifest, args.limit) if m["expected"] is not None]
    recognizer = recognizer_for("whisper", decoder_options={}, model="")
    repeater = Repeater(corpus, args.seed)
    tallies = {c: Tally() for c in CONDITIONS}
    stories = []
    for result in voice_run.decode_all(chosen, recognizer):
        tally = tallies[result["condition"]]
        tally.commands += 1
        got = result["got"]
        if got is None or got == result["expected"] or not parse(got, result["players"]).is_game_action:
            continue
        tally.misheard += 1
        stories.append(second_chance(result, recognizer, repeater, tally, margins))
    report(args.split, len(chosen), tallies, margins)
    if args.save:
        Path(args.save).write_text(json.dumps(stories, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
