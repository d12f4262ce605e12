"""Issue 35, the hostile re-test: every value another tool can write into the store.

Times, a status, a log's length and the store file's own name, each edited into a real SQLite
file with the ``sqlite3`` module: what is not what it must be is never written out as it is (an
export keeps its shape), a log longer than a game can be is refused after counting it, never
loaded, a store that is a second name of another file is refused as its side files are, and a
game is finished for BG Stats only when its replayed log says so.
"""

from __future__ import annotations

import json
import os
import sqlite3
import tracemalloc
from pathlib import Path

import pytest

from assistant.store import GameStore
from assistant.store.db import MAX_STORED_ENTRIES, MAX_STORED_TEXT, DamagedGame
from tests.store.conftest import chat_jsonl, game_lines, lifeguard, replayed_state

STORE = "lifeguard.sqlite3"
RAW = ("\x1b", "\x07", "\r", "\x85", "\u2028", "\u2029", "\u202e")
#: Times as another tool may write them: commands after a line break, an escape sequence,
#: not a time at all, a number, a date the calendar cannot convert.
HOSTILE_TIMES = [
    "2026-12-03T17:20:12+00:00\nundo\nundo\n# x",
    "2026-12-03T17:20:12+00:00\x1b]0;pwned\x07",
    "yesterday",
    12345,
    "0001-01-01T00:00:00+14:00",
]


def _export_is_a_command_file(text: str, lines: list[str]) -> None:
    """The exported text: a header of comments, then exactly the game's commands."""
    assert not any(ch in text for ch in RAW), text
    exported = text.splitlines()
    header = [line for line in exported if line.startswith("#")]
    assert exported[: len(header)] == header and 3 <= len(header) <= 4, exported[:6]
    commands = exported[len(header):]
    assert commands[0] == lines[0] and commands[1].endswith(" starts")
    assert commands[2:] == lines[1:]


@pytest.mark.parametrize("stamp", HOSTILE_TIMES, ids=range(len(HOSTILE_TIMES)))
def test_a_time_that_is_not_a_time_is_never_written_out(env, data: Path, stamp: object) -> None:
    lines = game_lines(3, players=3)[:12]  # unfinished: its last entry's time is its last
    chat_jsonl(env, lines)
    with sqlite3.connect(data / STORE) as conn:
        conn.execute("UPDATE entries SET at = ?", (stamp,))
    out = lifeguard(env, "export", "--format", "text")
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    _export_is_a_command_file(out.stdout, lines)
    assert "# last command" not in out.stdout  # no time known: the line is left out
    for args in (["status"], ["history"], ["export", "--format", "json"]):
        shown = lifeguard(env, *args)
        assert shown.returncode == 0 and not any(ch in shown.stdout for ch in RAW), (args, shown)
    # the export replays to the game and imports back, dated by its start
    exported = data.parent / "exported.txt"
    exported.write_text(out.stdout)
    replayed = lifeguard(env, "replay", str(exported), "--json")
    assert json.loads(replayed.stdout.splitlines()[-1]) == replayed_state(lines)
    other = dict(env, LIFEGUARD_DATA_DIR=str(data.parent / "other"))
    imported = lifeguard(other, "import", str(exported))
    assert imported.returncode == 0, imported.stderr
    assert ", played " in imported.stdout and "for 0 min" in imported.stdout


def test_a_sound_last_time_is_written_as_the_store_writes_times(env, data: Path) -> None:
    lines = game_lines(4, players=3)[:9]
    chat_jsonl(env, lines)
    with sqlite3.connect(data / STORE) as conn:
        conn.execute("UPDATE entries SET at = '2026-12-03T19:20:12+02:00'")
    out = lifeguard(env, "export", "--format", "text")
    assert "# last command 2026-12-03T17:20:12.000+00:00" in out.stdout.splitlines()
    _export_is_a_command_file(out.stdout, lines)


# ---------------------------------------------------------------------------- long logs
def _add_entries(path: Path, count: int, said: str = "") -> None:
    """``count`` more entries (undone: after the cursor) at the end of game 1's log."""
    with sqlite3.connect(path) as conn:
        start = conn.execute("SELECT count(*) FROM entries WHERE game_id = 1").fetchone()[0]
        conn.executemany(
            "INSERT INTO entries (game_id, seq, command, joined, at, said) VALUES (1, ?, ?, 0, ?, ?)",
            ((start + i, "undo", "2026-12-03T17:20:12.000+00:00", said) for i in range(count)))


def test_a_log_longer_than_a_game_is_counted_and_never_loaded(env, data: Path) -> None:
    lines = game_lines(5, players=3)[:6]
    chat_jsonl(env, lines)
    with sqlite3.connect(data / STORE) as conn:
        have = conn.execute("SELECT count(*) FROM entries").fetchone()[0]
    # at the bound, undone entries included: damaged (more commands than a game), and the
    # rescue it recommends works
    _add_entries(data / STORE, MAX_STORED_ENTRIES - have)
    out = lifeguard(env, "status")
    assert out.returncode == 2 and "'lifeguard export 1 --format json'" in out.stderr
    rescue = lifeguard(env, "export", "1", "--format", "json")
    assert rescue.returncode == 0, rescue.stderr
    assert len(json.loads(rescue.stdout)["entries"]) == MAX_STORED_ENTRIES
    # one past it: refused by counting, and nothing recommended that cannot work
    _add_entries(data / STORE, 1)
    for args in (["status"], ["export", "--format", "json"], ["export", "--format", "text"],
                 ["chat", "--jsonl"]):
        out = lifeguard(env, *args, input="")
        assert out.returncode == 2 and "Traceback" not in out.stderr, (args, out.stderr)
        assert f"its log holds {MAX_STORED_ENTRIES + 1:,} entries" in out.stderr, out.stderr
        assert "It is too long to be read or exported" in out.stderr
        assert "--format json' writes" not in out.stderr
    history = lifeguard(env, "history")
    assert history.returncode == 0 and "#1    damaged: " in history.stdout
    # set aside, play goes on in a new game
    out = lifeguard(env, "chat", "--jsonl", "--set-aside-damaged-game",
                    input="new game ann ben cid\n")
    assert out.returncode == 0 and "Game 1 is damaged: it was set aside" in out.stdout, out


def test_reading_a_huge_log_holds_memory_of_the_bound_only(env, data: Path) -> None:
    chat_jsonl(env, game_lines(6, players=3)[:4])
    _add_entries(data / STORE, 30 * MAX_STORED_ENTRIES)
    with GameStore.open(data, create=False, readonly=True) as store:
        tracemalloc.start()
        try:
            with pytest.raises(DamagedGame) as refused:
                store.entries(1)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert not refused.value.readable
    assert peak < 1_000_000, f"{peak:,} bytes held to refuse a log that is never loaded"


def test_a_log_of_more_text_than_a_game_is_refused_unread(env, data: Path) -> None:
    chat_jsonl(env, game_lines(7, players=3)[:4])
    _add_entries(data / STORE, 1, said="x" * MAX_STORED_TEXT)
    out = lifeguard(env, "export", "--format", "json")
    assert out.returncode == 2 and "It is too long to be read or exported" in out.stderr
    assert "characters" in out.stderr and "Traceback" not in out.stderr


# ---------------------------------------------------------------------------- hard link
def test_a_store_that_is_a_second_name_of_another_file_is_refused(env, data: Path,
                                                                   tmp_path: Path) -> None:
    chat_jsonl(env, game_lines(8, players=3)[:5])
    original = tmp_path / "orig.sqlite3"
    os.rename(data / STORE, original)
    for side in ("-wal", "-shm"):
        (data / (STORE + side)).unlink(missing_ok=True)
    os.link(original, data / STORE)
    before = original.read_bytes()
    for args in (["status"], ["history"], ["export", "--format", "text"], ["chat", "--jsonl"]):
        out = lifeguard(env, *args, input="undo\n")
        assert out.returncode == 2 and "Traceback" not in out.stderr, (args, out.stderr)
        assert "is a second name of another file (a hard link)" in out.stderr, (args, out.stderr)
        assert "nothing was read or changed" in out.stderr
    assert original.read_bytes() == before
    assert not (data / (STORE + "-wal")).exists()
    # moved aside on request: the other file keeps its name and its game
    out = lifeguard(env, "chat", "--jsonl", "--move-aside-bad-store", input="")
    assert out.returncode == 0, out.stderr
    assert original.read_bytes() == before and os.stat(original).st_nlink == 2


# ---------------------------------------------------------------------------- BG Stats
def test_bgstats_judges_a_game_finished_by_its_replayed_log(env, data: Path) -> None:
    lines = game_lines(9, players=3)
    chat_jsonl(env, lines[:10])
    with sqlite3.connect(data / STORE) as conn:
        conn.execute("UPDATE games SET status = 'finished', ended = started, winners = ?",
                     (json.dumps(["ann"]),))
    for form in ("bgstats", "bgstats-link"):
        out = lifeguard(env, "export", "--format", form)
        assert out.returncode == 2 and "Traceback" not in out.stderr
        assert "Game 1 is not finished: BG Stats takes finished plays only" in out.stderr, out.stderr
        assert "is finished" not in out.stderr
    # a whole game still marked unfinished (killed before its status was written) is finished
    chat_jsonl(dict(env, LIFEGUARD_DATA_DIR=str(data.parent / "whole")), lines)
    whole = data.parent / "whole" / STORE
    with sqlite3.connect(whole) as conn:
        conn.execute("UPDATE games SET status = 'unfinished', ended = NULL")
    out = lifeguard(dict(env, LIFEGUARD_DATA_DIR=str(whole.parent)), "export", "--format", "bgstats")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["plays"][0]["playerScores"]
