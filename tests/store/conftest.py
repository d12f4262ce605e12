"""Fixtures for the store tests: real SQLite files in a temporary data folder, real
``lifeguard`` processes, and seeded simulated games rendered as command lines."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from assistant.commands import canonical
from assistant.config import Settings
from assistant.referee import Referee
from engine.simulate import simulate_game


def game_lines(seed: int, players: int | None = None) -> list[str]:
    """A whole seeded game as canonical command lines (as a person would type them)."""
    return [canonical(a) for a in simulate_game(random.Random(seed), players=players)]


def replayed_state(lines: list[str]) -> dict:
    """What ``lifeguard replay --json`` gives for ``lines`` (same code path, in process)."""
    referee = Referee(Settings().rules, random.Random(0), confirm_new_game=False)
    for line in lines:
        reply = referee.handle(line)
        assert reply.ok, (line, reply.error)
    return referee.state()


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """An empty data folder (the store is created in it on first use)."""
    folder = tmp_path / "data"
    folder.mkdir()
    return folder


@pytest.fixture
def env(data: Path, tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("LIFEGUARD_CONFIG", None)
    env["LIFEGUARD_DATA_DIR"] = str(data)
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    env["HOME"] = str(tmp_path / "home")
    return env


def lifeguard(env: dict[str, str], *args: str, input: str | None = None) -> subprocess.CompletedProcess:
    """Run the real command line in a fresh process."""
    return subprocess.run(
        [sys.executable, "-m", "assistant.cli", *args],
        input=input, capture_output=True, text=True, env=env, timeout=120,
    )


def chat_jsonl(env: dict[str, str], lines: list[str]) -> list[dict]:
    out = lifeguard(env, "chat", "--jsonl", input="".join(line + "\n" for line in lines))
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    return [json.loads(line) for line in out.stdout.splitlines()]
