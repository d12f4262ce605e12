"""``lifeguard serve`` against connections that hold on: a real server process on loopback, real
sockets that send nothing, half a header or one byte at a time, a thousand of them at once, and
a process with a lowered limit of open files.

Every wait here is bounded; none asserts a speed (``bench/serve_load.py --idle`` prints the times).
"""

from __future__ import annotations

import contextlib
import http.client
import json
import select
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from assistant.web.guard import GRACE, HEADER_TIMEOUT, IDLE_TIMEOUT, MAX_UNTRUSTED
from tests.web.conftest import EventReader, Served, game_lines, play, raise_file_limit

#: How long past a deadline the tests wait for a connection to be closed (a busy machine).
SLACK = 5.0


def connect(served: Served) -> socket.socket:
    return socket.create_connection((served.host, served.port), timeout=10)


def is_closed(sock: socket.socket) -> bool:
    """Whether the server closed ``sock`` (end of file or reset), without waiting."""
    readable, _, _ = select.select([sock], [], [], 0)
    if not readable:
        return False
    try:
        while True:
            chunk = sock.recv(65536, socket.MSG_DONTWAIT)
            if not chunk:
                return True
    except BlockingIOError:
        return False  # an answer came, and the connection stays open
    except OSError:
        return True


def wait_closed(socks: list[socket.socket], seconds: float,
                between: Callable[[], None] = lambda: None) -> list[bool]:
    """Which of ``socks`` the server closed within ``seconds`` (``between`` runs each 0.25 s)."""
    closed = [False] * len(socks)
    deadline = time.monotonic() + seconds
    while not all(closed) and time.monotonic() < deadline:
        between()
        for i, sock in enumerate(socks):
            if not closed[i]:
                closed[i] = is_closed(sock)
        time.sleep(0.25)
    return closed


def get_state(served: Served, timeout: float = 10) -> tuple[int, dict]:
    conn = http.client.HTTPConnection(served.host, served.port, timeout=timeout)
    try:
        conn.request("GET", f"/state.json?t={served.token}")
        answer = conn.getresponse()
        return answer.status, json.loads(answer.read())
    finally:
        conn.close()


# --------------------------------------------------------------------------- the deadlines
def test_connections_that_never_finish_a_header_or_stay_idle_are_closed(serve, data: Path) -> None:
    play(data, game_lines(1)[:4])
    served = serve()
    silent = connect(served)  # sends nothing at all
    half = connect(served)  # half a header, then nothing
    half.sendall(f"GET /state.json?t={served.token} HTTP/1.1\r\nHost: 127.0.0.1\r\n".encode())
    slow = connect(served)  # a header one byte at a time: each byte in time, the whole never
    dribble = iter(f"GET /state.json?t={served.token} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                   "User-Agent: one-byte-at-a-time\r\nAccept: */*\r\n".encode())
    answered = http.client.HTTPConnection(served.host, served.port, timeout=10)
    answered.request("GET", f"/state.json?t={served.token}")  # with the token, then idle
    first = answered.getresponse()
    assert first.status == 200 and json.loads(first.read())["players"]
    assert answered.sock is not None
    idle = answered.sock

    def one_more_byte() -> None:
        with contextlib.suppress(OSError, StopIteration):
            slow.send(bytes([next(dribble)]))

    socks = [silent, half, slow, idle]
    closed = wait_closed(socks, max(HEADER_TIMEOUT, IDLE_TIMEOUT) + SLACK, one_more_byte)
    assert closed == [True] * 4, dict(zip(("silent", "half", "slow", "idle"), closed, strict=True))
    assert next(dribble, None) is not None  # the slow header was cut before it was whole
    for sock in socks:
        sock.close()
    assert get_state(served)[0] == 200  # and the server answers as before


# --------------------------------------------------------------------------- the cap
def test_a_flood_of_idle_connections_leaves_the_link_served(serve, data: Path) -> None:
    """1,000 idle connections are attempted; a page with the link is answered in the middle of
    them and after them, its event stream stays open, and the connections without the token
    are cut to the cap long before their header deadline."""
    attempts = 1000
    assert raise_file_limit(attempts + 200) >= attempts + 100, "too few files for this test"
    play(data, game_lines(2)[:6])
    served = serve()
    stream = EventReader(served.host, served.port, served.token)
    _, hello = stream.next()
    assert hello is not None and hello["kind"] == "state"
    flood: list[socket.socket] = []
    refused = 0
    halfway = threading.Event()
    answers: list[tuple[int, dict]] = []

    def attack() -> None:
        nonlocal refused
        for i in range(attempts):
            try:
                flood.append(socket.create_connection((served.host, served.port), timeout=10))
            except OSError:
                refused += 1
            if i == attempts // 2:
                halfway.set()
        halfway.set()

    attacker = threading.Thread(target=attack, daemon=True)
    try:
        attacker.start()
        assert halfway.wait(30)
        answers.append(get_state(served))  # while the flood goes on
        attacker.join(60)
        assert not attacker.is_alive()
        answers.append(get_state(served))  # with what is left of it
        assert [status for status, _ in answers] == [200, 200]
        assert all(state["players"] for _, state in answers)
        # the cap: all but MAX_UNTRUSTED of them are closed once they had their grace, well
        # before the header deadline would have closed them
        time.sleep(GRACE + 1.0)
        still_open = sum(not is_closed(sock) for sock in flood)
        assert still_open <= MAX_UNTRUSTED, (still_open, refused)
        assert len(flood) + refused == attempts
        # a stream that showed the token is never shed
        assert stream.thread.is_alive() and stream.events.empty()
    finally:
        for sock in flood:
            sock.close()
        stream.close()


# --------------------------------------------------------------------------- the file limit
def test_at_a_low_file_limit_the_server_sheds_and_says_no_traceback(serve, data: Path) -> None:
    """``serve`` under a limit of 64 open files, 300 idle connections: the cap (fitted to the
    limit) closes the oldest, the page is served, and nothing floods the terminal."""
    play(data, game_lines(3)[:5])
    served = serve(limit_files=64)
    flood = []
    try:
        for _ in range(300):
            flood.append(connect(served))
        status, state = get_state(served)
        assert status == 200 and state["players"]
        time.sleep(1.5)
        assert get_state(served)[0] == 200
    finally:
        for sock in flood:
            sock.close()
    served.stop()
    assert served.process.stderr is not None
    err = served.process.stderr.read()
    assert "Traceback" not in err and len(err) < 2000, err[:3000]


FILL_THE_FILES = r"""
import os, resource, sys
from assistant.web.server import TableServer

_, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (int(sys.argv[2]), hard))
server = TableServer(sys.argv[1], port=0)
server.start()
print(server.url, flush=True)
hogs = []
for _ in range(100000):  # every descriptor left, as other files would take them
    try:
        hogs.append(os.open(os.devnull, os.O_RDONLY))
    except OSError:
        break
print("full", len(hogs), flush=True)
sys.stdin.readline()
for fd in hogs:
    os.close(fd)
print("freed", flush=True)
sys.stdin.readline()
server.stop()
"""


def test_when_accepting_fails_for_want_of_files_it_is_said_once_and_served_after(
        data: Path, env: dict[str, str]) -> None:
    """Other files took every descriptor: connections cannot be accepted. One sentence, not a
    traceback per attempt; served again as soon as descriptors are free."""
    play(data, game_lines(4)[:5])
    script = subprocess.Popen([sys.executable, "-c", FILL_THE_FILES, str(data), "64"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=env)
    assert script.stdin is not None and script.stdout is not None and script.stderr is not None
    waiting: list[socket.socket] = []
    try:
        url = script.stdout.readline().strip()
        host_port, token = url.removeprefix("http://").split("/?t=")
        host, port = host_port.split(":")
        served = Served(script, "", host, int(port), token)
        assert script.stdout.readline().startswith("full")
        for _ in range(20):  # they wait in the kernel's queue: the server cannot take them
            waiting.append(socket.create_connection((host, int(port)), timeout=10))
        time.sleep(3.5)  # asyncio tries again every second
        script.stdin.write("\n")
        script.stdin.flush()
        assert script.stdout.readline().strip() == "freed"
        status, state = get_state(served)
        assert status == 200 and state["players"]
        script.stdin.write("\n")
        script.stdin.flush()
        script.wait(20)
    finally:
        for sock in waiting:
            sock.close()
        if script.poll() is None:
            script.kill()
            script.wait(10)
    err = script.stderr.read()
    assert "Traceback" not in err, err[:3000]
    assert err.count("Too many connections for this process's file limit") == 1, err[:3000]
    assert len(err.splitlines()) <= 3, err[:3000]


# --------------------------------------------------------------------------- the log
NOISE = {
    "not HTTP": b"this is not a request\r\n\r\n",
    "an upgrade": b"GET /?t=x HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: upgrade\r\n"
                  b"Upgrade: websocket\r\n\r\n",
    "a header too long": b"GET / HTTP/1.1\r\nX: " + b"a" * 20000 + b"\r\n\r\n",
}


def test_what_a_client_sends_cannot_flood_the_terminal(serve, data: Path) -> None:
    """uvicorn warns about an invalid request or an upgrade; 40 of each say it once."""
    served = serve()
    for payload in NOISE.values():
        for _ in range(40):
            with connect(served) as sock:
                sock.sendall(payload)
                with contextlib.suppress(OSError):
                    sock.recv(4096)
    assert get_state(served)[0] == 200
    served.stop()
    assert served.process.stderr is not None
    lines = served.process.stderr.read().splitlines()
    assert lines and len(lines) == len(set(lines)) <= 2 * len(NOISE), lines[:20]
