"""Kill tests with real processes: ``lifeguard chat --jsonl`` is fed a seeded simulated game
line by line and SIGKILLed at random moments (after an answer, while a line is being handled,
in the middle of writing a line); restarted, it is fed the rest. Every answered line must be in
the store exactly once, an unanswered one at most once, and the end state must equal a replay
of the whole file. Also: a second process on the same store is refused while the first runs.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from assistant.store import GameStore
from tests.store.conftest import game_lines, lifeguard, replayed_state

SEEDS = range(20)
KILLS_PER_GAME = 3


class Chat:
    """A running ``lifeguard chat --jsonl``, driven one line at a time."""

    def __init__(self, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "assistant.cli", "chat", "--jsonl"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=env, text=True, bufsize=1,
        )

    def read(self) -> dict:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line, f"chat ended early: {self.proc.stderr.read() if self.proc.stderr else ''}"
        return json.loads(line)

    def send(self, text: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(text)
        self.proc.stdin.flush()

    def ask(self, line: str) -> dict:
        self.send(line + "\n")
        return self.read()

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                try:
                    stream.close()
                except BrokenPipeError:
                    pass

    def finish(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        code = self.proc.wait(timeout=60)
        assert self.proc.stderr is not None and "Traceback" not in self.proc.stderr.read()
        return code


def stored(data: Path, with_lot: bool = False) -> tuple[list[str], str | None]:
    """The stored game's current commands and status; without the referee's own drawn lot
    (a joined entry) unless ``with_lot``."""
    if not (data / "lifeguard.sqlite3").exists():
        return [], None
    with GameStore.open(data, create=False) as store:
        row = store.latest_game()
        if row is None:
            return [], None
        entries = store.entries(row.id)[: row.cursor]
        return [e.command for e in entries if with_lot or not e.joined], row.status


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS)
def test_sigkill_at_random_moments_loses_and_doubles_nothing(env, data: Path, seed: int) -> None:
    lines = game_lines(seed)
    rng = random.Random(1000 + seed)
    kills = sorted(rng.sample(range(1, len(lines) - 1), KILLS_PER_GAME))
    answered = 0  # lines whose answer we read
    for kill_at in [*kills, None]:
        done, status = stored(data)
        # Nothing answered is lost; only the line in flight at the kill may also be there.
        assert done == lines[: len(done)], "the store holds lines that were never sent"
        assert answered <= len(done) <= answered + 1
        answered = len(done)
        chat = Chat(env)
        if done and status == "unfinished":
            greeting = chat.read()
            assert greeting["resumed"] and "ok" not in greeting
            # (with the drawn lot: right after 'new game' the start player is the chat's draw)
            assert greeting["state"] == replayed_state(stored(data, with_lot=True)[0])
        stop = kill_at if kill_at is not None and kill_at > answered else None
        for i in range(answered, stop if stop is not None else len(lines)):
            reply = chat.ask(lines[i])
            assert reply["ok"], (lines[i], reply)
            answered = i + 1
        if stop is None:
            assert chat.finish() == 0
            continue
        how = rng.choice(("after_answer", "in_flight", "half_line"))
        if how == "in_flight":  # the next line is being parsed, applied or committed
            chat.send(lines[answered] + "\n")
            time.sleep(rng.uniform(0, 0.0015))
        elif how == "half_line":
            chat.send(lines[answered][: len(lines[answered]) // 2])
        chat.kill()
    done, status = stored(data)
    assert done == lines and status == "finished"
    out = lifeguard(env, "status", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == replayed_state(lines)


@pytest.mark.slow
def test_a_second_process_is_refused_while_the_first_plays_on(env, data: Path) -> None:
    lines = game_lines(21)
    first = Chat(env)
    for line in lines[:8]:
        assert first.ask(line)["ok"]
    # a second chat on the same store: refused with a clear message, nothing written
    second = lifeguard(env, "chat", "--jsonl", input=lines[8] + "\n")
    assert second.returncode == 2 and "Traceback" not in second.stderr
    assert "in use by another Lifeguard" in second.stderr
    assert f"process {first.proc.pid}" in second.stderr
    assert str(data / "lifeguard.sqlite3") in second.stderr
    # an import of an unfinished game cannot slip under it either
    game_file = data.parent / "other.txt"
    game_file.write_text("\n".join(game_lines(22)[:5]) + "\n")
    refused = lifeguard(env, "import", str(game_file), "--abandon-current")
    assert refused.returncode == 2 and "in use by another Lifeguard" in refused.stderr
    # readers work meanwhile and see every answered command
    status = lifeguard(env, "status", "--json")
    assert status.returncode == 0 and json.loads(status.stdout) == replayed_state(lines[:8])
    for line in lines[8:12]:
        assert first.ask(line)["ok"]
    assert first.finish() == 0
    # once the first has gone, the next one resumes the same game
    after = Chat(env)
    assert after.read()["state"] == replayed_state(lines[:12])
    for line in lines[12:]:
        assert after.ask(line)["ok"]
    assert after.finish() == 0
    assert stored(data) == (lines, "finished")


def test_a_killed_process_leaves_no_stale_lock(env, data: Path) -> None:
    chat = Chat(env)
    assert chat.ask("new game ann ben cid")["ok"]
    chat.kill()
    assert os.path.exists(data / "lifeguard.sqlite3.lock")
    out = lifeguard(env, "chat", "--jsonl", input="status\n")
    assert out.returncode == 0, out.stderr
    greeting, reply = (json.loads(line) for line in out.stdout.splitlines())
    assert greeting["resumed"] and reply["ok"]
