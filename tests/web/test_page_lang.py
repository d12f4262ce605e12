"""The phone page in the table's language (issue 39): German and Korean games on the real server
(``TableServer``, as the table starts it, with the language switched as ``--lang`` does) in
headless Debian chromium. Every word the page shows is the language's (none of the page's
English is left, names aside), ``<html lang>`` says which, axe-core still finds nothing, the
game-over and round-result views read as the language says them (German plurals, Korean
counters and particles), the refusals too, and ``/state.json`` stays language-neutral.

The announcements (``#said``, ``#news``: ``assistant.announce``) and the line of what the table
waits for (``#expecting``: ``assistant.table``) are other modules' sentences, translated there;
the page's own words around them are checked here. Skipped only where chromium or axe-core is
missing outside CI; in CI they must be there.
"""

from __future__ import annotations

import contextlib
import http.client
import itertools
import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from assistant import i18n
from assistant.web.messages import page_messages
from assistant.web.server import TableServer
from engine.deck import Animal
from tests.web.browser import (
    DEMO_LINES,
    DEMO_PLAYERS,
    DEMO_SEED,
    ROUND_ONE_ENDS,
    DevTools,
    skip_module_without_browser,
)
from tests.web.conftest import game_lines, play
from tests.web.test_a11y import axe

skip_module_without_browser(axe=True)

#: Real chromium, a server each: left out of `make check` like the other browser tests.
pytestmark = pytest.mark.slow

LIVE = "document.getElementById('link').dataset.state === 'live'"
#: The demo game's players with Korean names, one of them long (eleven syllables).
KOREAN_NAMES = {"dave": "김수한무거북이와두루미", "ivan": "이서연", "carol": "박지호", "heidi": "최하늘"}
#: The animals as the German edition and a Korean table name them (issue 39), written out here
#: rather than read from the catalogs the page uses.
ANIMALS = {
    "de": {"giraffe": "Giraffe", "bear": "Bär", "mole": "Maulwurf", "goat": "Ziege", "sheep": "Schaf",
           "dog": "Hund", "rabbit": "Hase", "pig": "Schwein", "cat": "Katze", "mouse": "Maus"},
    "ko": {"giraffe": "기린", "bear": "곰", "mole": "두더지", "goat": "염소", "sheep": "양",
           "dog": "개", "rabbit": "토끼", "pig": "돼지", "cat": "고양이", "mouse": "쥐"},
}
#: Words of the page's English that are German words as well.
GERMAN_TOO = {"code", "giraffe", "in", "javascript", "lifeguard", "link", "server"}


def lines_in(language: str, lines: list[str]) -> list[str]:
    """A seeded game's command lines; at the Korean table its players have Korean names."""
    if language != "ko":
        return lines
    return [" ".join(KOREAN_NAMES.get(word, word) for word in line.split()) for line in lines]


@contextlib.contextmanager
def table_in(language: str, data: Path, lines: list[str]) -> Iterator[TableServer]:
    """``lines`` played at a table in ``language`` and that table's server, running; English
    again afterwards (the language is one switch for the whole process)."""
    i18n.set_language(language)
    server = TableServer(data, port=0, quiet=True)
    try:
        play(data, lines)
        server.start()
        yield server
    finally:
        server.stop()
        i18n.set_language("en")


def opened(browser: DevTools, server: TableServer) -> dict[str, Any]:
    """The page drawn and live; its state as the server has it."""
    browser.open(server.url, ready=LIVE)
    state: dict[str, Any] = get(server, "/state.json")[2]
    return state


def get(server: TableServer, path: str, token: bool = True, method: str = "GET"
        ) -> tuple[int, dict[str, str], Any]:
    conn = http.client.HTTPConnection(server.host, server.port, timeout=10)
    try:
        conn.request(method, path + (f"?t={server.token}" if token else ""))
        answer = conn.getresponse()
        body = answer.read().decode("utf-8")
        headers = {k.lower(): v for k, v in answer.getheaders()}
        return answer.status, headers, json.loads(body) if path == "/state.json" else body
    finally:
        conn.close()


#: Every word the page itself shows or says: its text (hidden-to-the-eye words for readers
#: included), its labels and title, the "not live" words; not the scripts' data, not the other
#: modules' sentences (the announcements, what the table waits for).
PAGE_TEXT = """(() => {
    const skip = new Set(['said', 'news', 'expecting']);
    const parts = [document.title];
    const walk = node => {
        for (const child of node.childNodes) {
            if (child.nodeType === Node.TEXT_NODE) { parts.push(child.textContent); continue; }
            if (child.nodeType !== Node.ELEMENT_NODE || skip.has(child.id)) { continue; }
            if (child.tagName === 'SCRIPT' || child.tagName === 'NOSCRIPT') { continue; }
            for (const name of ['aria-label', 'data-not-live']) {
                if (child.hasAttribute(name)) { parts.push(child.getAttribute(name)); }
            }
            walk(child);
        }
    };
    walk(document.body);
    return parts.join(' ');
})()"""


def english_words() -> set[str]:
    """The words of the page's own English (its messages as written in the code)."""
    words: set[str] = set()

    def walk(value: object) -> None:
        if isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, str):
            words.update(w.lower() for w in re.findall(r"[^\W\d_]+", re.sub(r"\{[^}]*\}", "", value)))

    before = i18n.current_language()
    i18n.set_language("en")
    try:
        walk(page_messages())
    finally:
        i18n.set_language(before)
    return words


def words_left_in_english(text: str, language: str, names: list[str]) -> list[str]:
    """The words of ``text`` that are the page's English (names and the brand aside)."""
    named = {w.lower() for name in names for w in (name, name.title())}
    found = [w for w in re.findall(r"[^\W\d_]+", text) if w.lower() not in named]
    if language == "ko":  # a Korean page has no word in Latin letters but the names
        return [w for w in found if re.search(r"[A-Za-z]", w) and w != "Lifeguard"]
    english = english_words() - GERMAN_TOO
    return [w for w in found if w.lower() in english]


def text_of(browser: DevTools, selector: str) -> list[str]:
    found: list[str] = browser.evaluate(f"[...document.querySelectorAll({json.dumps(selector)})]"
                                        ".map(n => n.textContent)")
    return found


# --------------------------------------------------------------------------- a game under way
UNDER_WAY: dict[str, dict[str, str]] = {
    "de": {"round": "Runde 3 · letzte Züge", "headline": "{player}: letzter Zug", "lives": "{n} Leben",
           "knocked": "geklopft", "row": "Reihe", "row_aria": "Reihe {n}", "link": "verbunden",
           "footer": "nur zum Zuschauen", "game": "Spiel 1", "sheet": "Punkteblatt",
           "sheet_round": "Runde", "pts": "{n} Pkt.", "left": "noch {n}", "players": "Spieler"},
    "ko": {"round": "3라운드 · 마지막 차례", "headline": "{player} 마지막 차례", "lives": "목숨 {n}개",
           "knocked": "노크", "row": "줄", "row_aria": "{n}번 줄", "link": "실시간",
           "footer": "보기 전용", "game": "1번 게임", "sheet": "점수표",
           "sheet_round": "라운드", "pts": "{n}점", "left": "{n}개 남음", "players": "플레이어"},
}


@pytest.mark.parametrize("language", ["de", "ko"])
def test_a_game_under_way_is_shown_in_the_tables_language(
        data: Path, browser: DevTools, language: str) -> None:
    """Round 3 after a knock: the round and its phase, whose last turn it is, the hearts said in
    words, the marks, the rows with the animals' names, the score sheet and the footer, all in
    the language; no word of the page's English is left."""
    lines = lines_in(language, game_lines(DEMO_SEED, players=DEMO_PLAYERS)[:DEMO_LINES])
    want = UNDER_WAY[language]
    with table_in(language, data, lines) as server:
        state = opened(browser, server)
        browser.evaluate("document.getElementById('sheet-box').open = true")
        assert browser.evaluate("document.documentElement.lang") == language
        assert state["phase"] == "final_turns" and state["round"] == 3
        header_and_players_shown(browser, state, want)
        rows_and_sheet_shown(browser, state, want, language)
        names = [p["name"] for p in state["players"]]
        assert words_left_in_english(browser.evaluate(PAGE_TEXT), language, names) == []


def header_and_players_shown(browser: DevTools, state: dict[str, Any], want: dict[str, str]) -> None:
    """The round, whose turn, the hearts in words, the marks, the footer, as ``want`` says."""
    assert text_of(browser, "#round") == [want["round"]]
    assert text_of(browser, "#turn") == [want["headline"].format(player=state["turn"].title())]
    players = state["players"]
    assert text_of(browser, "#players .hearts .visually-hidden") == [
        want["lives"].format(n=p["lives"]) for p in players]
    knocker = players.index(next(p for p in players if p["knocked"]))
    assert want["knocked"] in text_of(browser, "#players .player")[knocker]
    assert text_of(browser, "#link") == [want["link"]] and text_of(browser, ".readonly") == [want["footer"]]
    assert text_of(browser, "#game") == [want["game"]]
    assert text_of(browser, "#players-title") == [want["players"]]


def rows_and_sheet_shown(browser: DevTools, state: dict[str, Any], want: dict[str, str],
                         language: str) -> None:
    """The rows with the animals' names, and the score sheet, as ``want`` says."""
    assert text_of(browser, ".card .name") == [ANIMALS[language][a] for row in state["rows"] for a in row]
    assert set(text_of(browser, ".row-label span")) == {want["row"]}
    assert browser.evaluate("[...document.querySelectorAll('.row')].map(r => r.getAttribute('aria-label'))") \
        == [want["row_aria"].format(n=n) for n in (1, 2, 3, 4)]
    assert text_of(browser, "#sheet-box summary") == [want["sheet"]]
    assert text_of(browser, "#sheet thead th")[0] == want["sheet_round"]
    first = state["sheet"][0]["players"][0]
    assert text_of(browser, "#sheet tbody tr:first-child td:nth-child(2) .pts") == [
        want["pts"].format(n=first["points"])]
    assert text_of(browser, "#sheet tbody tr:first-child td:nth-child(2) .left") == [
        want["left"].format(n=first["lives"])]


# --------------------------------------------------------------------------- the end of a game
GAME_OVER: dict[str, dict[str, Any]] = {
    "de": {"wins": "{names} gewinnt!", "after": "Spielende nach {n} Runden.", "round": "Runde {n} · Spielende",
           "places": {1: "1.", 2: "2.", 3: "3.", 4: "4."}, "winner": "Sieger", "result": "Ergebnis Runde {n}",
           "out": "ist raus", "loses": {1: "verliert 1 Leben", 2: "verliert 2 Leben"}, "kept": "verliert kein Leben",
           "place": "Platz"},
    "ko": {"wins": "{names} 승리!", "after": "{n}라운드 만에 게임이 끝났습니다.", "round": "{n}라운드 · 게임 종료",
           "places": {1: "1위", 2: "2위", 3: "3위", 4: "4위"}, "winner": "승자", "result": "{n}라운드 결과",
           "out": "탈락", "loses": {1: "목숨 1개 잃음", 2: "목숨 2개 잃음"}, "kept": "목숨을 잃지 않음",
           "place": "순위"},
}


@pytest.mark.parametrize("language", ["de", "ko"])
def test_the_game_over_view_is_in_the_tables_language(data: Path, browser: DevTools, language: str) -> None:
    """A whole game: the winner in big type, how many rounds it took, the final places with
    their ordinals, the last round's result a line a player, the places under the score sheet."""
    lines = lines_in(language, game_lines(DEMO_SEED, players=DEMO_PLAYERS))
    want = GAME_OVER[language]
    with table_in(language, data, lines) as server:
        state = opened(browser, server)
        browser.evaluate("document.getElementById('sheet-box').open = true")
        assert state["phase"] == "game_over" and len(state["winners"]) == 1
        rounds = state["round"]
        assert text_of(browser, "#turn") == [want["wins"].format(names=state["winners"][0].title())]
        assert text_of(browser, "#expecting") == [want["after"].format(n=rounds)]
        assert text_of(browser, "#round") == [want["round"].format(n=rounds)]
        assert text_of(browser, "#places .place") == [want["places"][p["place"]] for p in state["places"]]
        assert text_of(browser, "#places .name") == [p["name"].title() for p in state["places"]]
        assert text_of(browser, "#places .mark") == [want["winner"]]
        assert browser.evaluate("document.getElementById('result-box').hidden") is False
        assert text_of(browser, "#result-title") == [want["result"].format(n=rounds)]
        last = state["sheet"][-1]["players"]
        said = dict(zip(text_of(browser, "#result .name"), text_of(browser, "#result .what"), strict=True))
        assert said == {s["name"].title(): want["out"] if s["lives"] == 0 else
                        want["loses"][s["lost"]] if s["lost"] else want["kept"] for s in last}
        assert text_of(browser, "#sheet tfoot th") == [want["place"]]
        names = [p["name"] for p in state["players"]]
        assert words_left_in_english(browser.evaluate(PAGE_TEXT), language, names) == []


ROUND_OVER: dict[str, dict[str, str]] = {
    "de": {"round": "Runde 2 · Reihen auslegen", "headline": "Reihen auslegen", "result": "Ergebnis Runde 1",
           "detail": "{points} Punkte · noch {lives} Leben"},
    "ko": {"round": "2라운드 · 줄 놓기", "headline": "줄을 놓으세요", "result": "1라운드 결과",
           "detail": "{points}점 · 목숨 {lives}개 남음"},
}


@pytest.mark.parametrize("language", ["de", "ko"])
def test_a_rounds_result_is_in_the_tables_language(data: Path, browser: DevTools, language: str) -> None:
    """Round 1 just ended: its result, a line a player with points and lives left (German
    plurals, Korean counters), above round 2's rows still to be laid out."""
    lines = lines_in(language, game_lines(DEMO_SEED, players=DEMO_PLAYERS)[:ROUND_ONE_ENDS])
    want = ROUND_OVER[language]
    with table_in(language, data, lines) as server:
        state = opened(browser, server)
        assert state["phase"] == "rows" and state["round"] == 2
        assert text_of(browser, "#round") == [want["round"]]
        assert text_of(browser, "#turn") == [want["headline"]]
        assert text_of(browser, "#result-title") == [want["result"]]
        ended = {s["name"].title(): s for s in state["sheet"][0]["players"]}
        details = dict(zip(text_of(browser, "#result .name"), text_of(browser, "#result .detail"), strict=True))
        assert details == {name: want["detail"].format(points=s["points"], lives=s["lives"])
                           for name, s in ended.items()}
        names = [p["name"] for p in state["players"]]
        assert words_left_in_english(browser.evaluate(PAGE_TEXT), language, names) == []


SUDDEN = [
    ("de", ["new game ann bob cy", "ann has all cats"], "Plötzlicher Tod: Ann hat alle Katzen."),
    # the particle follows the name's last sound: 이서연이, 박지호가, Bob이 (a Latin letter too)
    ("ko", ["new game 이서연 박지호 최하늘", "이서연 has all pigs"], "서든데스: 이서연이 돼지를 모두 모았습니다."),
    ("ko", ["new game 이서연 박지호 최하늘", "박지호 has all cats"], "서든데스: 박지호가 고양이를 모두 모았습니다."),
    ("ko", ["new game ann bob cy", "bob has all rabbits"], "서든데스: Bob이 토끼를 모두 모았습니다."),
]


@pytest.mark.parametrize(("language", "lines", "note"), SUDDEN, ids=["de", "ko-consonant", "ko-vowel", "ko-latin"])
def test_a_sudden_death_is_said_in_the_tables_language(
        data: Path, browser: DevTools, language: str, lines: list[str], note: str) -> None:
    with table_in(language, data, lines) as server:
        opened(browser, server)
        assert text_of(browser, "#result-note") == [note]


# --------------------------------------------------------------------------- for every reader
@pytest.mark.parametrize("language", ["de", "ko"])
@pytest.mark.parametrize("upto", [DEMO_LINES, ROUND_ONE_ENDS, None], ids=["under-way", "round-ended", "finished"])
def test_axe_finds_nothing_on_the_page_in_german_or_korean(
        data: Path, browser: DevTools, language: str, upto: int | None) -> None:
    """axe-core (WCAG 2.2 AA and best practices) with the page's language set, on a phone and a
    laptop, light and dark, the score sheet open: no violation, nothing left for review."""
    lines = lines_in(language, game_lines(DEMO_SEED, players=DEMO_PLAYERS)[:upto])
    found = {}
    with table_in(language, data, lines) as server:
        for (width, height), dark in itertools.product(((390, 844), (1280, 800)), (False, True)):
            browser.size(width, height)
            browser.scheme(dark)
            opened(browser, server)
            browser.evaluate("document.getElementById('sheet-box').open = true")
            result = axe(browser)
            if result["violations"] or result["incomplete"]:
                found[f"{width}px {'dark' if dark else 'light'}"] = result
    assert not found, json.dumps(found, indent=1, ensure_ascii=False)[:6000]


# --------------------------------------------------------------------------- the server's words
NO_LINK = {"de": ("Scanne den Code am Tisch", "Diese Seite kann nur gelesen werden."),
           "ko": ("테이블의 코드를 스캔하세요", "이 페이지는 읽기만 할 수 있습니다.")}


@pytest.mark.parametrize("language", ["de", "ko"])
def test_the_servers_refusals_and_the_pages_words_before_its_script_are_in_the_language(
        data: Path, language: str) -> None:
    """An address without the link's token gets the scan-the-code page in the language (its
    ``lang`` set), a write the refusal; the page as served (before any script) has its
    headings, the no-script advice and ``lang``; the state keeps the engine's own words."""
    lines = lines_in(language, game_lines(DEMO_SEED, players=DEMO_PLAYERS)[:DEMO_LINES])
    with table_in(language, data, lines) as server:
        status, headers, page = get(server, "/", token=False)
        assert status == 404 and f'<html lang="{language}">' in page and NO_LINK[language][0] in page
        assert "Scan the code" not in page and "link the table shows" not in page
        status, _, body = get(server, "/", method="POST")
        assert status == 405 and body == NO_LINK[language][1]
        status, _, page = get(server, "/")
        assert status == 200 and f'<html lang="{language}">' in page
        served = {"de": ["Endstand", "Letzte Ansagen", "Diese Seite braucht JavaScript"],
                  "ko": ["최종 순위", "최근 안내", "JavaScript가 필요합니다"]}[language]
        assert all(words in page for words in served), served
        assert "Final places" not in page and "Last announcements" not in page
        state = get(server, "/state.json")[2]
        assert state["phase"] == "final_turns" and state["turn"] in [p["name"] for p in state["players"]]
        assert {a for row in state["rows"] for a in row} <= {a.value for a in Animal}


def test_the_english_page_is_the_english_it_always_was(data: Path, browser: DevTools) -> None:
    """English, the default, through the same catalog: the words the page has always had."""
    lines = game_lines(DEMO_SEED, players=DEMO_PLAYERS)[:DEMO_LINES]
    with table_in("en", data, lines) as server:
        state = opened(browser, server)
        assert browser.evaluate("document.documentElement.lang") == "en"
        assert text_of(browser, "#round") == ["Round 3 · final turns"]
        assert text_of(browser, "#turn") == [f"{state['turn'].title()}’s last turn"]
        assert text_of(browser, ".card .name") == [a for row in state["rows"] for a in row]
        assert text_of(browser, "#link") == ["live"] and text_of(browser, ".readonly") == ["read only"]


# --------------------------------------------------------------------------- the connection
CONNECTION = """(() => ({
    banner: document.getElementById('gone').textContent,
    link: document.getElementById('link').textContent,
    round: getComputedStyle(document.getElementById('round'), '::after').content,
}))()"""
LINK_WORDS = {
    "de": {"lost": "Verbindung verloren, neuer Versuch läuft. Das hier ist vielleicht nicht mehr aktuell.",
           "reconnecting": "verbinde neu…", "stale": "nicht aktuell", "gone": "Link ungültig",
           "dead": "Dieser Link funktioniert nicht mehr: Der Server wurde neu gestartet. "
                   "Scanne den neuen Code am Tisch."},
    "ko": {"lost": "연결이 끊겨 다시 시도하고 있습니다. 화면이 최신이 아닐 수 있습니다.",
           "reconnecting": "다시 연결하는 중…", "stale": "실시간 아님", "gone": "링크 만료",
           "dead": "이 링크는 더 이상 작동하지 않습니다: 서버가 다시 시작되었습니다. 테이블의 새 코드를 스캔하세요."},
}


def wait_for(browser: DevTools, condition: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not browser.evaluate(f"Boolean({condition})"):
        assert time.monotonic() < deadline, f"not within {timeout} s: {condition}"
        time.sleep(0.05)


@pytest.mark.parametrize("language", ["de", "ko"])
def test_a_lost_and_a_dead_link_are_said_in_the_tables_language(
        data: Path, browser: DevTools, language: str) -> None:
    """The server goes away: the banner, the link's state and the "not live" mark in the
    language; it comes back with a new link (a restart): the old one is said to be dead."""
    lines = lines_in(language, game_lines(DEMO_SEED, players=DEMO_PLAYERS)[:DEMO_LINES])
    want = LINK_WORDS[language]
    with table_in(language, data, lines) as server:
        opened(browser, server)
        server.stop()
        wait_for(browser, "document.getElementById('link').dataset.state === 'reconnecting'", 20)
        lost = browser.evaluate(CONNECTION)
        assert lost["banner"] == want["lost"] and lost["link"] == want["reconnecting"]
        assert want["stale"] in lost["round"]
        again = TableServer(data, port=server.port, quiet=True)  # a new token
        again.start()
        try:
            wait_for(browser, "document.getElementById('link').dataset.state === 'gone'", 40)
            dead = browser.evaluate(CONNECTION)
        finally:
            again.stop()
        assert dead["banner"] == want["dead"] and dead["link"] == want["gone"]
