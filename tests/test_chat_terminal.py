"""`lifeguard chat` for a person at a terminal: a prompt on a terminal (a real pseudo-terminal),
none with --jsonl or piped input; a resumed game's greeting after the "Game store:" banner."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

LIFEGUARD = Path(sys.executable).with_name("lifeguard")


def environment(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(LIFEGUARD_DATA_DIR=str(tmp_path / "data"), XDG_CONFIG_HOME=str(tmp_path / "config"))
    env.pop("LIFEGUARD_CONFIG", None)
    return env


def read_until(fd: int, text: str, seen: bytearray, limit: float = 30.0) -> str:
    """What the terminal showed once it shows ``text`` (a safety limit, not a timing check)."""
    deadline = time.monotonic() + limit
    while text.encode() not in seen:
        assert time.monotonic() < deadline, f"{text!r} never appeared in {seen.decode(errors='replace')!r}"
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                seen.extend(os.read(fd, 4096))
            except OSError:
                break
    return seen.decode(errors="replace")


def test_chat_shows_a_prompt_on_a_terminal(tmp_path: Path) -> None:
    master, slave = pty.openpty()
    chat = subprocess.Popen([str(LIFEGUARD), "--seed", "0", "chat"],
                            stdin=slave, stdout=slave, stderr=slave, env=environment(tmp_path))
    os.close(slave)
    seen = bytearray()
    try:
        screen = read_until(master, "Ctrl+D to leave.", seen)
        screen = read_until(master, "\n> ", seen)
        os.write(master, b"new game ann ben cid\n")
        screen = read_until(master, "starts.", seen)
        screen = read_until(master, "enter row 1, 2, 3, 4.\r\n> ", seen)
        os.write(master, b"\x04")  # Ctrl+D
        assert chat.wait(timeout=30) == 0
    finally:
        if chat.poll() is None:
            chat.kill()
        os.close(master)
    assert screen.count("> ") >= 2


def test_chat_piped_or_jsonl_has_no_prompt_and_the_greeting_follows_the_banner(tmp_path: Path) -> None:
    env = environment(tmp_path)
    first = subprocess.run([str(LIFEGUARD), "chat"], input="new game ann ben cid\n", text=True,
                           capture_output=True, env=env, check=True)
    assert "> " not in first.stdout
    again = subprocess.run([str(LIFEGUARD), "chat"], input="", text=True, capture_output=True,
                           env=env, check=True)
    lines = again.stdout.splitlines()
    assert lines[0].startswith("Game store: ")
    assert lines.index("Resuming the game of Ann, Ben and Cid.") > 0
    assert "> " not in again.stdout
    jsonl = subprocess.run([str(LIFEGUARD), "chat", "--jsonl"], input="status\n", text=True,
                           capture_output=True, env=env, check=True)
    assert all(line.startswith("{") for line in jsonl.stdout.splitlines())


def test_chat_edits_lines_takes_yes_to_a_suggestion_and_says_the_game_is_saved(tmp_path: Path) -> None:
    """Issue 36: the arrow keys printed ^[[A (no line editing, no history); "yes" to a "Did you
    mean ...?" said "Nothing to confirm"; Ctrl+D left without the "saved" line Ctrl+C gives."""
    master, slave = pty.openpty()
    chat = subprocess.Popen([str(LIFEGUARD), "--seed", "0", "chat"],
                            stdin=slave, stdout=slave, stderr=slave, env=environment(tmp_path))
    os.close(slave)
    seen = bytearray()
    try:
        read_until(master, "\n> ", seen)
        os.write(master, b"new game ann ben cid\n")
        read_until(master, "enter row 1, 2, 3, 4.\r\n> ", seen)
        os.write(master, b"row 1 girafe\n")
        # each key is sent once the prompt is back (readline reads it then; typed before, the
        # terminal's own line discipline has it, as at any prompt)
        read_until(master, "Did you mean 'row 1 giraffe'?\r\n> ", seen)
        os.write(master, b"yes\n")
        read_until(master, "Row 1: giraffe.", seen)
        os.write(master, b"row 2 bear dgo\n")
        read_until(master, "Did you mean 'row 2 bear dog'?\r\n> ", seen)
        # Up recalls the refused line, Backspace twice and "og" mend it: edited in place
        os.write(master, b"\x1b[A")
        deadline = time.monotonic() + 30  # shown again, to be edited (typed once, recalled once)
        while seen.count(b"row 2 bear dgo") < 2:
            assert time.monotonic() < deadline, "Up did not recall the line"
            if select.select([master], [], [], 0.1)[0]:
                seen.extend(os.read(master, 4096))
        os.write(master, b"\x7f\x7fog\n")
        screen = read_until(master, "Row 2: bear and dog. Still missing: row 3, 4.\r\n> ", seen)
        assert "^[[A" not in screen
        os.write(master, b"\x04")  # Ctrl+D
        screen = read_until(master, "The game is saved.", seen)
        assert chat.wait(timeout=30) == 0
    finally:
        if chat.poll() is None:
            chat.kill()
        os.close(master)


def test_old_mac_line_ends_are_line_ends(tmp_path: Path) -> None:
    """A command file with carriage returns alone between its lines was one refused line."""
    done = subprocess.run([str(LIFEGUARD), "--seed", "0", "chat", "--no-store"],
                          input=b"new game ann ben cid\rann starts\rrow 1 giraffe\r",
                          capture_output=True, env=environment(tmp_path), check=True)
    out = done.stdout.decode()
    assert "Ann starts." in out and "Row 1: giraffe." in out and "!" not in out
