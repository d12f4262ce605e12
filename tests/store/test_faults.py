"""Bad store files and a read-only folder, through the real command line: a clear message
naming the file and what to do, exit status 2, no traceback, and the file never changed."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
import subprocess
from pathlib import Path

import pytest

from tests.store.conftest import chat_jsonl, game_lines, lifeguard

STORE = "lifeguard.sqlite3"


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def a_real_store(env: dict[str, str], data: Path, lines: int = 40) -> Path:
    chat_jsonl(env, game_lines(5)[:lines])
    return data / STORE


def assert_refused(out: subprocess.CompletedProcess, path: Path, *words: str) -> None:
    assert out.returncode == 2, (out.returncode, out.stdout, out.stderr)
    assert "Traceback" not in out.stderr
    message = out.stderr.strip()
    assert message.startswith("lifeguard: ") and str(path) in message, message
    for word in words:
        assert word in message, message


COMMANDS = [("chat", "--jsonl"), ("status", "--json"), ("history",), ("stats",), ("export",)]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_a_file_that_is_not_sqlite_is_refused_and_kept(env, data: Path, command) -> None:
    path = data / STORE
    path.write_bytes(b"shopping list: bread, milk, 60 animal cards\n" * 20)
    before = digest(path)
    assert_refused(lifeguard(env, *command, input=""), path, "not a Lifeguard game store",
                   "--move-aside-bad-store")
    assert digest(path) == before


def test_an_sqlite_file_of_another_program_is_refused_and_kept(env, data: Path) -> None:
    path = data / STORE
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE recipes (name TEXT)")
    conn.execute("INSERT INTO recipes VALUES ('pancakes')")
    conn.commit()
    conn.close()
    before = digest(path)
    for command in COMMANDS:
        assert_refused(lifeguard(env, *command, input=""), path, "not a Lifeguard game store")
    assert digest(path) == before


@pytest.mark.parametrize("damage", ["page_header", "truncated"])
def test_a_damaged_store_is_refused_kept_and_moved_aside_only_when_asked(env, data: Path, damage) -> None:
    path = a_real_store(env, data)
    raw = bytearray(path.read_bytes())
    assert len(raw) >= 4096 * 4
    if damage == "page_header":
        raw[4096 * 2 : 4096 * 2 + 12] = b"\x07" * 12
    else:
        raw = raw[: len(raw) // 2]
    path.write_bytes(bytes(raw))
    before = digest(path)
    for command in COMMANDS:
        assert_refused(lifeguard(env, *command, input=""), path, "damaged", "--move-aside-bad-store")
    assert digest(path) == before
    # with the flag: the bad file is renamed (kept byte for byte) and a new store is started
    out = lifeguard(env, "chat", "--jsonl", "--move-aside-bad-store", input="new game ann ben cid\n")
    assert out.returncode == 0, out.stderr
    greeting, reply = (json.loads(line) for line in out.stdout.splitlines())
    moved = [p for p in data.iterdir() if p.name.startswith(STORE + ".bad-") and not p.name.endswith(("-wal", "-shm"))]
    assert len(moved) == 1 and digest(moved[0]) == before
    assert str(moved[0]) in greeting["greeting"][0]
    assert reply["ok"] and path.exists()
    assert json.loads(lifeguard(env, "status", "--json").stdout)["players"][0]["name"] == "ann"


def test_the_refusal_without_the_flag_never_moves_anything(env, data: Path) -> None:
    path = data / STORE
    path.write_bytes(b"\x00\x01not a database" * 100)
    lifeguard(env, "chat", "--jsonl", input="new game ann ben cid\n")
    assert sorted(p.name for p in data.iterdir()) == [STORE]


def test_a_store_from_a_newer_lifeguard_is_refused_never_written(env, data: Path) -> None:
    path = a_real_store(env, data)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version = 99")
    conn.commit()
    conn.close()
    before = digest(path)
    for command in COMMANDS:
        assert_refused(lifeguard(env, *command, input=""), path, "newer Lifeguard", "schema 99")
    # and the flag does not move a newer store aside: it is not bad, only newer
    assert_refused(lifeguard(env, "chat", "--jsonl", "--move-aside-bad-store", input=""), path, "newer")
    assert digest(path) == before
    assert not [p for p in data.iterdir() if ".bad-" in p.name]


def test_an_old_empty_file_is_migrated_forward(env, data: Path) -> None:
    path = data / STORE
    sqlite3.connect(path).close()  # an empty SQLite file: schema version 0
    replies = chat_jsonl(env, ["new game ann ben cid"])
    assert replies[0]["ok"]
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 1
    conn.close()


@contextlib.contextmanager
def read_only_folder(folder: Path):
    """Make ``folder`` read-only for real: chmod for a normal user; as root (who ignores
    permissions) a tmpfs remounted read-only, when this machine allows mounting."""
    if os.geteuid() != 0:
        folder.chmod(0o555)
        try:
            yield
        finally:
            folder.chmod(0o755)
        return
    saved = {p.name: p.read_bytes() for p in folder.iterdir()}
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(folder)],
                      capture_output=True).returncode != 0:
        pytest.skip("running as root and cannot mount a tmpfs: no way to make a folder read-only")
    try:
        for name, content in saved.items():
            (folder / name).write_bytes(content)
        subprocess.run(["mount", "-o", "remount,ro", str(folder)], check=True)
        yield
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def test_a_read_only_folder_without_a_store(env, data: Path) -> None:
    with read_only_folder(data):
        out = lifeguard(env, "chat", "--jsonl", input="new game ann ben cid\n")
        assert_refused(out, data / STORE, "LIFEGUARD_DATA_DIR")
        out = lifeguard(env, "history")  # nothing to read: says so, creates nothing
        assert out.returncode == 0 and "No games yet" in out.stdout


def test_a_read_only_folder_with_a_store(env, data: Path) -> None:
    path = a_real_store(env, data)
    before = digest(path)
    with read_only_folder(data):
        out = lifeguard(env, "chat", "--jsonl", input="status\n")
        assert_refused(out, path, "read-only" if os.geteuid() == 0 else "LIFEGUARD_DATA_DIR")
        assert digest(path) == before
