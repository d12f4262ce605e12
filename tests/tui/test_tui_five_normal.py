"""Five players with long names in normal print (issue 36): every panel uses the width it is
given on a wide screen (large print switched off), and the small screen's last rough edges (a
refusal's first line, the reveal's top line, the setup's last group) keep every name and
sentence readable."""

from __future__ import annotations

from assistant.tui.screens import SetupScreen

from .test_tui_five import FIVE, text_of


async def test_the_setup_names_the_whole_last_group_at_80x24(make_app) -> None:
    """"Same group as last time: ..." ran past the screen's edge at 80x24 ("... Dorothea an"),
    and so did the recent names: they wrap in the screen's width, every name whole."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await app.pop_screen()
        await app.push_screen(SetupScreen(names=FIVE, recent=list(FIVE)))
        await pilot.pause()
        for wid, end in (("#same-group", "(ctrl+g starts)"), ("#recent", "(→ completes)")):
            label = app.screen.query_one(wid)
            assert label.region.right <= 80
            shown = " ".join(text_of(label).split())
            for name in FIVE:
                assert name in shown, (wid, shown)
            assert shown.endswith(end), shown
        names = app.screen.query_one("#names")
        assert names.region.y >= app.screen.query_one("#same-group").region.bottom


async def test_the_reveal_top_line_names_all_five_at_80x24(make_app) -> None:
    """At the reveal at 80x24 the top line ended "... Dorot… an…": the fifth player, the one
    people may be waiting for, was cut off. Without the round and phase (the grid shows it is
    the reveal) the five fit, cut alike; the grid's headings keep the whole names."""
    from assistant.tui.reveal import HandGrid

    from .conftest import submit_all
    from .test_tui_five import QUICK, TO_REVEAL

    app = make_app(QUICK)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, TO_REVEAL)
        top = text_of(app.table.query_one("#next")).strip()
        assert top == "Reveal hands: waiting for Anne-…, Barth…, Chris…, Dorot… and Evang…."
        grid = app.table.query_one(HandGrid)
        assert [str(c.label) for c in grid.columns.values()][1:] == list(FIVE)
        assert grid.region.right <= 80
        # two declared: the round is back, as the names cut alike leave room for it
        await submit_all(pilot, ["Anne-Marie has 8 giraffe 2 mouse", "Bartholomew has 5 pig 5 rabbit"])
        top = text_of(app.table.query_one("#next")).strip()
        assert top == "Round 1 · reveal  Reveal hands: waiting for Chris…, Dorot… and Evang…."


def log_text(log) -> str:
    """The log's lines on show as one line of words, without its top border and scroll bar."""
    lines = text_of(log).splitlines()[1:]
    return " ".join(" ".join(line.rstrip(" ▁▃▅▇█▔") for line in lines).split())


async def test_a_refused_hand_keeps_its_first_sentence_in_view_at_80x24(make_app) -> None:
    """At the reveal at 80x24 the log has three lines, and a refused hand's refusal took five:
    its first sentence, the reason, scrolled out above them. Now a refusal taller than the log
    is shown from its first line; the next command's announcements end in view as before."""
    from .conftest import game_lines, submit_all
    from .test_tui_five import GAME_FIVE

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape")
        await submit_all(pilot, game_lines(GAME_FIVE)[:18])  # two hands declared
        await submit_all(pilot, ["Bartholomew has 2 giraffe 2 bear 2 goat 1 sheep 1 pig 1 dog 1 rabbit"])
        await pilot.pause(0.1)
        log = app.table.query_one("#log")
        assert log.scrollable_content_region.height <= 4
        refusal = app.table_log.plain[-1]
        assert refusal.startswith("✗ Bartholomew has") and " A swap puts down first" in refusal
        shown = log_text(log)
        assert shown.startswith("✗ Bartholomew has 2 giraffe")
        assert "took a mole and a mouse from the rows, so Bartholomew's hand must hold them." in shown
        app.command_input.focus()
        await pilot.press("pagedown")  # the command line's PageDown scrolls the log
        await pilot.pause(0.1)
        shown = log_text(log)
        assert "allows the other order)." in shown  # the rest a PageDown away
        await submit_all(pilot, ["Bartholomew has 2 giraffe 2 bear 1 mole 2 goat 1 sheep 1 pig 1 mouse"])
        await pilot.pause(0.1)
        assert log_text(log).endswith("Waiting for Christopher and Dorothea.")
