"""How fast the engine replays whole games: ``make bench`` (or ``python bench/engine_games.py``).

Simulates N seeded games first (``engine.simulate``), then times only their replay through a
fresh ``GameLog`` each (validation included, as at the table), and prints games per second and
milliseconds per game (median and 95th percentile). Also times the same games as command text
through the referee (parse + engine + announcements), the path of ``lifeguard replay``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time

from figures import percentile

from assistant.commands import canonical
from assistant.referee import Referee
from engine.log import GameLog
from engine.simulate import simulate_game


def report(label: str, times: list[float], actions: int) -> None:
    total = sum(times)
    print(
        f"{label}: {len(times)} games, {actions} actions in {total:.2f} s: "
        f"{len(times) / total:,.0f} games/s, "
        f"{statistics.median(times) * 1000:.2f} ms/game median, "
        f"{percentile(times, 0.95) * 1000:.2f} ms/game p95, "
        f"{total / actions * 1e6:.1f} us/action"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--referee-games", type=int, default=200,
                        help="how many of the games also go through the referee as text (0: none)")
    args = parser.parse_args()

    started = time.perf_counter()
    games = [simulate_game(random.Random(args.seed + i)) for i in range(args.games)]
    actions = sum(len(g) for g in games)
    print(f"simulated {len(games)} games ({actions} actions) in {time.perf_counter() - started:.2f} s")

    times = []
    for game in games:
        t0 = time.perf_counter()
        log = GameLog()
        for action in game:
            log.apply(action)
        times.append(time.perf_counter() - t0)
        assert log.game is not None and log.game.is_over
    report("engine replay", times, actions)

    if args.referee_games:
        texts = [[canonical(a) for a in game] for game in games[: args.referee_games]]
        times = []
        for lines in texts:
            t0 = time.perf_counter()
            referee = Referee(rng=random.Random(0), confirm_new_game=False)
            for line in lines:
                referee.handle(line)
            times.append(time.perf_counter() - t0)
            assert referee.game is not None and referee.game.is_over
        report("referee (text)", times, sum(len(lines) for lines in texts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
