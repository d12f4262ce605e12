"""History, statistics, export (text, json, bgstats) and import, through the real command line."""

from __future__ import annotations

import json
import re
from pathlib import Path

from assistant.store import GameStore
from tests.store.conftest import chat_jsonl, game_lines, lifeguard, replayed_state


def finished_game(env, seed: int) -> list[str]:
    lines = game_lines(seed)
    replies = chat_jsonl(env, lines)
    assert all(r["ok"] for r in replies if "ok" in r)
    return lines


def test_text_export_replays_to_the_same_state(env, data: Path, tmp_path: Path) -> None:
    lines = game_lines(31)
    chat_jsonl(env, lines[:50] + ["undo", "undo"])  # undone lines are not part of the game
    out = tmp_path / "game.txt"
    assert lifeguard(env, "export", "--format", "text", "-o", str(out)).returncode == 0
    status = json.loads(lifeguard(env, "status", "--json").stdout)
    replay = lifeguard(env, "replay", str(out), "--json")
    assert replay.returncode == 0, replay.stderr
    assert json.loads(replay.stdout) == status == replayed_state(lines[:48])
    # and the rest of the game, then the finished game round trips too
    chat_jsonl(env, lines[48:])
    assert lifeguard(env, "export", "1", "-o", str(out), "--force").returncode == 0
    assert json.loads(lifeguard(env, "replay", str(out), "--json").stdout) == replayed_state(lines)


def test_import_of_an_export_gives_back_the_same_commands(env, data: Path, tmp_path: Path) -> None:
    finished_game(env, 32)
    first = tmp_path / "first.txt"
    lifeguard(env, "export", "1", "-o", str(first))
    out = lifeguard(env, "import", str(first), "--again")  # game 1 itself: a duplicate
    assert out.returncode == 0 and "Imported game 2" in out.stdout and "finished" in out.stdout
    second = tmp_path / "second.txt"
    lifeguard(env, "export", "2", "-o", str(second))
    body = lambda p: [x for x in p.read_text().splitlines() if not x.startswith("# Lifeguard game") and not x.startswith("# started")]  # noqa: E731
    assert body(first) == body(second)
    with GameStore.open(data) as store:
        one, two = store.game(1), store.game(2)
        assert one and two and two.status == "finished" and two.winners == one.winners
        assert [e.joined for e in store.entries(1)] == [e.joined for e in store.entries(2)]


def test_import_of_an_unfinished_game_makes_it_current(env, data: Path, tmp_path: Path) -> None:
    lines = game_lines(33)
    path = tmp_path / "half.txt"
    path.write_text("# half a game\n" + "\n".join(lines[:25]) + "\n")
    chat_jsonl(env, ["new game ann ben cid"])
    refused = lifeguard(env, "import", str(path))
    assert refused.returncode == 2 and "--abandon-current" in refused.stderr
    out = lifeguard(env, "import", str(path), "--abandon-current")
    assert out.returncode == 0, out.stderr
    replies = chat_jsonl(env, lines[25:])
    assert replies[0]["resumed"] and replies[0]["state"] == replayed_state(lines[:25])
    assert json.loads(lifeguard(env, "status", "--json").stdout) == replayed_state(lines)
    statuses = [g["status"] for g in json.loads(lifeguard(env, "history", "--json").stdout)]
    assert statuses == ["finished", "abandoned"]


def test_import_rejects_the_whole_file_naming_the_first_bad_line(env, data: Path, tmp_path: Path) -> None:
    lines = game_lines(34)[:20]
    bad = list(lines)
    bad[4] = "row 3 pig pig"  # row 3 needs 3 cards
    bad[9] = "zed swaps 2 bear dog"  # no such player
    bad.insert(12, "undo")  # not a game command
    bad.insert(15, "new game ann ben cid")  # a second game
    path = tmp_path / "bad.txt"
    path.write_text("\n".join(bad) + "\n")
    out = lifeguard(env, "import", str(path))
    assert out.returncode == 1 and "Traceback" not in out.stderr
    # The first refusal only: every later command depends on it (issue 10: one bad line
    # printed 60 cascading refusals).
    assert re.search(r"^  line 5: ", out.stderr, re.M), out.stderr
    assert not re.search(r"^  line (10|13|16): ", out.stderr, re.M), out.stderr
    assert f"The {len(bad) - 5} lines after it were not checked" in out.stderr
    assert "was not imported" in out.stderr
    assert json.loads(lifeguard(env, "history", "--json").stdout) == []
    missing = lifeguard(env, "import", str(tmp_path / "nope.txt"))
    assert missing.returncode == 2 and "nope.txt" in missing.stderr


def test_import_names_a_line_that_is_not_utf8_and_ignores_comments_in_any_encoding(
    env, data: Path, tmp_path: Path
) -> None:
    lines = game_lines(36)[:12]
    raw = [line.encode() for line in lines]
    raw.insert(0, "# partie de Zoë".encode("latin-1"))  # a comment in Latin-1 is fine
    raw[6] = "alice swaps 2 bear dog é".encode("latin-1")  # a command line is not
    path = tmp_path / "latin1.txt"
    path.write_bytes(b"\n".join(raw) + b"\n")
    out = lifeguard(env, "import", str(path))
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert "line 7: This line is not UTF-8 text; save the file as UTF-8." in out.stderr
    assert "line 1:" not in out.stderr
    assert json.loads(lifeguard(env, "history", "--json").stdout) == []
    binary = tmp_path / "binary.txt"
    binary.write_bytes(b"new game a b c\n\0\x01\x02\n")
    refused = lifeguard(env, "import", str(binary))
    assert refused.returncode == 2 and "is not a text file" in refused.stderr


def test_bgstats_export_has_the_fields_bg_stats_reads(env, data: Path) -> None:
    lines = finished_game(env, 35)
    out = lifeguard(env, "export", "--format", "bgstats")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    state = replayed_state(lines)
    assert [g["name"] for g in doc["games"]] == ["Life is Life"]
    (play,) = doc["plays"]
    assert play["gameRefId"] == doc["games"][0]["id"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", play["playDate"])
    assert isinstance(play["durationMin"], int) and play["durationMin"] >= 0
    names = {p["id"]: p["name"].lower() for p in doc["players"]}
    assert sorted(names.values()) == sorted(p["name"] for p in state["players"])
    scores = {names[s["playerRefId"]]: s for s in play["playerScores"]}
    assert set(scores) == set(names.values())
    assert {p for p, s in scores.items() if s["winner"]} == set(state["winners"])
    assert all(s["rank"] == 1 for p, s in scores.items() if p in state["winners"])
    assert all(s["rank"] > 1 for p, s in scores.items() if p not in state["winners"])
    # the last out ranks before the first out
    order = [p for p in state["out_order"] if p not in state["winners"]]
    assert scores[order[-1]]["rank"] <= scores[order[0]]["rank"]
    starters = [p for p, s in scores.items() if s["startPlayer"]]
    assert len(starters) == 1
    first_start = [line.split()[0] for line in lines[:3] if line.endswith(" starts")][-1]
    assert starters == [first_start]


def test_bgstats_export_refuses_an_unfinished_game(env, data: Path) -> None:
    chat_jsonl(env, game_lines(36)[:10])
    out = lifeguard(env, "export", "--format", "bgstats")
    assert out.returncode == 2 and "finished plays only" in out.stderr


def test_json_export_keeps_undone_entries_and_what_was_said(env, data: Path) -> None:
    lines = game_lines(37)
    chat_jsonl(env, lines[:12] + ["undo"])
    doc = json.loads(lifeguard(env, "export", "--format", "json").stdout)
    assert doc["game"]["status"] == "unfinished" and doc["game"]["players"] == lines[0].split()[2:]
    entries = doc["entries"]
    assert entries[-1]["undone"] and entries[-1]["command"] == lines[11]
    assert not any(e["undone"] for e in entries[:-1])
    assert entries[0]["said"].startswith("New game")
    assert doc["state"] == replayed_state(lines[:11])


def test_history_and_stats(env, data: Path) -> None:
    a = finished_game(env, 40)
    b = finished_game(env, 41)
    chat_jsonl(env, game_lines(42)[:6])  # an unfinished game: in history, not in stats
    rows = json.loads(lifeguard(env, "history", "--json").stdout)
    assert [r["status"] for r in rows] == ["unfinished", "finished", "finished"]
    assert [r["id"] for r in rows] == [3, 2, 1]
    assert rows[1]["winners"] == replayed_state(b)["winners"]
    assert rows[2]["players"] == a[0].split()[2:]
    assert rows[2]["rounds"] == replayed_state(a)["round"]
    text = lifeguard(env, "history").stdout
    assert text.splitlines()[0].startswith("#3")
    stats = {s["player"]: s for s in json.loads(lifeguard(env, "stats", "--json").stdout)}
    games = [replayed_state(a), replayed_state(b)]
    for name, s in stats.items():
        played = [g for g in games if name in [p["name"] for p in g["players"]]]
        assert s["games"] == len(played)
        assert s["wins"] == sum(name in g["winners"] for g in played)
        assert 1 <= s["average_place"] <= 5
        assert 0 <= s["lives_lost_per_round"] <= 2
    assert set(stats) == {p["name"] for g in games for p in g["players"]}
    assert lifeguard(env, "stats").stdout.startswith("player")


def test_readers_on_an_empty_data_folder_create_nothing(env, data: Path) -> None:
    assert lifeguard(env, "history").stdout.strip() == "No games yet."
    assert json.loads(lifeguard(env, "stats", "--json").stdout) == []
    assert json.loads(lifeguard(env, "status", "--json").stdout)["phase"] == "no_game"
    out = lifeguard(env, "export")
    assert out.returncode == 2 and "No games yet" in out.stderr
    assert list(data.iterdir()) == []


def test_export_carries_the_house_rules_back_into_import(env, data: Path, tmp_path: Path) -> None:
    config = tmp_path / "rules.toml"
    config.write_text("[rules]\nlowest_tie_loses = 1\nall_equal = \"everyone_loses_1\"\n")
    import random

    from assistant.commands import canonical
    from engine.rules import HouseRules
    from engine.simulate import simulate_game

    rules = HouseRules(lowest_tie_loses=1, all_equal="everyone_loses_1")
    lines = [canonical(a) for a in simulate_game(random.Random(38), rules=rules)]
    out = lifeguard(env, "--config", str(config), "chat", "--jsonl",
                    input="".join(line + "\n" for line in lines))
    assert out.returncode == 0 and '"ok": false' not in out.stdout, out.stderr
    played = json.loads(lifeguard(env, "status", "--json").stdout)
    assert played["rules"]["lowest_tie_loses"] == 1
    path = tmp_path / "game.txt"
    lifeguard(env, "export", "-o", str(path))
    assert lifeguard(env, "import", str(path), "--again").returncode == 0  # default rules configured
    imported = json.loads(lifeguard(env, "export", "2", "--format", "json").stdout)
    assert imported["game"]["rules"] == played["rules"]
    assert imported["state"] == played


def test_no_store_and_replay_write_nothing(env, data: Path, tmp_path: Path) -> None:
    replies = [json.loads(x) for x in lifeguard(
        env, "chat", "--jsonl", "--no-store", input="new game ann ben cid\n").stdout.splitlines()]
    assert replies[0]["ok"]
    path = tmp_path / "g.txt"
    path.write_text("\n".join(game_lines(39)) + "\n")
    assert lifeguard(env, "replay", str(path), "--json").returncode == 0
    assert list(data.iterdir()) == []
    usage = lifeguard(env, "--help").stdout
    for command in ("status", "history", "stats", "export", "import"):
        assert command in usage


#: Carol claims five sudden deaths: Alice and Bob go out together in round 5.
SHARED_SECOND = ["new game alice bob carol", *["carol has all cats", "carol has all pigs"] * 2,
                 "carol has all rabbits"]
SHARED_PLACES = [{"name": "carol", "place": 1}, {"name": "alice", "place": 2},
                 {"name": "bob", "place": 2}]


def test_places_are_the_same_in_replay_status_history_and_stats(env, data: Path, tmp_path: Path) -> None:
    """Standard competition ranking everywhere (engine.game.places): winners 1, two players
    out in the same round share 2nd."""
    path = tmp_path / "shared.txt"
    path.write_text("\n".join(SHARED_SECOND) + "\n")
    assert json.loads(lifeguard(env, "replay", str(path), "--json").stdout)["places"] == SHARED_PLACES
    replies = chat_jsonl(env, SHARED_SECOND)
    assert all(r["ok"] for r in replies if "ok" in r)
    assert json.loads(lifeguard(env, "status", "--json").stdout)["places"] == SHARED_PLACES
    chat_jsonl(env, ["new game ann ben cid"])  # unfinished: no places yet
    rows = json.loads(lifeguard(env, "history", "--json").stdout)
    assert "places" not in rows[0]
    assert rows[1]["places"] == SHARED_PLACES
    stats = {s["player"]: s for s in json.loads(lifeguard(env, "stats", "--json").stdout)}
    assert stats["alice"]["average_place"] == stats["bob"]["average_place"] == 2.0
    assert stats["carol"]["average_place"] == 1.0
