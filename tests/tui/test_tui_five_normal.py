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
