"""Issue 35: no file of the store is written through a symbolic link or a second name.

A link planted in the data folder (the lock file, the store, the files SQLite keeps beside it)
must never make Lifeguard write, truncate or create the file it points to: each is refused in a
sentence naming it, and the file pointed to keeps every byte. Moving a bad store aside renames
links, never what they point to.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from assistant.store.db import GameStore, StoreError, StoreErrorKind, move_aside
from tests.store.conftest import chat_jsonl, lifeguard

STORE = "lifeguard.sqlite3"
OPENING = ["new game alice bob carol", "alice starts", "row 1 giraffe"]
PRECIOUS = b"the user's own file: must keep every byte\n" * 50


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    """A file outside the data folder that a planted link points at."""
    path = tmp_path / "precious.txt"
    path.write_bytes(PRECIOUS)
    return path


def test_a_lock_file_that_is_a_link_or_a_hard_link_is_refused_and_its_target_kept(
    env, data: Path, victim: Path
) -> None:
    chat_jsonl(env, OPENING)
    lock = data / (STORE + ".lock")
    lock.unlink()
    lock.symlink_to(victim)
    out = lifeguard(env, "chat", "--jsonl", input="row 2 cat cat\n")
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
    assert f"The lock file {lock} is a symbolic link" in out.stderr
    assert "nothing was written, and the store itself is fine" in out.stderr
    assert victim.read_bytes() == PRECIOUS and lock.is_symlink()
    # a second name of the same file (a hard link) would be truncated just the same
    lock.unlink()
    os.link(victim, lock)
    out = lifeguard(env, "chat", "--jsonl", input="row 2 cat cat\n")
    assert out.returncode == 2 and "is a second name of another file (a hard link)" in out.stderr
    assert victim.read_bytes() == PRECIOUS
    # a dangling link is not followed to create its target either
    lock.unlink()
    lock.symlink_to(data.parent / "made-by-the-lock")
    with pytest.raises(StoreError) as refused:
        GameStore.open(data, lock=True)
    assert refused.value.kind is StoreErrorKind.LOCKED
    assert not (data.parent / "made-by-the-lock").exists()
    # once the link is gone the game goes on
    lock.unlink()
    assert chat_jsonl(env, ["row 2 cat cat"])[-1]["ok"]


@pytest.mark.parametrize("name", [STORE, STORE + "-wal", STORE + "-shm", STORE + "-journal"])
def test_the_store_and_the_files_beside_it_are_never_written_through_a_link(
    env, data: Path, victim: Path, name: str
) -> None:
    """SQLite opens its write-ahead log, its index and its journal by name and truncates them;
    a link in their place is refused by every subcommand before SQLite sees it."""
    if name != STORE:
        chat_jsonl(env, OPENING)
    planted = data / name
    if planted.exists():
        planted.unlink()
    planted.symlink_to(victim)
    for args in (["chat", "--jsonl"], ["status"], ["export"]):
        out = lifeguard(env, *args, input="row 2 cat cat\n")
        assert out.returncode == 2 and "Traceback" not in out.stderr, (args, out.stderr)
        assert f"{planted}" in out.stderr and "is a symbolic link" in out.stderr, out.stderr
        assert "nothing was read or changed" in out.stderr
        assert victim.read_bytes() == PRECIOUS, args
    # a dangling link: nothing is created where it points
    planted.unlink()
    nowhere = data.parent / "created-through-a-link"
    planted.symlink_to(nowhere)
    out = lifeguard(env, "chat", "--jsonl", input="new game ann ben cid\n")
    assert out.returncode == 2 and "is a symbolic link" in out.stderr
    assert not nowhere.exists()
    # asked to, the store is moved aside with the link (the link renamed, its target kept)
    out = lifeguard(env, "chat", "--jsonl", "--move-aside-bad-store", input="new game ann ben cid\n")
    assert out.returncode == 0, out.stderr
    assert not planted.is_symlink() and not nowhere.exists()
    moved = [p for p in data.iterdir() if p.name.startswith(STORE + ".bad-")]
    assert any(p.is_symlink() for p in moved), moved


def test_a_hard_linked_side_file_is_refused(data: Path, victim: Path) -> None:
    GameStore.open(data).close()
    wal = data / (STORE + "-wal")
    if wal.exists():
        wal.unlink()
    os.link(victim, wal)
    with pytest.raises(StoreError) as refused:
        GameStore.open(data, lock=True)
    assert "a second name of another file (a hard link)" in str(refused.value)
    with pytest.raises(StoreError):
        GameStore.open(data, readonly=True)
    assert victim.read_bytes() == PRECIOUS


def test_moving_aside_never_overwrites_a_name_taken_by_a_link(data: Path, victim: Path) -> None:
    store = data / STORE
    store.write_bytes(b"not a database at all" * 10)
    # the names it would take now (and in the next seconds) are dangling links: a rename onto
    # one would replace it; a new name is found and the links stay as they are
    now = datetime.now(UTC)
    links = [data / f"{STORE}.bad-{(now + timedelta(seconds=s)).strftime('%Y%m%dT%H%M%SZ')}"
             for s in range(3)]
    for link in links:
        link.symlink_to(victim.with_name("nowhere"))
    moved = move_aside(store)
    assert moved not in links and all(link.is_symlink() for link in links)
    assert moved.read_bytes() == b"not a database at all" * 10 and not store.exists()


def test_an_export_never_writes_through_a_link(env, data: Path, victim: Path, tmp_path: Path) -> None:
    """``export -o`` refuses a name a link holds; with ``--force`` the link itself is replaced
    by the exported file (a rename), and what it pointed to keeps every byte."""
    chat_jsonl(env, OPENING)
    link = tmp_path / "game.txt"
    link.symlink_to(victim)
    out = lifeguard(env, "export", "-o", str(link))
    assert out.returncode == 2 and "exists and was not changed" in out.stderr, out.stderr
    assert link.is_symlink() and victim.read_bytes() == PRECIOUS
    out = lifeguard(env, "export", "-o", str(link), "--force")
    assert out.returncode == 0, out.stderr
    assert not link.is_symlink() and link.read_text().startswith("# Lifeguard game 1")
    assert victim.read_bytes() == PRECIOUS
