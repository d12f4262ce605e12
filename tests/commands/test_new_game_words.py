"""A new game's command words told from its names in every language (the setup screen's name
box and 'new game' typed alone): sentence -> the names as typed, () for none, None for no new
game. One rule, from each language's own new game templates."""

from __future__ import annotations

import pytest

from assistant.commands.parser import names_to_come, new_game_names


@pytest.mark.parametrize(("language", "text", "names"), [
    ("en", "new game Ann Ben Cy", ("Ann", "Ben", "Cy")),
    ("en", "start a new game ann bob cy", ("ann", "bob", "cy")),
    ("en", "new game with ann", ("ann",)),
    ("en", "new game", ()),
    ("en", "Ann Ben Cy", None),
    ("de", "neues Spiel mit Anna Ben Cem", ("Anna", "Ben", "Cem")),
    ("de", "eine neue Partie beginnen mit Anna", ("Anna",)),
    ("de", "neues Spiel", ()),
    ("de", "new game with Anna Ben", ("Anna", "Ben")),  # English at every table
    ("de", "Anna Ben", None),
    ("ko", "새 게임 민준 서연", ("민준", "서연")),
    ("ko", "민준 서연 새 게임 시작", ("민준", "서연")),
    ("ko", "새 게임", ()),
    ("ko", "민준 서연", None),
])
def test_new_game_names_are_the_words_after_the_languages_command_words(
        language: str, text: str, names: tuple[str, ...] | None) -> None:
    assert new_game_names(text, language) == names
    assert names_to_come(text, language) is (names == ())
