"""A golden playthrough (as OpenSpiel keeps them): one seeded game's command file and the exact
announcements ``lifeguard replay`` makes for it. A change of any sentence shows up here; when it
is meant, regenerate with ``LIFEGUARD_UPDATE_GOLDEN=1 pytest tests/engine/test_playthrough.py``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from assistant.cli import main

HERE = Path(__file__).parent
COMMANDS = HERE / "playthrough.txt"
EXPECTED = HERE / "playthrough.out"


def test_playthrough_announcements(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LIFEGUARD_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(HERE / "no-config-here"))
    assert main(["replay", str(COMMANDS)]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    if os.environ.get("LIFEGUARD_UPDATE_GOLDEN"):
        EXPECTED.write_text(out)
    assert out.splitlines() == EXPECTED.read_text().splitlines()
    assert out.splitlines()[-1] == "Dave wins the game!"
