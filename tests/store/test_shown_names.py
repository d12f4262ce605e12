"""Issue 35: what another tool wrote into the store is shown as typed input is, never raw.

Names, winners and commands edited into the file with escape sequences, a bell, a bidi
override or a line break: ``status``, ``history``, ``stats`` and ``export`` print them escaped
(``printable``), and the exported command file keeps its shape (a header of comments, then one
command a line), so it still replays to the same game and a name can never become a command.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from tests.store.conftest import chat_jsonl, game_lines, lifeguard, replayed_state

STORE = "lifeguard.sqlite3"
#: What must never reach a terminal or a file from the store: ESC, BEL, CR, LF inside a line,
#: NEL, the line and paragraph separators, a right-to-left override.
RAW = ("\x1b", "\x07", "\r", "\x85", "\u2028", "\u2029", "\u202e")
HOSTILE_NAMES = ["ann\x1b]0;pwned\x07", "ben\nnew game eve fay gil\nrow 1 cat", "cid\u202eevil\r"]


def test_names_and_commands_edited_into_the_store_are_shown_escaped(env, data: Path) -> None:
    lines = game_lines(3, players=3)
    chat_jsonl(env, lines)
    with sqlite3.connect(data / STORE) as conn:
        conn.execute("UPDATE games SET players = ?, winners = ?",
                     (json.dumps(HOSTILE_NAMES), json.dumps(HOSTILE_NAMES[1:2])))
        # the parser reads past these characters, so the game still replays: the text must not
        # go out as it is stored
        for seq, command in conn.execute("SELECT seq, command FROM entries").fetchall():
            conn.execute("UPDATE entries SET command = ? WHERE seq = ?",
                         (command + "\r\x1b\u202e", seq))
    outputs = {}
    for args in (["status"], ["history"], ["stats"], ["export", "--format", "text"],
                 ["export", "--format", "json"], ["history", "--json"]):
        out = lifeguard(env, *args)
        assert out.returncode == 0 and "Traceback" not in out.stderr, (args, out.stderr)
        assert not any(ch in out.stdout for ch in RAW), (args, out.stdout)
        outputs[" ".join(args)] = out.stdout
    assert "Ann\\x1b]0;pwned\\x07, Ben\\nnew game eve fay gil\\nrow 1 cat and Cid\\u202eevil\\r" \
        in outputs["status"]
    history = outputs["history"].splitlines()
    assert len(history) == 1 and "winner: Ben\\nnew game eve fay gil\\nrow 1 cat" in history[0]
    # the export: a header of comments, then the game's commands exactly as canonical text
    exported = outputs["export --format text"].splitlines()
    header = [line for line in exported if line.startswith("#")]
    assert exported[:4] == header
    assert header[0].endswith(": Ann\\x1b]0;pwned\\x07, Ben\\nnew game eve fay gil\\nrow 1 cat, "
                              "Cid\\u202eevil\\r")
    # the referee's drawn start player follows 'new game'; then the game's lines as typed
    assert exported[4] == lines[0] and exported[5].endswith(" starts") and exported[6:] == lines[1:]
    replay = data.parent / "exported.txt"
    replay.write_text(outputs["export --format text"])
    out = lifeguard(env, "replay", str(replay), "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.splitlines()[-1]) == replayed_state(lines)
    # JSON writes the stored values too, escaped by JSON itself
    stored = json.loads(outputs["export --format json"])
    assert stored["game"]["players"] == HOSTILE_NAMES
    assert stored["entries"][0]["command"].endswith("\r\x1b\u202e")



def test_what_a_foreign_database_holds_is_named_escaped(env, data: Path) -> None:
    """The tables of another program's database are named in the refusal: escaped, for the
    terminal (``chat``) and for the table and the web view, which show the same message."""
    from assistant.store import GameStore, StoreError

    with sqlite3.connect(data / STORE) as conn:
        conn.execute('CREATE TABLE "notes\x1b]0;pwned\x07\nrow 1 cat" (x)')
    out = lifeguard(env, "chat", "--jsonl", input="new game ann ben cid\n")
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "it has tables notes\\x1b]0;pwned\\x07\\nrow 1 cat" in out.stderr, out.stderr
    assert not any(ch in out.stderr for ch in RAW) and out.stderr.count("\n") == 1
    try:
        GameStore.open(data)
    except StoreError as err:
        assert not any(ch in str(err) for ch in RAW)
    else:
        raise AssertionError("a foreign database was opened")


def test_the_store_path_is_shown_escaped_by_status(tmp_path: Path, env: dict[str, str]) -> None:
    """A data folder whose name holds terminal escapes (it comes from the environment): status
    shows it escaped, with and without a game, as chat and export do."""
    folder = tmp_path / "x\x01\x1b[31mred"
    shown = dict(env, LIFEGUARD_DATA_DIR=str(folder))
    empty = lifeguard(shown, "status")
    assert empty.returncode == 0 and "\x1b" not in empty.stdout and "\\x1b[31mred" in empty.stdout
    chat_jsonl(shown, ["new game ann ben cid"])
    under_way = lifeguard(shown, "status")
    assert under_way.returncode == 0 and "\x1b" not in under_way.stdout
    assert "\\x1b[31mred" in under_way.stdout
