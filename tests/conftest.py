"""Shared fixtures for the whole suite; kept small (subfolders add their own conftest files)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def isolated_env(tmp_path: Path) -> dict[str, str]:
    """Environment for ``lifeguard`` subprocesses that never touches a real home: the game store,
    the config directory and HOME all point into ``tmp_path``."""
    env = dict(os.environ)
    env.pop("LIFEGUARD_CONFIG", None)
    env["LIFEGUARD_DATA_DIR"] = str(tmp_path / "data")
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    env["XDG_DATA_HOME"] = str(tmp_path / "share")
    env["HOME"] = str(tmp_path / "home")
    return env


#: Test modules left out of ``make check`` as a whole (issue 37: the lint and the rest in under a
#: minute on 2 cores); ``make test`` runs them. Each starts real things that take seconds per test:
#: Textual's Pilot driving the whole table, tmux, chromium, Whisper and PocketSphinx decoding,
#: espeak-ng audio played at real-time pace, ``lifeguard`` processes, long generated games.
#: Single tests elsewhere carry ``@pytest.mark.slow`` themselves.
SLOW_MODULES = (
    "tui/",
    "web/test_a11y.py",
    "web/test_browser.py",
    "web/test_connections.py",
    "voice/test_barge_in.py",
    "voice/test_cli.py",
    "voice/test_echo.py",
    "voice/test_listen_loop.py",
    "voice/test_listen_speech.py",
    "voice/test_listener.py",
    "voice/test_long_audio.py",
    "voice/test_odd_wav_input.py",
    "voice/test_pocketsphinx_names.py",
    "voice/test_recognizer.py",
    "voice/test_speaker.py",
    "voice/test_whisper",  # and any test_whisper_*.py the decoder's tests are split into
    "voice/whisper/",
    "commands/test_fuzz.py",
    "engine/test_random_games.py",
    "store/test_faults.py",
    "store/test_hostile.py",
    "store/test_kill.py",
    "store/test_links.py",
    "store/test_long_game.py",
    "store/test_played_times.py",
    "store/test_shown_names.py",
    "store/test_stored_values.py",
    "test_chat_terminal.py",
    "test_cli.py",
    "test_hostile_input.py",
    "test_import_hygiene.py",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the slow modules' tests ``slow``, and run the slow tests first (each group in its
    collection order): with several workers the long ones start at once rather than leaving one
    worker busy at the end while the others wait."""
    tests = Path(__file__).resolve().parent
    for item in items:
        relative = item.path.resolve().relative_to(tests).as_posix()
        if relative.startswith(SLOW_MODULES):
            item.add_marker(pytest.mark.slow)
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
