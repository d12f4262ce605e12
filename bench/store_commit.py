"""Time to accept one command *including its durable commit* to the game store.

Plays whole seeded simulated games through ``open_session`` (real SQLite file, WAL,
synchronous=FULL as shipped) and times ``Referee.handle(line)`` for every line: parse, rules
check, announcement and the committed transaction. For comparison it also times the same lines
with no store and with synchronous=NORMAL. Prints median, 99th percentile and max in ms.

    .venv/bin/python bench/store_commit.py [--games 20] [--dir FOLDER]

``--dir`` should be on the disk you care about (the default is a temporary folder under the
current directory, not /tmp, which may be a RAM disk).
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from assistant.commands import canonical
from assistant.config import Settings
from assistant.referee import Referee
from assistant.store import open_session
from engine.simulate import simulate_game


def games(n: int) -> list[list[str]]:
    return [[canonical(a) for a in simulate_game(random.Random(seed))] for seed in range(n)]


def timed(referee: Referee, lines: list[str], out: list[float]) -> None:
    for line in lines:
        start = time.perf_counter_ns()
        reply = referee.handle(line)
        out.append((time.perf_counter_ns() - start) / 1e6)
        assert reply.ok, (line, reply.error)


def run(all_games: list[list[str]], folder: Path | None, synchronous: str | None) -> list[float]:
    times: list[float] = []
    for lines in all_games:
        if folder is None:
            timed(Referee(Settings().rules, random.Random(0), confirm_new_game=False), lines, times)
            continue
        with open_session(Settings(), folder, rng=random.Random(0), confirm_new_game=False) as s:
            if synchronous:
                s.store.conn.execute(f"PRAGMA synchronous = {synchronous}")
            timed(s.referee, lines, times)
    return times


def report(name: str, times: list[float]) -> None:
    ordered = sorted(times)
    p99 = ordered[min(len(ordered) - 1, int(round(0.99 * (len(ordered) - 1))))]
    print(f"{name:<34} n={len(times):>6}  median {statistics.median(times):7.3f} ms  "
          f"p99 {p99:7.3f} ms  max {ordered[-1]:7.3f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--dir", type=Path, default=None, help="folder for the store files")
    args = parser.parse_args()
    all_games = games(args.games)
    base = Path(tempfile.mkdtemp(prefix="lifeguard-bench-", dir=args.dir or Path.cwd()))
    try:
        print(f"{args.games} simulated games, {sum(map(len, all_games))} commands; store under {base}")
        report("no store (parse+rules+announce)", run(all_games, None, None))
        report("store, WAL, synchronous=FULL", run(all_games, base / "full", None))
        report("store, WAL, synchronous=NORMAL", run(all_games, base / "normal", "NORMAL"))
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
