"""Several hundred seeded random whole games (``engine.simulate``: a shuffled deck, random legal
play, honest declarations), written as command files and replayed through the engine, the
referee and the CLI, asserting the invariants of RULES.md."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections import Counter
from functools import cache
from pathlib import Path

import pytest

from assistant.cli import main
from assistant.commands import canonical, parse
from assistant.referee import Referee
from engine.actions import Action, DeclareHand, Knock, NewGame, SetRow, SetStarter, SuddenDeath
from engine.deck import COPIES, HAND_SIZE, SUDDEN_DEATH_ANIMALS, Animal, Cards
from engine.errors import WrongPhase
from engine.events import GameWon, RoundEnded
from engine.game import Game, Phase
from engine.log import GameLog
from engine.rules import HouseRules
from engine.simulate import simulate_game
from tests.engine.tables import frozen

GAMES = 300
CHUNKS = 6
#: House rules cycled over the seeds, so that every rule is played in many games.
RULES = (
    HouseRules(),
    HouseRules(knock_requires_swap=False, lowest_tie_loses=1),
    HouseRules(all_equal="everyone_loses_1", all_out="shared"),
    HouseRules(all_equal="everyone_loses_1", all_out="most_lives_before", next_start="most_lives_lost"),
    HouseRules(all_equal="everyone_loses_1", all_out="most_points", two_alive_majority_two=False),
    HouseRules(next_start="most_lives_lost", knock_requires_swap=False),
)
RULE_FLAGS = {  # the same rules as config files, for the CLI
    i: "\n".join(
        f"{name} = {json.dumps(getattr(rules, name))}" for name in HouseRules.field_names()
    )
    for i, rules in enumerate(RULES)
}


def rules_for(seed: int) -> HouseRules:
    return RULES[seed % len(RULES)]


@cache
def game_actions(seed: int) -> tuple[Action, ...]:
    return tuple(simulate_game(random.Random(seed), rules=rules_for(seed)))


def command_lines(seed: int) -> list[str]:
    return [canonical(a) for a in game_actions(seed)]


def total(*hands: Cards | None) -> Counter:
    counts: Counter = Counter()
    for cards in hands:
        if cards is not None:
            counts.update(cards.counts())
    return counts


def assert_within_deck(counts: Counter, where: str) -> None:
    for animal, n in counts.items():
        assert n <= COPIES[animal], f"{n} {animal} in {where}"


def check_state(game: Game) -> None:
    """What must hold after every accepted action."""
    assert all(lives >= 0 for lives in game.lives.values())
    for k, row in enumerate(game.rows, start=1):
        assert row is None or len(row) == k
    assert_within_deck(total(*game.rows, *game.known.values()), "rows and known hands")
    for p in game.players:
        assert len(game.known[p]) <= HAND_SIZE
        if game.lives[p] == 0 and not game.is_over:  # the last round stays on show at the end
            assert not game.known[p] and p not in game.declared
    if game.phase is Phase.REVEAL:
        for p, hand in game.declared.items():
            assert len(hand) == HAND_SIZE and hand.contains(game.known[p])
        hands = [game.declared.get(p, game.known[p]) for p in game.alive]
        assert_within_deck(total(*game.rows, *hands), "rows and declared hands")
    if game.phase in (Phase.TURNS, Phase.FINAL_TURNS):
        assert game.turn in game.alive
        assert not game.missing_rows()
    if game.phase is Phase.FINAL_TURNS:
        assert game.knocker is not None and game.turn != game.knocker


def play_checked(seed: int) -> GameLog:
    """Apply a simulated game action by action, checking the invariants at every step."""
    log = GameLog(rules_for(seed))
    lives_seen: dict[str, int] = {}
    for action in game_actions(seed):
        before = log.game
        rows_before = list(before.rows) if before else []
        declared_before = dict(before.declared) if before else {}
        events = log.apply(action)
        game = log.game
        assert game is not None
        for p, lives in game.lives.items():
            assert lives <= lives_seen.get(p, 5), "lives rose"
            lives_seen[p] = lives
        check_state(game)
        for event in events:
            if isinstance(event, RoundEnded) and event.sudden_death is None:
                # The physical table: declared hands and rows are cards of one deck; with 5
                # alive no card was set aside, so together they are the whole deck.
                assert isinstance(action, DeclareHand)
                declared = {**declared_before, action.player: action.cards}
                on_table = total(*rows_before, *declared.values())
                assert_within_deck(on_table, "declared hands and rows")
                if len(declared) == 5:
                    assert on_table == Counter(COPIES)
                if len(set(event.points.values())) > 1:  # the highest loses none, someone loses
                    assert min(event.losses.values()) == 0 < max(event.losses.values())
            if isinstance(event, RoundEnded) and event.sudden_death is not None:
                claimant, animal = event.sudden_death
                assert animal in SUDDEN_DEATH_ANIMALS
                assert event.losses[claimant] == 0
                assert all(n == 1 for p, n in event.losses.items() if p != claimant)
            if isinstance(event, GameWon):
                assert event.winners == game.winners
    return log


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_random_games_keep_the_invariants(chunk: int) -> None:
    outcomes: Counter = Counter()
    for seed in range(chunk, GAMES, CHUNKS):
        game = play_checked(seed).game
        assert game is not None and game.is_over and game.turn is None
        assert game.winners
        if len(game.alive) == 1:
            assert game.winners == game.alive  # exactly one winner: the last one alive
            outcomes["last_alive"] += 1
        else:
            # Everyone left went out in the same round: the house rule decides.
            assert game.alive == ()
            last = game.rounds[-1]
            assert set(game.winners) <= set(last.out)
            if game.rules.all_out == "shared":
                assert set(game.winners) == set(last.out)
            outcomes[game.rules.all_out] += 1
        assert set(game.out_order) | set(game.alive) == set(game.players)
        assert len(game.out_order) == len(set(game.out_order))
        # A finished game has no legal action left.
        p = game.players[0]
        for action in (Knock(p), SetRow(1, Cards.of("pig")), SuddenDeath(p, Animal.CAT)):
            with pytest.raises(WrongPhase):
                game.apply(action)
    assert outcomes["last_alive"] >= 1


def test_random_games_cover_the_interesting_cases() -> None:
    """The simulated games reach what the invariants are about (else they prove little)."""
    seen: Counter = Counter()
    for seed in range(GAMES):
        actions = game_actions(seed)
        seen[f"{len(actions[0].players)} players"] += 1
        seen["sudden death"] += any(isinstance(a, SuddenDeath) for a in actions)
        log = GameLog.replay(actions, rules_for(seed))
        game = log.game
        assert game is not None
        seen["everyone out"] += not game.alive
        seen["two alive round"] += any(len(r.losses) == 2 for r in game.rounds)
    assert all(seen[f"{n} players"] >= 50 for n in (3, 4, 5)), seen
    assert seen["sudden death"] >= 3, seen  # all 4 cats in one hand is rare at a real table
    assert seen["two alive round"] >= 100, seen


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_replay_of_the_log_rebuilds_the_same_state(chunk: int) -> None:
    for seed in range(chunk, GAMES, CHUNKS):
        actions = game_actions(seed)
        rng = random.Random(seed)
        for cut in (rng.randrange(1, len(actions)), len(actions)):
            stepped = GameLog(rules_for(seed))
            for action in actions[:cut]:
                stepped.apply(action)
            rebuilt = GameLog.replay(actions[:cut], rules_for(seed))
            assert frozen(rebuilt.game) == frozen(stepped.game)


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_canonical_forms_round_trip(chunk: int) -> None:
    for seed in range(chunk, GAMES, CHUNKS):
        actions = game_actions(seed)
        players = actions[0].players
        for action in actions:
            text = canonical(action)
            command = parse(text, players)
            assert command.canonical == text
            back = command.to_action()
            if isinstance(action, SetStarter):  # "by lot" is not part of the command
                assert back == SetStarter(action.player)
            else:
                assert back == action


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_undo_then_redo_is_the_identity_in_the_log(chunk: int) -> None:
    for seed in range(chunk, GAMES, CHUNKS):
        actions = game_actions(seed)
        rng = random.Random(seed)
        log = GameLog.replay(actions[:2], rules_for(seed))
        for i, action in enumerate(actions[2:], start=2):
            log.apply(action)
            if rng.random() < 0.05 or i == len(actions) - 1:
                before = frozen(log.game)
                undone = log.undo()
                assert undone == [action]
                if not isinstance(action, NewGame):
                    assert frozen(log.game) != before or isinstance(action, SetStarter)
                redone, _ = log.redo()
                assert redone == [action]
                assert frozen(log.game) == before
                assert log.cursor == i + 1


@pytest.mark.parametrize("seed", range(0, GAMES, 10))
def test_undo_then_redo_is_the_identity_in_the_referee(seed: int) -> None:
    lines = command_lines(seed)
    referee = Referee(rules_for(seed), random.Random(seed), confirm_new_game=False)
    rng = random.Random(seed)
    for i, line in enumerate(lines):
        assert referee.handle(line).ok, line
        if i >= 2 and rng.random() < 0.2:
            before = json.dumps(referee.state(), sort_keys=True)
            history = referee.history()
            undo = referee.handle("undo")
            assert undo.ok and undo.said[0] == f"Undone: {line}."
            assert referee.history() == history[:-1]
            redo = referee.handle("redo")
            assert redo.ok and redo.said[0] == f"Redone: {line}."
            assert json.dumps(referee.state(), sort_keys=True) == before
            assert referee.history() == history
    assert referee.game is not None and referee.game.is_over


@pytest.mark.parametrize("seed", range(0, GAMES, 10))
def test_referee_resume_rebuilds_the_same_state(seed: int) -> None:
    lines = command_lines(seed)
    live = Referee(rules_for(seed), random.Random(seed), confirm_new_game=False)
    for line in lines:
        assert live.handle(line).ok
    resumed = Referee.resume(live.history(), rules=rules_for(seed))
    assert resumed.state() == live.state()
    cut = len(lines) // 2
    partial = Referee.resume(live.history(), cursor=cut, rules=rules_for(seed))
    assert partial.history() == live.history()[:cut]
    assert partial.handle("redo").ok


# --------------------------------------------------------------------------- through the CLI
def write_game(tmp_path: Path, seed: int) -> tuple[Path, Path]:
    path = tmp_path / f"game{seed}.txt"
    path.write_text(f"# seeded game {seed}\n\n" + "\n".join(command_lines(seed)) + "\n")
    config = tmp_path / f"rules{seed % len(RULES)}.toml"
    config.write_text("[rules]\n" + RULE_FLAGS[seed % len(RULES)] + "\n")
    return path, config


def expected_json(seed: int) -> dict:
    game = GameLog.replay(game_actions(seed), rules_for(seed)).game
    assert game is not None
    return {
        "players": [{"name": p, "lives": game.lives[p]} for p in game.players],
        "winners": list(game.winners),
        "round": game.round,
        "phase": "game_over",
    }


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_replay_json_through_the_cli(chunk: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A good share of the games (100) through ``lifeguard replay FILE --json``, in-process."""
    for seed in range(chunk, 100, CHUNKS):
        path, config = write_game(tmp_path, seed)
        status = main(["--config", str(config), "replay", str(path), "--json"])
        out, err = capsys.readouterr()
        assert status == 0 and err == ""
        state = json.loads(out)  # stdout holds exactly one JSON object
        assert out.count("\n") == 1
        want = expected_json(seed)
        assert [{"name": p["name"], "lives": p["lives"]} for p in state["players"]] == want["players"]
        assert state["winners"] == want["winners"]
        assert state["round"] == want["round"] and state["phase"] == "game_over"


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 7, 42, 101, 299])
def test_replay_through_a_real_lifeguard_process(seed: int, tmp_path: Path, isolated_env: dict[str, str]) -> None:
    path, config = write_game(tmp_path, seed)
    exe = Path(sys.executable).with_name("lifeguard")
    done = subprocess.run(
        [str(exe), "--config", str(config), "replay", str(path), "--json"],
        capture_output=True, text=True, env=isolated_env, timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    state = json.loads(done.stdout)
    want = expected_json(seed)
    assert [{"name": p["name"], "lives": p["lives"]} for p in state["players"]] == want["players"]
    assert state["winners"] == want["winners"] and state["round"] == want["round"]
    # Without --json: the announcements, ending with the winner.
    spoken = subprocess.run(
        [str(exe), "--config", str(config), "replay", str(path)],
        capture_output=True, text=True, env=isolated_env, timeout=60,
    )
    assert spoken.returncode == 0
    last = spoken.stdout.strip().splitlines()[-1]
    assert last.endswith("wins the game!") or last.endswith("share the win!")
