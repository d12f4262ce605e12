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
   the game and question the referee has now; the repeat is right when the referee takes the
   command said (``SecondChance.against_refused``). Printed apart: the repeat's own first
   reading, which is what the table took before.
"""

from __future__ import annotations

import argparse
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

CONDITIONS = ("clean", "noise", "chatter")


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
    repeat_first_right: int = 0  # the repeat's own first reading is (what the table took before)
    right_in_readings: list[int] = field(default_factory=list)  # rank of the command said (1-based)

    def line(self, label: str) -> str:
        either = self.offer_right + self.repeat_right
        share = f"{either / self.misheard:.0%}" if self.misheard else "-"
        return (f"{label:8} commands {self.commands:4}  misheard {self.misheard:3}  (refused by the game "
                f"{self.game_refused:2})  offered {self.offered:3}  "
                f"next reading right {self.offer_right:3}  repeats {self.repeats:3}  repeat right {self.repeat_right:3} "
                f"(its first reading {self.repeat_first_right:3})  right on either {either}/{self.misheard} ({share})")


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


def second_chance(item: dict[str, Any], recognizer: Any, repeater: Repeater, tally: Tally) -> dict[str, Any]:
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
    recognizer.set_context(referee.players, referee.game, question=referee.question is not None)
    again = recognizer.decode_audio(read_wav(str(repeater.again(item))))
    row["repeat_first"] = again.command.canonical if again.command else None
    if again.command is not None:
        tally.repeat_first_right += again.command.canonical == item["expected"]
        reply = referee.execute(again.command, heard=True)
        row["repeat"] = reply.command if reply.ok else None
        tally.repeat_right += reply.ok and reply.command == item["expected"]
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default=str(voice_run.ROOT / "bench" / "out" / "voice"))
    parser.add_argument("--split", choices=("tune", "test"), default="test")
    parser.add_argument("--limit", type=int, default=None, help="files, picked as voice_run.py picks them")
    parser.add_argument("--seed", type=int, default=38, help="the repeats' speeds, pitches and noise offsets")
    parser.add_argument("--save", metavar="FILE", help="write each misheard command's story to FILE (JSON)")
    args = parser.parse_args(argv)
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
        stories.append(second_chance(result, recognizer, repeater, tally))
    total = Tally()
    for tally in tallies.values():
        for name in ("commands", "misheard", "game_refused", "offered", "offer_right", "repeats", "repeat_right",
                     "repeat_first_right"):
            setattr(total, name, getattr(total, name) + getattr(tally, name))
        total.right_in_readings += tally.right_in_readings
    print(f"second chance, {args.split} split ({len(chosen)} command files; Whisper)")
    for condition, tally in tallies.items():
        print(tally.line(condition))
    print(total.line("all"))
    ranks = total.right_in_readings
    print(f"the command said among the misheard command's readings: {len(ranks)} of {total.misheard}"
          + (f" (rank median {statistics.median(ranks)}, {ranks.count(1)} first)" if ranks else ""))
    if args.save:
        Path(args.save).write_text(json.dumps(stories, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
