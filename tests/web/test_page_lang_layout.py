"""Wide characters on the phone page (issue 39, item 6): Korean names and words are neither cut
nor misaligned, in headless Debian chromium with a Korean font (the Makefile's fonts-nanum).

A Korean table with an eleven-syllable name, at a phone's size, at 320 px with 200% text and on
a laptop, the score sheet open: the page never scrolls sideways; every name, mark, animal and
heart stays inside its card, line or cell, with nothing clipped; a Korean word (a label, a
mark, an animal, a short name) is never broken over two lines (a name longer than its box
wraps inside it, whole); the score sheet's columns stay under their names. The same for a German
table (its longest animal, Maulwurf, on a card four to a row). Skipped only where chromium is
missing outside CI; in CI it must be there, with the font.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.web.browser import (
    DEMO_LINES,
    DEMO_PLAYERS,
    DEMO_SEED,
    DevTools,
    skip_module_without_browser,
)
from tests.web.conftest import game_lines
from tests.web.test_page_lang import KOREAN_NAMES, lines_in, opened, table_in

skip_module_without_browser()

#: Real chromium, a server each: left out of `make check` like the other browser tests.
pytestmark = pytest.mark.slow

#: Width, height and text size (16 px is 100%): a phone, the narrowest screen with large
#: text (WCAG's reflow), and a laptop (the players beside the rows).
SIZES = {"phone": (390, 844, 16), "narrow-200%": (320, 844, 32), "laptop": (1280, 800, 16)}


def korean_font() -> bool:
    """Whether fontconfig has a font for Korean (without one Hangul is drawn as empty boxes,
    and no width measured here would mean anything)."""
    if shutil.which("fc-list") is None:
        return False
    done = subprocess.run(["fc-list", ":lang=ko", "family"], capture_output=True, text=True, timeout=30)
    return bool(done.stdout.strip())


#: What is cut, spills out or is misaligned on the page as drawn now: a list of sentences.
FIT = """(() => {
    const problems = [];
    const visible = n => n.getClientRects().length > 0 && !n.closest('.visually-hidden, [hidden]');
    const root = document.documentElement;
    if (root.scrollWidth > window.innerWidth + 1) {
        problems.push('the page scrolls sideways: ' + root.scrollWidth + ' > ' + window.innerWidth);
    }
    const inside = (node, box, what) => {
        if (!visible(node)) { return; }
        const a = node.getBoundingClientRect(), b = box.getBoundingClientRect();
        if (a.left < b.left - 1 || a.right > b.right + 1) {
            problems.push(what + ' spills out of its box: ' + node.textContent);
        }
        if (node.scrollWidth > node.clientWidth + 1 && getComputedStyle(node).display !== 'inline') {
            problems.push(what + ' is clipped: ' + node.textContent);
        }
    };
    document.querySelectorAll('.player').forEach(p => p.querySelectorAll('.name, .mark, .hearts')
        .forEach(n => inside(n, p, 'a player\\'s ' + n.className)));
    document.querySelectorAll('.card').forEach(c => c.querySelectorAll('.name, .points')
        .forEach(n => inside(n, c, 'a card\\'s ' + n.className)));
    document.querySelectorAll('.result li, .places li').forEach(li => [...li.children]
        .forEach(n => inside(n, li, 'a result\\'s ' + n.className)));
    document.querySelectorAll('#sheet th, #sheet td').forEach(cell => [...cell.children]
        .forEach(n => inside(n, cell, 'a score sheet cell\\'s ' + n.className)));
    document.querySelectorAll('header > *, h2, summary, footer > span, .row-label')
        .forEach(n => inside(n, n.parentElement, n.id || n.className || n.tagName));
    // a short Korean word (a label, a mark, an animal, a short name) on one line
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let text = walker.nextNode(); text; text = walker.nextNode()) {
        const parent = text.parentElement;
        if (!parent || parent.closest('script, noscript') || !visible(parent)) { continue; }
        for (const m of text.textContent.matchAll(/[\\uAC00-\\uD7A3]+/g)) {
            if (m[0].length < 2 || m[0].length > 6) { continue; }  // a long name may wrap
            const range = document.createRange();
            range.setStart(text, m.index);
            range.setEnd(text, m.index + m[0].length);
            const tops = new Set([...range.getClientRects()].filter(r => r.width > 0)
                .map(r => Math.round(r.top)));
            if (tops.size > 1) { problems.push('a word broken over two lines: ' + m[0]); }
        }
    }
    // the same for each animal on its card (a German noun too)
    document.querySelectorAll('.card .name').forEach(n => {
        const range = document.createRange();
        range.selectNodeContents(n);
        const tops = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
        if (tops.size > 1) { problems.push('an animal broken over two lines: ' + n.textContent); }
    });
    // the score sheet: every cell under its column's head, the players' columns equally wide
    const heads = [...document.querySelectorAll('#sheet thead th')];
    if (heads.length && visible(heads[0])) {
        const lefts = heads.map(th => Math.round(th.getBoundingClientRect().left));
        document.querySelectorAll('#sheet tbody tr, #sheet tfoot tr').forEach(tr => {
            [...tr.children].forEach((cell, i) => {
                if (Math.abs(Math.round(cell.getBoundingClientRect().left) - lefts[i]) > 1) {
                    problems.push('a score sheet cell out of its column: ' + cell.textContent);
                }
            });
        });
        const widths = heads.slice(1).map(th => th.getBoundingClientRect().width);
        if (Math.max(...widths) - Math.min(...widths) > 1) {
            problems.push('the players\\' columns differ in width: ' + widths.join(', '));
        }
    }
    return problems;
})()"""


@pytest.mark.parametrize("language", ["ko", "de"])
def test_names_and_words_fit_without_a_cut_at_every_size(data: Path, browser: DevTools, language: str) -> None:
    if language == "ko" and not korean_font():
        if os.environ.get("CI"):
            pytest.fail("no font for Korean: make setup installs fonts-nanum")
        pytest.skip("no font for Korean (make setup installs fonts-nanum)")
    lines = lines_in(language, game_lines(DEMO_SEED, players=DEMO_PLAYERS)[:DEMO_LINES])
    found = {}
    with table_in(language, data, lines) as server:
        for size, (width, height, text) in SIZES.items():
            browser.size(width, height)
            browser.text_size(text)
            state = opened(browser, server)
            browser.evaluate("document.getElementById('sheet-box').open = true")
            problems = browser.evaluate(FIT)
            if problems:
                found[size] = problems
            names = browser.evaluate("[...document.querySelectorAll('#players .name')].map(n => n.textContent)")
            assert names == [p["name"].title() for p in state["players"]], size  # whole, not cut
    assert not found, json.dumps(found, indent=1, ensure_ascii=False)[:6000]
    if language == "ko":
        assert KOREAN_NAMES["dave"] in names  # the long name was there to fit


def test_the_check_sees_a_cut_word(data: Path, browser: DevTools) -> None:
    """The check above can fail: Korean broken between any two syllables (the browser's
    default without ``keep-all``) in a box too narrow for its words is found."""
    if not korean_font():
        pytest.skip("no font for Korean (make setup installs fonts-nanum)")
    lines = lines_in("ko", game_lines(DEMO_SEED, players=DEMO_PLAYERS)[:DEMO_LINES])
    with table_in("ko", data, lines) as server:
        opened(browser, server)
        browser.evaluate("document.body.style.wordBreak = 'normal';"
                         "document.getElementById('said-title').style.width = '1.2em'")
        problems = browser.evaluate(FIT)
    assert any(p.startswith("a word broken over two lines") for p in problems), problems
