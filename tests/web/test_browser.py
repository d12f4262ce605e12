"""The page in a real browser (Debian's chromium, headless) at a phone's size: the players, whose
turn it is and the hearts are drawn from the store's game, hostile text stays text, and a
screenshot is taken. Skipped only where chromium is missing outside CI; in CI it must run."""

from __future__ import annotations

import html
import os
import re
from pathlib import Path

import pytest

from assistant.referee import Referee
from tests.web.browser import (
    DEMO_LINES,
    DEMO_PLAYERS,
    DEMO_SEED,
    PHONE,
    chromium,
    dump_dom,
    png_size,
    screenshot,
)
from tests.web.conftest import game_lines, play
from tests.web.test_serve import HOSTILE, write_hostile_announcement

if chromium() is None and not os.environ.get("CI"):
    pytest.skip("chromium is not installed (make setup installs it)", allow_module_level=True)


def text_of(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", fragment)).split()


def players_shown(dom: str) -> dict[str, dict]:
    shown = {}
    for classes, body in re.findall(r'<li class="player([^"]*)">(.*?)</li>', dom, re.S):
        name = text_of(re.search(r'<span class="name">(.*?)</span>', body).group(1))[0]
        hearts = re.search(r'<span class="hearts">(.*?)<span class="visually-hidden">([^<]*)</span>',
                           body)
        drawn = re.findall(r'<svg [^>]*class="(heart(?: lost)?)"', hearts.group(1))
        marks = re.findall(r'<span class="mark [^"]*">([^<]*)</span>', body)
        shown[name] = {"full": drawn.count("heart"), "lost": drawn.count("heart lost"),
                       "said": hearts.group(2), "marks": marks, "classes": classes.split()}
    return shown


def test_the_page_in_a_browser_shows_the_players_the_turn_and_the_hearts(
        serve, data: Path, tmp_path: Path) -> None:
    lines = game_lines(DEMO_SEED, players=DEMO_PLAYERS)[:DEMO_LINES]
    play(data, lines)
    referee = Referee(confirm_new_game=False)
    for line in lines:
        assert referee.handle(line).ok
    game = referee.game
    served = serve()
    dom = dump_dom(served.url, tmp_path / "profile")
    turn = re.search(r'<h1 id="turn"[^>]*>(.*?)</h1>', dom).group(1)
    assert html.unescape(turn) == f"{game.turn.title()}’s last turn"
    shown = players_shown(dom)
    assert list(shown) == [p.title() for p in game.players]
    for p in game.players:
        assert shown[p.title()]["full"] == game.lives[p], p
        assert shown[p.title()]["lost"] == 5 - game.lives[p], p
        assert shown[p.title()]["said"] == (f"{game.lives[p]} lives" if game.lives[p] != 1
                                            else "1 life")
    assert "turn" in shown[game.turn.title()]["classes"]
    assert "knocked" in shown[game.knocker.title()]["marks"]
    cards = re.findall(r'<div class="card ([a-z]+)"><span class="name">([a-z]+)</span>', dom)
    assert [a for a, _ in cards] == [a.value for row in game.rows for a in row]
    assert re.search(r'<span id="link" class="link" data-state="(connecting|live)"', dom)
    # the score sheet (opened with a tap): a column per player, a line per round ended
    sheet = re.search(r'<div id="sheet" class="sheet"[^>]*>(.*?)</div>', dom, re.S).group(1)
    head = re.search(r"<thead>(.*?)</thead>", sheet, re.S).group(1)
    assert text_of(head) == ["Round", *(p.title() for p in game.players)]
    assert len(re.findall(r"<tr>", re.search(r"<tbody>(.*)</tbody>", sheet, re.S).group(1))) \
        == len(game.rounds) == 2
    shot = tmp_path / "phone.png"
    screenshot(served.url, shot, tmp_path / "profile")
    assert png_size(shot) == PHONE


def test_hostile_text_is_shown_as_text_in_the_browser(serve, data: Path, tmp_path: Path) -> None:
    play(data, game_lines(4)[:12])
    write_hostile_announcement(data)
    served = serve()
    dom = dump_dom(served.url, tmp_path / "profile")
    said = re.search(r'<ol id="said" class="said">(.*?)</ol>', dom, re.S).group(1)
    assert "<img" not in said and "<script" not in said  # no element was made from it
    assert html.escape(HOSTILE, quote=False) in said  # the text itself, escaped by the DOM
    assert dom.count("<script") == 2  # table.js and the state's JSON data block
