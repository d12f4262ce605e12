"""Resume, undo/redo across restarts, new game confirmation, the journal's own checks and a
full disk, with real SQLite files (in process: fast, and each test restarts by reopening)."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest

from assistant.config import Settings
from assistant.store import GameStore, open_session
from assistant.store.db import StoreJournal
from engine.game import Game, Phase
from engine.log import GameLog
from tests.store.conftest import game_lines, replayed_state


def session(data: Path):
    return open_session(Settings(), data, rng=random.Random(7))


def play(data: Path, lines: list[str]) -> dict:
    with session(data) as s:
        for line in lines:
            reply = s.referee.handle(line)
            assert reply.ok, (line, reply.error)
        return s.referee.state()


def stored_commands(data: Path, game_id: int | None = None) -> list[str]:
    """The game's current commands as stored, without the referee's own joined lot line."""
    with GameStore.open(data, create=False) as store:
        row = store.game(game_id) if game_id else store.latest_game()
        assert row is not None
        entries = store.entries(row.id)[: row.cursor]
        return [e.command for e in entries if not e.joined]


def phase_points(lines: list[str]) -> dict[Phase, int]:
    """For each phase, the number of lines after which the game is first in it (mid-phase)."""
    from assistant.commands import parse

    log = GameLog()
    players = None
    seen: dict[Phase, int] = {}
    for i, line in enumerate(lines, start=1):
        log.apply(parse(line, players).to_action())
        game: Game = log.game  # type: ignore[assignment]
        players = game.players
        if game.phase not in seen and (game.phase is not Phase.ROWS or game.round > 1 or i > 3):
            seen[game.phase] = i
    return seen


def test_a_fresh_store_has_no_game_and_is_created(data: Path) -> None:
    with session(data) as s:
        assert not s.resumed and s.greeting == []
        assert s.store.path == data / "lifeguard.sqlite3" and s.store.path.exists()
        assert s.referee.state()["phase"] == "no_game"
        assert s.store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert s.store.conn.execute("PRAGMA user_version").fetchone()[0] == 1


@pytest.mark.parametrize("phase", [Phase.ROWS, Phase.TURNS, Phase.FINAL_TURNS, Phase.REVEAL, Phase.GAME_OVER])
def test_resume_after_every_phase(data: Path, phase: Phase) -> None:
    lines = game_lines(11, players=4)
    points = phase_points(lines)
    assert phase in points, f"seed 11 never reaches {phase}"
    upto = lines[: points[phase]]
    before = play(data, upto)
    assert before == replayed_state(upto)
    with session(data) as s:
        if phase is Phase.GAME_OVER:
            # A finished game is history: nothing to resume, a new game can start at once.
            assert not s.resumed and s.referee.game is None
            return
        assert s.resumed
        assert s.referee.state() == before
        said = " ".join(s.greeting)
        game = s.referee.game
        assert game is not None and game.phase is phase
        assert f"Round {game.round}." in said
        for p in game.players:
            assert p.title() in said  # every player's lives are said
        assert s.greeting[-1] == before["expecting"]
        # and the game goes on from there to the same end as one uninterrupted replay
        for line in lines[points[phase]:]:
            assert s.referee.handle(line).ok
        assert s.referee.state() == replayed_state(lines)
    assert stored_commands(data) == lines


def test_undo_and_redo_across_restarts(data: Path) -> None:
    lines = game_lines(4)
    play(data, lines[:30])
    target = replayed_state(lines[:28])
    with session(data) as s:
        assert s.referee.handle("undo").ok and s.referee.handle("undo").ok
        assert s.referee.state() == target
    with session(data) as s:  # the undone commands are still there after a restart
        assert s.referee.state() == target
        assert s.referee.handle("redo").ok
        assert s.referee.state() == replayed_state(lines[:29])
    with session(data) as s:
        assert s.referee.handle("redo").ok
        assert s.referee.state() == replayed_state(lines[:30])
        assert not s.referee.handle("redo").ok  # nothing more to redo
        s.referee.handle("undo")
        s.referee.handle("undo")
    with GameStore.open(data) as store:
        row = store.latest_game()
        assert row is not None and len(store.entries(row.id)) == row.cursor + 2
    with session(data) as s:  # a new command replaces the undone ones, for good
        assert s.referee.handle(lines[28]).ok
        assert not s.referee.handle("redo").ok
    with GameStore.open(data) as store:
        row = store.latest_game()
        assert row is not None and len(store.entries(row.id)) == row.cursor
    assert stored_commands(data) == lines[:29]


def test_undo_of_the_winning_command_keeps_the_game_unfinished(data: Path) -> None:
    lines = game_lines(2)
    with session(data) as s:
        for line in lines:
            assert s.referee.handle(line).ok
        assert s.store.latest_game().status == "finished"  # type: ignore[union-attr]
        assert s.referee.handle("undo").ok
        assert s.store.latest_game().status == "unfinished"  # type: ignore[union-attr]
    with session(data) as s:
        assert s.resumed and s.referee.state() == replayed_state(lines[:-1])
        assert s.referee.handle("redo").ok
        assert s.store.latest_game().status == "finished"  # type: ignore[union-attr]
        assert s.store.latest_game().winners == tuple(s.referee.game.winners)  # type: ignore[union-attr]


def test_new_game_needs_yes_and_keeps_the_old_game_as_abandoned(data: Path) -> None:
    lines = game_lines(6)
    play(data, lines[:12])
    with session(data) as s:
        reply = s.referee.handle("new game ann ben cid")
        assert reply.ok and reply.question and "yes" in reply.text
        assert s.store.current_game().players == tuple(lines[0].split()[2:])  # type: ignore[union-attr]
        assert s.referee.handle("yes").ok
    with GameStore.open(data) as store:
        games = store.games()
        assert [g.status for g in games] == ["unfinished", "abandoned"]
        assert games[0].players == ("ann", "ben", "cid")
        assert len(store.entries(games[1].id)) == 13  # 12 lines and the drawn start player
    with session(data) as s:
        assert s.resumed and s.referee.players == ("ann", "ben", "cid")


def test_a_game_killed_between_the_win_and_its_finished_mark_is_finished_on_open(data: Path) -> None:
    lines = game_lines(9)
    play(data, lines)
    with GameStore.open(data) as store:  # as if killed right after the winning command's commit
        with store.transaction() as conn:
            conn.execute("UPDATE games SET status = 'unfinished', winners = '[]', ended = NULL")
    with session(data) as s:
        assert s.resumed and s.referee.game is not None and s.referee.game.is_over
    with GameStore.open(data) as store:
        row = store.latest_game()
        assert row is not None and row.status == "finished" and row.winners


def test_a_second_writer_on_the_same_game_is_refused_and_changes_nothing(data: Path) -> None:
    lines = game_lines(3)
    play(data, lines[:10])
    # Two referees on one file (as if the lock were bypassed): the second to write must lose.
    first = GameStore.open(data)
    second = GameStore.open(data)
    try:
        from assistant.store.session import _resume

        a = _resume(first, Settings(), random.Random(1), True)
        b = _resume(second, Settings(), random.Random(1), True)
        assert a.referee.handle(lines[10]).ok
        before = b.referee.state()
        reply = b.referee.handle(lines[10])
        assert not reply.ok and "changed by another Lifeguard" in (reply.error or "")
        assert str(data / "lifeguard.sqlite3") in (reply.error or "")
        assert b.referee.state() == before  # taken back
        assert not b.referee.handle("undo").ok
    finally:
        first.close()
        second.close()
    assert stored_commands(data) == lines[:11]


def test_a_full_disk_refuses_the_command_and_changes_nothing(data: Path) -> None:
    lines = game_lines(8)
    with session(data) as s:
        conn: sqlite3.Connection = s.store.conn
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {pages}")  # a real SQLITE_FULL from here on
        refused = None
        for i, line in enumerate(lines):
            before = s.referee.state()
            reply = s.referee.handle(line)
            if not reply.ok:
                refused = i
                break
        assert refused is not None, "the store never filled up"
        assert "full" in (reply.error or "") and str(s.store.path) in (reply.error or "")
        assert s.referee.state() == before
        assert stored_commands(data) == lines[:refused]
        conn.execute("PRAGMA max_page_count = 1073741823")  # space freed: say it again
        for line in lines[refused:]:
            assert s.referee.handle(line).ok, line
    assert stored_commands(data) == lines


def test_journal_writes_are_committed_when_they_return(data: Path) -> None:
    lines = game_lines(5)
    with session(data) as s:
        journal = s.journal
        assert isinstance(journal, StoreJournal)
        for line in lines[:6]:
            assert s.referee.handle(line).ok
            # another connection sees it at once: committed, not pending in a transaction
            other = sqlite3.connect(s.store.path)
            count = other.execute("SELECT count(*) FROM entries").fetchone()[0]
            other.close()
            assert count == journal.count


def test_a_resumed_game_keeps_its_own_house_rules(data: Path) -> None:
    from engine.rules import HouseRules

    played = Settings(rules=HouseRules(lowest_tie_loses=1, knock_requires_swap=False))
    lines = game_lines(12)
    with open_session(played, data) as s:
        for line in lines[:15]:
            assert s.referee.handle(line).ok
        rules = s.referee.state()["rules"]
    with open_session(Settings(), data) as s:  # today's settings differ
        assert s.referee.state()["rules"] == rules and rules["lowest_tie_loses"] == 1
        assert s.referee.handle("new game ann ben cid").question
        assert s.referee.handle("yes").ok
        assert s.referee.state()["rules"]["lowest_tie_loses"] == 2  # a new game: today's rules


def test_the_store_refuses_a_write_from_a_stale_log_position_and_changes_nothing(
    data: Path,
) -> None:
    from assistant.referee import Entry
    from assistant.store import StoreErrorKind
    from assistant.store.db import LogPosition
    from engine.rules import HouseRules

    with GameStore.open(data) as store:
        game_id = store.start_game(("ann", "ben", "cid"), HouseRules(),
                                   [Entry("new game ann ben cid", False)], replacing=None)
        # Another writer started this game: a second start is a conflict, not a second game.
        with pytest.raises(Exception) as second:
            store.start_game(("dan", "eve", "fay"), HouseRules(), [], replacing=None)
        stale = LogPosition(game_id, count=5, cursor=5)  # the file holds 1 entry, cursor 1
        refused = []
        for write in (lambda: store.write_entries(stale, 5, [Entry("ann starts", False)]),
                      lambda: store.move_cursor(stale, 0),
                      lambda: store.finish_game(stale, ["ann"])):
            with pytest.raises(Exception) as err:
                write()
            refused.append(err.value)
        row = store.game(game_id)
        assert row is not None and (row.cursor, row.status) == (1, "unfinished")
        assert [e.command for e in store.entries(game_id)] == ["new game ann ben cid"]
        assert len(store.games()) == 1
    for err in (second.value, *refused):
        assert getattr(err, "kind", None) is StoreErrorKind.CONFLICT
        assert "changed by another Lifeguard" in str(err)
