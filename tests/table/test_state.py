"""The table model (``assistant.table``): built from real games, played into a real SQLite
store and loaded back the one way every front end loads them (``store.current``).

``state_json.json`` holds the phone page's ``/state.json`` as it was before the table model
(written by the old ``web/table.py`` for the seeded playthrough game, ``tests/engine/
playthrough.txt``): rows, turns, a knock, the reveal, a sudden death, a player going out, the
game over, every command undone, and no game at all. ``to_json`` must give the same documents,
key for key and in the same order (``assistant/web/page/table.js`` reads them)."""

from __future__ import annotations

import dataclasses
import json
import random
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from assistant.config import Settings
from assistant.store import GameStore, open_session
from assistant.store.current import load_current, table_state
from assistant.store.db import DamagedGame
from assistant.table import TableState, score_sheet
from assistant.table.expect import expecting
from assistant.web.table import TableWatch
from engine.actions import Swap
from engine.game import START_LIVES, Phase
from tests.engine.tables import CAROL_LOSES, QUICK, cards, new_game, play_round, set_rows

HERE = Path(__file__).parent
#: After how many of the playthrough's lines a state is compared.
PREFIXES = (1, 4, 7, 12, 13, 15, 17, 27, 41, 55)


def playthrough() -> list[str]:
    text = (HERE.parent / "engine" / "playthrough.txt").read_text()
    return [line for line in text.splitlines() if line and not line.startswith("#")]


def normalised(state: dict[str, Any]) -> dict[str, Any]:
    """The state with the game's start time (the clock's) left out."""
    if state.get("game"):
        state = {**state, "game": {**state["game"], "started": "STARTED"}}
    return state


def golden() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((HERE / "state_json.json").read_text())
    return data


def stored_state(data: Path) -> dict[str, Any]:
    """The state as ``load_current`` and the table model give it."""
    with GameStore.open(data, create=False) as store:
        loaded = load_current(store, finished_too=True)
        if loaded is None:
            return TableState.of(None).to_json()
        return table_state(loaded.row, loaded.entries, store.path).to_json()


def test_to_json_is_the_state_json_of_before_at_every_stage_of_a_game(tmp_path: Path) -> None:
    expected = golden()
    assert set(expected) == {*map(str, PREFIXES), "undone", "no_game"}
    seen: dict[str, dict[str, Any]] = {}
    watch = TableWatch(tmp_path)
    watch.poll()
    seen["no_game"] = watch.state
    with open_session(Settings(), tmp_path, rng=random.Random(1)) as s:
        for n, line in enumerate(playthrough(), 1):
            assert s.referee.handle(line).ok, line
            if n in PREFIXES:
                watch.poll()
                assert json.dumps(normalised(stored_state(tmp_path))) == \
                    json.dumps(normalised(watch.state))
                seen[str(n)] = watch.state
        while s.referee.handle("undo").ok:
            pass
        watch.poll()
        seen["undone"] = watch.state
    watch.close()
    for key, state in seen.items():
        assert json.dumps(normalised(state)) == json.dumps(expected[key]), key
    # The stages are the ones named: a sudden death, a player out, the game over.
    assert expected["27"]["sheet"][1]["sudden_death"] == {"player": "dave", "animal": "cat",
                                                          "animals": "cats"}
    assert expected["41"]["players"][1]["out"] and expected["55"]["phase"] == "game_over"
    assert expected["12"]["phase"] == "final_turns"
    assert [a["command"] for a in expected["undone"]["announcements"]] == [playthrough()[0]]


def test_the_score_sheet_counts_lives_from_the_round_results() -> None:
    """Carol loses 2 lives a round: 5, 3, 1, then out with 1 life left to lose (the result
    took 2): the sheet says she lost 1 (``lost``) of the 2 the result took (``penalty``)."""
    game = new_game(rules=QUICK)
    for _ in range(3):
        play_round(game, CAROL_LOSES)
    sheet = score_sheet(game)
    carol = [r.line("carol") for r in sheet]
    assert [(c.lives, c.lost, c.penalty, c.out) for c in carol if c] == [
        (3, 2, 2, False), (1, 2, 2, False), (0, 1, 2, True)]
    for player in game.players:
        lines = [line for r in sheet if (line := r.line(player))]
        assert sum(line.lost for line in lines) == START_LIVES - game.lives[player]
        assert lines[-1].lives == game.lives[player]
    # Once out, no line in a later round.
    play_round(game, {"alice": "4 giraffe 6 sheep", "bob": "5 pig 5 rabbit"})
    assert score_sheet(game)[-1].line("carol") is None
    state = TableState.of(game).to_json()
    assert state["sheet"][2]["players"][2] == {"name": "carol", "points": 5, "lost": 1,
                                               "lives": 0}


def test_what_is_expected_next_follows_the_game() -> None:
    game = new_game()
    set_rows(game)
    state = TableState.of(game)
    assert state.phase is Phase.TURNS and state.turn == "alice"
    assert state.expecting == expecting(game) == "Alice's turn: swap."
    assert state.weight("swap") == 4.0 and state.weight("knock") == 0.5  # no swap yet: no knock
    assert state.hint[0] == "alice swaps ROW and the cards put down"
    assert state.first_words[0] == "alice" and "row" in state.first_words
    assert dict(state.examples)["swap"] == "alice swaps 2 bear dog"
    game.apply(Swap("alice", 2, cards("dog dog")))
    game.apply(Swap("bob", 2, cards("cat cat")))
    game.apply(Swap("carol", 2, cards("pig pig")))
    state = TableState.of(game)
    assert state.weight("knock") == 1.5 and state.hint[0].endswith(" or knocks")
    assert state.expecting == "Alice's turn: swap or knock."
    assert [p.name for p in state.players if p.turn] == ["alice"]


def test_the_state_is_a_frozen_value() -> None:
    state = TableState.of(new_game())
    with pytest.raises(dataclasses.FrozenInstanceError):
        state.round = 2  # type: ignore[misc]
    assert state == TableState.of(new_game()) and hash(state) == hash(TableState.of(new_game()))


def test_load_current_finds_the_game_and_refuses_a_damaged_one(tmp_path: Path) -> None:
    with open_session(Settings(), tmp_path, rng=random.Random(1)) as s:
        for line in playthrough():
            assert s.referee.handle(line).ok
    with GameStore.open(tmp_path, create=False) as store:
        assert load_current(store) is None  # finished: no game in progress
        loaded = load_current(store, finished_too=True)
        assert loaded is not None and loaded.referee.game is not None
        assert loaded.referee.game.winners == ("dave",)
    with sqlite3.connect(tmp_path / "lifeguard.sqlite3") as conn:
        conn.execute("UPDATE games SET status = 'unfinished', cursor = 0")
    # Every command undone: no game to show, and (as before) no sentence of what is expected.
    state = stored_state_or_error(tmp_path)
    assert list(state) == ["players", "winners", "round", "phase", "game", "announcements",
                           "sheet", "points", "last_turn_taken"]
    assert state["phase"] == "no_game" and state["game"]["status"] == "unfinished"
    with sqlite3.connect(tmp_path / "lifeguard.sqlite3") as conn:
        conn.execute("UPDATE games SET cursor = 999")
    with GameStore.open(tmp_path, create=False) as store:
        with pytest.raises(DamagedGame) as refused:
            load_current(store)
        assert "cursor 999 is past the end of its log" in refused.value.message
    state = stored_state_or_error(tmp_path)
    assert state["phase"] == "no_game" and state["game"]["id"] == 1
    assert "cursor 999" in state["error"]


def stored_state_or_error(data: Path) -> dict[str, Any]:
    with GameStore.open(data, create=False) as store:
        row = store.current_game()
        assert row is not None
        return table_state(row, store.entries(row.id), store.path).to_json()


def test_status_json_is_the_referees_state_at_every_command() -> None:
    """``replay --json`` and ``status --json`` (``Referee.state``, which reads the model's
    ``status_json``) say, key for key and in order, what they said before the model:
    ``status_json.json`` holds, for each command of the playthrough, what the engine's own
    ``Game.snapshot`` (since folded into the model) and the sentence of what is expected said."""
    from assistant.referee import Referee

    referee = Referee(Settings().rules, random.Random(1), confirm_new_game=False)
    assert TableState.of(None).status_json() == referee.state() == {
        "players": [], "winners": [], "round": 0, "phase": "no_game"}
    before = json.loads((HERE / "status_json.json").read_text())
    assert [b["command"] for b in before] == playthrough()
    for line, stage in zip(playthrough(), before, strict=True):
        assert referee.handle(line).ok
        game = referee.game
        assert game is not None
        assert json.dumps(TableState.of(game).status_json()) == json.dumps(stage["status"])
        assert stage["status"]["expecting"] == expecting(game)
        assert referee.state() == stage["status"]


def test_the_table_model_is_headless_and_below_the_store(tmp_path: Path) -> None:
    """Importing the table model loads no UI, no audio and none of the store, the web page,
    the voice or the referee: it sits below them all (they read it)."""
    probe = ("import json, sys, assistant.table\n"
             "print(json.dumps(sorted(m for m in sys.modules if m.startswith(('assistant', "
             "'textual', 'pyttsx3', 'speech_recognition', 'sqlite3')))))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=60, cwd=tmp_path,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(HERE.parent.parent)})
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout)
    assert "assistant.table.state" in loaded
    above = ("assistant.store", "assistant.web", "assistant.voice", "assistant.tui",
             "assistant.referee", "assistant.cli", "textual", "pyttsx3", "speech_recognition",
             "sqlite3")
    assert [m for m in loaded if m.startswith(above)] == []


def test_the_tables_view_carries_the_model_made_after_each_command() -> None:
    """The TUI draws its score sheet and hint from ``TableView.table``: made on the desk's
    thread after each command, with the question waiting for yes or no."""
    from assistant.referee import Referee
    from assistant.tui.desk import TableView

    referee = Referee(Settings().rules, random.Random(1))
    assert TableView.empty().table == TableState.of(None)
    for line in playthrough()[:17]:
        assert referee.handle(line).ok
    view = TableView.of(referee)
    assert view.table == TableState.of(referee.game)
    assert len(view.table.sheet) == 1 and view.table.phase is Phase.ROWS
    assert referee.handle("new game ann ben cid").question
    asked = TableView.of(referee).table
    assert asked.hint[0] == "yes to go ahead, no to drop it" and asked.round == 2


def test_help_lists_each_intents_example_naming_the_first_player() -> None:
    """``help`` (typed or said) and the table's help screen list the same examples."""
    from assistant.referee import help_lines
    from assistant.table import help_examples

    assert help_examples(("bob", "carol", "dan")) == [
        "new game alice bob carol", "bob starts", "row 3 pig pig cat", "bob swaps 2 bear dog",
        "bob knocks", "bob passes", "bob has 3 giraffe 2 bear 5 dog", "bob has all cats", "undo",
        "redo", "no", "yes", "status", "repeat", "help"]
    assert help_examples(())[1] == "alice starts"
    assert help_lines(("bob",)) == ["Commands:", *(f"  {e}" for e in help_examples(("bob",)))]
