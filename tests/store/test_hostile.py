"""Issue 10's fault table: hostile input through the real command line. Each row is an input,
the sentence it must get, and the promise that the store is unchanged, compared by
``lifeguard export --format text`` before and after. No row may print a traceback."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import struct
import subprocess
import sys
import time
import wave
from pathlib import Path

import pytest

from tests.store.conftest import chat_jsonl, lifeguard
from tests.store.test_faults import read_only_folder

STORE = "lifeguard.sqlite3"
OPENING = ["new game alice bob carol", "alice starts", "row 1 giraffe"]


@pytest.fixture
def store(env: dict[str, str], data: Path) -> Path:
    """A store with one unfinished game, rows being entered."""
    chat_jsonl(env, OPENING)
    return data / STORE


def exported(env: dict[str, str]) -> str:
    out = lifeguard(env, "export", "--format", "text")
    assert out.returncode == 0, out.stderr
    return out.stdout


def readable(line: str) -> str:
    """A JSON line with its escapes undone (to look for words), any other line as it is."""
    try:
        return json.dumps(json.loads(line), ensure_ascii=False)
    except ValueError:
        return line


def special_files(tmp_path: Path) -> dict[str, str]:
    fifo = tmp_path / "fifo"
    if not fifo.exists():
        os.mkfifo(fifo)
    big = tmp_path / "big.txt"
    if not big.exists():
        with open(big, "wb") as f:
            f.truncate(11 * 1024 * 1024)  # sparse: 11 MB on paper, nothing on disk
    deep = tmp_path / "deep.txt"
    deep.write_text("# house rules: " + "[" * 100_000 + "\nnew game ann ben cid\n")
    shallow = tmp_path / "shallow.txt"
    shallow.write_text("# house rules: " + "[" * 900 + "\nnew game ann ben cid\n")
    escape = tmp_path / "escape.txt"
    # JSON escapes: the house rules name a key with ESC, BEL and CSI, echoed in the refusal.
    escape.write_bytes(b'# house rules: {"\\u001b[31m\\u0007\\u009b": 1}\nnew game ann ben cid\n')
    cascade = tmp_path / "cascade.txt"
    cascade.write_text("new game ann ben cid\nann starts\nrow 1 pig pig\n" + "row 2 cat cat\n" * 60)
    twice = tmp_path / "twice.txt"
    twice.write_text('# house rules: {"lowest_tie_loses": 1}\n# house rules: {"lowest_tie_loses": 2}\n'
                     "new game ann ben cid\n")
    taken = tmp_path / "taken.txt"
    taken.write_text("precious\n")
    rate0 = tmp_path / "rate0.wav"
    with wave.open(str(rate0), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
        w.writeframes(b"\0\0" * 1600)
    raw = bytearray(rate0.read_bytes())
    raw[24:32] = struct.pack("<II", 0, 0)
    rate0.write_bytes(bytes(raw))
    return {"fifo": str(fifo), "big": str(big), "deep": str(deep), "shallow": str(shallow),
            "escape": str(escape), "cascade": str(cascade), "taken": str(taken), "twice": str(twice),
            "rate0": str(rate0)}


#: (id, arguments, standard input, expected exit status, words the output must hold)
FAULTS = [
    ("unicode digit", ["chat", "--jsonl"], "row 2 ³ cat\n", 0, ["Row 2 holds exactly 2 cards, you named 3."]),
    ("arabic digit", ["chat", "--jsonl"], "row ٩ pig\n", 0, ["There is no row 9"]),
    ("negative row", ["chat", "--jsonl"], "alice swaps -3 -2 dog 1 sheep\n", 0,
     ["There is no row -3"]),
    ("huge row", ["chat", "--jsonl"], "row 99999999999999999999 pig\n", 0,
     ["There is no row 99999999999999999999"]),
    ("decimal count", ["chat", "--jsonl"], "row 2 2.5 pig\n", 0,
     ["2.5 cards of one animal?"]),
    ("stale yes", ["chat", "--jsonl"], "yes\n", 0, ["Nothing to confirm."]),
    ("no without question", ["chat", "--jsonl"], "no\n", 0,
     ["To take back 'row 1 giraffe', say 'undo'."]),
    ("new game is a question", ["chat", "--jsonl"], "new game anne-marie o'brien zoë\nstatus\n",
     0, ["Anne-marie, O'brien and Zoë", "was not started."]),
    ("10 MB line", ["chat", "--jsonl"], "x" * 10_000_000 + "\nstatus\n", 0,
     ["longer than 1,000 characters", "Round 1"]),
    ("control characters", ["chat"], "\x1b[2J\x07 knocks\n", 0, ["I didn't understand"]),
    ("import a FIFO", ["import", "{fifo}"], "", 2, ["is a pipe (FIFO), not a file"]),
    ("import /dev/zero", ["import", "/dev/zero"], "", 2, ["is a device, not a file"]),
    ("import 11 MB", ["import", "{big}"], "", 2, ["Lifeguard reads at most 10,485,760"]),
    ("replay a FIFO", ["replay", "{fifo}"], "", 2, ["is a pipe (FIFO), not a file"]),
    ("replay /dev/zero", ["replay", "/dev/zero"], "", 2, ["is a device, not a file"]),
    ("config /dev/zero", ["--config", "/dev/zero", "replay", "-"], "", 2,
     ["is a device, not a file"]),
    ("config a FIFO", ["--config", "{fifo}", "chat"], "", 2, ["is a pipe (FIFO), not a file"]),
    ("deep house rules", ["import", "{deep}"], "", 1, ["line 1: That line is longer than"]),
    ("nested house rules", ["import", "{shallow}"], "", 1, ["house rules comment:"]),
    ("escaped import", ["import", "{escape}"], "", 1, ["\\x1b[31m\\x07\\x9b"]),
    ("house rules twice", ["import", "{twice}"], "", 1, ["two house rules comments"]),
    ("cascade", ["import", "{cascade}"], "", 1,
     ["line 3: Row 1 holds exactly 1 card", "The 60 lines after it were not checked"]),
    ("export overflow", ["export", "99999999999999999999999"], "", 2, ["There is no game"]),
    ("export over a file", ["export", "-o", "{taken}"], "", 2,
     ["exists and was not changed; add --force"]),
    ("hear rate 0", ["hear", "{rate0}", "--players", "ann", "ben", "cid"], "", 2,
     ["its sample rate is 0"]),
    ("hear a FIFO", ["hear", "{fifo}", "--players", "ann", "ben", "cid"], "", 2,
     ["is a pipe (FIFO), not a file"]),
]


@pytest.mark.parametrize(("args", "stdin", "status", "words"), [f[1:] for f in FAULTS],
                         ids=[f[0] for f in FAULTS])
def test_fault_table(env, store: Path, tmp_path: Path, args, stdin, status, words) -> None:
    files = special_files(tmp_path)
    before = exported(env)
    started = time.monotonic()
    out = lifeguard(env, *[a.format(**files) for a in args], input=stdin)
    assert time.monotonic() - started < 60
    said = "\n".join(readable(line) for line in out.stdout.splitlines()) + out.stderr
    assert out.returncode == status, said[-2000:]
    assert "Traceback" not in said and "\x1b" not in said and "\x07" not in said, said[-2000:]
    for word in words:
        assert word in said, said[-2000:]
    assert exported(env) == before
    assert Path(files["taken"]).read_text() == "precious\n"


def test_the_store_lock_is_not_taken_while_import_reads(env, store: Path, tmp_path: Path) -> None:
    """A FIFO is refused without waiting; the lock is free for a chat at once."""
    files = special_files(tmp_path)
    out = lifeguard(env, "import", files["fifo"])
    assert out.returncode == 2
    assert chat_jsonl(env, ["status"])[-1]["ok"]


@pytest.mark.parametrize("folder", ["too-long", "~nosuchuser-of-lifeguard/games"])
def test_a_data_folder_the_system_will_not_use_is_a_sentence(env, tmp_path: Path, folder: str) -> None:
    """A folder name longer than the system allows, or the home of an unknown user: one
    sentence and status 2 from every subcommand that opens the store, nothing created."""
    env["LIFEGUARD_DATA_DIR"] = str(tmp_path / ("b" * 300)) if folder == "too-long" else folder
    for args in (["status"], ["history"], ["stats"], ["export"], ["chat", "--jsonl"]):
        out = lifeguard(env, *args, input="status\n")
        assert out.returncode == 2, (args, out.stdout, out.stderr)
        assert out.stderr.startswith("lifeguard: ") and out.stderr.count("\n") == 1, out.stderr
        assert "LIFEGUARD_DATA_DIR" in out.stderr and "Traceback" not in out.stderr
    assert not Path("~nosuchuser-of-lifeguard").exists()


def test_a_fifo_store_and_a_folder_as_lock_are_named(env, data: Path) -> None:
    os.mkfifo(data / STORE)
    for args in (["status"], ["history"], ["chat", "--jsonl"], ["export"]):
        out = lifeguard(env, *args, input="status\n")
        assert out.returncode == 2 and "is a pipe (FIFO), not a file" in out.stderr, out.stderr
    (data / STORE).unlink()
    chat_jsonl(env, OPENING)
    before = exported(env)
    (data / (STORE + ".lock")).unlink()
    (data / (STORE + ".lock")).mkdir()
    out = lifeguard(env, "chat", "--jsonl", input="row 2 cat cat\n")
    assert out.returncode == 2
    assert "The lock file" in out.stderr and "the store itself is fine" in out.stderr
    assert exported(env) == before


def test_export_replaces_a_file_only_with_force_and_whole(env, store: Path, tmp_path: Path) -> None:
    target = tmp_path / "game.txt"
    target.write_text("old\n")
    out = lifeguard(env, "export", "-o", str(target), "--force")
    assert out.returncode == 0 and target.read_text() == exported(env)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".game.txt")] == []
    fresh = tmp_path / "new.txt"
    assert lifeguard(env, "export", "-o", str(fresh)).returncode == 0
    assert fresh.read_text() == exported(env)
    # an ordinary file, as the umask allows (the temporary file it was made as is 0600)
    mask = os.umask(0)
    os.umask(mask)
    assert fresh.stat().st_mode & 0o777 == 0o666 & ~mask


@pytest.mark.parametrize("args", [["chat", "--no-store"], ["chat", "--jsonl"], ["replay", "-"]])
def test_a_closed_input_is_read_as_empty(env, store: Path, args: list[str]) -> None:
    """Started with its standard input closed ('<&-'), a reader finds nothing to read."""
    out = subprocess.run([sys.executable, "-m", "assistant.cli", *args], capture_output=True,
                         text=True, env=env, timeout=60,
                         preexec_fn=lambda: os.close(0))  # noqa: PLW1509 - no threads here
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr


def test_export_on_a_full_disk_keeps_the_old_file(env, store: Path, tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to mount a tiny tmpfs")
    folder = tmp_path / "full"
    folder.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8k", "tmpfs", str(folder)],
                      capture_output=True).returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        target = folder / "game.txt"
        target.write_text("old content\n")
        (folder / "filler").write_bytes(b"x" * 4096)
        with open(folder / "filler2", "wb") as f:  # fill what is left
            try:
                f.write(b"x" * 65536)
            except OSError:
                pass
        out = lifeguard(env, "export", "--format", "json", "-o", str(target), "--force")
        assert out.returncode == 2 and "Cannot write" in out.stderr, out.stderr
        assert target.read_text() == "old content\n"
        assert [p.name for p in folder.iterdir() if p.name.startswith(".game")] == []
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


# --------------------------------------------------------------------------- damaged rows
DAMAGE = [
    ("players", "UPDATE games SET players = 'notjson' WHERE id = 1", "its players are not"),
    ("started", "UPDATE games SET started = 'yesterday' WHERE id = 1", "its start time"),
    ("cursor", "UPDATE games SET cursor = 999 WHERE id = 1", "its cursor 999 is past the end"),
    ("command", "UPDATE entries SET command = 'frobnicate' WHERE game_id = 1 AND seq = 2",
     "its log cannot be replayed"),
]


@pytest.mark.parametrize(("sql", "words"), [d[1:] for d in DAMAGE], ids=[d[0] for d in DAMAGE])
def test_a_damaged_row_is_a_sentence_and_the_other_games_stay_usable(
    env, data: Path, tmp_path: Path, sql: str, words: str
) -> None:
    chat_jsonl(env, OPENING)  # game 1, unfinished
    game2 = tmp_path / "game2.txt"
    game2.write_text("new game dan eve fay\ndan starts\n")
    assert lifeguard(env, "import", str(game2), "--abandon-current").returncode == 0  # game 2
    path = data / STORE
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE games SET status = 'unfinished' WHERE id = 1")
        conn.execute("UPDATE games SET status = 'abandoned' WHERE id = 2")
        conn.execute(sql)
    sentence = f"Game 1 in {path} is damaged ("
    for args in (["status"], ["export", "1"], ["chat", "--jsonl"], ["export", "1", "--format",
                                                                     "bgstats"]):
        out = lifeguard(env, *args, input="status\n")
        assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
        assert sentence in out.stderr and words in out.stderr, out.stderr
    history = lifeguard(env, "history")
    assert history.returncode == 0 and sentence in history.stdout and "#2" in history.stdout
    rows = json.loads(lifeguard(env, "history", "--json").stdout)
    assert [r["id"] for r in rows] == [2, 1] and "damaged" in rows[1]
    assert lifeguard(env, "stats").returncode == 0
    assert lifeguard(env, "export", "2").stdout.splitlines()[-1] == "dan starts"
    # json export rescues what is stored
    rescue = json.loads(lifeguard(env, "export", "1", "--format", "json").stdout)
    assert sentence in rescue["damaged"]
    assert [e["command"] for e in rescue["entries"]][:1] == ["new game alice bob carol"]
    # chat sets the damaged game aside and goes on
    out = lifeguard(env, "chat", "--jsonl", "--set-aside-damaged-game",
                    input="new game gus hal ivy\n")
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert "Game 1 is damaged: it was set aside" in lines[0]["greeting"][0]
    assert lines[-1]["ok"] and lines[-1]["command"] == "new game gus hal ivy"
    rows = json.loads(lifeguard(env, "history", "--json").stdout)
    assert rows[-1]["status"] == "abandoned"


def test_values_written_by_another_tool_are_shown_not_raised(env, data: Path) -> None:
    """Bytes where the log keeps text, and valid dates at the calendar's edges (written by
    another tool): the exports and history show them as they are, with no traceback."""
    chat_jsonl(env, OPENING)
    with sqlite3.connect(data / STORE) as conn:
        conn.execute("UPDATE entries SET said = x'ff00', at = x'31' WHERE seq = 2")
        conn.execute("UPDATE games SET started = '0001-01-01T00:00:00+14:00', "
                     "ended = '9999-12-31T23:59:59+00:00'")
    for args in (["export", "--format", "json"], ["history"],
                 ["history", "--json"], ["export", "--format", "text"], ["status"]):
        out = lifeguard(env, *args)
        assert out.returncode == 0 and "Traceback" not in out.stderr, (args, out.stderr)
    entries = json.loads(lifeguard(env, "export", "--format", "json").stdout)["entries"]
    assert (entries[2]["said"], entries[2]["at"]) == ("\ufffd\x00", "1")
    assert "0001-01-01" in lifeguard(env, "history").stdout


def test_a_status_written_around_the_schema_is_a_damaged_row(env, data: Path) -> None:
    from assistant.store import GameStatus, GameStore

    chat_jsonl(env, OPENING)
    with sqlite3.connect(data / STORE) as conn:
        conn.execute("PRAGMA ignore_check_constraints = ON")
        conn.execute("UPDATE games SET status = 'paused' WHERE id = 1")
    with GameStore.open(data, create=False, readonly=True) as store:
        row = store.game(1)
    assert row is not None and row.status is GameStatus.ABANDONED
    assert row.damage == "its status 'paused' is not one of unfinished, finished, abandoned"
    history = lifeguard(env, "history")
    assert history.returncode == 0 and f"Game 1 in {data / STORE} is damaged (" in history.stdout


def test_a_damaged_current_game_in_the_table_is_a_sentence(env, data: Path) -> None:
    from assistant.config import Settings
    from assistant.store.db import StoreError
    from assistant.store.session import open_session

    chat_jsonl(env, OPENING)
    with sqlite3.connect(data / STORE) as conn:
        conn.execute("UPDATE games SET players = 'notjson'")
    with pytest.raises(StoreError) as refused:
        open_session(Settings(), data)
    assert refused.value.kind == "damaged" and "--set-aside-damaged-game" in refused.value.message
    with open_session(Settings(), data, set_aside_damaged_game=True) as session:
        assert session.referee.game is None


# --------------------------------------------------------------------------- read-only
def test_a_read_only_store_can_be_read(env, data: Path) -> None:
    chat_jsonl(env, OPENING)
    before = exported(env)
    with read_only_folder(data):
        assert exported(env) == before
        for args in (["status"], ["history"], ["stats"], ["export", "--format", "json"]):
            out = lifeguard(env, *args)
            assert out.returncode == 0 and "Cannot write" not in out.stderr, out.stderr
        out = lifeguard(env, "chat", "--jsonl", input="status\n")
        assert out.returncode == 2 and "Traceback" not in out.stderr  # the writer refuses


# --------------------------------------------------------------------------- the smaller ones
def test_names_in_any_script_survive_an_ascii_terminal(env, data: Path) -> None:
    chat_jsonl(env, ["new game אבי Zoë bob"])
    ascii_env = dict(env, PYTHONIOENCODING="ascii")
    for args in (["history"], ["stats"], ["status"], ["export"]):
        out = lifeguard(ascii_env, *args)
        assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    assert "\\u05d0" in lifeguard(ascii_env, "status").stdout
    assert "Zoë" in lifeguard(env, "history").stdout  # shown as typed


@pytest.mark.parametrize(("sig", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_chat_stops_on_a_signal_with_one_line(env, data: Path, sig: int, status: int) -> None:
    chat_jsonl(env, OPENING)
    before = exported(env)
    # Ctrl+C as at a terminal: a suite started in the background by a shell (``make test &``)
    # ignores SIGINT, and a child inherits that (the chat then never saw the signal).
    process = subprocess.Popen([sys.executable, "-m", "assistant.cli", "chat", "--jsonl"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env=env,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert process.stdout is not None and process.stdin is not None
    process.stdin.write("status\n")
    process.stdin.flush()
    process.stdout.readline()  # the greeting
    process.stdout.readline()  # the answer: the chat waits for the next line now
    process.send_signal(sig)
    _, err = process.communicate(timeout=30)
    assert process.returncode == status
    assert err.strip() == "Stopped; the game is saved."
    assert exported(env) == before


def test_names_are_shown_as_typed_and_counted_as_one_player_in_any_case(
    env, data: Path, tmp_path: Path
) -> None:
    import re

    from tests.store.conftest import game_lines

    lines = game_lines(5)
    for name, spelling in (("first", "erin"), ("second", "ERIN")):
        path = tmp_path / f"{name}.txt"
        path.write_text("\n".join(re.sub(r"\berin\b", spelling, line) for line in lines) + "\n")
        # the same game in other capitals is a duplicate: the second copy is asked for
        again = ["--again"] if name == "second" else []
        assert lifeguard(env, "import", str(path), *again).returncode == 0
    rows = json.loads(lifeguard(env, "stats", "--json").stdout)
    erin = [r for r in rows if r["player"].casefold() == "erin"]
    assert len(erin) == 1 and erin[0]["games"] == 2 and erin[0]["player"] == "erin"
    history = json.loads(lifeguard(env, "history", "--json").stdout)
    assert history[0]["players"][0] == "ERIN" and history[1]["players"][0] == "erin"
    assert lifeguard(env, "export", "2").stdout.splitlines()[4].startswith("new game ERIN ")
