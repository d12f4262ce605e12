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

With ``--idle N`` (issue 35's attack: ``--idle 1000``) another process keeps attempting ``N`` idle
connections to the server all through the game (each one the server closes is opened again, at
most ``MAX_ATTEMPTS`` in all), and a page load with the link (a fresh connection, GET
/state.json) is timed every 0.25 s; it also prints those load times, how many connections the
attacker made and how many the server closed, and the server's CPU time during the game.

    .venv/bin/python bench/serve_load.py [--clients 20] [--seed 0] [--gap 0.05] [--idle 1000]

Stores go in a temporary folder under the current directory (not /tmp, which may be a RAM disk).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import select
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The load test borrows the test suite's server helpers (tests/ is not installed).
sys.path.insert(0, str(ROOT))

from figures import percentile, process_memory_kb  # noqa: E402

from tests.web.conftest import (  # noqa: E402
    EventReader,
    Served,
    game_lines,
    raise_file_limit,
    start_server,
)

MAX_CLIENTS = 100
#: The idle connections attempted at once, and in all, by ``--idle``.
MAX_IDLE = 5000
MAX_ATTEMPTS = 300_000


# ---------------------------------------------------------------------------- the attack
def attack(host: str, port: int, count: int, seconds: float) -> dict[str, int]:
    """Keep ``count`` idle connections open (sending nothing), opening a new one for each the
    server closes, until standard input closes or ``seconds`` pass; runs in a process of its
    own (``--attacker``) so that it does not share the measuring process's lock."""
    stop = threading.Event()
    threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
    poller = select.poll()
    held: dict[int, socket.socket] = {}
    attempts = refused = closed = most = 0
    deadline = time.monotonic() + seconds
    while not stop.is_set() and time.monotonic() < deadline and attempts < MAX_ATTEMPTS:
        while len(held) < count and attempts < MAX_ATTEMPTS and not stop.is_set():
            attempts += 1
            try:
                sock = socket.create_connection((host, port), timeout=5)
            except OSError:
                refused += 1
                continue
            held[sock.fileno()] = sock
            poller.register(sock, select.POLLIN | select.POLLHUP | select.POLLERR)
        most = max(most, len(held))
        for fd, _ in poller.poll(50):  # nothing is ever sent to them: readable is closed
            poller.unregister(fd)
            held.pop(fd).close()
            closed += 1
    for sock in held.values():
        sock.close()
    return {"attempts": attempts, "refused": refused, "closed_by_server": closed,
            "held_at_most": most}


def start_attacker(served: Served, count: int, seconds: float) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, __file__, "--attacker", served.host,
                             str(served.port), str(count), str(seconds)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def stop_attacker(attacker: subprocess.Popen) -> dict[str, int]:
    out, _ = attacker.communicate("", timeout=60)
    return json.loads(out.strip().splitlines()[-1])


class PageLoads:
    """A fresh page load with the link (connect, GET /state.json, the whole answer) every
    0.25 s on a thread, until stopped: each one's seconds, or None for one that failed."""

    def __init__(self, served: Served) -> None:
        self.served = served
        self.times: list[float | None] = []
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stopped.wait(0.25) and len(self.times) < 100_000:
            began = time.monotonic()
            conn = http.client.HTTPConnection(self.served.host, self.served.port, timeout=10)
            try:
                conn.request("GET", f"/state.json?t={self.served.token}")
                answer = conn.getresponse()
                ok = answer.status == 200 and bool(answer.read())
                self.times.append(time.monotonic() - began if ok else None)
            except (OSError, http.client.HTTPException):
                self.times.append(None)
            finally:
                conn.close()

    def stop(self) -> None:
        self.stopped.set()
        self.thread.join(15)


def cpu_seconds(pid: int) -> float:
    """A process's user and system CPU time so far, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")



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


def check_readers(readers: list[EventReader], answered: list[float], commands: list[str],
                  deadline: float) -> tuple[bool, list[float]]:
    """Whether every client saw every command (one event each, in order), and each event's
    time from the commit (the chat's answer) to its arrival."""
    latencies: list[float] = []
    complete = True
    expected = [("new_game" if i == 0 else "command", c) for i, c in enumerate(commands)]
    for reader in readers:
        seen = []
        for when in answered:
            try:
                arrived, event = reader.next(timeout=max(0.1, min(5.0, deadline - time.monotonic())))
            except Exception:  # queue.Empty: an event never came
                break
            if event is None:
                break
            seen.append((event["kind"], event["command"]))
            latencies.append(arrived - when)
        if seen != expected:
            complete = False
            wrong = next((i for i, (a, b) in enumerate(zip(seen, expected, strict=False))
                          if a != b), len(seen))
            print(f"a client saw {len(seen)} events; the first wrong one, #{wrong}: "
                  f"{seen[wrong] if wrong < len(seen) else None} for "
                  f"{expected[wrong] if wrong < len(expected) else None}")
    return complete, latencies


def served_game(env: dict[str, str], lines: list[str], args: argparse.Namespace, clients: int,
                idle: int, deadline: float) -> dict:
    """The game played with the server, its clients and (``idle``) the attack: the figures."""
    served = start_server(env)
    assert served.host == "127.0.0.1"
    readers: list[EventReader] = []
    attacker: subprocess.Popen | None = None
    loads: PageLoads | None = None
    out: dict = {"attacked": {}, "loads": []}
    try:
        readers = [EventReader(served.host, served.port, served.token) for _ in range(clients)]
        for reader in readers:
            _, hello = reader.next(timeout=10)
            assert hello is not None and hello["kind"] == "state"
        out["rss_idle"] = process_memory_kb(served.process.pid)[0]
        if idle:
            attacker = start_attacker(served, idle, max(1.0, deadline - time.monotonic()))
            time.sleep(1.0)  # the attack under way before the game starts
            loads = PageLoads(served)
        cpu_before, began = cpu_seconds(served.process.pid), time.monotonic()
        answered, out["took"], commands = play_chat(env, lines, args.gap, deadline)
        out["cpu"] = cpu_seconds(served.process.pid) - cpu_before
        out["seconds"] = time.monotonic() - began
        out["rss_now"], out["rss_peak"] = process_memory_kb(served.process.pid)
        if loads is not None:
            loads.stop()
            out["loads"] = loads.times
        if attacker is not None:
            out["attacked"] = stop_attacker(attacker)
            attacker = None
        out["complete"], out["latencies"] = check_readers(readers, answered, commands, deadline)
        out["commands"] = len(commands)
    finally:
        if loads is not None:
            loads.stop()
        if attacker is not None:
            attacker.kill()
            attacker.wait(10)
        for reader in readers:
            reader.close()
        served.stop()
    return out


def report_attack(idle: int, attacked: dict[str, int], loads: list[float | None]) -> bool:
    """Prints the attack's figures; whether every page load with the link was answered."""
    print(f"idle attack: {idle} idle connections held at once (at most "
          f"{attacked['held_at_most']} seen open by the attacker), "
          f"{attacked['attempts']} attempted in all, {attacked['refused']} refused, "
          f"{attacked['closed_by_server']} closed by the server")
    times = [t for t in loads if t is not None]
    failed = len(loads) - len(times)
    if not times:
        print(f"page load with the link during the attack: all {failed} failed")
        return False
    print(f"page load with the link during the attack (connect, GET /state.json): "
          f"{len(loads)} loads, {failed} failed; median {statistics.median(times) * 1000:.0f} ms, "
          f"p95 {percentile(times, 0.95) * 1000:.0f} ms, max {max(times) * 1000:.0f} ms "
          "(aim: < 1 s)")
    return failed == 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--gap", type=float, default=0.05, help="seconds between commands")
    parser.add_argument("--time-limit", type=float, default=300.0, help="seconds, all in all")
    parser.add_argument("--idle", type=int, default=0, metavar="N",
                        help="idle connections attempted all through the game (issue 35: 1000)")
    parser.add_argument("--attacker", nargs=4, metavar=("HOST", "PORT", "COUNT", "SECONDS"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.attacker:
        host, port, count, seconds = args.attacker
        raise_file_limit(int(count) + 100)
        print(json.dumps(attack(host, int(port), int(count), float(seconds))), flush=True)
        return 0
    idle = max(0, min(args.idle, MAX_IDLE))
    raise_file_limit(MAX_CLIENTS + 200)
    clients = max(1, min(args.clients, MAX_CLIENTS))
    deadline = time.monotonic() + args.time_limit
    lines = game_lines(args.seed)
    base = Path(tempfile.mkdtemp(prefix="lifeguard-serve-bench-", dir=Path.cwd()))
    try:
        print(f"one simulated game (seed {args.seed}): {len(lines)} commands, one every "
              f"{args.gap * 1000:.0f} ms; {clients} clients; stores under {base}"
              + (f"; {idle} idle connections attempted all through it" if idle else ""))
        _, alone, _ = play_chat(environment(base / "alone"), lines, args.gap, deadline)
        env = environment(base / "served")
        Path(env["LIFEGUARD_DATA_DIR"]).mkdir(parents=True)
        got = served_game(env, lines, args, clients, idle, deadline)
        complete, latencies = got["complete"], got["latencies"]
        print(f"every client saw every command: {'yes' if complete else 'no'} "
              f"({clients} clients x {got['commands']} commands)")
        if latencies:
            print(f"update latency commit -> client: median {statistics.median(latencies) * 1000:.0f} ms, "
                  f"p95 {percentile(latencies, 0.95) * 1000:.0f} ms, max {max(latencies) * 1000:.0f} ms "
                  "(aim: < 200 ms / < 1 s)")
        print(f"server RSS: {got['rss_idle'] / 1024:.1f} MB with {clients} clients before the game, "
              f"{got['rss_now'] / 1024:.1f} MB after it, peak {got['rss_peak'] / 1024:.1f} MB "
              "(aim: < 100 MB)")
        print(f"server CPU during the game: {got['cpu']:.2f} s in {got['seconds']:.1f} s "
              f"({got['cpu'] / got['seconds'] * 100:.0f}% of a core)")
        if idle:
            complete = report_attack(idle, got["attacked"], got["loads"]) and complete
        for name, took in (("without the server", alone), ("with the server", got["took"])):
            print(f"writer, command sent -> answered (commit included), {name}: "
                  f"median {statistics.median(took) * 1000:.2f} ms, "
                  f"p95 {percentile(took, 0.95) * 1000:.2f} ms")
        return 0 if complete else 1
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
