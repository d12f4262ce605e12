"""Wide characters (issue 39, item 6): a Hangul syllable takes two terminal cells. Korean names,
alone and beside Latin ones, are never cut early, never push a column out of line, and large
print (whose block font has no Hangul) shows them in bold normal type, never as ``?``.

Every line of the screen is measured in cells (``rich.cells.cell_len``) at 80x24 and 120x40."""

from __future__ import annotations

import re

import pytest
from rich.cells import cell_len

from assistant.tui.bigtype import big, big_cut, big_width, in_font
from assistant.tui.cells import centred, cut, padded, spaced
from assistant.tui.reveal import HandGrid, ResultsView, ScoreSheet
from assistant.tui.screens import GameOverScreen, ScoreSheetScreen
from assistant.tui.widgets import PlayersPanel, fitted_hint, name_limit, short_names

from .conftest import game_lines, submit_all
from .test_tui_five import FIVE, GAME_FIVE, text_of

KOREAN = ("김민준", "이서연", "박지우", "최하은", "정예준")
#: Latin and Hangul at one table, and a name mixing both.
MIXED = ("김민준", "Bartholomew", "박지우", "Dorothea", "Jae-민")
SIZES = [(80, 24), (120, 40)]


def renamed(names: tuple[str, ...]) -> list[str]:
    """The five-player game of ``game_five.txt`` with ``names`` for its five long ones."""
    lines = []
    for line in game_lines(GAME_FIVE):
        for old, new in zip(FIVE, names, strict=True):
            line = line.replace(old, new)
        lines.append(line)
    return lines


def screen_lines(app) -> list[str]:
    """The whole screen as drawn, a line of text per row of cells."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


def assert_fits(app, width: int) -> None:
    """No row of the screen is wider than the terminal."""
    for line in screen_lines(app):
        assert cell_len(line.rstrip()) <= width, line


# ---------------------------------------------------------------------------- the helpers
def test_cut_and_pad_count_cells_not_letters() -> None:
    assert cut("김민준", 6) == "김민준" and cut("김민준", 5) == "김민…" and cut("김민준", 4) == "김…"
    assert cut("Bartholomew", 6) == "Barth…"
    assert cell_len(padded("김민준", 8)) == 8 and padded("Ann", 8) == "Ann     "
    for word in ("두더지", "GIRAFFE", "Maulwürfe", "x"):
        for width in (9, 10, 20):
            assert cell_len(centred(word, width)) == width
            if word.isascii():
                assert centred(word, width) == word.center(width)
    assert spaced("ANNE") == "A N N E" and spaced("김민준") == "김민준"


def test_short_names_measure_cells() -> None:
    """Cut alike by cells: a six-cell Korean name is whole at 6, cut at 4; two names that
    start alike stay apart."""
    assert short_names(KOREAN, 6) == {p: p for p in KOREAN}
    assert short_names(KOREAN, 4) == {p: p[0] + "…" for p in KOREAN}
    # 김… and 김민… would read alike: one length for all, here whole
    assert short_names(("김민준", "김민수", "이서연"), 4) == {p: p for p in ("김민준", "김민수", "이서연")}
    assert name_limit(FIVE, 11) is None and name_limit(FIVE, 9) == 9 and name_limit(FIVE, 3) == 6
    assert name_limit(KOREAN, 6) is None


def test_big_type_falls_back_to_normal_type_for_hangul() -> None:
    """The block font has no Hangul: the name stays in normal type on the middle line (bold),
    never a row of ``?``; what the font has stays big beside it."""
    lines = big("이서연'S TURN")
    assert [line.plain for line in lines][1].startswith("이서연 ")
    assert "?" not in "".join(line.plain for line in lines)
    assert {line.cell_len for line in lines} == {big_width("이서연'S TURN")}
    tail = [line.plain for line in big("'S TURN")]
    assert all(line.endswith(t) for line, t in zip([x.plain for x in lines], tail, strict=True))
    assert not in_font("김민준") and not in_font("Jae-민") and in_font("ANNE-MARIE")
    assert big("Jürgen")[1].plain == big("JURGEN")[1].plain and big_width("ß") == big_width("SS")
    assert big_width(big_cut("이서연'S TURN", 10)) <= 10


def test_hint_counts_cells() -> None:
    parts = ["이서연 swaps ROW", "Tab types '이서연'"]
    assert fitted_hint(parts, cell_len(parts[0]) + 3 + cell_len(parts[1])) == " · ".join(parts)
    assert fitted_hint(parts, len(parts[0]) + 3 + len(parts[1])) == parts[0]


# ---------------------------------------------------------------------------- the screens
@pytest.mark.parametrize("names", [KOREAN, MIXED], ids=["korean", "mixed"])
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_players_panel_keeps_korean_names_whole(make_app, size, names) -> None:
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, renamed(names)[:30])  # round 2, the fifth player's turn
        await pilot.press("f8")
        await pilot.pause()
        panel = app.table.query_one(PlayersPanel)
        shown = text_of(panel)
        for name in names:
            assert any(shape in shown for shape in (name, name.upper(), spaced(name.upper()))), name
        assert all(line.cell_len <= panel.content_region.width for line in panel.lines())
        top = [line for line in screen_lines(app)[:5] if line.strip()]
        assert "?" not in "".join(top)  # the big line: the name in normal type, no ???
        assert names[4] in top[0] or names[4].upper() in top[0]  # whose turn: whole
        assert_fits(app, size[0])


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_hand_grid_keeps_korean_names_in_line(make_app, size) -> None:
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, renamed(KOREAN)[:20])  # two hands declared
        grid = app.table.query_one(HandGrid)
        labels = [str(c.label) for c in grid.columns.values()][1:]
        assert labels == list(KOREAN)  # six cells each: whole at both sizes
        widths = [c.get_render_width(grid) for c in grid.columns.values()]
        rendered = text_of(grid).splitlines()
        header = rendered[0]
        x = 0  # every heading starts in its own column
        for width, label in zip(widths, ["animal", *labels], strict=True):
            at = header.find(label) if label != "animal" else header.lower().find("animal")
            assert at >= 0 and x <= cell_len(header[:at]) < x + width, (label, header)
            x += width
        assert_fits(app, size[0])


@pytest.mark.parametrize("names", [KOREAN, MIXED], ids=["korean", "mixed"])
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_results_keep_korean_names_whole(make_app, size, names) -> None:
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, renamed(names)[:21])  # round 1 scored
        results = app.table.query_one(ResultsView)
        shown = text_of(results)
        header = next(line for line in shown.splitlines() if line.strip().lower().startswith("animal"))
        # whole, or where space is really short (80 columns, Bartholomew) cut alike
        shown_names = header.split()[1:len(names) + 1]
        assert shown_names in (list(names), list(short_names(names, 6).values())), header
        if names == KOREAN or size[0] >= 120:
            assert shown_names == list(names)
        for m in app.view.game.rounds[-1].majorities:  # the majority column is never cut
            if m.winner:
                name = dict(zip(names, shown_names, strict=True))[m.winner]
                assert f"{name} +{m.animal.points}" in shown
        assert "?" not in shown
        assert_fits(app, size[0])


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_score_sheet_and_game_over_with_korean_names(make_app, size) -> None:
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await pilot.press("escape")
        lines = renamed(KOREAN)
        await submit_all(pilot, lines[:-1])
        await pilot.press("f3")
        await pilot.pause()
        assert isinstance(app.screen, ScoreSheetScreen)
        sheet = text_of(app.screen.query_one(ScoreSheet))
        rows = sheet.splitlines()
        at = next(i for i, line in enumerate(rows) if KOREAN[0] in line)
        assert rows[at].split() == list(KOREAN)
        # each name over its own column: the cell where it starts is where "pts" starts
        names = [cell_len(rows[at][:rows[at].index(n)]) for n in KOREAN]
        pts = [cell_len(rows[at + 1][:m.start()]) for m in re.finditer("pts", rows[at + 1].lower())]
        assert names == pts
        assert_fits(app, size[0])
        await pilot.press("escape")
        await submit_all(pilot, lines[-1:])
        await pilot.pause()
        assert isinstance(app.screen, GameOverScreen)
        winner = text_of(app.screen.query_one("#winner"))
        assert "정예준" in winner and "?" not in winner
        places = text_of(app.screen.query_one("#out-order"))
        for name in KOREAN:
            assert name in places
        assert_fits(app, size[0])


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_large_print_with_korean_names(make_app, size) -> None:
    """Large print (F4 at 80x24; by the size at 120x40): the names beside the big lives in
    normal type (never spaced out syllable by syllable), the losers' names beside their big
    lost lives."""
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await pilot.press("escape")
        if size[0] < 100:
            await pilot.press("f4")
        lines = renamed(KOREAN)
        await submit_all(pilot, lines[:14])
        assert app.table.large
        shown = text_of(app.table.query_one(PlayersPanel))
        for name in KOREAN:
            assert name in shown
        assert "김 민 준" not in shown
        assert_fits(app, size[0])
        await submit_all(pilot, lines[14:21])  # round 1 scored
        results = text_of(app.table.query_one(ResultsView))
        ended = app.view.game.rounds[-1]
        for p, lost in ended.losses.items():
            if lost:
                assert p in results
        assert "?" not in results
        assert_fits(app, size[0])
