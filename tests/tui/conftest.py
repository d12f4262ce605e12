"""Shared pieces of the table's tests: one app factory with a fresh data directory, a fixed seed,
no voice and a fixed clock, so every run (and every snapshot) is the same."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from assistant.commands import canonical, parse, say
from assistant.config import Settings
from assistant.tui.app import LifeguardApp

HERE = Path(__file__).parent
GAME_FILE = HERE / "game_152.txt"

#: A new game of three and the first round's rows: Alice's turn next.
OPENING = [
    "new game alice bob carol",
    "alice starts",
    "row 1 giraffe",
    "row 2 bear dog",
    "row 3 pig pig cat",
    "row 4 mole goat sheep mouse",
]


def history(app: LifeguardApp) -> list[str]:
    """The canonical commands of the game the table shows, oldest first: read from the table the
    desk returned (``app.view``), never from the referee, which the desk's thread owns."""
    return [canonical(action) for action in app.view.actions]


def game_lines(path: Path = GAME_FILE) -> list[str]:
    return [
        line.split("#", 1)[0].strip()
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.split("#", 1)[0].strip()
    ]


def in_language(lines: list[str], code: str) -> list[str]:
    """``lines`` (canonical English commands) as a table in ``code`` types them: a German
    table's game typed in German. An English line at a German table is read in German first
    and, refused there, as English, after German's search for a misspelt word (about 35 ms a
    line of CPU, 4.5 s a 132-line game): the tests of English typed at such a table
    (``test_echo_log``, the setup screen's choice in ``test_tui_lang``) type English."""
    return [say(parse(line), code) for line in lines]


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "data"
    directory.mkdir()
    monkeypatch.setenv("LIFEGUARD_DATA_DIR", str(directory))
    monkeypatch.delenv("LIFEGUARD_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    # The store's time stamps from a clock that moves a millisecond a call, not the wall's: the
    # game-over screen's duration read "1 min" instead of "0 min" when a loaded machine took
    # more than 30 s to play the snapshot's game (CI, the German and Korean game-over snapshots).
    ticks = itertools.count()
    start = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
    monkeypatch.setattr(
        "assistant.store.db.now",
        lambda: (start + timedelta(milliseconds=next(ticks))).isoformat(timespec="milliseconds"),
    )
    return directory


@pytest.fixture
def make_app(data_dir: Path) -> Callable[..., LifeguardApp]:
    def factory(settings: Settings | None = None, **kwargs: Any) -> LifeguardApp:
        kwargs.setdefault("seed", 0)
        kwargs.setdefault("voice", False)
        kwargs.setdefault("clock", lambda: 1_000_000.0)
        kwargs.setdefault("data_label", "$LIFEGUARD_DATA_DIR/lifeguard.sqlite")
        return LifeguardApp(settings or Settings(), data_dir=data_dir, **kwargs)

    return factory


async def type_command(pilot: Pilot[Any], text: str) -> None:
    """Put ``text`` in the command input and press Enter, as a person would."""
    app = pilot.app
    assert isinstance(app, LifeguardApp)
    field = app.command_input
    field.focus()
    field.value = text
    await pilot.press("enter")
    await pilot.pause()


async def submit_all(pilot: Pilot[Any], lines: list[str]) -> None:
    """Lines straight through ``app.submit`` (what Enter calls), for tests that only need the
    game played, not typed: as one batch (``app.submit_lines``), the table drawn once at the
    end rather than once a line (``test_tui_batch`` shows the screen ends the same); one pause
    at the end."""
    app = pilot.app
    assert isinstance(app, LifeguardApp)
    await app.submit_lines(lines)
    await pilot.pause()


async def settle(pilot: Pilot[Any]) -> None:
    """Let the log finish scrolling to its end (an animation) and stop the cursors blinking,
    so a snapshot is the same on every run."""
    from textual.widgets import Input

    for screen in pilot.app.screen_stack:
        for field in screen.query(Input):
            field.cursor_blink = False
    # Until the screen stops changing: a widget that lays out again once it knows its room
    # (large print's results, the players panel) scrolls the log or moves the rows once more,
    # and a loaded machine snapshotted a layout before the last (a Korean results snapshot, then
    # large print's results at 200x50, in fresh-clone CI runs). Pilot's pause only guesses
    # idleness from the CPU, so the test is the screen itself: the same twice in a row.
    shown = None
    for _ in range(20):
        await pilot.pause()
        await pilot.wait_for_scheduled_animations()
        await pilot.pause()
        await _tables_measured(pilot)
        now = pilot.app.export_screenshot()
        if now == shown:
            return
        shown = now
        await pilot.pause(0.05)


async def _tables_measured(pilot: Pilot[Any], timeout: float = 10.0) -> None:
    """Wait until every DataTable has measured its columns. It does so on an Idle event, and
    Pilot's pause only guesses idleness from the CPU: on a loaded machine (the suite on 3
    workers, 2 cores) the hand grid was snapshotted before, its columns still as wide as before
    the reveal's cells ("giraf", "10/10" for "10/10 ok")."""
    import time

    from textual.widgets import DataTable

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        tables = [t for screen in pilot.app.screen_stack for t in screen.query(DataTable)]
        if not any(t._require_update_dimensions or t._updated_cells for t in tables):
            return
        await pilot.pause(0.05)


async def play(pilot: Pilot[Any], lines: list[str]) -> None:
    for line in lines:
        await type_command(pilot, line)


__all__ = ["GAME_FILE", "OPENING", "game_lines", "in_language", "parse", "play", "settle", "submit_all",
           "type_command"]
