"""An imported game keeps when it was played (the export's '# started' and '# last command'
comments), a wrong time is refused in a sentence, and a game the store holds already is refused
unless asked for with --again: through the real command line, on real SQLite files."""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime
from pathlib import Path

import pytest

from tests.store.conftest import chat_jsonl, game_lines, lifeguard

STARTED = "2026-11-20T19:00:00.000+00:00"
ENDED = "2026-11-20T19:42:00.000+00:00"
#: A short finished game naming no start player (one is drawn by lot at each import).
CLAIMS = ["new game alice bob carol", *["carol has all cats", "carol has all pigs"] * 2,
          "carol has all rabbits"]


def instant(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp)


def played_long_ago(env: dict[str, str], data: Path, seed: int) -> None:
    """A finished game played through chat, then dated 19:00 to 19:42 on 20 November."""
    replies = chat_jsonl(env, game_lines(seed))
    assert all(r["ok"] for r in replies if "ok" in r)
    with sqlite3.connect(data / "lifeguard.sqlite3") as conn:
        conn.execute("UPDATE games SET started = ?, ended = ?", (STARTED, ENDED))
        conn.execute("UPDATE entries SET at = ?", (ENDED,))
    conn.close()


def elsewhere(env: dict[str, str], tmp_path: Path) -> dict[str, str]:
    """The same person's other machine: another data folder."""
    other = dict(env)
    other["LIFEGUARD_DATA_DIR"] = str(tmp_path / "other")
    return other


def test_an_imported_game_keeps_its_date_and_duration(env, data: Path, tmp_path: Path) -> None:
    played_long_ago(env, data, 50)
    path = tmp_path / "game.txt"
    assert lifeguard(env, "export", "1", "-o", str(path)).returncode == 0
    header = path.read_text().splitlines()
    assert f"# started {STARTED}; finished" in "\n".join(header)
    assert f"# last command {ENDED}" in header

    other = elsewhere(env, tmp_path)
    out = lifeguard(other, "import", str(path))
    assert out.returncode == 0, out.stderr
    assert "for 42 min" in out.stdout
    (here,) = json.loads(lifeguard(env, "history", "--json").stdout)
    (there,) = json.loads(lifeguard(other, "history", "--json").stdout)
    assert instant(there["date"]) == instant(STARTED) == instant(here["date"])
    assert there["duration_min"] == here["duration_min"] == 42
    assert there["source"] == "imported"
    assert " 42 min " in lifeguard(other, "history").stdout
    plays = [json.loads(lifeguard(e, "export", "1", "--format", "bgstats").stdout)["plays"][0]
             for e in (env, other)]
    assert plays[0]["playDate"] == plays[1]["playDate"]
    assert plays[1]["durationMin"] == 42
    entries = json.loads(lifeguard(other, "export", "1", "--format", "json").stdout)["entries"]
    assert instant(entries[0]["at"]) == instant(STARTED)
    assert {instant(e["at"]) for e in entries[1:]} == {instant(ENDED)}


def test_the_same_game_twice_is_refused_unless_asked_for(env, data: Path, tmp_path: Path) -> None:
    played_long_ago(env, data, 51)
    path = tmp_path / "game.txt"
    lifeguard(env, "export", "1", "-o", str(path))
    # where it was played, its export is the game itself
    refused = lifeguard(env, "import", str(path))
    assert refused.returncode == 1 and "Traceback" not in refused.stderr
    assert "was not imported" in refused.stderr and "already as game 1" in refused.stderr
    assert "--again" in refused.stderr and "count it twice" in refused.stderr
    other = elsewhere(env, tmp_path)
    assert lifeguard(other, "import", str(path)).returncode == 0
    again = lifeguard(other, "import", str(path))
    assert again.returncode == 1 and "already as game 1" in again.stderr
    assert len(json.loads(lifeguard(other, "history", "--json").stdout)) == 1
    assert {s["games"] for s in json.loads(lifeguard(other, "stats", "--json").stdout)} == {1}
    # asked for explicitly: a second copy
    forced = lifeguard(other, "import", str(path), "--again")
    assert forced.returncode == 0 and "Imported game 2" in forced.stdout
    assert {s["games"] for s in json.loads(lifeguard(other, "stats", "--json").stdout)} == {2}
    # another start time is another game
    text = path.read_text().replace(f"# started {STARTED}", "# started 2026-11-21T19:00Z")
    text = text.replace(f"# last command {ENDED}", "# last command 2026-11-21T19:30Z")
    path.write_text(text)
    assert lifeguard(other, "import", str(path)).returncode == 0
    assert "--again" in lifeguard(other, "import", "--help").stdout


def test_a_file_without_times_is_dated_now_and_refused_the_second_time(
    env, data: Path, tmp_path: Path
) -> None:
    path = tmp_path / "claims.txt"
    path.write_text("\n".join(CLAIMS) + "\n")
    before = datetime.now().astimezone()
    first = lifeguard(env, "import", str(path))
    assert first.returncode == 0 and "played" not in first.stdout
    (row,) = json.loads(lifeguard(env, "history", "--json").stdout)
    assert instant(row["date"]) >= before
    # the start player is drawn by lot again, and the game is still the same game
    for _ in range(3):
        second = lifeguard(env, "import", str(path))
        assert second.returncode == 1 and "already as game 1" in second.stderr
    # an unfinished game too: named as a duplicate, not as a second unfinished game
    half = tmp_path / "half.txt"
    half.write_text("\n".join(game_lines(52)[:9]) + "\n")
    assert lifeguard(env, "import", str(half)).returncode == 0
    again = lifeguard(env, "import", str(half))
    assert again.returncode == 1 and "already as game 2" in again.stderr


def test_times_written_by_hand_are_this_machines_local_time(env, data: Path, tmp_path: Path) -> None:
    env = dict(env, TZ="LGT-2")  # two hours east of UTC (a POSIX zone: no tz database needed)
    path = tmp_path / "claims.txt"
    path.write_text("# started 2026-11-20 19:00\n# last command 2026-11-20 19:25\n"
                    + "\n".join(CLAIMS) + "\n")
    out = lifeguard(env, "import", str(path))
    assert out.returncode == 0, out.stderr
    assert "played 2026-11-20 19:00 for 25 min" in out.stdout
    (row,) = json.loads(lifeguard(env, "history", "--json").stdout)
    assert instant(row["date"]) == instant("2026-11-20T17:00:00+00:00")
    assert row["duration_min"] == 25
    assert "2026-11-20 19:00" in lifeguard(env, "history").stdout


@pytest.mark.parametrize(("header", "said"), [
    ("# started yesterday evening", "the start time is not a date"),
    ("# started", "the start time is not a date"),
    ("# started 2999-01-01 20:00", "the start time is in the future"),
    ("# started 1850-01-01", "the start time is before 1970"),
    ("# started 0001-01-01T00:00:00+14:00", "the start time is before 1970"),
    ("# last command 9999-12-31T23:59:59", "the last command's time is in the future"),
    ("# started 2026-11-20 19:00\n# last command 2026-11-20 18:00",
     "'# last command 2026-11-20 18:00' is before '# started 2026-11-20 19:00'"),
    ("# started 2026-11-20 19:00\n# started 2026-11-21 19:00", "two '# started' comments"),
], ids=["words", "empty", "future", "1850", "year 1", "year 9999", "backwards", "twice"])
def test_a_wrong_time_is_refused_in_a_sentence_and_nothing_is_written(
    env, data: Path, tmp_path: Path, header: str, said: str
) -> None:
    path = tmp_path / "game.txt"
    path.write_text(header + "\n" + "\n".join(CLAIMS) + "\n")
    out = lifeguard(env, "import", str(path))
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert "was not imported" in out.stderr and said in out.stderr
    assert "delete" in out.stderr  # what to do
    assert list(data.iterdir()) == []


def test_the_same_game_with_its_names_in_other_capitals_is_the_same_game(
    env, data: Path, tmp_path: Path
) -> None:
    """'Carol' and 'CAROL' are one player to the game and to stats: a copy of the file with its
    names in other capitals is refused as the game it is (it was imported as a second game,
    and stats counted it twice)."""
    path = tmp_path / "claims.txt"
    path.write_text("\n".join(CLAIMS) + "\n")
    assert lifeguard(env, "import", str(path)).returncode == 0
    shouted = tmp_path / "shouted.txt"
    shouted.write_text(path.read_text().replace("alice", "ALICE").replace("carol", "Carol"))
    again = lifeguard(env, "import", str(shouted))
    assert again.returncode == 1 and "already as game 1" in again.stderr, again.stderr
    assert {s["games"] for s in json.loads(lifeguard(env, "stats", "--json").stdout)} == {1}


def test_a_json_export_given_to_import_is_named_for_what_it_is(env, data: Path, tmp_path: Path) -> None:
    """The JSON export given to import: a sentence that says so and what import reads, not
    'line 1: Say a command, or 'help' to hear them'."""
    played_long_ago(env, data, 53)
    for form in ("json", "bgstats"):
        path = tmp_path / f"game.{form}"
        assert lifeguard(env, "export", "1", "--format", form, "-o", str(path)).returncode == 0
        refused = lifeguard(elsewhere(env, tmp_path), "import", str(path))
        assert refused.returncode == 1 and "Traceback" not in refused.stderr
        assert "this is a JSON file" in refused.stderr and "--format text" in refused.stderr
        assert "Say a command" not in refused.stderr
