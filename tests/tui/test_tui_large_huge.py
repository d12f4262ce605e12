"""Large print on a huge screen (issue 36, item 4): at 200x50 the whose-turn line, the round's
losers, the hand being read out at the reveal and the score sheet's rounds in big type, the
biggest (five lines, ``big(..., scale=2)``) where it fits; at 80x24 nothing of that pushes what
matters off the screen."""

from __future__ import annotations

import pytest

from assistant.tui.bigtype import FONT, big, big_width, rows_of
from assistant.tui.reveal import HandGrid, ResultsView

from .conftest import GAME_FILE, game_lines, submit_all
from .test_tui_five import FIVE, HANDS, QUICK, TO_REVEAL, text_of
from .test_tui_large_print import shows_big


def shows_bigger(shown: str, word: str) -> bool:
    """``word`` in the biggest type (five lines) somewhere in ``shown``."""
    lines, rows = shown.splitlines(), [line.plain for line in big(word, scale=2)]
    for i in range(len(lines) - 4):
        at = lines[i].find(rows[0])
        while at >= 0:
            if all(lines[i + k][at:at + len(rows[k])] == rows[k] for k in range(1, 5)):
                return True
            at = lines[i].find(rows[0], at + 1)
    return False


def test_the_biggest_type_is_five_by_five_and_joins_its_strokes() -> None:
    for character in FONT:
        rows = [line.plain for line in big(character, scale=2)]
        assert len(rows) == rows_of(2) == 5 and {len(r) for r in rows} == {5}, character
    assert [line.plain for line in big("A", scale=2)] == ["┏━━━┓", "┃   ┃", "┣━━━┫", "┃   ┃", "╹   ╹"]
    assert [line.plain for line in big("1", scale=2)] == ["╺━┓  ", "  ┃  ", "  ┃  ", "  ┃  ", "╺━┻━╸"]
    assert big_width("ANNE", scale=2) == 4 * 6 - 1
    hangul = [line.plain for line in big("김 -2", scale=2)]
    assert hangul[2].startswith("김 ") and not hangul[0].strip().startswith("김")


async def test_the_hand_read_out_is_in_big_type_beside_the_grid_at_200x50(make_app) -> None:
    """At 200x50 the checks left most of their side empty: the hand under the cursor, its
    name and count, in big type above them, following the cursor and the digits typed."""
    app = make_app(QUICK)
    async with app.run_test(size=(200, 50)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, TO_REVEAL)
        grid = app.table.query_one(HandGrid)
        checks = app.table.query_one("#checks")
        assert checks.region.x >= grid.region.right
        assert shows_big(text_of(checks), "ANNE-MARIE 0/10")
        await pilot.press("4")  # four giraffes in Anne-Marie's hand
        await pilot.pause()
        assert shows_big(text_of(checks), "ANNE-MARIE 4/10")
        await pilot.press("right")
        await pilot.pause()
        assert shows_big(text_of(checks), "BARTHOLOMEW 0/10")
        assert "Anne-Marie: 4 of 10 cards" in text_of(checks)  # the checks still under it


async def test_no_big_count_beside_the_grid_at_120x40(make_app) -> None:
    app = make_app(QUICK)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, TO_REVEAL)
        shown = text_of(app.table.query_one("#checks"))
        assert shown.lstrip().startswith("Anne-Marie: 0 of 10 cards")


async def test_the_losers_in_the_biggest_type_at_200x50(make_app) -> None:
    """Two losers at 200x50: in the biggest type, and the results' rows keep their gaps."""
    app = make_app()
    async with app.run_test(size=(200, 50)) as pilot:
        await pilot.press("escape")
        lines = game_lines(GAME_FILE)
        hands = [i for i, line in enumerate(lines) if " has " in line]
        await submit_all(pilot, lines[: hands[2] + 1])
        await pilot.pause()
        results = app.table.query_one(ResultsView)
        ended = app.view.game.rounds[-1]
        losers = [p for p in ended.losses if ended.losses[p]]
        shown = text_of(results)
        assert losers and shows_bigger(shown, "  ".join(f"{p.upper()} -{ended.losses[p]}" for p in
                                                        sorted(losers, key=lambda p: -ended.losses[p])))
        rows = shown.splitlines()
        start = next(i for i, line in enumerate(rows) if line.strip().startswith("points"))
        assert not rows[start + 1].strip()  # spaced rows: the blank line under "points"
        assert results.region.bottom <= app.table.query_one("#log").region.y


@pytest.mark.parametrize("size", [(80, 24), (200, 50)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_five_losers_keep_the_rows_in_view(make_app, size) -> None:
    """Five long names lose lives: the big losers never push the points and lives rows off,
    at 80x24 (F4) or 200x50 (where five of them do not fit the biggest type)."""
    app = make_app(QUICK)
    async with app.run_test(size=size) as pilot:
        await pilot.press("escape")
        if size[0] < 100:
            await pilot.press("f4")
        await submit_all(pilot, [*TO_REVEAL, *[f"{p} has {HANDS[p]}" for p in FIVE]])
        results = app.table.query_one(ResultsView)
        visible = text_of(results).splitlines()[: app.table.query_one("#log").region.y - results.region.y]
        assert any(line.strip().startswith("points") for line in visible)
        assert any(line.strip().startswith("lives (lost)") for line in visible)
        ended = app.view.game.rounds[-1]
        worst = max(FIVE, key=lambda p: ended.losses[p])
        assert ended.losses[worst]
        if size[0] >= 200:
            assert shows_big("\n".join(visible), f"{worst.upper()} -{ended.losses[worst]}")


async def test_the_grid_cuts_names_only_as_far_as_it_must_at_80x24(make_app) -> None:
    """Large print (F4) at 80x24: names were cut to "ANNE-…" for nothing, then to "ANNE-MA…"
    by large print's wide cells while normal print had them whole: closer cells, the names
    whole, every row and the totals in view, the hand being read out in big type above."""
    from .test_tui_large_print import shows_big

    app = make_app(QUICK)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape")
        await pilot.press("f4")
        await submit_all(pilot, [*TO_REVEAL, f"Anne-Marie has {HANDS['Anne-Marie']}"])
        await pilot.pause()
        grid = app.table.query_one(HandGrid)
        labels = [str(c.label) for c in grid.columns.values()][1:]
        assert labels == [n.upper() for n in FIVE]
        assert grid.region.right <= 80
        shown = text_of(grid).splitlines()
        assert len(shown) == 12 and shown[-1].split()[0] == "TOTAL"  # none scrolled off
        assert grid.region.bottom <= app.table.query_one("#log").region.y
        assert shows_big(text_of(app.table.query_one("#big")), "BARTHOLOMEW'S HAND")
        checks = text_of(app.table.query_one("#checks"))
        assert checks.strip().startswith("Bartholomew: 0 of 10 cards")


async def test_the_score_sheet_in_big_type_only_where_it_fits(make_app) -> None:
    """Five players, five rounds: the rounds in big type need about 160 columns and 34 lines."""
    from assistant.tui.reveal import big_sheet_fits

    from .test_tui_five import GAME_FIVE

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, game_lines(GAME_FIVE)[:-1])
        table = app.view.table
        assert len(table.sheet) == 5
        assert big_sheet_fits(table, 200, 50)
        assert not big_sheet_fits(table, 150, 50)  # five columns of "11 OUT (-2)" in big type
        assert not big_sheet_fits(table, 200, 30)  # four lines a round
