"""What the near-miss rule costs in decoding time (issue 38, item 3): game actions that name no
cards (knocks, passes, starts, sudden deaths, new games) now get Whisper's free transcription too
(``whisper.recognizer.MAX_OTHER_WORDS``); before, only commands that are no game action did.

Run: ``PYTHONPATH=$PWD:$PWD/bench .venv/bin/python bench/free_cost.py --split test --limit 450``

Decodes the split's command files (picked as ``voice_run.py`` picks them) whose command said is such
a game action, timing the free transcription the recogniser's judgement runs (``_free_words``
called from ``_judged``; the one that tells a made-up end, from the search, is not counted: it ran
before too), and prints it beside the whole decoding time of the same files.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import voice_run
from figures import percentile
from voice_engines import recognizer_for

from assistant.commands import parse
from assistant.voice.whisper import recognizer as whisper


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default=str(voice_run.ROOT / "bench" / "out" / "voice"))
    parser.add_argument("--split", choices=("tune", "test"), default="test")
    parser.add_argument("--limit", type=int, default=None)
    args = parser.parse_args(argv)
    manifest = [m for m in json.loads((Path(args.corpus) / "manifest.json").read_text())
                if m["split"] == args.split and not m.get("near_miss")]

    def no_cards_action(item: dict[str, Any]) -> bool:
        if item["expected"] is None:
            return False
        command = parse(item["expected"], item["players"])
        return command.is_game_action and not command.record.names_cards

    chosen = [m for m in voice_run.select(manifest, args.limit) if no_cards_action(m)]
    free_seconds: list[float] = []
    judging = [False]
    cls = whisper.WhisperRecognizer
    free_words, judged = cls._free_words, cls._judged

    def timed_free_words(self: Any, *a: Any) -> list[str]:
        started = time.perf_counter()
        try:
            words: list[str] = free_words(self, *a)
            return words
        finally:
            if judging[0]:
                free_seconds.append(time.perf_counter() - started)

    def flagged_judged(self: Any, *a: Any) -> Any:
        judging[0] = True
        try:
            return judged(self, *a)
        finally:
            judging[0] = False

    cls._free_words = timed_free_words  # type: ignore[method-assign, assignment]
    cls._judged = flagged_judged  # type: ignore[method-assign, assignment]
    recognizer = recognizer_for("whisper", decoder_options={}, model="")
    extra, decode = [], []
    for item in chosen:
        free_seconds.clear()
        result = voice_run.decode_all([item], recognizer)[0]
        decode.append(result["seconds"] * 1000)
        if free_seconds:
            extra.append(sum(free_seconds) * 1000)
    print(f"free transcription of game actions naming no cards, {args.split} split: {len(chosen)} files, "
          f"{len(extra)} transcribed freely")
    if extra:
        print(f"  its time, ms (median / p95): {percentile(extra, 0.5):.0f} / {percentile(extra, 0.95):.0f}")
    if decode:
        print(f"  whole decoding of these files, ms (median / p95): {percentile(decode, 0.5):.0f} / "
              f"{percentile(decode, 0.95):.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
