"""The store as the page sees it (``assistant.web.table``), in process with real SQLite files: a
writer session commits, a ``TableWatch`` on the same file polls, as beside the table or chat.
Several commits between two polls still give one change per command, undo and redo."""

from __future__ import annotations

import random
import time
from pathlib import Path

from assistant.config import Settings
from assistant.store import open_session
from assistant.web.table import TableWatch
from tests.web.browser import DEMO_PLAYERS, DEMO_SEED
from tests.web.conftest import game_lines


def kinds(changes) -> list[tuple[str, str]]:
    return [(c.kind, c.command) for c in changes]


def test_each_command_undo_and_redo_is_one_change_even_between_two_polls(data: Path) -> None:
    watch = TableWatch(data)
    assert watch.poll() == [] and watch.state["phase"] == "no_game"  # no store yet: no error
    with open_session(Settings(), data, rng=random.Random(1)) as s:
        handle = s.referee.handle
        assert handle("new game alice bob carol").ok
        assert kinds(watch.poll()) == [("new_game", "new game alice bob carol")]
        for line in ("alice starts", "row 1 giraffe", "row 2 bear dog"):
            assert handle(line).ok
        assert kinds(watch.poll()) == [("command", "alice starts"), ("command", "row 1 giraffe"),
                                       ("command", "row 2 bear dog")]
        assert watch.poll() == []
        assert handle("undo").ok and handle("undo").ok and handle("row 2 dog cat").ok
        assert kinds(watch.poll()) == [("undo", "row 2 bear dog"), ("undo", "row 1 giraffe"),
                                       ("command", "row 2 dog cat")]
        assert watch.state["rows"][:2] == [None, ["dog", "cat"]]
        assert handle("undo").ok
        assert kinds(watch.poll()) == [("undo", "row 2 dog cat")]
        assert handle("redo").ok
        changes = watch.poll()
        assert kinds(changes) == [("redo", "row 2 dog cat")] and changes[0].said.startswith("Row 2")
        assert handle("new game dave erin frank").question and handle("yes").ok
        changes = watch.poll()
        assert kinds(changes) == [("new_game", "new game dave erin frank")]
        assert watch.state["game"]["id"] == changes[0].game == 2
        assert [p["name"] for p in watch.state["players"]] == ["dave", "erin", "frank"]
    watch.close()


def test_a_game_under_way_when_the_watch_starts_is_no_change_but_its_state(data: Path) -> None:
    lines = game_lines(11)[:20]
    with open_session(Settings(), data, rng=random.Random(1)) as s:
        for line in lines:
            assert s.referee.handle(line).ok
        watch = TableWatch(data)
        assert watch.poll() == []
        assert watch.state["announcements"][0]["command"] == lines[-1]
        assert watch.state == {**s.referee.state(), **{k: watch.state[k] for k in
                                                       ("game", "announcements", "sheet", "points",
                                                        "last_turn_taken")}}
        watch.close()


def test_after_a_knock_the_state_says_who_has_had_their_last_turn(data: Path) -> None:
    """The demo game: Heidi knocks, Dave passes; then Ivan: each is listed once done, the
    knocker never; once the hands are shown the list is empty again."""
    lines = game_lines(DEMO_SEED, players=DEMO_PLAYERS)
    knock = lines.index("heidi knocks")
    with open_session(Settings(), data, rng=random.Random(1)) as s:
        for line in lines[:knock + 1]:
            assert s.referee.handle(line).ok
        watch = TableWatch(data)
        watch.poll()
        assert watch.state["phase"] == "final_turns" and watch.state["last_turn_taken"] == []
        taken = []
        for line in lines[knock + 1:]:
            assert s.referee.handle(line).ok
            watch.poll()
            if watch.state["phase"] != "final_turns":
                break
            taken.append(line.split()[0])
            assert watch.state["last_turn_taken"] == taken, line
        assert len(taken) == 2 and watch.state["last_turn_taken"] == []
        watch.close()


def test_polling_an_unchanged_store_reads_nothing_and_is_cheap(data: Path) -> None:
    with open_session(Settings(), data, rng=random.Random(1)) as s:
        for line in game_lines(12)[:30]:
            assert s.referee.handle(line).ok
        watch = TableWatch(data)
        watch.poll()
        seen, state = watch.seen, watch.state
        started = time.perf_counter()
        for _ in range(200):
            assert watch.poll() == []
        per_poll = (time.perf_counter() - started) / 200
        assert watch.seen is seen and watch.state is state  # nothing was read again
        assert per_poll < 0.002, f"{per_poll * 1000:.2f} ms a poll"
        assert s.referee.handle(game_lines(12)[30]).ok
        assert len(watch.poll()) == 1 and watch.state is not state
        watch.close()


def test_a_new_game_and_its_first_commands_between_two_polls_are_each_a_change(data: Path) -> None:
    # Found by bench/serve_load.py: 'new game' and 'carol starts' 50 ms apart reached the page
    # as the new game alone.
    watch = TableWatch(data)
    watch.poll()
    with open_session(Settings(), data, rng=random.Random(1)) as s:
        for line in ("new game alice bob carol", "carol starts", "row 1 giraffe"):
            assert s.referee.handle(line).ok
        assert kinds(watch.poll()) == [("new_game", "new game alice bob carol"),
                                       ("command", "carol starts"), ("command", "row 1 giraffe")]
        assert s.referee.handle("new game dave erin frank").question
        assert s.referee.handle("yes").ok and s.referee.handle("erin starts").ok
        assert kinds(watch.poll()) == [("new_game", "new game dave erin frank"),
                                       ("command", "erin starts")]
    watch.close()


def test_the_watch_leaves_a_store_being_created_to_its_creator(data: Path) -> None:
    # The writer's sqlite3.connect makes an empty file before it makes the tables. The watch,
    # polling beside it, once made the tables itself: the writer then read the version from
    # before and the tables from after, and refused its own new store as not a Lifeguard store.
    import sqlite3

    data.mkdir(parents=True, exist_ok=True)
    path = data / "lifeguard.sqlite3"
    sqlite3.connect(path).close()  # an empty file, as the writer's connect leaves it
    watch = TableWatch(data)
    assert watch.poll() == [] and watch.state["phase"] == "no_game"
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT name FROM sqlite_master").fetchall() == []
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 0
    with open_session(Settings(), data, rng=random.Random(1)) as s:  # the creator
        assert s.referee.handle("new game alice bob carol").ok
        assert kinds(watch.poll()) == [("new_game", "new game alice bob carol")]
    watch.close()
