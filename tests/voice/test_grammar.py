"""The speech grammar is generated from the command language and narrowed by the game state."""

from __future__ import annotations

import re

import pytest

from assistant.commands.grammar import RESERVED_WORDS, TEMPLATES
from assistant.referee import Referee
from assistant.table.expect import intent_weights
from assistant.voice.jsgf import build_grammar
from assistant.voice.pronounce import espeak_to_cmu, pronounce

from .conftest import needs_espeak

CMU_PHONES = set(
    "AA AE AH AO AW AY B CH D DH EH ER EY F G HH IH IY JH K L M N NG OW OY P R S SH T TH UH UW "
    "V W Y Z ZH".split()
)


def referee_at(*commands: str) -> Referee:
    referee = Referee(confirm_new_game=False)
    for line in commands:
        reply = referee.handle(line)
        assert reply.ok, reply.error
    return referee


ROWS = ("new game alice bob carol", "row 1 pig", "row 2 bear dog", "row 3 cat cat mouse",
        "row 4 goat goat sheep mole")


def rule(jsgf: str, name: str) -> str:
    match = re.search(rf"^<{name}> = (.*);$", jsgf, re.M)
    assert match, f"no rule <{name}>"
    return match.group(1)


def test_every_word_is_a_word_of_the_typed_language_or_a_player() -> None:
    referee = referee_at(*ROWS)
    grammar = build_grammar(referee.players, referee.game)
    assert grammar.words <= RESERVED_WORDS | set(referee.players)
    # ... and the template words of the intents in play all made it in.
    swap_words = set(re.findall(r"[a-z]+", re.sub(r"\{\w+\}", " ", TEMPLATES["swap"][0])))
    assert swap_words <= grammar.words


def test_a_swap_of_row_k_names_exactly_k_cards() -> None:
    referee = referee_at(*ROWS)
    jsgf = build_grammar(referee.players, referee.game).jsgf
    swap = rule(jsgf, "i_swap")
    branches = swap.split("<row_")[1:]
    assert len(branches) == 4
    for branch in branches:
        k = branch[0]
        assert set(re.findall(r"<cards_(\w+)>", branch)) == {k}, branch
    assert rule(jsgf, "cards_1") == "( <item_1> )"
    assert "<item_3>" in rule(jsgf, "cards_3") and "<item_4>" not in rule(jsgf, "cards_3")
    assert rule(jsgf, "row_2") == "( two )"


def test_the_phase_and_the_turn_weight_the_grammar() -> None:
    rows_phase = build_grammar(*_state("new game alice bob carol"))
    assert "<i_hand>" not in rows_phase.jsgf and "<i_row>" in rows_phase.jsgf
    assert "<i_swap>" not in rows_phase.jsgf  # nobody swaps before the rows are down
    referee = referee_at(*ROWS)
    turns = build_grammar(referee.players, referee.game)
    turn = referee.game.turn
    assert re.search(rf"/6/ {turn}\b", rule(turns.jsgf, "turn_player"))
    assert "pass" not in turns.words  # passing only happens after a knock


def test_a_knock_the_game_would_refuse_is_less_likely_but_still_heard() -> None:
    """The weights ask the game whether the turn player may knock (knock only after one's
    first swap): before it, a knock stays in the grammar (so its refusal is said) at a lower
    weight; after it, a knock weighs as before."""
    referee = referee_at(*ROWS)
    first = referee.game.turn
    before = intent_weights(referee.players, referee.game)["knock"]
    for animal in ("cat", "pig", "cat"):  # everyone swaps once: the turn is back at the first
        assert referee.handle(f"{referee.game.turn} swaps 1 {animal}").ok
    assert referee.game.turn == first and referee.game.may_knock(first)
    after = intent_weights(referee.players, referee.game)["knock"]
    assert 0 < before < after == 1.5


def test_rows_still_missing_outweigh_rows_already_entered() -> None:
    referee = referee_at("new game alice bob carol", "row 2 bear dog")
    row = rule(build_grammar(referee.players, referee.game).jsgf, "i_row")
    weights = dict(re.findall(r"/([\d.]+)/ \( <row_(\d)>", row)[i][::-1] for i in range(4))
    assert float(weights["2"]) < float(weights["1"]) == float(weights["3"]) == float(weights["4"])


def test_players_still_to_reveal_outweigh_those_who_have() -> None:
    referee = referee_at(*ROWS)
    for animal in ("cat", "pig", "cat"):  # everyone swaps row 1 once, then the next one knocks
        assert referee.handle(f"{referee.game.turn} swaps 1 {animal}").ok
    assert referee.handle(f"{referee.game.turn} knocks").ok
    while referee.game.phase.name == "FINAL_TURNS":
        assert referee.handle(f"{referee.game.turn} passes").ok
    assert referee.game.phase.name == "REVEAL"
    first = referee.game.alive[0]
    known = [a.value for a in referee.game.known[first]]
    reply = referee.handle(f"{first} has " + " ".join(known + ["giraffe"] * (10 - len(known))))
    assert reply.ok, reply.error
    weights = dict((name, float(w)) for w, name in re.findall(
        r"/([\d.]+)/ (\w+)", rule(build_grammar(referee.players, referee.game).jsgf, "reveal_player")))
    others = [p for p in referee.players if p != first]
    assert all(weights[p] > weights[first] for p in others)
    assert "<reveal_player>" in rule(build_grammar(referee.players, referee.game).jsgf, "i_hand")


def test_no_game_and_no_players_leaves_only_meta_commands() -> None:
    grammar = build_grammar((), None)
    assert set(grammar.intents) == {"undo", "redo", "no", "yes", "status", "repeat", "help"}


def _state(*commands: str):
    referee = referee_at(*commands)
    return referee.players, referee.game


def test_espeak_phonemes_map_onto_cmu_phones() -> None:
    assert espeak_to_cmu("z'aImn@") == ["Z", "AY", "M", "N", "AH"]
    assert espeak_to_cmu("tS'0klIt") == ["CH", "AA", "K", "L", "IH", "T"]


@needs_espeak
@pytest.mark.parametrize("name", ["ximena", "zoltan", "siobhan", "nkechi"])
def test_unusual_names_get_a_pronunciation_in_cmu_phones(name: str) -> None:
    phones = pronounce(name).split()
    assert len(phones) >= 3 and set(phones) <= CMU_PHONES


def test_no_animal_starts_with_a_vowel_so_the_speech_grammar_has_no_an() -> None:
    grammar = build_grammar(("alice", "bob"), referee_at(*ROWS).game)
    assert "an" not in grammar.words and "a" in grammar.words


@needs_espeak
def test_many_words_in_one_espeak_call_keep_their_own_pronunciations() -> None:
    from assistant.voice.pronounce import espeak_pronunciations

    words = ["no", "one", "giraffe", "dog", "two"]  # "no. one" once read as "number one"
    phones = espeak_pronunciations(words, "en-us")
    assert phones["no"] == "N OW" and phones["one"] == "W AH N"
    assert phones["giraffe"].startswith("JH") and phones["dog"].startswith("D")
