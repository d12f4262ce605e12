"""Hypothesis: arbitrary text and arbitrary command sequences never raise out of ``parse`` or
``Referee.handle``, and a refused command never changes the referee's state."""

from __future__ import annotations

import json
import os
import random

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from assistant.commands import ParseError, canonical, parse
from assistant.commands.grammar import (
    ANIMAL_WORDS,
    LIST_SEPARATORS,
    NUMBERS,
    RESERVED_WORDS,
    ROW_WORDS,
)
from assistant.referee import Referee
from engine.simulate import simulate_game

PLAYERS = ("alice", "bob", "carol")
#: More examples for a long hunt: LIFEGUARD_FUZZ_EXAMPLES=5000 pytest tests/commands/test_fuzz.py
EXAMPLES = int(os.environ.get("LIFEGUARD_FUZZ_EXAMPLES", "150"))
SETTINGS = settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

#: Every word the language knows, some names, some near misses.
VOCABULARY = sorted(RESERVED_WORDS | set(PLAYERS) | {"dave", "alise", "0", "1", "2", "3", "4", "5",
                                                     "10", "11", "99", ",", "!", "all", "the"})


@SETTINGS
@given(st.text(max_size=80))
def test_parse_never_raises_anything_but_parse_error(text: str) -> None:
    for players in (PLAYERS, None):
        try:
            command = parse(text, players)
        except ParseError as err:
            assert err.message and "\n" not in err.message
        else:
            assert command.intent


@SETTINGS
@given(st.lists(st.sampled_from(VOCABULARY), max_size=12))
def test_parse_of_vocabulary_words_and_canonical_round_trip(words: list[str]) -> None:
    text = " ".join(words)
    try:
        command = parse(text, PLAYERS)
    except ParseError as err:
        assert err.message
        if err.suggestion:
            parse(err.suggestion, PLAYERS)  # a suggestion is always a command
        return
    if all(n <= 10 for n in command.cards.counts().values()):
        assert parse(command.canonical, PLAYERS).canonical == command.canonical


@SETTINGS
@given(st.text(max_size=60))
def test_referee_handle_never_raises(text: str) -> None:
    referee = Referee(rng=random.Random(0))
    for line in ("new game alice bob carol", text, "alice starts", text, "status", text):
        reply = referee.handle(line)
        assert isinstance(reply.ok, bool)
        assert reply.ok or reply.error
        json.dumps(reply.to_json())


# --------------------------------------------------------------------------- command sequences
names = st.sampled_from([*PLAYERS, "dave"])
rows = st.sampled_from(["1", "2", "3", "4", "0", "5", *ROW_WORDS])
animal_words = st.sampled_from(sorted(ANIMAL_WORDS))
count_words = st.sampled_from(["1", "2", "3", "5", "10", *sorted(NUMBERS)])
card_lists = st.lists(animal_words, min_size=1, max_size=5).map(" ".join)
hands = st.lists(st.tuples(count_words, animal_words), min_size=1, max_size=5).map(
    lambda pairs: ", ".join(f"{n} {a}" for n, a in pairs)
)

lines = st.one_of(
    st.builds("row {} {}".format, rows, card_lists),
    st.builds("{} swaps {} {}".format, names, rows, card_lists),
    st.builds("{} swaps row {} {}".format, names, rows, card_lists),
    st.builds("{} knocks".format, names),
    st.builds("{} passes".format, names),
    st.builds("{} starts".format, names),
    st.builds("{} has {}".format, names, hands),
    st.builds("{} has all {}".format, names, st.sampled_from(["cats", "pigs", "hares", "bears"])),
    st.sampled_from(["undo", "redo", "status", "repeat", "help", "yes", "no",
                     "new game alice bob carol", "new game alice bob", "new game dora eve fred"]),
    st.text(max_size=20),
)


def simulated_prefix(seed: int, length: int) -> list[str]:
    actions = simulate_game(random.Random(seed), players=3)
    # The simulated game uses its own names: rename them to alice, bob and carol.
    mapping = dict(zip(actions[0].players, PLAYERS, strict=True))
    texts = [canonical(a) for a in actions[: max(1, length)]]
    renamed = []
    for text in texts:
        words = [mapping.get(w, w) for w in text.split()]
        renamed.append(" ".join(words))
    return renamed


@settings(max_examples=EXAMPLES * 4 // 3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    prefix=st.integers(0, 80),
    commands=st.lists(lines, max_size=25),
)
def test_command_sequences_never_raise_and_refusals_change_nothing(
    seed: int, prefix: int, commands: list[str]
) -> None:
    referee = Referee(rng=random.Random(seed))
    for line in simulated_prefix(seed, prefix):
        assert referee.handle(line).ok, line
    for line in commands:
        before = json.dumps(referee.state(), sort_keys=True)
        history = referee.history()
        reply = referee.handle(line)
        if not reply.ok:
            assert reply.error
            assert json.dumps(referee.state(), sort_keys=True) == before, line
            assert referee.history() == history
        else:
            assert reply.said
    # Whatever happened, the accepted commands alone rebuild the same state (the store's resume).
    if referee.game is not None:
        assert Referee.resume(referee.history()).state() == referee.state()


@SETTINGS
@given(st.lists(st.text(st.characters(categories=["Lu", "Ll", "Lo"]), min_size=1, max_size=8),
                min_size=3, max_size=5))
def test_names_in_any_alphabet_stay_one_word_and_round_trip(names: list[str]) -> None:
    # 'and' separates names; a letter whose lower case is not a letter (İ) is out of scope.
    assume(all(n.lower() not in LIST_SEPARATORS and n.lower().isalpha() for n in names))
    try:
        command = parse("new game " + " ".join(names))
    except ParseError as err:
        assert err.message
        return
    assert len(command.names) == len(names)
    assert parse(command.canonical).canonical == command.canonical
    referee = Referee(rng=random.Random(0))
    reply = referee.handle(command.canonical)
    assert reply.ok or reply.error


def test_huge_numbers_are_refused_not_crashed() -> None:
    digits = "9" * 500
    for text in (f"row {digits} pig", f"alice has {digits} pigs", f"alice swaps {digits} pig"):
        try:
            parse(text, PLAYERS)
        except ParseError as err:
            assert "9999999999" in err.message and len(err.message) < 200
        else:  # pragma: no cover
            raise AssertionError(text)


def test_names_with_accents_are_one_word() -> None:
    command = parse("New game Jörg, Zoë and Åsa")
    assert command.names == ("Jörg", "Zoë", "Åsa")
    assert parse("zoë knocks", command.names).canonical == "Zoë knocks"


def _misspelt(line: str, where: int, how: int) -> str:
    """``line`` with one letter of one word dropped, doubled or swapped with the next."""
    words = line.split()
    i = where % len(words)
    word = words[i]
    if len(word) < 3 or not word.isalpha():
        return line
    k = how % (len(word) - 1)
    words[i] = [word[:k] + word[k + 1:], word[:k] + word[k] + word[k:],
                word[:k] + word[k + 1] + word[k] + word[k + 2:]][how % 3]
    return " ".join(words)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), prefix=st.integers(1, 80), line=lines,
       where=st.integers(0, 20), how=st.integers(0, 30))
def test_a_suggestion_offered_is_accepted_by_the_game(seed: int, prefix: int, line: str,
                                                      where: int, how: int) -> None:
    """Issue 36: 'carl passes' on Bob's turn offered 'carol passes', which was then refused."""
    referee = Referee(rng=random.Random(seed), confirm_new_game=False)
    for accepted in simulated_prefix(seed, prefix):
        assert referee.handle(accepted).ok, accepted
    assume(line.split())
    reply = referee.handle(_misspelt(line, where, how))
    if not reply.ok and reply.suggestion:
        assert referee.handle(reply.suggestion).ok, (reply.error, reply.suggestion)
