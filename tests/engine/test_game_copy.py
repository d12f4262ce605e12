"""``Game.copy`` and ``Game.check``: a try never changes the game, and a copy shares no container
with the game it came from (so ``copy``'s field-by-field list cannot silently miss a new field).
Also the one escaping of shown text (``engine.names.escaped``), which the engine's refusals and
``assistant.commands.text.printable`` both use."""

from __future__ import annotations

import random

import pytest

from assistant.commands.text import printable
from engine.actions import Action, NewGame
from engine.errors import BadSetup, RuleError
from engine.game import Game
from engine.names import escaped
from engine.simulate import simulate_game
from tests.engine.tables import public


def played(seed: int) -> tuple[Game, list[Action]]:
    actions = simulate_game(random.Random(seed))
    first = actions[0]
    assert isinstance(first, NewGame)
    game, _ = Game.new(first)
    return game, actions[1:]


def containers(game: Game) -> dict[str, object]:
    return {name: value for name, value in vars(game).items()
            if isinstance(value, dict | list | set)}


@pytest.mark.parametrize("seed", range(12))
def test_a_copy_shares_no_container_and_equals_the_game(seed: int) -> None:
    game, actions = played(seed)
    for action in actions[: len(actions) // 2]:
        game.apply(action)
    other = game.copy()
    assert public(other) == public(game)
    assert vars(other) == vars(game)
    for name, value in containers(game).items():
        assert getattr(other, name) is not value, f"Game.copy shares {name}"


@pytest.mark.parametrize("seed", range(12))
def test_check_never_changes_the_game(seed: int) -> None:
    game, actions = played(seed)
    rng = random.Random(seed)
    for action in actions:
        before = game.copy()
        # The next action (accepted) and an earlier one (mostly refused now) are both tried.
        for tried in (action, rng.choice(actions)):
            try:
                game.check(tried)
            except RuleError:
                pass
            assert vars(game) == vars(before)
        game.apply(action)


def test_a_refused_name_shows_its_control_characters_and_odd_spaces_escaped() -> None:
    with pytest.raises(BadSetup) as refused:
        Game.new(NewGame(("alice", "bob", "an\x1b[2Jne\u00a0marie")))
    assert "'an\\x1b[2Jne\\xa0marie' is not." in str(refused.value)


@pytest.mark.parametrize(("text", "limit", "shown", "name"), [
    ("a\x1b[31mb\x07c\x9b", 80, "a\\x1b[31mb\\x07c\\x9b", "a\\x1b[31mb\\x07c\\x9b"),
    ("Zoë प्रिया", 80, "Zoë प्रिया", "Zoë प्रिया"),
    ("a\u202eb\u2028c\ud800", 80, "a\\u202eb\\u2028c\\ud800", "a\\u202eb\\u2028c\\ud800"),
    # Spaces other than ' ' stay spaces in echoed input and are escaped in a refused name.
    ("a\u00a0b\u3000c d", 80, "a\u00a0b\u3000c d", "a\\xa0b\\u3000c d"),
    ("x" * 12, 10, "x" * 10 + "...", "x" * 12),
])
def test_one_escaping_for_echoed_input_and_refused_names(text: str, limit: int, shown: str,
                                                        name: str) -> None:
    assert printable(text, limit) == escaped(text, limit) == shown
    assert escaped(text, spaces=True) == name
