"""``lifeguard serve`` as a phone sees it: a real server process on loopback, a real HTTP client.

The token, GET only, the headers (CSP, no CORS), escaping of hostile text written into the store
directly, events after commands of a real ``chat`` process, and a restart on the same store.
"""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys
import time
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.web.conftest import RIGHT, EventReader, Served, game_lines, play

PATHS = ("/", "/state.json", "/events", "/table.css", "/table.js")


def state(served: Served) -> dict:
    status, headers, body = served.get("/state.json")
    assert status == 200 and headers["content-type"].startswith("application/json")
    return json.loads(body)


# --------------------------------------------------------------------------- the link
def test_the_first_line_is_the_link_and_every_start_has_its_own_token(serve, data: Path) -> None:
    one, two = serve(), serve()
    for served in (one, two):
        assert served.first_line == f"Serving the table at {served.url}"
        assert served.host == "127.0.0.1"  # this computer only, without --lan
        assert len(served.token) >= 16
    assert one.token != two.token and one.port != two.port


def test_without_the_token_every_path_is_404(serve, data: Path) -> None:
    play(data, game_lines(1)[:6])
    served = serve()
    answers = set()
    for path in (*PATHS, "/favicon.ico", "/nothing", "/state.json/"):
        for token in (None, "", served.token[:-1], served.token + "x", served.token.upper(),
                      "%00" + served.token):
            status, headers, body = served.get(path, token=token)
            assert status == 404, (path, token, status)
            assert served.token.encode() not in body
            assert b"players" not in body
            answers.add((headers["content-type"], body))
    # one page for every address and every wrong token (nothing about either): it says what to do
    assert len(answers) == 1
    content_type, body = answers.pop()
    assert content_type == "text/html; charset=utf-8"
    page = body.decode()
    assert '<meta name="viewport"' in page  # read at a phone's size, not as a tiny desktop page
    assert "scan the QR code on the table's screen" in page and "open the link" in page
    assert "Not found" not in page and "<script" not in page and "http" not in page
    for path in PATHS[:2] + PATHS[3:]:
        assert served.get(path)[0] == 200, path


def test_only_get_nothing_can_be_changed_and_no_cors(serve, data: Path) -> None:
    play(data, game_lines(2)[:8])
    served = serve()
    before = state(served)
    for method in ("POST", "PUT", "DELETE", "PATCH", "OPTIONS"):
        for path in PATHS:
            status, headers, _ = served.get(path, method=method,
                                            headers={"Origin": "http://evil.example"})
            assert status == 405, (method, path)
            assert not any(h.startswith("access-control-") for h in headers), headers
            status, _, _ = served.get(path, token=None, method=method)
            assert status == 404, (method, path)
    assert state(served) == before
    for path in PATHS[:2] + PATHS[3:]:
        status, headers, _ = served.get(path, headers={"Origin": "http://evil.example"})
        assert status == 200
        assert not any(h.startswith("access-control-") for h in headers), headers


def test_every_answer_has_a_csp_that_allows_only_the_pages_own_script_and_style(
        serve, data: Path) -> None:
    served = serve()
    answers = [served.get(p) for p in PATHS if p != "/events"] + [served.get("/", token=None)]
    for _, headers, _ in answers:
        csp = {d.split()[0]: d.split()[1:] for d in headers["content-security-policy"].split("; ")}
        assert csp["default-src"] == ["'none'"]
        assert csp["script-src"] == ["'self'"] and csp["style-src"] == ["'self'"]
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["referrer-policy"] == "no-referrer"  # the token never leaves in a Referer


class Assets(HTMLParser):
    """Every address the page loads, and its inline scripts and styles."""

    def __init__(self) -> None:
        super().__init__()
        self.addresses: list[str] = []
        self.inline: list[str] = []
        self._tag: str | None = None

    def handle_starttag(self, tag: str, attrs: list) -> None:
        attributes = dict(attrs)
        for name in ("src", "href"):
            if attributes.get(name):
                self.addresses.append(attributes[name])
        if any(name.startswith("on") for name in attributes) or "style" in attributes:
            self.inline.append(f"{tag} {attributes}")
        if tag == "style" or (tag == "script" and "src" not in attributes
                              and attributes.get("type") != "application/json"):
            self.inline.append(tag)


def test_the_page_loads_nothing_from_outside(serve, data: Path) -> None:
    served = serve()
    _, _, page = served.get("/")
    assets = Assets()
    assets.feed(page.decode())
    assert sorted(assets.addresses) == sorted(
        [f"/table.css?t={served.token}", f"/table.js?t={served.token}"])
    assert assets.inline == []
    for path in ("/table.css", "/table.js"):
        _, _, text = served.get(path)
        # the SVG namespace (the hearts are drawn with createElementNS) is a name, never fetched
        text = text.replace(b'"http://www.w3.org/2000/svg"', b"")
        assert not re.search(rb"https?://|@import|url\(|//[a-z0-9.-]+\.[a-z]{2,}/", text), path


# --------------------------------------------------------------------------- what it says
def test_the_state_is_status_json_plus_announcements_and_the_score_sheet(
        serve, data: Path, env: dict[str, str]) -> None:
    lines = game_lines(3, players=4)
    play(data, lines)  # a whole game: every round on the sheet
    served = serve()
    got = state(served)
    status = subprocess.run([sys.executable, "-m", "assistant.cli", "status", "--json"],
                            capture_output=True, text=True, env=env, timeout=60)
    expected = json.loads(status.stdout)
    assert {k: got[k] for k in expected} == expected
    assert got["phase"] == "game_over" and got["game"]["status"] == "finished"
    assert got["announcements"][0]["command"] == lines[-1]
    assert len(got["announcements"]) == 10
    # the score sheet adds up: each player's lives lost over the rounds leave the lives shown
    lives = {p["name"]: p["lives"] for p in got["players"]}
    assert got["sheet"] and [r["round"] for r in got["sheet"]] == list(range(1, len(got["sheet"]) + 1))
    for name, left in lives.items():
        lost = sum(row["lost"] for r in got["sheet"] for row in r["players"] if row["name"] == name)
        assert 5 - lost == left, name
        rows = [row for r in got["sheet"] for row in r["players"] if row["name"] == name]
        assert rows[-1]["lives"] == left
    scored = [r for r in got["sheet"] if r["sudden_death"] is None]
    assert scored and all(isinstance(row["points"], int) for r in scored for row in r["players"])


HOSTILE = '<script>alert("name")</script><img src=x onerror=alert(1)> & Bob\'s "friend"'


def write_hostile_announcement(data: Path) -> None:
    """The parser refuses such names, so they go into the store directly, as a damaged or
    hostile file would hold them."""
    conn = sqlite3.connect(data / "lifeguard.sqlite3")
    with conn:
        conn.execute("UPDATE entries SET said = ? WHERE seq = (SELECT max(seq) FROM entries)",
                     (f"{HOSTILE} knocks.",))
    conn.close()


def test_hostile_text_in_the_store_is_never_markup(serve, data: Path) -> None:
    play(data, game_lines(4)[:12])
    write_hostile_announcement(data)
    served = serve()
    status, headers, body = served.get("/state.json")
    assert json.loads(body)["announcements"][0]["said"] == f"{HOSTILE} knocks."
    assert b"<" not in body and b">" not in body and b"&" not in body  # \u003c etc.
    _, _, page = served.get("/")
    assert b"<script>alert" not in page and b"<img" not in page
    assert page.count(b"<script") == 2  # table.js and the JSON data block, nothing else
    reader = EventReader(served.host, served.port, served.token)
    _, first = reader.next()
    reader.close()
    assert first is not None and first["state"]["announcements"][0]["said"] == f"{HOSTILE} knocks."
    # the page itself only ever sets text (textContent), never markup
    _, _, script = served.get("/table.js")
    assert b"innerHTML" not in script and b"insertAdjacentHTML" not in script
    assert b"document.write" not in script and b"eval(" not in script


# --------------------------------------------------------------------------- live events
def test_events_follow_a_real_chat_process_within_a_second(serve, env: dict[str, str]) -> None:
    served = serve()
    reader = EventReader(served.host, served.port, served.token)
    assert reader.status == 200 and reader.headers["content-type"].startswith("text/event-stream")
    _, hello = reader.next()
    assert hello is not None and hello["kind"] == "state" and hello["state"]["phase"] == "no_game"
    chat = subprocess.Popen([sys.executable, "-m", "assistant.cli", "--seed", "1", "chat", "--jsonl"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
    assert chat.stdin is not None and chat.stdout is not None

    def say(line: str) -> tuple[float, dict]:
        chat.stdin.write(line + "\n")
        chat.stdin.flush()
        answer = json.loads(chat.stdout.readline())
        return time.monotonic(), answer

    def expect(kind: str, command: str, answered: float) -> dict:
        arrived, event = reader.next(timeout=5)
        assert event is not None, "the stream ended"
        assert (event["kind"], event["command"]) == (kind, command)
        assert arrived - answered < 1.0, f"{command}: {arrived - answered:.3f} s after the commit"
        return event

    try:
        t, answer = say("new game alice bob carol")
        event = expect("new_game", "new game alice bob carol", t)
        first_game = event["game"]
        assert event["said"].startswith("New game: Alice, Bob and Carol")
        assert [p["name"] for p in event["state"]["players"]] == ["alice", "bob", "carol"]
        for line in ("alice starts", "row 1 giraffe", "row 2 bear dog"):
            t, answer = say(line)
            assert answer["ok"], answer
            event = expect("command", line, t)
            assert event["said"] == answer["said"]
        assert event["state"]["rows"][:2] == [["giraffe"], ["bear", "dog"]]
        t, _ = say("undo")
        event = expect("undo", "row 2 bear dog", t)
        assert event["state"]["rows"][1] is None
        t, _ = say("redo")
        event = expect("redo", "row 2 bear dog", t)
        assert event["state"]["rows"][1] == ["bear", "dog"]
        t, answer = say("bob knocks")
        assert not answer["ok"]  # refused: nothing committed, no event
        # a new game (confirmed) is followed too
        say("new game dave erin frank")
        t, answer = say("yes")
        event = expect("new_game", "new game dave erin frank", t)
        assert event["game"] != first_game
        assert [p["name"] for p in event["state"]["players"]] == ["dave", "erin", "frank"]
        assert reader.events.empty()
        assert event["version"] == 7  # one event per accepted command, undo and redo
    finally:
        chat.stdin.close()
        chat.wait(10)
        reader.close()
    assert state(served)["game"]["id"] == event["game"]


def test_every_stream_starts_with_the_whole_state_and_a_retry_so_pages_catch_up(
        serve, data: Path) -> None:
    play(data, game_lines(5)[:9])
    served = serve()
    reader = EventReader(served.host, served.port, served.token)
    _, hello = reader.next()
    reader.close()
    assert reader.retry == "1000"
    assert hello is not None and hello["kind"] == "state" and hello["state"] == state(served)


def test_a_restarted_server_serves_the_same_state_under_a_new_link(serve, data: Path) -> None:
    play(data, game_lines(6)[:15])
    first = serve()
    before = state(first)
    reader = EventReader(first.host, first.port, first.token)
    reader.next()
    first.stop()
    _, ended = reader.next(timeout=10)
    assert ended is None  # the stream ends with the server
    second = serve()
    assert state(second) == before
    assert second.get("/state.json", token=first.token)[0] == 404  # the old link is gone


# --------------------------------------------------------------------------- starting
def test_a_port_in_use_is_a_sentence(serve, env: dict[str, str]) -> None:
    served = serve()
    done = subprocess.run([sys.executable, "-m", "assistant.cli", "serve", "--port", str(served.port)],
                          capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert f"Port {served.port} is already in use" in done.stderr and "Traceback" not in done.stderr


def test_without_lan_it_says_the_link_is_for_this_computer_and_how_to_reach_phones(
        serve) -> None:
    served = serve()
    assert served.process.stdout is not None
    second = served.process.stdout.readline()
    assert second.startswith("This link works on this computer only: a phone cannot open it.")
    assert "'lifeguard serve --lan'" in second and "QR code" in second


def in_a_terminal(env: dict[str, str], *args: str) -> str:
    """What ``lifeguard serve --port 0 ARGS`` prints to a terminal (a pseudo-terminal) up to
    its last line before serving; the server is stopped then."""
    import os
    import pty
    import select

    leader, follower = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "assistant.cli", "serve", "--port", "0",
                                *args], stdout=follower, stderr=follower, stdin=subprocess.DEVNULL,
                               env=env)
    os.close(follower)
    out = b""
    deadline = time.monotonic() + 30
    try:
        while b"Ctrl+C stops serving" not in out and b"lifeguard:" not in out:
            assert time.monotonic() < deadline, out
            if select.select([leader], [], [], 0.5)[0]:
                try:
                    chunk = os.read(leader, 65536)
                except OSError:  # the process ended and closed the terminal
                    break
                if not chunk:
                    break
                out += chunk
    finally:
        process.terminate()
        process.wait(10)
        os.close(leader)
    return out.decode("utf-8", "replace").replace("\r\n", "\n")


def qr_rows(text: str) -> list[str]:
    """The lines drawn black on white (the QR code's escape codes)."""
    return [line for line in text.splitlines() if "\x1b[30;47m" in line]


def test_in_a_terminal_lan_shows_a_qr_code_and_without_lan_none(env: dict[str, str]) -> None:
    """A QR code where a phone can use it: with --lan. Without it the link is 127.0.0.1, every
    phone's own address, so no code is drawn, and the text says how to reach phones."""
    local = in_a_terminal(env)
    assert local.startswith("Serving the table at http://127.0.0.1:")
    assert "this computer only" in local and qr_rows(local) == []
    lan = in_a_terminal(env, "--lan")
    if "no local network" in lan:  # a machine on no network: said in a sentence, no code
        assert "Traceback" not in lan
        return
    link = re.search(r"Serving the table at (\S+)", lan).group(1)
    assert not link.startswith("http://127.") and "this computer only" not in lan
    drawn = qr_rows(lan)
    assert len(drawn) >= 10 and "Scan this code" in lan
    from assistant.web.qr import qr_lines

    assert [re.sub(r"\x1b\[[0-9;]*m", "", line) for line in drawn] == qr_lines(link)  # the link's
    assert lan.index("Scan this code") < lan.index(drawn[0]) < lan.index("Ctrl+C stops serving")


def test_lan_says_who_can_watch(serve, env: dict[str, str]) -> None:
    try:
        served = serve("--lan")
    except AssertionError as err:  # a machine on no network: said in a sentence
        assert "no local network" in str(err) and "Traceback" not in str(err)
        return
    assert served.host != "127.0.0.1"
    assert served.process.stdout is not None
    second = served.process.stdout.readline()
    assert second.startswith("Anyone on this network who has the link can watch the game")


@pytest.mark.parametrize("port", ["-1", "70000"])
def test_a_port_out_of_range_is_a_sentence(env: dict[str, str], port: str) -> None:
    done = subprocess.run([sys.executable, "-m", "assistant.cli", "serve", "--port", port],
                          capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 2 and "no port" in done.stderr and "Traceback" not in done.stderr


def test_a_store_that_is_not_a_store_is_a_sentence(env: dict[str, str], data: Path) -> None:
    (data / "lifeguard.sqlite3").write_bytes(b"this is a shopping list, not a game store\n" * 10)
    done = subprocess.run([sys.executable, "-m", "assistant.cli", "serve", "--port", "0"],
                          capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert "is not a Lifeguard game store" in done.stderr and "Traceback" not in done.stderr
    assert (data / "lifeguard.sqlite3").read_bytes().startswith(b"this is a shopping list")


def test_the_page_reconnects_by_itself(serve, data: Path) -> None:
    """The browser's EventSource retries a dropped stream after the server's ``retry`` (1 s);
    the page's own code reopens a refused one after asking /state.json, with a growing pause,
    and says when the link is gone (a restarted server has a new token)."""
    served = serve()
    _, _, script = served.get("/table.js")
    js = script.decode()
    connect = js[js.index("function connect()"):js.index("function probe()")]
    assert 'new EventSource("/events" + query' in connect
    assert "readyState === EventSource.CLOSED" in connect and "later();" in connect
    later = js[js.index("function later()"):js.index("function connect()")]
    assert "setTimeout(probe, delay)" in later and "delay * 2" in later
    probe = js[js.index("function probe()"):]
    assert "answer.status === 404" in probe and 'setLink("gone")' in probe
    assert "connect();" in probe and ".catch(later)" in probe


# --------------------------------------------------------------------------- hostile passes
NOT_QUITE = ("/state.json/", "/events/", "/table.css/", "/table.js/", "//state.json",
             "/state.json//", "/./state.json", "/%2e/state.json", "//evil.example/state.json",
             "/state.json%2f", "/?t=x", "/index.html", "/..")


def test_there_are_no_redirects_at_all(serve, data: Path) -> None:
    """A redirect would be built from the request's Host header, with the token in it: a link
    to anywhere, carrying the token. Every near miss is a 404, with or without the token."""
    play(data, game_lines(7)[:4])
    served = serve()
    for path in NOT_QUITE:
        for token in (RIGHT, None):
            status, headers, body = served.get(path, token=token,
                                               headers={"Host": "evil.example"})
            assert status == 404, (path, token, status, headers.get("location"))
            assert "location" not in headers
            assert b"evil.example" not in body and served.token.encode() not in body


def move_store_aside(data: Path) -> Path:
    """The store and its -wal/-shm renamed, as ``chat --move-aside-bad-store`` does."""
    from assistant.store.db import DB_NAME, move_aside

    return move_aside(data / DB_NAME)


def test_a_store_moved_aside_is_noticed_and_the_new_one_followed(
        serve, data: Path, env: dict[str, str]) -> None:
    play(data, game_lines(8)[:10])
    served = serve()
    before = state(served)
    assert before["game"]["id"] == 1 and before["phase"] != "no_game"
    reader = EventReader(served.host, served.port, served.token)
    try:
        reader.next()
        moved = move_store_aside(data)
        _, event = reader.next(timeout=5)  # the store is gone: no game, said at once
        assert event is not None and event["kind"] == "state"
        assert event["state"]["phase"] == "no_game" and state(served)["phase"] == "no_game"
        chat = subprocess.run([sys.executable, "-m", "assistant.cli", "--seed", "3", "chat",
                               "--jsonl"], input="new game dave erin frank\n", text=True,
                              capture_output=True, env=env, timeout=60)
        assert json.loads(chat.stdout.splitlines()[0])["ok"], chat.stdout + chat.stderr
        _, event = reader.next(timeout=5)  # the new store's game, as a new game
        assert event is not None and event["kind"] == "new_game"
        assert event["command"] == "new game dave erin frank"
        players = [p["name"] for p in event["state"]["players"]]
        assert players == ["dave", "erin", "frank"]
        after = state(served)
        assert [p["name"] for p in after["players"]] == players and after["game"]["id"] == 1
        assert moved.exists()  # the old store is where it was put, untouched
    finally:
        reader.close()


def test_a_bad_store_moved_aside_by_chat_is_followed(
        serve, data: Path, env: dict[str, str]) -> None:
    """The store is replaced by a file that is no store (the server says so once and goes on),
    then ``chat --move-aside-bad-store`` renames it and starts a new one: the page follows."""
    play(data, game_lines(9)[:10])
    served = serve()
    assert state(served)["players"]
    store = data / "lifeguard.sqlite3"
    for side in ("-wal", "-shm"):
        store.with_name(store.name + side).unlink(missing_ok=True)
    garbage = data / "garbage"
    garbage.write_bytes(b"not a game store at all\n" * 100)
    garbage.replace(store)  # another file at the path
    deadline = time.monotonic() + 5
    while state(served)["phase"] != "no_game" and time.monotonic() < deadline:
        time.sleep(0.1)
    assert state(served)["players"] == []  # the old game is no longer at the path
    chat = subprocess.run([sys.executable, "-m", "assistant.cli", "--seed", "3", "chat",
                           "--jsonl", "--move-aside-bad-store"],
                          input="new game gina hank ivy\n", text=True, capture_output=True,
                          env=env, timeout=60)
    assert json.loads(chat.stdout.splitlines()[-1])["ok"], chat.stdout + chat.stderr
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        players = [p["name"] for p in state(served)["players"]]
        if players:
            break
        time.sleep(0.1)
    assert players == ["gina", "hank", "ivy"]
    served.stop()
    assert served.process.stderr is not None
    err = served.process.stderr.read()
    assert "Traceback" not in err
    assert err.count("is not a Lifeguard game store") <= 1, err  # said once, not every poll


@pytest.mark.parametrize("shape", ["a name too long", "a path too long"])
def test_a_data_folder_the_system_refuses_is_a_sentence(
        env: dict[str, str], tmp_path: Path, shape: str) -> None:
    folder = (tmp_path / ("a" * 300) if shape == "a name too long"
              else tmp_path.joinpath(*["b" * 200] * 25))
    done = subprocess.run([sys.executable, "-m", "assistant.cli", "serve", "--port", "0"],
                          capture_output=True, text=True, timeout=60,
                          env={**env, "LIFEGUARD_DATA_DIR": str(folder)})
    assert done.returncode == 2 and done.stdout == ""
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("lifeguard: Cannot open the game store")
    if shape == "a name too long":  # (a path of 5,000 letters is cut, as every command cuts it)
        assert "File name too long" in done.stderr and "LIFEGUARD_DATA_DIR" in done.stderr
