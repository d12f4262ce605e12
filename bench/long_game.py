"""Time ``import``, ``status``, resume, undo and redo on a long game (issue 35).

The game is built as the issue built its 2.4 MB file: a new game of three, the start player, the
four rows, then seeded swaps that nobody ends with a knock (a round has no length limit in the
rules). Each figure is measured on a real store in a temporary folder: ``import`` and ``status``
as real ``lifeguard`` processes (interpreter start-up included, peak memory from the kernel),
resume as ``open_session``, and undo and redo through the resumed referee, each committed.

    .venv/bin/python bench/long_game.py [--commands 5000] [--pairs 100] [--dir FOLDER]

A game longer than ``engine.log.MAX_ACTIONS`` is refused by ``import`` (the figure is then the
time and memory of the refusal) and the other figures are left out. Runs on any Lifeguard
checkout that has ``open_session`` (``PYTHONPATH=/path/to/checkout``), for before-and-after.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import assistant
from assistant.commands import canonical
from assistant.config import Settings
from assistant.store import open_session
from engine.actions import Action, NewGame, SetRow, SetStarter, Swap
from engine.deck import ANIMALS, COPIES, HAND_SIZE, ROW_SIZES, Animal, Cards
from engine.game import Game


def long_game(commands: int, seed: int = 0) -> list[str]:
    """A valid unfinished game of ``commands`` lines (at least 6): mostly swaps, no knock."""
    rng = random.Random(seed)
    names = ("alice", "bob", "carol")
    game, _ = Game.new(NewGame(names))
    actions: list[Action] = [NewGame(names)]

    def play(action: Action) -> None:
        game.apply(action)
        actions.append(action)

    play(SetStarter(names[0]))
    deck = [a for a in ANIMALS for _ in range(COPIES[a])]
    rng.shuffle(deck)
    hands = {p: Counter(deck[i * HAND_SIZE:(i + 1) * HAND_SIZE]) for i, p in enumerate(names)}
    rest = deck[len(names) * HAND_SIZE:]
    rows: dict[int, list[Animal]] = {}
    for k in ROW_SIZES:
        rows[k], rest = rest[:k], rest[k:]
        play(SetRow(k, Cards(rows[k])))
    while len(actions) < commands:
        player, k = game.turn, rng.choice(ROW_SIZES)
        assert player is not None
        put = rng.sample(list(hands[player].elements()), k)
        if Counter(put) == Counter(rows[k]):
            continue  # not a swap: draw again
        play(Swap(player, k, Cards(put)))
        hands[player] += Counter(rows[k])
        hands[player] -= Counter(put)
        rows[k] = put
    return [canonical(a) for a in actions[:commands]]


@dataclass
class Run:
    seconds: float
    peak_mb: float  # the process's largest resident set
    status: int
    stdout: str
    stderr: str

    @property
    def said(self) -> str:
        return (self.stdout or self.stderr).strip().splitlines()[0][:90]


def lifeguard(folder: Path, *args: str) -> Run:
    """A real ``lifeguard`` process on the store in ``folder``."""
    # The same Lifeguard as this process (the checkout it was imported from), wherever it runs.
    code = str(Path(assistant.__file__).resolve().parents[1])
    env = dict(os.environ, LIFEGUARD_DATA_DIR=str(folder), XDG_CONFIG_HOME=str(folder / "config"),
               PYTHONPATH=os.pathsep.join([code, os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep))
    env.pop("LIFEGUARD_CONFIG", None)
    peak = folder.parent / "peak"
    env["BENCH_PEAK"] = str(peak)
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", _PEAK, *args], env=env, capture_output=True,
                         text=True, stdin=subprocess.DEVNULL, timeout=900, cwd=folder.parent)
    took = time.perf_counter() - start
    return Run(took, int(peak.read_text()) / 1024, out.returncode, out.stdout, out.stderr)


#: ``python -m assistant.cli``, writing its peak memory when it ends: the kernel's high-water
#: mark of its own memory (VmHWM; the rusage of a child also counts its parent's, copied at fork).
_PEAK = """
import os, runpy, sys
sys.argv[0] = "lifeguard"
try:
    runpy.run_module("assistant.cli", run_name="__main__", alter_sys=True)
finally:
    with open("/proc/self/status") as status:
        kb = next(line.split()[1] for line in status if line.startswith("VmHWM"))
    with open(os.environ["BENCH_PEAK"], "w") as out:
        out.write(kb)
"""


def show(name: str, seconds: float, extra: str = "") -> None:
    print(f"{name:<38} {seconds * 1000:10.1f} ms  {extra}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commands", type=int, default=5_000)
    parser.add_argument("--pairs", type=int, default=100, help="undo/redo pairs to time")
    parser.add_argument("--dir", type=Path, default=None, help="folder for the store files")
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="lifeguard-long-", dir=args.dir or Path.cwd()))
    try:
        lines = long_game(args.commands)
        game_file = base / "long.txt"
        game_file.write_text("\n".join(lines) + "\n")
        print(f"a game of {len(lines):,} commands, {game_file.stat().st_size:,} bytes; "
              f"store under {base}")
        refused = base / "refused.txt"
        with open(refused, "w") as f:  # issue 35: 10 MB of refused lines
            f.write("new game ann ben cid\n" + "ann wibbles\n" * (10_000_000 // 12))
        run = lifeguard(base / "refused-data", "import", str(refused))
        show(f"import, {refused.stat().st_size / 1e6:.0f} MB of refused lines", run.seconds,
             f"peak {run.peak_mb:.0f} MB, exit {run.status}")
        data = base / "data"
        run = lifeguard(data, "import", str(game_file))
        show("import (a lifeguard process)", run.seconds,
             f"peak {run.peak_mb:.0f} MB, exit {run.status}: {run.said}")
        if run.status != 0:
            return
        run = lifeguard(data, "status")
        assert run.status == 0, run.stderr
        show("status (a lifeguard process)", run.seconds, f"peak {run.peak_mb:.0f} MB")
        run = lifeguard(base / "empty", "status")
        show("status, no store (start-up alone)", run.seconds, f"peak {run.peak_mb:.0f} MB")
        start = time.perf_counter()
        session = open_session(Settings(), data, rng=random.Random(0), confirm_new_game=False)
        show("resume (open_session)", time.perf_counter() - start)
        with session:
            undo: list[float] = []
            redo: list[float] = []
            start = time.perf_counter()
            for _ in range(args.pairs):
                for times, line in ((undo, "undo"), (redo, "redo")):
                    t = time.perf_counter()
                    reply = session.referee.handle(line)
                    times.append(time.perf_counter() - t)
                    assert reply.ok, reply.error
            total = time.perf_counter() - start
            show("undo (median, committed)", statistics.median(undo), f"max {max(undo) * 1000:.1f} ms")
            show("redo (median, committed)", statistics.median(redo), f"max {max(redo) * 1000:.1f} ms")
            show(f"{args.pairs} undo/redo pairs", total)
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
