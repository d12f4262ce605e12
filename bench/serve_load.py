"""``lifeguard serve`` under load: phones following a whole game played through ``lifeguard chat``.

A real ``lifeguard serve`` process on 127.0.0.1 (only loopback: nothing leaves the machine) and
``--clients`` readers of ``/events`` (threads of this process, at most 100) follow the store while
a real ``lifeguard chat --jsonl`` process plays one whole seeded simulated game, one command
every ``--gap`` seconds, waiting for each answer (which the chat gives after its commit). Prints:

- whether every client saw every command (one event each, in order, the same command);
- the update latency from commit (the chat's answer) to each client: median and p95;
- the server's resident memory (RSS now and its peak);
- the writer's latency per command (line sent -> answer, the commit included) without the
  server and with the server and its clients, median and p95.

    .venv/bin/python bench/serve_load.py [--clients 20] [--seed 0] [--gap 0.05]

Stores go in a temporary folder under the current directory (not /tmp, which may be a RAM disk).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The load test borrows the test suite's server helpers (tests/ is not installed).
sys.path.insert(0, str(ROOT))

from figures import percentile, process_memory_kb  # noqa: E402

from tests.web.conftest import EventReader, game_lines, start_server  # noqa: E402

MAX_CLIENTS = 100



def environment(folder: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("LIFEGUARD_CONFIG", None)
    env["LIFEGUARD_DATA_DIR"] = str(folder / "data")
    env["XDG_CONFIG_HOME"] = str(folder / "config")
    return env


def play_chat(env: dict[str, str], lines: list[str], gap: float, deadline: float
              ) -> tuple[list[float], list[float], list[str]]:
    """Each line to a real chat process; returns (answer times, send->answer seconds,
    the accepted canonical commands)."""
    chat = subprocess.Popen([sys.executable, "-m", "assistant.cli", "--seed", "1", "chat", "--jsonl"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
    assert chat.stdin is not None and chat.stdout is not None
    answered, took, commands = [], [], []
    try:
        for line in lines:
            if time.monotonic() > deadline:
                raise SystemExit("time limit reached while playing")
            sent = time.monotonic()
            chat.stdin.write(line + "\n")
            chat.stdin.flush()
            reply = json.loads(chat.stdout.readline())
            now = time.monotonic()
            if not reply["ok"]:
                raise SystemExit(f"the chat refused {line!r}: {reply.get('error')}")
            answered.append(now)
            took.append(now - sent)
            commands.append(reply["command"])
            time.sleep(gap)
    finally:
        chat.stdin.close()
        chat.wait(30)
    return answered, took, commands


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--gap", type=float, default=0.05, help="seconds between commands")
    parser.add_argument("--time-limit", type=float, default=300.0, help="seconds, all in all")
    args = parser.parse_args()
    clients = max(1, min(args.clients, MAX_CLIENTS))
    deadline = time.monotonic() + args.time_limit
    lines = game_lines(args.seed)
    base = Path(tempfile.mkdtemp(prefix="lifeguard-serve-bench-", dir=Path.cwd()))
    try:
        print(f"one simulated game (seed {args.seed}): {len(lines)} commands, one every "
              f"{args.gap * 1000:.0f} ms; {clients} clients; stores under {base}")

        # -- the writer alone
        _, alone, _ = play_chat(environment(base / "alone"), lines, args.gap, deadline)

        # -- the writer with the server and its clients
        env = environment(base / "served")
        Path(env["LIFEGUARD_DATA_DIR"]).mkdir(parents=True)
        served = start_server(env)
        assert served.host == "127.0.0.1"
        readers = []
        try:
            readers = [EventReader(served.host, served.port, served.token) for _ in range(clients)]
            for reader in readers:
                _, hello = reader.next(timeout=10)
                assert hello is not None and hello["kind"] == "state"
            rss_idle = process_memory_kb(served.process.pid)[0]
            answered, served_took, commands = play_chat(env, lines, args.gap, deadline)
            rss_now, rss_peak = process_memory_kb(served.process.pid)
            latencies: list[float] = []
            complete = True
            for reader in readers:
                seen = []
                for when in answered:
                    try:
                        arrived, event = reader.next(timeout=max(0.1, min(5.0, deadline - time.monotonic())))
                    except Exception:  # queue.Empty: an event never came
                        complete = False
                        break
                    if event is None:
                        complete = False
                        break
                    seen.append((event["kind"], event["command"]))
                    latencies.append(arrived - when)
                expected = [("new_game" if i == 0 else "command", c) for i, c in enumerate(commands)]
                if seen != expected:
                    complete = False
                    wrong = next((i for i, (a, b) in enumerate(zip(seen, expected, strict=False))
                                  if a != b), len(seen))
                    print(f"a client saw {len(seen)} events; the first wrong one, #{wrong}: "
                          f"{seen[wrong] if wrong < len(seen) else None} for {expected[wrong]}")
        finally:
            for reader in readers:
                reader.close()
            served.stop()

        print(f"every client saw every command: {'yes' if complete else 'no'} "
              f"({clients} clients x {len(commands)} commands)")
        if latencies:
            print(f"update latency commit -> client: median {statistics.median(latencies) * 1000:.0f} ms, "
                  f"p95 {percentile(latencies, 0.95) * 1000:.0f} ms, max {max(latencies) * 1000:.0f} ms "
                  "(aim: < 200 ms / < 1 s)")
        print(f"server RSS: {rss_idle / 1024:.1f} MB with {clients} clients before the game, "
              f"{rss_now / 1024:.1f} MB after it, peak {rss_peak / 1024:.1f} MB (aim: < 100 MB)")
        for name, took in (("without the server", alone), ("with the server", served_took)):
            print(f"writer, command sent -> answered (commit included), {name}: "
                  f"median {statistics.median(took) * 1000:.2f} ms, "
                  f"p95 {percentile(took, 0.95) * 1000:.2f} ms")
        return 0 if complete else 1
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
