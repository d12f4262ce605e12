"""``lifeguard --lang de|ko import`` reads a command file in the table's language, then as
English, as ``replay`` does; the store keeps the canonical English commands (``export`` writes
them back the same in any language)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from assistant import i18n
from assistant.cli import main
from assistant.commands import parse, say

GAME = ["new game anna ben cem", "anna starts", "row 1 giraffe", "row 2 bear bear",
        "row 3 mole mole mole", "row 4 goat goat goat goat", "anna swaps 1 dog",
        "ben swaps 2 cat mouse", "cem swaps 3 pig pig cat", "anna knocks", "ben passes"]


@pytest.fixture(autouse=True)
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.delenv("LIFEGUARD_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("LIFEGUARD_DATA_DIR", str(tmp_path / "data"))
    yield tmp_path
    i18n.set_language("en")


@pytest.mark.parametrize("language", ["de", "ko"])
def test_a_command_file_in_the_table_language_is_imported(
        data: Path, language: str, capsys: pytest.CaptureFixture[str]) -> None:
    lines = [say(parse(line), language) for line in GAME]
    assert lines[0] != GAME[0]  # the file really is in the language
    lines[-1] = GAME[-1]  # English lines are read too, as replay reads them
    source = data / f"game_{language}.txt"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["--lang", language, "import", str(source)]) == 0, capsys.readouterr().err
    capsys.readouterr()
    assert main(["export"]) == 0  # the store keeps the canonical commands
    exported = [line for line in capsys.readouterr().out.splitlines() if line and not line.startswith("#")]
    assert exported == GAME


def test_an_english_table_still_refuses_a_german_file(data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = data / "game_de.txt"
    source.write_text("\n".join(say(parse(line), "de") for line in GAME) + "\n", encoding="utf-8")
    assert main(["import", str(source)]) == 1
    assert "I didn't understand 'neues spiel mit anna" in capsys.readouterr().err
