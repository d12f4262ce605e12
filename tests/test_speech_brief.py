"""What the referee says aloud under ``[voice] speech`` (``referee.spoken``): brief, full, results.

Every event kind has its brief sentence here (a table, checked to cover ``engine.events.Event``
whole); whole seeded games go through the real referee to check that a typed game says only
round results and the game's end, that ``results`` says only those, that ``full`` is what the
table said before the setting existed, and that ``chat --jsonl`` names what was spoken.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import get_args

import pytest

from assistant import announce
from assistant.commands import Command, canonical, parse
from assistant.config import ConfigError, Settings, VoiceSettings, load_settings, settings_from_dict
from assistant.referee import Referee, Reply, spoken
from engine.actions import DeclareHand, SuddenDeath
from engine.deck import Animal, Cards
from engine.events import (
    Event,
    GameStarted,
    GameWon,
    HandDeclared,
    Knocked,
    Majority,
    Passed,
    RevealBegins,
    RoundEnded,
    RoundStarted,
    RowSet,
    StarterSet,
    Swapped,
    TurnsBegin,
)
from engine.rules import HouseRules
from engine.simulate import simulate_game

OPENING = ["new game alice bob carol", "alice starts", "row 1 giraffe", "row 2 bear dog",
           "row 3 pig pig cat", "row 4 mole goat sheep mouse"]
PLAYERS = ("alice", "bob", "carol")


def round_ended(**changes) -> RoundEnded:
    fields = {"round": 2, "sudden_death": None,
              "majorities": (Majority(Animal.BEAR, "bob", 3), Majority(Animal.PIG, None, 2, ("alice", "carol"))),
              "points": {"alice": 0, "bob": 8, "carol": 0},
              "losses": {"alice": 2, "bob": 0, "carol": 2}, "lives": {"alice": 3, "bob": 5, "carol": 0},
              "out": ("carol",)}
    return RoundEnded(**{**fields, **changes})


#: (event, its brief sentences, when they are said aloud: "echo" heard only, "result" always,
#: "quiet" never in brief).
BRIEF = [
    (GameStarted(PLAYERS, HouseRules()), ["New game: Alice, Bob and Carol."], "echo"),
    (RoundStarted(2, "bob"), [], "quiet"),
    (StarterSet("bob", by_lot=False), ["Bob starts."], "echo"),
    (StarterSet("bob", by_lot=True), [], "quiet"),  # on screen: nobody said it
    (RowSet(2, Cards.of("bear", "dog"), (3, 4)), ["Row 2: bear dog."], "echo"),
    (TurnsBegin("alice"), [], "quiet"),
    (Swapped("bob", 2, Cards.of("bear", "dog"), Cards.of("pig", "sheep"), "carol"),
     ["Bob: sheep pig for row 2."], "echo"),  # in deck order, as the canonical command
    (Knocked("bob", "carol", ("carol", "alice")), ["Bob knocks."], "echo"),
    (Passed("carol", "alice"), ["Carol passes."], "echo"),
    (RevealBegins(PLAYERS), [], "quiet"),
    (HandDeclared("carol", Cards({Animal.BEAR: 2, Animal.PIG: 3, Animal.DOG: 1}), ("alice",)),
     ["Carol: 2 bears a dog and 3 pigs."], "echo"),
    (round_ended(), ["Alice loses 2 lives.", "Carol is out."], "result"),  # out: not her lives too
    (round_ended(out=()), ["Alice and Carol lose 2 lives each."], "result"),
    (round_ended(losses={"alice": 0, "bob": 0, "carol": 2}), ["Carol is out."], "result"),
    (round_ended(losses={"alice": 2, "bob": 1, "carol": 0}, out=()),
     ["Alice loses 2 lives, Bob loses 1 life."], "result"),
    (round_ended(losses={"alice": 0, "bob": 0, "carol": 0}, out=()), ["Nobody loses a life."], "result"),
    (round_ended(sudden_death=("bob", Animal.PIG), losses={"alice": 1, "bob": 0, "carol": 1},
                 out=("alice", "carol")),
     ["Sudden death: Bob has all pigs.", "Alice and Carol are out."],
     "result"),
    (GameWon(("bob",)), ["Bob wins the game!"], "result"),
    (GameWon(("alice", "bob"), how="shared"), ["Alice and Bob share the win!"], "result"),
]


@pytest.mark.parametrize(("event", "said", "kind"), BRIEF, ids=lambda v: type(v).__name__)
def test_every_event_kind_has_a_brief_sentence(event: Event, said: list[str], kind: str) -> None:
    assert announce.brief(event) == said
    assert announce.spoken_kind(event) == kind
    full = " ".join(announce.sentences(event))
    assert len(" ".join(said)) <= max(len(full), 40), (said, full)  # never longer than in full


def test_the_brief_table_covers_every_event_kind() -> None:
    assert {type(event) for event, _, _ in BRIEF} == set(get_args(Event))


def test_a_round_result_in_brief_is_two_short_sentences_where_full_names_every_majority() -> None:
    event = round_ended()
    assert announce.results([event], short=True) == ["Alice loses 2 lives.", "Carol is out."]
    full = announce.results([event], short=False)
    assert full == announce.round_summary(event) and "Bob 8 points: bears." in full


# --------------------------------------------------------------------------- whole games
def seeded_games(count: int = 12) -> list[list[str]]:
    """Seeded simulated games as canonical lines, the start player drawn by lot replaced by a
    typed 'starts' (so the referee's own lot does not matter)."""
    games = []
    for seed in range(count):
        actions = simulate_game(random.Random(seed))
        lines = [canonical(a) for a in actions]
        games.append([lines[0], lines[1].replace(" by lot", "")] + lines[2:])
    return games


def typed_game(lines: list[str]) -> list[Reply]:
    referee = Referee(rng=random.Random(0), confirm_new_game=False)
    replies = [referee.handle(line) for line in lines]
    assert all(r.ok for r in replies), [r.error for r in replies if not r.ok]
    assert referee.game is not None and referee.game.is_over
    return replies


def heard_game(lines: list[str]) -> list[tuple[Command | None, Reply]]:
    """The game by voice as the table plays it: the new game typed (None), every other line
    heard (its command); a heard hand or sudden death is asked about, and a heard "yes" applies it."""
    referee = Referee(rng=random.Random(0), confirm_new_game=False)
    replies: list[tuple[Command | None, Reply]] = [(None, referee.handle(lines[0]))]
    for line in lines[1:]:
        command = parse(line, referee.players)
        replies.append((command, referee.execute(command, heard=True)))
        if isinstance(command.to_action(), DeclareHand | SuddenDeath):
            assert replies[-1][1].question
            yes = parse("yes", referee.players)
            replies.append((yes, referee.execute(yes, heard=True)))
    assert all(r.ok for _, r in replies), [r.error for _, r in replies if not r.ok]
    assert referee.game is not None and referee.game.is_over
    return replies


RESULT_WORDS = ("lose", "Nobody loses", " out.", "wins the game", "share the win", "Sudden death")


def test_a_typed_game_says_nothing_but_the_results() -> None:
    for lines in seeded_games():
        replies = typed_game(lines)
        aloud = [spoken(r, False, "brief") for r in replies]
        for reply, said in zip(replies, aloud, strict=True):
            ended = any(isinstance(e, RoundEnded | GameWon) for e in reply.events)
            assert bool(said) == ended, (reply.command, said)
            for sentence in said:
                assert any(word in sentence for word in RESULT_WORDS), sentence
        rounds = sum(isinstance(e, RoundEnded) for r in replies for e in r.events)
        assert sum(bool(s) for s in aloud) == rounds  # one answer a round, the game's end with the last
        assert any("wins the game" in s or "share the win" in s for s in aloud[-1])


def test_results_says_only_round_results_and_the_game_s_end() -> None:
    for lines in seeded_games(6):
        for command, reply in heard_game(lines):
            said = spoken(reply, command is not None, "results")
            assert said == announce.results(reply.events, short=False)
        for reply in typed_game(lines):
            assert spoken(reply, False, "results") == announce.results(reply.events, short=False)


def test_full_is_what_the_table_said_before_the_setting() -> None:
    """``full``: a typed answer's every sentence, or its refusal; a heard one's read-back first
    (``heard_readback``), as the table and ``lifeguard listen`` said it before."""
    referee = Referee(rng=random.Random(0), confirm_new_game=False)
    for line in OPENING:
        reply = referee.handle(line)
        assert spoken(reply, False, "full") == reply.said
    refused = referee.execute(parse("carol knocks", referee.players), heard=True)
    assert spoken(refused, True, "full") == ["Carol knocks.", refused.error]
    swap = referee.execute(parse("alice swaps 2 cat mouse", referee.players), heard=True)
    assert spoken(swap, True, "full") == ["Alice put down cat and mouse for row 2: bear and dog. Bob's turn."]
    typo = referee.handle("bob swops")
    assert spoken(typo, False, "full") == [typo.error]
    # as the table said it: the heard command's read-back (of the command heard: "yes" has none)
    for command, reply in heard_game(seeded_games(1)[0]):
        readback = [] if command is None else announce.heard_readback(
            command.canonical, command.intent, reply.ok, reply.question)
        assert spoken(reply, command is not None, "full") == [*readback, *reply.said]


def test_a_heard_command_is_read_back_as_far_as_it_could_be_misheard() -> None:
    referee = Referee(rng=random.Random(0), confirm_new_game=False)
    referee.handle(OPENING[0])

    def heard(line: str) -> list[str]:
        return spoken(referee.execute(parse(line, referee.players), heard=True), True, "brief")

    assert heard("alice starts") == ["Alice starts."]
    assert heard("row 1 giraffe") == ["Row 1: giraffe."]
    assert heard("row 2 bear dog") == ["Row 2: bear dog."]
    assert heard("row 3 pig pig cat") == ["Row 3: pig pig cat."]
    assert heard("row 4 mole goat sheep mouse") == ["Row 4: mole goat sheep mouse."]  # not "Rows are set."
    knock = referee.execute(parse("carol knocks", referee.players), heard=True)  # refused: not her turn
    assert not knock.ok and spoken(knock, True, "brief") == ["Carol knocks.", knock.error]
    assert heard("alice swaps row two for cat and a mouse") == ["Alice: cat mouse for row 2."]
    assert heard("no") == ["Taken back: alice swaps 2 cat mouse."]
    assert heard("alice swaps 2 cat mouse") == ["Alice: cat mouse for row 2."]
    assert heard("bob swaps 1 rabbit") == ["Bob: rabbit for row 1."]
    assert heard("carol swaps 3 mouse rabbit rabbit") == ["Carol: rabbit rabbit mouse for row 3."]
    assert heard("alice knocks") == ["Alice knocks."]  # not who has a last turn
    assert heard("bob passes") == ["Bob passes."]
    assert heard("undo") == ["Undone: bob passes."]
    assert heard("redo") == ["Redone: bob passes."]
    assert heard("status") == announce.status(referee.game)  # asked for: said as it is
    assert heard("help") == [announce.COMMANDS_ON_SCREEN]
    assert heard("carol has all pigs") == ["Carol has all pigs, right?"]
    assert heard("no") == ["Fine, carol has all pigs was not applied."]
    assert heard("new game dave erin frank") == ["New game: Dave, Erin and Frank, right?"]
    assert heard("no")[0].startswith("Fine, the new game")


def test_a_heard_swap_or_row_the_recogniser_was_unsure_of_is_asked_then_the_result_is_short() -> None:
    """Issue 40: a swap or row whose end the recogniser completed where the speaker seemed to
    stop (``Command.unsure``) is read back as a question, in brief as in full: said as a
    statement, the table would not know it waits for "yes"."""
    from dataclasses import replace

    assert announce.brief_readback("alice swaps 3 mole goat rabbit", "swap", asked=True) \
        == "Alice: mole goat rabbit for row 3, right?"
    assert announce.brief_readback("row 4 mole sheep dog pig", "row", asked=True) == "Row 4: mole sheep dog pig, right?"
    assert announce.brief_readback("row 4 mole sheep dog pig", "row") == "Row 4: mole sheep dog pig."
    referee = Referee(rng=random.Random(0), confirm_new_game=False)
    for line in ("new game alice bob carol", "alice starts", "row 1 pig", "row 2 bear dog", "row 3 giraffe mole cat"):
        assert referee.handle(line).ok
    row = referee.execute(replace(parse("row 4 mole sheep dog pig", referee.players), unsure=True), heard=True)
    assert row.question and spoken(row, True, "brief") == ["Row 4: mole sheep dog pig, right?"]
    yes = referee.execute(parse("yes", referee.players), heard=True)
    assert yes.ok and spoken(yes, True, "brief") == (announce.results(yes.events, short=True) or [announce.APPLIED])
    swap = referee.execute(replace(parse("alice swaps 3 mole goat cat", referee.players), unsure=True), heard=True)
    assert swap.question and spoken(swap, True, "brief") == ["Alice: mole goat cat for row 3, right?"]


def test_a_heard_hand_is_asked_as_a_person_says_it_then_the_result_is_short() -> None:
    assert announce.brief_readback("carol has 2 bear 3 pig 1 dog 4 mole", "hand", asked=True) \
        == "Carol: 2 bears 4 moles a dog and 3 pigs, right?"
    lines = seeded_games(1)[0]
    referee = Referee(rng=random.Random(0), confirm_new_game=False)
    referee.handle(lines[0])
    hands = results = 0
    for line in lines[1:]:
        command = parse(line, referee.players)
        reply = referee.execute(command, heard=True)
        assert reply.ok, reply.error
        if not isinstance(command.to_action(), DeclareHand | SuddenDeath):
            continue
        action = command.to_action()
        said = spoken(reply, True, "brief")
        if isinstance(action, DeclareHand):
            hands += 1
            assert reply.question and said == [
                f"{action.player.title()}: {announce.describe(action.cards).replace(',', '')}, right?"], said
        yes = referee.execute(parse("yes", referee.players), heard=True)
        ended = [e for e in yes.events if isinstance(e, RoundEnded)]
        # the question read it back: the result says it was taken, else "Applied."
        assert spoken(yes, True, "brief") == (announce.results(yes.events, short=True) or [announce.APPLIED])
        if ended:
            results += 1
            assert 1 <= len(announce.brief(ended[0])) <= 3
            # the repeat command says the whole result, in every setting
            repeat = referee.handle("repeat")
            for speech in ("brief", "results", "full"):
                assert spoken(repeat, False, speech) == yes.said
    assert hands and results and referee.game is not None and referee.game.is_over


def test_a_typed_refusal_or_question_is_not_said_in_brief() -> None:
    referee = Referee(rng=random.Random(0))
    for line in OPENING:
        referee.handle(line)
    refused = referee.handle("carol knocks")
    assert not refused.ok and spoken(refused, False, "brief") == []
    asked = referee.handle("new game dave erin frank")
    assert asked.question and spoken(asked, False, "brief") == []
    # a hearing the referee answers (an unfinished command) is said in brief and full only
    unfinished = Reply(False, error="Say the whole command again.")
    assert spoken(unfinished, True, "brief") == spoken(unfinished, True, "full") == ["Say the whole command again."]
    assert spoken(unfinished, True, "results") == []


# --------------------------------------------------------------------------- settings and chat
def test_the_speech_setting_defaults_to_brief_and_refuses_a_bad_value_in_a_sentence() -> None:
    assert VoiceSettings().speech == Settings().voice.speech == "brief"
    assert settings_from_dict({"voice": {"speech": "results"}}).voice.speech == "results"
    with pytest.raises(ConfigError) as bad:
        settings_from_dict({"voice": {"speech": "loud"}}, "my.toml")
    assert str(bad.value) == "my.toml: 'voice.speech' is 'loud'; allowed: \"brief\", \"full\", \"results\"."
    shipped = load_settings(Path(__file__).parents[1] / "config" / "lifeguard.toml")
    assert shipped.voice.speech == "brief"


def chat(tmp_path: Path, speech: str | None, lines: list[str]) -> list[dict]:
    config = tmp_path / f"{speech}.toml"
    config.write_text(f'[voice]\nspeech = "{speech}"\n' if speech else "")
    done = subprocess.run(
        [sys.executable, "-m", "assistant.cli", "--config", str(config), "--seed", "1", "chat", "--jsonl",
         "--no-store"], input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=60,
        cwd=Path(__file__).parents[1], check=False)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_chat_jsonl_says_what_was_spoken_when_it_is_not_said(tmp_path: Path) -> None:
    game = seeded_games(1)[0]
    brief = chat(tmp_path, None, [*game, "repeat", "dave knocks"])  # the default: brief
    full = chat(tmp_path, "full", game)
    assert [a["said"] for a in brief[: len(game)]] == [a["said"] for a in full]  # said is whole
    assert all("spoken" not in a for a in full)
    for answer in brief[: len(game)]:
        if answer["intent"] != "new_game" and any(
                word in answer["said"] for word in ("loses", "lose", "wins the game", "share the win")):
            assert answer["spoken"] and answer["spoken"] != answer["said"], answer
            assert any(word in answer["spoken"] for word in RESULT_WORDS), answer
        else:
            assert answer["spoken"] == "", answer
    assert "spoken" not in brief[-2]  # 'repeat' is said in full
    assert brief[-1]["ok"] is False and brief[-1]["spoken"] == ""  # a typed refusal: on screen only
