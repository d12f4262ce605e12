"""Five players with long names on small and large screens (issue 36): nothing cut to a strip,
names shortened the same way wherever space is short, the rows that matter always in view."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.geometry import Region

from assistant.config import Settings
from assistant.tui.reveal import HandGrid, ResultsView, ScoreSheet
from assistant.tui.screens import GameOverScreen, ScoreSheetScreen
from assistant.tui.widgets import StatusLine, short_names
from engine.game import Phase
from engine.rules import HouseRules

from .conftest import game_lines, submit_all

FIVE = ("Anne-Marie", "Bartholomew", "Christopher", "Dorothea", "Evangeline")
QUICK = Settings(rules=HouseRules(knock_requires_swap=False))
ROWS = ["row 1 giraffe", "row 2 bear bear", "row 3 mole mole mole", "row 4 goat goat goat goat"]
TO_REVEAL = [f"new game {' '.join(FIVE)}", "Anne-Marie starts", *ROWS, "Anne-Marie knocks",
             *[f"{p} passes" for p in FIVE[1:]]]
HANDS = {
    "Anne-Marie": "8 giraffe 2 mouse",
    "Bartholomew": "5 pig 5 rabbit",
    "Christopher": "6 bear 4 cat",
    "Dorothea": "4 mole 6 dog",
    "Evangeline": "3 goat 6 sheep 1 mouse",
}


def text_of(widget) -> str:
    region = widget.region
    lines = widget.render_lines(Region(0, 0, region.width, region.height))
    return "\n".join(strip.text for strip in lines)


def test_short_names_are_cut_alike_and_stay_apart() -> None:
    assert list(short_names(FIVE, 6).values()) == ["Anne-…", "Barth…", "Chris…", "Dorot…", "Evang…"]
    assert short_names(("christopher", "christine", "al"), 6) == \
        {"christopher": "Christo…", "christine": "Christi…", "al": "Al"}
    assert short_names(FIVE, None)["Anne-Marie"] == "Anne-Marie"


async def test_the_checks_go_under_the_grid_at_80x24(make_app) -> None:
    """At 80x24 the checks were a strip three letters wide beside the grid, the top line
    wrapped and the status line was pushed off."""
    app = make_app(QUICK)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, TO_REVEAL)
        assert app.view.game.phase is Phase.REVEAL
        grid = app.table.query_one(HandGrid)
        checks = app.table.query_one("#checks")
        assert app.table.query_one("#reveal").has_class("stacked")
        assert checks.region.y >= grid.region.bottom and checks.region.width >= 70
        shown = text_of(checks)
        assert "Anne-Marie: 1 of 10 cards." not in shown  # nobody has swapped: 0 known
        assert shown.splitlines()[0].startswith("Anne-Marie: 0 of 10 cards")
        assert "Bartholomew 0/10 · Christopher 0/10 · Dorothea 0/10 · Evangeline 0/10" in shown
        labels = [str(c.label) for c in grid.columns.values()][1:]
        assert labels == list(FIVE)  # under the grid, the grid has the width for whole names
        assert grid.region.right <= 80
        # every row of the grid, its total too, is in view
        assert grid.region.height >= 12
        top = app.table.query_one("#next")
        assert top.region.height == 1
        # cut alike, as little as fits (the round and phase gone first: the grid shows them)
        assert "waiting for Anne-Ma…, Barthol…, Christo…, Dorothea and Evangel…" in text_of(top)
        status = app.table.query_one(StatusLine)
        assert status.region.y < 24 and status.region.height == 1
        assert status.region.y > app.table.query_one("#command").region.y


async def test_the_checks_stay_beside_the_grid_at_120x40_with_whole_names(make_app) -> None:
    app = make_app(QUICK)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, TO_REVEAL)
        grid = app.table.query_one(HandGrid)
        assert not app.table.query_one("#reveal").has_class("stacked")
        labels = [str(c.label) for c in grid.columns.values()][1:]
        assert labels == ["ANNE-MARIE", "BARTHOLOMEW", "CHRISTOPHER", "DOROTHEA", "EVANGELINE"]
        checks = app.table.query_one("#checks")
        assert checks.region.x >= grid.region.right and checks.region.width >= 24
        assert "Anne-Marie: 0 of 10 cards" in " ".join(text_of(checks).split())


@pytest.mark.parametrize("size", [(80, 24), (100, 30)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_round_results_always_show_points_and_lives(make_app, size) -> None:
    """At 80x24 and 100x30 the majority column wrapped, the table ran past the screen's edge
    and the points and lives rows, the two that matter, were below it."""
    app = make_app(QUICK)
    async with app.run_test(size=size) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, [*TO_REVEAL, *[f"{p} has {HANDS[p]}" for p in FIVE]])
        assert app.table.query_one("#view").current == "results"
        results = app.table.query_one(ResultsView)
        screen_bottom = app.table.query_one("#log").region.y
        shown = text_of(results).splitlines()
        visible = shown[: screen_bottom - results.region.y]
        points = next(line for line in visible if line.strip().startswith("points"))
        lives = next(line for line in visible if line.strip().startswith("lives (lost)"))
        ended = app.view.game.rounds[-1]
        assert points.split()[1:] == [str(ended.points[p]) for p in FIVE]
        assert "(-2)" in lives and "(-1)" in lives
        # no cell wrapped: one line per animal with a majority, names cut alike if at all
        assert sum(1 for line in shown if "+" in line) == len(ended.majorities)
        header = next(line for line in shown if line.strip().startswith("animal"))
        assert header.split()[1:6] in (list(FIVE), ["Anne-…", "Barth…", "Chris…", "Dorot…", "Evang…"])
        assert results.region.right <= size[0]


GAME_FIVE = Path(__file__).with_name("game_five.txt")


@pytest.mark.parametrize("size", [(80, 24), (120, 30)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_score_sheet_shows_every_player(make_app, size) -> None:
    """F3 cut players off (80x24: three of five; 120x30: the last ended at "Evan"): columns
    were a name wide for the points and again for the lives."""
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, game_lines(GAME_FIVE)[:-1])
        await pilot.press("f3")
        await pilot.pause()
        assert isinstance(app.screen, ScoreSheetScreen)
        sheet = app.screen.query_one(ScoreSheet)
        assert sheet.region.right <= size[0]
        shown = text_of(sheet)
        header = shown.splitlines()[1]
        assert header.split() == list(FIVE)
        rounds = [line.split()[0] for line in shown.splitlines()[4:] if line.strip()]
        assert rounds[:5] == ["1", "2", "3", "4", "5"]  # one line each
        assert "OUT (-2)" in shown


async def test_game_over_says_there_is_more_below_at_80x24(make_app) -> None:
    """The place row and the results were below the fold with no sign of them."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, game_lines(GAME_FIVE))
        await pilot.pause()
        assert isinstance(app.screen, GameOverScreen)
        await pilot.pause(0.2)
        more = app.screen.query_one("#more")
        assert more.display and "more below" in str(more.render())
        # no cell wraps: a round is one line ("OUT (-2)" wrapped for some players)
        sheet_text = text_of(app.screen.query_one(ScoreSheet))
        assert sheet_text.count("OUT (-2)") == 4 and "OUT (-\n" not in sheet_text
        await pilot.press("end")
        await pilot.pause(0.2)
        assert not more.display  # at the end: nothing more below
        body = app.screen.query_one("#over-body")
        assert body.scroll_y == body.max_scroll_y > 0


async def test_large_print_is_big_type_at_200x50(make_app) -> None:
    """Large print was letter spacing: now whose turn it is, every player's lives, a round's
    losers and the winner are in big type three lines high (readable from two metres)."""
    from assistant.tui.bigtype import big
    from assistant.tui.widgets import PlayersPanel

    app = make_app(QUICK)
    async with app.run_test(size=(200, 50)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, TO_REVEAL[:6])  # the rows: Anne-Marie's turn
        assert app.table.has_class("large") and app.table.has_class("big")
        top = app.table.query_one("#big")
        assert top.region.height == 5  # the biggest type on a huge screen (HUGE_FROM)
        shown = [line.strip() for line in text_of(top).splitlines()]
        assert shown == [line.plain.strip() for line in big("ANNE-MARIE'S TURN", scale=2)]
        panel = app.table.query_one(PlayersPanel)
        five = big("5")
        lines = [line.plain for line in panel.lines()]
        assert sum(1 for line in lines if line.startswith(five[0].plain)) == 5  # a 5 each
        await submit_all(pilot, [*TO_REVEAL[6:], *[f"{p} has {HANDS[p]}" for p in FIVE]])
        results = app.table.query_one(ResultsView)
        ended = app.view.game.rounds[-1]
        losers = [p for p in FIVE if ended.losses[p]]
        shown = text_of(results)
        assert losers
        for p in losers:  # each loser with the lives lost, in big type
            assert big(f"{p.upper()} -{ended.losses[p]}")[0].plain in shown
        assert results.region.width >= 150  # the width it is given


async def test_the_winner_is_in_big_type_at_200x50(make_app) -> None:
    from assistant.tui.bigtype import big

    app = make_app()
    async with app.run_test(size=(200, 50)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, game_lines(GAME_FIVE))
        await pilot.pause()
        assert isinstance(app.screen, GameOverScreen)
        winner = app.view.game.winners[0]
        banner = text_of(app.screen.query_one("#winner"))
        assert big(f"{winner.upper()} WINS!")[1].plain in banner


async def test_large_print_with_known_cards_keeps_every_player_at_80x24(make_app) -> None:
    """Large print (F4) and the known cards (F8) at 80x24: the last player's cards dropped off
    the bottom, and names in spaced capitals wrapped. Each player on one line, the names whole:
    the panel's 28 cells have room for "BARTHOLOMEW" beside the hearts (they were cut to
    "BARTH…" though they fitted)."""
    from assistant.tui.widgets import PlayersPanel

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, game_lines(GAME_FIVE)[:14])  # round 1, everyone has swapped
        await pilot.press("f4", "f8")
        await pilot.pause()
        panel = app.table.query_one(PlayersPanel)
        assert panel.large and panel.show_known
        lines = panel.lines()
        assert len(lines) <= panel.budget
        assert all(line.cell_len <= panel.content_region.width for line in lines)
        text = "\n".join(line.plain for line in lines)
        players = [line for line in text.splitlines() if "♥" in line or "♡" in line]
        assert len(players) == 5
        for name, line in zip(FIVE, players, strict=True):
            assert f" {name.upper()} " in line
        assert len({line.index("♥") for line in players}) == 1  # the hearts in one column
        assert "…" not in text
        game = app.view.game
        for p in FIVE:
            for animal in game.known[p].counts():
                assert animal.value[:3] in text
        assert panel.region.bottom <= app.table.query_one("#log").region.y


@pytest.mark.parametrize(("size", "spaced"), [((200, 50), True), ((120, 40), False)],
                         ids=["200x50", "120x40"])
async def test_the_round_results_rows_are_spaced_when_there_are_lines_for_it(make_app, size,
                                                                            spaced) -> None:
    """Issue 36: at 200x50 in large print the results' rows were packed, half the lines unused
    (the table's ``leading`` draws nothing without a box). At 120x40 the spaced table would not
    fit above the log: packed, every row on screen."""
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await pilot.press("escape")
        lines = game_lines()
        hands = [i for i, line in enumerate(lines) if " has " in line]
        await submit_all(pilot, lines[: hands[2] + 1])  # the first round scored
        await pilot.pause()
        results = app.table.query_one(ResultsView)
        shown = text_of(results).splitlines()
        start = next(i for i, line in enumerate(shown) if line.strip().startswith("points"))
        mouse = next(i for i, line in enumerate(shown) if line.strip().startswith("MOUSE"))
        table = shown[start:mouse + 1]
        blanks = [line for line in table if not line.strip()]
        rows = len(table) - len(blanks)
        assert rows == 12  # points, lives and ten animals
        assert len(blanks) == (rows - 1 if spaced else 0)
        assert results.region.bottom <= app.table.query_one("#main").region.bottom


async def test_five_players_keep_their_lives_in_big_type_at_100x30(make_app) -> None:
    """Issue 36: at 100x30 five players' lives fell back to hearts only (the big digits and a
    blank line between players took 19 lines of 17); without the blank lines they fit."""
    from assistant.tui.bigtype import big
    from assistant.tui.widgets import PlayersPanel

    app = make_app(QUICK)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, TO_REVEAL[:6])  # the rows: Anne-Marie's turn
        await pilot.pause()
        assert app.table.has_class("large")
        panel = app.table.query_one(PlayersPanel)
        lines = [line.plain for line in panel.lines()]
        assert panel.budget is not None and len(lines) <= panel.budget
        five = big("5")
        assert sum(1 for line in lines if line.startswith(five[0].plain)) == 5  # a 5 each
        shown = text_of(panel)
        for p in FIVE:  # every name on screen, the panel inside the table's part
            assert " ".join(p.upper()) in shown
        assert panel.region.bottom <= app.table.query_one("#main").region.bottom


async def test_large_print_results_keep_every_loss_in_view_at_80x24(make_app) -> None:
    """Issue 36: in large print at 80x24 the big-type losers took the screen (three of five
    shown), Dorothea's loss and the points and lives rows were off it, with no cue; then the
    losses' heading pushed PIG, CAT and MOUSE off. Now the table alone, every row of it, its
    title in its first heading; the lives row says who lost what."""
    app = make_app(QUICK)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape")
        await pilot.press("f4")
        await submit_all(pilot, [*TO_REVEAL, *[f"{p} has {HANDS[p]}" for p in FIVE]])
        assert app.table.query_one("#view").current == "results"
        results = app.table.query_one(ResultsView)
        assert results.large
        bottom = min(24, app.table.query_one("#log").region.y)
        shown = text_of(results).splitlines()[: bottom - results.region.y]
        ended = app.view.game.rounds[-1]
        losers = [p for p in FIVE if ended.losses[p]]
        assert len(losers) >= 3
        assert shown[0].split()[:2] == ["Round", "1"]
        points = next(line for line in shown if line.strip().startswith("points"))
        lives = next(line for line in shown if line.strip().startswith("lives (lost)"))
        assert points.split()[1:] == [str(ended.points[p]) for p in FIVE]
        assert lives.count("(-") == len(losers)
        rows = [line.split()[0] for line in shown[3:] if line.strip()]
        assert rows == [m.animal.value.upper() for m in ended.majorities]  # every animal's row


async def test_tab_completes_a_half_typed_name(make_app) -> None:
    """Issue 36: ``chr`` and Tab on Christopher's turn did nothing, though the README says Tab
    completes what is expected now."""
    from assistant.tui.widgets import expected_start

    app = make_app(QUICK)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, TO_REVEAL[:8])  # Anne-Marie knocked, Bartholomew passed
        assert app.view.game.turn == "Christopher"
        start = expected_start(app.view.game)
        assert start.startswith("Christopher")
        field = app.command_input
        for key in "chr":
            await pilot.press(key)
        await pilot.press("tab")
        assert field.value == start and field.cursor_position == len(start)
        field.value = "zz"
        await pilot.press("tab")
        assert field.value == "zz"  # not the start of what is expected: left as typed


async def test_known_cards_never_fall_off_the_panel_without_a_cue_at_80x24(make_app) -> None:
    """Issue 36: with F8 at 80x24 late in round 1 the last player's "in hand" line fell off
    the players panel with no sign of it."""
    from assistant.tui.widgets import PlayersPanel

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, game_lines(GAME_FIVE)[:14])
        await pilot.press("f8")
        await pilot.pause()
        panel = app.table.query_one(PlayersPanel)
        lines = [line.plain for line in panel.lines()]
        assert len(lines) <= panel.budget
        assert "Evangeline" in " ".join(lines) or "more below" in lines[-1]
        assert sum("in hand" in line for line in lines) == 5 or "more below" in lines[-1]


@pytest.mark.parametrize(("size", "lang", "spaced"),
                         [((100, 30), "en", False), ((120, 40), "en", True), ((120, 40), "de", False),
                          ((200, 50), "en", True), ((200, 50), "de", True)],
                         ids=["100x30", "120x40", "de-120x40", "200x50", "de-200x50"])
async def test_the_cards_space_every_animal_or_none(make_app, size, lang, spaced) -> None:
    """Issue 36: at 100x30 RABBIT was the only animal on the rows not letter-spaced (spaced,
    it was wider than its card; GIRAFFE too): the cards spell every name spaced when all ten
    fit so, else none (German's MAULWURF at 120x40)."""
    from assistant import i18n
    from assistant.i18n import animal_name
    from assistant.tui.cells import spaced as spaced_word
    from assistant.tui.widgets import CardRows

    rows = ["row 1 giraffe", "row 2 rabbit bear", "row 3 mole pig cat", "row 4 goat sheep dog mouse"]
    i18n.set_language(lang)
    try:
        app = make_app(QUICK)
        async with app.run_test(size=size) as pilot:
            await pilot.press("escape")
            await submit_all(pilot, [TO_REVEAL[0], TO_REVEAL[1], *rows])
            assert app.table.has_class("large")
            shown = text_of(app.table.query_one(CardRows))
            names = [animal_name(a).upper() for a in ("giraffe", "rabbit", "bear", "mole", "pig", "cat",
                                                      "goat", "sheep", "dog", "mouse")]
            as_spaced = [spaced_word(n) in shown for n in names]
            as_written = [f" {n} " in shown for n in names]
            assert as_spaced == [spaced] * 10, shown
            assert as_written == [not spaced] * 10 or spaced
    finally:
        i18n.set_language("en")


#: A round with four losers and nobody out: Anne-Marie's 19 points keep her lives, Evangeline's 6
#: lose two, the others one each.
FOUR_LOSE = dict(HANDS, **{"Anne-Marie": "6 giraffe 2 mouse 2 goat",
                           "Evangeline": "1 goat 6 sheep 1 mouse 2 giraffe"})


@pytest.mark.parametrize(("lang", "top", "loss"), [
    ("en", "EVANGELINE -2", "Evangeline loses 2 lives."),  # whole, not "EVANG… -2  +3 MORE"
    ("de", "EVANGELINE -2", "Evangeline verliert 2 Leben."),
    ("ko", "EVANGELINE -2  외 3명", "Evangeline가 목숨 2개를 잃습니다."),
])
async def test_four_losers_in_large_print_at_80x24(make_app, lang, top, loss) -> None:
    """Issue 36's tester: in large print at 80x24, a round with four losers and nobody out
    showed "ROW 1" in the big type (four losers do not fit one big line, and there is no room
    for two), and the log's two lines showed "lives.", the last word of the losses. Now the big
    type says who lost most and how many more lost lives, and the log breaks the losses at a
    sentence's end: each line on show starts a sentence. Session 18's tester: "+3 MORE" read
    like a score and "EVANG…" was hard to read: whole names, fewer of them, and "외 3명" where
    the words fit."""
    from assistant import i18n
    from assistant.tui.bigtype import big
    from assistant.tui.widgets import TableLog

    i18n.set_language(lang)
    try:
        app = make_app(QUICK)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("escape")
            await pilot.press("f4")
            await submit_all(pilot, [*TO_REVEAL, *[f"{p} has {FOUR_LOSE[p]}" for p in FIVE]])
            await pilot.pause()
            ended = app.view.game.rounds[-1]
            assert sum(1 for p in FIVE if ended.losses[p]) == 4 and not ended.out
            assert app.table.has_class("big-short")
            shown = [line.strip() for line in text_of(app.table.query_one("#big")).splitlines()]
            assert shown == [line.plain.strip() for line in big(top)]
            log = app.table.query_one(TableLog)
            lines = [line.strip(" ▁▃▅▇█▔") for line in text_of(log).splitlines()[1:]]
            assert len(lines) == 2
            assert lines[0] == loss  # the sentence from its start
            assert lines[1].startswith(("Round 2.", "Runde 2.", "2라운드"))
    finally:
        i18n.set_language("en")
