"""The margin that lets a card command be taken at its short pause (issue 34 item 3), measured on
the voice corpus's tune split only: each card command (a row, a swap, a hand) is cut at every
gap between its words (10 ms frames under 2% of the loudest, at least ``--gap`` long) and at its
end, ``VERDICT_PAUSE_SECONDS`` of the file's own quiet put after the cut, as the listener hands
the recogniser a phrase at its short pause. Printed: per cut, whether the decoding is a command
the grammar lets nothing follow, right or wrong, and its margin (minus the decoder's likeliest
end, log, at a prefix of it where the grammar forbids the end: ``whisper.recognizer.QUICK_END_LOG_PROB``);
then, per candidate margin, the complete readings it would take at inner cuts (each a card made
up: wrong) and at the end (right or wrong).

Run: ``PYTHONPATH=. .venv/bin/python bench/quick_cards.py --corpus DIR [--split tune]
[--conditions clean noise] [--limit N]``
"""

from __future__ import annotations

import argparse
import json
import math
import wave
from pathlib import Path
from typing import Any

import numpy as np

from assistant.referee import Referee
from assistant.voice.listener import VERDICT_PAUSE_SECONDS
from assistant.voice.recognizer import Decoded
from assistant.voice.whisper.recognizer import SearchResult, WhisperRecognizer

FRAME = 160  # 10 ms at 16 kHz


def samples16(path: str) -> np.ndarray[Any, Any]:
    with wave.open(path) as w:
        assert w.getframerate() == 16000 and w.getsampwidth() == 2 and w.getnchannels() == 1, path
        return np.frombuffer(w.readframes(w.getnframes()), dtype="<i2")


def cuts(audio: np.ndarray[Any, Any], gap: float) -> tuple[list[int], int, np.ndarray[Any, Any]]:
    """The inner gaps' starts and the speech's end (samples), and the quiet before the speech."""
    frames = audio[: len(audio) // FRAME * FRAME].reshape(-1, FRAME).astype(np.float64)
    levels = np.sqrt((frames ** 2).mean(axis=1))
    loud = levels > levels.max() * 0.02
    first, last = int(np.argmax(loud)), len(loud) - 1 - int(np.argmax(loud[::-1]))
    inner: list[int] = []
    run = 0
    for i in range(first, last + 1):
        if not loud[i]:
            run += 1
            continue
        if run * FRAME / 16000 >= gap:
            inner.append((i - run) * FRAME)
        run = 0
    return inner, (last + 1) * FRAME, audio[: first * FRAME]


def _names_cards(canonical: str) -> bool:
    return canonical.startswith("row ") or " swaps " in canonical or " has " in canonical


def card_commands(corpus: str, split: str, conditions: list[str], limit: int | None) -> list[dict[str, Any]]:
    manifest: list[dict[str, Any]] = json.loads((Path(corpus) / "manifest.json").read_text())
    items = [m for m in manifest if m["split"] == split and m["condition"] in conditions
             and m["expected"] is not None and _names_cards(m["expected"])]
    return items[:limit]


class Recorder:
    """The real recogniser, keeping the search result of its last decoding (for its margin)."""

    def __init__(self) -> None:
        self.recognizer = WhisperRecognizer()
        self.found: list[SearchResult] = []
        search = self.recognizer.search

        def recording(*args: Any, **kwargs: Any) -> SearchResult:
            result = search(*args, **kwargs)
            self.found.append(result)
            return result

        self.recognizer.search = recording  # type: ignore[method-assign]

    def decode(self, audio: np.ndarray[Any, Any]) -> tuple[Decoded, SearchResult | None]:
        self.found.clear()
        decoded = self.recognizer.decode(audio.astype("<i2").tobytes())
        return decoded, self.found[-1] if self.found else None


def cut_rows(item: dict[str, Any], recorder: Recorder, gap: float) -> list[dict[str, Any]]:
    """Every cut of one command: what it decodes to and its margin."""
    referee = Referee.resume(item["context"])
    recorder.recognizer.set_context(referee.players, referee.game)
    audio = samples16(item["file"])
    inner, end, lead = cuts(audio, gap)
    quiet = np.resize(lead if len(lead) else np.zeros(1, dtype="<i2"), int(VERDICT_PAUSE_SECONDS * 16000))
    rows = []
    for at, final in [*((c, False) for c in inner), (end, True)]:
        decoded, result = recorder.decode(np.concatenate([audio[:at], quiet]))
        command = decoded.command
        complete = command is not None and bool(command.cards) and result is not None and result.closed
        rows.append({"id": item["id"], "condition": item["condition"], "final": final, "complete": complete,
                     "right": command is not None and command.canonical == item["expected"],
                     "heard": command.canonical if command else decoded.reason,
                     "margin": -result.end_max if result is not None else math.nan,
                     "closed": decoded.closed, "decode": decoded.seconds})
        row = rows[-1]
        print(f"{item['id']:>10} {item['condition']:>7} {'end ' if final else 'gap '} "
              f"{'complete' if complete else '        '} {'right' if row['right'] else '     '} "
              f"{row['margin']:6.2f} {row['heard']}", flush=True)
    return rows


def summary(rows: list[dict[str, Any]], commands: int) -> None:
    inner_complete = [r for r in rows if not r["final"] and r["complete"]]
    final_complete = [r for r in rows if r["final"] and r["complete"]]
    print(f"\n{commands} card commands, {len(rows)} cuts; complete readings at inner gaps: "
          f"{len(inner_complete)} ({sum(not r['right'] for r in inner_complete)} with a card made up), "
          f"at the end: {len(final_complete)} ({sum(r['right'] for r in final_complete)} right)")
    for margin in (1.6, 2.0, 2.3, 2.5, 3.0, 3.5, 4.0, 4.6, 6.0):
        taken_inner = sum(r["margin"] >= margin and not r["right"] for r in inner_complete)
        taken_final = [r for r in final_complete if r["margin"] >= margin]
        print(f"margin {margin:4.1f} (end at most {math.exp(-margin):.3f}): made-up cards taken at inner "
              f"gaps {taken_inner:3d}; at the end {len(taken_final):3d} ({sum(r['right'] for r in taken_final)} right)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--split", default="tune")
    parser.add_argument("--conditions", nargs="+", default=["clean", "noise"])
    parser.add_argument("--gap", type=float, default=0.03, help="shortest gap between words cut at (s)")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--out", default=None, help="write every cut's figures here (JSON)")
    args = parser.parse_args()
    items = card_commands(args.corpus, args.split, args.conditions, args.limit)
    recorder = Recorder()
    rows = [row for item in items for row in cut_rows(item, recorder, args.gap)]
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=1))
    summary(rows, len(items))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
