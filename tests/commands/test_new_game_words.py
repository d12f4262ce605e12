"""A new game's command words told from its names in every language (the setup screen's name
box and 'new game' typed alone): sentence -> the names as typed, () for none, None for no new
game. One rule, from each language's own new game templates."""

from __future__ import annotations

import pytest

from assistant.commands import parse
from assistant.commands.parser import names_to_come, new_game_names, without_polite_words


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
    # Asked politely (session 18's tester: 'new game please' was refused, "you named 1")
    ("en", "new game please", ()),
    ("en", "please start a new game with ann bob cy please", ("ann", "bob", "cy")),
    ("de", "neues Spiel bitte", ()),
    ("de", "bitte ein neues Spiel mit Anna Ben", ("Anna", "Ben")),
    ("ko", "새 게임 시작해 주세요", ()),
    ("en", "please", None),
])
def test_new_game_names_are_the_words_after_the_languages_command_words(
        language: str, text: str, names: tuple[str, ...] | None) -> None:
    assert new_game_names(text, language) == names
    assert names_to_come(text, language) is (names == ())


@pytest.mark.parametrize(("language", "text", "canonical"), [
    ("en", "new game ann bob cy please", "new game ann bob cy"),
    ("en", "please, new game with Ann, Bob and Cy!", "new game Ann Bob Cy"),
    ("de", "neues Spiel mit Anna, Ben und Cem bitte", "new game Anna Ben Cem"),
    ("ko", "민준 서연 지우 새 게임 시작해 주세요", "new game 민준 서연 지우"),
])
def test_a_polite_new_game_names_no_polite_player(language: str, text: str, canonical: str) -> None:
    """'new game ann bob cy please' made a fourth player, Please."""
    assert parse(without_polite_words(text, language), language=language).canonical == canonical


def test_polite_words_stay_in_other_commands() -> None:
    assert without_polite_words("bob knocks please") == "bob knocks please"
