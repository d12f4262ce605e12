"""The page in a real browser (Debian's chromium, headless) at a phone's size: the players, whose
turn it is and the hearts are drawn from the store's game, hostile text stays text, and a
screenshot is taken. Skipped only where chromium is missing outside CI; in CI it must run."""

from __future__ import annotations

import html
import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from assistant.referee import Referee
from engine.game import Game
from engine.game import places as engine_places
from tests.store.conftest import chat_jsonl, lifeguard
from tests.web.browser import (
    DEMO_LINES,
    DEMO_PLAYERS,
    DEMO_SEED,
    PHONE,
    ROUND_ONE_ENDS,
    DevTools,
    png_size,
    skip_module_without_browser,
)
from tests.web.conftest import Served, game_lines, play
from tests.web.test_serve import HOSTILE, write_hostile_announcement

skip_module_without_browser()


def dom_of(browser: DevTools, url: str) -> str:
    """The page at ``url`` as the browser built it once loaded (what ``chromium --dump-dom``
    prints: the document element's HTML after the load event), in a new tab of the module's
    browser at a phone's size: the page loaded afresh, not the one shown before at the same
    address. One chromium serves the module (each ``--dump-dom`` started one: a few seconds
    of a loaded machine)."""
    browser.new_page()
    browser.size(*PHONE)  # a new tab has a size of its own, not the window's
    browser.open(url)
    dom = str(browser.evaluate("document.documentElement.outerHTML"))
    browser.open("about:blank")  # the page's event stream closed, as when --dump-dom exits
    return dom


def screenshot_of(browser: DevTools, url: str, path: Path) -> None:
    """A picture of the page at ``url`` as a phone shows it (the window's size, ``PHONE``)."""
    browser.new_page()
    browser.size(*PHONE)  # a new tab has a size of its own, not the window's
    browser.open(url)
    browser.screenshot(path)
    browser.open("about:blank")


def found(pattern: str, text: str, flags: int = 0) -> re.Match[str]:
    """``re.search``'s match, which must be there."""
    match = re.search(pattern, text, flags)
    assert match is not None, pattern
    return match


def text_of(fragment: str) -> list[str]:
    return html.unescape(re.sub(r"<[^>]+>", " ", fragment)).split()


def players_shown(dom: str) -> dict[str, dict[str, Any]]:
    shown = {}
    for classes, body in re.findall(r'<li class="player([^"]*)">(.*?)</li>', dom, re.S):
        name = text_of(found(r'<span class="name">(.*?)</span>', body).group(1))[0]
        hearts = found(r'<span class="hearts">(.*?)<span class="visually-hidden">([^<]*)</span>',
                           body)
        drawn = re.findall(r'<svg [^>]*class="(heart(?: lost)?)"', hearts.group(1))
        marks = re.findall(r'<span class="mark [^"]*">([^<]*)</span>', body)
        shown[name] = {"full": drawn.count("heart"), "lost": drawn.count("heart lost"),
                       "said": hearts.group(2), "marks": marks, "classes": classes.split()}
    return shown


def played(lines: list[str]) -> Game:
    """The game ``lines`` make, played by a referee of its own (each line accepted)."""
    referee = Referee(confirm_new_game=False)
    for line in lines:
        assert referee.handle(line).ok
    assert referee.game is not None
    return referee.game


def loses(losses: int) -> str:
    """How the page says a round's losses: "loses 2 lives", "loses 1 life", "loses no life"."""
    return f"loses {losses} li{'fe' if losses == 1 else 'ves'}" if losses else "loses no life"


def assert_hearts(shown: dict[str, dict[str, Any]], game: Game) -> None:
    """Each player's hearts: as many full as lives left, the rest lost, the count in words."""
    for p in game.players:
        assert shown[p.title()]["full"] == game.lives[p], p
        assert shown[p.title()]["lost"] == 5 - game.lives[p], p
        assert shown[p.title()]["said"] == (f"{game.lives[p]} lives" if game.lives[p] != 1
                                            else "1 life")


def assert_score_sheet(dom: str, game: Game) -> None:
    """The score sheet (opened with a tap): a column per player, a line per round ended."""
    sheet = found(r'<div id="sheet" class="sheet"[^>]*>(.*?)</div>', dom, re.S).group(1)
    head = found(r"<thead>(.*?)</thead>", sheet, re.S).group(1)
    assert text_of(head) == ["Round", *(p.title() for p in game.players)]
    assert len(re.findall(r"<tr>", found(r"<tbody>(.*)</tbody>", sheet, re.S).group(1))) \
        == len(game.rounds) == 2


def test_the_page_in_a_browser_shows_the_players_the_turn_and_the_hearts(
        serve: Callable[..., Served], data: Path, tmp_path: Path, browser: DevTools) -> None:
    lines = game_lines(DEMO_SEED, players=DEMO_PLAYERS)[:DEMO_LINES]
    play(data, lines)
    game = played(lines)
    assert game.turn is not None and game.knocker is not None
    served = serve()
    dom = dom_of(browser, served.url)
    turn = found(r'<h1 id="turn"[^>]*>(.*?)</h1>', dom).group(1)
    assert html.unescape(turn) == f"{game.turn.title()}’s last turn"
    shown = players_shown(dom)
    assert list(shown) == [p.title() for p in game.players]
    assert_hearts(shown, game)
    assert "turn" in shown[game.turn.title()]["classes"]
    assert "knocked" in shown[game.knocker.title()]["marks"]
    cards = re.findall(r'<div class="card ([a-z]+)"><span class="name">([a-z]+)</span>', dom)
    rows = [row for row in game.rows if row is not None]
    assert len(rows) == len(game.rows)  # every row on the table
    assert [a for a, _ in cards] == [a.value for row in rows for a in row]
    assert found(r'<span id="link" class="link" data-state="(connecting|live)"', dom)
    assert_score_sheet(dom, game)
    shot = tmp_path / "phone.png"
    screenshot_of(browser, served.url, shot)
    assert png_size(shot) == PHONE


def test_hostile_text_is_shown_as_text_in_the_browser(serve: Callable[..., Served], data: Path,
                                                     browser: DevTools) -> None:
    play(data, game_lines(4)[:12])
    write_hostile_announcement(data)
    served = serve()
    dom = dom_of(browser, served.url)
    said = found(r'<ol id="said" class="said">(.*?)</ol>', dom, re.S).group(1)
    assert "<img" not in said and "<script" not in said  # no element was made from it
    assert html.escape(HOSTILE, quote=False) in said  # the text itself, escaped by the DOM
    assert dom.count("<script") == 2  # table.js and the state's JSON data block


# --------------------------------------------------------------------------- a new group's view
def section(dom: str, box: str) -> tuple[bool, str]:
    """Whether the section ``box`` is shown (no ``hidden``), and its inside."""
    box_found = found(rf'<section id="{box}"([^>]*)>(.*?)</section>', dom, re.S)
    return "hidden" not in box_found.group(1), box_found.group(2)


def items(fragment: str) -> list[list[str]]:
    """Each list item's spans' text (one list per ``<li>``)."""
    return [[" ".join(text_of(span)) for span in re.findall(r"<span[^>]*>(.*?)</span>", li)]
            for li in re.findall(r"<li[^>]*>(.*?)</li>", fragment, re.S)]


SUDDEN_DEATHS = ["new game ann bob cy", *["ann has all cats"] * 5]


@pytest.mark.parametrize("lines", [SUDDEN_DEATHS, game_lines(DEMO_SEED, players=DEMO_PLAYERS)],
                         ids=["sudden-deaths-before-any-row", "played-out"])
def test_the_game_over_page_shows_the_places_and_the_winner_not_rows_or_typing(
        serve: Callable[..., Served], data: Path, tmp_path: Path, browser: DevTools, lines: list[str]) -> None:
    """The finished page: the winner in big type, the final places (ties share one), the last
    round's result; no rows of "?" (a sudden death can end a game before any row is entered)
    and nothing a phone cannot do ("'new game' to play again")."""
    play(data, lines)
    game = played(lines)
    assert game.is_over
    served = serve()
    dom = dom_of(browser, served.url)
    header = " ".join(text_of(found(r'<header id="top">(.*?)</header>', dom, re.S).group(1)))
    assert f"{game.winners[0].title()} wins!" in header
    assert f"Game over after {game.round} rounds." in header and "new game" not in header
    shown, places = section(dom, "places-box")
    ordinal = {1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 5: "5th"}
    expected = [[ordinal[n], p.title(), *(["winner"] if p in game.winners else [])]
                for p, n in engine_places(game)]
    assert shown and items(places) == expected and len(expected) == len(game.players)
    shown, rows = section(dom, "rows-box")
    assert not shown  # neither the last rows nor rows of "?": the places take their place
    shown, result = section(dom, "result-box")
    last = game.rounds[-1]
    assert shown and f"Round {last.round} result" in " ".join(text_of(result))
    said = {line[0]: line[1] for line in items(result)}
    assert said == {p.title(): "is out" if last.lives[p] == 0 else loses(last.losses[p])
                    for p in last.losses}
    if last.sudden_death:
        assert "Sudden death: Ann has all cats." in result
    shot = tmp_path / "over.png"
    screenshot_of(browser, served.url, shot)
    assert png_size(shot) == PHONE


def test_a_rounds_result_is_a_short_list_until_the_next_rows_come_in(
        serve: Callable[..., Served], env: dict[str, str], data: Path, tmp_path: Path, browser: DevTools) -> None:
    """Round 1 just ended: who lost how many lives, a line each, most first, above the rows of
    round 2; the long announcement a sentence a line. Gone once round 2's first row is in."""
    lines = game_lines(DEMO_SEED, players=DEMO_PLAYERS)
    play(data, lines[:ROUND_ONE_ENDS])
    game = played(lines[:ROUND_ONE_ENDS])
    ended = game.rounds[0]
    assert game.round == 2 and ended.losses
    served = serve()
    dom = dom_of(browser, served.url)
    shown, result = section(dom, "result-box")
    assert shown and "Round 1 result" in " ".join(text_of(result))
    order = sorted(ended.losses, key=lambda p: (-ended.losses[p], game.players.index(p)))
    expected = [[p.title(), loses(ended.losses[p]),
                 f"{ended.points[p]} points · {ended.lives[p]} lives left"] for p in order]
    assert items(result) == expected
    assert dom.index('id="result-box"') < dom.index('id="rows-box"')  # seen before the rows
    # the hand that ended the round: its announcement a sentence a line, nothing lost
    newest = found(r'<ol id="said" class="said"><li[^>]*>(.*?)</li>', dom, re.S).group(1)
    parts = [" ".join(text_of(s)) for s in re.findall(r'<span class="line">(.*?)</span>', newest)]
    said = state_of(served)["announcements"][0]["said"]
    assert len(parts) >= 6 and " ".join(parts) == said and parts[0].startswith("Dave has")
    chat_jsonl(env, [lines[ROUND_ONE_ENDS]])  # round 2's first row
    assert lines[ROUND_ONE_ENDS].startswith("row ")
    dom = dom_of(browser, served.url)
    assert section(dom, "result-box")[0] is False and section(dom, "rows-box")[0] is True
    shot = tmp_path / "round.png"
    screenshot_of(browser, served.url, shot)
    assert png_size(shot) == PHONE


def test_an_imported_games_announcements_show_each_command_once(
        serve: Callable[..., Served], env: dict[str, str], data: Path, tmp_path: Path, browser: DevTools) -> None:
    """An imported game was not announced here (``said`` is empty): each command is shown
    once, not as the announcement and again as its command."""
    lines = game_lines(DEMO_SEED, players=DEMO_PLAYERS)[:DEMO_LINES]
    commands = tmp_path / "game.txt"
    commands.write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = lifeguard(env, "import", str(commands))
    assert done.returncode == 0, done.stderr
    served = serve()
    announced = state_of(served)["announcements"][:5]
    assert [a["said"] for a in announced] == [""] * 5  # what an import stores
    dom = dom_of(browser, served.url)
    listed = found(r'<ol id="said" class="said">(.*?)</ol>', dom, re.S).group(1)
    assert items(listed) == [[a["command"]] for a in announced]
    for a in announced:
        assert " ".join(text_of(listed)).count(a["command"]) == sum(
            b["command"] == a["command"] for b in announced)


def state_of(served: Served) -> dict[str, Any]:
    status, _, body = served.get("/state.json")
    assert status == 200
    state: dict[str, Any] = json.loads(body)
    return state


def test_an_open_page_shows_the_result_when_the_round_ends_and_drops_it_at_the_next_row(
        serve: Callable[..., Served], env: dict[str, str], data: Path, browser: DevTools) -> None:
    """Followed live (the events, not a reload): the hand that ends round 1 brings its result
    in; round 2's first row takes it away again."""
    lines = game_lines(DEMO_SEED, players=DEMO_PLAYERS)
    play(data, lines[:ROUND_ONE_ENDS - 1])
    served = serve()
    shown = "!document.getElementById('result-box').hidden"
    browser.open(served.url, ready="document.getElementById('link').dataset.state === 'live'")
    assert browser.evaluate(shown) is False
    chat_jsonl(env, [lines[ROUND_ONE_ENDS - 1]])  # the last hand of round 1
    wait_until(browser, shown)
    assert browser.evaluate("document.getElementById('result-title').textContent") \
        == "Round 1 result"
    assert browser.evaluate("document.querySelectorAll('#result li').length") == DEMO_PLAYERS
    chat_jsonl(env, [lines[ROUND_ONE_ENDS]])  # round 2's first row
    wait_until(browser, "!(" + shown + ")")
    assert browser.evaluate("document.getElementById('rows-box').hidden") is False


def wait_until(browser: DevTools, condition: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not browser.evaluate(f"Boolean({condition})"):
        assert time.monotonic() < deadline, f"not within {timeout} s: {condition}"
        time.sleep(0.05)
