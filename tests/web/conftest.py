"""Fixtures for ``lifeguard serve``: real stores, real server processes on loopback (a free port
each), a real HTTP client (the standard library's) and a server-sent-events reader on a thread.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import queue
import random
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from assistant.config import Settings
from assistant.store import open_session
from tests.store import conftest as store_conftest
from tests.web.browser import DEMO_LINES, DEMO_PLAYERS, DEMO_SEED, DevTools

#: The store tests' fixtures and seeded games, shared: an empty data folder, an environment for
#: ``lifeguard`` processes on it, and a whole seeded game as command lines.
data = store_conftest.data
env = store_conftest.env
game_lines = store_conftest.game_lines

#: The server's own token (the default of ``Served.get``).
RIGHT = "<the server's token>"
FIRST_LINE = re.compile(r"^Serving the table at http://([0-9.]+):(\d+)/\?t=([A-Za-z0-9_-]+)$")


def play(data: Path, lines: list[str], seed: int = 7) -> dict:
    """Apply ``lines`` through a stored session (the real store, closed afterwards)."""
    with open_session(Settings(), data, rng=random.Random(seed)) as s:
        for line in lines:
            reply = s.referee.handle(line)
            assert reply.ok, (line, reply.error)
        return s.referee.state()


@dataclass
class Served:
    """A running ``lifeguard serve`` process and its link."""

    process: subprocess.Popen
    first_line: str
    host: str
    port: int
    token: str

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/?t={self.token}"

    def get(self, path: str, token: str | None = RIGHT, method: str = "GET",
            headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
        """One request with the server's token, another ``token``, or none (None)."""
        return request(self.host, self.port, path, self.token if token is RIGHT else token,
                       method, headers)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)


def request(host: str, port: int, path: str, token: str | None, method: str = "GET",
            headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    target = path if token is None else f"{path}{'&' if '?' in path else '?'}t={token}"
    conn = http.client.HTTPConnection(host, port, timeout=10)
    try:
        conn.request(method, target, headers=headers or {})
        answer = conn.getresponse()
        body = answer.read()
        return answer.status, {k.lower(): v for k, v in answer.getheaders()}, body
    finally:
        conn.close()


def start_server(env: dict[str, str], *args: str, limit_files: int | None = None) -> Served:
    """``lifeguard serve --port 0``; ``limit_files``: its soft limit of open files, lowered."""
    process = subprocess.Popen(
        [sys.executable, "-m", "assistant.cli", "serve", "--port", "0", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        preexec_fn=None if limit_files is None else lambda: lower_file_limit(limit_files),
    )
    assert process.stdout is not None
    line = process.stdout.readline().rstrip("\n")
    match = FIRST_LINE.match(line)
    if match is None:
        process.kill()
        _, err = process.communicate(timeout=10)
        raise AssertionError(f"first line {line!r}; stderr: {err}")
    host, port, token = match.groups()
    return Served(process, line, host, int(port), token)


def lower_file_limit(soft: int) -> None:
    import resource

    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def raise_file_limit(wanted: int) -> int:
    """This process's soft limit of open files raised towards ``wanted`` (as far as the hard
    limit allows); returns the limit now."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft >= wanted:
        return soft
    if hard != resource.RLIM_INFINITY and hard < wanted:
        with contextlib.suppress(ValueError, OSError):  # only root may raise the hard limit
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, wanted))
            return wanted
    soft = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    return soft


@pytest.fixture
def serve(env: dict[str, str]) -> Iterator:
    """``serve()`` starts ``lifeguard serve --port 0`` on the test's store; all are stopped after."""
    started: list[Served] = []

    def start(*args: str, limit_files: int | None = None) -> Served:
        served = start_server(env, *args, limit_files=limit_files)
        started.append(served)
        return served

    yield start
    for served in started:
        served.stop()


@dataclass
class EventReader:
    """Reads ``/events`` on a thread: each event's arrival time (monotonic) and its data."""

    host: str
    port: int
    token: str
    events: queue.Queue = field(default_factory=queue.Queue)
    retry: str | None = None

    def __post_init__(self) -> None:
        self.conn = http.client.HTTPConnection(self.host, self.port, timeout=30)
        self.conn.request("GET", f"/events?t={self.token}")
        self.answer = self.conn.getresponse()
        self.status = self.answer.status
        self.headers = {k.lower(): v for k, v in self.answer.getheaders()}
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        data: list[str] = []
        try:
            for raw in self.answer:
                line = raw.decode("utf-8").rstrip("\r\n")
                if line.startswith("retry:"):
                    self.retry = line.split(":", 1)[1].strip()
                elif line.startswith("data:"):
                    data.append(line[5:].lstrip())
                elif not line and data:
                    self.events.put((time.monotonic(), json.loads("\n".join(data))))
                    data = []
        except (OSError, ValueError, AttributeError, http.client.HTTPException):  # closed
            pass
        self.events.put((time.monotonic(), None))  # the stream ended

    def next(self, timeout: float = 5.0) -> tuple[float, dict | None]:
        return self.events.get(timeout=timeout)

    def close(self) -> None:
        # Shut the socket first: closing the response while the thread reads it would wait
        # for the reader's lock until the next byte arrives (a ping, 15 s later).
        with contextlib.suppress(OSError):
            if self.conn.sock is not None:
                self.conn.sock.shutdown(socket.SHUT_RDWR)
        self.thread.join(5)
        self.conn.close()


@pytest.fixture(scope="module")
def chromium_in_module(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[DevTools]]:
    """One headless chromium for a test module (starting one took a third of a second of a
    core and more to close, per test), in a list so a test that leaves it dead gets a new one."""
    started: list[DevTools] = []
    try:
        yield started
    finally:
        for tools in started:
            tools.close()


@pytest.fixture
def browser(chromium_in_module: list[DevTools],
            tmp_path_factory: pytest.TempPathFactory) -> DevTools:
    """Headless chromium driven over DevTools (the phone page's accessibility and view tests):
    the module's browser in a new tab of its own, as a fresh browser shows a page (no device
    size, colour scheme or text size left from the test before)."""
    if chromium_in_module and chromium_in_module[-1].alive:
        tools = chromium_in_module[-1]
        try:
            tools.new_page()
            return tools
        except (RuntimeError, TimeoutError, OSError):
            tools.close()
    tools = DevTools(tmp_path_factory.mktemp("profile"))
    chromium_in_module.append(tools)
    return tools


def demo_store(folder: Path) -> dict[str, str]:
    """The README picture's game (``tests.web.browser``'s demo) played into a store under
    ``folder``; the environment that serves it, with no settings of the machine's."""
    data = folder / "data"
    data.mkdir()
    play(data, game_lines(DEMO_SEED, players=DEMO_PLAYERS)[:DEMO_LINES])
    env = dict(os.environ, LIFEGUARD_DATA_DIR=str(data), XDG_CONFIG_HOME=str(folder / "c"))
    env.pop("LIFEGUARD_CONFIG", None)
    return env
