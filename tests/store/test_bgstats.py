"""The BG Stats file and link, through the real command line: every key the app's known writers
include (a Board Game Arena importer, a lichess importer, the app's own export), with their
types, and the "create play" link decoded back to the play."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from assistant.store import GameStore
from tests.store.conftest import chat_jsonl, game_lines, lifeguard, replayed_state

LOCAL_TIME = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d")

#: key -> type, as those writers give them (``playImages`` is the string "[]", not a list).
TOP = {"games": list, "players": list, "locations": list, "plays": list, "challenges": list,
       "userInfo": dict}
GAME = {"id": int, "name": str, "uuid": str, "bggId": int, "bggYear": int, "modificationDate": str,
        "cooperative": bool, "highestWins": bool, "noPoints": bool, "usesTeams": bool}
PLAYER = {"id": int, "name": str, "uuid": str, "isAnonymous": bool, "modificationDate": str,
          "bggUsername": str}
PLAY = {"uuid": str, "gameRefId": int, "playDate": str, "entryDate": str, "modificationDate": str,
        "durationMin": int, "rounds": int, "ignored": bool, "manualWinner": bool,
        "usesTeams": bool, "rating": int, "scoringSetting": int, "playImages": str, "bggId": int,
        "nemestatsId": int, "comments": str, "playerScores": list}
SCORE = {"playerRefId": int, "rank": int, "winner": bool, "startPlayer": bool, "newPlayer": bool,
         "seatOrder": int, "score": str}


def finished(env, seed: int) -> list[str]:
    lines = game_lines(seed)
    assert all(r["ok"] for r in chat_jsonl(env, lines) if "ok" in r)
    return lines


def has_keys(obj: dict, spec: dict[str, type]) -> None:
    missing = set(spec) - set(obj)
    assert not missing, f"missing keys: {sorted(missing)}"
    for key, kind in spec.items():
        # bool is an int in Python: an int key must not be given as true/false, nor the reverse
        assert type(obj[key]) is kind, (key, obj[key])


def bgstats(env, *args: str) -> dict:
    out = lifeguard(env, "export", "--format", "bgstats", *args)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_every_key_the_known_writers_include_with_their_types(env, data: Path) -> None:
    finished(env, 41)
    doc = bgstats(env)
    has_keys(doc, TOP)
    assert doc["challenges"] == []
    assert doc["userInfo"] == {"meRefId": 0}  # no --me: none of the players is the app's user
    (game,) = doc["games"]
    has_keys(game, GAME)
    assert game["bggId"] == 0 and game["bggYear"] == 0
    for player in doc["players"]:
        has_keys(player, PLAYER)
        assert player["bggUsername"] == ""
        assert LOCAL_TIME.fullmatch(player["modificationDate"])
    (play,) = doc["plays"]
    has_keys(play, PLAY)
    assert play["playImages"] == "[]" and json.loads(play["playImages"]) == []
    assert play["rating"] == 0 and play["scoringSetting"] == 0
    assert play["bggId"] == 0 and play["nemestatsId"] == 0
    for key in ("playDate", "entryDate", "modificationDate"):
        assert LOCAL_TIME.fullmatch(play[key]), key
    # entered when the game ended: never before it was played
    assert play["playDate"] <= play["entryDate"] == play["modificationDate"]
    assert game["modificationDate"] == play["modificationDate"]
    ids = {p["id"] for p in doc["players"]}
    for score in play["playerScores"]:
        has_keys(score, SCORE)
        assert score["playerRefId"] in ids
    assert play["gameRefId"] == game["id"]


def test_me_names_the_app_user_among_the_players(env, data: Path) -> None:
    lines = finished(env, 42)
    names = [p["name"] for p in replayed_state(lines)["players"]]
    doc = bgstats(env, "--me", names[1].upper())  # names are compared as the table does
    (me,) = [p for p in doc["players"] if p["id"] == doc["userInfo"]["meRefId"]]
    assert me["name"].lower() == names[1]
    refused = lifeguard(env, "export", "--format", "bgstats", "--me", "nobody")
    assert refused.returncode == 2
    assert "nobody did not play game 1" in refused.stderr and "Traceback" not in refused.stderr


def link_data(link: str) -> dict:
    parts = urlsplit(link)
    assert (parts.scheme, parts.netloc, parts.path) == ("https", "app.bgstatsapp.com",
                                                        "/createPlay.html")
    (data,) = parse_qs(parts.query, strict_parsing=True)["data"]
    return json.loads(data)


def test_the_create_play_link_carries_the_play(env, data: Path) -> None:
    lines = finished(env, 43)
    state = replayed_state(lines)
    out = lifeguard(env, "export", "--format", "bgstats-link")
    assert out.returncode == 0, out.stderr
    link = out.stdout.strip()
    assert "\n" not in link and " " not in link  # one line, every special character escaped
    play = link_data(link)
    doc = bgstats(env)
    assert play["sourceName"] == "Lifeguard"
    assert play["sourcePlayId"] == doc["plays"][0]["uuid"]  # the file and the link are one play
    assert play["game"]["name"] == "Life is Life"
    for key in ("highestWins", "noPoints", "cooperative", "usesTeams"):
        assert type(play["game"][key]) is bool, key
    for key in ("ignored", "manualWinner", "usesTeams"):
        assert type(play[key]) is bool, key
    # UTC, said so: the game's start as stored
    with GameStore.open(data, create=False) as store:
        started = store.latest_game().started
    assert play["playDate"] == datetime.fromisoformat(started).astimezone(UTC).strftime(
        "%Y-%m-%dT%H:%M:%SZ")
    names = {p["name"].lower(): p for p in play["players"]}
    assert set(names) == {p["name"] for p in state["players"]}
    for name, p in names.items():
        assert type(p["winner"]) is bool and type(p["startPlayer"]) is bool
        assert type(p["newPlayer"]) is bool
        assert p["winner"] == (name in state["winners"])
        assert p["score"] == str(next(q["lives"] for q in state["players"] if q["name"] == name))
    assert sum(p["startPlayer"] for p in play["players"]) == 1


@pytest.mark.parametrize("form", ["bgstats", "bgstats-link"])
def test_an_unfinished_game_is_refused_in_both_forms(env, data: Path, form: str) -> None:
    chat_jsonl(env, game_lines(44)[:10])
    out = lifeguard(env, "export", "--format", form)
    assert out.returncode == 2 and "finished plays only" in out.stderr
    assert out.stdout == ""
