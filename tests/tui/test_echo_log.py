"""The table's log echoes each accepted command in the table's language, as it is typed there
(render.say of the command understood), also when a game is resumed; the store keeps the
canonical English commands, and an English table echoes them as before."""

from __future__ import annotations

import pytest

from assistant import i18n
from assistant.commands import parse

from .conftest import OPENING, history, submit_all

LINES = [*OPENING, "alice swaps 1 mouse", "undo"]

ECHOES = {
    "en": ["› row 2 bear dog", "› undo", "🎤 alice swaps 1 mouse"],
    "de": ["› Reihe 2 Bär und Hund", "› rückgängig", "🎤 alice tauscht Reihe 1 gegen Maus"],
    "ko": ["› 2번 줄 곰, 개", "› 취소", "🎤 alice가 1번 줄을 쥐와 교환해요"],
}


@pytest.mark.parametrize("language", ["en", "de", "ko"])
async def test_the_log_echoes_commands_in_the_table_language(make_app, language: str) -> None:
    i18n.set_language(language)
    try:
        app = make_app()
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.press("escape")
            await submit_all(pilot, LINES)
            await app.apply_heard(parse("alice swaps 1 mouse", app.view.players), "alice swaps one mouse")
            await pilot.pause()
            plain = app.table_log.plain
            for echo in ECHOES[language]:
                assert echo in plain, plain
            assert history(app)[-1] == "alice swaps 1 mouse"  # the canonical command, as stored
        again = make_app()  # the same store: the game resumed, its log shown again
        async with again.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            assert ECHOES[language][0] in again.table_log.plain, again.table_log.plain
            stored = [command for command, _said in again.session.stored_log()]
            assert "row 2 bear dog" in stored
    finally:
        i18n.set_language("en")
