"""Issue 35: a long game costs no more to undo, redo, resume or show than a short one.

Undo and redo start from the nearest checkpoint of the game (``engine.log.CHECKPOINT``) and
replay fewer actions than that, however long the game; a game holds at most
``engine.log.MAX_ACTIONS`` actions, said in a sentence at the table, at import and for a stored
log written longer by another tool; stored lines are read as the canonical text they are
(``assistant.store.decode``), giving the same commands as the parser; and an import keeps no
more than the game in memory. Each check counts what the code does (actions replayed, bytes
held), never how long it takes: ``bench/long_game.py`` prints the times.
"""

from __future__ import annotations

import copy
import json
import random
import sqlite3
import tracemalloc
from pathlib import Path

import pytest

from assistant.commands import ParseError, canonical, parse
from assistant.config import Settings
from assistant.store import GameStore, open_session
from assistant.store.decode import stored_command
from assistant.store.records import ImportRefused, read_import_file
from bench.long_game import long_game
from engine.game import Game
from engine.log import CHECKPOINT, MAX_ACTIONS, GameLog, GameTooLong
from engine.rules import HouseRules
from engine.simulate import simulate_game
from tests.engine.tables import public
from tests.store.conftest import lifeguard


def actions_of(lines: list[str]) -> list:
    players = None
    actions = []
    for line in lines:
        action = parse(line, players).to_action()
        players = getattr(action, "players", players)
        actions.append(action)
    return actions


@pytest.fixture
def applied(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many actions the engine applies (``Game.apply`` calls), counted as they happen."""
    calls = [0]
    real = Game.apply

    def counting(self: Game, action):  # type: ignore[no-untyped-def]
        calls[0] += 1
        return real(self, action)

    monkeypatch.setattr(Game, "apply", counting)
    return calls


def test_undo_and_redo_replay_at_most_one_checkpoint_of_actions(applied: list[int]) -> None:
    lines = long_game(MAX_ACTIONS)
    log = GameLog.replay(actions_of(lines))
    rng = random.Random(35)
    for _ in range(60):
        before = applied[0]
        if log.can_redo and rng.random() < 0.4:
            log.redo()
        else:
            log.undo()
        assert applied[0] - before < CHECKPOINT + 2, "a step replayed the game from far back"
    # a jump back (a resume's cursor) costs no more either; a jump forward replays what it
    # goes over, as redo does
    while log.can_redo:
        log.redo()
    for cursor in (MAX_ACTIONS, MAX_ACTIONS - 1, 40 * CHECKPOINT + 1, 40 * CHECKPOINT, 7, 0):
        before = applied[0]
        log.rewind(cursor)
        assert applied[0] - before < CHECKPOINT
        assert log.cursor == cursor
    before = applied[0]
    log.rewind(2 * CHECKPOINT + 5)
    assert applied[0] - before == 2 * CHECKPOINT + 5 - 1  # the new game is no Game.apply


@pytest.mark.parametrize("seed", range(6))
def test_a_game_rebuilt_from_checkpoints_is_the_game_replayed_from_the_start(seed: int) -> None:
    """Every state undo, redo, a rewind or a new action reaches equals a plain replay of the
    actions before the cursor (joined groups, rounds and game ends included)."""
    rng = random.Random(seed)
    rules = HouseRules(take_first=bool(seed % 2))
    actions = simulate_game(random.Random(seed), rules=rules)
    log = GameLog.replay(actions, rules, [i == 1 for i in range(len(actions))])
    extra = simulate_game(random.Random(seed + 100), rules=rules)
    for _ in range(120):
        move = rng.random()
        if move < 0.45 and log.can_undo and log.cursor > 1:
            log.undo()
        elif move < 0.8 and log.can_redo:
            log.redo()
        elif move < 0.9:
            log.rewind(rng.randint(1, len(log.actions)))
        else:
            # a new action after the cursor replaces the undone ones: the checkpoints beyond
            # the cursor must not outlive them (try the other game's actions until one fits)
            for action in extra[2:]:
                try:
                    log.apply(action)
                    break
                except Exception:  # noqa: BLE001, S112 - a refusal: try the next
                    continue
        fresh = GameLog.replay(log.actions[: log.cursor], rules)
        expected = public(fresh.game) if fresh.game else None
        assert (public(log.game) if log.game else None) == expected
        if log.game is not None and fresh.game is not None:
            assert log.game.rounds == fresh.game.rounds and log.game.swapped == fresh.game.swapped


def test_a_copy_of_a_log_changes_alone() -> None:
    """``GameLog.copy`` (and ``copy.deepcopy``, which the referee uses to try a command) shares
    only what never changes."""
    log = GameLog.replay(actions_of(long_game(3 * CHECKPOINT + 5)))
    before = public(log.game)  # type: ignore[arg-type]
    other = copy.deepcopy(log)
    for _ in range(2 * CHECKPOINT + 10):
        other.undo()
    assert public(log.game) == before and log.cursor == 3 * CHECKPOINT + 5  # type: ignore[arg-type]
    log.undo()
    log.undo()
    while other.can_redo:
        other.redo()
    assert public(other.game) == before  # type: ignore[arg-type]
    assert log.cursor == 3 * CHECKPOINT + 3


def test_a_game_holds_at_most_max_actions_and_says_so(data: Path) -> None:
    """At the table: the command after the bound is refused in a sentence and not saved;
    undo and a new game still work. Resumed, the full game is the same game."""
    lines = long_game(MAX_ACTIONS)
    source = data.parent / "long.txt"
    source.write_text("\n".join(lines) + "\n")
    with GameStore.open(data, lock=True) as store:
        from assistant.store.records import import_file

        import_file(store, source, Settings().rules)
    with open_session(Settings(), data, rng=random.Random(0), confirm_new_game=False) as s:
        assert s.resumed and s.referee.history() == lines
        turn = s.referee.game.turn  # type: ignore[union-attr]
        reply = s.referee.handle(f"{turn} knocks")
        assert not reply.ok
        assert reply.error == GameTooLong().message
        assert f"{MAX_ACTIONS:,} commands" in reply.error and "'undo' still works" in reply.error
        assert s.referee.handle("undo").ok and s.referee.handle("redo").ok
        state = s.referee.state()
    with GameStore.open(data, create=False) as store:
        row = store.current_game()
        assert row is not None and row.cursor == MAX_ACTIONS
        assert len(store.entries(row.id)) == MAX_ACTIONS
    with open_session(Settings(), data, rng=random.Random(0), confirm_new_game=False) as s:
        assert s.referee.state() == state
        assert s.referee.handle("new game ann ben cid").ok


def test_import_refuses_a_longer_game_naming_the_line_and_keeps_nothing(tmp_path: Path) -> None:
    source = tmp_path / "long.txt"
    source.write_text("\n".join(long_game(MAX_ACTIONS + 40)) + "\n")
    with pytest.raises(ImportRefused) as refused:
        read_import_file(source, HouseRules())
    first, rest = refused.value.problems
    assert first == (f"line {MAX_ACTIONS + 1}: a game holds at most {MAX_ACTIONS:,} commands, "
                     "and this file holds more.")
    assert rest.startswith("The 39 lines after it were not checked")


def refused_import(source: Path) -> tuple[list[str], int]:
    """What importing ``source`` is refused for, and the most memory it held meanwhile."""
    tracemalloc.start()
    try:
        with pytest.raises(ImportRefused) as refused:
            read_import_file(source, HouseRules())
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return refused.value.problems, peak


def test_import_of_many_refused_lines_holds_only_a_line_at_a_time(tmp_path: Path) -> None:
    """Issue 35: a 10 MB file of refused lines peaked at 595 MB (every line kept as a tuple)."""
    source = tmp_path / "refused.txt"
    lines = "ann wibbles\n# a comment\n" * 80_000  # 2 MB: 80,000 command lines, as many comments
    source.write_text("# house rules: {}\n" * 1000 + "new game ann ben cid\n" + lines)
    problems, peak = refused_import(source)
    # the thousand house rules comments are one refusal (two are enough to say so)
    assert problems == ["two house rules comments: keep the one meant for this game"]
    assert peak < 2_000_000, f"{peak:,} bytes held for a 2 MB file"
    source.write_text("new game ann ben cid\n" + lines)
    problems, peak = refused_import(source)
    assert problems[0].startswith("line 2: ")
    assert problems[1].startswith("The 79999 lines after it were not checked")
    assert peak < 2_000_000, f"{peak:,} bytes held for a 2 MB file"


def test_a_stored_log_longer_than_a_game_is_a_damaged_game_not_replayed(env, data: Path) -> None:
    """Written by another tool: named in a sentence by status and history, never replayed;
    the other games stay usable."""
    with open_session(Settings(), data, rng=random.Random(0), confirm_new_game=False) as s:
        for line in long_game(12):
            assert s.referee.handle(line).ok
    conn = sqlite3.connect(data / "lifeguard.sqlite3")
    with conn:
        conn.execute("INSERT INTO games (players, rules, started, cursor) "
                     "SELECT players, rules, started, ? FROM games WHERE id = 1", (MAX_ACTIONS + 1,))
        conn.execute("UPDATE games SET status = 'abandoned' WHERE id = 1")
        conn.executemany("INSERT INTO entries (game_id, seq, command, at) VALUES (2, ?, ?, '')",
                         enumerate(long_game(MAX_ACTIONS + 1)))
    conn.close()
    out = lifeguard(env, "status")
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert f"Game 2 in {data / 'lifeguard.sqlite3'} is damaged (its log holds 5,001 commands; a game " \
           f"holds at most 5,000)" in out.stderr
    rows = json.loads(lifeguard(env, "history", "--json").stdout)
    assert "damaged" in rows[0] and rows[1]["id"] == 1 and rows[1]["rounds"] == 1


@pytest.mark.parametrize("seed", range(40))
def test_stored_lines_are_read_as_the_parser_reads_them(seed: int) -> None:
    players = (3, 4, 5)[seed % 3]
    actions = simulate_game(random.Random(seed), players=players)
    names = tuple(actions[0].players)
    for action in actions[1:]:
        line = canonical(action)
        assert stored_command(line, names) == parse(line, names), line


HOSTILE = [
    "alice swaps 3 cat cat dog", "Alice swaps 1 cat", "alice  swaps 1 cat", "alice swaps 1 cat ",
    "alice swaps 5 cat", "alice swaps 0 cat", "alice swaps 1", "alice swaps 1 cats",
    "alice swaps 1 1 cat", "alice swaps 2 2 cat", "alice has 3 giraffe 2 bear 5 dog",
    "alice has 10 giraffe", "alice has 11 giraffe", "alice has 99 giraffe", "alice has 1 giraffe",
    "alice has 0 giraffe 10 bear", "row 4 cat cat cat cat cat", "alice swaps 4 cat cat cat cat cat", "alice has giraffe bear", "alice has 2",
    "alice has ³ giraffe", "alice has 03 giraffe", "alice has all cats", "alice has all cat",
    "alice has all mice", "alice has all dogs", "row 2 cat cat", "row 2 2 cat", "row 5 cat",
    "row 2 cat", "row ٢ cat cat", "bob knocks", "bob knocks bob", "bob passes", "zed passes",
    "carol starts", "starts", "alice swaps 1 cat undo", "undo", "new game ann ben cid", "",
]


@pytest.mark.parametrize("line", HOSTILE)
def test_a_line_that_is_not_quite_canonical_is_read_as_the_parser_reads_it(line: str) -> None:
    names = ("alice", "bob", "carol")
    try:
        expected = parse(line, names)
    except ParseError as err:
        with pytest.raises(ParseError) as refused:
            stored_command(line, names)
        assert refused.value.message == err.message
        return
    assert stored_command(line, names) == expected
