"""How fast the table is: prints median figures (not a test).

1. Start-up: from launching ``lifeguard`` in a real terminal (tmux, 100x30) to the table of a
   resumed game on screen, ready for a command (voice loads in the background meanwhile).
2. Enter to updated table: in the same real terminal, from sending Enter on a typed command to
   the screen showing its result (the store's commit included); with, for scale, the time a
   typed letter takes to show (tmux's and the terminal's own share), and the same inside the app
   (headless: from the Enter action to the end of the next frame the screen composes).

    .venv/bin/python bench/tui_startup.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LIFEGUARD = Path(sys.executable).with_name("lifeguard")


def close_tmux(socket: str, env: dict[str, str]) -> None:
    """Stop our own tmux server and remove the socket file it leaves behind."""
    path = subprocess.run(["tmux", "-L", socket, "display-message", "-p", "#{socket_path}"],
                          capture_output=True, text=True, env=env).stdout.strip()
    subprocess.run(["tmux", "-L", socket, "kill-server"], capture_output=True, env=env)
    if path:
        Path(path).unlink(missing_ok=True)


def start_up_times(runs: int) -> list[float]:
    times = []
    with tempfile.TemporaryDirectory() as tmp:
        env = {k: v for k, v in os.environ.items() if not k.startswith("TMUX")}
        env.update(LIFEGUARD_DATA_DIR=str(Path(tmp) / "data"), XDG_CONFIG_HOME=str(Path(tmp) / "cfg"),
                   TERM="xterm-256color")
        # an unfinished game, so the app opens straight on the table
        subprocess.run([str(LIFEGUARD), "chat"], input="new game alice bob carol\nrow 1 giraffe\n",
                       text=True, env=env, capture_output=True, check=True)
        socket = f"lifeguard-bench-{os.getpid()}"
        try:
            for _ in range(runs):
                start = time.perf_counter()
                subprocess.run(["tmux", "-L", socket, "new-session", "-d", "-x", "100", "-y", "30",
                                "-s", "bench", str(LIFEGUARD)], env=env, check=True)
                while True:
                    screen = subprocess.run(["tmux", "-L", socket, "capture-pane", "-p", "-t", "bench"],
                                            capture_output=True, text=True, env=env).stdout
                    if "type a command" in screen and "GIRAFFE" in screen:
                        break
                    if time.perf_counter() - start > 60:
                        raise SystemExit("the table never appeared:\n" + screen)
                    time.sleep(0.005)
                times.append(time.perf_counter() - start)
                subprocess.run(["tmux", "-L", socket, "send-keys", "-t", "bench", "C-q"], env=env)
                while subprocess.run(["tmux", "-L", socket, "has-session", "-t", "bench"], env=env,
                                     capture_output=True).returncode == 0:
                    time.sleep(0.02)
        finally:
            close_tmux(socket, env)
    return times


def enter_to_table_times(commands: int) -> tuple[list[float], list[float]]:
    """In tmux: type a command, then time from sending Enter to the screen showing its result."""
    from assistant.commands import canonical
    from engine.simulate import simulate_game

    lines = [canonical(a) for a in simulate_game(random.Random(3), players=4)][:commands]
    times: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        env = {k: v for k, v in os.environ.items() if not k.startswith("TMUX")}
        env.update(LIFEGUARD_DATA_DIR=str(Path(tmp) / "data"), XDG_CONFIG_HOME=str(Path(tmp) / "cfg"),
                   TERM="xterm-256color")
        socket = f"lifeguard-bench-{os.getpid()}"

        def tmux(*args: str) -> str:
            return subprocess.run(["tmux", "-L", socket, *args], capture_output=True, text=True,
                                  env=env).stdout

        def wait(text: str, start: float) -> str:
            while True:
                screen = tmux("capture-pane", "-p", "-t", "bench")
                if text in screen:
                    return screen
                if time.perf_counter() - start > 60:
                    raise SystemExit(f"{text!r} never appeared:\n{screen}")

        try:
            tmux("new-session", "-d", "-x", "120", "-y", "40", "-s", "bench", f"{LIFEGUARD} --seed 0")
            wait("players, in seating order", time.perf_counter())
            tmux("send-keys", "-t", "bench", "Escape")
            wait("type a command", time.perf_counter())
            for i, line in enumerate(lines):
                tmux("send-keys", "-t", "bench", "-l", line)
                wait(line, time.perf_counter())
                marker = f"› {line}"
                start = time.perf_counter()
                tmux("send-keys", "-t", "bench", "Enter")
                wait(marker, start)
                if i:  # the first (new game) also writes the house rules: not typical
                    times.append(time.perf_counter() - start)
            # the empty-command baseline: how long tmux itself takes to show a keypress
            baseline: list[float] = []
            for n in range(10):
                start = time.perf_counter()
                tmux("send-keys", "-t", "bench", "-l", "x")
                wait("x" * (n + 1), start)
                baseline.append(time.perf_counter() - start)
        finally:
            close_tmux(socket, env)
    return times, baseline


def in_app_times(commands: int) -> list[float]:
    """Inside the app (headless): from the input's Enter action to the end of the next frame the
    screen composes, so without the terminal's share."""
    import asyncio

    from textual.screen import Screen

    from assistant.commands import canonical
    from assistant.config import Settings
    from assistant.tui.app import LifeguardApp
    from assistant.tui.widgets import CommandInput
    from engine.simulate import simulate_game

    lines = [canonical(a) for a in simulate_game(random.Random(3), players=4)][:commands]
    marks: dict = {"start": None, "times": []}
    submit, compose = CommandInput.action_submit, Screen._compositor_refresh

    async def timed_submit(self) -> None:
        marks["start"] = time.perf_counter()
        await submit(self)

    def timed_compose(self) -> None:
        compose(self)
        if marks["start"] is not None:
            marks["times"].append(time.perf_counter() - marks["start"])
            marks["start"] = None

    CommandInput.action_submit, Screen._compositor_refresh = timed_submit, timed_compose

    async def play() -> None:
        with tempfile.TemporaryDirectory() as tmp:
            os.environ["LIFEGUARD_DATA_DIR"] = tmp
            app = LifeguardApp(Settings(), data_dir=tmp, seed=0, voice=False)
            async with app.run_test(size=(100, 30)) as pilot:
                await pilot.press("escape")
                for line in lines:
                    app.command_input.value = line
                    await pilot.press("enter")
                    await pilot.pause(0.05)

    try:
        asyncio.run(play())
    finally:
        CommandInput.action_submit, Screen._compositor_refresh = submit, compose
    return marks["times"][1:]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="start-ups to time (default 5)")
    parser.add_argument("--commands", type=int, default=60, help="commands to time (default 60)")
    args = parser.parse_args()
    starts = start_up_times(args.runs)
    print(f"start-up to interactive table (tmux, resumed game): median {statistics.median(starts) * 1000:.0f} ms "
          f"(min {min(starts) * 1000:.0f}, max {max(starts) * 1000:.0f}, {len(starts)} runs)")
    times, baseline = enter_to_table_times(args.commands)
    print(f"Enter to updated table (tmux, store commit included): median {statistics.median(times) * 1000:.0f} ms "
          f"(max {max(times) * 1000:.0f}, {len(times)} commands)")
    print(f"  baseline, a typed letter to the screen through tmux: median "
          f"{statistics.median(baseline) * 1000:.0f} ms")
    inside = in_app_times(args.commands)
    print(f"  inside the app, Enter to the next composed frame: median "
          f"{statistics.median(inside) * 1000:.0f} ms (max {max(inside) * 1000:.0f}, {len(inside)} commands)")


if __name__ == "__main__":
    main()
