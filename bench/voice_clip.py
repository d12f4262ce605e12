"""Lines of a whole game by voice played through the listener on their own (issue 40's tracing).

``bench/voice_game.py`` plays a whole game; a line lost there depends on everything before it.
This plays chosen lines with the line before and after them, cut from the same game's stream on
the listener's own chunk grid (32 ms chunks from the stream's start: one chunk off, and a loss on
a knife edge may not happen), in the game state each should be heard in, and prints what the
loop made of each. ``--trace`` prints every decoding and every join of a command with the speech
after it (``Listener._joined``), with the rest's free transcription.

    .venv/bin/python bench/voice_clip.py --players 5 --voices last-pause --lines 10 69 --trace

A line is numbered as ``voice_game.py`` prints it ("line 12": the typed first line is 1).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import voice_game as vg
from voice_corpus import pink_noise, write_wav

from assistant.voice.pcm import audioop

#: The listener's chunk, in bytes (``voice_game.CHUNK_BYTES``): a clip starts on the game's grid.
GRID = vg.CHUNK_BYTES


def trace_joins() -> None:
    """Print each decoding and each join decision of the listener (wraps its methods)."""
    from assistant.voice.listener import Listener

    decode, joined = Listener._decode, Listener._joined

    def traced_decode(self: Any, chunks: list[bytes]) -> Any:
        out = decode(self, chunks)
        raw = b"".join(chunks)
        lead = [audioop.rms(raw[i:i + GRID], 2) for i in range(0, min(len(raw), 6 * GRID), GRID)]
        print(f"    decoded {len(raw) / 32000:.2f} s (levels of its first chunks {lead}): "
              f"{out.text!r} {out.reason or ''} confidence {out.confidence:.3f}")
        return out

    def traced_joined(self: Any, spoken: list[bytes], decoded: Any, rest: list[bytes], alone: Any,
                      late: bool = False) -> Any:
        out = joined(self, spoken, decoded, rest, alone, late)
        print(f"    {'late cards' if late else 'unfinished'}: {decoded.text!r} + a rest of "
              f"{sum(map(len, rest)) / 32000:.2f} s read alone {alone.text!r} (begun: {alone.begun}), "
              f"written freely {self._written_freely(rest)} -> {'joined' if out is not None else 'not joined'}")
        return out

    Listener._decode = traced_decode  # type: ignore[method-assign]
    Listener._joined = traced_joined  # type: ignore[method-assign]


def clip(game: vg.GameAudio, index: int, out: Path) -> tuple[vg.GameAudio, int]:
    """Lines ``index - 1`` to ``index + 1`` of ``game`` as a game of their own, and where the
    chosen line is in it."""
    first = max(0, index - 1)
    lines = game.lines[first:index + 2]
    start = max(0, lines[0].start - int(0.6 * vg.RATE) * 2) // GRID * GRID
    end = min(len(game.raw), lines[-1].end + int(1.2 * vg.RATE) * 2)
    shifted = [dataclasses.replace(line, start=line.start - start, end=line.end - start) for line in lines]
    part = dataclasses.replace(game, lines=shifted, raw=game.raw[start:end],
                               typed=list(vg.expected_referee(game, first).history()))
    path = out / f"clip_{len(game.players)}p_{game.voices}_line{game.lines[index].number}.wav"
    write_wav(path, part.raw)
    part.wav = str(path)
    return part, index - first


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, choices=(3, 4, 5), required=True)
    parser.add_argument("--voices", choices=("espeak", "held-out", "last-pause"), default="espeak")
    parser.add_argument("--seeds", type=int, default=40, help="as voice_game.py's (the shortest game)")
    parser.add_argument("--lines", type=int, nargs="+", required=True, help="line numbers, as voice_game.py prints them")
    parser.add_argument("--trace", action="store_true", help="print every decoding and join")
    parser.add_argument("--out", default=str(vg.ROOT / "bench" / "out" / "voice_clip"))
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    game = vg.script(args.players, vg.choose_seed(args.players, range(args.seeds)), args.voices)
    with ThreadPoolExecutor(2) as pool:
        vg.render(game, out, pink_noise(60, out), pool)
    if args.trace:
        trace_joins()
    for number in args.lines:
        index = next((i for i, line in enumerate(game.lines) if line.number == number), None)
        if index is None:
            print(f"line {number}: no such line (the game has lines 2 to {game.lines[-1].number})")
            continue
        part, chosen = clip(game, index, out)
        started = time.monotonic()
        outcome = vg.play(part, "whisper", correct=True, fast=True)
        print(f"line {number} and its neighbours ({time.monotonic() - started:.0f} s):")
        for i, line in enumerate(part.lines):
            mark = ">" if i == chosen else " "
            print(f" {mark} line {line.number}: said {line.text!r}, expected {line.expected!r}\n"
                  f"     heard {outcome.heard.get(i, [])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
