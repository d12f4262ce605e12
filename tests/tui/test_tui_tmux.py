"""End to end in a real terminal: tmux runs ``lifeguard`` in a fresh data directory, keys are
typed with ``send-keys``, the screen is read with ``capture-pane``, the app is quit, and
``lifeguard status --json`` shows the lives the game left."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

LIFEGUARD = Path(sys.executable).with_name("lifeguard")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (make setup installs it)"),
]


class Terminal:
    """One tmux server of our own (its own socket), one window of 100x30."""

    def __init__(self, tmp_path: Path, env: dict[str, str]) -> None:
        self.socket = f"lifeguard-test-{os.getpid()}-{tmp_path.name}"
        self.socket_path = ""
        self.env = env

    def tmux(self, *args: str, check: bool = True) -> str:
        done = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True,
                              env=self.env, check=check)
        return done.stdout

    def start(self, command: str) -> None:
        self.tmux("new-session", "-d", "-x", "100", "-y", "30", "-s", "table", command)
        self.socket_path = self.tmux("display-message", "-p", "#{socket_path}", check=False).strip()

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "table", check=False)

    def wait_for(self, text: str, limit: float = 60.0) -> str:
        """The screen once it shows ``text`` (a safety limit, not a timing check)."""
        deadline = time.monotonic() + limit
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if text in screen:
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{text!r} never appeared; the screen shows:\n{screen}")

    def type(self, line: str, echo: str | None = None) -> str:
        """Type a line and press Enter; wait until the log shows it (or ``echo``)."""
        self.tmux("send-keys", "-t", "table", "-l", line)
        self.wait_for(line)
        self.tmux("send-keys", "-t", "table", "Enter")
        return self.wait_for(echo or f"› {line}")

    def cursor(self) -> str:
        """Where the terminal's cursor is ("x,y"): Textual puts it in the focused input."""
        return self.tmux("display-message", "-p", "-t", "table", "#{cursor_x},#{cursor_y}", check=False).strip()

    def wait_until_cursor_leaves(self, position: str, limit: float = 30.0) -> None:
        """Until the cursor is elsewhere than ``position`` (the focus moved; a safety limit)."""
        deadline = time.monotonic() + limit
        while self.cursor() == position and time.monotonic() < deadline:
            time.sleep(0.02)
        assert self.cursor() != position, f"the cursor stayed at {position}"

    def keys(self, *names: str) -> None:
        """Press keys by tmux's names (Enter, Tab, BTab for Shift+Tab, Down, Right, 3)."""
        for name in names:
            self.tmux("send-keys", "-t", "table", name)
            time.sleep(0.05)

    def quit(self) -> None:
        """Ctrl+Q, and the app has ended (a safety limit, not a timing check)."""
        self.tmux("send-keys", "-t", "table", "C-q")
        deadline = time.monotonic() + 30
        while self.alive() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not self.alive(), "the app did not quit on ctrl+q"

    def alive(self) -> bool:
        return subprocess.run(["tmux", "-L", self.socket, "has-session", "-t", "table"],
                              capture_output=True, env=self.env).returncode == 0

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True, env=self.env)
        if self.socket_path:
            Path(self.socket_path).unlink(missing_ok=True)  # tmux leaves its socket file behind


#: The size of the terminal the tests run in, which is not the app's: Textual (through Rich)
#: takes COLUMNS and LINES before asking its terminal, and the tmux server hands its own
#: environment to the app. The runner's values are often wrong, not just different: GNU
#: readline, which pytest imports at start, writes its idea of the size (80x24 without a
#: terminal) into the C environment, and pytest-xdist's workers are started with it, so an app
#: started from a worker drew 80 columns in a 100-column window.
RUNNER_TERMINAL_SIZE = ("COLUMNS", "LINES")


def environment(tmp_path: Path) -> dict[str, str]:
    """A fresh data directory and no user settings, outside any tmux the tests run in, with no
    terminal size of the runner's: the app takes the size of its tmux window."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("TMUX") and k not in RUNNER_TERMINAL_SIZE}
    env.update(LIFEGUARD_DATA_DIR=str(tmp_path / "data"), XDG_CONFIG_HOME=str(tmp_path / "config"),
               TERM="xterm-256color")
    env.pop("LIFEGUARD_CONFIG", None)
    return env


def stored_state(env: dict[str, str]) -> dict:
    """What ``lifeguard status --json`` says the store holds, once the app has quit."""
    done = subprocess.run([str(LIFEGUARD), "status", "--json"], capture_output=True, text=True,
                          env=env, check=True)
    return json.loads(done.stdout)


def test_a_short_game_in_a_real_terminal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The runner's own terminal says 80x24 (as a pytest-xdist worker's environment does): the
    # table must still take the 100 columns of its tmux window (the capitals checked below).
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("LINES", "24")
    env = environment(tmp_path)
    term = Terminal(tmp_path, env)
    term.start(f"{LIFEGUARD} --seed 0")
    try:
        term.wait_for("players, in seating order")  # the setup screen: no unfinished game
        term.tmux("send-keys", "-t", "table", "Escape")
        term.wait_for("new game and 3 to 5 names")
        term.type("new game alice bob carol", echo="By lot, ")
        for line in ("row 1 giraffe", "row 2 bear dog", "row 3 mole pig pig", "row 4 mole goat sheep mouse"):
            term.type(line)
        screen = term.wait_for("'S TURN: SWAP")  # large print from 100 columns: capitals
        # GIRAFFE does not fit its card letter-spaced at 100x30: no name is (issue 36)
        assert "GIRAFFE" in screen and "MOUSE" in screen and "M O U S E" not in screen
        assert "9 points" in screen
        assert "♥  ♥  ♥  ♥  ♥   5 lives" in screen
        screen = term.type("dave knocks", echo="✗ dave knocks refused")
        assert "Dave is not playing" in screen
        term.type("bob has all cats")
        screen = term.wait_for("ROUND 2 · ROWS")
        assert "Sudden death! Bob has all cats." in screen
        assert "Alice and Carol lose 1 life each." in screen
        term.quit()
    finally:
        term.close()
    state = stored_state(env)
    lives = {p["name"]: p["lives"] for p in state["players"]}
    assert lives == {"alice": 4, "bob": 5, "carol": 4}
    assert state["round"] == 2 and state["phase"] == "rows"


def test_a_round_by_keys_only_with_a_suggestion_and_the_grid(tmp_path: Path) -> None:
    """A whole round as a person plays it at the keyboard: Tab completes what is expected, a
    misspelt name is corrected by taking the suggestion with Enter, the reveal's grid has the
    focus and takes digits, Shift+Tab reaches the command line; then the lives are stored."""
    env = environment(tmp_path)
    term = Terminal(tmp_path, env)
    term.start(f"{LIFEGUARD} --seed 0")
    try:
        term.wait_for("players, in seating order")
        # the setup screen by keys: three names, Enter on the empty fourth starts
        for name in ("alice", "bob", "carol"):
            term.tmux("send-keys", "-t", "table", "-l", name)
            term.wait_for(name)
            typed_at = term.cursor()
            term.keys("Enter")
            term.wait_until_cursor_leaves(typed_at)  # Enter moves to the next name: typing waits for it
        term.keys("Enter")
        try:
            term.wait_for("row 1 and its 1 animal", limit=10.0)
        except AssertionError:
            # On a loaded machine that Enter can reach the third name before the focus has left
            # it (it then only moves on): Enter on the empty fourth name again.
            term.keys("Enter")
            term.wait_for("row 1 and its 1 animal")
        term.type("alice starts")
        for row, cards in ((1, "giraffe"), (2, "bear dog"), (3, "pig pig cat"), (4, "mole goat sheep mouse")):
            term.keys("Tab")  # types 'row N '
            # In the command line, followed by its blank padding: the placeholder ("row 1 and
            # its 1 animal") also holds "row 1 ", and CI once typed the cards before Tab landed.
            term.wait_for(f"▊  row {row}    ")
            term.type(cards, echo=f"› row {row} {cards}")
        term.wait_for("ALICE'S TURN")  # large print from 100 columns: capitals
        # a misspelt name: refused, the line stays, Enter takes the suggestion
        term.type("alise swaps 1 dog", echo="Did you mean 'alice swaps 1 dog'?")
        term.keys("Enter")
        term.wait_for("› alice swaps 1 dog")
        for line in ("bob swaps 1 cat", "carol swaps 1 dog", "alice knocks", "bob passes", "carol passes"):
            term.type(line)
        term.wait_for("waiting for Alice, Bob and Carol".upper())
        # the grid has the focus on Alice's giraffe: 3 giraffes, 2 bears, 5 rabbits, Enter
        term.keys("3", "Down", "2", "Down", "Down", "Down", "Down", "Down", "5", "Enter")
        term.wait_for("› alice has 3 giraffe 2 bear 5 rabbit".replace("›", "▦"))
        term.keys("BTab")  # to the command line for the other two hands
        term.type("bob has 1 dog 4 goat 5 sheep", echo="Bob has 4 goats, 5 sheep and a dog.")
        term.type("carol has 1 cat 4 mole 5 giraffe", echo="Round 1 results")
        screen = term.wait_for("Alice loses 2 lives.")
        assert "ROUND 2 · ROWS" in screen and "3 (-2)" in screen
        term.quit()
    finally:
        term.close()
    state = stored_state(env)
    assert {p["name"]: p["lives"] for p in state["players"]} == {"alice": 3, "bob": 4, "carol": 5}
    assert state["round"] == 2


def test_lines_typed_as_the_table_opens_are_all_taken(tmp_path: Path) -> None:
    """Issue 36: a game stored by ``chat`` resumed in a 120x40 window, three lines typed the
    moment the app is started, with no wait (before the app has the terminal, Enter arrives as
    a newline; after, faster than it answers): each line is taken, none merged or lost."""
    env = environment(tmp_path)
    opening = "\n".join([
        "new game alice grace dave", "alice starts", "row 1 giraffe", "row 2 bear dog",
        "row 3 pig pig cat", "row 4 mole goat sheep mouse", "alice swaps 1 dog",
        "grace swaps 1 cat", "dave swaps 1 dog", "alice knocks", "",
    ])
    subprocess.run([str(LIFEGUARD), "chat"], input=opening, capture_output=True, text=True, env=env,
                   check=True)
    term = Terminal(tmp_path, env)
    term.tmux("new-session", "-d", "-x", "120", "-y", "40", "-s", "table", f"{LIFEGUARD}")
    try:
        for line in ("grace passes", "dave swaps 3 mouse and rabbit and dog", "status"):
            term.tmux("send-keys", "-t", "table", "-l", line)
            term.tmux("send-keys", "-t", "table", "Enter")
        screen = term.wait_for("Reveal hands: waiting for Alice, Grace and Dave.")
        assert "› grace passes" in screen and "› dave swaps 3 dog rabbit mouse" in screen
        assert "refused" not in screen
        term.quit()
    finally:
        term.close()
    state = stored_state(env)
    assert state["phase"] == "reveal"


def test_five_names_typed_as_the_setup_form_opens_each_take_their_field(tmp_path: Path) -> None:
    """Issue 36: five long names typed on the setup form the moment the app is started, each
    with its Enter, no wait: the game starts with the five names, none merged or split."""
    env = environment(tmp_path)
    names = ["Anne-Marie", "Bartholomew", "Christopher", "Dorothea", "Evangeline"]
    term = Terminal(tmp_path, env)
    term.tmux("new-session", "-d", "-x", "120", "-y", "40", "-s", "table", f"{LIFEGUARD}")
    try:
        for name in names:
            term.tmux("send-keys", "-t", "table", "-l", name)
            term.tmux("send-keys", "-t", "table", "Enter")
        deadline = time.monotonic() + 60  # a safety limit: until the game has started
        while "round 1" not in term.screen().lower() and time.monotonic() < deadline:
            time.sleep(0.1)
        term.quit()
    finally:
        term.close()
    state = stored_state(env)
    assert [p["name"] for p in state["players"]] == names, state
