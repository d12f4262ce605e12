"""The setup screen as a new group meets it: several names typed in one field, and the status
line when voice is switched off there."""

from __future__ import annotations

import pytest
from textual.widgets import Input, Switch

from assistant.tui.screens import SetupScreen, split_names
from assistant.tui.widgets import StatusLine


def test_split_names_parts_names_at_spaces_commas_and_a_lone_and() -> None:
    assert split_names("Ann Ben Cy") == ["Ann", "Ben", "Cy"]
    assert split_names(" Ann, Ben and Cy ") == ["Ann", "Ben", "Cy"]
    assert split_names("Anne-Marie & O'Brien") == ["Anne-Marie", "O'Brien"]
    assert split_names("") == []


async def test_three_names_in_the_first_field_fill_three_fields(make_app) -> None:
    """Issue 36: 'Ann Ben Cy' typed in the first field was refused (a name is one word)."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, SetupScreen)
        await pilot.press(*"Ann Ben Cy", "enter")
        await pilot.pause()
        fields = [app.screen.query_one(f"#name-{i}", Input) for i in range(5)]
        assert [f.value for f in fields] == ["Ann", "Ben", "Cy", "", ""]
        assert app.focused is fields[3]  # Enter here starts
        assert not app.screen.query_one("#setup-error").display
        await pilot.press("enter")
        await pilot.pause()
        assert app.view.players == ("Ann", "Ben", "Cy")


async def test_the_first_empty_name_is_the_only_field_of_the_form_given_the_focus(make_app, monkeypatch) -> None:
    """As the setup form opens only its first empty name takes the focus: the scrolling form
    took it first (Textual's auto-focus) and lost it at once, restyling its every widget twice
    for a focus never drawn."""
    from textual.screen import Screen

    given: list[str | None] = []
    set_focus = Screen.set_focus

    def recorded(screen, widget, *args, **kwargs):
        if isinstance(screen, SetupScreen) and widget is not None:
            given.append(widget.id)
        return set_focus(screen, widget, *args, **kwargs)

    monkeypatch.setattr(Screen, "set_focus", recorded)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, SetupScreen)
        assert app.focused is app.screen.query_one("#name-0", Input)
    assert set(given) == {"name-0"}


async def test_the_readmes_new_game_command_in_the_first_field_fills_the_names(make_app) -> None:
    """Issue 36: 'new game Anne-Marie ...' typed in the first field was split into 'new',
    'game', ... and refused: a leading 'new game' is the command, the names are the rest."""
    five = ["Anne-Marie", "Bartholomew", "Christopher", "Dorothea", "Evangeline"]
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, SetupScreen)
        await pilot.press(*("new game " + " ".join(five)), "enter")
        await pilot.pause()
        fields = [app.screen.query_one(f"#name-{i}", Input) for i in range(5)]
        assert [f.value for f in fields] == five
        assert not app.screen.query_one("#setup-error").display
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.view.players == tuple(five)


async def typed_in_the_first_box(pilot, typed: str) -> list[Input]:
    """``typed`` and Enter in the setup's first name box: the five boxes after it."""
    await pilot.pause()
    assert isinstance(pilot.app.screen, SetupScreen)
    await pilot.press(*typed, "enter")
    await pilot.pause()
    return [pilot.app.screen.query_one(f"#name-{i}", Input) for i in range(5)]


@pytest.mark.parametrize(("language", "typed", "names"), [
    ("de", "neues Spiel mit Anna Ben Cem", ["Anna", "Ben", "Cem"]),
    ("de", "ein neues Spiel starten mit Anna, Ben und Cem", ["Anna", "Ben", "Cem"]),
    ("ko", "새 게임 민준 서연 지우", ["민준", "서연", "지우"]),
    ("ko", "민준 서연 지우 새 게임 시작", ["민준", "서연", "지우"]),
    ("en", "start a new game ann bob cy", ["ann", "bob", "cy"]),
    ("en", "new game with Ann Ben Cy", ["Ann", "Ben", "Cy"]),
])
async def test_a_new_game_in_the_tables_words_in_the_first_field_keeps_only_the_names(
        make_app, language: str, typed: str, names: list[str]) -> None:
    """Tester, session 18: 'neues Spiel mit Anna Ben Cem' typed in the first field started a
    game of NEUES, SPIEL, MIT, ANNA, BEN; 'start a new game ann bob cy' was refused. A new game
    in the table's own command words (or English) in any of its forms: the names are the rest."""
    from assistant import i18n

    i18n.set_language(language)
    try:
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            fields = await typed_in_the_first_box(pilot, typed)
            assert [f.value for f in fields] == [*names, "", ""]
            assert not app.screen.query_one("#setup-error").display
            await pilot.press("enter")
            await pilot.pause()
            assert app.view.players == tuple(names)
    finally:
        i18n.set_language("en")


@pytest.mark.parametrize(("language", "typed"), [
    ("de", "neues Spiel bitte"),
    ("de", "neues Spiel"),
    ("en", "new game please"),
    ("ko", "새 게임"),
])
async def test_a_new_game_without_names_in_the_first_field_leaves_the_boxes_empty(
        make_app, language: str, typed: str) -> None:
    """Tester, session 19: 'neues Spiel bitte' typed in the first field started a game of
    NEUES, SPIEL and BITTE; 'new game please' filled three boxes and was refused. The setup is
    the new game: its words alone leave the boxes empty and say to type the names."""
    from assistant import i18n

    i18n.set_language(language)
    try:
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            fields = await typed_in_the_first_box(pilot, typed)
            assert [f.value for f in fields] == ["", "", "", "", ""]
            assert app.screen.focused is fields[0]
            await pilot.press(*"Ann Ben Cem", "enter")
            await pilot.pause()
            await pilot.press("enter")
            await pilot.pause()
            assert app.view.players == ("Ann", "Ben", "Cem")
    finally:
        i18n.set_language("en")


async def test_six_names_in_one_field_say_who_is_left_out(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press(*"Ann Ben Cy Dee Eve Fay", "enter")
        await pilot.pause()
        assert [app.screen.query_one(f"#name-{i}", Input).value for i in range(5)] == \
            ["Ann", "Ben", "Cy", "Dee", "Eve"]
        error = str(app.screen.query_one("#setup-error").render())
        assert "At most 5 players: Fay left out." in error


async def test_voice_switched_off_says_off_not_unavailable(make_app) -> None:
    """Issue 36: with voice switched off at setup the status line said 'mic: unavailable (no
    microphone)', as if something were broken."""
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        status = app.status_line
        status.set_mic("unavailable", "no microphone")
        status.set_speech("unavailable", "no audio device")
        app.screen.query_one("#voice", Switch).value = False
        await pilot.press(*"Ann Ben Cy", "enter", "enter")
        await pilot.pause()
        assert app.view.players == ("Ann", "Ben", "Cy")
        assert app.table.query_one(StatusLine).text(100).startswith("mic: off · speech: off · data:")


async def test_push_to_talk_with_voice_switched_off_says_how_to_turn_it_on(make_app) -> None:
    """Issue 36: F5 with voice switched off at setup said 'The microphone is unavailable: no
    microphone.', the device's state, not that voice was off or how to turn it on."""
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        app.status_line.set_mic("unavailable", "no microphone")
        app.screen.query_one("#voice", Switch).value = False
        await pilot.press(*"Ann Ben Cy", "enter", "enter")
        await pilot.pause()
        await pilot.press("f5")
        await pilot.pause()
        said = [n.message for n in app._notifications]
        assert said[-1] == ("Voice is off for this game, so the table is not listening. To turn it "
                            "on, start a new game (ctrl+p, New game) with Voice switched on.")
        assert not any("microphone" in message for message in said)


async def test_new_game_typed_alone_opens_the_setup_as_the_palette_does(make_app) -> None:
    """Issue 36: 'new game' typed with no names was refused with a sentence ("Name 3 to 5
    players ..."), while Ctrl+P's New game opens the setup. Typed alone, in the table's words
    or English, it opens the same setup screen (the last group filled in, nothing refused);
    with one or two names it is still refused, as in ``lifeguard chat``."""
    from assistant import i18n

    from .conftest import OPENING, submit_all, type_command

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape")
        await type_command(pilot, "new game")
        assert isinstance(app.screen, SetupScreen)
        assert app.command_input.value == ""
        assert not any("refused" in line for line in app.table_log.plain)
        await pilot.press("escape")
        await submit_all(pilot, OPENING)
        played = len(app.view.actions)
        for line in ("start a new game", "New Game"):
            await type_command(pilot, line)
            assert isinstance(app.screen, SetupScreen), line
            assert [app.screen.query_one(f"#name-{i}", Input).value for i in range(3)] == \
                ["alice", "bob", "carol"]  # the game's group, as the palette's setup has it
            await pilot.press("escape")
            await pilot.pause()
        assert len(app.view.actions) == played  # nothing asked, nothing abandoned
        await type_command(pilot, "new game alice")
        assert not isinstance(app.screen, SetupScreen)
        assert "you named 1" in app.table_log.plain[-1]
        i18n.set_language("de")
        try:
            await type_command(pilot, "neues Spiel")
            assert isinstance(app.screen, SetupScreen)
        finally:
            i18n.set_language("en")
