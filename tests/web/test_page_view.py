"""The phone page as a new group sees it, in a real chromium (DevTools): a lost connection said
at the top with the old turn dimmed until the stream is back; a score sheet that says it has
more players to the side, keeps its round column, shares its width evenly and ends with the
places; rows that read as groups at 200% text and 320 px; the marks that matter (who has had
their last turn after a knock; at the end only out, winner or a place); and what the page waits
for said without the table's typed example. Skipped only where chromium is missing outside CI.
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path

import pytest

from assistant.referee import Referee
from assistant.web.server import TableServer
from engine.game import places as engine_places
from tests.web.browser import (
    DEMO_LINES,
    DEMO_PLAYERS,
    DEMO_SEED,
    DevTools,
    skip_module_without_browser,
)
from tests.web.conftest import game_lines, play

skip_module_without_browser()

LIVE = "document.getElementById('link').dataset.state === 'live'"


def wait_for(browser: DevTools, condition: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not browser.evaluate(f"Boolean({condition})"):
        assert time.monotonic() < deadline, f"not within {timeout} s: {condition}"
        time.sleep(0.05)


def referee_after(lines: list[str]) -> Referee:
    referee = Referee(confirm_new_game=False)
    for line in lines:
        assert referee.handle(line).ok, line
    return referee


# --------------------------------------------------------------------------- the connection
CONNECTION = """(() => {
    const banner = document.getElementById('gone');
    const box = banner.getBoundingClientRect();
    return {said: banner.textContent, role: banner.getAttribute('role'),
            top: Math.round(box.top), height: Math.round(box.height),
            stale: document.body.dataset.stale || null,
            main: parseFloat(getComputedStyle(document.querySelector('main')).opacity),
            turn: parseFloat(getComputedStyle(document.getElementById('turn')).opacity),
            round: getComputedStyle(document.getElementById('round'), '::after').content,
            turnTop: Math.round(document.getElementById('turn').getBoundingClientRect().top)};
})()"""


def test_a_lost_connection_is_said_at_the_top_and_the_old_turn_dimmed_until_it_is_back(
        data: Path, browser: DevTools) -> None:
    """The server goes away (a laptop asleep, a Wi-Fi drop) with the page scrolled to the
    score sheet: an alert at the very top of the screen says so, the old turn and everything
    below are dimmed and marked "not live"; the same server back (same port and token) clears
    both."""
    play(data, game_lines(DEMO_SEED, players=DEMO_PLAYERS)[:DEMO_LINES])
    server = TableServer(data, port=0, quiet=True)
    server.start()
    again = None
    try:
        browser.open(server.url, ready=LIVE)
        live = browser.evaluate(CONNECTION)
        assert live["said"] == "" and live["stale"] is None and live["main"] == 1 \
            and live["height"] == 0 and live["round"] == "none"
        browser.evaluate("document.getElementById('sheet-box').scrollIntoView()")
        server.stop()
        wait_for(browser, "document.getElementById('gone').textContent !== ''", timeout=20)
        lost = browser.evaluate(CONNECTION)
        assert "Connection lost" in lost["said"] and "out of date" in lost["said"]
        assert lost["role"] == "alert" and lost["top"] == 0 and lost["height"] > 20  # on screen
        assert lost["stale"] == "reconnecting" and lost["main"] < 0.6 and lost["turn"] < 0.6
        assert "not live" in lost["round"]
        browser.evaluate("window.scrollTo(0, 0)")
        time.sleep(0.2)  # the headline starts below the banner, not under it
        assert browser.evaluate(CONNECTION)["turnTop"] >= lost["height"]
        again = TableServer(data, port=server.port, quiet=True)
        again.token = server.token
        again.start()
        wait_for(browser, LIVE + " && document.getElementById('gone').textContent === ''",
                 timeout=30)
        back = browser.evaluate(CONNECTION)
        assert back["stale"] is None and back["main"] == 1 and back["turn"] == 1
        assert back["height"] == 0 and back["round"] == "none"
    finally:
        server.stop()
        if again is not None:
            again.stop()


# --------------------------------------------------------------------------- the score sheet
SHEET = """(() => {
    const sheet = document.getElementById('sheet');
    const view = sheet.getBoundingClientRect();
    const heads = [...sheet.querySelectorAll('thead th')];
    const widths = heads.slice(1).map(th => th.getBoundingClientRect().width);
    const cue = document.getElementById('sheet-more');
    const right = document.getElementById('sheet-fade-right');
    const left = document.getElementById('sheet-fade-left');
    return {
        beyond: heads.slice(1).filter(th => th.getBoundingClientRect().right > view.right + 1).length,
        cue: cue.hidden ? null : cue.textContent,
        cueShown: !cue.hidden && cue.getBoundingClientRect().height > 0,
        fadeRight: !right.hidden && right.getBoundingClientRect().width > 0,
        fadeLeft: !left.hidden && left.getBoundingClientRect().width > 0,
        widths,
        roundLeft: heads[0].getBoundingClientRect().left - view.left,
        roundCells: [...sheet.querySelectorAll('tr > :first-child')].map(
            c => Math.round(c.getBoundingClientRect().left - view.left)),
        ptsLines: [...sheet.querySelectorAll('tbody .pts')].map(p => p.getClientRects().length),
        scrollable: sheet.scrollWidth - sheet.clientWidth,
        foot: [...sheet.querySelectorAll('tfoot tr')].map(
            tr => [...tr.children].map(c => c.textContent)),
        region: [sheet.getAttribute('role'), sheet.getAttribute('aria-label'), sheet.tabIndex],
    };
})()"""

ORDINAL = {1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 5: "5th"}


def open_sheet(browser: DevTools, url: str, width: int, height: int, text: int) -> dict:
    browser.size(width, height)
    browser.text_size(text)
    browser.open(url, ready=LIVE)
    browser.evaluate("""(() => { const box = document.getElementById('sheet-box');
        box.open = true; box.scrollIntoView(); return true; })()""")
    time.sleep(0.2)
    return browser.evaluate(SHEET)


@pytest.mark.parametrize(("players", "width", "text"), [(5, 390, 16), (4, 320, 16), (4, 390, 32)],
                         ids=["5-players-390px", "4-players-320px", "4-players-200%"])
def test_a_wide_score_sheet_says_more_players_are_to_the_side_and_keeps_the_round_column(
        serve, data: Path, browser: DevTools, players: int, width: int, text: int) -> None:
    lines = game_lines(DEMO_SEED, players=players)
    play(data, lines)
    game = referee_after(lines).game
    seen = open_sheet(browser, serve().url, width, 844, text)
    # cut off players are announced, in the number that is cut off, with a fade at that edge
    assert seen["scrollable"] > 0 and seen["beyond"] >= 1
    assert seen["cueShown"] and seen["fadeRight"] and not seen["fadeLeft"]
    more = seen["beyond"]
    assert seen["cue"] == f"{more} more player{'s' if more > 1 else ''} →"
    # every player's column as wide as the others, and "21 pts" on one line
    assert max(seen["widths"]) - min(seen["widths"]) < 1, seen["widths"]
    assert set(seen["ptsLines"]) == {1}
    # the places under the rounds: "Place" and each player's, in the columns' order
    places = dict(engine_places(game))
    assert seen["foot"][0][0] == "Place" and len(seen["foot"]) == 1
    assert [cell[:3] for cell in seen["foot"][0][1:]] == [ORDINAL[places[p]] for p in game.players]
    assert seen["region"] == ["region", "Score sheet", 0]  # scrolled by keyboard, named
    # scrolled to the end: the round column is still at the left, the cue points back
    browser.evaluate("(() => { const s = document.getElementById('sheet'); "
                     "s.scrollLeft = s.scrollWidth; return true; })()")
    wait_for(browser, "document.getElementById('sheet-fade-right').hidden")
    end = browser.evaluate(SHEET)
    assert end["beyond"] == 0 and not end["fadeRight"] and end["fadeLeft"]
    assert end["cue"] is not None and end["cue"].startswith("← ")
    assert set(end["roundCells"]) == {0}, end["roundCells"]  # sticky, every row


def test_a_sheet_that_fits_has_no_cue_and_no_places_before_the_end(
        serve, data: Path, browser: DevTools) -> None:
    play(data, game_lines(DEMO_SEED, players=DEMO_PLAYERS)[:DEMO_LINES])
    seen = open_sheet(browser, serve().url, 390, 844, 16)
    assert seen["scrollable"] <= 0 and seen["beyond"] == 0
    assert seen["cue"] is None and not seen["fadeRight"] and not seen["fadeLeft"]
    assert seen["foot"] == []  # the game goes on: no places yet
    assert max(seen["widths"]) - min(seen["widths"]) < 1


# --------------------------------------------------------------------------- the rows
ROWS = """(() => [...document.querySelectorAll('#rows .row')].map(row => {
    const label = row.querySelector('.row-label').getBoundingClientRect();
    const cards = [...row.querySelectorAll('.card')].map(c => c.getBoundingClientRect());
    const box = row.getBoundingClientRect();
    const tops = [...new Set(cards.map(c => Math.round(c.top)))];
    return {label: {top: label.top, bottom: label.bottom, left: label.left, right: label.right},
            first: {top: cards[0].top, left: cards[0].left},
            last: cards[cards.length - 1].bottom, top: box.top,
            inside: label.left >= box.left - 0.5 && label.right <= box.right + 0.5,
            labelFits: row.querySelector('.row-label').scrollWidth
                       <= row.querySelector('.row-label').clientWidth,
            lines: tops.length,
            gap: tops.length > 1 ? cards.find(c => Math.round(c.top) === tops[1]).top
                 - cards[0].bottom : null};
}))()"""


@pytest.mark.parametrize(("width", "text", "above"), [
    (320, 16, True), (390, 32, True), (320, 32, True), (390, 16, False)],
    ids=["320px", "200%", "320px-200%", "phone"])
def test_each_row_is_a_group_with_its_label_and_space_between_rows(
        serve, data: Path, browser: DevTools, width: int, text: int, above: bool) -> None:
    """Where four cards do not fit beside a label, the label ("ROW 2") stands above its own
    cards, never between them, and two rows are further apart than two lines of one row."""
    play(data, game_lines(DEMO_SEED, players=DEMO_PLAYERS)[:DEMO_LINES])
    browser.size(width, 844)
    browser.text_size(text)
    browser.open(serve().url, ready=LIVE)
    rows = browser.evaluate(ROWS)
    assert len(rows) == 4
    for row in rows:
        assert row["inside"] and row["labelFits"], row  # "ROW" stays in its column
        if above:
            assert row["label"]["bottom"] <= row["first"]["top"] + 0.5, row
        else:
            assert row["label"]["right"] <= row["first"]["left"] + 0.5, row
    between = [b["top"] - a["last"] for a, b in zip(rows, rows[1:], strict=False)]
    within = [r["gap"] for r in rows if r["gap"] is not None]
    if above:
        assert within, "at this size some row takes more than one line"
        assert min(between) > max(within) * 1.5, (between, within)


# --------------------------------------------------------------------------- marks
MARKS = """(() => Object.fromEntries([...document.querySelectorAll('#players .player')].map(li =>
    [li.querySelector('.name').textContent,
     [...li.querySelectorAll('.mark')].map(m => m.querySelector('[aria-hidden]')
         ? m.querySelector('[aria-hidden]').textContent : m.textContent)])))()"""


def test_after_a_knock_who_has_had_their_last_turn_is_marked(
        serve, data: Path, browser: DevTools) -> None:
    lines = game_lines(DEMO_SEED, players=DEMO_PLAYERS)[:DEMO_LINES]
    assert lines[-2:] == ["heidi knocks", "dave passes"]
    play(data, lines)
    game = referee_after(lines).game
    served = serve()
    browser.open(served.url, ready=LIVE)
    marks = browser.evaluate(MARKS)
    assert "done" in marks["Dave"] and "knocked" in marks["Heidi"] and "turn" in marks["Ivan"]
    assert all("done" not in marks[p.title()] for p in game.players if p != "dave")
    assert browser.evaluate("document.querySelector('.mark.done .visually-hidden').textContent") \
        == "has had their last turn"
    # the next final turn: Ivan is done as well
    play(data, ["ivan passes"], seed=8)
    wait_for(browser, "document.querySelectorAll('.mark.done').length === 2")
    marks = browser.evaluate(MARKS)
    assert "done" in marks["Ivan"] and "done" in marks["Dave"] and "turn" in marks["Carol"]


def test_at_the_end_a_player_shows_only_out_winner_or_the_place(
        serve, data: Path, browser: DevTools) -> None:
    lines = game_lines(DEMO_SEED, players=DEMO_PLAYERS)
    play(data, lines)
    game = referee_after(lines).game
    browser.open(serve().url, ready=LIVE)
    marks = browser.evaluate(MARKS)
    places = dict(engine_places(game))
    for p in game.players:
        expected = (["winner"] if p in game.winners else ["out"] if game.lives[p] == 0
                    else [ORDINAL[places[p]]])
        assert marks[p.title()] == expected, (p, marks)
    assert any(m == ["out"] for m in marks.values())


# --------------------------------------------------------------------------- waiting for
def test_waiting_for_the_start_player_is_said_without_the_typed_example(
        serve, data: Path, browser: DevTools) -> None:
    """A game whose start player was never said (its drawn lot taken out of the store, as in a
    game kept by an older Lifeguard): the table shows how to type it; the page, which cannot
    type, says what it waits for."""
    play(data, ["new game ann bob cy", "row 1 pig", "row 2 dog cat", "row 3 goat rabbit pig",
                "row 4 bear bear mole mouse"])
    conn = sqlite3.connect(data / "lifeguard.sqlite3")
    with conn:
        assert conn.execute("SELECT command FROM entries WHERE seq = 1").fetchone()[0] \
            .endswith(" starts")
        conn.execute("DELETE FROM entries WHERE seq = 1")
        for (seq,) in conn.execute("SELECT seq FROM entries WHERE seq > 1 ORDER BY seq").fetchall():
            conn.execute("UPDATE entries SET seq = ? WHERE seq = ?", (seq - 1, seq))
        conn.execute("UPDATE games SET cursor = cursor - 1")
    conn.close()
    served = serve()
    status, _, body = served.get("/state.json")
    assert status == 200 and json.loads(body)["expecting"].startswith("Who starts? e.g.")
    browser.open(served.url, ready=LIVE)
    header = browser.evaluate("[document.getElementById('turn').textContent, "
                              "document.getElementById('expecting').textContent]")
    assert header == ["Who starts?", "Waiting for the start player."]
