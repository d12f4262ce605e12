"""What a phone downloads from ``lifeguard serve``: compressed answers, the page's own files kept
by the phone (ETag, Cache-Control) while the state never is, and an event stream that does not
send again the state the page was served with."""

from __future__ import annotations

import gzip
import http.client
import re
import time
from pathlib import Path

from tests.web.conftest import EventReader, Served, game_lines, play

GZIP = {"Accept-Encoding": "gzip"}


def raw(served: Served, path: str, headers: dict[str, str] | None = None
        ) -> tuple[int, list[tuple[str, str]], bytes]:
    """One request; the headers as sent, repeated names kept."""
    conn = http.client.HTTPConnection(served.host, served.port, timeout=10)
    try:
        sep = "&" if "?" in path else "?"
        conn.request("GET", f"{path}{sep}t={served.token}", headers=headers or {})
        answer = conn.getresponse()
        return answer.status, [(k.lower(), v) for k, v in answer.getheaders()], answer.read()
    finally:
        conn.close()


def header(headers: list[tuple[str, str]], name: str) -> list[str]:
    return [v for k, v in headers if k == name]


def test_every_answer_is_gzipped_when_the_phone_accepts_it(serve, data: Path) -> None:
    play(data, game_lines(3, players=4)[:30])
    served = serve()
    for path in ("/", "/table.css", "/table.js", "/state.json"):
        status, plain_headers, plain = raw(served, path)
        assert status == 200 and header(plain_headers, "content-encoding") == [], path
        status, headers, packed = raw(served, path, GZIP)
        assert status == 200 and header(headers, "content-encoding") == ["gzip"], path
        assert "Accept-Encoding" in header(headers, "vary")[0], path
        body = gzip.decompress(packed)
        if path == "/":  # the page holds the state and its number, the same in both
            assert body.decode().count("initial-state") == 1
        else:
            assert body == plain, path
        assert len(packed) < len(plain) * 0.6, (path, len(packed), len(plain))


def test_the_page_files_are_kept_by_the_phone_and_the_state_never(serve, data: Path) -> None:
    play(data, game_lines(4)[:12])
    served = serve()
    for path in ("/table.css", "/table.js"):
        status, headers, body = raw(served, path)
        (cache,) = header(headers, "cache-control")  # one, not no-store beside it
        assert "max-age=" in cache and "no-store" not in cache and "private" in cache, cache
        (tag,) = header(headers, "etag")
        status, again, empty = raw(served, path, {"If-None-Match": tag})
        assert status == 304 and empty == b"", path
        assert header(again, "etag") == [tag]
        assert raw(served, path, {"If-None-Match": 'W/"other"'})[2] == body
        # the security headers are on every answer still
        assert header(headers, "content-security-policy") and header(headers, "x-content-type-options")
    for path in ("/", "/state.json", "/nothing"):
        _, headers, _ = raw(served, path)
        assert header(headers, "cache-control") == ["no-store"], path
        assert header(headers, "etag") == [], path


def served_serial(served: Served) -> int:
    _, _, page = raw(served, "/")
    return int(re.search(rb'id="initial-state" type="application/json" data-serial="(\d+)"',
                         page).group(1))


def test_the_stream_does_not_send_again_the_state_the_page_has(serve, data: Path) -> None:
    lines = game_lines(5)
    play(data, lines[:9])
    served = serve()
    serial = served_serial(served)
    # the page's stream: from the state it was served with (EventReader adds the token first)
    reader = EventReader(served.host, served.port, f"{served.token}&since={serial}")
    try:
        assert reader.status == 200
        assert "content-encoding" not in reader.headers  # never compressed: events arrive at once
        time.sleep(0.5)
        assert reader.events.empty()  # nothing to say yet: the page has this state
        play(data, [lines[9]])
        _, event = reader.next(timeout=5)
        assert event is not None and event["kind"] == "command" and event["command"] == lines[9]
    finally:
        reader.close()
    # a page served an older state, or one that does not say, gets the whole state first
    for since in (f"&since={serial}", "&since=x", ""):
        other = EventReader(served.host, served.port, served.token + since)
        try:
            _, first = other.next()
            assert first is not None and first["kind"] == "state", since
            assert first["state"]["announcements"][0]["command"] == lines[9]
        finally:
            other.close()
