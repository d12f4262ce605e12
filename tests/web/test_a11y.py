"""The phone page for every reader (WCAG 2.2 AA), in a real chromium driven over DevTools.

axe-core's own packaged script (installed from npm by ``make test``) runs on the page at a
phone's size and a laptop's, light and dark, with the score sheet closed and open: no
violation, and nothing left for review. Then what axe cannot see: what a screen reader hears
(the accessibility tree), one polite status region that gets each new announcement once while
the lists keep their unchanged nodes, and the page at 200% text and at 320 px with nothing
overlapping, spilling out of its card or scrolling sideways. Skipped only where chromium or
axe-core is missing outside CI; in CI they must be there.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from assistant.colours import ANIMAL_COLOURS
from tests.web.browser import (
    AXE,
    DEMO_LINES,
    DEMO_PLAYERS,
    DEMO_SEED,
    ROUND_ONE_ENDS,
    DevTools,
    skip_module_without_browser,
)
from tests.web.conftest import Served, game_lines, play

skip_module_without_browser(axe=True)

SIZES = {"phone": (390, 844), "laptop": (1280, 800)}
#: Every WCAG 2.0-2.2 A and AA rule axe has, and its best practices.
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]


def drawn(browser: DevTools, served: Served) -> None:
    """Opens the page and waits until it has drawn its state and its stream is open."""
    browser.open(served.url, ready="document.getElementById('link').dataset.state === 'live'")


def axe(browser: DevTools) -> dict:
    if not browser.evaluate("typeof axe !== 'undefined'"):
        browser.evaluate(AXE.read_text(encoding="utf-8"))
    options = json.dumps({"runOnly": {"type": "tag", "values": AXE_TAGS},
                          "resultTypes": ["violations", "incomplete"]})
    return browser.evaluate(f"""axe.run(document, {options}).then(r => ({{
        violations: r.violations.map(v => ({{id: v.id, impact: v.impact,
            nodes: v.nodes.map(n => n.target.join(' ') + ': ' + n.failureSummary)}})),
        incomplete: r.incomplete.map(v => ({{id: v.id, impact: v.impact,
            nodes: v.nodes.map(n => n.target.join(' ') + ': ' + JSON.stringify(
                n.any.concat(n.all, n.none).map(c => c.message)))}})),
    }}))""")


def finished_game(data: Path) -> None:
    """A whole game: a winner, players out, lost hearts and a full score sheet."""
    play(data, game_lines(DEMO_SEED, players=DEMO_PLAYERS))


def demo_game(data: Path) -> None:
    """The README's game: round 3 after a knock, with the turn's highlight and a sheet."""
    play(data, game_lines(DEMO_SEED, players=DEMO_PLAYERS)[:DEMO_LINES])


def round_ended(data: Path) -> None:
    """Round 1 just ended, no row of round 2 entered yet: the round's result is shown."""
    play(data, game_lines(DEMO_SEED, players=DEMO_PLAYERS)[:ROUND_ONE_ENDS])


def rows_to_enter(data: Path) -> None:
    """A new game: the rows not entered yet (the cards say so)."""
    play(data, game_lines(DEMO_SEED, players=DEMO_PLAYERS)[:3])


def no_game(data: Path) -> None:
    """An empty store: the page says there is no game yet."""


@pytest.mark.parametrize("game", [demo_game, finished_game, round_ended, rows_to_enter, no_game],
                         ids=["under-way", "finished", "round-ended", "rows-to-enter", "no-game"])
def test_axe_finds_nothing_at_either_size_light_or_dark_sheet_open_or_closed(
        serve, data: Path, browser: DevTools, game) -> None:
    game(data)
    served = serve()
    found = {}
    for size_name, (width, height) in SIZES.items():
        browser.size(width, height)
        for dark in (False, True):
            browser.scheme(dark)
            drawn(browser, served)
            for sheet_open in (False, True):
                browser.evaluate(f"document.getElementById('sheet-box').open = {str(sheet_open).lower()}")
                result = axe(browser)
                state = f"{size_name} {'dark' if dark else 'light'} sheet {'open' if sheet_open else 'closed'}"
                if result["violations"] or result["incomplete"]:
                    found[state] = result
    assert not found, json.dumps(found, indent=1)[:6000]


def luminance(colour: str) -> float:
    channels = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(one: str, two: str) -> float:
    light, dark = sorted((luminance(one), luminance(two)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_every_card_colour_has_aa_contrast_in_the_terminal_and_on_the_page() -> None:
    """One table for both (assistant/colours.py): the name on its card at 4.5:1 or more."""
    for animal, (bg, fg) in ANIMAL_COLOURS.items():
        assert contrast(bg, fg) >= 4.5, (animal, bg, fg, round(contrast(bg, fg), 2))


def colours_in_page(browser: DevTools) -> dict:
    """The colours the page draws hearts, marks and the winner's gold in, and what is behind
    them, as the browser computed them."""
    return browser.evaluate("""(() => {
        const rgb = s => '#' + s.match(/\\d+/g).slice(0, 3)
            .map(n => Number(n).toString(16).padStart(2, '0')).join('');
        const behind = node => {
            for (let n = node; n; n = n.parentElement) {
                const bg = getComputedStyle(n).backgroundColor;
                if (!bg.startsWith('rgba(0, 0, 0, 0)') && bg !== 'transparent') return rgb(bg);
            }
            return '#ffffff';
        };
        // a heart is a drawing: its colour is its outline's
        const ink = n => n instanceof SVGElement ? getComputedStyle(n).stroke
                                                 : getComputedStyle(n).color;
        const pick = sel => [...document.querySelectorAll(sel)].map(n => [
            sel, n.textContent, rgb(ink(n)), behind(n),
            getComputedStyle(n).opacity, getComputedStyle(n.closest('li') || n).opacity]);
        return [].concat(pick('.heart.lost'), pick('.heart:not(.lost)'), pick('.mark'),
                         pick('.player.out .name'), pick('.player.winner .name'));
    })()""")


def test_lost_hearts_out_marks_and_the_winners_gold_have_aa_contrast(
        serve, data: Path, browser: DevTools) -> None:
    finished_game(data)
    served = serve()
    for dark in (False, True):
        browser.scheme(dark)
        drawn(browser, served)
        seen = colours_in_page(browser)
        kinds = {sel for sel, *_ in seen}
        assert {".heart.lost", ".mark", ".player.out .name"} <= kinds, kinds
        for sel, text, fg, bg, opacity, item_opacity in seen:
            assert opacity == item_opacity == "1", (sel, text)  # nothing faded by opacity
            assert contrast(fg, bg) >= 4.5, (sel, text, fg, bg, round(contrast(fg, bg), 2))


# --------------------------------------------------------------------------- what a reader hears
def heard(browser: DevTools) -> list[str]:
    """The text a screen reader reads, in order: the accessibility tree's text nodes."""
    tree = browser.call("Accessibility.getFullAXTree")["nodes"]
    return [n["name"]["value"] for n in tree
            if not n.get("ignored") and n.get("role", {}).get("value") in ("StaticText", "text")
            and n.get("name", {}).get("value", "").strip()]


@pytest.mark.parametrize("lines", [DEMO_LINES, 3], ids=["sheet", "rows-to-enter"])
def test_a_reader_hears_words_not_symbols(serve, data: Path, browser: DevTools,
                                          lines: int) -> None:
    played = play(data, game_lines(DEMO_SEED, players=DEMO_PLAYERS)[:lines])
    served = serve()
    drawn(browser, served)
    browser.evaluate("document.getElementById('sheet-box').open = true")
    text = heard(browser)
    joined = " | ".join(text)
    assert not any(symbol in t for t in text for symbol in "♥♡?−±●"), joined
    for p in played["players"]:
        lives = p["lives"]
        assert (f"{lives} lives" if lives != 1 else "1 life") in text, (p, joined)
    if lines == DEMO_LINES:  # two rounds played: the score sheet has lost lives
        assert any(t.startswith("lost ") and t.endswith((" life", " lives")) for t in text), joined
    else:  # the rows of the first round are being entered
        assert "not entered yet" in text, joined
    cards = browser.evaluate("document.querySelectorAll('.card:not(.unknown)').length")
    assert sum(t.endswith(" points") for t in text) == cards > 0, joined  # "giraffe", "9 points"
    no_label = browser.evaluate("""[...document.querySelectorAll('[aria-label]')]
        .filter(n => !n.getAttribute('role') && !['SECTION', 'NAV', 'MAIN'].includes(n.tagName))
        .map(n => n.outerHTML.slice(0, 80))""")
    assert no_label == []  # aria-label only where a role makes readers use it


# --------------------------------------------------------------------------- live updates
OBSERVE = """(() => {
    window.lgSeen = {news: [], turnWrites: 0};
    new MutationObserver(ms => ms.forEach(m => m.addedNodes.forEach(n =>
        window.lgSeen.news.push(n.textContent)))).observe(
        document.getElementById('news'), {childList: true});
    new MutationObserver(ms => { window.lgSeen.turnWrites += ms.length; }).observe(
        document.getElementById('turn'), {childList: true, characterData: true, subtree: true});
    return true;
})()"""

#: Marks every node of the lists, and keeps what each showed.
SNAPSHOT = """(() => {
    window.lgOld = {};
    for (const id of ['players', 'rows', 'said']) {
        const children = [...document.getElementById(id).children];
        children.forEach(n => { n.lgMark = true; });
        window.lgOld[id] = children.map(n => n.outerHTML);
    }
    return true;
})()"""

#: Per list: how many of its nodes were kept, and the nodes made anew although a node with the
#: same content was there before (each should have been kept).
KEPT = """(() => {
    const out = {};
    for (const id of ['players', 'rows', 'said']) {
        const children = [...document.getElementById(id).children];
        out[id] = {kept: children.filter(n => n.lgMark).length,
                   remade: children.filter(n => !n.lgMark && window.lgOld[id].includes(n.outerHTML))
                                   .map(n => n.outerHTML.slice(0, 100))};
    }
    return out;
})()"""


def live_regions(browser: DevTools) -> list[dict]:
    return browser.evaluate("""[...document.querySelectorAll(
        '[aria-live], [role=status], [role=alert], [role=log]')].map(n => ({id: n.id,
        role: n.getAttribute('role'), live: n.getAttribute('aria-live')}))""")


def chat(env: dict[str, str], lines: list[str]) -> None:
    done = subprocess.run([sys.executable, "-m", "assistant.cli", "chat", "--jsonl"],
                          input="\n".join(lines) + "\n", capture_output=True, text=True, env=env,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert all(json.loads(r).get("ok", True) for r in done.stdout.splitlines()), done.stdout


def test_each_new_announcement_is_read_once_and_unchanged_nodes_stay(
        serve, env: dict[str, str], data: Path, browser: DevTools) -> None:
    lines = game_lines(DEMO_SEED, players=DEMO_PLAYERS)
    play(data, lines[:DEMO_LINES - 2])
    served = serve()
    drawn(browser, served)
    regions = live_regions(browser)
    polite = [r for r in regions if r["role"] == "status" or r["live"] == "polite"]
    assert [r["id"] for r in polite] == ["news"], regions  # one polite region
    assert {r["id"] for r in regions if r["role"] == "alert"} == {"problem", "gone"}
    assert browser.evaluate("document.getElementById('turn').getAttribute('aria-live')") is None
    assert browser.evaluate("document.getElementById('news').childElementCount") == 0
    browser.evaluate(OBSERVE)
    kept_in_all = {"players": 0, "rows": 0, "said": 0}
    for n, line in enumerate(lines[DEMO_LINES - 2:DEMO_LINES], start=1):
        browser.evaluate(SNAPSHOT)
        turn_before = browser.evaluate("document.getElementById('turn').textContent")
        writes_before = browser.evaluate("window.lgSeen.turnWrites")
        chat(env, [line])  # one command: one announcement
        wait_for(browser, f"window.lgSeen.news.length >= {n}")
        kept = browser.evaluate(KEPT)
        for name, seen_list in kept.items():
            assert seen_list["remade"] == [], (line, name, seen_list)
            kept_in_all[name] += seen_list["kept"]
        if browser.evaluate("document.getElementById('turn').textContent") == turn_before:
            # the same heading is not written again
            assert browser.evaluate("window.lgSeen.turnWrites") == writes_before, line
    # each announcement once, in order, as the list shows them (newest first there)
    seen = browser.evaluate("window.lgSeen")
    newest = browser.evaluate("[...document.querySelectorAll('#said li .text')].map(n => n.textContent)")
    assert seen["news"] == newest[:2][::-1], (seen["news"], newest)
    # not vacuous: players whose turn it was not, rows not swapped with, older announcements
    assert kept_in_all["players"] >= 2 and kept_in_all["rows"] >= 4, kept_in_all
    assert kept_in_all["said"] == 8, kept_in_all  # five shown: one new, four kept, twice
    # an undo is said as what was taken back; the announcements left keep their nodes
    browser.evaluate(SNAPSHOT)
    chat(env, ["undo"])
    wait_for(browser, "window.lgSeen.news.length >= 3")
    assert browser.evaluate("window.lgSeen.news")[2] == f"Taken back: {lines[DEMO_LINES - 1]}."
    kept = browser.evaluate(KEPT)
    assert kept["said"] == {"kept": 4, "remade": []}, kept


def wait_for(browser: DevTools, condition: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not browser.evaluate(f"Boolean({condition})"):
        assert time.monotonic() < deadline, f"not within {timeout} s: {condition}"
        time.sleep(0.05)


# --------------------------------------------------------------------------- large text, narrow
LAYOUT = """(() => {
    const boxes = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let t = walker.nextNode(); t; t = walker.nextNode()) {
        const owner = t.parentElement;
        if (!t.textContent.trim() || owner.closest('.visually-hidden, script, noscript, details:not([open]) > :not(summary)')) continue;
        const range = document.createRange();
        range.selectNodeContents(t);
        for (const r of range.getClientRects()) {
            if (r.width > 0 && r.height > 0) boxes.push({text: t.textContent.trim(), owner, r, node: t});
        }
    }
    for (const svg of document.querySelectorAll('svg')) {
        boxes.push({text: 'a heart of ' + svg.closest('li').querySelector('.name').textContent,
                    owner: svg, r: svg.getBoundingClientRect(), node: svg});
    }
    const overlaps = [];
    for (let i = 0; i < boxes.length; i++) {
        for (let j = i + 1; j < boxes.length; j++) {
            if (boxes[i].node === boxes[j].node) continue;  // the lines of one text
            const a = boxes[i].r, b = boxes[j].r;
            const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
            const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
            if (w > 1 && h > 1) overlaps.push(boxes[i].text + ' / ' + boxes[j].text);
        }
    }
    const width = document.documentElement.clientWidth;
    const outside = boxes.filter(b => !b.owner.closest('.sheet') &&
        (b.r.left < -0.5 || b.r.right > width + 0.5)).map(b => b.text);
    const spilled = boxes.filter(b => b.owner.closest('.card')).filter(b => {
        const c = b.owner.closest('.card').getBoundingClientRect();
        return b.r.left < c.left - 0.5 || b.r.right > c.right + 0.5 ||
               b.r.top < c.top - 0.5 || b.r.bottom > c.bottom + 0.5;
    }).map(b => b.text);
    const header = document.querySelector('header');
    const sticky = getComputedStyle(header).position === 'sticky';
    return {overlaps, outside, spilled, sticky,
            sideways: document.documentElement.scrollWidth - width,
            headerShare: header.getBoundingClientRect().height / window.innerHeight,
            rootFont: parseFloat(getComputedStyle(document.documentElement).fontSize)};
})()"""


@pytest.mark.parametrize(("width", "height", "text", "game"), [
    (390, 844, 16, finished_game), (390, 844, 32, finished_game), (320, 640, 16, finished_game),
    (320, 640, 32, finished_game), (844, 390, 32, finished_game), (1280, 800, 32, finished_game),
    (320, 640, 32, round_ended), (1280, 800, 32, round_ended)],
    ids=["phone", "phone-200%", "320px", "320px-200%", "sideways-200%", "laptop-200%",
         "round-ended-320px-200%", "round-ended-laptop-200%"])
def test_large_text_and_a_narrow_screen_overlap_nothing(
        serve, data: Path, browser: DevTools, width: int, height: int, text: int, game) -> None:
    # finished: the longest names in the header, the places, the last round's result, a full
    # sheet; round ended: its result above every row to enter
    game(data)
    served = serve()
    browser.size(width, height)
    browser.text_size(text)
    drawn(browser, served)
    browser.evaluate("document.getElementById('sheet-box').open = true")
    seen = browser.evaluate(LAYOUT)
    assert seen["rootFont"] == text  # the page follows the reader's text size
    assert seen["overlaps"] == [], seen["overlaps"][:10]
    assert seen["spilled"] == [], seen["spilled"]  # no name runs out of its card
    assert seen["outside"] == [] and seen["sideways"] <= 0, seen
    if seen["sticky"]:  # a header that stays on screen takes a small share of it
        assert seen["headerShare"] <= 0.25, seen["headerShare"]
    # the score sheet can be scrolled by keyboard: it takes the focus and has a name
    region = browser.evaluate("""(() => { const s = document.getElementById('sheet');
        s.focus(); return [document.activeElement === s, s.getAttribute('role'),
                           s.getAttribute('aria-label')]; })()""")
    assert region == [True, "region", "Score sheet"]


def test_the_stores_error_is_an_alert_said_once(serve, data: Path, browser: DevTools) -> None:
    """A game the engine cannot replay (a damaged store): its sentence goes into the alert
    region when it appears, and is not put in again while it stays the same."""
    play(data, game_lines(DEMO_SEED, players=DEMO_PLAYERS)[:12])
    served = serve()
    drawn(browser, served)
    assert browser.evaluate("document.getElementById('problem').textContent") == ""
    browser.evaluate("""(() => { window.lgAlerts = 0; new MutationObserver(ms => {
        window.lgAlerts += ms.length; }).observe(document.getElementById('problem'),
        {childList: true, subtree: true, characterData: true}); return true; })()""")

    def damage(said: str) -> None:
        conn = sqlite3.connect(data / "lifeguard.sqlite3")
        with conn:
            conn.execute("UPDATE entries SET command = 'dave swaps with the moon', said = ? "
                         "WHERE seq = (SELECT max(seq) FROM entries)", (said,))
        conn.close()

    damage("one")
    wait_for(browser, "document.getElementById('problem').textContent !== ''")
    error = browser.evaluate("document.getElementById('problem').textContent")
    assert "game" in error.lower() and browser.evaluate("window.lgAlerts") == 1
    assert browser.evaluate("document.querySelector('#problem > p').className") == "problem"
    damage("two")  # another commit, the same error: nothing new to read
    time.sleep(1.0)
    assert browser.evaluate("window.lgAlerts") == 1
    assert browser.evaluate("document.getElementById('problem').textContent") == error


def test_a_dead_link_is_an_alert(serve, data: Path, browser: DevTools) -> None:
    """The server restarted (a new token on the same port): the page's stream is refused, it
    asks /state.json, gets 404 and says so in the alert region at the top; the page stays
    dimmed (not live)."""
    play(data, game_lines(DEMO_SEED, players=DEMO_PLAYERS)[:12])
    first = serve()
    drawn(browser, served=first)
    assert browser.evaluate("document.getElementById('gone').textContent") == ""
    first.stop()
    serve("--port", str(first.port))
    # first "lost, trying again" (the same alert region), then why it cannot come back
    wait_for(browser, "document.getElementById('gone').textContent.includes('no longer')",
             timeout=20)
    said = browser.evaluate("document.getElementById('gone').textContent")
    assert "no longer works" in said and "Scan the new code" in said
    assert browser.evaluate("document.getElementById('gone').getAttribute('role')") == "alert"
    assert browser.evaluate("document.body.dataset.stale") == "gone"
