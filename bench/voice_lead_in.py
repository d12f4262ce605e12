"""How much of the room before a line the recogniser hears it best with (``LEAD_IN_SECONDS``).

Each line of ``bench/voice_game.py``'s games is decoded by itself in the game state right before
it, cut from its game's stream as the listener cuts it (``voice_game.loop_span``: its first
chunk above the energy threshold to 0.3 s of quiet after its last), with a given number of 32 ms
chunks of the room before its first loud chunk. Printed: the lines heard exactly, and the awaited
"yes" lines among them, for each lead-in.

    .venv/bin/python bench/voice_lead_in.py --voices espeak held-out --chunks 1 3 5 9
"""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import voice_game as vg
from voice_corpus import pink_noise
from voice_engines import recognizer_for

from assistant.referee import Referee


def readings(game: vg.GameAudio, chunks: list[int], recognizer: object) -> list[tuple[str, dict[int, str | None]]]:
    """Each line's expected command and its reading with each lead-in (chunks)."""
    rows = []
    for i, line in enumerate(game.lines):
        start, end = vg.loop_span(game, line)
        onset = start + vg.LEAD_CHUNKS * vg.CHUNK_BYTES
        referee = Referee.resume(line.before, [False, True])
        recognizer.set_context(game.players, referee.game,  # type: ignore[attr-defined]
                               question=i > 0 and game.lines[i - 1].confirms)
        row = {}
        for lead in chunks:
            decoded = recognizer.decode(game.raw[max(0, onset - lead * vg.CHUNK_BYTES):end])  # type: ignore[attr-defined]
            row[lead] = decoded.command.canonical if decoded.command is not None else None
        rows.append((line.expected, row))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--voices", nargs="+", choices=("espeak", "held-out", "last-pause"), default=["espeak"])
    parser.add_argument("--players", type=int, nargs="+", choices=(3, 4, 5), default=[3, 4, 5])
    parser.add_argument("--chunks", type=int, nargs="+", default=[1, 3, 5, 9])
    parser.add_argument("--seeds", type=int, default=40)
    parser.add_argument("--out", default=str(vg.ROOT / "bench" / "out" / "voice_game"))
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    pink = pink_noise(60, out)
    recognizer = recognizer_for("whisper")
    for voices in args.voices:
        rows = []
        for players in args.players:
            game = vg.script(players, vg.choose_seed(players, range(args.seeds)), voices)
            with ThreadPoolExecutor(2) as pool:
                vg.render(game, out, pink, pool)
            rows += readings(game, args.chunks, recognizer)
        answers = [row for expected, row in rows if expected == "yes"]
        for lead in args.chunks:
            exact = sum(row[lead] == expected for expected, row in rows)
            print(f"{voices}, {lead} chunks of lead-in: {exact}/{len(rows)} lines exact, "
                  f"awaited yes {sum(row[lead] == 'yes' for row in answers)}/{len(answers)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
