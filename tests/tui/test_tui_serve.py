"""The table serves itself to phones: the serve key starts the web server on its own thread and
shows its link as a QR code; the page follows the table's commands; stopping (the modal's s, or
quitting the table) closes it. A real server on loopback and a real HTTP client."""

from __future__ import annotations

import asyncio
import http.client
import json
import time
from urllib.parse import urlsplit

import pytest

from assistant.config import ServeSettings, Settings
from assistant.tui.phones import PhonesScreen

from .conftest import OPENING, submit_all

SETTINGS = Settings(serve=ServeSettings(port=0, lan=False))


def fetch_state(url: str) -> tuple[int, dict | None]:
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=5)
    try:
        conn.request("GET", f"/state.json?{parts.query}")
        answer = conn.getresponse()
        body = answer.read()
        return answer.status, json.loads(body) if answer.status == 200 else None
    finally:
        conn.close()


async def wait_for(pilot, condition, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        await pilot.pause(0.05)


async def test_the_serve_key_serves_the_table_and_shows_the_link(make_app) -> None:
    """Served on this computer only (``lan = false``): the link and where it works, no QR code
    of 127.0.0.1 to scan (on a phone that address is the phone itself)."""
    app = make_app(SETTINGS)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape")  # the setup screen
        await submit_all(pilot, OPENING)
        await pilot.press("f9")
        await wait_for(pilot, lambda: isinstance(app.screen, PhonesScreen))
        screen = app.screen
        url = app.web.url
        assert url.startswith("http://127.0.0.1:") and "?t=" in url
        text = str(screen.query_one("#phones-text").render())
        assert url in text and "s stop serving" in text and "On this computer only" in text
        assert "Scan" not in text and not screen.query("#phones-qr")
        status, state = await asyncio.to_thread(fetch_state, url)
        assert status == 200 and state is not None
        assert [p["name"] for p in state["players"]] == ["alice", "bob", "carol"]
        assert state["turn"] == "alice"
        # a command at the table reaches the page
        await pilot.press("escape")
        assert not isinstance(app.screen, PhonesScreen)
        await app.submit("alice swaps 1 bear")

        async def turn() -> str | None:
            _, now = await asyncio.to_thread(fetch_state, url)
            return now["turn"] if now else None

        deadline = time.monotonic() + 5
        while await turn() != "bob":
            assert time.monotonic() < deadline
            await asyncio.sleep(0.05)
        # the key again shows the same link; s stops serving and the link stops working
        await pilot.press("f9")
        await wait_for(pilot, lambda: isinstance(app.screen, PhonesScreen))
        assert app.web.url == url
        server = app.web
        await pilot.press("s")
        await wait_for(pilot, lambda: app.web is None and not server.running)
        with pytest.raises(OSError):
            await asyncio.to_thread(fetch_state, url)


async def test_on_the_local_network_the_link_is_a_qr_code_to_scan(make_app) -> None:
    app = make_app(SETTINGS)
    url = "http://192.168.1.20:8765/?t=abcdefghijklmnop"
    async with app.run_test(size=(80, 40)) as pilot:
        await pilot.press("escape")  # the setup screen
        app.push_screen(PhonesScreen(url, lan=True))
        await wait_for(pilot, lambda: isinstance(app.screen, PhonesScreen)
                       and bool(app.screen.query("#phones-text")))
        text = str(app.screen.query_one("#phones-text").render())
        assert "Scan to follow the game on a phone" in text and url in text
        assert "Anyone on this network" in text and "On this computer only" not in text
        qr = str(app.screen.query_one("#phones-qr").render())
        assert "█" in qr and "▀" in qr and len(qr.splitlines()) >= 10


async def test_serve_start_setting_serves_at_once_and_quitting_stops_the_server(make_app) -> None:
    app = make_app(Settings(serve=ServeSettings(start=True, port=0, lan=False)))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.web is not None)
        server = app.web
        assert not isinstance(app.screen, PhonesScreen)  # started quietly: a notice, no modal
        status, state = await asyncio.to_thread(fetch_state, server.url)
        assert status == 200 and state["phase"] == "no_game"
    assert not server.running  # the thread ended with the app
    with pytest.raises(OSError):
        fetch_state(server.url)


async def test_a_port_in_use_is_a_notice_and_the_table_goes_on(make_app) -> None:
    import socket

    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    port = taken.getsockname()[1]
    app = make_app(Settings(serve=ServeSettings(port=port, lan=False)))
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("escape")
            await pilot.press("f9")
            await wait_for(pilot, lambda: any(f"Port {port} is already in use" in n.message
                                              for n in app._notifications))
            assert app.web is None and not isinstance(app.screen, PhonesScreen)
            await submit_all(pilot, OPENING[:1])
            assert app.view.players == ("alice", "bob", "carol")
    finally:
        taken.close()
